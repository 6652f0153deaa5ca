"""The Python-built search index must be exactly what lunr.js 2.3.9 builds.

lunr.js itself is the oracle: tests/js/lunr_oracle.js answers every question
(index build, stems, trims, stop words, searches) in a single node call. It
builds with search.js's trimmer, as the site does (lunr.js's own strips every
letter beyond ASCII).
The site's index is cut into shards (papersite/search/shards.py); each shard
must be what lunr.js builds from all documents, restricted to the shard's
terms, both as computed in Python and as search.js builds it in the browser,
and a query over only the shards it needs must rank exactly as a query over
one whole index (tests/js/search_engine.js runs search.js's engine in node).
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import lunr.tokenizer
import pytest

from papersite.search import FIELDS as SITE_FIELDS
from papersite.search import ShardedIndex
from papersite.search.lunr_text import JS_EXTRA_SEPARATORS, SEPARATORS, field_terms, searchable, trim
from papersite.text.words import STOP_WORDS, stem
from tests.lunr_reference import build_index, index_json, load_index, shards_as_lunr

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "fixtures" / "seeds"
LUNR_JS = ROOT / "node_modules" / "lunr"
ORACLE = ROOT / "tests" / "js" / "lunr_oracle.js"
ENGINE = ROOT / "tests" / "js" / "search_engine.js"
SEARCH_JS = ROOT / "static" / "search.js"
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
    # other scripts: letters, marks (niqqud, harakat, a final vowel sign), astral ideographs
    "שלום", "(עוֹלָם)", "كتابٌ", "«مرحبا»", "中文", "深度学习。", "𠀀𠀁", "हिंदी", "Привет,", "ε", "Φflow", "_x_", "x_0",
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


def node(script: Path, *args: Path, request: dict) -> dict:
    proc = subprocess.run([NODE, str(script), *map(str, args)], input=json.dumps(request), capture_output=True,
                          text=True, encoding="utf-8", timeout=120, check=True)
    return json.loads(proc.stdout)


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
        "lunrTrim": words,
        "wordChars": True,
        "stopWord": sorted(STOP_WORDS | set(words)),
        "search": {"index": py_index, "queries": QUERIES},
        "separators": True,
    }
    return {"py_index": py_index, "words": words, "request": request, "js": node(ORACLE, LUNR_JS, SEARCH_JS, request=request)}


@needs_node
def test_index_identical_to_lunr_js(parity):
    js_text = parity["js"]["build"]
    assert parity["py_index"] == json.loads(js_text)
    assert index_json(parity["py_index"]) == js_text


@needs_node
def test_search_in_lunr_js_finds_what_lunr_py_finds(parity):
    py_side = load_index(parity["py_index"])
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
def test_trimmer_matches_search_js(parity):
    words, js_trims = parity["request"]["trim"], parity["js"]["trim"]
    mismatches = [(w, trim(w), js) for w, js in zip(words, js_trims) if trim(w) != js]
    assert not mismatches, f"(token, python, search.js): {mismatches[:20]}"
    # ...and trims ASCII exactly as lunr.js's own trimmer does
    ascii_words = [(w, js) for w, js in zip(words, parity["js"]["lunrTrim"]) if w.isascii()]
    assert len(ascii_words) > 2000 and all(trim(w) == js for w, js in ascii_words)


@needs_node
def test_trimmer_keeps_the_letters_of_every_script(parity):
    """Every code point the trimmer keeps at a word's edge, in Python and in search.js: letters,
    marks and numbers of every script, and _. Node's Unicode is newer than Python's: characters
    that Python's unicodedata does not know yet are left out."""
    import unicodedata
    js_keeps = {code for first, last in parity["js"]["wordChars"] for code in range(first, last + 1)}
    known = [code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF
             and unicodedata.category(chr(code)) != "Cn"]
    differ = [hex(code) for code in known if (trim(chr(code)) != "") != (code in js_keeps)]
    assert not differ, differ[:20]
    assert {trim(w) for w in ("שלום", "(עוֹלָם)", "كتابٌ", "«مرحبا»", "深度学习。", "हिंदी")} == \
        {"שלום", "עוֹלָם", "كتابٌ", "مرحبا", "深度学习", "हिंदी"}


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


# --- The sharded index ------------------------------------------------------------

