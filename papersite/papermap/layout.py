"""The paper map: every paper placed in 2-D so that papers about the same thing sit together.

    landmarks' texts -> TF-IDF -> truncated SVD (LSA, 64 dimensions) -> kNN graph -> force layout
    every other paper -> the same LSA space -> among its 10 most similar landmarks

Up to LANDMARKS papers (all of a smaller catalog) are laid out by a force
layout: UMAP's objective (attract along the 5-nearest-neighbour graph, repel
from random papers; t-SNE's 1 / (1 + d^2) kernel) run by plain full-batch
gradient steps in numpy, started from the first two principal components.
Which papers are landmarks depends on their keys alone (the smallest hashes).
Every other paper goes where its most similar landmarks are, weighted by
similarity, as UMAP and landmark MDS place new points.

So where a paper sits depends on its own text and the landmarks' texts, and
on nothing else: an edit to any other paper moves only that paper, and a
rebuild places it alone (`LayoutCache`), yet lands exactly where a clean
build puts it. bench/map_layout.py chose the layout and measures what the
landmarks cost in quality.

Deterministic: fixed seeds, no threads that race, coordinates rounded to a
grid of GRID steps, and a paper placed alone gets the very numbers it gets among
thousands: its vector and similarities are sums of whole multiples of a small
unit, exact in float64 whatever order BLAS adds them in (see _fixed), and the
rest is done row by row.

An edit to a landmark lays the landmarks out anew, and places every other paper
among them again; `build` starts both ahead, before it loads its session
(engine/map_ahead.py).
"""
from __future__ import annotations

import functools
import hashlib
import math
from array import array
from itertools import chain, islice, repeat
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from ..parallel import Detachable, ItemStream
from ..text.words import TermNumbers, prose_term_counts as term_counts


GRID = 4096  # coordinates are integers 0..GRID-1 on both axes
LANDMARKS = 4000  # laid out by the force layout; the rest placed among them
NEAREST = 10  # landmarks a paper is placed among
PULL = 32  # their weights: similarity ** PULL (lower kept fewer neighbours, higher stacked papers)
DIMENSIONS = 64  # LSA components: fewer kept far fewer neighbours, more gained little at more cost
POWER_ITERATIONS = 2  # of the randomized SVD
NEIGHBOURS = 5  # kNN graph degree: UMAP's default, 15, kept fewer neighbours at more edges
EPOCHS = 80  # more placed no better
NEGATIVES = 3  # repelling samples per edge and epoch
SEED = 20240721
VERSION = "landmarks-3"  # of the layout: part of every digest, so a cache of another one is not reused

Point = tuple[int, int]
SENT_AT_ONCE = 500  # texts' counts a fresh process is sent at a time (see LayoutCache.job's detach)
Counts = Mapping[str, int] | TermNumbers  # a text's term counts (prose_term_counts), by term or numbered


class Skeleton(NamedTuple):
    """The landmarks' layout, and what places any other text among them."""

    digest: str  # of the landmarks' keys and texts
    columns: dict[str, int]  # term -> column of `basis`
    idf: object  # numpy: each column's inverse document frequency among the landmarks
    basis: object  # numpy, terms x components: a text's TF-IDF row -> its LSA vector
    vectors: object  # numpy, landmarks x components: theirs, unit length
    points: object  # numpy, landmarks x 2: the force layout, before the grid
    low: object  # numpy, 2: the grid's origin in layout units
    scale: float  # grid steps per layout unit
    shift: object  # numpy, 2: centres the short axis on the grid
    own: dict[str, Point]  # landmark key -> its point


class Laid(NamedTuple):
    """A layout: the digest of the keyed texts it is of (None: not of exactly these), their keys,
    a point each; and what a rebuild places new texts with (None for a provisional layout)."""

    digest: str | None
    keys: list[str]
    points: list[Point]
    skeleton: Skeleton | None = None
    placed: dict[str, Point] | None = None  # text digest -> point, for every text not a landmark's


