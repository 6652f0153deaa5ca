"""Tests for papersite.text's Markdown + TeX math -> safe HTML / plain text (markdown_html, mathml,
html_writer, plain and the modules they use)."""

import json
import re
import string
import unicodedata
from pathlib import Path

import html5lib
import pytest
from hypothesis import given, settings, strategies as st

from papersite.text.html_writer import ALLOWED_ELEMENTS
from papersite.text.markdown_html import render_abstract, render_markdown, render_title
from papersite.text.plain import plain_text, snippet

SEEDS = sorted((Path(__file__).parent / "fixtures" / "seeds").glob("*.txt"))
# Header line, then abstracts separated by blank lines.
ABSTRACTS = [a for f in SEEDS for a in f.read_text(encoding="utf-8").split("\n\n")[1:] if a.strip()]
MATH_SPAN = re.compile(r"\$[^$]+\$")
SPANS = sorted({s for a in ABSTRACTS for s in MATH_SPAN.findall(a)})
# Spans shown as their TeX: none since text macros inside text macros are read
# (`$\textbf{\texttt{Lingual-SMoE}}$`).
EXPECTED_FALLBACKS: set[str] = set()


def parse(fragment):
    """Parse with html5lib; return (elements, errors). Tags lose their namespace."""
    parser = html5lib.HTMLParser(namespaceHTMLElements=False)
    root = parser.parseFragment(fragment)
    return [el for el in root.iter() if el is not root], parser.errors


def local(tag):
    return tag.rsplit("}", 1)[-1]


def is_fallback(el):
    return local(el.tag) == "code" and "tex" in el.get("class", "").split()


def text_outside_fallbacks(el):
    """All text of the tree, skipping <code class="tex"> contents."""
    out = [] if is_fallback(el) else [el.text or ""]
    for child in el:
        out.append(text_outside_fallbacks(child))
        out.append(child.tail or "")
    return "".join(out)


# Attributes each HTML element may carry; MathML elements carry presentational
# attributes only.
HTML_ATTRIBUTES = {"a": {"href", "title"}, "code": {"class"}, "ol": {"start"}}
FORBIDDEN_MATHML_ATTRIBUTES = {"href", "style", "class", "id", "mathcolor", "mathbackground"}


def assert_safe(fragment):
    elements, errors = parse(fragment)
    assert not errors, (fragment, errors)
    for el in elements:
        tag = local(el.tag)
        assert tag in ALLOWED_ELEMENTS, (tag, fragment)
        if el.tag == tag:  # HTML namespace
            assert set(el.attrib) <= HTML_ATTRIBUTES.get(tag, set()), fragment
        else:
            assert not set(el.attrib) & FORBIDDEN_MATHML_ATTRIBUTES, fragment
        assert not any(name.lower().startswith("on") for name in el.attrib), fragment
        if "href" in el.attrib:
            compact = re.sub(r"[\x00-\x20]+", "", el.get("href")).lower()
            scheme = re.match(r"([a-z][a-z0-9+.-]*):", compact)
            assert scheme is None or scheme.group(1) in {"http", "https", "mailto"}, fragment
    return elements


# --- seeds ----------------------------------------------------------------------

def test_seed_fixture_shape():
    assert len(ABSTRACTS) == 57
    assert sum(len(MATH_SPAN.findall(a)) for a in ABSTRACTS) == 107


@pytest.mark.parametrize("span", SPANS)
def test_every_seed_span_is_mathml_or_fallback(span):
    elements = assert_safe(render_markdown(span))
    maths = [el for el in elements if local(el.tag) == "math"]
    fallbacks = [el for el in elements if is_fallback(el)]
    assert len(maths) + len(fallbacks) == 1
    if fallbacks:
        assert span in EXPECTED_FALLBACKS
        assert fallbacks[0].text == span  # the TeX source, shown as code
    else:
        text = "".join(maths[0].itertext())
        assert "\\" not in text and "{" not in text and "}" not in text, text


def test_seed_abstracts_render_cleanly():
    fallbacks = 0
    for abstract in ABSTRACTS:
        elements = assert_safe(render_markdown(abstract))
        n_math = sum(local(el.tag) == "math" for el in elements)
        n_fallback = sum(is_fallback(el) for el in elements)
        assert n_math + n_fallback == len(MATH_SPAN.findall(abstract))
        fallbacks += n_fallback
        wrapper = html5lib.parseFragment(render_markdown(abstract), namespaceHTMLElements=False)
        text = text_outside_fallbacks(wrapper)
        assert "\\" not in text and "$" not in text
    assert fallbacks == len(EXPECTED_FALLBACKS)


def test_star_in_two_math_spans_is_not_emphasis():
    [abstract] = [a for a in ABSTRACTS if r"\nabla u^* \circ F" in a]
    out = render_markdown(abstract)
    assert "<em>" not in out and "<strong>" not in out
    assert out.count("<mo>*</mo>") >= 2
    assert "<em>" not in render_markdown(r"$u^*$ and $\nabla u^* \circ F$")
    assert "<em>" not in render_markdown(r"$a_1$ and $b_2$ and $c_3$")


