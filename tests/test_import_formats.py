"""The input-format readers: every format's quirks, read into Records and Problems.

Fixtures in tests/fixtures/imports/ are written for these tests and reproduce what real
exports do (PMLR and al-folio BibTeX, Zotero CSL-JSON and RIS, MiniConf CSV, OpenReview
notes v1 and v2, arXiv API and OAI-PMH XML).
"""
from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from papersite.errors import Problem
from papersite.importers.formats import FORMATS, ImportContext, detect_format, read_records
from papersite.importers.records import FileProblem, Record
from papersite.importers.text import tex_punctuation

FIXTURES = Path(__file__).parent / "fixtures" / "imports"
# ../shared beside the repository (or beside the folder of its worktrees)
ICML_EVENTS = next((p for p in (Path(__file__).resolve().parents[i] / "shared" / "data" / "icml2024-events.json"
                                for i in (2, 3)) if p.exists()), Path("icml2024-events.json"))


def read(name: str | Path, fmt: str | None = None, context=None) -> tuple[list[Record], list[Problem]]:
    items = list(read_records(FIXTURES / name if isinstance(name, str) else name, fmt, context))
    assert all(isinstance(i, (Record, Problem)) for i in items)
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Problem)]


def by_key(records: list[Record]) -> dict[str, Record]:
    return {r.ids.get("key") or r.ids.get("arxiv") or r.ids.get("openreview") or r.title: r for r in records}


def names(record: Record) -> list[str]:
    return [a.name for a in record.authors]


def _with_strings() -> ImportContext:
    context = ImportContext()
    list(read_records(FIXTURES / "strings.bib", None, context))
    return context


# BibTeX -------------------------------------------------------------------------------------

def test_bibtex_macros_from_an_earlier_string_file_apply_to_later_files():
    context = ImportContext()
    records, problems = read("strings.bib", context=context)
    assert records == [] and problems == []
    records, _ = read("alfolio.bib", context=context)
    assert by_key(records)["lovelace2024gala"].venue == \
        "Proceedings of the 41st International Conference on Machine Learning"
    # Without the string file the macro stays as written, as BibTeX prints an undefined one.
    records, _ = read("alfolio.bib")
    assert by_key(records)["lovelace2024gala"].venue == "pmlr"


def test_bibtex_keeps_title_authors_and_abstract_exactly():
    records, _ = read("alfolio.bib", context=_with_strings())
    gala = by_key(records)["lovelace2024gala"]
    assert gala.title == "GALA3D: Towards Émile's $\\mathcal{O}(T^{2/3})$ Regret in Tübingen"
    assert names(gala) == ["Ada Lovelace", "OpenAI", "Jan van der Berg", "Martin King Jr.",
                           "Ludwig van Beethoven", "Émile Zola"]
    assert gala.abstract == (
        "We present *GALA3D*, with **layout** guidance: 50% faster & smaller, see "
        "<https://example.org/~ada/x_y%20z> and [the docs](https://example.org/docs) (Code is public.). "
        "Regret is $\\mathcal{O}(T^{2/3})$ and $$\\sum_i x_i$$ too.\n\n"
        "A second paragraph, with “quotes” – and a dash.")
    assert (gala.year, gala.date, gala.venue_kind) == (2024, "2024-07", "conference")
    assert gala.keywords == ["3D generation", "Gaussian splatting"]


def test_bibtex_alfolio_fields_become_status_links_and_extra():
    records, _ = read("alfolio.bib")
    gala = by_key(records)["lovelace2024gala"]
    assert gala.status == "Best Paper Award"
    assert gala.links == {"arxiv": "https://arxiv.org/abs/2402.07207", "code": "https://github.com/example/gala3d",
                          "slides": "https://example.org/slides.pdf", "video": "https://youtu.be/xyz",
                          "project": "https://example.org/gala3d/"}
    assert gala.ids == {"key": "lovelace2024gala", "arxiv": "2402.07207"}
    # a file name relative to the site it came from is not a link, but it is not lost either
    assert gala.extra == {"pdf": "gala3d.pdf", "abbr": "ICML", "selected": "true", "bibtex_show": "true"}


def test_bibtex_url_that_is_no_web_link_is_kept_in_extra(tmp_path):
    """A url field naming a file or an ftp address is no link the site shows, but the import keeps it."""
    bib = tmp_path / "links.bib"
    bib.write_text("@article{a, title={A}, author={Ann Lee}, year={2024}, journal={J}, url={paper.pdf}}\n"
                   "@article{b, title={B}, author={Ann Lee}, year={2024}, journal={J}, url={ftp://example.org/b.ps}}\n"
                   "@article{c, title={C}, author={Ann Lee}, year={2024}, journal={J}, url={https://example.org/c}}\n")
    records, problems = read(bib)
    assert problems == []
    records = by_key(records)
    assert (records["a"].links, records["a"].extra) == ({}, {"url": "paper.pdf"})
    assert (records["b"].links, records["b"].extra) == ({}, {"url": "ftp://example.org/b.ps"})
    assert (records["c"].links, records["c"].extra) == ({"url": "https://example.org/c"}, {})


def test_bibtex_entry_types_give_venue_kinds():
    records, _ = read("alfolio.bib")
    kinds = {key: (r.venue, r.venue_kind) for key, r in by_key(records).items()}
    assert kinds["turing1950"] == ("Mind", "journal")
    assert kinds["scholar2024"] == ("arXiv", "preprint")  # Google Scholar's "arXiv preprint arXiv:..."
    assert kinds["doe2023eprint"] == ("arXiv", "preprint")
    assert kinds["wshop2024"] == ("ICML 2024 Workshop on Theory", "workshop")
    turing = by_key(records)["turing1950"]
    assert (turing.date, turing.ids["doi"]) == ("1950-10", "10.1093/mind/LIX.236.433")
    assert turing.extra["pages"] == "433–460" and turing.extra["publisher"] == "Oxford University Press"
    assert by_key(records)["scholar2024"].ids["arxiv"] == "2401.01234"
    assert by_key(records)["doe2023eprint"].ids["arxiv"] == "2310.00001"  # version dropped


