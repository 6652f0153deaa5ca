"""The paper map: every paper placed in 2-D so that papers about the same thing sit together.

    texts -> TF-IDF -> truncated SVD (LSA, 64 dimensions) -> kNN graph -> force layout

The force layout is UMAP's objective (attract along the 15-nearest-neighbour
graph, repel from random papers; t-SNE's 1 / (1 + d^2) kernel) run by plain
full-batch gradient steps in numpy, started from the first two principal
components. bench/map_layout.py chose it on real abstracts: those two
components alone keep 3% of each paper's 10 nearest neighbours
(trustworthiness 0.69), this layout about 15% (0.84); a layout of the
related-papers graph alone kept 13% and put unrelated clusters side by side
(trustworthiness 0.60).

Deterministic: fixed seeds, no threads that race, coordinates rounded to a
grid of GRID steps, so a rebuild is byte-identical. `layout` is a pure
function of the texts; `LayoutCache` keeps the last one by the texts' digest,
so a rebuild after an edit that leaves every text as it was (a new topic, a
typo in an author) costs nothing.
"""
from __future__ import annotations

import hashlib
import math
import os
from itertools import chain
from typing import Callable, Mapping, NamedTuple, Sequence

from .text import prose_term_counts as term_counts

# One BLAS thread: as fast for these small products, never oversubscribed on a busy machine
# (OpenBLAS threads slow a QR forty-fold there), and safe in the forked workers of a build.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


GRID = 4096  # coordinates are integers 0..GRID-1 on both axes
DIMENSIONS = 64  # LSA components: 32 kept far fewer neighbours, 96 a few more at 1.5x the cost
POWER_ITERATIONS = 2  # of the randomized SVD
NEIGHBOURS = 15  # kNN graph degree
EPOCHS = 80  # 120 placed no better
NEGATIVES = 3  # repelling samples per edge and epoch
SEED = 20240721

class LayoutCache:
    """The last build's layout, by the digest of its texts: a rebuild that changes no title or
    abstract reuses it (a BuildCache part, so `build` keeps it between runs too).

    `job` hands the layout out as a job that can run in another process (a build lays
    the map out alongside its pages); `keep` takes what it returned. Texts come keyed by
    paper, so that `where` can tell where each paper was last placed."""

    def __init__(self):
        self.digest: str | None = None
        self.points: list[tuple[int, int]] = []
        self.keys: list[str] = []

    def job(self, texts: Mapping[str, str], digest: str | None = None) -> tuple[Callable[[], Laid], int]:
        """(a function giving what keep takes, the size of its work: 0 when cached).
        `digest`: texts_digest(texts), if the caller has it."""
        digest = digest or texts_digest(texts)
        if digest == self.digest:
            known = Laid(digest, self.keys, self.points)
            return (lambda: known), 0
        keys, values = list(texts), list(texts.values())
        return (lambda: Laid(digest, keys, layout(values))), len(texts)

    def keep(self, laid: "Laid") -> list[tuple[int, int]]:
        self.digest, self.keys, self.points = laid
        return list(self.points)

    def where(self) -> dict[str, tuple[int, int]]:
        """Paper key -> its point in the last layout kept."""
        return dict(zip(self.keys, self.points))


class Laid(NamedTuple):
    """A layout: the digest of the texts it is of (None: not of exactly these), their keys, a point each."""

    digest: str | None
    keys: list[str]
    points: list[tuple[int, int]]


