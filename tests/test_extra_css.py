"""extra_css in site.yaml: the one way to restyle the theme, linked from every page's head.

The bundled catalog is built with it and every HTML page is parsed; bad
entries and missing files are errors with their site.yaml line."""
from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from build import cli
from papersite.errors import SiteError
from papersite.preview.rebuild import Rebuilder
from tests.conftest import MINIMAL_CONFIG, ROOT

CUSTOM_CSS = b"body { color: rgb(1, 2, 3); }\n"


class HeadStylesheets(HTMLParser):
    """The href of every <link rel="stylesheet"> inside <head>, in order."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.in_head = False
        self.hrefs: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "head":
            self.in_head = True
        elif tag == "link" and self.in_head and attrs.get("rel") == "stylesheet":
            self.hrefs.append(attrs.get("href"))

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False


def stylesheets(html: bytes) -> list[str]:
    return HeadStylesheets(html.decode()).hrefs


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The bundled catalog under a base path, with static/custom.css in extra_css and a
    project paper.html that overrides the head block without super()."""
    root = tmp_path_factory.mktemp("extra-css")
    shutil.copytree(ROOT / "content", root / "content")
    config = (ROOT / "site.yaml").read_text(encoding="utf-8")
    (root / "site.yaml").write_text(config + "\nextra_css:\n  - custom.css\n  - css/print.css\n", encoding="utf-8")
    (root / "static" / "css").mkdir(parents=True)
    (root / "static" / "custom.css").write_bytes(CUSTOM_CSS)
    (root / "static" / "css" / "print.css").write_bytes(b"@media print { .site-header { display: none; } }\n")
    (root / "templates").mkdir()
    (root / "templates" / "paper.html").write_text(
        '{% extends "theme/paper.html" %}\n{% block head %}<meta name="x-mine" content="1">{% endblock %}\n')
    result = CliRunner().invoke(cli, ["build", "-q", "-o", str(root / "_site"), "--config", str(root / "site.yaml"),
                                      "--base-url", "https://example.org/catalog/"])
    assert result.exit_code == 0, result.output
    return root / "_site"


def test_every_page_links_the_stylesheets_after_the_theme(catalog):
    pages = sorted(catalog.rglob("*.html"))
    assert len(pages) > 80  # every paper, venue, topic, listing, search and 404 page
    for page in pages:
        assert stylesheets(page.read_bytes()) == [
            "/catalog/static/style.css", "/catalog/static/custom.css", "/catalog/static/css/print.css"], page
    assert (catalog / "static" / "custom.css").read_bytes() == CUSTOM_CSS
    assert b'<meta name="x-mine" content="1">' in next((catalog / "papers").glob("*/index.html")).read_bytes()


def test_page_templates_extend_the_head_block(site):
    """The theme's own pages call super(), so a project base.html that adds to the head reaches them all."""
    site.paper("one")
    site.write("templates/base.html", '{% extends "theme/base.html" %}\n'
               '{% block head %}<meta name="x-everywhere" content="1">{% endblock %}\n')
    build, _ = site.build()
    pages = [name for name in build.files if name.endswith(".html")]
    assert {"index.html", "papers/one/index.html", "search/index.html", "404.html"} <= set(pages)
    for name in pages:
        html = build.files[name]
        assert html.count(b'<meta name="x-everywhere" content="1">') == 1, name
        assert html.index(b"x-everywhere") < html.index(b"</head>")
    assert b'<meta name="robots" content="noindex">' in build.files["404.html"]  # the page's own head stays
    assert b'name="citation_title"' in build.files["papers/one/index.html"]


def test_without_extra_css_pages_link_only_the_theme(site):
    site.paper("one")
    build, _ = site.build()
    assert stylesheets(build.files["papers/one/index.html"]) == ["/catalog/static/style.css"]


def test_names_are_url_encoded_and_escaped(site):
    site.paper("one")
    names = ['my theme.css', 'x"><script>alert(1)</script>.css', "é/ü.css"]
    for name in names:
        site.write(f"static/{name}", "a { color: red; }\n")
    site.write("site.yaml", MINIMAL_CONFIG + "extra_css:\n" + "".join(f"  - '{n}'\n" for n in names))
    build, _ = site.build()
    html = build.files["index.html"]
    assert b"<script>alert" not in html
    assert stylesheets(html)[1:] == ["/catalog/static/my%20theme.css",
                                     "/catalog/static/x%22%3E%3Cscript%3Ealert%281%29%3C/script%3E.css",
                                     "/catalog/static/%C3%A9/%C3%BC.css"]
    for name in names:
        assert f"static/{name}" in build.files


