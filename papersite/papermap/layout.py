"""The paper map: every paper placed in 2-D so that papers about the same thing sit together.

    the first FRAME landmarks' texts -> TF-IDF -> truncated SVD (LSA, 64 dimensions): the frame
    every landmark -> the frame's space -> kNN graph -> force layout
    every other paper -> the frame's space -> among its 10 most similar landmarks

Up to LANDMARKS papers (all of a smaller catalog) are laid out by a force
layout: UMAP's objective (attract along the 5-nearest-neighbour graph, repel
from random papers; t-SNE's 1 / (1 + d^2) kernel) run by plain full-batch
gradient steps in numpy, started from the first two principal components.
Which papers are landmarks depends on their keys alone (the smallest hashes);
the first FRAME of them also make the LSA space all texts are read in.
Every other paper goes where its most similar landmarks are, weighted by
similarity, as UMAP and landmark MDS place new points.

So where a paper sits depends on its own text and the landmarks' texts, and
on nothing else: an edit to any other paper moves only that paper, and a
rebuild places it alone (`LayoutCache`), yet lands exactly where a clean
build puts it. An edit to a landmark that is not one of the frame's lays the
landmarks out again in the same space: only the rows of the kNN graph, and
the placed papers' choices of landmarks, that the edit can change are
worked out again. bench/map_layout.py chose the layout and measures what
the landmarks cost in quality.

Deterministic: fixed seeds, no threads that race, coordinates rounded to a
grid of GRID steps, and every vector and similarity is a sum of whole
multiples of a small unit, exact in float64 whatever order BLAS adds them in
(see _fixed): a row worked out alone is the row worked out among thousands,
and the rest is done row by row, in a fixed order.

An edit to one of the frame's texts makes the frame anew, and everything
with it; `build` starts that ahead, before it loads its session
(engine/map_ahead.py).
"""
from __future__ import annotations

import functools
import hashlib
import math
from array import array
from itertools import chain, repeat
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from ..parallel import Detachable, ItemStream, parallel_parts
from ..text.words import TermNumbers, prose_term_counts as term_counts


GRID = 4096  # coordinates are integers 0..GRID-1 on both axes
LANDMARKS = 4000  # laid out by the force layout; the rest placed among them
FRAME = 2000  # the landmarks whose texts make the LSA space: fewer edits make it anew (see bench/map_layout.py)
NEAREST = 10  # landmarks a paper is placed among
PULL = 32  # their weights: similarity ** PULL (lower kept fewer neighbours, higher stacked papers)
DIMENSIONS = 64  # LSA components: fewer kept far fewer neighbours, more gained little at more cost
POWER_ITERATIONS = 2  # of the randomized SVD
NEIGHBOURS = 5  # kNN graph degree: UMAP's default, 15, kept fewer neighbours at more edges
EPOCHS = 80  # more placed no better
NEGATIVES = 3  # repelling samples per edge and epoch
SEED = 20240721
VERSION = "frame-3"  # of the layout: part of every digest, so a cache of another one is not reused

Point = tuple[int, int]
SENT_AT_ONCE = 500  # texts' counts a fresh process is sent at a time (see LayoutCache.job's detach)
SPARE = "map"  # the kind of spare interpreter (parallel.start_spare) the map's work takes, where one waits
SPARSE = "scipy.sparse"  # the sparse products' module (see _sparse)
Counts = Mapping[str, int] | TermNumbers  # a text's term counts (prose_term_counts), by term or numbered


class Frame(NamedTuple):
    """The LSA space the frame's texts make: what turns any text's term counts into a vector."""

    digest: str  # of the frame's keys and texts
    columns: dict[str, int]  # term -> column of `basis`
    idf: object  # numpy: each column's inverse document frequency among the frame's texts
    basis: object  # numpy, terms x components, in whole BASIS_UNITs: a text's TF-IDF row -> its LSA vector


class Skeleton(NamedTuple):
    """The landmarks' layout, and what places any other text among them."""

    digest: str  # of the landmarks' keys and texts
    frame: Frame
    keys: list[str]  # the landmarks, in order
    texts: list[str]  # their texts' digests
    vectors: object  # numpy, landmarks x components: theirs, unit length, in whole FIXED_UNITs
    graph: object  # numpy, landmarks x neighbours: each one's most similar others, best first
    points: object  # numpy, landmarks x 2: the force layout, before the grid
    low: object  # numpy, 2: the grid's origin in layout units
    scale: float  # grid steps per layout unit
    shift: object  # numpy, 2: centres the short axis on the grid
    own: dict[str, Point]  # landmark key -> its point


