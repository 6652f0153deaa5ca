"""Build time and memory at scale, against Hugo building the same catalog.

    .venv/bin/pip install -r bench/requirements.txt      # Hugo and Pagefind, for this benchmark only
    .venv/bin/python bench/scale.py [--sizes 1000,10000,50000] [--runs 3] [--edits 5] [--check]
                                    [--real] [--tmp /dev/shm] [--peer pagefind,full]

For each size, bench/synth.py writes a seeded synthetic catalog (`--real`:
the real ICML 2024 papers, replicated with a fresh long tail, see
synth.RealReplica) to a temp folder, on a RAM disk by default (`--tmp`:
/dev/shm when there is one) so that neither builder waits for a disk, then,
in fresh processes (what `python build.py build` does):

- a clean build (`build_and_write` into an empty folder), split by phase,
  and the same build without the search index ("all pages"), each with the
  peak memory of its process tree (PSS, sampled: see TreeMemory);
- in one process: a clean build, a rebuild with nothing changed (written
  through write_site, as `build --watch` does) and one-paper edits (a title
  changed on disk, then `Rebuilder.rebuild()`, the preview server's path);
- Hugo on the same papers, each peer named by --peer (one or more, comma-separated):
  "minimal", a page per paper and paginated venue and topic lists (200 a page,
  as ours) with minimal layouts; "full", what our site has as far as Hugo can;
  "pagefind", the minimal site, then Pagefind (PyPI `pagefind-bin`) indexing
  Hugo's output for search (`pagefind --site`): the stack a user would pick
  instead of ours, timed as one figure (Hugo + Pagefind) and as Hugo alone.

All builds alternate, so all see the same machine load; a build
cache folder (`.cache/` of the catalog) is removed before each clean build.
The site size is the sum of the file sizes of our full build. Clean-build
figures are medians of --runs runs (one run above 10,000 papers). Wall
times include starting Python. --check also runs the link check of
tests/test_site.py on the build and checks that clean builds are
byte-identical. --skip-search leaves the search index out everywhere (its
own benchmark is bench/search_scale.py). Nothing is written to the
repository.
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

PHASES = ("load", "markdown", "related", "render", "search", "static", "write")
# The search index of a one-shot build is made alongside rendering: "search"
# is the wait for it, "search_work" its own time.
SEARCH_WORK = "search_work"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# --- in a child process -----------------------------------------------------------

def skip_search_if_asked() -> None:
    if os.environ.get("SCALE_SKIP_SEARCH"):
        import papersite.search.files
        papersite.search.files.search_files = lambda *args, **kwargs: {}


def child_build(site: Path, out: Path) -> dict:
    """One clean build into `out`; timings by phase and peak memory."""
    skip_search_if_asked()
    from papersite.source.config import load_config
    from papersite.engine.command import build_and_write
    start = time.perf_counter()
    build, report = build_and_write(load_config(site / "site.yaml"), out)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "phases": build.timings, "files": report.total, "pages": build.pages,
            "tree": tree_digest(out) if os.environ.get("SCALE_DIGEST") else None, **peak_memory()}


def child_rebuilds(site: Path, out: Path, edits: int) -> dict:
    """A build, a rebuild with nothing changed, then `edits` one-paper edits, all warm."""
    skip_search_if_asked()
    from papersite.preview.rebuild import Rebuilder
    from rebuild import retitle
    rebuilder = Rebuilder(site / "site.yaml", output=out)
    first = rebuilder.rebuild()
    assert first.error is None, first.error
    start = time.perf_counter()
    again = rebuilder.rebuild()
    no_change = {"seconds": time.perf_counter() - start, "written": again.changed, "phases": again.build.timings}
    preview = rebuilder  # from here on, as the preview server's: warm, and writing nothing
    preview.output = None
    papers = again.build.catalog.papers
    results = []
    for index in range(edits):
        paper = papers[(index * 7919) % len(papers)]  # spread over the catalog
        retitle(paper.source, f"Edit {index}")
        start = time.perf_counter()
        outcome = preview.rebuild()
        seconds = time.perf_counter() - start
        assert outcome.error is None, outcome.error
        results.append({"seconds": seconds, "search": outcome.build.timings.get("search", 0.0),
                        "changed": outcome.changed, "phases": outcome.build.timings})
    return {"no_change": no_change, "edits": results}


def peak_memory() -> dict:
    return {"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "worker_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def tree_digest(folder: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# --- Hugo --------------------------------------------------------------------------

HUGO_CONFIG = """baseURL = "http://127.0.0.1:8000/"
title = "Synthetic Catalog"
disableKinds = ["RSS"]
[taxonomies]
venue = "venues"
topic = "topics"
[pagination]
pagerSize = 200
"""
HUGO_LAYOUTS = {
    "baseof.html": '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · '
                   '{{ site.Title }}</title></head><body><nav><a href="{{ "papers/" | relURL }}">Papers</a> '
                   '<a href="{{ "venues/" | relURL }}">Venues</a> <a href="{{ "topics/" | relURL }}">Topics</a>'
                   '</nav><main>{{ block "main" . }}{{ end }}</main><footer>{{ len site.RegularPages }} papers'
                   '</footer></body></html>',
    "page.html": '{{ define "main" }}<article><h1>{{ .Title }}</h1><p>{{ delimit .Params.authors ", " }}</p>'
                 '<ul>{{ range .GetTerms "venues" }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a></li>'
                 '{{ end }}{{ range .GetTerms "topics" }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>'
                 '</li>{{ end }}</ul>{{ .Content }}{{ with .PrevInSection }}<a href="{{ .RelPermalink }}">'
                 '{{ .Title }}</a>{{ end }}{{ with .NextInSection }}<a href="{{ .RelPermalink }}">{{ .Title }}'
                 '</a>{{ end }}</article>{{ end }}',
    "list.html": '{{ define "main" }}<h1>{{ .Title }}</h1>{{ $p := .Paginate .Pages }}<ol>{{ range $p.Pages }}'
                 '<li><h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2><p>{{ .Summary | plainify | '
                 'truncate 240 }}</p></li>{{ end }}</ol>{{ with $p.Prev }}<a href="{{ .URL }}">Previous</a>'
                 '{{ end }}{{ with $p.Next }}<a href="{{ .URL }}">Next</a>{{ end }}{{ end }}',
    "taxonomy.html": '{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Data.Terms.Alphabetical }}<li>'
                     '<a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>'
                     '{{ end }}',
    "home.html": '{{ define "main" }}<h1>{{ site.Title }}</h1><ul>{{ range first 10 site.RegularPages }}<li>'
                 '<a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}',
}


# `--peer full`: Hugo building what our site has, as far as Hugo can: a page per author and
# per year (taxonomies) besides venues and topics, an Atom-like RSS feed per venue, topic, author
# and year and for the whole site, five related papers on each paper page (Hugo's own related
# content, by shared authors and topics: it has no text similarity), and author links.
HUGO_FULL_CONFIG = """baseURL = "http://127.0.0.1:8000/"
title = "Synthetic Catalog"
[taxonomies]
venue = "venues"
topic = "topics"
author = "authors"
year = "years"
[outputs]
home = ["html", "rss"]
section = ["html"]
taxonomy = ["html"]
term = ["html", "rss"]
page = ["html"]
[pagination]
pagerSize = 200
[related]
includeNewer = true
threshold = 1
toLower = true
[[related.indices]]
name = "authors"
weight = 100
[[related.indices]]
name = "topics"
weight = 50
"""
HUGO_FULL_LAYOUTS = {
    **HUGO_LAYOUTS,
    "page.html": '{{ define "main" }}<article><h1>{{ .Title }}</h1><p>{{ range $i, $a := .GetTerms "authors" }}'
                 '{{ if $i }}, {{ end }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</p>'
                 '<ul>{{ range .GetTerms "venues" }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a></li>'
                 '{{ end }}{{ range .GetTerms "topics" }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>'
                 '</li>{{ end }}</ul>{{ .Content }}<h2>Related papers</h2><ul>'
                 '{{ range first 5 (site.RegularPages.Related .) }}<li><a href="{{ .RelPermalink }}">{{ .Title }}'
                 '</a></li>{{ end }}</ul>{{ with .PrevInSection }}<a href="{{ .RelPermalink }}">'
                 '{{ .Title }}</a>{{ end }}{{ with .NextInSection }}<a href="{{ .RelPermalink }}">{{ .Title }}'
                 '</a>{{ end }}</article>{{ end }}',
}
PEERS = {"minimal": (HUGO_CONFIG, HUGO_LAYOUTS), "full": (HUGO_FULL_CONFIG, HUGO_FULL_LAYOUTS)}


def hugo_binary() -> Path:
    try:
        import hugo  # the PyPI package ships the binary inside the wheel
    except ImportError:
        raise SystemExit("Hugo is missing: .venv/bin/pip install -r bench/requirements.txt") from None
    return Path(hugo.__path__[0]) / "binaries" / "hugo"


def hugo_site(site: Path, folder: Path, peer: str = "minimal") -> Path:
    """The same papers as a Hugo site: content/papers/<slug>.md, venues and topics as taxonomies
    (`peer`: "minimal", or "full", which builds what our site has as far as Hugo can)."""
    from papersite.source.content import find_content_files, split_front_matter
    (folder / "content" / "papers").mkdir(parents=True)
    (folder / "layouts").mkdir()
    for path in find_content_files(site / "content"):
        front, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
        data = yaml.load(front, Loader=LOADER)
        matter = {"title": data["title"], "authors": data.get("authors", []), "venues": [data["venue"]],
                  "topics": data.get("topics", []), "year": data["year"], "years": [str(data["year"])]}
        (folder / "content" / "papers" / path.name).write_text(
            "---\n" + yaml.safe_dump(matter, sort_keys=False, allow_unicode=True, width=1000) + "---\n" + body,
            encoding="utf-8")
    config, layouts = PEERS[peer]
    (folder / "hugo.toml").write_text(config, encoding="utf-8")
    for name, text in layouts.items():
        (folder / "layouts" / name).write_text(text, encoding="utf-8")
    return folder


def run_hugo(source: Path, out: Path) -> dict:
    seconds, rss_mb = run_timed([str(hugo_binary()), "--quiet", "--source", str(source), "--destination", str(out)])
    return {"seconds": seconds, "rss_mb": rss_mb, "files": sum(1 for p in out.rglob("*") if p.is_file())}


def run_pagefind(site: Path) -> dict:
    """Pagefind's search index over a built site (written into it, as its users run it)."""
    try:
        import pagefind_bin  # the PyPI package ships the binary inside the wheel
    except ImportError:
        raise SystemExit("Pagefind is missing: .venv/bin/pip install -r bench/requirements.txt") from None
    seconds, rss_mb = run_timed([str(pagefind_bin.get_executable()), "--site", str(site), "--silent"])
    return {"seconds": seconds, "rss_mb": rss_mb}


