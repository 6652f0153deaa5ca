"""Authors, years and statuses in search, in Chromium: names matched and shown as links,
year and status facets beside venue and topic."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from papersite import urls
from tests.browser.test_search import facet_counts, open_search, results, search, status, wait_rendered

SITE = """\
title: People Catalog
base_url: https://example.org/catalog/
topics:
  - {slug: learning-theory, name: Learning Theory}
venues:
  - {slug: icml-2023, name: ICML 2023, year: 2023}
  - {slug: icml-2024, name: ICML 2024, year: 2024}
"""

PAPERS = [  # name, venue, authors, status
    ("alpha", "icml-2024", "[Tim Rocktäschel, Diederik P. Kingma]", "oral"),
    ("beta", "icml-2023", "[Tim Rocktaschel, Ada Lovelace]", "poster"),
    ("gamma", "icml-2024", "[Ada Lovelace, Grace Hopper]", "poster"),
    ("delta", "icml-2023", "[Grace Hopper]", "<img src=x onerror=alert(1)>"),
    ("epsilon", "icml-2024", "[Alan Turing]", ""),
]
ET_AL = {"epsilon"}  # its authors are some of them ("and others" in BibTeX)


@pytest.fixture(scope="module")
def served_people(tmp_path_factory, browser):
    from tests.browser.conftest import Served
    from tests.conftest import TinySite
    site = TinySite(tmp_path_factory.mktemp("people") / "site")
    site.write("site.yaml", SITE)
    for name, venue, authors, badge in PAPERS:
        extra = (f'status: "{badge}"\n' if badge else "") + ("et_al: true\n" if name in ET_AL else "")
        site.write(f"content/{venue}/{name}.md", f"---\nid: {name}\ntitle: {name.title()} bounds\n"
                   f"authors: {authors}\nvenue: {venue}\n{extra}topics: [learning-theory]\n---\n"
                   f"Generalization bounds, {name}.\n")
    build, _ = site.build()
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


def titles(page):
    return sorted(title for _, title in results(page))


def test_author_names_are_found_and_shown_as_links(page, served_people):
    open_search(page, served_people)
    # an accented query also finds the spelling without accents, and the other way round
    for query in ("rocktäschel", "rocktaschel"):
        search(page, query)
        assert titles(page) == ["Alpha bounds", "Beta bounds"], query
    search(page, "hopper")
    assert titles(page) == ["Delta bounds", "Gamma bounds"]
    first = page.locator("#search-results .search-result").first
    names = first.locator(".paper-item-authors a")
    assert "Grace Hopper" in names.all_text_contents()
    assert first.locator(".paper-item-authors mark").all_text_contents() == ["Hopper"]
    href = first.locator(".paper-item-authors a", has_text="Grace Hopper").get_attribute("href")
    assert href == "/catalog/authors/grace-hopper/"
    first.locator(".paper-item-authors a", has_text="Grace Hopper").click()
    page.wait_for_url("**/catalog/authors/grace-hopper/")
    assert page.text_content("h1") == "Grace Hopper"
    assert page.console_errors == []


def test_a_paper_naming_some_of_its_authors_says_et_al_in_search_and_on_its_pages(page, served_people):
    open_search(page, served_people, "?q=turing")
    wait_rendered(page, "turing")
    assert [" ".join(t.split()) for t in page.locator("#search-results .paper-item-authors").all_text_contents()] \
        == ["Alan Turing, et al."]
    page.goto(served_people.url + "papers/epsilon/")
    assert " ".join(page.text_content("p.authors").split()) == "Alan Turing, et al."
    page.goto(served_people.url + "venues/icml-2024/")
    bylines = [" ".join(t.split()) for t in page.locator(".paper-item-authors").all_text_contents()]
    assert "Alan Turing, et al." in bylines and "Ada Lovelace, Grace Hopper" in bylines
    assert page.console_errors == []


def test_year_and_status_facets(page, served_people):
    open_search(page, served_people, "?q=bounds")
    wait_rendered(page, "bounds")
    assert len(results(page)) == 5
    counts = facet_counts(page)
    assert {slug: n for (name, slug), n in counts.items() if name == "year"} == {"2024": 3, "2023": 2}
    assert {slug: n for (name, slug), n in counts.items() if name == "status"} == {
        "oral": 1, "poster": 2, "<img src=x onerror=alert(1)>": 1}
    # years newest first, whatever their counts
    assert page.eval_on_selector_all("#search-facets input[name=year]", "els => els.map(e => e.value)") == \
        ["2024", "2023"]
    group = page.get_by_role("group", name="Filter results")
    assert group.get_by_role("group", name="Year").count() == 1
    assert group.get_by_role("group", name="Status").count() == 1

    page.check("#search-facets input[name=year][value='2023']")
    page.wait_for_function("() => document.querySelectorAll('#search-results li').length === 2")
    assert titles(page) == ["Beta bounds", "Delta bounds"]
    assert parse_qs(urlsplit(page.url).query) == {"q": ["bounds"], "year": ["2023"]}
    page.check("#search-facets input[name=status][value='poster']")
    page.wait_for_function("() => document.querySelectorAll('#search-results li').length === 1")
    assert titles(page) == ["Beta bounds"]
    assert status(page).startswith("1 paper matches")
    badge = page.locator("#search-results .status-badge").all_text_contents()
    assert badge == ["poster"]

    # a deep link restores both, and the hostile status is text
    open_search(page, served_people, "?q=bounds&status=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E")
    wait_rendered(page, "bounds")
    assert titles(page) == ["Delta bounds"]
    assert page.locator("#search-results img").count() == 0
    assert page.locator("#search-results .status-badge").all_text_contents() == ["<img src=x onerror=alert(1)>"]
    assert page.console_errors == []


def test_facets_without_a_query_list_a_years_papers(page, served_people):
    open_search(page, served_people, "?year=2024")
    page.wait_for_function("() => document.querySelectorAll('#search-results li').length === 3")
    assert titles(page) == ["Alpha bounds", "Epsilon bounds", "Gamma bounds"]
    assert page.console_errors == []


def test_a_one_year_catalog_has_no_year_facet(page, served_bundled):
    open_search(page, served_bundled, "?q=model")
    wait_rendered(page, "model")
    names = {name for name, _ in facet_counts(page)}
    assert "venue" in names and "year" not in names and "status" not in names
    assert page.console_errors == []


def test_author_links_on_pages_lead_to_author_pages(page, served_people):
    page.goto(served_people.url + "papers/alpha/")
    link = page.locator("p.authors a", has_text="Tim Rocktäschel")
    # names are styled by their paragraph (links without a class): the byline's colour, not a link's
    color = "el => getComputedStyle(el).color"
    assert link.evaluate(color) == page.locator("p.authors").evaluate(color) != \
        page.locator(".cite-downloads a").first.evaluate(color)
    link.click()
    page.wait_for_url("**/catalog/authors/tim-rocktaschel/")
    assert page.text_content("h1") == "Tim Rocktäschel"
    assert page.locator("h2#year-2024").count() == 1 and page.locator("h2#year-2023").count() == 1
    byline = page.locator(".compact p").first
    assert byline.locator("a").first.evaluate(color) == byline.evaluate(color)
    page.goto(served_people.url + urls.ALL_AUTHORS)
    assert page.locator("nav.site-nav a[aria-current=page]").text_content() == "Authors"
    page.locator(".letter-nav a", has_text="H").click()
    assert page.evaluate("location.hash") == "#letter-H"
    assert page.console_errors == []
