"""lunr's serialized index built in Python: the reference the search tests and benchmarks compare with.

The site never builds one index over the whole catalog (papersite.search cuts
it into shards); these functions build what lunr.js would, so that tests can
check the shards and search.js against it, and lunr.js against it:

- build_index(): one lunr index with lunr.py's Builder, given the browser's
  pipeline functions explicitly (papersite.search.lunr_text: lunr.js's stemmer
  and stop words, search.js's trimmer), so the serialized index equals, byte
  for byte, the one lunr.js builds from the same documents with search.js's
  trimmer (the design before shards; bench/search_scale.py measures it);
- decode() and lunr_json(): shard files back to lunr's serialized form;
- load_index(): a serialized index loaded by lunr.py, searching with lunr.js's
  stemmer (lunr.py's own would look up "delai" for "delayed").

Nothing here writes into lunr.py's global Pipeline.registered_functions: the
pipeline functions carry the labels lunr.js knows them by, and lunr.py's
Pipeline, Builder and Index take them as arguments. bench/ imports this module with the repository
root on sys.path.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence

from lunr.builder import Builder
from lunr.index import Index
from lunr.stop_word_filter import stop_word_filter  # lunr.js 2.3.9's list
from lunr.token_set import TokenSet

from papersite.search.lunr_text import JS_EXTRA_SEPARATORS, trim
from papersite.search.shards import B, TF_LIMIT
from papersite.text.words import stem

LUNR_VERSION = "2.3.9"
K1 = 1.2  # lunr.js's default
_TO_SPACE = str.maketrans({c: " " for c in JS_EXTRA_SEPARATORS})


# lunr.py pipeline functions doing what the browser's do. The labels are those
# lunr.js registers them under (lunr.js's stemmer, search.js's trimmer); lunr.py's
# Pipeline only reads a label, it registers nothing.
def trimmer(token, i=None, tokens=None):
    return token.update(lambda s, metadata=None: trim(s))


def stemmer(token, i=None, tokens=None):
    return token.update(lambda s, metadata=None: stem(s))


trimmer.label, stemmer.label = "unicodeTrimmer", "stemmer"


def load_index(serialized: dict) -> Index:
    """A serialized index loaded by lunr.py, its search pipeline lunr.js's stemmer."""
    index = Index.load({**serialized, "pipeline": []})
    index.pipeline.add(stemmer)
    return index


def build_index(documents: list[dict], fields: list[dict], ref: str = "id") -> dict:
    """Return the serialized lunr index (a dict for json.dumps) of `documents`.

    `fields` uses lunr.py's form: [{"field_name": "title", "boost": 10}, ...],
    optionally with an "extractor" callable. A missing field counts as empty,
    as in lunr.js. Documents are indexed in ref order, so the result does not
    depend on input order. Raises ValueError on missing or duplicate refs.
    """
    refs = []
    for n, doc in enumerate(documents):
        if doc.get(ref) is None:
            raise ValueError(f"document #{n} has no {ref!r}")
        refs.append(str(doc[ref]))  # lunr keys documents by the string form
    duplicates = sorted(r for r, count in Counter(refs).items() if count > 1)
    if duplicates:
        # lunr would silently merge them and score their terms wrongly.
        raise ValueError(f"duplicate document refs: {', '.join(map(repr, duplicates))}")

    builder = Builder()
    builder.pipeline.add(trimmer, stop_word_filter, stemmer)
    builder.search_pipeline.add(stemmer)
    builder.ref(ref)
    for field in fields:
        name = field["field_name"]
        if "/" in name:  # lunr joins "field/ref" and splits at the first "/"
            raise ValueError(f"field name may not contain '/': {name!r}")
        extractor = _js_text(name, field.get("extractor"))
        builder.field(name, boost=field.get("boost", 1), extractor=extractor)

    for _, doc in sorted(zip(refs, documents), key=lambda pair: pair[0]):
        builder.add(doc)

    if not documents:  # an empty catalog: lunr.py's build() divides by zero, lunr.js gives this
        return Index(inverted_index={}, field_vectors={}, token_set=TokenSet.from_list([]),
                     fields=[f["field_name"] for f in fields], pipeline=builder.search_pipeline).serialize()
    return _like_lunr_js(builder.build().serialize())


def _js_text(field_name, extractor):
    """Extractor returning the field's value with JS-only whitespace replaced."""

    def extract(doc):
        value = extractor(doc) if extractor else doc.get(field_name)
        return value.translate(_TO_SPACE) if isinstance(value, str) else value

    return extract


def _like_lunr_js(index: dict) -> dict:
    """Match lunr.js's JSON text exactly: postings list "_index" first (lunr.js
    creates it first), keys and terms in JS order, and whole-number floats
    written as ints (JS has one number type: 2.0 serializes as 2)."""
    inverted = []
    for term, posting in index["invertedIndex"]:
        fields = {f: _js_key_order(posting[f]) for f in index["fields"]}
        inverted.append([term, {"_index": posting["_index"], **fields}])
    # JS sorts strings by UTF-16 code unit, Python by code point; they differ
    # only when characters beyond U+FFFF meet ones in U+E000-U+FFFF.
    inverted.sort(key=lambda pair: pair[0].encode("utf-16-be", "surrogatepass"))
    index["invertedIndex"] = inverted
    index["fieldVectors"] = [
        [field_ref, [int(x) if isinstance(x, float) and x.is_integer() else x for x in elements]]
        for field_ref, elements in index["fieldVectors"]
    ]
    return index


