"""Authors, years and status on a built site: merged people, author pages and feeds, the A-Z
index, year pages, badges, and the search files that carry them; read back as a visitor would."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from papersite import urls
from papersite.search import read_record
from papersite.site import pages
from papersite.model import Paper, Person
from papersite.catalog.people import collect_people, name_key
from tests.downloads import listing_download
from tests.conftest import TinySite
from tests.htmlcheck import page_url, parse, resolve
from tests.test_search_files import search
from tests.test_vnu import VNU

SITE = """\
title: People Catalog
base_url: https://example.org/catalog/
topics:
  - {slug: learning-theory, name: Learning Theory}
venues:
  - {slug: icml-2023, name: ICML 2023, year: 2023}
  - {slug: icml-2024, name: ICML 2024, year: 2024}
  - {slug: jmlr, name: JMLR, kind: journal}
authors:
  - name: Alan M. Turing
    aliases: [A. Turing, "Turing, A."]
    orcid: 0000-0002-1825-0097
    affiliation: Bletchley <Park>
    url: https://example.org/turing
"""


def write_paper(site, name, venue, authors, year=None, status=None, title=None, body=None):
    front = [f"id: {name}", f"title: {title or name.capitalize()}", f"authors: {authors}", f"venue: {venue}",
             "topics: [learning-theory]"]
    if year:
        front.append(f"year: {year}")
    if status:
        front.append(f"status: {json.dumps(status)}")
    return site.write(f"content/{venue}/{name}.md",
                      "---\n" + "\n".join(front) + "\n---\n" + (body or f"The abstract of {name}.") + "\n")


def people_site(site: TinySite) -> TinySite:
    site.write("site.yaml", SITE)
    write_paper(site, "alpha", "icml-2024", '[Tim Rocktäschel, "Kingma, D. P.", A. Turing, J. Smith]',
                status="<script>alert(1)</script> oral")
    write_paper(site, "beta", "icml-2023", '[Tim Rocktaschel, Diederik P. Kingma, "Turing, A.", John Smith]')
    write_paper(site, "gamma", "jmlr", '[Jane Smith, {name: Wei Chen, orcid: 0000-0001-0000-0001}]', year=2021,
                status="spotlight")
    write_paper(site, "delta", "jmlr", '[{name: Wei Chen, orcid: 0000-0001-0000-0002, affiliation: Lab B}, '
                                       'Alan M. Turing]', year=2022)
    return site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The people site, built once: its tests only read it."""
    root = tmp_path_factory.mktemp("people")
    build, _ = people_site(TinySite(root / "site")).build(root / "out")
    return root / "out", build


def h1(out, path):
    return parse(out / urls.output_file(path)).h1.strip()


def author_links(html_file) -> list[str]:
    return [link for link in parse(html_file).links if re.fullmatch(r"/catalog/authors/[^/]+/", link)]


def main_text(html_file) -> str:
    text = html_file.read_text(encoding="utf-8")
    return text[text.index("<main"):text.index("</main>")]


# --- who is who -------------------------------------------------------------------------

def test_spellings_of_one_person_share_one_page(built):
    out, build = built
    by_name = {a.name: a for a in build.catalog.authors}
    assert sorted(a.name for a in build.catalog.authors) == [
        "Alan M. Turing", "Diederik P. Kingma", "J. Smith", "Jane Smith", "John Smith", "Tim Rocktäschel",
        "Wei Chen", "Wei Chen"]
    # accents folded; the accented spelling is shown
    assert by_name["Tim Rocktäschel"].spellings == ("Tim Rocktaschel", "Tim Rocktäschel")
    # "Last, initials" joins the one full name it abbreviates
    assert by_name["Diederik P. Kingma"].spellings == ("Diederik P. Kingma", "Kingma, D. P.")
    # site.yaml's aliases, and its name is the one shown
    turing = by_name["Alan M. Turing"]
    assert set(turing.spellings) == {"A. Turing", "Turing, A.", "Alan M. Turing"}
    assert [p.id for p in turing.papers] == ["alpha", "beta", "delta"]  # newest year first
    # "J. Smith" could be John or Jane: left alone
    assert {"J. Smith", "John Smith", "Jane Smith"} <= set(by_name)
    # the same name with two ORCIDs is two people, with distinct slugs
    chens = [a for a in build.catalog.authors if a.name == "Wei Chen"]
    assert len(chens) == 2 and len({a.slug for a in chens}) == 2
    assert {a.person.orcid for a in chens} == {"0000-0001-0000-0001", "0000-0001-0000-0002"}
    for author in build.catalog.authors:
        assert h1(out, urls.path_of(author)) == author.name


