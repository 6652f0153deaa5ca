"""write_site: all or nothing, and unchanged files are never rewritten."""
import json
import os

import pytest

from papersite import parallel
from papersite.engine import output
from papersite.errors import SiteError
from papersite.engine.output import Staging, manifest_path, write_site


@pytest.fixture(autouse=True, params=["surveyed inline", "surveyed apart"])
def survey(request, monkeypatch):
    """Every test twice: the output folder listed in this process, and in a process of its own
    (as `build` lists a large one, while it loads the last session)."""
    if request.param == "surveyed apart":
        monkeypatch.setattr(output, "SURVEY_APART_FROM", 0)
        monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
        init = Staging.__init__
        monkeypatch.setattr(Staging, "__init__", lambda self, *args, **kwargs: init(
            self, *args, **{**kwargs, "survey_alongside": True}))
    return request.param


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
    real_write = os.write
    calls = []

    def disk_full(fd, data):  # the second file's write fails, as write(2) does on a full disk
        calls.append(fd)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(SiteError, match="No space left on device.*previous site is unchanged"):
        write_site({"index.html": b"new", "a.html": b"new a", "c.html": b"c"}, out)
    monkeypatch.undo()
    assert snapshot(out) == before
    assert left_beside(out) == ["_site"]


def test_an_interrupt_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    write_site({"index.html": b"old"}, out)
    before = snapshot(out)

    def interrupted(fd, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
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


def test_a_second_write_trusts_the_manifest_and_reads_no_old_file(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    files = {f"papers/p{i}/index.html": f"page {i}".encode() for i in range(20)}
    write_site(files, out)
    assert manifest_path(out).is_file() and not (out / manifest_path(out).name).exists()  # beside, not inside

    real_read = type(out).read_bytes

    def no_reading(self):
        assert out not in self.parents, f"read {self}"
        return real_read(self)

    monkeypatch.setattr(type(out), "read_bytes", no_reading)
    report = write_site(dict(files), out)
    assert (report.written, report.removed) == (0, 0)
    report = write_site({**files, "papers/p3/index.html": b"changed"}, out)
    assert report.written == 1


def test_a_file_changed_by_hand_is_rewritten(tmp_path):
    out = tmp_path / "_site"
    files = {"index.html": b"home page", "a.html": b"a"}
    write_site(files, out)
    (out / "index.html").write_bytes(b"HOME PAGE")  # same size, new bytes and mtime
    report = write_site(files, out)
    assert report.written == 1 and (out / "index.html").read_bytes() == b"home page"


DAMAGED = {
    "corrupt": ("{not json", "not valid JSON: Expecting property name enclosed in double quotes at line 1"),
    "nested": ('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    "huge": ('{"files": {"index.html": [' + "9" * 5000 + ', 1, 2, "x"]}}', "a number of 5,000 digits"),
    "shape": ('["index.html"]', 'not a manifest: no "files" object'),
}


@pytest.mark.parametrize("manifest", ["missing", *DAMAGED])
def test_without_a_usable_manifest_unchanged_files_are_still_not_rewritten(tmp_path, manifest):
    out = tmp_path / "_site"
    files = {".nojekyll": b"", "index.html": b"home", "a.html": b"a"}
    write_site(files, out)
    before = snapshot(out)
    if manifest == "missing":
        manifest_path(out).unlink()
    else:
        manifest_path(out).write_text(DAMAGED[manifest][0])
    report = write_site(files, out)  # an old site of ours: it has .nojekyll, and holds only files rewritten
    assert (report.written, report.removed) == (0, 0)
    assert snapshot(out) == before
    if manifest == "missing":
        assert report.warnings == ()
    else:  # said, naming it; and written anew
        assert report.warnings == (f"warning: {manifest_path(out)} is damaged ({DAMAGED[manifest][1]}): ignored, "
                                   f"and written anew; the files in {out}/ were compared byte for byte instead",)
    assert write_site(files, out).warnings == ()
    assert write_site({**files, "index.html": b"home!"}, out).written == 1


@pytest.mark.parametrize("manifest", ["nested", "huge"])
def test_a_damaged_manifest_beside_files_not_ours_is_named_and_nothing_is_lost(tmp_path, manifest):
    out = tmp_path / "_site"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    manifest_path(out).write_text(DAMAGED[manifest][0])
    with pytest.raises(SiteError) as caught:
        write_site({".nojekyll": b"", "index.html": b"home"}, out)
    assert f"{manifest_path(out).name} beside it is damaged: {DAMAGED[manifest][1]}" in str(caught.value)
    assert "whose manifest was damaged, delete the folder" in str(caught.value)
    assert os.listdir(out) == ["notes.txt"] and (out / "notes.txt").read_text() == "mine"


def test_without_a_manifest_a_site_that_would_lose_a_file_is_refused(tmp_path):
    out = tmp_path / "_site"
    write_site({".nojekyll": b"", "index.html": b"home", "a.html": b"a"}, out)
    manifest_path(out).unlink()
    before = snapshot(out)
    with pytest.raises(SiteError, match=r"_site/a.html: not written by papersite.*move it out"):
        write_site({".nojekyll": b"", "index.html": b"new"}, out)
    assert snapshot(out) == before and left_beside(out) == ["_site"]


def test_a_rebuild_touches_only_the_files_that_change(tmp_path):
    """Not even a hard link or a rename for the rest: their ctime stays as it was."""
    out = tmp_path / "_site"
    files = {f"papers/p{i}/index.html": f"page {i}".encode() for i in range(10)}
    write_site({**files, "index.html": b"home"}, out)
    ctimes = {path: (out / path).stat().st_ctime_ns for path in files}
    report = write_site({**files, "papers/p3/index.html": b"page 3, revised", "papers/p10/index.html": b"new"}, out)
    assert (report.written, report.removed) == (2, 1)
    assert {path: (out / path).stat().st_ctime_ns for path in files if path != "papers/p3/index.html"} == \
        {path: ctime for path, ctime in ctimes.items() if path != "papers/p3/index.html"}
    assert (out / "papers/p3/index.html").read_bytes() == b"page 3, revised"
    assert not (out / "index.html").exists() and left_beside(out) == ["_site"]


def test_a_file_that_becomes_a_folder_and_back(tmp_path):
    out = tmp_path / "_site"
    write_site({"index.html": b"home", "about": b"a page", "old/a.html": b"a", "old/deep/b.html": b"b"}, out)
    write_site({"index.html": b"home", "about/index.html": b"a folder", "old": b"now a file"}, out)
    assert snapshot(out).keys() == {"index.html", "about/index.html", "old"}
    assert (out / "old").read_bytes() == b"now a file"
    write_site({"index.html": b"home", "about": b"a page again"}, out)
    assert {p.relative_to(out).as_posix() for p in out.rglob("*")} == {"index.html", "about"}


def test_an_interrupted_move_leaves_whole_files_and_the_next_write_finishes_it(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    old = {f"p{i}.html": f"old {i}".encode() for i in range(6)}
    new = {**{f"p{i}.html": f"new {i}".encode() for i in range(1, 6)}, "q.html": b"added"}
    write_site(old, out)
    real_rename, moved = os.rename, []

    def rename(source, target):
        if len(moved) == 2:
            raise KeyboardInterrupt
        moved.append(target)
        real_rename(source, target)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        write_site(new, out)
    monkeypatch.undo()
    for path in out.iterdir():  # each file is the old one or the new one, whole
        assert path.read_bytes() in (old.get(path.name), new.get(path.name)), path
    report = write_site(new, out)
    assert report.removed == 1 and {p.name: p.read_bytes() for p in out.iterdir()} == new
    assert left_beside(out) == ["_site"]


@pytest.mark.skipif(not parallel.worth_forking(10**6), reason="needs two cores and fork")
def test_a_survey_apart_is_made_in_another_process_and_says_the_same(tmp_path, monkeypatch):
    out = tmp_path / "_site"
    write_site({"index.html": b"home", "papers/a/index.html": b"a", ".nojekyll": b""}, out)
    (out / "index.html").write_bytes(b"touched")  # no longer vouched for by the manifest
    held = output.survey(out, out)
    assert sorted(held.vouched) == [".nojekyll", "papers/a/index.html"]
    assert sorted(held.on_disk) == [".nojekyll", "index.html", "papers/a/index.html"]
    listed_by = tmp_path / "listed-by"
    existing = output._existing_files
    monkeypatch.setattr(output, "_existing_files", lambda folder: (listed_by.write_text(str(os.getpid())),
                                                                   existing(folder))[1])
    monkeypatch.setattr(output, "SURVEY_APART_FROM", 0)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    with Staging(out, survey_alongside=True) as apart:
        assert apart.surveyed() == held
    assert int(listed_by.read_text()) != os.getpid()


def test_a_short_write_is_carried_on_until_the_whole_file_is_written(tmp_path, monkeypatch):
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:3])))  # write(2) may write less
    out = tmp_path / "_site"
    files = {"index.html": b"<p>home</p>" * 50, "papers/a/index.html": "é ∑ 🙂".encode() * 20, "empty.txt": b""}
    write_site(files, out)
    monkeypatch.undo()
    assert {path: (out / path).read_bytes() for path in files} == files


