"""Machine-readable views of the catalog: Atom feeds and schema.org JSON-LD.

Dates come from the content (a paper's year), never from the clock, so two
builds of the same sources stay byte-identical.
"""
from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from .model import Paper, Topic, Venue

FEED_ENTRIES = 50  # a feed announces what is new; the sitemap lists every page
_LINK_TYPES = {"doi", "arxiv", "openreview"}  # links that identify the paper itself


def paper_date(paper: Paper) -> str:
    """An Atom timestamp for a paper: the content only knows the year, so January 1st."""
    return f"{paper.year:04d}-01-01T00:00:00Z"


def feed_context(title: str, alternate: str, papers: tuple[Paper, ...], abstracts: dict) -> dict[str, Any]:
    """Template data for one feed: its title, the HTML page it mirrors and its newest entries
    (paper, date, summary)."""
    entries = [(paper, paper_date(paper), abstracts[paper.id].snippet) for paper in papers[:FEED_ENTRIES]]
    return {"title": title, "alternate": alternate, "entries": entries,
            "updated": max((date for _, date, _ in entries), default="1970-01-01T00:00:00Z")}


def scholarly_article(paper: Paper, venue: Venue, topics: list[Topic], title: str,
                      abstract: str, url: str) -> dict[str, Any]:
    """schema.org ScholarlyArticle for a paper page (title and abstract as plain text)."""
    article: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": title,
        "name": title,
        "url": url,
        "datePublished": str(paper.year),
        "abstract": abstract,
        "author": [{"@type": "Person", "name": name} for name in paper.authors],
        "publication": {"@type": "PublicationEvent", "name": venue.full_name or venue.name},
        "keywords": [topic.name for topic in topics],
        "sameAs": [url for kind, url in paper.links if kind in _LINK_TYPES],
    }
    return {key: value for key, value in article.items() if value != []}


def json_ld(data: Any) -> Markup:
    """JSON for a <script type="application/ld+json"> element.

    `<`, `>` and `&` are written as \\u escapes so a title holding
    `</script>` or `<!--` cannot end the script element early.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
