"""site.js reads a paper page's citation the way its Python twins say (papersite/site/citations.py):
what page_item says a page's #bibtex entry and #abstract-text read as, pageItem reads in Chromium
(where page_item gives None, a browser may read otherwise and the page carries the field itself),
and risFromCsl writes ris_from_csl's RIS. The inputs are generated: entries and abstracts with
the characters a parser or JavaScript's lines treat in their own way (CR, NUL, line separators,
entities, braces, " and ", commas, whitespace JavaScript and Python disagree on)."""
from __future__ import annotations

import html
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from papersite.site.citations import CSL_TYPES, page_item, ris_from_csl
from tests.conftest import MINIMAL_CONFIG, TinySite

TRICKY = st.sampled_from(["\r", "\r\n", "\0", "\u2028", "\u2029", "\x85", "\x1c", "\ufeff", "\u00a0", "\t", "\n",
                          "{", "}", " and ", ", ", ",", "&amp;", "&", "<", ">", '"', "'", "=", "@", "ü", "𝔼", " "])
TEXT = st.lists(st.one_of(TRICKY, st.text(alphabet="abcXYZ019 .-", max_size=6)), max_size=8).map("".join)
ENTRY_TYPES = st.sampled_from(["inproceedings", "article", "misc", "phdthesis", "techreport", "book", "unknown"])


@st.composite
def entries(draw) -> str:
    """A BibTeX entry as catalog/bibtex.py lays one out (a field a line), with generated values."""
    fields = [("title", "{" + draw(TEXT) + "}"), ("author", draw(TEXT)), ("booktitle", draw(TEXT)),
              ("year", draw(st.sampled_from(["2024", "24", "２０２４", "", draw(TEXT)]))), ("url", draw(TEXT)),
              ("doi", draw(TEXT))]
    shown = draw(st.lists(st.sampled_from(fields), unique=True, max_size=len(fields)))
    return f"@{draw(ENTRY_TYPES)}{{{draw(TEXT)},\n" + ",\n".join(f"  {name} = {{{value}}}" for name, value in shown) + "\n}"


ESCAPED = TEXT.map(lambda text: html.escape(text, quote=False))
INLINE = st.one_of(ESCAPED, ESCAPED.map("<em>{}</em>".format), st.just("<br>"),
                   st.just("<math><mrow><mi>x</mi><mn>2</mn></mrow></math>"),
                   ESCAPED.map('<a href="https://example.org/?a=1&amp;b=2">{}</a>'.format))


@st.composite
def abstracts(draw) -> str:
    """An abstract as the allow-list writer gives one (well formed): paragraphs of text, emphasis,
    formulas and links, escaped; now and then a code block."""
    blocks = draw(st.lists(st.lists(INLINE, max_size=5).map(lambda inline: "<p>" + "".join(inline) + "</p>"),
                           max_size=3))
    if draw(st.booleans()) and blocks:
        blocks.insert(1, "<pre><code>\n  " + draw(ESCAPED) + "</code></pre>")
    return draw(st.sampled_from(["", "\n"])).join(blocks)


@pytest.fixture(scope="module")
def paper_url(tmp_path_factory, browser):
    from papersite.pipeline import build_site
    from tests.browser.conftest import Served
    site = TinySite(tmp_path_factory.mktemp("twins") / "site")
    site.write("site.yaml", MINIMAL_CONFIG)
    site.write("content/icml-2024/p.md", "---\nid: p\nvenue: icml-2024\ntitle: A Paper\nauthors: [Ada Lovelace]\nyear: 2024\n---\nText.\n")
    build = build_site(site.config)
    served = Served(build, build.catalog.config.base_path)
    yield served.url + "papers/p/"
    served.close()


READ_IN_CHROMIUM = """cases => cases.map(([entry, abstract]) => {
  // the page as the theme lays it out, parsed as a browser parses it (DOMParser runs no script)
  const doc = new DOMParser().parseFromString('<!doctype html><div id="abstract-text">' + abstract +
    '</div><pre id="bibtex" tabindex="0"><code>' + entry + '</code></pre>' +
    '<script type="application/json" id="cite-data">{"csl":{},"page":true}</' + 'script>', "text/html");
  if (abstract === null) doc.getElementById("abstract-text").remove();
  const item = window.papersiteCite.item(doc);
  delete item["citation-key"];
  return item;
})"""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases=st.lists(st.tuples(entries(), st.one_of(st.none(), abstracts())), min_size=1, max_size=25))
@example(cases=[("@article{key,\r,\n  title = {{T}}\n}", None)])  # a CR a browser reads as a line break
def test_what_site_js_reads_from_a_page_is_what_page_item_says(page, paper_url, cases):
    if page.url != paper_url:
        page.goto(paper_url)
    shown = [[html.escape(entry, quote=False), abstract] for entry, abstract in cases]
    read = page.evaluate(READ_IN_CHROMIUM, shown)
    for (entry, abstract), in_chromium in zip(cases, read):
        said = page_item(entry, abstract)
        for name, value in said.items():
            if value is not None:
                assert in_chromium.get(name) == value, (name, entry, abstract)
        # what page_item does not name, site.js does not read
        assert in_chromium.keys() <= said.keys(), (entry, abstract)


ITEMS = st.fixed_dictionaries(
    {"id": TEXT, "title": TEXT, "type": st.sampled_from(sorted(set(CSL_TYPES.values())) + ["dataset"]),
     "issued": st.builds(lambda year: {"date-parts": [[year]]}, st.integers(1, 2100)), "URL": TEXT},
    optional={"author": st.lists(st.one_of(
                  st.fixed_dictionaries({"family": TEXT}, optional={"given": TEXT, "suffix": TEXT,
                                                                   "non-dropping-particle": TEXT}),
                  st.builds(lambda name: {"literal": name}, TEXT)), max_size=4),
              "container-title": TEXT, "abstract": TEXT, "keyword": TEXT, "DOI": TEXT})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(ITEMS, min_size=1, max_size=25))
def test_risfromcsl_writes_what_ris_from_csl_writes(page, paper_url, items):
    if page.url != paper_url:
        page.goto(paper_url)
    written = page.evaluate("""items => items.map(item => window.papersiteCite.text(new DOMParser().parseFromString(
        '<script type="application/json" id="cite-data">' + JSON.stringify({csl: item}).replace(/</g, "\\\\u003c") +
        '</' + 'script>', "text/html"), "ris"))""", [json.loads(json.dumps(item)) for item in items])
    assert written == [ris_from_csl(item) for item in items]
