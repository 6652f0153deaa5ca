"""On a phone's screen no page is wider than the screen: nothing makes the reader scroll sideways,
and the header leaves the screen to the page.

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


# --- The header on a phone ----------------------------------------------------------------------

HEADER_MOST = 120  # CSS px: the navigation, the search box and the colour scheme, on two short rows
LONG_TITLE = "The Catalog of Machine Learning Papers from Every Venue"

# Layout shifts of the header (the Layout Instability API) once the page has settled: the elements
# of the header that moved after they were first drawn.
SHIFTS = """() => new Promise(done => {
  const moved = [];
  new PerformanceObserver(list => list.getEntries().forEach(shift => shift.sources.forEach(source => {
    if (source.node && source.node.closest && source.node.closest('.site-header')) moved.push(source.node.outerHTML);
  }))).observe({type: 'layout-shift', buffered: true});
  setTimeout(() => done(moved), 300);
})"""


@pytest.fixture(scope="module")
def every_link(tmp_path_factory):
    """A site whose navigation has every link (authors and years too) and a long title."""
    from tests.conftest import MINIMAL_CONFIG, TinySite, paper_text
    site = TinySite(tmp_path_factory.mktemp("header") / "site")
    site.write("site.yaml", MINIMAL_CONFIG.replace("title: Test Catalog", f"title: {LONG_TITLE}") +
               "  - slug: colt-2023\n    name: COLT 2023\n    year: 2023\n")
    site.paper("one", id="one", title="One")
    site.write("content/colt-2023/two.md", paper_text(id="two", title="Two", venue="colt-2023").replace("2024", "2023"))
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


NAV = ["Papers", "Venues", "Topics", "Authors", "Years", "Map", "Reading list"]


@pytest.mark.parametrize("width,height", [(390, 844), (320, 568)])
def test_the_header_is_compact_on_a_phone(browser, every_link, width, height):
    """Two rows: the title beside the links, which scroll sideways in one row, then the search box
    beside the colour scheme. Every link is there; the current page's link is in view; nothing
    shifts once drawn; without JavaScript (no picker) it is as compact."""
    for script in (True, False):
        context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=script)
        page = context.new_page()
        try:
            for path in [urls.HOME, urls.ALL_AUTHORS, urls.READING_LIST, urls.MAP, urls.SEARCH + "?q=one", "papers/one/"]:
                page.goto(every_link.url + path)
                header = page.locator(".site-header").bounding_box()
                assert header["height"] <= HEADER_MOST, (path, script, header)
                links = page.locator(".site-nav a")
                assert links.all_text_contents() == NAV
                nav = page.locator(".site-nav").bounding_box()
                assert nav["y"] + nav["height"] <= header["y"] + header["height"]
                current = page.locator(".site-nav a[aria-current=page]")
                if script and current.count():  # scrolled into the row's view
                    box = current.bounding_box()
                    assert nav["x"] <= box["x"] and box["x"] + box["width"] <= nav["x"] + nav["width"], path
                assert page.is_visible("#theme-choice") == script
                assert_fits(page, path)
                if script:
                    assert page.evaluate(SHIFTS) == [], path
        finally:
            context.close()


def test_every_link_of_the_header_is_reached_by_keyboard_on_a_phone(phone, every_link):
    """Tab walks the title, each link (scrolled into view as it gets focus), the search box and
    the colour scheme picker, in the order they are drawn."""
    phone.goto(every_link.url)
    reached = []
    for _ in range(12):
        phone.keyboard.press("Tab")
        focused = phone.evaluate("""() => {
          const el = document.activeElement, box = el.getBoundingClientRect();
          const nav = document.querySelector('.site-nav').getBoundingClientRect();
          const inNav = !!el.closest('.site-nav');
          return {name: el.id || el.textContent.trim(), inView: !inNav ||
                  (box.left >= nav.left - 1 && box.right <= nav.right + 1 && box.right <= innerWidth)};
        }""")
        reached.append(focused["name"])
        assert focused["inView"], focused
        if focused["name"] == "theme-choice":
            break
    assert reached == ["Skip to content", LONG_TITLE] + NAV + ["site-search-input", "theme-choice"]

    from axe_playwright_python.sync_playwright import Axe

    from tests.browser.test_a11y import serious
    assert serious(Axe().run(phone)) == []  # the scrolling row of links included
