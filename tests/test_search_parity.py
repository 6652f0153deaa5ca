"""The Python-built search index must be exactly what lunr.js 2.3.9 builds.

lunr.js itself is the oracle: tests/js/lunr_oracle.js answers every question
(index build, stems, trims, stop words, searches) in a single node call.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import lunr.tokenizer
import pytest
from lunr.index import Index
from lunr.stop_word_filter import WORDS as STOP_WORDS

from papersite.search_index import (
    JS_EXTRA_SEPARATORS,
    trim,
    build_index,
    index_json,
    stem,
)

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
LUNR_JS = ROOT / "node_modules" / "lunr"
ORACLE = ROOT / "tests" / "js" / "lunr_oracle.js"
NODE = shutil.which("node")

HAVE_LUNR_JS = NODE is not None and (LUNR_JS / "lunr.js").is_file()
# Skip on a laptop without node; in CI (CI=true) a missing lunr.js must fail.
needs_node = pytest.mark.skipif(
    not HAVE_LUNR_JS and not os.environ.get("CI"),
    reason="parity tests need node and node_modules/lunr (run `npm ci`)",
)

FIELDS = [{"field_name": "title", "boost": 10}, {"field_name": "body"}]

# The words that lunr.py's own stemmer gets wrong for the browser.
BROWSER_MISSES = ["delayed", "key", "employ", "decay", "away"]
QUERIES = BROWSER_MISSES + ["grokking", "neural network", "title:learning", "gener*", "generaliz*", "+deep -learning"]

# Words beyond the seeds that hit the stemmer's corners: y after a vowel or a
# consonant, initial y, double consonants, non-ASCII and astral characters
# (lunr.js counts UTF-16 code units), stray punctuation.
EDGE_WORDS = [
    "delay", "delays", "keys", "monkey", "say", "cry", "by", "yes", "yelling",
    "yttrium", "hopping", "filing", "agreed", "feed", "conditional", "rational",
    "generalization", "hopefulness", "caresses", "ponies", "ties", "caress",
    "cats", "controll", "roll", "naïve", "café", "über", "𝑥s", "y𝑥ing",
    "a𝑥ed", "𝑥𝑥ing", "e.g.,", "(i.e.", "'quoted'", "--", "x", "xy", "ys", "",
]  # fmt: skip


def seed_documents():
    """57 abstracts: per file, a header line, then abstracts split by blank lines."""
    docs = []
    for path in sorted(SEEDS.glob("*.txt")):
        blocks = re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip())
        for n, abstract in enumerate(blocks[1:]):
            abstract = " ".join(abstract.split())
            docs.append({"id": f"{path.stem}-{n}", "title": " ".join(abstract.split()[:8]), "body": abstract})
    return docs


def test_seed_count():
    assert len(seed_documents()) == 57


def vocabulary(docs):
    """Distinct raw tokens as lunr.js's tokenizer cuts them, and their trims."""
    raw = set()
    for doc in docs:
        raw.update(re.split(r"[\s\-]+", doc["body"].lower()))
    raw.discard("")
    return sorted(raw | {trim(w) for w in raw} | set(EDGE_WORDS))


@pytest.fixture(scope="module")
def parity():
    """Everything the tests compare, Python side and lunr.js side, one node call."""
    if not HAVE_LUNR_JS:
        pytest.fail("CI needs node and node_modules/lunr for the parity tests (run `npm ci`)")
    docs = seed_documents()
    py_index = build_index(docs, FIELDS)
    words = vocabulary(docs)
    request = {
        # build_index sorts documents by ref, so lunr.js gets them in that order.
        "build": {"ref": "id", "fields": FIELDS, "documents": sorted(docs, key=lambda d: d["id"])},
        "stem": words,
        "trim": words,
        "stopWord": sorted(STOP_WORDS | set(words)),
        "search": {"index": py_index, "queries": QUERIES},
        "separators": True,
    }
    proc = subprocess.run(
        [NODE, str(ORACLE), str(LUNR_JS)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=True,
    )
    return {"py_index": py_index, "words": words, "request": request, "js": json.loads(proc.stdout)}


@needs_node
def test_index_identical_to_lunr_js(parity):
    js_text = parity["js"]["build"]
    assert parity["py_index"] == json.loads(js_text)
    assert index_json(parity["py_index"]) == js_text


@needs_node
def test_search_in_lunr_js_finds_what_lunr_py_finds(parity):
    py_side = Index.load(parity["py_index"])  # loads our stemmer via its "stemmer" label
    for query in QUERIES:
        js_hits = dict(parity["js"]["search"][query])
        py_hits = {r["ref"]: r["score"] for r in py_side.search(query)}
        assert js_hits.keys() == py_hits.keys(), query
        for ref, score in js_hits.items():
            assert py_hits[ref] == pytest.approx(score, rel=1e-9), (query, ref)
    for word in BROWSER_MISSES:
        assert parity["js"]["search"][word], f"lunr.js finds nothing for {word!r}"


@needs_node
def test_stemmer_matches_lunr_js_on_whole_vocabulary(parity):
    words, js_stems = parity["request"]["stem"], parity["js"]["stem"]
    assert len(words) > 2000
    mismatches = [(w, stem(w), js) for w, js in zip(words, js_stems) if stem(w) != js]
    assert not mismatches, f"(word, python, lunr.js): {mismatches[:20]}"


@needs_node
def test_trimmer_matches_lunr_js(parity):
    words, js_trims = parity["request"]["trim"], parity["js"]["trim"]
    mismatches = [(w, trim(w), js) for w, js in zip(words, js_trims) if trim(w) != js]
    assert not mismatches, f"(token, python, lunr.js): {mismatches[:20]}"


@needs_node
def test_stop_words_match_lunr_js(parity):
    words, js_dropped = parity["request"]["stopWord"], parity["js"]["stopWord"]
    assert {w for w, dropped in zip(words, js_dropped) if dropped} == STOP_WORDS


@needs_node
def test_tokenizer_splits_where_lunr_js_does(parity):
    py_separators = set(lunr.tokenizer.SEPARATOR_CHARS) | set(JS_EXTRA_SEPARATORS)
    assert set(parity["js"]["separators"]) == py_separators


def test_unicode_spaces_split_tokens():
    index = build_index([{"id": "a", "body": "thin\u2009space\u3000ideographic"}], [{"field_name": "body"}])
    assert [term for term, _ in index["invertedIndex"]] == ["ideograph", "space", "thin"]


def test_duplicate_refs_are_rejected():
    docs = [{"id": "p1", "body": "x"}, {"id": "p2", "body": "y"}, {"id": "p1", "body": "z"}]
    with pytest.raises(ValueError, match="'p1'"):
        build_index(docs, [{"field_name": "body"}])


def test_missing_ref_is_rejected():
    with pytest.raises(ValueError, match="has no 'id'"):
        build_index([{"body": "x"}], [{"field_name": "body"}])


def test_input_order_does_not_matter():
    docs = seed_documents()[:10]
    assert index_json(build_index(docs, FIELDS)) == index_json(build_index(docs[::-1], FIELDS))


def test_stemmer_keeps_y_after_vowel():
    assert [stem(w) for w in ["delayed", "key", "employ", "cry", "yelling"]] == ["delay", "key", "employ", "cri", "yell"]
