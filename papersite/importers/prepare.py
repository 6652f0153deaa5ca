"""A record made ready to import, alone: everything of its paper that needs no other record.

Its text cleaned, its title (seed text) and topics derived, its authors, links and
identifiers put as front matter holds them. This is the costly part of an import, so
run.py runs it on the workers; which paper the record is, and what is written, is
importer.py's to decide, one record at a time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..model import LINK_KINDS
from ..source.config import ORCID
from ..source.content import MAX_ABSTRACT_CHARS, normalise_link
from ..source.yamlsource import FORBIDDEN_CHARACTERS
from ..errors import Problem
from .identity import family_name, fold, identifiers
from .records import Author, Deferred, Record
from .titles import derive_title
from .topics import Topics
from .writer import one_line


@dataclass
class Prepared:
    """A record as the importer takes it."""

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
    keywords: list[str] = field(default_factory=list)  # the record's own, one line each, first spelling of each
    authors: list[str | dict] = field(default_factory=list)  # as front matter holds them
    et_al: bool = False
    first: str = ""  # the first author's family name, folded
    status: str = ""
    links: dict[str, str] = field(default_factory=dict)
    unusable: dict[str, str] = field(default_factory=dict)  # links the build cannot take: to extra['links']
    extra: dict = field(default_factory=dict)  # cleaned
    identifiers: list[tuple[str, str]] = field(default_factory=list)  # identity.identifiers(ids, links)
    venue_abbr: str = ""


def prepare(item: Record | Deferred, seed: bool, topics: Topics) -> Prepared | Problem:
    """The record (made first when it was deferred), ready; `seed`: its title is derived from its abstract."""
    record = item() if isinstance(item, Deferred) else item
    if isinstance(record, Problem):
        return record
    title, abstract = one_line(record.title), _clean_abstract(record.abstract)
    ready = Prepared(record.source, record.line, record.number, record.skip_reason, record.venue, record.year,
                     record.venue_kind, one_line(record.date), record.ids, title, abstract,
                     venue_abbr=one_line(record.venue_abbr))
    if record.skip_reason or not (title or seed) or len(abstract) > MAX_ABSTRACT_CHARS:
        return ready  # skipped: the rest is not needed
    if seed:
        ready.title = derive_title(abstract)
    seen: set[str] = set()
    for keyword in map(one_line, record.keywords):
        if keyword and fold(keyword) not in seen:
            seen.add(fold(keyword))
            ready.keywords.append(keyword)
    ready.topics = topics.assign(ready.keywords, ready.title, abstract)
    authors = [a for a in record.authors if one_line(a.name)]
    ready.authors = [_author(a) for a in authors]
    ready.first = family_name(one_line(authors[0].name)) if authors else ""
    ready.et_al = record.et_al and bool(authors)
    ready.status = one_line(record.status)
    ready.links, ready.unusable = _links(record)
    ready.identifiers = identifiers(record.ids, ready.links)
    ready.extra = _clean_data(dict(record.extra))
    return ready


def _clean_abstract(text: str) -> str:
    """Paragraphs and line breaks kept (a Markdown list stays one), indentation and trailing
    spaces dropped (an indented line would read as code), control characters dropped."""
    text = FORBIDDEN_CHARACTERS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


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


def _author(author: Author) -> str | dict:
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
