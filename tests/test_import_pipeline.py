"""The importer's pipeline: records prepared on forked workers, batch after batch, while the
next batch is read, give the same files, summary and notices as one process does."""
from __future__ import annotations

import csv
import multiprocessing

import pytest

from papersite.importers import run
from papersite import parallel
from papersite.source.config import load_config
from papersite.importers import import_files
from tests.conftest import TinySite

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="workers are forked")


def write_export(path, rows: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as file:
        out = csv.writer(file)
        out.writerow(["UID", "title", "authors", "abstract", "venue", "year", "keywords", "pdf"])
        for n in range(rows):
            title = "" if n == 5 else f"Sparse graph learning, part {n}"  # one without a title: skipped
            out.writerow([f"p{n % 37}", title, "Ada Lovelace|Alan Turing", f"We study sparse graphs, case {n}.\n\n"
                          "A second paragraph.", "ICML 2024" if n != 9 else "", 2024, "graphs;spectra",
                          "not a link" if n == 3 else f"https://example.org/{n}.pdf"])


def import_into(site, source, monkeypatch, jobs: int, batch: int):
    monkeypatch.setenv("PAPERSITE_JOBS", str(jobs))
    monkeypatch.setenv("PAPERSITE_TODAY", "2025-03-04")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # fork for every batch, however small
    monkeypatch.setattr(run, "BATCH", batch)
    report = import_files([source], load_config(site.root / "site.yaml"), site.root / "site.yaml")
    files = {path.relative_to(site.root).as_posix(): path.read_bytes()
             for path in sorted((site.root / "content").rglob("*")) if path.is_file()}
    return report.summary(), [str(n) for n in report.notices], files


def test_batches_on_workers_give_what_one_process_gives(tmp_path, monkeypatch):
    source = tmp_path / "export.csv"
    write_export(source, 50)  # rows 37.. repeat the UIDs of 0..: duplicates, found across batches
    results = []
    for jobs, batch in ((1, 1000), (2, 7), (2, 3)):  # 3: many batches, a fork each, yet few
        site = TinySite(tmp_path / f"site-{jobs}-{batch}")
        first = import_into(site, source, monkeypatch, jobs, batch)
        again = import_into(site, source, monkeypatch, jobs, batch)
        results.append((first, again))
    assert results[0][0][0] == ("50 records read: 37 created, 0 updated, 0 unchanged, 13 skipped "
                                "(11 duplicate, 1 no title, 1 unreadable).")
    assert any("no venue" in n for n in results[0][0][1])
    assert "0 created, 0 updated, 37 unchanged" in results[0][1][0]
    assert results[1] == results[0] and results[2] == results[0]


def test_an_error_in_a_worker_stops_the_import_and_keeps_what_was_written(tmp_path, monkeypatch):
    source = tmp_path / "export.csv"
    write_export(source, 30)
    site = TinySite(tmp_path / "site")
    prepare = run.prepare

    def failing(item, seed, topics):
        if item.args[-1] == 20:  # the 20th row (Deferred(make, ..., number))
            raise RuntimeError("a bug")
        return prepare(item, seed, topics)

    monkeypatch.setattr(run, "prepare", failing)
    with pytest.raises(RuntimeError, match="a bug"):
        import_into(site, source, monkeypatch, 2, 7)
    written = sorted((site.root / "content").rglob("*.md"))
    assert 0 < len(written) < 20  # the batches before the failing one
    manifest = (site.root / "content" / ".imported.json").read_text()
    assert all(path.relative_to(site.root / "content").as_posix() in manifest for path in written)
    assert not [p for p in (site.root / "content").rglob("*") if p.name.endswith(".tmp")]
