"""How long `build.py import` takes, and how much memory, on large exports.

    .venv/bin/python bench/import_speed.py [--bibtex 1500,3000] [--csv 5000,10000] [--against COMMIT [--repeat 3]]
                                           [--churn N]
    .venv/bin/python bench/import_speed.py --catalogs 1000,10000,50000 [--small 100] --against COMMIT [--repeat 5]
    .venv/bin/python bench/import_speed.py --sequence 93 [--sequence-papers 10000] --against COMMIT

Each size is a generated file imported by the real CLI (a fresh process: start-up
included) into a fresh catalog in a temp folder, then imported a second time (every
record unchanged). Texts come from the real ICML 2024 export
(../shared/data/icml2024-events.json: titles, authors, abstracts), cycled with a
numbered title when a size needs more records than it has; without it, from
bench/synth.py. Memory is the peak RSS of the import process: it should not grow with
the file (readers stream; the importer keeps a few strings per paper).

--catalogs: what one small file (--small records, a venue-year of its own) costs to import
into catalogs of those sizes (made by importing them, spread over venue-years as real ones
are), this checkout against COMMIT, taking turns; after each import the catalog is put back
as it was (the new venue's folder deleted, the manifest and site.yaml restored), so every
run imports into the same catalog. An import's cost should follow the records it reads:
the last column, the time into the largest catalog over that into the smallest, says whether
it does. --sequence N: N files of --sequence-papers / N records each, a venue-year each,
imported one by one into a new catalog by each version, file after file in turn; the total.

--against COMMIT also runs that commit's build.py (its tree unpacked from git) on the
same files, alternating with this one, --repeat times each, and prints the medians and
the ratio: on a machine shared with other work, only such a side-by-side says what a
change gained. Catalogs stay until the end (see deleted_before; --churn N deletes N
files beside each catalog before its first import, to show what that costs).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXPORT = ROOT.parent / "shared" / "data" / "icml2024-events.json"
if not EXPORT.exists():
    EXPORT = Path("/work/shared/data/icml2024-events.json")


def texts(count: int) -> list[dict]:
    """count papers {title, authors (list), abstract}, real ones when the export is here."""
    if EXPORT.exists():
        papers = [{"title": e["name"], "authors": [a.strip() for a in e["speakers/authors"].split(",") if a.strip()],
                   "abstract": e.get("abstract") or ""}
                  for e in json.loads(EXPORT.read_text(encoding="utf-8")) if e.get("type") == "Poster"]
    else:  # the synthetic catalog's papers, read back from its files
        sys.path.insert(0, str(ROOT / "bench"))
        from synth import write_catalog
        papers = []
        with tempfile.TemporaryDirectory() as folder:
            write_catalog(min(count, 3000), Path(folder) / "synth")
            for path in sorted((Path(folder) / "synth" / "content").rglob("*.md")):
                _, head, abstract = path.read_text(encoding="utf-8").split("---\n", 2)
                front = yaml.safe_load(head)
                papers.append({"title": front["title"], "authors": front["authors"], "abstract": abstract.strip()})
    out = []
    for number in range(count):
        paper = dict(papers[number % len(papers)])
        if number >= len(papers):  # another paper: another title and text
            paper["title"] = f"{paper['title']} (part {number // len(papers) + 1})"
            paper["abstract"] = f"Part {number // len(papers) + 1}. {paper['abstract']}"
        out.append(paper)
    return out


def bib_escape(text: str) -> str:
    return text.replace("{", "").replace("}", "") if text.count("{") != text.count("}") else text


def write_bibtex(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as file:
        file.write("@string{icml = {Proceedings of the 41st International Conference on Machine Learning}}\n\n")
        for number, paper in enumerate(texts(count)):
            authors = " and ".join(bib_escape(a) for a in paper["authors"]) or "Anonymous"
            file.write(f"@inproceedings{{paper{number},\n  title = {{{bib_escape(paper['title'])}}},\n"
                       f"  author = {{{authors}}},\n  booktitle = icml,\n  year = {{2024}},\n"
                       f"  abstract = {{{bib_escape(paper['abstract'])}}},\n}}\n\n")


def write_csv(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["UID", "title", "authors", "abstract", "venue", "year"])
        for number, paper in enumerate(texts(count)):
            writer.writerow([f"p{number}", paper["title"], "|".join(paper["authors"]), paper["abstract"],
                             "ICML", 2024])


def fresh_catalog(folder: Path) -> Path:
    folder.mkdir()
    config = yaml.safe_load((ROOT / "site.yaml").read_text(encoding="utf-8"))
    config["venues"] = [v for v in config["venues"] if v["slug"] == "icml-2024"]
    (folder / "site.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (folder / "content").mkdir()
    return folder / "site.yaml"


def timed_import(source: Path, site_yaml: Path, root: Path = ROOT) -> tuple[float, float, float, str]:
    """(seconds, CPU seconds, peak RSS in MB, summary line) of one `build.py import` process
    (CPU and memory include its workers). CPU time says more than the clock on a busy machine."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(root / "build.py"), "import", str(source),
                                "--config", str(site_yaml)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PAPERSITE_TODAY": "2025-01-01"})
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    out, err = process.stdout.read().decode(), process.stderr.read().decode()
    process.stdout.close()
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"import of {source} by {root} failed:\n{out}{err[-3000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.strip().splitlines()[-1]


