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
from papersite.preview.build_watch import refuse_output_in_sources
from papersite.preview.rebuild import Outcome, Rebuilder, summary
from papersite.preview.watch import ChangeQueue, ChangeSet, SourceWatcher, classify, rebuild_loop


def run_loop(queue: ChangeQueue, builder) -> threading.Thread:
    thread = threading.Thread(target=rebuild_loop, args=(queue, builder), daemon=True)
    thread.start()
    return thread


def wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


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

def test_a_burst_of_events_gives_one_change_set():
    queue = ChangeQueue(quiet=0.1)
    for index in range(1000):  # `git checkout` touching 1,000 files
        queue.put(f"content/v/p{index}.md")
    start = time.monotonic()
    changes = queue.take()
    assert len(changes.paths) == 1000
    assert time.monotonic() - start >= 0.09  # waited for the quiet period


def test_events_spread_over_time_still_give_one_change_set():
    queue = ChangeQueue(quiet=0.15)
    thread = threading.Thread(target=lambda: [queue.put(f"content/p{i}.md") or time.sleep(0.02)
                                              for i in range(10)])
    thread.start()
    changes = queue.take()
    thread.join()
    assert len(changes.paths) == 10


def test_never_ending_events_still_rebuild():
    queue = ChangeQueue(quiet=0.1, max_wait=0.3)
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            queue.put("content/busy.md")
            time.sleep(0.01)
    threading.Thread(target=writer, daemon=True).start()
    start = time.monotonic()
    assert queue.take() == ChangeSet(("content/busy.md",))
    stop.set()
    assert time.monotonic() - start < 1.0


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

def test_loop_rebuilds_once_per_burst():
    queue, calls = ChangeQueue(quiet=0.05), []
    thread = run_loop(queue, calls.append)
    for index in range(200):
        queue.put(f"content/p{index}.md")
    wait_until(lambda: calls)
    time.sleep(0.2)
    queue.close()
    thread.join(2)
    assert len(calls) == 1 and len(calls[0].paths) == 200


def test_an_edit_during_a_rebuild_triggers_another_rebuild():
    queue, calls = ChangeQueue(quiet=0.05), []
    started = threading.Event()

    def slow_builder(changes):
        calls.append(changes)
        started.set()
        time.sleep(0.3)  # a long rebuild; the user saves again meanwhile

    thread = run_loop(queue, slow_builder)
    queue.put("content/a.md")
    assert started.wait(2)
    queue.put("content/b.md")  # during the rebuild
    wait_until(lambda: len(calls) == 2)
    queue.close()
    thread.join(2)
    assert [c.paths for c in calls] == [("content/a.md",), ("content/b.md",)]


def test_nothing_is_lost_under_a_steady_stream_of_edits():
    queue, seen = ChangeQueue(quiet=0.02), set()
    thread = run_loop(queue, lambda changes: (seen.update(changes.paths), time.sleep(0.03)))
    expected = {f"content/p{i}.md" for i in range(100)}
    for path in sorted(expected):
        queue.put(path)
        time.sleep(0.002)
    wait_until(lambda: seen == expected)
    queue.close()
    thread.join(2)


# --- the watcher, with real file events -------------------------------------

@pytest.fixture
def watched(tmp_path):
    root = tmp_path / "project"
    for folder in ("content/v", "templates", "static"):
        (root / folder).mkdir(parents=True)
    (root / "site.yaml").write_text("title: x\n")
    (root / "content/v/a.md").write_text("old\n")
    queue = ChangeQueue(quiet=0.2)
    watcher = SourceWatcher(root / "site.yaml", queue)
    watcher.start()
    yield root, queue
    watcher.stop()


def take_soon(queue: ChangeQueue, timeout: float = 5.0) -> ChangeSet | None:
    result = []
    thread = threading.Thread(target=lambda: result.append(queue.take()), daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        queue.close()
        thread.join(1)
    return result[0] if result else None


def test_editor_save_temp_file_then_rename(watched):
    root, queue = watched
    temp = root / "content/v/.a.md.tmp"
    temp.write_text("new\n")
    os.replace(temp, root / "content/v/a.md")
    assert take_soon(queue) == ChangeSet(("content/v/a.md",))


def test_git_checkout_of_many_files_is_one_change_set(watched):
    root, queue = watched
    for index in range(1000):
        (root / f"content/v/p{index:04d}.md").write_text(f"paper {index}\n")
    changes = take_soon(queue)
    assert len(changes.paths) == 1000


def test_site_yaml_templates_static_and_deletes_are_seen(watched):
    root, queue = watched
    (root / "site.yaml").write_text("title: y\n")
    (root / "templates/paper.html").write_text("{{ paper.title }}")
    (root / "static/x.css").write_text("a{}")
    (root / "content/v/a.md").unlink()
    assert set(take_soon(queue).paths) == {"site.yaml", "templates/paper.html", "static/x.css", "content/v/a.md"}


def test_output_folder_and_reads_are_ignored(watched):
    root, queue = watched
    (root / "_site").mkdir()
    (root / "_site/index.html").write_text("built")
    (root / "content/v/a.md").read_text()  # the build reading a source is no change
    (root / "content/v/a.md").write_text("changed\n")
    assert take_soon(queue) == ChangeSet(("content/v/a.md",))


def test_a_source_folder_created_later_or_recreated_is_watched(tmp_path):
    root = tmp_path / "project"
    (root / "content").mkdir(parents=True)
    (root / "site.yaml").write_text("title: x\n")
    queue = ChangeQueue(quiet=0.2)
    watcher = SourceWatcher(root / "site.yaml", queue)
    watcher.start()
    try:
        (root / "templates").mkdir()
        assert take_soon(queue) == ChangeSet(("templates",))
        time.sleep(0.1)
        (root / "templates/paper.html").write_text("x")
        assert take_soon(queue) == ChangeSet(("templates/paper.html",))
        shutil.rmtree(root / "templates")  # e.g. a `git checkout` of a branch without it, and back
        assert "templates" in take_soon(queue).paths
        (root / "templates").mkdir()
        assert take_soon(queue) == ChangeSet(("templates",))
        time.sleep(0.1)
        (root / "templates/base.html").write_text("x")
        assert take_soon(queue) == ChangeSet(("templates/base.html",))
    finally:
        watcher.stop()


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


def test_summary_lines(site):
    site.paper("one")
    changes = ChangeSet(("content/icml-2024/one.md",))
    line = summary(changes, Outcome(None, None, 3, 0.0423))
    assert line.endswith("content/icml-2024/one.md: 3 files changed in 42 ms")
    assert summary(changes, Outcome(None, None, 0, 0.01)).endswith(": no output changed in 10 ms")
    failed = summary(changes, Outcome(None, SiteError("content/x.md:3: invalid YAML"), 0, 0.01))
    assert "build failed" in failed and "\n  content/x.md:3: invalid YAML" in failed