def _of_frame(made: tuple[Skeleton, dict[str, Point]] | None, frame: str) -> tuple[Skeleton | None, dict[str, Point]]:
    """A layout made ahead (the landmarks' Skeleton, and text digest -> point of the texts placed
    among them), if it is of these very landmarks' texts (their digest is `frame`); else (None, {})."""
    return made if made is not None and made[0].digest == frame else (None, {})


class LayoutCache:
    """The last build's layout (a BuildCache part, so `build` keeps it between runs too). A
    rebuild that changes no landmark's text places only the texts it has not placed yet, and
    one that changes no text at all reuses everything.

    `job` hands the work out as a job that can run in another process (a build lays
    the map out alongside its pages); `keep` takes what it returned. Texts come keyed by
    paper, so that `where` can tell where each paper was last placed."""

    def __init__(self):
        self.digest: str | None = None
        self.points: list[Point] = []
        self.keys: list[str] = []
        self.skeleton: Skeleton | None = None
        self.placed: dict[str, Point] = {}
        self.texts: Mapping[str, str] = {}  # of the layout kept (what the next build's layout ahead starts from)
        self.asked: tuple[str | None, Mapping[str, str]] = (None, {})  # the digest and texts of the last job
        self.shown: dict[tuple[str, str], tuple[str, int | str]] = {}  # papermap.files.map_files's titles and slugs
        # key -> (the parts its text was made of, text_digest of it): an edit digests its own text alone
        self.text_digests: dict[str, tuple[tuple, str]] = {}
        self._digested: tuple[Mapping[str, str] | None, dict[str, str]] = (None, {})  # texts -> digests_of them
        self._chosen: tuple[list[str], list[str]] = ([], [])  # keys -> their landmarks, as the last job chose them
        # The landmarks' layout being made ahead of this build, where `build` started one (engine/map_ahead.py):
        # done() says whether it is made, result() gives it (see _of_frame; None: nothing made ahead).
        self.ahead = None

    def __getstate__(self) -> dict:
        # Not kept: a process of this build's, and the texts (engine.map_ahead.keep keeps them apart: the
        # session is loaded by every build, and needs them not)
        return {**self.__dict__, "texts": {}, "asked": (None, {}), "ahead": None, "_digested": (None, {}),
                "_chosen": ([], [])}

    def digests_of(self, texts: Mapping[str, str]) -> dict[str, str]:
        """key -> text_digest(texts[key]), the last build's where a text is made of the same parts
        (texts.parts(key), as MapTexts gives them: its title and abstract)."""
        if self._digested[0] is texts:
            return self._digested[1]
        parts_of = getattr(texts, "parts", None)
        last, kept = self.text_digests, {}
        for key in texts:
            parts = parts_of(key) if parts_of is not None else None
            known = last.get(key)
            if parts is None or known is None or known[0] != parts:  # mostly identity checks: the same strings
                known = (parts, text_digest(texts[key]))
            kept[key] = known
        self.text_digests = kept if parts_of is not None else {}
        digests = {key: known[1] for key, known in kept.items()}
        self._digested = texts, digests
        return digests

    def job(self, texts: Mapping[str, str], digest: str | None = None,
            counts: Callable[[str, str], Counts | None] = lambda key, text: None
            ) -> tuple[Callable[[], Laid], int]:
        """(a function giving what keep takes, the size of its work: 0 when cached).
        `digest`: texts_digest(texts), if the caller has it. `counts(key, text)`: the text's
        term counts where they are known already (None: counted here)."""
        every = self.digests_of(texts)
        digest = digest or texts_digest(texts, every)
        self.asked = digest, texts
        if digest == self.digest:
            known = Laid(digest, self.keys, self.points, self.skeleton, self.placed)
            return (lambda: known), 0
        keys = list(texts)
        # the same keys (mostly the very strings): the same landmarks, not sorted again by hash
        chosen = self._chosen[1] if keys == self._chosen[0] else landmarks(keys)
        self._chosen = keys, chosen
        frame = skeleton_digest((key, every[key]) for key in chosen)
        known = self.skeleton if self.skeleton is not None and self.skeleton.digest == frame else None
        placed = self.placed if known is not None else {}  # made among these
        ahead = self.ahead if known is None else None  # the landmarks' layout being made ahead, if any
        if ahead is not None and ahead.done():
            (known, placed), ahead = _of_frame(ahead.result(), frame), None
        own = set(chosen)
        digests = {key: every[key] for key in keys if key not in own}  # of the texts placed

        def counted(key: str) -> Counts:
            return counts(key, texts[key]) or term_counts(texts[key])

        def work() -> Laid:
            made, among = _of_frame(ahead.result(), frame) if ahead is not None else (None, placed)
            return _lay_out(digest, keys, chosen, digests, known or made, among, counted, frame)

        if ahead is not None:
            return work, 0  # here, once the build waits for it: the landmarks' layout is still being made
        size = sum(1 for d in set(digests.values()) if d not in placed) + (0 if known is not None else len(chosen))
        if known is not None or placed:
            return work, size

        def detach() -> tuple[Callable[..., Laid], tuple]:
            # All laid out anew, so perhaps in a fresh process: sent what it reads, each text's counts
            # as related papers kept them (compact arrays), or the text where they did not. They are
            # taken now (related papers may count new words later) and streamed, in the order the
            # layout reads them, so that the process holds a few hundred at a time; the word list
            # they number into goes once, with the job.
            given = [(key, counts(key, texts[key]) or texts[key]) for key in chain(chosen, _to_place(digests, {}).values())]
            words = next((c.words for _, c in given if isinstance(c, TermNumbers)), [])
            rows = [(key, c) if not isinstance(c, TermNumbers) or c.words is not words else (key, c.terms, c.counts)
                    for key, c in given]
            return _lay_out_given, (digest, keys, chosen, digests, words, ItemStream(_chunked(rows)), frame)

        return Detachable(work, detach), size

    def keep(self, laid: Laid) -> list[Point]:
        self.digest, self.keys, self.points, self.skeleton, placed = laid
        self.placed = placed if placed is not None else {}
        self.texts = self.asked[1] if laid.digest is not None and laid.digest == self.asked[0] else {}
        self.ahead = None
        return list(self.points)

    def where(self) -> dict[str, Point]:
        """Paper key -> its point in the last layout kept."""
        return dict(zip(self.keys, self.points))


