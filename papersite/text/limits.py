"""What an abstract may hold: the limits past which it is refused with its line, and the
characters that are dropped from it."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

__all__ = ["MarkupError", "MAX_NESTING", "MAX_TEX_LENGTH", "MAX_TEX_PER_ABSTRACT", "MAX_FORMULA_NESTING",
           "MAX_BACKTICK_RUNS", "Limits", "clean"]

# Limits that keep every input within the stack and a few seconds, far above real
# abstracts (nesting under 5, formulas under 110 characters, under 300 per abstract).
# Python-Markdown, latex2mathml and the allow-list recurse once or more per level:
# past these, input is refused with its line.
MAX_NESTING = 32  # lists, quotes, emphasis, links and brackets inside each other
MAX_TEX_LENGTH = 2000  # characters of one formula
MAX_TEX_PER_ABSTRACT = 32_000  # characters of all formulas of one abstract (half the abstract limit)
MAX_FORMULA_NESTING = 32  # braces, \left and \begin inside each other
# Python-Markdown scans the rest of a paragraph for the closing run of each run of
# backticks it meets: quadratic in the runs.
MAX_BACKTICK_RUNS = 200  # in one paragraph


class MarkupError(ValueError):
    """Markdown or TeX beyond a limit; `line` counts from the abstract's first line."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message, line)
        self.message, self.line = message, line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class Limits:
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


# Characters html5lib reports as parse errors (controls, surrogates,
# noncharacters); they carry no meaning in an abstract, so they are dropped.
_INVALID_CHARS = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"\\U{p:08x}\\U{p + 1:08x}" for p in range(0xFFFE, 0x110000, 0x10000))
    + "]")
_INVALID_ASCII = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")  # the same for ASCII text, which is most: faster


def clean(text: str) -> str:
    """`text` without the characters an abstract may not hold."""
    return (_INVALID_ASCII if text.isascii() else _INVALID_CHARS).sub("", text)
