"""Related papers on real vocabularies: time of a full computation, and agreement.

    .venv/bin/python bench/related_speed.py [--sizes 2596,10000] [--runs 3] [--terms 25,40]

Corpora: the real ICML 2024 papers, replicated with a fresh long tail beyond
2,596 (bench/synth.py RealReplica), as (title, plain text of the abstract),
what the build gives papersite.catalog.related. For each size, in this process and
interleaved (medians of --runs):

- "dict scoring": the scoring step as it was, every paper's scores summed
  in a Python dict from the inverted index (`_best_of(_scores(paper))`, on
  all cores as the build ran it);
- "block scoring": the numpy block scoring a build uses now;
- "update": a whole `RelatedIndex().update`, counting and vectors included;
- "edit": then a one-paper edit (a word appended to the abstract) through
  `update`, as the preview makes it after `prepare_for_edits` (median of
  --edits edits spread over the catalog).

Agreement: the share of papers whose five related papers (in order) are the
same with both scorings (the scores are the same integers, so anything below
100% is a bug), and, at --terms, against exact TF-IDF cosine over full vectors
(every term, computed densely with numpy where it fits in memory): the share
of identical lists, and the share of the exact lists' papers found.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.numeric import np  # noqa: E402  numpy as the build loads it (one BLAS thread)

import papersite.catalog.related as related  # noqa: E402
from papersite.text.plain import plain_text  # noqa: E402
from papersite.parallel import parallel_map  # noqa: E402
from synth import generate  # noqa: E402


def texts_of(size: int) -> dict[str, tuple[str, str]]:
    return {front["id"]: (front["title"], plain_text(abstract)) for front, abstract in generate(size, real=True)}


def dict_scoring(index: related.RelatedIndex) -> list[list[tuple[int, int]]]:
    return parallel_map(lambda paper: index._best_of(index._scores(paper)), range(len(index.ids)))


def block_scoring(index: related.RelatedIndex) -> list[list[tuple[int, int]]]:
    scorer = related._BlockScorer(index.vectors, index.count)
    return [best for part in parallel_map(scorer.best, scorer.blocks()) for best in part]


def exact_cosine(index: related.RelatedIndex, count: int = 5) -> list[list[int]] | None:
    """Top `count` by cosine of full TF-IDF vectors (same terms and weights, none dropped)."""
    terms = sorted(index.idf)
    if len(terms) * len(index.ids) > 400_000_000:
        return None  # would not fit in memory here
    column = {t: i for i, t in enumerate(terms)}
    matrix = np.zeros((len(index.ids), len(terms)), np.float32)
    for paper, (ids, counts) in enumerate(index.docs):
        for t, n in zip(ids, counts):
            if t in column:
                matrix[paper, column[t]] = related._log1(n) * index.idf[t]
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
    best = []
    for start in range(0, len(index.ids), 1000):
        scores = matrix[start:start + 1000] @ matrix.T
        scores[np.arange(len(scores)), np.arange(start, start + len(scores))] = -1
        best += [list(np.argsort(-row, kind="stable")[:count]) for row in scores]
    return best


def edit_times(index: related.RelatedIndex, texts: dict, edits: int) -> float:
    index.prepare_for_edits()
    ids, times = sorted(texts), []
    for number in range(edits):
        pid = ids[(number * 7919) % len(ids)]
        title, abstract = texts[pid]
        texts[pid] = (title, abstract + " revisited")
        start = time.perf_counter()
        index.update(texts)
        times.append(time.perf_counter() - start)
    return statistics.median(times) if times else 0.0


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2596,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--terms", default="40", help="TERMS_PER_PAPER values to compare")
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args(argv)
    print("| papers | terms per paper | dict scoring | block scoring | speed-up | update (all of it) "
          "| edit | same lists | same as full-vector cosine (lists / papers in them) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in map(int, args.sizes.split(",")):
        texts = texts_of(size)
        for terms in map(int, args.terms.split(",")):
            related.TERMS_PER_PAPER = terms
            times = {"dict": [], "block": [], "update": []}
            for _ in range(args.runs):
                start = time.perf_counter()
                index = related.RelatedIndex()
                index.update(texts)
                times["update"].append(time.perf_counter() - start)
                start = time.perf_counter()
                old = dict_scoring(index)
                times["dict"].append(time.perf_counter() - start)
                start = time.perf_counter()
                new = block_scoring(index)
                times["block"].append(time.perf_counter() - start)
            same = sum(a == b for a, b in zip(old, new)) / len(old)
            edits = edit_times(index, dict(texts), args.edits)
            exact = exact_cosine(index)
            versus = "-" if exact is None else \
                f"{sum([o for _, o in b] == list(e) for b, e in zip(new, exact)) / len(new):.1%} / " \
                f"{statistics.mean(len({o for _, o in b} & set(e)) / max(len(e), 1) for b, e in zip(new, exact)):.1%}"
            d, b, u = (statistics.median(times[k]) for k in ("dict", "block", "update"))
            print(f"| {size:,} | {terms} | {d:.2f} s | {b:.2f} s | {d / b:.1f}x | {u:.2f} s "
                  f"| {edits * 1000:.0f} ms | {same:.1%} | {versus} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