def _to_place(digests: dict[str, str], among: Mapping[str, Point]) -> dict[str, str]:
    """Text digest -> the first key with that text, of the texts not placed `among` already."""
    new: dict[str, str] = {}
    for key, text_key in digests.items():
        if text_key not in among:
            new.setdefault(text_key, key)
    return new


def _lay_out(digest: str, keys: list[str], chosen: list[str], digests: dict[str, str], skeleton: Skeleton | None,
             among: Mapping[str, Point], counted: Callable[[str], Counts], frame: str) -> Laid:
    """The layout of `keys`: the landmarks `chosen` laid out (unless `skeleton` is theirs already),
    every other text placed among them, or found `among` those placed before (by text digest)."""
    if not keys:
        return Laid(digest, [], [], None, {})
    skeleton = skeleton or fit(chosen, [counted(key) for key in chosen], frame)
    new = _to_place(digests, among)
    where = {d: among[d] for d in digests.values() if d in among}
    where.update(zip(new, place(skeleton, map(counted, new.values()))))
    own = set(chosen)
    return Laid(digest, keys, [skeleton.own[key] if key in own else where[digests[key]] for key in keys], skeleton, where)


def _lay_out_given(digest: str, keys: list[str], chosen: list[str], digests: dict[str, str], words: list[str],
                   given: Iterable[list[tuple]], frame: str) -> Laid:
    """_lay_out from nothing, given (in lists) the counts of each landmark and each text to place, in
    the order _lay_out reads them: (key, term numbers into `words`, counts), or (key, counts or text)."""
    sent = chain.from_iterable(given)

    def counted(key: str) -> Counts:
        row = next(sent)
        if row[0] != key:
            raise ValueError(f"the map's texts came out of order: {row[0]!r} for {key!r}")
        if len(row) == 3:
            return TermNumbers(words, row[1], row[2])
        return term_counts(row[1]) if isinstance(row[1], str) else row[1]
    return _lay_out(digest, keys, chosen, digests, None, {}, counted, frame)


