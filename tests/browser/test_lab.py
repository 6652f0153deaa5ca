"""A lab's members in search results, in Chromium: marked as on the pages (tests/test_lab.py)."""
from __future__ import annotations

import pytest

from papersite.pipeline import build_site
from papersite.source.config import load_config
from tests.browser.conftest import Served
from tests.browser.test_search import open_search, search
from tests.test_lab import write_site


@pytest.fixture(scope="module")
def served_lab(tmp_path_factory):
    root = write_site(tmp_path_factory.mktemp("lab-search"))
    served = Served(build_site(load_config(root / "site.yaml")), "/lab/")
    yield served
    served.close()


def test_members_are_marked_in_search_results(page, served_lab):
    open_search(page, served_lab)
    assert len(search(page, "turing")) == 3
    marked = page.eval_on_selector_all("#search-results a.member", "els => els.map(e => [e.textContent, "
                                       "e.getAttribute('href')])")
    assert marked == [["Lovelace, Ada", "/lab/authors/ada-lovelace/"]]
    search(page, "hopper")
    marked = page.eval_on_selector_all("#search-results a.member", "els => els.map(e => e.textContent)")
    assert marked == ["O'Brien <Lab>"]  # the member, as text; Grace Hopper is no member
    assert page.console_errors == []
