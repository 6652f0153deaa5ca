"""Real export files through `build.py import` into fresh catalogs that then build: what the
pages show, what a second import changes (nothing), updates, duplicates, venues, exit codes.
(How each format is read is tests/test_import_formats.py's subject.)"""
from __future__ import annotations

import json
import re

import html5lib

import pytest

from papersite.source.content import load_papers
from tests.test_import import (Page, build_pages, content_files, fixed_today, front, record, records, run,  # noqa: F401
                               run_import, snapshot, squash)

BIB = r"""@string{icml = {Proceedings of the 41st International Conference on Machine Learning}}

@inproceedings{lovelace24,
  title = {{GALA3D}: Generative 3{D} Gaussians with $\mathcal{O}(n)$ Layouts},
  author = {Lovelace, Ada and Rocht{\"a}schel, Tim and {OpenAI}},
  booktitle = icml,
  year = {2024},
  doi = {10.5555/gala3d},
  abstract = {We present GALA3D, with regret $\mathcal{O}(T^{2/3})$.

A second paragraph.},
}

@inproceedings{broken24,
  title = {Unclosed {brace,
  author = {Nobody},
}

@inproceedings{turing24,
  title = {Computing Machinery and Intelligence, Again},
  author = {Turing, Alan},
  booktitle = icml,
  year = {2024},
}
"""

CSV = """Paper ID,Paper Title,Speakers,Summary,keywords
p1,Sparse Graph Learning,"Ada Lovelace|Alan Turing","We study sparse graphs, their spectra and random walks.",graph neural networks
p2,,Grace Hopper,A row without a title.,
p3,Sparse Graph Learning,"Ada Lovelace",Another copy of the first row.,
p4,Optimal Transport Flows,Emmy Noether,,optimization
"""


@pytest.fixture
def catalog(site):
    """A fresh catalog: the minimal site.yaml (venue icml-2024, full_name International Conference
    on Machine Learning) and an empty content/."""
    return site


def bibtex_shown(page_folder) -> str:
    """The BibTeX entry a paper page shows (and copies), with a newline as its cite.bib had."""
    page = html5lib.parse((page_folder / "index.html").read_bytes(), namespaceHTMLElements=False)
    return "".join(page.find(".//pre[@id='bibtex']").itertext()) + "\n"


def test_bibtex_imports_builds_and_shows_exact_titles_authors_abstracts(catalog, tmp_path):
    bib = tmp_path / "papers.bib"
    bib.write_text(BIB)
    result = run_import(catalog, bib)
    assert result.exit_code == 1  # one entry could not be read: the others are imported all the same
    assert "Traceback" not in result.output
    assert re.search(rf"^{re.escape(str(bib))}:\d+: .*", result.output, re.MULTILINE)
    assert result.output.splitlines()[-1] == ("3 records read: 2 created, 0 updated, 0 unchanged, "
                                              "1 skipped (1 unreadable).")
    papers = {p.title: p for p in load_papers(catalog.config)}
    gala = papers["GALA3D: Generative 3D Gaussians with $\\mathcal{O}(n)$ Layouts"]
    assert gala.venue == "icml-2024"  # "Proceedings of the 41st ..." is the venue's full_name
    assert gala.authors == ("Ada Lovelace", "Tim Rochtäschel", "OpenAI") and gala.id == "doi-10.5555-gala3d"
    assert gala.abstract == "We present GALA3D, with regret $\\mathcal{O}(T^{2/3})$.\n\nA second paragraph."
    turing = papers["Computing Machinery and Intelligence, Again"]
    assert turing.abstract == "" and turing.id == "icml2024-turing24"
    pages = build_pages(catalog, tmp_path)
    page = pages[gala.slug]
    assert "GALA3D: Generative 3D Gaussians with" in squash(page.text["h1"])
    assert squash(page.text["authors"]) == "Ada Lovelace, Tim Rochtäschel, OpenAI"
    assert "A second paragraph." in page.text["abstract"]
    assert "No abstract is available" in pages[turing.slug].text["abstract"]