class Placement(NamedTuple):
    """Texts placed among a Skeleton's landmarks, a row each: by text digest, its vector (in whole
    FIXED_UNITs, int32), its NEAREST most similar landmarks (best first), their similarities, and
    its point."""

    rows: dict[str, int]  # text digest -> row
    vectors: object
    tops: object
    similar: object
    points: list[Point]

    def where(self) -> dict[str, Point]:
        return dict(zip(self.rows, self.points))


class Laid(NamedTuple):
    """A layout: the digest of the keyed texts it is of (None: not of exactly these), their keys,
    a point each; and what a rebuild places new texts with (None for a provisional layout)."""

    digest: str | None
    keys: list[str]
    points: list[Point]
    skeleton: Skeleton | None = None
    placed: Placement | None = None  # every text not a landmark's


def _of_skeleton(made: tuple[Skeleton, Placement] | None, digest: str) -> tuple[Skeleton | None, Placement | None]:
    """A layout made ahead (the landmarks' Skeleton, and the texts placed among them), if it is of
    these very landmarks' texts (their digest is `digest`); else (None, None)."""
    return made if made is not None and made[0].digest == digest else (None, None)


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
        self.placed: Placement | None = None
        self.texts: Mapping[str, str] = {}  # of the layout kept (what the next build's layout ahead starts from)
        self.asked: tuple[str | None, Mapping[str, str]] = (None, {})  # the digest and texts of the last job
        self.shown: dict[tuple[str, str], tuple[str, int | str]] = {}  # papermap.files.map_files's titles and slugs
        # key -> (the parts its text was made of, text_digest of it): an edit digests its own text alone
        self.text_digests: dict[str, tuple[tuple, str]] = {}
        self._digested: tuple[Mapping[str, str] | None, dict[str, str]] = (None, {})  # texts -> digests_of them
        self._chosen: tuple[list[str], list[str]] = ([], [])  # keys -> their landmarks, as the last job chose them
        # The layout being made ahead of this build, where `build` started one (engine/map_ahead.py):
        # done() says whether it is made, result() gives it (see _of_skeleton; None: nothing made ahead).
        self.ahead = None
        self.relaid = False  # whether the last job lays the landmarks out again

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
        whole = skeleton_digest((key, every[key]) for key in chosen)
        frame = skeleton_digest((key, every[key]) for key in in_frame(chosen))
        last = (self.skeleton, self.placed) if self.skeleton is not None and self.skeleton.frame.digest == frame \
            else (None, None)  # what can be reused: all read in the same space
        ahead = self.ahead if last[0] is None else None  # the frame being made ahead, if any
        if ahead is not None and ahead.done():
            last, ahead = _of_skeleton(ahead.result(), whole), None
        own, marks = set(chosen), [every[key] for key in chosen]
        digests = {key: every[key] for key in keys if key not in own}  # of the texts placed

        def counted(key: str) -> Counts:
            return counts(key, texts[key]) or term_counts(texts[key])

        def work() -> Laid:
            made = _of_skeleton(ahead.result(), whole) if ahead is not None else last
            return _lay_out(digest, keys, chosen, marks, digests, made, counted, whole, frame)

        self.relaid = ahead is not None or last[0] is None or last[0].digest != whole
        if ahead is not None:
            return work, 0  # here, once the build waits for it: the frame is still being made
        skeleton, placed = last
        if not self.relaid:  # only new texts to place
            rows = placed.rows if placed is not None else {}
            return work, sum(1 for d in set(digests.values()) if d not in rows)
        if skeleton is not None:  # in the same frame: as much work as texts to read (the rest is quick)
            moved = sum(a != b for a, b in zip(skeleton.texts, marks)) if skeleton.keys == chosen else len(chosen)
            return work, moved + sum(1 for d in set(digests.values()) if placed is None or d not in placed.rows)

        def detach() -> tuple[Callable[..., Laid], tuple]:
            # All laid out anew, so perhaps in a fresh process: sent what it reads, each text's counts
            # as related papers kept them (compact arrays), or the text where they did not. They are
            # taken now (related papers may count new words later) and streamed, in the order the
            # layout reads them, so that the process holds a few hundred at a time; the word list
            # they number into goes once, with the job.
            given = [(key, counts(key, texts[key]) or texts[key]) for key in chain(chosen, _to_place(digests).values())]
            words = next((c.words for _, c in given if isinstance(c, TermNumbers)), [])
            rows = [(key, c) if not isinstance(c, TermNumbers) or c.words is not words else (key, c.terms, c.counts)
                    for key, c in given]
            return _lay_out_given, (digest, keys, chosen, marks, digests, words,
                                    ItemStream(_chunked(rows)), whole, frame)

        return Detachable(work, detach, SPARE), len(chosen) + len(set(digests.values()))

    def keep(self, laid: Laid) -> list[Point]:
        self.digest, self.keys, self.points, self.skeleton, self.placed = laid
        self.texts = self.asked[1] if laid.digest is not None and laid.digest == self.asked[0] else {}
        self.ahead = None
        return list(self.points)

    def where(self) -> dict[str, Point]:
        """Paper key -> its point in the last layout kept."""
        return dict(zip(self.keys, self.points))


