"""Related papers by text similarity (TF-IDF cosine), without an O(n^2) scan.

Each paper keeps only its most distinctive terms; candidates are the papers
sharing one of them, found through an inverted index. That keeps the work
roughly linear, which matters at tens of thousands of papers.
"""
from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict

TERMS_PER_PAPER = 25
WORD = re.compile(r"[a-z][a-z0-9]+")
STOP_WORDS = frozenset("""
a about above after again against all also although among an and any are as at be because been
before being below between both but by can could did do does doing during each either et al few for
from further had has have having here how however i if in into is it its itself just may might more
most much must new no nor not novel of off on once only or other our ours out over own paper
propose proposed provide results same several should show shows so some such than that the their
them then there these they this those through thus to too two under until up upon use used using
very via was we well were what when where which while who whom why will with within without would
yet one first based approach method methods work also can""".split())


def tokens(text: str) -> list[str]:
    return [_stem(w) for w in WORD.findall(text.lower()) if w not in STOP_WORDS]


def _stem(word: str) -> str:
    """A light plural stemmer: enough to pair 'networks' with 'network'."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def find_related(texts: dict[str, str], count: int = 5) -> dict[str, list[str]]:
    """Map each id to up to `count` ids of the most similar texts, best first."""
    ids = sorted(texts)
    term_counts = {pid: Counter(tokens(texts[pid])) for pid in ids}
    doc_freq = Counter(term for counts in term_counts.values() for term in counts)
    total = len(ids)
    vectors: dict[str, dict[str, float]] = {}
    postings: dict[str, list[str]] = defaultdict(list)
    for pid in ids:
        weights = {t: (1 + math.log(n)) * math.log(1 + total / doc_freq[t])
                   for t, n in term_counts[pid].items() if doc_freq[t] > 1}
        top = heapq.nlargest(TERMS_PER_PAPER, weights.items(), key=lambda tw: (tw[1], tw[0]))
        norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
        vectors[pid] = {t: w / norm for t, w in top}
        for term in vectors[pid]:
            postings[term].append(pid)
    related = {}
    for pid in ids:
        scores: dict[str, float] = defaultdict(float)
        for term, weight in vectors[pid].items():
            for other in postings[term]:
                if other != pid:
                    scores[other] += weight * vectors[other][term]
        best = heapq.nsmallest(count, scores.items(), key=lambda kv: (-round(kv[1], 12), kv[0]))
        related[pid] = [other for other, _ in best]
    return related