def test_name_rule():
    assert name_key("Tim Rocktäschel") == name_key("tim  ROCKTASCHEL") == ("tim", "rocktaschel")
    assert name_key("Kingma, D. P.") == ("d", "p", "kingma")
    assert name_key("van Beethoven, Ludwig") == name_key("Ludwig van Beethoven")
    assert name_key("Smith, Jr., John") == name_key("John Smith Jr.") == ("john", "smith")
    assert name_key("Søren Kierkegaard") == ("soren", "kierkegaard")


def paper(id, *names, year=2024, people=None):
    return Paper(id=id, slug=id, title=id, venue="v", year=year, abstract="", authors=names,
                 people=people or tuple(Person(n) for n in names))


def test_merging_is_deterministic_and_order_free():
    papers = [paper("a", "D. Kingma", "Ada Lovelace"), paper("b", "Diederik P. Kingma", "Lovelace, Ada"),
              paper("c", "Kingma, D.", "A. Lovelace", year=2020)]
    one = collect_people(papers)
    other = collect_people(papers[::-1])
    summary = lambda people: sorted((a.slug, a.name, a.spellings, sorted(p.id for p in a.papers))
                                    for a in people.authors)
    assert summary(one) == summary(other)
    assert [a.name for a in one.authors] == ["Diederik P. Kingma", "Ada Lovelace"]
    assert len(one.authors) == 2


def test_a_slug_that_would_collide_gets_a_stable_suffix():
    first = collect_people([paper("a", "Ada Lovelace"), paper("b", "Ada Lovelace!")])  # one person
    assert [a.slug for a in first.authors] == ["ada-lovelace"]
    orcid = lambda n: Person("Wei Chen", orcid=f"0000-0001-0000-000{n}")
    two = collect_people([paper("a", "Wei Chen", people=(orcid(1),)), paper("b", "Wei Chen", people=(orcid(2),))])
    slugs = sorted(a.slug for a in two.authors)
    assert slugs == ["wei-chen", "wei-chen-0002"]
    three = collect_people([paper("a", "Wei Chen", people=(orcid(1),)), paper("b", "Wei Chen", people=(orcid(2),)),
                            paper("c", "Wei Chen", people=(orcid(3),))])
    assert sorted(a.slug for a in three.authors) == ["wei-chen", "wei-chen-0002", "wei-chen-0003"]
    page = collect_people([paper("a", "Page")])
    assert page.authors[0].slug == "page-author"  # authors/page/2/ is the index's second page


# --- pages ------------------------------------------------------------------------------

def test_names_link_to_author_pages_everywhere(built):
    out, build = built
    for path in ("papers/alpha/", "papers/", "venues/icml-2024/", "topics/learning-theory/", "years/2024/"):
        links = author_links(out / urls.output_file(path))
        assert "/catalog/authors/tim-rocktaschel/" in links, path
        assert "/catalog/authors/alan-m-turing/" in links, path
    paper_page = main_text(out / "papers/beta/index.html")
    assert '<a href="/catalog/authors/diederik-p-kingma/">Diederik P. Kingma</a>' in paper_page
    # every link of every page resolves, fragments included
    base = build.catalog.config.base_path
    for html in sorted(out.rglob("*.html")):
        parsed = parse(html)
        for href in parsed.links:
            target = resolve(out, base, page_url(out, base, html), href)
            if target is None:
                continue
            assert target.is_file(), f"{html.relative_to(out)} -> {href}"
            fragment = href.partition("#")[2]
            if fragment:
                assert fragment in parse(target).ids, f"{html.relative_to(out)} -> {href}"


def test_author_page_lists_papers_by_year_with_details(built):
    out, _ = built
    html = main_text(out / "authors/alan-m-turing/index.html")
    years = re.findall(r'<h2 id="year-(\d+)">', html)
    assert years == ["2024", "2023", "2022"]
    assert re.findall(r'href="/catalog/papers/([^/]+)/"', html) == ["alpha", "beta", "delta"]
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in html
    assert 'href="https://example.org/turing"' in html
    assert "Bletchley &lt;Park&gt;" in html and "<Park>" not in html
    chen = main_text(out / "authors/wei-chen-0002/index.html")
    assert "Lab B" in chen