def test_escaped_braces_survive():
    out = render_markdown(r"the set $\{x_i\}$ here")
    assert '<mo stretchy="false">{</mo>' in out and '<mo stretchy="false">}</mo>' in out


def test_big_o_becomes_mathml_with_msup():
    out = render_markdown(r"near-optimal $\mathcal{O}(T^{2/3})$ regret")
    assert out.startswith("<p>near-optimal <math>") and out.endswith("regret</p>")
    assert "<msup><mi>T</mi><mrow><mn>2</mn><mo>/</mo><mn>3</mn></mrow></msup>" in out
    assert "\\" not in out


def test_delimiters():
    assert '<math display="block">' in render_markdown(r"$$\frac{a}{b}$$")
    assert '<math display="block">' in render_markdown(r"\[x^2\]")
    assert render_markdown(r"\(x\)") == "<p><math><mrow><mi>x</mi></mrow></math></p>"
    # Prices and escaped dollars are text, not math.
    assert render_markdown("costs $5 and $10") == "<p>costs $5 and $10</p>"
    assert render_markdown(r"\$5 or \$6") == "<p>$5 or $6</p>"
    # Code spans win over math.
    assert render_markdown("`$x$`") == "<p><code>$x$</code></p>"


def test_unknown_macro_falls_back_to_code():
    out = render_markdown(r"see $\foo{x} < y$ and $x^$")
    assert out == ('<p>see <code class="tex">$\\foo{x} &lt; y$</code> and '
                   '<code class="tex">$x^$</code></p>')
    assert '<code class="tex tex-display">' in render_markdown(r"$$\unknownmacro$$")


def test_tex_cannot_inject_markup_or_attributes():
    for tex in (r"$\text{<b>x</b>}$", r"$\href{javascript:alert(1)}{x}$",
                r"$\style{color:red}{x}$", r"$\class{evil}{x}$", r"$\color{red}{x}$",
                r"$\newcommand{\a}{xx}\newcommand{\b}{\a\a}\b$"):
        out = render_markdown(tex)
        for el in assert_safe(out):
            assert set(el.attrib) <= {"display", "stretchy", "mathvariant", "class"}, out
        assert "javascript" not in out and "<b>" not in out


# --- hostile Markdown -------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;avascript&colon;alert(1))",
    "[x]( java\tscript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox(1))",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "![x](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)" onclick="x()">y</a>',
    "<!-- c -->",
    "</textarea><b>x</b>",
    "<div>\n<style>p{}</style>\n</div>",
    "&#0; &#x80; &T; &bogus; \x00\x0b\ufffe",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_hostile_markdown_yields_no_live_markup(source):
    out = render_markdown(source)
    elements = assert_safe(out)
    assert {local(el.tag) for el in elements} <= {"p", "a"}, out
    assert not any("alert" in el.get("href", "") for el in elements), out


def test_raw_html_is_shown_as_text():
    assert render_markdown("<script>alert(1)</script>") == \
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
    assert render_markdown("<!-- c -->") == "<p>&lt;!-- c --&gt;</p>"


def test_safe_links_are_kept():
    out = render_markdown('[a](https://example.org/?q=1&r=2 "T") [b](../x) <mailto:me@example.org>')
    assert '<a href="https://example.org/?q=1&amp;r=2" title="T">a</a>' in out
    assert '<a href="../x">b</a>' in out
    assert 'href="mailto:me@example.org"' in out
    assert render_markdown("[a](http://x/$a$b)") == '<p><a href="http://x/$a$b">a</a></p>'


def test_jinja_looking_text_stays_literal():
    assert render_markdown("{{ 7*7 }} {% if x %}") == "<p>{{ 7*7 }} {% if x %}</p>"


def test_markdown_instance_is_reused_without_leaking_state():
    first = render_markdown("[a][r]\n\n[r]: http://example.org")
    assert 'href="http://example.org"' in first
    assert render_markdown("[a][r]") == "<p>[a][r]</p>"  # reference not remembered
    assert render_markdown("[a][r]\n\n[r]: http://example.org") == first


def test_headings_are_not_created():
    assert render_markdown("#1 on the leaderboard") == "<p>#1 on the leaderboard</p>"


# --- plain text and snippets ------------------------------------------------------

def test_plain_text_of_seeds_has_no_tex_noise():
    for abstract in ABSTRACTS:
        text = plain_text(abstract)
        assert "\\" not in text and "$" not in text, text
        assert "  " not in text and "\n" not in text


