"""The reading list in Chromium: save from a paper page and a search result, list,
export (each download parsed back), a shared link opened in another browser, keyboard only.

A tiny site served under /repo/, as a project site on GitHub Pages is.
"""
from __future__ import annotations

import json

import bibtexparser
import html5lib
import pytest
import rispy

from papersite.pipeline import build_site
from tests.browser.conftest import Served
from tests.conftest import TinySite
from tests.downloads import paper_download

BASE_URL = "https://user.github.io/repo/"
HOSTILE = "Hostile </script><img src=x onerror=window.__pwned=1> \"Quoted\" & Co"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = TinySite(tmp_path_factory.mktemp("reading") / "site")
    site.paper("grokking-explained", id="g", title="Grokking Explained", body="Delayed generalization, explained.")
    site.paper("diffusion-at-scale", id="d", title="Diffusion at Scale", topics="[generative-models]",
               body="Diffusion models at scale.")
    site.paper("hostile", id="h", title=f"'{HOSTILE}'", body="A hostile title.")
    build = build_site(site.config.with_base_url(BASE_URL))
    served = Served(build, build.catalog.config.base_path)
    served.build = build
    yield served
    served.close()


def items(page) -> list[str]:
    page.wait_for_selector("#reading-list[data-state=ready]")
    return page.eval_on_selector_all("#reading-items .paper-item-title", "hs => hs.map(h => h.textContent)")


def save_on_paper_page(page, served, slug):
    page.goto(served.url + f"papers/{slug}/")
    button = page.locator("button.save-button")
    assert button.text_content() == "Save" and button.get_attribute("aria-pressed") == "false"
    button.click()
    assert button.text_content() == "Saved" and button.get_attribute("aria-pressed") == "true"


def test_save_from_a_paper_page_and_a_search_result_then_list_and_remove(page, served):
    save_on_paper_page(page, served, "grokking-explained")
    page.goto(served.url + "search/?q=diffusion")
    page.wait_for_selector("#search-results .save-button")
    page.click("#search-results .save-button")
    assert page.text_content("#search-results .save-button") == "Saved"
    page.goto(served.url + "reading-list/")
    assert items(page) == ["Grokking Explained", "Diffusion at Scale"]
    assert page.get_attribute("#reading-items a", "href") == "/repo/papers/grokking-explained/"
    assert page.text_content("#reading-status") == "Your reading list: 2 papers."
    page.click("#reading-items li:first-child .reading-remove")
    page.wait_for_function("() => document.querySelectorAll('#reading-items li').length === 1")
    assert items(page) == ["Diffusion at Scale"]
    page.goto(served.url + "papers/grokking-explained/")
    assert page.text_content("button.save-button") == "Save"  # removed there too
    assert page.console_errors == []


def page_entry(files, slug: str) -> str:
    """The BibTeX entry a paper's page shows."""
    document = html5lib.parse(files[f"papers/{slug}/index.html"], namespaceHTMLElements=False)
    return "".join(document.find(".//pre[@id='bibtex']").itertext()).rstrip()


def download(page, format: str) -> str:
    with page.expect_download() as info:
        page.click(f"button[data-export={format}]")
    return open(info.value.path(), encoding="utf-8").read()


def test_exports_are_the_papers_own_citations(page, served):
    for slug in ("diffusion-at-scale", "hostile"):
        save_on_paper_page(page, served, slug)
    page.goto(served.url + "reading-list/")
    assert items(page) == ["Diffusion at Scale", HOSTILE]  # a hostile title is text
    assert page.evaluate("typeof window.__pwned") == "undefined"
    files = served.build.files
    bib = download(page, "bib")
    entries = bibtexparser.parse_string(bib).entries
    keys = served.build.catalog.citation_keys
    assert [e.key for e in entries] == [keys["d"], keys["h"]]
    assert entries[0].fields_dict["title"].value == "{Diffusion at Scale}"
    assert bib == page_entry(files, "diffusion-at-scale") + "\n\n" + page_entry(files, "hostile") + "\n"
    ris = rispy.loads(download(page, "ris"))
    assert [r["title"] for r in ris] == ["Diffusion at Scale", HOSTILE]
    csl = json.loads(download(page, "json"))
    assert csl == json.loads(paper_download(files, "diffusion-at-scale", "json")) + \
        json.loads(paper_download(files, "hostile", "json"))


