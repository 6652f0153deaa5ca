"""Related papers by text similarity (TF-IDF cosine).

Each paper keeps only its most distinctive terms; candidates are the papers
sharing one of them, found through an inverted index. A build scores every
paper against every candidate with numpy, a block of papers at a time (a dense
block of scores: on real vocabularies common terms have long postings, and
accumulating their products in Python dicts cost most of the build); an edit
rescores the few papers it touches with the same integers in plain Python.

Weights are rounded to integers after normalising, so a similarity is an exact
integer: the same whichever of the two papers it is computed from, in
whatever order it is summed. That is what lets `RelatedIndex` update the lists
after an edit instead of recomputing them, and still equal a clean build.
"""
from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_left
from collections import Counter
from itertools import chain

from ..numeric import np

from ..parallel import in_background, parallel_map, worth_forking
from ..text.words import TermNumbers, prose_term_counts as term_counts

TERMS_PER_PAPER = 40  # fewer found the topic less often; more cost far more scoring (docs/performance.md)
COUNT = 5  # related papers per paper
SCALE = 1 << 24  # weight resolution: a score is at most SCALE**2 = 2**48 (Cauchy-Schwarz)
BLOCK_CELLS = 1 << 18  # scores held at once per block: 2 MB of float64, small enough to stay in cache
VECTOR_BLOCK = 4_096  # papers whose vectors are made at once (their temporaries: ~20 MB)
SCORED_AT_ONCE = 64  # changed vectors whose rows of scores an edit holds at once (8 bytes a paper each)
GROUPS = 64  # stretches of a row of scores whose maxima bound its top (see _BlockScorer.best)
_LOG1 = [0.0] + [1 + math.log(n) for n in range(1, 4096)]  # 1 + log(count)


def _norm(weights: list[float]) -> float:
    """Euclidean norm, exactly rounded whatever the order of the weights (math.fsum)."""
    return math.sqrt(math.fsum(w * w for w in weights)) or 1.0


def _log1(n: int) -> float:
    return _LOG1[n] if n < len(_LOG1) else 1 + math.log(n)


def _idf(df: int, papers: int) -> float:
    """A term's inverse document frequency, of its document frequency rounded to four significant
    bits (the middle of its step; exact below 16). An edit moves a term's frequency by one: with
    the exact frequency, every paper holding a common term among its top ones would get a new
    vector and be scored again (thousands at 50,000 papers); rounded, a common term's IDF moves
    on one edit in a few, and so few vectors do."""
    step = 1 << max(df.bit_length() - 4, 0)
    return math.log(1 + papers / (df - df % step + (step - 1) / 2))


def find_related(texts: dict[str, str], count: int = COUNT) -> dict[str, list[str]]:
    """Map each id to up to `count` ids of the most similar texts, best first (ties: by id)."""
    return RelatedIndex(count).update({pid: (text,) for pid, text in texts.items()})


