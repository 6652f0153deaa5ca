"""The search files the build emits: shard table, term shards, document store (no browser)."""
from __future__ import annotations

import gzip
import json
import random
import re
from bisect import bisect_right

import pytest
from lunr.index import Index

from papersite import urls
from papersite.text.plain import plain_text
from papersite.engine.runner import BuildCache, Warm
from papersite.pipeline import build_site
from papersite.search import (DOCS_PER_FILE, FIELDS, ORDER, SHARDS, TERMS, SearchCache, ShardedIndex, read_record,
                              shard_name)
from papersite.search.lunr_text import js_order
from tests.lunr_reference import load_index, shards_as_lunr


# --- reading built files as search.js does ---------------------------------------------

def settings(files) -> dict:
    return json.loads(files[urls.SEARCH_INDEX])


def shards(files) -> list[tuple[str, dict]]:
    """[(boundary, parsed shard)] in vocabulary order."""
    return [(bound, json.loads(files[f"{SHARDS}{name}.json"])) for bound, name in settings(files)["shards"]]


def read_store(files) -> dict[str, dict]:
    """Paper slug -> everything search.js knows about it: the document-store
    record as it unpacks it, plus its number, venue and topic slugs (from docs.json)."""
    facets = json.loads(files[urls.SEARCH_DOCS])
    venues = [slug for slug, _, count in facets["venues"] for _ in range(count)]
    topics = [[facets["topics"][int(n, 36)][0] for n in code.split(".")] if code else []
              for code in (facets["paperTopics"].split(",") if facets["count"] else [])]
    store = {}
    for n in range(0, facets["count"], facets["perFile"]):
        for ref, record in json.loads(files[f"search/d/{n // facets['perFile']}.json"]).items():
            store[record[1]] = {**read_record(record, facets), "ref": ref, "venue": venues[int(ref)],
                                "topics": topics[int(ref)]}
    return store


def whole_index(files) -> Index:
    """Every shard as one lunr index, loaded by lunr.py with lunr.js's stemmer:
    searches it like the browser does."""
    lunr = settings(files)["lunr"]
    return load_index(json.loads(shards_as_lunr(lunr, [shard for _, shard in shards(files)])))


def search(files, query: str) -> list[str]:
    """Paper slugs, best first."""
    by_ref = {record["ref"]: slug for slug, record in read_store(files).items()}
    return [by_ref[r["ref"]] for r in whole_index(files).search(query)]


