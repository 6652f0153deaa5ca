r"""Markdown + TeX math for abstracts: safe HTML, plain text and snippets.

Abstracts are untrusted Markdown with inline TeX (`$...$`, `\(...\)`) and
display TeX (`$$...$$`, `\[...\]`).

Pipeline for `render_markdown`:
1. Markdown with raw HTML switched off (it is escaped, never passed through)
   and headings switched off (a line like "#1 ranked" is not a heading in an
   abstract).
2. A math inline pattern that runs *before* Markdown's escapes and emphasis,
   so `\{`, `*` and `_` inside TeX are not mangled. It converts the TeX with
   latex2mathml and rebuilds the MathML tree through an allow-list
   (latex2mathml's string output is not safe: `\text{<b>}` comes out as a raw
   `<b>`, `\href`/`\style`/`\class` set attributes). Errors and garbled
   output (leaked `\` or stray braces from unknown macros) fall back to
   `<code class="tex">` with the TeX source.
3. A last tree processor writes Markdown's tree through an allow-list: only
   known elements and attributes survive, link URLs are checked, every text
   is read as a browser would read Markdown's own output (entities decoded)
   and escaped again. This makes the output well-formed whatever Markdown
   did with odd input such as `&#0;`. (It replaced a second parse of the
   HTML with the stdlib HTMLParser: byte-identical on 445,000 seed,
   synthetic, test and fuzzed inputs, and a third of the Markdown time.)
   Everything is plugged in through Python-Markdown's public extension API.

`render_abstract` gives the HTML and the plain text of one Markdown pass:
each formula carries its readable text in a private attribute that the
allow-list drops from the HTML and puts in the text instead.

CSS hooks: `math` (inline), `math[display="block"]`, `code.tex` (TeX shown as
source because it could not be converted), `code.tex.tex-display` (same, for
display math).
"""

from __future__ import annotations

import functools
import html
import re
import threading
import unicodedata
from xml.etree.ElementTree import Element, SubElement

import markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import (
    BACKTICK_RE, NOIMG, BacktickInlineProcessor, InlineProcessor, LinkInlineProcessor,
    ReferenceInlineProcessor, ShortReferenceInlineProcessor)
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString, code_escape
from latex2mathml.converter import convert_to_element
from latex2mathml.symbols_parser import convert_symbol

__all__ = [
    "render_abstract", "render_markdown", "plain_text", "snippet", "cut_snippet", "tex_to_text", "tex_to_mathml",
    "is_safe_url",
    "ALLOWED_ELEMENTS", "TEX_CLASS", "TEX_DISPLAY_CLASS",
]

TEX_CLASS = "tex"
_PLAIN_ATTR = "data-papersite-plain"  # never reaches the output: not on the allow-list
TEX_DISPLAY_CLASS = "tex tex-display"

HTML_ELEMENTS = frozenset(
    "p br hr em strong code pre blockquote ul ol li a".split())
MATHML_ELEMENTS = frozenset(
    "math mrow mi mn mo mtext ms mspace msub msup msubsup munder mover "
    "munderover mfrac msqrt mroot mstyle mpadded mphantom menclose merror "
    "mtable mtr mtd mmultiscripts mprescripts none".split())
ALLOWED_ELEMENTS = HTML_ELEMENTS | MATHML_ELEMENTS

# Presentational MathML attributes latex2mathml emits. Deliberately absent:
# href, class, style, id, mathcolor, mathbackground (settable from TeX).
MATHML_ATTRIBUTES = frozenset(
    "mathvariant stretchy fence form accent accentunder minsize maxsize lspace "
    "rspace largeop movablelimits symmetric separator linethickness "
    "displaystyle scriptlevel mathsize width height depth voffset notation "
    "linebreak columnalign rowalign columnlines rowlines columnspacing "
    "rowspacing frame framespacing".split())

SAFE_URL_SCHEMES = frozenset({"http", "https", "mailto"})

