"""Plan every page of the site: which template renders it, with what data.

Pure: takes the catalog and returns a list of Page specs; nothing is rendered
or written here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .. import urls
from ..catalog import Catalog
from .citations import bib_keys, bib_name, bib_parts, catalog_bib_parts, venue_positions
from .feeds import FeedOrder, feed_context
from ..model import Paper
from ..text.abstracts import Abstract

PAGE_SIZE = 200  # papers per listing page: no HTML page lists 50,000 papers
SITEMAP_LIMIT = 50_000  # URLs per sitemap file, the sitemap protocol's limit


class Page:
    """A page to render: its path (site-relative: '' for home, 'papers/<slug>/', 'sitemap.xml'),
    its template and its context.

    A page the plan keeps from build to build while its inputs are the same (a paper's, an
    author's) is given `made_from` instead of a context: a function and the inputs it makes
    the context of. The context is made when first read, and kept by the persistent cache as
    that recipe, not as itself: a kept page is never rendered, so its context is never made,
    and a fresh `build` process loads far fewer objects."""

    __slots__ = ("path", "template", "_context", "made_from")

    def __init__(self, path: str, template: str, context: dict[str, Any] | None = None,
                 made_from: tuple[Callable[..., dict[str, Any]], tuple] | None = None):
        self.path, self.template, self._context, self.made_from = path, template, context, made_from

    @property
    def context(self) -> dict[str, Any]:
        if self._context is None:
            make, inputs = self.made_from
            self._context = make(*inputs)
        return self._context

    def remake_from(self, inputs: tuple) -> None:
        """Made from these inputs, equal to its own: this build's objects, which the next build's
        are mostly the very same as (a session loaded, or a paper parsed again, gives equal ones
        that would be compared field by field at every build), and the last build's freed."""
        self.made_from, self._context = (self.made_from[0], inputs), None

    def __reduce__(self):
        if self.made_from is not None:
            return Page, (self.path, self.template, None, self.made_from)
        return Page, (self.path, self.template, self._context)

    def __repr__(self) -> str:
        return f"Page({self.path!r}, {self.template!r})"


def plan_pages(catalog: Catalog, abstracts: dict[str, Abstract],
               related: dict[str, list[str]], last: dict[str, tuple[tuple, Page]] | None = None) -> list[Page]:
    """Every page, with a context made of references to catalog objects.

    A context holds what its page shows and nothing else (text derived from a
    paper, such as its BibTeX or snippet, comes from template filters), so the
    render stage can compare it with last build's to decide whether the page
    changed. `last` (paper id -> (inputs, page), and for authors see
    people_pages; updated here) keeps a paper's page from the last plan while
    its inputs are equal (see engine/runner.py: BuildCache): most of a one-paper
    rebuild's pages are then the same Page.
    """
    last = {} if last is None else last
    fresh: dict[str, tuple[tuple, Page]] = {}
    by_id = {p.id: p for p in catalog.papers}
    topics = {t.slug: t for t in catalog.config.topics}
    bylines = catalog.author_paths
    positions = venue_positions(catalog) if catalog.topics else {}  # for the topics' .bib downloads
    pages = [
        Page(urls.HOME, "home.html", {"recent": catalog.papers[:10]}),
        *paginate(urls.ALL_PAPERS, "papers.html", "All papers", {"bib": catalog_bib_parts(catalog)},
                  catalog.papers, bylines),
        Page(urls.ALL_VENUES, "venues.html", {"title": "Venues"}),
        Page(urls.ALL_TOPICS, "topics.html", {"title": "Topics"}),
        Page(urls.SEARCH, "search.html", {"title": "Search"}),
        Page(urls.MAP, "map.html", {"title": "Map of papers"}),
        Page("404.html", "404.html", {"title": "Page not found"}),
    ]
    for venue in catalog.venues:
        pages += paginate(urls.path_of(venue), "venue.html", venue.name,
                          {"venue": venue, "feed": urls.feed_of(venue)}, catalog.venue_papers[venue.slug], bylines)
    for topic in catalog.topics:
        papers = catalog.topic_papers[topic.slug]
        pages += paginate(urls.path_of(topic), "topic.html", topic.name,
                          {"topic": topic, "feed": urls.feed_of(topic), "bib": bib_parts(papers, positions)},
                          papers, bylines)
    pages += people_pages(catalog, bylines, last, fresh)
    pages += year_pages(catalog, bylines)
    paper_of, topic_of, related_of, kept_for = by_id.__getitem__, topics.__getitem__, related.get, last.get
    for venue in catalog.venues:  # in catalog.papers order; previous and next within the venue
        siblings = catalog.venue_papers[venue.slug]
        for previous, paper, following in zip((None, *siblings[:-1]), siblings, (*siblings[1:], None)):
            others = tuple(map(paper_of, related_of(paper.id, ())))  # papers: their titles show
            shown_topics = tuple(map(topic_of, paper.topics))
            byline = bylines[paper.id]
            inputs = (paper, venue, shown_topics, abstracts[paper.id], previous, following, others, byline,
                      catalog.citation_keys[paper.id])
            kept = kept_for(paper.id)
            if kept is None or kept[0] != inputs:  # mostly identity checks: the same objects
                page = Page(urls.path_of(paper), "paper.html", made_from=(paper_context, inputs))
            else:
                page = kept[1]
                if kept[0][0] is not paper:
                    page.remake_from(inputs)
            fresh[paper.id] = (inputs, page)
            pages.append(page)
    # the sitemap lists the pages search engines should index: not the 404 or the (noindex) search page
    indexed = [p.path for p in pages if p.path not in ("404.html", urls.SEARCH)]
    was = last.get(("sitemap",))
    fresh[("sitemap",)] = was = was if was is not None and was[0] == indexed else (indexed, sorted(indexed))
    pages += sitemap_pages(was[1])
    last.clear()
    last.update(fresh)
    pages.append(Page("robots.txt", "robots.txt", {}))
    # not in the sitemap: a page that shows what this browser saved
    pages.append(Page(urls.READING_LIST, "reading-list.html", {"title": "Reading list"}))
    order = FeedOrder(catalog.papers)
    pages.append(Page(urls.feed_of(), "feed.xml", feed_context(
        catalog.config.title, urls.HOME, catalog.papers, abstracts, order)))
    for venue in catalog.venues:
        pages.append(Page(urls.feed_of(venue), "feed.xml", feed_context(
            f"{venue.name} · {catalog.config.title}", urls.path_of(venue), catalog.venue_papers[venue.slug],
            abstracts, order)))
    for topic in catalog.topics:
        pages.append(Page(urls.feed_of(topic), "feed.xml", feed_context(
            f"{topic.name} · {catalog.config.title}", urls.path_of(topic), catalog.topic_papers[topic.slug],
            abstracts, order)))
    return pages


def paper_context(paper: Paper, venue, shown_topics: tuple, abstract: Abstract, previous: Paper | None,
                  following: Paper | None, others: tuple[Paper, ...], byline: tuple, bibtex_key: str) -> dict[str, Any]:
    """A paper page's context, made of plan_pages' inputs for it."""
    return {
        "title": paper.title,
        "paper": paper,
        "venue": venue,
        "bibtex_key": bibtex_key,
        "topics": list(shown_topics),
        "abstract": abstract,
        "previous": previous,
        "next": following,
        "related": list(others),
        "byline": byline,
    }


def people_pages(catalog: Catalog, bylines: dict, last: dict, fresh: dict) -> list[Page]:
    """The authors index (A-Z, paginated, with letter jump links) and a page per author
    (no feed: one per venue and topic is enough). An author's pages are kept from the last
    plan (`last`, moved to `fresh` as in plan_pages) while what they show is the same objects
    and the keys of their .bib's entries the same: a catalog has three authors a paper, and most
    stay as they were."""
    if not catalog.authors:
        return []
    # The index: an entry per person, made again only for new Author objects (ids of the last
    # plan's are safe to reuse as keys: its inputs keep them alive).
    last_index = last.get(("authors",))
    known = dict(zip(map(id, last_index[0]), last_index[1])) if last_index else {}
    entries = tuple(known.get(id(a)) or (a.name, urls.path_of(a), len(a.papers), a.letter) for a in catalog.authors)
    if last_index and last_index[1] == entries:
        pages = list(last_index[2])
    else:
        letters: dict[str, str] = {}  # letter -> the index page it starts on, with its heading's anchor
        for index, entry in enumerate(entries):
            if entry[3] not in letters:
                letters[entry[3]] = f"{urls.page_of(urls.ALL_AUTHORS, index // PAGE_SIZE + 1)}#{urls.letter_anchor(entry[3])}"
        pages = paginate(urls.ALL_AUTHORS, "authors.html", "Authors", {"letters": tuple(letters.items())},
                         entries, key="authors")
    fresh[("authors",)] = (catalog.authors, entries, tuple(pages))
    with_bib, keys, kept_for = catalog.config.writes("author-bibtex"), catalog.citation_keys, last.get
    touched = _touched_authors(last.get(("people",)), with_bib, bylines, keys)
    fresh[("people",)] = (with_bib, bylines, keys)
    for author in catalog.authors:
        # An Author is made again whenever one of its papers changed, and kept while who is who
        # leaves it as it was (people.py); its co-authors' pages may have moved meanwhile, and its
        # papers' citation keys changed: then it is among those `touched`.
        key = ("author", author.slug)  # beside paper ids, which are strings
        kept = kept_for(key)
        if kept is None or kept[0][0] is not author or touched is None or author.slug in touched:
            bib = (bib_name(author), *bib_keys(author.papers, keys)) if with_bib else None
            shown_bylines = tuple(bylines[p.id] for p in author.papers)
            if kept is None or kept[0][0] is not author or kept[0][1] != bib or kept[0][2] != shown_bylines:
                inputs = (author, bib, shown_bylines)
                path = urls.path_of(author)
                kept = (inputs, [Page(urls.page_of(path, number), "author.html",
                                      made_from=(author_context, inputs if number == 1 else (*inputs, number)))
                                 for number in range(1, listing_pages(len(author.papers)) + 1)])
        fresh[key] = kept
        pages += kept[1]
    return pages


def _touched_authors(was: tuple | None, with_bib: bool, bylines: dict, keys: dict[str, str]) -> set[str] | None:
    """The slugs of the authors of every paper whose byline or citation key changed since the
    plan that left `was` (what people_pages kept of it), before the change and after; None
    when that plan is not known (any author's page may have changed). A pass over the papers'
    bylines and keys, not over every author's papers."""
    if was is None or was[0] != with_bib:
        return None
    _, last_bylines, last_keys = was
    if bylines is last_bylines and keys == last_keys:  # who is who kept as it was, no key moved
        return set()
    touched: set[str] = set()
    byline_was, key_was = last_bylines.get, last_keys.get
    for paper_id, byline in bylines.items():
        before = byline_was(paper_id)
        if before != byline or key_was(paper_id) != keys[paper_id]:
            for _, page in (*byline, *(before or ())):
                slug = urls.author_slug(page)
                if slug is None:
                    return None
                touched.add(slug)
    return touched


def author_context(author, bib: tuple[str, str, str] | None, bylines: tuple, number: int = 1) -> dict[str, Any]:
    """The context of page `number` of an author's listing, made of people_pages' inputs for it.
    `bib`: the name and bib_keys of their .bib download, None without one (site.yaml `omit:`)."""
    context = {
        "person": author.person,  # name, orcid, affiliation, homepage
        "spellings": author.spellings,
        "author_path": urls.path_of(author),  # their name stays shown in long author lists
    }
    if bib is not None:
        context["bib_name"], context["bib"], context["bib_keys"] = bib
    return paginate(urls.path_of(author), "author.html", author.name, context, author.papers,
                    dict(zip((p.id for p in author.papers), bylines)))[number - 1].context


def listing_pages(papers: int) -> int:
    """How many pages a listing of `papers` takes (paginate)."""
    return max(1, -(-papers // PAGE_SIZE))


def sitemap_pages(paths: list[str]) -> list[Page]:
    """sitemap.xml listing `paths`; past SITEMAP_LIMIT of them, sitemap.xml is a sitemap
    index of sitemap-1.xml, sitemap-2.xml ... (robots.txt names sitemap.xml either way)."""
    limit = SITEMAP_LIMIT
    if len(paths) <= limit:
        return [Page("sitemap.xml", "sitemap.xml", {"paths": paths})]
    parts = [Page(f"sitemap-{number}.xml", "sitemap.xml", {"paths": paths[start:start + limit]})
             for number, start in enumerate(range(0, len(paths), limit), start=1)]
    return [Page("sitemap.xml", "sitemap-index.xml", {"sitemaps": [part.path for part in parts]}), *parts]


def year_pages(catalog: Catalog, bylines: dict) -> list[Page]:
    """A page per year, papers grouped by venue, and the years index; only for a catalog
    spanning several years (one year's page would repeat the all-papers listing)."""
    if len(catalog.years) < 2:
        return []
    summary = []
    for year in catalog.years:
        venues: dict[str, int] = {}
        for paper in catalog.year_papers[year]:
            venues[paper.venue] = venues.get(paper.venue, 0) + 1
        summary.append((year, len(catalog.year_papers[year]), tuple(
            (catalog.venue(slug).name, urls.path_of(catalog.venue(slug)), count) for slug, count in venues.items())))
    pages = [Page(urls.ALL_YEARS, "years.html", {"title": "Years", "years": tuple(summary)})]
    for year in catalog.years:
        pages += paginate(urls.path_of(year), "year.html", str(year), {"year": year},
                          catalog.year_papers[year], bylines)
    return pages


def paginate(path: str, template: str, title: str, context: dict[str, Any], papers: tuple,
             bylines: dict | None = None, key: str = "papers") -> list[Page]:
    """A listing split into pages of PAGE_SIZE papers: path, path/page/2/, ... with prev/next links.

    Templates show each paper's snippet with the `snippet` filter: it is a function of
    the paper's abstract, so the papers alone say whether the page changed. With
    `bylines` (Catalog.author_paths), the page gets those of its papers, for author links.
    `key` names the items in the context (the authors index lists people, not papers).
    """
    count = listing_pages(len(papers))
    paths = [urls.page_of(path, number) for number in range(1, count + 1)]
    pages = []
    for index, page_path in enumerate(paths):
        shown = papers[index * PAGE_SIZE:(index + 1) * PAGE_SIZE]
        extra = {} if bylines is None else {"bylines": {p.id: bylines[p.id] for p in shown}}
        pages.append(Page(page_path, template, {
            **context,
            **extra,
            "title": title if index == 0 else f"{title} (page {index + 1} of {count})",
            "total": len(papers),
            key: shown,
            "pager": {"number": index + 1, "count": count, "first": index * PAGE_SIZE + 1,
                      "previous": paths[index - 1] if index > 0 else None,
                      "next": paths[index + 1] if index + 1 < count else None},
        }))
    return pages
