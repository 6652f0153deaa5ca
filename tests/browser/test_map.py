"""The paper map in Chromium: hover, click, box select, highlight (seen in the pixels drawn, light
and dark), the keyboard list, and a phone's first screen.

A tiny two-topic site (tests/test_map.py) is built for a project site under
/repo/ and served from memory, so every URL the map makes must carry the base path.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.browser.pixels import contrast, decode_png, luminance
from tests.test_map import two_topic_site

BASE_URL = "https://user.github.io/repo/"
HOSTILE = "Bandit </script><img src=x onerror=window.__pwned=1> \"Paper\" & 5"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = two_topic_site(tmp_path_factory.mktemp("map-browser") / "site")
    site.paper("hostile", id="h", title=f"'{HOSTILE}'", topics="[learning-theory]", body=
               "Regret of hostile bandits with rewards and exploration.")
    build = build_site(site.config.with_base_url(BASE_URL))
    served = Served(build, build.catalog.config.base_path)
    served.data = json.loads(build.files["map/points.json"])
    yield served
    served.close()


def open_map(page, served, suffix=""):
    page.goto(served.url + "map/" + suffix)
    page.wait_for_selector("#map-app[data-state=ready]")


def number_of(served, title: str) -> int:
    return served.data["title"].index(title)


def dot(page, n: int) -> dict:
    return page.evaluate("n => papersiteMap.locate(n)", n)


def listed(page) -> list[str]:
    return page.eval_on_selector_all("#map-list a", "links => links.map(a => a.textContent)")


def test_hover_shows_the_title_and_a_click_opens_the_paper(page, served):
    open_map(page, served)
    n = number_of(served, "Diffusion Paper 3")
    at = dot(page, n)
    page.mouse.move(at["x"], at["y"])
    page.wait_for_selector("#map-tooltip:not([hidden])")
    assert page.text_content("#map-tooltip") == "Diffusion Paper 3"
    with page.expect_navigation():
        page.mouse.click(at["x"], at["y"])
    assert page.url == served.url + "papers/diffusion-3/"
    assert page.console_errors == []


def test_every_paper_is_in_the_list_and_reachable_by_keyboard(page, served):
    open_map(page, served)
    assert sorted(listed(page)) == sorted(served.data["title"])
    assert page.text_content("#map-status") == "13 papers."
    page.focus("#map-canvas")
    page.keyboard.press("Tab")  # canvas -> the first list entry (no control between them)
    while not page.evaluate("document.activeElement.classList.contains('map-list-link')"):
        page.keyboard.press("Tab")
    first = page.evaluate("document.activeElement.textContent")
    assert page.text_content("#map-tooltip") == first  # focusing an entry shows its dot's title
    page.keyboard.press("Enter")
    page.wait_for_url("**/papers/**")
    assert page.text_content("h1") == first


def test_dragging_a_box_lists_the_papers_inside_it(page, served):
    open_map(page, served)
    inside = [number_of(served, f"Bandit Paper {i}") for i in range(6)]
    points = [dot(page, n) for n in inside]
    left, right = min(p["x"] for p in points) - 5, max(p["x"] for p in points) + 5
    top, bottom = min(p["y"] for p in points) - 5, max(p["y"] for p in points) + 5
    everyone = [dot(page, n) for n in range(len(served.data["title"]))]
    expected = sorted(served.data["title"][n] for n, p in enumerate(everyone)
                      if left <= p["x"] <= right and top <= p["y"] <= bottom)
    page.mouse.move(left, top)
    page.mouse.down()
    page.mouse.move((left + right) / 2, (top + bottom) / 2, steps=3)
    page.mouse.move(right, bottom, steps=3)
    page.mouse.up()
    page.wait_for_selector("#map-clear:not([hidden])")
    assert sorted(listed(page)) == expected
    assert {f"Bandit Paper {i}" for i in range(6)} <= set(expected)
    assert "in the box you drew" in page.text_content("#map-status")
    page.click("#map-clear")
    assert len(listed(page)) == len(served.data["title"])


def test_highlighting_words_and_search_results(page, served):
    open_map(page, served)
    page.fill("#map-find", "diffusion paper")
    page.wait_for_function("() => document.getElementById('map-status').textContent.includes('highlighted')")
    assert sorted(listed(page)) == [f"Diffusion Paper {i}" for i in range(6)]
    refs = ".".join(format(number_of(served, f"Bandit Paper {i}"), "x") for i in (1, 2))  # base 36 < 16 too
    open_map(page, served, f"#q=bandit&refs={refs}")
    assert sorted(listed(page)) == ["Bandit Paper 1", "Bandit Paper 2"]
    assert "search results for \u201cbandit\u201d" in page.text_content("#map-status")


def test_zoom_and_pan_keep_the_list_to_what_is_in_view(page, served):
    open_map(page, served)
    page.focus("#map-canvas")
    for _ in range(6):
        page.keyboard.press("+")
    page.wait_for_function("() => document.getElementById('map-status').textContent.includes('in view')")
    assert len(listed(page)) < len(served.data["title"])
    page.keyboard.press("0")
    page.wait_for_function("() => document.getElementById('map-status').textContent === '13 papers.'")
    page.keyboard.press("ArrowLeft")
    assert page.console_errors == []


def test_a_hostile_title_is_shown_as_text(page, served):
    open_map(page, served)
    n = number_of(served, HOSTILE)
    at = dot(page, n)
    page.mouse.move(at["x"], at["y"])
    page.wait_for_selector("#map-tooltip:not([hidden])")
    assert page.text_content("#map-tooltip") == HOSTILE
    assert HOSTILE in listed(page)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.query_selector("#map-app img") is None
    link = page.get_attribute(f'#map-list a[data-number="{n}"]', "href")
    assert link == "/repo/papers/hostile/"


def test_search_results_open_highlighted_on_the_map(page, served):
    page.goto(served.url + "search/?q=diffusion")
    page.wait_for_selector('#search-app[data-query="diffusion"]')  # every result painted, not the first
    found = page.eval_on_selector_all("#search-results .search-result-link", "links => links.map(a => a.textContent)")
    assert len(found) == 6
    with page.expect_navigation():
        page.click("a.search-on-map")
    page.wait_for_selector("#map-app[data-state=ready]")
    assert sorted(listed(page)) == sorted(found)
    assert "search results for \u201cdiffusion\u201d" in page.text_content("#map-status")
    assert page.console_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_axe_violations(page, served, scheme):
    from axe_playwright_python.sync_playwright import Axe

    from tests.browser.test_a11y import serious

    page.emulate_media(color_scheme=scheme)
    open_map(page, served)
    page.fill("#map-find", "bandit")
    page.wait_for_function("() => document.getElementById('map-status').textContent.includes('highlighted')")
    assert serious(Axe().run(page)) == []


@pytest.fixture
def phone(browser):
    """A touch screen the size of a phone's, and the DevTools session that puts fingers on it."""
    context = browser.new_context(viewport={"width": 390, "height": 1200}, has_touch=True)
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    page.fingers = context.new_cdp_session(page)
    yield page
    context.close()


