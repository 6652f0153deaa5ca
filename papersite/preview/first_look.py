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

from .. import urls
from ..source.config import SiteConfig
from ..source.content import read_paper
from ..errors import SiteError
from ..engine.runner import BuildCache
from ..text.abstracts import abstract_of
from ..text.limits import MarkupError
from ..model import Paper
from ..site.pages import Page
from ..site.render import render_page

# What a paper's page shows of the paper and no other page depends on for where
# the paper goes: the fields a first look may show changed.
SHOWN_ONLY = ("title", "abstract", "keywords", "links", "status", "title_source", "extra")


def edited_pages(config: SiteConfig, cache: BuildCache, changed: tuple[str, ...]) -> dict[str, bytes] | None:
    """Output file -> bytes: the pages of the papers whose files (`changed`, relative to the
    config's folder) were edited, rendered again over the last build (`cache`, which this
    leaves as it is); None when the edit does not qualify (see above) or anything goes
    wrong: the full rebuild then has its say."""
    env = cache.pages.env
    if env is None or not changed:
        return None
    pages = {}
    for relative in changed:
        path = config.root / relative
        parsed = read_paper(path, config, relative)
        if parsed.problems or parsed.paper is None:
            return None
        paper = parsed.paper
        # what the last build rendered at this paper's address, if it was this file's page
        address = urls.path_of(paper)
        template, shown, _, file = cache.pages.pages.get(address, (None, None, None, None))
        context = shown.context if shown is not None else {}
        old = context.get("paper")
        if template != "paper.html" or not isinstance(old, Paper) \
                or os.path.normpath(old.source) != os.path.normpath(path) or not _moves_nothing(old, paper):
            return None
        abstract = cache.abstracts.get(paper.abstract) or abstract_of(paper.abstract)  # a title edit: as it was
        if isinstance(abstract, MarkupError):
            return None
        try:
            pages[file] = render_page(env, Page(address, template, {
                **context, "title": paper.title, "paper": paper, "abstract": abstract}))
        except SiteError:
            return None
    return pages


def _moves_nothing(old: Paper, new: Paper) -> bool:
    """The two differ at most in what only the paper's own page shows."""
    return dataclasses.replace(new, **{name: getattr(old, name) for name in SHOWN_ONLY}) == old
