"""A smaller site shows the same: the theme's pages against the pages of its templates before
they lost their indentation and duplicate meta tags (issue 14's site-size target)."""
from __future__ import annotations

import io
import shutil
import subprocess
import tarfile

import pytest

from papersite.source.config import load_config
from papersite.engine.command import build_and_write
from tests.conftest import ROOT
from tests.test_same_site import in_git_checkout
from tests.downloads import CITE_DATA
from tests.visible import Site, differences, visible

# The theme's compact listing entry, as it is now (put into REFERENCE's macros below).
_THEME_MACROS = (ROOT / "templates" / "_macros.html").read_text(encoding="utf-8")
COMPACT_MACRO = _THEME_MACROS[_THEME_MACROS.index("{% macro compact_items"):]
COMPACT_MACRO = COMPACT_MACRO[:COMPACT_MACRO.index("{% endmacro %}") + len("{% endmacro %}\n")]

# The last commit whose templates were indented and carried twitter:title and twitter:description.
REFERENCE = "1ee365e"
# What pages show that was changed on purpose since: (template, text at REFERENCE, text now), made in the
# reference templates too. A change that means to alter what pages show adds its line here.
SINCE_REFERENCE = [
    ("map.html", " Hover or focus a dot for its title, click to open it; drag a box to list the papers in it. Scroll or "
     "<kbd>+</kbd>/<kbd>−</kbd> zooms, dragging with <kbd>Shift</kbd> or the arrow keys pans.</p>", "</p>"),
    ("map.html", '  <ul id="map-legend"',
     '  <p id="map-help" class="map-help">Hover or focus a dot for its title, click to open it; drag a box to list the '
     "papers in it. Scroll or <kbd>+</kbd>/<kbd>−</kbd> zooms, dragging with <kbd>Shift</kbd> or the arrow keys pans. "
     "On a touch screen, drag to pan, pinch to zoom and tap a dot to open it.</p>\n  <ul id=\"map-legend\""),
    ("base.html", "    </form>\n  </div>\n</header>",
     # the picker's room: site.js puts the picker in (issue 36)
     '    </form>\n    <label class="theme-choice"></label>\n  </div>\n</header>'),
    ("reading-list.html", "<h1>Reading list</h1>", '<h1 id="reading-heading">Reading list</h1>'),
    ("reading-list.html", '<p class="reading-note">Saved', '<p id="reading-own-note" class="reading-note">Saved'),
    ("reading-list.html", '  <div id="reading-shared" class="reading-shared" hidden>\n',
     '  <div id="reading-shared" class="reading-shared" hidden>\n    <p id="reading-shared-note" class="reading-note">A list shared with you '
     "by a link, not saved in this browser: add these papers to your own reading list to keep them.</p>\n"),
    # issue 36: downloads made in the browser (buttons where links to files were), no author feeds
    # (the RIS and CSL-JSON buttons and the BibTeX's Copy button: made by site.js)
    ("paper.html", """<a href="{{ urls.cite_of(paper, 'ris')|link }}" download>RIS</a> · <a href="{{ urls.cite_of(paper, 'json')|link }}" type="application/json" download>CSL-JSON</a> · """,
     ""),
    ("paper.html", """    <button type="button" class="copy-button" data-copy="bibtex" hidden>Copy BibTeX</button>\n""", ""),
    ("author.html", """<a href="{{ bib|link }}" download>Download BibTeX</a>""",
     """<button type="button" class="link-button" data-bib="{{ bib }}" data-keys="{{ bib_keys }}" data-name="{{ bib_name }}">Download BibTeX</button>"""),
    ("topic.html", """<a href="{{ urls.bibtex_of(topic)|link }}" download>Download BibTeX</a>""",
     """<button type="button" class="link-button" data-bib="{{ bib }}" data-name="papers.bib">Download BibTeX</button>"""),
    ("papers.html", """<a href="{{ urls.bibtex_of()|link }}" download>Download BibTeX</a>""",
     """<button type="button" class="link-button" data-bib="{{ bib }}" data-name="papers.bib">Download BibTeX</button>"""),
    # issue 36: the search box named by aria-label, not a hidden label element
    ("base.html", '      <label for="site-search-input" class="visually-hidden">Search papers</label>\n', ""),
    ("base.html", 'placeholder="Search papers" autocomplete', 'placeholder="Search papers" aria-label="Search papers" autocomplete'),
    ("base.html", '      <kbd class="search-key" aria-hidden="true">/</kbd>\n', ""),  # drawn by style.css
    # issue 36: author, year and all-papers pages list papers compactly (title, byline, venue, year)
    ("_macros.html", "{% macro status_badge(status) %}", COMPACT_MACRO + "{% macro status_badge(status) %}"),
    ("author.html", "import paper_items, pagination", "import compact_items, pagination"),
    ("author.html", "{{ paper_items(shown, True, bylines) }}", "{{ compact_items(shown, bylines, author_path) }}"),
    ("year.html", "import paper_items, pagination", "import compact_items, pagination"),
    ("year.html", "{{ paper_items([paper], False, bylines) }}", "{{ compact_items([paper], bylines, show_venue=False) }}"),
    ("papers.html", "import paper_list, count", "import compact_items, pagination, count"),
    ("papers.html", "{{ paper_list(papers, pager, bylines=bylines) }}",
     '<ol class="paper-list compact"{% if pager.first > 1 %} start="{{ pager.first }}"{% endif %}>\n'
     "{{ compact_items(papers, bylines, show_year=True) }}\n</ol>\n{{ pagination(pager) }}"),
    # issue 36: the abstract in an element of its own, which the downloads read
    ("paper.html", "{% if paper.abstract %}{{ abstract.html|safe }}{% else %}",
     '{% if paper.abstract %}<div id="abstract-text">{{ abstract.html|safe }}</div>{% else %}'),
    # issue 36: no footer link to sitemap.xml (robots.txt names it for crawlers)
    ("base.html", """ papers · <a href="{{ 'sitemap.xml'|link }}">Sitemap</a></p>""", " papers</p>"),
    # issue 36: no paper count in the footer (the home page shows it): a paper added renders every page again otherwise
    ("base.html", """{% endif %} · {{ paper_count }} papers</p>""", "{% endif %}</p>"),
]


