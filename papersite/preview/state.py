"""The site the preview serves, held in memory, and what its open tabs must do about a change.

One SiteState is shared by the rebuild loop, which publishes each build or its
errors, and the server's threads, which look files up in it and keep one event
stream open per tab. It keeps the last good build while a rebuild fails.
"""
from __future__ import annotations

import contextlib
import json
import threading

from ..errors import SiteError
from ..pipeline import Build
from . import files

SETTLE = 0.5  # seconds the preview waits, at most, for the tabs showing an edited page to load it
LISTED_CHANGES = 2000  # past this many changed files, every tab reloads (a template edit changes all)


class SiteState:
    """The build being served; swapped whole after each successful rebuild.

    `version` counts builds whose output changed; an open tab reloads when it moves
    and the change touched its page or a file the page loaded (or the tab missed a
    change). `problems` are the errors of the latest rebuild, shown as an overlay.
    """

    def __init__(self, build: Build | None, base_path: str, preview: bool = False):
        self.lock = threading.Condition(threading.RLock())  # status() is also called under it
        self.build = build
        self.base_path = base_path
        self.preview = preview
        self.version = 0
        self.since = 0  # the version before the last change
        self.changed: list[str] | None = None  # the output files the last change touched; None: any
        self.problems: list[dict] = []
        self.closed = False
        self.viewers: dict[str, int] = {}  # output file -> open event streams of tabs showing it
        self.awaited: set[str] = set()  # the files publish_and_settle() waits for a tab to load again

    def publish(self, build: Build, changed: frozenset[str] | None = None) -> None:
        """Serve a new good build. `changed`: its output files that differ from the build
        served until now (None: any may); tabs reload only when one they show changed."""
        with self.lock:
            self.build = build
            self.base_path = build.catalog.config.base_path
            if changed is None or changed:
                self.since, self.version = self.version, self.version + 1
                self.changed = None if changed is None or len(changed) > LISTED_CHANGES else sorted(changed)
            self.problems = []
            self.lock.notify_all()

    def fail(self, error: SiteError) -> None:
        """Keep serving the last good build; show the problems."""
        with self.lock:
            self.problems = [{"path": str(p.path), "line": p.line, "message": p.message} for p in error.problems]
            self.lock.notify_all()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    @contextlib.contextmanager
    def viewing(self, file: str | None):
        """An open event stream of a tab showing `file` (None: a tab that did not say)."""
        with self.lock:
            if file is not None:
                self.viewers[file] = self.viewers.get(file, 0) + 1
                self.awaited.discard(file)
            self.lock.notify_all()
        try:
            yield
        finally:
            with self.lock:
                if file is not None:
                    self.viewers[file] -= 1
                    if not self.viewers[file]:
                        del self.viewers[file]

    def publish_and_settle(self, build: Build, changed: frozenset[str], limit: float = SETTLE) -> None:
        """publish(), then wait until a tab showing each changed file has reloaded (its event
        stream opened again), at most `limit` seconds: what follows (the rebuild) takes the
        cores, and would slow the tabs loading the page. (A stream a tab closed counts until
        the server next writes to it: waiting for one tab a file, not all, leaves it out.)
        Only the files being waited for are remembered, not every page a tab ever named:
        the names come from requests."""
        with self.lock:
            self.awaited = {file for file in changed if file in self.viewers}
            self.publish(build, changed)
            if self.awaited:
                self.lock.wait_for(lambda: self.closed or not self.awaited, limit)
            self.awaited = set()

    def status(self) -> tuple:
        with self.lock:
            return self.version, tuple(json.dumps(p, sort_keys=True) for p in self.problems)

    def wait_for_change(self, seen: tuple, timeout: float) -> tuple | None:
        """Block until status() differs from seen or timeout passed; None once closed."""
        with self.lock:
            self.lock.wait_for(lambda: self.closed or self.status() != seen, timeout)
            return None if self.closed else self.status()

    def event(self) -> bytes:
        """The current status as one SSE message."""
        with self.lock:
            data = json.dumps({"build": self.version, "since": self.since, "changed": self.changed,
                               "problems": self.problems})
        return f"data: {data}\n\n".encode()

    def lookup(self, url_path: str) -> tuple[int, str, bytes]:
        """Status, content type and body for a request path, from the build served now."""
        with self.lock:
            build, base, version = self.build, self.base_path, self.version
        return files.lookup(None if build is None else build.files, base, url_path, self.preview, version)
