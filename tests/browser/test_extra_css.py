"""extra_css in Chromium: the README's own custom.css restyles every kind of page.

The site is the bundled catalog with the README's `extra_css` line added to
site.yaml and its stylesheet snippet as static/custom.css, served under a
base path, plus a project paper.html that overrides the head block without
super() (the case that used to lose a custom stylesheet)."""
from __future__ import annotations

import re
import shutil

import pytest

from papersite import urls
from papersite.source.config import load_config
from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.conftest import ROOT

PAGE_KINDS = ["home", "paper", "venue", "topic", "papers", "venues", "topics", "search", "404"]


def readme_snippets() -> tuple[str, str]:
    """The site.yaml line and the stylesheet the README shows for extra_css."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    yaml_line = re.search(r"^extra_css: \[custom\.css\].*$", readme, re.M).group(0)
    css = re.search(r"```css\n(/\* static/custom\.css.*?)```", readme, re.S).group(1)
    return yaml_line, css


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    yaml_line, css = readme_snippets()
    root = tmp_path_factory.mktemp("restyled")
    shutil.copytree(ROOT / "content", root / "content")
    (root / "site.yaml").write_text((ROOT / "site.yaml").read_text(encoding="utf-8") + "\n" + yaml_line + "\n",
                                    encoding="utf-8")
    (root / "static").mkdir()
    (root / "static" / "custom.css").write_text(css, encoding="utf-8")
    (root / "templates").mkdir()
    (root / "templates" / "paper.html").write_text(
        '{% extends "theme/paper.html" %}\n{% block head %}<meta name="x-mine" content="1">{% endblock %}\n')
    build = build_site(load_config(root / "site.yaml").with_base_url("https://example.org/catalog/"))
    catalog = build.catalog
    paths = {"home": urls.HOME, "paper": urls.path_of(catalog.papers[0]), "venue": urls.path_of(catalog.venues[0]),
             "topic": urls.path_of(next(t for t in catalog.topics if catalog.topic_papers[t.slug])),
             "papers": urls.ALL_PAPERS, "venues": urls.ALL_VENUES, "topics": urls.ALL_TOPICS,
             "search": urls.SEARCH + "?q=learning", "404": "no-such-page/"}
    served = Served(build, build.catalog.config.base_path)
    yield served, paths, css
    served.close()


def accent(page) -> tuple[str, str]:
    """The --accent property and the colour it gives a plain link in <main>."""
    return page.evaluate("""() => {
        const link = document.createElement('a');
        link.href = '#';
        link.textContent = 'probe';
        document.querySelector('main').append(link);
        return [getComputedStyle(document.documentElement).getPropertyValue('--accent').trim(),
                getComputedStyle(link).color];
    }""")


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_the_readme_custom_css_reaches_every_page_kind(page, served, kind):
    site, paths, css = served
    assert "--accent: #8a2be2" in css  # the colour the README's snippet sets
    loaded = []
    page.on("response", lambda r: r.url.endswith("/static/custom.css") and loaded.append(r.status))
    response = page.goto(site.url + paths[kind])
    assert response.status == (404 if kind == "404" else 200)
    assert loaded == [200]
    assert accent(page) == ["#8a2be2", "rgb(138, 43, 226)"]
    # the stylesheet passes the pages' CSP (Chromium reports the 404 page's own status as an error)
    assert [e for e in page.console_errors if not (kind == "404" and "status of 404" in e)] == []


@pytest.mark.parametrize("system,chosen", [("dark", None), ("light", "dark")], ids=["system", "chosen"])
def test_the_custom_css_wins_in_dark_mode_too(browser, served, system, chosen):
    """Dark as the system's scheme, or picked in the header."""
    site, paths, _ = served
    context = browser.new_context(color_scheme=system)
    try:
        page = context.new_page()
        page.goto(site.url + paths["paper"])
        if chosen:
            page.select_option("#theme-choice", chosen)
            page.reload()
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 28)"  # dark
        assert accent(page) == ["#8a2be2", "rgb(138, 43, 226)"]
    finally:
        context.close()


def test_without_the_stylesheet_the_theme_colour_shows(page, serve_build, bundled):
    """The probe can fail: the bundled catalog without extra_css keeps the theme's accent."""
    _, _, build = bundled
    site = serve_build(build)
    page.goto(site.url + urls.ALL_PAPERS)
    assert accent(page)[0] != "#8a2be2"
