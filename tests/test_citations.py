"""Citations as a reference manager reads them: every .bib parsed back with bibtexparser 2,
every RIS download with rispy, every CSL-JSON download with json against the CSL schema's
types, and the Scholar tags and JSON-LD of paper pages; built from real sites on disk. The
downloads made in the browser are read as tests/downloads.py makes them, and checked against
the reference writers (papersite/site/citations.py) byte for byte."""
from __future__ import annotations

import json
import re
from collections import Counter

import bibtexparser
import html5lib
import pytest
import rispy
import yaml
from bibtexparser import middlewares
from pylatexenc import latex2text

from papersite.catalog.bibtex import bibtex_entry, bibtex_file
from papersite.site.citations import _one_line, _ris_text, csl_item, csl_json, ris
from tests.conftest import MINIMAL_CONFIG, TinySite
from tests.downloads import cite_data, listing_download, paper_download
from tests.json_ld_theme import add_json_ld
from tests.test_bad_input import build_fails, build_ok

VENUES = """\
  - slug: jmlr
    name: JMLR
    kind: journal
    full_name: Journal of Machine Learning Research
  - slug: arxiv
    name: arXiv
    kind: preprint
  - slug: tml-2024
    name: TML Workshop 2024
    kind: workshop
    year: 2024
    full_name: Workshop on Theory of Machine Learning
"""

# (file name, front matter): titles and names a .bib must carry exactly.
PAPERS = {
    "specials": {
        "id": "specials", "title": "Sharp & Fast: 50% of #1 Models_v2 ~ {Really} Work^2 \\ Both",
        "authors": ["Ludwig van Beethoven", "Martin Luther King Jr.", "Jean de La Fontaine"],
        "venue": "icml-2024", "date": "2024-07-21",
        "links": {"doi": "10.1234/ab_c.5%", "url": "https://example.org/a_b?x=1&y=2#top"}},
    "math": {
        "id": "math", "title": "Regret $\\mathcal{O}(T^{2/3})$ for $k$-Means: A { Brace and Théorie Über Café",
        "authors": ["OpenAI", "The ATLAS Collaboration", "Jörg Müller", "van der Berg, Anna"],
        "venue": "jmlr", "year": 2021, "links": {"arxiv": "2402.07207v2"}},
    "preprint": {
        "id": "preprint", "title": "Naïve Preprints at Scale",
        "authors": ["Bill and Melinda Gates Foundation", "Ada Lovelace"],
        "venue": "arxiv", "date": "2023-03", "links": {"arxiv": "2303.01234"},
        "extra": {"primary_class": "cs.LG"}},
    "workshop": {
        "id": "workshop", "title": "A Workshop Paper on $x^2$ Costs", "authors": ["Grace Hopper"],
        "venue": "tml-2024",
        # a formula, whose text on the page is not the abstract's: the page's #cite-data carries it
        "abstract": "Costs grow as $x^2$ with *n* &lt; 3."},
    "hostile": {
        "id": "hostile", "venue": "icml-2024",
        "title": 'Evil </script> "} @comment{ \\input{/etc/passwd} $\\input{/etc/passwd}$ %',
        "authors": ['Mallory "} @comment{', "Eve \\input{/etc/passwd}"]},
}

# What bibtexparser's SplitNameParts must find: (first, von, last, jr); one string for an organisation.
NAMES = {
    "Ludwig van Beethoven": ("Ludwig", "van", "Beethoven", ""),
    "Martin Luther King Jr.": ("Martin Luther", "", "King", "Jr."),
    "Jean de La Fontaine": ("Jean", "de", "La Fontaine", ""),
    "OpenAI": "OpenAI",
    "The ATLAS Collaboration": "The ATLAS Collaboration",
    "Jörg Müller": ("Jörg", "", "Müller", ""),
    "van der Berg, Anna": ("Anna", "van der", "Berg", ""),
    "Bill and Melinda Gates Foundation": "Bill and Melinda Gates Foundation",
    "Ada Lovelace": ("Ada", "", "Lovelace", ""),
    "Grace Hopper": ("Grace", "", "Hopper", ""),
    'Mallory "} @comment{': 'Mallory "} @comment{',  # braces make a name a literal: never split
    "Eve \\input{/etc/passwd}": "Eve \\input{/etc/passwd}",
}


def write_site(root, papers=PAPERS, config=MINIMAL_CONFIG + VENUES) -> TinySite:
    site = TinySite(root)
    site.write("site.yaml", config)
    for name, data in papers.items():
        data = dict(data)
        abstract = data.pop("abstract", "An abstract.")
        site.write(f"content/{data['venue']}/{name}.md", "---\n" + yaml.safe_dump(
            {"topics": ["learning-theory"], **data}, allow_unicode=True, sort_keys=False) + f"---\n{abstract}\n")
    return site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    site = write_site(tmp_path_factory.mktemp("citations") / "site")
    add_json_ld(site.root)
    build, _ = site.build()
    return site.root / "_site", build


def decoder() -> latex2text.LatexNodes2Text:
    """pylatexenc with LaTeX's meaning of the macros the writer uses for a lone brace and a caret."""
    context = latex2text.get_default_latex_context_db()
    context.add_context_category("papersite-test", prepend=True, macros=[
        latex2text.MacroTextSpec("textbraceleft", simplify_repl="{"),
        latex2text.MacroTextSpec("textbraceright", simplify_repl="}"),
        latex2text.MacroTextSpec("textasciicircum", simplify_repl="^"),
    ])
    return latex2text.LatexNodes2Text(latex_context=context, math_mode="verbatim")


DECODE = decoder()


def parse_bib(text: str) -> dict[str, dict]:
    """key -> {field: raw value (outer braces removed), 'ENTRYTYPE', 'author' as NameParts}."""
    library = bibtexparser.parse_string(text, append_middleware=[
        middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()])
    assert library.failed_blocks == [] and library.comments == [] and library.strings == [] \
        and library.preambles == [], "the file holds something besides entries"
    assert len(library.entries) == text.count("\n@") + text.startswith("@")
    entries = {}
    for entry in library.entries:
        assert entry.key not in entries
        assert bibtex_balanced(entry.raw), entry.raw
        entries[entry.key] = {"ENTRYTYPE": entry.entry_type, **{f.key: f.value for f in entry.fields}}
    return entries