@pytest.mark.parametrize("source, expected", [
    (r"$\mathcal{O}(T^{2/3})$ regret", "O(T^2/3) regret"),
    (r"$\ell_1$ norm", "l1 norm"),
    (r"$\alpha + \beta_{t}$", "α + βt"),
    (r"$\tilde{\mathcal{O}}\left(\frac{S^2}{\epsilon^2}\right)$", "O((S^2)/(ε^2))"),
    (r"$\textbf{\texttt{Lingual-SMoE}}$", "Lingual-SMoE"),
    (r"$\bf{\Phi}_\textrm{Flow}$: simulations", "ΦFlow: simulations"),  # old font switches
    (r"${\rm A} \sim {\cal N}$", "A ~ N"),
    (r"$\{x\}$ and \$5", "{x} and $5"),
    ("**bold** and *em* [link](http://x.org) `code`", "bold and em link code"),
    ("para one\n\npara two", "para one para two"),
])
def test_plain_text_examples(source, expected):
    assert plain_text(source) == expected


def test_snippet():
    long = " ".join(["word"] * 100)
    cut = snippet(long, 50)
    assert len(cut) <= 50 and cut.endswith("…") and cut[:-1].split() == ["word"] * 10
    assert snippet("short $x$ text") == "short x text"
    assert len(snippet("x" * 500, 30)) == 30
    assert snippet("aaa bbb ccc ddd", 9) == "aaa bbb…"
    for abstract in ABSTRACTS:
        s = snippet(abstract)
        assert len(s) <= 240 and plain_text(abstract).startswith(s.rstrip("…"))


# --- properties -------------------------------------------------------------------

TOKENS = list("ab1 $\\{}^_*[]()<>!&#;:`\n\t-=/\"'~|.") + [
    "$$", "\\(", "\\)", "\\[", "\\]", "](", "javascript:", "JaVa\tScRiPt:", "&#106;",
    "<script>", "<img src=x onerror=y>", "<!--", "-->", "\\frac", "\\text{", "\\mathcal{O}",
    "\\href{", "\\left(", "\\right)", "http://x.org", "    ", "\n\n", "> ", "1. ", "- ", "\x00", "é",
]
markdownish = st.one_of(st.text(max_size=60),
                        st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))


@settings(max_examples=300, deadline=None)
@given(markdownish)
def test_render_never_raises_and_is_always_safe(source):
    assert_safe(render_markdown(source))
    text = plain_text(source)
    assert "\n" not in text
    assert len(snippet(source, 40)) <= 40


RANDOM_ATOMS = ["\\", "`", "``", "!", "[", "]", "$", "$$", "x", " ", "\\[", "\\(", "\\)", "\\]", "\n", "\\\\", "\x02"]


def test_the_math_pattern_with_its_fast_start_finds_what_it_would_without():
    import random
    from papersite.text.math_spans import MATH_RE, MATH_START
    rng = random.Random(5)
    samples = ABSTRACTS + ["".join(rng.choice(RANDOM_ATOMS) for _ in range(rng.randint(1, 30))) for _ in range(5000)]
    original, fast = re.compile(MATH_RE, re.DOTALL), re.compile(MATH_START + MATH_RE + ")", re.DOTALL)
    for text in samples:
        for start in (0, 2):
            assert [(m.span(), m.groups()) for m in original.finditer(text, start)] == \
                   [(m.span(), m.groups()) for m in fast.finditer(text, start)], text


def test_text_without_backticks_or_brackets_reads_the_same_without_code_and_link_patterns():
    """Such text goes through a Markdown without the patterns for code spans, links and
    images: it must give what the full Markdown gives."""
    import random
    from papersite.text import markdown_html
    full, lean = markdown_html._build_markdown(True), markdown_html._build_markdown(False)
    rng = random.Random(7)
    atoms = [a for a in TOKENS + UNITS + ["&amp;", "&#42;", "<a@b.org>", "<http://x.org>", "!", "  \n"]
             if "`" not in a and "[" not in a]
    samples = [a for a in ABSTRACTS if "`" not in a and "[" not in a]
    samples += ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    for text in samples:
        try:
            expected = full.reset().convert(text), full.treeprocessors["allow_list"].plain
        except MarkupError as error:
            expected = error.args
        try:
            assert (lean.reset().convert(text), lean.treeprocessors["allow_list"].plain) == expected, text
        except MarkupError as error:
            assert error.args == expected, text


# --- the serializer against the parser it replaced ---------------------------------

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "markup_golden.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: repr(case["markdown"])[:40])
def test_output_equals_the_html_parser_pass_it_replaced(case):
    """The allow-list reads Markdown's tree as a browser reads Markdown's HTML (it
    follows Markdown's escaping rules): a Markdown upgrade that changes how it
    escapes or stashes text shows up here."""
    assert render_abstract(case["markdown"]) == (case["html"], case["text"])
    assert render_title(case["markdown"]) == case["title"]


