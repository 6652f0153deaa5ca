"""Hostile content in a real browser: no dialog, no injected element, no injected script.

The tiny hostile site of tests/test_hostile.py (payloads in site.yaml, titles,
authors, abstracts, links, TeX) is served from memory and every page kind is
loaded, then the search page with queries that match the hostile paper and
with hostile queries of its own. Each payload would call alert() or set
`window.__pwned`. Everything runs twice: with the site's Content-Security-Policy,
and with the browser told to ignore it, so escaping alone must hold too.
"""
from __future__ import annotations

import pytest

from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.test_hostile import AUTHORS, MATH_TITLE, PAPER_ID, TITLE, make_hostile_site

PAGES = ["", "papers/", "venues/", "venues/icml-2024/", "topics/", "topics/learning-theory/",
         "topics/generative-models/", "papers/hostile/", "papers/math/", "papers/plain/", "404.html"]

# What a payload would leave behind, measured in the page itself.
INSPECT = """base => {
  // the page's own: its JSON-LD, its one download-data block, and scripts from its static/
  const own = s => s.type === 'application/ld+json' ||
    (s.type === 'application/json' && s.id === 'cite-data' && document.querySelectorAll('script#cite-data').length === 1) ||
    (s.src && new URL(s.src).origin === location.origin && new URL(s.src).pathname.startsWith(base + 'static/'));
  const urlOf = el => el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('action')
    ?? el.getAttribute('formaction') ?? el.getAttribute('xlink:href');
  return {
    pwned: typeof window.__pwned,
    injected: [...document.querySelectorAll(
      'img, iframe, object, embed, svg, style, base, textarea, frame, video, audio, meta[http-equiv=refresh], img[src=x]'
    )].map(el => el.outerHTML.slice(0, 120)),
    handlers: [...document.querySelectorAll('*')]
      .filter(el => [...el.attributes].some(a => a.name.toLowerCase().startsWith('on')))
      .map(el => el.outerHTML.slice(0, 120)),
    styled: [...document.querySelectorAll('[style]')].map(el => el.outerHTML.slice(0, 120)),
    scripts: [...document.scripts].filter(s => !own(s)).map(s => s.outerHTML.slice(0, 120)),
    badUrls: [...document.querySelectorAll('[href], [src], [action], [formaction]')]
      .map(urlOf).filter(u => u !== null)
      .filter(u => !['http:', 'https:', 'mailto:'].includes(new URL(u, location.href).protocol)),
    comments: document.createNodeIterator(document, NodeFilter.SHOW_COMMENT).nextNode() !== null,
    href: location.href,
  };
}"""


@pytest.fixture(scope="module")
def hostile_served(tmp_path_factory):
    site = make_hostile_site(tmp_path_factory.mktemp("hostile-browser") / "site")
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


@pytest.fixture(params=[False, True], ids=["with-csp", "csp-bypassed"])
def watched(request, browser):
    """A page that records dialogs, console errors and page errors."""
    context = browser.new_context(bypass_csp=request.param)
    page = context.new_page()
    page.dialogs, page.errors = [], []

    def on_dialog(dialog):
        page.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    context.close()


def assert_inert(page, base_path, errors=()):
    found = page.evaluate(INSPECT, base_path)
    where = found.pop("href")
    assert found == {"pwned": "undefined", "injected": [], "handlers": [], "styled": [], "scripts": [],
                     "badUrls": [], "comments": False}, where
    assert page.dialogs == [], where
    assert page.errors == list(errors), where  # with the CSP on, a blocked injection would be logged here


# Answered with the 404 page and status 404, as a host answers for a page that is not there
# (404.html itself, asked for by name, is a page like the others: 200).
MISSING = "papers/no-such-paper/"
DOCUMENT_404 = "Failed to load resource: the server responded with a status of 404 (Not Found)"


def test_every_page_kind_is_inert(watched, hostile_served):
    base = hostile_served.url.removeprefix(hostile_served.origin)
    for path in PAGES + [MISSING]:
        url = hostile_served.url + path
        response = watched.goto(url, wait_until="load")
        # The page asked for, as served: not an error page (nor a page served as a 404), not a
        # redirect elsewhere, and (below) still there once its scripts ran: assert_inert must
        # look at the hostile page itself, not at a clean page it was sent on to.
        assert response.status == (404 if path == MISSING else 200), path
        assert response.url == url and response.request.redirected_from is None, path
        watched.wait_for_timeout(50)  # let deferred scripts and anything they start run
        assert_inert(watched, base, [DOCUMENT_404] if path == MISSING else [])  # the page's own 404 only
        assert watched.url == url, f"{path}: the page went to {watched.url}"  # e.g. a meta refresh or a script
    watched.goto(hostile_served.url + "papers/hostile/", wait_until="load")
    assert watched.text_content("h1") == TITLE
    assert watched.text_content(".authors") == ", ".join(AUTHORS)
    assert watched.title().startswith(TITLE)


def wait_rendered(page, q):
    page.wait_for_function("q => document.getElementById('search-app').dataset.query === q", arg=q)


def result_titles(page):
    return page.eval_on_selector_all("#search-results li .search-result-link", "els => els.map(e => e.textContent)")


def test_search_results_for_hostile_papers_are_inert(watched, hostile_served):
    base = hostile_served.url.removeprefix(hostile_served.origin)
    watched.goto(hostile_served.url + "search/?q=zebra", wait_until="load")
    watched.wait_for_selector("#search-results li")
    wait_rendered(watched, "zebra")
    titles = result_titles(watched)
    assert TITLE in titles and len(titles) == 3  # the hostile title, as text
    assert any(t.startswith("Math ") for t in titles)
    assert_inert(watched, base)
    # Words of the hostile title itself, so highlighting cuts the text around the payload.
    for q in ("hostile script pwned", "onerror img textarea", "7*7"):
        watched.fill("#search-input", q)
        wait_rendered(watched, q)
        assert_inert(watched, base)
    watched.fill("#search-input", "hostile")
    wait_rendered(watched, "hostile")
    assert TITLE in result_titles(watched)
    assert watched.eval_on_selector_all("#search-results mark", "els => els.length") >= 1
    assert_inert(watched, base)
    assert MATH_TITLE  # (its result shows readable text; structure checked by assert_inert)


HOSTILE_QUERIES = ['<img src=x onerror="window.__pwned=1;alert(1)">', "</script><script>window.__pwned=1</script>",
                   '"><svg onload=alert(1)>', "javascript:alert(1)", "{{ 7*7 }}", PAPER_ID]


def test_hostile_queries_typed_or_in_the_url_are_inert(watched, hostile_served):
    base = hostile_served.url.removeprefix(hostile_served.origin)
    watched.goto(hostile_served.url + "search/", wait_until="load")
    for q in HOSTILE_QUERIES:
        watched.fill("#search-input", q)
        wait_rendered(watched, q)
        assert_inert(watched, base)
    for q in HOSTILE_QUERIES:  # reflected from the address bar: ?q=...
        watched.goto(hostile_served.url + "search/?" + __import__("urllib.parse").parse.urlencode({"q": q}),
                     wait_until="load")
        wait_rendered(watched, q)
        assert watched.input_value("#search-input") == q
        assert_inert(watched, base)
