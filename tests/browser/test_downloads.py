"""Citation downloads in Chromium (issue 36): the RIS, CSL-JSON and BibTeX a reader downloads
from a paper page, an author page, a venue page, a topic page and the all-papers listing,
each parsed back (rispy, json, bibtexparser) and byte for byte what the Python writers give
(papersite/site/citations.py: ris, csl_json; catalog/bibtex.py: bibtex_entry, bibtex_file),
which wrote these files before the browser made them. Hostile content throughout; the site is
served under /repo/, as a project site on GitHub Pages is; with JavaScript off, the page's
BibTeX stays and the downloads that need script are not offered.
"""
from __future__ import annotations

import json

import bibtexparser
import html5lib
import pytest
import rispy

from papersite.catalog.bibtex import bibtex_entry, bibtex_file
from papersite.pipeline import build_site
from papersite.site.citations import csl_json, ris
from papersite.text.abstracts import abstract_of
from tests.browser.conftest import Served
from tests.conftest import MINIMAL_CONFIG, TinySite

BASE_URL = "https://user.github.io/repo/"
TITLE = "Braces {Like} \"These\" </script><img src=x onerror=window.__pwned=1> & Ünïcödé $\\mathcal{O}(n^2)$ 𝔼 \\input{x}"
ABSTRACT = ("Quotes \"here\" and 'there', braces {a} and } alone, </script><script>window.__pwned=1</script>,\n"
            "TeX $\\sum_{i=1}^n x_i$ and \\emph{emphasis}, Ünïcödé 日本語 𝔼.\n\n"
            "@misc{injected,\n  title = {A second paragraph that looks like an entry}\n}\n")
