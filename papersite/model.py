"""The catalog's nouns: plain frozen data, no I/O."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from pathlib import Path

LINK_KINDS = ("pdf", "code", "openreview", "arxiv", "doi", "url",
              "slides", "video", "poster", "data", "project", "supplementary")
# What a venue is decides its citation form: BibTeX entry type, RIS and CSL type, Scholar's tags.
# A thesis's venue is the university that granted it, a report's the institution that issued it,
# a book's its publisher; a collection is a book of chapters by several authors (a handbook).
VENUE_KINDS = ("conference", "journal", "workshop", "preprint", "thesis", "report", "book", "collection")
DATED_KINDS = ("conference", "workshop")  # a venue of these kinds is one year's; the others span years
ISSUED_KINDS = ("thesis", "report", "book")  # the venue is the university, institution or publisher that issued it
ISSUER_KINDS = ("preprint", *ISSUED_KINDS)  # the venue is the work's publisher (a preprint's is its server)


def _pickled_by_fields(cls: type) -> type:
    """Pickle instances as a call of the class with their fields in order. dataclasses' own
    way for a slots class (__getstate__ and __setstate__ looking up fields() for every object)
    is several times slower, and a build pickles tens of thousands of papers and people: back
    from the workers that read them, into the build cache and out of it."""
    names = tuple(f.name for f in fields(cls))

    def __reduce__(self):
        return cls, tuple(getattr(self, name) for name in names)
    cls.__reduce__ = __reduce__
    return cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Topic:
    slug: str
    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Venue:
    slug: str
    name: str  # short, e.g. "ICML 2024"
    year: int | None  # None for a journal or series whose papers span years
    full_name: str = ""  # e.g. "International Conference on Machine Learning"
    url: str = ""
    kind: str = "conference"  # one of VENUE_KINDS
    aliases: tuple[str, ...] = ()  # other names imports may give it ("Proc. ICML 2024", "ICML.cc/2024/Conference")


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Person:
    """An author, with what is known of them beyond the name."""

    name: str
    orcid: str = ""  # 0000-0002-1825-0097
    affiliation: str = ""
    url: str = ""  # homepage
    aliases: tuple[str, ...] = ()  # other spellings of the name (site.yaml `authors:` only)


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Paper:
    """One abstract, as read from its content file."""

    id: str
    slug: str  # from the file name; the page lives at papers/<slug>/
    title: str
    venue: str  # venue slug
    year: int
    abstract: str  # Markdown source with $TeX$
    authors: tuple[str, ...] = ()  # names as written in the content file
    et_al: bool = False  # the authors named are some of them (BibTeX's "and others"): shown as "et al."
    topics: tuple[str, ...] = ()  # topic slugs, most relevant first
    keywords: tuple[str, ...] = ()  # the authors' own keywords, as an import gave them
    links: tuple[tuple[str, str], ...] = ()  # (kind, url) in LINK_KINDS order
    people: tuple[Person, ...] = ()  # one per author, with ORCID/affiliation/homepage when given
    date: str = ""  # publication date: "2024-07-21", "2024-07" or "2024"; "" when unknown
    added: str = ""  # the day an import first saw the paper (YYYY-MM-DD): orders feeds when date is unknown
    status: str = ""  # e.g. "oral", "spotlight", "poster", "best paper award"
    selected: bool = False  # one of the catalog's selected papers: on the home page, marked in listings
    bibtex_key: str = ""  # set by hand; else one is made, unique across the catalog
    title_source: str = ""  # "derived" when an importer derived the title from the abstract
    extra: dict = field(default_factory=dict, hash=False)  # free-form, for templates
    source: Path = field(default=Path(), compare=False)

    @property
    def title_derived(self) -> bool:
        """The title is the one derived from the abstract: title_source is "derived", or
        "derived:<hash>" with the hash of this very title (so an edited title is not)."""
        return title_is_derived(self.title, self.title_source)


@_pickled_by_fields
@dataclass(frozen=True, eq=False, slots=True)
class Author:
    """One person of the catalog: their page lives at authors/<slug>/.

    Compared by identity: a build makes each Author once, and pages compare
    what they show (names, slugs, papers), never Author objects."""

    slug: str
    name: str  # as shown
    sort_key: tuple[str, str]  # (surname, given names), folded: the A-Z order
    person: Person  # merged details: orcid, affiliation, url
    spellings: tuple[str, ...]  # every way the catalog writes the name, sorted
    papers: tuple[Paper, ...]  # newest year first, then by title

    @property
    def letter(self) -> str:
        """The heading this person is listed under in the A-Z index."""
        first = self.sort_key[0][:1].upper()
        return first if first.isalpha() and first.isascii() else "#"


TITLE_SOURCE_DERIVED = "derived"


def title_hash(title: str) -> str:
    return hashlib.sha256(" ".join(title.split()).encode()).hexdigest()[:8]


def title_is_derived(title: str, title_source: str | None) -> bool:
    """Whether a paper's title is still the one derived from its abstract: title_source is
    "derived:<hash>" with this title's hash (see title_mark), or a bare "derived" (a mark
    written by hand or by an importer that records no hash; it stays until removed)."""
    source = (title_source or "").strip()
    if source == TITLE_SOURCE_DERIVED:
        return True
    kind, _, digest = source.partition(":")
    return kind == TITLE_SOURCE_DERIVED and digest.strip() == title_hash(title)
