"""The reading list's pages and buttons, in a built site (the browser side: tests/browser/test_reading_list.py)."""
from __future__ import annotations

import html5lib

from tests.downloads import paper_download
from tests.conftest import TinySite


def parse(data: bytes):
    return html5lib.parse(data, namespaceHTMLElements=False)


def scripts(document) -> list[str]:
    return [s.get("src") for s in document.iter("script") if s.get("src")]


def test_reading_list_page_save_buttons_and_links(tmp_path):
    site = TinySite(tmp_path / "site")
    title = "Quotes \" and ' and <b>tags</b> & $x^2$"
    site.write("content/icml-2024/hostile.md",
               f"---\nid: h\ntitle: '{title.replace(chr(39), chr(39) * 2)}'\nvenue: icml-2024\nyear: 2024\n---\nBody.\n")
    build, _ = site.build()
    base = build.catalog.config.base_path

    page = parse(build.files["reading-list/index.html"])
    assert page.find(".//meta[@name='robots']").get("content") == "noindex"  # what one browser saved
    assert f"{base}static/reading-list.js" in scripts(page)
    assert page.find(".//*[@id='reading-list']").get("data-papers") == f"{base}papers/"
    assert "reading-list/" not in build.files["sitemap.xml"].decode()
    nav = page.find(".//nav[@class='site-nav']")
    assert f"{base}reading-list/" in [a.get("href") for a in nav.iter("a")]

    paper = parse(build.files["papers/hostile/index.html"])
    button = paper.find(".//button[@data-save]")
    assert button.get("data-save") == "hostile" and button.get("type") == "button"
    # the title it saves is the page's Scholar title, plain text: not repeated on the button
    assert button.get("data-title") is None
    assert paper.find(".//meta[@name='citation_title']").get("content") == "Quotes \" and ' and <b>tags</b> & x^2"
    assert button.get("hidden") is not None  # shown by the script, so no dead button without it
    # site.js loads reading-list.js where a Save button is (tests/browser/test_reading_list.py saves)
    assert scripts(paper) == [f"{base}static/site.js"]
    assert paper.find(".//pre[@id='bibtex']") is not None  # the entry the BibTeX export reads

    search = scripts(parse(build.files["search/index.html"]))  # Save buttons on results: loaded first
    assert search.index(f"{base}static/reading-list.js") < search.index(f"{base}static/search.js")
    for fmt in ("ris", "json"):  # the page's downloads, which the reading list exports too
        assert paper_download(build.files, "hostile", fmt)
