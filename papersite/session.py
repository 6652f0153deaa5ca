"""The warm rebuild session: the preview, `build --watch` and the tests rebuild through it.

A Rebuilder keeps a BuildCache between rebuilds (see execution.py), so a
rebuild after an edit redoes only what the edit touches, and keeps the last
good build, so a broken edit never stops the preview.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .config import SiteConfig, load_config
from .errors import Problem, SiteError
from .output import write_site
from .pipeline import Build, BuildCache, Run, build_site
from .watch import ChangeSet


@dataclass(frozen=True)
class Outcome:
    """What one rebuild did, for the terminal line and the preview server."""

    build: Build | None  # None when the build failed
    error: SiteError | None
    changed: int  # output files added, changed or removed
    seconds: float


class Rebuilder:
    """Rebuilds the site on a warm cache and keeps the last good build.

    The watcher loop, the preview server, `build --watch` and the tests all go
    through rebuild(), so what is tested is what runs. Never raises: a broken
    edit becomes an Outcome with an error, and the last good build stays.
    """

    def __init__(self, config_path: Path, base_url: str | None = None, output: Path | None = None):
        self.config_path = Path(config_path)
        self.base_url = base_url
        self.output = output
        self.cache = BuildCache()
        self._config_loaded: SiteConfig | None = None
        self._config_stamp: tuple | None = None
        self.last: Build | None = None
        self.error: SiteError | None = None

    def rebuild(self) -> Outcome:
        start = time.perf_counter()
        run = Run(self.cache)  # in memory, all of it kept for the next rebuild
        with run.executing():
            return self._rebuild(start, run)

    def _config(self) -> SiteConfig:
        try:
            st = self.config_path.stat()
            stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None  # load_config says what is wrong
        if stamp is None or stamp != self._config_stamp:
            self._config_loaded, self._config_stamp = load_config(self.config_path), stamp
        return self._config_loaded

    def _rebuild(self, start: float, run: Run) -> Outcome:
        try:
            # site.yaml is re-read whenever its stamp changes: a change to it
            # (venues, topics, base_url) must reach every page.
            config = self._config().with_base_url(self.base_url)
            build = build_site(config, run=run)
            if self.output is not None:
                report = write_site(build.files, self.output, self.cache.digests, config.root)
                changed = report.written + report.removed
            else:
                changed = count_changed(self.last.files if self.last else {}, build.files)
        except SiteError as error:
            self.error = error
        except Exception as error:  # a bug, or a template raising: the preview must survive it
            traceback.print_exc()
            self.error = unexpected(error)
        else:
            if self.last is None:
                self.cache.related.prepare_for_edits()  # part of the first build, not of the first edit
            self.last, self.error = build, None
            return Outcome(build, None, changed, time.perf_counter() - start)
        return Outcome(None, self.error, 0, time.perf_counter() - start)


def unexpected(error: Exception) -> SiteError:
    """An error the build did not anticipate, located in a template when one raised it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename.endswith((".html", ".xml", ".txt"))]
    where = (frames[-1].filename, frames[-1].lineno) if frames else ("<build>", None)
    return SiteError(Problem(where[0], where[1], f"unexpected {type(error).__name__}: {error}"))


def count_changed(old: dict[str, bytes], new: dict[str, bytes]) -> int:
    """How many output files were added, changed or removed."""
    # Set operations on the items views run in C; an unchanged file is the very same bytes
    # object as last build's, whose hash is computed once and cached.
    return len({path for path, _ in old.items() ^ new.items()})


def summary(changes: ChangeSet | None, outcome: Outcome, written: str = "changed") -> str:
    """The one terminal line per rebuild (plus the problems when it failed)."""
    what = changes.describe() if changes else "initial build"
    stamp = time.strftime("%H:%M:%S")
    took = f"{outcome.seconds * 1000:.0f} ms"
    if outcome.error:
        problems = "\n".join(f"  {p}" for p in outcome.error.problems)
        return f"{stamp} {what}: build failed in {took}, keeping the last good build\n{problems}"
    files = "no output" if outcome.changed == 0 else \
        f"{outcome.changed} file{'s' if outcome.changed != 1 else ''}"
    return f"{stamp} {what}: {files} {'built' if changes is None else written} in {took}"
