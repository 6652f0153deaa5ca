"""The paper page's "Formatted citation" panel in Chromium: what it shows in APA, Chicago and
IEEE is what citeproc-js itself (tests/js/citeproc_reference.js, in node) makes of the same
CSL-JSON item with the same style and locale; nothing of it loads before the panel opens;
hostile content stays text."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from papersite.pipeline import build_site
from papersite.site.static import CSL_ASSETS
from tests.browser.conftest import Served
from tests.conftest import ROOT, TinySite
from tests.downloads import paper_download

STYLES = {"apa": "APA", "chicago-author-date": "Chicago", "ieee": "IEEE"}
TITLE = "\"Quoted\" <script>window.__pwned = 1</script> & <img src=x onerror=\"window.__pwned = 1\"> for Zoë's Models"
PAPER = f"""---
id: hostile-cite
title: {json.dumps(TITLE)}
authors: [Zoë Ångström-Łukasiewicz, "van Beethoven, Ludwig", "O'Neil, Mary <b>Jane</b>", 李明]
venue: icml-2024
year: 2024
topics: [learning-theory]
links:
  doi: 10.1234/abc&def
extra:
  volume: "235"
  pages: 12--34
---
An abstract.
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = TinySite(tmp_path_factory.mktemp("cite-styles") / "site")
    site.write("content/icml-2024/hostile-cite.md", PAPER)
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    yield served, build
    served.close()


def reference(build) -> dict[str, str]:
    """citeproc-js's own HTML for the paper's CSL-JSON item (its cite.json download) in each style."""
    [item] = json.loads(paper_download(build.files, "hostile-cite", "json"))
    request = {"item": item, "locale": build.files["static/csl/locales-en-US.xml"].decode(),
               "styles": {name: build.files[f"static/csl/{name}.csl"].decode() for name in STYLES}}
    done = subprocess.run([shutil.which("node") or "node", str(ROOT / "tests" / "js" / "citeproc_reference.js"),
                           str(ROOT / "node_modules" / "citeproc")], input=json.dumps(request),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def open_panel(page, served):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(served.url + "papers/hostile-cite/")
    button = page.locator(".cite-styles-button")
    button.wait_for(state="visible")
    assert not [url for url in requested if "citeproc.js" in url or "/csl/" in url]  # nothing before the click
    button.click()
    page.locator(".cite-styles-output div.csl-entry").first.wait_for()  # not wait_for_function: the CSP forbids its eval
    return requested


def shown(page, style: str) -> str:
    if page.eval_on_selector("#cite-styles select", "select => select.value") != style:
        page.select_option("#cite-styles select", style)  # its change handler shows "Formatting…" at once
        page.locator(".cite-styles-output div.csl-entry").first.wait_for()
    return page.inner_html(".cite-styles-output")


def test_each_style_shows_what_citeproc_js_makes_of_the_item(page, served):
    served, build = served
    expected = reference(build)
    requested = open_panel(page, served)
    assert {url.rsplit("/", 1)[1] for url in requested if "/static/c" in url} >= {"citeproc.js", "apa.csl",
                                                                                    "locales-en-US.xml"}
    for style, name in STYLES.items():
        html = shown(page, style)
        # the reference as the browser reads it: the same markup, serialised the same way
        normalised = page.evaluate("html => { const d = document.createElement('div'); d.innerHTML = html; "
                                   "return d.innerHTML; }", expected[style])
        assert html == normalised, style
        assert page.locator(f"#cite-styles option[value='{style}']").inner_text() == name
    text = page.inner_text(".cite-styles-output")
    assert "Ångström-Łukasiewicz" in text and "<script>window.__pwned = 1</script>" in text  # as text
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('.cite-styles-output script, .cite-styles-output img').length") == 0
    assert page.evaluate("typeof window.module") == "undefined"  # the CommonJS shim is taken back
    assert page.console_errors == []


def test_apa_has_the_authors_year_title_and_venue(page, served):
    served, _ = served
    open_panel(page, served)
    text = page.inner_text(".cite-styles-output")
    assert text.startswith("Ångström-Łukasiewicz, Z., van Beethoven, L.,"), text
    assert "(2024)" in text and "International Conference on Machine Learning" in text and "235" in text
    assert "https://doi.org/10.1234/abc&def" in text


def test_a_paper_page_carries_no_byte_of_it_and_a_screenshot_shows_the_panel(page, served, tmp_path):
    served, build = served
    html = build.files["papers/hostile-cite/index.html"].decode()
    assert "cite-styles" not in html  # site.js loads the script, which makes the button
    assert set(CSL_ASSETS) <= {path.removeprefix("static/") for path in build.files}
    open_panel(page, served)
    assert page.evaluate("document.querySelectorAll('script[src=\"/catalog/static/cite-styles.js\"]').length") == 1
    assert page.locator(".cite-styles-button").count() == 1
    shown(page, "ieee")
    assert page.get_attribute(".cite-styles-button", "aria-expanded") == "true"
    page.locator("section.cite").screenshot(path=str(tmp_path / "cite-panel.png"))
    assert (tmp_path / "cite-panel.png").stat().st_size > 1000
    page.click(".cite-styles-button")  # closes it
    assert page.is_hidden("#cite-styles") and page.get_attribute(".cite-styles-button", "aria-expanded") == "false"


def test_without_a_citation_item_there_is_no_button(page, serve_build, tmp_path):
    site = TinySite(tmp_path / "site")
    site.write("site.yaml", (site.root / "site.yaml").read_text() + "omit: [citation-files]\n")
    site.paper("plain")
    served = serve_build(build_site(site.config))
    page.goto(served.url + "papers/plain/")
    page.wait_for_load_state("load")
    assert page.locator("#bibtex").is_visible()
    assert page.locator(".cite-styles-button").count() == 0
    assert page.console_errors == []
