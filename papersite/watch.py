"""Watch the sources and turn bursts of file events into single rebuilds.

An editor's save is several events (temp file, write, rename) and
`git checkout` can be thousands. Events go into a ChangeQueue; the rebuild
loop takes them once nothing new arrived for a quiet period (debounce) and
rebuilds once. Events that arrive during a rebuild stay queued for the next
round, so no change is lost. The rebuild always re-runs the whole pipeline on
a warm cache, so which files changed only labels the terminal line.

Watched: content/, templates/, static/ and the config file; never the output.
"""
from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .config import SiteConfig, load_config
from .errors import Problem, SiteError
from .output import check_output, write_site
from .pipeline import Build, BuildCache, Run, build_site

SOURCE_DIRS = ("content", "templates", "static")
# Seconds without events before a rebuild starts. An editor's save (temp file,
# rename, chmod) and a `git checkout` emit their events well under 5 ms apart,
# so 25 ms still groups them, and it is a quarter of the 100 ms an author can
# wait at 1,000 papers. A burst that pauses longer gets a second rebuild, never
# a wrong one: every rebuild reads the files as they are.
QUIET = 0.025
MAX_WAIT = 2.0  # rebuild anyway when events never stop (a process writing in a loop)


@dataclass(frozen=True)
class ChangeSet:
    """The source files that changed since the last rebuild (project-relative, sorted)."""

    paths: tuple[str, ...]

    def describe(self) -> str:
        """'content/x.md', or '12 files in content/, templates/' for a burst."""
        if len(self.paths) <= 3:
            return ", ".join(self.paths)
        folders = sorted({p.split("/")[0] + ("/" if "/" in p else "") for p in self.paths})
        return f"{len(self.paths)} files in {', '.join(folders)}"


class ChangeQueue:
    """Collects changed paths from the watcher thread; hands them out debounced."""

    def __init__(self, quiet: float = QUIET, max_wait: float = MAX_WAIT):
        self.quiet, self.max_wait = quiet, max_wait
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first = self._last = 0.0
        self._closed = False

    def put(self, path: str) -> None:
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            self._pending.add(path)
            self._last = now
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def take(self) -> ChangeSet | None:
        """Block until changes arrived and then stayed quiet; None once closed."""
        with self._cond:
            while not self._pending and not self._closed:
                self._cond.wait()
            while not self._closed:
                now = time.monotonic()
                remaining = min(self._last + self.quiet, self._first + self.max_wait) - now
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            if self._closed:
                return None
            changes, self._pending = ChangeSet(tuple(sorted(self._pending))), set()
            return changes


def classify(path: str | Path, root: Path, config_name: str = "site.yaml", is_dir: bool = False) -> str | None:
    """The project-relative path of a source the build reads, or None for anything else.

    Skipped as the build skips them: hidden names (editor swap files) and,
    in content/, files that are not Markdown (temp files of `sed -i` and
    others). Anything outside the source folders, such as the output, too.
    """
    try:
        parts = Path(path).relative_to(root).parts  # not resolved: a symlink in content/ still counts
    except ValueError:
        return None
    if parts == (config_name,):
        return config_name
    if len(parts) < 1 or parts[0] not in SOURCE_DIRS or any(p.startswith(".") for p in parts):
        return None
    if parts[0] == "content" and len(parts) > 1 and not is_dir and not parts[-1].endswith(".md"):
        return None
    return "/".join(parts)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: "SourceWatcher"):
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        # Opening and reading are what the build itself does; a folder's
        # "modified" only echoes a change to a file inside it.
        if event.event_type in ("opened", "closed_no_write") or \
                (event.is_directory and event.event_type == "modified"):
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if path:
                self.watcher.seen(str(path), event.is_directory, event.event_type)


class SourceWatcher:
    """watchdog on the project's sources, feeding a ChangeQueue."""

    def __init__(self, config_path: Path, queue: ChangeQueue):
        self.root = Path(config_path).resolve().parent  # watchdog reports paths under this
        self.config_name = config_path.name
        self.queue = queue
        self.observer = Observer()
        self.handler = _Handler(self)
        self.watches: dict[str, object] = {}

    def start(self) -> None:
        # The project folder itself non-recursively: site.yaml, and source
        # folders that appear later. Never recursively: the output is there.
        self.observer.schedule(self.handler, str(self.root), recursive=False)
        for name in SOURCE_DIRS:
            self._watch(name)
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=5)

    def seen(self, path: str, is_dir: bool = False, kind: str = "modified") -> None:
        relative = classify(path, self.root, self.config_name, is_dir)
        if relative is None:
            return
        if is_dir and kind in ("created", "moved") and relative in SOURCE_DIRS:
            self._watch(relative)  # e.g. templates/ created after the server started
        self.queue.put(relative)

    def _watch(self, name: str) -> None:
        folder = self.root / name
        if not folder.is_dir():
            return
        old = self.watches.pop(name, None)
        if old is not None:
            try:
                self.observer.unschedule(old)
            except KeyError:
                pass  # its folder was deleted, which already ended the watch
        self.watches[name] = self.observer.schedule(self.handler, str(folder), recursive=True)


@dataclass(frozen=True)
class Outcome:
    """What one rebuild did, for the terminal line and the preview server."""

    build: Build | None  # None when the build failed
    error: SiteError | None
    changed: int  # output files added, changed or removed
    seconds: float