def run_timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a command in a fresh process; exits if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{Path(command[0]).name} failed with status {status}")
    return seconds, usage.ru_maxrss / 1024


# --- the parent ------------------------------------------------------------------------

def in_child(mode: str, *args: str, skip_search: bool = False) -> dict:
    """Run this script's `mode` in a fresh Python process; its JSON result, wall time
    and the peak memory of its process tree (see TreeMemory)."""
    env = {**os.environ, "SCALE_SKIP_SEARCH": "1"} if skip_search else os.environ
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen([sys.executable, __file__, "--child", mode, *args], stdout=out, stderr=err,
                                   text=True, env=env)
        memory = TreeMemory(process.pid)
        while process.poll() is None:
            memory.sample()
            time.sleep(0.05)
        wall = time.perf_counter() - start
        out.seek(0), err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{mode} {' '.join(args)} failed:\n{err.read()}")
        return {**json.loads(out.read().splitlines()[-1]), "wall": wall, "tree_mb": memory.peak_mb}


class TreeMemory:
    """Peak memory of a process and its descendants (the forked workers), sampled.

    RSS counts a page shared by a parent and its forked workers once per
    process, so a worker seems to hold the parent's whole heap. The kernel's
    PSS (proportional set size) splits each shared page among its sharers:
    summed over the tree it is the memory the build really holds.
    """

    def __init__(self, pid: int):
        self.pid, self.peak_mb = pid, 0.0

    def sample(self) -> None:
        """One sample, kept only if no process started or ended while it was read: a worker
        forked (or gone) between two reads changes how many share the pages read before it,
        and the sum then counts a share twice (up to a third of the build again, once render
        workers fork every second or two at 50,000 papers)."""
        tree = self._tree()
        total = sum(self._pss_kb(pid) for pid in tree)
        if self._tree() == tree:
            self.peak_mb = max(self.peak_mb, total / 1024)

    def _tree(self) -> list[int]:
        found, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")  # a child belongs to the thread that forked it
            except OSError:
                continue  # it ended meanwhile
            for task in tasks:
                try:
                    todo += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
                except OSError:
                    pass
        return found

    @staticmethod
    def _pss_kb(pid: int) -> int:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0


