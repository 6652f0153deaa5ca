"""The preview's first look at an edit: the edited papers' own pages, before the whole site.

An author who saves a paper's file is looking at that paper's page. Rebuilding the
site around the edit (related papers, listings, feeds, search, the map) takes
seconds on a large catalog, so the preview first renders the edited pages over
the last build, with the last build's neighbours, related papers and citation key,
serves them, and then rebuilds everything; tabs whose page the full rebuild
changes again reload once more. This is Hugo's "fast render" idea: the page
being looked at first.

Only an edit that changes what the paper's own page shows qualifies: its title,
abstract, links, status or extra fields, in files the last build read. A new,
deleted or broken file, or an edit that moves the paper among other pages (its
id, venue, year, authors, topics, dates, key), goes straight to the full rebuild,
which says what is wrong.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from . import urls
from .config import SiteConfig
from .content import read_paper
from .errors import SiteError
from .execution import BuildCache
from .markup import MarkupError, cut_snippet, render_abstract
from .model import Paper
from .pages import Abstract
from .pipeline import Build
from .render import render_page

# What a paper's page shows of the paper and no other page depends on for where
# the paper goes: the fields a first look may show changed.
SHOWN_ONLY = ("title", "abstract", "links", "status", "title_source", "extra")


def edited_pages(config: SiteConfig, cache: BuildCache, last: Build,
                 changed: tuple[str, ...]) -> dict[str, bytes] | None:
    """Output file -> bytes: the pages of the papers whose files (`changed`, relative to the
    config's folder) were edited, rendered again over `last`; None when the edit does not
    qualify (see above) or anything goes wrong: the full rebuild then has its say."""
    env = cache.pages.env
    if env is None or not changed:
        return None
    sources = {os.path.normpath(p.source): p for p in last.catalog.papers}
    pages = {}
    for relative in changed:
        path = os.path.normpath(config.root / relative)
        old = sources.get(path)
        planned = cache.plans.get(old.id) if old is not None else None
        if planned is None:
            return None
        parsed = read_paper(Path(path), config, relative)
        if parsed.problems or parsed.paper is None or not _moves_nothing(old, parsed.paper):
            return None
        paper, page = parsed.paper, planned[1]
        try:
            html, text = render_abstract(paper.abstract)
            context = {**page.context, "title": paper.title, "paper": paper,
                       "abstract": Abstract(html, text, cut_snippet(text))}
            pages[urls.output_file(page.path)] = render_page(env, dataclasses.replace(page, context=context))
        except (MarkupError, SiteError):
            return None
    return pages


def _moves_nothing(old: Paper, new: Paper) -> bool:
    """The two differ at most in what only the paper's own page shows."""
    return dataclasses.replace(new, **{name: getattr(old, name) for name in SHOWN_ONLY}) == old