def test_bibtex_bad_entries_are_problems_with_lines_and_the_rest_is_read():
    records, problems = read("alfolio.bib")
    assert [r.ids["key"] for r in records] == ["lovelace2024gala", "turing1950", "scholar2024",
                                              "doe2023eprint", "wshop2024"]
    messages = [str(p) for p in problems]
    assert len(messages) == 3
    assert messages[0].startswith(f"{FIXTURES / 'alfolio.bib'}:59: not valid BibTeX (")
    assert messages[1] == f"{FIXTURES / 'alfolio.bib'}:64: entry 'deep2024' cannot be read: braces nested too deeply"
    assert messages[2] == (f"{FIXTURES / 'alfolio.bib'}:70: duplicate key 'lovelace2024gala': an entry at line 6 "
                           f"has it too; this one is skipped (give it another key)")
    assert all("\n" not in m for m in messages)


def test_bibtex_tex_escapes_in_links_are_decoded_and_the_url_otherwise_kept_as_typed():
    """Issue 38, item 4: `\\_`, `\\#`, `\\~{}`... stayed in DOIs and URLs and broke the links."""
    chapter, page = read("escapes.bib")[0]
    assert chapter.ids["doi"] == "10.1007/3-540-60164-3_27"
    assert chapter.links == {"doi": "https://doi.org/10.1007/3-540-60164-3_27", "url": "http://x.org/p#a"}
    assert page.links == {
        "url": "https://example.org/~turing/a--b/~x/q?a=1&b=50%25_$c",  # `--` no dash, `%25` no comment
        "pdf": "https://example.org/~turing/paper_v2.pdf",  # braced twice, and `\textasciitilde ` eats its space
        "code": "https://example.org/repo_name"}  # in a \url{}
    assert page.extra == {"biburl": "https://example.org/~turing/rec--1.bib"}


def test_a_bib_file_without_entries_says_so(tmp_path):
    path = tmp_path / "notes.bib"
    path.write_text("Not BibTeX: notes someone saved with the wrong name.\n", encoding="utf-8")
    [problem] = read_records(path)
    assert isinstance(problem, FileProblem) and problem.message.startswith("no BibTeX entries found")


def test_bibtex_pmlr_volume_gives_its_papers_venue_and_date(tmp_path):
    records, problems = read("pmlr.bib")
    assert problems == []
    volume, gala, phiflow = records
    assert volume.skip_reason and not gala.skip_reason
    assert gala.title == "GALA3D: Towards Text-to-3D Complex Scene Generation"
    assert phiflow.title == ("$\\bf{\\Phi}_\\textrm{Flow}$: Differentiable Simulations for PyTorch, "
                             "TensorFlow and Jax")
    assert phiflow.abstract == "We present $\\Phi_\\textrm{Flow}$, a Python toolkit."
    for paper in (gala, phiflow):
        assert paper.venue == "Proceedings of the 41st International Conference on Machine Learning"
        assert (paper.venue_kind, paper.year, paper.date) == ("conference", 2024, "2024-07-08")
    assert gala.links == {"code": "https://github.com/VDIGPKU/GALA3D",
                          "openreview": "https://openreview.net/forum?id=Kp4kzYpGbz"}
    assert gala.ids["openreview"] == "Kp4kzYpGbz"


def test_bibtex_from_dblp():
    records, problems = read("dblp.bib")
    assert problems == []
    paper, corr = records
    assert paper.title == ("GALA3D: Towards Text-to-3D Complex Scene Generation via Layout-guided "
                           "Generative Gaussian Splatting")
    assert names(paper) == ["Xiaoyu Zhou", "Xingjian Ran", "Jun Zhu"]  # DBLP's homonym number dropped
    assert paper.venue == "Forty-first International Conference on Machine Learning, ICML 2024, Vienna, Austria, July 21-27, 2024"
    assert (paper.venue_kind, paper.ids["openreview"]) == ("conference", "Kp4kzYpGbz")
    assert (corr.venue, corr.venue_kind, corr.ids["arxiv"]) == ("arXiv", "preprint", "2402.07207")


def test_bibtex_text_holding_the_decoders_own_private_use_marks_reads_as_written(tmp_path):
    """The decoder holds URLs aside behind U+E000 n U+E001; text that has those characters itself
    (a PDF's stray glyphs) keeps them, and never takes a URL's place or points past the held ones."""
    bib = tmp_path / "x.bib"
    bib.write_text('@misc{a, title = {Glyphs \ue0000\ue001 and \\emph{more}},\n'
                   '  abstract = {See \ue0000\ue001 and \\url{https://example.org/a}; also \ue0007\ue001 -- done.}}\n',
                   encoding="utf-8")
    records, problems = read(bib)
    assert problems == []
    assert records[0].title == "Glyphs \ue0000\ue001 and more"
    assert "See \ue0000\ue001 and " in records[0].abstract and "https://example.org/a" in records[0].abstract
    assert "also \ue0007\ue001 – done." in records[0].abstract