def unpacked(commit: str, folder: Path) -> Path:
    """The repository's tree at commit, unpacked into folder."""
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def compare(jobs, commit: str, repeat: int, churn: int) -> None:
    """This checkout against commit on the same files: medians of repeat runs each, wall and CPU."""
    print(f"\nmedians of {repeat}, wall (CPU of the import process and its workers); this checkout against {commit}:")
    print(f"{'file':<18}{'first: ' + commit:>22}{'this':>16}{'ratio':>7}{'second: ' + commit:>22}{'this':>16}"
          f"{'ratio':>7}")
    with tempfile.TemporaryDirectory() as folder:  # catalogs kept to the end: see deleted_before
        old_root = unpacked(commit, Path(folder) / "old")
        for kind, count in jobs:
            source = Path(folder) / f"papers-{count}.{kind}"
            (write_bibtex if kind == "bib" else write_csv)(source, count)
            runs = {(who, which): [] for who in ("old", "new") for which in ("first", "second")}
            for run in range(repeat):
                for who, root in (("old", old_root), ("new", ROOT)) if run % 2 == 0 else (("new", ROOT), ("old", old_root)):
                    site_yaml = fresh_catalog(Path(folder) / f"site-{who}-{run}-{kind}{count}")
                    deleted_before(site_yaml.parent, churn)
                    runs[who, "first"].append(timed_import(source, site_yaml, root)[:2])
                    runs[who, "second"].append(timed_import(source, site_yaml, root)[:2])
            m = {key: [statistics.median(v[i] for v in values) for i in (0, 1)] for key, values in runs.items()}
            cells = []
            for which in ("first", "second"):
                (old_wall, old_cpu), (new_wall, new_cpu) = m["old", which], m["new", which]
                cells.append(f"{old_wall:>9.2f} s ({old_cpu:5.2f} s){new_wall:>6.2f} s ({new_cpu:5.2f} s)"
                             f"{old_wall / new_wall:>6.2f}x")
            print(f"{source.name:<18}{cells[0]}{cells[1]:>45}", flush=True)


