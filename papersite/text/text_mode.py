r"""TeX's text mode inside a formula: `\text{...}`, `\textit{...}`, `\emph{...}` and their kin.

latex2mathml reads `\text{plain words}` only: a size switch inside (`\small`), a text
macro inside another (`\textbf{\texttt{x}}`) or a formula inside (`\textit{$G$raph}`)
comes out garbled. `extract` reads every text macro of a formula itself and leaves a
placeholder latex2mathml passes through as one <mtext>; each placeholder stands for
runs of styled text and nested formulas, which mathml puts in its place.

Styles are MathML's mathvariant names; the stylesheet sets an <mtext> of each in the
face, slant and weight of the text around the formula.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .limits import MAX_FORMULA_NESTING

__all__ = ["TEXT_MACROS", "PLACEHOLDER", "Text", "Formula", "TextModeError", "extract", "placeholder_index"]


class TextModeError(ValueError):
    """Text mode this reader does not understand: the formula is shown as its source."""


@dataclass(frozen=True)
class _Style:
    bold: bool = False
    italic: bool = False
    family: str = "serif"  # or "sans-serif", "monospace"

    def variant(self) -> str | None:
        """The mathvariant of this style; None for upright text, an <mtext>'s default."""
        if self.family == "monospace":  # TeX's typewriter has neither bold nor italic
            return "monospace"
        if self.family == "sans-serif":
            return {(False, False): "sans-serif", (True, False): "bold-sans-serif",
                    (False, True): "sans-serif-italic", (True, True): "sans-serif-bold-italic"}[
                self.bold, self.italic]
        return {(False, False): None, (True, False): "bold", (False, True): "italic",
                (True, True): "bold-italic"}[self.bold, self.italic]


@dataclass(frozen=True)
class Text:
    text: str
    variant: str | None


@dataclass(frozen=True)
class Formula:
    tex: str


def _upright(s: _Style) -> _Style:
    return _Style(s.bold, False, s.family)


# Macros that set their argument in text mode, and the style they give it.
_MACRO_STYLE = {
    "text": lambda s: s, "mbox": lambda s: s, "hbox": lambda s: s,
    "textrm": lambda s: _Style(s.bold, s.italic, "serif"),
    "textnormal": lambda s: _Style(),
    "textup": _upright, "textsc": _upright,  # small capitals are shown as upright letters
    "textmd": lambda s: _Style(False, s.italic, s.family),
    "textit": lambda s: _Style(s.bold, True, s.family),
    "textsl": lambda s: _Style(s.bold, True, s.family),
    "emph": lambda s: _Style(s.bold, not s.italic, s.family),  # emphasis inside italics is upright
    "textbf": lambda s: _Style(True, s.italic, s.family),
    "textsf": lambda s: _Style(s.bold, s.italic, "sans-serif"),
    "texttt": lambda s: _Style(s.bold, s.italic, "monospace"),
}
TEXT_MACROS = frozenset(_MACRO_STYLE)

# Switches that change the style up to the end of their group ({\bf x} or \itshape).
_SWITCH_STYLE = {
    "itshape": _MACRO_STYLE["textit"], "it": _MACRO_STYLE["textit"], "slshape": _MACRO_STYLE["textit"],
    "sl": _MACRO_STYLE["textit"], "em": _MACRO_STYLE["emph"], "upshape": _upright,
    "bfseries": _MACRO_STYLE["textbf"], "bf": _MACRO_STYLE["textbf"], "mdseries": _MACRO_STYLE["textmd"],
    "sffamily": _MACRO_STYLE["textsf"], "sf": _MACRO_STYLE["textsf"],
    "ttfamily": _MACRO_STYLE["texttt"], "tt": _MACRO_STYLE["texttt"],
    "rmfamily": _MACRO_STYLE["textrm"], "rm": lambda s: _Style(), "normalfont": lambda s: _Style(),
    "scshape": _upright, "sc": _upright,
}

# Sizes: the text keeps the formula's size, so these are read and ignored.
_SIZES = frozenset("tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge".split())

# Accents over the next letter (\"o, \'{e}, \c c), as combining characters.
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
            ".": "\u0307", "u": "\u0306", "v": "\u030C", "H": "\u030B", "c": "\u0327", "k": "\u0328",
            "r": "\u030A", "d": "\u0323", "b": "\u0331"}

