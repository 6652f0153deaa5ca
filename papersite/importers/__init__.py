"""Import papers from other formats into content files.

    report = import_files([Path("papers.bib")], config, Path("site.yaml"), venue="icml-2024")

Readers (formats.py, seed.py) turn each input file into `Record`s; this module
decides which paper each record is (identity.py), which venue it belongs to
(venues.py), its topics (topics.py) and, for seed text, its title (titles.py),
and writes or updates its content file (writer.py). Safety: a file a person edited is never overwritten, re-importing
the same input changes nothing, and every record that is not imported is in
the report with its file and line.
"""
from __future__ import annotations

import contextlib
import datetime
import logging
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import yaml

from ..source.config import ORCID, SiteConfig
from ..source.content import DATE, MAX_ABSTRACT_CHARS, find_content_files, normalise_link, slugify, split_front_matter
from ..errors import Problem, SiteError
from ..text.plain import plain_title
from ..model import LINK_KINDS, Venue
from ..parallel import MapInBackground
from ..text.words import GREEK
from ..source.yamlsource import FORBIDDEN_CHARACTERS
from .identity import TextIndex, family_name, identifiers, record_id, title_key
from .records import Deferred, Record
from .titles import derive_title, title_mark
from .topics import Topics
from .venues import Venues, append_venues
from .writer import (DERIVED_HEADER, MANIFEST, Existing, file_hash, one_line, read_manifest, render, scan_catalog,
                     write_atomically, write_manifest)

__all__ = ["import_files", "import_records", "ImportReport", "Skipped", "TODAY_VARIABLE"]

SLUG_WORDS = 8
BATCH = 2000  # records derived at once: enough to pay for forking workers, few enough to keep memory flat
TODAY_VARIABLE = "PAPERSITE_TODAY"  # YYYY-MM-DD: the day recorded as `added` (tests and reproducible runs)

EDITED, DUPLICATE, NO_TITLE, NOT_A_PAPER = "edited by hand", "duplicate", "no title", "not a paper"
_LONE_GREEK = re.compile("(?<![\u0370-\u03ff])[\u0370-\u03ff](?![\u0370-\u03ff])")


@dataclass(frozen=True)
class Skipped:
    """A record that was read but not written, and why."""

    where: Problem  # the record (or the content file it would overwrite) and the reason, as one line
    reason: str  # EDITED, DUPLICATE, NO_TITLE or NOT_A_PAPER (the source says so: a talk, a deleted record)