_ARRAY_INDEX = re.compile(r"(0|[1-9][0-9]*)\Z")


def _js_key_order(postings: dict) -> dict:
    """Plain dicts in JS object key order: integer-like keys ("7") come first,
    ascending, then the others in insertion order."""

    def is_index(key):
        return bool(_ARRAY_INDEX.match(key)) and int(key) < 2**32 - 1

    keys = sorted(filter(is_index, postings), key=int) + [k for k in postings if not is_index(k)]
    return {doc_ref: dict(postings[doc_ref]) for doc_ref in keys}


def index_json(index: dict) -> str:
    """Compact JSON, the same text lunr.js's JSON.stringify(idx) produces
    (non-ASCII kept as is: write it as UTF-8)."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))


# --- shards back to lunr's form ----------------------------------------------

def weight(df: int, n: int, tf: int, boost: float) -> float:
    """lunr.js's field-vector entry: BM25 (k1=1.2, b=0) with lunr's idf (`df`
    counts a document once per field holding the term), times the field
    boost, rounded to 3 decimals as Math.round does (halves up)."""
    idf = math.log(1 + abs((n - df + 0.5) / (df + 0.5)))
    score = idf * ((K1 + 1) * tf) / (K1 * (1 - B) + tf)  # lunr: k1 * (1 - b + b * len / avg) + tf
    score *= boost
    scaled = score * 1000
    rounded = math.floor(scaled)
    if scaled - rounded >= 0.5:
        rounded += 1
    return rounded / 1000


def _js_number(x: float) -> str:
    return str(int(x)) if x.is_integer() else repr(x)


def decode(settings: dict, shards: Sequence[dict]) -> tuple[list[str], list[list[tuple[int, int, int]]]]:
    """Shard files (parsed) -> (terms, postings as [(doc, field, tf), ...] per term)."""
    terms, postings = [], []
    for shard in shards:
        for term, fields in zip(shard["terms"], shard["postings"]):
            entries = []
            for field, codes in enumerate(fields):
                doc, k = 0, 0
                while k < len(codes):
                    doc += codes[k] // TF_LIMIT
                    tf = codes[k] % TF_LIMIT
                    if tf == 0:  # a frequency of TF_LIMIT or more comes next
                        k += 1
                        tf = codes[k]
                    entries.append((doc, field, tf))
                    k += 1
            terms.append(term)
            postings.append(sorted(entries))
    return terms, postings


def lunr_json(count: int, fields: Sequence[str], boosts: Sequence[float], terms: Sequence[str],
              postings: Sequence[Sequence[tuple[int, int, int]]]) -> str:
    """A lunr index in the exact text of lunr.js's JSON.stringify(index): what
    lunr.js builds (with b=0) from `count` documents whose refs are "0", "1",
    ..., restricted to `terms` (in JS order, with their full postings as
    (doc, field, tf) sorted by doc), `_index` numbered in term order. The
    browser builds this same index from the shard files."""
    vectors: dict[int, list[str]] = {}  # doc << 4 | field -> ["index,weight", ...]
    inverted = []
    for index, (term, entries) in enumerate(zip(terms, postings)):
        df = len(entries)  # lunr's idf counts a document once per field holding the term
        by_field: list[list[str]] = [[] for _ in fields]
        for doc, field, tf in entries:
            by_field[field].append(f'"{doc}":{{}}')  # integer-like keys: JS lists them in order
            value = _js_number(weight(df, count, tf, boosts[field]))
            vectors.setdefault(doc << 4 | field, []).append(f"{index},{value}")
        posting = "".join(f",{json.dumps(name)}:{{{','.join(refs)}}}" for name, refs in zip(fields, by_field))
        inverted.append(f'[{json.dumps(term, ensure_ascii=False)},{{"_index":{index}{posting}}}]')
    # lunr.js lists field vectors in the order documents and fields were added.
    field_vectors = ",".join(f'[{json.dumps(f"{fields[slot & 0xF]}/{slot >> 4}")},[{",".join(vectors[slot])}]]'
                             for slot in sorted(vectors))
    return (f'{{"version":"{LUNR_VERSION}","fields":{json.dumps(list(fields), separators=(",", ":"))},'
            f'"fieldVectors":[{field_vectors}],"invertedIndex":[{",".join(inverted)}],'
            f'"pipeline":["stemmer"]}}')


def shards_as_lunr(settings: dict, shards: Sequence[dict]) -> str:
    """Shard files (parsed) as one lunr index, in lunr.js's JSON text (index.json's "lunr" settings)."""
    terms, postings = decode(settings, shards)
    return lunr_json(settings["count"], settings["fields"], settings["boosts"], terms, postings)
