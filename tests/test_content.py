"""Front matter parsing and validation: one tiny site per error case."""
import pytest

from papersite.source.config import load_config
from papersite.source.content import PaperCache, find_content_files, load_papers, split_front_matter
from papersite.errors import SiteError
from tests.conftest import paper_text


def problems(site):
    with pytest.raises(SiteError) as caught:
        load_papers(site.config)
    return [str(p) for p in caught.value.problems]


def test_split_front_matter():
    front, body, line = split_front_matter("---\na: 1\nb: 2\n---\nBody text\n")
    assert front == "a: 1\nb: 2\n"
    assert body == "Body text\n"
    assert line == 5


def test_split_front_matter_handles_bom_and_crlf():
    front, body, line = split_front_matter("\ufeff---\r\nid: x\r\n---\r\nBody\r\n")
    assert front == "id: x\n" and body == "Body\n" and line == 4


def test_split_front_matter_requires_the_block():
    with pytest.raises(ValueError, match="missing front matter"):
        split_front_matter("just text")
    with pytest.raises(ValueError, match="not closed"):
        split_front_matter("---\nid: x\nno end")


def test_a_valid_paper(site):
    site.paper("a-paper", id="p1", topics="[learning-theory, generative-models]",
               extra="links: {pdf: 'https://x.org/a.pdf', doi: 10.1234/abc.5, arxiv: '2401.01234'}\n")
    [paper] = load_papers(site.config)
    assert paper.id == "p1" and paper.slug == "a-paper" and paper.title == "A Paper"
    assert paper.authors == ("Ada Lovelace",)
    assert paper.topics == ("learning-theory", "generative-models")
    assert dict(paper.links) == {"pdf": "https://x.org/a.pdf", "doi": "https://doi.org/10.1234/abc.5",
                                 "arxiv": "https://arxiv.org/abs/2401.01234"}
    assert paper.abstract == "An abstract about $x^2$ generalization."


