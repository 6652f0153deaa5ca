"""Front matter parsing and validation: one tiny site per error case."""
import pytest

from papersite.content import load_papers, split_front_matter
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
    "unknown link kind": (paper_text(extra="links: {video: 'https://x.org'}\n"), ":8: unknown key 'video'"),
    "empty abstract": (paper_text(body="  "), ":9: empty abstract"),
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
    site.write("content/icml-2024/two.md", paper_text(id="b", body=""))
    site.paper("fine", id="c")
    found = problems(site)
    assert len(found) == 3
    assert any("one.md:5: unknown venue 'nowhere'" in p for p in found)
    assert any("one.md:7: unknown topic 'nope'" in p for p in found)
    assert any("two.md:9: empty abstract" in p for p in found)


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


def test_missing_content_folder(site):
    (site.root / "content").rmdir()
    assert "content folder not found" in problems(site)[0]
