"""Related papers on real abstracts: do they find the topic? Judged by a real signal.

    .venv/bin/python bench/related_quality.py [--variants baseline,bigrams,...]

The signal: two ICML 2024 papers that share an author are, far more often
than two papers drawn at random, about the same topic. For every paper that
has another paper sharing an author in the catalog ("answerable"), the
figures are

- P@5: the share of its five related papers that share an author with it;
- hit@5: the share of answerable papers with at least one such paper among
  their five (both by the real author lists of the export, never shown to
  the method).

Variants: "baseline" is papersite.catalog.related as it is; "termsN" keeps N terms a
paper instead of 25; "bigrams" adds adjacent-word pairs as terms; "title2"
counts the title twice. Dense variants, computed here with numpy on the same
TF-IDF weights: "full" is cosine over every term (no truncation), "lsaK" the
cosine of K-dimensional LSA vectors (truncated SVD of the TF-IDF matrix, from
the eigenvectors of its Gram matrix), "full+lsaK" and "baseline+lsaK" the sum
of the two cosines.

Authors also reuse their own phrasing, so the figure rewards a method that
matches wording as well as topic: read it with the examples it prints (the
"Consistency Models" papers of issue #16). Each variant is a term counter
plugged into papersite.catalog.related in this process; nothing is written.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import papersite.catalog.related as related  # noqa: E402
import papersite.text.words as prose  # noqa: E402
from papersite.text.plain import plain_text  # noqa: E402
from realdata import real_papers  # noqa: E402

EXAMPLES = ("Consistency Models", "Threshold-Consistent")


def author_signal(papers) -> list[set[int]]:
    """Per paper, the other papers sharing an author with it (names compared as written)."""
    by_author = defaultdict(set)
    for number, paper in enumerate(papers):
        for name in paper.authors:
            by_author[" ".join(name.lower().split())].add(number)
    peers = [set() for _ in papers]
    for numbers in by_author.values():
        if len(numbers) < 30:  # a name on 30+ papers is more likely two people, or a lab head
            for number in numbers:
                peers[number] |= numbers - {number}
    return peers


def score(related_lists: list[list[int]], peers: list[set[int]]) -> dict:
    answerable = [n for n, p in enumerate(peers) if p]
    precision = statistics.mean(sum(o in peers[n] for o in related_lists[n]) / 5 for n in answerable)
    hits = statistics.mean(any(o in peers[n] for o in related_lists[n]) for n in answerable)
    return {"p@5": precision, "hit@5": hits, "answerable": len(answerable)}


def run(texts: list[tuple[str, str]], counter=None) -> tuple[list[list[int]], float]:
    ids = [f"p{n:05d}" for n in range(len(texts))]
    saved, saved_terms = related.RelatedIndex._counts, related.TERMS_PER_PAPER
    if isinstance(counter, int):  # a number of terms per paper
        related.TERMS_PER_PAPER, counter = counter, None
    if counter is not None:
        related.RelatedIndex._counts = lambda self, parts: self._numbered(counter(parts))
    try:
        start = time.perf_counter()
        lists = related.RelatedIndex().update(dict(zip(ids, texts)))
        seconds = time.perf_counter() - start
    finally:
        related.RelatedIndex._counts, related.TERMS_PER_PAPER = saved, saved_terms
    number = {pid: n for n, pid in enumerate(ids)}
    return [[number[o] for o in lists[pid]] for pid in ids], seconds


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="baseline")
    parser.add_argument("--consistency", action="store_true",
                        help="only print the related papers of every 'consisten*' title, in a catalog of the "
                             "ICML papers and this repository's content/ (where TCM is), at 25 and 40 terms")
    args = parser.parse_args(argv)
    if args.consistency:
        return consistency_examples()
    papers = real_papers()
    texts = [(p.title, plain_text(p.abstract)) for p in papers]
    peers = author_signal(papers)
    chance = statistics.mean(len(p) for p in peers if p) / len(papers)
    print(f"{len(papers):,} ICML 2024 papers; answerable: {sum(1 for p in peers if p):,}; "
          f"a random pick shares an author {chance:.2%} of the time")
    print("| variant | P@5 | hit@5 | seconds |")
    print("|---|---:|---:|---:|")
    results = {}
    for name in args.variants.split(","):
        lists, seconds = dense(texts, name) if name.startswith(("full", "lsa", "baseline+")) else \
            run(texts, VARIANTS[name])
        results[name] = lists
        figures = score(lists, peers)
        print(f"| {name} | {figures['p@5']:.3f} | {figures['hit@5']:.3f} | {seconds:.2f} |")
    for name, lists in results.items():
        print(f"\n{name}:")
        for n, paper in enumerate(papers):
            if any(e in paper.title for e in EXAMPLES):
                print(f"  {paper.title[:70]}")
                for o in lists[n][:3]:
                    print(f"    -> {papers[o].title[:70]}")


def dense(texts: list[tuple[str, str]], name: str) -> tuple[list[list[int]], float]:
    from papersite.numeric import np
    start = time.perf_counter()
    index = related.RelatedIndex()
    index.update({f"p{n:05d}": t for n, t in enumerate(texts)})
    terms = sorted(index.idf)
    column = {t: i for i, t in enumerate(terms)}
    matrix = np.zeros((len(texts), len(terms)))
    for paper, (ids, counts) in enumerate(index.docs):
        for t, n in zip(ids, counts):
            if t in column:
                matrix[paper, column[t]] = related._log1(n) * index.idf[t]
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
    gram = matrix @ matrix.T  # cosine over full vectors
    scores = np.zeros_like(gram)
    part = name.split("+")
    if "full" in part:
        scores += gram
    if "baseline" in part:
        for paper in range(len(texts)):
            for other, value in index._scores(paper).items():
                scores[paper, other] += value / related.SCALE ** 2
    for p in part:
        if p.startswith("lsa"):
            k = int(p[3:])
            values, vectors = np.linalg.eigh(gram)  # gram = U S^2 U^T: LSA vectors are U S
            lsa = vectors[:, -k:] * np.sqrt(np.maximum(values[-k:], 0))
            lsa /= np.linalg.norm(lsa, axis=1, keepdims=True) + 1e-12
            scores += lsa @ lsa.T
    np.fill_diagonal(scores, -np.inf)
    lists = [list(np.argsort(-row, kind="stable")[:5]) for row in scores]
    return lists, time.perf_counter() - start


def consistency_examples() -> None:
    import yaml
    from papersite.source.content import find_content_files, split_front_matter
    texts = {f"icml-{n:05d}": (p.title, plain_text(p.abstract)) for n, p in enumerate(real_papers())}
    for path in find_content_files(ROOT / "content"):
        front, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
        texts[path.name] = (yaml.safe_load(front)["title"], plain_text(body))
    for terms in (25, 40):
        related.TERMS_PER_PAPER, saved = terms, related.TERMS_PER_PAPER
        lists = related.RelatedIndex().update(texts)
        related.TERMS_PER_PAPER = saved
        print(f"\n{terms} terms a paper:")
        for pid, (title, _) in texts.items():
            if "onsisten" in title:
                print(f"  {title[:70]}\n" + "".join(f"    -> {texts[o][0][:70]}\n" for o in lists[pid]), end="")


def words(text: str) -> list[str]:
    """Stems in order, '' for a stop word (it breaks a phrase)."""
    return [prose._PROSE_STEMS[w] for w in prose.PROSE_WORD.findall(text.lower())]


def with_bigrams(parts) -> Counter:
    counts = Counter()
    for part in parts:
        for sentence in re.split(r"[.;:!?]\s", part):
            stems = words(sentence)
            counts.update(s for s in stems if s)
            counts.update(f"{a} {b}" for a, b in zip(stems, stems[1:]) if a and b)
    return counts


def title_twice(parts) -> Counter:
    return related.term_counts(". ".join((parts[0],) + tuple(parts)))


def bigrams_title_twice(parts) -> Counter:
    return with_bigrams((parts[0],) + tuple(parts))


VARIANTS: dict = {"baseline": None, "bigrams": with_bigrams, "title2": title_twice,
                  "bigrams+title2": bigrams_title_twice, "terms25": 25, "terms40": 40, "terms60": 60}

if __name__ == "__main__":
    main(sys.argv[1:])
