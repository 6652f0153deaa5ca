r"""TeX -> readable plain text: `\frac{a}{b}` reads "a/b", `\alpha` "α", `\mathcal{O}` "O".

For search, snippets and the text a formula contributes to its abstract's plain text.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from latex2mathml.symbols_parser import convert_symbol

from .limits import clean

__all__ = ["tex_to_text"]

# Macros that only style or size their argument: drop the macro, keep the argument.
_STYLE_MACROS = frozenset("""
    left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle
    displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits
    mathcal mathbb mathrm mathbf mathit mathsf mathtt mathfrak mathscr mathnormal
    boldsymbol bm pmb text textrm textbf textit texttt textsf textsc textnormal
    textup textsl textmd emph operatorname mbox hbox mathop mathbin mathrel mathord
    hat widehat tilde widetilde bar overline underline vec dot ddot check breve
    acute grave mathring overrightarrow overleftarrow underbrace overbrace
    bf rm it sf tt sl sc cal em normalfont bfseries mdseries itshape upshape slshape scshape
    rmfamily sffamily ttfamily
    tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge
""".split())  # the last three lines: TeX's font switches ({\bf x}, $\rm{A}$) and sizes, which take no argument
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
        if tok == "$":
            return ""  # a formula inside \text{...}: its text reads on
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
    return re.sub(r"\s+", " ", clean(text)).strip()
