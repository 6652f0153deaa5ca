"""Listings are split into pages of PAGE_SIZE papers, with previous/next links, and nothing is lost."""
from __future__ import annotations

import re

import pytest

from papersite.site import pages
from tests.conftest import TinySite, paper_text
from tests.htmlcheck import page_url, parse, resolve


@pytest.fixture(scope="module")
def paged(tmp_path_factory):
    """Seven papers, three a page: listings of 3 + 3 + 1. Built once: its tests only read it."""
    root = tmp_path_factory.mktemp("paged")
    site = TinySite(root / "site")
    for index in range(7):
        topics = "[learning-theory]" if index < 4 else "[generative-models]"
        site.write(f"content/icml-2024/paper-{index}.md",
                   paper_text(id=f"p{index}", title=f"Paper {index}", topics=topics, body=f"Abstract {index}."))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(pages, "PAGE_SIZE", 3)
        build, _ = site.build(root / "out")
    return root / "out", build


def listed(html_file) -> list[str]:
    return [link for link in parse(html_file).links if re.fullmatch(r"/catalog/papers/paper-\d/", link)]


def test_every_paper_is_listed_once_across_the_pages(paged):
    out, build = paged
    files = ["papers/index.html", "papers/page/2/index.html", "papers/page/3/index.html"]
    assert [len(listed(out / f)) for f in files] == [3, 3, 1]
    assert sorted(link for f in files for link in listed(out / f)) == \
        sorted(f"/catalog/papers/{p.slug}/" for p in build.catalog.papers)
    assert not (out / "papers/page/4/index.html").exists()
    assert not (out / "papers/page/1/index.html").exists()  # page 1 is the listing itself
    assert [len(listed(out / f)) for f in ("venues/icml-2024/index.html", "venues/icml-2024/page/2/index.html",
                                           "venues/icml-2024/page/3/index.html")] == [3, 3, 1]
    assert [len(listed(out / f)) for f in ("topics/learning-theory/index.html",
                                           "topics/learning-theory/page/2/index.html")] == [3, 1]
    assert not (out / "topics/generative-models/page/2/index.html").exists()  # 3 papers: one page


def test_pages_link_to_their_neighbours_and_say_where_they_are(paged):
    out, _ = paged
    first, middle, last = (parse(out / f) for f in
                           ("papers/index.html", "papers/page/2/index.html", "papers/page/3/index.html"))
    assert "/catalog/papers/page/2/" in first.links and "/catalog/papers/page/3/" not in first.links
    assert {"/catalog/papers/", "/catalog/papers/page/3/"} <= set(middle.links)
    assert "/catalog/papers/page/2/" in last.links
    text = (out / "papers/page/2/index.html").read_text()
    assert "Page 2 of 3" in text and 'rel="prev"' in text and 'rel="next"' in text
    assert "<title>All papers (page 2 of 3) · Test Catalog</title>" in text
    assert "7 papers" in text  # the lead counts the whole listing
    assert '<ol class="paper-list compact" start="4">' in text  # numbering goes on


def test_a_single_page_listing_has_no_pagination(site, tmp_path):
    site.paper("only", id="p1")
    site.build(tmp_path / "out")
    text = (tmp_path / "out/papers/index.html").read_text()
    assert "pagination" not in text and 'start="' not in text


def test_pagination_pages_are_in_the_sitemap_and_every_link_resolves(paged):
    out, build = paged
    sitemap = (out / "sitemap.xml").read_text()
    for path in ("papers/page/2/", "papers/page/3/", "venues/icml-2024/page/3/", "topics/learning-theory/page/2/"):
        assert f"<loc>https://example.org/catalog/{path}</loc>" in sitemap
    for html in out.rglob("*.html"):
        url, page = page_url(out, "/catalog/", html), parse(html)
        for href in page.links + page.assets:
            target = resolve(out, "/catalog/", url, href)
            assert target is None or target.is_file(), f"{html}: {href}"


def test_no_listing_page_holds_more_than_page_size_papers(paged):
    out, _ = paged
    for html in out.rglob("*.html"):
        if "/papers/paper-" not in html.as_posix():
            assert len(listed(html)) <= 3 or html.name == "index.html" and html.parent == out, html
