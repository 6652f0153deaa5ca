"""Work on both cores gives the same results, in the same order, and the same errors."""
from __future__ import annotations

import dataclasses
import itertools
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from papersite import parallel
from papersite.search import files as search_module
from papersite.source.config import load_config
from papersite.errors import Problem, SiteError
from papersite.engine.command import build_and_write
from papersite.pipeline import build_site


@pytest.fixture
def forked(monkeypatch):
    """Fork for any job, however small, on two workers."""
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")


def square_or_fail(n: int) -> int:
    if n == 13:
        raise SiteError(Problem("content/x.md", 7, "thirteen"))
    return n * n


def test_results_come_back_in_order(forked):
    assert parallel.parallel_map(square_or_fail, list(range(12))) == [n * n for n in range(12)]


def test_an_error_in_a_worker_comes_back_whole(forked):
    with pytest.raises(SiteError) as raised:
        parallel.parallel_map(square_or_fail, list(range(20)))
    assert raised.value.problems == [Problem("content/x.md", 7, "thirteen")]


def test_a_build_on_two_workers_equals_one_on_one(bundled, forked, monkeypatch):
    root, _, inline = bundled  # built with the usual threshold: 57 papers stay in one process
    config = load_config(root / "site.yaml")
    two = build_site(config).files
    monkeypatch.setenv("PAPERSITE_JOBS", "1")
    one = build_site(config).files
    assert two == one == inline.files


def test_a_one_shot_build_on_two_workers_writes_the_in_memory_site(bundled, forked, tmp_path):
    """Pages and feeds are written by the workers that make them, each .bib as soon as it is made; the search index, made in a fresh process, comes back whole, as
    the map's data does (both are kept for the next build): the folder must hold exactly the
    bytes of an in-memory build."""
    root, _, _ = bundled
    config = load_config(root / "site.yaml")
    out = tmp_path / "_site"
    build, report = build_and_write(config, out)
    streamed = set(build.stored)
    assert all(isinstance(entry, str) for entry in build.stored.values())  # receipts: digests
    assert streamed == {path for path in build.paths if not path.startswith("static/")  # copied, not made
                        and path.endswith((".html", ".xml", ".txt", ".bib"))}
    assert {path for path in build.files if path.startswith("search/")} == \
        {path for path in build.paths if path.startswith("search/") and not path.endswith(".html")}
    assert streamed.isdisjoint(build.files)
    on_disk = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert on_disk == build_site(config).files
    assert report.written == report.total == len(on_disk)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["._site.manifest.json", "_site"]