def test_a_file_written_a_few_bytes_at_a_time_is_written_whole(tmp_path, monkeypatch):
    """write(2) may write less than it is given (a pipe, a full disk, a signal): the rest follows."""
    from papersite.source import files
    write = os.write
    monkeypatch.setattr(files.os, "write", lambda fd, data: write(fd, bytes(data[:3])))
    data = bytes(range(256)) * 5
    with Staging(tmp_path / "out") as staging:
        staging.put("papers/a/index.html", data)
        staging.put("papers/a/empty.txt", b"")
        assert (staging.folder / "papers/a/index.html").read_bytes() == data
        assert (staging.folder / "papers/a/empty.txt").read_bytes() == b""


def test_what_a_commit_leaves_is_what_the_next_survey_finds(tmp_path):
    out = tmp_path / "site"
    left = None
    for files in ({"a.html": b"a", "d/b.html": b"b"}, {"a.html": b"A", "d/c.html": b"c"},
                  {"a.html": b"A", "d/c.html": b"c"}, {"a.html": b"A2", "e.html": b"e"}):
        for trusted in (False, True):  # a commit expecting the last one's output keeps its manifest's entries
            with Staging(out, survey_alongside=True, expected=left if trusted else None) as staging:
                report = staging.commit(files)
                left = staging.left
            assert left is not None and set(left.survey.on_disk) == set(files)
            with Staging(out) as staging:
                assert staging.surveyed() == left.survey
            assert left.entries is not None or not (report.written or report.removed)  # kept by a commit that wrote
            if left.entries is not None:
                assert json.loads(manifest_path(out).read_text())["files"] == {
                    path: json.loads(f"{{{entry}}}")[path] for path, entry in left.entries.items()}