def test_bibtex_crossref_concatenation_and_case_insensitive_fields(tmp_path):
    bib = tmp_path / "x.bib"
    bib.write_text('@string{conf = {Conference on Things}}\n'
                   '@proceedings{things24, title = {Proceedings of the } # conf # " 2024", year = 2024}\n'
                   '@proceedings{other, title = {Other}}\n'
                   '@INPROCEEDINGS{a, TITLE = "A {\\"U}ber Paper", AUTHOR = "Doe, J.", CROSSREF = {things24},\n'
                   '  Month = "9"}\n'
                   '@misc{empty, title = {Empty Month}, year = 2020, month = {}}\n'
                   '@misc{b, title = {T}, Title = {U}}\n'
                   '@misc{c, title = {Web}, howpublished = {\\url{https://example.org/c}},\n'
                   '  file = {Full Text:/home/ada/Zotero/storage/ABCD/c.pdf:application/pdf}}\n', encoding="utf-8")
    records, problems = read(bib)
    a = by_key(records)["a"]
    assert (a.title, names(a), a.venue, a.date) == ("A Über Paper", ["J. Doe"],
                                                    "Proceedings of the Conference on Things 2024", "2024-09")
    assert by_key(records)["empty"].date == "2020"
    assert [str(p) for p in problems] == [f"{bib}:7: entry 'b' cannot be read: field 'title' given twice "
                                          f"(as 'title' and 'Title')"]
    c = by_key(records)["c"]
    assert c.links == {"url": "https://example.org/c"} and "file" not in c.extra  # a local path stays private


def test_bibtex_doubly_escaped_tex_reads_as_the_tex_it_escapes():
    """PMLR's sources escape some abstracts' TeX once more (`\\$i\\\\in[K]\\$`): such a field reads as
    its singly escaped twin does; a field with one `\\$` (a literal dollar) or any plain TeX is left as TeX."""
    records, problems = read("double-escaped.bib")
    assert problems == []
    doubled, single, dollar, dollars = records
    assert doubled.abstract == single.abstract == (
        "For each arm $i\\in[K]$ we bound the regret of *Stage I* by $O(\\sqrt{T})$, which is 50% better.")
    assert dollar.abstract == "Each pull costs $5 and the line ends here Next, *cheaply*."
    assert dollars.abstract == "A pull costs $5, or $3 with a coupon."


def test_bibtex_subtitle_joins_the_title(tmp_path):
    bib = tmp_path / "x.bib"
    bib.write_text("@book{a, title = {Things}, subtitle = {A {Very} Short Introduction}, year = 2020}\n"
                   "@book{b, title = {Why Things?}, subtitle = {An Answer}, year = 2020}\n"
                   "@book{c, title = {Only a Title}, subtitle = {}, year = 2020}\n", encoding="utf-8")
    records, problems = read(bib)
    assert problems == []
    assert [r.title for r in records] == ["Things: A Very Short Introduction", "Why Things? An Answer", "Only a Title"]
    assert all("subtitle" not in r.extra for r in records)


# CSV / TSV ----------------------------------------------------------------------------------

def test_csv_miniconf_columns_names_and_quoted_newlines():
    records, problems = read("miniconf.csv")
    first, second, third = records
    assert first.ids == {"key": "icml-101", "openreview": "AbCdEf123"}
    assert first.title == "GALA3D: Generative 3D Gaussians"
    assert names(first) == ["Ada Lovelace", "Alan Turing", "Émile Zola"]
    # LaTeX-looking characters of plain text stay: `~` means "about", `%` is a percent
    assert first.abstract == ("We present GALA3D, with regret $\\mathcal{O}(T^{2/3})$ and 50% less ~memory.\n\n"
                              "A second paragraph, with a comma, and \"quotes\".")
    assert first.keywords == ["3D generation", "Gaussian splatting"]
    assert first.links == {"pdf": "https://example.org/gala3d.pdf",
                           "openreview": "https://openreview.net/forum?id=AbCdEf123"}
    assert first.extra == {"sessions": "Poster Session 1", "Track": "Main"}
    assert names(second) == ["Ada Lovelace", "Alan Turing"]  # "Last, First; Last, First"
    assert names(third) == ["Grace Hopper", "Barbara Liskov", "Donald E. Knuth"]
    assert [(r.line, r.number) for r in records] == [(2, 1), (5, 2), (6, 3)]
    assert [str(p) for p in problems] == [
        f"{FIXTURES / 'miniconf.csv'}:8: row 4 has 11 fields but the header has 9: is a field with a ',' not quoted?"]


def test_tsv_with_bom_crlf_and_unusual_headers():
    records, problems = read("bom.tsv")
    assert problems == []
    [record] = records
    assert (record.title, names(record), record.year, record.status, record.ids) == (
        "Tabbed Title", ["Diederik P. Kingma"], 2024, "spotlight", {"key": "7"})


def test_csv_column_mapping_names_unusual_headers(tmp_path):
    path = tmp_path / "talks.csv"
    path.write_text("Paper Name;Presenters;Blurb;Room\nA Mapped Title;Ada Lovelace, Alan Turing;Text.;B1\n",
                    encoding="utf-8")
    records, problems = read(path)
    assert records == [] and "no title or abstract column among: Paper Name, Presenters, Blurb, Room" in str(problems[0])
    context = ImportContext(columns={"title": "paper name", "authors": "Presenters", "abstract": "Blurb"})
    [record], problems = read(path, context=context)
    assert problems == []
    assert (record.title, names(record), record.abstract, record.extra) == (
        "A Mapped Title", ["Ada Lovelace", "Alan Turing"], "Text.", {"Room": "B1"})
    _, problems = read(path, context=ImportContext(columns={"title": "Headline"}))
    assert [str(p) for p in problems] == [
        f"{path}:1: --column title=Headline: no column 'Headline' in the header; columns: Paper Name, Presenters, "
        f"Blurb, Room"]
    _, problems = read(path, context=ImportContext(columns={"titel": "Paper Name"}))
    assert problems[0].message.startswith("--column titel=Paper Name: unknown field 'titel' (fields: title, authors")


@pytest.mark.parametrize("cell, expected", [
    ("Ada Lovelace | Alan Turing", ["Ada Lovelace", "Alan Turing"]),
    ("Lovelace, Ada; Turing, Alan", ["Ada Lovelace", "Alan Turing"]),
    ("Kingma, Diederik P.", ["Diederik P. Kingma"]),
    ("Lovelace, Ada", ["Ada Lovelace"]),
    ("A. Turing, A. Lovelace, and C. Babbage", ["A. Turing", "A. Lovelace", "C. Babbage"]),
    ("Ada Lovelace and Alan Turing", ["Ada Lovelace", "Alan Turing"]),
    ("Philipp Holl, Nils Thuerey", ["Philipp Holl", "Nils Thuerey"]),
])
def test_author_cells_split_on_the_separator_they_use(cell, expected):
    from papersite.importers.text import split_names
    assert split_names(cell) == expected