def test_authors_have_no_feed_of_their_own(built):
    """One feed per venue and topic and the catalog's: none per author (issue 36), and an author
    page links none (the catalog's is linked from the home page and listings)."""
    out, _ = built
    assert not list(out.glob("authors/**/feed.xml"))
    feeds = r'<link rel="alternate" type="application/atom\+xml"[^>]* href="([^"]+)"'
    assert re.findall(feeds, (out / "authors/alan-m-turing/index.html").read_text(encoding="utf-8")) == []
    assert re.findall(feeds, (out / "authors/index.html").read_text(encoding="utf-8")) == ["/catalog/feed.xml"]


def test_authors_index_a_to_z_with_counts(built):
    out, build = built
    html = main_text(out / "authors/index.html")
    listed = re.findall(r'<li><a href="/catalog/authors/([^/]+)/">([^<]+)</a> <span class="count">(\d+) papers?</span>',
                        html)
    assert [slug for slug, _, _ in listed] == [a.slug for a in build.catalog.authors]
    surnames = [name_key(name)[-1] for _, name, _ in listed]
    assert surnames == sorted(surnames)
    assert dict((slug, int(n)) for slug, _, n in listed)["alan-m-turing"] == 3
    letters = re.findall(r'<h2 id="letter-(.)">', html)
    assert letters == sorted(set(letters)) and "S" in letters and "K" in letters
    nav = parse(out / "authors/index.html").links
    assert "/catalog/authors/#letter-S" in nav
    assert '<a href="/catalog/authors/">Authors</a>' in (out / "index.html").read_text(encoding="utf-8")


def test_authors_index_is_paginated_with_jump_links_across_pages(site, tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "PAGE_SIZE", 3)
    names = ["Ada Able", "Bob Baker", "Cy Baker", "Di Cole", "Ed Dunn", "Flo Dunn", "Gus Eve"]
    site.write("content/icml-2024/many.md", "---\nid: m\ntitle: Many\nauthors: [" + ", ".join(names) +
               "]\nvenue: icml-2024\n---\nText.\n")
    build, _ = site.build(tmp_path / "out")
    out = tmp_path / "out"
    shown = []
    for path in ("authors/", "authors/page/2/", "authors/page/3/"):
        shown += [link.split("/")[-2] for link in author_links(out / urls.output_file(path))]
    assert shown == [a.slug for a in build.catalog.authors]
    assert len(shown) == 7 and not (out / "authors/page/4/index.html").exists()
    jump = dict(re.findall(r'<li><a href="(/catalog/authors/[^"]*#letter-(.))">', main_text(out / "authors/page/3/index.html")))
    assert {letter: href for href, letter in jump.items()}["E"] == "/catalog/authors/page/3/#letter-E"
    assert {letter: href for href, letter in jump.items()}["A"] == "/catalog/authors/#letter-A"


def test_year_pages_for_a_catalog_that_spans_years(built):
    out, build = built
    assert build.catalog.years == (2024, 2023, 2022, 2021)
    for year in build.catalog.years:
        assert h1(out, f"years/{year}/") == str(year)
    years_index = main_text(out / "years/index.html")
    assert re.findall(r'href="/catalog/years/(\d+)/"', years_index) == ["2024", "2023", "2022", "2021"]
    home = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="/catalog/years/2023/"' in home and 'href="/catalog/years/"' in home
    jmlr_2022 = main_text(out / "years/2022/index.html")
    assert '<a href="/catalog/venues/jmlr/">JMLR</a>' in jmlr_2022 and "/catalog/papers/delta/" in jmlr_2022
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    for path in ("authors/", "authors/alan-m-turing/", "years/", "years/2021/"):
        assert f"<loc>https://example.org/catalog/{path}</loc>" in sitemap


def test_one_year_catalog_has_no_year_pages(site, tmp_path):
    site.paper("one")
    build, _ = site.build(tmp_path / "out")
    out = tmp_path / "out"
    assert not (out / "years").exists()
    assert "/catalog/years/" not in (out / "index.html").read_text(encoding="utf-8")
    assert (out / "authors/ada-lovelace/index.html").is_file()  # TinySite papers are by Ada Lovelace


