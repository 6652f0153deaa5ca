"""The Markdown stage: each paper's abstract rendered once, for its page, search and snippets."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..errors import Problem, SiteError
from ..parallel import parallel_map
from ..source.content import split_front_matter
from .limits import MarkupError
from .markdown_html import render_abstract
from .plain import cut_snippet

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..model import Paper
    from ..source.config import SiteConfig


class Abstract(NamedTuple):
    """An abstract rendered once: HTML for its page, text for search and snippets. A tuple: the
    build keeps one for every paper, in memory and in its cache."""

    html: str
    text: str

    @property
    def snippet(self) -> str:
        # made when shown rather than kept: nearly every snippet ends in "…", which makes
        # Python keep it at two bytes a character (~40 MB at 50,000 papers)
        return cut_snippet(self.text)


def render_abstracts(catalog: Catalog, known: dict[str, Abstract]) -> dict[str, Abstract]:
    """id -> rendered abstract. `known` (Markdown source -> Abstract) spares rendering the
    sources it holds, and is left holding this catalog's: text that is gone is dropped.

    Markdown past a limit is a SiteError naming every file and line."""
    new = sorted({p.abstract for p in catalog.papers} - known.keys())
    found = known | {source: _sharing(source, made) for source, made in zip(new, parallel_map(abstract_of, new))}
    failed = [p for p in catalog.papers if isinstance(found[p.abstract], MarkupError)]
    if failed:
        raise SiteError(sorted((_markup_problem(p, found[p.abstract], catalog.config) for p in failed),
                               key=lambda problem: (str(problem.path), problem.line or 0)))
    rendered = {p.id: found[p.abstract] for p in catalog.papers}
    kept = {p.abstract: found[p.abstract] for p in catalog.papers}
    known.clear()
    known.update(kept)
    return rendered


def abstract_of(source: str) -> Abstract | MarkupError:
    """One abstract rendered. The problem comes back as a value (from a worker too), so
    every file's problem is listed."""
    try:
        html, text = render_abstract(source)
    except MarkupError as error:
        return error
    return Abstract(html, text)


def _sharing(source: str, made: Abstract | MarkupError) -> Abstract | MarkupError:
    """The abstract, its text the very string of its source where the two are equal (most
    abstracts are a line of plain text): a worker sends back a copy, and at 50,000 papers
    the copies took ~40 MB of the build's memory and of its cache."""
    if not isinstance(made, Abstract) or made.text is source or made.text != source:
        return made
    return Abstract(made.html, source)


def _markup_problem(paper: Paper, error: MarkupError, config: SiteConfig) -> Problem:
    """The error's line within the abstract, as a line of the paper's file (read again to find it)."""
    try:
        path = paper.source.relative_to(config.root)
    except ValueError:
        path = paper.source
    try:
        _, body, body_line = split_front_matter(paper.source.read_text(encoding="utf-8-sig"))
        line = body_line + body[:len(body) - len(body.lstrip())].count("\n") + error.line - 1
    except (OSError, ValueError):  # changed or gone since it was read
        line = None
    return Problem(path, line, error.message)
