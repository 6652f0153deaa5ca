"""The full-text search index, cut into shards by term.

One lunr index over every abstract grows to megabytes on a large catalog,
so the vocabulary is cut into contiguous ranges of sorted terms, a shard
each. A query needs only the shards holding its terms.

A shard file holds the postings of its terms, nothing else:

    {"terms": ["gra", "grad", ...],
     "postings": [[codes of field 0], [codes of field 1], ...] per term}

Documents are numbered 0..N-1 (their lunr ref is that number as a string);
each code is `gap * 16 + tf` (gap from the previous document in the list,
tf the term's frequency in that field), or `gap * 16` followed by tf when
tf >= 16. In the browser, search.js hands the postings of the shards a query
needs to lunr.js's own Builder (createFieldVectors, createTokenSet), so the
weights are computed by lunr.js itself and the result is the lunr index
lunr.js builds from the same documents, restricted to those terms: a lunr
score is a dot product over the query's terms, so it is exact. Postings
are much smaller than lunr's serialized vectors, which is what keeps the
download of a query small on a large catalog (bench/search_scale.py).
tests/lunr_reference.py turns shard files back into lunr's serialized form,
and tests/test_search_parity.py checks it byte for byte against lunr.js.
"""
from __future__ import annotations

import json
from array import array
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial

from .lunr_text import field_terms, first_unit, js_order

# lunr.js's BM25 default is b=0.75: a weight is normalised by the field's
# length over the *catalog's average* length, so any edit that changes one
# abstract's length moves the average and re-rounds weights in every shard,
# and the browser would need every paper's field lengths. With b=0 a weight
# depends only on the paper's own term frequency and the term's document
# frequency: an edit changes the shards of the terms it touched, nothing
# else. Abstracts are of similar length and titles are short, so ranking
# barely moves (the browser ranking tests pass unchanged).
B = 0
TF_LIMIT = 16  # term frequencies from here on take a second number

# In memory a posting is one int: document << 24 | field << 20 | term frequency.
_DOC_SHIFT, _FIELD_SHIFT, _TF_MASK = 24, 20, 0xFFFFF


def _field_terms(text: str) -> dict[str, int]:
    counts = field_terms(text)
    if len(text) > _TF_MASK:  # a frequency must fit its bits (a million words of one field)
        return {term: min(tf, _TF_MASK) for term, tf in counts.items()}
    return counts


def inert(json_text: str) -> bytes:
    """JSON with <, > and & as \\u escapes (the same data once parsed): content holding
    `</script>` or `<!--` stays harmless even if a file is ever read as HTML or inlined."""
    return inert_text(json_text).encode("utf-8")