def test_a_commit_expecting_the_output_as_it_was_left_moves_nothing_when_it_was_changed_since(tmp_path):
    out = tmp_path / "site"
    with Staging(out) as staging:
        staging.commit({"a.html": b"a", "b.html": b"b"})
        left = staging.left
    with Staging(out, survey_alongside=True, expected=left) as staging:  # as expected: committed as usual
        report = staging.commit({"a.html": b"a2", "b.html": b"b"})
        left = staging.left
    assert report.written == 1 and (out / "a.html").read_bytes() == b"a2"
    (out / "b.html").unlink()
    kept = left.survey.vouched["b.html"]
    with Staging(out, survey_alongside=True, expected=left) as staging:
        assert staging.put("b.html", b"b") == kept  # as it expects: kept, not written
        with pytest.raises(output.OutputChanged):
            staging.commit({"a.html": b"a3"}, {"b.html": kept})
    assert sorted(os.listdir(out)) == ["a.html"] and (out / "a.html").read_bytes() == b"a2"
    with Staging(out) as staging:  # and as a build does then: against what the output holds
        staging.commit({"a.html": b"a3", "b.html": b"b"})
    assert {path: (out / path).read_bytes() for path in os.listdir(out)} == {"a.html": b"a3", "b.html": b"b"}