AUTHORS = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Kenji Tanaka", "Amara Okafor"]
TOPICS = ["Learning Theory", "Generative Models", "Optimization", "Reinforcement Learning"]

# What a visitor types, lunr syntax and mistakes included (search.js's groups and clauses).
SHARD_QUERIES = [
    "grokking delayed robustness", "temperature scaling calibration mixup", "low rank quantized lora",
    "protein ligand docking flow matching", "mixture of experts routing multilingual", "3d gaussians",
    "grok", "distill", "calibrat temperat", "gr", "the", "a", "zz", "delayed", "Delayed", "key",
    "title:grokking", "title:grok", "authors:turing", "hopper", "generative models", "icml",
    "+diffusion +music", "diffusion -music", "-grokking", "-the", "+grokking -robustness",
    "grokking~1", "transfrmer~2", "*ing", "gr*ing", "generaliz*", "gener*", "*grok",
    "grok^5", "title:", "~", "^", "*", "+", "-", '"', '"grokking delayed', "body:", "nosuchfield:grok",
    ":::", "\\", "-*", "^^^", "~~1", "- -", "a:b:c", "grokking^", "(delayed)", "[x]", "{}", "<script>",
    "&amp;", "%", "日本語", "𝑥", "naïve", "a𝑥ed", "e.g", "repeat", "(",
    # misspelt: searched again with the words spelt like them
    "grokking", "diffusion", "transformer", "transformers", "difusion", "trasformer", "transfromers", "difusion music", "grokking difusion", "calibraton temperature",
    "xyzzyq", "title:difusion",
    # other scripts, and math as typed
    "שלום", "كتابٌ", "עולם", "جديد", "深度学习", "学习", "度学习的", "title:研究", "王小明", "中", "ℓ_p", "ℓp", "lp", "ε",
]


def shard_documents():
    """The seed abstracts with every site field, plus edge cases: stemmer corners,
    a word 20 times (a frequency past the one-number code), punctuation-only
    tokens (lunr indexes them as the empty term)."""
    docs = []
    for n, doc in enumerate(sorted(seed_documents(), key=lambda d: d["id"])):
        docs.append({"title": doc["title"], "authors": f"{AUTHORS[n % 5]} {AUTHORS[(3 * n + 1) % 5]}",
                     "topics": TOPICS[n % 4], "venue": ["ICML 2024", "ICLR 2024"][n % 2], "body": doc["body"]})
    docs.append({"title": "Edge cases", "authors": "", "topics": "", "venue": "ICML 2024",
                 "body": " ".join(EDGE_WORDS) + " repeat" * 20 + " -- ( ("})
    docs.append({"title": "深度学习的研究", "authors": "王小明 דוד כהן", "topics": "", "venue": "ICML 2024",
                 "body": "שלום עולם. كتابٌ جديد. An ℓ_p-norm bound for ε-greedy GPT在中文."})
    # each field folded as the site folds it (files.py)
    return [{"ref": str(n), **{name: searchable(text) for name, text in doc.items()}} for n, doc in enumerate(docs)]


@pytest.fixture(scope="module")
def sharded():
    """The seed documents cut into ~40 shards, and lunr.js's answers about them."""
    if not HAVE_LUNR_JS:
        pytest.fail("CI needs node and node_modules/lunr for the parity tests (run `npm ci`)")
    docs = shard_documents()
    names = [f["field_name"] for f in SITE_FIELDS]
    index = ShardedIndex(SITE_FIELDS, shard_bytes=1500)
    files = index.build([d["ref"] for d in docs], [tuple(d[name] for name in names) for d in docs])
    bounds = [bound for bound, _ in files]
    settings = {"fields": names, "boosts": [f.get("boost", 1) for f in SITE_FIELDS], "b": 0, "count": len(docs)}
    oracle = node(ORACLE, LUNR_JS, SEARCH_JS, request={"shards": {
        "ref": "ref", "fields": SITE_FIELDS, "documents": docs, "b": 0, "bounds": bounds}})
    engine = node(ENGINE, LUNR_JS, SEARCH_JS, request={
        "settings": settings, "bounds": bounds, "shards": [json.loads(data) for _, data in files],
        "documents": docs, "queries": SHARD_QUERIES})
    return {"settings": settings, "files": files, "bounds": bounds, "lunr_js": oracle["shards"], "engine": engine}


