"""The same sources give byte-identical output whatever order the file system lists them in,
wherever the site lives on disk and however the command is invoked.

(Across PYTHONHASHSEED values: tests/test_site.py.)
"""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import build
from papersite.pipeline import build_site
from tests.conftest import TinySite, paper_text

MORE_CONFIG = """\
  - slug: iclr-2024
    name: ICLR 2024
    year: 2024
    full_name: International Conference on Learning Representations
  - slug: neurips-2023
    name: NeurIPS 2023
    year: 2023
"""


def make_site(root: Path) -> TinySite:
    """Enough to exercise every ordering: folders, venues, topics, ties in sort keys, static files."""
    site = TinySite(root)
    site.write("site.yaml", (root / "site.yaml").read_text() + MORE_CONFIG)
    words = ["generalization", "diffusion", "bounds", "sampling", "kernels", "scaling", "noise", "graphs"]
    for n in range(24):
        venue = ["icml-2024", "iclr-2024", "neurips-2023"][n % 3]
        topics = ["[learning-theory]", "[generative-models]", "[learning-theory, generative-models]"][n % 3]
        title = f"Same Title {n % 4}"  # ties: ordering must fall back to something stable
        body = f"We study {words[n % 8]} and {words[(n * 3) % 8]} with $x_{n}$. Zebra {n}."
        folder = ["a", "z", "m/deeper"][n % 3]
        site.write(f"content/{folder}/paper-{n:02d}.md",
                   paper_text(id=f"id-{(n * 7) % 24:02d}", title=title, venue=venue, topics=topics, body=body)
                   .replace("year: 2024", f"year: {2023 if venue == 'neurips-2023' else 2024}"))
    for name in ("b.css", "a.js", "img/z.svg", "img/a.svg"):
        site.write(f"static/{name}", f"/* {name} */\n")
    return site


class Reordered:
    """Make os.walk, os.scandir and os.listdir hand out entries in another order."""

    def __init__(self, monkeypatch, order):
        self.order = order
        real_walk, real_listdir, real_scandir = os.walk, os.listdir, os.scandir

        def walk(top, *args, **kwargs):
            for folder, dirs, files in real_walk(top, *args, **kwargs):
                reordered = order(list(dirs))
                dirs[:] = reordered  # the caller may prune dirs in place; walk honours the same list
                files[:] = order(list(files))
                yield folder, dirs, files

        def listdir(path="."):
            return order(real_listdir(path))

        class ScandirIterator:
            def __init__(self, path="."):
                with real_scandir(path) as entries:
                    self.entries = iter(order(list(entries)))

            def __iter__(self):
                return self

            def __next__(self):
                return next(self.entries)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.close()

            def close(self):
                pass

        monkeypatch.setattr(os, "walk", walk)
        monkeypatch.setattr(os, "listdir", listdir)
        monkeypatch.setattr(os, "scandir", ScandirIterator)


ORDERS = {
    "reversed": lambda items: sorted(items, key=lambda e: getattr(e, "name", e), reverse=True),
    "shuffled": lambda items: random.Random(len(items)).sample(items, len(items)),
}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    site = make_site(tmp_path_factory.mktemp("reference") / "site")
    return site, build_site(site.config).files


def test_the_reordering_is_real(tmp_path, monkeypatch):
    for name in ("b", "a", "c"):
        (tmp_path / name).write_text("")
    natural = os.listdir(tmp_path)
    Reordered(monkeypatch, ORDERS["reversed"])
    assert os.listdir(tmp_path) == ["c", "b", "a"]
    assert [e.name for e in os.scandir(tmp_path)] == ["c", "b", "a"]
    assert next(os.walk(tmp_path))[2] == ["c", "b", "a"]
    assert sorted(natural) == ["a", "b", "c"]


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_listing_order_does_not_change_the_output(reference, monkeypatch, order):
    site, expected = reference
    Reordered(monkeypatch, ORDERS[order])
    files = build_site(site.config).files
    assert list(files) == list(expected)  # same files, in the same order
    assert [name for name in files if files[name] != expected[name]] == []


def test_listing_order_does_not_change_the_written_site(reference, tmp_path, monkeypatch):
    site, _ = reference
    first = tmp_path / "first"
    site.build(first)
    Reordered(monkeypatch, ORDERS["reversed"])
    second = tmp_path / "second"
    site.build(second)
    monkeypatch.undo()
    assert tree_bytes(first) == tree_bytes(second)


def test_where_the_site_lives_and_how_it_is_invoked_does_not_leak(reference, tmp_path):
    """Absolute paths, the working folder or a relative --config never reach the output."""
    site, expected = reference
    elsewhere = tmp_path / "some" / "other place ü"
    shutil.copytree(site.root, elsewhere, ignore=shutil.ignore_patterns("_site"))
    old = os.getcwd()
    try:
        os.chdir(elsewhere.parent)
        result = CliRunner().invoke(build.cli, ["build", "-q", "--config", f"{elsewhere.name}/site.yaml",
                                                "-o", "out"])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    assert tree_bytes(elsewhere.parent / "out") == dict(sorted(expected.items()))
    everything = b"".join(expected.values())
    assert str(site.root).encode() not in everything and str(tmp_path).encode() not in everything


def test_a_rebuild_in_the_same_process_is_identical(reference):
    """Caches (parsed papers, rendered abstracts) give the same bytes as a cold build."""
    from papersite.engine.runner import BuildCache, Warm

    site, expected = reference
    cache = BuildCache()
    build_site(site.config, Warm(cache))
    assert build_site(site.config, Warm(cache)).files == expected


def test_listing_order_does_not_change_the_error_report(tmp_path, monkeypatch):
    """Problems in several files (and a duplicate) are reported in the same order every time."""
    from papersite.source.content import load_papers
    from papersite.catalog import Catalog
    from papersite.errors import SiteError

    site = make_site(tmp_path / "site")
    for folder in ("q", "b", "x/y"):
        site.write(f"content/{folder}/bad.md", paper_text(id=f"bad-{folder}", topics="[nope]"))
    site.write("content/z/dup-a.md", paper_text(id="id-01", title="Dup"))
    site.write("content/c/dup-b.md", paper_text(id="id-01", title="Dup"))

    def report():
        try:
            Catalog.build(load_papers(site.config), site.config)
        except SiteError as error:
            return str(error)
        raise AssertionError("expected problems")

    natural = report()
    for order in sorted(ORDERS):
        with monkeypatch.context() as patch:
            Reordered(patch, ORDERS[order])
            assert report() == natural
    assert natural.splitlines() == ["3 problems:"] + [
        f"  content/{folder}/bad.md:7: unknown topic 'nope'; add it under 'topics:' in site.yaml"
        for folder in ("b", "q", "x/y")]
    for folder in ("q", "b", "x/y"):
        (site.root / f"content/{folder}/bad.md").unlink()
    natural = report()
    assert natural.splitlines() == [  # paper-07.md has id-01 too
        "2 problems:",
        "  content/z/dup-a.md:2: duplicate id 'id-01': also used by content/c/dup-b.md:2",
        "  content/z/paper-07.md:2: duplicate id 'id-01': also used by content/c/dup-b.md:2"]
    for order in sorted(ORDERS):
        with monkeypatch.context() as patch:
            Reordered(patch, ORDERS[order])
            assert report() == natural