def test_a_shared_link_opens_the_list_in_another_browser(page, served, browser):
    for slug in ("grokking-explained", "diffusion-at-scale"):
        save_on_paper_page(page, served, slug)
    page.goto(served.url + "reading-list/")
    items(page)
    link = page.input_value("#reading-share")
    assert link == served.url + "reading-list/?papers=grokking-explained,diffusion-at-scale"
    elsewhere = browser.new_context()  # nothing saved there
    other = elsewhere.new_page()
    other.goto(link + ",no-such-paper,..%2Fevil")
    assert items(other) == ["Grokking Explained", "Diffusion at Scale", "no-such-paper"]
    assert "no longer in this catalog" in other.text_content("#reading-items li:last-child").lower()
    assert other.text_content("#reading-status") == "A shared reading list of 3 papers."
    other.click("#reading-keep")
    other.click("#reading-mine")
    assert items(other) == ["Grokking Explained", "Diffusion at Scale", "no-such-paper"]
    assert other.locator("#reading-items .reading-remove").count() == 3  # its own list now
    elsewhere.close()


def test_a_shared_list_says_it_is_shared_and_how_to_keep_it(browser, served):
    """Opened from a share link, the list is someone else's: the page says so, not that it is kept
    in this browser, and offers to add the papers to this browser's list; then says they are."""
    elsewhere = browser.new_context()  # nothing saved there
    other = elsewhere.new_page()
    try:
        other.goto(served.url + "reading-list/?papers=grokking-explained,diffusion-at-scale")
        assert items(other) == ["Grokking Explained", "Diffusion at Scale"]
        shown = other.inner_text("#reading-list")  # the text on screen, hidden elements left out
        assert "Saved in this browser only" not in shown
        assert "shared with you by a link, not saved in this browser" in shown
        assert other.text_content("h1") == "Shared reading list"
        assert other.title().startswith("Shared reading list")
        assert other.is_visible("#reading-keep") and other.is_visible("#reading-mine")
        other.click("#reading-keep")
        assert "every paper in it is in your own reading list too" in other.inner_text("#reading-shared")
        other.click("#reading-mine")  # this browser's own list says where it is kept
        assert items(other) == ["Grokking Explained", "Diffusion at Scale"]
        assert other.text_content("h1") == "Reading list"
        assert "Saved in this browser only" in other.inner_text("#reading-list")
        assert other.is_hidden("#reading-shared")
    finally:
        elsewhere.close()


def test_the_keyboard_alone_saves_lists_and_exports(page, served):
    page.goto(served.url + "papers/grokking-explained/")
    for _ in range(40):  # Tab from the top of the page to the Save button
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('save-button')"):
            break
    page.keyboard.press("Enter")
    assert page.text_content("button.save-button") == "Saved"
    page.goto(served.url + "reading-list/")
    items(page)
    page.focus("#reading-items .reading-remove")
    page.keyboard.press("Tab")  # from the list to the download buttons
    assert page.evaluate("document.activeElement.getAttribute('data-export')") == "bib"
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    assert "Grokking Explained" in open(info.value.path(), encoding="utf-8").read()
    page.focus("#reading-items .reading-remove")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('reading-status').textContent.includes('empty')")
    assert page.evaluate("document.activeElement.id") == "reading-status"  # the keyboard is not lost


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_axe_violations(page, served, scheme):
    from axe_playwright_python.sync_playwright import Axe

    from tests.browser.test_a11y import serious

    page.emulate_media(color_scheme=scheme)
    save_on_paper_page(page, served, "hostile")
    assert serious(Axe().run(page)) == []  # the paper page with its Save button pressed
    page.goto(served.url + "reading-list/")
    items(page)
    assert serious(Axe().run(page)) == []