def texts_digest(texts: Mapping[str, str]) -> str:
    """The texts, in order, told apart by their lengths too (one join: JSON took 0.14 s at 10,000)."""
    values = list(texts.values())
    digest = hashlib.sha256(",".join(map(str, map(len, values))).encode())
    digest.update("\0".join(values).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def layout(texts: Sequence[str], method: str = "force") -> list[tuple[int, int]]:
    """(x, y) on the GRID for each text, in order; similar texts close together.

    `method` is "force" (the map's) or "pca" (the first two LSA components; the
    benchmark's baseline)."""
    import numpy as np

    n = len(texts)
    if n == 0:
        return []
    if n == 1:
        return [(GRID // 2, GRID // 2)]
    vectors = lsa(texts)
    start = _pca2(vectors)
    if method == "pca":
        points = start
    else:  # fewer neighbours on a small map: with everyone everyone's neighbour, the graph says nothing
        points = force_layout(nearest(vectors, min(NEIGHBOURS, max(2, round(math.sqrt(n))))), start)
    return _to_grid(points, np)


def tfidf(texts: Sequence[str]):
    """Sparse TF-IDF rows as (row, column, value) arrays in row order, rows L2-normalised;
    terms in one text only, or in more than half of them, left out (they place nothing)."""
    import numpy as np

    n = len(texts)
    counts = [term_counts(text) for text in texts]
    sizes = np.fromiter(map(len, counts), np.int64, n)
    terms = list(chain.from_iterable(counts))  # each text's terms, in the order it has them
    numbers: dict[str, int] = {}
    codes = np.fromiter((numbers.setdefault(term, len(numbers)) for term in terms), np.int64, len(terms))
    df = np.bincount(codes, minlength=len(numbers))
    keep = (df > 1) & (df <= max(2, n // 2))
    column = np.cumsum(keep) - 1  # term number -> column, for the terms kept
    tf = np.fromiter(chain.from_iterable(c.values() for c in counts), np.float64, len(terms))
    rows = np.repeat(np.arange(n), sizes)
    kept = keep[codes]
    rows, codes, tf = rows[kept], codes[kept], tf[kept]
    values = (1 + np.log(tf)) * np.log(1 + n / df[codes])
    norms = np.sqrt(np.bincount(rows, values * values, minlength=n))
    values /= norms[rows]
    return rows, column[codes], values.astype(np.float32), n, int(keep.sum())


def _dense_blocks(rows, columns, values, n: int, terms: int, size: int = 512):
    """The TF-IDF matrix as dense float32 blocks of `size` rows, one at a time (the whole
    matrix dense would take gigabytes): (first row, block), for BLAS to multiply."""
    import numpy as np

    bounds = np.searchsorted(rows, np.arange(0, n + size, size))
    block = np.zeros((size, terms), dtype=np.float32)
    for number, start in enumerate(range(0, n, size)):
        low, high = bounds[number], bounds[number + 1]
        cells = rows[low:high] - start, columns[low:high]
        block[cells] = values[low:high]
        yield start, block[:min(size, n - start)]
        block[cells] = 0  # back to zeros: cheaper than clearing the whole block


def lsa(texts: Sequence[str]):
    """Each text as a unit vector of DIMENSIONS latent components (randomized truncated SVD
    of the TF-IDF matrix, Halko et al.: a random range, two power iterations)."""
    import numpy as np

    rows, columns, values, n, terms = tfidf(texts)
    rank = max(1, min(DIMENSIONS, n - 1, terms))
    if terms == 0:
        return np.zeros((n, 2))

    def times(matrix):  # X @ matrix
        out = np.empty((n, matrix.shape[1]), dtype=np.float32)
        matrix = matrix.astype(np.float32)
        for start, block in _dense_blocks(rows, columns, values, n, terms):
            out[start:start + len(block)] = block @ matrix
        return out.astype(np.float64)

    def times_transposed(matrix):  # X.T @ matrix
        out = np.zeros((terms, matrix.shape[1]), dtype=np.float32)
        matrix = matrix.astype(np.float32)
        for start, block in _dense_blocks(rows, columns, values, n, terms):
            out += block.T @ matrix[start:start + len(block)]
        return out.astype(np.float64)

    rng = np.random.default_rng(SEED)
    sample = min(rank + 10, terms, n)
    q, _ = np.linalg.qr(times(rng.standard_normal((terms, sample))))
    for _ in range(POWER_ITERATIONS):
        q, _ = np.linalg.qr(times_transposed(q))
        q, _ = np.linalg.qr(times(q))
    small = times_transposed(q).T  # sample x terms: Q.T @ X
    u, s, _ = np.linalg.svd(small, full_matrices=False)
    vectors = (q @ u[:, :rank]) * s[:rank]
    vectors = _fix_signs(vectors, np)
    lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(lengths > 0, lengths, 1)


def _fix_signs(vectors, np):
    """SVD components are defined up to sign: make each one's largest entry positive."""
    flip = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(vectors.shape[1])])
    return vectors * np.where(flip == 0, 1, flip)


def nearest(vectors, k: int):
    """Each row's k most similar other rows by cosine (vectors are unit length), best first."""
    import numpy as np

    n = len(vectors)
    k = min(k, n - 1)
    found = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, 1024):
        block = vectors[start:start + 1024] @ vectors.T
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(block, top, axis=1), axis=1, kind="stable")
        found[start:start + 1024] = np.take_along_axis(top, order, axis=1)
    return found


def force_layout(neighbours, start, epochs: int = EPOCHS, negatives: int = NEGATIVES, rate: float = 0.2):
    """A graph (row i: the k papers i is drawn to) laid out from `start` by UMAP's
    cross-entropy objective (with its a = b = 1 curve, 1 / (1 + d^2), t-SNE's kernel,
    which needs no powers), by full-batch gradient steps."""
    import numpy as np

    n = len(neighbours)
    heads = np.repeat(np.arange(n), neighbours.shape[1])
    tails = neighbours.ravel()
    ends = np.concatenate([heads, tails])
    sources = np.repeat(heads, negatives)
    rng = np.random.default_rng(SEED)
    y = start.copy()
    for epoch in range(epochs):
        step_size = rate * (1.0 - epoch / epochs)
        diff = y[heads] - y[tails]  # attraction along every edge, on both ends
        pull = np.clip(diff * (-2 / (1 + np.einsum("ij,ij->i", diff, diff)))[:, None], -4, 4)
        others = rng.integers(0, n, size=len(sources))  # repulsion from random papers
        diff = y[sources] - y[others]
        d2 = np.einsum("ij,ij->i", diff, diff)
        push = np.clip(diff * (2 / ((0.001 + d2) * (1 + d2)))[:, None], -4, 4)
        push[others == sources] = 0
        for axis in range(2):
            y[:, axis] += step_size * (
                np.bincount(ends, np.concatenate([pull[:, axis], -pull[:, axis]]), minlength=n)
                + np.bincount(sources, push[:, axis], minlength=n))
    return y


def _pca2(vectors):
    """The first two principal components, scaled to a spread of about 10 (UMAP's start)."""
    import numpy as np

    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    vt = _fix_signs(vt.T, np).T
    points = centred @ vt[:2].T
    if points.shape[1] < 2:
        points = np.hstack([points, np.zeros((len(points), 2 - points.shape[1]))])
    spread = np.abs(points).max()
    return points * (10 / spread) if spread > 0 else points


def _to_grid(points, np) -> list[tuple[int, int]]:
    """Scale to the GRID (same scale on both axes, so distances keep their meaning)."""
    low = points.min(axis=0)
    span = float((points.max(axis=0) - low).max())
    scaled = (points - low) * ((GRID - 1) / span) if span > 0 else np.zeros_like(points)
    extent = scaled.max(axis=0)
    scaled += ((GRID - 1) - extent) / 2  # centre the short axis
    grid = np.rint(scaled).astype(int)
    return [(int(x), int(y)) for x, y in grid]
