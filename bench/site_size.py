"""What a built site is made of: bytes by kind of file, per paper, and a projection.

    .venv/bin/python bench/site_size.py --import                # the 2,596 real ICML 2024 papers
    .venv/bin/python bench/site_size.py --papers 10000          # the real papers, replicated
    .venv/bin/python bench/site_size.py --site path/to/_site    # a site already built
      [--engine CHECKOUT] [--before CHECKOUT [--check]] [--project 50000] [--tmp /dev/shm] [--keep]

`--import` makes a catalog with `build.py new` and imports
../shared/data/icml2024-events.json into it (topics and links as a user gets
them); `--papers N` writes bench/synth.py's RealReplica of N papers (the real
papers copied, each copy another year and venue, the same authors). Either is
then built with `python build.py build` of `--engine` (a checkout, by default
this one, so two checkouts compare on the same catalog) from its own default
theme. The table gives each kind of file's bytes (file sizes, as GitHub Pages
counts them), files and bytes per paper; `--project` scales the per-paper
figure of each kind linearly to another catalog size (a rough guide: listings
and feeds grow with papers, author pages with authorships). `--before` builds
the same catalog with another checkout too (e.g. a `git archive` of an older
commit, with node_modules) and prints both tables and the change by kind;
`--check` then compares what the two sites show a reader, page by page
(tests/visible.py: the text of every page, and what every link leads to; about
10 ms a page). Nothing is written to the repository.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

# (kind, pattern over the site-relative path), the first match wins
KINDS = [(kind, re.compile(pattern)) for kind, pattern in [
    ("paper pages", r"papers/(?!page/)[^/]+/index\.html"),
    ("paper RIS", r"papers/[^/]+/cite\.ris"),
    ("paper CSL-JSON", r"papers/[^/]+/cite\.json"),
    ("paper BibTeX", r"papers/[^/]+/cite\.bib"),
    ("all-papers listing", r"papers/(page/\d+/)?index\.html"),
    ("author index (A-Z)", r"authors/(page/\d+/)?index\.html"),
    ("author pages", r"authors/[^/]+/(page/\d+/)?index\.html"),
    ("author feeds", r"authors/[^/]+/feed\.xml"),
    ("author BibTeX", r"authors/[^/]+/papers\.bib"),
    ("venue listings", r"venues/.*index\.html"),
    ("venue feeds", r"venues/[^/]+/feed\.xml"),
    ("venue BibTeX", r"venues/[^/]+/papers\.bib"),
    ("topic listings", r"topics/.*index\.html"),
    ("topic feeds", r"topics/[^/]+/feed\.xml"),
    ("topic BibTeX", r"topics/[^/]+/papers\.bib"),
    ("year listings", r"years/.*index\.html"),
    ("catalog feed and BibTeX", r"(feed\.xml|papers\.bib)"),
    ("search index", r"search/.+\.json"),
    ("map", r"map/.+\.json"),
    ("sitemap", r"sitemap(-\d+)?\.xml"),
    ("static files", r"static/.*"),
]]
OTHER = "other pages"


def kind_of(path: str) -> str:
    return next((kind for kind, pattern in KINDS if pattern.fullmatch(path)), OTHER)


def composition(site: Path) -> dict[str, list[int]]:
    """kind -> [bytes, files]."""
    sizes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            entry = sizes[kind_of(path.relative_to(site).as_posix())]
            entry[0] += path.stat().st_size
            entry[1] += 1
    return dict(sizes)


def paper_count(site: Path) -> int:
    return sum(1 for path in site.glob("papers/*/index.html") if path.parent.name != "page")


def change(before: dict[str, list[int]], after: dict[str, list[int]], papers: int, project: int) -> None:
    print(f"{'kind':<26} {'before B/paper':>14} {'after B/paper':>13} {'change':>7} {'files':>15}")
    for kind in sorted(before.keys() | after.keys(), key=lambda k: -before.get(k, [0])[0]):
        old, new = before.get(kind, [0, 0]), after.get(kind, [0, 0])
        ratio = f"{(new[0] - old[0]) / old[0]:>+7.1%}" if old[0] else f"{'new':>7}"
        print(f"{kind:<26} {old[0] / papers:>14,.0f} {new[0] / papers:>13,.0f} {ratio} {old[1]:>7,}>{new[1]:<7,}")
    old, new = (sum(s for s, _ in sizes.values()) for sizes in (before, after))
    print(f"{'total':<26} {old / papers:>14,.0f} {new / papers:>13,.0f} {(new - old) / old:>+7.1%} "
          f"{sum(f for _, f in before.values()):>7,}>{sum(f for _, f in after.values()):<7,}")
    print(f"{project:,} papers at these rates: {old / papers * project / 1e6:,.0f} MB before, "
          f"{new / papers * project / 1e6:,.0f} MB after")


def report(sizes: dict[str, list[int]], papers: int, project: int) -> None:
    total = sum(size for size, _ in sizes.values())
    order = [kind for kind, _ in KINDS] + [OTHER]
    print(f"{'kind':<26} {'bytes':>13} {'files':>7} {'share':>6} {'B/paper':>8} {f'at {project:,}':>11}")
    for kind in sorted(sizes, key=lambda k: (-sizes[k][0], order.index(k))):
        size, files = sizes[kind]
        print(f"{kind:<26} {size:>13,} {files:>7,} {size / total:>6.1%} {size / papers:>8,.0f} "
              f"{size / papers * project / 1e6:>8,.0f} MB")
    files = sum(count for _, count in sizes.values())
    print(f"{'total':<26} {total:>13,} {files:>7,} {'':>6} {total / papers:>8,.0f} "
          f"{total / papers * project / 1e6:>8,.0f} MB")
    print(f"{papers:,} papers: {total / 1e6:.1f} MB, {total / papers / 1e3:.1f} KB a paper; "
          f"{project:,} papers at that rate: {total / papers * project / 1e6:,.0f} MB")


def make_catalog(args, folder: Path) -> Path:
    python = sys.executable
    if args.import_real:
        from titledata import DEFAULT
        site = folder / "catalog"
        subprocess.run([python, str(args.engine / "build.py"), "new", str(site)], check=True,
                       stdout=subprocess.DEVNULL)
        for theme_copy in ("templates", "static"):  # build from the engine's own default theme
            shutil.rmtree(site / theme_copy)
        subprocess.run([python, str(args.engine / "build.py"), "import", str(DEFAULT), "--venue", "icml-2024"],
                       cwd=site, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return site
    from synth import write_catalog
    return write_catalog(args.papers, folder / "catalog", real=True).parent


def check(before: Path, after: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.visible import Site, differences
    start = time.perf_counter()
    pages = sum(1 for path in Site(before).files() if path.endswith(".html"))
    found = differences(Site(before), Site(after), may_change=frozenset({"static/style.css", "static/search.js"}))
    print(f"what a reader sees, {pages:,} pages compared in {time.perf_counter() - start:.0f} s: "
          + ("the same" if not found else f"{len(found)} differences (the first 20):"))
    for line in found:
        print("  " + line)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--import", dest="import_real", action="store_true",
                        help="import the real ICML 2024 export (../shared/data)")
    source.add_argument("--papers", type=int, help="the real papers replicated to this many")
    source.add_argument("--site", type=Path, help="measure this built site")
    parser.add_argument("--engine", type=Path, default=ROOT, help="the checkout that builds (default: this one)")
    parser.add_argument("--before", type=Path, help="another checkout to build the same catalog with")
    parser.add_argument("--check", action="store_true", help="with --before: compare what the sites show")
    parser.add_argument("--project", type=int, default=50_000, help="catalog size to project to")
    parser.add_argument("--tmp", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None)
    parser.add_argument("--keep", action="store_true", help="keep the catalog and its site; print where")
    args = parser.parse_args(argv)
    args.engine = args.engine.resolve()
    args.before = args.before.resolve() if args.before else None
    if args.site:
        report(composition(args.site), paper_count(args.site), args.project)
        return
    folder = Path(tempfile.mkdtemp(prefix="site-size-", dir=args.tmp))
    try:
        site = make_catalog(args, folder)
        outputs = {}
        for engine in filter(None, (args.before, args.engine)):
            out = folder / f"site-{len(outputs)}"
            start = time.perf_counter()
            subprocess.run([sys.executable, str(engine / "build.py"), "build", "--clean", "-q", "-o", str(out)],
                           cwd=site, check=True)
            print(f"built by {engine} in {time.perf_counter() - start:.1f} s")
            outputs[engine] = out
            report(composition(out), paper_count(out), args.project)
        if args.before:
            before, after = outputs[args.before], outputs[args.engine]
            change(composition(before), composition(after), paper_count(after), args.project)
            if args.check:
                check(before, after)
    finally:
        if args.keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