def inert_text(json_text: str) -> str:
    """inert's escapes, as text: a file escaped piece by piece is escaped as a whole."""
    return json_text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class ShardedIndex:
    """Builds the shards, and rebuilds only what changed when fed again.

    `build` takes every document (a key and the field texts, in document
    order) and indexes them all. `update` takes only the documents whose
    texts changed, by number, with their texts of last time: each is
    tokenized again, old and new text, only its postings are updated, and
    only the shards holding a term whose postings changed are re-encoded.
    Neither tokens nor texts are kept per document (the tokens would
    cost much memory, and the caller has what the texts are made from),
    nor the postings as such: the shard files hold them in half the memory,
    and an update reads back the few shards it changes. When the list of
    documents changes, the numbers of the documents after the change move,
    so the caller builds everything again (distinct words are stemmed once
    per process, so that is still much faster than the first build).
    """

    def __init__(self, fields: list[dict], shard_bytes: int = 40_000):
        self.fields = [f["field_name"] for f in fields]
        if len(self.fields) > 15:
            raise ValueError("at most 15 fields")
        if any("/" in name for name in self.fields):
            raise ValueError("a field name may not contain '/'")  # lunr splits "field/ref" there
        self.shard_bytes = shard_bytes  # rough raw JSON bytes per shard
        # The vocabulary by first UTF-16 unit ("bucket"), each list in JS order,
        # and each bucket cut into shards. Buckets are cut independently, so an
        # edit re-cuts only the buckets of its terms; the others keep their very
        # tuples of terms, which is how build() sees quickly that they are unchanged.
        self._buckets: dict[str, list[str]] = {}
        self._sizes: dict[str, array] = {}  # bucket -> its terms' numbers of postings, as in _buckets
        self._pieces: dict[str, list[tuple[str, tuple[str, ...]]]] = {}  # bucket -> [(boundary, terms)]
        self._words: dict[str, str] = {}  # bucket -> its terms as JSON array items, for terms_json()
        self._order: list[str] = []  # bucket keys in JS order
        self._layout: list[tuple[str, tuple[str, ...], str]] = []  # (boundary, terms, bucket)
        self._shards: dict[str, tuple[tuple[str, ...], bytes]] = {}  # boundary -> (terms, file)
        self._vocabulary: bytes | None = None  # terms_json(), until a term comes or goes
        self.rebuilt = 0  # shards encoded by the last build (tests and benchmarks read it)

    def build(self, keys: Sequence[str], texts: Iterable[tuple[str, ...]]) -> list[tuple[str, bytes]]:
        """[(boundary, shard file)] of these documents, in vocabulary order; the first boundary is "".
        `texts` may be an iterator: each document's texts are let go once indexed."""
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate document keys")  # lunr would silently mis-score them
        postings, count = self._index_all(texts)
        if count != len(keys):
            raise ValueError("one key per document")
        return self._cut(None, postings)

    def update(self, changed: Mapping[int, tuple[tuple[str, ...], tuple[str, ...]]]) -> list[tuple[str, bytes]]:
        """build()'s result after the documents numbered in `changed` went from their texts of
        last time to their texts now: document number -> (texts last time, texts now)."""
        postings = _Postings(self._layout, self._shards)
        return self._cut(self._update(changed, postings), postings)

    def _cut(self, dirty: set[str] | None, postings: dict[str, array]) -> list[tuple[str, bytes]]:
        """The shards, re-encoding only those holding a dirty term (all: None). `postings`: of every
        term (dirty is None; taken as each shard is encoded), else of the dirty terms, the others'
        read back from the shards holding them as needed."""
        recut = self._relayout(dirty, postings) if dirty is None or dirty else set()
        shards = {}
        self.rebuilt = 0
        for boundary, terms, key in self._layout:
            cached = self._shards.get(boundary)
            # Unchanged buckets keep their very term tuples; a re-cut one is compared.
            reusable = cached is not None and dirty is not None and (cached[0] is terms or cached[0] == terms)
            if not reusable or (key in recut and not dirty.isdisjoint(terms)):
                cached = (terms, self._encode(terms, postings, taken=dirty is None))
                self.rebuilt += 1
            shards[boundary] = cached
        self._shards = shards
        return [(boundary, data) for boundary, (_, data) in shards.items()]

    def terms_json(self) -> bytes:
        """The whole vocabulary, in JS order, as a JSON array."""
        if self._vocabulary is None:
            self._vocabulary = inert("[" + ",".join(filter(None, (self._words[key] for key in self._order))) + "]")
        return self._vocabulary

    # --- postings ------------------------------------------------------------

    def _index_all(self, texts: Iterable[tuple[str, ...]]) -> tuple[dict[str, array], int]:
        """The postings of every document, and how many documents there were. (Not on all
        cores: the workers' results cost more to send back and merge than they save.)"""
        postings: defaultdict[str, array] = defaultdict(partial(array, "q"))
        doc = -1
        for doc, fields in enumerate(texts):
            if len(fields) != len(self.fields):
                raise ValueError(f"expected {len(self.fields)} field texts, got {len(fields)}")
            for field, text in enumerate(fields):
                if text:
                    base = doc << _DOC_SHIFT | field << _FIELD_SHIFT
                    for term, tf in _field_terms(text).items():
                        postings[term].append(base | tf)
        return dict(postings), doc + 1

    def _update(self, changed: Mapping[int, tuple[tuple[str, ...], tuple[str, ...]]],
                postings: dict[str, array]) -> set[str]:
        """Apply the changed documents to `postings`; returns the terms whose postings changed (a
        term gone is left with none)."""
        dirty: set[str] = set()
        for doc, (old, new) in changed.items():
            if old == new:
                continue
            if len(new) != len(self.fields):
                raise ValueError(f"expected {len(self.fields)} field texts, got {len(new)}")
            for field, (was, now) in enumerate(zip(old, new)):
                if was == now:
                    continue
                before, after = _field_terms(was), _field_terms(now)
                for term in before.keys() | after.keys():
                    tf = after.get(term)
                    if before.get(term) == tf:
                        continue
                    dirty.add(term)
                    entries = postings[term]
                    key = doc << _DOC_SHIFT | field << _FIELD_SHIFT
                    at = bisect_left(entries, key)
                    if at < len(entries) and entries[at] >> _FIELD_SHIFT == key >> _FIELD_SHIFT:
                        del entries[at]
                    if tf is not None:
                        entries.insert(at, key | tf)
        return dirty

    # --- layout --------------------------------------------------------------

    def _relayout(self, dirty: set[str] | None, postings: dict[str, array]) -> set[str]:
        """Re-cut the buckets holding dirty terms (all of them when dirty is
        None); returns those buckets."""
        if dirty is None:
            self._buckets, self._pieces, self._words, self._vocabulary = {}, {}, {}, None
            for term in sorted(postings, key=js_order):
                self._buckets.setdefault(first_unit(term), []).append(term)
            self._sizes = {key: array("i", [len(postings[term]) for term in terms])
                           for key, terms in self._buckets.items()}
            changed = set(self._buckets)
        else:
            changed = set()
            for term in dirty:
                key = first_unit(term)
                changed.add(key)
                bucket = self._buckets.setdefault(key, [])
                sizes = self._sizes.setdefault(key, array("i"))
                at = bisect_left(bucket, js_order(term), key=js_order)
                present = at < len(bucket) and bucket[at] == term
                size = len(postings[term])
                if bool(size) != present:  # the term came or went
                    if present:
                        del bucket[at], sizes[at]
                    else:
                        bucket.insert(at, term)
                        sizes.insert(at, size)
                    self._words.pop(key, None)
                    self._vocabulary = None
                elif size:
                    sizes[at] = size
                if not bucket:
                    del self._buckets[key], self._sizes[key]
                    self._pieces.pop(key, None)
        for key in changed & self._buckets.keys():
            terms = self._buckets[key]
            # Rough encoded bytes: the term, and ~4 per posting.
            costs = [8 + len(t) + 4 * n for t, n in zip(terms, self._sizes[key])]
            pieces, start = [], 0
            for boundary, count in cut(terms, costs, self.shard_bytes):
                pieces.append((boundary, tuple(terms[start:start + count])))
                start += count
            self._pieces[key] = pieces
            if key not in self._words:
                self._words[key] = json.dumps(terms, ensure_ascii=False, separators=(",", ":"))[1:-1]
        self._order = sorted(self._buckets, key=js_order)
        layout = [(boundary, terms, key) for key in self._order for boundary, terms in self._pieces[key]]
        if layout:  # the first shard also covers anything before its first term
            layout[0] = ("", layout[0][1], layout[0][2])
        else:
            layout = [("", (), "")]
        self._layout = layout
        return changed

    # --- encoding ------------------------------------------------------------

    def _encode(self, terms: tuple[str, ...], postings: dict[str, array], taken: bool = False) -> bytes:
        """A shard file: its terms and their postings, per field, as codes. `taken`: the terms'
        postings are let go as they are encoded."""
        encoded = []
        for term in terms:
            fields: list[list[int]] = [[] for _ in self.fields]
            last = [0] * len(self.fields)
            for code in (postings.pop(term) if taken else postings[term]):
                doc, field, tf = code >> _DOC_SHIFT, code >> _FIELD_SHIFT & 0xF, code & _TF_MASK
                if tf < TF_LIMIT:
                    fields[field].append((doc - last[field]) * TF_LIMIT + tf)
                else:
                    fields[field] += ((doc - last[field]) * TF_LIMIT, tf)
                last[field] = doc
            encoded.append(fields)
        return inert(json.dumps({"terms": terms, "postings": encoded}, ensure_ascii=False, separators=(",", ":")))