# --peer: each peer is a Hugo site (PEERS), "pagefind" the minimal one with Pagefind run over its output.
PEER_CHOICES = (*PEERS, "pagefind")


def run_peer(peer: str, source: Path, out: Path) -> dict:
    """One clean build of a peer: Hugo's own figures, and for "pagefind" Pagefind's after it
    ("seconds" is then Hugo + Pagefind, "hugo_seconds" Hugo alone)."""
    hugo = run_hugo(source, out)
    if peer != "pagefind":
        return hugo
    pagefind = run_pagefind(out)
    return {**hugo, "seconds": hugo["seconds"] + pagefind["seconds"], "hugo_seconds": hugo["seconds"],
            "pagefind_seconds": pagefind["seconds"], "pagefind_rss_mb": pagefind["rss_mb"]}


def measure(size: int, runs: int, edits: int, check: bool, seed: int, skip_search: bool, real: bool,
            scratch: str | None, peers: tuple[str, ...] = ("minimal",)) -> dict:
    from synth import write_catalog
    with tempfile.TemporaryDirectory(prefix=f"papersite-scale-{size}-", dir=scratch) as temp:
        temp = Path(temp)
        write_catalog(size, temp / "site", seed, real)
        sources = {}  # the pagefind peer builds the minimal Hugo site
        for peer in peers:
            theme = "minimal" if peer == "pagefind" else peer
            if theme not in sources:
                sources[theme] = hugo_site(temp / "site", temp / f"hugo-{theme}", theme)
        ours, pages = [], []
        peer_runs: dict[str, list[dict]] = {peer: [] for peer in peers}
        def build_ours(run: int) -> None:
            os.sync()
            forget_cache(temp / "site")
            ours.append(in_child("build", str(temp / "site"), str(temp / f"out-{run}")))
            log(f"    ours {ours[-1]['wall']:.1f} s, {ours[-1]['tree_mb']:,.0f} MB")

        def build_pages(run: int) -> None:
            os.sync()
            forget_cache(temp / "site")
            pages.append(in_child("build", str(temp / "site"), str(temp / f"pages-{run}"), skip_search=True))
            log(f"    ours without search {pages[-1]['wall']:.1f} s, {pages[-1]['tree_mb']:,.0f} MB")

        def build_peer(peer: str, run: int) -> None:
            os.sync()
            made = run_peer(peer, sources["minimal" if peer == "pagefind" else peer], temp / f"{peer}-out-{run}")
            peer_runs[peer].append(made)
            log(f"    {peer_label(peer)} {made['seconds']:.1f} s")

        for run in range(runs):  # alternate, so all see the same machine load
            # Each build starts with no dirty pages of the one before waiting to be written.
            log(f"  {size}: clean build {run + 1}/{runs}")
            steps = [*([build_ours] if not skip_search else []), build_pages,
                     *(functools.partial(build_peer, peer) for peer in peers)]
            # every other run in the reverse order: a machine slowing down within a run (it does, on a
            # shared host) then weighs on each side in turn
            for step in steps if run % 2 == 0 else steps[::-1]:
                step(run)
        result = {"size": size, "runs": runs, "ours": ours or pages, "pages": pages, "peers": peer_runs,
                  "site_mb": folder_mb(temp / ("pages-0" if skip_search else "out-0")),
                  "peer_site_mb": {peer: folder_mb(temp / f"{peer}-out-0") for peer in peers}}
        if check:
            result["identical"] = len({r["tree"] for r in result["ours"]}) == 1 if runs > 1 else None
            result["links"] = link_check(temp / ("pages-0" if skip_search else "out-0"))
            log(f"    link check: {result['links']}")
        for run in range(runs):  # only now: deleting (with discard) slows the writes that follow
            for name in {f"out-{run}", f"pages-{run}", *(f"{peer}-out-{run}" for peer in peers)} - {"out-0", "pages-0"}:
                shutil.rmtree(temp / name, ignore_errors=True)
        if edits:
            log(f"  {size}: rebuilds")
            result["rebuilds"] = in_child("rebuilds", str(temp / "site"), str(temp / "out-warm"), str(edits))
        return result


