"""Which paper a record is: the papers of the catalog, and those the import wrote, found
again by id, by another identifier (DOI, arXiv, OpenReview), by a near-identical abstract,
or by title and first author."""
from __future__ import annotations

from pathlib import Path

from ..model import Venue
from .catalog_index import existing
from .identity import TextIndex, title_key
from .venues import Venues
from .writer import Existing, read_abstract

# What the lookups hold: a paper, or the relative path of a catalog paper no record has found
# yet: its Existing is made when one does, so the work per import follows the records.
Found = Existing | str


class KnownPapers:
    def __init__(self, content: Path, catalog: dict[str, list], venues: Venues):
        """catalog: relative path -> paper, as CatalogIndex.papers() gives them, in path order."""
        self.content, self.catalog, self.venues = content, catalog, venues
        self.made: dict[str, Existing] = {}  # relative path -> its paper, once found
        self.by_id: dict[str, Found] = {}
        self.by_identifier: dict[tuple[str, str], Found] = {}
        self.by_title: dict[tuple[str, str, str], Found] = {}
        self.by_work: dict[tuple[str, str], Found] = {}  # (title, first author), in any venue
        by_id, by_identifier, by_title, by_work = self.by_id, self.by_identifier, self.by_title, self.by_work
        for key, (id_, venue, _, _, first, _, _, ids, title, derived) in catalog.items():  # remember(), unmade
            by_id.setdefault(id_, key)
            for i in range(0, len(ids), 2):
                by_identifier.setdefault((ids[i], ids[i + 1]), key)
            if not derived and title:
                by_title.setdefault((venue, title, first), key)
                by_work.setdefault((title, first), key)
        # the abstracts of a venue's papers, read when a record of the venue is first looked for by its
        # abstract: a re-import matches by id, and an import into a venue reads that venue's papers only
        self.by_venue: dict[str, list[str]] | None = None
        self.texts: dict[str, TextIndex] = {}

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
            return self._paper(self.by_id[new_id]), f"same id '{new_id}'"
        for identifier in identifiers:
            if identifier in self.by_identifier:
                return self._paper(self.by_identifier[identifier]), f"same {identifier[0]} id '{identifier[1]}'"
        if abstract and self.catalog:
            # not a paper another record of this import is already: a near-identical abstract of
            # the same input is another paper (a fresh import makes both, and so must a rerun)
            paper = self._texts(venue.slug).find(venue.slug, abstract, usable=lambda paper: not paper.claimed)
            if paper is not None:
                return paper, "near-identical abstract"
        if title:
            found = self.by_title.get((venue.slug, title_key(title), first))
            paper = None if found is None else self._paper(found)
            if paper is None:  # a preprint and its published version, in another venue: one paper
                found = self.by_work.get((title_key(title), first))
                paper = None if found is None else self._paper(found)
                preprint = venue.kind == "preprint"
                if paper is not None and preprint == (self.venues.kind(paper.venue) == "preprint"):
                    paper = None
            if paper is not None:
                return paper, "same title and first author"
        return None, ""

    def _paper(self, found: Found) -> Existing:
        if isinstance(found, Existing):
            return found
        paper = self.made.get(found)
        if paper is None:
            paper = self.made[found] = existing(self.content, found, self.catalog[found])
        return paper

    def _texts(self, venue: str) -> TextIndex:
        """The abstracts of the catalog's papers in the venue, in path order, each as it was when
        the import began (importer.py keeps it before it writes the file) or as the import set it."""
        if self.by_venue is None:  # grouped by the venues the papers are in when first needed
            self.by_venue = {}
            for key, paper in self.catalog.items():
                made = self.made.get(key)
                self.by_venue.setdefault(paper[1] if made is None else made.venue, []).append(key)
        if venue not in self.texts:
            texts = self.texts[venue] = TextIndex()
            for key in self.by_venue.get(venue, ()):
                paper = self._paper(key)
                if paper.abstract is None:
                    paper.abstract = read_abstract(paper.path) if paper.has_abstract else ""
                if paper.abstract:
                    texts.add(venue, paper.abstract, paper)
        return self.texts[venue]