# latex2mathml expands \newcommand macros without limits (exponential
# blow-up, infinite recursion), so definitions are never converted.
_MACRO_DEFINITION = re.compile(
    r"\\(?:newcommand|renewcommand|providecommand|def|gdef|edef|xdef|let"
    r"|newenvironment|renewenvironment|DeclareMathOperator)(?![A-Za-z])")
_MAX_TEX_LENGTH = 2000

# Characters html5lib reports as parse errors (controls, surrogates,
# noncharacters); they carry no meaning in an abstract, so they are dropped.
_INVALID_CHARS = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"\\U{p:08x}\\U{p + 1:08x}" for p in range(0xFFFE, 0x110000, 0x10000))
    + "]")


_INVALID_ASCII = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")  # the same, for ASCII text: 5x faster


def _clean(text: str) -> str:
    return (_INVALID_ASCII if text.isascii() else _INVALID_CHARS).sub("", text)


# --- math delimiters ---------------------------------------------------------

# \x02 and \x03 delimit Markdown's placeholders (e.g. for code spans); a span
# containing one crosses a code span and is not math.
_MATH_RE = (
    r"(?<!\\)\$\$(?P<dd>[^\x02\x03]+?)(?<!\\)\$\$"
    r"|\\\[(?P<bd>[^\x02\x03]+?)\\\]"
    r"|\\\((?P<pi>[^\x02\x03]+?)\\\)"
    # Pandoc's rule, so prices ("$5 and $10") stay text: the opening $ is
    # followed by a non-space, the closing $ preceded by a non-space and not
    # followed by a digit.
    r"|(?<![\\$])\$(?P<di>(?=[^\s$])(?:\\.|[^\\$\x02\x03])+?)(?<=\S)\$(?!\d)"
)


# Inline patterns run over every paragraph. Python's re cannot skip ahead to a
# possible start when a pattern opens with a lookbehind or an alternation, so
# these equivalents say where a match can start (math, code spans), or move
# the lookbehind after the literal (links): same matches, 3 to 15 times faster.
_FAST_START = {"math": r"(?=[$\\])(?:", "backtick": r"(?=[\\`])(?:"}
_FAST_LINK = (NOIMG + r"\[", r"\[(?<!\!\[)")  # Markdown's LINK_RE, and ours


# Text before a match that ends inside a link destination "](..." or "<http:...".
_IN_URL = re.compile(r"(?:\]\(|<[A-Za-z][\w+.-]*:)[^\s()<>]*\Z")


class _MathPattern(InlineProcessor):
    """Inline pattern handing every math span to `convert(tex, display, source)`."""

    def __init__(self, convert):
        super().__init__(_FAST_START["math"] + _MATH_RE + ")")
        self.convert = convert

    def handleMatch(self, m, data):
        if _IN_URL.search(data, max(0, m.start(0) - 2000), m.start(0)):
            return None, None, None  # `$` inside a link destination is not math
        display = m.group("dd") is not None or m.group("bd") is not None
        tex = m.group("dd") or m.group("bd") or m.group("pi") or m.group("di")
        return self.convert(tex, display, m.group(0)), m.start(0), m.end(0)


class _AbstractMarkdown(Extension):
    """Markdown for abstracts, through Python-Markdown's public extension points."""

    def __init__(self, convert_math):
        super().__init__()
        self.convert_math = convert_math

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")  # raw block HTML -> escaped text
        md.inlinePatterns.deregister("html")       # raw inline HTML -> escaped text
        md.parser.blockprocessors.deregister("hashheader")
        md.parser.blockprocessors.deregister("setextheader")
        md.ESCAPED_CHARS.append("$")  # so "\$5" is a literal dollar
        # Markdown lists <math> as block-level (for raw HTML) and would prettify
        # newlines around it; here it is always inline content.
        md.block_level_elements.remove("math")
        # Above 'escape' (180) so TeX backslashes survive; below 'backtick' (190)
        # so `$x$` in a code span stays code.
        md.inlinePatterns.register(_MathPattern(self.convert_math), "math", 185)
        # Markdown's own processors and priorities, with the faster regexes.
        patterns = md.inlinePatterns
        patterns.register(BacktickInlineProcessor(_FAST_START["backtick"] + BACKTICK_RE + ")"), "backtick", 190)
        patterns.register(ReferenceInlineProcessor(_FAST_LINK[1], md), "reference", 170)
        patterns.register(LinkInlineProcessor(_FAST_LINK[1], md), "link", 160)
        patterns.register(ShortReferenceInlineProcessor(_FAST_LINK[1], md), "short_reference", 130)
        # Last of all (after 'unescape', 0), the allow-list writes the tree;
        # its HTML replaces Markdown's serialization of the empty root it leaves.
        writer = _AllowList(md)
        md.treeprocessors.register(writer, "allow_list", -100)
        md.postprocessors.register(_Written(writer), "allow_list", -100)