def _to_place(digests: dict[str, str]) -> dict[str, str]:
    """Text digest -> the first key with that text."""
    new: dict[str, str] = {}
    for key, text_key in digests.items():
        new.setdefault(text_key, key)
    return new


def _lay_out(digest: str, keys: list[str], chosen: list[str], texts: list[str], digests: dict[str, str],
             last: tuple[Skeleton | None, Placement | None], counted: Callable[[str], Counts],
             whole: str, frame: str) -> Laid:
    """The layout of `keys`: the landmarks `chosen` (their texts' digests `texts`) laid out, every
    other text (`digests`: key -> its text's digest) placed among them; reusing what it can of
    `last`, a layout in the same frame (the first FRAME landmarks' texts: digest `frame`)."""
    if not keys:
        return Laid(digest, [], [], None, None)
    before, placed = last
    skeleton = before
    if before is None:  # all anew; counted in the order _lay_out_given is sent them
        given = [counted(key) for key in chosen]
        skeleton = lay_out_landmarks(fit(in_frame(given), frame), chosen, texts, dict(zip(chosen, given)).__getitem__,
                                     whole)
    elif before.digest != whole:
        skeleton = lay_out_landmarks(before.frame, chosen, texts, counted, whole, before)
    placed = place_texts(skeleton, _to_place(digests), counted, placed, before)
    where, own = placed.where(), skeleton.own
    return Laid(digest, keys, [own[key] if key in own else where[digests[key]] for key in keys], skeleton, placed)


def _lay_out_given(digest: str, keys: list[str], chosen: list[str], texts: list[str], digests: dict[str, str],
                   words: list[str], given: Iterable[list[tuple]], whole: str, frame: str) -> Laid:
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
    return _lay_out(digest, keys, chosen, texts, digests, (None, None), counted, whole, frame)


def _chunked(rows: list) -> Iterable[list]:
    for start in range(0, len(rows), SENT_AT_ONCE):
        yield rows[start:start + SENT_AT_ONCE]


@functools.cache
def arithmetic() -> str:
    """What this machine's numpy, BLAS and scipy make of a fixed problem shaped like the layout's.
    Another processor can run other BLAS kernels (OpenBLAS picks them by CPU, or by
    OPENBLAS_CORETYPE), which sum in another order, and the force layout turns a last-bit
    difference into another map: a layout made on one is not reused on another (a build
    cache restored on another CI machine), since a clean build there would differ."""
    import scipy

    from ..numeric import np

    rng = np.random.default_rng(SEED)
    matrix = rng.standard_normal((600, 74))
    single = matrix.astype(np.float32)
    sparse = _sparse(np.sort(rng.integers(0, 512, 4000)), rng.integers(0, 74, 4000), single.ravel()[:4000], (512, 74))
    parts = (single[:512] @ single[:74].T, single.T @ single[:, :40], np.linalg.qr(matrix)[0],
             np.linalg.svd(matrix[:74], full_matrices=False)[0], matrix[:, :64] @ matrix[0, :64],
             np.log(1 + np.abs(matrix)), sparse @ single[:74], sparse.T @ single[:512])
    digest = hashlib.sha256(f"{np.__version__} {scipy.__version__}".encode())
    for part in parts:
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()[:16]


