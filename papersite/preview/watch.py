"""Watch the sources and turn bursts of file events into single rebuilds.

An editor's save is several events (temp file, write, rename) and
`git checkout` can be thousands. Events go into a ChangeQueue; the rebuild
loop takes them once nothing new arrived for a quiet period (debounce) and
rebuilds once. Events that arrive during a rebuild stay queued for the next
round, so no change is lost. Which files changed only labels the terminal
line: a rebuild (rebuild.py) always reads the sources as they are.

Watched: content/, templates/, static/ and the config file; never the output.
While an import runs (its marker in .cache/, see source/files.py) the queue holds
its changes back, and the import is one rebuild once it is done.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..source.files import SOURCE_DIRS, import_running

# Seconds without events before a rebuild starts. An editor's save (temp file,
# rename, chmod) and a `git checkout` emit their events milliseconds apart, so
# this groups them, and leaves most of the 100 ms an author may wait at 1,000
# papers (issue 4). A burst that pauses longer gets a second rebuild, never
# a wrong one: every rebuild reads the files as they are.
QUIET = 0.025
MAX_WAIT = 2.0  # rebuild anyway when events never stop (a process writing in a loop)
# How often a held queue looks whether the import ended: nothing signals a killed import.
HELD_POLL = 0.1


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

    def __init__(self, quiet: float = QUIET, max_wait: float = MAX_WAIT,
                 held: Callable[[], bool] = lambda: False):
        """`held`: whether changes must wait however long they have been pending (an import
        running: a rebuild would read it half done)."""
        self.quiet, self.max_wait, self.held = quiet, max_wait, held
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
                # not an endless wait: Python runs a Ctrl-C's handler in the main thread only, and
                # the kernel may hand the signal to the watcher's thread (see parallel.waited)
                self._cond.wait(0.1)
            was_held = False
            while not self._closed:
                now = time.monotonic()
                remaining = min(self._last + self.quiet, self._first + self.max_wait) - now
                if remaining <= 0:
                    if self.held():
                        was_held, remaining = True, HELD_POLL
                    elif was_held:
                        # the import's last events may still be on their way: a quiet period for them
                        was_held, self._first, self._last = False, now, now
                        continue
                    else:
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
    others) other than symlinks (a link to a folder, which the build warns
    it does not follow). Anything outside the source folders, such as the
    output, too.
    """
    try:
        parts = Path(path).relative_to(root).parts  # not resolved: a symlink in content/ still counts
    except ValueError:
        return None
    if parts == (config_name,):
        return config_name
    if len(parts) < 1 or parts[0] not in SOURCE_DIRS or any(p.startswith(".") for p in parts):
        return None
    if parts[0] == "content" and len(parts) > 1 and not is_dir and not parts[-1].endswith(".md") \
            and not os.path.islink(path):
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
        """Also makes `queue` hold its changes while an import into this project runs."""
        self.root = Path(config_path).resolve().parent  # watchdog reports paths under this
        self.config_name = config_path.name
        self.queue = queue
        project = Path(config_path).absolute().parent  # as the importer names it: site.yaml may be a link
        queue.held = lambda: import_running(project)
        self.observer = Observer()
        self.handler = _Handler(self)
        self.watches: dict[str, object] = {}
        # a source folder that is a symlink: where it points -> its name (watchdog reports the target's paths)
        self.targets: dict[str, str] = {}

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
        for target, name in self.targets.items():
            if path == target or path.startswith(target + os.sep):
                path = str(self.root / name) + path[len(target):]
                break
        relative = classify(path, self.root, self.config_name, is_dir)
        if relative is None:
            return
        if kind in ("created", "moved") and relative in SOURCE_DIRS:
            self._watch(relative)  # e.g. templates/ created after the server started, or a link to it
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
        self.targets = {target: each for target, each in self.targets.items() if each != name}
        if folder.is_symlink():
            # The build reads through a linked source folder; watchdog would watch the link itself,
            # which gets no events for the files in the folder.
            folder = folder.resolve()
            self.targets[str(folder)] = name
        # Not into symlinked folders (watchdog's default, said here): content/ does not read them
        self.watches[name] = self.observer.schedule(self.handler, str(folder), recursive=True, follow_symlink=False)


def rebuild_loop(queue: ChangeQueue, on_changes: Callable[[ChangeSet], None]) -> None:
    """Call on_changes once per debounced burst, until the queue is closed."""
    while (changes := queue.take()) is not None:
        on_changes(changes)

