"""The client-side search: a lunr index prebuilt in Python plus a small document store.

lunr.js in the browser loads the index as is; the document store holds what a
result needs to render (title, url, venue, year, topics, snippet).
"""
from __future__ import annotations

import json

from . import urls
from .catalog import Catalog
from .markup import plain_text
from .pages import Abstract
from .search_index import build_index, index_json

FIELDS = [
    {"field_name": "title", "boost": 10},
    {"field_name": "authors", "boost": 3},
    {"field_name": "topics", "boost": 2},
    {"field_name": "venue"},
    {"field_name": "body"},
]


def search_files(catalog: Catalog, abstracts: dict[str, Abstract]) -> dict[str, bytes]:
    """The index and document store, as output files."""
    link = urls.Urls(catalog.config.base_url)
    documents, store = [], {}
    for paper in catalog.papers:
        venue = catalog.venue(paper.venue)
        topics = [catalog.topic(t) for t in paper.topics]
        # Results are rendered as text: math in a title becomes readable text, as in <title>.
        title = plain_text(paper.title) if "$" in paper.title else paper.title
        documents.append({
            "id": paper.id,
            "title": title,
            "authors": " ".join(paper.authors),
            "topics": " ".join(t.name for t in topics),
            # The short name only: every full name says "Learning" or "Conference", which
            # would make those words match every paper. Venue filters are facets anyway.
            "venue": venue.name,
            "body": abstracts[paper.id].text,
        })
        store[paper.id] = {
            "title": title,
            "url": link.link(paper),
            "venue": venue.slug,
            "year": paper.year,
            "topics": [t.slug for t in topics],
            "snippet": abstracts[paper.id].snippet,
        }
    facets = {
        "venues": {v.slug: v.name for v in catalog.venues},
        "topics": {t.slug: t.name for t in catalog.topics},
    }
    index = build_index(documents, FIELDS, ref="id")
    return {
        urls.SEARCH_INDEX: _inert(index_json(index)),
        urls.SEARCH_DOCS: _inert(json.dumps({"docs": store, **facets}, ensure_ascii=False, sort_keys=True,
                                            separators=(",", ":"))),
    }


def _inert(text: str) -> bytes:
    """JSON with <, > and & as \\u escapes (the same data once parsed): content holding
    `</script>` or `<!--` stays harmless even if a file is ever read as HTML or inlined."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")
