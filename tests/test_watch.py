"""The watcher, the debouncer and the rebuild loop, without sockets.

The loop is driven with an injected builder; the watcher with real watchdog
events on a temp folder.
"""
from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from papersite.errors import SiteError
from papersite.importers import import_records
from papersite.source.files import import_marker, import_running
from papersite.preview.build_watch import refuse_output_in_sources
from papersite.preview.rebuild import Outcome, Rebuilder, summary
from papersite.preview.watch import ChangeQueue, ChangeSet, SourceWatcher, classify, rebuild_loop


def run_loop(queue: ChangeQueue, builder) -> threading.Thread:
    thread = threading.Thread(target=rebuild_loop, args=(queue, builder), daemon=True)
    thread.start()
    return thread


def wait_until(condition, timeout: float = 60.0) -> None:
    """A guard against hangs, not a claim about speed: conditions hold in milliseconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class FakeClock:
    """time.monotonic for the debouncer: its seconds pass when a test advances them (or by
    `tick` at every reading), so no test depends on how fast this machine runs. `readings`
    counts the readings of other threads (a taker's), so that a test can wait until a taker
    has seen the time it set."""

    def __init__(self):
        self.now, self.tick, self.readings = 1000.0, 0.0, 0
        self.main = threading.get_ident()

    def monotonic(self) -> float:
        if threading.get_ident() != self.main:
            self.readings += 1
        self.now += self.tick
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def seen_by(self, thread: threading.Thread) -> None:
        """Wait until `thread` has read the clock (again), or has ended."""
        readings = self.readings
        wait_until(lambda: self.readings > readings or not thread.is_alive())


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The watch module's clock, faked (its waits on a condition still take real time:
    never longer than the quiet period, after which it reads the clock again)."""
    import sys
    import types

    clock = FakeClock()
    fake_time = types.SimpleNamespace(monotonic=clock.monotonic, sleep=time.sleep)
    monkeypatch.setattr(sys.modules[ChangeQueue.__module__], "time", fake_time)
    return clock


class Taker(threading.Thread):
    """queue.take() in a thread of its own: `result(60)` waits for it (60 s: a hang guard)."""

    def __init__(self, queue: ChangeQueue):
        super().__init__(daemon=True)
        self.queue, self.taken = queue, []
        self.start()

    def run(self) -> None:
        self.taken.append(self.queue.take())

    def result(self, timeout: float = 60.0) -> ChangeSet | None:
        self.join(timeout)
        assert not self.is_alive(), "take() never returned"
        return self.taken[0]


class Calls:
    """A builder for rebuild_loop that records its calls; `wait_for(n)` until n came (60 s: a hang guard)."""

    def __init__(self, then=None):
        self.calls: list[ChangeSet] = []
        self.cond = threading.Condition()
        self.then = then

    def __call__(self, changes: ChangeSet) -> None:
        with self.cond:
            self.calls.append(changes)
            self.cond.notify_all()
        if self.then:
            self.then(changes)

    def wait_for(self, count: int) -> list[ChangeSet]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.calls) >= count, 60), f"{len(self.calls)} calls, not {count}"
            return list(self.calls)


# --- classify: what counts as a source change ------------------------------

@pytest.mark.parametrize("relative, expected", [
    ("content/icml-2024/a.md", "content/icml-2024/a.md"),
    ("content/icml-2024", "content/icml-2024"),  # a folder renamed or deleted
    ("templates/paper.html", "templates/paper.html"),
    ("static/logo.svg", "static/logo.svg"),
    ("site.yaml", "site.yaml"),
    ("content/icml-2024/.a.md.swp", None),  # editor swap file
    ("content/icml-2024/sedAb12Cd", None),  # `sed -i` temp file: content only reads *.md
    ("content/.imported.json", None),
    ("_site/index.html", None),  # the output: watching it would loop forever
    (".git/index", None),
    ("README.md", None),
])
def test_classify(tmp_path, relative, expected):
    is_dir = relative == "content/icml-2024"
    assert classify(tmp_path / relative, tmp_path, is_dir=is_dir) == expected


def test_classify_outside_the_project(tmp_path):
    assert classify(tmp_path.parent / "elsewhere.md", tmp_path) is None


def test_output_inside_a_watched_folder_is_refused(tmp_path):
    (tmp_path / "site.yaml").write_text("title: x\n")
    with pytest.raises(SiteError, match="inside content/"):
        refuse_output_in_sources(tmp_path / "site.yaml", tmp_path / "content" / "out")
    refuse_output_in_sources(tmp_path / "site.yaml", tmp_path / "_site")  # fine


