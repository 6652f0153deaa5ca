r"""Where the math is in Markdown: `$...$` and `\(...\)` inline, `$$...$$` and `\[...\]`
display, found by an inline pattern that runs before Markdown's escapes and emphasis,
so `\{`, `*` and `_` inside TeX are not mangled."""

from __future__ import annotations

import re

from markdown.inlinepatterns import InlineProcessor

from .limits import MAX_TEX_LENGTH, MAX_TEX_PER_ABSTRACT, Limits, MarkupError
from .text_mode import TEXT_MACROS

__all__ = ["MATH_RE", "MATH_START", "MathPattern"]

# \x02 and \x03 delimit Markdown's placeholders (e.g. for code spans); a span
# containing one crosses a code span and is not math.
# A formula is at most MAX_TEX_LENGTH characters: a delimiter with no closing
# one within that is text, so an unclosed one costs no scan to the paragraph's
# end (quadratic on a run of them). Longer \(...\), \[...\] and $$...$$ spans
# are refused before inline parsing (markdown_limits).
MATH_RE = (
    r"(?<!\\)\$\$(?P<dd>[^\x02\x03]{1,%(n)d}?)(?<!\\)\$\$"
    r"|\\\[(?P<bd>[^\x02\x03]{1,%(n)d}?)\\\]"
    r"|\\\((?P<pi>[^\x02\x03]{1,%(n)d}?)\\\)"
    # Pandoc's rule, so prices ("$5 and $10") stay text: the opening $ is
    # followed by a non-space, the closing $ preceded by a non-space and not
    # followed by a digit.
    r"|(?<![\\$])\$(?P<di>(?=[^\s$])(?:\\.|[^\\$\x02\x03]){1,%(n)d}?)(?<=\S)\$(?!\d)"
    # The start of a formula whose text macro holds a formula of its own, the
    # first `$` of which may follow a space ($\text{for all $x$}$): its end is
    # found by MathPattern.
    r"|(?<![\\$])\$(?P<dt>(?=[^\s$])(?:\\.|[^\\$\x02\x03]){0,%(n)d}?\\(?:%(text)s)(?![A-Za-z])\s*\{)"
) % {"n": MAX_TEX_LENGTH, "text": "|".join(sorted(TEXT_MACROS))}

# The pattern runs over every paragraph. Python's re cannot skip ahead to a
# possible start when a pattern opens with a lookbehind or an alternation; this
# says where a match can start, for the same matches.
MATH_START = r"(?=[$\\])(?:"

# Text before a match that ends inside a link destination "](..." or "<http:...".
_IN_URL = re.compile(r"(?:\]\(|<[A-Za-z][\w+.-]*:)[^\s()<>]*\Z")

_GROUPS = re.compile(r"\\([A-Za-z]+)|\\.|[{}$\x02\x03]", re.S)


def _formula_end(data: str, start: int) -> tuple[int | None, int]:
    r"""Where a `$` formula opened before `start` ends when a text macro in it holds
    formulas of its own (`$\textit{$\underline{G}$raph}$`): the first `$` outside every
    group, or None when there is none or no formula inside (then the shortest match
    stands); and how far it read.
    """
    groups: list[str] = []  # per open group: "text", "math", or "$" for a formula inside text
    text_macro_end = -1  # where the last control word ended, if it was a text macro
    nested = False  # whether a formula inside a text macro was met
    stop = min(len(data), start + MAX_TEX_LENGTH + 1)
    for match in _GROUPS.finditer(data, start, stop):
        token = match.group()
        if token == "{":
            after_text_macro = text_macro_end >= 0 and not data[text_macro_end:match.start()].strip()
            groups.append("text" if after_text_macro or groups[-1:] == ["text"] else "math")
        elif token == "}":
            if not groups or groups[-1] == "$":
                return None, match.end()
            groups.pop()
        elif token == "$":
            if groups[-1:] == ["text"]:
                groups.append("$")
                nested = True
            elif groups[-1:] == ["$"]:
                groups.pop()
            else:  # the end, if the formula holds one of its own and ends as `$` formulas do
                at = match.start()
                ends = not groups and nested and not data[at - 1].isspace() and not data[at + 1:at + 2].isdigit()
                return (at if ends else None), match.end()
        elif token in "\x02\x03":
            return None, match.end()
        text_macro_end = match.end() if match.group(1) in TEXT_MACROS else -1
    return None, stop


class MathPattern(InlineProcessor):
    """Inline pattern handing every math span to `convert(tex, display, source)`."""

    def __init__(self, convert, limits: Limits):
        super().__init__(MATH_START + MATH_RE + ")")
        self.convert = convert
        self.limits = limits

    def handleMatch(self, m, data):
        if _IN_URL.search(data, max(0, m.start(0) - 2000), m.start(0)):
            return None, None, None  # `$` inside a link destination is not math
        display = m.group("dd") is not None or m.group("bd") is not None
        tex = m.group("dd") or m.group("bd") or m.group("pi") or m.group("di") or ""
        source, end, read = m.group(0), m.end(0), len(tex)
        opened = m.group("dt") is not None
        if opened or (m.group("di") and tex.count("{") > tex.count("}")):
            start = m.start("dt" if opened else "di")
            tex_end, read_to = _formula_end(data, start)
            read = read_to - start  # counted as TeX: many unclosed groups cannot cost more
            if tex_end is not None and tex_end >= m.end(0):
                tex, source, end = data[start:tex_end], data[m.start(0):tex_end + 1], tex_end + 1
                opened = False
        limits = self.limits
        limits.tex += max(len(tex), read)
        try:
            if limits.tex > MAX_TEX_PER_ABSTRACT:
                raise MarkupError(f"the formulas of this abstract have over {MAX_TEX_PER_ABSTRACT:,} "
                                  "characters of TeX; that is the limit")
            if opened:
                return None, None, None  # no end: not a formula
            return self.convert(tex, display, source), m.start(0), end
        except MarkupError as error:
            raise MarkupError(error.message, limits.line_of(source)) from None
