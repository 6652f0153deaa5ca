"""write_site: all or nothing, and unchanged files are never rewritten."""
import os

import pytest

from papersite.errors import SiteError
from papersite.output import manifest_path, write_site


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def left_beside(out):
    """What is next to the output folder, besides its manifest."""
    return sorted(p.name for p in out.parent.iterdir() if p != manifest_path(out))


def test_first_write_then_nothing_changes(tmp_path):
    out = tmp_path / "_site"
    files = {"index.html": b"home", "papers/a/index.html": b"a", ".nojekyll": b""}
    report = write_site(files, out)
    assert (report.written, report.removed, report.total) == (3, 0, 3)
    before = snapshot(out)
    report = write_site(files, out)
    assert (report.written, report.removed) == (0, 0)
    assert snapshot(out) == before  # same bytes, same inodes, same mtimes


def test_only_changed_files_are_rewritten_and_removed_ones_go(tmp_path):
    out = tmp_path / "_site"
    write_site({"index.html": b"home", "a.html": b"a", "b.html": b"b"}, out)
    before = snapshot(out)
    report = write_site({"index.html": b"home", "a.html": b"A!"}, out)
    after = snapshot(out)
    assert (report.written, report.removed) == (1, 1)
    assert after["index.html"] == before["index.html"]
    assert after["a.html"][0] == b"A!"
    assert "b.html" not in after
    assert left_beside(out) == ["_site"]  # no staging folder left behind


def test_a_failed_write_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    write_site({"index.html": b"old", "a.html": b"a"}, out)
    before = snapshot(out)
    real_write = type(out).write_bytes
    calls = []

    def disk_full(self, data):
        calls.append(self)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(type(out), "write_bytes", disk_full)
    with pytest.raises(SiteError, match="No space left on device.*previous site is unchanged"):
        write_site({"index.html": b"new", "a.html": b"new a", "c.html": b"c"}, out)
    monkeypatch.undo()
    assert snapshot(out) == before
    assert left_beside(out) == ["_site"]


def test_an_interrupt_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    write_site({"index.html": b"old"}, out)
    before = snapshot(out)

    def interrupted(self, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(type(out), "write_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_site({"index.html": b"new"}, out)
    monkeypatch.undo()
    assert snapshot(out) == before


def test_refuses_a_source_folder(tmp_path):
    (tmp_path / "site.yaml").write_text("title: x\n")
    with pytest.raises(SiteError, match="refusing"):
        write_site({"index.html": b"x"}, tmp_path)
    assert (tmp_path / "site.yaml").exists()


def test_leftover_staging_folders_are_cleaned(tmp_path):
    out = tmp_path / "_site"
    leftover = tmp_path / "._site.new-999999"
    leftover.mkdir()
    (leftover / "junk").write_text("x")
    write_site({"index.html": b"x"}, out)
    assert not leftover.exists()
    assert os.listdir(out) == ["index.html"]