# JSON ---------------------------------------------------------------------------------------

def test_json_object_holding_an_array_with_paperlists_names():
    records, problems = read("paperlists.json")
    gala, untitled = records
    assert problems == []
    assert (gala.title, names(gala), gala.status, gala.keywords) == (
        "GALA3D: Layout-guided Gaussians", ["Xiaoyu Zhou", "Xingjian Ran", "Yajiao Xiong"], "oral", ["3D", "Gaussians"])
    assert gala.abstract == "An abstract with *emphasis* and 100% of the ~budget."
    assert gala.links["code"] == "https://github.com/example/gala3d" and gala.ids["openreview"] == "ZzZ111"
    assert [(a.affiliation, a.orcid) for a in gala.authors] == [
        ("Peking University", "0000-0002-1825-0097"), ("", ""), ("Google DeepMind; McGill University", "")]
    assert gala.extra == {"track": "main", "gs_citation": -1}  # e-mail domains left out
    assert (untitled.title, untitled.line) == ("", 8)  # the importer reports a record without a title


def test_a_single_json_paper_is_one_record_not_a_wrapper_of_its_authors():
    """Issue 38, item 2: the list of author objects inside one paper was read as the records."""
    [paper], problems = read("single-paper.json")
    assert problems == []
    assert (paper.title, paper.venue, paper.keywords, paper.line) == (
        "One Paper, Exported Alone", "ICML 2024", ["engines", "computation"], 1)
    assert [(a.name, a.affiliation) for a in paper.authors] == [
        ("Ada Lovelace", "Analytical Engine Society"), ("Alan Turing", "Bletchley Park")]


def test_openreview_notes_keyed_by_id_are_each_a_record():
    """Issue 38, item 2: `{"abc": {"id": "abc", "content": {...}}, ...}` was not read at all."""
    path = FIXTURES / "openreview-by-id.json"
    assert detect_format(path) == "openreview"
    records, problems = read(path)
    assert problems == []
    assert [(r.title, r.ids["openreview"], r.venue, r.line) for r in records] == [
        ("Notes Keyed by Their Ids", "XyZ0001abc", "ICLR.cc/2024/Conference", 2),
        ("A Second Keyed Note", "XyZ0002def", "ICLR.cc/2024/Conference", 11)]
    assert names(records[1]) == ["Alan Turing", "Grace Hopper"]


@pytest.mark.parametrize("text, titles", [
    # a wrapper with a title of its own is still a wrapper: its list is of papers
    ('{"title": "Accepted papers", "papers": [{"title": "P1", "abstract": "A."}, {"title": "P2"}]}', ["P1", "P2"]),
    # papers titled under a name only tables use: the first list of objects, as before
    ('{"count": 1, "items": [{"name": "Named Paper", "authors": "Ada Lovelace"}]}', ["Named Paper"]),
    # a paper whose members are lists of objects (its reviews, its authors) is one paper
    ('{"title": "Reviewed", "abstract": "A.", "reviews": [{"title": "R1", "abstract": "Fine."}]}', ["Reviewed"]),
    ('{"paper_title": "Tabled", "author": [{"name": "Ada Lovelace"}]}', ["Tabled"]),
    # flat records keyed by id
    ('{"p1": {"title": "K1", "abstract": "A."},\n "p2": {"title": "K2"}}', ["K1", "K2"]),
    # a wrapper of no papers yet, as an empty array: no records, not one record without a title
    ('{"papers": []}', []),
    ('{\n  "notes": [\n  ]\n}', []),
])
def test_json_object_shapes(tmp_path, text, titles):
    path = tmp_path / "export.json"
    path.write_text(text, encoding="utf-8")
    records, problems = read(path)
    assert ([r.title for r in records], problems) == (titles, [])


def test_json_lines_event_export_marks_non_papers_and_keeps_going():
    records, problems = read("events.jsonl")
    assert [(r.title, r.skip_reason) for r in records] == [
        ("First Event Paper", ""), ("A Workshop", "Workshop: not a paper"),
        ("Chelsea Finn", "Invited Talk: not a paper")]
    assert names(records[0]) == ["Philipp Holl", "Nils Thuerey"]
    assert records[0].links == {"url": "https://ICML.cc//virtual/2024/poster/35005"}
    assert [str(p) for p in problems] == [
        f"{FIXTURES / 'events.jsonl'}:3: not valid JSON: Unterminated string starting at (column 28)"]


def test_openreview_v1_notes():
    records, problems = read("openreview-v1.json")
    assert problems == []
    accepted, rejected, decided = records
    assert (accepted.title, names(accepted), accepted.keywords) == (
        "Grokking at the Edge", ["Ada Lovelace", "Alan Turing"], ["grokking", "generalization"])
    assert accepted.abstract == "We study grokking with $\\ell_2$ weight decay."
    assert (accepted.venue, accepted.status, accepted.year, accepted.date) == (
        "ICLR.cc/2023/Conference", "notable top 5%", 2023, "2023-02-01")
    assert accepted.ids == {"openreview": "AbCdEf123"}
    assert accepted.links == {"openreview": "https://openreview.net/forum?id=AbCdEf123",
                              "pdf": "https://openreview.net/pdf/0123456789abcdef.pdf"}
    assert accepted.extra["authorids"] == ["~Ada_Lovelace1"]  # the e-mail address is left out
    assert "alan@example.org" not in json.dumps(accepted.extra)
    assert accepted.extra["TL;DR"] == "Grokking, explained." and "_bibtex" not in accepted.extra
    assert rejected.status == "rejected"
    assert decided.status == "oral"  # from the decision among the note's replies


