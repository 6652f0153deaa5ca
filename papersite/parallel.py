"""Use both cores for the stages that are a map over independent items.

Workers are forked, so they start with the parent's memory: the function and
its inputs are never pickled, only the slice bounds going out and the results
coming back. Results come back in input order, so output stays deterministic.
Small jobs run inline: forking costs more than a small job saves, and a one-paper
rebuild cannot afford it.

`parallel_parts` does the same for work that takes a block of items at a time.
`in_background` runs one serial job (the search index) in a forked process
while the parent goes on with other stages, so neither core waits for it; a
`Detachable` job goes to a fresh interpreter instead, which starts small (a forked
one copies every page of the parent's memory its work reads, and the parent then
copies every page it writes that the fork still shares). `Background` runs one that
nobody waits for (the preview's map layout) in a fork, `in_fresh` in a fresh
interpreter. A spare interpreter started ahead (`start_spare`) takes the next such job
of its kind; `prepare_spare` has it read what that job will need before the job comes.
An `ItemStream` argument of a Detachable goes to the fresh process item by item, after
the job, and is read there as the job uses it. `give_back_freed_memory` returns what a
stage freed to the system.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import weakref
from array import array
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 400  # fewer items save less on other cores than forking costs
# Items a fresh worker takes at most (parallel_map's `fresh`): each page it renders copies more of
# the parent's memory (2,000 paper pages of 50,000 papers: ~150 MB, as a page reads six papers spread
# over the catalog); a fork costs milliseconds.
FRESH_SLICE = 1_000
# Weight a fresh worker takes at most, where items weigh what they read (parallel_map's `weights`): a
# listing reads 200 papers, and 2,000 of them read every paper of 50,000, ~200 MB copied by each worker.
FRESH_WEIGHT = 10_000
STOP_WAIT = 5.0  # seconds end_pool gives a pool to stop (it takes milliseconds unless it never will)
WAKE_EVERY = 0.05  # seconds: how often a wait for a forked process's result lets a signal handler run (see waited)
_job: tuple[Callable, Sequence] | None = None  # set only while workers may be forked for it


def workers() -> int:
    """How many processes to use: the cores this process may run on (PAPERSITE_JOBS overrides)."""
    if "PAPERSITE_JOBS" in os.environ:
        return max(1, int(os.environ["PAPERSITE_JOBS"]))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parallel_map(func: Callable[[T], R], items: Sequence[T], fresh: bool = False,
                 weights: Sequence[int] | None = None) -> list[R]:
    """[func(item) for item in items], on all cores when it pays.

    An exception raised by func (e.g. a SiteError from a template) is re-raised
    here, as it would be inline. `fresh`: every slice in a new worker. Merely
    reading an object writes its reference count, so a worker slowly copies
    every page of the parent's memory it reads; rendering reads nearly all
    of it. A fresh worker per slice holds a slice's worth at most, for a
    fork per slice: FRESH_SLICE items, and FRESH_WEIGHT of `weights` (how much
    each item reads, one by default).
    """
    if not worth_forking(len(items)):
        return [func(item) for item in items]
    with MapInBackground(func, items, fresh, weights) as job:
        return job.result()


def parallel_parts(func: Callable[[Sequence[T]], R], items: Sequence[T]) -> list[R]:
    """[func(part) for part in items cut into consecutive parts], a part a core, when the items
    are worth it; else [func(items)]. For work that takes its items a block at a time (numpy's),
    where a call per item would cost more than the item."""
    if not worth_forking(len(items)):
        return [func(items)]
    count = workers()
    step = -(-len(items) // count)
    bounds = [(start, min(start + step, len(items))) for start in range(0, len(items), step)]
    global _job
    previous, _job = _job, (func, items)
    try:
        pool = _forked_pool(count)  # forks here
    finally:
        _job = previous
    try:
        parts = pool.map_async(_run_part, bounds, chunksize=1)
        pool.close()
        return waited(parts)
    finally:
        end_pool(pool)


class MapInBackground:
    """parallel_map(func, items) started on the workers while the caller goes on with
    other work; result() waits for it. Leaving the `with` block stops the workers.
    A job too small to fork for runs inline, when result() is called. One at a time."""

    def __init__(self, func: Callable[[T], R], items: Sequence[T], fresh: bool = False,
                 weights: Sequence[int] | None = None):
        self.func, self.items, self.pool = func, items, None
        self.forked = worth_forking(len(items))
        if not self.forked:
            return
        count = workers()
        # More slices than workers, so a slow slice does not leave a core idle; a fresh worker's
        # copies grow with what it reads, so its slices are short too.
        step = -(-len(items) // (count * 4))
        if fresh:
            bounds = _fresh_bounds(min(step, FRESH_SLICE), weights or [1] * len(items))
        else:
            bounds = [(start, min(start + step, len(items))) for start in range(0, len(items), step)]
        global _job
        _job = (func, items)  # until stop(): a fresh worker forks later, from the pool's thread
        try:
            self.pool = _forked_pool(count, maxtasksperchild=1 if fresh else None)
            self.parts = self.pool.map_async(_run_slice, bounds, chunksize=1)
            self.pool.close()
        except BaseException:
            self.stop()
            raise

    def result(self) -> list[R]:
        if not self.forked:
            return [self.func(item) for item in self.items]
        try:
            return [result for part in waited(self.parts) for result in part]
        finally:
            self.stop()

    def stop(self) -> None:
        global _job
        pool, self.pool = self.pool, None
        if pool is not None:
            end_pool(pool)  # done by now, unless the caller failed
        if _job is not None and _job[0] is self.func:
            _job = None

    def __enter__(self) -> "MapInBackground":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


@dataclass(frozen=True)
class Detachable:
    """A job that runs here as `inline()`, or from scratch in a fresh process as the (func, args)
    that `detach()` makes (both picklable; made only when the job does go to such a process)."""

    inline: Callable[[], R]
    detach: Callable[[], tuple[Callable[..., R], tuple]]
    spare: str | None = None  # the kind of spare interpreter it takes, if one was started (start_spare)

    def __call__(self) -> R:
        return self.inline()


class ItemStream:
    """An iterable argument of a Detachable's job. Inline it is the iterable; sent to a fresh
    process, its items follow the job down the pipe one by one, and the job reads each as it
    takes it: that process never holds them all, nor does this one hold them pickled. At most
    one to a job, read once."""

    def __init__(self, items: Iterable):
        self.items = items

    def __iter__(self) -> Iterator:
        return iter(self.items)

    def __reduce__(self):
        if _streams is None or _streams:
            raise pickle.PicklingError("an ItemStream goes only to a fresh process, one to a job")
        _streams.append(self.items)
        return _stdin_items, ()


_streams: list[Iterable] | None = None  # while _Fresh pickles a job: the items of its ItemStream


_UNMADE = "papersite: the items of an ItemStream could not be made"  # sent in their place: see _Fresh._send


def _stdin_items() -> Iterator:
    """In the fresh process: the items sent after the job, as the job reads them (None ends them)."""
    while (item := pickle.load(sys.stdin.buffer)) is not None:
        if isinstance(item, str) and item == _UNMADE:
            raise RuntimeError(_UNMADE)  # the caller raises why
        yield item


@contextlib.contextmanager
def in_background(func: Callable[[], R], size: int) -> Iterator[Callable[[], R]]:
    """Start func() in a forked process (a Detachable, in a fresh one); inside the
    block, the function given waits for its result (and raises what func raised).
    Leaving the block early stops the process.

    For a job of `size` items worth a process; a smaller one runs inline,
    when waited for. What func changes in memory stays in its process: use
    it for pure work whose caches nobody keeps.
    """
    if not worth_forking(size):
        yield func  # inline, when waited for
        return
    if isinstance(func, Detachable):
        try:
            fresh = _Fresh(*func.detach(), spare=func.spare)
        except OSError:  # no interpreter to start (sys.executable is empty in an embedded Python): forked
            pass
        else:
            with fresh:
                yield fresh.result
            return
    global _job
    previous, _job = _job, (func, ())
    try:
        pool = _forked_pool(1)  # forks here
    finally:
        _job = previous
    try:
        result = pool.apply_async(_run_job)
        pool.close()  # the process ends with its job, and frees its memory then, not at the end of the block
        yield lambda: waited(result)
    finally:
        end_pool(pool)  # done by now, unless the block failed


# A fresh interpreter running one job: (func, args) pickled on stdin, ("ok", result) or ("error",
# exception) pickled on stdout (the job's own prints go to stderr). A new interpreter rather than
# multiprocessing's "spawn", which imports the caller's __main__ again: a script calling the build
# without an `if __name__ == "__main__"` guard would start a second build, and wait for it for ever.
_FRESH = """
import gc, importlib, os, pickle, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to answer: it ends this process
gc.disable()  # one job's objects, all alive until it ends
answer = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)
from papersite.parallel import run_fresh, dump_answer
for name in sys.argv[1:]:  # a spare imports its job's modules while it waits for the job
    importlib.import_module(name)