@dataclass
class ImportReport:
    read: int = 0  # records read, the unreadable ones included
    created: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # records that could not be read or placed
    unreadable: int = 0  # records those problems stand for (one problem may report a file's many)
    notices: list[Problem] = field(default_factory=list)  # every skip and problem, in the order met
    venues_added: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: '12 records read: 8 created, 1 updated, 2 unchanged, 1 skipped (1 duplicate).'"""
        reasons = {}
        for skip in self.skipped:
            reasons[skip.reason] = reasons.get(skip.reason, 0) + 1
        if self.unreadable:
            reasons["unreadable"] = self.unreadable
        skipped = sum(reasons.values())
        order = [EDITED, DUPLICATE, NO_TITLE, NOT_A_PAPER, "unreadable"]
        why = " (" + ", ".join(f"{reasons[r]} {r}" for r in order if r in reasons) + ")" if reasons else ""
        return (f"{self.read} record{'s' if self.read != 1 else ''} read: {len(self.created)} created, "
                f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {skipped} skipped{why}.")


@dataclass
class _Prepared:
    """A record as the importer takes it: what the workers made of it (see _Importer._prepare)."""

    source: Path
    line: int | None
    number: int
    skip_reason: str
    venue: str
    year: int | None
    venue_kind: str
    date: str  # one line
    ids: dict[str, str]
    title: str  # cleaned, or derived (seed text)
    abstract: str  # cleaned
    topics: list[str] = field(default_factory=list)
    authors: list[str | dict] = field(default_factory=list)  # as front matter holds them
    et_al: bool = False
    first: str = ""  # the first author's family name, folded
    status: str = ""
    links: dict[str, str] = field(default_factory=dict)
    unusable: dict[str, str] = field(default_factory=dict)  # links the build cannot take: to extra['links']
    extra: dict = field(default_factory=dict)  # cleaned
    identifiers: list[tuple[str, str]] = field(default_factory=list)  # identity.identifiers(ids, links)


@dataclass
class _Kept:
    """A content file the importer wrote, read back."""

    front: dict
    abstract: str
    derived: bool  # written with the header of seed text


def _with_arxiv(links: dict, other: dict | None) -> dict:
    """links, with the arXiv link of `other` where links have none, in LINK_KINDS order."""
    if "arxiv" in links or not isinstance(other, dict) or not isinstance(other.get("arxiv"), str):
        return links
    merged = {**links, "arxiv": other["arxiv"]}
    return {kind: merged[kind] for kind in LINK_KINDS if kind in merged}


def today_from_environment() -> str:
    value = os.environ.get(TODAY_VARIABLE, "")
    if not value:
        return datetime.date.today().isoformat()
    try:
        return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        raise SiteError(Problem(TODAY_VARIABLE, None, f"must be a date such as 2024-07-21, not '{value[:40]}'")) \
            from None


def import_files(paths: list[Path], config: SiteConfig, site_yaml: Path, *, venue: str | None = None,
                 fmt: str | None = None, columns: dict[str, str] | None = None,
                 today: str | None = None) -> ImportReport:
    """Import every record of every file into config's content/ (and new venues into site_yaml).

    Raises SiteError, before writing anything, for what stops the whole import (an unknown
    --venue, a damaged manifest); problems with single records are in the report."""
    from . import formats  # the readers load their parsers only when a file needs them
    if fmt is not None and fmt not in formats.FORMATS:
        raise SiteError(Problem("--format", None, f"unknown format '{fmt}' (known: {', '.join(formats.FORMATS)})"))
    context = formats.ImportContext(columns=dict(columns or {}))

    def files():
        for path in map(Path, paths):
            refused = _not_a_file(path)
            if refused:
                yield [refused], False
                continue
            try:
                name = fmt or formats.detect_format(path)
            except OSError:
                name = None  # read_records says why
            yield formats.read_records(path, name if fmt is None else fmt, context, deferred=True), name == "seed"

    return import_records(files(), config, site_yaml, venue=venue, today=today)


def _not_a_file(path: Path) -> Problem | None:
    """Why a path cannot be read as an export, checked without opening it (a FIFO would hang)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return Problem(path, None, f"cannot read: {exc.strerror or exc}")
    return None if stat.S_ISREG(mode) else Problem(path, None, "not a regular file: give the export file itself")


def import_records(files: Iterable[tuple[Iterable[Record | Deferred | Problem], bool]], config: SiteConfig, site_yaml: Path,
                   *, venue: str | None = None, today: str | None = None) -> ImportReport:
    """Import records, given file by file as (records and problems, whether titles are derived
    from the abstracts: seed text)."""
    importer = _Importer(config, site_yaml, venue, today or today_from_environment())
    with _quiet_parsers():
        try:
            for items, seed in files:
                for item in items:
                    importer.take(item, seed)
                importer.end_of_file()
        finally:  # also after Ctrl-C: what was written stays known as the importer's
            importer.finish()
    return importer.report