@needs_node
def test_shards_computed_in_python_are_lunr_js_restricted(sharded):
    assert len(sharded["bounds"]) >= 30
    for (bound, data), js_text in zip(sharded["files"], sharded["lunr_js"]):
        assert shards_as_lunr(sharded["settings"], [json.loads(data)]) == js_text, bound


@needs_node
def test_shards_built_by_search_js_are_lunr_js_restricted(sharded):
    """search.js hands a shard's postings to lunr.js's Builder: the index it gets is lunr.js's own."""
    for bound, js_text, built in zip(sharded["bounds"], sharded["lunr_js"], sharded["engine"]["expanded"]):
        assert built == js_text, bound


@needs_node
def test_queries_on_the_shards_they_need_rank_as_on_the_whole_index(sharded):
    """Same papers, same order, same scores to the last bit, for every kind of query;
    and a query fetches only a few of the shards."""
    answers = sharded["engine"]["queries"]
    for query in SHARD_QUERIES:
        answer = answers[query]
        assert answer["sharded"] == answer["whole"], query
        assert len(answer["shards"]) <= 8, query
    for query in ("grokking delayed robustness", "delayed", "grokking~1", "*ing", "gener*", "-grokking"):
        assert answers[query]["whole"], f"{query!r} should find something"
        assert answers[query]["typos"] is None, query
    assert len(answers["-grokking"]["whole"]) == len(shard_documents()) - 1


@needs_node
def test_field_terms_tokenize_like_lunr_js(sharded, parity):
    """The tokenizer splits where lunr.js's does (the index equality above covers the rest)."""
    assert {chr(c) for c in range(0x10000) if SEPARATORS.fullmatch(chr(c))} == set(parity["js"]["separators"])
    assert field_terms("Delayed, (e.g., KEY) -- the key…") == {"delay": 1, "e.g": 1, "key": 2}
    assert field_terms("( x") == {"": 1, "x": 1}
    # where Python's str.split() and JS's \s disagree (field_terms splits the fast way elsewhere)
    assert field_terms("x\x1cz x\x85z x\ufeffz") == {"x\x1cz": 1, "x\x85z": 1, "x": 1, "z": 1}
    assert field_terms("x\u3000y\u2028z\xa0w-v") == {"x": 1, "y": 1, "z": 1, "w": 1, "v": 1}


def test_no_global_lunr_registry_is_touched():
    """lunr.py's own functions stay registered under lunr.js's labels: the
    reference passes lunr.js's pipeline functions explicitly instead."""
    from lunr.pipeline import Pipeline

    import tests.lunr_reference as reference
    registered = Pipeline.registered_functions
    assert registered["stemmer"] is not reference.stemmer and registered["trimmer"] is not reference.trimmer
    assert registered["stemmer"].__module__.startswith("lunr.")


def refs_with(word: str) -> set[str]:
    return {d["ref"] for d in shard_documents() if re.search(rf"\b{word}", f"{d['title']} {d['body']}", re.I)}


@needs_node
def test_a_misspelt_word_finds_the_papers_of_the_word_it_means(sharded):
    """...the same papers as the word spelt right (lunr stems "transformer" to
    "transform", which "transformation" has too)."""
    answers = sharded["engine"]["queries"]
    for typo, meant in (("difusion", "diffusion"), ("trasformer", "transformer"), ("transfromers", "transformers")):
        found = {ref for ref, _ in answers[typo]["whole"]}
        assert found and found == {ref for ref, _ in answers[meant]["whole"]}, typo
        assert answers[typo]["typos"] and all(len(terms) <= 6 for terms in answers[typo]["typos"]), typo
        assert answers[meant]["typos"] is None, meant
    assert {ref for ref, _ in answers["difusion"]["whole"]} == refs_with("diffusion")
    # every word, one of them misspelt: the papers with both come first
    music = answers["difusion music"]["whole"]
    assert music and {ref for ref, _ in music} == refs_with("diffusion") & refs_with("music")
    assert answers["xyzzyq"]["whole"] == []  # nothing spelt like it
    title_only = {ref for ref, _ in answers["title:difusion"]["whole"]}
    assert title_only and title_only <= refs_with("diffusion")