def bibtex_balanced(raw: str) -> bool:
    """As BibTeX itself reads an entry: it counts every brace, escaped ones too (bibtexparser does not)."""
    depth = 0
    for char in raw:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def decoded(value: str) -> str:
    return DECODE.latex_to_text(value).strip()


def name_of(parts) -> tuple | str:
    if not parts.first and not parts.von and not parts.jr and len(parts.last) == 1 \
            and parts.last[0].startswith("{"):
        return decoded(parts.last[0][1:-1])
    return tuple(decoded(" ".join(p)) for p in (parts.first, parts.von, parts.last, parts.jr))


def bib_text(out, path="papers/") -> str:
    """A .bib download: a venue's file ('venues/x/papers.bib'), or what a listing page offers
    ('papers/', the whole catalog's; 'topics/x/', 'authors/y/'), made as the browser makes it."""
    if path.endswith(".bib"):
        return (out / path).read_text(encoding="utf-8")
    return listing_download(out, path)[1].decode("utf-8")


def bib_entries(out, path="papers/") -> dict[str, dict]:
    return parse_bib(bib_text(out, path))


def ris_text(out, slug) -> str:
    return paper_download(out, slug, "ris").decode("utf-8")


def csl_text(out, slug) -> str:
    return paper_download(out, slug, "json").decode("utf-8")


def by_id(build) -> dict:
    return {p.id: p for p in build.catalog.papers}


# --- BibTeX -------------------------------------------------------------------------------------

def test_every_field_round_trips_through_bibtexparser(built):
    out, build = built
    entries = bib_entries(out)
    keys = build.catalog.citation_keys
    assert set(entries) == set(keys.values())
    for paper_id, data in PAPERS.items():
        entry = entries[keys[paper_id]]
        assert decoded(entry["title"]) == data["title"], paper_id
        assert [name_of(parts) for parts in entry["author"]] == [NAMES[name] for name in data["authors"]], paper_id
        paper = by_id(build)[paper_id]
        assert entry["year"] == str(paper.year)
    specials, math, preprint = (entries[keys[i]] for i in ("specials", "math", "preprint"))
    assert specials["ENTRYTYPE"] == "inproceedings"
    assert specials["booktitle"] == "International Conference on Machine Learning"
    assert specials["month"] == "jul"  # a macro: bibtexparser keeps its name
    assert specials["doi"] == "10.1234/ab_c.5%" and specials["url"] == PAPERS["specials"]["links"]["url"]
    assert math["ENTRYTYPE"] == "article" and math["journal"] == "Journal of Machine Learning Research"
    assert "booktitle" not in math and (math["eprint"], math["archivePrefix"]) == ("2402.07207", "arXiv")
    assert math["url"] == "https://example.org/catalog/papers/math/"  # the paper's page when it has no url
    assert preprint["ENTRYTYPE"] == "misc" and "journal" not in preprint and "booktitle" not in preprint
    assert (preprint["eprint"], preprint["archivePrefix"], preprint["primaryClass"]) == ("2303.01234", "arXiv", "cs.LG")
    assert entries[keys["workshop"]]["booktitle"] == "Workshop on Theory of Machine Learning"


def test_hostile_strings_stay_inside_their_entry(built):
    out, build = built
    text = bib_text(out)
    entry = bib_entries(out)[build.catalog.citation_keys["hostile"]]
    assert set(entry) == {"ENTRYTYPE", "title", "author", "booktitle", "year", "url"}
    assert len(entry["author"]) == 2
    assert "\\input" not in text.replace("\\textbackslash{}input", "")  # no TeX command reaches LaTeX
    assert re.findall(r"^@", text, re.M) == ["@"] * len(PAPERS)  # '@comment{' starts nothing
    # the same entry as the page shows, and one .bib for each listing
    page = html5lib.parse((out / "papers/hostile/index.html").read_bytes(), namespaceHTMLElements=False)
    shown = "".join(page.find(".//pre[@id='bibtex']").itertext())
    assert shown in text


def test_listings_have_their_own_bib_linked_from_their_pages(built):
    out, build = built
    catalog = build.catalog
    keys = catalog.citation_keys
    for venue in catalog.venues:
        assert list(bib_entries(out, f"venues/{venue.slug}/papers.bib")) == \
            [keys[p.id] for p in catalog.venue_papers[venue.slug]]
        assert 'href="/catalog/venues/%s/papers.bib"' % venue.slug in \
            (out / f"venues/{venue.slug}/index.html").read_text()
    for topic in catalog.topics:
        assert list(bib_entries(out, f"topics/{topic.slug}/")) == [keys[p.id] for p in catalog.topic_papers[topic.slug]]
    assert list(bib_entries(out)) == [keys[p.id] for p in catalog.papers]
    for author in catalog.authors:
        assert list(bib_entries(out, f"authors/{author.slug}/")) == [keys[p.id] for p in author.papers]
    page = (out / "papers/specials/index.html").read_text()
    assert 'id="cite-data"' in page  # site.js makes the RIS and CSL-JSON buttons from it
    # no citation file but the venues' .bib: the rest is made in the browser
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.bib")) == \
        sorted(f"venues/{venue.slug}/papers.bib" for venue in catalog.venues)
    assert not list(out.rglob("cite.*")) and not list(out.glob("authors/*/feed.xml"))


def test_downloads_are_the_bytes_of_the_reference_writers(built):
    """What a reader downloads (RIS, CSL-JSON; a topic's, an author's, the catalog's .bib) is byte
    for byte what the Python writers give, which wrote these files before the browser made them."""
    out, build = built
    catalog = build.catalog
    link = "https://example.org/catalog/"
    venues = {venue.slug: venue for venue in catalog.config.venues}
    entry = {p.id: bibtex_entry(p, venues[p.venue], f"{link}papers/{p.slug}/", catalog.citation_keys[p.id]).encode()
             for p in catalog.papers}
    forms = Counter()
    for paper in catalog.papers:
        inputs = (paper, venues[paper.venue], catalog.citation_keys[paper.id], abstract_text(out, paper),
                  tuple(map(catalog.topic, paper.topics)), f"{link}papers/{paper.slug}/")
        assert paper_download(out, paper.slug, "ris") == ris(*inputs), paper.id
        assert paper_download(out, paper.slug, "json") == csl_json(*inputs), paper.id
        # the page carries the title, URL and abstract at most once, and not where it shows them as they read
        data, item = cite_data(out, paper.slug), csl_item(*inputs)
        held = list(strings(data))
        for name in ("title", "URL", "abstract"):
            if name in item:
                carried = sum(item[name] in text for text in held)
                assert carried <= 1, (paper.id, name)
                forms[name, carried] += 1
        forms["ris", bool(data.get("ris"))] += 1
    # each way a download is made is exercised: read from the page or carried
    assert all(forms[name, way] for name in ("title", "abstract", "ris") for way in (0, 1)), forms
    listings = [("papers/", "papers.bib", catalog.papers)]
    listings += [(f"topics/{t.slug}/", "papers.bib", catalog.topic_papers[t.slug]) for t in catalog.topics]
    listings += [(f"authors/{a.slug}/", "cite.bib" if len(a.papers) == 1 else "papers.bib", a.papers)
                 for a in catalog.authors]
    for path, name, papers in listings:
        assert listing_download(out, path) == (name, bibtex_file([entry[p.id] for p in papers])), path