def test_an_author_list_ending_in_and_others_is_shown_and_exported_as_et_al(catalog, tmp_path):
    """Google Scholar's BibTeX ends a long author list with "and others": the names given are
    some of the authors, and the pages and the citation file say so rather than drop it."""
    bib = tmp_path / "scholar.bib"
    bib.write_text(r"""@inproceedings{brown2024,
  title = {Few-Shot Learners, Again},
  author = {Brown, Tom and Mann, Benjamin and others},
  booktitle = {Proceedings of the 41st International Conference on Machine Learning},
  year = {2024},
  abstract = {We scale language models.},
}
@inproceedings{turing24,
  title = {Computing Machinery and Intelligence, Again},
  author = {Turing, Alan},
  booktitle = {Proceedings of the 41st International Conference on Machine Learning},
  year = {2024},
}
""")
    assert run_import(catalog, bib).exit_code == 0
    fronts = {front(path)["title"]: front(path) for path in content_files(catalog)}
    slugs = {front(path)["title"]: path.stem for path in content_files(catalog)}
    brown = fronts["Few-Shot Learners, Again"]
    assert brown["authors"] == ["Tom Brown", "Benjamin Mann"] and brown["et_al"] is True
    assert "et_al" not in fronts["Computing Machinery and Intelligence, Again"]
    out = tmp_path / "out"
    assert run("build", "-q", "--config", catalog.root / "site.yaml", "-o", out).exit_code == 0
    brown_page = out / "papers" / slugs["Few-Shot Learners, Again"]
    assert squash(Page((brown_page / "index.html").read_text()).text["authors"]) == "Tom Brown, Benjamin Mann, et al."
    assert "author = {Brown, Tom and Mann, Benjamin and others}" in bibtex_shown(brown_page)
    listing = squash(re.sub(r"<[^>]+>", "", (out / "index.html").read_text() + (out / "venues/icml-2024/index.html").read_text()))
    assert "Tom Brown, Benjamin Mann, et al." in listing and "Alan Turing, et al." not in listing
    turing_page = out / "papers" / slugs["Computing Machinery and Intelligence, Again"]
    assert "author = {Turing, Alan}," in bibtex_shown(turing_page)


ZOTERO_LIBRARY = r"""@phdthesis{smith_learning_2020,
	type = {{PhD} {Thesis}},
	title = {Learning to {Learn} from {Few} {Examples}},
	school = {Stanford University},
	author = {Smith, Jane},
	year = {2020},
	abstract = {We study few-shot learning.},
}
@mastersthesis{lee_graphs_2018,
	title = {Graphs, Briefly},
	school = {Stanford University},
	author = {Lee, Kim},
	year = {2018},
}
@techreport{doe_report_2019,
	title = {A {Technical} {Report} on {Trees}},
	institution = {Google Research},
	number = {TR-123},
	author = {Doe, John},
	year = {2019},
}
@techreport{roe_preprint_2023,
	title = {A Report Posted to {arXiv}},
	institution = {Somewhere University},
	author = {Roe, Richard},
	year = {2023},
	eprint = {2301.00001},
	archiveprefix = {arXiv},
}
@book{goodfellow_deep_2016,
	address = {Cambridge, MA},
	title = {Deep {Learning}},
	publisher = {MIT Press},
	author = {Goodfellow, Ian and Bengio, Yoshua},
	year = {2016},
}
@incollection{scholkopf_kernels_2010,
	title = {Kernels},
	booktitle = {Handbook of Learning},
	publisher = {Springer},
	pages = {10--20},
	author = {Scholkopf, Bernhard},
	year = {2010},
}
@misc{alammar_2018,
	title = {The {Illustrated} {Transformer}},
	url = {https://jalammar.github.io/illustrated-transformer/},
	author = {Alammar, Jay},
	year = {2018},
}
"""