def test_an_error_in_a_forked_stage_leaves_the_previous_site(bundled, forked, tmp_path, monkeypatch):
    root, _, _ = bundled
    config = load_config(root / "site.yaml")
    out = tmp_path / "_site"
    build_and_write(config, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    made = search_module._Fields.of

    def no_venues(catalog, abstracts):  # what the search index's fresh process is sent: no paper's venue is there
        return dataclasses.replace(made(catalog, abstracts), venues=())

    monkeypatch.setattr(search_module._Fields, "of", staticmethod(no_venues))
    with pytest.raises(KeyError, match="icml-2024|iclr-2024"):
        build_and_write(config, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["._site.manifest.json", "_site"]  # no staging left


def test_a_background_job_returns_its_result_or_its_error(forked):
    with parallel.in_background(lambda: square_or_fail(12), size=1) as result:
        assert result() == 144
    with parallel.in_background(lambda: square_or_fail(13), size=1) as result:
        with pytest.raises(SiteError, match="thirteen"):
            result()


def test_a_detachable_job_runs_in_a_fresh_interpreter_and_gives_its_result_its_error_or_its_end(forked):
    """A fresh interpreter rather than a fork: it starts without the parent's memory, and what
    the job sends back (its result, its exception, or how its process ended) reaches the caller.
    Stdlib functions stand for jobs: a fresh interpreter imports a job by its module's name."""
    def fresh(func, *args):
        return parallel.Detachable(lambda: func(*args), lambda: (func, args))

    with parallel.in_background(fresh(os.getpid), size=1) as result:
        assert result() != os.getpid()
    with parallel.in_background(fresh(eval, "'pytest' in __import__('sys').modules"), size=1) as result:
        assert result() is False  # a forked process would have the parent's modules
    with parallel.in_background(fresh(divmod, 17, 5), size=1) as result:
        assert result() == (3, 2)
    with parallel.in_background(fresh(int, "thirteen"), size=1) as result:
        with pytest.raises(ValueError, match="thirteen"):
            result()
    with parallel.in_background(fresh(os._exit, 3), size=1) as result:
        with pytest.raises(RuntimeError, match="exit status 3"):
            result()
    with parallel.in_background(fresh(bytes, 30_000_000), size=1) as result:  # more than a pipe holds
        assert result() == bytes(30_000_000)

    with parallel.in_background(fresh(time.sleep, 600), size=1) as result:
        process = result.__self__.process  # the fresh interpreter (result is its bound method)
    # left without waiting: the process was stopped by a signal, not waited for (it would end by itself
    # in 600 s, with status 0); 60 s: a hang guard
    assert process.wait(timeout=60) < 0


def test_a_fresh_interpreters_answer_keeps_its_arrays_whole():
    """dump_answer writes arrays as their bytes: each comes back with its typecode and items, and
    one array met twice comes back as one object, as pickle's own way gives."""
    import io
    from array import array

    shared = array("q", [2**40, -7, 0])
    answer = {"ids": array("I", range(70_000)), "weights": array("d", [0.5, -1e300]),
              "empty": array("b"), "twice": [shared, shared], "text": "ok"}
    buffer = io.BytesIO()
    parallel.dump_answer(answer, buffer)
    back = pickle.loads(buffer.getvalue())
    assert back == answer
    assert [a.typecode for a in (back["ids"], back["weights"], back["empty"])] == ["I", "d", "b"]
    assert back["twice"][0] is back["twice"][1]


def test_an_item_stream_argument_reaches_a_fresh_interpreter_item_by_item(forked):
    """An ItemStream argument follows the job down the pipe one item at a time, and the job reads
    each as it takes it: an endless one works (sent whole, it never would); an error raised
    while making its items is the caller's; inline, it is the iterable."""
    def fresh(func, *args):
        return parallel.Detachable(lambda: func(*args), lambda: (func, args))

    with parallel.in_background(fresh(next, parallel.ItemStream(itertools.count(7))), size=1) as result:
        assert result() == 7
    chunks = ([n] * 1000 for n in range(300))  # more than a pipe holds
    with parallel.in_background(fresh(sum, parallel.ItemStream(chunks), []), size=1) as result:
        assert result() == [n for n in range(300) for _ in range(1000)]

    holder = []

    def failing():
        yield [1]
        # a process forked meanwhile (a build's workers) holds this end of the pipe too: the fresh
        # process must be told, as it would wait for the pipe's end until that process ends
        holder.append(os.fork())
        if holder[-1] == 0:
            time.sleep(60)
            os._exit(0)
        raise KeyError("the third paper")
    try:
        with parallel.in_background(fresh(list, parallel.ItemStream(failing())), size=1) as result:
            with pytest.raises(KeyError, match="the third paper"):
                result()
        assert os.waitpid(holder[0], os.WNOHANG) == (0, 0)  # the answer did not wait for the holder to end
    finally:
        os.kill(holder[0], signal.SIGKILL)
        os.waitpid(holder[0], 0)
    assert list(parallel.ItemStream(iter("ab"))) == ["a", "b"]
    with pytest.raises(pickle.PicklingError):
        pickle.dumps(parallel.ItemStream([1]))  # only a fresh interpreter's job carries one


def test_a_fresh_interpreter_runs_this_papersite_whatever_folder_it_starts_in(forked, tmp_path, monkeypatch):
    """A build run from a folder holding another papersite (a second checkout) does its
    background work with its own code, not that one."""
    impostor = tmp_path / "papersite"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("raise ImportError('the papersite of the working folder')\n")
    monkeypatch.chdir(tmp_path)
    job = parallel.Detachable(lambda: divmod(17, 5), lambda: (divmod, (17, 5)))
    with parallel.in_background(job, size=1) as result:
        assert result() == (3, 2)


def test_a_detachable_job_without_an_interpreter_to_start_is_forked(forked, monkeypatch):
    monkeypatch.setattr(parallel.sys, "executable", "/nonexistent/python")
    job = parallel.Detachable(lambda: os.getpid(), lambda: (os.getpid, ()))
    with parallel.in_background(job, size=1) as result:
        assert result() != os.getpid()


def test_a_small_detachable_job_runs_inline():
    calls = []
    job = parallel.Detachable(lambda: calls.append("inline") or os.getpid(), lambda: calls.append("detached"))
    with parallel.in_background(job, size=1) as result:
        assert result() == os.getpid()
    assert calls == ["inline"]


def exits(n: int) -> int:
    if n == 3:
        raise SystemExit("a library gave up")
    return n


def test_a_job_that_raises_what_is_not_an_exception_fails_rather_than_hangs(forked):
    """A pool's worker passes back Exceptions only: SystemExit would end it, and its result would
    be waited for for ever (the alarm makes that a failure, not a hung test run)."""
    def hung(signum, frame):
        raise TimeoutError("the job's result never came")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        with pytest.raises(RuntimeError, match="SystemExit: a library gave up"):
            parallel.parallel_map(exits, list(range(8)))
        with parallel.in_background(lambda: exits(3), size=1) as result:
            with pytest.raises(RuntimeError, match="SystemExit: a library gave up"):
                result()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def pid_of(_item) -> int:
    return os.getpid()


def test_fresh_workers_take_one_slice_each(forked):
    """fresh=True: a new process per slice (so none accumulates copies of the
    parent's memory); without it, the two workers take every slice."""
    items = list(range(40))
    assert len(set(parallel.parallel_map(pid_of, items))) <= 2
    fresh = parallel.parallel_map(pid_of, items, fresh=True)
    slices = [fresh[i:i + 5] for i in range(0, 40, 5)]  # 2 workers x 4 slices of 5
    assert all(len(set(s)) == 1 for s in slices) and len({s[0] for s in slices}) == 8
    assert parallel.parallel_map(square_or_fail, list(range(12)), fresh=True) == [n * n for n in range(12)]


def test_a_fresh_worker_takes_at_most_fresh_slice_items(forked, monkeypatch):
    """However many items there are, a fresh worker's copies of the parent's memory stay those of
    FRESH_SLICE items (at 50,000 papers, 8 slices grew the build by ~500 MB)."""
    monkeypatch.setattr(parallel, "FRESH_SLICE", 3)
    fresh = parallel.parallel_map(pid_of, list(range(40)), fresh=True)
    slices = [fresh[i:i + 3] for i in range(0, 40, 3)]  # 14 slices, where 2 workers x 4 would make 8
    assert all(len(set(s)) == 1 for s in slices) and len({s[0] for s in slices}) == 14


def test_a_fresh_worker_takes_at_most_fresh_weight(forked, monkeypatch):
    """Items weigh what they read (a listing reads its 200 papers): a fresh worker takes at most
    FRESH_WEIGHT of them, so the worker rendering the listings that read every paper of 50,000
    copies a slice's worth of them, not ~200 MB. An item heavier than that goes alone."""
    monkeypatch.setattr(parallel, "FRESH_WEIGHT", 10)
    weights = [1] * 100 + [4] * 20 + [25, 25]  # 122 items: 16 a slice by count alone
    fresh = parallel.parallel_map(pid_of, list(range(len(weights))), fresh=True, weights=weights)
    light, heavy = fresh[:100], fresh[100:120]
    assert all(len(set(light[i:i + 10])) == 1 for i in range(0, 100, 10))  # ten of weight 1 a worker
    assert all(len(set(heavy[i:i + 2])) == 1 for i in range(0, 20, 2))  # two of weight 4: 8, a third would be 12
    assert len(set(light)) == 10 and len(set(heavy)) == 10 and fresh[120] != fresh[121] and len(set(fresh)) == 22
    assert parallel.parallel_map(square_or_fail, list(range(12)), fresh=True, weights=[30] * 12) == \
        [n * n for n in range(12)]


TRIMMED = """
import sys
from papersite import parallel
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 // 2**20
kept, freed = [], []
for number in range(200_000):  # 2 KB strings, from the C library's heap; a kept one among 64
    (kept if number % 64 == 0 else freed).append(str(number) * 400)
del freed
before = resident()
parallel.give_back_freed_memory()
print(before, resident())
"""


@pytest.mark.skipif(parallel._TRIM is None or not Path("/proc/self/statm").exists(), reason="glibc on Linux")
def test_memory_a_stage_freed_goes_back_to_the_system():
    """A stage's garbage freed among what it keeps stays the process's until given back; the
    workers forked next would count it. Here ~400 MB of 2 KB strings, one in 64 kept."""
    root = Path(parallel.__file__).parent.parent
    before, after = map(int, subprocess.run([sys.executable, "-c", TRIMMED], cwd=root, capture_output=True,
                                            text=True, check=True).stdout.split())
    assert before > 300 and after < before - 300


def test_a_background_process_ends_with_its_job(forked):
    """Its memory is freed when its job is done, not when the block ends."""
    def ended(pid: int) -> bool:  # gone, or a zombie: its memory is freed either way
        try:
            return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True

    with parallel.in_background(os.getpid, size=1) as result:
        pid = result()
        assert pid != os.getpid()
        deadline = time.monotonic() + 60  # a hang guard: it ends within milliseconds
        while not ended(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ended(pid), "still running after its job"


def _nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_a_pool_whose_idle_workers_were_killed_from_outside_still_stops():
    # SIGTERM to the process group kills the workers wherever they are: an idle one waits for a
    # task holding the task queue's lock, which then stays taken, and Pool.terminate() waits for
    # it for ever. The build's clean-up must end all the same.
    import multiprocessing
    import signal
    import threading

    pool = multiprocessing.get_context("fork").Pool(2, initializer=parallel._start_worker)
    try:
        assert pool.map(_nap, [0.01, 0.01]) == [0.01, 0.01]  # and both workers wait for the next task
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGTERM)
        time.sleep(0.2)
        stopping = threading.Thread(target=parallel.end_pool, args=(pool,), daemon=True)
        stopping.start()
        stopping.join(60)  # a hang guard: end_pool gives up on the pool after STOP_WAIT
        assert not stopping.is_alive(), "stopping the pool hangs"
    finally:
        for child in multiprocessing.active_children():
            child.kill()


# A signal sent to the process group reaches the process, and the kernel hands it to any of its
# threads that does not block it: here, to one of the pool's own. Python runs the handler in the
# main thread only, once it runs Python code again; the workers, ended by the same SIGTERM, never
# answer. Run in a process of its own, so that a hang fails the test instead of stalling the suite.
SIGNAL_ELSEWHERE = """
import multiprocessing, os, signal, sys, threading, time
from papersite import parallel
from papersite.cli import Terminated, signals_handled

parallel.MIN_ITEMS = 1
os.environ["PAPERSITE_JOBS"] = "2"

def nap(n):
    time.sleep(0.2)
    return n

def strike():
    time.sleep(0.5)  # the workers are busy, the main thread waits for their results
    for child in multiprocessing.active_children():
        os.kill(child.pid, signal.SIGTERM)
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # this thread's, not the main one's

threading.Thread(target=strike, daemon=True).start()
started = time.monotonic()
try:
    with signals_handled():
        parallel.parallel_map(nap, list(range(40)))
except Terminated:
    print(f"stopped after {time.monotonic() - started:.1f} s")
    sys.exit(143)
"""


def test_sigterm_handed_to_another_thread_still_stops_the_wait_for_workers():
    run = run_apart(SIGNAL_ELSEWHERE)
    assert run.returncode == 143, run
    assert run.stdout.startswith("stopped after"), run  # Terminated was raised: the wait ended (a hang fails run_apart)


def run_apart(script: str, timeout: float = 60):
    """The script, run by this Python in a process group of its own, ended whole if it hangs
    (`timeout`: a hang guard, not a measure of speed)."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parent.parent, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"hung for {timeout} s: {err}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # any worker left behind
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_worker_that_will_not_stop_does_not_outlive_its_pool(monkeypatch, tmp_path):
    """A forked worker that outlives SIGTERM (as one stuck before it could set its signals up)
    would outlive the command too, holding its output open: end_pool kills it."""
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    monkeypatch.setattr(parallel, "STOP_WAIT", 0.5)
    started = tmp_path / "started"

    def stubborn() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        started.write_text(str(os.getpid()))
        time.sleep(600)

    with parallel.in_background(stubborn, size=1):
        while not started.exists():
            time.sleep(0.01)
    worker = int(started.read_text())
    with pytest.raises(OSError):  # gone, and reaped
        os.kill(worker, 0)


def test_a_job_for_a_fresh_process_takes_the_spare_of_its_kind_started_ahead_and_an_unused_spare_ends_with_its_parent(
        monkeypatch):
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    parallel.start_spare("test", ["json"])
    spare = parallel._spares["test"]
    parallel.start_spare("test", ["json"])  # one of a kind at a time: the same one
    assert parallel._spares["test"] is spare
    other = parallel.Detachable(lambda: None, lambda: (os.getpid, ()), "another kind")
    with parallel.in_background(other, 10) as result:
        assert result() not in (spare.pid, os.getpid())  # not its kind: a process started for it
    job = parallel.Detachable(lambda: None, lambda: (os.getpid, ()), "test")
    with parallel.in_background(job, 10) as result:
        assert result() == spare.pid  # ran there, not in a process started for it
    assert "test" not in parallel._spares and spare.wait(10) == 0
    with parallel.in_background(job, 10) as result:  # none left: one is started
        assert result() not in (spare.pid, os.getpid())
    parallel.start_spare("test", [])
    unused = parallel._spares.pop("test")
    unused.stdin.close()  # as when the process that started it ends
    assert unused.wait(10) == 0 and unused.stdout.read() == b""


def test_a_job_in_a_fresh_process_nobody_waits_for_says_when_it_is_done_and_can_be_stopped():
    parallel.start_spare("test", [])
    spare = parallel._spares["test"]
    job = parallel.in_fresh(os.getpid, (), "test")
    assert job.result() == spare.pid and job.done()
    job.cancel()  # done: nothing to stop
    slow = parallel.in_fresh(time.sleep, (30,))
    assert not slow.done()
    slow.cancel()
    assert slow.done() and slow.process.returncode == -signal.SIGKILL  # stopped, not left to sleep it out
    with pytest.raises(RuntimeError):  # stopped: no answer
        slow.result()


def test_a_spare_does_what_it_is_asked_to_get_ready_before_its_job_and_a_failure_there_is_not_the_jobs(tmp_path):
    parallel.start_spare("test", [])
    spare = parallel._spares["test"]
    parallel.prepare_spare("test", os.chdir, (str(tmp_path),))
    parallel.prepare_spare("test", int, ("not a number",))  # raises there: the spare goes on
    job = parallel.in_fresh(os.getcwd, (), "test")
    assert job.result() == str(tmp_path) and job.process is spare
    assert os.getcwd() != str(tmp_path)  # done there, not here
    parallel.prepare_spare("test", os.getpid, ())  # no spare of that kind waits: nothing to ask
    assert "test" not in parallel._spares


def test_what_a_job_in_a_fresh_process_prints_reaches_the_parents_stderr_and_not_its_answer(capfd, monkeypatch):
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # printed into a buffer, flushed before the process ends
    job = parallel.in_fresh(print, ("a line from the fresh process",))
    assert job.result() is None  # the answer is the job's, not what it printed
    assert "a line from the fresh process" in capfd.readouterr().err


def test_work_taken_a_block_at_a_time_is_cut_into_a_part_a_core_in_order(monkeypatch):
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    parts = parallel.parallel_parts(lambda part: (os.getpid(), list(part)), list(range(7)))
    assert [items for _, items in parts] == [[0, 1, 2, 3], [4, 5, 6]]
    assert os.getpid() not in {pid for pid, _ in parts}  # each made by a worker
    monkeypatch.setattr(parallel, "MIN_ITEMS", 100)  # too few to fork for: one part, made here
    assert parallel.parallel_parts(lambda part: (os.getpid(), list(part)), list(range(7))) == [
        (os.getpid(), list(range(7)))]


def test_a_pools_worker_does_its_parallel_work_itself(monkeypatch):
    """A worker of a pool may start no processes of its own (multiprocessing refuses): its
    parallel work runs in it, as a small job's does."""
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    job = parallel.Background(lambda: (os.getpid(), parallel.parallel_parts(lambda part: os.getpid(), [1, 2, 3])),
                              lambda: None)
    worker, parts = job.result()
    assert parts == [worker] and worker != os.getpid()
