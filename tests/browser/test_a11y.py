"""axe-core (via axe-playwright-python) finds no serious or critical violations on a
sample of pages, search with results included, in light and dark mode."""
from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from papersite import urls

SCHEMES = ["light", "dark"]
PAGES = ["home", "paper", "venue", "topic", "search", "search-none"]


@pytest.fixture(scope="module")
def axe():
    return Axe()


def page_path(kind: str, catalog) -> str:
    """Site-relative path of a sample page of each kind (papers with math included)."""
    if kind == "home":
        return urls.HOME
    if kind == "paper":
        with_math = [p for p in catalog.papers if "$" in p.abstract]
        return urls.path_of((with_math or catalog.papers)[0])
    if kind == "venue":
        return urls.path_of(catalog.venues[0])
    if kind == "topic":
        return urls.path_of(max(catalog.topics, key=lambda t: len(catalog.topic_papers[t.slug])))
    venue = catalog.venues[0].slug
    if kind == "search-none":  # no results: the help text and its "Clear the filters" button
        return urls.SEARCH + f"?q=xyzzyq&venue={venue}"
    # results, a ticked filter and highlighted matches
    return urls.SEARCH + f"?q=learning+model&venue={venue}"


def serious(results) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -- " + "; ".join(
            " ".join(node["target"]) + ": " + node.get("failureSummary", "").replace("\n", " ")
            for node in v["nodes"][:5])
        for v in results.response["violations"] if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("kind", PAGES)
def test_no_serious_axe_violations(page, served_bundled, axe, kind, scheme):
    catalog = served_bundled.state.build.catalog
    page.emulate_media(color_scheme=scheme)
    page.goto(served_bundled.url + page_path(kind, catalog))
    if kind.startswith("search"):
        page.wait_for_selector("#search-app[data-state=ready]")
        page.wait_for_selector("#search-results mark" if kind == "search" else "#search-help button")
    assert serious(axe.run(page)) == []
    assert page.console_errors == []
