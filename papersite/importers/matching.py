"""Which paper a record is: the papers of the catalog, and those the import wrote, found
again by id, by another identifier (DOI, arXiv, OpenReview), by a near-identical abstract,
or by title and first author."""
from __future__ import annotations

from ..model import Venue
from .identity import TextIndex, title_key
from .venues import Venues
from .writer import Existing


class KnownPapers:
    def __init__(self, catalog: list[Existing], venues: Venues):
        self.catalog, self.venues = catalog, venues
        self.by_id: dict[str, Existing] = {}
        self.by_identifier: dict[tuple[str, str], Existing] = {}
        self.by_title: dict[tuple[str, str, str], Existing] = {}
        self.by_work: dict[tuple[str, str], Existing] = {}  # (title, first author), in any venue
        for paper in catalog:
            self.remember(paper)
        self.texts: TextIndex | None = None  # made when first needed: a re-import matches by id

    def remember(self, paper: Existing) -> None:
        """The paper, found by its id, identifiers and title as they are now."""
        self.by_id.setdefault(paper.id, paper)
        for identifier in paper.identifiers:
            self.by_identifier.setdefault(identifier, paper)
        if not paper.title_derived and paper.title_key:
            self.by_title.setdefault((paper.venue, paper.title_key, paper.first_author), paper)
            self.by_work.setdefault((paper.title_key, paper.first_author), paper)

    def also_by_id(self, other_id: str, paper: Existing) -> None:
        self.by_id.setdefault(other_id, paper)

    def add_identifiers(self, paper: Existing, found: list[tuple[str, str]]) -> None:
        for identifier in found:
            if identifier not in paper.identifiers:
                paper.identifiers.append(identifier)
                self.by_identifier.setdefault(identifier, paper)

    def find(self, new_id: str, identifiers: list[tuple[str, str]], title: str, abstract: str, venue: Venue,
             first: str) -> tuple[Existing | None, str]:
        """The paper of the catalog (or of this import) a record is, and what matched."""
        if new_id in self.by_id:
            return self.by_id[new_id], f"same id '{new_id}'"
        for identifier in identifiers:
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
