"""Which 2-D layout for the paper map: neighbourhood quality and build time.

    python bench/map_layout.py [--papers 10000] [--repeat 3]
    python bench/map_layout.py --frame-sizes [--papers 10000]   (how large a frame: see report_frame_sizes)

Quality is measured on the real ICML 2024 abstracts (../shared/data, 2,644
records): for each paper, how many of its 10 nearest neighbours by TF-IDF
cosine (the high-dimensional space) are among its 10 nearest on the map (kNN
preservation), and trustworthiness (Venna & Kaski: are the map's neighbours
true neighbours; 1 is perfect). Time and size are measured at --papers
papers, made by cycling the real records (each copy's text shuffled a little,
so no two papers are equal). Prints medians of --repeat runs, the size of
the map data file, and draw times and frame intervals in Chromium while
zooming and panning a map of that many papers.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.numeric import np  # noqa: E402  numpy as the build loads it (one BLAS thread)
from papersite.papermap import layout as paper_map  # noqa: E402

from titledata import DEFAULT as DATA  # noqa: E402  ../shared beside the repository or its worktree
K = 10


def records() -> list[dict]:
    if not DATA.exists():
        sys.exit(f"{DATA} not found: this benchmark needs the shared ICML 2024 data")
    return [r for r in json.loads(DATA.read_text(encoding="utf-8")) if r.get("abstract")]


def high_dim_ranks(texts: list[str], sample: np.ndarray) -> np.ndarray:
    """For each sampled paper, every other paper's rank by TF-IDF cosine (0 = nearest)."""
    rows, columns, values, n, terms = paper_map.tfidf(texts)
    dense = np.zeros((n, terms), dtype=np.float32)
    dense[rows, columns] = values
    sims = dense[sample] @ dense.T
    sims[np.arange(len(sample)), sample] = np.inf  # itself first: rank 0, dropped below
    order = np.argsort(-sims, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(len(sample))[:, None], order] = np.arange(n)[None, :]
    return ranks - 1  # the nearest other paper has rank 0


def quality(points: list[tuple[int, int]], ranks: np.ndarray, sample: np.ndarray) -> tuple[float, float]:
    """(kNN preservation, trustworthiness) at K."""
    y = np.array(points, dtype=np.float64)
    n = len(y)
    d = ((y[sample][:, None, :] - y[None, :, :]) ** 2).sum(axis=2)
    d[np.arange(len(sample)), sample] = np.inf
    low = np.argsort(d, axis=1, kind="stable")[:, :K]
    low_ranks = np.take_along_axis(ranks, low, axis=1)
    kept = (low_ranks < K).mean()
    penalty = np.where(low_ranks >= K, low_ranks - K + 1, 0).sum()
    trust = 1 - 2 / (len(sample) * K * (2 * n - 3 * K - 1)) * penalty
    return float(kept), float(trust)


def stacked(points: list[tuple[int, int]]) -> float:
    """The share of papers on the very grid point of another (a dot that hides one)."""
    return 1 - len(set(points)) / len(points)


def scaled(texts: list[str], count: int) -> list[str]:
    rng = random.Random(1)
    out = []
    while len(out) < count:
        for text in texts:
            if len(out) == count:
                break
            if len(out) < len(texts):
                out.append(text)
            else:
                words = text.split()
                cut = rng.randrange(len(words))
                out.append(" ".join(words[cut:] + words[:cut]))
    return out


def lay_out(texts: list[str], method: str) -> list[tuple[int, int]]:
    """pca and force: paper_map.layout (force: the map's, LANDMARKS papers laid out, the rest
    placed among them); exact: the same with every paper a landmark; related: the same force layout of the graph of each
    paper's five related papers (papersite/related.py, which a build computes anyway), from a
    random start (so no SVD at all)."""
    if method == "exact":  # every paper a landmark, as the map was laid out before landmarks
        everyone, paper_map.LANDMARKS = paper_map.LANDMARKS, len(texts)
        try:
            return paper_map.layout(texts)
        finally:
            paper_map.LANDMARKS = everyone
    if method != "related":
        return paper_map.layout(texts, method=method)
    from papersite.catalog.related import find_related

    ids = [f"{i:06d}" for i in range(len(texts))]
    related = find_related(dict(zip(ids, texts)))
    graph = np.array([[int(j) for j in related[i]] + [n] * (5 - len(related[i])) for n, i in enumerate(ids)])
    start = np.random.default_rng(paper_map.SEED).standard_normal((len(texts), 2)) * 10
    return paper_map._to_grid(paper_map.force_layout(graph, start), np)


