"""The search files the build emits: the lunr index and the document store (no browser)."""
from __future__ import annotations

import json

import pytest
from lunr.index import Index

from papersite import urls
from papersite.markup import plain_text
from papersite.search import FIELDS


@pytest.fixture(scope="module")
def built(bundled):
    _, _, build = bundled
    return build, json.loads(build.files[urls.SEARCH_INDEX]), json.loads(build.files[urls.SEARCH_DOCS])


def grokking(catalog):
    (paper,) = [p for p in catalog.papers if "grokking" in p.title.lower()]
    return paper


def test_index_refs_are_the_paper_ids(built):
    build, index, _ = built
    refs = {field_ref.split("/", 1)[1] for field_ref, _ in index["fieldVectors"]}
    assert refs == {p.id for p in build.catalog.papers}
    assert index["fields"] == [f["field_name"] for f in FIELDS]
    assert index["pipeline"] == ["stemmer"]  # lunr.js looks this label up when loading


def test_doc_store_describes_every_paper(built):
    build, _, store = built
    catalog = build.catalog
    link = urls.Urls(catalog.config.base_url)
    assert set(store) == {"docs", "venues", "topics"}
    assert store["venues"] == {v.slug: v.name for v in catalog.venues}
    assert store["topics"] == {t.slug: t.name for t in catalog.topics}
    assert set(store["docs"]) == {p.id for p in catalog.papers}
    for paper in catalog.papers:
        doc = store["docs"][paper.id]
        assert set(doc) == {"title", "url", "venue", "year", "topics", "snippet"}
        assert doc["title"] == (plain_text(paper.title) if "$" in paper.title else paper.title)
        assert doc["year"] == paper.year
        assert doc["url"] == link.link(paper)
        assert doc["venue"] == paper.venue and list(doc["topics"]) == list(paper.topics)
        assert 0 < len(doc["snippet"]) <= 240


def test_python_search_of_the_built_index(built):
    """lunr.py loading the index (with the lunr.js stemmer registered) answers like the browser."""
    build, index_data, _ = built
    index = Index.load(index_data)
    paper = grokking(build.catalog)
    assert [r["ref"] for r in index.search("delayed")][:1] == [paper.id]
    assert index.search("grokking")[0]["ref"] == paper.id


def test_math_is_indexed_as_text_not_tex(site):
    site.paper("p1", body=r"We bound $\|\nabla f(x)\|_2 \le \frac{L}{\sqrt{n}}$ for every $\alpha \in \mathbb{R}$.")
    build, _ = site.build()
    index = json.loads(build.files[urls.SEARCH_INDEX])
    terms = [term for term, _ in index["invertedIndex"]]
    assert not [t for t in terms if any(c in t for c in "\\${}")], terms
    snippet = json.loads(build.files[urls.SEARCH_DOCS])["docs"]["p1"]["snippet"]
    assert "\\" not in snippet and "$" not in snippet


def test_math_in_titles_is_stored_as_text(site):
    site.paper("p1", title="'Embedding Graphs into $\\ell_p$ Space'")
    build, _ = site.build()
    title = json.loads(build.files[urls.SEARCH_DOCS])["docs"]["p1"]["title"]
    assert "$" not in title and "\\" not in title and title.endswith("Space")


def test_index_size_stays_small(built):
    """A budget, not a measurement: ~6 KB a paper at this size (the vocabulary is
    shared, so larger catalogs cost less per paper)."""
    build, _, _ = built
    per_paper = len(build.files[urls.SEARCH_INDEX]) / len(build.catalog.papers)
    assert per_paper < 9_000
    assert len(build.files[urls.SEARCH_DOCS]) / len(build.catalog.papers) < 700


def test_venue_full_names_do_not_match_every_paper(site):
    """Only the venue's short name is indexed: "Conference"/"Learning" in every full name would
    otherwise make those words match every paper."""
    site.paper("p1", body="An abstract about generalization.")
    build, _ = site.build()
    index = Index.load(json.loads(build.files[urls.SEARCH_INDEX]))
    assert [r["ref"] for r in index.search("icml")] == ["p1"]
    assert index.search("conference") == [] and index.search("international") == []
