"""Topic assignment measured against a signal the assignment does not see.

    .venv/bin/python bench/topics.py [PATH-TO-icml2024-events.json] [--keywords EXPORT.json] [--part held|tuning]

The signal, by preference:
- author keywords (--keywords: a paperlists-style JSON list of {"title", "keywords"}, keywords
  separated by ";" or ","), matched to the development set by title and mapped to the taxonomy
  with its own keyword matcher;
- else the paper's real title: the topics whose keywords occur in it. The title is the
  authors' own one-line statement of the subject, and assign_topics only sees the derived
  title and the abstract. The keyword lists used for these labels are frozen at LABELS_AT
  (the taxonomy before this work), so editing the taxonomy cannot move the labels.
Precision counts, among papers with at least one label, the assigned topics that are labels;
it is a lower bound (a title need not name every topic of its paper).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.importers import topics as matching  # noqa: E402
from papersite.importers.titles import derive_title  # noqa: E402
from titledata import DEFAULT, load_pairs, split  # noqa: E402

LABELS_AT = "78f8c24"
TAXONOMY = ROOT / "papersite" / "default_topics.yaml"


def frozen_taxonomy() -> list[dict]:
    text = subprocess.run(["git", "show", f"{LABELS_AT}:papersite/default_topics.yaml"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout
    return yaml.safe_load(text)["topics"]


def keyword_hits(text: str, taxonomy: list[dict]) -> set[str]:
    """Topics with a keyword in text (the matcher of assign_topics, on text alone)."""
    tokens = matching._tokens(text)
    hits = set()
    for topic in taxonomy:
        if any(matching._find(kw, tokens) for kw in matching._prepare(tuple(topic["keywords"]))):
            hits.add(topic["slug"])
    return hits


def norm_title(t: str) -> str:
    return re.sub(r"\W+", " ", t).strip().lower()


def labels_for(pairs, keywords: Path | None) -> tuple[list[set[str]], str]:
    taxonomy = [t for t in frozen_taxonomy() if t["slug"] != "general-ml"]
    if keywords:
        export = {norm_title(r.get("title", "")): r.get("keywords") or ""
                  for r in json.loads(keywords.read_text(encoding="utf-8"))}
        out = []
        for _, title in pairs:
            kw = export.get(norm_title(title), "")
            kw = "; ".join(kw) if isinstance(kw, list) else kw
            out.append(keyword_hits(kw.replace(";", " . "), taxonomy) if kw else set())
        return out, f"author keywords from {keywords.name}"
    return [keyword_hits(title, taxonomy) for _, title in pairs], \
        f"keywords of the real title (taxonomy frozen at {LABELS_AT})"


class tally:
    """True and false positives and negatives per topic, over the labelled papers."""

    def __init__(self, assigned, labels, labelled):
        self.tp, self.fp, self.fn = Counter(), Counter(), Counter()
        for i in labelled:
            for slug in assigned[i]:
                (self.tp if slug in labels[i] else self.fp)[slug] += 1
            for slug in labels[i] - set(assigned[i]):
                self.fn[slug] += 1

    def _sum(self, counter, slug):
        return counter[slug] if slug else sum(counter.values())

    def support(self, slug=None):
        return self._sum(self.tp, slug) + self._sum(self.fn, slug)

    def given(self, slug=None):
        return self._sum(self.tp, slug) + self._sum(self.fp, slug)

    def precision(self, slug=None):
        return f"{self._sum(self.tp, slug) / self.given(slug):.2f}" if self.given(slug) else "-"

    def recall(self, slug=None):
        return f"{self._sum(self.tp, slug) / self.support(slug):.2f}" if self.support(slug) else "-"


def report(keywords: Path | None, tuning, held, part: str = "held") -> None:
    pairs = held if part == "held" else tuning
    taxonomy = yaml.safe_load(TAXONOMY.read_text(encoding="utf-8"))["topics"]
    labels, source = labels_for(pairs, keywords)
    assigned = [matching.assign_topics(derive_title(a), a, taxonomy) for a, _ in pairs]
    labelled = [i for i, lab in enumerate(labels) if lab]
    from old_papersite import old_derive  # the previous commit's titles, topics and taxonomy, for comparison
    old_topics, old_title = old_derive(LABELS_AT, "assign_topics", "derive_title")
    frozen = frozen_taxonomy()
    before = [old_topics(old_title(a), a, frozen) for a, _ in pairs]
    now, prev = tally(assigned, labels, labelled), tally(before, labels, labelled)
    print(f"\ntopics on the {part} part ({len(pairs)} papers); signal: {source}; "
          f"{len(labelled)} papers have a label")
    print(f"  {'topic':28} {'labels':>6} {'given':>6} {'prec':>6} {'recall':>6}   {LABELS_AT}: prec recall")
    for topic in taxonomy:
        s = topic["slug"]
        print(f"  {s:28} {now.support(s):6d} {now.given(s):6d} {now.precision(s):>6} {now.recall(s):>6}"
              f"   {prev.precision(s):>13} {prev.recall(s):>6}")
    print(f"  {'all (micro)':28} {now.support():6d} {now.given():6d} {now.precision():>6} {now.recall():>6}"
          f"   {prev.precision():>13} {prev.recall():>6}")
    counts = Counter(len(a) for a in assigned)
    print(f"  topics per paper: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
          + f"; general-ml only: {sum(1 for a in assigned if a == ['general-ml'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--keywords", type=Path)
    parser.add_argument("--part", choices=("held", "tuning"), default="held")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: not found (the development set lives in ../shared/data)")
    tuning, held = split(load_pairs(args.data))
    report(args.keywords, tuning, held, args.part)


if __name__ == "__main__":
    main()
