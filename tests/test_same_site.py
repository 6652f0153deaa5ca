"""scripts/same_site.py: two versions' sites compared byte for byte."""
from __future__ import annotations

import subprocess

import pytest

from scripts import same_site
from tests.conftest import ROOT


def write(folder, files: dict[str, bytes]):
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def test_the_report_names_every_file_that_differs(tmp_path, capsys):
    old = write(tmp_path / "old", {"index.html": b"<p>same</p>", "papers/a/index.html": b"<p>a</p>\n",
                                   "gone.xml": b"<x/>", "logo.png": b"\x89PNG\x00"})
    new = write(tmp_path / "new", {"index.html": b"<p>same</p>", "papers/a/index.html": b"<p>A</p>\n",
                                   "added.xml": b"<y/>", "logo.png": b"\x89PNG\x01"})
    assert not same_site.report("demo", "v1", "v2", old, new, show_diff=True)
    out = capsys.readouterr().out
    assert "demo: 4 of 5 files differ (v1 -> v2)" in out
    for line in ("only with v1: gone.xml", "only with v2: added.xml", "differs: logo.png",
                 "differs: papers/a/index.html", "-<p>a</p>", "+<p>A</p>", "logo.png: binary"):
        assert line in out
    assert "differs: index.html" not in out


def test_the_same_files_are_byte_identical(tmp_path, capsys):
    old = write(tmp_path / "old", {"index.html": b"x", "static/site.js": b"y"})
    new = write(tmp_path / "new", {"index.html": b"x", "static/site.js": b"y"})
    assert same_site.report("demo", "v1", "v2", old, new, show_diff=False)
    assert capsys.readouterr().out == "demo: 2 files, byte-identical\n"


def in_git_checkout() -> bool:
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "HEAD"], capture_output=True).returncode == 0


@pytest.mark.skipif(not in_git_checkout(), reason="needs a git checkout")
def test_a_commit_builds_byte_identical_sites_twice(capsys):
    """End to end through git archive and each version's build.py (HEAD against itself)."""
    assert same_site.main(["HEAD", "HEAD", "--papers", "20"]) == 0
    out = capsys.readouterr().out
    assert "bundled catalog: " in out and "20-paper synthetic catalog: " in out
    assert out.endswith("byte-identical\n")
