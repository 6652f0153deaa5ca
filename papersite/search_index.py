"""lunr.js 2.3.9's text pipeline in Python, and a whole-catalog lunr index built with lunr.py.

The site's search index is built by search_shards.py, which uses trim() and
stem() from here. build_index() builds one lunr index with lunr.py's Builder
(the design before shards): the parity tests and bench/search_scale.py use it
as a reference.

lunr.py's own trimmer and stemmer differ from lunr.js 2.3.9 (Porter step 1c
turns "delay" into "delai" where lunr.js keeps "delay"; "(e.g.," keeps its
punctuation), so an index built with lunr.py's defaults misses browser queries
such as "delayed" or "key". This module indexes with functions that behave
like lunr.js's, registered under the labels lunr.js uses, so the serialized
index equals, byte for byte, the one lunr.js builds from the same documents
(tests/test_search_parity.py checks this against node).

Public API: build_index(), index_json(), stem(), trim(), plus the pipeline functions
trimmer / stemmer / stop_word_filter.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import lru_cache

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stop_word_filter import stop_word_filter  # same word list as lunr.js 2.3.9
from lunr.token_set import TokenSet

__all__ = [
    "build_index",
    "index_json",
    "stem",
    "trim",
    "trimmer",
    "stemmer",
    "stop_word_filter",
    "JS_EXTRA_SEPARATORS",
]

# --- Tokenizer ---------------------------------------------------------------
# lunr.js splits on /[\s\-]+/; JS's \s also covers these characters, which
# lunr.py's tokenizer does not split on. We turn them into plain spaces
# before lunr.py sees the text (same length, so token positions are kept).
JS_EXTRA_SEPARATORS = (
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_TO_SPACE = str.maketrans({c: " " for c in JS_EXTRA_SEPARATORS})


# --- Trimmer -----------------------------------------------------------------
# lunr.js: s.replace(/^\W+/, '').replace(/\W+$/, ''). JS's \W is ASCII-only,
# hence re.ASCII ("café" -> "caf", as in the browser). \Z because Python's $
# also matches before a final newline.
_LEADING_NON_WORD = re.compile(r"^\W+", re.ASCII)
_TRAILING_NON_WORD = re.compile(r"\W+\Z", re.ASCII)


def trim(s: str, metadata=None) -> str:
    """Strip leading/trailing non-word characters exactly as lunr.js 2.3.9 does."""
    return _TRAILING_NON_WORD.sub("", _LEADING_NON_WORD.sub("", s))


def trimmer(token, i=None, tokens=None):
    return token.update(trim)


# --- Porter stemmer ----------------------------------------------------------
# A port of lunr.stemmer from lunr.js 2.3.9 (MIT, Oliver Nightingale), itself
# based on Martin Porter's JavaScript implementation. Kept step by step as in
# lunr.js, quirks included; only $ became \Z (see above).
_STEP2 = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance",
    "izer": "ize", "bli": "ble", "alli": "al", "entli": "ent", "eli": "e",
    "ousli": "ous", "ization": "ize", "ation": "ate", "ator": "ate",
    "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous",
    "aliti": "al", "iviti": "ive", "biliti": "ble", "logi": "log",
}  # fmt: skip
_STEP3 = {
    "icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic",
    "ful": "", "ness": "",
}  # fmt: skip

_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = _c + "[^aeiouy]*"  # consonant sequence
_V = _v + "[aeiou]*"  # vowel sequence

_MGR0 = re.compile("^(" + _C + ")?" + _V + _C)  # [C]VC... is m>0
_MEQ1 = re.compile("^(" + _C + ")?" + _V + _C + "(" + _V + ")?\\Z")  # [C]VC[V] is m=1
_MGR1 = re.compile("^(" + _C + ")?" + _V + _C + _V + _C)  # [C]VCVC... is m>1
_S_V = re.compile("^(" + _C + ")?" + _v)  # vowel in stem

_RE_1A = re.compile(r"^(.+?)(ss|i)es\Z")
_RE2_1A = re.compile(r"^(.+?)([^s])s\Z")
_RE_1B = re.compile(r"^(.+?)eed\Z")
_RE2_1B = re.compile(r"^(.+?)(ed|ing)\Z")
_RE2_1B_2 = re.compile(r"(at|bl|iz)\Z")
_RE3_1B_2 = re.compile(r"([^aeiouylsz])\1\Z")
_RE4_1B_2 = re.compile("^" + _C + _v + "[^aeiouwxy]\\Z")
# The step that differs from lunr.py: y -> i only after a consonant.
_RE_1C = re.compile(r"^(.+?[^aeiou])y\Z")
_RE_2 = re.compile("^(.+?)(" + "|".join(_STEP2) + ")\\Z")
_RE_3 = re.compile("^(.+?)(" + "|".join(_STEP3) + ")\\Z")
_RE_4 = re.compile(
    r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\Z"
)
_RE2_4 = re.compile(r"^(.+?)(s|t)(ion)\Z")
_RE_5 = re.compile(r"^(.+?)e\Z")
_RE_5_1 = re.compile(r"ll\Z")
_RE3_5 = re.compile("^" + _C + _v + "[^aeiouwxy]\\Z")


def _porter(w: str) -> str:
    if len(w) < 3:
        return w

    firstch = w[0]
    if firstch == "y":  # an initial y is a consonant: hide it from the vowel classes
        w = "Y" + w[1:]

    # Step 1a
    if m := _RE_1A.match(w):
        w = m[1] + m[2]
    elif m := _RE2_1A.match(w):
        w = m[1] + m[2]

    # Step 1b
    if m := _RE_1B.match(w):
        if _MGR0.match(m[1]):
            w = w[:-1]
    elif m := _RE2_1B.match(w):
        stem = m[1]
        if _S_V.match(stem):
            w = stem
            if _RE2_1B_2.search(w):
                w += "e"
            elif _RE3_1B_2.search(w):
                w = w[:-1]
            elif _RE4_1B_2.match(w):
                w += "e"

    # Step 1c
    if m := _RE_1C.match(w):
        w = m[1] + "i"

    # Step 2
    if (m := _RE_2.match(w)) and _MGR0.match(m[1]):
        w = m[1] + _STEP2[m[2]]

    # Step 3
    if (m := _RE_3.match(w)) and _MGR0.match(m[1]):
        w = m[1] + _STEP3[m[2]]

    # Step 4
    if m := _RE_4.match(w):
        if _MGR1.match(m[1]):
            w = m[1]
    elif m := _RE2_4.match(w):
        stem = m[1] + m[2]
        if _MGR1.match(stem):
            w = stem

    # Step 5
    if m := _RE_5.match(w):
        stem = m[1]
        if _MGR1.match(stem) or (_MEQ1.match(stem) and not _RE3_5.match(stem)):
            w = stem

    if _RE_5_1.search(w) and _MGR1.match(w):
        w = w[:-1]

    if firstch == "y":
        w = "y" + w[1:]
    return w


def _to_utf16_units(s: str) -> str:
    """One str character per UTF-16 code unit (astral characters as surrogate
    pairs), because lunr.js's length test and regexes count code units."""
    return "".join(
        c if ord(c) <= 0xFFFF
        else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in s
    )  # fmt: skip


def _from_utf16_units(s: str) -> str:
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@lru_cache(maxsize=1 << 18)  # a catalog repeats the same words endlessly
def stem(word: str) -> str:
    """Stem one lower-cased, trimmed token exactly as lunr.js 2.3.9 does."""
    if any(ord(c) > 0xFFFF for c in word):
        return _from_utf16_units(_porter(_to_utf16_units(word)))
    return _porter(word)


def _stem(s: str, metadata=None) -> str:
    return stem(s)


def stemmer(token, i=None, tokens=None):
    return token.update(_stem)


# Register under lunr.js's labels: the serialized index names its search
# pipeline ("stemmer"), and lunr.Index.load() in Python then picks up this
# stemmer, so Python-side searches of a loaded index agree with the browser.
# (Pipeline.register_function would log an "overwriting" warning each import.)
for _fn, _label in ((trimmer, "trimmer"), (stemmer, "stemmer")):
    _fn.label = _label
    Pipeline.registered_functions[_label] = _fn


# --- Index -------------------------------------------------------------------
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
