"""Property-based tests (hypothesis) for the front-matter parser and the importer.

Documented failure modes, and nothing else:
- split_front_matter raises ValueError (no block, or an unclosed one);
- load_yaml raises SiteError (a Problem naming the line);
- read_paper never raises: it returns Parsed(paper or problems);
- the seed reader and import_files report problems (never raise anything else);
- and whatever the importer writes, the build accepts.
Round trip: seed text -> import -> load_papers gives back each abstract exactly
(after the importer's documented normalisation: whitespace runs become one
space, ``TeX quotes'' become “typographic” ones) and the derived title, which
is also the h1 of the paper's page.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from papersite.source.content import load_papers, read_paper, split_front_matter
from papersite.importers.titles import derive_title
from papersite.errors import Problem, SiteError
from papersite.importers import import_files
from papersite.importers.seed import read_seed
from papersite.pipeline import build_site
from papersite.source.yamlsource import load_yaml
from tests.conftest import TinySite, paper_text
from tests.htmlcheck import PageParser

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text that reaches the interesting corners: YAML indicators, front-matter fences, line ends, BOM.
YAMLISH = st.lists(st.sampled_from(list("-:[]{},&*!|>'\"#%@`? \t\n\r\ufeffab01$\\")
                                   + ["---\n", "\u2028", "\x85", "\x00", "\\u", "id: ", "\n  - "]),
                   max_size=60).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=200), YAMLISH, YAMLISH.map(lambda t: "---\n" + t),
                     YAMLISH.map(lambda t: "---\n" + t + "\n---\n" + t))


def tiny_site() -> tuple[tempfile.TemporaryDirectory, TinySite]:
    folder = tempfile.TemporaryDirectory()
    return folder, TinySite(Path(folder.name) / "site")


# --- The front-matter parser ---------------------------------------------------

@SETTINGS
@given(ANY_TEXT)
@example("---\n---\n")
@example("\ufeff---\r\n---\r\n")
@example("---")
def test_split_front_matter_only_raises_value_error(text):
    try:
        front, body, body_line = split_front_matter(text)
    except ValueError as exc:
        assert str(exc).startswith(("missing front matter", "front matter is not closed"))
        return
    assert "\r" not in front and "\r" not in body
    assert body_line == front.count("\n") + 3


@SETTINGS
@given(front=st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n\x85\u2028\u2029\x0b\x0c\x1c\x1d\x1e",
                                                     blacklist_categories=["Cs"]), max_size=20), max_size=5),
       body=st.text(max_size=100).map(lambda t: t.replace("\r", "")))
def test_split_front_matter_round_trips(front, body):
    assume(all(not line.rstrip(" \t").startswith("---") or line.rstrip(" \t") != "---" for line in front))
    yaml_text = "".join(line + "\n" for line in front)
    got_front, got_body, line = split_front_matter("---\n" + yaml_text + "---\n" + body)
    assert (got_front, got_body.replace("\r", "")) == (yaml_text, body)
    assert line == len(front) + 3


@SETTINGS
@given(ANY_TEXT)
@example("a: &a [*a]")
@example("a: " + "[" * 200)
@example('a: "\\ud800"')
@example("a: !!python/object/apply:os.system ['true']")
def test_load_yaml_only_raises_site_error(text):
    try:
        data, lines = load_yaml(text, "f.md", first_line=2)
    except SiteError as error:
        assert len(error.problems) == 1 and error.problems[0].path == "f.md"
        line = error.problems[0].line
        assert line is None or 2 <= line <= text.count("\n") + 2  # lines as an editor counts them
        return
    assert all(isinstance(n, int) and n >= 2 for n in lines.values())
    json.dumps(data, default=str)  # plain data: no objects, no cycles


@SETTINGS
@given(st.one_of(st.binary(max_size=300), ANY_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.builds(lambda title, body: paper_text(title=title, body=body).encode("utf-8", "surrogatepass"),
                           YAMLISH, st.text(max_size=60))))
def test_read_paper_never_raises(data):
    folder, site = tiny_site()
    with folder:
        path = site.write("content/icml-2024/p.md", data)
        parsed = read_paper(path, site.config, "p.md")
        assert (parsed.paper is None) == bool(parsed.problems)
        for problem in parsed.problems:
            assert problem.path == "p.md" and problem.message
            assert "\n" not in problem.message  # one line per problem
        if parsed.paper:
            assert parsed.paper.abstract == parsed.paper.abstract.strip() and parsed.paper.title and parsed.paper.venue == "icml-2024"


# --- The importer ------------------------------------------------------------------

@SETTINGS
@given(st.one_of(st.text(max_size=300), YAMLISH,
                 st.builds(lambda header, body: header + "\n\n" + body,
                           st.sampled_from(["ICML 2024 Papers", "iclr 2024", "Café Workshop 2023 papers",
                                            "NeurIPS: 2022", "X 1999"]),
                           st.text(max_size=300))))
@example("ICML 2024 Papers\n\n\x07 \x85 \u2028 abc")
@example('Wörkshop "quoted": 2021\n\nAn abstract.')
@example("Work\x07shop\u2028 \\u0041 2021\n\nAn abstract.")
@example("ICML 2024 Papers\n\n" + "word " * 14_000)
@example("2000\n\nA venue named only by its year.\n\n\x07\x1b\n")  # slug '2000' must stay a string
def test_import_raises_only_site_error_and_writes_what_the_build_accepts(text):
    folder, site = tiny_site()
    with folder:
        seed = site.write("seed.txt", text.encode("utf-8", "surrogatepass"))
        items = list(read_seed(seed))
        problems = [item for item in items if isinstance(item, Problem)]
        assert all(p.path == seed for p in problems)
        assert all(item.abstract for item in items if not isinstance(item, Problem))
        report = import_files([seed], site.config, site.root / "site.yaml", fmt="seed")
        # a file that gives no records is one problem of its own; then any record the build would refuse
        assert (report.files_failed + report.problems)[:len(problems)] == problems
        assert all(p.path == seed and "\n" not in p.message for p in report.files_failed + report.problems)
        papers = load_papers(site.config)  # the build accepts everything the importer wrote
        assert len(papers) == len(report.created)
        again = import_files([seed], site.config, site.root / "site.yaml", fmt="seed")
        assert again.created == [] and again.updated == [] and len(again.unchanged) == len(papers)


# Abstracts: words, punctuation, $math$, ``TeX quotes'', Markdown-looking characters.
WORDS = st.sampled_from(["we", "propose", "a", "novel", "method", "for", "learning", "sparse", "graphs",
                         "diffusion", "models", "GALA3D", "LoRA", "theorem", "bound", "convergence", "Transformer",
                         "is", "the", "of", "and", "self-supervised", "état", "naïve", "μ-law", "3D", "2x", "O(n)"])
PUNCTUATION = st.sampled_from([".", ",", ";", ":", "!", "?", "(", ")", "-", "–", "—", "'", '"', "/", "%", "&",
                               "<", ">", "*", "_", "#", "[", "]", "{", "}", "\\", "~", "|"])
MATH = st.sampled_from(["$x$", "$O(n \\log n)$", "$\\mathbb{R}^d$", "$\\epsilon$-greedy", "$k=1$", "$a < b$",
                        "$\\frac{1}{2}$", "$x_{i}^{2}$", "$\\{0, 1\\}$"])
QUOTED = st.sampled_from(["cat", "one shot", "free lunch"]).map(lambda w: ("``" + w + "''", "“" + w + "”"))
TOKEN = st.one_of(WORDS.map(lambda w: (w, w)), WORDS.map(lambda w: (w, w)), WORDS.map(lambda w: (w, w)),
                  PUNCTUATION.map(lambda p: (p, p)), MATH.map(lambda m: (m, m)), QUOTED)
SPACE = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", " \n  "])


@st.composite
def abstracts(draw):
    """(text as it appears in a seed file, the abstract the importer should keep)."""
    tokens = draw(st.lists(TOKEN, min_size=4, max_size=40))
    spaces = draw(st.lists(SPACE, min_size=len(tokens) - 1, max_size=len(tokens) - 1))
    seed = tokens[0][0] + "".join(space + token for space, (token, _) in zip(spaces, tokens[1:]))
    return seed, " ".join(expected for _, expected in tokens)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(abstracts(), min_size=1, max_size=3, unique_by=lambda pair: pair[1].lower()))
def test_import_build_parse_round_trips_titles_and_abstracts(pairs):
    folder, site = tiny_site()
    with folder:
        seed = site.write("seed.txt", "ICML 2024 Papers\n\n" + "\n\n".join(text for text, _ in pairs) + "\n")
        import_files([seed], site.config, site.root / "site.yaml")
        papers = {p.abstract: p for p in load_papers(site.config)}
        assert sorted(papers) == sorted(expected for _, expected in pairs)
        build = build_site(site.config)
        for abstract, paper in papers.items():
            assert paper.title == derive_title(abstract)
            page = PageParser()
            page.feed(build.files[f"papers/{paper.slug}/index.html"].decode("utf-8"))
            if "$" in paper.title:
                assert "<math" in build.files[f"papers/{paper.slug}/index.html"].decode().split("<h1")[1]
            else:
                assert page.h1 == paper.title
