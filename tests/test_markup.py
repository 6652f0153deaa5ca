"""Tests for papersite.markup: Markdown + TeX math -> safe HTML / plain text."""

import json
import re
from pathlib import Path

import html5lib
import pytest
from hypothesis import given, settings, strategies as st

from papersite.markup import ALLOWED_ELEMENTS, plain_text, render_abstract, render_markdown, render_title, snippet

SEEDS = sorted((Path(__file__).parent / "fixtures" / "seeds").glob("*.txt"))
# Header line, then abstracts separated by blank lines.
ABSTRACTS = [a for f in SEEDS for a in f.read_text(encoding="utf-8").split("\n\n")[1:] if a.strip()]
MATH_SPAN = re.compile(r"\$[^$]+\$")
SPANS = sorted({s for a in ABSTRACTS for s in MATH_SPAN.findall(a)})
# Spans latex2mathml cannot convert faithfully (nested text macros).
EXPECTED_FALLBACKS = {r"$\textbf{\texttt{Lingual-SMoE}}$"}


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
    assert fallbacks == 1


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


def test_retuned_inline_patterns_find_what_markdowns_own_find():
    """The faster regexes markup registers match exactly where Python-Markdown's would."""
    import random
    import markdown.inlinepatterns as md_patterns
    from papersite import markup
    pairs = [(md_patterns.BACKTICK_RE, markup._FAST_START["backtick"] + md_patterns.BACKTICK_RE + ")"),
             (markup._FAST_LINK[0], markup._FAST_LINK[1]),
             (markup._MATH_RE, markup._FAST_START["math"] + markup._MATH_RE + ")")]
    rng = random.Random(5)
    atoms = ["\\", "`", "``", "!", "[", "]", "$", "$$", "x", " ", "\\[", "\\(", "\\)", "\\]", "\n", "\\\\", "\x02"]
    samples = ABSTRACTS + ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 30))) for _ in range(5000)]
    for original, fast in pairs:
        original, fast = re.compile(original, re.DOTALL), re.compile(fast, re.DOTALL)
        for text in samples:
            for start in (0, 2):
                assert [(m.span(), m.groups()) for m in original.finditer(text, start)] == \
                       [(m.span(), m.groups()) for m in fast.finditer(text, start)], (original.pattern, text)


# --- the serializer against the parser it replaced ---------------------------------

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "markup_golden.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda case: repr(case["markdown"])[:40])
def test_output_equals_the_html_parser_pass_it_replaced(case):
    """The allow-list reads Markdown's tree as a browser reads Markdown's HTML (it
    follows Markdown's escaping rules): a Markdown upgrade that changes how it
    escapes or stashes text shows up here."""
    assert render_abstract(case["markdown"]) == (case["html"], case["text"])
    assert render_title(case["markdown"]) == case["title"]


def test_markup_uses_only_public_markdown_api():
    """No private name of Python-Markdown is imported, and none of its objects is patched."""
    import ast
    import papersite.markup
    tree = ast.parse(Path(papersite.markup.__file__).read_text(encoding="utf-8"))
    own = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] == "markdown":
            assert not any(alias.name.startswith("_") for alias in node.names), ast.unparse(node)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            assert node.attr in own, ast.unparse(node)  # only markup's own private names
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute):
                    assert target.attr not in {"compiled_re", "serializer", "pattern"}, ast.unparse(node)
