"""One record at a time, in the order read: which paper of the catalog (or of this import) it is,
and whether its file is created, updated, left unchanged or skipped (a file a person edited is:
writer.py's manifest tells the importer's files from theirs)."""
from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import Problem, SiteError
from ..model import LINK_KINDS, Venue
from ..source.config import SiteConfig
from ..source.content import DATE, MAX_ABSTRACT_CHARS, slugify, split_front_matter
from ..text.plain import plain_title
from ..text.words import GREEK
from .catalog_index import INDEX, KIND, CatalogIndex
from .identity import identifiers, record_id
from .matching import KnownPapers
from .prepare import Prepared
from .records import FileProblem
from .report import DUPLICATE, EDITED, NO_TITLE, NOT_A_PAPER, ImportReport
from .titles import title_mark
from .venues import Venues, append_venues
from .writer import (DERIVED_HEADER, MANIFEST, Existing, abstract_of, clear_leftovers, file_hash, is_imported,
                     read_manifest, render, write_atomically, write_manifest)

SLUG_WORDS = 8
# Records of a file stopped for one reason are listed one a line up to this many; more are
# counted on one line and listed in REPORT, beside site.yaml in the git-ignored .cache/ (never
# under content/, which is published).
LISTED = 5
REPORT = Path(".cache", "import-report.txt")
_LONE_GREEK = re.compile("(?<![\u0370-\u03ff])[\u0370-\u03ff](?![\u0370-\u03ff])")


@dataclass
class _Kept:
    """A content file the importer wrote, read back."""

    front: dict
    abstract: str
    derived: bool  # written with the header of seed text