PAPERS = {  # venue/file: front matter (YAML) and abstract
    "icml-2024/hostile": (f"id: h\ntitle: {json.dumps(TITLE, ensure_ascii=False)}\n"
                          "authors: [Ludwig van Beethoven, 'King, Jr., Martin Luther', The ATLAS Collaboration, "
                          "José Ñúñez]\nyear: 2024\ndate: 2024-07-21\ntopics: [learning-theory, generative-models]\n"
                          "links: {doi: 10.1234/ab_c.5%, pdf: 'https://example.org/h.pdf'}\n"
                          "extra: {volume: '} @comment{', pages: 12--34, publisher: '\"><b>Sons</b> & Co'}\n",
                          ABSTRACT),
    "icml-2024/plain": ("id: p\ntitle: A Plain Paper\nauthors: [José Ñúñez, Ada Lovelace]\nyear: 2024\n"
                        "topics: [learning-theory]\n", "One line."),
    # no formula: the downloads read the abstract from the page (#abstract-text), escapes and all
    "icml-2024/escaped": ("id: e\ntitle: Escaped\nauthors: [Ada Lovelace]\nyear: 2024\n",
                          "Quotes \"here\" & <b>tags</b> </script><script>window.__pwned=1</script>\u00a0Ünïcödé\u2028"
                          "line\n\nA *second*   paragraph &amp; more, of $W$ (a formula whose text is its TeX's)."),
    "jmlr/journal": ("id: j\ntitle: 'Kernels, \"Quoted\"'\nauthors: [Ada Lovelace, José Ñúñez]\nyear: 2023\n"
                     "topics: [learning-theory]\nlinks: {arxiv: '2402.07207'}\nextra: {volume: 24, number: 3}\n", ""),
}
VENUES = """\
  - slug: jmlr
    name: JMLR
    kind: journal
    full_name: Journal of "Machine" Learning Research
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = TinySite(tmp_path_factory.mktemp("downloads") / "site")
    site.write("site.yaml", MINIMAL_CONFIG + VENUES)
    for name, (front, abstract) in PAPERS.items():
        site.write(f"content/{name}.md", f"---\nvenue: {name.split('/')[0]}\n{front}---\n{abstract}\n")
    build = build_site(site.config.with_base_url(BASE_URL))
    served = Served(build, build.catalog.config.base_path)
    served.build = build
    yield served
    served.close()


def expected(build) -> dict:
    """What each download should hold, from the Python writers: paper id -> {'ris', 'json'} bytes,
    and 'bib' -> paper id -> its entry."""
    catalog = build.catalog
    venues = {venue.slug: venue for venue in catalog.config.venues}
    made = {"bib": {}}
    for paper in catalog.papers:
        url = f"{BASE_URL}papers/{paper.slug}/"
        inputs = (paper, venues[paper.venue], catalog.citation_keys[paper.id], abstract_of(paper.abstract).text,
                  tuple(map(catalog.topic, paper.topics)), url)
        made[paper.id] = {"ris": ris(*inputs), "json": csl_json(*inputs)}
        made["bib"][paper.id] = bibtex_entry(paper, venues[paper.venue], url, catalog.citation_keys[paper.id]).encode()
    return made


def bib_of(made, papers) -> bytes:
    return bibtex_file([made["bib"][paper.id] for paper in papers])


def download(page, selector: str) -> tuple[str, bytes]:
    """Click and wait for the download: (its file name, its bytes)."""
    with page.expect_download() as info:
        page.click(selector)
    return info.value.suggested_filename, open(info.value.path(), "rb").read()


def test_a_paper_page_downloads_its_ris_csl_json_and_its_venues_bibtex(page, served):
    build = served.build
    made, catalog = expected(build), build.catalog
    page.goto(served.url + "papers/hostile/")
    assert page.locator(".cite-downloads").is_visible()
    page.locator("section.cite").screenshot(path="/tmp/lean-site-paper-downloads.png")

    name, data = download(page, "button[data-cite=ris]")
    assert (name, data) == ("cite.ris", made["h"]["ris"])
    [reference] = rispy.loads(data.decode("utf-8"))
    assert reference["title"] == " ".join(TITLE.split()) and reference["authors"][:2] == [
        "van Beethoven, Ludwig", "King, Martin Luther, Jr."]
    assert reference["abstract"] == " ".join(abstract_of(ABSTRACT).text.split())  # one line: RIS is a tag a line

    name, data = download(page, "button[data-cite=json]")
    assert (name, data) == ("cite.json", made["h"]["json"])
    [item] = json.loads(data)
    assert item["title"] == TITLE and "</script><script>" in item["abstract"]

    name, data = download(page, ".cite-downloads a[download]")  # the venue's file
    assert (name, data) == ("papers.bib", bib_of(made, catalog.venue_papers["icml-2024"]))
    entries = bibtexparser.parse_string(data.decode("utf-8")).entries
    assert [entry.key for entry in entries] == [catalog.citation_keys[p.id] for p in catalog.venue_papers["icml-2024"]]
    assert page.evaluate("typeof window.__pwned") == "undefined"

    # one line; escapes and odd whitespace; no abstract. The first two read it from the page
    for slug, paper_id in (("plain", "p"), ("escaped", "e"), ("journal", "j")):
        page.goto(served.url + f"papers/{slug}/")
        assert download(page, "button[data-cite=ris]") == ("cite.ris", made[paper_id]["ris"]), slug
        assert download(page, "button[data-cite=json]") == ("cite.json", made[paper_id]["json"]), slug
    cited = [json.loads(html5lib.parse(build.files[f"papers/{slug}/index.html"], namespaceHTMLElements=False)
                        .find(".//script[@id='cite-data']").text) for slug in ("plain", "escaped", "hostile")]
    # read from the page: all but the hostile paper's abstract (a formula), title and authors (escaped in BibTeX)
    assert [sorted({"abstract", "title", "author", "URL"} & data["csl"].keys()) for data in cited] == \
        [[], [], ["abstract", "author", "title"]]
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.console_errors == []


def test_author_venue_topic_and_catalog_pages_download_the_bibtex_of_their_papers(page, served):
    build = served.build
    made, catalog = expected(build), build.catalog
    authors = {author.name: author for author in catalog.authors}
    listings = [  # page, the papers of its .bib, the file's name
        (f"authors/{authors['José Ñúñez'].slug}/", authors["José Ñúñez"].papers, "papers.bib"),  # two venues
        (f"authors/{authors['Ludwig van Beethoven'].slug}/", authors["Ludwig van Beethoven"].papers, "cite.bib"),
        ("venues/jmlr/", catalog.venue_papers["jmlr"], "papers.bib"),
        ("topics/learning-theory/", catalog.topic_papers["learning-theory"], "papers.bib"),
        ("papers/", catalog.papers, "papers.bib"),
    ]
    assert len(authors["José Ñúñez"].papers) == 3 and len({p.venue for p in authors["José Ñúñez"].papers}) == 2
    for path, papers, file_name in listings:
        page.goto(served.url + path)
        name, data = download(page, ".bib-download a, .bib-download button")
        assert (name, data) == (file_name, bib_of(made, papers)), path
        entries = bibtexparser.parse_string(data.decode("utf-8")).entries
        assert [entry.key for entry in entries] == [catalog.citation_keys[p.id] for p in papers], path
        assert not bibtexparser.parse_string(data.decode("utf-8")).failed_blocks, path
    page.goto(served.url + f"authors/{authors['José Ñúñez'].slug}/")
    page.locator("main").screenshot(path="/tmp/lean-site-author-downloads.png")
    assert page.console_errors == []


def test_without_javascript_the_bibtex_stays_and_no_script_download_is_offered(browser, served):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(served.url + "papers/hostile/")
        shown = page.text_content("#bibtex")
        document = html5lib.parse(served.build.files["papers/hostile/index.html"], namespaceHTMLElements=False)
        assert shown == "".join(document.find(".//pre[@id='bibtex']").itertext()) and shown.startswith("@inproceedings{")
        assert not page.locator("button[data-cite=ris]").is_visible()
        assert not page.locator("button[data-cite=json]").is_visible()
        assert page.locator(".cite-downloads a[download]").is_visible()  # the venue's .bib, a file
        page.locator("section.cite").screenshot(path="/tmp/lean-site-paper-no-js.png")
        page.goto(served.url + "topics/learning-theory/")
        assert not page.locator(".bib-download").is_visible()
        page.goto(served.url + "venues/jmlr/")
        assert page.locator(".bib-download a[download]").is_visible()
    finally:
        context.close()