def _build_markdown(convert_math) -> markdown.Markdown:
    return markdown.Markdown(output_format="html", extensions=[_AbstractMarkdown(convert_math)])


# --- TeX -> MathML -------------------------------------------------------------

class _Garbled(ValueError):
    """latex2mathml produced something that is not faithful MathML."""


_HEX_REF = re.compile(r"&#x([0-9a-fA-F]+);")


def _math_text(raw: str | None) -> str | None:
    """Decode latex2mathml's `&#x...;` text and reject leaked TeX."""
    if not raw:
        return None
    # Real braces come out as references (`\{` -> &#x0007B;); literal ones,
    # backslashes or bare ampersands mean a macro or group was not understood.
    if "\\" in raw or "{" in raw or "}" in raw or "&" in _HEX_REF.sub("", raw):
        raise _Garbled(raw)
    text = _clean(_HEX_REF.sub(lambda m: chr(min(int(m.group(1), 16), 0x10FFFF)), raw))
    # Pre-escaped like Markdown's own code spans; the allow-list keeps entities.
    return AtomicString(code_escape(text))


def _copy_mathml(src: Element, parent: Element | None = None) -> Element:
    if src.tag not in MATHML_ELEMENTS:
        raise _Garbled(src.tag)
    attrs = {k: v for k, v in src.attrib.items() if k in MATHML_ATTRIBUTES}
    el = Element(src.tag, attrs) if parent is None else SubElement(parent, src.tag, attrs)
    el.text = _math_text(src.text)
    el.tail = _math_text(src.tail)
    for child in src:
        _copy_mathml(child, el)
    # AtomicString stops Markdown from running inline patterns on the tree.
    if el.text is None:
        el.text = AtomicString("")
    return el