def test_openreview_v2_notes():
    [note], problems = read("openreview-v2.json")
    assert problems == []
    assert (note.title, names(note), note.status, note.venue, note.year) == (
        "Spotlight on Calibration", ["Émile Zola", "Ada Lovelace"], "spotlight", "ICLR.cc/2024/Conference", 2024)
    assert note.abstract == "Calibration matters.\n\nA second paragraph."
    assert note.extra["primary_area"] == "probabilistic methods"
    assert note.links["pdf"] == "https://openreview.net/pdf/fedcba9876543210.pdf"


def test_csl_json_from_zotero():
    records, problems = read("zotero.json")
    assert problems == []
    gala, preprint, journal = records
    assert names(gala) == ["Xiaoyu Zhou", "Jan van der Berg", "Google DeepMind", "Martin King Jr."]
    assert gala.abstract == "First paragraph with $\\mathcal{O}(n)$ math, ~10x faster.\nSecond paragraph, Tübingen."
    assert (gala.venue, gala.venue_kind, gala.year, gala.date) == (
        "Proceedings of the 41st International Conference on Machine Learning", "conference", 2024, "2024-07")
    assert gala.keywords == ["3D generation", "Gaussian splatting"]
    assert (preprint.venue, preprint.venue_kind, preprint.ids) == (
        "arXiv", "preprint", {"key": "doe2024attention", "doi": "10.48550/arXiv.2401.01234", "arxiv": "2401.01234"})
    assert (journal.venue_kind, journal.date, journal.ids["doi"]) == ("journal", "1950-10", "10.1093/mind/LIX.236.433")


# RIS ----------------------------------------------------------------------------------------

def test_ris_crlf_continuation_lines_partial_dates_and_a_missing_end_tag():
    records, problems = read("zotero.ris")
    assert problems == []
    gala, turing, preprint = records
    assert gala.title == "GALA3D: Towards Text-to-3D Generation"
    assert names(gala) == ["Xiaoyu Zhou", "Jan van der Berg", "Martin King Jr."]
    assert gala.abstract == ("We present GALA3D, a layout-guided method with $\\mathcal{O}(n)$ cost "
                             "that continues on a second line, 50% cheaper.")
    assert (gala.year, gala.date, gala.venue_kind, gala.status) == (2024, "2024-07-21", "conference", "oral")
    assert gala.ids == {"doi": "10.5555/12345", "arxiv": "2402.07207"}
    assert (turing.venue, turing.venue_kind, turing.date, names(turing)) == ("Mind", "journal", "1950", ["A. M. Turing"])
    assert (preprint.title, preprint.date, preprint.venue_kind) == ("A Preprint Without Its End Tag", "2023-10", "preprint")
    assert [r.line for r in records] == [3, 22, 30]


# arXiv and OAI-PMH --------------------------------------------------------------------------

def test_arxiv_api_atom():
    records, problems = read("arxiv-api.xml")
    assert problems == []
    gala, old = records
    assert gala.title == ("GALA3D: Towards Text-to-3D Complex Scene Generation via Layout-guided "
                          "Generative Gaussian Splatting")
    assert gala.abstract == ("We present GALA3D, generative 3D GAussians with LAyout-guided control, with "
                             "$\\mathcal{O}(n)$ cost & a Tübingen-grade ~2x speed-up.")
    assert gala.authors[0].name == "Xiaoyu Zhou" and gala.authors[0].affiliation == "Peking University"
    assert gala.ids == {"arxiv": "2402.07207", "doi": "10.5555/gala3d.2024"}
    assert gala.links["pdf"] == "http://arxiv.org/pdf/2402.07207v2"
    assert (gala.date, gala.venue, gala.venue_kind, gala.extra["primary_category"]) == (
        "2024-02-11", "arXiv", "preprint", "cs.CV")
    assert old.ids == {"arxiv": "hep-th/9901001"}


def test_oai_pmh_arxiv_format_and_deleted_records():
    records, problems = read("oai-arxiv.xml")
    assert problems == []
    gala, deleted = records
    assert names(gala) == ["Xiaoyu Zhou", "Martin King Jr"]
    assert (gala.date, gala.ids["arxiv"], gala.extra["categories"]) == ("2024-02-11", "2402.07207", ["cs.CV", "cs.AI"])
    assert deleted.skip_reason.startswith("deleted from the repository") and deleted.ids == {"arxiv": "2401.99999"}


def test_oai_pmh_dublin_core_and_arxiv_raw_and_a_file_cut_short():
    records, problems = read("oai-dc.xml")
    dc, raw = records
    assert (dc.title, names(dc), dc.abstract, dc.date, dc.extra["comment"]) == (
        "GALA3D: Towards Text-to-3D Complex Scene Generation", ["Xiaoyu Zhou", "Jan van der Berg"],
        "We present GALA3D.", "2024-02-11", "18 pages")
    assert (names(raw), raw.date) == (["Ada Lovelace", "Alan Turing", "Grace Hopper"], "2024-02-01")
    assert [str(p) for p in problems] == [f"{FIXTURES / 'oai-dc.xml'}:44: the XML ends inside an element: "
                                          f"is the file cut short?"]


