"""The warm rebuild session: the preview, `build --watch` and the tests rebuild through it.

A Rebuilder keeps a BuildCache between rebuilds (see engine/runner.py), so a
rebuild after an edit redoes only what the edit touches, and keeps the last
good build, so a broken edit never stops the preview.

The preview's map follows an edit rather than holding it up (FollowingLayout):
laying out a large catalog again takes seconds, and an author waits for the page
they edited, not for the map.
"""
from __future__ import annotations

import gc
import time
import traceback
from typing import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..source.config import SiteConfig, load_config
from ..errors import Problem, SiteError
from .first_look import edited_pages
from ..engine.output import write_site
from ..papermap.layout import GRID, LayoutCache, Laid, texts_digest
from ..parallel import Background, worth_forking
from ..engine.runner import BuildCache, Warm
from ..pipeline import Build, build_site
from .watch import ChangeSet


@dataclass(frozen=True)
class Outcome:
    """What one rebuild did, for the terminal line and the preview server."""

    build: Build | None  # None when the build failed
    error: SiteError | None
    changed: int  # output files added, changed or removed
    seconds: float
    paths: frozenset[str] | None = None  # those files, when known
    warnings: tuple[str, ...] = ()  # new since the last rebuild said them


class Rebuilder:
    """Rebuilds the site on a warm cache and keeps the last good build.

    The watcher loop, the preview server, `build --watch` and the tests all go
    through rebuild(), so what is tested is what runs. Never raises: a broken
    edit becomes an Outcome with an error, and the last good build stays.
    """

    def __init__(self, config_path: Path, base_url: str | None = None, output: Path | None = None,
                 map_landed: Callable[[], None] | None = None):
        """`map_landed`: the map may follow edits (see FollowingLayout), and this is called, from
        another thread, when its exact layout is ready for the next rebuild."""
        self.config_path = Path(config_path)
        self.base_url = base_url
        self.output = output
        self.cache = BuildCache()
        if map_landed is not None:
            self.cache.map = FollowingLayout(map_landed)
        self._config_loaded: SiteConfig | None = None
        self._config_stamp: tuple | None = None
        self.last: Build | None = None
        self.error: SiteError | None = None

    def rebuild(self) -> Outcome:
        start = time.perf_counter()
        return self._rebuild(start)

    def first_look(self, changes: ChangeSet) -> Outcome | None:
        """The last good build with the pages of the papers `changes` edited rendered again, to
        serve before the rebuild (see first_look.py); None when the edit does not qualify.
        Changes nothing the rebuild reads."""
        if self.last is None or self.error is not None or self._config_loaded is None:
            return None
        start = time.perf_counter()
        try:
            if self._stamp() != self._config_stamp:
                return None
            pages = edited_pages(self._config_loaded.with_base_url(self.base_url), self.cache, changes.paths)
        except Exception:  # a bug: said, and the rebuild that follows has its say
            traceback.print_exc()
            return None
        if pages is None:
            return None
        old = self.last.files
        paths = frozenset(file for file, page in pages.items() if old.get(file) != page)
        build = replace(self.last, files={**old, **pages}, timings={})
        return Outcome(build, None, len(paths), time.perf_counter() - start, paths)

    def follow(self) -> None:
        """Let what follows a rebuild catch up (the map's exact layout), once its result is served."""
        if isinstance(self.cache.map, FollowingLayout):
            self.cache.map.follow()

    def close(self) -> None:
        """Stop what is still catching up."""
        if isinstance(self.cache.map, FollowingLayout):
            self.cache.map.stop()

    def _stamp(self) -> tuple | None:
        try:
            st = self.config_path.stat()
        except OSError:
            return None  # load_config says what is wrong
        return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino

    def _config(self) -> SiteConfig:
        stamp = self._stamp()
        if stamp is None or stamp != self._config_stamp:
            self._config_loaded, self._config_stamp = load_config(self.config_path), stamp
        return self._config_loaded

    def _rebuild(self, start: float) -> Outcome:
        try:
            # site.yaml is re-read whenever its stamp changes: a change to it
            # (venues, topics, base_url) must reach every page.
            config = self._config().with_base_url(self.base_url)
            build = build_site(config, Warm(self.cache))
            paths = None
            # said once, not after every edit, until they change
            warnings = build.warnings if self.last is None or build.warnings != self.last.warnings else ()
            if self.output is not None:
                report = write_site(build.files, self.output, self.cache.digests, config.root)
                changed = report.written + report.removed
                warnings += report.warnings
            else:
                paths = changed_paths(self.last.files if self.last else {}, build.files)
                changed = len(paths)
        except SiteError as error:
            self.error = error
        except Exception as error:  # a bug, or a template raising: the preview must survive it
            traceback.print_exc()
            self.error = unexpected(error)
        else:
            if self.last is None:
                self.cache.related.prepare_for_edits()  # part of the first build, not of the first edit
                # The first build's objects live as long as the session. Frozen, the cyclic collector
                # never scans them again: it otherwise ran a full pass over them right after each
                # rebuild, in the path of the page being served. What later rebuilds replace
                # is still freed, by reference counting.
                gc.freeze()
            self.last, self.error = build, None
            return Outcome(build, None, changed, time.perf_counter() - start, paths, warnings)
        return Outcome(None, self.error, 0, time.perf_counter() - start)


