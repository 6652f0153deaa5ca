"""Time to derive 10,000 titles: this tree against an older commit, side by side in one process.

    .venv/bin/python bench/title_speed.py [--against COMMIT] [--rounds 5] [--n 10000] [--data PATH] [--workers]

Each round times both derivations the way bench/titles.py does (the development set's
abstracts cycled, the token cache emptied before every pass), in alternating order, so
that load from other processes falls on both alike. Prints the median wall and CPU
seconds of each and their ratio.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.importers import title_model  # noqa: E402
from papersite.importers.titles import derive_title  # noqa: E402
from papersite.parallel import parallel_map, workers  # noqa: E402
from title_check import BASELINE  # noqa: E402
from titledata import DEFAULT, load_pairs  # noqa: E402
from old_papersite import old_derive  # noqa: E402


def timing(derive, clear_caches, abstracts: list[str], n: int) -> tuple[float, float]:
    """(wall, CPU) seconds for n titles, cycling through abstracts, caches emptied every pass."""
    wall, cpu = time.perf_counter(), time.process_time()
    done = 0
    while done < n:
        clear_caches()
        for abstract in abstracts[: n - done]:
            derive(abstract)
        done += min(len(abstracts), n - done)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default=BASELINE, help="commit to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--workers", action="store_true", help="also time it on every core, as import runs it")
    args = parser.parse_args()
    abstracts = [a for a, _ in load_pairs(args.data)]
    old = old_derive(args.against)
    old_model = importlib.import_module(f"papersite_{args.against}.importers.title_model")
    runs = {"this tree": (derive_title, title_model.clear_caches), args.against: (old, old_model.clear_caches)}
    for derive, _ in runs.values():  # load the model files, warm the regex caches
        derive(abstracts[0])
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for r in range(args.rounds):
        order = list(runs) if r % 2 == 0 else list(runs)[::-1]
        for name in order:
            times[name].append(timing(*runs[name], abstracts, args.n))
    print(f"{args.n:,} titles, {len(abstracts)} abstracts cycled, token cache emptied every pass; "
          f"medians of {args.rounds} alternated rounds")
    medians = {}
    for name, got in times.items():
        wall, cpu = statistics.median(w for w, _ in got), statistics.median(c for _, c in got)
        medians[name] = (wall, cpu)
        print(f"  {name:12} {wall:6.2f} s wall  {cpu:6.2f} s CPU   (CPU per round: "
              f"{', '.join(f'{c:.2f}' for _, c in got)})")
    (new_wall, new_cpu), (old_wall, old_cpu) = medians["this tree"], medians[args.against]
    print(f"  ratio {args.against} / this tree: {old_wall / new_wall:.2f}x wall, {old_cpu / new_cpu:.2f}x CPU")
    if args.workers:
        as_imported(abstracts, args.n, args.rounds)


def as_imported(abstracts: list[str], n: int, rounds: int) -> None:
    """This tree's derivation the way `import` runs it: parallel_map over every core (each
    worker starts from the parent's empty token cache), against one process, alternated."""
    items = [abstracts[i % len(abstracts)] for i in range(n)]
    got: dict[str, list[float]] = {"one process": [], f"{workers()} workers": []}
    for r in range(rounds):
        for name in (list(got) if r % 2 == 0 else list(got)[::-1]):
            title_model.clear_caches()
            start = time.perf_counter()
            if name == "one process":
                [derive_title(a) for a in items]
            else:
                parallel_map(derive_title, items)
            got[name].append(time.perf_counter() - start)
    print(f"this tree, {n:,} titles as import derives them (cache emptied once, not every pass):")
    for name, walls in got.items():
        print(f"  {name:12} {statistics.median(walls):6.2f} s wall (rounds: {', '.join(f'{w:.2f}' for w in walls)})")


if __name__ == "__main__":
    main()
