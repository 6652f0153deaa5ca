"""Search at scale: build time, bytes a visitor downloads, query latency in Chromium.

    .venv/bin/python bench/search_scale.py [--sizes 1000,10000,50000] [--queries 20] [--edits 5]
                                           [--work DIR] [--no-browser]

For each size, in a fresh process: bench/synth.py writes a seeded synthetic
catalog to a temp folder (or DIR, kept for the next run), the papers are
loaded and their abstracts reduced to text, and then:

- the search files are built cold (caches empty), then warm after one-paper
  edits (a title and its abstract changed, as in the preview server);
- bytes, raw and gzipped: what the search page loads when it opens
  (index.json + docs.json, plus lunr.min.js and search.js), what a query
  downloads (its shards and the document-store files of its first page of
  results), and all search files together;
- in Chromium (/usr/bin/chromium via Playwright), each query in a fresh
  browser context, with its own empty cache, on the built files served on
  127.0.0.1: the files it fetched, and search.js's performance measures
  (search:load - lunr.js and the two small files; search:first and
  search:results - from the query to its first and to all results painted,
  fetching included; search:index - building the query's lunr index from its
  shards; search:query - lunr's query on it; search:typos - finding the
  words spelt like a misspelt one in the vocabulary).

Queries are realistic and seeded: 1 to 3 words of 4+ letters from the title
and abstract of a random paper, as someone who remembers a paper types them;
and the same queries with a typo (one letter dropped from a word of 6+
letters), measured apart: a misspelt word makes search.js fetch the
vocabulary (search/terms.json) to find the words it may mean.
At sizes up to 2,000 the same run also measures the previous design (one
lunr.py index over everything, loaded whole: search.js of commit 4c192a2)
and prints the ratios.
"""
from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote_plus, unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

OLD_COMMIT = "4c192a2"  # the last commit with one whole-catalog index
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Search</title></head><body>
<div id="search-app" data-index="/search/index.json" data-docs="/search/docs.json"
     data-lunr="/static/lunr.min.js" data-papers="/papers/">