def tex_to_mathml(tex: str, display: bool = False) -> Element:
    """TeX -> sanitized MathML element; raises ValueError when not convertible."""
    if len(tex) > _MAX_TEX_LENGTH or _MACRO_DEFINITION.search(tex):
        raise _Garbled("refused")
    try:
        src = convert_to_element(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many types, incl. IndexError
        raise _Garbled(str(exc)) from exc
    math = _copy_mathml(src)  # drops xmlns and display="inline": both defaults
    if display:
        math.set("display", "block")
    return math


@functools.lru_cache(maxsize=4096)
def _math_element(tex: str, display: bool, source: str) -> Element:
    try:
        return tex_to_mathml(tex, display)
    except (ValueError, RecursionError):
        code = Element("code", {"class": TEX_DISPLAY_CLASS if display else TEX_CLASS})
        code.text = AtomicString(code_escape(_clean(source)))
        return code


def _math_to_html(tex: str, display: bool, source: str) -> Element:
    # Formulas like $d$ recur across thousands of abstracts: convert each once
    # and give Markdown a fresh copy (it sets the tail of what it receives).
    # The copy carries the formula's plain text for the text side of the
    # allow-list pass, which drops the attribute from the HTML.
    math = _copy_tree(_math_element(tex, display, source))
    math.set(_PLAIN_ATTR, tex_to_text(tex))
    return math


def _copy_tree(src: Element) -> Element:
    """copy.deepcopy for our small, attribute-only trees, several times faster."""
    el = Element(src.tag, src.attrib.copy())
    el.text, el.tail = src.text, src.tail  # AtomicStrings: immutable
    el.extend(_copy_tree(child) for child in src)
    return el


# --- final allow-list pass over the HTML -------------------------------------

_VOID = frozenset({"br", "hr", "img"})


def is_safe_url(url: str) -> bool:
    """http(s), mailto or relative. `url` must already be entity-decoded."""
    # Browsers ignore controls and whitespace inside a scheme ("java\tscript:").
    compact = re.sub(r"[\x00-\x20\x7f-\x9f]+", "", url)
    head = re.split(r"[/?#]", compact, maxsplit=1)[0]
    if ":" not in head:
        return True  # relative
    return head.split(":", 1)[0].lower() in SAFE_URL_SCHEMES


def _allowed_attrs(tag: str, attrs: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    kept = []
    for name, value in attrs:
        value = _clean(value or "")
        if tag == "a" and name == "href" and is_safe_url(value):
            kept.append((name, value))
        elif tag == "a" and name == "title":
            kept.append((name, value))
        elif tag == "code" and name == "class" and value in (TEX_CLASS, TEX_DISPLAY_CLASS):
            kept.append((name, value))
        elif tag == "ol" and name == "start" and value.isdigit() and len(value) < 10:
            kept.append((name, value))
        elif tag == "math" and name == "display" and value == "block":
            kept.append((name, value))
        elif tag in MATHML_ELEMENTS and tag != "math" and name in MATHML_ATTRIBUTES:
            kept.append((name, value))
    return kept


class _AllowList(Treeprocessor):
    """Markdown's tree -> allowed HTML and its plain text, in one walk.

    Run as the last tree processor. Only allowed elements and
    attributes are written: others are unwrapped (their text stays), images
    become their alt text, links without a safe href are unwrapped. Every
    text and attribute value is read as a browser would read Markdown's own
    serialization (its escaping, its stashed entities restored, every
    character reference decoded), then escaped again: the output is
    well-formed whatever the input, such as `&#0;`. The text side reads like
    the page (block elements and images separate words) and takes a
    formula's text from its private attribute instead of its MathML.
    """

    def __init__(self, md: markdown.Markdown):
        super().__init__(md)
        self.html = self.plain = ""

    def run(self, root: Element) -> Element:
        self.out: list[str] = []
        self.text: list[str] = []
        stash = self.md.htmlStash.rawHtmlBlocks
        self.restore = (lambda m: stash[int(m.group(1))]) if stash else None
        self._children(root, in_link=False, in_formula=False)
        self.html = "".join(self.out).strip()
        self.plain = " ".join(_clean("".join(self.text)).split())  # str.split's whitespace is re's \s
        return Element(root.tag)  # nothing left for Markdown to write

    def _read(self, value: str, escape) -> str:
        """What a browser reads in `value` as Markdown writes it with `escape`."""
        if not _TO_READ.search(value):
            return value  # plain text of the cleaned input: read as it is
        value = escape(value)
        if self.restore and "\x02" in value:
            value = _STASHED.sub(self.restore, value)
        return _clean(html.unescape(value.replace(markdown.util.AMP_SUBSTITUTE, "&")))

    def _data(self, value: str | None, in_formula: bool) -> None:
        if value:
            data = self._read(value, _escape_text)
            if not in_formula:
                self.text.append(data)
            self.out.append(html.escape(data, quote=False))

    def _children(self, el: Element, in_link: bool, in_formula: bool) -> None:
        self._data(el.text, in_formula)
        for child in el:
            self._element(child, in_link, in_formula)
            self._data(child.tail, in_formula)

    def _element(self, el: Element, in_link: bool, in_formula: bool) -> None:
        tag = el.tag
        attrs = [(name, self._read(value, _escape_attribute)) for name, value in sorted(el.items())]
        if not in_formula:
            if tag == "img":
                self.text.append(" " + (dict(attrs).get("alt") or "") + " ")
            elif tag in _WORD_BREAKS:
                self.text.append(" ")
            for name, value in attrs:
                if name == _PLAIN_ATTR:
                    self.text.append(value)
                    in_formula = True
        if tag == "img":
            self.out.append(html.escape(dict(attrs).get("alt") or "", quote=False))
            return
        attrs = _allowed_attrs(tag, attrs)
        keep = tag in ALLOWED_ELEMENTS
        if tag == "a":
            keep = not in_link and any(n == "href" for n, _ in attrs)  # a safe href, and no nested link
            in_link = in_link or keep
        if keep:
            self.out.append("<" + tag + "".join(f' {n}="{html.escape(v, quote=True)}"' for n, v in attrs) + ">")
        if tag not in _VOID:
            self._children(el, in_link, in_formula)
            if keep:
                self.out.append(f"</{tag}>")


class _Written(Postprocessor):
    """The allow-list's HTML as Markdown's output."""

    def __init__(self, writer: _AllowList):
        super().__init__()
        self.writer = writer

    def run(self, text: str) -> str:
        return self.writer.html


# How Markdown escapes what it writes (its serializer's rules): an `&` that
# starts a character reference is kept, so "&copy;" in the tree reads "©".
_BARE_AMP = re.compile(r"&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)", re.I)


def _escape_text(text: str) -> str:
    if "&" in text:
        text = _BARE_AMP.sub("&amp;", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    return _escape_text(text).replace('"', "&quot;")


_STASHED = re.compile(markdown.util.HTML_PLACEHOLDER % r"([0-9]+)")  # entities Markdown put aside
_TO_READ = re.compile('[&<>"\x02\x03]')  # what escaping, stashing or a reference could change
_WORD_BREAKS = frozenset({"br", "hr", "p", "li", "blockquote", "pre"})


# --- TeX -> plain text ---------------------------------------------------------

# Macros that only style or size their argument: drop the macro, keep the argument.
_STYLE_MACROS = frozenset("""
    left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle
    displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits
    mathcal mathbb mathrm mathbf mathit mathsf mathtt mathfrak mathscr mathnormal
    boldsymbol bm pmb text textrm textbf textit texttt textsf textsc textnormal
    emph operatorname mbox hbox mathop mathbin mathrel mathord
    hat widehat tilde widetilde bar overline underline vec dot ddot check breve
    acute grave mathring overrightarrow overleftarrow underbrace overbrace
""".split())
# Macros whose first argument is not text ("\href{url}{text}" reads "text").
_DROP_FIRST_ARG = frozenset(
    "color textcolor colorbox href class style cssId label ref eqref cite tag".split())
_SPACE_MACROS = {",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "!": "", "\\": " "}
_TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[\s\S]", re.S)


def _wrap(s: str) -> str:
    """Parenthesize a fraction/root operand unless it is a single word."""
    return s if re.fullmatch(r"\w+", s) else f"({s})"


class _TexText:
    """Tiny recursive reader turning TeX into readable text."""

    def __init__(self, tex: str):
        self.tokens = _TEX_TOKEN.findall(tex)
        self.i = 0

    def group(self) -> str:
        """Read until the closing brace of the current group (or the end)."""
        out = []
        while self.i < len(self.tokens):
            tok = self.tokens[self.i]
            self.i += 1
            if tok == "}":
                break
            out.append(self.token(tok))
        return "".join(out)

    def arg(self) -> str:
        """One macro argument: a {group} or a single token."""
        while self.i < len(self.tokens) and self.tokens[self.i].isspace():
            self.i += 1
        if self.i >= len(self.tokens):
            return ""
        tok = self.tokens[self.i]
        self.i += 1
        return self.group() if tok == "{" else self.token(tok)

    def token(self, tok: str) -> str:
        if tok == "{":
            return self.group()
        if tok in ("^", "_"):
            script = self.arg().strip()
            # Subscripts read well inline ("l1", "x0"); keep ^ for powers.
            return script if tok == "_" or script in ("*", "′", "'") else "^" + script
        if tok in ("~", "&"):
            return " "
        if not tok.startswith("\\"):
            return tok
        name = tok[1:]
        if name in _SPACE_MACROS:
            return _SPACE_MACROS[name]
        if len(name) == 1:
            return name  # \{ \% \$ \_ \& ...
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            num, den = self.arg().strip(), self.arg().strip()
            return f"{_wrap(num)}/{_wrap(den)}"
        if name == "sqrt":
            if self.i < len(self.tokens) and self.tokens[self.i] == "[":
                while self.i < len(self.tokens) and self.tokens[self.i] != "]":
                    self.i += 1
                self.i += 1
            return "√" + _wrap(self.arg().strip())
        if name in _DROP_FIRST_ARG:
            self.arg()  # colour, URL, label...: not part of the reading
            return ""
        if name in _STYLE_MACROS:
            if self.i < len(self.tokens) and self.tokens[self.i] == ".":
                self.i += 1  # \left. and \right. are invisible delimiters
            return ""
        code = convert_symbol(tok)
        if code:
            # NFKC turns lunate ϵ into ε and ℓ into l: what people search for.
            return unicodedata.normalize("NFKC", chr(int(code, 16)))
        return name  # \log, \max, unknown macros: the word itself


@functools.lru_cache(maxsize=4096)
def tex_to_text(tex: str) -> str:
    """Readable plain text for a TeX fragment: no macros, no grouping braces."""
    try:
        reader = _TexText(tex)
        parts = []
        while reader.i < len(reader.tokens):  # a stray '}' ends group() early
            parts.append(reader.group())
        text = "".join(parts)
    except RecursionError:  # absurdly nested braces
        text = re.sub(r"\\[A-Za-z]+|[\\{}^_]", " ", tex)
    text = text.replace("\u2212", "-")
    return re.sub(r"\s+", " ", _clean(text)).strip()


# --- public API ------------------------------------------------------------------

_local = threading.local()  # Markdown instances are stateful: one per thread


def _markdown() -> markdown.Markdown:
    md = getattr(_local, "md", None)
    if md is None:
        md = _local.md = _build_markdown(_math_to_html)
        _local.writer = md.treeprocessors["allow_list"]
    return md.reset()


def render_abstract(text: str) -> tuple[str, str]:
    """Abstract Markdown (with TeX math) -> (safe HTML fragment, plain text), in one pass."""
    md = _markdown()
    _local.writer.plain = ""  # Markdown skips its processors for blank input
    return md.convert(_clean(text)), _local.writer.plain


def render_markdown(text: str) -> str:
    """Abstract Markdown (with TeX math) -> safe, well-formed HTML fragment."""
    return render_abstract(text)[0]


def plain_text(text: str) -> str:
    """Abstract -> one line of plain text (Markdown removed, math readable).

    The result is text, not HTML: escape it wherever it is embedded.
    """
    return render_abstract(text)[1]


def snippet(text: str, limit: int = 240) -> str:
    """The start of `plain_text(text)`, cut at a word boundary, with an ellipsis."""
    return cut_snippet(plain_text(text), limit)


def cut_snippet(plain: str, limit: int = 240) -> str:
    """The start of a plain text, cut at a word boundary, with an ellipsis."""
    if len(plain) <= limit:
        return plain
    cut = plain[: max(limit - 1, 0)]  # leave room for the ellipsis
    if plain[len(cut)] != " ":  # the cut falls inside a word: drop that word,
        space = cut.rfind(" ")  # unless that would lose half the snippet
        if space > limit // 2:
            cut = cut[:space]
    return cut.rstrip(" ,;:.-–—(") + "…"


def render_title(text: str) -> str:
    """A title as safe HTML: its $math$ typeset like the abstract's, the rest escaped.

    Titles are one line and rarely hold math; when they do (e.g. "$\\ell_p$
    Space") it should look like the abstract does.
    """
    if "$" not in text:
        return html.escape(text, quote=False)
    rendered = render_markdown(text)
    return rendered.removeprefix("<p>").removesuffix("</p>").strip() if rendered.count("<p>") == 1 \
        else html.escape(text, quote=False)
