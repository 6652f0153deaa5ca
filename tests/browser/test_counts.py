"""Counts of a thousand and more have their thousands grouped, on the pages and in what the
scripts write: "1,200 papers" in English, "1 200" (a narrow no-break space) in other languages."""
from __future__ import annotations

import html
import re

import pytest

from papersite import urls
from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.conftest import MINIMAL_CONFIG, TinySite

PAPERS = 1200
NARROW_NBSP = "\u202f"


def big_site(root, language: str) -> TinySite:
    site = TinySite(root)
    site.write("site.yaml", MINIMAL_CONFIG + f"language: {language}\n")
    words = ["graph", "kernel", "bandit", "policy", "sparse", "robust", "spectral", "causal"]
    for n in range(PAPERS):
        site.paper(f"p{n}", id=f"p{n}", title=f"Paper {n} on {words[n % 8]} {words[n // 8 % 8]} methods",
                   body=f"We study {words[n % 8]} and {words[(n * 3) % 8]} generalization, case {n}.")
    return site


@pytest.fixture(scope="module", params=["en", "de"])
def served_big(tmp_path_factory, request):
    site = big_site(tmp_path_factory.mktemp(f"counts-{request.param}") / "site", request.param)
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    served.grouped = "1,200" if request.param == "en" else f"1{NARROW_NBSP}200"
    yield served
    served.close()


def text_of(build, path: str) -> str:
    """The page's text, runs of spaces and newlines as one space (a narrow no-break space stays)."""
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", " ", build.files[urls.output_file(path)].decode())))


def test_a_thousand_and_more_is_grouped_on_the_pages_and_by_the_scripts(page, served_big):
    build, grouped = served_big.state.build, served_big.grouped
    assert f"{grouped} papers from 1 venue" in text_of(build, urls.HOME)
    assert f"{grouped} papers, newest venue first" in text_of(build, urls.ALL_PAPERS)
    assert f"1 author, A to Z" in text_of(build, urls.ALL_AUTHORS)
    assert f"Ada Lovelace {grouped} papers" in text_of(build, urls.ALL_AUTHORS)

    page.goto(served_big.url + urls.SEARCH)
    page.wait_for_selector("#search-app[data-state=ready]")
    assert page.text_content("#search-status").startswith(f"Search {grouped} papers")
    assert grouped in page.eval_on_selector_all(".facet-count", "els => els.map(e => e.textContent)")
    page.goto(served_big.url + urls.MAP)
    page.wait_for_selector("#map-app[data-state=ready]")
    assert page.text_content("#map-status").startswith(f"{grouped} papers.")
    assert page.console_errors == []
