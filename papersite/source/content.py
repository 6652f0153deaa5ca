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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from .config import PERSON_KEYS, SiteConfig, check_person
from ..errors import Problem, SiteError
from ..model import LINK_KINDS, Paper, Person
from ..parallel import parallel_map
from .files import stamp as file_stamp, allowed_roots, read_source, walk_files
from .validate import Checker
from .yamlsource import load_yaml

PAPER_KEYS = ("id", "title", "authors", "et_al", "venue", "year", "date", "added", "status", "selected", "topics",
              "keywords", "links", "bibtex_key", "title_source", "extra")
DATE = re.compile(r"^(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?$")
BIBTEX_KEY = re.compile(r"^[A-Za-z0-9_:.+/-]+$")  # what BibTeX and biber accept unquoted
MAX_FILE_BYTES = 10 * 1024 * 1024  # far beyond any abstract; guards against a stray dump
# Abstracts run to a few thousand characters. Python-Markdown is quadratic in the
# $math$ spans of one paragraph, so a huge abstract could take minutes; this bounds
# the worst case to seconds.
MAX_ABSTRACT_CHARS = 64_000
MAX_FRONT_MATTER_CHARS = 64_000  # front matter is short, and PyYAML slow


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
    """Every *.md under content_dir, sorted (see _content_entries)."""
    return [Path(path) for path, _ in _content_entries(content_dir)]


def _content_entries(content_dir: Path, root: Path | None = None, problems: list[Problem] | None = None,
                     unfollowed: list[str] | None = None) -> list[tuple[str, os.DirEntry]]:
    """(path, directory entry) of every content file, in Path order: plain strings, because
    a rebuild looks at every file and Path objects cost more than the stat.

    Symlinked folders in content/ are not followed (`unfollowed` lists them): every Markdown
    file under content/ is a paper, and a link to `..` would make papers of the whole
    project, node_modules included. A symlinked file is read, as the build reads any source
    file (source.files.read_source: only when it leads inside the project)."""
    return walk_files(content_dir, root, problems, is_content_name, [] if unfollowed is None else unfollowed)


def unfollowed_warning(folder: str) -> str:
    return (f"warning: {folder}: a symlinked folder, not followed: the papers in it are not in the site "
            "(move the folder into content/, or link each file)")


def is_content_name(name: str) -> bool:
    """A paper's file: Markdown, but not a README."""
    return name.endswith(".md") and name.lower() != "readme.md"