# --- the debouncer -------------------------------------------------------

def test_a_burst_of_events_gives_one_change_set(clock):
    queue = ChangeQueue(quiet=0.1)
    for index in range(1000):  # `git checkout` touching 1,000 files, all at one instant
        queue.put(f"content/v/p{index}.md")
    burst_ended = clock.now
    clock.tick = 0.03  # each reading of the clock from now on is 30 ms later
    changes = queue.take()
    assert len(changes.paths) == 1000
    assert clock.now - burst_ended >= 0.1  # waited for the quiet period, as the debouncer's clock tells


def test_events_spread_over_time_still_give_one_change_set(clock):
    queue = ChangeQueue(quiet=0.15)
    queue.put("content/p0.md")
    taker = Taker(queue)
    for index in range(1, 10):  # 20 ms apart, 180 ms in all: more than the quiet period
        clock.advance(0.02)
        clock.seen_by(taker)  # the taker waits on, since the last event is recent
        queue.put(f"content/p{index}.md")
    clock.advance(0.15)
    assert len(taker.result().paths) == 10


def test_never_ending_events_still_rebuild(clock):
    queue = ChangeQueue(quiet=0.1, max_wait=0.3)
    started = clock.now
    queue.put("content/busy.md")
    taker = Taker(queue)
    while taker.is_alive() and clock.now - started < 10:  # a writer in a loop, 50 ms apart: never quiet
        clock.advance(0.05)
        clock.seen_by(taker)
        queue.put("content/busy.md")
    assert taker.result() == ChangeSet(("content/busy.md",))
    assert 0.3 <= clock.now - started < 0.35  # at max_wait, on the debouncer's clock, while events went on


def test_close_ends_take():
    queue = ChangeQueue()
    threading.Timer(0.05, queue.close).start()
    assert queue.take() is None