# What of Python-Markdown the text modules may import: its extension API's base classes and helpers.
MARKDOWN_API = {"markdown": {"Markdown"}, "markdown.extensions": {"Extension"},
                "markdown.preprocessors": {"Preprocessor"}, "markdown.inlinepatterns": {"InlineProcessor"},
                "markdown.treeprocessors": {"Treeprocessor"}, "markdown.postprocessors": {"Postprocessor"},
                "markdown.util": {"AtomicString", "code_escape"}}
# Its internals: the raw-HTML stash's contents, its placeholders and its built-in patterns' regexes.
MARKDOWN_INTERNALS = {"rawHtmlBlocks", "html_counter", "AMP_SUBSTITUTE", "HTML_PLACEHOLDER", "HTML_PLACEHOLDER_RE",
                      "INLINE_PLACEHOLDER", "INLINE_PLACEHOLDER_RE", "INLINE_PLACEHOLDER_PREFIX", "STX", "ETX",
                      "stashed_nodes", "compiled_re", "serializer", "pattern", "inlinepatterns", "util"}


@pytest.mark.parametrize("path", sorted((Path(__file__).parent.parent / "papersite" / "text").glob("*.py")),
                         ids=lambda path: path.name)
def test_text_uses_only_public_markdown_api(path):
    """Python-Markdown is used through its extension API: only its base classes are
    imported (none of its own processors), no private name of it is used, its raw-HTML
    stash only through store(), and none of its internals (placeholders, regexes) is
    read or patched."""
    import ast
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "markdown":
            assert {alias.name for alias in node.names} <= MARKDOWN_API.get(node.module, set()), ast.unparse(node)
        if isinstance(node, ast.Import):
            assert all(alias.name == "markdown" for alias in node.names if alias.name.startswith("markdown")), \
                ast.unparse(node)
        if isinstance(node, ast.Attribute):
            assert node.attr not in MARKDOWN_INTERNALS, ast.unparse(node)
            if isinstance(node.value, ast.Attribute) and node.value.attr == "htmlStash":
                assert node.attr == "store", ast.unparse(node)
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                assert node.attr in own, ast.unparse(node)  # only the module's own private names


# --- limits: nesting and TeX length, through a real build ------------------------

import inspect
import os
import sys

from click.testing import CliRunner

import build as build_cli
from papersite.text import mathml
from papersite.text.limits import MAX_NESTING, MAX_TEX_LENGTH, MarkupError
from tests.conftest import TinySite, paper_text
from tests.htmlcheck import parse as parse_page

BODY_LINE = paper_text().split("\n").index("An abstract about $x^2$ generalization.") + 1  # first line of the abstract
INTRO = "An ordinary first paragraph.\n\n"  # so the problem sits on the abstract's third line


def run_build(site: TinySite):
    old = os.getcwd()
    os.chdir(site.root)
    try:
        result = CliRunner().invoke(build_cli.cli, ["build", "-q"])
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def list_lines(count, indent="  "):
    return "\n".join(indent * i + "- item" for i in range(count))


# (abstract after INTRO, line of the problem counted from that abstract part, words the message must hold)
TOO_DEEP = {
    "stars around a word": ("*" * 5000 + "x" + "*" * 5000, 1, "nested over 32"),
    "alternating emphasis": ("*a _b " * 500 + "c_ d* " * 500, 1, "nested over 32"),
    "underscores": ("_" * 5000 + "x" + "_" * 5000, 1, "nested over 32"),
    "brackets": ("[" * 5000 + "x", 1, "brackets [ ] nested 5000 deep"),
    "balanced brackets": ("[" * 2000 + "x" + "]" * 2000, 1, "brackets [ ] nested 2000 deep"),
    "open link destinations": ("[a](" * 3000 + "x", 1, "3000 links"),
    "quotes on one line": ("> " * 5000 + "x", 1, "lists or quotes nested 5000 levels"),
    "quotes line by line": ("\n".join("> " * i + "x" for i in range(1, 60)), 33, "lists or quotes nested 33 levels"),
    "list items on one line": ("- " * 5000 + "x", 1, "lists or quotes nested"),
    "numbered items on one line": ("1. " * 3000 + "x", 1, "lists or quotes nested"),
    "nested list, 2 spaces a level": (list_lines(60), 33, "lists or quotes nested 33 levels"),
    "nested list, 4 spaces a level": (list_lines(30, "    "), 17, "lists or quotes nested 33 levels"),
    "formula: braces": ("see $" + "{" * 500 + "x" + "}" * 500 + "$", 1, "a formula nested 500 groups deep"),
    "formula: \\left": ("$" + "\\left(" * 40 + "x" + "\\right)" * 40 + "$", 1, "a formula nested 40 groups deep"),
    "formula: \\begin": ("$" + "\\begin{matrix}" * 40 + "x" + "\\end{matrix}" * 40 + "$", 1, "nested 41 groups"),
    "formula: chained roots": ("$" + "\\sqrt" * 390 + " x$", 1, "nested over 100 levels deep once typeset"),
    "formula: too long": ("line\n\\(" + "a+" * 1100 + "b\\)", 2, "a formula \\(...\\) of 2,201 characters"),
    "display formula: too long": ("$$" + "a+" * 1100 + "b$$", 1, "a formula $$...$$ of 2,201 characters"),
    "backticks never closed": ("a_\\``" * 3600, 1, "3600 runs of backticks"),
    "formulas: too much TeX": ("\n".join(f"${'y+' * 900}x_{i}$" for i in range(20)), 18, "over 32,000 characters of TeX"),
}