def test_arxiv_metadata_snapshot_json_lines():
    """Kaggle's arXiv snapshot: names from `authors_parsed` (the `authors` string's affiliations have
    commas), the date from the first version, else `update_date`; a line cut short is reported."""
    path = FIXTURES / "arxiv-snapshot.jsonl"
    assert detect_format(path) == "json"
    records, problems = read(path)
    first, unversioned, undated = records
    assert [(a.name, a.affiliation) for a in first.authors] == [("J. Doe", "Testville, Institute of Examples"),
                                                                  ("R. Roe", "")]
    assert (first.year, first.date, first.venue, first.venue_kind) == (2007, "2007-04-02", "arXiv", "preprint")
    assert (first.ids["arxiv"], first.ids["doi"], first.extra["journal-ref"]) == (
        "0704.0001", "10.1234/test.0001", "Test J. Phys. 1 (2008) 1-4")
    assert first.abstract == "We describe a crystal that exists only in this test."
    assert first.extra["categories"] == ["physics.acc-ph", "hep-ex"] and "authors_parsed" not in first.extra
    assert names(unversioned) == ["A. Smith", "B. Jones Jr"]
    assert (unversioned.year, unversioned.date) == (2008, "2008-11-13")
    assert (names(undated), undated.year, undated.date) == (["A. Smith"], 2009, "2009-01-05")
    assert [(p.line, "not valid JSON" in str(p)) for p in problems] == [(4, True)]


@pytest.mark.parametrize("name", ["bomb.xml", "external.xml"])
def test_xml_entities_are_refused_not_expanded(name):
    records, problems = read(name)
    assert records == []
    assert [p.message for p in problems] == [
        "the XML declares entities; exports never need them and they are not expanded"]


# TeX punctuation, the same from every reader ---------------------------------------------

TEX_TITLE = "Nets That Have ``Grokked'' --- and Why"
TEX_ABSTRACT = ("Networks that have ``grokked'' generalise late---long after they fit. A narrow ``teacher NN\" "
                "agrees with the labels, and a `flat' prior finds it in 10--20 steps.")
TYPESET_TITLE = "Nets That Have “Grokked” — and Why"
TYPESET_ABSTRACT = ("Networks that have “grokked” generalise late—long after they fit. A narrow “teacher NN” "
                    "agrees with the labels, and a ‘flat’ prior finds it in 10–20 steps.")


def _export(fmt: str, title: str, abstract: str) -> tuple[str, str]:
    """A file of one record in the format, named so that its format is detected."""
    xml = html.escape
    if fmt == "bibtex":
        return "x.bib", (f"@inproceedings{{k,\n  title = {{{title}}},\n  author = {{Lovelace, Ada}},\n"
                         f"  booktitle = {{ICML 2024}},\n  year = {{2024}},\n  abstract = {{{abstract}}},\n}}\n")
    if fmt == "json":
        return "x.json", json.dumps([{"title": title, "authors": "Ada Lovelace", "abstract": abstract,
                                      "venue": "ICML 2024", "year": 2024}])
    if fmt == "csljson":
        return "x.json", json.dumps([{"id": "k", "type": "paper-conference", "title": title, "abstract": abstract,
                                      "author": [{"family": "Lovelace", "given": "Ada"}],
                                      "issued": {"date-parts": [[2024]]}, "container-title": "ICML 2024"}])
    if fmt == "openreview":
        return "x.json", json.dumps([{"id": "AbCdEf123", "content": {
            "title": {"value": title}, "authors": {"value": ["Ada Lovelace"]}, "abstract": {"value": abstract},
            "venueid": {"value": "ICML.cc/2024/Conference"}}}])
    if fmt == "ris":
        return "x.ris", (f"TY  - CONF\nTI  - {title}\nAU  - Lovelace, Ada\nPY  - 2024\nT2  - ICML 2024\n"
                         f"AB  - {abstract}\nER  - \n")
    if fmt == "csv":
        cells = [title, "Ada Lovelace", abstract]
        return "x.csv", "title,authors,abstract\n" + ",".join('"' + c.replace('"', '""') + '"' for c in cells) + "\n"
    if fmt == "arxiv":
        return "x.xml", (f'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2402.07207v1</id>'
                         f"<published>2024-02-11T00:00:00Z</published><title>{xml(title)}</title>"
                         f"<summary>{xml(abstract)}</summary><author><name>Ada Lovelace</name></author></entry></feed>")
    if fmt == "oai-pmh":
        return "x.xml", ('<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><record><header>'
                         "<identifier>oai:arXiv.org:2402.07207</identifier></header><metadata>"
                         '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" '
                         f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{xml(title)}</dc:title>'
                         f"<dc:creator>Lovelace, Ada</dc:creator><dc:description>{xml(abstract)}</dc:description>"
                         "<dc:date>2024-02-11</dc:date></oai_dc:dc></metadata></record></ListRecords></OAI-PMH>")
    assert fmt == "seed"
    return "x.txt", f"ICML 2024 Papers\n\n{abstract}\n"


@pytest.mark.parametrize("fmt", ["bibtex", "json", "csljson", "openreview", "ris", "csv", "arxiv", "oai-pmh", "seed"])
def test_every_reader_reads_tex_quotes_and_dashes_as_tex_prints_them(tmp_path, fmt):
    name, text = _export(fmt, TEX_TITLE, TEX_ABSTRACT)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert detect_format(path) == fmt
    [record], problems = read(path)
    assert problems == []
    assert record.abstract == TYPESET_ABSTRACT
    assert record.title == ("" if fmt == "seed" else TYPESET_TITLE)  # seed text has no title to read


@pytest.mark.parametrize("fmt", ["json", "csv", "ris", "arxiv"])
def test_code_math_urls_and_flags_keep_their_backticks_and_dashes(tmp_path, fmt):
    """Backticks a person typed around code, and dashes in math, URLs, flags and rules, are not TeX's."""
    kept = ("Run `train.py --lr 0.1` or ``DoWhy``; `don't` and `print('a')` are code. With $a--b$ and $f'$, "
            "see https://example.org/a--b---c and <https://example.org/x--y>. Pass --verbose, not ---- this, "
            "and an ``unclosed quote.")
    name, text = _export(fmt, "A Title -- With a Spaced Dash", kept)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    [record], _ = read(path)
    assert record.abstract == kept
    assert record.title == "A Title – With a Spaced Dash"


