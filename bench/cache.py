"""`python build.py build` with the build cache: a second build with nothing changed, and one
after editing one paper, against a clean build (`--clean`) and Hugo's, in the same run.

    .venv/bin/python bench/cache.py [--sizes 1000,10000] [--runs 3] [--folder /dev/shm/x]

Each figure is one `build` in a fresh process, timed from outside (start-up and imports
included), writing to --folder (a RAM disk by default: the disk's own cost varies from run to
run; see docs/performance.md). Runs are interleaved: clean build, Hugo, no-op build, edit. The
catalogs come from bench/synth.py; an edit retitles one paper, as in bench/rebuild.py. Prints
medians and their ratios to Hugo's clean build and to ours.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from rebuild import retitle  # noqa: E402
from scale import hugo_site, run_hugo  # noqa: E402
from synth import write_catalog  # noqa: E402

from papersite.content import find_content_files  # noqa: E402


def build(site: Path, out: Path, *options: str) -> float:
    """Seconds for one `python build.py build` in a fresh process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "-q", "--config", str(site / "site.yaml"),
                    "-o", str(out), *options], check=True)
    return time.perf_counter() - start


def measure(size: int, runs: int, folder: Path) -> dict:
    with tempfile.TemporaryDirectory(dir=folder) as temp:
        temp = Path(temp)
        site = temp / "site"
        write_catalog(size, site, 1)
        hugo_source = hugo_site(site, temp / "hugo")
        papers = find_content_files(site / "content")
        figures: dict[str, list[float]] = {"clean": [], "hugo": [], "nothing": [], "edit": []}
        out = temp / "out"
        for run in range(runs):
            figures["clean"].append(build(site, out, "--clean"))
            figures["hugo"].append(run_hugo(hugo_source, temp / f"hugo-{run}")["seconds"])
            shutil.rmtree(temp / f"hugo-{run}")
            figures["nothing"].append(build(site, out))
            retitle(papers[(run * 7919) % len(papers)], f"Edit {run}:")
            figures["edit"].append(build(site, out))
            log(f"  {size:,} run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in figures.items()))
        return {"size": size, **{name: statistics.median(values) for name, values in figures.items()}}


def report(results: list[dict]) -> str:
    lines = ["| papers | clean build | Hugo | no-op build | x Hugo | x clean | one edit | x Hugo | x clean |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['size']:,} | {r['clean']:.2f} s | {r['hugo']:.2f} s | {r['nothing']:.2f} s "
                     f"| {r['nothing'] / r['hugo']:.2f} | {r['nothing'] / r['clean']:.2f} | {r['edit']:.2f} s "
                     f"| {r['edit'] / r['hugo']:.2f} | {r['edit'] / r['clean']:.2f} |")
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/dev/shm") if os.path.isdir("/dev/shm") else None)
    args = parser.parse_args(argv)
    results = [measure(int(size), args.runs, args.folder) for size in args.sizes.split(",")]
    print(f"medians of {args.runs} runs, {os.cpu_count()} cores, output in {args.folder}:")
    print(report(results))


if __name__ == "__main__":
    main(sys.argv[1:])