@pytest.mark.parametrize("name", TOO_DEEP)
def test_markdown_past_a_limit_fails_the_build_with_file_and_line(tmp_path, name):
    body, line, words = TOO_DEEP[name]
    site = TinySite(tmp_path / "site")
    site.paper("fine")
    site.paper("deep", id="p2", body=INTRO + body)
    result = run_build(site)
    assert result.exit_code == 1, result.output
    [message] = result.stderr.strip().split("\n")
    expected = f"Error: content/icml-2024/deep.md:{BODY_LINE + 2 + line - 1}: "
    assert message.startswith(expected), (message[:200], expected)
    assert words in message, message
    assert not (site.root / "_site").exists()


WITHIN_LIMITS = {
    "stars": ("*" * 5000, "hr"),  # a thematic break
    "emphasis markers nested 300 deep": ("**_*" * 300 + "x" + "*_**" * 300, "em"),  # Markdown pairs few of them
    "emphasis 30 deep": ("*a _b " * 15 + "c_ d* " * 15, "em"),
    "brackets 32 deep": ("[" * 32 + "x" + "]" * 32, "p"),
    "list 15 deep": (list_lines(15), "li"),
    "quotes 31 deep": ("> " * 31 + "x", "blockquote"),
    "formula 32 groups deep": ("$" + "{" * 32 + "x" + "}" * 32 + "$", "math"),
    "long formula": ("$" + "a+" * 999 + "b$", "math"),
    "200 backtick runs": ("`a` " * 100, "code"),
    "unclosed delimiters": ("\\(" * 3000 + "$5 and " * 100, "p"),
    "brackets in formulas and code": ("$[0,1)$ `[` " * 90, "code"),
}


@pytest.mark.parametrize("name", WITHIN_LIMITS)
def test_markdown_within_the_limits_builds(tmp_path, name):
    body, tag = WITHIN_LIMITS[name]
    site = TinySite(tmp_path / "site")
    site.paper("deep", body=INTRO + body)
    result = run_build(site)
    assert result.exit_code == 0, result.output
    assert tag in parse_page(site.root / "_site/papers/deep/index.html").tags, name


def test_problems_from_forked_workers_name_every_file(tmp_path, monkeypatch):
    """Enough abstracts for parallel_map to fork: each worker's problems come back with their files."""
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    site = TinySite(tmp_path / "site")
    for i in range(440):
        site.paper(f"p{i:03}", id=f"p{i}", body=f"Abstract number {i} about $x_{{{i}}}$.")
    site.paper("deep-a", id="a", body=INTRO + "> " * 100 + "x")
    site.paper("deep-b", id="b", body="first\nsecond\n\n" + "[" * 99 + "x")
    site.paper("deep-c", id="c", body="first\nsecond\n\n" + "[" * 99 + "x")  # same text as deep-b
    result = run_build(site)
    assert result.exit_code == 1, result.output
    assert result.stderr.split("\n")[:4] == [
        "Error: 3 problems:",
        f"  content/icml-2024/deep-a.md:{BODY_LINE + 2}: lists or quotes nested 100 levels deep; the limit is 32",
        f"  content/icml-2024/deep-b.md:{BODY_LINE + 3}: brackets [ ] nested 99 deep; the limit is 32 "
        "(write a literal [ as &#91;)",
        f"  content/icml-2024/deep-c.md:{BODY_LINE + 3}: brackets [ ] nested 99 deep; the limit is 32 "
        "(write a literal [ as &#91;)",
    ]


def test_a_title_past_a_limit_is_shown_as_written(tmp_path):
    site = TinySite(tmp_path / "site")
    title = "**" * 40 + "Deep $x$" + "**" * 40
    site.paper("deep", title=f"'{title}'")
    result = run_build(site)
    assert result.exit_code == 0, result.output
    page = (site.root / "_site/papers/deep/index.html").read_text(encoding="utf-8")
    assert f"<h1>{title}</h1>" in page or title in page


UNITS = ["*", "**", "_", "__", "*a ", "_a ", " a*", " a_", "[", "]", "![", "](", "(", ")", "> ", "- ", "1. ",
         "  ", "    ", "\n", "\n\n", "`", "``", "$", "$$", "\\(", "\\)", "\\[", "\\]", "{", "}", "\\frac",
         "\\sqrt", "^", "_{", "x", "<", "&", "\\left(", "\\right)", "\\begin{matrix}", "\\end{matrix}",
         "[a]: http://b\n", "[a]", "---", "\t", "\\", "a  \n", "* ", "+ ", "1) "]
