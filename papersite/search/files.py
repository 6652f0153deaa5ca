"""search_files: every search file of a build, rebuilt in part after an edit.

Papers are numbered 0..N-1 by venue (in catalog order), then id; the number
is the lunr ref, and the document store maps it back to the paper's id and
URL. Numbering by venue makes a paper's venue implicit (docs.json only
gives each venue's count), and numbers stay put when papers are edited.
"""
from __future__ import annotations

import os
import re
import unicodedata
from array import array
from bisect import insort
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple

from .. import urls
from ..text.plain import plain_title
from ..model import Paper, Topic, Venue
from ..parallel import Detachable, ItemStream
from ..text.abstracts import Abstract
from ..text.words import reading_key
from . import store as docstore
from .lunr_text import clear_caches, searchable
from .shards import B, ShardedIndex, shard_name

if TYPE_CHECKING:  # a type only: the search's own process need not import the catalog's modules
    from ..catalog import Catalog


FIELDS = [
    {"field_name": "title", "boost": 10},
    {"field_name": "authors", "boost": 3},
    {"field_name": "topics", "boost": 2},
    {"field_name": "venue"},
    {"field_name": "body"},
]
_COMBINING = re.compile("[\u0300-\u036f]")  # the combining diacritical marks
SHARDS = "search/t/"
TERMS = "search/terms.json"


@dataclass
class SearchCache:
    """What a rebuild may reuse. A one-paper edit must not cost Python work
    per paper across the catalog, so besides the shard builder this keeps,
    per paper number, the paper and abstract objects (see engine/runner.py:
    BuildCache) and its authors' names and pages, and the files. What a
    paper's entry was made of is kept, not the entry: the entries of the
    papers an edit changed are made again, as they were and as they are
    (keeping them costs much memory, and as much again to send back from
    the process that made them). See search_files."""

    index: ShardedIndex = field(default_factory=lambda: ShardedIndex(FIELDS))
    names: tuple = ()  # base URL, topic and venue names that everything below was made with
    keys: tuple[str, ...] = ()  # paper ids by number
    papers: list = field(default_factory=list)  # by number: Paper
    abstracts: list = field(default_factory=list)  # Abstract
    bylines: list = field(default_factory=list)  # ((name, author page path), ...)
    doc_files: dict[str, bytes] = field(default_factory=dict)  # path -> bytes
    shard_names: dict[str, str] = field(default_factory=dict)
    shard_table: list = field(default_factory=list)  # index.json's, as last written
    title_order: array = field(default_factory=lambda: array("i"))  # paper numbers by _title_key
    files: dict[str, bytes] = field(default_factory=dict)  # index.json, docs.json, order.json
    # path -> (bytes, receipt) of every file as the last build stored it: the same bytes are not hashed again
    receipts: dict[str, tuple[bytes, str]] = field(default_factory=dict)

    def job(self, catalog: Catalog, abstracts: dict[str, Abstract], store: Callable[[str, bytes], Any] | None = None,
            reuse: Callable[[dict[str, str]], dict[str, str]] = lambda receipts: {}
            ) -> tuple[Callable[[], tuple], int]:
        """search_files as a job that may run in another process (a build makes the index
        alongside its pages), and the size of its work: the papers to index again. `keep`
        takes what it returned, this cache as the job left it, so that even an index made
        in another process is where the next build starts."""
        here = os.getpid()
        changed = _changed(catalog, abstracts, catalog.author_paths, self) if _names(catalog) == self.names else None

        def job() -> tuple[dict[str, Any], SearchCache]:
            files = search_files(catalog, abstracts, self, store, changed=changed, reuse=reuse)
            if os.getpid() == here:
                return files, self
            # The papers, abstracts and bylines are this process's objects: the parent has them.
            return files, replace(self, papers=[], abstracts=[], bylines=[])

        if changed is not None:
            return job, len(changed)
        # Everything is indexed anew: in a process of its own, that process is better started
        # fresh and handed each paper's fields than forked with a copy of the whole build.
        return Detachable(job, lambda: (_index_anew, (_Fields.of(catalog, abstracts), self.index.fields,
                                                      self.index.shard_bytes))), len(catalog.papers)

    def keep(self, made: tuple, catalog: Catalog, abstracts: dict[str, Abstract]) -> dict[str, Any]:
        """The files of what `job` returned; the cache it left becomes this one."""
        files, left = made
        if left is not self:
            vars(self).update(vars(left))
            by_id = {p.id: p for p in catalog.papers}
            self.papers = [by_id[key] for key in self.keys]  # the very objects the job was given
            self.abstracts = [abstracts[key] for key in self.keys]
            self.bylines = [catalog.author_paths[key] for key in self.keys]
        return files