class RelatedIndex:
    """The related-papers computation of the last build, kept to update it after an edit.

    An edit changes the document frequency of a few terms, and the IDF of fewer
    (see _idf). Only papers whose top terms (or the terms that could enter them)
    are among those get a new vector; only papers that can see such a vector as a candidate get a new
    list, and most of those by merging the new scores into their current five.
    Adding, removing or re-identifying a paper changes every weight (the
    paper count is in every IDF): that recomputes everything.
    """

    def __init__(self, count: int = COUNT, restart: float = 0.05):
        self.count = count
        self.restart = restart  # recompute everything when more than this share of texts changed
        self.ids: list[str] = []  # sorted; a paper's number is its index here
        self.id_set: set[str] = set()
        self.texts: list[tuple[str, ...]] = []
        self.words: list[str] = []  # term number -> term
        self.vocabulary: dict[str, int] = {}  # term -> term number
        self.docs: list[tuple[array, array]] = []  # per paper: term numbers, counts
        self.df = array("i")  # term number -> papers containing it
        self.holders: dict[int, array] | None = None  # term -> those papers; made when edits begin
        self.idf: dict[int, float] = {}  # terms in more than one paper
        self.vectors: list[tuple[array, array]] = []  # per paper: top terms, their integer weights
        self.floors: list[tuple[float, str] | None] = []  # weakest key kept in a full top, else None
        self.postings: dict[int, tuple[array, array]] | None = None  # term -> papers with it on top,
        # their weights; made when edits begin (a build scores with _BlockScorer)
        self.best: list[array] = []  # per paper: score, paper, score, paper, ..., best first (see ranked)
        self.listers: list[set[int]] | None = None  # per paper: the papers whose lists hold it;
        # made when edits begin
        self.related: dict[str, list[str]] = {}
        self.counted_for: dict | None = None  # the texts count_terms() counted anew, until update() takes them

    def __getstate__(self) -> dict:
        return {**self.__dict__, "counted_for": None}

    def count_terms(self, texts: dict[str, tuple[str, ...]]) -> None:
        """Count now what update(texts), given this same dict object, would count anew: when it starts
        over, every text. The map's layout takes the counts (kept_counts) rather than count them
        again, so a build calls this before it forks the map's process."""
        if self.counted_for is texts:
            return
        # Counted anew for other texts and never scored (a build failed in between): the lists
        # are not those texts', so start over; or the papers are not the same ones.
        if self.counted_for is not None or len(texts) != len(self.ids) or texts.keys() != self.id_set:
            self._count_all(sorted(texts), texts)  # (comparing key sets is cheaper than sorting the ids)
            return
        changed = [i for i, pid in enumerate(self.ids) if texts[pid] != self.texts[i]]
        if len(changed) > self.restart * len(self.ids):  # a burst of edits (git checkout): start over
            self._count_all(self.ids, texts)

    def update(self, texts: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
        """id -> related ids; a paper's text is given in parts (title, abstract), read
        as if joined by '. ' (parts, because comparing them with last build's is cheap)."""
        self.count_terms(texts)
        if self.counted_for is texts:
            self.counted_for = None
            self._score_all()
            return self.related
        changed = [i for i, pid in enumerate(self.ids) if texts[pid] != self.texts[i]]
        if changed:
            self._edit(changed, texts)
        return self.related

    def kept_counts(self, pid: str, text: str) -> TermNumbers | None:
        """The term counts of paper `pid` as last indexed, if its parts joined by '. ' were
        `text` then (the map lays out the same words: it takes them rather than count them again)."""
        kept = self.kept_terms(pid, text)
        return None if kept is None else TermNumbers(self.words, *kept)

    def kept_terms(self, pid: str, text: str) -> tuple[array, array] | None:
        """kept_counts as arrays: term numbers (in `words`) and counts."""
        paper = bisect_left(self.ids, pid)
        if paper == len(self.ids) or self.ids[paper] != pid or ". ".join(self.texts[paper]) != text:
            return None
        return self.docs[paper]

    # -- building blocks ------------------------------------------------------

    def _counts(self, text: tuple[str, ...]) -> tuple[array, array]:
        return self._numbered(term_counts(". ".join(text)))

    def _counts_of_all(self, texts: list[tuple[str, ...]]) -> list[tuple[array, array]]:
        """[self._counts(text) for text in texts]. The second half is counted in a process of its own
        where worth one: a core is idle at this point of a build (the search index and the map start
        after it). It sends back compact arrays, numbered among its texts, that are numbered here."""
        half = len(texts) // 2
        if not worth_forking(len(texts) - half):
            return [self._counts(text) for text in texts]
        with in_background(lambda: _counted_apart(texts[half:]), len(texts) - half) as second_half:
            first = [self._counts(text) for text in texts[:half]]
            words, terms, counts, lengths = second_half()
        vocabulary = self.vocabulary
        for term in words:  # the new terms, numbered in the order _counts would meet them
            if term not in vocabulary:
                vocabulary[term] = len(self.words)
                self.words.append(term)
        number = np.fromiter(map(vocabulary.__getitem__, words), np.int32, len(words))
        terms = number[np.frombuffer(terms, np.int32)].tobytes()
        starts = np.concatenate(([0], np.cumsum(lengths))).tolist()
        return first + [(array("i", terms[4 * a:4 * b]), array("i", counts[4 * a:4 * b]))
                        for a, b in zip(starts, starts[1:])]

    def _numbered(self, counts: Counter) -> tuple[array, array]:
        """Term counts as arrays of term numbers and counts (a tenth of a Counter's memory)."""
        vocabulary = self.vocabulary
        for term in [term for term in counts if term not in vocabulary]:
            vocabulary[term] = len(self.words)
            self.words.append(term)
        return array("i", map(vocabulary.__getitem__, counts)), array("i", counts.values())

    def prepare_for_edits(self) -> None:
        """Make now what the first edit would otherwise wait for (the preview calls
        this after its first build)."""
        self._holders()
        self._posted()
        self._listers()

    def _listers(self) -> list[set[int]]:
        """Per paper, the papers listing it: the lists an edit of it must rank again."""
        if self.listers is None:
            self.listers = [set() for _ in self.ids]
            for paper, best in enumerate(self.best):
                for other in best[1::2]:
                    self.listers[other].add(paper)
        return self.listers

    def _posted(self) -> dict[int, tuple[array, array]]:
        if self.postings is None:
            self.postings = {}
            for paper in range(len(self.ids)):
                self._post(paper, +1)
        return self.postings

    def _holders(self) -> dict[int, array]:
        """Term -> the papers whose text holds it. Only edits need it (to find the
        papers a moved term touches without a pass over all): a one-shot build
        never makes it."""
        if self.holders is None:
            self.holders = {}
            for paper, (terms, _) in enumerate(self.docs):
                for term in terms:
                    self.holders.setdefault(term, array("i")).append(paper)
        return self.holders

    def _set_idf(self, term: int) -> None:
        df = self.df[term]
        if df > 1:  # a term of one paper relates it to nothing (as in _score_all)
            self.idf[term] = _idf(df, len(self.ids))
        else:
            self.idf.pop(term, None)

    def _vector(self, paper: int) -> None:
        self.vectors[paper], self.floors[paper] = self._vector_of(paper)

    def _vector_of(self, paper: int) -> tuple[tuple[array, array], tuple[float, str] | None]:
        """The paper's top terms, normalised and rounded; the key a term must beat to join them."""
        idf, words = self.idf, self.words
        terms, counts = self.docs[paper]
        log1 = _LOG1 if max(counts, default=0) < len(_LOG1) else [_log1(n) for n in range(max(counts) + 1)]
        weights = [(log1[n] * w, words[t], t) for t, n in zip(terms, counts) if (w := idf.get(t)) is not None]
        top = heapq.nlargest(TERMS_PER_PAPER, weights)
        norm = _norm([w for w, _, _ in top])
        vector = array("i", [t for _, _, t in top]), array("i", [round(w / norm * SCALE) for w, _, _ in top])
        return vector, top[-1][:2] if len(top) == TERMS_PER_PAPER else None

    def _all_vectors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """_vector_of for every paper at once, with numpy: the same top terms, the same integers.
        VECTOR_BLOCK papers at a time: every paper's temporaries at once took ~250 MB at 50,000.
        Returns the vectors end to end too, as _BlockScorer takes them: lengths, terms, weights."""
        idf, words = self.idf, self.words
        idf_of = np.full(len(words), np.nan)
        idf_of[np.fromiter(idf, np.int64, len(idf))] = np.fromiter(idf.values(), np.float64, len(idf))
        rank = np.empty(len(words), np.int64)
        rank[sorted(range(len(words)), key=words.__getitem__)] = np.arange(len(words))
        parts = [self._block_vectors(first, self.docs[first:first + VECTOR_BLOCK], idf_of, rank)
                 for first in range(0, len(self.docs), VECTOR_BLOCK)]
        return tuple(np.concatenate(part) for part in zip(*parts)) if parts else _packed([])

    def _block_vectors(self, first: int, docs: list[tuple[array, array]], idf_of: np.ndarray,
                       rank: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The vectors of papers first, first + 1, ... whose term counts are `docs`. `idf_of` and
        `rank`: each term's IDF (NaN for a term of one paper) and place in the order of the words.
        Returns them end to end too (_packed)."""
        words = self.words
        lengths = np.fromiter((len(terms) for terms, _ in docs), np.int64, len(docs))
        terms = np.concatenate([np.frombuffer(t, np.int32) for t, _ in docs] or [np.zeros(0, np.int32)])
        counts = np.concatenate([np.frombuffer(c, np.int32) for _, c in docs] or [np.zeros(0, np.int32)])
        log1 = np.array([_log1(n) for n in range(int(counts.max(initial=0)) + 1)])  # math.log's values
        weight = log1[counts] * idf_of[terms]
        known = ~np.isnan(weight)  # terms of one paper have no IDF
        paper, weight, terms = np.repeat(np.arange(len(docs)), lengths)[known], weight[known], terms[known]
        # Per paper, as heapq.nlargest((w, word, t)): by weight, then word, both descending. One sort
        # of one integer key, not lexsort's three: a weight is a count's log times one of the few
        # IDFs, so it is ranked among those products rather than among all the weights.
        values = np.unique(np.multiply.outer(log1, np.unique(idf_of[terms])))
        if len(docs) * len(values) * len(words) < 1 << 62:  # the key fits in an int64
            place = len(values) - 1 - np.searchsorted(values, weight)
            order = np.argsort((paper * len(values) + place) * len(words) + (len(words) - 1 - rank[terms]))
        else:
            order = np.lexsort((-rank[terms], -weight, paper))
        paper, weight, terms = paper[order], weight[order], terms[order]
        starts = np.searchsorted(paper, np.arange(len(docs) + 1))
        top = np.arange(len(paper)) - starts[paper] < TERMS_PER_PAPER
        paper, weight, terms = paper[top], weight[top], terms[top]
        starts = np.searchsorted(paper, np.arange(len(docs) + 1)).tolist()
        squares = (weight * weight).tolist()  # the products _norm makes, one list for the block
        norms = np.array([math.sqrt(math.fsum(squares[a:b])) or 1.0 for a, b in zip(starts, starts[1:])])
        # Each paper's arrays from bytes: no Python number per entry, whose millions would be freed
        # among the arrays kept, leaving the memory they took held (~100 MB at 50,000 papers).
        packed = np.diff(starts), terms.astype(np.int32), np.rint(weight / norms[paper] * SCALE).astype(np.int32)
        terms, integers = packed[1].tobytes(), packed[2].tobytes()
        for number, (a, b) in enumerate(zip(starts, starts[1:]), start=first):
            self.vectors[number] = array("i", terms[4 * a:4 * b]), array("i", integers[4 * a:4 * b])
            last = self.vectors[number][0][-1] if b > a else 0
            self.floors[number] = (float(weight[b - 1]), words[last]) if b - a == TERMS_PER_PAPER else None
        return packed

    def ranked(self, paper: int) -> list[tuple[int, int]]:
        """The paper's related papers as (score, paper number), best first."""
        best = self.best[paper]
        return list(zip(best[::2], best[1::2]))

    def _scores(self, paper: int) -> dict[int, int]:
        """Similarity of `paper` with every paper sharing a top term with it (where above 0)."""
        return _positive(self._dense_scores(paper))

    def _dense_scores(self, paper: int) -> np.ndarray:
        """The paper's similarity with every paper, as a row (0 where they share no top term)."""
        row = np.zeros(len(self.ids), np.int64)
        postings = self._posted()
        for term, weight in zip(*self.vectors[paper]):
            others, weights = postings[term]
            row[np.frombuffer(others, np.int32)] += weight * np.frombuffer(weights, np.int32).astype(np.int64)
        row[paper] = 0
        return row

    def _rank(self, paper: int, scores: dict[int, int]) -> None:
        self._keep(paper, array("q", chain.from_iterable(self._best_of(scores))))

    def _best_of(self, scores: dict[int, int]) -> list[tuple[int, int]]:
        """The best `count` (score, paper) pairs: highest score first, then lowest number."""
        top = heapq.nlargest(self.count, scores.values())
        least = max(top[-1], 1) if top else 1
        return [(-s, o) for s, o in sorted((-s, o) for o, s in scores.items() if s >= least)[:self.count]]

    def _keep(self, paper: int, best: array) -> None:
        """best: score, paper, score, paper, ..., best first (an array, not a list of tuples: a
        quarter of the memory, and a build keeps one per paper)."""
        if self.listers is not None:
            old, new = set(self.best[paper][1::2]), set(best[1::2])
            for other in old - new:
                self.listers[other].discard(paper)
            for other in new - old:
                self.listers[other].add(paper)
        self.best[paper] = best
        self.related[self.ids[paper]] = [self.ids[o] for o in best[1::2]]

    def _post(self, paper: int, sign: int) -> None:
        """Add the paper to (or remove it from) the postings of its top terms."""
        for term, weight in zip(*self.vectors[paper]):
            papers, weights = self.postings.get(term) or self.postings.setdefault(term, (array("i"), array("i")))
            if sign > 0:
                papers.append(paper)
                weights.append(weight)
            else:
                at = papers.index(paper)
                del papers[at], weights[at]

    # -- the two ways to an answer ----------------------------------------------

    def _count_all(self, ids: list[str], texts: dict[str, tuple[str, ...]]) -> None:
        """The first half of starting over: every text's term counts (for _score_all)."""
        self.ids, self.id_set, self.texts = ids, set(ids), [texts[pid] for pid in ids]
        self.docs = self._counts_of_all(self.texts)
        self.counted_for = texts

    def _score_all(self) -> None:
        """Everything else from scratch, the per-paper steps on all cores."""
        ids = self.ids
        df = np.bincount(np.concatenate([np.frombuffer(terms, np.int32) for terms, _ in self.docs]
                                        or [np.zeros(0, np.int32)]), minlength=len(self.words))
        held = np.flatnonzero(df)
        self.df = array("i", df.astype(np.int32).tobytes())
        idf = {n: _idf(n, len(ids)) for n in set(df[held].tolist()) if n > 1}  # a few hundred frequencies
        self.idf = {term: idf[n] for term, n in zip(held.tolist(), df[held].tolist()) if n > 1}
        self.vectors, self.floors = [(array("i"), array("i"))] * len(ids), [None] * len(ids)
        self.postings, self.best, self.related = None, [array("q")] * len(ids), {}
        self.holders = self.listers = None
        packed = self._all_vectors()
        scorer = _BlockScorer(self.vectors, self.count, packed)
        del packed  # the scorer holds its own copies
        papers = range(len(ids))
        for paper, best in zip(papers, chain.from_iterable(parallel_map(scorer.best, scorer.blocks()))):
            self._keep(paper, best)

    def _edit(self, changed: list[int], texts: dict[str, str]) -> None:
        # 1. New term counts; the terms whose document frequency moved.
        moved: set[int] = set()
        holders = self._holders()
        for paper in changed:
            self.texts[paper] = texts[self.ids[paper]]
            old_terms = set(self.docs[paper][0])
            self.docs[paper] = self._counts(self.texts[paper])
            new_terms = set(self.docs[paper][0])
            self.df.frombytes(bytes(self.df.itemsize * (len(self.words) - len(self.df))))  # its new terms, if any
            for term in old_terms - new_terms:
                self.df[term] -= 1
            for term in new_terms - old_terms:
                self.df[term] += 1
            for term in old_terms - new_terms:
                holders[term].remove(paper)
            for term in new_terms - old_terms:
                holders.setdefault(term, array("i")).append(paper)
            moved |= old_terms ^ new_terms
        old_idf = {term: self.idf.get(term) for term in moved}
        for term in moved:
            self._set_idf(term)
        shifted = {term for term in moved if self.idf.get(term) != old_idf[term]}  # most moved terms' IDF did not

        # 2. Papers whose vector changes: the edited ones, those holding a term whose IDF
        #    shifted among their top terms, and those where such a term now beats the weakest.
        revector = set(changed)
        rising = {term for term in shifted if term in self.idf and (old_idf[term] is None or
                                                                    self.idf[term] > old_idf[term])}
        for paper in set().union(*(holders.get(term, ()) for term in shifted)) - revector:
            terms, counts = self.docs[paper]
            vector, floor = self.vectors[paper][0], self.floors[paper]
            for term in shifted.intersection(terms):
                if term in vector:
                    revector.add(paper)
                elif term in rising:  # its weight went up: does it beat the weakest kept term?
                    n = counts[terms.index(term)]
                    if floor is None or (_log1(n) * self.idf[term], self.words[term]) > floor:
                        revector.add(paper)

        # 3. New vectors; every paper whose list held an old one or that sees a new one as a
        #    candidate. (A paper that saw an old vector but never listed it has nothing to
        #    undo: what it gains, the new scores say.)
        listers = self._listers()
        self._posted()  # made on first use; _post needs it
        seen_by: set[int] = set().union(*(listers[paper] for paper in revector))
        for paper in revector:
            self._post(paper, -1)
            self._vector(paper)
            self._post(paper, +1)
        listing = seen_by - revector  # papers whose list held a changed vector

        # 4. New lists: in full for changed vectors and for lists that held one; the others only
        #    gain the new scores, since no other score of theirs moved, and only where one beats
        #    their weakest kept score (found for every paper at once, by numpy: a common term's
        #    shifted IDF changes dozens of vectors, each scored against thousands of papers).
        rows = sorted(revector)
        incoming: dict[int, dict[int, int]] = {}  # paper -> {changed paper: its new positive score}
        for first in range(0, len(rows), SCORED_AT_ONCE):
            block = rows[first:first + SCORED_AT_ONCE]
            scores = np.stack([self._dense_scores(paper) for paper in block])
            number = np.array(block)[:, None]
            scored = np.flatnonzero((scores > 0).any(axis=0))
            bests = [self.best[paper] for paper in scored.tolist()]
            full = np.array([len(best) == 2 * self.count for best in bests], bool)
            weakest = np.array([(best[-2], best[-1]) if best else (0, 0) for best in bests], np.int64).reshape(-1, 2)
            part = scores[:, scored]
            gains = (part > 0) & (~full | (part > weakest[:, 0]) | ((part == weakest[:, 0]) & (number < weakest[:, 1])))
            for column in sorted(set(scored[gains.any(axis=0)].tolist()).union(listing) - revector):
                at = np.flatnonzero(scores[:, column] > 0)
                if len(at):
                    incoming.setdefault(column, {}).update(zip(number[at, 0].tolist(), scores[at, column].tolist()))
            for paper, row in zip(block, scores):
                self._rank(paper, _positive(row))
        for paper in sorted(listing | (incoming.keys() - revector)):
            best = self.ranked(paper)
            gained = incoming.get(paper, {})
            if any(other in revector for _, other in best):
                # A listed paper that now scores lower may leave the list to one these scores do not
                # hold: ranked in full. Else the listed papers only rose, and above them can only be
                # papers whose vector changed, all among the new scores.
                if any(other in revector and gained.get(other, 0) < score for score, other in best):
                    self._rank(paper, self._scores(paper))
                else:
                    self._rank(paper, {o: s for s, o in best} | gained)
                continue
            if len(best) == self.count:  # full: only a score above the weakest kept one gets in
                weakest_kept = best[-1]
                gained = {o: s for o, s in gained.items()
                          if s > weakest_kept[0] or s == weakest_kept[0] and o < weakest_kept[1]}
            if gained:
                self._rank(paper, {o: s for s, o in best} | gained)

def _positive(row: np.ndarray) -> dict[int, int]:
    """Paper number -> score, of a row of scores' entries above 0 (no other can be listed)."""
    others = np.flatnonzero(row > 0)
    return dict(zip(others.tolist(), row[others].tolist()))


def _counted_apart(texts: list[tuple[str, ...]]) -> tuple[list[str], bytes, bytes, list[int]]:
    """RelatedIndex._counts of each text, numbered in an index of their own: its words, then, end to
    end, each text's term numbers and counts, and each text's number of terms. Small to send back
    from another process, unlike a Counter per text."""
    apart = RelatedIndex()
    counted = [apart._counts(text) for text in texts]
    return (apart.words, b"".join(terms.tobytes() for terms, _ in counted),
            b"".join(counts.tobytes() for _, counts in counted), [len(terms) for terms, _ in counted])


def _packed(vectors: list[tuple[array, array]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The vectors end to end: each one's length, then all their terms, then all their weights."""
    empty = [np.zeros(0, np.int32)]
    return (np.fromiter((len(terms) for terms, _ in vectors), np.int64, len(vectors)),
            np.concatenate([np.frombuffer(t, np.int32) for t, _ in vectors] or empty),
            np.concatenate([np.frombuffer(w, np.int32) for _, w in vectors] or empty))


class _BlockScorer:
    """Every paper's best `count` (score, paper) pairs, as `RelatedIndex._best_of(_scores(...))`
    gives them, for a block of papers at once.

    A paper's vector entry (term, weight) meets every paper on that term's
    postings; their products, summed into a dense row of scores per paper of
    the block, are the same integers `_scores` sums (float64
    holds integers up to 2**53 exactly, and no score exceeds 2**48).
    """

    def __init__(self, vectors: list[tuple[array, array]], count: int,
                 packed: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None):
        """`packed`: _packed(vectors), where the caller has it."""
        self.count, self.size = count, len(vectors)
        # A row of scores, padded with zeros to GROUPS stretches of one length (see best).
        self.width = -(-self.size // GROUPS) * GROUPS
        lengths, terms, weights = packed if packed is not None else _packed(vectors)
        self.starts = np.concatenate(([0], np.cumsum(lengths)))  # a paper's entries, CSR
        # 32-bit integers (terms, papers and weights all fit): the workers that score share these,
        # and at 50,000 papers 64-bit ones took ~30 MB more while the related stage peaks
        self.terms, self.weights = terms.astype(np.int32), weights.astype(np.int32)
        # Postings: entries ordered by term, then paper.
        order = np.argsort(self.terms, kind="stable")
        self.posted_papers = np.repeat(np.arange(len(vectors), dtype=np.int32), lengths)[order]
        self.posted_weights = self.weights[order]
        width = int(self.terms.max()) + 1 if len(self.terms) else 0
        self.posting_starts = np.searchsorted(self.terms[order], np.arange(width))
        self.posting_lengths = np.bincount(self.terms, minlength=width)

    def _floor(self, maxima: np.ndarray) -> np.ndarray:
        """Per row, a score that at least `count` scores of the row reach (and at least 1), of
        the maxima of its GROUPS stretches: the `count`-th largest of them, each maximum being
        another score. Far cheaper than partitioning whole rows, and it leaves few others above it."""
        if self.count > GROUPS:  # more scores wanted than there are maxima: any positive score may be
            return np.ones(len(maxima))
        return np.maximum(np.partition(maxima, GROUPS - self.count, axis=1)[:, GROUPS - self.count], 1)

    def blocks(self, cells: int = BLOCK_CELLS) -> list[tuple[int, int]]:
        step = max(1, cells // max(self.size, 1))
        return [(start, min(start + step, self.size)) for start in range(0, self.size, step)]

    def best(self, block: tuple[int, int]) -> list[array]:
        """Per paper of the block: score, paper, score, paper, ..., best first."""
        first, stop = block
        rows, width = stop - first, self.width
        entries = slice(self.starts[first], self.starts[stop])
        terms = self.terms[entries]
        lengths = self.posting_lengths[terms]
        # Entry e of the block meets postings[start[e] : start[e] + lengths[e]].
        total = int(lengths.sum())
        offsets = np.cumsum(lengths) - lengths
        positions = np.arange(total) + np.repeat(self.posting_starts[terms] - offsets, lengths)
        rows_at = np.repeat(np.arange(rows) * width, np.diff(self.starts[first:stop + 1]))  # each entry's row
        products = np.repeat(self.weights[entries].astype(np.float64), lengths) * self.posted_weights[positions]
        scores = np.bincount(np.repeat(rows_at, lengths) + self.posted_papers[positions], weights=products,
                             minlength=rows * width).reshape(rows, width)
        scores[np.arange(rows), np.arange(first, stop)] = 0  # a paper is not related to itself
        # A row's scores that reach its floor (the best and a few more) are in the stretches whose
        # maximum does: only those are compared, a few of GROUPS.
        stretches = scores.reshape(rows, GROUPS, width // GROUPS)
        maxima = stretches.max(axis=2)
        floor = self._floor(maxima)
        row, stretch = np.nonzero(maxima >= floor[:, None])
        at, column = np.nonzero(stretches[row, stretch] >= floor[row, None])
        row, other = row[at], stretch[at] * (width // GROUPS) + column
        value = scores[row, other]
        order = np.lexsort((other, -value, row))  # by paper, then best score, then lowest number
        row, other, value = row[order], other[order], value[order]
        kept = np.arange(len(row)) - np.searchsorted(row, row) < self.count  # each row's first `count`
        ends = np.searchsorted(row[kept], np.arange(rows + 1)).tolist()
        pairs = np.empty((int(kept.sum()), 2), np.int64)
        pairs[:, 0], pairs[:, 1] = value[kept], other[kept]
        data = pairs.tobytes()  # each row's array from bytes: no Python number per score
        return [array("q", data[16 * a:16 * b]) for a, b in zip(ends, ends[1:])]


def counted_texts(papers, abstracts: dict, index: RelatedIndex) -> dict[str, tuple[str, str]]:
    """Each paper's text in parts, (title, abstract text), its words counted in `index`:
    related papers score them, and the map's layout takes the same counts (kept_counts)."""
    texts = {p.id: (p.title, abstracts[p.id].text) for p in papers}
    index.count_terms(texts)
    return texts