def touch(page, kind: str, *points: tuple[float, float]) -> None:
    page.fingers.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def gesture(page, start: list[tuple[float, float]], end: list[tuple[float, float]], steps: int = 6) -> None:
    """Fingers put down at `start`, moved in steps to `end`, then lifted."""
    touch(page, "touchStart", *start)
    for step in range(1, steps + 1):
        touch(page, "touchMove", *[(x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps)
                                   for (x0, y0), (x1, y1) in zip(start, end)])
    touch(page, "touchEnd")


def test_a_finger_pans_two_pinch_to_zoom_and_a_tap_opens_the_paper(phone, served):
    open_map(phone, served)
    box = phone.locator("#map-canvas").bounding_box()
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    a, b = number_of(served, "Bandit Paper 1"), number_of(served, "Diffusion Paper 2")
    before = dot(phone, a), dot(phone, b)

    # one finger drags the map along (it draws no box, and opens nothing)
    gesture(phone, [middle], [(middle[0] + 40, middle[1] + 30)])
    moved = dot(phone, a)
    assert moved["x"] == pytest.approx(before[0]["x"] + 40, abs=1.5)
    assert moved["y"] == pytest.approx(before[0]["y"] + 30, abs=1.5)
    assert phone.is_hidden("#map-clear")
    assert phone.url == served.url + "map/"

    # two fingers spread from 60 to 180 px apart: three times closer in, papers out of view leave the list
    x, y = middle
    apart = dot(phone, b)["x"] - dot(phone, a)["x"], dot(phone, b)["y"] - dot(phone, a)["y"]
    gesture(phone, [(x - 30, y), (x + 30, y)], [(x - 90, y), (x + 90, y)])
    spread = dot(phone, b)["x"] - dot(phone, a)["x"], dot(phone, b)["y"] - dot(phone, a)["y"]
    assert spread[0] == pytest.approx(3 * apart[0], rel=0.05, abs=2)
    assert spread[1] == pytest.approx(3 * apart[1], rel=0.05, abs=2)
    phone.wait_for_function("() => document.getElementById('map-status').textContent.includes('in view')")
    assert len(listed(phone)) < len(served.data["title"])

    # a tap a few pixels off a dot still opens its paper, as a fingertip lands
    phone.click("#map-reset")
    at = dot(phone, a)
    with phone.expect_navigation():
        phone.touchscreen.tap(at["x"] + 9, at["y"] + 8)
    assert phone.url == served.url + "papers/bandit-1/"
    assert phone.console_errors == []