@pytest.mark.parametrize("omit", [False, True], ids=["citation files", "omit citation-files"])
def test_the_list_shows_papers_as_their_pages_do_and_offers_the_files_the_site_has(page, serve_build, tmp_path,
                                                                                     omit):
    """A saved paper is shown as its page's Google Scholar tags describe it: its title as plain
    text (not the TeX cite.json holds), venue, year and authors as written. Without RIS and CSL-JSON
    (site.yaml `omit: [citation-files]`), BibTeX, which every page shows, is the one download."""
    site = TinySite(tmp_path / "site")
    if omit:
        site.write("site.yaml", (site.root / "site.yaml").read_text(encoding="utf-8") + "omit: [citation-files]\n")
    site.write("content/icml-2024/grokking.md",
               "---\nid: g\ntitle: Grokking on $p$-Norm Balls\nauthors: [Ada Lovelace, 'Turing, Alan']\n"
               "venue: icml-2024\nyear: 2024\n---\nDelayed generalization, explained.\n")
    site.write("content/icml-2024/scaling.md", "---\nid: s\ntitle: Scaling and others\nauthors: [Jared Kaplan]\n"
               "et_al: true\nvenue: icml-2024\nyear: 2024\n---\nSome of its authors.\n")
    site.paper("hostile", id="h", title=f"'{HOSTILE}'", body="A hostile title.")
    build = build_site(site.config.with_base_url(BASE_URL))
    assert (b'id="cite-data"' in build.files["papers/grokking/index.html"]) != omit
    served = serve_build(build)
    for slug in ("grokking", "hostile", "scaling"):
        save_on_paper_page(page, served, slug)
    page.goto(served.url + "reading-list/")
    assert items(page) == ["Grokking on p-Norm Balls", HOSTILE, "Scaling and others"]
    assert page.evaluate("typeof window.__pwned") == "undefined"
    first = "#reading-items li:first-child"
    assert page.text_content(f"{first} .paper-item-meta") == "International Conference on Machine Learning · 2024"
    assert page.text_content(f"{first} .paper-item-authors") == "Ada Lovelace, Turing, Alan"
    assert page.text_content("#reading-items li:last-child .paper-item-authors") == "Jared Kaplan, et al."
    offered = page.eval_on_selector_all("button[data-export]", "bs => bs.map(b => b.dataset.export)")
    assert offered == (["bib"] if omit else ["bib", "ris", "json"])
    assert download(page, "bib") == "\n\n".join(page_entry(build.files, slug) for slug in ("grokking", "hostile", "scaling")) + "\n"
    assert page.console_errors == []


def test_a_thesis_a_report_and_a_chapter_are_listed_with_who_issued_them(page, serve_build, tmp_path):
    """Their venue is named by Scholar tags of their own (a dissertation's institution, a report's,
    a chapter's book): the list shows it as their pages do."""
    site = TinySite(tmp_path / "site")
    site.write("site.yaml", (site.root / "site.yaml").read_text(encoding="utf-8") + """\
  - {slug: stanford, name: Stanford University, kind: thesis}
  - {slug: google-research, name: Google Research, kind: report}
  - {slug: handbook, name: Handbook of Learning, kind: collection}
""")
    for slug, venue, year in (("thesis", "stanford", 2020), ("report", "google-research", 2019),
                              ("chapter", "handbook", 2010)):
        site.write(f"content/{venue}/{slug}.md", f"---\nid: {slug}\ntitle: A {slug.title()}\nauthors: [Ada Lovelace]\n"
                                                 f"venue: {venue}\nyear: {year}\n---\nAn abstract.\n")
    build = build_site(site.config.with_base_url(BASE_URL))
    served = serve_build(build)
    for slug in ("thesis", "report", "chapter"):
        save_on_paper_page(page, served, slug)
    page.goto(served.url + "reading-list/")
    assert items(page) == ["A Thesis", "A Report", "A Chapter"]
    assert page.eval_on_selector_all("#reading-items .paper-item-meta", "ps => ps.map(p => p.textContent)") == [
        "Stanford University · 2020", "Google Research · 2019", "Handbook of Learning · 2010"]
    assert page.console_errors == []