ROWS_SENT_AT_ONCE = 500  # papers a fresh process is sent at a time: it holds no more of their texts


@dataclass(frozen=True)
class _Fields:
    """What search_files reads of a catalog and its abstracts, as plain values, to be sent to a
    fresh process: far smaller pickled than the catalog's objects. The papers' rows are
    streamed, in number order: the process indexes each as it comes and keeps what the
    facets need, never every text at once."""

    base_url: str
    topics: tuple[Topic, ...]
    venues: tuple[Venue, ...]
    venue_sizes: dict[str, int]
    keys: tuple[str, ...]  # paper ids by number
    # lists of rows, per paper: id, slug, title, venue, year, authors, topics, status, text, byline, et_al
    rows: Iterable[list[tuple]]

    @classmethod
    def of(cls, catalog: Catalog, abstracts: dict[str, Abstract]) -> "_Fields":
        papers = catalog.numbered
        bylines = catalog.author_paths

        def rows() -> Iterator[list[tuple]]:
            for start in range(0, len(papers), ROWS_SENT_AT_ONCE):
                yield [(p.id, p.slug, p.title, p.venue, p.year, p.authors, p.topics, p.status,
                        abstracts[p.id].text, bylines[p.id], p.et_al)
                       for p in papers[start:start + ROWS_SENT_AT_ONCE]]
        return cls(catalog.config.base_url, catalog.topics, catalog.venues,
                   {slug: len(papers) for slug, papers in catalog.venue_papers.items()},
                   tuple(p.id for p in papers), ItemStream(rows()))


class _Faceted(NamedTuple):
    """What the facets (docs.json) read of a paper."""

    topics: tuple[str, ...]
    year: int
    status: str


@dataclass(frozen=True)
class _Catalog:
    """The catalog as search_files reads it, rebuilt from _Fields: of each paper, what the facets show."""

    config: Any  # .base_url
    topics: tuple[Topic, ...]
    venues: tuple[Venue, ...]
    venue_papers: dict[str, range]  # as long as each venue's list of papers
    papers: list[_Faceted]
    author_paths: dict[str, tuple]


def _index_anew(fields: _Fields, field_names: list[str], shard_bytes: int) -> tuple[dict[str, Any], SearchCache]:
    """search_files over every paper with a new cache, in a fresh process; returns what the job of
    SearchCache.job does (the cache without the papers, which SearchCache.keep puts back)."""
    papers: list[_Faceted] = []  # as they come: what the facets read of each (a Paper costs 4x the memory)

    def numbered() -> Iterator[tuple[Paper, Abstract, tuple]]:
        for rows in fields.rows:
            for row in rows:
                paper = Paper(row[0], row[1], row[2], row[3], row[4], "", authors=row[5], topics=row[6],
                              status=row[7], et_al=row[10])
                papers.append(_Faceted(paper.topics, paper.year, paper.status))
                yield paper, Abstract("", row[8]), row[9]
    catalog = _Catalog(SimpleNamespace(base_url=fields.base_url), fields.topics, fields.venues,
                       {slug: range(size) for slug, size in fields.venue_sizes.items()}, papers, {})
    cache = SearchCache(ShardedIndex([{"field_name": name} for name in field_names], shard_bytes))
    files = search_files(catalog, {}, cache, numbered=(fields.keys, numbered()))  # type: ignore[arg-type]  # _Catalog reads as a Catalog here
    clear_caches()  # each word's term: room for pickling the answer (~25 MB at 50,000 papers)
    return files, replace(cache, papers=[], abstracts=[], bylines=[])


_FIND = object()  # search_files finds which papers changed


