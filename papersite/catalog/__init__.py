"""The catalog: papers checked against each other, grouped and ordered."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter

from .bibtex import assign_keys
from ..source.config import SiteConfig
from ..source.content import split_front_matter
from ..errors import Problem, SiteError
from ..model import Paper, Topic, Venue
from .order import title_key
from .people import Author, PeopleCache, collect_people, find_members
from ..source.yamlsource import load_yaml


@dataclass(frozen=True)
class Catalog:
    config: SiteConfig
    papers: tuple[Paper, ...]  # newest venue first, then by title
    venues: tuple[Venue, ...]  # venues that have papers, newest first
    topics: tuple[Topic, ...]  # topics that have papers, in taxonomy order
    venue_papers: dict[str, tuple[Paper, ...]]
    topic_papers: dict[str, tuple[Paper, ...]]
    citation_keys: dict[str, str] = field(default_factory=dict)  # paper id -> BibTeX key, unique in the catalog
    authors: tuple[Author, ...] = ()  # everyone who wrote a paper, A-Z (see catalog/people.py)
    bylines: dict[str, tuple[tuple[str, Author], ...]] = field(default_factory=dict)  # id -> (name as written, Author)
    author_paths: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # id -> (name, page path)
    years: tuple[int, ...] = ()  # years that have papers, newest first
    year_papers: dict[int, tuple[Paper, ...]] = field(default_factory=dict)  # in catalog order: grouped by venue
    selected: tuple[Paper, ...] = ()  # papers marked `selected: true`, in catalog order: the home page's
    members: frozenset[str] = frozenset()  # author page paths of site.yaml's `people: members:`
    warnings: tuple[str, ...] = ()  # what the user should know: members who wrote no paper

    @classmethod
    def build(cls, papers: list[Paper], config: SiteConfig, people: PeopleCache | None = None,
              keys: dict[tuple, str] | None = None, titles: dict[str, str] | None = None) -> "Catalog":
        """`people`, `keys` (see assign_keys) and `titles` (each title's title_key): what the last
        build worked out, to reuse; updated."""
        _check_unique(papers, config, "id", attrgetter("id"), line=_id_line)
        _check_unique(papers, config, "URL slug (from the file name)", attrgetter("slug"))
        # BibTeX finds duplicate keys ignoring case; the message shows the key as written
        _check_unique([p for p in papers if p.bibtex_key], config, "bibtex_key", lambda p: p.bibtex_key.casefold(),
                      line=lambda path: _field_line(path, "bibtex_key"), shown=lambda p: p.bibtex_key)
        newest: dict[str, int] = {}  # a venue without a year of its own (a journal) sorts by its newest paper
        for paper in papers if any(v.year is None for v in config.venues) else ():
            newest[paper.venue] = max(newest.get(paper.venue, paper.year), paper.year)
        venue_order = {v.slug: (-(v.year if v.year is not None else newest.get(v.slug, 0)), v.name.casefold(), v.slug)
                       for v in config.venues}
        known = titles if titles is not None else {}
        sort_keys = {title: known.get(title) or title_key(title) for title in {p.title for p in papers}}
        if titles is not None:  # the titles of now alone: an edited one is not kept for ever
            titles.clear()
            titles.update(sort_keys)
        ordered = tuple(sorted(papers, key=lambda p: (venue_order[p.venue], -p.year, sort_keys[p.title], p.id)))
        by_venue: dict[str, list[Paper]] = defaultdict(list)
        by_topic: dict[str, list[Paper]] = defaultdict(list)
        for paper in ordered:
            by_venue[paper.venue].append(paper)
            for topic in paper.topics:
                by_topic[topic].append(paper)
        venues = tuple(sorted((v for v in config.venues if v.slug in by_venue), key=lambda v: venue_order[v.slug]))
        by_year: dict[int, list[Paper]] = defaultdict(list)
        for paper in ordered:
            by_year[paper.year].append(paper)
        found = collect_people(ordered, config.authors, people)
        members, warnings = find_members(found.authors, config.members, config.members_at)
        return cls(
            config=config,
            papers=ordered,
            venues=venues,
            topics=tuple(t for t in config.topics if t.slug in by_topic),  # no empty topic pages
            venue_papers={slug: tuple(ps) for slug, ps in by_venue.items()},
            topic_papers={slug: tuple(ps) for slug, ps in by_topic.items()},
            citation_keys=assign_keys(ordered, keys),
            authors=found.authors,
            bylines=found.bylines,
            author_paths=found.paths,
            years=tuple(sorted(by_year, reverse=True)),
            year_papers={year: tuple(ps) for year, ps in by_year.items()},
            selected=tuple(p for p in ordered if p.selected),
            members=members,
            warnings=warnings,
        )

    def venue(self, slug: str) -> Venue:
        return self._venues_by_slug[slug]

    def topic(self, slug: str) -> Topic:
        return self._topics_by_slug[slug]

    @cached_property
    def numbered(self) -> list[Paper]:
        """The papers as the search and the map number them: by venue, in catalog order, then by id."""
        venue_rank = {v.slug: i for i, v in enumerate(self.venues)}
        return sorted(self.papers, key=lambda p: (venue_rank[p.venue], p.id))

    # Templates and the search stage look these up once per paper: keep it O(1).
    @cached_property
    def _venues_by_slug(self) -> dict[str, Venue]:
        return {v.slug: v for v in self.config.venues}

    @cached_property
    def _topics_by_slug(self) -> dict[str, Topic]:
        return {t.slug: t for t in self.config.topics}


def _check_unique(papers: list[Paper], config: SiteConfig, what: str, key,
                  line=lambda path: None, shown=None) -> None:
    """Both files are named, as in every other message: relative to the site, with a line."""
    if len(set(map(key, papers))) == len(papers):
        return  # the usual case, checked without sorting the paths
    seen: dict[str, Paper] = {}
    problems = []
    for paper in sorted(papers, key=lambda p: str(p.source)):
        value = key(paper)
        if value in seen:
            first = seen[value].source
            also = _shown(first, config) + (f":{line(first)}" if line(first) else "")
            problems.append(Problem(_shown(paper.source, config), line(paper.source),
                                    f"duplicate {what} '{(shown or key)(paper)}': also used by {also}"))
        else:
            seen[value] = paper
    if problems:
        raise SiteError(problems)


def _shown(path, config: SiteConfig) -> str:
    try:
        return str(path.relative_to(config.root))
    except ValueError:
        return str(path)


def _id_line(path) -> int | None:
    return _field_line(path, "id")


def _field_line(path, name: str) -> int | None:
    """The line of a front matter field in a file that already parsed once (only read to report
    a duplicate)."""
    try:
        front, _, _ = split_front_matter(path.read_text(encoding="utf-8-sig"))
        return load_yaml(front, path, first_line=2)[1].get((name,))
    except (OSError, ValueError, SiteError):
        return None