runs = st.lists(st.tuples(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3).map("".join),
                          st.sampled_from([1, 3, 20, 40, 200, 1500])), min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(runs)
def test_nesting_fuzz_renders_or_names_a_line(parts):
    """Long runs of nesting renders or fails with a line, never RecursionError, with a
    stack far smaller than Python's default: the explicit limits come first."""
    source = "".join(unit * count for unit, count in parts)[:64000]
    mathml._converted.cache_clear()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 450)
    try:
        html, _ = render_abstract(source)
    except MarkupError as error:
        assert "too deeply" not in error.message  # the backstop for RecursionError
        assert 1 <= error.line <= source.count("\n") + 1
    else:
        assert_safe(html)
    finally:
        sys.setrecursionlimit(limit)


# --- named operators: \log, \max, \operatorname ------------------------------------

def math_row(tex):
    """The top <mrow> of a formula's MathML, parsed: [(tag, text, attributes)] of its children."""
    html = render_markdown(f"${tex}$")
    elements = assert_safe(html)
    assert not any(is_fallback(el) for el in elements), html
    [math] = [el for el in elements if local(el.tag) == "math"]
    [row] = list(math)
    return [(local(child.tag), "".join(child.itertext()), dict(child.attrib)) for child in row], row


THIN = ("mspace", "", {"width": "0.1667em"})


@pytest.mark.parametrize("tex, name", [
    (r"\log", "log"), (r"\ln", "ln"), (r"\exp", "exp"), (r"\sin", "sin"), (r"\cos", "cos"), (r"\det", "det"),
    (r"\lim", "lim"), (r"\max", "max"), (r"\min", "min"), (r"\sup", "sup"), (r"\inf", "inf"), (r"\Pr", "Pr"),
    (r"\arg", "arg"), (r"\argmin", "arg\u2009min"), (r"\argmax", "arg\u2009max"), (r"\gcd", "gcd"),
    (r"\operatorname{rank}", "rank"), (r"\operatorname{arg\,min}", "arg\u2009min"),
    (r"\operatorname{Tr}", "Tr"), (r"\operatorname*{argmax}", "argmax"),
])
def test_named_operator_is_upright_with_thin_spaces_around(tex, name):
    children, _ = math_row(f"s {tex} p")
    assert children == [("mi", "s", {}), THIN, ("mi", name, {}), THIN, ("mi", "p", {})]


def test_operators_next_to_symbols_get_no_extra_space():
    assert math_row(r"\log(x)")[0][:2] == [("mi", "log", {}), ("mo", "(", {"stretchy": "false"})]
    assert [c[0] for c in math_row(r"a + \sin x")[0]] == ["mi", "mo", "mi", "mspace", "mi"]
    assert [c[0] for c in math_row(r"\log x = 1")[0]] == ["mi", "mspace", "mi", "mo", "mn"]


def test_arg_min_with_a_subscript():
    children, row = math_row(r"\arg\min_\beta f(\beta)")
    assert [c[0] for c in children][:5] == ["mi", "mspace", "msub", "mspace", "mi"]
    assert children[0][1] == "arg" and [local(el.tag) for el in row[2]] == ["mi", "mi"]
    assert "".join(row[2][0].itertext()) == "min" and "".join(row[2][1].itertext()) == "β"


@pytest.mark.parametrize("tex, script, base", [
    (r"\max_i x_i", "msub", "max"), (r"\max\limits_i x_i", "munder", "max"),
    (r"\lim_{n\to\infty} a_n", "msub", "lim"), (r"\lim\limits_{n\to\infty} a_n", "munder", "lim"),
    (r"\operatorname*{arg\,min}_x f", "munder", "arg\u2009min"), (r"\operatorname{arg\,min}_x f", "msub", "arg\u2009min"),
    (r"\argmin_x f", "msub", "arg\u2009min"), (r"\sup\limits_{x} f", "munder", "sup"), (r"\log^2 n", "msup", "log"),
])
def test_operators_with_limits_and_scripts(tex, script, base):
    children, row = math_row(tex)
    assert children[0][0] == script and children[1] == THIN
    assert local(row[0][0].tag) == "mi" and "".join(row[0][0].itertext()) == base


def test_mathrm_is_upright():
    children, _ = math_row(r"\mathrm{d}x")
    assert children == [("mi", "d", {"mathvariant": "normal"}), ("mi", "x", {})]
    assert math_row(r"\operatorname{E}[X]")[0][0] == ("mi", "E", {"mathvariant": "normal"})



# --- math alphabets and text mode (issue 37) ------------------------------------------------------

