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
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString, code_escape
from latex2mathml.converter import convert_to_element
from latex2mathml.symbols_parser import convert_symbol

__all__ = [
    "MarkupError", "MAX_NESTING", "MAX_TEX_LENGTH", "MAX_TEX_PER_ABSTRACT", "MAX_FORMULA_NESTING",
    "MAX_BACKTICK_RUNS",
    "render_abstract", "render_markdown", "plain_text", "plain_title", "snippet", "cut_snippet", "tex_to_text", "tex_to_mathml",
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

# Limits that keep every input within the stack and a few seconds (real
# abstracts: nesting under 5, formulas under 110 characters, under 300 per
# abstract, MathML 7 deep). Python-Markdown, latex2mathml and the allow-list
# recurse once or more per level: past these, input is refused with its line.
MAX_NESTING = 32  # lists, quotes, emphasis, links and brackets inside each other
MAX_TEX_LENGTH = 2000  # characters of one formula
MAX_TEX_PER_ABSTRACT = 32_000  # characters of all formulas of one abstract (half the abstract limit)
MAX_FORMULA_NESTING = 32  # braces, \left and \begin inside each other
_MAX_MATHML_DEPTH = 100  # the typeset formula (about 3 elements per group)
# Python-Markdown scans the rest of a paragraph for the closing run of each
# run of backticks it meets (1,200 runs in 7,000 characters: 1.8 s).
MAX_BACKTICK_RUNS = 200  # in one paragraph


class MarkupError(ValueError):
    """Markdown or TeX beyond a limit; `line` counts from the abstract's first line."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message, line)
        self.message, self.line = message, line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"

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
# A formula is at most MAX_TEX_LENGTH characters: a delimiter with no closing
# one within that is text, so an unclosed one costs no scan to the paragraph's
# end (quadratic on a run of them). Longer \(...\), \[...\] and $$...$$ spans
# are refused by _LongFormula.
_MATH_RE = (
    r"(?<!\\)\$\$(?P<dd>[^\x02\x03]{1,%(n)d}?)(?<!\\)\$\$"
    r"|\\\[(?P<bd>[^\x02\x03]{1,%(n)d}?)\\\]"
    r"|\\\((?P<pi>[^\x02\x03]{1,%(n)d}?)\\\)"
    # Pandoc's rule, so prices ("$5 and $10") stay text: the opening $ is
    # followed by a non-space, the closing $ preceded by a non-space and not
    # followed by a digit.
    r"|(?<![\\$])\$(?P<di>(?=[^\s$])(?:\\.|[^\\$\x02\x03]){1,%(n)d}?)(?<=\S)\$(?!\d)"
) % {"n": MAX_TEX_LENGTH}


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

    def __init__(self, convert, limits: _Limits):
        super().__init__(_FAST_START["math"] + _MATH_RE + ")")
        self.convert = convert
        self.limits = limits

    def handleMatch(self, m, data):
        if _IN_URL.search(data, max(0, m.start(0) - 2000), m.start(0)):
            return None, None, None  # `$` inside a link destination is not math
        display = m.group("dd") is not None or m.group("bd") is not None
        tex = m.group("dd") or m.group("bd") or m.group("pi") or m.group("di")
        limits = self.limits
        limits.tex += len(tex)
        try:
            if limits.tex > MAX_TEX_PER_ABSTRACT:
                raise MarkupError(f"the formulas of this abstract have over {MAX_TEX_PER_ABSTRACT:,} "
                                  "characters of TeX; that is the limit")
            return self.convert(tex, display, m.group(0)), m.start(0), m.end(0)
        except MarkupError as error:
            raise MarkupError(error.message, limits.line_of(m.group(0))) from None


class _Limits:
    """What one render has used, and where in the source a text comes from."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.tex = 0  # characters of TeX so far
        self.lines: list[str] = []  # the source, as Markdown's preprocessors see it
        self.blocks: dict[Element, str] = {}  # block -> its text before inline parsing

    def line_of(self, text: str) -> int:
        """The line where `text` (from the source, maybe stripped of list or quote markers) starts."""
        first = text.strip().split("\n", 1)[0].strip()
        for number, line in enumerate(self.lines, 1):
            if first and first in line:
                return number
        return 1


# A line's container markers: quotes and list items (each one nests).
_CONTAINERS = re.compile(r"(?:[ ]*(?:>|[*+-][ ]|[0-9]+[.)][ ]))+")
_CONTAINER_MARK = re.compile(r">|[*+-](?=[ ])|[0-9]+[.)](?=[ ])")


class _NestedLines(Preprocessor):
    """Refuses lines nested too deep before Markdown's block parser recurses into them."""

    def __init__(self, md: markdown.Markdown, limits: _Limits):
        super().__init__(md)
        self.limits = limits

    def run(self, lines: list[str]) -> list[str]:
        self.limits.lines = lines
        for number, line in enumerate(lines, 1):
            if line[:1] in _PLAIN_LINE_START:
                continue
            prefix = _CONTAINERS.match(line)
            if not prefix:
                continue
            # A list item indented 2 to 4 spaces per level: count a level per 2.
            depth = len(_CONTAINER_MARK.findall(prefix.group())) + (len(line) - len(line.lstrip(" "))) // 2
            if depth > MAX_NESTING:
                raise MarkupError(f"lists or quotes nested {depth} levels deep; the limit is {MAX_NESTING}",
                                  number)
        return lines


_PLAIN_LINE_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$\\([_`&\"'")

_FORMULA = re.compile(_MATH_RE)
_BACKTICKS = re.compile(r"`+")
_LONG_FORMULA = (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"))


class _BeforeInline(Treeprocessor):
    """Checks each block's text before inline parsing: bracket nesting, formula length."""

    def __init__(self, md: markdown.Markdown, limits: _Limits):
        super().__init__(md)
        self.limits = limits

    def run(self, root: Element) -> None:
        blocks = self.limits.blocks
        for el in root.iter():
            text = el.text
            if not text or isinstance(text, AtomicString):
                continue
            blocks[el] = text
            # Markdown looks for the end of every link text from its `[`: at
            # each level of nesting it scans the rest of the paragraph again.
            if text.count("[") > MAX_NESTING:
                markdown_only = _FORMULA.sub(" ", _without_code_spans(text))
                depth = _bracket_depth(markdown_only)
                if depth > MAX_NESTING:
                    raise MarkupError(f"brackets [ ] nested {depth} deep; the limit is {MAX_NESTING} "
                                      "(write a literal [ as &#91;)", self.limits.line_of(text))
                # The same for a link's destination: it is read up to its closing `)`.
                open_links = _open_links(markdown_only)
                if open_links > MAX_NESTING:
                    raise MarkupError(f"{open_links} links '](' left without their ')' or nested in another "
                                      f"link's ( ); the limit is {MAX_NESTING}", self.limits.line_of(text))
            if text.count("`") > MAX_BACKTICK_RUNS:
                runs = len(_BACKTICKS.findall(text))
                if runs > MAX_BACKTICK_RUNS:
                    raise MarkupError(f"{runs} runs of backticks ` in one paragraph; the limit is "
                                      f"{MAX_BACKTICK_RUNS} (write a literal ` as &#96;)", self.limits.line_of(text))
            if len(text) > MAX_TEX_LENGTH:
                for start, end in _LONG_FORMULA:
                    _check_formula_length(text, start, end, self.limits)


def _without_code_spans(text: str) -> str:
    """`text` with its code spans (a run of backticks to the next run as long) blanked, in one pass."""
    runs = [match.span() for match in _BACKTICKS.finditer(text)]
    later: dict[int, list[int]] = {}  # run length -> indices of the runs that long, last first
    for index in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[index][1] - runs[index][0], []).append(index)
    out, kept, index = [], 0, 0
    while index < len(runs):
        start, end = runs[index]
        same = later[end - start]
        while same and same[-1] <= index:
            same.pop()
        if same:
            closing = same.pop()
            out.append(text[kept:start] + " ")
            kept, index = runs[closing][1], closing + 1
        else:
            index += 1
    return "".join(out) + text[kept:]


_PARENS = re.compile(r"\\.|\]\(|[()]", re.S)


def _open_links(text: str) -> int:
    """How many link destinations `](` are never closed, or opened inside another one."""
    stack: list[int] = []  # per open parenthesis: 0 not a link, 1 a link, 2 a link inside another
    links_open = nested = 0
    for token in _PARENS.findall(text):
        if token == "](":
            stack.append(2 if links_open else 1)
            nested += links_open > 0
            links_open += 1
        elif token == "(":
            stack.append(0)
        elif token == ")" and stack:
            links_open -= stack.pop() > 0
    return nested + stack.count(1)


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "]" and depth:
            depth -= 1
    return deepest


def _check_formula_length(text: str, start: str, end: str, limits: _Limits) -> None:
    """Refuses an unambiguous formula (not `$`: prices) longer than MAX_TEX_LENGTH, in one pass."""
    at = text.find(start)
    while at >= 0:
        close = text.find(end, at + len(start))
        if close < 0:
            return  # never closed: text, as Markdown reads it
        if close - at - len(start) > MAX_TEX_LENGTH:
            raise MarkupError(f"a formula {start}...{end} of {close - at - len(start):,} characters; the limit "
                              f"is {MAX_TEX_LENGTH:,} (or is a closing {end} missing?)",
                              limits.line_of(text[at:]))
        at = text.find(start, close + len(end))


class _AfterInline(Treeprocessor):
    """Refuses a tree nested deeper than MAX_NESTING (the allow-list walks it recursively)."""

    def __init__(self, md: markdown.Markdown, limits: _Limits):
        super().__init__(md)
        self.limits = limits

    def run(self, root: Element) -> None:
        stack = [(child, 1, child) for child in root]
        while stack:
            el, depth, block = stack.pop()
            if el in self.limits.blocks:
                block = el
            if depth > MAX_NESTING:
                raise MarkupError(f"Markdown nested over {MAX_NESTING} levels deep (emphasis, links, lists "
                                  "or quotes inside each other); that is the limit",
                                  self.limits.line_of(self.limits.blocks.get(block, "")))
            if el.tag != "math":  # formulas have their own limit
                stack.extend((child, depth + 1, block) for child in el)


class _AbstractMarkdown(Extension):
    """Markdown for abstracts, through Python-Markdown's public extension points."""

    def __init__(self, convert_math):
        super().__init__()
        self.convert_math = convert_math
        self.limits = _Limits()

    def reset(self) -> None:
        self.limits.reset()

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.registerExtension(self)  # for reset()
        limits = self.limits
        # After 'normalize_whitespace' (30), which keeps lines one for one.
        md.preprocessors.register(_NestedLines(md, limits), "nested_lines", 29)
        md.treeprocessors.register(_BeforeInline(md, limits), "before_inline", 21)
        md.treeprocessors.register(_AfterInline(md, limits), "after_inline", 19)
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
        md.inlinePatterns.register(_MathPattern(self.convert_math, limits), "math", 185)
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


def _copy_mathml(src: Element, parent: Element | None = None, depth: int = 1) -> Element:
    if src.tag not in MATHML_ELEMENTS:
        raise _Garbled(src.tag)
    if depth > _MAX_MATHML_DEPTH:
        raise MarkupError(f"a formula nested over {_MAX_MATHML_DEPTH} levels deep once typeset; "
                          "that is the limit")
    attrs = {k: v for k, v in src.attrib.items() if k in MATHML_ATTRIBUTES}
    el = Element(src.tag, attrs) if parent is None else SubElement(parent, src.tag, attrs)
    el.text = _math_text(src.text)
    el.tail = _math_text(src.tail)
    for child in src:
        _copy_mathml(child, el, depth + 1)
    # AtomicString stops Markdown from running inline patterns on the tree.
    if el.text is None:
        el.text = AtomicString("")
    return el


def tex_to_mathml(tex: str, display: bool = False) -> Element:
    """TeX -> sanitized MathML element.

    Raises MarkupError past a limit, and another ValueError when not convertible.
    """
    if len(tex) > MAX_TEX_LENGTH:
        raise MarkupError(f"a formula of {len(tex):,} characters; the limit is {MAX_TEX_LENGTH:,}")
    if tex.count("{") + tex.count("\\") > MAX_FORMULA_NESTING:
        depth = _formula_nesting(tex)
        if depth > MAX_FORMULA_NESTING:
            raise MarkupError(f"a formula nested {depth} groups deep (braces, \\left, \\begin); "
                              f"the limit is {MAX_FORMULA_NESTING}")
    if _MACRO_DEFINITION.search(tex):
        raise _Garbled("refused")
    names: list[str] = []
    try:
        src = convert_to_element(_named_operators(tex, names), display="block" if display else "inline")
    except RecursionError:
        raise MarkupError("a formula nested too deeply to typeset") from None
    except Exception as exc:  # latex2mathml raises many types, incl. IndexError
        raise _Garbled(str(exc)) from exc
    math = _copy_mathml(src)  # drops xmlns and display="inline": both defaults
    _space_operators(math, names)
    if display:
        math.set("display", "block")
    return math


# --- named operators: \log, \max, \operatorname{...} ---------------------------
#
# latex2mathml writes \log as <mi>log</mi> and \max as <mo>max</mo> with no
# space (s\log p reads "slogp"), does not know \arg or \operatorname*, garbles
# \operatorname{arg\,min} and leaves \mathrm{d} italic. Before conversion,
# every \operatorname{...} and \arg becomes a placeholder name latex2mathml
# passes through; after it, each named operator becomes an upright <mi> with
# TeX's thin space (3/18 em) on each side that touches an ordinary symbol
# (none next to an operator such as "(", "=" or "+", which space themselves).

_OPERATORNAME = re.compile(r"\\operatorname(\*?)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_ARG = re.compile(r"\\arg(?![A-Za-z])")
_SINGLE_MATHRM = re.compile(r"\\mathrm\s*\{\s*([A-Za-z0-9])\s*\}")  # \mathrm{d}: latex2mathml drops "normal"
_PLACEHOLDER = "papersiteop"
_TEX_SPACE = re.compile(r"\\[,:;> ]|~")
_THIN_SPACE = "0.1667em"
# Elements whose children sit side by side (not a script's base and script).
_ROWS = frozenset("math mrow mstyle mtd mpadded mphantom msqrt menclose".split())
_SCRIPTS = frozenset("msub msup msubsup munder mover munderover".split())


def _named_operators(tex: str, names: list[str]) -> str:
    r"""TeX with \operatorname{X} and \arg as placeholders; `names` gets their names."""
    if "\\" not in tex:
        return tex

    def placeholder(name: str, limits: str) -> str:
        names.append(name)
        letters = "".join(chr(ord("a") + int(digit)) for digit in str(len(names) - 1))
        return "\\operatorname{" + _PLACEHOLDER + letters + "}" + ("\\limits" if limits else "")

    def operatorname(match: re.Match) -> str:
        # Spaces are ignored in math; \, \; ... are thin spaces.
        words = tex_to_text(_TEX_SPACE.sub(" ", re.sub(r"(?<!\\) ", "", match.group(2))))
        # \operatorname* is \limits, which latex2mathml only takes before a script.
        limits = match.group(1) and tex[match.end():].lstrip()[:1] in ("_", "^")
        return placeholder(words.replace(" ", "\u2009"), limits)

    tex = _OPERATORNAME.sub(operatorname, tex)
    tex = _ARG.sub(lambda match: placeholder("arg", ""), tex)
    return _SINGLE_MATHRM.sub(r"\\mathrm \1", tex)


def _operator_name(el: Element, names: list[str]) -> str | None:
    """The name if `el` is a named operator: a placeholder, an <mo> of letters, an <mi> of several."""
    text = el.text or ""
    if el.tag not in ("mi", "mo") or len(el) or not text[:1].isalpha():
        return None
    if text.startswith(_PLACEHOLDER) and text[len(_PLACEHOLDER):].isalpha():
        index = int("".join(str(ord(c) - ord("a")) for c in text[len(_PLACEHOLDER):]))
        return names[index] if index < len(names) else None
    word = text.replace("\u2009", "").replace("\u2006", "")
    if word.isalpha() and (el.tag == "mo" or len(word) > 1):
        return text
    return None


def _space_operators(math: Element, names: list[str]) -> None:
    for row in math.iter():
        if row.tag in _SCRIPTS and len(row):  # a named operator with limits or scripts
            _make_upright(row[0], names)
        if row.tag not in _ROWS:
            continue
        children = list(row)
        spaced: list[Element] = []
        for index, child in enumerate(children):
            base = child[0] if child.tag in _SCRIPTS and len(child) else child
            if _make_upright(base, names):
                if index > 0 and _ordinary(children[index - 1]) and not _is_space(spaced[-1]):
                    spaced.append(_space())
                spaced.append(child)
                if index + 1 < len(children) and _ordinary(children[index + 1]):
                    spaced.append(_space())
            else:
                spaced.append(child)
        if len(spaced) != len(children):
            tail = row[-1].tail
            row[:] = spaced
            row[-1].tail = tail


def _make_upright(el: Element, names: list[str]) -> bool:
    """Turn a named operator into <mi>name</mi> (upright: more than one letter, or marked)."""
    if el.get("data-operator") is not None:
        return True
    name = _operator_name(el, names)
    if name is None:
        return False
    el.tag = "mi"
    el.attrib.clear()
    el.text = AtomicString(code_escape(name))
    if len(name) == 1:
        el.set("mathvariant", "normal")
    el.set("data-operator", "")  # seen: never on the page (not on the allow-list)
    return True


def _ordinary(el: Element) -> bool:
    """Neither an operator symbol (spaced by the browser) nor a space already."""
    base = el[0] if el.tag in _SCRIPTS and len(el) else el
    return base.tag not in ("mo", "mspace") or base.get("data-operator") is not None


def _is_space(el: Element) -> bool:
    return el.tag == "mspace"


def _space() -> Element:
    space = Element("mspace", {"width": _THIN_SPACE})
    space.text = AtomicString("")
    return space


_TEX_GROUP = re.compile(r"\\(?:left|begin|right|end)(?![A-Za-z])|\\.|[{}]")


def _formula_nesting(tex: str) -> int:
    depth = deepest = 0
    for token in _TEX_GROUP.findall(tex):
        if token in ("{", "\\left", "\\begin"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("}", "\\right", "\\end") and depth:
            depth -= 1
    return deepest


@functools.lru_cache(maxsize=4096)
def _math_element(tex: str, display: bool, source: str) -> Element:
    try:
        return tex_to_mathml(tex, display)
    except MarkupError:
        raise
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
    el.extend([_copy_tree(child) for child in src])  # a list: extend() hides errors of a generator
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
    bf rm it sf tt sl sc cal em normalfont bfseries mdseries itshape upshape slshape scshape
    rmfamily sffamily ttfamily
""".split())  # the last two lines: TeX's old font switches ({\bf x}, $\rm{A}$), which take no argument
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
    """Abstract Markdown (with TeX math) -> (safe HTML fragment, plain text), in one pass.

    Raises MarkupError for input past a limit (MAX_NESTING, MAX_TEX_LENGTH...).
    """
    md = _markdown()
    _local.writer.plain = ""  # Markdown skips its processors for blank input
    try:
        return md.convert(_clean(text)), _local.writer.plain
    except RecursionError:  # not expected within the limits: still a clear message
        raise MarkupError("nested too deeply to render (emphasis, links, lists or quotes inside "
                          "each other)") from None


def render_markdown(text: str) -> str:
    """Abstract Markdown (with TeX math) -> safe, well-formed HTML fragment."""
    return render_abstract(text)[0]


def plain_text(text: str) -> str:
    """Abstract -> one line of plain text (Markdown removed, math readable).

    The result is text, not HTML: escape it wherever it is embedded. Text
    past a limit (see render_abstract) reads as its source.
    """
    try:
        return render_abstract(text)[1]
    except MarkupError:
        return " ".join(_clean(text).split())


@functools.lru_cache(maxsize=1 << 16)
def plain_title(title: str) -> str:
    """A title as plain text, for <title>, meta tags, search results and the map: its math
    readable. Kept: every build asks again for every paper, and math goes through Markdown."""
    return plain_text(title) if "$" in title else title


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


@functools.lru_cache(maxsize=1 << 16)  # every listing a paper is in shows its title
def render_title(text: str) -> str:
    """A title as safe HTML: its $math$ typeset like the abstract's, the rest escaped.

    Titles are one line and rarely hold math; when they do (e.g. "$\\ell_p$
    Space") it should look like the abstract does.
    """
    if "$" not in text:
        return html.escape(text, quote=False)
    try:
        rendered = render_markdown(text)
    except MarkupError:  # past a limit: shown as it was written
        return html.escape(text, quote=False)
    return rendered.removeprefix("<p>").removesuffix("</p>").strip() if rendered.count("<p>") == 1 \
        else html.escape(text, quote=False)