def shown(html: str, links=lambda href: href):
    return visible(html.encode(), links)


def page(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><title>T</title>{head}</head><body>{body}</body></html>"


def test_whitespace_between_blocks_does_not_show():
    indented = page("<main>\n  <h1>Title</h1>\n  <ul>\n    <li>one</li>\n    <li> two </li>\n  </ul>\n</main>")
    assert shown(indented) == shown(page("<main><h1>Title</h1><ul><li>one</li><li>two</li></ul></main>"))
    assert shown(indented)[0] == "Title\none\ntwo"


def test_whitespace_between_inline_elements_shows():
    spaced = shown(page('<p><a href="/a/">Ada</a>, <a href="/b/">Bo</a> <span>2024</span></p>'))
    assert spaced[0] == "Ada, Bo 2024"
    assert shown(page('<p><a href="/a/">Ada</a>, <a href="/b/">Bo</a><span>2024</span></p>')) != spaced
    # a newline between inline elements shows as a space, as much as a space does
    assert shown(page('<p><a href="/a/">Ada</a>,\n  <a href="/b/">Bo</a>\n<span>2024</span></p>')) == spaced


def test_every_character_of_pre_and_textarea_shows():
    assert shown(page("<pre>@a{k,\n  title = {T}\n}</pre>")) != shown(page("<pre>@a{k,\ntitle = {T}\n}</pre>"))
    assert shown(page("<textarea>a  b</textarea>")) != shown(page("<textarea>a b</textarea>"))


def test_comments_do_not_show():
    assert shown(page("<p>a<!-- note -->b</p>")) == shown(page("<p>ab</p>"))


def test_the_head_shows_only_its_title():
    assert shown(page("x", '<meta name="twitter:title" content="T">')) == shown(page("x"))
    assert shown(page("x").replace("<title>T</title>", "<title>U</title>")) != shown(page("x"))


def test_links_and_what_a_reader_meets_in_attributes_count():
    assert shown(page('<a href="/a/">x</a>')) != shown(page('<a href="/b/">x</a>'))
    assert shown(page('<a href="/a/" download>x</a>')) != shown(page('<a href="/a/">x</a>'))
    assert shown(page('<input placeholder="Search">')) != shown(page('<input placeholder="Find">'))
    assert shown(page('<p class="a">x</p>')) == shown(page('<p class="b">x</p>'))


def write(folder, files: dict[str, str]):
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return Site(folder)


def test_a_link_may_lead_elsewhere_to_the_same_bytes(tmp_path):
    old = write(tmp_path / "old", {"index.html": page('<a href="/a/papers.bib">BibTeX</a>'), "a/papers.bib": "@x{k}\n"})
    moved = write(tmp_path / "moved", {"index.html": page('<a href="/p/cite.bib">BibTeX</a>'), "p/cite.bib": "@x{k}\n"})
    changed = write(tmp_path / "changed", {"index.html": page('<a href="/p/cite.bib">BibTeX</a>'),
                                           "p/cite.bib": "@x{other}\n"})
    assert differences(old, moved) == []
    assert differences(old, changed) == ["index.html: links or attributes differ: "
                                         f"{[(old.page('index.html')[1][1], changed.page('index.html')[1][1])]}"]


def test_a_feed_may_lose_the_whitespace_between_its_elements(tmp_path):
    feed = '<feed xmlns="http://www.w3.org/2005/Atom">\n  <title>{}</title>\n</feed>\n'
    old = write(tmp_path / "old", {"feed.xml": feed.format("T")})
    assert differences(old, write(tmp_path / "flat", {"feed.xml": feed.format("T").replace("\n  ", "")})) == []
    assert differences(old, write(tmp_path / "other", {"feed.xml": feed.format("U")})) == \
        ["feed.xml: content differs"]


def reference_templates(folder):
    """The theme's templates at REFERENCE, written into `folder` (a site's own templates/)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", REFERENCE, "templates"], capture_output=True)
    if archive.returncode:
        pytest.skip(f"commit {REFERENCE} is not in this clone")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    for name, then, now in SINCE_REFERENCE:
        template = folder / "templates" / name
        text = template.read_text(encoding="utf-8")
        assert text.count(then) == 1, f"{name}: {then!r}"
        template.write_text(text.replace(then, now), encoding="utf-8")


@pytest.mark.skipif(not in_git_checkout(), reason="needs a git checkout")
def test_the_theme_shows_what_its_indented_templates_showed(tmp_path):
    """The bundled catalog built with the theme's templates and with REFERENCE's: every page shows the
    same text and links to the same content (same engine: only the templates differ)."""
    sites = []
    for name in ("reference", "theme"):
        root = tmp_path / name
        root.mkdir()
        shutil.copy(ROOT / "site.yaml", root / "site.yaml")
        shutil.copytree(ROOT / "content", root / "content")
        if name == "reference":
            reference_templates(root)
        config = load_config(root / "site.yaml")
        build_and_write(config, root / "_site")
        sites.append(Site(root / "_site", config.base_path))
    reference, theme = sites
    assert differences(reference, theme) == []
    # less the theme's #cite-data (the downloads' data, which REFERENCE's pages had in files of their own)
    sizes = [sum(len(CITE_DATA.sub("", f.read_text(encoding="utf-8")).encode()) for f in site.root.rglob("*.html"))
             for site in sites]
    assert sizes[1] < sizes[0]
