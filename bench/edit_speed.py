"""One-paper edits to any catalog, rebuilt as the preview rebuilds them, by this tree or another.

    .venv/bin/python bench/edit_speed.py SITE_FOLDER [--tree PATH] [--edits 5] [--check]

The catalog is copied to a temp folder (under /dev/shm when it exists) and built once in a
warm session (papersite.preview.rebuild.Rebuilder, in memory, the map following edits as in the
preview). Then each edit prefixes one paper's title with "Edit i" and times the rebuild;
before the next edit the map's exact layout is awaited, as bench/rebuild.py does. `--tree`
imports papersite from another checkout (e.g. a `git archive` of an older commit with a
node_modules link), so two trees can be timed in turn on the same catalog. `--check`
compares the last rebuild with a fresh build of the edited catalog, file by file.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a catalog folder (its site.yaml, content/, ...)")
    parser.add_argument("--tree", type=Path, default=BENCH.parent, help="the checkout to import papersite from")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="compare with a fresh build at the end")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from papersite.preview.rebuild import Rebuilder  # noqa: E402 (from the tree asked for)
    sys.path.insert(1, str(BENCH))
    from rebuild import retitle  # noqa: E402

    base = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(args.site, site, symlinks=True,
                        ignore=shutil.ignore_patterns(".cache", "_site", ".git", ".venv", "node_modules"))
        if (args.site / "node_modules").exists():  # the search's lunr.js, read at build time
            (site / "node_modules").symlink_to((args.site / "node_modules").resolve())
        landed = threading.Event()
        rebuilder = Rebuilder(site / "site.yaml", output=None, map_landed=landed.set)
        first = rebuilder.rebuild()
        assert first.error is None, first.error
        rebuilder.rebuild()
        papers = first.build.catalog.papers
        times, last = [], first
        for i in range(args.edits):
            retitle(papers[(i * 7919 + 13) % len(papers)].source, f"Edit {i}")
            start = time.perf_counter()
            outcome = rebuilder.rebuild()
            times.append(time.perf_counter() - start)
            assert outcome.error is None, outcome.error
            rebuilder.follow()
            if rebuilder.cache.map.pending is not None:  # a small catalog lays out at once
                landed.wait(600)
                landed.clear()
                last = rebuilder.rebuild()
            else:
                last = outcome
        rebuilder.close()
        print(f"{args.tree}: {len(papers)} papers, edit rebuilt in {statistics.median(times) * 1000:.0f} ms "
              f"(median of {len(times)}: {', '.join(f'{t * 1000:.0f}' for t in times)})")
        if args.check:
            fresh = Rebuilder(site / "site.yaml", output=None).rebuild().build.files
            differ = sorted(p for p in fresh.keys() | last.build.files.keys() if fresh.get(p) != last.build.files.get(p))
            print("the same as a fresh build" if not differ else f"{len(differ)} files differ, e.g. {differ[:3]}")
            if differ:
                sys.exit(1)


if __name__ == "__main__":
    main()
