"""The catalog's nouns: plain frozen data, no I/O."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

LINK_KINDS = ("pdf", "code", "openreview", "arxiv", "doi", "url")


@dataclass(frozen=True)
class Topic:
    slug: str
    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Venue:
    slug: str
    name: str  # short, e.g. "ICML 2024"
    year: int
    full_name: str = ""  # e.g. "International Conference on Machine Learning"
    url: str = ""


@dataclass(frozen=True)
class Paper:
    """One abstract, as read from its content file."""

    id: str
    slug: str  # from the file name; the page lives at papers/<slug>/
    title: str
    venue: str  # venue slug
    year: int
    abstract: str  # Markdown source with $TeX$
    authors: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()  # topic slugs, most relevant first
    links: tuple[tuple[str, str], ...] = ()  # (kind, url) in LINK_KINDS order
    title_source: str = ""  # "derived" when an importer derived the title from the abstract
    source: Path = field(default=Path(), compare=False)

    @property
    def title_derived(self) -> bool:
        """The title is the one derived from the abstract: title_source is "derived", or
        "derived:<hash>" with the hash of this very title (so an edited title is not)."""
        from .derive import title_is_derived

        return title_is_derived(self.title, self.title_source)