CASES = {
    "malformed yaml": (paper_text(title="[unclosed"), ":4: invalid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence started on line 3)"),
    "missing front matter": ("Just an abstract.\n", ":1: missing front matter"),
    "missing id": (paper_text().replace("id: p1\n", ""), ":2: missing required field 'id'"),
    "title wrong type": (paper_text(title="[a, b]"), ":3: 'title' must be a string, not a list"),
    "authors wrong type": (paper_text().replace("[Ada Lovelace]", "Ada"), ":4: 'authors' must be a list"),
    "year wrong type": (paper_text().replace("year: 2024", "year: soon"), ":6: 'year' must be a whole number"),
    "year mismatch": (paper_text().replace("year: 2024", "year: 2023"), ":6: year 2023 does not match venue"),
    "unknown topic": (paper_text(topics="[learning-theroy]"),
                      ":7: unknown topic 'learning-theroy'; did you mean 'learning-theory'?"),
    "unknown venue": (paper_text(venue="icml-2042"), ":5: unknown venue 'icml-2042'; did you mean 'icml-2024'?"),
    "unknown key": (paper_text(extra="titel: x\n"), ":8: unknown key 'titel' (did you mean 'title'?)"),
    "bad link": (paper_text(extra="links: {pdf: 'javascript:alert(1)'}\n"), ":8: link 'pdf' must be an http(s) URL"),
    "unknown link kind": (paper_text(extra="links: {vidoe: 'https://x.org'}\n"),
                          ":8: unknown key 'vidoe' (did you mean 'video'?)"),
    "bad date": (paper_text(extra="date: 2024-13-01\n"), ":8: 'date' must be a date such as 2024-07-21"),
    "bad orcid": (paper_text().replace("[Ada Lovelace]", "[{name: Ada, orcid: '12'}]"),
                  ":4: 'orcid' must look like 0000-0002-1825-0097"),
    "author not a name": (paper_text().replace("[Ada Lovelace]", "[[Ada]]"), ":4: each author must be a name"),
    "bad bibtex key": (paper_text(extra="bibtex_key: 'a b'\n"), ":8: 'bibtex_key' may hold letters"),
    "et_al not true or false": (paper_text(extra="et_al: yes please\n"), ":8: 'et_al' must be true or false, not a string"),
    "python tag": (paper_text(extra="extra: !!python/object/apply:os.system ['touch pwned']\n"),
                   ":8: invalid YAML: could not determine a constructor"),
    "not utf-8": (paper_text(body="caf\xe9").encode("latin-1"), ":9: not UTF-8 text (byte 0xe9)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_paper_names_file_line_and_field(site, case):
    text, expected = CASES[case]
    site.write("content/icml-2024/bad.md", text)
    found = problems(site)
    assert len(found) == 1, found
    assert found[0].startswith("site/content/icml-2024/bad.md:") or "content/icml-2024/bad.md:" in found[0]
    assert expected in found[0]
    assert not (site.root / "pwned").exists()


def test_every_problem_in_every_file_is_listed(site):
    site.write("content/icml-2024/one.md", paper_text(id="a", topics="[nope]", venue="nowhere"))
    site.write("content/icml-2024/two.md", paper_text(id="b", extra="date: soon\n"))
    site.paper("fine", id="c")
    found = problems(site)
    assert len(found) == 3
    assert any("one.md:5: unknown venue 'nowhere'" in p for p in found)
    assert any("one.md:7: unknown topic 'nope'" in p for p in found)
    assert any("two.md:8: 'date' must be a date" in p for p in found)


def test_bom_and_crlf_are_read(site):
    site.write("content/icml-2024/crlf.md", ("\ufeff" + paper_text()).replace("\n", "\r\n").encode("utf-8"))
    [paper] = load_papers(site.config)
    assert paper.title == "A Paper" and "\r" not in paper.abstract


def test_file_names_with_spaces_and_accents_get_clean_slugs(site):
    site.write("content/icml-2024/Théorie des Graphes.md", paper_text())
    [paper] = load_papers(site.config)
    assert paper.slug == "theorie-des-graphes"


def test_symlink_loop_is_not_followed(site):
    site.paper("a-paper")
    (site.root / "content" / "icml-2024" / "loop").symlink_to(site.root / "content")
    assert len(load_papers(site.config)) == 1


def test_symlinked_folders_in_content_are_not_followed_and_each_is_named(site):
    """A link to `..` would make papers of the whole project, node_modules included; a linked file is read."""
    site.paper("a-paper")
    site.write("node_modules/pkg/CHANGES.md", "# Changes\n")  # not a paper: an error, were it read
    site.write("shared/venue/b-paper.md", paper_text(id="p2", title="Shared"))
    site.write("shared/c-paper.md", paper_text(id="p3", title="Linked File"))
    content = site.root / "content"
    (content / "up").symlink_to("..")
    (content / "icml-2024" / "shared").symlink_to(site.root / "shared" / "venue")
    (content / "icml-2024" / "c-paper.md").symlink_to(site.root / "shared" / "c-paper.md")
    (content / "broken").symlink_to("no-such-folder")  # no .md: nothing the build would read
    cache = PaperCache()
    papers = load_papers(site.config, cache)
    assert sorted(paper.title for paper in papers) == ["A Paper", "Linked File"]
    assert cache.warnings == tuple(
        f"warning: content/{name}: a symlinked folder, not followed: the papers in it are not in the site "
        "(move the folder into content/, or link each file)" for name in ("icml-2024/shared", "up"))
    assert find_content_files(content) == sorted([content / "icml-2024" / "a-paper.md",
                                                  content / "icml-2024" / "c-paper.md"])
    (content / "up").unlink()
    (content / "icml-2024" / "shared").unlink()
    load_papers(site.config, cache)
    assert cache.warnings == ()


def test_missing_content_folder(site):
    (site.root / "content").rmdir()
    assert "content folder not found" in problems(site)[0]


def test_metadata_fields_are_read(site):
    site.write("site.yaml", (site.root / "site.yaml").read_text() + """\
  - slug: jmlr
    name: JMLR
    kind: journal
    aliases: [Journal of Machine Learning Research, J. Mach. Learn. Res.]
authors:
  - name: Ada Lovelace
    aliases: [A. Lovelace]
    orcid: https://orcid.org/0000-0002-1825-0097
""")
    site.write("content/jmlr/a.md", """---
id: j1
title: A Journal Paper
authors: [{name: Ada Lovelace, affiliation: Analytical Engines Ltd, url: 'https://ada.example'}, Alan  Turing]
venue: jmlr
date: 2021-03
added: 2026-12-01
status: Best Paper Award
bibtex_key: lovelace2021journal
title_source: derived
links: {slides: 'https://x.example/s.pdf', video: 'https://x.example/v'}
extra: {pages: 1-20}
---
""")
    config = load_config(site.root / "site.yaml")
    venue = {v.slug: v for v in config.venues}["jmlr"]
    assert (venue.kind, venue.year, venue.aliases) == ("journal", None,
                                                     ("Journal of Machine Learning Research", "J. Mach. Learn. Res."))
    assert config.authors[0].orcid == "0000-0002-1825-0097" and config.authors[0].aliases == ("A. Lovelace",)
    paper, = load_papers(config)
    assert paper.year == 2021 and paper.date == "2021-03" and paper.added == "2026-12-01"
    assert paper.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.people[0].affiliation == "Analytical Engines Ltd" and paper.people[0].url == "https://ada.example"
    assert (paper.status, paper.bibtex_key, paper.title_source) == ("Best Paper Award", "lovelace2021journal", "derived")
    assert dict(paper.links) == {"slides": "https://x.example/s.pdf", "video": "https://x.example/v"}
    assert paper.extra == {"pages": "1-20"} and paper.abstract == ""


def test_a_journal_paper_needs_a_year(site):
    site.write("site.yaml", (site.root / "site.yaml").read_text() + "  - {slug: jmlr, name: JMLR, kind: journal}\n")
    site.write("content/jmlr/a.md", "---\nid: j1\ntitle: T\nvenue: jmlr\n---\nText.\n")
    found = problems(site)
    assert any("a.md:2: missing 'year' (or 'date'): venue 'jmlr' has no year" in p for p in found), found


def test_a_conference_needs_a_year(site):
    site.write("site.yaml", (site.root / "site.yaml").read_text() + "  - {slug: c, name: C, kind: workshop}\n")
    with pytest.raises(SiteError, match="missing required field 'year'"):
        load_config(site.root / "site.yaml")


def test_papers_share_each_person_they_name(site):
    """A catalog names each person on many papers: one Person object (and one name string) for all
    of them, and no __dict__ per paper or person, keep a large catalog's memory small."""
    for n in range(3):
        site.paper(f"paper-{n}", id=f"p{n}")
    papers = load_papers(site.config)
    assert [p.authors for p in papers] == [("Ada Lovelace",)] * 3
    first = papers[0]
    assert all(p.people[0] is first.people[0] and p.authors[0] is first.authors[0] for p in papers)
    assert not hasattr(first, "__dict__") and not hasattr(first.people[0], "__dict__")
