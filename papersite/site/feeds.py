"""Atom feeds of the catalog, of each venue and of each topic.

A feed lists papers newest first by their publication `date`, failing that by
`added` (the day an import first saw them), failing that by their year. Those
come from the content, never from the clock, so two builds of the same
sources stay byte-identical.
"""
from __future__ import annotations

import functools
from operator import attrgetter
from typing import Any

from ..model import Paper

FEED_ENTRIES = 50  # a feed announces what is new; the sitemap lists every page


@functools.lru_cache(maxsize=4096)  # a catalog has a few hundred distinct days
def timestamp(day: str) -> str:
    """An Atom timestamp for '2024-07-21', '2024-07' or '2024' (the first day it can mean)."""
    year, month, date = (day.split("-") + ["01", "01"])[:3]
    return f"{year}-{month}-{date}T00:00:00Z"


def published(paper: Paper) -> str:
    """When the paper appeared: its date, else the day it was imported, else January 1st of its year."""
    return timestamp(paper.date or paper.added or f"{paper.year:04d}")


def updated(paper: Paper) -> str:
    """When the paper last changed in this catalog: the later of its date and the day it was imported."""
    return timestamp(max(paper.date, paper.added) or f"{paper.year:04d}")


class FeedOrder:
    """Papers newest first: by date, then added (ISO dates and their prefixes sort as text); ties
    keep the order given (the catalog's: venue, year, title). Ranked once for all of a catalog's
    feeds, each of which then picks its newest among plain integers."""

    def __init__(self, papers: tuple[Paper, ...]):
        global _last_order
        inputs = list(map(_ORDER_INPUTS, papers))  # C speed: a rebuild mostly ranks the same dates again
        if _last_order is None or _last_order[0] != inputs:
            ranked = sorted(inputs, key=lambda i: (i[1] or i[2] or str(i[3]), i[2]), reverse=True)
            ids = [i[0] for i in ranked]
            _last_order = (inputs, ids, {paper_id: rank for rank, paper_id in enumerate(ids)}, {})
        _, self.ranked, self.rank, self.last_picks = _last_order
        self.picks: dict[tuple, list[int]] = {}  # (count, listing's ids) -> ranks of its newest
        _last_order = (*_last_order[:3], self.picks)  # the next build reuses this build's picks
        self.papers = dict(zip(map(_ID, papers), papers))

    def newest(self, papers: tuple[Paper, ...], count: int = FEED_ENTRIES) -> list[Paper]:
        listing = (count, tuple(map(_ID, papers)))
        ranks = self.last_picks.get(listing)
        if ranks is None:
            ranks = sorted(map(self.rank.__getitem__, listing[1]))[:count]  # C speed; heapq's is a Python loop
        self.picks[listing] = ranks
        return [self.papers[self.ranked[rank]] for rank in ranks]


_ID = attrgetter("id")
_ORDER_INPUTS = attrgetter("id", "date", "added", "year")
# The last catalog's order: its inputs, ids ranked, the rank of each id, and its feeds' picks.
_last_order: tuple[list, list[str], dict[str, int], dict] | None = None


def feed_context(title: str, alternate: str, papers: tuple[Paper, ...], abstracts: dict,
                 order: FeedOrder | None = None) -> dict[str, Any]:
    """Template data for one feed: its title, the HTML page it mirrors and its newest entries
    (paper, published, updated, summary). `order`: a FeedOrder of the catalog (or of `papers`)."""
    newest = (order or FeedOrder(papers)).newest(papers)
    entries = [(paper, published(paper), updated(paper), abstracts[paper.id].snippet) for paper in newest]
    return {"title": title, "alternate": alternate, "entries": entries,
            "updated": max((entry[2] for entry in entries), default="1970-01-01T00:00:00Z")}