def test_tex_punctuation_keeps_a_markdown_rule_and_ends_a_quote_with_its_paragraph():
    assert tex_punctuation("Above\n---\nbelow --- here") == "Above\n---\nbelow — here"
    assert tex_punctuation("``he said `hi'''") == "“he said ‘hi’”"
    assert tex_punctuation("``a\n\nb'' and \\`e") == "``a\n\nb'' and \\`e"  # \` is TeX's grave accent


# Detection ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [
    ("alfolio.bib", "bibtex"), ("strings.bib", "bibtex"), ("miniconf.csv", "csv"), ("bom.tsv", "tsv"),
    ("zotero.json", "csljson"), ("openreview-v1.json", "openreview"), ("openreview-v2.json", "openreview"),
    ("paperlists.json", "json"), ("events.jsonl", "json"), ("zotero.ris", "ris"), ("arxiv-api.xml", "arxiv"),
    ("oai-arxiv.xml", "oai-pmh"), ("oai-dc.xml", "oai-pmh"),
])
def test_detection_from_content(tmp_path, name, fmt):
    assert detect_format(FIXTURES / name) == fmt
    if fmt not in ("csv", "tsv"):  # the content alone tells, whatever the file is called
        renamed = tmp_path / "export.dat"
        shutil.copy(FIXTURES / name, renamed)
        assert detect_format(renamed) == fmt


def test_detection_recognises_seed_text_and_tables_without_an_extension(tmp_path):
    seed = tmp_path / "abstracts"
    seed.write_text("ICML 2024 Papers\n\nAn abstract.\n", encoding="utf-8")
    assert detect_format(seed) == "seed"
    table = tmp_path / "export"
    table.write_text("Title;Authors\nA;B\n", encoding="utf-8")
    assert detect_format(table) == "csv"
    table.write_text("id\ttitle\n1\tA\n", encoding="utf-8")
    assert detect_format(table) == "tsv"
    # an explicit .csv is a table, whatever its first cell looks like
    odd = tmp_path / "odd.csv"
    odd.write_text("[id],title\n1,A\n", encoding="utf-8")
    assert detect_format(odd) == "csv" and read(odd)[0][0].title == "A"


def test_seed_text_goes_to_the_seed_reader(tmp_path):
    pytest.importorskip("papersite.importers.seed")  # the importer core's reader
    seed = tmp_path / "abstracts"
    seed.write_text("ICML 2024 Papers\n\nAn abstract about grokking.\n", encoding="utf-8")
    [record], problems = read(seed)
    assert (record.abstract, problems) == ("An abstract about grokking.", [])


def test_format_option_overrides_detection(tmp_path):
    path = tmp_path / "papers.txt"
    path.write_text("title,authors\nOverridden,Ada Lovelace\n", encoding="utf-8")
    [record], problems = read(path, fmt="csv")
    assert (record.title, names(record), problems) == ("Overridden", ["Ada Lovelace"], [])


def test_unknown_format_unreadable_and_undetectable_files_are_one_problem(tmp_path):
    path = tmp_path / "papers.dat"
    path.write_bytes(b"\x00\x01 binary")
    [problem] = read(path)[1]
    assert isinstance(problem, FileProblem) and problem.message.startswith("format not recognised: ")
    assert problem.message.endswith(f"if it is one of {', '.join(FORMATS)}, name it with --format NAME")
    assert "unknown format 'endnote'" in read(path, fmt="endnote")[1][0].message
    assert read(tmp_path / "missing.bib")[1][0].message.startswith("cannot read: ")
    latin = tmp_path / "latin.bib"
    latin.write_bytes(b"@misc{a,\n title = {Caf\xe9}}\n")
    [problem] = read(latin)[1]
    assert (problem.line, problem.message.split(" (")[0]) == (2, "not UTF-8 text")


@pytest.mark.parametrize("content", ["", "\n \n\t\n", "\ufeff"])
def test_empty_seed_text_says_it_is_empty_not_json(tmp_path, content):
    path = tmp_path / "abstracts.txt"
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == "seed"
    records, [problem] = read(path)
    assert records == []
    assert (problem.line, problem.message) == (1, "empty file: expected a header such as 'ICML 2024 Papers'")


