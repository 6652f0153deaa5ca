"""Markdown past the limits is refused before Python-Markdown recurses into it, with its line.

Three processors, plugged in by the abstract extension (markdown_html): lines nested
too deep, before block parsing; brackets, link destinations, backtick runs and
formulas too long, in each block before inline parsing; elements nested too deep,
after it (the allow-list writer walks the tree recursively).
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

import markdown
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from .limits import MAX_BACKTICK_RUNS, MAX_NESTING, MAX_TEX_LENGTH, Limits, MarkupError
from .math_spans import MATH_RE

__all__ = ["NestedLines", "BeforeInline", "AfterInline"]

# A line's container markers: quotes and list items (each one nests).
_CONTAINERS = re.compile(r"(?:[ ]*(?:>|[*+-][ ]|[0-9]+[.)][ ]))+")
_CONTAINER_MARK = re.compile(r">|[*+-](?=[ ])|[0-9]+[.)](?=[ ])")


class NestedLines(Preprocessor):
    """Refuses lines nested too deep before Markdown's block parser recurses into them."""

    def __init__(self, md: markdown.Markdown, limits: Limits):
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


# A line starting with one of these has no container marker: skipped at once.
_PLAIN_LINE_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$\\([_`&\"'")

_FORMULA = re.compile(MATH_RE)
_BACKTICKS = re.compile(r"`+")
_LONG_FORMULA = (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"))


class BeforeInline(Treeprocessor):
    """Checks each block's text before inline parsing: bracket nesting, formula length."""

    def __init__(self, md: markdown.Markdown, limits: Limits):
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


def _check_formula_length(text: str, start: str, end: str, limits: Limits) -> None:
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


class AfterInline(Treeprocessor):
    """Refuses a tree nested deeper than MAX_NESTING (the allow-list walks it recursively)."""

    def __init__(self, md: markdown.Markdown, limits: Limits):
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
