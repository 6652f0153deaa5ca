"""map/points.json: what static/map.js draws, as small as it can be.

Papers come in the search's numbering (by venue in catalog order, then id:
see search.py), so a venue is a run of papers (only its count is written) and
the search page can send its results to the map as paper numbers. Columns, not
records: `x`, `y` (0..GRID-1), `topic` (index of the paper's first topic, -1
for none), `title` (plain text) and `slug`. A slug is mostly the start of its
ASCII title slugified (importers name files so): then only its length is
written, and map.js slugifies the title the way `browser_slug` does.
"""
from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Sequence

from .. import urls
from ..catalog import Catalog
from ..model import Paper
from ..text.plain import plain_title
from .layout import GRID
from ..search.shards import inert_text

if TYPE_CHECKING:
    from ..text.abstracts import Abstract

def map_texts(catalog: Catalog, abstracts: dict[str, Abstract]) -> Mapping[str, str]:
    """What the map lays out: paper id -> its map_text, in the search's numbering."""
    return MapTexts(catalog.numbered, abstracts)


class MapTexts(Mapping):
    """Paper id -> map_text, each made when asked for: the layout cache keeps the texts of
    the last layout, and a copy of every title and abstract would cost as much as the
    abstracts themselves. Pickled as the dict it reads as."""

    def __init__(self, papers: Sequence[Paper], abstracts: Mapping[str, Abstract]):
        self._papers = {p.id: p for p in papers}
        self._abstracts = abstracts

    def __getitem__(self, key: str) -> str:
        return map_text(self._papers[key].title, self._abstracts[key].text)

    def parts(self, key: str) -> tuple[str, str]:
        """What the text of `key` is made of (the layout's cache compares them rather than the text)."""
        return self._papers[key].title, self._abstracts[key].text

    def __iter__(self) -> Iterator[str]:
        return iter(self._papers)

    def __len__(self) -> int:
        return len(self._papers)

    def __reduce__(self):
        return dict, (dict(self.items()),)


def map_text(title: str, abstract_text: str) -> str:
    """A paper's title and abstract as the map reads them: the same words as related papers
    compare (RelatedIndex.kept_counts)."""
    return f"{title}. {abstract_text}"


def map_files(catalog: Catalog, points: Sequence[tuple[int, int]],
              shown: dict[tuple[str, str], tuple[str, int | str]] | None = None) -> dict[str, bytes]:
    """map/points.json, for the points laid out from map_texts (a data file, as the search's are).
    `shown`: each (title, slug)'s plain title and short slug, as the last build made them (a fresh
    `build` process would otherwise make all of them again); left holding this build's."""
    papers = catalog.numbered
    last = shown if shown is not None else {}
    keys = [(p.title, p.slug) for p in papers]
    pairs = [last.get(key) or _shown(*key) for key in keys]
    if shown is not None and not (len(shown) == len(keys) and all(map(shown.__contains__, keys))):
        shown.clear()
        shown.update(zip(keys, pairs))
    titles, slugs = zip(*pairs) if pairs else ((), ())
    topic_number = {t.slug: i for i, t in enumerate(catalog.topics)}
    return {urls.MAP_POINTS: encode(  # tuples: a rebuild that changed none of them gets the last bytes
        titles, slugs, tuple(map(tuple, points)),
        tuple(topic_number[p.topics[0]] if p.topics else -1 for p in papers),
        tuple(t.name for t in catalog.topics),
        tuple((v.name, len(catalog.venue_papers[v.slug])) for v in catalog.venues))}


def _shown(title: str, slug: str) -> tuple[str, int | str]:
    """A title as the map shows it, and its slug as the map writes it."""
    plain = plain_title(title)
    return plain, _short_slug(slug, plain)


@functools.lru_cache(maxsize=1)
def encode(titles: Sequence[str], slugs: Sequence[int | str], points: Sequence[tuple[int, int]],
           topics: Sequence[int], topic_names: Sequence[str], venues: Sequence[tuple[str, int]]) -> bytes:
    """The file's bytes; <, > and & escaped (search.shards.inert_text, a part at a time), so no title can
    end a script if it is ever inlined. `slugs`: as _short_slug writes them."""
    head = inert_text(_json({"grid": GRID, "topics": list(topic_names), "venues": [list(v) for v in venues]}))
    columns = {"x": tuple(map(itemgetter(0), points)), "y": tuple(map(itemgetter(1), points)), "topic": topics,
               "title": titles, "slug": slugs}
    text = head[:-1] + "".join(f',"{name}":{_column(values)}' for name, values in columns.items()) + "}"
    return text.encode("utf-8")


COLUMN_PART = 512  # values encoded at once: an edit encodes again the part of each column it changed


def _column(values: Sequence) -> str:
    """_json(list(values)), made of parts encoded once for all the builds that have them."""
    parts = [_part(tuple(values[start:start + COLUMN_PART])) for start in range(0, len(values), COLUMN_PART)]
    return f"[{','.join(parts)}]"


@functools.lru_cache(maxsize=1024)  # each part of every column of a 100,000-paper map
def _part(values: tuple) -> str:
    return inert_text(_json(list(values))[1:-1])


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def browser_slug(title: str) -> str:
    """What map.js's slugify makes of an ASCII title: runs of other characters than
    letters and digits become hyphens, lowercase, none at either end."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


@functools.lru_cache(maxsize=1 << 17)  # every paper's, every build: kept while its title is
def _short_slug(slug: str, title: str) -> int | str:
    # ASCII titles only: browsers and Python may fold other characters differently
    return len(slug) if slug and title.isascii() and browser_slug(title).startswith(slug) else slug