def texts_digest(texts: Mapping[str, str], digests: Mapping[str, str]) -> str:
    """The keyed texts, in order: each key with its text's digest (`digests`: LayoutCache.digests_of
    them). Keys count: they choose the landmarks. So does the machine's arithmetic."""
    joined = "".join([f"{len(key)},{key}{digests[key]}" for key in texts])  # hashed at once: one call, not one a text
    return hashlib.sha256(f"{VERSION} {arithmetic()}{joined}".encode("utf-8", "surrogatepass")).hexdigest()


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def skeleton_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """Of the landmarks' keys and their texts' digests (text_digest), in order."""
    joined = "".join([f"{len(key)},{key}\0{text_key}\0" for key, text_key in pairs])
    return hashlib.sha256(f"{VERSION} {arithmetic()}{joined}".encode("utf-8", "surrogatepass")).hexdigest()


def landmarks(keys: Sequence[str]) -> list[str]:
    """The keys laid out by the force layout: the LANDMARKS whose hashes are smallest, in
    that order. A paper added or removed changes them only if it is one of them."""
    ranked = sorted(keys, key=lambda key: hashlib.blake2b(key.encode("utf-8", "surrogatepass"),
                                                          digest_size=8).digest())
    return ranked[:LANDMARKS]


def in_frame(landmarks_: Sequence):
    """Of the landmarks (or what goes with them, in their order), the ones whose texts make the frame."""
    return landmarks_[:FRAME]


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


def fit(counts: Sequence[Counts], digest: str) -> Frame:
    """The frame: the LSA space of these texts (given as term counts), `digest` theirs."""
    from ..numeric import np

    n = len(counts)
    rows, columns, values, vocabulary, idf = _tfidf(counts)
    rank = max(1, min(DIMENSIONS, n - 1, len(vocabulary)))
    basis = _basis(rows, columns, values, n, len(vocabulary), rank) if vocabulary else np.zeros((0, 1))
    return Frame(digest, vocabulary, idf, np.rint(basis / BASIS_UNIT))


def lay_out_landmarks(frame: Frame, keys: list[str], texts: list[str], counted: Callable[[str], Counts],
                      digest: str, last: Skeleton | None = None) -> Skeleton:
    """The landmarks `keys` (their texts' digests `texts`, their counts `counted(key)`) read in
    `frame` and laid out by force. `last`, a layout in the same frame: the vectors of the texts
    it has are its own, and if only a few landmarks' texts changed, only the rows of the kNN
    graph they can change are worked out again."""
    from ..numeric import np

    n = len(keys)
    had = {} if last is None else {(key, text): row for row, (key, text) in enumerate(zip(last.keys, last.texts))}
    known = [had.get(pair) for pair in zip(keys, texts)]
    changed = [row for row, old in enumerate(known) if old is None]
    vectors = np.empty((n, frame.basis.shape[1]))
    if len(changed) < n:
        kept = [row for row, old in enumerate(known) if old is not None]
        vectors[kept] = last.vectors[[known[row] for row in kept]]
    columns = _Columns(frame.columns)
    for start in range(0, len(changed), 256):
        rows = changed[start:start + 256]
        vectors[rows] = _unit(_vectors(frame, [counted(keys[row]) for row in rows], columns))
    if n == 1:
        graph, points = np.zeros((1, 0), np.int64), np.zeros((1, 2))
    else:
        if last is not None and last.keys == keys and len(changed) <= AGAIN_AT_MOST:
            graph = _nearest_again(vectors, last.graph, changed)
        else:  # fewer neighbours on a small map: with everyone everyone's neighbour, the graph says nothing
            graph = nearest(vectors, min(NEIGHBOURS, max(2, round(math.sqrt(n)))))
        points = force_layout(graph, _pca2(vectors * FIXED_UNIT))
    low, scale, shift = _scaling(points)
    own = dict(zip(keys, map(tuple, _gridded(points, low, scale, shift))))
    return Skeleton(digest, frame, keys, texts, vectors, graph, points, low, scale, shift, own)


AGAIN_AT_MOST = 64  # landmarks' texts changed that are followed row by row; more: every row anew


