"""Atom feeds of the catalog, of each venue and of each topic.

A feed lists papers newest first by their publication `date`, failing that by
`added` (the day an import first saw them), failing that by their year. Those
come from the content, never from the clock, so two builds of the same
sources stay byte-identical.
"""
from __future__ import annotations

import heapq
from typing import Any

from .model import Paper

FEED_ENTRIES = 50  # a feed announces what is new; the sitemap lists every page


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


def newest(papers: tuple[Paper, ...], count: int = FEED_ENTRIES) -> list[Paper]:
    """The `count` newest papers: by date, then added (ISO dates and their prefixes sort as text);
    ties keep the order given (the catalog's: venue, year, title)."""
    return heapq.nlargest(count, papers, key=lambda p: (p.date or p.added or f"{p.year:04d}", p.added))


def feed_context(title: str, alternate: str, papers: tuple[Paper, ...], abstracts: dict) -> dict[str, Any]:
    """Template data for one feed: its title, the HTML page it mirrors and its newest entries
    (paper, published, updated, summary)."""
    entries = [(paper, published(paper), updated(paper), abstracts[paper.id].snippet) for paper in newest(papers)]
    return {"title": title, "alternate": alternate, "entries": entries,
            "updated": max((entry[2] for entry in entries), default="1970-01-01T00:00:00Z")}
