r"""Where the math is in Markdown: `$...$` and `\(...\)` inline, `$$...$$` and `\[...\]`
display, found by an inline pattern that runs before Markdown's escapes and emphasis,
so `\{`, `*` and `_` inside TeX are not mangled."""

from __future__ import annotations

import re

from markdown.inlinepatterns import InlineProcessor

from .limits import MAX_TEX_LENGTH, MAX_TEX_PER_ABSTRACT, Limits, MarkupError

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
) % {"n": MAX_TEX_LENGTH}

# The pattern runs over every paragraph. Python's re cannot skip ahead to a
# possible start when a pattern opens with a lookbehind or an alternation; this
# says where a match can start, for the same matches.
MATH_START = r"(?=[$\\])(?:"

# Text before a match that ends inside a link destination "](..." or "<http:...".
_IN_URL = re.compile(r"(?:\]\(|<[A-Za-z][\w+.-]*:)[^\s()<>]*\Z")


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
