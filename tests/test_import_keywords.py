"""An import keeps the paper's own keywords (issue 37): in the content file, as given, and on the
paper's page, as text; they still name its topics when they match the taxonomy."""
from __future__ import annotations

import json
from html.parser import HTMLParser

from papersite.source.content import load_papers, read_paper
from tests.test_import import build_pages, front, run_import, seeded  # noqa: F401 (seeded: a fixture)


class Keywords(HTMLParser):
    """The text of the paper page's keywords line, and the topics' links."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.keywords, self.topics, self.scripts = "", [], 0
        self._in = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        # inline scripts that run: JSON data blocks (JSON-LD, the downloads' #cite-data) do not
        self.scripts += tag == "script" and "src" not in dict(attrs) and \
            dict(attrs).get("type") not in ("application/ld+json", "application/json")
        if tag in ("br", "img", "meta", "link", "input", "hr"):
            return
        self._in.append("keywords" if "keywords" in classes else "tag" if "tag" in classes else None)

    def handle_endtag(self, tag):
        if self._in:
            self._in.pop()

    def handle_data(self, data):
        if "keywords" in self._in:
            self.keywords += data
        elif self._in and self._in[-1] == "tag":
            self.topics.append(data)


def export(path, keywords):
    path.write_text(json.dumps([{
        "id": "kEyW0rd5", "forum": "kEyW0rd5",
        "content": {"title": {"value": "Sorting Lists Quickly"},
                    "authors": {"value": ["Ada Lovelace"]},
                    "keywords": {"value": keywords},
                    "abstract": {"value": "We sort lists of numbers."},
                    "venue": {"value": "ICML 2024"}}}]), encoding="utf-8")


def test_imported_keywords_are_kept_and_shown_on_the_paper_page(seeded, tmp_path):
    source = tmp_path / "export.json"
    export(source, ["Differential Privacy", "sorting", "  <script>alert(1)</script>  ", "Sorting", "a & b"])
    result = run_import(seeded, source)
    assert result.exit_code == 0, result.output
    [paper] = load_papers(seeded.config)
    # As given, one line each; the second spelling of "sorting" is the same keyword.
    assert front(paper.source)["keywords"] == ["Differential Privacy", "sorting", "<script>alert(1)</script>", "a & b"]
    assert paper.keywords == ("Differential Privacy", "sorting", "<script>alert(1)</script>", "a & b")
    assert paper.topics == ("privacy",)  # a keyword that names a topic still gives it
    before = {p: p.read_bytes() for p in (seeded.root / "content").rglob("*") if p.is_file()}
    assert run_import(seeded, source).exit_code == 0
    assert {p: p.read_bytes() for p in (seeded.root / "content").rglob("*") if p.is_file()} == before

    out = tmp_path / "out"
    build_pages(seeded, tmp_path)
    page = Keywords((out / "papers" / paper.slug / "index.html").read_text())
    assert " ".join(page.keywords.split()) == "Keywords: Differential Privacy; sorting; <script>alert(1)</script>; a & b"
    assert page.scripts == 0  # the keyword is text, not markup
    assert page.topics == ["Privacy"]


def test_a_paper_without_keywords_has_no_keywords_line(seeded, tmp_path):
    source = tmp_path / "export.json"
    export(source, [])
    assert run_import(seeded, source).exit_code == 0
    [paper] = load_papers(seeded.config)
    assert "keywords" not in front(paper.source) and paper.keywords == ()
    build_pages(seeded, tmp_path)
    html = (tmp_path / "out" / "papers" / paper.slug / "index.html").read_text()
    assert 'class="keywords"' not in html


def test_keywords_that_are_not_a_list_of_text_are_named_with_their_line(site):
    path = site.paper("bad", extra="keywords: sorting\n")
    parsed = read_paper(path, site.config, "content/icml-2024/bad.md")
    assert [(p.line, p.message) for p in parsed.problems] == [(8, "'keywords' must be a list, not a string ('sorting')")]
    path = site.paper("bad", extra="keywords: [sorting, 3]\n")
    parsed = read_paper(path, site.config, "content/icml-2024/bad.md")
    assert [(p.line, p.message) for p in parsed.problems] == \
        [(8, "'keywords' items must be non-empty strings, not a whole number (3)")]