def test_status_badge_is_escaped_on_paper_pages_and_listings(built):
    out, _ = built
    for path in ("papers/alpha/index.html", "papers/index.html", "authors/alan-m-turing/index.html"):
        html = (out / path).read_text(encoding="utf-8")
        assert '<span class="status-badge">&lt;script&gt;alert(1)&lt;/script&gt; oral</span>' in html, path
        assert "<script>alert" not in html
    assert '<span class="status-badge">spotlight</span>' in (out / "papers/gamma/index.html").read_text("utf-8")
    assert "status-badge" not in main_text(out / "papers/beta/index.html")


# --- search -----------------------------------------------------------------------------

def test_search_finds_authors_and_results_carry_links(built):
    out, build = built
    files = build.files
    # accented names are indexed without their accents too (search.js also drops a query's: browser tests)
    assert set(search(files, "rocktaschel")) == {"alpha", "beta"}
    assert search(files, "rocktäschel") == ["alpha"]
    assert set(search(files, "authors:kingma")) == {"alpha", "beta"}
    assert search(files, "jane") == ["gamma"]
    lunr = json.loads(files[urls.SEARCH_INDEX])["lunr"]
    assert dict(zip(lunr["fields"], lunr["boosts"]))["authors"] == 3
    facets = json.loads(files[urls.SEARCH_DOCS])
    records = {}
    for name, data in files.items():
        if name.startswith("search/d/"):
            records.update({r[1]: read_record(r, facets) for r in json.loads(data).values()})
    assert records["beta"]["authors"] == [["Tim Rocktaschel", "/catalog/authors/tim-rocktaschel/"],
                                          ["Diederik P. Kingma", "/catalog/authors/diederik-p-kingma/"],
                                          ["Turing, A.", "/catalog/authors/alan-m-turing/"],
                                          ["John Smith", "/catalog/authors/john-smith/"]]
    for record in records.values():
        for _, link in record["authors"]:
            assert resolve(out, "/catalog/", "http://site.test/catalog/search/", link).is_file()
    number = {r[1]: int(ref) for name, data in files.items() if name.startswith("search/d/")
              for ref, r in json.loads(data).items()}
    years = [y for y, n in facets["years"] for _ in range(n)]
    statuses = [s for s, n in facets["statuses"] for _ in range(n)]
    assert years[number["delta"]] == 2022 and years[number["alpha"]] == 2024
    assert statuses[number["gamma"]] == "spotlight" and statuses[number["beta"]] == ""


def test_an_author_name_outranks_the_same_word_in_an_abstract(site, tmp_path):
    site.write("content/icml-2024/by.md", "---\nid: by\ntitle: Zeta\nauthors: [Grace Hopper]\n"
               "venue: icml-2024\n---\nAbout compilers.\n")
    site.write("content/icml-2024/about.md", "---\nid: about\ntitle: Eta\nauthors: [Ada Lovelace]\n"
               "venue: icml-2024\n---\nHopper wrote about hopper compilers.\n")
    build, _ = site.build(tmp_path / "out")
    assert search(build.files, "hopper") == ["by", "about"]


def test_many_authors_are_shortened_in_listings_and_results(site, tmp_path):
    names = [f"Person{i} Name{i}" for i in range(14)]
    site.write("content/icml-2024/big.md", "---\nid: big\ntitle: Big\nauthors: [" + ", ".join(names) +
               "]\nvenue: icml-2024\n---\nText.\n")
    build, _ = site.build(tmp_path / "out")
    out = tmp_path / "out"
    listing = main_text(out / "papers/index.html")
    assert listing.count('<a href="/catalog/authors/') == 10 and " and 4 more" in listing
    assert main_text(out / "papers/big/index.html").count('<a href="/catalog/authors/') == 14
    record = read_record(json.loads(build.files["search/d/0.json"])["0"], json.loads(build.files[urls.SEARCH_DOCS]))
    assert len(record["authors"]) == 10 and record["more"] == 4


