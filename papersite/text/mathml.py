r"""TeX -> safe MathML, through latex2mathml and an allow-list.

latex2mathml's string output is not safe (`\text{<b>}` comes out as a raw `<b>`;
`\href`, `\style` and `\class` set attributes), so its tree is rebuilt through an
allow-list of MathML elements and presentational attributes. Errors and garbled
output (leaked `\` or stray braces from unknown macros) fall back to
`<code class="tex">` with the TeX source.

Browsers following MathML Core show `mathvariant` only as "normal" on <mi>: the
letters of \mathcal, \mathbb, \mathbf... become Unicode's styled letters
(math_alphabets), and text macros (`\textit{...}`, with formulas inside) are read
by text_mode.

CSS hooks: `math` (inline), `math[display="block"]`, `mtext[mathvariant]` (text
inside a formula, in a style the stylesheet sets), `code.tex` (TeX shown as source
because it could not be converted), `code.tex.tex-display` (same, for display math).
"""

from __future__ import annotations

import functools
import re
from xml.etree.ElementTree import Element, SubElement

from latex2mathml.converter import convert_to_element
from markdown.util import AtomicString, code_escape

from .limits import MAX_FORMULA_NESTING, MAX_TEX_LENGTH, MarkupError, clean
from .math_alphabets import styled
from .tex_text import tex_to_text
from .text_mode import Formula, extract, placeholder_index

__all__ = ["tex_to_mathml", "typeset", "MATHML_ELEMENTS", "MATHML_ATTRIBUTES", "TEX_CLASS", "TEX_DISPLAY_CLASS"]

TEX_CLASS = "tex"
TEX_DISPLAY_CLASS = "tex tex-display"

MATHML_ELEMENTS = frozenset(
    "math mrow mi mn mo mtext ms mspace msub msup msubsup munder mover "
    "munderover mfrac msqrt mroot mstyle mpadded mphantom menclose merror "
    "mtable mtr mtd mmultiscripts mprescripts none".split())

# Presentational MathML attributes latex2mathml emits. Deliberately absent:
# href, class, style, id, mathcolor, mathbackground (settable from TeX).
MATHML_ATTRIBUTES = frozenset(
    "mathvariant stretchy fence form accent accentunder minsize maxsize lspace "
    "rspace largeop movablelimits symmetric separator linethickness "
    "displaystyle scriptlevel mathsize width height depth voffset notation "
    "linebreak columnalign rowalign columnlines rowlines columnspacing "
    "rowspacing frame framespacing".split())

# latex2mathml expands \newcommand macros without limits (exponential
# blow-up, infinite recursion), so definitions are never converted.
_MACRO_DEFINITION = re.compile(
    r"\\(?:newcommand|renewcommand|providecommand|def|gdef|edef|xdef|let"
    r"|newenvironment|renewenvironment|DeclareMathOperator)(?![A-Za-z])")

_MAX_MATHML_DEPTH = 100  # elements inside each other in the typeset formula (about 3 per group of the TeX)


class _Garbled(ValueError):
    """latex2mathml produced something that is not faithful MathML."""


_HEX_REF = re.compile(r"&#x([0-9a-fA-F]+);")


def _decoded(raw: str | None) -> str | None:
    """Decode latex2mathml's `&#x...;` text and reject leaked TeX."""
    if not raw:
        return None
    # Real braces come out as references (`\{` -> &#x0007B;); literal ones,
    # backslashes or bare ampersands mean a macro or group was not understood.
    if "\\" in raw or "{" in raw or "}" in raw or "&" in _HEX_REF.sub("", raw):
        raise _Garbled(raw)
    return clean(_HEX_REF.sub(lambda m: chr(min(int(m.group(1), 16), 0x10FFFF)), raw))


def _escaped(text: str | None) -> str | None:
    # Pre-escaped like Markdown's own code spans; the allow-list keeps entities.
    return None if text is None else AtomicString(code_escape(text))


# Tokens whose letters take a mathvariant's Unicode alphabet.
_STYLED_TOKENS = frozenset(("mi", "mn", "mo"))
# Capital Greek, upright in TeX; a lone letter in an <mi> is italic in MathML.
_CAPITAL_GREEK = frozenset("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ")