class Importer:
    """An import into config's content/ (and new venues into site_yaml): take() each record
    or problem, end_of_file() after each file, finish() at the end, also after an error."""

    def __init__(self, config: SiteConfig, site_yaml: Path, venue: str | None, today: str):
        self.config, self.site_yaml, self.today = config, site_yaml, today
        self.venues = Venues(config.venues, venue, this_year=int(today[:4]))
        self.venues_used: set[str] = set()  # by a paper this import wrote or found: a new one of them goes to site.yaml
        self.content = config.content_dir
        self.manifest = read_manifest(self.content)
        # the manifest is sound: this import goes ahead
        clear_leftovers(self.content, site_yaml, {site_yaml.parent / INDEX: KIND, site_yaml.parent / REPORT: b""})
        self.manifest_read = dict(self.manifest)
        self.owned_hashes = set(self.manifest.values())
        self.report = ImportReport()
        self.no_venue: dict[str, list[Problem]] = {}  # reason -> the records of this file it stopped
        self.linked: dict[str, bool] = {}  # venue -> whether its folder is a symlink (see _linked)
        self.catalog = CatalogIndex(self.content, site_yaml, self.manifest)
        if self.catalog.warning:
            self.report.notice(Problem(self.shown(self.catalog.path), None, self.catalog.warning))
        self.written: set[str] = set()  # the files this import wrote, relative to content/
        self.taken = self.catalog.slugs()  # every URL slug in use, also of files that do not parse
        self.known = KnownPapers(self.content, self.catalog.papers(), self.venues)

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.config.root))
        except ValueError:
            return str(path)

    def take(self, item: Prepared | Problem, seed: bool) -> None:
        if isinstance(item, FileProblem):  # a file that gave no records: no record was read
            self.report.file_problem(item)
            return
        self.report.read += 1
        if isinstance(item, Problem):
            self.report.problem(item)
            return
        try:
            self._record(item, seed)
        except OSError as exc:
            target = getattr(exc, "filename", None) or item.source
            self.report.problem(_at(item, f"cannot write {target}: {exc.strerror or exc}"))

    def end_of_file(self) -> None:
        """Records of a file stopped for the same venue reason (a whole export, often) are each
        on a line of their own when few; else one line tells how many, and names the file
        (REPORT) that lists every one of them."""
        for reason, stopped in self.no_venue.items():
            each = [Problem(where.path, where.line, f"{where.message}: {reason}") for where in stopped]
            if len(stopped) <= LISTED:
                for problem in each:
                    self.report.problem(problem)
                continue
            first = stopped[0]
            self.report.listed_in = self.site_yaml.parent / REPORT
            more = f", as were {len(stopped) - 1} more records (every one is in {self.shown(self.report.listed_in)})"
            self.report.problem(Problem(first.path, first.line, f"{first.message}{more}: {reason}"), len(stopped), each)
        self.no_venue = {}

    def finish(self) -> None:
        """Save site.yaml's new venues, the manifest of the files written and the full list of
        the records not imported, when the report names it."""
        try:
            added = [v for v in self.venues.added if v.slug in self.venues_used]  # not a skipped record's
            if added:
                append_venues(self.site_yaml, added)
                self.report.venues_added = [v.slug for v in added]
            # the files found when the import began or written since, and any other that is there
            kept = {key: value for key, value in self.manifest.items() if key in self.catalog.entries or
                    key in self.written or (self.content / key).is_file()}
            if kept != self.manifest_read and (kept or (self.content / MANIFEST).exists()):
                write_manifest(self.content, kept)
        except OSError as exc:
            raise SiteError(Problem(exc.filename or self.content / MANIFEST, None,
                                    f"cannot write: {exc.strerror or exc}")) from None
        self.catalog.save(self.written)
        listed = self.report.listed_in
        try:
            if listed is not None:
                lines = [str(p) for p in self.report.every] + [self.report.summary()]
                write_atomically(listed, ("\n".join(lines) + "\n").encode("utf-8"))
            else:  # an earlier import's list would pass for this one's
                (self.site_yaml.parent / REPORT).unlink(missing_ok=True)
        except OSError as exc:  # the papers are imported: the list is what is lost, and the report says so
            self.report.listed_in = None
            self.report.problem(Problem(self.shown(listed or self.site_yaml.parent / REPORT), None,
                                        f"cannot write the list of records not imported: {exc.strerror or exc}"), 0)

    def _record(self, record: Prepared, seed: bool) -> None:
        """Write, update or skip the paper of one record (title derived already for seed text)."""
        if record.skip_reason:
            return self.report.skip(_at(record, f"skipped: {record.skip_reason}"), NOT_A_PAPER)
        title, abstract = record.title, record.abstract
        if not title and not seed:
            return self.report.skip(_at(record, "skipped: no title"), NO_TITLE)
        if len(abstract) > MAX_ABSTRACT_CHARS:
            self.report.problem(_at(record, f"abstract is {len(abstract):,} characters; the limit is "
                                            f"{MAX_ABSTRACT_CHARS:,}: is a blank line missing between two?"))
            return
        venue = self.venues.resolve(record.venue, record.year, record.venue_kind, record.venue_abbr)
        if isinstance(venue, str):
            self.no_venue.setdefault(venue, []).append(_at(record, "skipped"))
            return
        extra = record.extra
        year, date = self._dates(record, venue, extra)
        if year is None:
            self.report.problem(_at(record, f"skipped: no year or date, and venue '{venue.slug}' is a "
                                            f"{venue.kind} with no year of its own"))
            return
        links, first = record.links, record.first
        if record.unusable:
            extra["links"] = {**extra["links"], **record.unusable} if isinstance(extra.get("links"), dict) \
                else record.unusable
        # seed text is known by its abstract, not by the title derived from it
        new_id = record_id(record.ids, links, "" if seed else title, abstract, venue.slug, first, record.identifiers)

        paper, how = self.known.find(new_id, record.identifiers, title, abstract, venue, first)
        preprint = venue.kind == "preprint"
        if paper is not None and preprint and self.venues.kind(paper.venue) not in ("preprint", ""):
            # its published version is the paper: a preprint adds what it lacks, and takes nothing
            return self._add_preprint(record, paper, how, abstract, links)
        published = paper is not None and not preprint and self.venues.kind(paper.venue) == "preprint"
        if paper is not None:
            if paper.claimed and not published:  # a preprint of this import gives way to its published version
                return self.report.skip(_at(record, f"skipped: duplicate of {paper.claimed} ({how})"), DUPLICATE)
            if how == "same title and first author" and not paper.created and paper.venue == venue.slug:
                return self.report.skip(_at(record, f"skipped: duplicate of {self.shown(paper.path)} ({how}, "
                                                    f"another id: '{paper.id}')"), DUPLICATE)
            paper.claimed = _where(record)
            self.known.also_by_id(new_id, paper)  # another record with this id is a duplicate of this one
            if seed and not paper.title_derived:
                return self.report.skip(_at(record, f"skipped: duplicate of {self.shown(paper.path)} ({how}), "
                                                    "which has a title of its own"), DUPLICATE)

        has_arxiv = paper is not None and any(kind == "arxiv" for kind, _ in paper.identifiers)
        if paper is not None and (not abstract and (paper.has_text() or paper.created) or
                                  "arxiv" not in links and has_arxiv):
            kept = self._kept(paper)  # what its preprint gave it, which this record does not have
            if kept is not None:
                abstract = abstract or kept.abstract
                links = _with_arxiv(links, kept.front.get("links"))
        moved_from = ""
        if published:  # the paper is now the published version: its id too, so its record finds it again
            moved_from, paper.venue, paper.id, paper.title = paper.venue, venue.slug, new_id, title
            self.known.remember(paper)  # and so does another record of it in the published venue
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
        if record.keywords:
            front["keywords"] = record.keywords
        if links:
            front["links"] = links
        if extra:
            front["extra"] = extra
        data = render(front, abstract, derived=seed)
        self.venues_used.add(venue.slug)
        if paper is not None:
            return self._update(record, paper, data, (moved_from, venue.slug) if moved_from else None)
        self._create(record, front, venue, data, first)

    def _update(self, record: Prepared, paper: Existing, data: bytes, move: tuple[str, str] | None = None) -> None:
        """The paper's file made `data`, unless a person edited it. `move`: (from, to) venue folders, for a
        published version taking its preprint's place: a file where the import put it goes to its new
        venue's folder, under the same name (its page keeps its address), unless one is there."""
        key = paper.path.relative_to(self.content).as_posix()
        current = paper.path.read_bytes()
        if paper.abstract is None:  # a paper of the index: its abstract as the import found it, for matching.py
            paper.abstract = abstract_of(current)
        if current == data:
            self.manifest[key] = file_hash(data)
            self.report.unchanged.append(paper.path)
            return
        if not self._ours(paper.path, current):
            return self.report.skip(Problem(self.shown(paper.path), None, f"skipped: edited by hand, not "
                                            f"overwritten (the record at {_where(record)})"), EDITED)
        target = self.content / move[1] / paper.path.name if move else None
        if target is not None and paper.path.parent == self.content / move[0] and not paper.path.is_symlink() \
                and not os.path.lexists(target) and not self._linked(move[1]):
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(paper.path, target)  # first: an interruption leaves one file, which the next import updates
            self.manifest.pop(key, None)
            self.written.add(key)
            paper.path, key = target, target.relative_to(self.content).as_posix()
        self.written.add(key)
        write_atomically(paper.path, data)
        self.manifest[key] = file_hash(data)
        self.report.updated.append(paper.path)

    def _add_preprint(self, record: Prepared, paper: Existing, how: str, abstract: str, links: dict) -> None:
        """The preprint of a published paper: its abstract, if the paper has none, and its arXiv
        link go to the paper's file (if this importer wrote it as it is); nothing else does."""
        kept = self._kept(paper)
        if kept is None:
            return self.report.skip(_at(record, f"skipped: a preprint of {self.shown(paper.path)}, published in "
                                                f"'{paper.venue}' ({how})"), DUPLICATE)
        front = dict(kept.front)
        merged = _with_arxiv(front.get("links") or {}, links)
        if merged != (front.get("links") or {}):  # links where an import writes them: before extra, if any
            front = {**{k: v for k, v in front.items() if k != "extra"}, "links": merged,
                     **({"extra": front["extra"]} if "extra" in front else {})}
        # a later record lacking the arXiv link keeps it (see _record)
        self.known.add_identifiers(paper, identifiers({}, merged))
        paper.abstract = kept.abstract or abstract
        self._update(record, paper, render(front, paper.abstract, kept.derived))  # claims it not

    def _ours(self, path: Path, data: bytes) -> bool:
        """The file holds what this importer wrote (a person who edits it makes it theirs)."""
        return is_imported(self.manifest, path.relative_to(self.content).as_posix(), data, self.owned_hashes)

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

    def _create(self, record: Prepared, front: dict, venue: Venue, data: bytes, first: str) -> None:
        """A new file; remembered without its abstract (near-identical text is matched against the
        catalog as it was, so memory does not grow with the input)."""
        words = title_slug(front["title"]).split("-")[:SLUG_WORDS]
        base = "-".join(words) or "paper"
        folder = os.path.join(self.content, venue.slug)
        if self._linked(venue.slug):
            return self.report.problem(_at(record, f"not written: {self.shown(Path(folder))} is a symlinked folder, "
                                                   "which the build does not follow; make it a folder of its own"))
        slug, n = base, 2
        # a URL slug of no other paper, and never a file already there (a README the build skips)
        while slug in self.taken or slug == "readme" or os.path.lexists(os.path.join(folder, f"{slug}.md")):
            slug, n = f"{base}-{n}", n + 1
        self.taken.add(slug)
        path = Path(folder, f"{slug}.md")
        self.written.add(f"{venue.slug}/{slug}.md")
        write_atomically(path, data, existed=False)
        self.manifest[f"{venue.slug}/{slug}.md"] = file_hash(data)
        self.report.created.append(path)
        paper = Existing(path, front["id"], venue.slug, front["title"], front.get("title_source", ""), first,
                         "", front["added"], record.identifiers,
                         claimed=_where(record), created=True)
        self.known.remember(paper)

    def _linked(self, venue: str) -> bool:
        """Whether content/<venue> is a symlinked folder: a file written there would not be read."""
        if venue not in self.linked:
            self.linked[venue] = os.path.islink(os.path.join(self.content, venue))
        return self.linked[venue]

    def _dates(self, record: Prepared, venue: Venue, extra: dict) -> tuple[int | None, str]:
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