def strings(value):
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def abstract_text(out, paper) -> str:
    """The abstract as the citation formats carry it (Abstract.text), from the paper's source."""
    from papersite.text.abstracts import abstract_of
    return abstract_of(paper.abstract).text


COLLIDING = {
    # four papers with one base key (Smith, 2024, "deep"); ids and import days decide their suffixes
    "s1": {"id": "s1", "title": "Deep Nets", "authors": ["Ann Smith"], "added": "2024-05-01"},
    "s2": {"id": "s2", "title": "The Deep Sets", "authors": ["Bob Smith"], "added": "2024-05-01"},
    "s3": {"id": "s3", "title": "On Deep Kernels", "authors": ["Smith, Carl"], "added": "2024-04-01"},
    "s4": {"id": "s4", "title": "Deep Smith", "authors": ["Dana Smith"]},
    "hand": {"id": "hand", "title": "Anything", "authors": ["Eve Smith"], "bibtex_key": "smith2024deepb"},
    "upper": {"id": "upper", "title": "Other", "authors": ["Fay Jones"], "bibtex_key": "Jones2024Other"},
    "jones": {"id": "jones", "title": "Other Things", "authors": ["Gil Jones"]},
    "nobody": {"id": "nobody", "title": "$x$ and the", "authors": []},
}


def colliding_site(root, papers):
    return write_site(root, {name: {"venue": "icml-2024", **data} for name, data in papers.items()}, MINIMAL_CONFIG)


def test_keys_are_unique_hand_set_ones_win_and_suffixes_follow_import_order(tmp_path):
    site = colliding_site(tmp_path / "a", COLLIDING)
    build, _ = site.build()
    keys = build.catalog.citation_keys
    entries = bib_entries(site.root / "_site")
    assert len({key.casefold() for key in entries}) == len(COLLIDING)
    assert keys["hand"] == "smith2024deepb" and keys["upper"] == "Jones2024Other"
    # without `added` first (s4), then by day (s3), then by id (s1, s2); 'b' is taken by hand
    assert [keys[i] for i in ("s4", "s3", "s1", "s2")] == ["smith2024deep", "smith2024deepc", "smith2024deepd",
                                                            "smith2024deepe"]
    assert keys["jones"] == "jones2024otherb"  # 'jones2024other' is Jones2024Other to BibTeX
    assert keys["nobody"] == "icml2024paper"

    # an import adds a colliding paper and an unrelated one: no older key changes
    more = {**COLLIDING, "s5": {"id": "a0", "title": "Deep Again", "authors": ["Hal Smith"], "added": "2024-06-01"},
            "z": {"id": "z", "title": "Unrelated", "authors": ["Ivy Stone"], "added": "2024-06-01"}}
    again, _ = colliding_site(tmp_path / "b", more).build()
    assert {i: k for i, k in again.catalog.citation_keys.items() if i in keys} == keys
    assert again.catalog.citation_keys["a0"] == "smith2024deepf"


def test_two_papers_with_one_hand_set_key_are_an_error_naming_both(tmp_path):
    papers = {"one": {"id": "one", "title": "One", "bibtex_key": "same2024"},
              "two": {"id": "two", "title": "Two", "bibtex_key": "Same2024"}}
    site = colliding_site(tmp_path / "site", papers)
    [(path, line, message)] = build_fails(site)
    line_of_key = (site.root / "content/icml-2024/two.md").read_text().split("\n").index("bibtex_key: Same2024") + 1
    assert (path, line) == ("content/icml-2024/two.md", line_of_key)
    assert message == f"duplicate bibtex_key 'Same2024': also used by content/icml-2024/one.md:{line_of_key}"


# --- RIS and CSL-JSON ---------------------------------------------------------------------------

def test_ris_round_trips_through_rispy(built):
    out, build = built
    kinds = {"specials": "CPAPER", "math": "JOUR", "preprint": "UNPB", "workshop": "CPAPER", "hostile": "CPAPER"}
    for paper_id, data in PAPERS.items():
        paper = by_id(build)[paper_id]
        text = ris_text(out, paper.slug)
        [reference] = rispy.loads(text)
        assert reference["type_of_reference"] == kinds[paper_id]
        assert reference["title"] == data["title"]
        assert reference["year"] == str(paper.year)
        assert reference["id"] == build.catalog.citation_keys[paper_id]
        assert reference["abstract"] == ("Costs grow as x^2 with n < 3." if paper_id == "workshop" else "An abstract.")
        assert reference["keywords"] == ["Learning Theory"]
        assert len(reference["authors"]) == len(data["authors"])
    specials = rispy.loads(ris_text(out, "specials"))[0]
    assert specials["authors"] == ["van Beethoven, Ludwig", "King, Martin Luther, Jr.", "de La Fontaine, Jean"]
    assert specials["date"] == "2024/07/21/" and specials["doi"] == "10.1234/ab_c.5%"
    assert specials["urls"] == [PAPERS["specials"]["links"]["url"]]
    assert specials["secondary_title"] == "International Conference on Machine Learning"
    math = rispy.loads(ris_text(out, "math"))[0]
    assert math["authors"][:2] == ["OpenAI", "The ATLAS Collaboration"]