_NBSP = "\u00a0"  # spaces in an <mtext> are kept: a plain space at its edge would be dropped
_SYMBOLS = {
    "&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": _NBSP, "\\": _NBSP,
    ",": "\u2009", ";": "\u2005", ":": "\u2005", ">": "\u2005", "!": "", "/": "", "-": "",
    "quad": "\u2003", "qquad": "\u2003\u2003", "enspace": "\u2002", "space": _NBSP,
    "ldots": "…", "dots": "…", "textellipsis": "…", "textendash": "–", "textemdash": "—",
    "textquoteleft": "‘", "textquoteright": "’", "textquotedblleft": "“", "textquotedblright": "”",
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textbar": "|",
    "textless": "<", "textgreater": ">", "textbullet": "•", "textdagger": "†", "textdegree": "°",
    "S": "§", "P": "¶", "copyright": "©", "pounds": "£", "euro": "€",
    "i": "ı", "j": "ȷ", "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø",
    "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
    "LaTeX": "LaTeX", "TeX": "TeX",
}
# TeX's ligatures of text fonts.
_LIGATURES = (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”"), ("~", _NBSP))

_TOKEN = re.compile(r"\\[A-Za-z]+\s*|\\.|\s+|[^\\{}$\s]+|[\s\S]", re.S)

PLACEHOLDER = "papersitetext"


def _placeholder(index: int) -> str:
    return "\\text{" + PLACEHOLDER + "".join(chr(ord("a") + int(d)) for d in str(index)) + "}"


def placeholder_index(text: str) -> int | None:
    """The index of the runs a placeholder's <mtext> text stands for, or None."""
    letters = text[len(PLACEHOLDER):]
    if not text.startswith(PLACEHOLDER) or not letters or not all("a" <= c <= "j" for c in letters):
        return None
    return int("".join(str(ord(c) - ord("a")) for c in letters))


def extract(tex: str) -> tuple[str, list[list[Text | Formula]]]:
    r"""`tex` with each text macro at math level a placeholder, and what each stands for.

    Raises TextModeError on text mode it cannot read, and on a `$` outside a text macro.
    """
    if "\\" not in tex and "$" not in tex:
        return tex, []
    tokens = _TOKEN.findall(tex)
    runs: list[list[Text | Formula]] = []
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        name = token[1:].rstrip() if token.startswith("\\") else None
        if name in TEXT_MACROS:
            reader = _TextReader(tokens, i)
            pieces = reader.argument(_MACRO_STYLE[name](_Style()))
            i = reader.i
            runs.append(pieces)
            out.append(_placeholder(len(runs) - 1))
        elif token == "$":
            raise TextModeError("$ inside a formula, outside \\text{...}")
        else:
            out.append(token)
    return "".join(out), runs


class _TextReader:
    """Reads a text-mode argument from a formula's tokens into runs."""

    def __init__(self, tokens: list[str], i: int, depth: int = 0):
        self.tokens = tokens
        self.i = i
        self.depth = depth  # arguments and groups open: the reader recurses once for each
        self.pieces: list[Text | Formula] = []

    def argument(self, style: _Style) -> list[Text | Formula]:
        while self.i < len(self.tokens) and self.tokens[self.i].isspace():
            self.i += 1
        if self.i >= len(self.tokens):
            raise TextModeError("a text macro without its argument")
        token = self.tokens[self.i]
        self.i += 1
        if token == "{":
            self.group(style)
            return self.pieces
        self.depth += 1  # an argument without braces: \emph\emph\emph... nests too
        if self.depth > MAX_FORMULA_NESTING:
            raise TextModeError("text macros nested too deeply")
        self.token(token, style)
        self.depth -= 1
        return self.pieces

    def group(self, style: _Style) -> None:
        """Up to the closing brace of the group just opened; switches last to its end."""
        self.depth += 1
        if self.depth > MAX_FORMULA_NESTING:
            raise TextModeError("text groups nested too deeply")
        while self.i < len(self.tokens):
            token = self.tokens[self.i]
            self.i += 1
            if token == "}":
                self.depth -= 1
                return
            style = self.token(token, style)
        raise TextModeError("a text group without its closing brace")

    def token(self, token: str, style: _Style) -> _Style:
        """Reads one token (and its arguments); returns the style from here on."""
        if token == "{":
            self.group(style)
        elif token == "}":
            raise TextModeError("a stray closing brace")
        elif token == "$":
            self.formula("$")
        elif token.isspace():
            self.text(_NBSP, style)
        elif token.startswith("\\"):
            return self.macro(token, style)
        else:
            for tex, char in _LIGATURES:
                token = token.replace(tex, char)
            self.text(token, style)
        return style

    def macro(self, token: str, style: _Style) -> _Style:
        name = token[1:].rstrip() or " "  # "\ " is a space
        if name == "(":
            self.formula("\\)")
        elif name in _MACRO_STYLE:
            self.argument(_MACRO_STYLE[name](style))
        elif name in _SWITCH_STYLE:
            return _SWITCH_STYLE[name](style)
        elif name in _SIZES:
            pass
        elif name in _ACCENTS:
            accented = _TextReader(self.tokens, self.i, self.depth)
            pieces = accented.argument(_Style())
            self.i = accented.i
            if not pieces or not all(isinstance(piece, Text) for piece in pieces):
                raise TextModeError("an accent over no letter")
            letters = "".join(piece.text for piece in pieces)
            self.text(unicodedata.normalize("NFC", letters[0] + _ACCENTS[name] + letters[1:]), style)
        elif name in _SYMBOLS:
            self.text(_SYMBOLS[name], style)
        else:
            raise TextModeError(f"\\{name} in text mode")
        return style

    def formula(self, closing: str) -> None:
        """A formula inside the text, up to `closing` at the same brace depth."""
        depth, start = 0, self.i
        while self.i < len(self.tokens):
            token = self.tokens[self.i]
            self.i += 1
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth < 0:
                    break
            elif token == closing and depth == 0:
                tex = "".join(self.tokens[start:self.i - 1])
                if tex.strip():
                    self.pieces.append(Formula(tex))
                return
        raise TextModeError(f"a formula in text mode without its closing {closing}")

    def text(self, text: str, style: _Style) -> None:
        if not text:
            return
        variant = style.variant()
        last = self.pieces[-1] if self.pieces else None
        if isinstance(last, Text) and last.variant == variant:
            self.pieces[-1] = Text(last.text + text, variant)
        else:
            self.pieces.append(Text(text, variant))