def tokens(tex):
    """[(tag, text, attributes)] of every token element of a formula, in order."""
    html = render_markdown(f"${tex}$")
    elements = assert_safe(html)
    assert not any(is_fallback(el) for el in elements), html
    return [(local(el.tag), el.text or "", dict(el.attrib)) for el in elements
            if local(el.tag) in ("mi", "mn", "mo", "mtext")]


@pytest.mark.parametrize("tex, letters", [
    (r"\mathcal{NP}", ["𝒩", "𝒫"]), (r"\mathscr{BEFHILMR}", list("ℬℰℱℋℐℒℳℛ")), (r"\mathcal{eg}", ["ℯ", "ℊ"]),
    (r"\mathbb{R}", ["ℝ"]), (r"\mathbb{CNZ}", ["ℂ", "ℕ", "ℤ"]), (r"\mathbb{1}", ["𝟙"]),
    (r"\mathfrak{g}", ["𝔤"]), (r"\mathfrak{gh}", ["𝔤", "𝔥"]), (r"\mathfrak{R}", ["ℜ"]),
    (r"\bf{\Phi}", ["𝚽"]), (r"\mathbf{\Phi}", ["𝚽"]), (r"\mathbf{x}", ["𝐱"]), (r"\mathbf{12}", ["𝟏𝟐"]),
    (r"\boldsymbol{\Phi}", ["𝚽"]), (r"\bm{\Phi}", ["𝚽"]),  # capital Greek: upright in TeX, bold too
    (r"\boldsymbol{\alpha}", ["𝜶"]), (r"\boldsymbol{x}", ["𝒙"]), (r"\mathbf{\nabla}", ["𝛁"]),
    (r"\mathsf{AB}", ["𝖠", "𝖡"]), (r"\mathtt{VITS}", ["𝚅", "𝙸", "𝚃", "𝚂"]), (r"\mathit{xh}", ["𝑥", "ℎ"]),
])
def test_math_alphabets_are_unicode_letters(tex, letters):
    """MathML Core ignores mathvariant but for "normal": the letters themselves carry the style."""
    got = tokens(tex)
    assert [text for _, text, _ in got] == letters
    assert all("mathvariant" not in attrs for _, _, attrs in got), got


def test_letters_without_a_styled_form_keep_their_mathvariant():
    assert tokens(r"\mathcal{1}") == [("mn", "1", {"mathvariant": "script"})]  # Unicode has no script digits
    # A math alphabet changes letters and digits only, in TeX too.
    assert tokens(r"\mathbf{x+y}") == [("mi", "𝐱", {}), ("mo", "+", {}), ("mi", "𝐲", {})]


def test_capital_greek_is_upright_as_in_tex():
    assert tokens(r"\Phi + \Delta x") == [("mi", "Φ", {"mathvariant": "normal"}), ("mo", "+", {}),
                                          ("mi", "Δ", {"mathvariant": "normal"}), ("mi", "x", {})]
    assert tokens(r"\phi") == [("mi", "ϕ", {})]  # lowercase Greek stays italic


STYLE_WORDS = {"bold": {"BOLD"}, "italic": {"ITALIC"}, "bold-italic": {"BOLD", "ITALIC"}, "script": {"SCRIPT"},
               "bold-script": {"BOLD", "SCRIPT"}, "fraktur": {"FRAKTUR"}, "bold-fraktur": {"BOLD", "FRAKTUR"},
               "double-struck": {"DOUBLE-STRUCK"}, "sans-serif": {"SANS-SERIF"},
               "bold-sans-serif": {"SANS-SERIF", "BOLD"}, "sans-serif-italic": {"SANS-SERIF", "ITALIC"},
               "sans-serif-bold-italic": {"SANS-SERIF", "BOLD", "ITALIC"}, "monospace": {"MONOSPACE"}}
CAPITAL_GREEK = "ΑΒΓΔΕΖΗΘϴΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ∇"
GREEK = CAPITAL_GREEK + "αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ"


def test_every_styled_letter_is_the_unicode_letter_of_its_style():
    """Unicode's names check the tables: "MATHEMATICAL BOLD SCRIPT CAPITAL A" for A in bold-script."""
    from papersite.text.math_alphabets import MATH_VARIANTS, styled
    assert MATH_VARIANTS == set(STYLE_WORDS)
    for variant, words in STYLE_WORDS.items():
        mapped = {char: styled(char, variant) for char in string.ascii_letters + string.digits + GREEK}
        mapped = {char: styled for char, styled in mapped.items() if styled not in (None, char)}
        assert len(set(mapped.values())) == len(mapped), variant
        assert set(string.ascii_letters) <= set(mapped), variant
        for char, styled_char in mapped.items():
            # The letters Unicode had before the block: ℬ is SCRIPT CAPITAL B, ℭ BLACK-LETTER CAPITAL C.
            name = unicodedata.name(styled_char).replace("BLACK-LETTER", "FRAKTUR")
            name = name.replace("PLANCK CONSTANT", "ITALIC SMALL H")
            letter = re.sub(r"^(?:LATIN |GREEK )|LETTER |LUNATE ", "", unicodedata.name(char))
            assert name.endswith(" " + letter), (char, variant, name)
            if char in CAPITAL_GREEK and variant.endswith("bold-italic"):
                assert "ITALIC" not in name and "BOLD" in name, (char, variant, name)  # upright, as TeX sets them
            else:
                assert words <= set(name.split()), (char, variant, name)


