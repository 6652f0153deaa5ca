"""Abstracts and titles as one line of plain text, and snippets of it."""

from __future__ import annotations

import functools

from .limits import MarkupError, clean
from .markdown_html import render_abstract

__all__ = ["plain_text", "plain_title", "snippet", "cut_snippet"]


def plain_text(text: str) -> str:
    """Abstract -> one line of plain text (Markdown removed, math readable).

    The result is text, not HTML: escape it wherever it is embedded. Text
    past a limit (see render_abstract) reads as its source.
    """
    try:
        return render_abstract(text)[1]
    except MarkupError:
        return " ".join(clean(text).split())


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