def test_the_pages_ris_is_what_rispy_writes(tmp_path, built, issued):
    """citation_data writes the RIS itself (_ris_text), faster than rispy: the same text, for
    papers of every kind, with and without a date, pages, a publisher, a DOI or a PDF."""
    printed = write_site(tmp_path / "site", {**PRINTED, "pdf": {
        "id": "pdf", "title": "A Paper With a PDF", "authors": ["Ada Lovelace"], "venue": "arxiv",
        "date": "2023-03-04", "links": {"pdf": "https://example.org/a.pdf", "doi": "10.1234/x"}}})
    builds = [built[1], issued[1], printed.build()[0]]
    for build in builds:
        catalog = build.catalog
        venues = {venue.slug: venue for venue in catalog.config.venues}
        for paper in catalog.papers:
            inputs = (paper, venues[paper.venue], catalog.citation_keys[paper.id], abstract_text(None, paper),
                      tuple(map(catalog.topic, paper.topics)), f"https://example.org/papers/{paper.slug}/")
            assert _ris_text(*inputs).encode("utf-8") == ris(*inputs), paper.id
    assert sum(len(build.catalog.papers) for build in builds) > 15


def test_a_newline_in_a_field_cannot_start_a_ris_tag(tmp_path):
    title = "Line one\nER  - \nTY  - JOUR\nTI  - Injected"
    site = write_site(tmp_path / "site", {"nl": {"id": "nl", "title": title, "venue": "icml-2024",
                                                 "authors": ["Ada\nAU  - Mallory"]}}, MINIMAL_CONFIG)
    site.build()
    [reference] = rispy.loads(ris_text(site.root / "_site", "nl"))
    assert reference["title"] == " ".join(title.split())
    assert reference["authors"] == ["Mallory, Ada AU -"]  # one name, whitespace collapsed


# The CSL-JSON schema (csl-data.json, CSL 1.0.2) for the fields written.
CSL_STRING_FIELDS = {"citation-key", "title", "container-title", "publisher", "DOI", "URL", "abstract", "keyword",
                     "number", "volume", "issue", "page"}
CSL_NAME_KEYS = {"family", "given", "dropping-particle", "non-dropping-particle", "suffix", "comma-suffix",
                 "static-ordering", "literal", "parse-names"}
CSL_TYPES = {"article", "article-journal", "paper-conference", "thesis", "report", "book", "chapter"}  # of the schema's "type" enum


def check_csl_item(item: dict) -> None:
    assert isinstance(item["id"], (str, int)) and item["type"] in CSL_TYPES
    assert set(item) <= CSL_STRING_FIELDS | {"id", "type", "author", "issued"}
    for name in CSL_STRING_FIELDS & set(item):
        assert isinstance(item[name], (str, int)) and item[name] != ""
    for person in item.get("author", []):
        assert set(person) <= CSL_NAME_KEYS and all(isinstance(v, str) and v for v in person.values())
        assert "literal" in person or "family" in person
    parts = item["issued"]["date-parts"]
    assert set(item["issued"]) == {"date-parts"} and 1 <= len(parts) <= 2
    assert all(1 <= len(p) <= 3 and all(isinstance(n, int) for n in p) for p in parts)


def test_csl_json_follows_the_schema(built):
    out, build = built
    items = {}
    for paper_id in PAPERS:
        data = json.loads(csl_text(out, by_id(build)[paper_id].slug))
        assert isinstance(data, list) and len(data) == 1
        check_csl_item(data[0])
        items[paper_id] = data[0]
        assert data[0]["title"] == PAPERS[paper_id]["title"]
        assert data[0]["citation-key"] == build.catalog.citation_keys[paper_id]
    assert items["specials"]["type"] == "paper-conference" and items["specials"]["issued"] == {"date-parts": [[2024, 7, 21]]}
    assert items["specials"]["author"][0] == {"given": "Ludwig", "non-dropping-particle": "van", "family": "Beethoven"}
    assert items["specials"]["author"][1] == {"given": "Martin Luther", "family": "King", "suffix": "Jr."}
    assert items["specials"]["DOI"] == "10.1234/ab_c.5%"
    assert items["math"]["type"] == "article-journal"
    assert items["math"]["container-title"] == "Journal of Machine Learning Research"
    assert items["math"]["author"][:2] == [{"literal": "OpenAI"}, {"literal": "The ATLAS Collaboration"}]
    assert items["preprint"]["type"] == "article" and items["preprint"]["number"] == "arXiv:2303.01234"
    assert items["preprint"]["issued"] == {"date-parts": [[2023, 3]]} and "container-title" not in items["preprint"]


# --- where a paper appeared: volume, issue, pages, publisher ----------------------------------

# extra: as each importer keeps the fields (BibTeX, CSL-JSON, RIS), and values no format may carry
PRINTED = {
    "journal": {"id": "journal", "title": "A Journal Paper", "authors": ["Ada Lovelace"], "venue": "jmlr",
                "year": 2023, "extra": {"volume": 24, "number": "3", "pages": "12–34", "publisher": "Microtome & Sons"}},
    "proceedings": {"id": "proceedings", "title": "A Proceedings Paper", "authors": ["Alan Turing"],
                    "venue": "icml-2024", "extra": {"volume": "235", "number": "7", "page": "e1001", "publisher": "PMLR"}},
    "ris": {"id": "ris", "title": "A RIS Paper", "authors": ["Grace Hopper"], "venue": "jmlr", "year": 2022,
            "extra": {"start_page": "3", "end_page": "9", "number": "2"}},
    "unusable": {"id": "unusable", "title": "An Odd Paper", "authors": ["Kurt Gödel"], "venue": "jmlr", "year": 2022,
                 "extra": {"volume": ["1"], "pages": True, "publisher": "x" * 200, "issue": {"a": 1}}},
    "hostile": {"id": "hostile", "title": "A Hostile Paper", "authors": ["Eve"], "venue": "jmlr", "year": 2022,
                "extra": {"volume": '} @comment{ \\input{/etc/passwd}', "publisher": '"><b id=x>bold</b>'}},
}