def write_venue_years(path: Path, first: int, count: int, per_year: int, last_year: int) -> None:
    """A CSV of papers first..first+count-1 of texts(), ICML of the year last_year - number // per_year."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["UID", "title", "authors", "abstract", "venue", "year"])
        for number, paper in enumerate(texts(first + count)[first:], start=first):
            writer.writerow([f"p{number}", paper["title"], "|".join(paper["authors"]), paper["abstract"], "ICML",
                             last_year - (number - first) // per_year])


class Restored:
    """The catalog of site_yaml put back as it is now, after an import into a new venue's folder."""

    def __init__(self, site_yaml: Path, venue: str):
        self.site_yaml, self.folder = site_yaml, site_yaml.parent / "content" / venue
        self.files = {path: path.read_bytes() for path in (site_yaml, site_yaml.parent / "content" / ".imported.json")}

    def __call__(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        for path, data in self.files.items():
            path.write_bytes(data)
        (self.site_yaml.parent / ".cache" / "import-report.txt").unlink(missing_ok=True)


def catalogs(sizes: list[int], small: int, commit: str, repeat: int) -> None:
    """A file of `small` records imported into catalogs of each size, COMMIT and this checkout in turn."""
    print(f"\none file of {small} records (a new venue-year) imported into a catalog of N papers; medians of "
          f"{repeat}, wall (CPU of the import process and its workers); this checkout against {commit}")
    print(f"{'catalog':>9}{commit:>22}{'this':>20}{'ratio':>8}")
    medians = {}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        old_root = unpacked(commit, folder / "old")
        source = folder / "small.csv"
        write_venue_years(source, max(sizes), small, small, 2030)
        for size in sizes:
            site_yaml = fresh_catalog(folder / f"catalog-{size}")
            whole = folder / f"catalog-{size}.csv"
            write_venue_years(whole, 0, size, 1500, 2024)  # 1,500 papers a year, as ICML has had lately
            timed_import(whole, site_yaml)  # by this checkout: its index is made as the catalog is
            restore = Restored(site_yaml, "icml-2030")
            runs = {"old": [], "new": []}
            for run in range(repeat):
                for who in ("old", "new") if run % 2 == 0 else ("new", "old"):
                    seconds, cpu, _, summary = timed_import(source, site_yaml, old_root if who == "old" else ROOT)
                    assert f"{small} created" in summary, summary
                    restore()
                    runs[who].append((seconds, cpu))
            medians[size] = {who: [statistics.median(r[i] for r in values) for i in (0, 1)]
                             for who, values in runs.items()}
            (old_wall, old_cpu), (new_wall, new_cpu) = medians[size]["old"], medians[size]["new"]
            print(f"{size:>9,}{old_wall:>11.2f} s ({old_cpu:5.2f} s){new_wall:>9.2f} s ({new_cpu:5.2f} s)"
                  f"{old_wall / new_wall:>7.2f}x", flush=True)
    first, last = min(sizes), max(sizes)
    for who, name in (("old", commit), ("new", "this")):
        print(f"{name}: into {last:,} papers / into {first:,}: {medians[last][who][0] / medians[first][who][0]:.2f}x "
              f"wall, {medians[last][who][1] / medians[first][who][1]:.2f}x CPU")


def sequence(files: int, papers: int, commit: str) -> None:
    """`files` files of papers / files records, a venue-year each, imported one by one into a
    new catalog by COMMIT and by this checkout, file after file in turn."""
    print(f"\n{files} files of {papers // files} records (a venue-year each) imported one by one into a new catalog; "
          f"total wall (CPU); this checkout against {commit}")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        old_root = unpacked(commit, folder / "old")
        sources = []
        for number in range(files):
            sources.append(folder / f"year-{number}.csv")
            write_venue_years(sources[-1], number * (papers // files), papers // files, papers // files, 2024 - number)
        catalogs_ = {who: fresh_catalog(folder / f"catalog-{who}") for who in ("old", "new")}
        totals = {who: [0.0, 0.0] for who in catalogs_}
        for number, source in enumerate(sources):
            for who in ("old", "new") if number % 2 == 0 else ("new", "old"):
                seconds, cpu, _, _ = timed_import(source, catalogs_[who], old_root if who == "old" else ROOT)
                totals[who][0] += seconds
                totals[who][1] += cpu
            if number % 10 == 9 or number == files - 1:
                print(f"  after {number + 1:>3} files: {commit} {totals['old'][0]:7.1f} s ({totals['old'][1]:6.1f} s), "
                      f"this {totals['new'][0]:7.1f} s ({totals['new'][1]:6.1f} s), "
                      f"{totals['old'][0] / totals['new'][0]:.2f}x", flush=True)
        old, new = (every_file(catalogs_[who].parent) for who in ("old", "new"))
        print(f"  the two catalogs are {'byte-identical' if old == new else 'DIFFERENT'} ({len(old):,} files)")


def every_file(catalog: Path) -> dict[str, bytes]:
    """The bytes of site.yaml and of every file under content/, by path."""
    files = {path.relative_to(catalog).as_posix(): path.read_bytes()
             for path in (catalog / "content").rglob("*") if path.is_file()}
    return {**files, "site.yaml": (catalog / "site.yaml").read_bytes()}


def deleted_before(catalog: Path, count: int) -> None:
    """Make and delete `count` files beside the catalog just before its first import.

    On ext4 without a journal (this machine's disk) the kernel will not reuse an inode for
    60 s after its file was deleted (360 s while its inode table block is unwritten), and
    each new inode is looked for past those (fs/ext4/ialloc.c, recently_deleted()): right
    after 10,000 deletions nearby, creating 10,000 files costs 4-8 s of kernel time, however
    they are written. So the bench never deletes a catalog between runs, and --churn shows
    that case on purpose."""
    if not count:
        return
    junk = catalog.parent / f"{catalog.name}-deleted"
    junk.mkdir()
    for number in range(count):
        (junk / f"{number}.md").write_bytes(b"x" * 1400)
    shutil.rmtree(junk)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bibtex", default="1500,3000", help="entry counts of the BibTeX files")
    parser.add_argument("--csv", default="5000,10000", help="row counts of the CSV files")
    parser.add_argument("--against", metavar="COMMIT", help="also compare with this commit, side by side")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each version for --against")
    parser.add_argument("--churn", type=int, default=0, metavar="N",
                        help="make and delete N files beside each catalog before its first import (see deleted_before)")
    parser.add_argument("--catalogs", metavar="SIZES", help="import one small file into catalogs of these sizes "
                                                             "(with --against)")
    parser.add_argument("--small", type=int, default=100, help="records of the small file of --catalogs")
    parser.add_argument("--sequence", type=int, metavar="FILES", help="import FILES files one by one (with --against)")
    parser.add_argument("--sequence-papers", type=int, default=10000, help="papers of --sequence in all")
    args = parser.parse_args()
    if args.catalogs or args.sequence:
        if not args.against:
            parser.error("--catalogs and --sequence compare with --against COMMIT")
        if args.catalogs:
            catalogs([int(n) for n in args.catalogs.split(",") if n], args.small, args.against, args.repeat)
        if args.sequence:
            sequence(args.sequence, args.sequence_papers, args.against)
        return
    print(f"texts from {EXPORT if EXPORT.exists() else 'bench/synth.py'}; temporary files in {tempfile.gettempdir()}")
    jobs = [("bib", int(n)) for n in args.bibtex.split(",") if n] + [("csv", int(n)) for n in args.csv.split(",") if n]
    if args.against:
        compare(jobs, args.against, args.repeat, args.churn)
        return
    print(f"{'file':<18}{'MB':>6}{'first import':>14}{'CPU':>9}{'peak RSS':>10}{'second':>9}{'CPU':>9}"
          f"{'peak RSS':>10}")
    with tempfile.TemporaryDirectory() as folder:  # catalogs kept to the end: see deleted_before
        folder = Path(folder)
        for kind, count in jobs:
            source = folder / f"papers-{count}.{kind}"
            (write_bibtex if kind == "bib" else write_csv)(source, count)
            site_yaml = fresh_catalog(folder / f"site-{kind}{count}")
            deleted_before(site_yaml.parent, args.churn)
            first, first_cpu, first_rss, summary = timed_import(source, site_yaml)
            assert f"{count} records read: {count} created" in summary, summary
            second, second_cpu, second_rss, summary = timed_import(source, site_yaml)
            assert f"{count} unchanged" in summary, summary
            print(f"{source.name:<18}{source.stat().st_size / 1e6:>6.1f}{first:>12.2f} s{first_cpu:>7.2f} s"
                  f"{first_rss:>7.0f} MB{second:>7.2f} s{second_cpu:>7.2f} s{second_rss:>7.0f} MB", flush=True)


if __name__ == "__main__":
    main()
