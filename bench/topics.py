"""Topic assignment measured against a signal the assignment does not see.

    .venv/bin/python bench/topics.py [PATH-TO-icml2024-events.json] [--keywords EXPORT] [--part held|tuning]

The signal, by preference:
- author keywords (--keywords: a JSON list of {"title", "keywords"[, "abstract"]} as paperlists
  has them, or a TSV file with title, keywords and abstract columns as the ICLR OpenReview data
  repositories have them; keywords separated by ";" or ","), mapped to the taxonomy with the
  keyword matcher of assign_topics and the keyword lists frozen at LABELS_AT. When the export
  carries abstracts, its own papers are measured (split into tuning and held-out parts by a hash
  of the title, as the development set is); else the development set's papers, matched by title;
- else the paper's real title: the topics whose keywords occur in it. The title is the
  authors' own one-line statement of the subject, and assign_topics only sees the derived
  title and the abstract. The keyword lists used for these labels are frozen at LABELS_AT
  (the taxonomy before this work), so editing the taxonomy cannot move the labels.
Precision counts, among papers with at least one label, the assigned topics that are labels;
it is a lower bound (a title need not name every topic of its paper). "First topic" is the
precision of the best topic alone, over the labelled papers given a topic other than the generic
one, and "coverage" the share of labelled papers given such a topic.
"""
from __future__ import annotations

import argparse
import csv
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


def frozen_taxonomy(commit: str = LABELS_AT) -> list[dict]:
    text = subprocess.run(["git", "show", f"{commit}:papersite/default_topics.yaml"], cwd=ROOT,
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


def read_export(path: Path) -> list[dict]:
    """The export's records as {"title", "keywords" (one string), "abstract"}."""
    if path.suffix == ".tsv":
        csv.field_size_limit(1 << 24)
        with path.open(encoding="utf-8", newline="") as f:
            records = list(csv.DictReader(f, delimiter="\t"))
    else:
        records = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for r in records:
        kw = r.get("keywords") or ""
        out.append({"title": " ".join(str(r.get("title") or "").split()),
                    "keywords": "; ".join(kw) if isinstance(kw, list) else str(kw),
                    "abstract": str(r.get("abstract") or "").strip()})
    return out


def export_pairs(export: list[dict]) -> list[tuple[str, str]]:
    """(abstract, title) of the export's papers with an abstract, a title and keywords."""
    return [(r["abstract"], r["title"]) for r in export if r["abstract"] and r["title"] and r["keywords"].strip()]


def labels_for(pairs, keywords: Path | None) -> tuple[list[set[str]], str]:
    taxonomy = [t for t in frozen_taxonomy() if t["slug"] != "general-ml"]
    if keywords:
        export = {norm_title(r["title"]): r["keywords"] for r in read_export(keywords)}
        out = []
        for _, title in pairs:
            kw = export.get(norm_title(title), "")
            # Each author keyword on its own: "." ends a phrase for the matcher.
            out.append(keyword_hits(re.sub(r"[;,]", " . ", kw), taxonomy) if kw else set())
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


def report(keywords: Path | None, tuning, held, part: str = "held", before_commit: str = LABELS_AT) -> None:
    pairs = held if part == "held" else tuning
    taxonomy = yaml.safe_load(TAXONOMY.read_text(encoding="utf-8"))["topics"]
    labels, source = labels_for(pairs, keywords)
    assigned = [matching.assign_topics(derive_title(a), a, taxonomy) for a, _ in pairs]
    labelled = [i for i, lab in enumerate(labels) if lab]
    from old_papersite import old_derive  # the previous commit's titles, topics and taxonomy, for comparison
    old_topics, old_title = old_derive(before_commit, "assign_topics", "derive_title")
    old_taxonomy = frozen_taxonomy(before_commit)
    before = [old_topics(old_title(a), a, old_taxonomy) for a, _ in pairs]
    now, prev = tally(assigned, labels, labelled), tally(before, labels, labelled)
    print(f"\ntopics on the {part} part ({len(pairs)} papers); signal: {source}; "
          f"{len(labelled)} papers have a label")
    print(f"  {'topic':28} {'labels':>6} {'given':>6} {'prec':>6} {'recall':>6}   {before_commit:>7}: prec recall")
    for topic in taxonomy:
        s = topic["slug"]
        print(f"  {s:28} {now.support(s):6d} {now.given(s):6d} {now.precision(s):>6} {now.recall(s):>6}"
              f"   {prev.precision(s):>13} {prev.recall(s):>6}")
    print(f"  {'all (micro)':28} {now.support():6d} {now.given():6d} {now.precision():>6} {now.recall():>6}"
          f"   {prev.precision():>13} {prev.recall():>6}")
    specific = [i for i in labelled if assigned[i] and assigned[i][0] != "general-ml"]
    right = sum(1 for i in specific if assigned[i][0] in labels[i])
    specific_before = [i for i in labelled if before[i] and before[i][0] != "general-ml"]
    right_before = sum(1 for i in specific_before if before[i][0] in labels[i])
    print(f"  first topic: precision {right / max(len(specific), 1):.2f} ({right}/{len(specific)}), "
          f"coverage {len(specific) / max(len(labelled), 1):.2f}; {before_commit}: precision "
          f"{right_before / max(len(specific_before), 1):.2f} ({right_before}/{len(specific_before)}), "
          f"coverage {len(specific_before) / max(len(labelled), 1):.2f}")
    counts = Counter(len(a) for a in assigned)
    print(f"  topics per paper: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
          + f"; general-ml only: {sum(1 for a in assigned if a == ['general-ml'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--keywords", type=Path)
    parser.add_argument("--part", choices=("held", "tuning"), default="held")
    parser.add_argument("--before", default=LABELS_AT, help="the commit to compare with")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: not found (the development set lives in ../shared/data)")
    pairs = load_pairs(args.data)
    if args.keywords:
        if not args.keywords.exists():
            sys.exit(f"{args.keywords}: not found")
        own = export_pairs(read_export(args.keywords))
        if own:  # the export has abstracts: its own papers, not the development set's
            pairs = own
    tuning, held = split(pairs)
    report(args.keywords, tuning, held, args.part, args.before)


if __name__ == "__main__":
    main()