def test_volume_issue_pages_and_publisher_reach_every_format_and_the_page(tmp_path):
    site = write_site(tmp_path / "site", PRINTED)
    build, _ = site.build()
    out, keys = site.root / "_site", build.catalog.citation_keys
    entries = bib_entries(out)
    assert {f: entries[keys["journal"]][f] for f in ("volume", "number", "pages")} == \
        {"volume": "24", "number": "3", "pages": "12--34"}
    assert decoded(entries[keys["journal"]]["publisher"]) == "Microtome & Sons"
    proceedings = entries[keys["proceedings"]]
    assert (proceedings["volume"], proceedings["pages"], proceedings["publisher"]) == ("235", "e1001", "PMLR")
    assert "number" not in proceedings  # a proceedings' number is its series', not an issue
    assert (entries[keys["ris"]]["pages"], entries[keys["ris"]]["number"]) == ("3--9", "2")
    assert not {"volume", "number", "pages", "publisher"} & set(entries[keys["unusable"]])
    assert decoded(entries[keys["hostile"]]["volume"]) == PRINTED["hostile"]["extra"]["volume"]

    def ris_of(paper_id):
        return rispy.loads(ris_text(out, paper_id))[0]
    journal = ris_of("journal")
    assert {f: journal[f] for f in ("volume", "number", "start_page", "end_page", "publisher")} == \
        {"volume": "24", "number": "3", "start_page": "12", "end_page": "34", "publisher": "Microtome & Sons"}
    assert "end_page" not in ris_of("proceedings") and ris_of("proceedings")["start_page"] == "e1001"
    assert not {"volume", "number", "start_page", "publisher"} & set(ris_of("unusable"))

    def csl_of(paper_id):
        [item] = json.loads(csl_text(out, paper_id))
        check_csl_item(item)
        return item
    assert {f: csl_of("journal")[f] for f in ("volume", "issue", "page", "publisher")} == \
        {"volume": "24", "issue": "3", "page": "12-34", "publisher": "Microtome & Sons"}
    assert csl_of("ris")["page"] == "3-9" and "issue" not in csl_of("proceedings")

    tags = dict(meta_tags(out, "journal"))
    assert {n: tags[n] for n in ("citation_volume", "citation_issue", "citation_firstpage", "citation_lastpage",
                                 "citation_publisher")} == {"citation_volume": "24", "citation_issue": "3",
                                                            "citation_firstpage": "12", "citation_lastpage": "34",
                                                            "citation_publisher": "Microtome & Sons"}
    assert "citation_lastpage" not in dict(meta_tags(out, "proceedings"))
    assert not [n for n, _ in meta_tags(out, "unusable") if n in ("citation_volume", "citation_firstpage")]

    def meta_line(paper_id):
        page = html5lib.parse((out / f"papers/{paper_id}/index.html").read_bytes(), namespaceHTMLElements=False)
        [line] = [p for p in page.iter("p") if p.get("class") == "paper-meta"]
        assert line.find(".//b") is None  # content is text, never markup
        return " ".join("".join(line.itertext()).split())
    assert meta_line("journal") == "Journal of Machine Learning Research, vol. 24, no. 3, pp. 12–34 · 2023"
    assert meta_line("proceedings") == "International Conference on Machine Learning, vol. 235, p. e1001 · 2024"
    assert meta_line("unusable") == "Journal of Machine Learning Research · 2022"
    assert meta_line("hostile").startswith("Journal of Machine Learning Research, vol. } @comment{")


# --- Scholar tags and JSON-LD -------------------------------------------------------------------

def meta_tags(out, slug) -> list[tuple[str, str]]:
    page = html5lib.parse((out / f"papers/{slug}/index.html").read_bytes(), namespaceHTMLElements=False)
    return [(m.get("name"), m.get("content")) for m in page.iter("meta") if (m.get("name") or "").startswith("citation_")]


def json_ld_of(out, slug) -> dict:
    page = html5lib.parse((out / f"papers/{slug}/index.html").read_bytes(), namespaceHTMLElements=False)
    [script] = [s for s in page.iter("script") if s.get("type") == "application/ld+json"]
    return json.loads(script.text)


def test_scholar_tags_follow_the_venue_kind(built):
    out, _ = built
    specials = dict(meta_tags(out, "specials"))
    assert specials["citation_conference_title"] == "International Conference on Machine Learning"
    assert specials["citation_publication_date"] == "2024/07/21" and specials["citation_doi"] == "10.1234/ab_c.5%"
    assert "citation_journal_title" not in specials and "citation_arxiv_id" not in specials
    assert [c for n, c in meta_tags(out, "specials") if n == "citation_author"] == PAPERS["specials"]["authors"]
    math = dict(meta_tags(out, "math"))
    assert math["citation_journal_title"] == "Journal of Machine Learning Research"
    assert "citation_conference_title" not in math
    assert math["citation_arxiv_id"] == "2402.07207" and math["citation_publication_date"] == "2021"
    assert dict(meta_tags(out, "workshop"))["citation_conference_title"] == "Workshop on Theory of Machine Learning"
    assert json_ld_of(out, "specials")["datePublished"] == "2024-07-21"
    assert json_ld_of(out, "preprint")["datePublished"] == "2023-03"
    assert json_ld_of(out, "math")["isPartOf"] == {"@type": "Periodical", "name": "Journal of Machine Learning Research"}


def test_author_details_reach_scholar_tags_and_json_ld(tmp_path):
    site = write_site(tmp_path / "site", {"p": {"id": "p", "title": "T", "venue": "icml-2024", "authors": [
        {"name": "Ada Lovelace", "orcid": "0000-0002-1825-0097", "affiliation": "Analytical Engines"},
        "Alan Turing"]}}, MINIMAL_CONFIG)
    add_json_ld(site.root)
    site.build()
    out = site.root / "_site"
    assert meta_tags(out, "p")[1:5] == [
        ("citation_author", "Ada Lovelace"), ("citation_author_institution", "Analytical Engines"),
        ("citation_author_orcid", "0000-0002-1825-0097"), ("citation_author", "Alan Turing")]
    assert json_ld_of(out, "p")["author"][0] == {
        "@type": "Person", "name": "Ada Lovelace", "identifier": "https://orcid.org/0000-0002-1825-0097",
        "affiliation": {"@type": "Organization", "name": "Analytical Engines"}}


def test_a_rebuild_renames_a_key_on_the_page_when_another_paper_takes_it(tmp_path):
    """The paper page reuses last build's bytes only while its key is unchanged."""
    from papersite.engine.runner import BuildCache, Warm
    from papersite.pipeline import build_site
    site = colliding_site(tmp_path / "site", {"a": {"id": "a", "title": "Deep", "authors": ["Ann Smith"],
                                                    "added": "2024-05-01"}})
    cache = BuildCache()
    first = build_site(site.config, Warm(cache))
    assert b"@inproceedings{smith2024deep," in first.files["papers/a/index.html"]
    site.write("content/icml-2024/b.md", "---\nid: b\ntitle: Deep\nvenue: icml-2024\nauthors: [Bo Smith]\n"
                                         "bibtex_key: smith2024deep\n---\nx\n")
    second = build_site(site.config, Warm(cache))
    assert b"@inproceedings{smith2024deepb," in second.files["papers/a/index.html"]
    assert b"@inproceedings{smith2024deepb," in second.files["venues/icml-2024/papers.bib"]