def place_texts(skeleton: Skeleton, texts: Mapping[str, str], counted: Callable[[str], Counts],
                last: Placement | None = None, before: Skeleton | None = None) -> Placement:
    """The texts (text digest -> a key with that text, whose counts are `counted(key)`) placed among
    the landmarks. `last`, a placement among `before`'s landmarks in the same frame: the vectors
    of its texts are reused; where the landmarks are the same keys, so are its choices of
    landmarks that the edits to their texts cannot change; and where they are the very same,
    its points."""
    from ..numeric import np

    if last is not None and before is skeleton and last.rows.keys() == texts.keys():
        return last  # these very texts, placed among these very landmarks (a layout made ahead), in any order
    digests = list(texts)
    n, near = len(digests), min(NEAREST, len(skeleton.keys))
    old = [None] * n if last is None else [last.rows.get(d) for d in digests]
    kept = [row for row, was in enumerate(old) if was is not None]
    taken = [old[row] for row in kept]
    new = [row for row, was in enumerate(old) if was is None]
    vectors = np.zeros((n, skeleton.frame.basis.shape[1]), np.int32)
    if kept:
        vectors[kept] = last.vectors[taken]
    columns = _Columns(skeleton.frame.columns)
    for start in range(0, len(new), 256):
        rows = new[start:start + 256]
        vectors[rows] = _fixed(_vectors(skeleton.frame, [counted(texts[digests[row]]) for row in rows], columns))
    tops, similar = np.zeros((n, near), np.int64), np.zeros((n, near))
    points: list[Point | None] = [None] * n
    again: Sequence[int] = range(n)
    if kept and before is not None and before.keys == skeleton.keys and last.tops.shape[1] == near:
        moved = [row for row, (was, now) in enumerate(zip(before.texts, skeleton.texts)) if was != now]
        if len(moved) <= AGAIN_AT_MOST:
            tops[kept], similar[kept] = last.tops[taken], last.similar[taken]
            reached = _reached(vectors[kept], skeleton.vectors[moved], moved, tops[kept], similar[kept])
            again = sorted(new + [kept[row] for row in reached])
        if not moved:  # the very same landmarks' layout: the points stay
            for row, was in zip(kept, taken):
                points[row] = last.points[was]
    for start in range(0, len(again), 256):
        rows = list(again[start:start + 256])
        tops[rows], similar[rows] = _among(vectors[rows], skeleton.vectors, near)
    todo = [row for row, point in enumerate(points) if point is None]
    for row, point in zip(todo, _points_among(skeleton, tops[todo], similar[todo])):
        points[row] = point
    return Placement(dict(zip(digests, range(n))), vectors, tops, similar, points)


def place_on_cores(skeleton: Skeleton, texts: Mapping[str, str], counted: Callable[[str], Counts]) -> Placement:
    """place_texts(skeleton, texts, counted), the texts shared among the cores (parallel_parts).
    Each text's row is its own (see place), so the parts joined are the whole's to the last bit."""
    from ..numeric import np

    digests = list(texts)
    parts = parallel_parts(lambda part: place_texts(skeleton, {d: texts[d] for d in part}, counted), digests)
    if len(parts) == 1:
        return parts[0]
    return Placement(dict(zip(digests, range(len(digests)))), np.concatenate([p.vectors for p in parts]),
                     np.concatenate([p.tops for p in parts]), np.concatenate([p.similar for p in parts]),
                     [point for p in parts for point in p.points])


def place(skeleton: Skeleton, counts: Sequence[Counts]) -> list[Point]:
    """Each text's point (given its term counts) among the landmarks: where its NEAREST most
    similar ones are, each weighted by its similarity ** PULL. A text no landmark shares a
    term with goes to the landmarks' centre. A text placed alone lands exactly where it lands
    among thousands: every sum is exact (see _fixed), and the rest is done row by row."""
    counts = list(counts)
    return place_texts(skeleton, {str(i): i for i in range(len(counts))}, counts.__getitem__).points


def _among(vectors, landmarks, near: int):
    """(each text's `near` most similar landmarks, best first; their similarities), exact."""
    from ..numeric import np

    products = vectors.astype(np.float64) @ landmarks.T  # whole FIXED_UNIT ** 2s: only the chosen are scaled
    top = _top(products, near)
    return top, np.take_along_axis(products, top, axis=1) * FIXED_UNIT ** 2


def _reached(vectors, moved, which: list[int], tops, similar):
    """The rows (of texts with these `vectors`, their landmarks chosen as `tops` with `similar`
    similarities) whose choice the landmarks `which`, now with vectors `moved`, may change: one
    of them chosen, or now as similar as the last one chosen."""
    from ..numeric import np

    now = (vectors.astype(np.float64) @ moved.T) * FIXED_UNIT ** 2
    return np.flatnonzero((now >= similar[:, -1:]).any(axis=1) | np.isin(tops, which).any(axis=1)).tolist()