def _copy_mathml(src: Element, parent: Element | None = None, depth: int = 1) -> Element:
    if src.tag not in MATHML_ELEMENTS:
        raise _Garbled(src.tag)
    if depth > _MAX_MATHML_DEPTH:
        raise MarkupError(f"a formula nested over {_MAX_MATHML_DEPTH} levels deep once typeset; "
                          "that is the limit")
    attrs = {k: v for k, v in src.attrib.items() if k in MATHML_ATTRIBUTES}
    text = _decoded(src.text)
    if text and src.tag in _STYLED_TOKENS:
        variant = attrs.get("mathvariant")
        letters = styled(text, variant) if variant else None
        if letters is not None:  # the styled letters show what the attribute only says
            text = letters
            del attrs["mathvariant"]
        elif variant is None and src.tag == "mi" and text in _CAPITAL_GREEK:
            attrs["mathvariant"] = "normal"
    el = Element(src.tag, attrs) if parent is None else SubElement(parent, src.tag, attrs)
    el.text = _escaped(text)
    el.tail = _escaped(_decoded(src.tail))
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
    src = _parse(_named_operators(tex, names), names, "block" if display else "inline")
    math = _copy_mathml(src)  # drops xmlns and display="inline": both defaults
    _space_operators(math, names)
    if display:
        math.set("display", "block")
    return math


def _parse(tex: str, names: list[str], display: str = "inline") -> Element:
    """latex2mathml's tree of `tex`, its text macros read by text_mode instead."""
    tex, runs = extract(tex)
    try:
        src = convert_to_element(tex, display=display)
    except RecursionError:
        raise MarkupError("a formula nested too deeply to typeset") from None
    except Exception as exc:  # latex2mathml raises many types, incl. IndexError
        raise _Garbled(str(exc)) from exc
    if runs:
        parents = {child: parent for parent in src.iter() for child in parent}
        for mtext in [el for el in src.iter("mtext") if el.text and placeholder_index(el.text) is not None]:
            index = placeholder_index(mtext.text)
            if index >= len(runs) or mtext not in parents:
                raise _Garbled(mtext.text)
            pieces: list[Element] = []
            for run in runs[index]:
                if isinstance(run, Formula):  # its named operators were replaced with the outer formula's
                    pieces.extend(_parse(run.tex, names))
                else:
                    piece = Element("mtext", {"mathvariant": run.variant} if run.variant else {})
                    piece.text = "".join(f"&#x{ord(char):05X};" for char in run.text)  # as latex2mathml writes
                    pieces.append(piece)
            if len(pieces) == 1:
                replacement = pieces[0]
            else:
                replacement = Element("mrow")
                replacement.extend(pieces)
            parent = parents[mtext]
            parent[list(parent).index(mtext)] = replacement
    return src


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


def typeset(tex: str, display: bool, source: str) -> Element:
    """A formula as MathML, or as its `source` in <code class="tex"> when it cannot be converted.

    Raises MarkupError past a limit. Each call gives a tree of its own (Markdown sets
    the tail of what it receives).
    """
    return _copy_tree(_converted(tex, display, source))


# Formulas like $d$ recur across thousands of abstracts: each is converted once.
@functools.lru_cache(maxsize=4096)
def _converted(tex: str, display: bool, source: str) -> Element:
    try:
        return tex_to_mathml(tex, display)
    except MarkupError:
        raise
    except (ValueError, RecursionError):
        code = Element("code", {"class": TEX_DISPLAY_CLASS if display else TEX_CLASS})
        code.text = AtomicString(code_escape(clean(source)))
        return code


def _copy_tree(src: Element) -> Element:
    """copy.deepcopy for our small, attribute-only trees, several times faster."""
    el = Element(src.tag, src.attrib.copy())
    el.text, el.tail = src.text, src.tail  # AtomicStrings: immutable
    el.extend([_copy_tree(child) for child in src])  # a list: extend() hides errors of a generator
    return el