@contextlib.contextmanager
def _quiet_parsers():
    """Keep the parsers' log lines (pylatexenc's "macro '\\frac' failed its substitution!"
    for each macro it cannot convert) off the user's screen when logging is configured:
    the text is kept as written and what matters is in the report. Only these loggers,
    and only for the import."""
    loggers = [logging.getLogger(name) for name in ("pylatexenc", "bibtexparser")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


class _Importer:
    def __init__(self, config: SiteConfig, site_yaml: Path, venue: str | None, today: str):
        self.config, self.site_yaml, self.today = config, site_yaml, today
        self.venues = Venues(config.venues, venue)
        self.venues_used: set[str] = set()  # by a paper this import wrote or found: a new one of them goes to site.yaml
        self.content = config.content_dir
        self.manifest = read_manifest(self.content)
        self.owned_hashes = set(self.manifest.values())
        self.topics = Topics(config.topics)
        self.report = ImportReport()
        self.by_id: dict[str, Existing] = {}
        self.by_identifier: dict[tuple[str, str], Existing] = {}
        self.by_title: dict[tuple[str, str, str], Existing] = {}
        self.by_work: dict[tuple[str, str], Existing] = {}  # (title, first author), in any venue
        self.taken: set[str] = set()
        self.no_venue: dict[str, list[Problem]] = {}  # reason -> the records of this file it stopped
        self.pending: list[tuple[Record | Deferred | Problem, bool]] = []
        self.deriving: tuple[list[tuple[Record | Deferred | Problem, bool]], MapInBackground] | None = None
        paths = find_content_files(self.content) if self.content.is_dir() else []
        self.taken = {slugify(path.stem) for path in paths}  # every URL slug in use, also of files that do not parse
        self.catalog = scan_catalog(self.content, self.manifest, paths)
        for paper in self.catalog:
            self._remember(paper)
        self.texts: TextIndex | None = None  # made when first needed: a re-import matches by id

    def _remember(self, paper: Existing) -> None:
        self.by_id.setdefault(paper.id, paper)
        for identifier in paper.identifiers:
            self.by_identifier.setdefault(identifier, paper)
        if not paper.title_derived and paper.title_key:
            self.by_title.setdefault((paper.venue, paper.title_key, paper.first_author), paper)
            self.by_work.setdefault((paper.title_key, paper.first_author), paper)

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.config.root))
        except ValueError:
            return str(path)

    def take(self, item: Record | Deferred | Problem, seed: bool) -> None:
        self.pending.append((item, seed))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self, last: bool = False) -> None:
        """Start deriving the pending records' titles and topics on the workers (the costly
        part of an import), and take the batch before them, derived while this process read
        these: in order, one record at a time, as identity needs. `last`: these too."""
        before = self._derived()
        pending, self.pending = self.pending, []
        if pending:
            self.deriving = (pending, MapInBackground(self._prepare, [job for job in pending
                                                                      if not isinstance(job[0], Problem)]))
        self._take_batch(*before)
        if last:
            self._take_batch(*self._derived())

    def _derived(self) -> tuple[list[tuple[Record | Deferred | Problem, bool]], list]:
        """The batch being prepared and what the workers made of it, when done; ([], []) when none is."""
        if self.deriving is None:
            return [], []
        (batch, job), self.deriving = self.deriving, None
        return batch, job.result()

    def _take_batch(self, batch: list[tuple[Record | Deferred | Problem, bool]], prepared: list) -> None:
        prepared = iter(prepared)
        for item, seed in batch:
            self._take(item if isinstance(item, Problem) else next(prepared), seed)

    def _prepare(self, job: tuple[Record | Deferred, bool]) -> _Prepared | Problem:
        """All of a record's paper that needs no other record (the costly part of an import:
        topics, cleaning, the record itself when it was deferred), done on a worker."""
        item, seed = job
        record = item() if isinstance(item, Deferred) else item
        if isinstance(record, Problem):
            return record
        title, abstract = one_line(record.title), _clean_abstract(record.abstract)
        ready = _Prepared(record.source, record.line, record.number, record.skip_reason, record.venue, record.year,
                          record.venue_kind, one_line(record.date), record.ids, title, abstract)
        if record.skip_reason or not (title or seed) or len(abstract) > MAX_ABSTRACT_CHARS:
            return ready  # skipped: the rest is not needed
        if seed:
            ready.title = derive_title(abstract)
        ready.topics = self.topics.assign([one_line(k) for k in record.keywords], ready.title, abstract)
        authors = [a for a in record.authors if one_line(a.name)]
        ready.authors = [_author(a) for a in authors]
        ready.first = family_name(one_line(authors[0].name)) if authors else ""
        ready.et_al = record.et_al and bool(authors)
        ready.status = one_line(record.status)
        ready.links, ready.unusable = _links(record)
        ready.identifiers = identifiers(record.ids, ready.links)
        ready.extra = _clean_data(dict(record.extra))
        return ready

    def _take(self, item: _Prepared | Problem, seed: bool) -> None:
        self.report.read += 1
        if isinstance(item, Problem):
            self._problem(item)
            return
        try:
            self._record(item, seed)
        except OSError as exc:
            target = getattr(exc, "filename", None) or item.source
            self._problem(_at(item, f"cannot write {target}: {exc.strerror or exc}"))

    def end_of_file(self) -> None:
        """Records stopped for the same venue reason are reported once per file, not once per row."""
        self.flush(last=True)
        for reason, stopped in self.no_venue.items():
            first = stopped[0]
            more = f" ({len(stopped)} records, the first here)" if len(stopped) > 1 else ""
            self._problem(Problem(first.path, first.line, f"{first.message}{more}: {reason}"), len(stopped))
        self.no_venue = {}

    def finish(self) -> None:
        """Save site.yaml's new venues and the manifest: also after an error or Ctrl-C, for
        what was written (records still pending are not)."""
        if self.deriving is not None:
            self.deriving[1].stop()
        try:
            added = [v for v in self.venues.added if v.slug in self.venues_used]  # not a skipped record's
            if added:
                append_venues(self.site_yaml, added)
                self.report.venues_added = [v.slug for v in added]
            kept = {key: value for key, value in self.manifest.items() if (self.content / key).is_file()}
            if kept or (self.content / MANIFEST).exists():
                write_manifest(self.content, kept)
        except OSError as exc:
            raise SiteError(Problem(exc.filename or self.content / MANIFEST, None,
                                    f"cannot write: {exc.strerror or exc}")) from None

    def _problem(self, problem: Problem, records: int = 1) -> None:
        self.report.problems.append(problem)
        self.report.notices.append(problem)
        self.report.unreadable += records

    def _skip(self, where: Problem, reason: str) -> None:
        self.report.skipped.append(Skipped(where, reason))
        self.report.notices.append(where)

    def _record(self, record: _Prepared, seed: bool) -> None:
        """Write, update or skip the paper of one record (title derived already for seed text)."""
        if record.skip_reason:
            return self._skip(_at(record, f"skipped: {record.skip_reason}"), NOT_A_PAPER)
        title, abstract = record.title, record.abstract
        if not title and not seed:
            return self._skip(_at(record, "skipped: no title"), NO_TITLE)
        if len(abstract) > MAX_ABSTRACT_CHARS:
            self._problem(_at(record, f"abstract is {len(abstract):,} characters; the limit is "
                                                    f"{MAX_ABSTRACT_CHARS:,}: is a blank line missing between two?"))
            return
        venue = self.venues.resolve(record.venue, record.year, record.venue_kind)
        if isinstance(venue, str):
            self.no_venue.setdefault(venue, []).append(_at(record, "skipped"))
            return
        extra = record.extra
        year, date = self._dates(record, venue, extra)
        if year is None:
            self._problem(_at(record, f"skipped: no year or date, and venue '{venue.slug}' is a "
                                                    f"{venue.kind} with no year of its own"))
            return
        links, first = record.links, record.first
        if record.unusable:
            extra["links"] = {**extra["links"], **record.unusable} if isinstance(extra.get("links"), dict) \
                else record.unusable
        # seed text is known by its abstract, not by the title derived from it
        new_id = record_id(record.ids, links, "" if seed else title, abstract, venue.slug, first, record.identifiers)

        paper, how = self._match(record, new_id, links, title, abstract, venue, first)
        preprint = venue.kind == "preprint"
        if paper is not None and preprint and self.venues.kind(paper.venue) not in ("preprint", ""):
            # its published version is the paper: a preprint adds what it lacks, and takes nothing
            return self._add_preprint(record, paper, how, abstract, links)
        published = paper is not None and not preprint and self.venues.kind(paper.venue) == "preprint"
        if paper is not None:
            if paper.claimed and not published:  # a preprint of this import gives way to its published version
                return self._skip(_at(record, f"skipped: duplicate of {paper.claimed} ({how})"), DUPLICATE)
            if how == "same title and first author" and not paper.created and paper.venue == venue.slug:
                return self._skip(_at(record, f"skipped: duplicate of {self.shown(paper.path)} ({how}, another "
                                              f"id: '{paper.id}')"), DUPLICATE)
            paper.claimed = _where(record)
            self.by_id.setdefault(new_id, paper)  # another record with this id is a duplicate of this one
            if seed and not paper.title_derived:
                return self._skip(_at(record, f"skipped: duplicate of {self.shown(paper.path)} ({how}), which "
                                              "has a title of its own"), DUPLICATE)

        has_arxiv = paper is not None and any(kind == "arxiv" for kind, _ in paper.identifiers)
        if paper is not None and (not abstract and (paper.abstract or paper.created) or
                                  "arxiv" not in links and has_arxiv):
            kept = self._kept(paper)  # what its preprint gave it, which this record does not have
            if kept is not None:
                abstract = abstract or kept.abstract
                links = _with_arxiv(links, kept.front.get("links"))
        moved_from = ""
        if published:  # the paper is now the published version: its id too, so its record finds it again
            moved_from, paper.venue, paper.id, paper.title = paper.venue, venue.slug, new_id, title
            self._remember(paper)  # and so does another record of it in the published venue
        front = {"id": paper.id if paper else new_id, "title": title}
        if seed:
            front.update(title_mark(title))
        front["authors"] = record.authors
        if record.et_al:
            front["et_al"] = True
        front["venue"] = venue.slug
        front["year"] = year
        if date:
            front["date"] = date
        front["added"] = paper.added if paper and paper.added else self.today
        if record.status:
            front["status"] = record.status
        front["topics"] = record.topics
        if links:
            front["links"] = links
        if extra:
            front["extra"] = extra
        data = render(front, abstract, derived=seed)
        self.venues_used.add(venue.slug)
        if paper is not None:
            return self._update(record, paper, data, (moved_from, venue.slug) if moved_from else None)
        self._create(record, front, venue, data, first)

    def _match(self, record: _Prepared, new_id: str, links: dict, title: str, abstract: str, venue: Venue,
               first: str) -> tuple[Existing | None, str]:
        """The paper of the catalog (or of this import) a record is, and what matched."""
        if new_id in self.by_id:
            return self.by_id[new_id], f"same id '{new_id}'"
        for identifier in record.identifiers:
            if identifier in self.by_identifier:
                return self.by_identifier[identifier], f"same {identifier[0]} id '{identifier[1]}'"
        if abstract and self.catalog:
            if self.texts is None:
                self.texts = TextIndex()
                for paper in self.catalog:
                    if paper.abstract:
                        self.texts.add(paper.venue, paper.abstract, paper)
            # not a paper another record of this import is already: a near-identical abstract of
            # the same input is another paper (a fresh import makes both, and so must a rerun)
            paper = self.texts.find(venue.slug, abstract, usable=lambda paper: not paper.claimed)
            if paper is not None:
                return paper, "near-identical abstract"
        if title:
            paper = self.by_title.get((venue.slug, title_key(title), first))
            if paper is None:  # a preprint and its published version, in another venue: one paper
                paper = self.by_work.get((title_key(title), first))
                preprint = venue.kind == "preprint"
                if paper is not None and preprint == (self.venues.kind(paper.venue) == "preprint"):
                    paper = None
            if paper is not None:
                return paper, "same title and first author"
        return None, ""

    def _update(self, record: _Prepared, paper: Existing, data: bytes, move: tuple[str, str] | None = None) -> None:
        """The paper's file made `data`, unless a person edited it. `move`: (from, to) venue folders, for a
        published version taking its preprint's place: a file where the import put it goes to its new
        venue's folder, under the same name (its page keeps its address), unless one is there."""
        key = paper.path.relative_to(self.content).as_posix()
        current = paper.path.read_bytes()
        if current == data:
            self.manifest[key] = file_hash(data)
            self.report.unchanged.append(paper.path)
            return
        if not self._ours(paper.path, current):
            return self._skip(Problem(self.shown(paper.path), None, f"skipped: edited by hand, not overwritten "
                                                                    f"(the record at {_where(record)})"), EDITED)
        target = self.content / move[1] / paper.path.name if move else None
        if target is not None and paper.path.parent == self.content / move[0] and not paper.path.is_symlink() \
                and not os.path.lexists(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(paper.path, target)  # first: an interruption leaves one file, which the next import updates
            self.manifest.pop(key, None)
            paper.path, key = target, target.relative_to(self.content).as_posix()
        write_atomically(paper.path, data)
        self.manifest[key] = file_hash(data)
        self.report.updated.append(paper.path)

    def _add_preprint(self, record: _Prepared, paper: Existing, how: str, abstract: str, links: dict) -> None:
        """The preprint of a published paper: its abstract, if the paper has none, and its arXiv
        link go to the paper's file (if this importer wrote it as it is); nothing else does."""
        kept = self._kept(paper)
        if kept is None:
            return self._skip(_at(record, f"skipped: a preprint of {self.shown(paper.path)}, published in "
                                          f"'{paper.venue}' ({how})"), DUPLICATE)
        front = dict(kept.front)
        merged = _with_arxiv(front.get("links") or {}, links)
        if merged != (front.get("links") or {}):  # links where an import writes them: before extra, if any
            front = {**{k: v for k, v in front.items() if k != "extra"}, "links": merged,
                     **({"extra": front["extra"]} if "extra" in front else {})}
        for identifier in identifiers({}, merged):  # a later record lacking the arXiv link keeps it (see _record)
            if identifier not in paper.identifiers:
                paper.identifiers.append(identifier)
                self.by_identifier.setdefault(identifier, paper)
        paper.abstract = kept.abstract or abstract
        self._update(record, paper, render(front, paper.abstract, kept.derived))  # claims it not

    def _ours(self, path: Path, data: bytes) -> bool:
        """The file holds what this importer wrote (a person who edits it makes it theirs)."""
        digest = file_hash(data)
        return self.manifest.get(path.relative_to(self.content).as_posix()) == digest or digest in self.owned_hashes

    def _kept(self, paper: Existing) -> _Kept | None:
        """The paper's file as this importer wrote it (None if a person edited it, or it cannot be read)."""
        try:
            data = paper.path.read_bytes()
            front_text, body, _ = split_front_matter(data.decode("utf-8"))
            front = yaml.safe_load(front_text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
            return None
        if not isinstance(front, dict) or not self._ours(paper.path, data):
            return None
        kept = _Kept(front, body.removesuffix("\n"), data.startswith(b"---\n" + DERIVED_HEADER.encode()))
        # rendered again, it must be the very file: else it is not one an import wrote as it is
        return kept if render(kept.front, kept.abstract, kept.derived) == data else None

    def _create(self, record: _Prepared, front: dict, venue: Venue, data: bytes, first: str) -> None:
        """A new file; remembered without its abstract (near-identical text is matched against the
        catalog as it was, so memory does not grow with the input)."""
        words = title_slug(front["title"]).split("-")[:SLUG_WORDS]
        base = "-".join(words) or "paper"
        folder = os.path.join(self.content, venue.slug)
        slug, n = base, 2
        # a URL slug of no other paper, and never a file already there (a README the build skips)
        while slug in self.taken or slug == "readme" or os.path.lexists(os.path.join(folder, f"{slug}.md")):
            slug, n = f"{base}-{n}", n + 1
        self.taken.add(slug)
        path = Path(folder, f"{slug}.md")
        write_atomically(path, data, existed=False)
        self.manifest[f"{venue.slug}/{slug}.md"] = file_hash(data)
        self.report.created.append(path)
        paper = Existing(path, front["id"], venue.slug, front["title"], front.get("title_source", ""), first,
                         "", front["added"], record.identifiers,
                         claimed=_where(record), created=True)
        self._remember(paper)

    def _dates(self, record: _Prepared, venue: Venue, extra: dict) -> tuple[int | None, str]:
        """(year, date) as the venue allows them; what it does not is kept in extra."""
        date = record.date
        if date and not DATE.match(date):
            extra["date"], date = date, ""
        year = record.year if record.year is not None else int(date[:4]) if date else None
        if venue.year is None:
            return year, date
        if year is not None and year != venue.year:
            extra["year"] = year  # the venue of --venue or an alias says otherwise
        if date and int(date[:4]) != venue.year:
            extra["date"], date = date, ""
        return venue.year, date


def _links(record: Record) -> tuple[dict[str, str], dict[str, str]]:
    """Links as the build accepts them, in LINK_KINDS order, and the others (for extra['links'])."""
    given = {kind: one_line(str(value)) for kind, value in record.links.items() if one_line(str(value))}
    for kind, value in identifiers(record.ids, {}):
        given.setdefault(kind, f"https://openreview.net/forum?id={value}" if kind == "openreview" else value)
    links, unusable = {}, {}
    for kind, value in given.items():
        url = normalise_link(kind, value) if kind in LINK_KINDS else value
        if kind in LINK_KINDS and re.match(r"^https?://[^\s/]+\S*$", url, re.IGNORECASE):
            links[kind] = url
        else:
            unusable[kind] = value
    return {kind: links[kind] for kind in LINK_KINDS if kind in links}, unusable


def _where(record: Record | _Prepared) -> str:
    return f"{record.source}:{record.line}" if record.line else f"{record.source}: record {record.number}"


def _at(record: Record | _Prepared, message: str) -> Problem:
    if record.line:
        return Problem(record.source, record.line, message)
    return Problem(record.source, None, f"record {record.number}: {message}")


def _author(author) -> str | dict:
    name = one_line(author.name)
    orcid = one_line(author.orcid).removeprefix("https://orcid.org/").removeprefix("http://orcid.org/")
    affiliation = one_line(author.affiliation)
    if not (orcid and ORCID.match(orcid)) and not affiliation:
        return name
    person = {"name": name}
    if orcid and ORCID.match(orcid):
        person["orcid"] = orcid
    if affiliation:
        person["affiliation"] = affiliation
    return person


def _clean_abstract(text: str) -> str:
    """Paragraphs and line breaks kept (a Markdown list stays one), indentation and trailing
    spaces dropped (an indented line would read as code), control characters dropped."""
    text = FORBIDDEN_CHARACTERS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _clean_data(value):
    """extra from a source, as front matter can hold it: text without control characters."""
    if isinstance(value, str):
        return FORBIDDEN_CHARACTERS.sub("", value)
    if isinstance(value, dict):
        return {FORBIDDEN_CHARACTERS.sub("", str(k)): _clean_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_data(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return FORBIDDEN_CHARACTERS.sub("", str(value))


def title_slug(title: str) -> str:
    """A new paper's file name (its URL) from its title, math read as the page shows it rather than
    as TeX: "$\\mathcal{O}(n^2)$ Regret" -> "o-n-2-regret" (not "mathcal-o-n-2-regret"), and a
    Greek letter standing alone by its name: "ΦFlow", "$\\epsilon$-Greedy" -> "phiflow", "epsilon-greedy"."""
    text = unicodedata.normalize("NFKD", plain_title(title))  # mathematical alphanumerics: 𝛼 -> α
    return slugify(_LONE_GREEK.sub(lambda m: GREEK.get(m.group(), m.group()), text))