def test_rebuilds_give_the_files_a_clean_build_gives(tmp_path):
    """Pages, the venues' .bib files, keys and feeds are partly reused between builds of one
    process: after each kind of edit they must be what a clean build writes."""
    from papersite.engine.runner import BuildCache, Warm
    from papersite.pipeline import build_site
    site = write_site(tmp_path / "site")
    cache = BuildCache()
    build_site(site.config, Warm(cache))
    content = site.root / "content"
    edits = [
        lambda: (content / "icml-2024/specials.md").write_text(
            (content / "icml-2024/specials.md").read_text().replace("An abstract.", "A new abstract.")),
        lambda: (content / "jmlr/math.md").write_text(
            (content / "jmlr/math.md").read_text().replace("Regret", "Bounds")),  # its key changes
        lambda: (content / "icml-2024/workshop-copy.md").write_text(
            (content / "tml-2024/workshop.md").read_text().replace("id: workshop", "id: copy")
            .replace("venue: tml-2024", "venue: icml-2024").replace("Grace Hopper", "Ada Lovelace")),
        lambda: (content / "icml-2024/workshop-copy.md").rename(content / "icml-2024/renamed.md"),
        lambda: (content / "arxiv/preprint.md").unlink(),
        lambda: (content / "icml-2024/renamed.md").write_text(
            (content / "icml-2024/renamed.md").read_text().replace("topics:", "added: '2030-01-01'\ntopics:")),
    ]
    for number, edit in enumerate(edits):
        edit()
        again = build_site(site.config, Warm(cache)).files
        clean = build_site(site.config).files
        assert again.keys() == clean.keys(), number
        for path in clean:
            if path.endswith((".bib", ".ris", ".json", ".xml")) or path.startswith("papers/"):
                assert again[path] == clean[path], (number, path)
    assert "papers/renamed/index.html" in clean and "papers/workshop-copy/index.html" not in clean
    assert "papers/preprint/index.html" not in clean
    assert b"papers/renamed/" in clean["feed.xml"].split(b"<entry>")[1]  # the newest import leads the feed


def test_the_readme_bibtex_example_is_what_a_build_writes(tmp_path):
    from tests.conftest import ROOT
    [example] = re.findall(r"```bibtex\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    site = write_site(tmp_path / "site", {"grokking": {
        "id": "g", "title": "Grokking at 50% of $\\mathcal{O}(T^{2/3})$ & More", "venue": "icml-2024",
        "authors": ["Ludwig van Beethoven", "Martin Luther King Jr.", "The ATLAS Collaboration"],
        "date": "2024-07-21", "links": {"doi": "10.1234/abc", "url": "https://example.org/paper",
                                        "arxiv": "2402.07207"}}}, MINIMAL_CONFIG)
    site.build()
    assert bib_text(site.root / "_site") == example


# --- theses, reports and books: the venue is who issued them ----------------------------------

ISSUERS = """\
  - slug: stanford
    name: Stanford University
    kind: thesis
  - slug: google-research
    name: Google Research
    kind: report
  - slug: mit-press
    name: MIT Press
    kind: book
  - slug: handbook
    name: Handbook of Learning
    kind: collection
"""
ISSUED = {
    "phd": {"id": "phd", "title": "Learning from Few Examples", "authors": ["Jane Smith"], "venue": "stanford",
            "year": 2020},
    "masters": {"id": "masters", "title": "Graphs, Briefly", "authors": ["Kim Lee"], "venue": "stanford",
                "year": 2018, "extra": {"type": "Master's thesis"}},
    "biblatex": {"id": "biblatex", "title": "Sets, Briefly", "authors": ["Kim Lee"], "venue": "stanford",
                 "year": 2017, "extra": {"type": "mathesis"}},
    "report": {"id": "report", "title": "A Report on Trees", "authors": ["Ann Park"], "venue": "google-research",
               "year": 2019, "extra": {"number": "TR-123"}},
    "book": {"id": "book", "title": "Deep Learning", "authors": ["Ian Goodfellow", "Yoshua Bengio"],
             "venue": "mit-press", "year": 2016, "extra": {"publisher": "Not the venue"}},
    "chapter": {"id": "chapter", "title": "Kernels", "authors": ["Bernhard Scholkopf"], "venue": "handbook",
                "year": 2010, "extra": {"publisher": "Springer", "pages": "10-20"}},
}


@pytest.fixture(scope="module")
def issued(tmp_path_factory):
    site = write_site(tmp_path_factory.mktemp("issued") / "site", ISSUED, MINIMAL_CONFIG + ISSUERS)
    add_json_ld(site.root)
    build, _ = site.build()
    return site.root / "_site", build