def _points_among(skeleton: Skeleton, tops, similar) -> list[Point]:
    """Where texts go given their landmarks `tops` and their similarities: the landmarks' points
    weighted by similarity ** PULL, summed in a fixed order (so a row's sum is its own, however
    many rows come with it); the landmarks' centre where every weight is zero."""
    from ..numeric import np

    if not len(tops):
        return []
    pulls = np.maximum(similar, 0)
    for _ in range(PULL.bit_length() - 1):  # similarity ** PULL, by squaring: exact steps, each its own
        pulls = pulls * pulls
    total, where = np.zeros(len(tops)), np.zeros((len(tops), 2))
    for column in range(tops.shape[1]):
        total += pulls[:, column]
        where += pulls[:, column, None] * skeleton.points[tops[:, column]]
    some = total > 0
    where[some] /= total[some, None]
    where[~some] = skeleton.points.mean(axis=0)
    return [tuple(p) for p in _gridded(where, skeleton.low, skeleton.scale, skeleton.shift)]


def _top(similar, k: int):
    """Each row's k largest entries, by column, largest first, equal ones the lower column first:
    a row's choice is its own, whatever rows come with it."""
    from ..numeric import np

    rows, width = similar.shape
    if k >= width:
        top = np.broadcast_to(np.arange(width), (rows, width)).copy()
    else:
        # the k + 1 largest last, the smallest of them first: as large as the next, a tie was cut
        parted = np.argpartition(similar, width - k - 1, axis=1)[:, width - k - 1:]
        top = parted[:, 1:]
        after = np.take_along_axis(similar, parted[:, :1], axis=1)
        last = np.take_along_axis(similar, top, axis=1).min(axis=1, keepdims=True)
        for row in np.flatnonzero(after[:, 0] == last[:, 0]):
            # an entry equal to the last one chosen was left out: the lowest columns go in
            above, equal = np.flatnonzero(similar[row] > last[row]), np.flatnonzero(similar[row] == last[row])
            top[row] = np.concatenate([above, equal[:k - len(above)]])
    order = np.lexsort((top, -np.take_along_axis(similar, top, axis=1)), axis=-1)
    return np.take_along_axis(top, order, axis=1)


def _unit(vectors):
    """Vectors (from _vectors) at unit length, in whole FIXED_UNITs; each row's length summed
    in a fixed order, so that it is its own."""
    from ..numeric import np

    squares = vectors * vectors
    total = squares[:, 0].copy()
    for column in range(1, squares.shape[1]):
        total += squares[:, column]
    length = np.sqrt(total)
    return _fixed(vectors / np.where(length > 0, length, 1)[:, None])


FIXED_UNIT = 2.0 ** -20  # of a unit vector's entries (see _fixed)
WEIGHT_UNIT, BASIS_UNIT = 2.0 ** -14, 2.0 ** -18  # of a TF-IDF weight (below 2 ** 7) and of a basis entry (below 1)


def _fixed(vectors):
    """Vectors with no entry above 1 in size, rounded to multiples of FIXED_UNIT: every product
    of two entries is a whole number of FIXED_UNIT ** 2 below 2 ** 40, every dot product one
    below 2 ** 47, all exact in float64. So BLAS gives the same sums, to the last bit, whether
    it multiplies one vector or a block of them, in whatever order its kernels add."""
    from ..numeric import np

    return np.rint(vectors / FIXED_UNIT)


