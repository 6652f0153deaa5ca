"""What `check` costs on a real catalog, against the in-memory build it starts from, in the same run.

    .venv/bin/python bench/check_speed.py CATALOG_FOLDER [--runs 3]

CATALOG_FOLDER holds a site.yaml, e.g. the ICML 2024 import (README: docs/checks.md says how to
make it). Each run, in turn: the build in memory (what `check` does first), the catalog and site
checks on that build, the HTML validity check (vnu.jar on Java), the whole `check` command in a
fresh process, and `build --clean` with and without `--strict` (into a folder of their own, removed
after). Prints each one's median and the checks' share of the build's time, and the findings
by kind.
"""
from __future__ import annotations

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papersite.check import SiteFiles, run_checks  # noqa: E402
from papersite.check.site import html_findings  # noqa: E402
from papersite.pipeline import build_site  # noqa: E402
from papersite.source.config import load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    config = load_config(args.folder / "site.yaml")
    times = collections.defaultdict(list)
    findings = []
    for _ in range(args.runs):
        began = time.perf_counter()
        build = build_site(config)
        times["build in memory"].append(time.perf_counter() - began)
        site = SiteFiles.in_memory(build.files)
        began = time.perf_counter()
        findings = run_checks(config, args.folder / "site.yaml", site, build.catalog, html=False)
        times["catalog and site checks"].append(time.perf_counter() - began)
        began = time.perf_counter()
        html_findings(site, config.root)
        times["HTML validity (vnu.jar)"].append(time.perf_counter() - began)
        began = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "build.py"), "check"], cwd=args.folder, capture_output=True)
        times["`build.py check`, whole command"].append(time.perf_counter() - began)
        for strict in ((), ("--strict",)):
            out = args.folder / "_bench_site"
            shutil.rmtree(out, ignore_errors=True)
            began = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "-q", "--clean", *strict, "-o", str(out)],
                           cwd=args.folder, capture_output=True)
            times[f"`build.py build --clean {' '.join(strict)}`"].append(time.perf_counter() - began)
            shutil.rmtree(out, ignore_errors=True)
    print(f"{len(build.catalog.papers):,} papers, {len(build.files):,} files; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs} runs:")
    for name, seconds in times.items():
        print(f"  {name:34} {statistics.median(seconds):6.2f} s   ({', '.join(f'{s:.2f}' for s in seconds)})")
    median = {name: statistics.median(seconds) for name, seconds in times.items()}
    print(f"  checks / build in memory: {median['catalog and site checks'] / median['build in memory']:.2f}")
    print(f"  build --strict / build: {median['`build.py build --clean --strict`'] / median['`build.py build --clean `']:.2f}")
    kinds = collections.Counter(finding.kind for finding in findings)
    print(f"{len(findings)} findings: " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))


if __name__ == "__main__":
    main()