def _with_arxiv(links: dict, other: dict | None) -> dict:
    """links, with the arXiv link of `other` where links have none, in LINK_KINDS order."""
    if "arxiv" in links or not isinstance(other, dict) or not isinstance(other.get("arxiv"), str):
        return links
    merged = {**links, "arxiv": other["arxiv"]}
    return {kind: merged[kind] for kind in LINK_KINDS if kind in merged}


def _where(record: Prepared) -> str:
    return f"{record.source}:{record.line}" if record.line else f"{record.source}: record {record.number}"


def _at(record: Prepared, message: str) -> Problem:
    if record.line:
        return Problem(record.source, record.line, message)
    return Problem(record.source, None, f"record {record.number}: {message}")


def title_slug(title: str) -> str:
    """A new paper's file name (its URL) from its title, math read as the page shows it rather than
    as TeX: "$\\mathcal{O}(n^2)$ Regret" -> "o-n-2-regret" (not "mathcal-o-n-2-regret"), and a
    Greek letter standing alone by its name: "ΦFlow", "$\\epsilon$-Greedy" -> "phiflow", "epsilon-greedy"."""
    text = unicodedata.normalize("NFKD", plain_title(title))  # mathematical alphanumerics: 𝛼 -> α
    return slugify(_LONE_GREEK.sub(lambda m: GREEK.get(m.group(), m.group()), text))
