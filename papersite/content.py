"""Reading content files: one Markdown file per paper, YAML front matter + abstract.

    ---
    id: icml2024-3f2a9c1b
    title: "GALA3D: Generative 3D Gaussians with Layout-Guided Control"
    authors: [Ada Lovelace, Alan Turing]
    venue: icml-2024
    year: 2024
    topics: [generative-models, computer-vision]
    links: {pdf: https://..., code: https://...}
    ---
    The abstract, in Markdown, with $\\LaTeX$ math.
"""
from __future__ import annotations

import difflib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import SiteConfig
from .errors import Problem, SiteError
from .model import LINK_KINDS, Paper
from .parallel import parallel_map
from .validate import Checker
from .yamlsource import load_yaml

PAPER_KEYS = ("id", "title", "authors", "venue", "year", "topics", "links", "title_source", "extra")
MAX_FILE_BYTES = 10 * 1024 * 1024  # far beyond any abstract; guards against a stray dump
# Abstracts run to 2,000 characters. Rendering costs about 0.4 ms per $math$ span, and
# Python-Markdown is quadratic in the spans of one paragraph: a 5 MB abstract took 13
# minutes. 64,000 characters renders in under 3 s whatever it holds (measured).
MAX_ABSTRACT_CHARS = 64_000
MAX_FRONT_MATTER_CHARS = 64_000  # PyYAML parses about 1 MB/s


def split_front_matter(text: str) -> tuple[str, str, int]:
    """Split '---\\nYAML\\n---\\nbody' into (yaml, body, line where body starts).

    Raises ValueError when the file does not start with a front matter block.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---\n"):
        raise ValueError("missing front matter: the file must start with a line '---'")
    match = re.search(r"^---[ \t]*$", text[4:], re.MULTILINE)
    if not match:
        raise ValueError("front matter is not closed: add a line '---' after it")
    front = text[4:4 + match.start()]
    body = text[4 + match.end():].removeprefix("\n")
    body_line = front.count("\n") + 3
    return front, body, body_line


def find_content_files(content_dir: Path) -> list[Path]:
    """Every *.md under content_dir, sorted; symlinked folders are not followed (no loops)."""
    return [Path(path) for path, _ in _content_entries(content_dir)]


def _content_entries(content_dir: Path) -> list[tuple[str, os.DirEntry]]:
    """(path, directory entry) of every content file, in Path order: plain strings, because
    a rebuild looks at every file and Path objects cost more than the stat (10,000 files)."""
    found, folders = [], [str(content_dir)]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if _is_dir(entry):
                if not name.startswith(".") and not entry.is_symlink():
                    folders.append(entry.path)
            elif name.endswith(".md") and not name.startswith(".") and name.lower() != "readme.md":
                found.append((entry.path, entry))
    found.sort(key=lambda item: item[0].replace(os.sep, "\0"))  # as Paths sort: part by part
    return found


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def slugify(text: str) -> str:
    """'Grokking: A Théorie' -> 'grokking-a-theorie'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@dataclass
class Parsed:
    """What one file gave: a Paper, or the problems that stop it."""

    paper: Paper | None
    problems: list[Problem]