<form><input id="search-input" type="search" name="q"></form>
<div id="search-facets" hidden></div><p id="search-status"></p><ol id="search-results"></ol>
<div id="search-help" hidden></div><button id="search-more" type="button" hidden>more</button>
</div><script src="/static/search.js" defer></script></body></html>"""


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 6))


def kb(n: float) -> str:
    return f"{n / 1000:,.1f} KB"


# --- one size, in a child process ---------------------------------------------------------

def prepare(size: int, folder: Path, seed: int):
    """The catalog and its abstracts (text only: search needs no HTML)."""
    from papersite.catalog import Catalog
    from papersite.source.config import load_config
    from papersite.source.content import load_papers
    from papersite.text.plain import plain_text
    from papersite.site.pages import Abstract
    from synth import write_catalog
    if not (folder / "site.yaml").exists():
        write_catalog(size, folder, seed)
    config = load_config(folder / "site.yaml")
    catalog = Catalog.build(load_papers(config), config)
    abstracts = {p.id: Abstract("", plain_text(p.abstract)) for p in catalog.papers}
    return config, catalog, abstracts


def queries_for(catalog, abstracts, count: int, seed: int) -> list[str]:
    from papersite.text.words import STOP_WORDS
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        paper = rng.choice(catalog.papers)
        words = sorted({w.lower() for w in re.findall(r"[A-Za-z]{4,}", f"{paper.title} {abstracts[paper.id].text}")}
                       - STOP_WORDS)
        if len(words) >= 3:
            out.append(" ".join(rng.sample(words, 1 + len(out) % 3)))
    return out


def with_typo(query: str, rng: random.Random) -> str:
    """The query with one letter dropped from its longest word ("diffusion" -> "difusion")."""
    words = query.split()
    at = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[at]
    if len(word) >= 6:
        cut = rng.randrange(1, len(word) - 1)
        words[at] = word[:cut] + word[cut + 1:]
    return " ".join(words)


def build_new(catalog, abstracts, config, edits: int) -> dict:
    from papersite.catalog import Catalog
    from papersite.site.pages import Abstract
    from papersite.search import SearchCache, clear_caches, search_files
    clear_caches()
    cache = SearchCache()
    start = time.perf_counter()
    files = built = search_files(catalog, abstracts, cache)
    cold = time.perf_counter() - start
    warm, changed, rebuilt = [], [], []
    papers, abstracts = list(catalog.papers), dict(abstracts)
    for n in range(edits):
        at = (n * 7919) % len(papers)
        old = papers[at]
        papers[at] = dataclasses.replace(old, title=f"Revised {old.title}")
        text = abstracts[old.id]
        abstracts[old.id] = Abstract(text.html, text.text + f" Revised in round {n}.")
        edited = Catalog.build(papers, config)
        start = time.perf_counter()
        after = search_files(edited, abstracts, cache)
        warm.append(time.perf_counter() - start)
        changed.append(sum(1 for p in after.keys() | files.keys() if after.get(p) != files.get(p)))
        rebuilt.append(cache.index.rebuilt)
        files = after
    return {"cold": cold, "warm": statistics.median(warm), "changed": statistics.median(changed),
            "rebuilt": statistics.median(rebuilt), "files": built}


def build_old(catalog, abstracts) -> dict:
    """The previous design: one lunr.py index and one document store, both loaded whole."""
    from papersite import urls
    from papersite.text.plain import plain_text
    from papersite.search import FIELDS, clear_caches
    from tests.lunr_reference import build_index, index_json
    clear_caches()

    def _title(paper):
        return plain_text(paper.title) if "$" in paper.title else paper.title
    start = time.perf_counter()
    link = urls.Urls(catalog.config.base_url)
    documents, store = [], {}
    for paper in catalog.papers:
        venue, topics = catalog.venue(paper.venue), [catalog.topic(t) for t in paper.topics]
        documents.append({"id": paper.id, "title": _title(paper), "authors": " ".join(paper.authors),
                          "topics": " ".join(t.name for t in topics), "venue": venue.name,
                          "body": abstracts[paper.id].text})
        store[paper.id] = {"title": _title(paper), "url": link.link(paper), "venue": venue.slug,
                           "year": paper.year, "topics": [t.slug for t in topics],
                           "snippet": abstracts[paper.id].snippet}
    index = index_json(build_index(documents, FIELDS, ref="id")).encode()
    docs = json.dumps({"docs": store, "venues": {v.slug: v.name for v in catalog.venues},
                       "topics": {t.slug: t.name for t in catalog.topics}},
                      ensure_ascii=False, separators=(",", ":")).encode()
    cold = time.perf_counter() - start
    start = time.perf_counter()  # an edit rebuilt everything (stems now cached)
    build_index(documents, FIELDS, ref="id")
    return {"cold": cold, "warm": time.perf_counter() - start,
            "files": {"search/index.json": index, "search/docs.json": docs}}


class Server:
    """Files from memory on 127.0.0.1."""

    TYPES = {".json": "application/json", ".js": "text/javascript", ".html": "text/html"}

    def __init__(self, files: dict[str, bytes]):
        self.files = files

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as any real host

            def do_GET(handler):
                path = unquote(urlsplit(handler.path).path).lstrip("/") or "index.html"
                if path.endswith("/"):
                    path += "index.html"
                body = files.get(path)
                handler.send_response(200 if body is not None else 404)
                handler.send_header("Content-Type", self.TYPES.get(Path(path).suffix, "application/octet-stream"))
                handler.send_header("Content-Length", str(len(body or b"")))
                handler.end_headers()
                handler.wfile.write(body or b"")

            def log_message(handler, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def in_chromium(files: dict[str, bytes], search_js: bytes, queries: list[str]) -> list[dict]:
    """Each query in a fresh context: search files fetched (path -> raw bytes) and search.js's measures."""
    from playwright.sync_api import sync_playwright
    from tests.browser.conftest import CHROMIUM_ARGS, chromium_path
    site = {**files, "static/lunr.min.js": (ROOT / "node_modules/lunr/lunr.min.js").read_bytes(),
            "static/search.js": search_js, "search/index.html": PAGE.encode()}
    server = Server(site)
    runs = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            for query in queries:
                context = browser.new_context()
                page = context.new_page()
                fetched: dict[str, int] = {}
                page.on("response", lambda r: fetched.__setitem__(urlsplit(r.url).path.lstrip("/"), len(r.body())))
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(server.url + "search/?q=" + quote_plus(query))
                page.wait_for_function("q => document.getElementById('search-app').dataset.query === q",
                                       arg=query, timeout=120_000)
                measures = page.evaluate("() => Object.fromEntries(['search:load', 'search:first', 'search:results', "
                                         "'search:index', 'search:query', 'search:typos']"
                                         ".map(n => [n, performance.getEntriesByName(n).map(e => e.duration)]))")
                found = page.eval_on_selector_all("#search-results li", "els => els.length")
                context.close()
                if errors:
                    raise SystemExit(f"{query!r}: page errors {errors}")
                runs.append({"query": query, "fetched": fetched, "measures": measures, "found": found})
            browser.close()
    finally:
        server.close()
    return runs