def forget_cache(site: Path) -> None:
    """A clean build: no build cache left by the one before (`build --clean` ignores it too)."""
    shutil.rmtree(site / ".cache", ignore_errors=True)


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def link_check(site: Path) -> str:
    """Every internal link and asset of every HTML page resolves to a file (as tests/test_site.py)."""
    from tests.htmlcheck import page_url, parse, resolve
    pages, broken = 0, []
    for html in sorted(site.rglob("*.html")):
        parsed, url = parse(html), page_url(site, "/", html)
        pages += 1
        for href in parsed.links + parsed.assets:
            target = resolve(site, "/", url, href)
            if target is not None and not target.is_file():
                broken.append(f"{html.relative_to(site)} -> {href}")
    return f"{pages:,} pages, " + (f"{len(broken)} broken links, e.g. {broken[:3]}" if broken else "no broken link")


def median(values) -> float:
    return statistics.median(values)


def peer_label(peer: str) -> str:
    return {"pagefind": "Hugo + Pagefind", "minimal": "Hugo (minimal)", "full": "Hugo (full)"}[peer]


def peer_times(r: dict) -> list[tuple[str, list[float], list[float]]]:
    """(label, per-run seconds, per-run RSS in MB) of each peer of a result; the pagefind
    peer's Hugo-alone figures as well, as "Hugo (minimal)" when that peer was not run."""
    times = []
    for peer, made in r["peers"].items():
        times.append((peer_label(peer), [x["seconds"] for x in made],
                      [max(x["rss_mb"], x.get("pagefind_rss_mb", 0)) for x in made]))
        if peer == "pagefind" and "minimal" not in r["peers"]:
            times.append((peer_label("minimal"), [x["hugo_seconds"] for x in made], [x["rss_mb"] for x in made]))
    return times