def test_theses_reports_and_books_of_a_zotero_library_import_with_who_issued_them_as_venue(catalog, tmp_path):
    """A Zotero library holds more than papers. A thesis's venue is its university, a report's its
    institution, a book's its publisher; a report posted to arXiv is a preprint; a web page names
    no venue and is reported, not dropped."""
    bib = tmp_path / "library.bib"
    bib.write_text(ZOTERO_LIBRARY)
    ris = tmp_path / "library.ris"
    ris.write_text("TY  - THES\nTI  - A Thesis on Flows\nAU  - Noether, Emmy\nPY  - 2021\nPB  - Stanford University\n"
                   "ER  - \n\nTY  - BOOK\nTI  - Pattern Recognition\nAU  - Bishop, Christopher\nPY  - 2006\n"
                   "PB  - Springer\nER  - \n\nTY  - CHAP\nTI  - Margins\nAU  - Vapnik, Vladimir\nPY  - 2011\n"
                   "T2  - Handbook of Learning\nER  - \n")
    csl = tmp_path / "library.json"
    csl.write_text(json.dumps([{"id": "k1", "type": "thesis", "genre": "Master's thesis", "title": "A CSL Thesis",
                                "author": [{"family": "Ng", "given": "Al"}], "issued": {"date-parts": [[2019]]},
                                "publisher": "Stanford University"}]))
    result = run_import(catalog, bib, ris, csl)
    assert result.exit_code == 1  # the web page
    assert "library.bib:45: skipped: no venue" in result.output, result.output
    assert "10 created" in result.output.splitlines()[-1]
    fronts = {front(path)["title"]: front(path) for path in content_files(catalog)}
    assert {title: data["venue"] for title, data in fronts.items()} == {
        "Learning to Learn from Few Examples": "stanford-university", "Graphs, Briefly": "stanford-university",
        "A Thesis on Flows": "stanford-university", "A CSL Thesis": "stanford-university", "A Technical Report on Trees": "google-research",
        "A Report Posted to arXiv": "arxiv", "Deep Learning": "mit-press", "Pattern Recognition": "springer",
        "Kernels": "handbook-of-learning", "Margins": "handbook-of-learning"}
    assert fronts["A Technical Report on Trees"]["extra"] == {"number": "TR-123"}
    assert "publisher" not in fronts["Deep Learning"].get("extra", {})  # it is the venue
    declared = {v.slug: v for v in catalog.config.venues}
    assert {slug: (declared[slug].kind, declared[slug].year) for slug in
            ("stanford-university", "google-research", "mit-press", "springer", "arxiv", "handbook-of-learning")} == {
        "stanford-university": ("thesis", None), "google-research": ("report", None), "mit-press": ("book", None),
        "springer": ("book", None), "arxiv": ("preprint", None), "handbook-of-learning": ("collection", None)}
    before = snapshot(catalog)
    assert "0 created, 0 updated, 10 unchanged" in run_import(catalog, bib, ris, csl).output
    assert snapshot(catalog) == before

    out = tmp_path / "out"
    assert run("build", "-q", "--config", catalog.root / "site.yaml", "-o", out).exit_code == 0
    slugs = {front(path)["title"]: path.stem for path in content_files(catalog)}
    bibtex = {title: bibtex_shown(out / "papers" / slug) for title, slug in slugs.items()}
    assert bibtex["Learning to Learn from Few Examples"].startswith("@phdthesis{")
    assert "  school = {Stanford University},\n" in bibtex["Learning to Learn from Few Examples"]
    assert bibtex["Graphs, Briefly"].startswith("@mastersthesis{") and bibtex["A CSL Thesis"].startswith("@mastersthesis{")
    assert bibtex["A Technical Report on Trees"].startswith("@techreport{")
    assert "  number = {TR-123},\n" in bibtex["A Technical Report on Trees"]
    assert bibtex["Deep Learning"].startswith("@book{") and "  publisher = {MIT Press},\n" in bibtex["Deep Learning"]
    assert bibtex["Kernels"].startswith("@incollection{") and "  booktitle = {Handbook of Learning},\n" in bibtex["Kernels"]
    assert bibtex["A Report Posted to arXiv"].startswith("@misc{") and "eprint = {2301.00001}" in bibtex["A Report Posted to arXiv"]


# An event export shaped like ICML's (type, name, speakers/authors, abstract), written with TeX's punctuation
TEX_EVENTS = [
    {"type": "Poster", "name": "Nets That Have ``Grokked'' --- and Why",
     "speakers/authors": "Ada Lovelace, Alan Turing",
     "abstract": "Networks that have ``grokked'' generalise late---long after they fit. A narrow ``teacher NN\" "
                 "agrees with the labels, and a `flat' prior over ``simple'' nets finds it in 10--20 steps."},
    {"type": "Poster", "name": "Flags Stay Flags", "speakers/authors": "Grace Hopper",
     "abstract": "Train with `--lr 0.1` and ``DoWhy``; the bound $a--b$ holds (see https://example.org/a--b)."},
    {"type": "Poster", "name": "Spaced Dashes", "speakers/authors": "Emmy Noether",
     "abstract": "A ``quiet'' method -- one of many -- in 2019--2024."},
]
GROKKED = "Nets That Have “Grokked” — and Why"