@pytest.mark.parametrize("tex, expected", [
    (r"\textit{irreducibility assumption}", [("mtext", "irreducibility\xa0assumption", {"mathvariant": "italic"})]),
    (r"\emph{x}", [("mtext", "x", {"mathvariant": "italic"})]),
    (r"\textit{a \emph{b} c}", [("mtext", "a\xa0", {"mathvariant": "italic"}), ("mtext", "b", {}),
                               ("mtext", "\xa0c", {"mathvariant": "italic"})]),  # emphasis in italics is upright
    (r"\textbf{\textit{x}}", [("mtext", "x", {"mathvariant": "bold-italic"})]),
    (r"\textbf{\texttt{Lingual-SMoE}}", [("mtext", "Lingual-SMoE", {"mathvariant": "monospace"})]),
    (r"\textsf{\bfseries A}", [("mtext", "A", {"mathvariant": "bold-sans-serif"})]),
    (r"\text{aL\small{LM}4T\small{S}}", [("mtext", "aLLM4TS", {})]),  # sizes ignored, text kept
    (r"\text{\Large big {\tiny small}}", [("mtext", "big\xa0small", {})]),
    (r"\text{Schr\"odinger's \'{e}t\'e --- 50\%}", [("mtext", "Schrödinger's\xa0été\xa0—\xa050%", {})]),
    (r"\mbox{if } x", [("mtext", "if\xa0", {}), ("mi", "x", {})]),
    (r"x_{\text{max}}", [("mi", "x", {}), ("mtext", "max", {})]),
    (r"\textit{$\underline{G}$raph}", [("mi", "G", {}), ("mo", "―", {"accent": "true"}),
                                       ("mtext", "raph", {"mathvariant": "italic"})]),
    (r"\text{for all $x \in \mathcal{X}$}", [("mtext", "for\xa0all\xa0", {}), ("mi", "x", {}), ("mo", "∈", {}),
                                             ("mi", "𝒳", {})]),
    (r"\text{if \(n\log n\)}", [("mtext", "if\xa0", {}), ("mi", "n", {}), ("mi", "log", {}), ("mi", "n", {})]),
])
def test_text_mode_inside_a_formula(tex, expected):
    assert tokens(tex) == expected


@pytest.mark.parametrize("source, html, text", [
    # A formula inside \textit: the inner $ no longer ends the outer formula.
    (r"named $\textit{$\underline{G}$raph $\underline{P}$U}$ (GPL)", None, "named Graph PU (GPL)"),
    # ... also when the inner formula follows a space, which no $ formula may end with.
    (r"so $\text{for all $x$, } f(x) \ge 0$ holds", None, "so for all x, f(x) ≥ 0 holds"),
    (r"$\text{aL\small{LM}4T\small{S}}$ adapts", "<p><math><mrow><mtext>aLLM4TS</mtext></mrow></math> adapts</p>",
     "aLLM4TS adapts"),
    # Unknown text mode is shown as the TeX it is, whole.
    (r"a $\text{b \cite{c} $d$}$ e", r'<p>a <code class="tex">$\text{b \cite{c} $d$}$</code> e</p>', "a b d e"),
    # A text group left open is no formula's end: the shortest formula stands, as before.
    (r"a $\text{$ b $c$ d", r'<p>a <code class="tex">$\text{$</code> b <math><mrow><mi>c</mi></mrow></math> d</p>',
     "a b c d"),
    (r"$5 and $\text{x}$10", r"<p>$5 and $\text{x}$10</p>", "$5 and $\\text{x}$10"),  # prices stay text
])
def test_formulas_inside_text_macros(source, html, text):
    rendered, plain = render_abstract(source)
    assert_safe(rendered)
    if html is None:
        assert rendered.count("<math>") == 1 and "code" not in rendered and "\\" not in rendered, rendered
    else:
        assert rendered == html
    assert plain == text


def test_text_mode_is_escaped():
    html, _ = render_abstract(r"$\text{<b>x</b> & \& $y$ <script>}$")
    assert_safe(html)
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "&lt;script&gt;" in html and "<b>" not in html
    assert html.count("&amp;") == 2


def test_plain_text_drops_sizes_and_math_shifts():
    assert plain_text(r"We present $\text{aL\small{LM}4T\small{S}}$, a $\textit{$\underline{G}$raph}$ model.") == \
        "We present aLLM4TS, a Graph model."