def _chunked(rows: list) -> Iterable[list]:
    for start in range(0, len(rows), SENT_AT_ONCE):
        yield rows[start:start + SENT_AT_ONCE]


@functools.cache
def arithmetic() -> str:
    """What this machine's numpy and BLAS make of a fixed problem shaped like the layout's.
    Another processor can run other BLAS kernels (OpenBLAS picks them by CPU, or by
    OPENBLAS_CORETYPE), which sum in another order, and the force layout turns a last-bit
    difference into another map: a layout made on one is not reused on another (a build
    cache restored on another CI machine), since a clean build there would differ."""
    from ..numeric import np

    rng = np.random.default_rng(SEED)
    matrix = rng.standard_normal((600, 74))
    single = matrix.astype(np.float32)
    parts = (single[:512] @ single[:74].T, single.T @ single[:, :40], np.linalg.qr(matrix)[0],
             np.linalg.svd(matrix[:74], full_matrices=False)[0], matrix[:, :64] @ matrix[0, :64],
             np.log(1 + np.abs(matrix)))
    digest = hashlib.sha256(np.__version__.encode())
    for part in parts:
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()[:16]


def texts_digest(texts: Mapping[str, str], digests: Mapping[str, str]) -> str:
    """The keyed texts, in order: each key with its text's digest (`digests`: LayoutCache.digests_of
    them). Keys count: they choose the landmarks. So does the machine's arithmetic."""
    digest = hashlib.sha256(f"{VERSION} {arithmetic()}".encode())
    for key in texts:
        digest.update(f"{len(key)},{key}{digests[key]}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def skeleton_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """Of the landmarks' keys and their texts' digests (text_digest), in order."""
    digest = hashlib.sha256(f"{VERSION} {arithmetic()}".encode())
    for key, text_key in pairs:
        digest.update(f"{len(key)},{key}\0{text_key}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def landmarks(keys: Sequence[str]) -> list[str]:
    """The keys laid out by the force layout: the LANDMARKS whose hashes are smallest, in
    that order. A paper added or removed changes them only if it is one of them."""
    ranked = sorted(keys, key=lambda key: hashlib.blake2b(key.encode("utf-8", "surrogatepass"),
                                                          digest_size=8).digest())
    return ranked[:LANDMARKS]


def layout(texts: Sequence[str], keys: Sequence[str] | None = None, method: str = "force") -> list[Point]:
    """(x, y) on the GRID for each text, in order; similar texts close together. `keys`
    (default: the texts' positions) choose the landmarks.

    `method` is "force" (the map's) or "pca" (the first two LSA components; the
    benchmark's baseline)."""
    keys = list(keys) if keys is not None else [str(i) for i in range(len(texts))]
    if method == "pca":
        from ..numeric import np
        return _to_grid(_pca2(lsa(texts)), np)
    cache = LayoutCache()
    job, _ = cache.job(dict(zip(keys, texts)))
    return cache.keep(job())


def fit(keys: Sequence[str], counts: Sequence[Counts], digest: str) -> Skeleton:
    """The landmarks' layout: LSA of their texts (given as term counts), their kNN graph laid
    out by force."""
    from ..numeric import np

    n = len(counts)
    rows, columns, values, vocabulary, idf = _tfidf(counts)
    rank = max(1, min(DIMENSIONS, n - 1, len(vocabulary)))
    basis = _basis(rows, columns, values, n, len(vocabulary), rank) if vocabulary else np.zeros((0, 1))
    frame = Skeleton(digest, vocabulary, idf, basis, None, None, None, 1.0, None, {})
    vectors = _Sparse(rows, columns, values, (n, len(vocabulary))) @ basis  # each landmark's LSA vector, unit length
    lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(lengths > 0, lengths, 1)
    if n == 1:
        points = np.zeros((1, 2))
    else:  # fewer neighbours on a small map: with everyone everyone's neighbour, the graph says nothing
        points = force_layout(nearest(vectors, min(NEIGHBOURS, max(2, round(math.sqrt(n))))), _pca2(vectors))
    low, scale, shift = _scaling(points)
    frame = frame._replace(vectors=vectors, points=points, low=low, scale=scale, shift=shift)
    return frame._replace(own=dict(zip(keys, map(tuple, _on_grid(frame, points)))))


def place(frame: Skeleton, counts: Iterable[Counts]) -> list[Point]:
    """Each text's point (given its term counts) among the landmarks: where its NEAREST most
    similar ones are, each weighted by its similarity ** PULL. A text no landmark shares a
    term with goes to the landmarks' centre. A text placed alone lands exactly where it lands
    among thousands: every sum is exact (see _fixed), and the rest is done row by row."""
    from ..numeric import np

    centre = frame.points.mean(axis=0)
    near = min(NEAREST, len(frame.points))
    landmarks, basis = _fixed(frame.vectors).T, np.rint(frame.basis / BASIS_UNIT)
    columns = _Columns(frame.columns)
    out = []
    counts = iter(counts)
    # 256 texts at a time: the counts of every other paper (a landmark's edit) would take
    # hundreds of megabytes at once
    while chunk := list(islice(counts, 256)):
        similar = (_fixed(_vectors(frame, chunk, basis, columns)) @ landmarks) * FIXED_UNIT ** 2
        if near < similar.shape[1]:
            tops = np.argpartition(-similar, near - 1, axis=1)[:, :near]
        else:
            tops = np.broadcast_to(np.arange(near), similar.shape)
        pulls = np.maximum(np.take_along_axis(similar, tops, axis=1), 0) ** PULL  # each entry its own
        for weights, top in zip(pulls, tops):
            total = weights.sum()
            out.append(weights @ frame.points[top] / total if total > 0 else centre)
    return [tuple(p) for p in _on_grid(frame, np.array(out))] if out else []


FIXED_UNIT = 2.0 ** -20  # of a unit vector's entries (see _fixed)
WEIGHT_UNIT, BASIS_UNIT = 2.0 ** -14, 2.0 ** -18  # of a TF-IDF weight (below 2 ** 7) and of a basis entry (below 1)


def _fixed(vectors):
    """Vectors with no entry above 1 in size, rounded to multiples of FIXED_UNIT: every product
    of two entries is a whole number of FIXED_UNIT ** 2 below 2 ** 40, every dot product one
    below 2 ** 47, all exact in float64. So BLAS gives the same sums, to the last bit, whether
    it multiplies one vector or a block of them, in whatever order its kernels add."""
    from ..numeric import np

    return np.rint(vectors / FIXED_UNIT)


def _vectors(frame: Skeleton, counts: list[Counts], basis=None, columns: _Columns | None = None):
    """Each text's LSA vector (its TF-IDF row times the basis), scaled so that its largest entry
    is 1 in size (a zero vector for a text with no landmark term). Weights and basis are rounded
    to WEIGHT_UNIT and BASIS_UNIT (`basis`: the frame's, so rounded already), so the products
    are exact too (see _fixed), for any number of texts at once; scaling by the largest entry,
    not the length, keeps each row's arithmetic its own (a similarity's scale cancels out of
    the weights)."""
    from ..numeric import np

    words, sizes, terms, tfs = _numbered(counts)
    columns = (columns or _Columns(frame.columns))(words, terms)
    rows = np.repeat(np.arange(len(counts)), sizes)
    known = columns >= 0
    rows, columns, tfs = rows[known], columns[known], tfs[known]
    weights = np.rint(_log1(tfs) * frame.idf[columns] / WEIGHT_UNIT)
    basis = np.rint(frame.basis / BASIS_UNIT) if basis is None else basis
    vectors = np.zeros((len(counts), basis.shape[1]))
    # Exact while a row's weights sum to less than 2 ** 53 / 2 ** 18; a text of tens of
    # thousands of distinct terms is summed in integers instead.
    bound = np.bincount(rows, np.abs(weights), minlength=len(counts)) < 2.0 ** 35
    if len(rows):  # each row's products summed: exact, so the same in any order (dense blocks cost more)
        starts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
        vectors[rows[starts]] = np.add.reduceat(weights[:, None] * basis[columns], starts, axis=0)
    for row in np.flatnonzero(~bound):
        mine = rows == row
        vectors[row] = weights[mine].astype(np.int64) @ basis[columns[mine]].astype(np.int64)
    largest = np.abs(vectors).max(axis=1, initial=0, keepdims=True)
    return vectors / np.where(largest > 0, largest, 1)


def _log1(counts):
    """1 + log(count) for each count, by math.log (numpy's own log may round otherwise on some
    processors, and differently for a short array than for a long one)."""
    from ..numeric import np

    if not hasattr(_log1, "table"):
        _log1.table = np.array([0.0] + [1 + math.log(n) for n in range(1, 1024)])
    if len(counts) and counts.max() >= len(_log1.table):
        return np.array([1 + math.log(n) for n in counts.tolist()])
    return _log1.table[counts]


def _scaling(points):
    """(origin, grid steps per layout unit, shift) that fit these points to the GRID, with the
    same scale on both axes (so distances keep their meaning) and the short axis centred."""
    low = points.min(axis=0)
    span = float((points.max(axis=0) - low).max())
    scale = (GRID - 1) / span if span > 0 else 0.0
    return low, scale, ((GRID - 1) - (points.max(axis=0) - low) * scale) / 2


def _on_grid(frame: Skeleton, points) -> list[list[int]]:
    return _gridded(points, frame.low, frame.scale, frame.shift)


def _gridded(points, low, scale: float, shift) -> list[list[int]]:
    from ..numeric import np

    return np.clip(np.rint((points - low) * scale + shift), 0, GRID - 1).astype(int).tolist()


def tfidf(texts: Sequence[str]):
    """Sparse TF-IDF rows as (row, column, value) arrays in row order, rows L2-normalised;
    terms in one text only, or in more than half of them, left out (they place nothing).
    Returns also the number of texts and of terms kept."""
    rows, columns, values, vocabulary, _ = _tfidf([term_counts(text) for text in texts])
    return rows, columns, values.astype("float32"), len(texts), len(vocabulary)


def _tfidf(counts: Sequence[Counts]):
    """(rows, columns, values, term -> column, idf by column) of the texts' term counts."""
    from ..numeric import np

    n = len(counts)
    words, sizes, terms, tf = _numbered(counts)
    # Terms numbered anew in the order they first occur, text after text: that order is
    # the columns' (and the sums below add in it).
    found, first = np.unique(terms, return_index=True)
    found = found[np.argsort(first)]
    renumber = np.zeros(len(words), np.int64)
    renumber[found] = np.arange(len(found))
    codes = renumber[terms]
    df = np.bincount(codes, minlength=len(found))
    keep = (df > 1) & (df <= max(2, n // 2))
    column = np.cumsum(keep) - 1  # term number -> column, for the terms kept
    vocabulary = dict(zip(map(words.__getitem__, found[keep].tolist()), range(int(keep.sum()))))
    idf = np.log(1 + n / df[keep])
    tf = tf.astype(np.float64)
    rows = np.repeat(np.arange(n), sizes)
    kept = keep[codes]
    rows, codes, tf = rows[kept], codes[kept], tf[kept]
    values = (1 + np.log(tf)) * idf[column[codes]]
    norms = np.sqrt(np.bincount(rows, values * values, minlength=n))
    values /= norms[rows]
    return rows, column[codes], values, vocabulary, idf


def _numbered(counts: Sequence[Counts]):
    """The texts' term counts as arrays: (words, how many terms each text has, each term's
    number in `words`, its count), text after text, each text's terms in its own order. Texts
    numbered into one word list (TermNumbers) are taken as they are, with no dict a text;
    terms given by name are numbered after that list's words."""
    from ..numeric import np

    shared = next((c.words for c in counts if isinstance(c, TermNumbers)), ())
    words, number = shared, None
    terms, tfs = [], []
    for text in counts:
        if isinstance(text, TermNumbers) and text.words is shared:
            terms.append(text.terms)
            tfs.append(text.counts)
            continue
        if number is None:
            words = list(shared)
            number = dict(zip(words, range(len(words))))
        numbers, times = array("i"), array("i")
        for term, count in text.items():
            numbers.append(number.setdefault(term, len(number)))
            times.append(count)
        terms.append(numbers)
        tfs.append(times)
    if number is not None:
        words += list(number)[len(words):]  # the terms numbered here, in their numbers' order
    sizes = np.fromiter(map(len, terms), np.int64, len(terms))
    return (words, sizes, np.frombuffer(b"".join(terms), np.intc).astype(np.int64),
            np.frombuffer(b"".join(tfs), np.intc).astype(np.int64))


class _Columns:
    """Term number -> the frame's column for that term (-1: none), for the numbers of one word
    list: each word looked up once, however many texts have it."""

    def __init__(self, columns: dict[str, int]):
        self.columns, self.words, self.table = columns, None, None

    def __call__(self, words: Sequence[str], terms):
        from ..numeric import np

        if words is not self.words or len(self.table) != len(words):
            self.words, self.table = words, np.full(len(words), -2, np.int64)
        table = self.table
        missing = terms[table[terms] == -2]  # (np.unique's first call in a process is slow)
        new = np.flatnonzero(np.bincount(missing, minlength=len(table))).tolist() if len(missing) else []
        table[new] = np.fromiter(map(self.columns.get, map(words.__getitem__, new), repeat(-1)), np.int64, len(new))
        return table[terms]


class _Sparse:
    """A sparse matrix (entry (row, column) = value, for each given) that multiplies dense
    ones: each product only over its entries, not a dense block of every term (a text
    has few of the terms: dense blocks would multiply mostly zeros). Each output row adds
    its products in the order of its entries, one after the other (numpy's reduceat): the
    same sums on any machine."""

    CHUNK = 1 << 12  # entries multiplied at once: their products (CHUNK x width floats) stay in cache

    def __init__(self, rows, columns, values, shape: tuple[int, int]):
        from ..numeric import np

        order = np.argsort(rows, kind="stable")
        self.rows, self.columns, self.values = rows[order], columns[order], values[order][:, None]
        self.shape = shape
        starts = np.flatnonzero(np.diff(self.rows, prepend=-1))  # where each row's entries begin
        # chunks of whole rows, about CHUNK entries each (cut where the row holding every CHUNKth
        # entry begins): (first entry, end, the rows' starts in it)
        cuts = np.unique(starts[np.searchsorted(starts, np.arange(0, len(rows), self.CHUNK), side="right") - 1])
        ends = np.append(cuts[1:], len(rows))
        self.chunks = [(low, high, starts[(starts >= low) & (starts < high)] - low) for low, high in zip(cuts, ends)]

    def __matmul__(self, matrix):
        from ..numeric import np

        out = np.zeros((self.shape[0], matrix.shape[1]), dtype=np.result_type(self.values, matrix))
        for low, high, starts in self.chunks:
            products = self.values[low:high] * matrix[self.columns[low:high]]
            out[self.rows[low + starts]] = np.add.reduceat(products, starts, axis=0)
        return out

    @property
    def T(self) -> "_Sparse":
        return _Sparse(self.columns, self.rows, self.values[:, 0], self.shape[::-1])


def _svd(rows, columns, values, n: int, terms: int, rank: int):
    """Randomized truncated SVD of the TF-IDF matrix (Halko et al.: a random range, two power
    iterations): (left vectors times singular values, n x rank; right vectors, rank x terms)."""
    from ..numeric import np

    matrix = _Sparse(rows, columns, values, (n, terms))
    transposed = matrix.T

    def times(dense):  # X @ dense
        return (matrix @ dense.astype(values.dtype)).astype(np.float64)

    def times_transposed(dense):  # X.T @ dense
        return (transposed @ dense.astype(values.dtype)).astype(np.float64)

    rng = np.random.default_rng(SEED)
    sample = min(rank + 10, terms, n)
    q, _ = np.linalg.qr(times(rng.standard_normal((terms, sample))))
    for _ in range(POWER_ITERATIONS):
        q, _ = np.linalg.qr(times_transposed(q))
        q, _ = np.linalg.qr(times(q))
    small = times_transposed(q).T  # sample x terms: Q.T @ X
    u, s, vt = np.linalg.svd(small, full_matrices=False)
    return (q @ u[:, :rank]) * s[:rank], vt[:rank]


def _basis(rows, columns, values, n: int, terms: int, rank: int):
    """terms x rank: a TF-IDF row times it is the row's LSA vector. SVD components are
    defined up to sign: each is made to have its largest entry among the texts positive."""
    from ..numeric import np

    vectors, vt = _svd(rows, columns, values.astype(np.float32), n, terms, rank)
    flip = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(vectors.shape[1])])
    return np.ascontiguousarray((vt * np.where(flip == 0, 1, flip)[:, None]).T)


def lsa(texts: Sequence[str]):
    """Each text as a unit vector of DIMENSIONS latent components, all texts in one SVD
    (the benchmark's "pca" baseline)."""
    from ..numeric import np

    rows, columns, values, n, terms = tfidf(texts)
    if terms == 0:
        return np.zeros((n, 2))
    vectors, _ = _svd(rows, columns, values, n, terms, max(1, min(DIMENSIONS, n - 1, terms)))
    lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(lengths > 0, lengths, 1)


def _fix_signs(vectors, np):
    """SVD components are defined up to sign: make each one's largest entry positive."""
    flip = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(vectors.shape[1])])
    return vectors * np.where(flip == 0, 1, flip)


def nearest(vectors, k: int):
    """Each row's k most similar other rows by cosine (vectors are unit length), best first."""
    from ..numeric import np

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
    which needs no powers), by full-batch gradient steps. The two axes are kept as
    separate arrays: gathering rows of an n x 2 array costs more."""
    from ..numeric import np

    n, k = neighbours.shape
    heads = np.repeat(np.arange(n), k)
    tails = neighbours.ravel()
    ends = np.concatenate([heads, tails])
    sources = np.repeat(heads, negatives)
    rng = np.random.default_rng(SEED)
    x, y = start[:, 0].copy(), start[:, 1].copy()
    for epoch in range(epochs):
        step_size = rate * (1.0 - epoch / epochs)
        head_x, head_y = np.repeat(x, k), np.repeat(y, k)
        dx, dy = head_x - x.take(tails), head_y - y.take(tails)  # attraction along every edge, on both ends
        factor = -2 / (1 + (dx * dx + dy * dy))
        pull_x, pull_y = np.clip(dx * factor, -4, 4), np.clip(dy * factor, -4, 4)
        others = rng.integers(0, n, size=len(sources))  # repulsion from random papers
        dx, dy = np.repeat(head_x, negatives) - x.take(others), np.repeat(head_y, negatives) - y.take(others)
        d2 = dx * dx + dy * dy
        factor = 2 / ((0.001 + d2) * (1 + d2))
        push_x, push_y = np.clip(dx * factor, -4, 4), np.clip(dy * factor, -4, 4)
        itself = others == sources
        push_x[itself], push_y[itself] = 0, 0
        x += step_size * (np.bincount(ends, np.concatenate([pull_x, -pull_x]), minlength=n)
                          + np.bincount(sources, push_x, minlength=n))
        y += step_size * (np.bincount(ends, np.concatenate([pull_y, -pull_y]), minlength=n)
                          + np.bincount(sources, push_y, minlength=n))
    return np.stack([x, y], axis=1)


def _pca2(vectors):
    """The first two principal components, scaled to a spread of about 10 (UMAP's start)."""
    from ..numeric import np

    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    vt = _fix_signs(vt.T, np).T
    points = centred @ vt[:2].T
    if points.shape[1] < 2:
        points = np.hstack([points, np.zeros((len(points), 2 - points.shape[1]))])
    spread = np.abs(points).max()
    return points * (10 / spread) if spread > 0 else points


def _to_grid(points, np) -> list[tuple[int, int]]:
    """The points on the GRID, scaled as a layout's are (the benchmark's baselines)."""
    return [tuple(p) for p in _gridded(points, *_scaling(points))]