def _abstract_html(path) -> str:
    return path.read_text().split('<section class="abstract"', 1)[1].split("</section>", 1)[0]


def test_tex_quotes_and_dashes_of_a_json_export_show_typeset_and_never_as_code(catalog, tmp_path):
    """Backticks are Markdown's code delimiters: ``teacher NN" ... ``simple'' read as typed made one
    code span of the text between them. A person's own code spans stay code."""
    export = tmp_path / "events.json"
    export.write_text(json.dumps(TEX_EVENTS))
    assert run_import(catalog, export, "--venue", "icml-2024").exit_code == 0
    slugs = {front(path)["title"].split()[0]: path.stem for path in content_files(catalog)}
    out = tmp_path / "out"
    assert run("build", "-q", "--config", catalog.root / "site.yaml", "-o", out).exit_code == 0
    grokked = out / "papers" / slugs["Nets"] / "index.html"
    assert "<code" not in _abstract_html(grokked) and "`" not in _abstract_html(grokked)
    page = Page(grokked.read_text())
    assert ("Networks that have “grokked” generalise late—long after they fit. A narrow “teacher NN” agrees "
            "with the labels, and a ‘flat’ prior over “simple” nets finds it in 10–20 steps."
            ) in squash(page.text["abstract"])
    assert squash(page.text["h1"]) == GROKKED
    flags = _abstract_html(out / "papers" / slugs["Flags"] / "index.html")
    assert "<code>--lr 0.1</code>" in flags and "<code>DoWhy</code>" in flags and "<math" in flags
    assert "https://example.org/a--b" in flags
    spaced = Page((out / "papers" / slugs["Spaced"] / "index.html").read_text())
    assert "A “quiet” method – one of many – in 2019–2024." in squash(spaced.text["abstract"])
    before = snapshot(catalog)
    again = run_import(catalog, export, "--venue", "icml-2024")
    assert again.output.splitlines()[-1] == "3 records read: 0 created, 0 updated, 3 unchanged, 0 skipped."
    assert snapshot(catalog) == before


def test_files_imported_with_tex_punctuation_as_typed_are_updated_and_an_edited_one_kept(catalog, tmp_path):
    """A catalog imported before TeX's punctuation was read: the same export now updates its files in
    place (no second copy of a paper), except the one a person edited."""
    records(catalog, *[record(n, title=e["name"], abstract=e["abstract"], authors=e["speakers/authors"].split(", "),
                              extra={"type": "Poster"}) for n, e in enumerate(TEX_EVENTS, 1)], venue="icml-2024")
    files = content_files(catalog)
    spaced = next(path for path in files if front(path)["title"] == "Spaced Dashes")
    edited = spaced.read_text().replace("A ``quiet'' method", "A ``quiet'' (and small) method")
    spaced.write_text(edited)
    export = tmp_path / "events.json"
    export.write_text(json.dumps(TEX_EVENTS))
    result = run_import(catalog, export, "--venue", "icml-2024")
    assert result.output.splitlines()[-1] == ("3 records read: 0 created, 1 updated, 1 unchanged, "
                                              "1 skipped (1 edited by hand).")
    assert content_files(catalog) == files and spaced.read_text() == edited
    assert {front(path)["title"] for path in files} == {GROKKED, "Flags Stay Flags", "Spaced Dashes"}
    grokked = next(path for path in files if front(path)["title"] == GROKKED)
    assert "A narrow “teacher NN” agrees" in grokked.read_text()