class _Postings(dict):
    """Term -> sorted postings, read back on first use from the shard file that holds the term
    (with the rest of that shard's terms), or none for a term no shard holds."""

    def __init__(self, layout: list[tuple[str, tuple[str, ...], str]], shards: dict[str, tuple[tuple[str, ...], bytes]]):
        super().__init__()
        self._held = [(boundary, terms) for boundary, terms, _ in layout if terms]
        self._firsts = [js_order(terms[0]) for _, terms in self._held]  # the shards in term order
        self._shards = shards

    def __missing__(self, term: str) -> array:
        at = bisect_right(self._firsts, js_order(term)) - 1
        if at >= 0:
            boundary, terms = self._held[at]
            place = bisect_left(terms, js_order(term), key=js_order)
            if place < len(terms) and terms[place] == term:
                for read, entries in _decoded(self._shards[boundary][1]):
                    self.setdefault(read, entries)
                return self[term]
        return self.setdefault(term, array("q"))


def _decoded(shard: bytes) -> Iterator[tuple[str, array]]:
    """The postings of a shard file's terms: ShardedIndex._encode read back."""
    data = json.loads(shard)
    for term, fields in zip(data["terms"], data["postings"]):
        entries = []
        for field, codes in enumerate(fields):
            doc, at = 0, 0
            while at < len(codes):
                gap, tf = divmod(codes[at], TF_LIMIT)
                if tf:
                    at += 1
                else:  # a frequency from TF_LIMIT on follows its gap
                    tf, at = codes[at + 1], at + 2
                doc += gap
                entries.append(doc << _DOC_SHIFT | field << _FIELD_SHIFT | tf)
        yield term, array("q", sorted(entries))


