"""The document store: what search.js shows of a result, and the facets it filters by.

    search/docs.json    paper count, venues, topics, years, statuses, where pages are  (loaded when the page opens)
    search/d/<n>.json   DOCS_PER_FILE papers' records a file                           (per result page)
    search/order.json   paper numbers in title order                  (lists without a query)
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from .shards import inert

DOCS_PER_FILE = 4  # a result page of 50 spread-out papers fetches ~50 files of this many
RESULT_AUTHORS = 10  # names a result shows (and its record holds); past them, "and N more" (or "et al.")
DOC_FILES = "search/d/"
ORDER = "search/order.json"
# A record is a list, not an object: the keys would be a tenth of every file. search.js's
# unpackRecord and read_record below turn it into the object a result is shown from.
_RECORD_KEYS = ("title", "url", "year", "snippet", "authors", "more", "etal")


def record(title: str, slug: str, year, snippet: str, authors: list[list[str]],
           author_count: int, et_al: bool = False) -> tuple:
    """One paper's record: `slug` its page's, `authors` [name, author page slug] of the first
    RESULT_AUTHORS of its `author_count` authors (pages are found from docs.json's `pages`);
    `etal`: 1 where those are some of them."""
    made = (title, slug, year, snippet, authors)
    if et_al:
        made += (0, 1)  # "et al." stands for any more
    elif author_count > RESULT_AUTHORS:
        made += (author_count - RESULT_AUTHORS,)
    return made


def doc_file(chunk: int, records: Sequence[tuple]) -> tuple[str, bytes]:
    """(path, bytes) of the document-store file of the papers numbered chunk * DOCS_PER_FILE on:
    their `records`, at most DOCS_PER_FILE."""
    start = chunk * DOCS_PER_FILE
    return f"{DOC_FILES}{chunk}.json", dump({str(n): list(made) for n, made in enumerate(records[:DOCS_PER_FILE], start)})


def read_record(made: list, facets: dict) -> dict:
    """A record as search.js unpacks it (`facets`: docs.json): title, url, year, snippet,
    authors as [name, author page URL], and more and etal where the record has them."""
    shown = dict(zip(_RECORD_KEYS, made))
    shown["url"] = f"{facets['pages'][0]}{shown['url']}/"
    shown["authors"] = [[name, f"{facets['pages'][1]}{slug}/"] for name, slug in shown["authors"]]
    return shown


def facets(venues: Sequence[list], topics: Sequence[list], paper_topics: Iterable[Sequence[int]],
           years: Iterable, statuses: Iterable, count: int, pages: Sequence[str]) -> bytes:
    """docs.json: venues as [slug, name, paper count] (papers are numbered venue by
    venue, so a paper's venue is implicit), topics as [slug, name], and per paper
    number its topic numbers, year and status; `pages`: the URLs of the folders of paper and
    author pages, which records name by slug."""
    return dump({
        "count": count,
        "perFile": DOCS_PER_FILE,
        "pages": list(pages),
        "venues": venues,
        "topics": topics,
        # Each paper's topics as base-36 topic numbers joined by ".", papers joined by ",".
        "paperTopics": ",".join(".".join(map(_base36, numbers)) for numbers in paper_topics),
        # Years and statuses by paper number, as runs [value, count]: papers are numbered by
        # venue, and a venue's papers mostly share both ("" for no status).
        "years": _runs(years),
        "statuses": _runs(statuses),
    })


def title_order(numbers: Iterable[int]) -> bytes:
    """order.json: paper numbers in title order."""
    return dump(list(numbers))


def dump(data, ascii: bool = False) -> bytes:
    return inert(json.dumps(data, ensure_ascii=ascii, separators=(",", ":")))


def _runs(values) -> list[list]:
    """[[value, how many in a row], ...]"""
    runs: list[list] = []
    for value in values:
        if runs and runs[-1][0] == value:
            runs[-1][1] += 1
        else:
            runs.append([value, 1])
    return runs


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = digits[n % 36]
    while n >= 36:
        n //= 36
        out = digits[n % 36] + out
    return out
