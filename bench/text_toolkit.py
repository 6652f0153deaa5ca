"""Do related papers and topics need stemmers and stop lists of their own? Measured on real papers.

    .venv/bin/python bench/text_toolkit.py [PATH-TO-icml2024-events.json]

Search must stem as lunr.js does (papersite.text.words.stem, a Porter stemmer).
Related papers (text.plural_stem, text.PROSE_STOP_WORDS) and topics
(text.suffix_stem) use lighter stemmers, and related papers a stop list of
their own. This swaps in each alternative, leaving everything else as
it is, and scores it on ../shared/data's ICML 2024 papers:

- related papers: of each paper's 5 related papers, the share written by at
  least one of its authors (people tend to write on their own subjects; a
  signal the similarity never sees), over the papers with a co-authored paper;
- topics: precision and recall of derive.assign_topics against the topics whose
  keywords are in the paper's real title (bench/topics.py's signal, labels
  always made with derive's own stemmer), on the held-out part;
- the time each takes.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.catalog import related
from papersite.text import words as text  # noqa: E402
from papersite.importers import topics as derive  # noqa: E402  (topic matching, with its stemmer)
from papersite.importers.titles import derive_title  # noqa: E402
from titledata import DEFAULT, PAPER_TYPES, split  # noqa: E402


def papers(path: Path) -> list[dict]:
    records = json.loads(path.read_text(encoding="utf-8"))
    return [r for r in records if r.get("type") in PAPER_TYPES and (r.get("abstract") or "").strip()
            and r.get("name")]


def related_score(records: list[dict], stem, stop_words) -> tuple[float, int, float]:
    """(share of related papers sharing an author, papers scored, seconds)"""
    saved = text.plural_stem, text.PROSE_STOP_WORDS
    text.plural_stem, text.PROSE_STOP_WORDS = stem, stop_words
    text._PROSE_STEMS.clear()
    try:
        texts = {str(n): f"{r['name']} {r['abstract']}" for n, r in enumerate(records)}
        start = time.perf_counter()
        found = related.find_related(texts)
        seconds = time.perf_counter() - start
    finally:
        text.plural_stem, text.PROSE_STOP_WORDS = saved
        text._PROSE_STEMS.clear()
    authors = {str(n): {a.strip().lower() for a in (r.get("speakers/authors") or "").split(",") if a.strip()}
               for n, r in enumerate(records)}
    by_author: dict[str, set[str]] = {}
    for paper, names in authors.items():
        for name in names:
            by_author.setdefault(name, set()).add(paper)
    shares = []
    for paper, names in authors.items():
        if not any(len(by_author[name]) > 1 for name in names) or not found.get(paper):
            continue  # no other paper by these authors: nothing to find
        shares.append(sum(1 for other in found[paper] if authors[other] & names) / len(found[paper]))
    return statistics.mean(shares), len(shares), seconds


def topic_score(held: list[tuple[str, str]], stem) -> tuple[float, float, float]:
    """(precision, recall, seconds) of assign_topics with derive's stemmer replaced by `stem`."""
    import yaml
    from topics import TAXONOMY, frozen_taxonomy, keyword_hits
    taxonomy = yaml.safe_load(TAXONOMY.read_text(encoding="utf-8"))["topics"]
    frozen = [t for t in frozen_taxonomy() if t["slug"] != "general-ml"]
    labels = [keyword_hits(title, frozen) for _, title in held]  # with derive's own stemmer
    titles = [derive_title(a) for a, _ in held]
    saved = derive._stem

    def forget():  # keywords are stemmed once per taxonomy: again with the other stemmer
        derive._prepare.cache_clear()
        derive._matcher.cache_clear()

    derive._stem = stem
    forget()
    try:
        start = time.perf_counter()
        assigned = [derive.assign_topics(title, a, taxonomy) for title, (a, _) in zip(titles, held)]
        seconds = time.perf_counter() - start
    finally:
        derive._stem = saved
        forget()
    tp = fp = fn = 0
    for topics, label in zip(assigned, labels):
        if not label:
            continue
        tp += sum(1 for t in topics if t in label)
        fp += sum(1 for t in topics if t not in label)
        fn += len(label - set(topics))
    return tp / (tp + fp), tp / (tp + fn), seconds


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not path.exists():
        sys.exit(f"{path}: not found (the development set lives in ../shared/data)")
    records = papers(path)
    print(f"related papers, {len(records)} ICML 2024 papers: share of the 5 related papers by a shared author")
    plural, prose = related._stem, related.STOP_WORDS
    for name, stem, stop in (("related.py's plural stemmer + its stop list (today)", plural, prose),
                             ("lunr.js Porter stemmer + related.py's stop list", text.stem, prose),
                             ("related.py's plural stemmer + lunr.js stop list", plural, text.STOP_WORDS),
                             ("lunr.js Porter stemmer + lunr.js stop list", text.stem, text.STOP_WORDS)):
        share, scored, seconds = related_score(records, stem, stop)
        print(f"  {name:52} {share:.4f} over {scored} papers, {seconds:.1f} s")
    from titledata import load_pairs
    _, held = split(load_pairs(path))
    print(f"\ntopics, held-out part ({len(held)} papers): precision / recall against the real titles' keywords")
    own = derive._stem
    for name, stem in (("derive.py's suffix stemmer (today)", own),
                       ("lunr.js Porter stemmer", lambda w: text.stem(w.lower())),
                       ("related.py's plural stemmer", lambda w: plural(w.lower()))):
        precision, recall, seconds = topic_score(held, stem)
        print(f"  {name:52} {precision:.3f} / {recall:.3f}, {seconds:.1f} s")


if __name__ == "__main__":
    main()