def read_paper(path: Path, config: SiteConfig, display_path: Path | str | None = None) -> Parsed:
    """Parse and validate one content file against the site's venues and topics."""
    shown = display_path or path
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Parsed(None, [Problem(shown, None, f"cannot read: {exc.strerror}")])
    if len(raw) > MAX_FILE_BYTES:
        return Parsed(None, [Problem(shown, None, f"file is {len(raw) / 1_048_576:.1f} MB; the limit is "
                                                  f"{MAX_FILE_BYTES // 1_048_576} MB: is this an abstract?")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        return Parsed(None, [Problem(shown, line, f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                                                  "save the file as UTF-8")])
    try:
        front, body, body_line = split_front_matter(text)
        if len(front) > MAX_FRONT_MATTER_CHARS:
            return Parsed(None, [Problem(shown, 2, f"front matter is {len(front):,} characters; "
                                                   f"the limit is {MAX_FRONT_MATTER_CHARS:,}")])
        data, lines = load_yaml(front, shown, first_line=2)
    except ValueError as exc:
        return Parsed(None, [Problem(shown, 1, str(exc))])
    except SiteError as exc:
        return Parsed(None, exc.problems)
    return _paper_from(data, lines, body, body_line, path, shown, config)


def _paper_from(data: Any, lines: dict, body: str, body_line: int, path: Path, shown,
                config: SiteConfig) -> Parsed:
    check = Checker(shown, lines)
    check.lines.setdefault((), 1)
    data = check.mapping(data, (), "front matter")
    check.unknown_keys(data, (), PAPER_KEYS)
    paper_id = data.get("id")
    if isinstance(paper_id, int) and not isinstance(paper_id, bool):
        paper_id = str(paper_id)  # `id: 1234` is a fine id too
    else:
        paper_id = check.field(data, (), "id", str, required=True)
    title = check.field(data, (), "title", str, required=True)
    authors = check.field(data, (), "authors", list, [])
    venue_slug = check.field(data, (), "venue", str, required=True)
    year = check.field(data, (), "year", int)
    title_source = check.field(data, (), "title_source", str, "")
    topics = check.field(data, (), "topics", list, [])
    links = _links(check, data)
    check.field(data, (), "extra", dict, {})

    venues = {v.slug: v for v in config.venues}
    venue = venues.get(venue_slug)
    if venue_slug and not venue:
        check.problem(("venue",), _unknown("venue", venue_slug, venues, "venues"))
    if venue and year is not None and year != venue.year:
        check.problem(("year",), f"year {year} does not match venue '{venue.slug}' ({venue.year})")
    known_topics = {t.slug for t in config.topics}
    for index, topic in enumerate(topics):
        if topic not in known_topics:
            check.problem(("topics", index), _unknown("topic", topic, known_topics, "topics"))
    if len(set(topics)) != len(topics):
        check.problem(("topics",), "a topic is listed twice")
    abstract = body.strip()
    if not abstract:
        check.problems.append(Problem(shown, body_line, "empty abstract: write it below the front matter"))
    elif len(abstract) > MAX_ABSTRACT_CHARS:
        check.problems.append(Problem(shown, body_line, f"abstract is {len(abstract):,} characters; the limit "
                                                        f"is {MAX_ABSTRACT_CHARS:,}: an abstract, not the paper"))
    slug = slugify(path.stem)
    if not slug:
        check.problems.append(Problem(shown, None, "file name gives an empty URL slug: use letters or digits"))

    if check.problems:
        return Parsed(None, check.problems)
    return Parsed(Paper(
        id=paper_id, slug=slug, title=title, venue=venue.slug, year=venue.year, abstract=abstract,
        authors=tuple(authors), topics=tuple(topics), links=links, title_source=title_source, source=path,
    ), [])


def _links(check: Checker, data: dict) -> tuple[tuple[str, str], ...]:
    links = check.field(data, (), "links", dict, {})
    check.unknown_keys(links, ("links",), LINK_KINDS)
    found = []
    for kind in LINK_KINDS:
        value = links.get(kind)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            check.problem(("links", kind), f"link '{kind}' must be a URL string")
            continue
        url = _normalise_link(kind, value.strip())
        if not re.match(r"^https?://[^\s/]+", url, re.IGNORECASE) or re.search(r"\s", url):
            check.problem(("links", kind), f"link '{kind}' must be an http(s) URL, not '{value[:60]}'")
            continue
        found.append((kind, url))
    return tuple(found)


def _normalise_link(kind: str, value: str) -> str:
    """Accept bare identifiers where they are unambiguous: a DOI or an arXiv id."""
    if kind == "doi" and re.match(r"^10\.\d{4,9}/\S+$", value):
        return "https://doi.org/" + value
    if kind == "arxiv" and re.match(r"^\d{4}\.\d{4,5}(v\d+)?$", value):
        return "https://arxiv.org/abs/" + value
    return value


def _unknown(what: str, value: str, known, key: str) -> str:

    hint = difflib.get_close_matches(value, sorted(known), n=1)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else f"; add it under '{key}:' in site.yaml"
    return f"unknown {what} '{value}'{suggestion}"


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    """What tells a file changed. mtime alone misses a same-size edit saved within the
    file system's timestamp resolution; ctime and the inode (editors that save by
    renaming a new file over the old one) catch it."""
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


class PaperCache:
    """Parsed papers keyed by file stamp, so a rebuild re-reads only changed files."""

    def __init__(self):
        self._entries: dict[str, tuple[tuple[int, ...], Parsed]] = {}
        self.config_key: object = None

    def read_all(self, entries: list[tuple[str, os.DirEntry]], config: SiteConfig) -> list[Parsed]:
        """read() for every (path, directory entry): the loop a rebuild runs 10,000 times, kept
        lean; the files to parse are parsed on all cores."""
        self._check_config(config)
        cached, found, missing = self._entries.get, [], []
        for path, entry in entries:
            try:
                stamp = _stamp(entry.stat())
            except OSError:
                stamp = None
            hit = cached(path)
            if stamp and hit and hit[0] == stamp:
                found.append(hit[1])
            else:
                missing.append((len(found), path, stamp))
                found.append(None)
        parsed = parallel_map(lambda miss: read_paper(Path(miss[1]), config, _display(Path(miss[1]), config.root)),
                              missing)
        for (index, path, stamp), result in zip(missing, parsed):
            if stamp:
                self._entries[path] = (stamp, result)
            found[index] = result
        return found

    def _check_config(self, config: SiteConfig) -> None:
        if self.config_key != (config.venues, config.topics):
            self._entries.clear()  # venue/topic validity depends on site.yaml
            self.config_key = (config.venues, config.topics)

    def read(self, path: Path | str, config: SiteConfig, shown=None, entry: os.DirEntry | None = None) -> Parsed:
        """The file parsed, or the last parse while its stamp is unchanged; `shown` (the
        path in messages, default: relative to the site) and `entry` (its stat) are optional."""
        self._check_config(config)
        try:
            st = entry.stat() if entry is not None else os.stat(path)
            stamp = _stamp(st)
        except OSError:
            stamp = None
        key = str(path)
        cached = self._entries.get(key)
        if stamp and cached and cached[0] == stamp:
            return cached[1]
        path = Path(path)
        parsed = read_paper(path, config, shown or _display(path, config.root))
        if stamp:
            self._entries[key] = (stamp, parsed)
        return parsed


def load_papers(config: SiteConfig, cache: PaperCache | None = None) -> list[Paper]:
    """Read every content file; raise SiteError listing all problems in all files."""
    cache = cache or PaperCache()
    content_dir = config.content_dir
    if not content_dir.is_dir():
        raise SiteError(Problem(content_dir, None, "content folder not found (import abstracts with "
                                                   "'python build.py import FILE')"))
    papers, problems = [], []
    for parsed in cache.read_all(_content_entries(content_dir), config):
        problems.extend(parsed.problems)
        if parsed.paper:
            papers.append(parsed.paper)
    if problems:
        raise SiteError(problems)
    return papers


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
