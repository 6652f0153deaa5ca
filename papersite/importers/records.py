"""The common shape every input format is read into, before it becomes a content file.

A reader turns one input file into a stream of `Record`s, one per paper, and
`Problem`s for the records it could not read (the rest of the file still
counts). Readers only parse and normalise: identity, venues, topics and
writing content files are the importer's job (see `papersite.importers`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ..errors import Problem


@dataclass(frozen=True)
class Author:
    name: str  # "Diederik P. Kingma": display order, accents decoded, one space between words
    orcid: str = ""  # bare, 0000-0002-1825-0097
    affiliation: str = ""


@dataclass
class Record:
    """One paper as an export gives it, with field names and values normalised."""

    source: Path  # the input file
    line: int | None  # where the record starts, when the format has lines
    number: int  # 1-based position in the file
    title: str = ""  # plain text; $...$ math kept as is; "" when the format has none (seed text)
    abstract: str = ""  # Markdown; paragraphs separated by a blank line; $...$ kept
    authors: list[Author] = field(default_factory=list)
    et_al: bool = False  # the source names only some of the authors (BibTeX's "and others")
    year: int | None = None
    date: str = ""  # "2024-07-21", "2024-07" or "2024"
    venue: str = ""  # as the source names it: booktitle, journal, container-title, venueid, header line
    venue_kind: str = ""  # conference, journal, workshop or preprint when the source says; "" when not
    venue_abbr: str = ""  # the venue's short name where the source gives one apart (al-folio's `abbr`)
    keywords: list[str] = field(default_factory=list)  # author keywords / subject areas, as given
    status: str = ""  # "oral", "spotlight", "poster", "best paper award", ... as the source says
    links: dict[str, str] = field(default_factory=dict)  # kind (model.LINK_KINDS) -> URL or bare DOI/arXiv id
    ids: dict[str, str] = field(default_factory=dict)  # "openreview", "arxiv" (no version), "doi", "key"
    extra: dict = field(default_factory=dict)  # fields of the source no other field holds (CSV columns...)
    # Set when the source itself says this is not a paper (a workshop, tutorial or talk of an event
    # export; a @proceedings volume): the importer counts it as skipped, with this reason.
    skip_reason: str = ""


class Deferred:
    """A record read but not made yet: make() gives it (a Record or a Problem). A reader whose
    records cost more to make than to read (a CSV row to a Record) yields these when asked
    to, so that the importer makes them on its workers, not while reading."""

    __slots__ = ("make", "args")

    def __init__(self, make: Callable[..., Record | Problem], *args):
        self.make, self.args = make, args

    def __call__(self) -> Record | Problem:
        return self.make(*self.args)


@dataclass(frozen=True)
class FileProblem(Problem):
    """Why a whole file gave no records: it cannot be opened or decoded, its format is not
    recognised, or it holds none. A file's problem, not one of its records'."""


Reader = Iterator[Record | Problem | Deferred]


def read_text(path: Path) -> str | FileProblem:
    """A whole file as text (UTF-8, a BOM dropped, newlines normalised), or the Problem why not."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        return FileProblem(path, line, f"not UTF-8 text ({exc.reason} at byte {exc.start}): save the file as UTF-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")