def test_a_second_import_of_every_format_changes_nothing(catalog, tmp_path):
    bib = tmp_path / "papers.bib"
    bib.write_text(BIB)
    table = tmp_path / "papers.csv"
    table.write_text(CSV)
    openreview = tmp_path / "notes.json"
    openreview.write_text(json.dumps([{"id": "qWeRtY42", "content": {
        "title": {"value": "Spotlight on Calibration"}, "authors": {"value": ["Émile Zola"]},
        "abstract": {"value": "Calibration matters."}, "venueid": {"value": "ICLR.cc/2024/Conference"},
        "venue": {"value": "ICLR 2024 spotlight"}}}]))
    args = [bib, table, openreview, "--column", "title=Paper Title", "--column", "authors=Speakers",
            "--column", "abstract=Summary", "--column", "id=Paper ID"]
    first = run_import(catalog, *args, "--venue", "icml-2024")
    assert first.exit_code == 1, first.output  # the broken BibTeX entry
    before = snapshot(catalog)
    second = run_import(catalog, *args, "--venue", "icml-2024")
    assert second.exit_code == 1
    assert snapshot(catalog) == before
    assert re.search(r"read: 0 created, 0 updated, \d+ unchanged", second.output.splitlines()[-1])


def test_csv_with_column_mapping_reports_rows_by_line(catalog, tmp_path):
    table = tmp_path / "papers.csv"
    table.write_text(CSV)
    result = run_import(catalog, table, "--venue", "icml-2024", "--column", "title=Paper Title",
                        "--column", "authors=Speakers", "--column", "abstract=Summary", "--column", "id=Paper ID")
    assert result.exit_code == 0, result.output
    assert f"{table}:3: skipped: no title" in result.output
    assert re.search(rf"{re.escape(str(table))}:4: skipped: duplicate of {re.escape(str(table))}:2 "
                     r"\(same title and first author\)", result.output)
    assert result.output.splitlines()[-1] == ("4 records read: 2 created, 0 updated, 0 unchanged, "
                                              "2 skipped (1 duplicate, 1 no title).")
    papers = {p.title: p for p in load_papers(catalog.config)}
    assert papers["Sparse Graph Learning"].id == "icml2024-p1"
    assert papers["Optimal Transport Flows"].abstract == ""
    pages = build_pages(catalog, tmp_path)
    assert squash(pages[papers["Sparse Graph Learning"].slug].text["authors"]) == "Ada Lovelace, Alan Turing"


def test_an_updated_export_updates_in_place_and_an_edit_survives(catalog, tmp_path):
    bib = tmp_path / "papers.bib"
    bib.write_text(BIB)
    run_import(catalog, bib)
    files = content_files(catalog)
    gala = next(p for p in files if "gala3d" in p.name)
    turing = next(p for p in files if p != gala)
    edited = turing.read_text().replace('authors: ["Alan Turing"]', 'authors: ["Alan M. Turing"]')
    assert edited != turing.read_text()
    turing.write_text(edited)
    bib.write_text(BIB.replace("$\\mathcal{O}(T^{2/3})$.", "$\\mathcal{O}(T^{1/2})$.")
                   .replace("{OpenAI}}", "{OpenAI} and Hopper, Grace}")
                   .replace("Alan},\n  booktitle", "Alan and Lovelace, Ada},\n  booktitle"))
    result = run_import(catalog, bib)
    assert content_files(catalog) == files
    assert front(gala)["authors"][-1] == "Grace Hopper" and "T^{1/2}" in gala.read_text()
    assert turing.read_text() == edited
    shown = turing.relative_to(catalog.root).as_posix()
    assert re.search(rf"^{re.escape(shown)}: skipped: edited by hand, not overwritten", result.output, re.MULTILINE)
    assert result.output.splitlines()[-1] == ("3 records read: 0 created, 1 updated, 0 unchanged, "
                                              "2 skipped (1 edited by hand, 1 unreadable).")


def test_the_same_paper_from_two_exports_is_one_file(catalog, tmp_path):
    bib = tmp_path / "papers.bib"
    bib.write_text(BIB)
    run_import(catalog, bib)
    csl = tmp_path / "zotero.json"
    csl.write_text(json.dumps([{"id": "item1", "type": "paper-conference", "title": "GALA3D, updated title",
                                "author": [{"family": "Lovelace", "given": "Ada"}], "DOI": "10.5555/GALA3D",
                                "container-title": "International Conference on Machine Learning",
                                "issued": {"date-parts": [[2024, 7]]}}]))
    result = run_import(catalog, csl, "--format", "csljson")
    assert result.output.splitlines()[-1] == "1 record read: 0 created, 1 updated, 0 unchanged, 0 skipped."
    [gala] = [p for p in content_files(catalog) if "gala3d" in p.name]
    assert front(gala)["title"] == "GALA3D, updated title" and front(gala)["date"] == "2024-07"


