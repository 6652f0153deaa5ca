"""`python build.py build` with the build cache: a second build with nothing changed, and one
after editing one paper, against a clean build (`--clean`) and Hugo's, in the same run.

    .venv/bin/python bench/cache.py [--sizes 1000,10000] [--runs 3] [--edits 1] [--folder /dev/shm/x] [--real]
                                    [--against COMMIT]

Each figure is one `build` in a fresh process, timed from outside (start-up and imports
included; modules compiled once and kept, as a user's Python does), once the last build's
session is saved (see build()), writing to --folder (a RAM disk by default: the disk's own cost varies from run to
run; see docs/performance.md). Runs are interleaved: Hugo, clean build, no-op build, the two edits. The
catalogs come from bench/synth.py (`--real`: the real ICML 2024 papers, replicated; needs
../shared/data); an edit retitles one paper, as in bench/rebuild.py: one that is no landmark
of the map, then one that is (papermap/layout.py: an edit to one of those lays the landmarks out
anew). Prints medians and their ratios to Hugo's clean build.

`--against COMMIT` runs that commit's build.py too (its tree unpacked from git), on a copy of
the same catalog with its own cache and output; this checkout is copied first, so editing it
while the benchmark runs changes nothing. The two engines take turns build by build, the first
to go alternating from one step to the next: run as a block each, a slow stretch of this
machine fell on one engine (one edit 4.37 against 3.52 s where their edit code was the same).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from import_speed import unpacked  # noqa: E402
from rebuild import retitle  # noqa: E402
from scale import PEERS, hugo_site, run_hugo  # noqa: E402
from synth import write_catalog  # noqa: E402

from papersite.engine.store import wait_for_saver  # noqa: E402
from papersite.source.content import find_content_files, split_front_matter  # noqa: E402


# As a user's Python runs: modules compiled once and kept (a shell may say otherwise for itself).
USERS_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def build(tree: Path, site: Path, out: Path, *options: str) -> float:
    """Seconds for one `python build.py build` of the engine in `tree`, in a fresh process. The last
    build's session is saved by then (a detached process does it once the site is written, in
    about 2 s at 10,000 papers; a build started sooner waits for it): an author edits between builds."""
    wait_for_saver(site)
    start = time.perf_counter()
    subprocess.run([sys.executable, str(tree / "build.py"), "build", "-q", "--config", str(site / "site.yaml"),
                    "-o", str(out), *options], check=True, env=USERS_ENV, cwd=site)  # run from the catalog, as a user does
    return time.perf_counter() - start


def landmark_files(papers: list[Path]) -> set[Path]:
    """The papers that are landmarks of the map: an edit to one of them lays out the map's
    landmarks anew, while one to any other paper places that paper alone."""
    from papersite.papermap import layout as paper_map
    import yaml

    keys = {str(yaml.safe_load(split_front_matter(p.read_text(encoding="utf-8"))[0])["id"]): p for p in papers}
    return {keys[key] for key in paper_map.landmarks(list(keys))}


def engines(temp: Path, against: str | None) -> dict[str, Path]:
    """name -> a copy of the engine's tree: this checkout's, and the commit's if asked."""
    trees = {"this": temp / "this"}
    trees["this"].mkdir()
    for name in ("build.py", "papersite", "templates", "static", "package.json"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, trees["this"] / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy(source, trees["this"] / name)
    if against:
        trees[against] = unpacked(against, temp / "against")
    for tree in trees.values():
        (tree / "node_modules").symlink_to(ROOT / "node_modules")  # lunr.js, which the search bundles
    return trees


def measure(size: int, runs: int, folder: Path, real: bool, against: str | None, peer: str,
            edits: int = 1) -> list[dict]:
    with tempfile.TemporaryDirectory(dir=folder) as temp:
        temp = Path(temp)
        trees = engines(temp, against)
        write_catalog(size, temp / "catalog", 1, real=real)
        hugo_source = hugo_site(temp / "catalog", temp / "hugo", peer)
        sites = {}
        for name in trees:
            sites[name] = temp / f"site-{len(sites)}"
            shutil.copytree(temp / "catalog", sites[name])
        figures = {name: {"clean": [], "nothing": [], "edit": [], "landmark edit": []} for name in trees}
        hugo: list[float] = []
        papers = {name: find_content_files(site / "content") for name, site in sites.items()}
        landmarks = {name: landmark_files(found) for name, found in papers.items()}  # the same papers in each copy
        steps = 0

        def step(kind: str, *options: str, edit: Callable[[str], None] = lambda name: None) -> None:
            """One build of each engine, taking turns: the first to go alternates."""
            nonlocal steps
            names = list(trees) if steps % 2 == 0 else list(reversed(trees))
            steps += 1
            for name in names:
                edit(name)
                for site in sites.values():  # the other engine's saver too: each build starts on a quiet machine
                    wait_for_saver(site)
                figures[name][kind].append(build(trees[name], sites[name], sites[name] / "_site", *options))

        for run in range(runs):
            hugo.append(run_hugo(hugo_source, temp / f"hugo-{run}")["seconds"])
            shutil.rmtree(temp / f"hugo-{run}")
            step("clean", "--clean")
            step("nothing")
            for number in range(edits):
                for kind, pick in (("edit", False), ("landmark edit", True)):
                    def edit(name: str, run=run, number=number, pick=pick) -> None:
                        found = papers[name]
                        start = ((run * edits + number) * 7919) % len(found)
                        edited = next(p for p in found[start:] + found if (p in landmarks[name]) == pick)
                        retitle(edited, f"Edit {run}.{number}:")
                    step(kind, edit=edit)
            for name, seen in figures.items():
                log(f"  {size:,} run {run + 1}, {name}: hugo {hugo[-1]:.2f} s, " +
                    ", ".join(f"{k} {', '.join(f'{x:.2f}' for x in v[-edits if 'edit' in k else -1:])} s"
                              for k, v in seen.items()))
        for site in sites.values():
            wait_for_saver(site)  # the last build's session is still being saved: not into a removed folder
        return [{"size": size, "engine": name, "hugo": statistics.median(hugo),
                 **{k: statistics.median(v) for k, v in seen.items()}} for name, seen in figures.items()]


def report(results: list[dict]) -> str:
    lines = ["| papers | engine | clean build | Hugo | no-op build | x Hugo | one edit | x Hugo "
             "| one landmark's edit | x Hugo |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['size']:,} | {r['engine']} | {r['clean']:.2f} s | {r['hugo']:.2f} s | {r['nothing']:.2f} s "
                     f"| {r['nothing'] / r['hugo']:.3f} | {r['edit']:.2f} s | {r['edit'] / r['hugo']:.2f} "
                     f"| {r['landmark edit']:.2f} s | {r['landmark edit'] / r['hugo']:.2f} |")
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/dev/shm") if os.path.isdir("/dev/shm") else None)
    parser.add_argument("--real", action="store_true", help="the real ICML 2024 papers, replicated")
    parser.add_argument("--against", metavar="COMMIT", help="also run this commit's engine, interleaved")
    parser.add_argument("--peer", choices=sorted(PEERS), default="minimal", help="the Hugo site (see bench/scale.py)")
    parser.add_argument("--edits", type=int, default=1, help="edits of each kind per run (each a build of its own)")
    args = parser.parse_args(argv)
    results = [r for size in args.sizes.split(",") for r in measure(int(size), args.runs, args.folder,
                                                                     args.real, args.against, args.peer, args.edits)]
    print(f"medians of {args.runs} runs ({args.edits} edits of each kind a run), {os.cpu_count()} cores, "
          f"output in {args.folder}:")
    print(report(results))


if __name__ == "__main__":
    main(sys.argv[1:])