def test_a_thesis_a_report_a_book_and_a_chapter_are_cited_as_such_in_every_format(issued):
    out, build = issued
    keys = build.catalog.citation_keys
    entries = bib_entries(out)
    assert {paper_id: entries[keys[paper_id]]["ENTRYTYPE"] for paper_id in ISSUED} == {
        "phd": "phdthesis", "masters": "mastersthesis", "biblatex": "mastersthesis", "report": "techreport",
        "book": "book", "chapter": "incollection"}
    chapter = entries[keys["chapter"]]
    assert (chapter["booktitle"], chapter["publisher"], chapter["pages"]) == ("Handbook of Learning", "Springer", "10--20")
    assert entries[keys["phd"]]["school"] == "Stanford University" and "booktitle" not in entries[keys["phd"]]
    assert (entries[keys["report"]]["institution"], entries[keys["report"]]["number"]) == ("Google Research", "TR-123")
    assert entries[keys["book"]]["publisher"] == "MIT Press"  # the venue, once: not extra's publisher too
    one = next(author for author in build.catalog.authors if len(author.papers) == 1)
    assert listing_download(out, f"authors/{one.slug}/")[0] == "cite.bib"  # the name of a one-paper .bib
    assert bib_text(out, "venues/mit-press/papers.bib").count("publisher") == 1

    def ris_of(paper_id):
        return rispy.loads(ris_text(out, paper_id))[0]
    assert (ris_of("chapter")["type_of_reference"], ris_of("chapter")["secondary_title"]) == ("CHAP", "Handbook of Learning")
    issued = [paper_id for paper_id in ISSUED if paper_id != "chapter"]
    assert {paper_id: (ris_of(paper_id)["type_of_reference"], ris_of(paper_id)["publisher"]) for paper_id in issued} == {
        "phd": ("THES", "Stanford University"), "masters": ("THES", "Stanford University"),
        "biblatex": ("THES", "Stanford University"), "report": ("RPRT", "Google Research"), "book": ("BOOK", "MIT Press")}
    assert not any("secondary_title" in ris_of(paper_id) for paper_id in issued)

    def csl_of(paper_id):
        [item] = json.loads(csl_text(out, paper_id))
        check_csl_item(item)
        return item
    assert (csl_of("chapter")["type"], csl_of("chapter")["container-title"]) == ("chapter", "Handbook of Learning")
    assert {paper_id: (csl_of(paper_id)["type"], csl_of(paper_id)["publisher"]) for paper_id in issued} == {
        "phd": ("thesis", "Stanford University"), "masters": ("thesis", "Stanford University"),
        "biblatex": ("thesis", "Stanford University"), "report": ("report", "Google Research"), "book": ("book", "MIT Press")}
    assert csl_of("report")["number"] == "TR-123" and "issue" not in csl_of("report")
    assert not any("container-title" in csl_of(paper_id) for paper_id in issued)

    assert dict(meta_tags(out, "phd"))["citation_dissertation_institution"] == "Stanford University"
    report = dict(meta_tags(out, "report"))
    assert report["citation_technical_report_institution"] == "Google Research"
    assert report["citation_technical_report_number"] == "TR-123" and "citation_issue" not in report
    assert [c for n, c in meta_tags(out, "book") if n == "citation_publisher"] == ["MIT Press"]
    assert not [n for paper_id in ISSUED for n, _ in meta_tags(out, paper_id) if n == "citation_conference_title"]
    lines = {}
    for paper_id in ISSUED:
        page = html5lib.parse((out / f"papers/{paper_id}/index.html").read_bytes(), namespaceHTMLElements=False)
        [line] = [p for p in page.iter("p") if p.get("class") == "paper-meta"]
        lines[paper_id] = " ".join("".join(line.itertext()).split())
    assert lines == {"phd": "PhD thesis, Stanford University · 2020", "masters": "Master's thesis, Stanford University · 2018",
                     "biblatex": "Master's thesis, Stanford University · 2017",
                     "report": "Technical report, Google Research, no. TR-123 · 2019", "book": "MIT Press · 2016",
                     "chapter": "Handbook of Learning, pp. 10–20 · 2010"}
    assert dict(meta_tags(out, "chapter"))["citation_inbook_title"] == "Handbook of Learning"
    assert json_ld_of(out, "chapter")["@type"] == "Chapter"
    assert json_ld_of(out, "chapter")["isPartOf"] == {"@type": "Book", "name": "Handbook of Learning"}
    assert {paper_id: (json_ld_of(out, paper_id)["@type"], json_ld_of(out, paper_id)["publisher"]["name"])
            for paper_id in ("phd", "report", "book")} == {
        "phd": ("Thesis", "Stanford University"), "report": ("Report", "Google Research"), "book": ("Book", "MIT Press")}


def test_venues_of_theses_reports_books_and_chapters_have_sections_and_one_of_no_year_shows_none(issued, built):
    out = issued[0]
    venues = html5lib.parse((out / "venues/index.html").read_bytes(), namespaceHTMLElements=False)
    main = venues.find(".//main")
    assert [(h.text, [a.find("span").text for a in grid.iter("a")]) for h, grid in zip(main.iter("h2"), main.iter("ul"))] == [
        ("Theses", ["Stanford University"]), ("Reports", ["Google Research"]), ("Books", ["MIT Press"]),
        ("Collections", ["Handbook of Learning"])]  # grouped after the venues of papers, here none: no empty list

    def lead(out, slug):
        page = html5lib.parse((out / f"venues/{slug}/index.html").read_bytes(), namespaceHTMLElements=False)
        return " ".join("".join(page.find(".//p[@class='lead']").itertext()).split())
    assert lead(out, "stanford") == "3 papers"  # a venue of no one year says none (it said "None")
    assert lead(built[0], "jmlr") == "Journal of Machine Learning Research · 1 paper"
    assert lead(built[0], "tml-2024") == "Workshop on Theory of Machine Learning · 2024 · 1 paper"
    papers_only = html5lib.parse((built[0] / "venues/index.html").read_bytes(), namespaceHTMLElements=False).find(".//main")
    assert not list(papers_only.iter("h2")) and len(list(papers_only.iter("ul"))) == 1  # as before: one list


def test_an_authors_page_is_kept_when_another_paper_moves_in_their_venue(tmp_path):
    """An author's .bib download names its entries by key, not by place in the venue's .bib: an
    edit that moves another paper (a new title sorts it elsewhere) leaves their page as it was,
    and what it downloads is still their papers' entries."""
    from papersite.engine.runner import BuildCache, Warm
    from papersite.pipeline import build_site
    from tests.downloads import listing_download as download
    site = colliding_site(tmp_path / "site", {
        "a": {"id": "a", "title": "Alpha", "authors": ["Ann Smith"]},
        "m": {"id": "m", "title": "Middle", "authors": ["Mo Jones"]},
        "z": {"id": "z", "title": "Zeta", "authors": ["Zed Park"]}})
    cache = BuildCache()
    build_site(site.config, Warm(cache))
    before = cache.plans[("author", "zed-park")][1]
    page = site.root / "content/icml-2024/a.md"
    page.write_text(page.read_text().replace("title: Alpha", "title: Zzz Last"))  # moves past the others
    again = build_site(site.config, Warm(cache))
    assert cache.plans[("author", "zed-park")][1] is before  # the page as planned before: not made again
    venue = again.catalog.venue_papers["icml-2024"]
    assert [p.id for p in venue] == ["m", "z", "a"]
    for paper in venue:
        [author] = [a for a in again.catalog.authors if a.papers == (paper,)]
        entry = bibtex_entry(paper, again.catalog.venue("icml-2024"), f"https://example.org/catalog/papers/{paper.slug}/",
                             again.catalog.citation_keys[paper.id]).encode()
        assert download(again.files, f"authors/{author.slug}/") == ("cite.bib", bibtex_file([entry]))