def test_openreview_venueids_become_venues_with_their_kind(catalog, tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([
        {"id": "qWeRtY42", "content": {"title": {"value": "Spotlight on Calibration"},
                                       "authors": {"value": ["Émile Zola"]}, "abstract": {"value": "Text."},
                                       "venueid": {"value": "ICLR.cc/2024/Conference"},
                                       "venue": {"value": "ICLR 2024 spotlight"}}},
        {"id": "wOrKsHoP1", "content": {"title": {"value": "A Workshop Paper"},
                                        "authors": {"value": ["Ada Lovelace"]}, "abstract": {"value": "Text 2."},
                                        "venueid": {"value": "ICML.cc/2024/Workshop/GenBio"}}}]))
    result = run_import(catalog, notes)
    assert result.exit_code == 0, result.output
    venues = {v.slug: v for v in catalog.config.venues}
    assert (venues["iclr-2024"].name, venues["iclr-2024"].year, venues["iclr-2024"].kind) == \
        ("ICLR 2024", 2024, "conference")
    assert (venues["icml-2024-workshop-genbio"].name, venues["icml-2024-workshop-genbio"].kind) == \
        ("ICML 2024 Workshop GenBio", "workshop")
    papers = {p.title: p for p in load_papers(catalog.config)}
    assert papers["Spotlight on Calibration"].id == "openreview-qWeRtY42"
    assert papers["Spotlight on Calibration"].status == "spotlight"
    assert dict(papers["Spotlight on Calibration"].links)["openreview"] == \
        "https://openreview.net/forum?id=qWeRtY42"


def test_openreview_submissions_belong_to_their_venue_with_their_status(catalog, tmp_path):
    """Rejected, withdrawn and pending submissions of ICLR 2024 (as the API v2 gives them) join
    ICLR 2024 with their status; once they each became a venue ('ICLR 2024 Rejected Submission')."""
    states = {"Rejected_Submission": ("Submitted to ICLR 2024", "rejected"),
              "Withdrawn_Submission": ("ICLR 2024 Conference Withdrawn Submission", "withdrawn"),
              "Desk_Rejected_Submission": ("ICLR 2024 Conference Desk Rejected Submission", "desk rejected"),
              "Submission": ("Submitted to ICLR 2024", "under review"),
              "": ("ICLR 2024 poster", "poster")}
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([
        {"id": f"note{n}", "content": {"title": {"value": f"Paper {state or 'Accepted'}"},
                                       "authors": {"value": ["Ada Lovelace"]}, "abstract": {"value": f"Text {n}."},
                                       "venueid": {"value": f"ICLR.cc/2024/Conference/{state}".rstrip("/")},
                                       "venue": {"value": venue}}}
        for n, (state, (venue, _)) in enumerate(states.items())]))
    result = run_import(catalog, notes)
    assert result.exit_code == 0, result.output
    assert [v.slug for v in catalog.config.venues if v.slug.startswith("iclr")] == ["iclr-2024"]
    papers = {p.title: p for p in load_papers(catalog.config)}
    assert {title: (p.venue, p.status) for title, p in papers.items() if p.venue.startswith("iclr")} == {
        f"Paper {state or 'Accepted'}": ("iclr-2024", status) for state, (_, status) in states.items()}


def test_an_unknown_format_is_one_problem_and_the_other_files_import(catalog, tmp_path):
    odd = tmp_path / "notes.xyz"
    odd.write_text("nothing anyone exports\n")
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    result = run_import(catalog, odd, seed)
    assert result.exit_code == 1
    assert f"{odd}: format not recognised: " in result.output
    assert result.output.splitlines()[-1] == ("1 record read: 1 created, 0 updated, 0 unchanged, "
                                              "0 skipped; 1 file not imported.")


