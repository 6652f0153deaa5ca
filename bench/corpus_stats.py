"""Synthetic vs real abstracts, side by side: what bench/synth.py is calibrated on.

    .venv/bin/python bench/corpus_stats.py [--sizes 2596,10000]

Corpora: the real ICML 2024 papers (bench/realdata.py), bench/synth.py's
catalog, and bench/synth.py's replicated real catalog (`--real`). Figures:
words per abstract (10th, 50th, 90th percentile), vocabulary (distinct
lower-case words of titles and abstracts) and its Heaps' law fit V = K * N^beta
over growing prefixes, `$TeX$` spans per abstract and the share of abstracts
with one, and the shares of abstracts with a URL and with quotes.
"""
from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402
from realdata import real_papers  # noqa: E402

WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
MATH = re.compile(r"\$[^$\n]+\$")
URL = re.compile(r"https?://|www\.")
QUOTES = re.compile("[\"\u201c\u201d]|``|''")


def stats(texts: list[tuple[str, str]]) -> dict:
    """texts: (title, abstract) pairs, in catalog order."""
    lengths = [len(abstract.split()) for _, abstract in texts]
    deciles = statistics.quantiles(lengths, n=10)
    order = list(texts)
    random.Random(1).shuffle(order)  # a prefix is then a random sample of the catalog
    tokens, vocabulary, points, marks = 0, set(), [], {int(len(order) * f) for f in (0.05, 0.1, 0.2, 0.4, 0.7, 1)}
    for number, (title, abstract) in enumerate(order, 1):
        words = [w.lower() for w in WORD.findall(title + " " + MATH.sub(" ", abstract))]
        tokens += len(words)
        vocabulary.update(words)
        if number in marks:
            points.append((tokens, len(vocabulary)))
    k, beta = heaps(points)
    spans = [len(MATH.findall(abstract)) for _, abstract in texts]
    return {"papers": len(texts), "words p10/p50/p90": f"{deciles[0]:.0f} / {deciles[4]:.0f} / {deciles[8]:.0f}",
            "words mean": f"{statistics.mean(lengths):.0f}", "tokens": f"{tokens:,}",
            "vocabulary": f"{len(vocabulary):,}", "Heaps K, beta": f"{k:.1f}, {beta:.3f}",
            "TeX spans per abstract": f"{statistics.mean(spans):.2f}",
            "abstracts with TeX": share(texts, lambda a: MATH.search(a)),
            "abstracts with a URL": share(texts, lambda a: URL.search(a)),
            "abstracts with quotes": share(texts, lambda a: QUOTES.search(a))}


def share(texts, test) -> str:
    return f"{sum(1 for _, abstract in texts if test(abstract)) / len(texts):.1%}"


def heaps(points: list[tuple[int, int]]) -> tuple[float, float]:
    """Least squares on log V = log K + beta log N."""
    xs, ys = [math.log(n) for n, _ in points], [math.log(v) for _, v in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    beta = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - beta * mx), beta


def synthetic(count: int, real: bool) -> list[tuple[str, str]]:
    return [(front["title"], body) for front, body in synth.generate(count, real=real)]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2596,10000")
    args = parser.parse_args(argv)
    real = [(p.title, p.abstract) for p in real_papers()]
    columns = {"real ICML 2024": stats(real)}
    k, beta = heaps_of(columns["real ICML 2024"])
    for size in map(int, args.sizes.split(",")):
        columns[f"synth {size:,}"] = stats(synthetic(size, real=False))
        if size > len(real):
            columns[f"real replicated {size:,}"] = stats(synthetic(size, real=True))
            tokens = int(columns[f"real replicated {size:,}"]["tokens"].replace(",", ""))
            columns[f"real replicated {size:,}"]["vocabulary"] += f" (Heaps' law of the real: {k * tokens ** beta:,.0f})"
    names = list(columns)
    print("| statistic | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for key in columns[names[0]]:
        print(f"| {key} | " + " | ".join(str(columns[n][key]) for n in names) + " |")


def heaps_of(column: dict) -> tuple[float, float]:
    k, beta = column["Heaps K, beta"].split(", ")
    return float(k), float(beta)


if __name__ == "__main__":
    main(sys.argv[1:])