CTRL_C_ELSEWHERE = """
import signal, sys, threading, time
from papersite.cli import signals_handled
from papersite.preview.watch import ChangeQueue

def strike():
    time.sleep(0.3)  # the main thread waits for changes
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this thread's, as the watcher's may get it

threading.Thread(target=strike, daemon=True).start()
try:
    with signals_handled():
        ChangeQueue().take()
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_ctrl_c_handed_to_another_thread_ends_the_wait_for_changes():
    # `build --watch` waits in its main thread while the watcher's thread runs: the kernel may give
    # that thread the signal, and Python runs the handler in the main thread only (test_parallel.py)
    from tests.test_parallel import run_apart

    assert run_apart(CTRL_C_ELSEWHERE).returncode == 130


def test_describe():
    assert ChangeSet(("content/a.md",)).describe() == "content/a.md"
    assert ChangeSet(("content/a.md", "site.yaml")).describe() == "content/a.md, site.yaml"
    many = ChangeSet(tuple(f"content/p{i}.md" for i in range(5)) + ("templates/x.html",))
    assert many.describe() == "6 files in content/, templates/"


# --- the rebuild loop, with an injected builder -----------------------------

def test_loop_rebuilds_once_per_burst(clock):
    queue, calls = ChangeQueue(quiet=0.05), Calls()
    thread = run_loop(queue, calls)
    queue.put("content/p0.md")
    wait_until(lambda: clock.readings or calls.calls)  # the loop waits for the quiet period (or took p0 alone)
    for index in range(1, 200):  # all at one instant of the debouncer's clock
        queue.put(f"content/p{index}.md")
    clock.advance(0.05)
    [burst] = calls.wait_for(1)
    clock.advance(1)
    queue.put("content/later.md")  # nothing of the burst is left for a second rebuild
    clock.advance(0.05)
    assert calls.wait_for(2)[1:] == [ChangeSet(("content/later.md",))]
    queue.close()
    thread.join(60)
    assert len(calls.calls) == 2 and len(burst.paths) == 200


def test_an_edit_during_a_rebuild_triggers_another_rebuild(clock):
    queue, release = ChangeQueue(quiet=0.05), threading.Event()
    calls = Calls(then=lambda changes: release.wait(60))  # a long rebuild; the user saves again meanwhile
    thread = run_loop(queue, calls)
    queue.put("content/a.md")
    clock.advance(0.05)
    calls.wait_for(1)
    queue.put("content/b.md")  # during the rebuild
    clock.advance(0.05)
    release.set()
    calls.wait_for(2)
    queue.close()
    thread.join(60)
    assert [c.paths for c in calls.calls] == [("content/a.md",), ("content/b.md",)]


def test_nothing_is_lost_under_a_steady_stream_of_edits():
    queue, seen = ChangeQueue(quiet=0.02), set()
    thread = run_loop(queue, lambda changes: (seen.update(changes.paths), time.sleep(0.03)))
    expected = {f"content/p{i}.md" for i in range(100)}
    for path in sorted(expected):
        queue.put(path)
        time.sleep(0.002)
    wait_until(lambda: seen == expected)
    queue.close()
    thread.join(60)


# --- the watcher, with real file events -------------------------------------

class RecordingQueue(ChangeQueue):
    """A ChangeQueue on the fake clock that also lists every path put into it, as the watcher puts them."""

    def __init__(self, clock: FakeClock, quiet: float):
        super().__init__(quiet=quiet)
        self.clock, self.put_paths = clock, []

    def put(self, path: str) -> None:
        self.put_paths.append(path)
        super().put(path)


@pytest.fixture
def watched(clock, tmp_path):
    root = tmp_path / "project"
    for folder in ("content/v", "templates", "static"):
        (root / folder).mkdir(parents=True)
    (root / "site.yaml").write_text("title: x\n")
    (root / "content/v/a.md").write_text("old\n")
    queue = RecordingQueue(clock, quiet=0.2)
    watcher = SourceWatcher(root / "site.yaml", queue)
    watcher.start()
    yield root, queue
    watcher.stop()


def take_soon(queue: ChangeQueue, timeout: float = 60.0) -> ChangeSet | None:
    """queue.take(), or None after `timeout` seconds (a hang guard: events come in milliseconds)."""
    result = []
    thread = threading.Thread(target=lambda: result.append(queue.take()), daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        queue.close()
        thread.join(1)
    return result[0] if result else None


def take_once_put(queue: RecordingQueue, *paths: str) -> ChangeSet | None:
    """The change set, taken once the watcher has put each of `paths`. The debouncer's clock (the
    `clock` fixture) stands still until then, however slowly the events come on a busy machine;
    then every reading of it passes the quiet period, and the next take() returns what is pending."""
    wait_until(lambda: set(paths) <= set(queue.put_paths))  # 60 s: a hang guard
    queue.clock.tick = queue.quiet
    try:
        return take_soon(queue)
    finally:
        queue.clock.tick = 0.0
        queue.put_paths.clear()


def test_editor_save_temp_file_then_rename(watched):
    root, queue = watched
    temp = root / "content/v/.a.md.tmp"
    temp.write_text("new\n")
    os.replace(temp, root / "content/v/a.md")
    assert take_once_put(queue, "content/v/a.md") == ChangeSet(("content/v/a.md",))


def test_git_checkout_of_many_files_is_one_change_set(watched):
    root, queue = watched
    names = [f"content/v/p{index:04d}.md" for index in range(1000)]
    for name in names:
        (root / name).write_text(f"{name}\n")
    assert take_once_put(queue, *names) == ChangeSet(tuple(names))


def test_site_yaml_templates_static_and_deletes_are_seen(watched):
    root, queue = watched
    (root / "site.yaml").write_text("title: y\n")
    (root / "templates/paper.html").write_text("{{ paper.title }}")
    (root / "static/x.css").write_text("a{}")
    (root / "content/v/a.md").unlink()
    expected = {"site.yaml", "templates/paper.html", "static/x.css", "content/v/a.md"}
    assert set(take_once_put(queue, *expected).paths) == expected


def test_symlinked_folders_in_content_are_not_watched_but_the_link_is(watched):
    """As the build reads content/: not into a symlinked folder, whose link it warns of."""
    root, queue = watched
    (root / "elsewhere").mkdir()
    (root / "content/v/linked").symlink_to(root / "elsewhere")
    assert take_once_put(queue, "content/v/linked") == ChangeSet(("content/v/linked",))
    (root / "elsewhere/b.md").write_text("not read by the build\n")
    (root / "content/v/a.md").write_text("changed\n")
    assert take_once_put(queue, "content/v/a.md") == ChangeSet(("content/v/a.md",))


def test_output_folder_and_reads_are_ignored(watched):
    root, queue = watched
    (root / "_site").mkdir()
    (root / "_site/index.html").write_text("built")
    (root / "content/v/a.md").read_text()  # the build reading a source is no change
    (root / "content/v/a.md").write_text("changed\n")
    assert take_once_put(queue, "content/v/a.md") == ChangeSet(("content/v/a.md",))


def test_a_source_folder_created_later_or_recreated_is_watched(clock, tmp_path):
    root = tmp_path / "project"
    (root / "content").mkdir(parents=True)
    (root / "site.yaml").write_text("title: x\n")
    queue = RecordingQueue(clock, quiet=0.2)
    watcher = SourceWatcher(root / "site.yaml", queue)
    watcher.start()
    try:
        (root / "templates").mkdir()
        assert take_once_put(queue, "templates") == ChangeSet(("templates",))
        time.sleep(0.1)
        (root / "templates/paper.html").write_text("x")
        assert seen_in(take_once_put(queue, "templates/paper.html"), "templates/paper.html")
        shutil.rmtree(root / "templates")  # e.g. a `git checkout` of a branch without it, and back
        assert "templates" in take_once_put(queue, "templates").paths
        (root / "templates").mkdir()
        # with the removal's last events, under load: what matters is that the new folder is watched
        assert "templates" in take_once_put(queue, "templates").paths
        time.sleep(0.1)
        (root / "templates/base.html").write_text("x")
        assert seen_in(take_once_put(queue, "templates/base.html"), "templates/base.html")
    finally:
        watcher.stop()


def seen_in(changes: ChangeSet, path: str) -> bool:
    """`path` is in the change set, with at most its folder beside it: a new folder's own events
    can come late on a busy machine (its watch is set up as it appears), which is no miss."""
    return path in changes.paths and set(changes.paths) <= {path, path.rsplit("/", 1)[0]}


def test_a_symlinked_source_folder_is_watched_where_it_points(clock, tmp_path):
    """The build reads content/, templates/ and static/ through a link; watchdog watched the link."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "site.yaml").write_text("title: x\n")
    for name in ("content", "templates", "static"):
        (tmp_path / f"real-{name}").mkdir()
        (root / name).symlink_to(tmp_path / f"real-{name}")
    (tmp_path / "real-content/v").mkdir()
    queue = RecordingQueue(clock, quiet=0.2)
    watcher = SourceWatcher(root / "site.yaml", queue)
    watcher.start()
    try:
        (root / "content/v/a.md").write_text("new\n")
        (root / "templates/paper.html").write_text("x")
        (tmp_path / "real-static/x.css").write_text("a{}")  # written where it is: the same file
        expected = ("content/v/a.md", "static/x.css", "templates/paper.html")
        assert take_once_put(queue, *expected) == ChangeSet(expected)
        old = watcher.watches["templates"]
        (root / "templates").unlink()  # pointed elsewhere: the new target is watched
        (tmp_path / "other-templates").mkdir()
        (root / "templates").symlink_to(tmp_path / "other-templates")
        wait_until(lambda: watcher.watches.get("templates") not in (None, old))  # on the watcher's thread
        assert "templates" in take_once_put(queue, "templates").paths
        (tmp_path / "other-templates/base.html").write_text("x")
        assert "templates/base.html" in take_once_put(queue, "templates/base.html").paths
    finally:
        watcher.stop()