def test_a_theme_older_than_abstract_text_gets_the_whole_item_and_its_ris(tmp_path):
    """A paper.html that does not pass `shown=` (copied from an older theme, whose site.js reads
    #cite-data alone) gets the whole CSL-JSON item and the RIS, and its downloads stay the bytes."""
    site = write_site(tmp_path / "site", papers={"specials": PAPERS["specials"]})
    site.write("templates/paper.html", '{% extends "base.html" %}{% block main %}<script type="application/json" '
               'id="cite-data">{{ paper|citation_data(venue, topics, abstract, bibtex_key)|json_ld }}</script>'
               '{% endblock %}\n')
    build, _ = site.build()
    out = site.root / "_site"
    paper = by_id(build)["specials"]
    venues = {venue.slug: venue for venue in build.catalog.config.venues}
    inputs = (paper, venues[paper.venue], build.catalog.citation_keys[paper.id], abstract_text(out, paper),
              tuple(map(build.catalog.topic, paper.topics)), f"https://example.org/catalog/papers/{paper.slug}/")
    data = cite_data(out, paper.slug)
    assert "page" not in data and data["csl"] == csl_item(*inputs) and data["ris"]
    assert paper_download(out, paper.slug, "ris") == ris(*inputs)
    assert paper_download(out, paper.slug, "json") == csl_json(*inputs)


def test_a_value_is_put_on_one_line_as_split_and_join_put_it():
    """_one_line skips the split and join where they would give the value back: never elsewhere."""
    import sys
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    texts = ["", " ", "a", "a b c", " a", "a ", "a  b", "é ü 中文 $x^2$", "a\u200bb"]
    texts += [f"a{space}b" for space in spaces] + [f"{space}a" for space in spaces]
    for text in texts:
        assert _one_line(text) == " ".join(text.split()), repr(text)


def test_keys_assigned_after_edits_are_the_keys_assigned_afresh(monkeypatch):
    """A rebuild follows a retitled paper's key, and the keys of the papers it leaves and joins,
    where no other key can move, and assigns every key again otherwise: either way the keys, and
    the bare keys kept for the next build, are what a first build assigns. Bases here collide on
    purpose: shared bare keys, suffixes, a hand-set key, and bare keys that are also another
    base's suffixed keys ("lee2024deepb" is lee2024deep's second, and a paper's own)."""
    import random
    from dataclasses import replace
    from papersite.catalog import bibtex
    from papersite.model import Paper

    rng = random.Random(5)
    words = ["a", "deep", "deepb", "deepc", "graphs", "nets", "b", "c"]

    def paper(n: int) -> Paper:
        return Paper(id=f"p{n}", slug=f"p{n}", title=f"{rng.choice(words)} {rng.choice(words)}", venue="icml-2024",
                     year=2024, abstract="", authors=(rng.choice(["Ann Lee", "Bo Kim", "Cy Wu"]),),
                     added=rng.choice(["", "2024-01-02", "2024-03-04"]), bibtex_key="lee2024deep" if n == 7 else "")

    def keys_after(papers, kept):  # assigned after the last call, and as a first build assigns them
        keys, state = bibtex.assign_keys(papers, kept), bibtex._last_assignment
        monkeypatch.setattr(bibtex, "_last_assignment", None)
        fresh: dict = {}
        assert keys == bibtex.assign_keys(papers, fresh) and kept == fresh
        monkeypatch.setattr(bibtex, "_last_assignment", state)
        return keys, state

    followed = []
    real = bibtex._Assignment.follow
    monkeypatch.setattr(bibtex._Assignment, "follow", lambda self, inputs, known:
                        followed.append(real(self, inputs, known)) or followed[-1])

    # a paper alone in a bare key a hand-set key has taken (so it has a suffix) moves out, and another in
    hand = Paper(id="hand", slug="hand", title="Mine", venue="icml-2024", year=2024, abstract="", authors=("Ann Lee",),
                 bibtex_key="lee2024deep")
    one = Paper(id="one", slug="one", title="Deep nets", venue="icml-2024", year=2024, abstract="", authors=("Ann Lee",))
    two = Paper(id="two", slug="two", title="Nets", venue="icml-2024", year=2024, abstract="", authors=("Ann Lee",))
    monkeypatch.setattr(bibtex, "_last_assignment", None)
    kept: dict = {}
    assert keys_after([hand, one, two], kept)[0]["one"] == "lee2024deepb"
    keys_after([hand, replace(one, title="Graphs"), two], kept)
    keys, _ = keys_after([hand, replace(one, title="Graphs"), replace(two, title="Deep things")], kept)
    assert keys["two"] == "lee2024deepb" and followed == [True, True]
    # copies of one paper (as a catalog made by replicating one is): one retitled leaves their bare key
    copies = [replace(two, id=f"copy{n}", slug=f"copy{n}") for n in range(4)]
    assert list(keys_after(copies, kept)[0].values()) == ["lee2024nets", "lee2024netsb", "lee2024netsc", "lee2024netsd"]
    keys, _ = keys_after([replace(copies[0], title="Deep"), *copies[1:]], kept)
    assert keys == {"copy0": "lee2024deep", "copy1": "lee2024nets", "copy2": "lee2024netsb", "copy3": "lee2024netsc"}
    assert followed[-1] is True

    papers = [paper(n) for n in range(60)]
    monkeypatch.setattr(bibtex, "_last_assignment", None)
    kept: dict = {}
    bibtex.assign_keys(papers, kept)
    skipped = 0
    for _ in range(300):
        n = rng.randrange(len(papers))
        if rng.random() < 0.8:
            papers[n] = replace(papers[n], title=f"{rng.choice(words)} {rng.choice(words)} {rng.randrange(4)}")
        else:
            papers[n] = replace(papers[n], authors=(rng.choice(["Ann Lee", "Dee Ray"]),))
        rng.shuffle(papers)  # a retitle moves a paper in the catalog's order
        skipped += bool(keys_after(papers, kept)[1].skipped)
    assert followed.count(True) > 30 and followed.count(False) > 30 and skipped > 30  # all of it, often