def map_file(titles: list[str], points: list[tuple[int, int]]) -> bytes:
    """The map data file for these titles and points, with 26 topics as the default taxonomy has."""
    from papersite.papermap.files import encode

    slugs = [re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-")[:60] or "x" for t in titles]
    return encode(tuple(titles), tuple(slugs), tuple(map(tuple, points)), tuple(i % 26 for i in range(len(titles))),
                  tuple(f"Topic {i}" for i in range(26)), (("ICML 2024", len(titles)),))


FRAMES = """async () => {
  const canvas = document.getElementById('map-canvas');
  const rect = canvas.getBoundingClientRect();
  const at = (x, y) => ({clientX: rect.left + x, clientY: rect.top + y, bubbles: true});
  const intervals = [];
  let last = performance.now();
  const frame = () => new Promise(r => requestAnimationFrame(t => { intervals.push(t - last); last = t; r(); }));
  await frame();
  for (let i = 0; i < 60; i++) await frame();  // the same page doing nothing: the baseline
  const idle = intervals.splice(0);
  last = performance.now();
  await frame();
  for (let i = 0; i < 30; i++) {  // zoom in and out around a point, one wheel event a frame
    canvas.dispatchEvent(new WheelEvent('wheel', {...at(300, 250), deltaY: i < 15 ? -120 : 120, cancelable: true}));
    await frame();
  }
  canvas.dispatchEvent(new PointerEvent('pointerdown', {...at(200, 200), button: 0, shiftKey: true, pointerId: 1}));
  for (let i = 0; i < 60; i++) {  // pan with Shift+drag
    canvas.dispatchEvent(new PointerEvent('pointermove', {...at(200 + 4 * i, 200 + 2 * i), pointerId: 1}));
    await frame();
  }
  canvas.dispatchEvent(new PointerEvent('pointerup', {...at(440, 320), pointerId: 1}));
  const draws = performance.getEntriesByName('map:draw').map(e => e.duration);
  return {intervals: intervals.slice(1), idle: idle.slice(1), draws};
}"""


def frame_times(data: bytes) -> dict:
    """Draw times and frame intervals while zooming and panning the map of `data` in Chromium:
    the bundled catalog's site, its map data replaced by `data`."""
    import dataclasses
    import threading

    from playwright.sync_api import sync_playwright

    from papersite.source.config import load_config
    from papersite.pipeline import build_site
    from papersite.preview.handler import make_server
    from papersite.preview.state import SiteState

    build = build_site(load_config(ROOT / "site.yaml"))
    build = dataclasses.replace(build, files={**build.files, "map/points.json": data})
    server = make_server(SiteState(build, build.catalog.config.base_path), "127.0.0.1", 0, log=lambda line: None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            page.goto(f"http://127.0.0.1:{server.server_port}{build.catalog.config.base_path}map/")
            page.wait_for_selector("#map-app[data-state=ready]")
            ready = time.perf_counter() - start
            result = page.evaluate(FRAMES)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    result["ready"] = ready
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-frames", action="store_true", help="skip the Chromium frame-time run")
    parser.add_argument("--frames-only", action="store_true", help="only the size and the Chromium run")
    parser.add_argument("--frame-sizes", action="store_true",
                        help="only the quality of frames of other sizes, in a --papers catalog of the real abstracts")
    args = parser.parse_args()
    real = records()
    if args.frames_only:
        texts = [f"{r['name']}. {r['abstract']}" for r in real]
        titles = [r["name"] for r in real] * (args.papers // len(real) + 1)
        return report_frames(map_file(titles[:args.papers], paper_map.layout(scaled(texts, args.papers))),
                             args.papers)
    texts = [f"{r['name']}. {r['abstract']}" for r in real]
    sample = np.arange(len(texts))
    ranks = high_dim_ranks(texts, sample)
    big = scaled(texts, args.papers)
    if args.frame_sizes:
        return report_frame_sizes(texts, big, ranks, sample)
    print(f"quality on {len(texts)} real abstracts (k={K}); time at {len(big)} papers, median of {args.repeat}"
          " (wall and CPU seconds: on a shared machine CPU time is the steadier figure)")
    print(f"{'method':8} {'kNN kept':>9} {'trust':>7} {'wall (s)':>9} {'CPU (s)':>8}")
    for method in ("pca", "related", "exact", "force"):
        kept, trust = quality(lay_out(texts, method), ranks, sample)
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            points = lay_out(big, method)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        print(f"{method:8} {kept:9.3f} {trust:7.3f} {statistics.median(walls):9.2f} {statistics.median(cpus):8.2f}",
              flush=True)
    print(f"\nthe map's layout with {paper_map.LANDMARKS} landmarks: every paper of a catalog that size or"
          f" smaller is one (the force row above, {len(texts)} papers); in a larger catalog the rest are placed"
          " among them. The same share of the real papers as landmarks:")
    print(f"{'catalog':>8} {'landmarks':>9} {'kNN kept':>9} {'trust':>7} {'stacked':>8}")
    everyone = paper_map.LANDMARKS
    for papers in (len(texts), 10_000, 50_000):
        share = min(1.0, everyone / papers)
        paper_map.LANDMARKS = max(2, round(share * len(texts)))
        laid = paper_map.layout(texts)
        paper_map.LANDMARKS = everyone
        kept, trust = quality(laid, ranks, sample)
        print(f"{papers:8,} {share:9.0%} {kept:9.3f} {trust:7.3f} {stacked(laid):8.1%}", flush=True)
    titles = [r["name"] for r in real] * (args.papers // len(real) + 1)
    data = map_file(titles[:len(big)], points)
    print(f"map data at {len(big)} papers (real titles): {len(data) / 1024:.0f} KB, "
          f"{len(gzip.compress(data, 9)) / 1024:.0f} KB gzipped", flush=True)
    if not args.no_frames:
        report_frames(data, len(big))


def report_frame_sizes(texts: list[str], big: list[str], ranks: np.ndarray, sample: np.ndarray) -> None:
    """The map of `big` (the real abstracts first, then their shuffled copies) with frames of other
    sizes: the quality of the real papers' places among themselves. A frame is fitted on that many
    texts, whatever the catalog's size, so it is measured at that size, not as a share."""
    assert big[:len(texts)] == texts
    print(f"{len(big):,} papers, {paper_map.LANDMARKS} landmarks; quality of the {len(texts)} real papers' places")
    print(f"{'frame':>6} {'kNN kept':>9} {'trust':>7} {'stacked':>8} {'wall (s)':>9}")
    shipped = paper_map.FRAME
    for frame in sorted({paper_map.LANDMARKS, shipped, shipped // 2}, reverse=True):
        paper_map.FRAME = frame
        wall = time.perf_counter()
        laid = paper_map.layout(big)[:len(texts)]
        wall = time.perf_counter() - wall
        kept, trust = quality(laid, ranks, sample)
        print(f"{frame:6} {kept:9.3f} {trust:7.3f} {stacked(laid):8.1%} {wall:9.2f}", flush=True)
    paper_map.FRAME = shipped


def report_frames(data: bytes, count: int) -> None:
    print(f"map data at {count} papers: {len(data) / 1024:.0f} KB, {len(gzip.compress(data, 9)) / 1024:.0f} KB gzipped")
    frames = frame_times(data)
    draws, intervals, idle = frames["draws"], frames["intervals"], frames["idle"]
    print(f"Chromium, {count} papers: map ready {frames['ready']:.2f} s after navigation; "
          f"draw median {statistics.median(draws):.1f} ms, p95 {percentile(draws, 0.95):.1f} ms "
          f"({len(draws)} draws); frame interval while zooming and panning median "
          f"{statistics.median(intervals):.1f} ms, p95 {percentile(intervals, 0.95):.1f} ms; "
          f"the same page idle: median {statistics.median(idle):.1f} ms, p95 {percentile(idle, 0.95):.1f} ms")


if __name__ == "__main__":
    main()