while True:
    try:
        kind, call = pickle.load(sys.stdin.buffer)
    except EOFError:  # a spare never given a job: its parent has ended
        sys.exit(0)
    if kind == "job":
        break
    run_fresh(call)  # a spare getting ready for its job (prepare_spare): a failure is the job's to meet
dump_answer(run_fresh(call), answer)
answer.close()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)  # the job's objects freed with the process, not one by one
"""
_spares: dict[str, subprocess.Popen] = {}  # kind -> a fresh interpreter started ahead, waiting for its job


def start_spare(kind: str, modules: Sequence[str]) -> None:
    """Start the fresh interpreter the next job of `kind` sent to one will take (a Detachable
    whose `spare` is `kind`, or in_fresh's), importing `modules` now: the warm process
    (engine/warm.py) starts them between builds, so that a job of the next build does not wait
    for an interpreter to start. One of each kind at a time."""
    if kind not in _spares or _spares[kind].poll() is not None:
        _spares[kind] = _fresh_process(modules)


def prepare_spare(kind: str, func: Callable, args: tuple) -> None:
    """Have the spare of `kind`, where one waits, call func(*args) now, before its job comes: what
    that job will read, read while nobody waits for it."""
    spare = _spares.get(kind)
    if spare is None or spare.poll() is not None:
        return
    try:
        spare.stdin.write(pickle.dumps(("ready", (func, args)), protocol=pickle.HIGHEST_PROTOCOL))
        spare.stdin.flush()
    except OSError:  # it has ended: the job starts a process of its own
        _spares.pop(kind, None)


def in_fresh(func: Callable[..., R], args: tuple, spare: str | None = None) -> "_Fresh":
    """func(*args) started in a fresh interpreter (the spare of kind `spare`, if one is waiting),
    that nobody waits for: done(), result() and cancel() as Background's. Raises OSError where
    no interpreter can be started."""
    return _Fresh(func, args, spare)


def _fresh_process(modules: Sequence[str] = ()) -> subprocess.Popen:
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
    # -P: the working folder is not put first on sys.path, so a `papersite` folder there (another
    # checkout) never stands in for this one
    return subprocess.Popen([sys.executable, "-P", "-c", _FRESH, *modules], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)


def dump_answer(answer: object, file) -> None:
    """Pickle a fresh process's answer into `file`, each array as its very bytes. pickle's own way
    copies an array's bytes and keeps the copy until the whole answer is written: for the search
    index's hundreds of thousands of arrays, tens of megabytes more at the process's peak. The
    parent, on the same machine, reads them back in the same layout."""
    _ArraysAsBytes(file, protocol=pickle.HIGHEST_PROTOCOL).dump(answer)


class _ArraysAsBytes(pickle.Pickler):
    def reducer_override(self, obj):
        if type(obj) is array:
            return array, (obj.typecode, pickle.PickleBuffer(obj))
        return NotImplemented


def run_fresh(job: tuple[Callable[..., R], tuple]) -> tuple[str, object]:
    """What _FRESH sends back for the job (func, args)."""
    try:
        return "ok", job[0](*job[1])
    except BaseException as error:  # noqa: BLE001  every failure goes back to the parent, which raises it
        try:
            pickle.dumps(error)
            return "error", error
        except Exception:
            return "error", RuntimeError(f"{type(error).__name__}: {error}")


class _Fresh:
    """func(*args) in a fresh interpreter; result() waits for it (waking as waited() does)."""

    def __init__(self, func: Callable[..., R], args: tuple, spare: str | None = None):
        ready = _spares.pop(spare, None) if spare is not None else None
        self.process = ready if ready is not None and ready.poll() is None else _fresh_process()
        self.answer: list[tuple[str, object]] = []
        self.failed: BaseException | None = None  # raised by an ItemStream's items as they were sent
        global _streams
        _streams = []
        try:
            job = pickle.dumps(("job", (func, args)), protocol=pickle.HIGHEST_PROTOCOL)
            streamed = _streams
        finally:
            _streams = None
        # Written and read by threads: the job and its answer are tens of megabytes, more than a
        # pipe holds, and the caller goes on meanwhile.
        self.sender = threading.Thread(target=self._send, args=(job, streamed), name="fresh-send", daemon=True)
        self.reader = threading.Thread(target=self._read, name="fresh-read", daemon=True)
        self.sender.start()
        self.reader.start()

    def _send(self, job: bytes, streamed: list[Iterable]) -> None:
        pipe = self.process.stdin
        try:
            pipe.write(job)
            for items in streamed:
                for item in items:
                    pickle.dump(item, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                pickle.dump(None, pipe)
        except OSError:
            pass  # the process is gone: result() says why
        except BaseException as error:  # noqa: BLE001  making an item failed: result() raises it
            self.failed = error
            # Said, not left to the end of the pipe: a worker forked meanwhile holds this end of it
            # too, so the process would never see the pipe end, and wait for ever
            with contextlib.suppress(OSError):
                pickle.dump(_UNMADE, pipe)
        finally:
            with contextlib.suppress(OSError):
                pipe.close()  # the process reads to the end, and no further

    def _read(self) -> None:
        # Unpickled as it arrives: the answer (the search index's tens of megabytes) is never
        # held as bytes and as objects at once.
        try:
            self.answer.append(pickle.load(self.process.stdout))
        except Exception:  # noqa: BLE001  no answer, or half of one: the exit status says why
            self.process.kill()  # it may be stuck writing the rest
        finally:
            self.process.wait()

    def done(self) -> bool:
        return not self.reader.is_alive()

    def result(self) -> R:
        while self.reader.is_alive():
            self.reader.join(WAKE_EVERY)
        self.sender.join(STOP_WAIT)  # done by now: the process read all it was sent, or ended
        if self.failed is not None:
            raise self.failed
        if self.process.returncode != 0 or not self.answer:
            raise RuntimeError(f"the background process ended with exit status {self.process.returncode}")
        outcome, value = self.answer[0]
        if outcome == "error":
            raise value
        return value

    def __enter__(self) -> "_Fresh":
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()

    def cancel(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.reader.join(STOP_WAIT)
        self.sender.join(STOP_WAIT)
        self.answer.clear()


class Background:
    """func() in a forked process that nobody waits for: `then()` is called, from
    another thread, once it has finished; `result()` then gives what it returned
    (or raises what it raised). `cancel()` stops it. Only for a job worth a process
    (worth_forking)."""

    def __init__(self, func: Callable[[], R], then: Callable[[], None]):
        global _job
        previous, _job = _job, (func, ())
        try:
            self.pool = _forked_pool(1)  # forks here
        finally:
            _job = previous
        self.outcome = self.pool.apply_async(_run_job, callback=lambda _: then(), error_callback=lambda _: then())
        self.pool.close()

    def done(self) -> bool:
        return self.outcome.ready()

    def result(self) -> R:
        try:
            return waited(self.outcome)
        finally:
            self.cancel()

    def cancel(self) -> None:
        end_pool(self.pool)


def waited(outcome: AsyncResult):
    """outcome.get(), waking every WAKE_EVERY seconds. Ctrl-C or SIGTERM can be delivered to any
    thread of the process, one of the pool's own among them, and Python runs its handler in the
    main thread only, between two steps of Python code: a wait with no end would never let it
    run. SIGTERM to the process group ends the workers too, so their results would never come:
    the build would hang, not stop."""
    while not outcome.ready():
        outcome.wait(WAKE_EVERY)
    return outcome.get()


_before: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # pool -> pids of the children alive before it


def _forked_pool(count: int, **options):
    """A pool of `count` forked workers (see _start_worker)."""
    alive = {child.pid for child in multiprocessing.active_children()}
    pool = multiprocessing.get_context("fork").Pool(count, initializer=_start_worker, **options)
    _before[pool] = alive
    return pool


def end_pool(pool) -> None:
    """pool.terminate() and join(), given STOP_WAIT seconds. A worker killed from outside (SIGTERM
    to the process group, which the build's own clean-up then answers) while it held a lock of
    the pool's queues (an idle worker holds one as it waits for a task) leaves terminate()
    waiting for that lock for ever; the workers are gone by then, and the process goes on
    without the pool's threads. A worker that outlives SIGTERM (one stuck before it could set
    its signals up, say) is killed: else it would outlive the command, holding its output open."""
    failed: list[BaseException] = []

    def end() -> None:
        try:
            pool.terminate()
            pool.join()
        except BaseException as error:  # raised here, as it would have been inline
            failed.append(error)

    ender = threading.Thread(target=end, name="end-pool", daemon=True)
    ender.start()
    ender.join(STOP_WAIT)
    if ender.is_alive():
        before = _before.get(pool, set())
        for child in multiprocessing.active_children():  # this pool's workers, and any of a pool made since
            if child.pid not in before:
                child.kill()
        ender.join(STOP_WAIT)
    if failed:
        raise failed[0]


def _fresh_bounds(step: int, weights: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive slices of at most `step` items and FRESH_WEIGHT weight (an item heavier than
    that alone)."""
    bounds, start, weight = [], 0, 0
    for index, item_weight in enumerate(weights):
        if index > start and (index - start == step or weight + item_weight > FRESH_WEIGHT):
            bounds.append((start, index))
            start, weight = index, 0
        weight += item_weight
    return [*bounds, (start, len(weights))]


def _glibc(name: str) -> Callable[..., int] | None:
    try:
        return getattr(ctypes.CDLL(None), name)
    except (AttributeError, OSError):  # another C library, another system
        return None


_TRIM, _MALLOPT = _glibc("malloc_trim"), _glibc("mallopt")
_M_ARENA_MAX = -8  # mallopt's parameter: how many arenas malloc may make


def one_malloc_arena() -> None:
    """Have every thread of this process allocate from the one arena. glibc gives a thread
    that allocates an arena of its own, and keeps there what was freed: in the warm process,
    whose threads take in the answers of fresh processes (see _Fresh; a map laid out anew is
    megabytes of arrays), that memory grew by about 6 MB a build. Its threads are few and
    mostly wait, so sharing costs nothing. For threads started after the call."""
    if _MALLOPT is not None:
        _MALLOPT(_M_ARENA_MAX, 1)


def give_back_freed_memory() -> None:
    """Return the memory that a stage's garbage leaves free inside the heap to the system. glibc
    keeps it otherwise (numpy's temporaries and millions of small objects at 50,000 papers), and
    the workers forked next would each count it as the build's."""
    if _TRIM is not None:
        _TRIM(0)


def worth_forking(size: int) -> bool:
    """Whether a job of `size` items pays for processes of its own (a pool's worker, itself one,
    may start none)."""
    return workers() >= 2 and size >= MIN_ITEMS and "fork" in multiprocessing.get_all_start_methods() \
        and not multiprocessing.current_process().daemon


def _passed_on(func: Callable[[], R]) -> R:
    """func(), in a pool's worker, where an exception that is not an Exception (SystemExit, or a
    test's pytest.fail) would end the worker without a word and leave its result waited for for ever:
    it comes back as a RuntimeError instead."""
    try:
        return func()
    except Exception:
        raise
    except BaseException as error:
        raise RuntimeError(f"{type(error).__name__}: {error}") from None


def _run_job():
    return _passed_on(_job[0])


def timed_call(func: Callable[..., R], args: tuple) -> tuple[R, float]:
    """func(*args), and the seconds it took (a Detachable's own time, in its process)."""
    start = time.perf_counter()
    return func(*args), time.perf_counter() - start


def _start_worker() -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent stops the
    # workers (terminate), which must not each print a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # how terminate() ends a worker
    # What the worker inherited is never garbage to it: frozen, the collector leaves
    # it alone (no pass over the parent's whole heap, no copy-on-write of every
    # page it touches), and collects what the worker itself makes.
    gc.freeze()
    gc.enable()


def _run_slice(bounds: tuple[int, int]) -> list:
    func, items = _job
    return _passed_on(lambda: [func(item) for item in items[bounds[0]:bounds[1]]])


def _run_part(bounds: tuple[int, int]):
    func, items = _job
    return _passed_on(lambda: func(items[bounds[0]:bounds[1]]))