@needs_node
def test_exact_matches_rank_above_words_spelt_like_a_typo(sharded):
    """'grokking difusion': no paper has both; the grokking paper (an exact match)
    comes before every diffusion paper (a typo's neighbour), whatever their scores."""
    answers = sharded["engine"]["queries"]
    found = [ref for ref, _ in answers["grokking difusion"]["whole"]]
    grokking, diffusion = ({ref for ref, _ in answers[word]["whole"]} for word in ("grokking", "diffusion"))
    assert grokking and diffusion and not grokking & diffusion
    assert set(found) == grokking | diffusion
    assert set(found[:len(grokking)]) == grokking


@needs_node
def test_a_greek_letter_typed_or_spelt_out_finds_the_text_that_has_it():
    """search.js builds papersite.text.words's GREEK from the same string; every word it makes of a query
    holding Greek letters, or of their names, is a term of the same text as indexed. So for the other
    folds: "ℓ_p" as TeX writes it, Han text cut into pairs, words of other scripts."""
    from papersite.search.lunr_text import HAN
    from papersite.text.words import GREEK
    phrases = ["ε-greedy", "ΦFlow", "opt+ε", "μP transfer", "αβ pruning", "Σ-ϑ", "(ϵ, δ)-privacy", "λ=0.5",
               "+ε", "title:ε", "l1 and 𝑥 terms", "ℓ_p-norm", "x_{t} and w_0", "深度学习的研究", "GPT在中文",
               "title:深度学习", "שלום עולם", "كتابٌ جديد", "ε_t"]
    spelt = ["epsilon-greedy", "phi flow", "epsilon", "mu p transfer", "alpha beta pruning", "sigma theta",
             "epsilon delta privacy", "lambda", "+epsilon", "epsilon", "ℓ1 and x terms",  # ℓ: plain text has "l"
             "lp norm", "xt w0", "学习 研究", "gpt 中文", "度学", "עולם", "جديد", "epsilon t"]
    script = ("const lunr = require(process.argv[1]); const engine = require(process.argv[2])(lunr);"
              "const groups = JSON.parse(process.argv[3]).map(q => engine.parseQuery(q, ['title', 'body']));"
              "console.log(JSON.stringify({greek: engine.greek, han: engine.HAN,"
              "  terms: groups.map(gs => gs.map(g => engine.stem(g.term))),"
              "  syntax: groups.map(gs => gs.map(g => [g.presence, g.fields]))}))")
    proc = subprocess.run([NODE, "-e", script, str(LUNR_JS), str(SEARCH_JS), json.dumps(phrases + spelt)],
                          capture_output=True, text=True, encoding="utf-8", timeout=60, check=True)
    answer = json.loads(proc.stdout)
    assert answer["greek"] == GREEK and answer["han"] == HAN
    for query, terms in zip(phrases + spelt, answer["terms"]):
        indexed = field_terms(searchable(phrases[(phrases + spelt).index(query) % len(phrases)]))
        assert terms and set(terms) <= set(indexed), (query, terms, indexed)
    syntax = dict(zip(phrases, answer["syntax"]))
    assert syntax["+ε"] == [[2, ["title", "body"]]]  # lunr.Query.presence.REQUIRED
    assert syntax["title:ε"] == [[1, ["title"]]]  # OPTIONAL, in the title only
    assert syntax["title:深度学习"] == [[1, ["title"]]] * 3  # each pair in the title only


@needs_node
def test_words_of_other_scripts_and_math_as_typed_are_found(sharded):
    """Hebrew and Arabic words by themselves, Han text by any two or more characters of a run
    (in its field, with the query's syntax), and "ℓ_p", "ℓp" and "lp" alike."""
    answers = sharded["engine"]["queries"]
    last = str(len(shard_documents()) - 1)
    edge = str(len(shard_documents()) - 2)  # has "שלום", "كتابٌ", "深度学习。" in its body
    for query in ("שלום", "كتابٌ", "深度学习", "学习"):
        assert sorted(ref for ref, _ in answers[query]["whole"]) == sorted([edge, last]), query
    for query in ("עולם", "جديد", "度学习的", "title:研究", "王小明"):
        assert [ref for ref, _ in answers[query]["whole"]] == [last], query
    assert answers["中"]["whole"] == []  # one character finds only one that stands alone
    found = {query: [ref for ref, _ in answers[query]["whole"]] for query in ("ℓ_p", "ℓp", "lp")}
    assert last in found["lp"] and found["ℓ_p"] == found["ℓp"] == found["lp"], found