@pytest.mark.parametrize("name, content, message", [
    ("deep.json", "[" * 100_000, "1: not valid JSON: nested too deeply (column 2)"),
    ("deep.jsonl", '{"title": "kept"}\n' + "[" * 100_000 + "\n", "2: not valid JSON: nested too deeply (column 1)"),
    ("two.jsonl", '{"title": "kept"}\n{"title": "a"} {"title": "b"}\n',
     "2: not valid JSON: more than one value on the line (column 16)"),
    ("names.bib", "@misc{kept, title={Kept}}\n@misc{a, title={t}, author={Smith, J., Doe, J.}}\n",
     "2: entry 'a' cannot be read: Cannot split the following name `Smith, J., Doe, J.` into parts: "
     "Too many commas; separate names with ' and '"),
    ("deep.bib", "@misc{kept, title={Kept}}\n@misc{a, title = {" + "{\\em " * 5000 + "}" * 5000 + "}}\n",
     "2: entry 'a' cannot be read: braces nested too deeply"),
])
def test_hostile_input_is_a_problem_not_a_traceback(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    records, problems = read(path)
    assert [r.title for r in records] in ([], ["Kept"], ["kept"])
    assert [str(p) for p in problems] == [f"{path}:{message}"]


def test_protective_braces_are_read_however_deep(tmp_path):
    """Braces that only protect (no macro) are dropped in one pass: 5,000 deep reads at once."""
    path = tmp_path / "deep.bib"
    path.write_text("@misc{a, title = {" + "{" * 5000 + "Deep {Nets}" + "}" * 5000 + "}}\n", encoding="utf-8")
    records, problems = read(path)
    assert [r.title for r in records] == ["Deep Nets"] and problems == []


def test_reading_twice_gives_identical_records():
    for name in ("alfolio.bib", "miniconf.csv", "zotero.json", "zotero.ris", "oai-dc.xml", "double-escaped.bib",
                 "arxiv-snapshot.jsonl"):
        assert read(name) == read(name)


# The real ICML 2024 export (outside the repository; skipped when absent) ----------------------

@pytest.mark.skipif(not ICML_EVENTS.exists(), reason="needs ../shared/data/icml2024-events.json")
def test_real_icml_export_keeps_every_title_author_and_abstract():
    source = json.loads(ICML_EVENTS.read_text(encoding="utf-8"))
    records, problems = read(ICML_EVENTS)
    assert problems == [] and len(records) == len(source) == 2644
    decoded = []
    for raw, record in zip(source, records):
        assert names(record) == [n.strip() for n in raw["speakers/authors"].split(",") if n.strip()]
        assert bool(record.skip_reason) == (raw["type"] != "Poster")
        for got, given in ((record.title, raw["name"]), (record.abstract, raw["abstract"])):
            if " ".join(got.split()) != " ".join(tex_punctuation(given).split()):
                assert "\\" in given, (got, given)  # else only LaTeX outside math is ever changed
                decoded.append(got)
    # 80\% -> 80%, H{{\"o}}lder -> Hölder, \{ \# \} -> { # }, \\$ -> \$: five fields in 5,288
    assert len(decoded) == 5
    assert any("Hölder" in text and "Lévy" in text for text in decoded)
    # TeX's quotes and em dashes are read in every abstract; what is left is a human's code span
    assert [m for r in records for m in re.findall(r"``\w*``|``|---", r.title + " " + r.abstract)] == ["``DoWhy``"]


@pytest.mark.parametrize("name", ["blank.bib", "blank.ris", "blank.json"])
def test_a_blank_export_is_one_problem_not_zero_records(tmp_path, name):
    path = tmp_path / name
    path.write_text("  \n\n\t\n", encoding="utf-8")
    [problem] = read_records(path)
    assert isinstance(problem, Problem) and problem.path == path
    if name == "blank.bib":
        assert (problem.line, problem.message) == (1, "empty file: no records to import")


def test_a_bib_of_string_macros_alone_is_no_problem(tmp_path):
    path = tmp_path / "strings.bib"
    path.write_text('@string{icml = "International Conference on Machine Learning"}\n', encoding="utf-8")
    assert list(read_records(path)) == []


BIG = "9" * 5000


@pytest.mark.parametrize("name, content", [
    ("huge.json", '[{"title": "First"},\n {"title": "Huge", "n": ' + BIG + '},\n {"title": "Last"}]'),
    ("huge.jsonl", '{"title": "First"}\n{"title": "Huge", "n": ' + BIG + '}\n{"title": "Last"}\n'),
    ("wrapped.json", '{"count": ' + BIG + ', "papers": [{"title": "First"},\n {"title": "Huge", "n": [' + BIG +
     ']},\n {"title": "Last"}]}'),
    ("keyed.json", '{"a1": {"title": "First"},\n "b2": {"title": "Huge", "n": ' + BIG + '},\n "c3": {"title": "Last"}}'),
    ("csl.json", '[{"title": "First", "issued": {"date-parts": [[2024]]}},\n {"title": "Huge", "issued": '
                 '{"date-parts": [[' + BIG + ']]}},\n {"title": "Last", "issued": {"date-parts": [[2024, 7]]}}]'),
])
def test_a_number_too_long_costs_its_record_only_named_by_file_line_and_number(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    records, problems = read(path)
    assert [r.title for r in records] == ["First", "Last"]
    assert [str(p) for p in problems] == [f"{path}:2: record 2 has a whole number of 5,000 digits, too large to "
                                          "import (quote it in the file if it is meant as text): skipped"]


@pytest.mark.parametrize("name, deep, message", [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "record 2 is nested too deeply to read: skipped"),
    ("deep.jsonl", "[" * 100_000 + "]" * 100_000, "record 2 is nested too deeply to read: skipped"),
    ("sixty.json", '{"title": "Deep", "x": ' + "[" * 60 + "]" * 60 + "}",
     "record 2 is nested more than 48 levels deep, more than a content file may hold: skipped"),
    ("strings.json", '{"title": "Deep", "s": "[{\\"]}", "x": ' + "[" * 5000 + '"]}\\"["' + "]" * 5000 + "}",
     "record 2 is nested too deeply to read: skipped"),  # brackets in strings are no brackets
])
def test_a_record_nested_too_deep_costs_itself_only(tmp_path, name, deep, message):
    path = tmp_path / name
    lines = ['{"title": "First"}', deep, '{"title": "Last"}']
    path.write_text("\n".join(lines) + "\n" if name.endswith(".jsonl") else "[" + ",\n".join(lines) + "]",
                    encoding="utf-8")
    records, problems = read(path)
    assert [r.title for r in records] == ["First", "Last"]
    assert [str(p) for p in problems] == [f"{path}:2: {message}"]


def test_digits_no_date_can_hold_are_not_a_date_and_cost_nothing(tmp_path):
    path = tmp_path / "dates.bib"
    path.write_text("@inproceedings{a, title={Month}, year={2024}, month={" + BIG + "}}\n"
                    "@inproceedings{b, title={Day}, year={2024}, month=jul, day={" + BIG + "}}\n"
                    "@inproceedings{c, title={Superscript}, year={2024}, month=jul, day={\u00b2}}\n", encoding="utf-8")
    records, problems = read(path)
    assert problems == []
    assert [(r.title, r.date) for r in records] == [("Month", "2024"), ("Day", "2024-07"), ("Superscript", "2024-07")]
    csl = tmp_path / "csl.json"
    csl.write_text('[{"title": "Parts", "issued": {"date-parts": [["2024", "' + BIG + '"]]}}]', encoding="utf-8")
    [record], problems = read(csl)
    assert problems == [] and (record.year, record.date) == (2024, "2024")