# --- an import while the preview runs ------------------------------------------

def test_an_import_is_one_rebuild_after_it_ends_and_never_an_error(clock, site, monkeypatch):
    """Issue 38, item 10: the papers an import writes name a new venue that site.yaml declares only
    at the end. The watcher holds the import's changes back, past max_wait, while its marker is
    there, and the real rebuilder then builds the finished import once."""
    from tests.test_import import record

    monkeypatch.setenv("PAPERSITE_TODAY", "2025-03-04")
    site.paper("one")
    rebuilder = Rebuilder(site.root / "site.yaml")
    assert rebuilder.rebuild().error is None
    queue = RecordingQueue(clock, quiet=0.2)
    queue.max_wait = 0.5
    watcher = SourceWatcher(site.root / "site.yaml", queue)
    watcher.start()
    outcomes = []
    calls = Calls(then=lambda changes: outcomes.append(rebuilder.rebuild()))
    loop = run_loop(queue, calls)
    halfway, resume = threading.Event(), threading.Event()

    def files():
        yield [record(1, title="Held Back Paper", venue="UAI 2025", year=2025)], False
        halfway.set()  # the first paper is written, its venue not yet in site.yaml
        resume.wait(60)
        yield [record(2, title="Second Held Paper", venue="UAI 2025", year=2025)], False

    config = site.config
    importing = threading.Thread(target=import_records, args=(files(), config, site.root / "site.yaml"),
                                 daemon=True)
    try:
        importing.start()
        assert halfway.wait(60)
        assert import_running(site.root)
        wait_until(lambda: any(p.startswith("content/uai-2025/") for p in queue.put_paths))
        clock.advance(10)  # past the quiet period and max_wait
        for _ in range(3):
            clock.seen_by(loop)  # the loop has looked, and waits on
        assert calls.calls == []
        resume.set()
        importing.join(60)
        assert not importing.is_alive() and not import_running(site.root)
        written = {p.relative_to(site.root).as_posix() for p in (site.root / "content/uai-2025").glob("*.md")}
        assert len(written) == 2
        wait_until(lambda: {"site.yaml", *written} <= set(queue.put_paths))
        queue.clock.tick = queue.quiet
        [changes] = calls.wait_for(1)
    finally:
        resume.set()
        queue.close()
        loop.join(60)
        watcher.stop()
    assert {"site.yaml", *written} <= set(changes.paths)
    [outcome] = outcomes
    assert outcome.error is None
    assert {p.title for p in outcome.build.catalog.papers} >= {"Held Back Paper", "Second Held Paper"}


