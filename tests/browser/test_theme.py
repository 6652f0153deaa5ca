"""The colour scheme picker in the header: auto (the system's), light or dark, remembered per site,
applied before the page is first drawn, under the pages' CSP (scripts from the site only).

A tiny site served under /repo/, as a project site on GitHub Pages is.
"""
from __future__ import annotations

import pytest

from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.conftest import TinySite

BASE_URL = "https://user.github.io/repo/"
LIGHT, DARK = "rgb(251, 251, 250)", "rgb(20, 23, 28)"  # style.css's --bg

# The order in which <html data-theme> was set and <body> was parsed: the scheme is known before
# anything of the page can be drawn.
ORDER = """(() => {
  const order = window.__order = [];
  new MutationObserver(records => records.forEach(record => {
    if (record.type === 'attributes') order.push('data-theme');
    else if ([...record.addedNodes].some(node => node.nodeName === 'BODY')) order.push('body');
  })).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-theme']});
})()"""

# What the colour scheme sets: the theme's custom properties and color-scheme.
SCHEME = """() => {
  const style = getComputedStyle(document.documentElement);
  const names = ['--bg', '--surface', '--text', '--muted', '--border', '--accent', '--accent-soft', '--on-accent',
                 '--tag-bg', '--mark', '--mark-text', '--status-bg', '--status-text', '--status-border', '--map-lightness'];
  return Object.fromEntries(names.map(name => [name, style.getPropertyValue(name).trim()])
    .concat([['color-scheme', style.colorScheme]]));
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = TinySite(tmp_path_factory.mktemp("theme") / "site")
    site.paper("one", id="one", title="One Paper", body="An abstract.")
    build = build_site(site.config.with_base_url(BASE_URL))
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


@pytest.fixture
def open_page(browser):
    """open_page(system scheme) -> a fresh page in a fresh browser profile; its `errors` list what
    it logged (a script or style the CSP refused is one)."""
    contexts = []

    def open_page(scheme="light", **options):
        context = browser.new_context(color_scheme=scheme, **options)
        contexts.append(context)
        context.add_init_script(ORDER)
        page = context.new_page()
        page.errors = []
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        return page

    yield open_page
    for context in contexts:
        context.close()


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_the_choice_is_applied_at_once_remembered_and_there_before_the_first_paint(open_page, served):
    page = open_page("light")
    page.goto(served.url)
    picker = page.get_by_role("combobox", name="Colour scheme")
    assert picker.is_visible() and picker.input_value() == "auto"
    assert page.get_attribute("html", "data-theme") == "auto" and background(page) == LIGHT

    picker.select_option("dark")  # no reload
    assert page.get_attribute("html", "data-theme") == "dark" and background(page) == DARK
    assert page.evaluate("localStorage.getItem('papersite:theme:/repo/')") == "dark"  # this site's

    page.goto(served.url + "papers/one/")
    assert page.evaluate("window.__order")[:2] == ["data-theme", "body"]
    assert page.get_attribute("html", "data-theme") == "dark" and background(page) == DARK
    assert page.get_by_role("combobox", name="Colour scheme").input_value() == "dark"

    page.get_by_role("combobox", name="Colour scheme").select_option("auto")  # the system's again
    assert page.evaluate("localStorage.getItem('papersite:theme:/repo/')") is None
    page.emulate_media(color_scheme="dark")
    assert background(page) == DARK
    page.emulate_media(color_scheme="light")
    assert background(page) == LIGHT
    assert page.errors == []


@pytest.mark.parametrize("chosen,system", [("dark", "light"), ("light", "dark")])
def test_a_chosen_scheme_is_the_systems_own(open_page, served, chosen, system):
    """Dark picked on a light system is the dark a dark system gets, colour for colour (style.css
    writes the dark colours twice), and light picked on a dark system is light."""
    page = open_page(system)
    page.goto(served.url)
    page.select_option("#theme-choice", chosen)
    page.reload()
    assert page.evaluate("window.__order")[:2] == ["data-theme", "body"]
    picked = page.evaluate(SCHEME)
    native = open_page(chosen)
    native.goto(served.url)
    assert native.get_attribute("html", "data-theme") == "auto"
    expected = native.evaluate(SCHEME)
    assert picked == {**expected, "color-scheme": chosen}
    assert expected["color-scheme"] == "light dark"
    assert page.errors == [] and native.errors == []


def test_the_choice_follows_to_other_tabs(open_page, served):
    page = open_page("light")
    page.goto(served.url)
    other = page.context.new_page()
    other.goto(served.url + "papers/one/")
    page.select_option("#theme-choice", "dark")
    other.wait_for_function("document.documentElement.getAttribute('data-theme') === 'dark'")
    assert other.input_value("#theme-choice") == "dark" and background(other) == DARK


def test_without_javascript_the_system_decides_and_no_picker_is_shown(open_page, served):
    page = open_page("dark", java_script_enabled=False)
    page.goto(served.url)
    assert page.get_attribute("html", "data-theme") is None
    assert page.is_hidden("#theme-choice")
    assert background(page) == DARK


def test_the_picker_is_reached_by_keyboard_and_changed_from_it(open_page, served):
    page = open_page("light")
    page.goto(served.url)
    page.focus("#site-search-input")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "theme-choice"
    page.keyboard.press("ArrowDown")  # a closed select changes on the arrow keys
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("html", "data-theme") == "dark" and background(page) == DARK


@pytest.mark.parametrize("chosen,system", [("dark", "light"), ("light", "dark")])
def test_no_serious_axe_violations_in_a_chosen_scheme(open_page, served, chosen, system):
    from axe_playwright_python.sync_playwright import Axe

    from tests.browser.test_a11y import serious

    page = open_page(system)
    page.goto(served.url)
    page.select_option("#theme-choice", chosen)
    for path in ("", "papers/one/", "search/?q=abstract"):
        page.goto(served.url + path)
        if path.startswith("search"):
            page.wait_for_selector("#search-results mark")
        assert serious(Axe().run(page)) == [], path


# The boxes of the header's parts, as drawn.
HEADER_BOXES = """() => ['.brand', '.site-nav', '.site-search', '.theme-choice'].map(selector => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return [selector, box.x, box.y, box.width, box.height];
})"""


@pytest.mark.parametrize("width", [1200, 390])
def test_the_picker_that_site_js_puts_in_takes_the_room_kept_for_it(open_page, served, width):
    """Pages carry only the picker's room, site.js makes the picker: the header is drawn the same
    before (the room empty, as when the page is first drawn) and after, at desktop and phone width."""
    page = open_page("light", viewport={"width": width, "height": 800})
    page.goto(served.url + "papers/one/")
    assert page.eval_on_selector_all("#theme-choice option", "os => os.map(o => o.textContent)") == \
        ["Auto", "Light", "Dark"]
    assert page.get_attribute("label.theme-choice", "title") == "Colour scheme"
    with_picker = page.evaluate(HEADER_BOXES)
    page.evaluate("document.querySelector('label.theme-choice').replaceChildren()")
    assert page.evaluate(HEADER_BOXES) == with_picker
    assert '<label class="theme-choice"></label>' in page.evaluate("fetch(location.href).then(r => r.text())")
    assert page.errors == []


@pytest.mark.parametrize("width", [700, 1000])
def test_at_tablet_width_the_search_box_takes_a_row_under_the_links(open_page, served, width):
    """Between a phone's two-row header and a desktop's one row, the title and links share the top
    row, and the search box runs from the left edge to the picker on the row below (left to wrap,
    the box and picker were pushed to the right end of a row of their own)."""
    page = open_page("light", viewport={"width": width, "height": 800})
    page.goto(served.url + "papers/one/")
    boxes = {selector: (x, y, w, h) for selector, x, y, w, h in page.evaluate(HEADER_BOXES)}
    brand, nav, search, picker = (boxes[s] for s in (".brand", ".site-nav", ".site-search", ".theme-choice"))
    assert abs(brand[1] + brand[3] / 2 - (nav[1] + nav[3] / 2)) < 4  # one row
    assert search[1] >= max(brand[1] + brand[3], nav[1] + nav[3])  # the row below
    assert abs(search[1] + search[3] / 2 - (picker[1] + picker[3] / 2)) < 4  # beside the picker
    assert abs(search[0] - brand[0]) < 1 and search[0] + search[2] < picker[0]
    assert search[2] > width / 2  # as wide as the row allows
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.goto(served.url + "search/")  # the search page has its own box: no second row
    boxes = {selector: (x, y, w, h) for selector, x, y, w, h in page.evaluate(HEADER_BOXES)}
    assert abs(boxes[".brand"][1] + boxes[".brand"][3] / 2 - (boxes[".theme-choice"][1] + boxes[".theme-choice"][3] / 2)) < 4
    assert page.errors == []


def test_the_search_box_is_named_without_a_hidden_label(open_page, served):
    """The header's search box has its accessible name from aria-label, which every page carries in
    fewer bytes than a visually hidden <label>."""
    page = open_page("light")
    page.goto(served.url + "papers/one/")
    assert page.get_by_role("searchbox", name="Search papers").count() == 1
    assert page.locator("label[for=site-search-input]").count() == 0