class FollowingLayout(LayoutCache):
    """The preview's map layout. An edit to a text that is not a landmark's is placed at once,
    exactly. After one that lays the landmarks out again (or places many papers), the map
    is served at once with every paper where it was (a new one in the middle); then `follow()`
    starts the exact layout, the one `build` makes of the same texts, in a process of its own
    (after the page is served: forking a large process slows the parent for a while). `landed`
    is called when it is ready, and the next rebuild serves it. A first build waits for the
    exact layout, and so does work too small to be worth a process."""

    def __init__(self, landed: Callable[[], None]):
        super().__init__()
        self.landed = landed
        self.wanted: tuple[str, Callable[[], Laid]] | None = None  # the exact layout to make: digest, job
        self.pending: Background | None = None  # making it

    def job(self, texts, counts=lambda key, text: None):
        digest = texts_digest(texts, self.digests_of(texts))
        if self.wanted is not None and self.wanted[0] != digest:
            self.stop()  # the texts changed again meanwhile: lay out the newest
        if self.pending is not None and self.pending.done():
            pending, self.wanted, self.pending = self.pending, None, None
            laid = pending.result()  # what it raised is this rebuild's error, and the next one starts anew
            return (lambda: laid), 0
        exact, size = super().job(texts, digest, counts)
        if size == 0 or not self.points or not (self.relaid or worth_forking(size)):
            return exact, size  # cached, a first build, or a few papers placed among the landmarks
        if self.wanted is None:
            self.wanted = digest, exact
        where, middle = self.where(), (GRID // 2, GRID // 2)
        provisional = Laid(None, list(texts), [where.get(key, middle) for key in texts])
        return (lambda: provisional), 0

    def keep(self, laid: Laid):
        if laid.digest is None:
            return list(laid.points)  # served, not kept: the next layout starts from the exact one
        return super().keep(laid)

    def follow(self) -> None:
        """Start making the exact layout the last rebuild wanted, if not started yet."""
        if self.wanted is not None and self.pending is None:
            self.pending = Background(self.wanted[1], self.landed)

    def stop(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
        self.wanted = self.pending = None


def unexpected(error: Exception) -> SiteError:
    """An error the build did not anticipate, located in a template when one raised it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename.endswith((".html", ".xml", ".txt"))]
    where = (frames[-1].filename, frames[-1].lineno) if frames else ("<build>", None)
    return SiteError(Problem(where[0], where[1], f"unexpected {type(error).__name__}: {error}"))


def changed_paths(old: dict[str, bytes], new: dict[str, bytes]) -> frozenset[str]:
    """The output files added, changed or removed."""
    # Set operations on the items views run in C; an unchanged file is last build's bytes
    # object, whose hash is computed once and cached.
    return frozenset(path for path, _ in old.items() ^ new.items())


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
    return "\n".join([f"{stamp} {what}: {files} {'built' if changes is None else written} in {took}",
                      *outcome.warnings])