BAD_ENTRIES = {
    "'../outside.css'": "must be a path inside static/",
    "'css/../../x.css'": "must be a path inside static/",
    "/abs/custom.css": "must be a path inside static/",
    "'css//x.css'": "must be a path inside static/",
    "'./custom.css'": "must be a path inside static/",
    "'c:\\\\x.css'": "must be a path inside static/",
    "https://cdn.example/x.css": "must be a file in static/, not a URL",
    "//cdn.example/x.css": "must be a file in static/, not a URL",
    "custom.txt": "is not a stylesheet",
    ".hidden.css": "is a hidden file",
    "style.css": "the theme's stylesheet",
    "''": "must be file names in static/",
    "42": "must be file names in static/",
    "[nested.css]": "must be file names in static/",
}


@pytest.mark.parametrize("entry, message", BAD_ENTRIES.items(), ids=BAD_ENTRIES.keys())
def test_bad_entries_are_errors_with_their_line(site, entry, message):
    site.write("static/custom.css", "a {}\n")
    site.write("site.yaml", MINIMAL_CONFIG + f"extra_css:\n  - custom.css\n  - {entry}\n")
    line = MINIMAL_CONFIG.count("\n") + 3
    with pytest.raises(SiteError) as raised:
        site.config
    assert [(p.line, message in p.message) for p in raised.value.problems] == [(line, True)]
    assert str(raised.value).startswith(f"{site.root / 'site.yaml'}:{line}: extra_css: ") or entry in ("''", "42", "[nested.css]")


def test_extra_css_must_be_a_list(site):
    site.write("site.yaml", MINIMAL_CONFIG + "extra_css: custom.css\n")
    with pytest.raises(SiteError, match=r"site.yaml:\d+: 'extra_css' must be a list of stylesheets in static/"):
        site.config


def test_a_duplicate_is_an_error(site):
    site.write("static/custom.css", "a {}\n")
    site.write("site.yaml", MINIMAL_CONFIG + "extra_css: [custom.css, custom.css]\n")
    with pytest.raises(SiteError, match="'custom.css' is listed twice"):
        site.config


@pytest.mark.parametrize("files, hint", [
    ({"static/custom.css": "a {}"}, "did you mean 'custom.css'?"),
    ({"static/a.css": "a {}", "static/b/c.css": "a {}"}, "static/ has a.css, b/c.css"),
    ({}, "static/ has no .css files"),
    ({"static/custm.css/inside.css": "a {}"}, "static/ has custm.css/inside.css"),  # a folder is no stylesheet
])
def test_a_missing_stylesheet_fails_the_build_with_its_line_and_leaves_the_site(site, tmp_path, files, hint):
    site.paper("one")
    out = tmp_path / "out"
    assert CliRunner().invoke(cli, ["build", "-q", "-o", str(out), "--config", str(site.root / "site.yaml")]).exit_code == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for name, text in files.items():
        site.write(name, text)
    site.write("site.yaml", MINIMAL_CONFIG + "extra_css:\n  - custm.css\n")
    result = CliRunner().invoke(cli, ["build", "-q", "-o", str(out), "--config", str(site.root / "site.yaml")])
    line = MINIMAL_CONFIG.count("\n") + 2
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output.startswith(f"Error: {site.root / 'site.yaml'}:{line}: extra_css: 'static/custm.css' not found (")
    assert hint in result.output and len(result.output.splitlines()) == 1
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_the_preview_reports_a_stylesheet_deleted_while_it_runs(site):
    """static/ changes without site.yaml changing: every rebuild checks the stylesheets again."""
    site.paper("one")
    css = site.write("static/custom.css", "a {}\n")
    site.write("site.yaml", MINIMAL_CONFIG + "extra_css:\n  - custom.css\n")
    rebuilder = Rebuilder(site.root / "site.yaml")
    assert rebuilder.rebuild().build is not None
    css.unlink()
    outcome = rebuilder.rebuild()
    assert outcome.build is None
    assert [str(p) for p in outcome.error.problems] == [
        f"{site.root / 'site.yaml'}:{MINIMAL_CONFIG.count(chr(10)) + 2}: "
        "extra_css: 'static/custom.css' not found (static/ has no .css files)"]
    site.write("static/custom.css", "a { color: red; }\n")
    outcome = rebuilder.rebuild()
    assert outcome.build.files["static/custom.css"] == b"a { color: red; }\n"


def test_readme_documents_extra_css():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `extra_css` |" in readme and "extra_css: [custom.css]" in readme