def report(results: list[dict], command: str) -> str:
    lines = [f"Command: `{command}`", "",
             "| papers | ours: all pages | ours: + search | peak memory, ours: pages / + search (build process RSS) "
             "| site size, ours |",
             "|---:|---:|---:|---:|---:|"]
    for r in results:
        pages = median(x["wall"] for x in r["pages"])
        full = median(x["wall"] for x in r["ours"]) if r["ours"] is not r["pages"] else None
        memory = f"{max(x['tree_mb'] for x in r['pages']):,.0f} MB"
        if full is not None:
            memory += f" / {max(x['tree_mb'] for x in r['ours']):,.0f} MB ({max(x['rss_mb'] for x in r['ours']):,.0f} MB)"
        lines.append(f"| {r['size']:,} | {pages:.1f} s | {f'{full:.1f} s' if full else '-'} | {memory} "
                     f"| {r['site_mb']:,.0f} MB |")
    lines += ["", "Peak memory is the PSS of the build process and its workers, summed and sampled "
              "every 50 ms: shared pages count once."]
    lines += ["", "Against each peer (median seconds, each run in brackets; ours over the peer's median, and in "
              "brackets the median of each run's own ratio, which a machine whose speed drifts from run to run "
              "moves less):", "",
              "| papers | peer | clean build | ours/peer (pages) | ours/peer (+ search) | peer RSS | peer's site |",
              "|---:|---|---:|---:|---:|---:|---:|"]
    for r in results:
        pages = median(x["wall"] for x in r["pages"])
        full = median(x["wall"] for x in r["ours"]) if r["ours"] is not r["pages"] else None
        for label, seconds, rss in peer_times(r):
            peer = median(seconds)
            site = next((f"{mb:,.0f} MB" for p, mb in r["peer_site_mb"].items() if peer_label(p) == label), "-")
            paired_pages = median(x["wall"] / s for x, s in zip(r["pages"], seconds))
            paired_full = median(x["wall"] / s for x, s in zip(r["ours"], seconds)) if full else None
            lines.append(f"| {r['size']:,} | {label} | {peer:.1f} s ({', '.join(f'{x:.1f}' for x in seconds)}) "
                         f"| {pages / peer:.2f}x ({paired_pages:.2f}x) "
                         f"| {f'{full / peer:.2f}x ({paired_full:.2f}x)' if full else '-'} | {max(rss):,.0f} MB "
                         f"| {site} |")
    lines += ["", "Clean build by phase (median seconds; wall time includes starting Python):", "",
              "| papers | runs | " + " | ".join(PHASES + (SEARCH_WORK,)) + " | wall | files |",
              "|---:|---:|" + "---:|" * (len(PHASES) + 3)]
    for r in results:
        phases = " | ".join(f"{median(x['phases'].get(p, 0) for x in r['ours']):.2f}" for p in PHASES + (SEARCH_WORK,))
        lines.append(f"| {r['size']:,} | {r['runs']} | {phases} | {median(x['wall'] for x in r['ours']):.2f} "
                     f"| {r['ours'][0]['files']:,} |")
    if any("rebuilds" in r for r in results):
        lines += ["", "Warm rebuilds (in process, as `serve` and `build --watch` run them):", "",
                  "| papers | nothing changed (written) | vs the first peer's clean build | one-paper edit, median "
                  "| without search | edits |",
                  "|---:|---:|---:|---:|---:|---|"]
        for r in results:
            if "rebuilds" not in r:
                continue
            nothing, edits = r["rebuilds"]["no_change"], r["rebuilds"]["edits"]
            hugo = median(peer_times(r)[0][1])
            all_ms = ", ".join(f"{e['seconds'] * 1000:.0f}" for e in edits)
            lines.append(f"| {r['size']:,} | {nothing['seconds'] * 1000:.0f} ms ({nothing['written']} files) "
                         f"| 1/{hugo / nothing['seconds']:.0f} | {median(e['seconds'] for e in edits) * 1000:.0f} ms "
                         f"| {median(e['seconds'] - e['search'] for e in edits) * 1000:.0f} ms | {all_ms} ms |")
    checks = [r for r in results if "links" in r]
    if checks:
        lines += [""] + [f"Checks at {r['size']:,}: {r['links']}; two clean builds "
                         f"{'byte-identical' if r['identical'] else 'DIFFER' if r['identical'] is False else 'not compared'}."
                         for r in checks]
    return "\n".join(lines)


