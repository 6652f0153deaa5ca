"""A project site under /repo/ in Chromium: search, paper pages and the 404 page all work there."""
from __future__ import annotations

import pytest

from papersite.source.config import load_config
from papersite.pipeline import build_site

from tests.browser.conftest import Served

BASE_URL = "https://user.github.io/repo/"


@pytest.fixture(scope="module")
def served(bundled):
    """The bundled catalog built for a project site, served from memory under /repo/."""
    root, _, _ = bundled
    build = build_site(load_config(root / "site.yaml").with_base_url(BASE_URL))
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


def result_links(page):
    page.wait_for_selector("#search-results a[href]")
    return page.eval_on_selector_all("#search-results a[href]", "els => els.map(e => e.getAttribute('href'))")


def test_search_works_under_the_subpath(page, served):
    assert served.url.endswith("/repo/")
    response = page.goto(served.url + "search/?q=grokking")
    assert response.status == 200
    links = result_links(page)
    assert links and all(href.startswith("/repo/papers/") for href in links)
    assert page.evaluate("document.styleSheets[0].cssRules.length") > 10  # style.css loaded under /repo/

    with page.expect_navigation():
        page.click(f'#search-results a[href="{links[0]}"]')
    assert page.url == served.origin + links[0]
    assert "Grokking" in page.text_content("h1")
    assert page.console_errors == []  # also: the JSON-LD block does not trip the page's CSP


def test_404_page_deep_under_the_subpath_offers_working_search(page, served):
    response = page.goto(served.url + "a/b/c/")
    assert response.status == 404
    assert page.text_content("h1") == "Page not found"
    sheets = page.evaluate("[...document.styleSheets].map(s => s.href)")
    assert sheets == [served.url + "static/style.css"]
    assert page.evaluate("document.styleSheets[0].cssRules.length") > 10  # loaded, not an error page

    page.fill("#notfound-search-input", "grokking")
    with page.expect_navigation():
        page.press("#notfound-search-input", "Enter")
    assert page.url == served.url + "search/?q=grokking"
    assert all(href.startswith("/repo/papers/") for href in result_links(page))
    # the one error: the page itself answering 404 (Chromium logs it); no asset failed
    assert page.console_errors == ["Failed to load resource: the server responded with a status of 404 (Not Found)"]