def test_an_author_page_always_shows_its_own_author(site, tmp_path):
    """On Person12's page their paper's list of fourteen names keeps Person12 in view."""
    names = [f"Person{i} Name{i}" for i in range(14)]
    site.write("content/icml-2024/big.md", "---\nid: big\ntitle: Big\nauthors: [" + ", ".join(names) +
               "]\nvenue: icml-2024\n---\nText.\n")
    site.build(tmp_path / "out")
    out = tmp_path / "out"
    own = main_text(out / "authors/person12-name12/index.html")
    # the page's own author as text, not a link to the page itself (as DBLP shows it)
    names_shown = re.findall(r'<a href="/catalog/authors/[^"]+">([^<]+)</a>', own)
    assert names_shown == names[:9]
    assert "Person8 Name8</a>, …, Person12 Name12 and 4 more" in own
    early = main_text(out / "authors/person3-name3/index.html")  # among the first ten: the list as everywhere
    assert re.findall(r'<a href="/catalog/authors/[^"]+">([^<]+)</a>', early) == names[:3] + names[4:10]
    assert "Person2 Name2</a>, Person3 Name3, <a " in early and "…" not in early
    listing = main_text(out / "papers/index.html")  # no author's own page: the first ten
    assert re.findall(r'<a href="/catalog/authors/[^"]+">([^<]+)</a>', listing) == names[:10]


def test_names_under_no_letter_get_a_valid_jump_link(site, tmp_path):
    site.write("content/icml-2024/odd.md", "---\nid: odd\ntitle: Odd\nauthors: ['Team 42', Ada Able]\n"
                                          "venue: icml-2024\n---\nText.\n")
    site.build(tmp_path / "out")
    html = main_text(tmp_path / "out" / "authors/index.html")
    assert '<h2 id="letter-other">#</h2>' in html
    assert 'href="/catalog/authors/#letter-other">#</a>' in html
    assert "#letter-#" not in html


@pytest.mark.skipif(shutil.which("java") is None, reason="vnu needs Java (CI has Java 17)")
def test_new_page_kinds_are_valid_html(built):
    out, _ = built
    assert VNU.is_file(), "vnu.jar is missing: run 'npm ci'"
    files = [str(out / path) for path in ("index.html", "papers/alpha/index.html", "authors/index.html",
                                          "authors/alan-m-turing/index.html", "years/index.html",
                                          "years/2022/index.html")]
    result = subprocess.run(["java", "-jar", str(VNU), "--errors-only", "--format", "json", "--stdout", *files],
                            capture_output=True, text=True, timeout=300)
    messages = json.loads(result.stdout)["messages"]
    assert [f"{m.get('url', '').split(str(out))[-1]}:{m.get('lastLine')}: {m['message']}" for m in messages] == []


def test_an_author_page_offers_the_bibtex_of_their_papers(tmp_path):
    from tests.conftest import TinySite, paper_text
    import bibtexparser
    site = TinySite(tmp_path / "site")
    site.write("content/icml-2024/one.md", paper_text(id="a", title="First Paper").replace(
        "[Ada Lovelace]", "[Ada Lovelace, Alan Turing]"))
    site.write("content/icml-2024/two.md", paper_text(id="b", title="Second Paper").replace(
        "[Ada Lovelace]", "[Alan Turing, Grace Hopper]"))
    out = tmp_path / "out"
    site.build(out)

    def bib_titles(path):
        name, text = listing_download(out, f"authors/{path}/")
        return name, [entry["title"] for entry in bibtexparser.parse_string(text.decode("utf-8")).entries]

    # made in the browser, named as the files were: papers.bib, or cite.bib (a paper's) for one paper
    assert bib_titles("alan-turing") == ("papers.bib", ["{First Paper}", "{Second Paper}"])
    assert bib_titles("ada-lovelace") == ("cite.bib", ["{First Paper}"])
    assert bib_titles("grace-hopper") == ("cite.bib", ["{Second Paper}"])
    assert not list(out.glob("authors/*/*.bib")) and not list(out.glob("papers/*/cite.*"))


def test_a_name_shown_without_a_link_is_escaped_too():
    """A byline's name with no page to link (or on its own page) is text, escaped like a linked one."""
    from papersite.site.render import _author_links
    hostile = "<script>alert(1)</script> & Co"
    html = _author_links(lambda path: "/" + path, [(hostile, None), ("Ada", "authors/ada/"), (hostile, "authors/x/")],
                         None, keep="authors/x/")
    assert "<script>" not in html
    assert html == ("&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co, <a href=\"/authors/ada/\">Ada</a>, "
                    "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co")