def test_a_file_of_no_format_read_is_said_to_be_so_and_the_import_fails(catalog, tmp_path):
    """Issue 38, item 9: a file of an unknown format was "1 record read", "1 unreadable"."""
    odd = tmp_path / "notes.xyz"
    odd.write_text("nothing anyone exports\n")
    result = run_import(catalog, odd)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{odd}: format not recognised: its content is not BibTeX (an '@type{{' line), RIS (a 'TY  - ' line), "
        "JSON, XML or seed text (a 'VENUE YEAR' first line), and its extension '.xyz' names no format (.atom, .bib, "
        ".bibtex, .csv, .json, .jsonl, .ndjson, .ris, .tab, .tsv, .txt); if it is one of bibtex, csljson, ris, csv, "
        "tsv, json, openreview, arxiv, oai-pmh, seed, name it with --format NAME",
        "0 records read: 0 created, 0 updated, 0 unchanged, 0 skipped; 1 file not imported.",
        "Error: nothing was imported: 1 file not imported (see above)"]
    assert content_files(catalog) == []


def test_an_import_that_creates_nothing_because_of_problems_fails(catalog, tmp_path):
    """Issue 38, item 3: every record skipped for having no title, and the import exited 0."""
    untitled = tmp_path / "untitled.csv"
    untitled.write_text("title,abstract\n,A row without a title.\n,Another.\n")
    result = run_import(catalog, untitled)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{untitled}:2: skipped: no title", f"{untitled}:3: skipped: no title",
        "2 records read: 0 created, 0 updated, 0 unchanged, 2 skipped (2 no title).",
        "Error: nothing was imported: 2 records without a title (see above)"]
    # not a failure: records all unchanged, or all edited by hand
    good = tmp_path / "good.csv"
    good.write_text("title,abstract,venue\nA Titled Paper,An abstract.,ICML 2024\n")
    assert run_import(catalog, good).exit_code == 0
    again = run_import(catalog, good)
    assert (again.exit_code, again.output.splitlines()[-1]) == (
        0, "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped.")
    [path] = content_files(catalog)
    path.write_text(path.read_text() + "My notes.\n")
    good.write_text("title,abstract,venue\nA Titled Paper,A corrected abstract.,ICML 2024\n")
    edited = run_import(catalog, good)
    assert (edited.exit_code, edited.output.splitlines()[-1]) == (
        0, "1 record read: 0 created, 0 updated, 0 unchanged, 1 skipped (1 edited by hand).")


def test_an_unknown_format_name_stops_before_anything(catalog, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet.\n")
    result = run_import(catalog, seed, "--format", "endnote")
    assert result.exit_code == 1
    assert re.fullmatch(r"Error: --format: unknown format 'endnote' \(known: bibtex, .*seed\)\n", result.output)
    assert content_files(catalog) == []


def test_a_fifo_is_refused_unopened_and_an_unwritable_file_is_a_clear_error(catalog, tmp_path):
    import os
    fifo = tmp_path / "papers.bib"
    os.mkfifo(fifo)
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    result = run_import(catalog, fifo, seed)  # would hang if the FIFO were opened
    assert result.exit_code == 1
    assert f"{fifo}: not a regular file: give the export file itself" in result.output
    assert len(content_files(catalog)) == 1
    # a venue folder that is a file: the paper cannot be written (even as root), the others are
    catalog.write("content/neurips-2023", "not a folder\n")
    other = tmp_path / "n.txt"
    other.write_text("NeurIPS 2023\n\nWe propose BarNet, another network.\n")
    result = run_import(catalog, other, seed)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert re.search(rf"{re.escape(str(other))}:3: cannot write .*neurips-2023.*: (Not a directory|File exists)", result.output)
    assert result.output.splitlines()[-1] == ("2 records read: 0 created, 0 updated, 1 unchanged, "
                                              "1 skipped (1 unreadable).")


def test_a_symlinked_site_yaml_stays_a_link(catalog, tmp_path):
    real = tmp_path / "real-site.yaml"
    real.write_text((catalog.root / "site.yaml").read_text())
    (catalog.root / "site.yaml").unlink()
    (catalog.root / "site.yaml").symlink_to(real)
    seed = tmp_path / "s.txt"
    seed.write_text("NeurIPS 2023\n\nWe propose FooNet, a network for testing importers with care.\n")
    assert run_import(catalog, seed).exit_code == 0
    assert (catalog.root / "site.yaml").is_symlink() and "neurips-2023" in real.read_text()