def _vectors(frame: Frame, counts: list[Counts], columns: _Columns | None = None):
    """Each text's LSA vector (its TF-IDF row times the basis), scaled so that its largest entry
    is 1 in size (a zero vector for a text with no term of the frame's). Weights and basis are
    in whole WEIGHT_UNITs and BASIS_UNITs (the frame's basis is kept so), so the products
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
    basis = frame.basis
    # Each row's products summed: exact, so the same in any order (dense blocks cost more).
    vectors = _sparse(rows, columns, weights, (len(counts), len(basis))) @ basis
    # Exact while a row's weights sum to less than 2 ** 53 / 2 ** 18; a text of tens of
    # thousands of distinct terms is summed in integers instead.
    bound = np.bincount(rows, np.abs(weights), minlength=len(counts)) < 2.0 ** 35
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


def _sparse(rows, columns, values, shape: tuple[int, int]):
    """The matrix whose entry (row, column) is value, for each one given (`rows` in order), as
    scipy's CSR: it multiplies dense ones over its entries alone (a text has few of the terms:
    dense blocks would multiply mostly zeros), each output row summed in its entries' order."""
    from scipy.sparse import csr_matrix

    from ..numeric import np

    starts = np.zeros(shape[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=starts[1:])
    return csr_matrix((values, columns, starts), shape=shape)


def _svd(rows, columns, values, n: int, terms: int, rank: int):
    """Randomized truncated SVD of the TF-IDF matrix (Halko et al.: a random range, two power
    iterations): (left vectors times singular values, n x rank; right vectors, rank x terms)."""
    from ..numeric import np

    matrix = _sparse(rows, columns, values, (n, terms))
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
    """Each row's k most similar other rows (vectors in whole FIXED_UNITs: exact similarities),
    best first, equal ones the lower row first."""
    from ..numeric import np

    n = len(vectors)
    k = min(k, n - 1)
    found = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, 1024):
        block = vectors[start:start + 1024] @ vectors.T
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf
        found[start:start + 1024] = _top(block, k)
    return found


def _nearest_again(vectors, graph, changed: list[int]):
    """nearest(vectors, k) when only the rows `changed` of the vectors it was `graph` for have
    changed: the rows those can enter or leave worked out again, the rest kept."""
    from ..numeric import np

    last = (vectors * vectors[graph[:, -1]]).sum(axis=1, keepdims=True)  # exact: whole numbers below 2 ** 53
    now = vectors @ vectors[changed].T
    now[changed, np.arange(len(changed))] = -np.inf
    again = np.flatnonzero((now >= last).any(axis=1) | np.isin(graph, changed).any(axis=1))
    again = np.union1d(again, changed)
    graph = graph.copy()
    for start in range(0, len(again), 1024):
        rows = again[start:start + 1024]
        block = vectors[rows] @ vectors.T
        block[np.arange(len(rows)), rows] = -np.inf
        graph[rows] = _top(block, graph.shape[1])
    return graph


def force_layout(neighbours, start, epochs: int = EPOCHS, negatives: int = NEGATIVES, rate: float = 0.2):
    """A graph (row i: the k papers i is drawn to) laid out from `start` by UMAP's
    cross-entropy objective (with its a = b = 1 curve, 1 / (1 + d^2), t-SNE's kernel,
    which needs no powers), by full-batch gradient steps, in single precision. The two
    axes are kept as separate arrays (gathering rows of an n x 2 array costs more), and
    each step's forces on a paper are summed in one pass: pulls on both ends of every
    edge, then pushes."""
    from ..numeric import np

    n, k = neighbours.shape
    heads = np.repeat(np.arange(n), k)
    tails = neighbours.ravel()
    sources = np.repeat(heads, negatives)
    ends = np.concatenate([heads, tails, sources])  # who each force moves, in the order forces are laid out
    edges = len(heads)
    rng = np.random.default_rng(SEED)
    x, y = start[:, 0].astype(np.float32), start[:, 1].astype(np.float32)
    forces = np.empty(len(ends), np.float32)
    pulls, opposite, pushes = forces[:edges], forces[edges:2 * edges], forces[2 * edges:]
    for epoch in range(epochs):
        step_size = np.float32(rate * (1.0 - epoch / epochs))
        dx, dy = x.take(heads) - x.take(tails), y.take(heads) - y.take(tails)  # attraction along every edge
        pull = -2 / (1 + (dx * dx + dy * dy))
        others = rng.integers(0, n, size=len(sources))  # repulsion from random papers
        ex, ey = x.take(sources) - x.take(others), y.take(sources) - y.take(others)
        d2 = ex * ex + ey * ey
        push = 2 / ((np.float32(0.001) + d2) * (1 + d2))
        push[others == sources] = 0
        for along, away, axis in ((dx, ex, x), (dy, ey, y)):
            np.clip(along * pull, -4, 4, out=pulls)
            np.negative(pulls, out=opposite)
            np.clip(away * push, -4, 4, out=pushes)
            axis += step_size * np.bincount(ends, forces, minlength=n).astype(np.float32)
    return np.stack([x, y], axis=1).astype(np.float64)


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