# --- What a highlighted paper looks like, in the pixels drawn ----------------------------------

def surface(page) -> list[int]:
    """The map's background colour, [r, g, b]."""
    colour = page.evaluate("getComputedStyle(document.getElementById('map-canvas')).backgroundColor")
    return [int(v) for v in re.findall(r"\d+", colour)[:3]]


def around(page, n: int, r: int = 16) -> np.ndarray:
    """The pixels on screen within r of paper n's dot."""
    at = dot(page, n)
    return decode_png(page.screenshot(clip={"x": at["x"] - r, "y": at["y"] - r, "width": 2 * r + 1, "height": 2 * r + 1}))


def next_frame(page) -> None:
    """Wait until what the map asked to draw is drawn."""
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def drawn(page) -> bytes:
    """A screenshot of what the map draws, inside its rounded border."""
    box = page.locator("#map-canvas").bounding_box()
    return page.screenshot(clip={"x": box["x"] + 12, "y": box["y"] + 12,
                                 "width": box["width"] - 24, "height": box["height"] - 24})


def extent(pixels: np.ndarray, background: list[int], at_least: float) -> int:
    """How wide the ink is whose contrast ratio with the background is at least `at_least` (0: none)."""
    columns = np.nonzero((contrast(pixels, background) >= at_least).any(axis=0))[0]
    return int(columns.max() - columns.min() + 1) if len(columns) else 0


def loneliest(page, served) -> list[int]:
    """Papers by the room around their dots, most first: their pixels are theirs alone."""
    points = [(p["x"], p["y"]) for p in (dot(page, n) for n in range(len(served.data["title"])))]
    room = [min(math.dist(p, q) for q in points if q is not p) for p in points]
    return sorted(range(len(points)), key=lambda n: -room[n])


SCHEMES = {"light": ("light", None), "dark": ("dark", None), "dark chosen on a light system": ("light", "dark")}


@pytest.mark.parametrize("system,chosen", SCHEMES.values(), ids=SCHEMES.keys())
def test_a_highlighted_paper_stands_out_in_light_and_dark(browser, served, system, chosen):
    """Highlighted, a dot grows to a disc about twice its size, outlined at 3:1 or more against the
    map's background whatever its hue, while the papers not highlighted fade; a
    hovered paper gets a ring beyond that. The colour scheme may be the system's or the reader's."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=system)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_map(page, served)
        if chosen:  # picked in the header: the map redraws in it at once, and after a reload
            page.select_option("#theme-choice", chosen, timeout=5000)
            next_frame(page)
            live = drawn(page)
            open_map(page, served)
            assert drawn(page) == live
        background = surface(page)
        assert (luminance(background) < 0.05) == (system == "dark" or chosen == "dark"), background
        lit, faded = loneliest(page, served)[:2]
        plain = extent(around(page, lit), background, 1.2)  # a dot as every paper is drawn
        assert 3 <= plain <= 10, plain

        open_map(page, served, f"#q=one&refs={np.base_repr(lit, 36).lower()}")
        page.wait_for_function("() => document.getElementById('map-status').textContent.includes('highlighted')")
        assert listed(page) == [served.data["title"][lit]]
        next_frame(page)
        strong = extent(around(page, lit), background, 3)
        assert strong >= 1.4 * plain, (strong, plain)  # a disc, well wider than a dot
        assert contrast(around(page, faded), background).max() < 1.6  # the rest fade

        at = dot(page, lit)
        page.mouse.move(at["x"], at["y"])
        page.wait_for_selector("#map-tooltip:not([hidden])")
        next_frame(page)
        assert extent(around(page, lit, 24), background, 3) >= strong + 8  # a ring around the disc
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width,height", [(390, 844), (320, 568)])
def test_the_map_is_on_a_phones_first_screen(browser, served, width, height):
    """On a phone the map starts on the first screen, about as tall as it is wide (the layout is
    square) and shorter than the screen, so a finger beside it still scrolls the page; its
    instructions come after it. On a common phone the whole map is on the first screen; on the
    smallest, a good part of it."""
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        open_map(page, served)
        box = page.locator("#map-canvas").bounding_box()
        assert box["height"] >= min(box["width"], 0.55 * height) - 1, box
        assert box["height"] <= 0.6 * height + 1, box
        shown = min(box["y"] + box["height"], height) - box["y"]  # of the map, on the first screen
        if height >= 800:
            assert box["y"] < 0.5 * height and shown == box["height"], box
        else:
            assert shown >= height / 3, box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()
