"""How long from saving a paper to the rebuilt page being served, and a full clean build.

    .venv/bin/python bench/rebuild.py [--sizes 57,1000,10000] [--edits 5] [--seed 1] [--real]

For each size a catalog is put in a temp folder (57: the bundled catalog;
other sizes: bench/synth.py, `--real`: the real ICML 2024 papers replicated)
and the real preview server runs on it in this process: watchdog, the
debounced rebuild loop, the HTTP server. Each edit changes one paper's title
on disk; "page served" stops the clock when the server's event stream
announces a build and a GET of that paper's page returns the new title, which
is what an open browser tab waits for (the preview serves an edited paper's
own page first: papersite/first_look.py); "site rebuilt" when the whole site
around the edit (listings, related papers, feeds, search) is served too.
Both include the quiet period of the debouncer (papersite.preview.watch.QUIET). The map follows an edit in
the preview (papersite.preview.rebuild.FollowingLayout): before the next edit, the
benchmark waits for its exact layout to land, as an author reading the page
would, and reports how long that took.
"""
from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.source.content import find_content_files, split_front_matter  # noqa: E402
from papersite.preview.server import Preview  # noqa: E402
from papersite.preview.watch import QUIET  # noqa: E402
from synth import write_catalog  # noqa: E402

PHASES = ("load", "markdown", "related", "render", "search", "static")


def make_catalog(size: int, folder: Path, seed: int, real: bool = False) -> tuple[Path, str]:
    """site.yaml of a catalog with `size` papers, and where it came from."""
    bundled = find_content_files(ROOT / "content")
    if size == len(bundled):
        for name in ("site.yaml", "content", "templates", "static"):
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, folder / name)
            elif source.exists():
                shutil.copy(source, folder / name)
        return folder / "site.yaml", "bundled catalog"
    return write_catalog(size, folder, seed, real=real), "real, replicated" if real else "synthetic"


def retitle(path: Path, text: str) -> str:
    """Give a paper a new title, as an author would in an editor; returns the title."""
    front, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
    data = yaml.safe_load(front)
    data["title"] = f"{text} {data['title']}"
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body,
                    encoding="utf-8")
    return data["title"]


class Events:
    """A client of the preview's Server-Sent Events, like an open tab."""

    def __init__(self, port: int, base: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.conn.request("GET", base + "__reload")
        self.response = self.conn.getresponse()

    def next(self) -> dict:
        while True:
            line = self.response.fp.readline().decode()
            if line.startswith("data: "):
                return json.loads(line[6:])


def fetch(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    body = conn.getresponse().read()
    conn.close()
    return body


def measure(size: int, edits: int, seed: int, real: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"papersite-bench-{size}-") as temp:
        config_path, kind = make_catalog(size, Path(temp), seed, real)
        lines: list[str] = []
        start = time.perf_counter()
        preview = Preview(config_path, None, "127.0.0.1", 0, log=lines.append)  # a clean full build
        full = time.perf_counter() - start
        if preview.rebuilder.error:
            raise SystemExit(f"the {size}-paper catalog does not build:\n{preview.rebuilder.error}")
        full_phases = dict(preview.rebuilder.last.timings)
        papers = preview.rebuilder.last.catalog.papers
        preview.start()
        try:
            port, base = preview.server.server_address[1], preview.state.base_path
            events = Events(port, base)
            build = events.next()["build"]
            served, rebuilt, phases, landed = [], [], [], []
            for index in range(edits):
                paper = papers[(index * 7919) % len(papers)]  # spread over the catalog
                lines.clear()
                title = retitle(paper.source, f"Edit {index}")
                saved = time.perf_counter()
                while True:  # the first build announced that serves the new title
                    status = events.next()
                    if status["build"] <= build:
                        continue  # announced before this edit: the last one's rebuild
                    assert not status["problems"], status
                    build = status["build"]
                    page = fetch(port, f"{base}papers/{paper.slug}/")
                    if f"Edit {index}".encode() in page:
                        break
                served.append(time.perf_counter() - saved)
                while not any(" changed in " in line for line in lines):  # the rebuild's terminal line
                    time.sleep(0.001)
                rebuilt.append(time.perf_counter() - saved)
                build = preview.state.status()[0]
                phases.append(preview.rebuilder.last.timings)
                if preview.rebuilder.cache.map.wanted is not None:  # the map's exact layout is coming
                    while preview.rebuilder.cache.map.wanted is not None:
                        time.sleep(0.01)
                    preview.queue.put("(the benchmark: after the map's rebuild)")  # rebuilds after it, changing nothing
                    while not any("(the benchmark" in line for line in lines):
                        time.sleep(0.01)
                    while build != preview.state.status()[0]:  # the map's rebuild announced itself
                        build = events.next()["build"]
                    landed.append(time.perf_counter() - saved)
            events.conn.close()
        finally:
            preview.stop()
    return {
        "size": size, "kind": kind, "full": full, "full_phases": full_phases,
        "served": statistics.median(served), "served_all": served,
        "rebuilt": statistics.median(rebuilt), "rebuilt_all": rebuilt,
        "phases": {name: statistics.median(p.get(name, 0.0) for p in phases) for name in PHASES},
        "landed": statistics.median(landed) if landed else None, "landed_count": len(landed), "edits": len(served),
    }


def table(results: list[dict]) -> str:
    head = ("| papers | catalog | full clean build | save → page served (median) | save → site rebuilt (median) "
            "| rebuild phases, median: " + " / ".join(PHASES) + " |")
    rows = [head, "|---:|---|---:|---:|---:|---|"]
    for r in results:
        phases = " / ".join(f"{r['phases'][n] * 1000:.0f}" for n in PHASES)
        rows.append(f"| {r['size']:,} | {r['kind']} | {r['full']:.2f} s | {r['served'] * 1000:.0f} ms "
                    f"| {r['rebuilt'] * 1000:.0f} ms | {phases} ms |")
    rows.append("")
    rows.extend(f"{r['size']:,}: the map's exact layout served {r['landed']:.2f} s after the save (median of the "
                f"{r['landed_count']} of {r['edits']} edits that laid out the map's landmarks anew; the others placed "
                "the edited paper in the rebuild itself)" for r in results if r["landed"] is not None)
    rows.append("Full clean build, per phase: " + "; ".join(
        f"{r['size']:,}: " + " / ".join(f"{r['full_phases'].get(n, 0):.2f}" for n in PHASES) + " s"
        for r in results))
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="57,1000,10000", help="comma-separated catalog sizes")
    parser.add_argument("--edits", type=int, default=5, help="edits per size (the median is reported)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real", action="store_true", help="the real ICML 2024 papers, replicated (needs ../shared/data)")
    args = parser.parse_args(argv)
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size} papers...", file=sys.stderr, flush=True)
        results.append(measure(size, args.edits, args.seed, args.real))
        print(f"  full {results[-1]['full']:.2f} s; save -> page served "
              f"{', '.join(f'{s * 1000:.0f}' for s in results[-1]['served_all'])} ms; save -> site rebuilt "
              f"{', '.join(f'{s * 1000:.0f}' for s in results[-1]['rebuilt_all'])} ms", file=sys.stderr)
    print(table(results))
    print(f"\n(save → served includes the watcher's {QUIET * 1000:.0f} ms quiet period)")


if __name__ == "__main__":
    main(sys.argv[1:])