def peer_list(text: str) -> tuple[str, ...]:
    peers = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    unknown = [p for p in peers if p not in PEER_CHOICES]
    if unknown or not peers:
        raise argparse.ArgumentTypeError(f"peers are {', '.join(PEER_CHOICES)}, comma-separated; got {text!r}")
    return peers


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        mode, *args = argv[1:]
        if mode == "build":
            result = child_build(Path(args[0]), Path(args[1]))
        else:
            result = child_rebuilds(Path(args[0]), Path(args[1]), int(args[2]))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated catalog sizes")
    parser.add_argument("--runs", type=int, default=3, help="clean builds per size (one above 10,000)")
    parser.add_argument("--edits", type=int, default=5, help="one-paper edits per size (0: skip rebuilds)")
    parser.add_argument("--check", action="store_true", help="link check and byte-identical clean builds")
    parser.add_argument("--skip-search", action="store_true", help="build everything but the search index")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real", action="store_true", help="the real ICML 2024 papers, replicated")
    parser.add_argument("--peer", type=peer_list, default=("minimal",),
                        help="the peers to compare with, comma-separated, each built interleaved with ours: the Hugo "
                             "site of papers, venues and topics (minimal), also authors, years, feeds and related "
                             "papers (full), or the minimal Hugo site then Pagefind over it (pagefind: reported as "
                             "Hugo + Pagefind and as Hugo alone)")
    parser.add_argument("--tmp", default="/dev/shm" if Path("/dev/shm").is_dir() else None,
                        help="where catalogs and builds go (default: the RAM disk /dev/shm)")
    args = parser.parse_args(argv)
    if args.check:
        os.environ["SCALE_DIGEST"] = "1"  # children hash their output, to compare builds
    if args.skip_search:
        os.environ["SCALE_SKIP_SEARCH"] = "1"  # the rebuilds too
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        log(f"{size} papers...")
        results.append(measure(size, args.runs if size <= 10_000 else 1, args.edits, args.check, args.seed,
                               args.skip_search, args.real, args.tmp, args.peer))
    print(report(results, "python bench/scale.py " + " ".join(argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
