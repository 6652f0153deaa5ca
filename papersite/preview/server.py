"""The preview: build, serve from memory, watch the sources, rebuild, reload the tabs.

Preview ties the parts together: a SourceWatcher feeds a ChangeQueue (watch.py),
the rebuild loop hands each batch of changes to the warm Rebuilder (rebuild.py),
each result is published in the SiteState (state.py), and the HTTP server
(handler.py) answers from that state and tells the open tabs to reload.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Callable

from .handler import make_server
from .rebuild import Rebuilder, changed_paths, summary
from .state import SiteState
from .terminal import terminal_text
from .watch import ChangeQueue, ChangeSet, SourceWatcher, rebuild_loop

MAP_LANDED = "the map's layout"  # how the terminal line names the change when the map catches up


@contextlib.contextmanager
def responsive_threads(wanted: bool = True):
    """The server's threads get the interpreter every millisecond meanwhile, not every five
    (the default), so that a page goes out while a rebuild runs."""
    interval = sys.getswitchinterval()
    if wanted:
        sys.setswitchinterval(min(interval, 0.001))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


class Preview:
    """The authoring loop: build, serve from memory, watch, rebuild, reload every tab."""

    def __init__(self, config_path: Path, base_url: str | None, host: str, port: int,
                 log: Callable[[str], None] = print):
        self.log = log
        self.config_path = Path(config_path)
        self.queue = ChangeQueue()
        # the map follows an edit: its exact layout comes in as a change of its own
        self.rebuilder = Rebuilder(self.config_path, base_url, map_landed=lambda: self.queue.put(MAP_LANDED))
        self.state = SiteState(None, "/", preview=True)
        self.server = make_server(self.state, host, port, log)  # bind first: a busy port fails fast
        self.report(None)
        self.watcher = SourceWatcher(self.config_path, self.queue)
        self.loop = threading.Thread(target=rebuild_loop, args=(self.queue, self.report), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{self.state.base_path}"

    def report(self, changes: ChangeSet | None) -> None:
        """Rebuild, publish the result and print one line about it; an edited paper's own page
        is served first, before the rebuild (see first_look.py)."""
        first = self.rebuilder.first_look(changes) if changes is not None else None
        if first is not None:
            self.state.publish_and_settle(first.build, first.paths)
            self.log(terminal_text(summary(changes, first, "shown first")))
        last = self.rebuilder.last
        with responsive_threads(first is not None):  # tabs may still fetch the first look's page
            outcome = self.rebuilder.rebuild()
        if outcome.build:
            served = self.state.build  # a first look's, maybe of an earlier edit
            changed = outcome.paths if served is last or served is None else \
                changed_paths(served.files, outcome.build.files)
            self.state.publish(outcome.build, None if changes is None else changed)
        else:
            self.state.fail(outcome.error)
        self.log(terminal_text(summary(changes, outcome)))  # paths and messages come from the sources
        self.rebuilder.follow()

    def start(self) -> None:
        """Watch and serve in background threads (tests and the benchmark use this); stop() ends it."""
        self.watcher.start()
        self.loop.start()
        # stop() waits for the serving loop to look up: every 50 ms, not the default 500
        self.serving = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.serving.start()

    def stop(self) -> None:
        self.queue.close()
        self.watcher.stop()
        self.state.close()  # ends open event streams
        self.server.shutdown()
        self.server.server_close()
        self.rebuilder.close()

    def serve_forever(self, open_browser: bool = False) -> None:
        """Watch and serve until Ctrl-C."""
        self.watcher.start()
        self.loop.start()
        self.log(terminal_text(f"Serving at {self.url} (Ctrl-C to stop)"))
        if open_browser:
            webbrowser.open(self.url)
        try:
            self.server.serve_forever()
        except KeyboardInterrupt:
            self.log("stopped")
        finally:
            self.queue.close()
            self.watcher.stop()
            self.state.close()
            self.server.server_close()
            self.rebuilder.close()