def test_a_marker_left_by_a_killed_import_holds_nothing(clock, tmp_path):
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    marker = import_marker(tmp_path, int(gone.stdout))
    marker.parent.mkdir()
    marker.touch()
    assert not import_running(tmp_path)
    queue = ChangeQueue(quiet=0.1, held=lambda: import_running(tmp_path))
    queue.put("content/a.md")
    clock.tick = 0.1
    assert take_soon(queue) == ChangeSet(("content/a.md",))
    import_marker(tmp_path).touch()  # this process: running
    assert import_running(tmp_path)


# --- the rebuilder and its terminal line -------------------------------------

def test_rebuilder_keeps_the_last_good_build(site):
    site.paper("one", title="First Title")
    rebuilder = Rebuilder(site.root / "site.yaml")
    good = rebuilder.rebuild()
    assert good.build and good.error is None and good.changed == len(good.build.files)
    site.paper("one", title="First Title", topics="[no-such-topic]")
    bad = rebuilder.rebuild()
    assert bad.build is None
    assert str(bad.error).startswith("content/icml-2024/one.md:7: unknown topic 'no-such-topic'")
    assert rebuilder.last is good.build
    site.paper("one", title="First Title")
    fixed = rebuilder.rebuild()
    assert fixed.error is None and fixed.changed == 0  # same output as before the broken edit


def test_rebuilder_survives_an_unexpected_exception(site):
    site.paper("one")
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}{% block main %}{{ 1 // 0 }}{% endblock %}')
    outcome = Rebuilder(site.root / "site.yaml").rebuild()
    assert outcome.build is None
    assert "ZeroDivisionError" in str(outcome.error) and "paper.html" in str(outcome.error)


def test_a_symlinked_folder_in_content_is_said_once_until_it_changes(site):
    site.paper("one")
    (site.root / "content" / "up").symlink_to("..")
    rebuilder = Rebuilder(site.root / "site.yaml")
    warning = ("warning: content/up: a symlinked folder, not followed: the papers in it are not in the site "
               "(move the folder into content/, or link each file)")
    first = rebuilder.rebuild()
    assert first.error is None and first.warnings == (warning,)
    assert summary(None, first).endswith(f" built in {first.seconds * 1000:.0f} ms\n{warning}")
    site.paper("one", title="Edited")
    assert rebuilder.rebuild().warnings == ()
    (site.root / "content" / "up").unlink()
    assert rebuilder.rebuild().warnings == ()
    (site.root / "content" / "up").symlink_to("..")
    assert rebuilder.rebuild().warnings == (warning,)


def test_summary_lines(site):
    site.paper("one")
    changes = ChangeSet(("content/icml-2024/one.md",))
    line = summary(changes, Outcome(None, None, 3, 0.0423))
    assert line.endswith("content/icml-2024/one.md: 3 files changed in 42 ms")
    assert summary(changes, Outcome(None, None, 0, 0.01)).endswith(": no output changed in 10 ms")
    failed = summary(changes, Outcome(None, SiteError("content/x.md:3: invalid YAML"), 0, 0.01))
    assert "build failed" in failed and "\n  content/x.md:3: invalid YAML" in failed