def measure(size: int, folder: Path, seed: int, count: int, edits: int, browser: bool) -> dict:
    from papersite.search import SHARDS
    config, catalog, abstracts = prepare(size, folder, seed)
    queries = queries_for(catalog, abstracts, count, seed)
    new = build_new(catalog, abstracts, config, edits)
    files = new.pop("files")
    scripts = {"lunr.min.js": (ROOT / "node_modules/lunr/lunr.min.js").read_bytes(),
               "search.js": (ROOT / "static/search.js").read_bytes()}
    first = ("search/index.json", "search/docs.json")
    result = {
        "size": size, "queries": queries, "new": new,
        "shards": sum(1 for p in files if p.startswith(SHARDS)),
        "doc_files": sum(1 for p in files if p.startswith("search/d/")),
        "first": {"raw": sum(len(files[p]) for p in first), "gz": sum(gz(files[p]) for p in first)},
        "scripts": {"raw": sum(map(len, scripts.values())), "gz": sum(gz(d) for d in scripts.values())},
        "total": {"raw": sum(len(d) for p, d in files.items() if p.startswith("search/")),
                  "gz": sum(gz(d) for p, d in files.items() if p.startswith("search/"))},
        "largest_shard_gz": max(gz(d) for p, d in files.items() if p.startswith(SHARDS)),
    }
    if browser:
        rng = random.Random(seed)
        result["typo_queries"] = [with_typo(q, rng) for q in queries]
        for key, texts in (("per_query", queries), ("per_typo", result["typo_queries"])):
            result[key] = [downloads(run, files, first) for run in in_chromium(files, scripts["search.js"], texts)]
    if size <= 2000:
        old = build_old(catalog, abstracts)
        old_files = old.pop("files")
        result["old"] = {**old, "raw": sum(map(len, old_files.values())), "gz": sum(map(gz, old_files.values()))}
        if browser:
            old_js = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:static/search.js"],
                                    capture_output=True, check=True).stdout
            runs = in_chromium(old_files, old_js, queries)
            result["old"]["query"] = statistics.median(r["measures"]["search:query"][-1] for r in runs)
            result["old"]["load"] = statistics.median(r["measures"]["search:load"][0] for r in runs)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def downloads(run: dict, files: dict[str, bytes], first: tuple[str, ...]) -> dict:
    """What one query fetched (besides the two files every search page loads) and its timings."""
    got = {p: n for p, n in run["fetched"].items() if p.startswith("search/") and p not in first and p.endswith(".json")}
    return {"raw": sum(len(files[p]) for p in got), "gz": sum(gz(files[p]) for p in got),
            "shards": sum(1 for p in got if p.startswith("search/t/")),
            "doc_files": sum(1 for p in got if p.startswith("search/d/")),
            "vocabulary": "search/terms.json" in got,
            "results": run["measures"]["search:results"][-1],
            "first": (run["measures"]["search:first"] or [0])[-1],
            "index": sum(run["measures"]["search:index"]),
            "query": run["measures"]["search:query"][-1],
            "typos": sum(run["measures"]["search:typos"]),
            "load": run["measures"]["search:load"][0], "found": run["found"]}


# --- the report -----------------------------------------------------------------------------

