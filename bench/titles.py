"""How good derived titles are on real abstracts they were not tuned on (issue #15).

    .venv/bin/python bench/titles.py [PATH-TO-icml2024-events.json] [--old 78f8c24] [--seeds] [--topics [--keywords EXPORT.json]]

Reads the development set (bench/titledata.py: ICML 2024 paper events with an
abstract, a third held out of all tuning) and prints, on the held-out part:
content-word F1 against the real title, titles sharing no content word with it,
and degenerate titles (papersite.importers.title_model.degenerate_reason), for the derived
titles, the real titles, the first 12 words of the abstract, and the derivation
of an older commit (its papersite package, loaded from git). Then the time to
derive 10,000 titles. --seeds prints the 57 seed abstracts' titles, old and new.
--topics also prints per-topic precision and recall (bench/topics.py).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.importers import title_model  # noqa: E402
from papersite.importers.title_model import content_f1, degenerate_reason  # noqa: E402
from papersite.importers.titles import derive_title  # noqa: E402
from old_papersite import old_derive  # noqa: E402
from titledata import DEFAULT, load_pairs, split  # noqa: E402

OLD_COMMIT = "78f8c24"  # the heuristic derivation this one replaced


def first_words(abstract: str, n: int = 12) -> str:
    return " ".join(abstract.split()[:n])


def score(titles: list[str], real: list[str]) -> dict:
    f1 = [content_f1(t, r) for t, r in zip(titles, real)]
    reasons = Counter(r for t in titles if (r := degenerate_reason(t)))
    return {"f1": sum(f1) / len(f1), "no_overlap": sum(1 for v in f1 if v == 0),
            "degenerate": sum(reasons.values()), "reasons": reasons}


def row(name: str, s: dict, n: int) -> str:
    why = ", ".join(f"{k} {v}" for k, v in sorted(s["reasons"].items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"{name:34} {s['f1']:6.3f} {s['no_overlap']:6d} {s['degenerate']:5d} "
            f"({100 * s['degenerate'] / n:.1f}%)  {why}")


def timing(abstracts: list[str], n: int = 10_000) -> tuple[float, float]:
    """(wall, CPU) seconds to derive n titles, cycling through the abstracts with the token
    caches emptied before every pass, so repeated abstracts are not free. CPU time is what
    to compare on a shared machine: other processes stretch the wall time."""
    wall, cpu = time.perf_counter(), time.process_time()
    done = 0
    while done < n:
        title_model.clear_caches()
        for abstract in abstracts[: n - done]:
            derive_title(abstract)
        done += min(len(abstracts), n - done)
    return time.perf_counter() - wall, time.process_time() - cpu


def seed_abstracts() -> list[str]:
    import re
    out = []
    for path in sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt")):
        blocks = [b.strip() for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
        out += [" ".join(b.split()) for b in blocks[1:] if b]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--old", default=OLD_COMMIT, help="commit whose derivation is the baseline")
    parser.add_argument("--seeds", action="store_true", help="print the seed titles, old and new")
    parser.add_argument("--topics", action="store_true", help="also score topics (bench/topics.py)")
    parser.add_argument("--keywords", type=Path, help="author keywords export for --topics")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: not found (the development set lives in ../shared/data)")
    tuning, held = split(load_pairs(args.data))
    old = old_derive(args.old)
    abstracts, real = [a for a, _ in held], [t for _, t in held]
    n = len(held)
    print(f"development set: {len(tuning) + n} ICML 2024 papers; tuned on {len(tuning)}, "
          f"held out {n} (scored below)\n")
    print(f"{'':34} {'F1':>6} {'no-ov':>6} {'degen':>5}")
    print(row("derived (this commit)", score([derive_title(a) for a in abstracts], real), n))
    print(row(f"derived ({args.old}, previous)", score([old(a) for a in abstracts], real), n))
    print(row("first 12 words", score([first_words(a) for a in abstracts], real), n))
    print(row("real titles", score(real, real), n))
    tuned = score([derive_title(a) for a, _ in tuning], [t for _, t in tuning])
    print(f"\n(for reference, on the tuning part: F1 {tuned['f1']:.3f}, degenerate {tuned['degenerate']})")
    all_abstracts = [a for a, _ in tuning + held]
    wall, cpu = timing(all_abstracts)
    print(f"\n10,000 titles derived in {cpu:.2f} s of CPU ({wall:.2f} s wall; one process)")
    if args.seeds:
        print("\nseed titles, previous -> this commit:")
        for abstract in seed_abstracts():
            print(f"  {old(abstract)}\n    -> {derive_title(abstract)}")
    if args.topics:
        from topics import report
        report(args.keywords, tuning, held)


if __name__ == "__main__":
    main()
