"""Which 2-D layout for the paper map: neighbourhood quality and build time.

    python bench/map_layout.py [--papers 10000] [--repeat 3]

Quality is measured on the real ICML 2024 abstracts (../shared/data, 2,644
records): for each paper, how many of its 10 nearest neighbours by TF-IDF
cosine (the high-dimensional space) are among its 10 nearest on the map (kNN
preservation), and trustworthiness (Venna & Kaski: are the map's neighbours
true neighbours; 1 is perfect). Time and size are measured at --papers
papers, made by cycling the real records (each copy's text shuffled a little,
so no two papers are equal). Prints medians of --repeat runs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

from papersite import paper_map  # noqa: E402

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


def map_bytes(titles: list[str], points: list[tuple[int, int]]) -> tuple[int, int]:
    """Raw and gzipped size of the map data file for these titles (see papersite/map_data.py)."""
    from papersite.map_data import encode

    data = encode(titles, [f"paper-{i}" for i in range(len(titles))], points, [i % 12 for i in range(len(titles))],
                  [f"topic {i}" for i in range(12)], [("venue", len(titles))])
    return len(data), len(gzip.compress(data, 9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    real = records()
    texts = [f"{r['name']}. {r['abstract']}" for r in real]
    sample = np.arange(len(texts))
    ranks = high_dim_ranks(texts, sample)
    big = scaled(texts, args.papers)
    big_titles = [r["name"] for r in real] * (args.papers // len(real) + 1)
    print(f"quality on {len(texts)} real abstracts (k={K}); time at {len(big)} papers, median of {args.repeat}")
    print(f"{'method':8} {'kNN kept':>9} {'trust':>7} {'time (s)':>9}")
    for method in ("pca", "force"):
        kept, trust = quality(paper_map.layout(texts, method), ranks, sample)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            points = paper_map.layout(big, method)
            times.append(time.perf_counter() - start)
        print(f"{method:8} {kept:9.3f} {trust:7.3f} {statistics.median(times):9.2f}")
    raw, packed = map_bytes(big_titles[:len(big)], points)
    print(f"map data at {len(big)} papers (real titles): {raw / 1024:.0f} KB, {packed / 1024:.0f} KB gzipped")


if __name__ == "__main__":
    main()