class Rebuilder:
    """Rebuilds the site on a warm cache and keeps the last good build.

    The watcher loop, the preview server, `build --watch` and the tests all go
    through rebuild(), so what is tested is what runs. Never raises: a broken
    edit becomes an Outcome with an error, and the last good build stays.
    """

    def __init__(self, config_path: Path, base_url: str | None = None, output: Path | None = None):
        self.config_path = Path(config_path)
        self.base_url = base_url
        self.output = output
        self.cache = BuildCache()
        self._config_loaded: SiteConfig | None = None
        self._config_stamp: tuple | None = None
        self.last: Build | None = None
        self.error: SiteError | None = None

    def rebuild(self) -> Outcome:
        start = time.perf_counter()
        run = Run(self.cache)  # in memory, all of it kept for the next rebuild
        with run.executing():
            return self._rebuild(start, run)

    def _config(self) -> SiteConfig:
        try:
            st = self.config_path.stat()
            stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None  # load_config says what is wrong
        if stamp is None or stamp != self._config_stamp:
            self._config_loaded, self._config_stamp = load_config(self.config_path), stamp
        return self._config_loaded

    def _rebuild(self, start: float, run: Run) -> Outcome:
        try:
            # site.yaml is re-read whenever its stamp changes: a change to it
            # (venues, topics, base_url) must reach every page.
            config = self._config().with_base_url(self.base_url)
            build = build_site(config, run=run)
            if self.output is not None:
                report = write_site(build.files, self.output, self.cache.digests, config.root)
                changed = report.written + report.removed
            else:
                changed = count_changed(self.last.files if self.last else {}, build.files)
        except SiteError as error:
            self.error = error
        except Exception as error:  # a bug, or a template raising: the preview must survive it
            traceback.print_exc()
            self.error = unexpected(error)
        else:
            if self.last is None:
                self.cache.related.prepare_for_edits()  # part of the first build, not of the first edit
            self.last, self.error = build, None
            return Outcome(build, None, changed, time.perf_counter() - start)
        return Outcome(None, self.error, 0, time.perf_counter() - start)


def unexpected(error: Exception) -> SiteError:
    """An error the build did not anticipate, located in a template when one raised it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename.endswith((".html", ".xml", ".txt"))]
    where = (frames[-1].filename, frames[-1].lineno) if frames else ("<build>", None)
    return SiteError(Problem(where[0], where[1], f"unexpected {type(error).__name__}: {error}"))


def count_changed(old: dict[str, bytes], new: dict[str, bytes]) -> int:
    """How many output files were added, changed or removed."""
    # Set operations on the items views run in C; an unchanged file is the very same bytes
    # object as last build's, whose hash is computed once and cached.
    return len({path for path, _ in old.items() ^ new.items()})


def summary(changes: ChangeSet | None, outcome: Outcome, written: str = "changed") -> str:
    """The one terminal line per rebuild (plus the problems when it failed)."""
    what = changes.describe() if changes else "initial build"
    stamp = time.strftime("%H:%M:%S")
    took = f"{outcome.seconds * 1000:.0f} ms"
    if outcome.error:
        problems = "\n".join(f"  {p}" for p in outcome.error.problems)
        return f"{stamp} {what}: build failed in {took}, keeping the last good build\n{problems}"
    files = "no output" if outcome.changed == 0 else \
        f"{outcome.changed} file{'s' if outcome.changed != 1 else ''}"
    return f"{stamp} {what}: {files} {'built' if changes is None else written} in {took}"


def rebuild_loop(queue: ChangeQueue, on_changes: Callable[[ChangeSet], None]) -> None:
    """Call on_changes once per debounced burst, until the queue is closed."""
    while (changes := queue.take()) is not None:
        on_changes(changes)


def watch_and_build(config_path: Path, output: Path, base_url: str | None,
                    echo: Callable[[str], None], queue: ChangeQueue | None = None) -> None:
    """`build --watch`: build, then rebuild and write on every change until Ctrl-C
    (or until `queue` is closed, which is how tests stop it)."""
    refuse_output_in_sources(config_path, output)
    check_output(output, Path(config_path).parent)  # now, rather than as the error of every rebuild
    rebuilder = Rebuilder(config_path, base_url, output)
    echo(summary(None, rebuilder.rebuild(), "written"))
    queue = queue or ChangeQueue()
    watcher = SourceWatcher(config_path, queue)
    watcher.start()
    echo(f"Watching {', '.join(SOURCE_DIRS)} and {config_path.name} (Ctrl-C to stop)")
    try:
        rebuild_loop(queue, lambda changes: echo(summary(changes, rebuilder.rebuild(), "written")))
    except KeyboardInterrupt:
        echo("stopped")
    finally:
        watcher.stop()


def refuse_output_in_sources(config_path: Path, output: Path) -> None:
    """Writing into a watched folder would trigger a rebuild after every rebuild."""
    root = config_path.resolve().parent
    target = output.resolve()
    for name in SOURCE_DIRS:
        if target == root / name or (root / name) in target.parents:
            raise SiteError(Problem(output, None, f"the output folder is inside {name}/, which is "
                                                  "watched for changes: choose a folder such as _site"))
