"""Plan every page of the site: which template renders it, with what data.

Pure: takes the catalog and returns a list of Page specs; nothing is rendered
or written here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import urls
from .bibtex import bibtex_entry
from .catalog import Catalog
from .feeds import feed_context, scholarly_article
from .markup import plain_text


@dataclass(frozen=True)
class Abstract:
    """An abstract rendered once: HTML for its page, text for search and snippets."""

    html: str
    text: str
    snippet: str


@dataclass(frozen=True)
class Page:
    path: str  # site-relative: '' (home), 'papers/<slug>/', 'sitemap.xml'
    template: str
    context: dict[str, Any]


def plan_pages(catalog: Catalog, abstracts: dict[str, Abstract],
               related: dict[str, list[str]]) -> list[Page]:
    by_id = {p.id: p for p in catalog.papers}
    link = urls.Urls(catalog.config.base_url)
    pages = [
        Page(urls.HOME, "home.html", {"recent": catalog.papers[:10]}),
        Page(urls.ALL_PAPERS, "papers.html", {"title": "All papers", "papers": catalog.papers}),
        Page(urls.ALL_VENUES, "venues.html", {"title": "Venues"}),
        Page(urls.ALL_TOPICS, "topics.html", {"title": "Topics"}),
        Page(urls.SEARCH, "search.html", {"title": "Search"}),
        Page("404.html", "404.html", {"title": "Page not found"}),
    ]
    for venue in catalog.venues:
        pages.append(Page(urls.path_of(venue), "venue.html", {
            "title": venue.name, "venue": venue, "papers": catalog.venue_papers[venue.slug],
            "feed": urls.feed_of(venue)}))
    for topic in catalog.topics:
        pages.append(Page(urls.path_of(topic), "topic.html", {
            "title": topic.name, "topic": topic, "papers": catalog.topic_papers[topic.slug],
            "feed": urls.feed_of(topic)}))
    for paper in catalog.papers:
        venue = catalog.venue(paper.venue)
        previous, following = catalog.neighbours(paper)
        topics = [catalog.topic(t) for t in paper.topics]
        plain_title = plain_text(paper.title) if "$" in paper.title else paper.title  # as the |plain filter
        pages.append(Page(urls.path_of(paper), "paper.html", {
            "title": paper.title,
            "paper": paper,
            "venue": venue,
            "topics": topics,
            "abstract": abstracts[paper.id],
            "bibtex": bibtex_entry(paper, venue, link.absolute(paper)),
            "previous": previous,
            "next": following,
            "related": [by_id[r] for r in related.get(paper.id, ())],
            "article": scholarly_article(paper, venue, topics, plain_title,
                                         abstracts[paper.id].text, link.absolute(paper)),
        }))
    # the sitemap lists the pages search engines should index: not the 404 or the (noindex) search page
    pages.append(Page("sitemap.xml", "sitemap.xml",
                      {"paths": sorted(p.path for p in pages if p.path not in ("404.html", urls.SEARCH))}))
    pages.append(Page("robots.txt", "robots.txt", {}))
    pages.append(Page(urls.feed_of(), "feed.xml", feed_context(catalog.config.title, urls.HOME, catalog.papers)))
    for venue in catalog.venues:
        pages.append(Page(urls.feed_of(venue), "feed.xml", feed_context(
            f"{venue.name} · {catalog.config.title}", urls.path_of(venue), catalog.venue_papers[venue.slug])))
    for topic in catalog.topics:
        pages.append(Page(urls.feed_of(topic), "feed.xml", feed_context(
            f"{topic.name} · {catalog.config.title}", urls.path_of(topic), catalog.topic_papers[topic.slug])))
    return pages