def report(results: list[dict]) -> str:
    med = statistics.median
    lines = ["| papers | build cold | one-paper edit (files changed) | opens: index+docs | per query "
             "(median) | before first result | all search files (shards) | query: first / all results / lunr |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        q = r.get("per_query")
        per = f"{kb(med(x['gz'] for x in q))} gz ({kb(med(x['raw'] for x in q))})" if q else "-"
        before = kb(r["scripts"]["gz"] + r["first"]["gz"] + med(x["gz"] for x in q)) if q else "-"
        latency = (f"{med(x['first'] for x in q):.0f} / {med(x['results'] for x in q):.0f} / "
                   f"{med(x['query'] for x in q):.1f} ms") if q else "-"
        lines.append(
            f"| {r['size']:,} | {r['new']['cold']:.2f} s | {r['new']['warm'] * 1000:.0f} ms ({r['new']['changed']:.0f}) "
            f"| {kb(r['first']['gz'])} gz ({kb(r['first']['raw'])}) | {per} | {before} gz "
            f"| {kb(r['total']['gz'])} gz, {kb(r['total']['raw'])} ({r['shards']:,}) | {latency} |")
    lines.append("")
    lines.append(f"lunr.min.js + search.js: {kb(results[0]['scripts']['gz'])} gz. 'before first result' = those + "
                 "index.json + docs.json + the median query's downloads.")
    for r in results:
        q = r.get("per_query")
        if q:
            lines.append(f"{r['size']:,}: per query median {med(x['shards'] for x in q):.0f} shards and "
                         f"{med(x['doc_files'] for x in q):.0f} document files, max "
                         f"{kb(max(x['gz'] for x in q))} gz; search:load {med(x['load'] for x in q):.0f} ms; "
                         f"building the query's index {med(x['index'] for x in q):.0f} ms; "
                         f"largest shard {kb(r['largest_shard_gz'])} gz; peak RSS {r['peak_rss_mb']:.0f} MB; "
                         f"{r['new']['rebuilt']:.0f} shards re-encoded per edit; "
                         f"{sum(x['vocabulary'] for x in q)} of {len(q)} fetched the vocabulary")
        typos = r.get("per_typo")
        if typos:
            lines.append(f"{r['size']:,}, the same queries with a typo: per query median {kb(med(x['gz'] for x in typos))} "
                         f"gz, max {kb(max(x['gz'] for x in typos))} gz; {sum(x['vocabulary'] for x in typos)} of "
                         f"{len(typos)} fetched the vocabulary; {sum(1 for x in typos if x['found'])} found papers; "
                         f"first / all results {med(x['first'] for x in typos):.0f} / "
                         f"{med(x['results'] for x in typos):.0f} ms; finding the words spelt like a typo "
                         f"{med(x['typos'] for x in typos if x['vocabulary']) if any(x['vocabulary'] for x in typos) else 0:.0f} ms")
    for r in results:
        old = r.get("old")
        if not old:
            continue
        q = r.get("per_query")
        lines.append("")
        lines.append(f"Previous design at {r['size']:,} papers (one lunr.py index + doc store, all loaded on open): "
                     f"build {old['cold']:.2f} s, edit {old['warm']:.2f} s, {kb(old['gz'])} gz ({kb(old['raw'])}).")
        ratios = [f"build {old['cold'] / r['new']['cold']:.1f}x", f"edit {old['warm'] / r['new']['warm']:.0f}x"]
        if q:
            new_first = r["first"]["gz"] + med(x["gz"] for x in q)
            ratios.append(f"download before first result (index files) {old['gz'] / new_first:.1f}x")
            if "query" in old:
                ratios.append(f"lunr query {old['query']:.1f} ms vs {med(x['query'] for x in q):.1f} ms; "
                              f"search:load {old['load']:.0f} ms vs {med(x['load'] for x in q):.0f} ms")
        lines.append("Old / new: " + "; ".join(ratios) + ".")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, help="keep synthetic catalogs here between runs")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: measure one size, print JSON
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.folder, args.seed, args.queries, args.edits, not args.no_browser)))
        return
    results = []
    temp = Path(tempfile.mkdtemp(prefix="papersite-search-"))
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            folder = (args.work or temp) / f"synth-{size}-{args.seed}"
            print(f"{size:,} papers...", file=sys.stderr, flush=True)
            command = [sys.executable, __file__, "--one", str(size), "--folder", str(folder), "--seed", str(args.seed),
                       "--queries", str(args.queries), "--edits", str(args.edits)]
            if args.no_browser:
                command.append("--no-browser")
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            if done.returncode:
                raise SystemExit(done.stderr)
            results.append(json.loads(done.stdout))
            print(f"  done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    print(report(results))


if __name__ == "__main__":
    main(sys.argv[1:])