def search_references(body: bytes) -> list[str]:
    """The files a search JSON file leads search.js to, relative to it (for
    crawlers): index.json -> shards and the vocabulary; docs.json -> the
    document-store files and the title order."""
    data = json.loads(body)
    if isinstance(data, dict) and "shards" in data:
        return [f"t/{name}.json" for _, name in data["shards"]] + ["terms.json"]
    if isinstance(data, dict) and "perFile" in data:
        return [f"d/{n}.json" for n in range(-(-data["count"] // data["perFile"]))] + ["order.json"]
    return []


@pytest.fixture(scope="module")
def built(bundled):
    _, _, build = bundled
    return build


def grokking(catalog):
    (paper,) = [p for p in catalog.papers if "grokking" in p.title.lower()]
    return paper


# --- layout ----------------------------------------------------------------------

def test_settings_describe_the_lunr_index(built):
    lunr = settings(built.files)["lunr"]
    assert lunr == {"version": "2.3.9", "fields": [f["field_name"] for f in FIELDS],
                    "boosts": [f.get("boost", 1) for f in FIELDS], "b": 0, "count": len(built.catalog.papers)}


def test_papers_are_numbered_and_the_store_maps_numbers_to_ids(built):
    """ref = paper, through the document store: lunr refs are paper numbers."""
    catalog = built.catalog
    store = read_store(built.files)
    assert set(store) == {p.slug for p in catalog.papers}
    assert sorted(int(r["ref"]) for r in store.values()) == list(range(len(catalog.papers)))
    # numbered by venue in catalog order, then id: a venue is a run of numbers
    venue_rank = {v.slug: i for i, v in enumerate(catalog.venues)}
    by_number = sorted(store, key=lambda slug: int(store[slug]["ref"]))
    assert by_number == [p.slug for p in sorted(catalog.papers, key=lambda p: (venue_rank[p.venue], p.id))]
    assert all(len(json.loads(built.files[f"search/d/{n}.json"])) <= DOCS_PER_FILE
               for n in range(-(-len(store) // DOCS_PER_FILE)))


def test_doc_store_describes_every_paper(built):
    catalog = built.catalog
    link = urls.Urls(catalog.config.base_url)
    facets = json.loads(built.files[urls.SEARCH_DOCS])
    assert facets["venues"] == [[v.slug, v.name, len(catalog.venue_papers[v.slug])] for v in catalog.venues]
    assert facets["topics"] == [[t.slug, t.name] for t in catalog.topics]
    store = read_store(built.files)
    for paper in catalog.papers:
        doc = store[paper.slug]
        assert set(doc) == {"title", "url", "year", "snippet", "authors", "ref", "venue", "topics"}
        assert doc["authors"] == [[name, link.link(path)] for name, path in catalog.author_paths[paper.id]]
        assert doc["title"] == (plain_text(paper.title) if "$" in paper.title else paper.title)
        assert doc["year"] == paper.year
        assert doc["url"] == link.link(paper)
        assert doc["venue"] == paper.venue and doc["topics"] == list(paper.topics)
        assert 0 < len(doc["snippet"]) <= 240


def test_title_order_lists_every_paper(built):
    store = read_store(built.files)
    by_ref = {int(r["ref"]): r["title"] for r in store.values()}
    order = json.loads(built.files[ORDER])
    assert sorted(order) == list(range(len(store)))
    titles = [by_ref[n].casefold() for n in order]
    assert titles == sorted(titles)


def test_shards_partition_the_vocabulary(built):
    """Each shard holds the terms from its boundary up to the next one; together
    they hold the whole vocabulary (terms.json) once; file names are distinct."""
    table = settings(built.files)["shards"]
    bounds = [bound for bound, _ in table]
    assert bounds[0] == "" and bounds == sorted(bounds, key=js_order)
    assert len({name for _, name in table}) == len(table)
    found = []
    for i, (bound, shard) in enumerate(shards(built.files)):
        assert shard["terms"] == sorted(shard["terms"], key=js_order)
        assert len(shard["postings"]) == len(shard["terms"])
        for term in shard["terms"]:
            assert bisect_right(bounds, term) - 1 == i, (term, bound)
        found += shard["terms"]
    assert found == json.loads(built.files[TERMS])


def test_shard_names_are_safe_file_names():
    assert shard_name("") == "_"
    assert shard_name("gra") == "gra"
    assert shard_name("c(") == "c_0028"
    assert shard_name("na\u00efv") == "na_00efv"
    assert shard_name("\U0001d465") == "_d835_dc65"  # one name per UTF-16 code unit, as JS sees it
    assert re.fullmatch(r"[a-z0-9_]+", shard_name("a/b\\..:*?"))


# --- content -----------------------------------------------------------------------

def test_python_search_of_the_built_index(built):
    """lunr.py over the decoded shards (searching with lunr.js's stemmer) answers like the browser."""
    paper = grokking(built.catalog)
    assert search(built.files, "delayed")[:1] == [paper.slug]
    assert search(built.files, "grokking")[0] == paper.slug


def test_math_is_indexed_as_text_not_tex(site):
    site.paper("p1", body=r"We bound $\|\nabla f(x)\|_2 \le \frac{L}{\sqrt{n}}$ for every $\alpha \in \mathbb{R}$.")
    build, _ = site.build()
    terms = json.loads(build.files[TERMS])
    assert not [t for t in terms if any(c in t for c in "\\${}")], terms
    snippet = read_store(build.files)["p1"]["snippet"]
    assert "\\" not in snippet and "$" not in snippet


def test_greek_letters_are_indexed_by_name_too(site):
    """"$\\epsilon$-greedy" reads "ε-greedy", indexed as "epsilon-greedy": a visitor types "epsilon"."""
    site.paper("p1", title="'$\\beta$-VAE Revisited'", body=r"An $\epsilon$-greedy policy with $\Phi(x)$ features.")
    site.paper("p2", id="p2", title="Plain", body="Nothing Greek here: alpha-beta pruning is spelt out.")
    build, _ = site.build()
    for word, found in (("epsilon", ["p1"]), ("beta", ["p1", "p2"]), ("phi", ["p1"]), ("greedy", ["p1"])):
        assert sorted(search(build.files, word)) == found, word
    assert read_store(build.files)["p1"]["title"] == "β-VAE Revisited"  # shown as written


def test_words_of_every_script_are_indexed(site):
    """Hebrew and Arabic words are indexed whole (lunr.js's trimmer would leave nothing of them),
    accents kept; Han text as its pairs of characters, so two characters of a run find it."""
    site.paper("p1", title="'שלום עולם: كتابٌ جديد'", body="Café naïve, Привет.")
    site.paper("p2", id="p2", title="'深度学习的研究'", body="关于GPT在中文的测试。")
    site.paper("p3", id="p3", title="'深層学習による画像認識'", body="A Japanese title.")
    build, _ = site.build()
    for word, found in (("שלום", ["p1"]), ("كتابٌ", ["p1"]), ("جديد", ["p1"]), ("café", ["p1"]), ("привет", ["p1"]),
                        ("学习", ["p2"]), ("研究", ["p2"]), ("中文", ["p2"]), ("gpt", ["p2"]), ("学習", ["p3"]),
                        ("画像", ["p3"]), ("による", ["p3"])):
        assert search(build.files, word) == found, word
    terms = set(json.loads(build.files[TERMS]))
    assert {"שלום", "עולם", "深度", "度学", "学习"} <= terms and "深度学习的研究" not in terms


def test_a_subscript_typed_as_in_tex_is_indexed_as_math_reads(site):
    """$\\ell_p$ reads "lp"; "ℓ_p" typed in a title (no math) is indexed the same, "snake_case" as it is."""
    site.paper("p1", title="'Regression with the $\\ell_p$ loss'")
    site.paper("p2", id="p2", title="'ℓ_p-Norm Bounds and ℓ_{p} Balls'", body="See snake_case and x_0.")
    build, _ = site.build()
    assert sorted(search(build.files, "lp")) == ["p1", "p2"]
    terms = set(json.loads(build.files[TERMS]))
    assert {"lp", "snake_cas", "x0"} <= terms and not {"l_p", "l_{p", "ℓ_p"} & terms


def test_math_in_titles_is_stored_as_text(site):
    site.paper("p1", title="'Embedding Graphs into $\\ell_p$ Space'")
    build, _ = site.build()
    title = read_store(build.files)["p1"]["title"]
    assert "$" not in title and "\\" not in title and title.endswith("Space")


def test_venue_full_names_do_not_match_every_paper(site):
    """Only the venue's short name is indexed: "Conference"/"Learning" in every full name would
    otherwise make those words match every paper."""
    site.paper("p1", body="An abstract about generalization.")
    build, _ = site.build()
    assert search(build.files, "icml") == ["p1"]
    assert search(build.files, "conference") == [] and search(build.files, "international") == []


def test_an_empty_catalog_has_valid_search_files():
    index = ShardedIndex(FIELDS)
    assert index.build([], []) == [("", b'{"terms":[],"postings":[]}')]


def test_the_index_is_fed_one_paper_at_a_time():
    """build() takes an iterator, so that no caller holds every paper's texts at once."""
    texts = [("Grokking", "Ada Lovelace", "", "ICML", "small networks generalize late"),
             ("Sparse Attention", "Alan Turing", "", "ICML", "attention that is sparse")]
    assert ShardedIndex(FIELDS).build(["0", "1"], iter(texts)) == ShardedIndex(FIELDS).build(["0", "1"], texts)
    with pytest.raises(ValueError, match="one key per document"):
        ShardedIndex(FIELDS).build(["0"], iter(texts))


def test_the_index_made_in_a_fresh_process_is_the_one_made_here_from_papers_sent_a_few_at_a_time(
        built, monkeypatch):
    """The clean build's search index is made from its papers' fields sent to a fresh process
    (SearchCache.job): the same files as made in the build's own process. The papers' rows are
    streamed, a few at a time, so that the process never holds every text at once."""
    from papersite import parallel
    from papersite.search import files as search_module
    from papersite.text.abstracts import render_abstracts
    catalog = built.catalog
    abstracts = render_abstracts(catalog, {})
    monkeypatch.setattr(search_module, "ROWS_SENT_AT_ONCE", 2)
    fields = search_module._Fields.of(catalog, abstracts)
    assert isinstance(fields.rows, parallel.ItemStream)
    sent = list(fields.rows)
    assert [len(rows) for rows in sent] == [2] * (len(catalog.papers) // 2) + [1] * (len(catalog.papers) % 2)
    assert [row[0] for rows in sent for row in rows] == list(fields.keys)  # in number order
    here = search_module.search_files(catalog, abstracts)
    assert here == {path: built.files[path] for path in here}
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    job, size = SearchCache().job(catalog, abstracts)
    assert isinstance(job, parallel.Detachable)
    with parallel.in_background(job, size) as result:
        files, cache = result()
    assert files == here and cache.keys == fields.keys and cache.papers == []


# --- size and incremental builds -----------------------------------------------------------

def test_what_a_visitor_loads_first_stays_small(built):
    """A budget, not a measurement: the two files loaded when the search page
    opens stay ~100 bytes a paper gzipped (bench/search_scale.py measures 10k
    and 50k papers), and no shard is large."""
    papers = len(built.catalog.papers)
    first = sum(len(gzip.compress(built.files[path])) for path in (urls.SEARCH_INDEX, urls.SEARCH_DOCS))
    assert first / papers < 100
    assert all(len(data) < 120_000 for path, data in built.files.items() if path.startswith(SHARDS))


WORDS = ("attention bandit calibration diffusion embedding federated gradient hessian kernel lasso manifold "
         "normalizing optimal policy quantile regret sparse transformer uncertainty variational").split()


def paper_body(n: int, extra: str = "") -> str:
    return f"Study {n} of {WORDS[n % 20]}, {WORDS[(3 * n + 1) % 20]} and {WORDS[(7 * n + 2) % 20]}.{extra}"


def edit_one_paper(site, extra: str):
    """Build 12 papers, edit paper 5's abstract, build again on the same cache."""
    for n in range(12):
        site.paper(f"p{n}", id=f"p{n}", title=f"Paper {n}", body=paper_body(n))
    cache = BuildCache(search=SearchCache(ShardedIndex(FIELDS, shard_bytes=100)))
    first = build_site(site.config, Warm(cache))
    site.paper("p5", id="p5", title="Paper 5", body=paper_body(5, extra))
    second = build_site(site.config, Warm(cache))
    changed = sorted(p for p in first.files.keys() | second.files.keys()
                     if p.startswith("search/") and first.files.get(p) != second.files.get(p))
    return first, second, changed, cache


def test_editing_one_paper_changes_only_a_few_search_files(site):
    first, second, changed, cache = edit_one_paper(site, " Grokking.")
    total = sum(1 for p in second.files if p.startswith(SHARDS))
    assert total >= 10, "the test needs a catalog cut into many shards"
    # the new word's shard, the document-store file with the new snippet, the vocabulary
    assert changed == sorted([f"{SHARDS}{shard_name(_bound_of(second.files, 'grok'))}.json",
                              f"search/d/{5 // DOCS_PER_FILE}.json", TERMS])
    assert cache.search.index.rebuilt == 1
    # and the rebuilt files equal a clean build's
    clean = build_site(site.config)
    assert {p: d for p, d in second.files.items() if p.startswith("search/")} == \
        {p: d for p, d in build_site(site.config, Warm(BuildCache(search=SearchCache(
            ShardedIndex(FIELDS, shard_bytes=100))))).files.items() if p.startswith("search/")}
    assert search(clean.files, "grokking") == ["p5"]


def test_edits_on_a_warm_cache_give_a_clean_build(site):
    """Retitles (the title order moves), topic changes, a new paper and a removed one."""
    for n in range(12):
        site.paper(f"p{n}", id=f"p{n}", title=f"Paper {n}", body=paper_body(n))
    cache = BuildCache(search=SearchCache(ShardedIndex(FIELDS, shard_bytes=100)))
    edits = [
        lambda: site.paper("p3", id="p3", title="Aardvark first", body=paper_body(3)),
        lambda: site.paper("p7", id="p7", title="Zebra last", topics="[generative-models]", body=paper_body(7)),
        lambda: site.paper("p3", id="p3", title="Paper 3 again", body=paper_body(3, " Back.")),
        lambda: site.paper("p12", id="p12", title="Paper 12", body=paper_body(12)),
        lambda: (site.root / "content/icml-2024/p0.md").unlink(),
    ]
    for step, edit in enumerate(edits):
        edit()
        warm = build_site(site.config, Warm(cache))
        clean = build_site(site.config, Warm(BuildCache(search=SearchCache(ShardedIndex(FIELDS, shard_bytes=100)))))
        differing = sorted(p for p in warm.files.keys() | clean.files.keys()
                           if p.startswith("search/") and warm.files.get(p) != clean.files.get(p))
        assert differing == [], f"edit {step}"
        assert search(warm.files, "aardvark") == (["p3"] if step < 2 else [])


def test_a_rebuild_with_no_change_rebuilds_no_shard(site):
    site.paper("p1", id="p1", body="Generalization.")
    cache = BuildCache()
    first = build_site(site.config, Warm(cache))
    second = build_site(site.config, Warm(cache))
    assert cache.search.index.rebuilt == 0
    assert {p: d for p, d in first.files.items() if p.startswith("search/")} == \
        {p: d for p, d in second.files.items() if p.startswith("search/")}


def _bound_of(files, term: str) -> str:
    bounds = [bound for bound, _ in settings(files)["shards"]]
    return bounds[bisect_right(bounds, term) - 1]


def test_a_random_walk_of_edits_gives_the_shards_of_a_clean_build():
    """Warm rebuilds (edits, new and deleted documents, words coming and going,
    shards splitting and merging, frequencies past what one code holds) equal a clean
    build, shards and vocabulary: an update reads the postings back from the shards."""
    rng = random.Random(7)
    vocabulary = [f"{a}{b}{c}" for a in "abxz" for b in ("r", "ne", "t\u00e9") for c in "aeiou"] + ["", "(", "1", "12"]

    def text():  # words come and go: most are in one or two documents
        if rng.random() < 0.1:  # one word, from 15 to 17 times: a frequency of 16 takes two numbers
            return " ".join([rng.choice(vocabulary[:-4])] * rng.randint(15, 17))
        return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 5)))

    docs = {f"d{n}": (text(), text()) for n in range(20)}
    fields = [{"field_name": "title", "boost": 10}, {"field_name": "body"}]
    warm = ShardedIndex(fields, shard_bytes=60)
    warm.build(sorted(docs), [docs[k] for k in sorted(docs)])
    for step in range(60):
        action = rng.choice(["edit", "edit", "edit", "add", "delete"])
        last = dict(docs)
        if action == "edit" or (action == "delete" and len(docs) < 5):
            docs[rng.choice(sorted(docs))] = (text(), text())
        elif action == "add":
            docs[f"n{step}"] = (text(), text())
        else:
            del docs[rng.choice(sorted(docs))]
        keys = sorted(docs)
        if keys == sorted(last):  # documents kept their numbers: the changed ones are updated
            got = warm.update({n: (last[k], docs[k]) for n, k in enumerate(keys) if last[k] != docs[k]})
        else:
            got = warm.build(keys, [docs[k] for k in keys])
        clean = ShardedIndex(fields, shard_bytes=60)
        assert got == clean.build(keys, [docs[k] for k in keys]), f"step {step}: {action}"
        assert warm.terms_json() == clean.terms_json(), f"step {step}: {action}"
        assert len(got) > 5