def slugify(text: str) -> str:
    """'Grokking: A Théorie' -> 'grokking-a-theorie'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@dataclass
class Parsed:
    """What one file gave: a Paper, or the problems that stop it."""

    paper: Paper | None
    problems: list[Problem]


def read_paper(path: Path, config: SiteConfig, display_path: Path | str | None = None,
               allowed: tuple[str, ...] | None = None) -> Parsed:
    """Parse and validate one content file against the site's venues and topics. `allowed`:
    allowed_roots for the config, when the caller reads many files (it resolves links: not cheap)."""
    shown = display_path or path
    raw = read_source(path, shown, allowed or allowed_roots(config.content_dir, config.root), MAX_FILE_BYTES,
                      "is this an abstract?")
    if isinstance(raw, Problem):
        return Parsed(None, [raw])
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
    people = _people(check, data)
    et_al = check.field(data, (), "et_al", bool, False)
    venue_slug = check.field(data, (), "venue", str, required=True)
    year = check.field(data, (), "year", int)
    date = _date(check, data, "date")
    added = _date(check, data, "added")
    status = check.field(data, (), "status", str, "")
    selected = check.field(data, (), "selected", bool, False)
    bibtex_key = check.field(data, (), "bibtex_key", str, "")
    if bibtex_key and not BIBTEX_KEY.match(bibtex_key):
        check.problem(("bibtex_key",), "'bibtex_key' may hold letters, digits and _:.+/- only, "
                                       f"not '{bibtex_key[:40]}'")
    title_source = check.field(data, (), "title_source", str, "")
    topics = check.field(data, (), "topics", list, [])
    keywords = check.field(data, (), "keywords", list, [])
    links = _links(check, data)
    extra = check.field(data, (), "extra", dict, {})

    venues = {v.slug: v for v in config.venues}
    venue = venues.get(venue_slug)
    if venue_slug and not venue:
        check.problem(("venue",), _unknown("venue", venue_slug, venues, "venues"))
    if year is None and date:
        year = int(date[:4])
    if venue and year is not None and venue.year is not None and year != venue.year:
        check.problem(("year" if "year" in data else "date",),
                      f"year {year} does not match venue '{venue.slug}' ({venue.year})")
    if venue and year is None and venue.year is None:
        check.problem((), f"missing 'year' (or 'date'): venue '{venue.slug}' has no year of its own")
    known_topics = {t.slug for t in config.topics}
    for index, topic in enumerate(topics):
        if topic not in known_topics:
            check.problem(("topics", index), _unknown("topic", topic, known_topics, "topics"))
    if len(set(topics)) != len(topics):
        check.problem(("topics",), "a topic is listed twice")
    abstract = body.strip()  # may be empty: the page then says no abstract is available
    if len(abstract) > MAX_ABSTRACT_CHARS:
        check.problems.append(Problem(shown, body_line, f"abstract is {len(abstract):,} characters; the limit "
                                                        f"is {MAX_ABSTRACT_CHARS:,}: an abstract, not the paper"))
    slug = slugify(path.stem)
    if not slug:
        check.problems.append(Problem(shown, None, "file name gives an empty URL slug: use letters or digits"))

    if check.problems:
        return Parsed(None, check.problems)
    return Parsed(Paper(
        id=paper_id, slug=slug, title=title, venue=venue.slug, year=year if year is not None else venue.year,
        abstract=abstract, authors=tuple(p.name for p in people), et_al=et_al, topics=tuple(topics),
        keywords=tuple(keywords), links=links,
        people=people, date=date, added=added, status=status, selected=selected, bibtex_key=bibtex_key,
        title_source=title_source, extra=extra, source=path,
    ), [])


def _people(check: Checker, data: dict) -> tuple[Person, ...]:
    """`authors:` items are names, or mappings with a name and details (orcid, affiliation, url)."""
    entries = data.get("authors")
    if entries is None:
        return ()
    if not isinstance(entries, list):
        check.field(data, (), "authors", list)  # records the usual "must be a list" problem
        return ()
    people = []
    for index, entry in enumerate(entries):
        key = ("authors", index)
        if isinstance(entry, str) and entry.strip():
            people.append(Person(" ".join(entry.split())))
        elif isinstance(entry, dict):
            check.unknown_keys(entry, key, PERSON_KEYS)
            person = check_person(check, entry, key)
            if person:
                people.append(person)
        else:
            check.problem(key, "each author must be a name, or a mapping with 'name' (and orcid, "
                               "affiliation, url)")
    return tuple(people)


def _date(check: Checker, data: dict, name: str) -> str:
    value = data.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # `date: 2024`
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or not DATE.match(value.strip()):
        check.problem((name,), f"'{name}' must be a date such as 2024-07-21, 2024-07 or 2024, not "
                               f"'{str(value)[:40]}'")
        return ""
    return value.strip()


def _links(check: Checker, data: dict) -> tuple[tuple[str, str], ...]:
    links = check.field(data, (), "links", dict, {})
    check.unknown_keys(links, ("links",), LINK_KINDS)
    found = []
    for kind in LINK_KINDS:
        value = links.get(kind)
        if value is None:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            # YAML read the id as a number, which may have dropped digits (2402.10000 -> 2402.1):
            # only the file still holds the id as written.
            example = ' (arxiv: "2402.07207")' if kind == "arxiv" else ""
            check.problem(("links", kind), f"link '{kind}' was read as the number {value!r}, which can drop "
                                           f"digits: quote it as written in the file{example}")
            continue
        if not isinstance(value, str) or not value.strip():
            check.problem(("links", kind), f"link '{kind}' must be a URL string")
            continue
        url = normalise_link(kind, value.strip())
        if not re.match(r"^https?://[^\s/]+", url, re.IGNORECASE) or re.search(r"\s", url):
            check.problem(("links", kind), f"link '{kind}' must be an http(s) URL, not '{value[:60]}'")
            continue
        found.append((kind, url))
    return tuple(found)


def normalise_link(kind: str, value: str) -> str:
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


class PaperCache:
    """Parsed papers keyed by file stamp (see files.stamp), so a rebuild re-reads only changed files."""

    def __init__(self):
        self._entries: dict[str, tuple[tuple[int, ...], Parsed]] = {}
        self.config_key: object = None
        self.warnings: tuple[str, ...] = ()  # of the last load_papers: folders not followed
        self._people: dict[Person, Person] = {}  # each person as the papers share them (see _shared)
        self.listing: list[str] | None = None  # the content files the last load_papers found
        self._stamps: Callable[[str], tuple | None] | None = None  # see vouch

    def vouch(self, stamps: Callable[[str], tuple | None]) -> None:
        """For the next load_papers alone: no content file came or went since the last one, and
        `stamps(path)` is each one's stamp now (files.stamp), so content/ is not walked again. The
        warm process knows both from the command's fingerprint (engine/warm.py)."""
        self._stamps = stamps

    def listed(self) -> list[tuple[str, tuple | None]] | None:
        """(path, stamp) of every content file, as vouched for (None: walk content/)."""
        stamps, self._stamps = self._stamps, None
        if stamps is None or self.listing is None:
            return None
        listed = [(path, stamps(path)) for path in self.listing]
        return None if any(stamp is None for _, stamp in listed) else listed

    def read_all(self, entries: list[tuple[str, tuple | None]], config: SiteConfig) -> list[Parsed]:
        """Every (path, stamp) parsed, or its last parse while its stamp is unchanged (None: unknown):
        the loop a rebuild runs once per file, kept lean; the files to parse are parsed on all cores."""
        self._check_config(config)
        cached, found, missing = self._entries.get, [], []
        for path, stamp in entries:
            hit = cached(path)
            if stamp and hit and hit[0] == stamp:
                found.append(hit[1])
            else:
                missing.append((len(found), path, stamp))
                found.append(None)
        allowed = allowed_roots(config.content_dir, config.root)

        def read(miss: tuple[int, str, tuple | None]) -> Parsed:
            path = Path(miss[1])
            return read_paper(path, config, _display(path, config.root), allowed)

        parsed = parallel_map(read, missing)
        for (index, path, stamp), result in zip(missing, parsed):
            result = self._shared(result)
            if stamp:
                self._entries[path] = (stamp, result)
            found[index] = result
        return found

    def _shared(self, parsed: Parsed) -> Parsed:
        """The parse with its people and their names shared with every other paper's: a parse comes
        back from a worker as copies of its own, and a catalog names each person on many papers."""
        paper = parsed.paper
        if paper is None or not paper.people:
            return parsed
        people = tuple(self._people.setdefault(person, person) for person in paper.people)
        return Parsed(replace(paper, people=people, authors=tuple(person.name for person in people)), parsed.problems)

    def _check_config(self, config: SiteConfig) -> None:
        if self.config_key != (config.venues, config.topics):
            self._entries.clear()  # venue/topic validity depends on site.yaml
            self.config_key = (config.venues, config.topics)

    def paper_of(self, path: str) -> tuple[bool, Paper | None]:
        """(whether the last build read `path`, the paper it gave there, None if none)."""
        entry = self._entries.get(path)
        return (False, None) if entry is None else (True, entry[1].paper)

    def by_content(self, known: Callable[[str], tuple[tuple, str] | None]) -> dict[str, tuple[str, Parsed]]:
        """path -> (digest of the file's bytes, its parse), for the persistent cache: a parse is
        reused for the same bytes, whatever the file's stamp. `known`: a file's stamp and digest,
        as hashed before the build; a file whose stamp has moved since is left out."""
        kept = {}
        for path, (stamp, parsed) in self._entries.items():
            seen = known(path)
            if seen is not None and seen[0] == stamp:
                kept[path] = (seen[1], parsed)
        return kept

    def reuse(self, parses: dict[str, tuple[str, Parsed]], known: Callable[[str], tuple[tuple, str] | None]) -> None:
        """Take in the parses (see by_content) of files whose bytes are the same now."""
        for path, (digest, parsed) in parses.items():
            seen = known(path)
            if seen is not None and seen[1] == digest:
                self._entries[path] = (seen[0], parsed)


def load_papers(config: SiteConfig, cache: PaperCache | None = None) -> list[Paper]:
    """Read every content file; raise SiteError listing all problems in all files."""
    cache = cache or PaperCache()
    content_dir = config.content_dir
    if not content_dir.is_dir():
        raise SiteError(Problem(content_dir, None, "content folder not found (make it, or bring papers in "
                                                   "with the import command)"))
    papers, problems, unfollowed = [], [], []
    entries = cache.listed()
    if entries is None:
        entries = [(path, _stamp(entry)) for path, entry in _content_entries(content_dir, config.root, problems,
                                                                            unfollowed)]
        cache.warnings = tuple(unfollowed_warning(folder) for folder in unfollowed)
        cache.listing = None if problems else [path for path, _ in entries]
    for parsed in cache.read_all(entries, config):
        problems.extend(parsed.problems)
        if parsed.paper:
            papers.append(parsed.paper)
    if problems:
        raise SiteError(problems)
    return papers


def _stamp(entry: os.DirEntry) -> tuple | None:
    try:
        return file_stamp(entry.stat())
    except OSError:
        return None


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