def cut(terms: list[str], costs: list[int], limit: int) -> list[tuple[str, int]]:
    """Cut sorted terms that share their first character into shards of about
    `limit` cost: [(boundary, number of terms)].

    Boundaries are prefixes, not terms: a shard is "every term from 'gra' up
    to the next boundary". Consecutive small prefix groups are packed
    together, a group over the limit is split by its next character; the
    first boundary is the shared first character. So an edit that adds a term
    or changes a cost moves a boundary or two among siblings, never the rest.
    """
    # Work in UTF-16 code units, as JS compares and slices strings.
    units = [t if t.isascii() else js_order(t).decode("utf-16-be", "surrogatepass") for t in terms]
    out: list[tuple[str, int, int]] = []  # (boundary, start, end)

    def key_at(word: str, depth: int) -> str:
        return word[depth] if len(word) > depth else ""

    def visit(lo: int, hi: int, depth: int, prefix: str) -> None:
        pack: list | None = None  # [boundary, start, cost]
        i = lo
        while i < hi:
            key, j, total = key_at(units[i], depth), i, 0
            while j < hi and key_at(units[j], depth) == key:
                total += costs[j]
                j += 1
            if key and total > limit and j - i > 1:  # too big: split by the next character
                if pack:
                    out.append((pack[0], pack[1], i))
                    pack = None
                visit(i, j, depth + 1, prefix + key)
            else:
                if pack and pack[2] + total > limit:
                    out.append((pack[0], pack[1], i))
                    pack = None
                if pack is None:
                    pack = [prefix + key, i, 0]
                pack[2] += total
            i = j
        if pack:
            out.append((pack[0], pack[1], hi))

    first = units[0][:1]
    visit(0, len(units), 1, first) if first else out.append(("", 0, len(units)))
    out[0] = (first, 0, out[0][2])
    # Boundaries made of UTF-16 units go back to real strings (half a surrogate pair stays).
    return [(b if b.isascii() else b.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass"), e - s)
            for b, s, e in out]


def shard_name(boundary: str) -> str:
    """A file name for a shard boundary: letters and digits as they are, any
    other UTF-16 code unit as _ and 4 hex digits; "" (the first shard) is "_"."""
    if not boundary:
        return "_"
    units = boundary.encode("utf-16-be", "surrogatepass")
    out = []
    for i in range(0, len(units), 2):
        code = int.from_bytes(units[i:i + 2], "big")
        char = chr(code)
        out.append(char if char in "abcdefghijklmnopqrstuvwxyz0123456789" else f"_{code:04x}")
    return "".join(out)