def search_files(catalog: Catalog, abstracts: dict[str, Abstract], cache: SearchCache | None = None,
                 store: Callable[[str, bytes], Any] | None = None,
                 numbered: tuple[tuple[str, ...], Iterator[tuple[Paper, Abstract, tuple]]] | None = None,
                 changed: Any = _FIND, reuse: Callable[[dict[str, str]], dict[str, str]] = lambda receipts: {}
                 ) -> dict[str, Any]:
    """Every search file, output path -> bytes (or, with `store`, its receipt: see render_pages;
    `reuse` gives again the receipts, of those the last build stored, whose bytes the output holds: see
    engine.runner.Runner.reuse).
    `numbered`: the papers' ids in number order, and each paper with its abstract and byline in that
    order, where they are streamed to a fresh process that indexes everything anew (catalog.papers
    fills as they are read; the cache keeps no abstracts or bylines). `changed`: what _changed
    gave, where the caller has looked already.

    With a cache: if every paper kept its number (no paper came, went or
    changed venue, and no name changed), only the papers that are not the
    same objects as last time are looked at again. Otherwise everything is
    renumbered and rebuilt.
    """
    cache = cache or SearchCache()
    topics = {t.slug: (i, t.name) for i, t in enumerate(catalog.topics)}
    venue_names = {v.slug: v.name for v in catalog.venues}
    names = _names(catalog)
    bylines = catalog.author_paths
    if changed is _FIND:
        changed = _changed(catalog, abstracts, bylines, cache) if names == cache.names else None
    link = urls.Urls(catalog.config.base_url)

    def made(paper: Paper, abstract: Abstract, byline: tuple) -> tuple[tuple, tuple]:
        """(field texts to index, document-store record)"""
        # math in a title becomes readable text, as in <title>: results are rendered as text
        title = plain_title(paper.title)
        record = docstore.record(title, paper.slug, paper.year, abstract.snippet,
                                 [[name, path[len(urls.ALL_AUTHORS):-1]] for name, path in byline[:docstore.RESULT_AUTHORS]],
                                 len(byline), paper.et_al)
        # every field folded as search.js folds a query, so that a query's words are indexed words
        return ((searchable(title), searchable(_author_text(paper.authors)),
                 searchable(" ".join(topics[t][1] for t in paper.topics)), searchable(venue_names[paper.venue]),
                 searchable(abstract.text)), record)

    def made_of(n: int) -> tuple[tuple, tuple]:
        """What paper number n's entry is made of now (or, before the cache is updated, was)."""
        return made(cache.papers[n], cache.abstracts[n], cache.bylines[n])

    if changed is None:  # number the papers: by venue, in catalog order, then by id
        cache.names = names
        if numbered is None:
            cache.papers = catalog.numbered
            cache.abstracts = [abstracts[p.id] for p in cache.papers]
            cache.bylines = [bylines[p.id] for p in cache.papers]
            numbered = (tuple(p.id for p in cache.papers), zip(cache.papers, cache.abstracts, cache.bylines))
        else:  # streamed: catalog.papers fills as they are read
            cache.papers, cache.abstracts, cache.bylines = catalog.papers, [], []
        cache.keys, papers = numbered
        facets_changed = order_changed = True
        cache.doc_files, titles = {}, []
        # One paper at a time: its texts are indexed, its record goes into its document file, and
        # neither is kept (every paper's at once would cost more than the index itself).
        entries = (made(paper, abstract, byline) for paper, abstract, byline in papers)
        shards = cache.index.build(cache.keys, _indexed(entries, cache.doc_files, titles))
        cache.title_order = array("i", [n for _, _, n in sorted(titles)])
    else:
        old = {n: cache.papers[n] for n in changed}
        was = {n: made_of(n) for n in changed}
        cache.papers, cache.abstracts, cache.bylines = list(cache.papers), list(cache.abstracts), list(cache.bylines)
        for n, paper in changed.items():
            cache.papers[n], cache.abstracts[n], cache.bylines[n] = paper, abstracts[paper.id], bylines[paper.id]
        now = {n: made_of(n) for n in changed}
        facets_changed = any((old[n].topics, old[n].year, old[n].status) != (paper.topics, paper.year, paper.status)
                             for n, paper in changed.items())
        moved = {n for n, paper in changed.items() if (old[n].title, old[n].slug) != (paper.title, paper.slug)}
        order_changed = bool(moved)
        shards = cache.index.update({n: (was[n][0], now[n][0]) for n in changed})
        # move the retitled (or renamed: slugs break ties) papers, cheaper than a re-sort
        for n in moved:
            del cache.title_order[cache.title_order.index(n)]
        for n in moved:
            insort(cache.title_order, n, key=lambda m: _title_key(cache.papers[m], m))
    count = len(cache.papers)
    files = {}
    table = []
    for boundary, data in shards:
        name = cache.shard_names.get(boundary) or cache.shard_names.setdefault(boundary, shard_name(boundary))
        table.append([boundary, name])
        files[f"{SHARDS}{name}.json"] = data
    if changed is None or table != cache.shard_table:
        cache.shard_table = table
        cache.files[urls.SEARCH_INDEX] = docstore.dump({
            "lunr": {"version": "2.3.9", "fields": [f["field_name"] for f in FIELDS],
                     "boosts": [f.get("boost", 1) for f in FIELDS], "b": B, "count": count},
            "shards": table,
        }, ascii=True)  # a boundary may end in half a surrogate pair: keep it escaped
    if facets_changed:
        cache.files[urls.SEARCH_DOCS] = docstore.facets(
            [[v.slug, v.name, len(catalog.venue_papers[v.slug])] for v in catalog.venues],
            [[t.slug, t.name] for t in catalog.topics],
            ([topics[t][0] for t in p.topics] for p in cache.papers),
            (p.year for p in cache.papers), (p.status for p in cache.papers), count,
            (link.link(urls.ALL_PAPERS), link.link(urls.ALL_AUTHORS)))
    if order_changed:
        cache.files[docstore.ORDER] = docstore.title_order(cache.title_order)
    files.update(cache.files)
    files[TERMS] = cache.index.terms_json()
    per_file = docstore.DOCS_PER_FILE
    if changed is not None:
        for chunk in sorted({n // per_file for n in changed}):
            numbers = range(chunk * per_file, min((chunk + 1) * per_file, count))
            path, data = docstore.doc_file(chunk, [now[n][1] if n in now else made_of(n)[1] for n in numbers])
            cache.doc_files[path] = data
    files.update(cache.doc_files)
    if store is None:
        cache.receipts = {}
        return files
    last = cache.receipts
    # most of them the very bytes of last time: not hashed again
    held = reuse({path: kept[1] for path, data in files.items()
                  if (kept := last.get(path)) is not None and kept[0] is data})
    receipts = {path: held[path] if path in held else store(path, data) for path, data in files.items()}
    cache.receipts = {path: (data, str(receipts[path])) for path, data in files.items()}
    return receipts


def _indexed(entries: Iterator[tuple[tuple, tuple]], doc_files: dict[str, bytes],
             titles: list[tuple[str, str, int]]) -> Iterator[tuple]:
    """The field texts of each (texts, record) of `entries`, papers numbered from 0 in order; their
    records go into `doc_files` as each document file fills, and (title's reading key, slug, number)
    into `titles`."""
    chunk: list[tuple] = []
    for number, (texts, record) in enumerate(entries):
        titles.append((reading_key(record[0]), record[1], number))
        chunk.append(record)
        if len(chunk) == docstore.DOCS_PER_FILE:
            path, data = docstore.doc_file(number // docstore.DOCS_PER_FILE, chunk)
            doc_files[path] = data
            chunk = []
        yield texts
    if chunk:
        path, data = docstore.doc_file((len(titles) - 1) // docstore.DOCS_PER_FILE, chunk)
        doc_files[path] = data


def _title_key(paper: Paper, number: int) -> tuple[str, str, int]:
    """Where a paper stands in the order by title (order.json): by its title as read, then slug and number."""
    return reading_key(plain_title(paper.title)), paper.slug, number


def _names(catalog: Catalog) -> tuple:
    """What every paper's entry is made with besides the paper: the base URL, the topics'
    numbers and names, and the venues' short names (the short name only: every full name
    says "Learning" or "Conference", which would make those words match every paper;
    venue filters are facets anyway)."""
    return (catalog.config.base_url, tuple((t.slug, (i, t.name)) for i, t in enumerate(catalog.topics)),
            tuple((v.slug, v.name) for v in catalog.venues))


def _changed(catalog: Catalog, abstracts: dict[str, Abstract], bylines: dict,
             cache: SearchCache) -> dict[int, Paper] | None:
    """Paper number -> paper, for the papers that changed since the last
    build (or whose authors' pages moved); None if papers must be renumbered
    (one came, went or changed venue)."""
    if len(catalog.papers) != len(cache.papers):
        return None
    number = {paper_id: n for n, paper_id in enumerate(cache.keys)}.get  # made each time: a few ms, not 6 MB kept at 50,000
    papers, kept, lines = cache.papers, cache.abstracts, cache.bylines
    changed = [(n, p) for p in catalog.papers  # one pass over the catalog, as quick as Python goes
               if (n := number(p.id)) is None or papers[n] is not p or kept[n] is not abstracts[p.id]
               or lines[n] != bylines[p.id]]
    if any(n is None or papers[n].venue != p.venue for n, p in changed):
        return None
    return dict(changed)


def _author_text(names: tuple[str, ...]) -> str:
    """The names, and those with accents also without them: "Rocktäschel" is found
    by "rocktaschel" too, and search.js also looks up a query word without its
    accents, so "rocktäschel" finds "Rocktaschel" (lunr.js folds no accents)."""
    text = " ".join(names)
    if text.isascii():
        return text
    words = text.split()
    bare = [_COMBINING.sub("", unicodedata.normalize("NFD", w)) for w in words]  # as search.js's bare()
    return " ".join(words + [b for w, b in zip(words, bare) if b != w])

