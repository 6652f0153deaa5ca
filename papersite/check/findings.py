"""What `check` reports: one problem of one file, at a line, and the fix when one is sure."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from ..errors import SiteError
from ..source.content import split_front_matter
from ..source.yamlsource import load_yaml


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # as the user reads it: relative to site.yaml's folder, or a path of the built site
    line: int | None
    message: str
    kind: str = ""  # which check: "duplicate", "tex", "link", ... (docs/checks.md lists them)
    fix: str = ""  # the sure fix, said in a few words; `check --fix` applies it ("" when none is sure)
    note: bool = False  # said, but not a problem: a check that could not run (no Java)
    rename: tuple[str, ...] = ()  # (author as written, as the fix writes it), for fix.py

    @property
    def said(self) -> str:
        """The message, with its sure fix."""
        fix = f" [--fix: {self.fix}]" if self.fix else ""
        return f"{'note: ' if self.note else ''}{self.message}{fix}"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.said}"


def shown(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


@functools.lru_cache(maxsize=4096)  # cleared by every run_checks
def front_lines(path: Path) -> tuple[dict, int]:
    """(key path -> line, line where the abstract starts) of a content file that already parsed once:
    read again only for the files a finding names."""
    try:
        front, _, body_line = split_front_matter(path.read_text(encoding="utf-8-sig"))
        return load_yaml(front, path, first_line=2)[1], body_line
    except (OSError, ValueError, SiteError):
        return {}, 0


def line_of(path: Path, *key) -> int | None:
    """The line of a front matter key (("authors", 2) for the third author), else of its parent."""
    lines, _ = front_lines(path)
    while key:
        if key in lines:
            return lines[key]
        key = key[:-1]
    return None


def body_line(path: Path, offset: int = 0) -> int | None:
    """The file line of `offset` in the abstract `body` (as the Paper holds it, stripped)."""
    _, first = front_lines(path)
    if not first:
        return None
    try:
        raw = split_front_matter(path.read_text(encoding="utf-8-sig"))[1]
    except (OSError, ValueError):
        return first
    if not raw.strip():
        return first
    lead = len(raw) - len(raw.lstrip())  # the Paper's abstract is the body stripped
    return first + raw[:lead + offset].count("\n")
