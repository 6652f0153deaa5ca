"""On a phone's screen no page is wider than the screen: nothing makes the reader scroll sideways.

Every kind of page of the bundled catalog is loaded at 320 and 390 CSS pixels wide (the
narrowest phones in use, and a common one), then a tiny site whose title, author name,
abstract and links are long unbroken words, such as the URLs real abstracts carry. Wide
content that cannot wrap (display math, the BibTeX entry) scrolls inside its own box.
"""
from __future__ import annotations

import pytest

from papersite import urls
from papersite.pipeline import build_site
from tests.browser.conftest import Served

WIDTHS = [320, 390]

# The elements sticking out of the page (not inside a box that scrolls or clips them), and the
# page's own width against the window's.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = el => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') return true;
    }
    return false;
  };
  const out = [...document.body.querySelectorAll('*')]
    .filter(el => el.getBoundingClientRect().right > width + 1 && !clipped(el))
    .map(el => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}px`);
  return {scrollWidth: document.documentElement.scrollWidth, width, out: out.slice(0, 5)};
}"""


def assert_fits(page, where: str) -> None:
    found = page.evaluate(OVERFLOW)
    assert found["scrollWidth"] <= found["width"] and found["out"] == [], (where, found)


def bundled_pages(catalog) -> list[str]:
    """A page of every kind, the paper with the longest title and math among them."""
    paper = max(catalog.papers, key=lambda p: ("$" in p.abstract, len(p.title)))
    pages = [urls.HOME, urls.ALL_PAPERS, urls.ALL_VENUES, urls.path_of(catalog.venues[0]),
             urls.ALL_TOPICS, urls.path_of(catalog.topics[0]), urls.path_of(paper), urls.MAP,
             urls.READING_LIST, "404.html"]
    if catalog.authors:
        pages += [urls.ALL_AUTHORS, urls.path_of(max(catalog.authors, key=lambda a: len(a.name)))]
    if len(catalog.years) > 1:
        pages += [urls.ALL_YEARS, urls.path_of(catalog.years[0])]
    return pages


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def phone(browser, request):
    context = browser.new_context(viewport={"width": request.param, "height": 800})
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    yield page
    context.close()


def test_no_page_of_the_bundled_catalog_is_wider_than_a_phone(phone, served_bundled):
    catalog = served_bundled.state.build.catalog
    for path in bundled_pages(catalog):
        phone.goto(served_bundled.url + path)
        if path == urls.MAP:
            phone.wait_for_selector("#map-app[data-state=ready]")
        assert_fits(phone, path)
    # search results, with filters and highlighted words; then a reading list that holds a paper
    phone.goto(served_bundled.url + urls.SEARCH + "?q=learning+model")
    phone.wait_for_selector("#search-results mark")
    assert_fits(phone, "search")
    phone.goto(served_bundled.url + urls.path_of(catalog.papers[0]))
    phone.click("button.save-button")
    phone.goto(served_bundled.url + urls.READING_LIST)
    phone.wait_for_selector("#reading-list[data-state=ready]")
    assert phone.locator("#reading-items li").count() == 1
    assert_fits(phone, "reading list")
    assert phone.console_errors == []


LONG_WORD = "Hyperparameteroptimizationforreinforcementlearningagents" * 2
LONG_URL = "https://example.org/" + "a-very-long-path-segment" * 8
LONG_NAME = "Bartholomewmaximilianfitzgeraldwolfeschlegelsteinhausen Jones"


@pytest.fixture(scope="module")
def long_words(tmp_path_factory):
    from tests.conftest import TinySite
    site = TinySite(tmp_path_factory.mktemp("narrow") / "site")
    site.paper("long", id="long", title=f"{LONG_WORD} and $\\mathcal{{O}}(T^{{2/3}})$",
               body=(f"Code: {LONG_URL} and <{LONG_URL}>.\n\n"
                     "$$\\sum_{i=1}^{n} x_i^2 + y_i^2 + z_i^2 + a_i^2 + b_i^2 + c_i^2 + d_i^2 + e_i^2 + f_i^2$$\n\n"
                     f"And {LONG_WORD}.\n\n```\n{LONG_URL} {LONG_URL}\n```"),
               extra=f"links:\n  code: {LONG_URL}\n")
    site.write("content/icml-2024/short.md", f"---\nid: short\ntitle: Short\nauthors: [{LONG_NAME}]\n"
                                              "venue: icml-2024\nyear: 2024\ntopics: [learning-theory]\n---\nShort.\n")
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


def test_long_words_and_urls_wrap_rather_than_widen_the_page(phone, long_words):
    catalog = long_words.state.build.catalog
    named = next(a for a in catalog.authors if a.name == LONG_NAME)
    # the short paper's page links to the long one as its neighbour in the venue
    for path in [urls.HOME, urls.ALL_PAPERS, urls.path_of(catalog.venues[0]), "papers/long/", "papers/short/",
                 urls.ALL_AUTHORS, urls.path_of(named)]:
        phone.goto(long_words.url + path)
        assert_fits(phone, path)
    assert phone.evaluate("document.documentElement.clientWidth") < 400  # the page is a phone's
    phone.goto(long_words.url + urls.SEARCH + "?q=" + LONG_WORD.lower())
    phone.wait_for_selector("#search-results mark")
    assert_fits(phone, "search")
    assert phone.console_errors == []
