"""`build`: the whole command. It does nothing when no input changed since the last build
into the same folder (store.py keeps its record); else it builds on what the last build
left, streaming the pages into the output, and keeps the cache for the next one.

A build that finds nothing changed imports this module, store.py and little else.
"""
from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import sitesize
from .store import (Fingerprint, spelled_output, cache_warning, clear_leftovers, fingerprint, load_session,
                    read_record, record_path, save_session, save_session_alongside, save_session_locked,
                    session_path, unchanged, write_record)

if TYPE_CHECKING:
    from ..pipeline import Build
    from ..source.config import SiteConfig
    from .output import WriteReport
    from .runner import BuildCache


@dataclass
class Written:
    """What `build` did, for its one line."""

    papers: int
    pages: int
    written: int
    removed: int
    total: int
    content_dir: str
    size: int  # bytes, the whole site
    cached: bool  # nothing changed since the last build: nothing was built
    warnings: list[str]


Inspect = Callable[["Build | None", "list[Path]"], None]
_kept: list = []  # the memo of the last build this process made


def build(config_path: Path, output: Path, base_url: str | None = None, clean: bool = False,
          progress=lambda stage: None, notify=None, inspect: Inspect | None = None) -> Written:
    """Build the site of config_path into output, reusing the cache beside it unless `clean`.
    Raises SiteError as the build does; a cache that cannot be written is a warning.
    `inspect` sees the new site before it replaces the old (see build_and_write); with no
    input changed, it sees the site as it is, and (None, [output])."""
    config_path, output = one_spelling(Path(config_path)), Path(output)
    root = config_path.parent
    clear_leftovers(root)
    record = read_record(root, output)
    now = fingerprint(config_path, (spelled_output(output), base_url), record["files"] if record else None)
    if not clean and unchanged(record, now, output):
        summary = record["summary"]
        if inspect is not None:
            inspect(None, [output])
        try:
            warnings = [*record.get("warnings", []),
                        *sitesize.size_warnings(summary["size"], record.get("optional") or {})]
            return Written(**summary, written=0, removed=0, cached=True, warnings=warnings)
        except (KeyError, TypeError):  # a record of another shape: build, as without one
            pass
    if not clean and inspect is None:
        from . import warm
        handed = warm.hand_over(root, now, {"config_path": str(config_path), "output": str(output),
                                            "base_url": base_url}, progress, notify, record)
        if handed is not None:
            return handed
    return build_now(config_path, output, base_url, now, clean=clean, progress=progress, notify=notify,
                     inspect=inspect)


def build_now(config_path: Path, output: Path, base_url: str | None, now: Fingerprint, clean: bool = False,
              progress=lambda stage: None, notify=None, inspect: Inspect | None = None,
              memo: BuildCache | None = None, since: Fingerprint | None = None) -> Written:
    """build(), past finding what changed: into output, from `memo` (the cache of the warm
    process this runs in, see warm.py, of the build of inputs `since`), else from the last session
    unless `clean`. The cache is saved after, by a process that stays warm for the next build where
    that is worth it."""
    from . import map_ahead, warm  # only now: a build with nothing to do needs none of it
    from ..parallel import one_malloc_arena
    from .runner import BuildCache

    one_malloc_arena()  # this process may stay warm: see warm.py
    root = config_path.parent
    edited = None if memo is None or since is None else _edited(since, now)
    config = _config(config_path, base_url, edited)
    if edited is None:
        # An edit to one of the map's landmarks lays them out anew: started now, not once the memo is loaded
        ahead = None if clean or memo is not None else map_ahead.start(root, config, now)
    else:  # warm: alongside the build, where an edited file may have moved a landmark
        ahead = map_ahead.start_warm(config, now, memo, since, edited)
        content = str(config.content_dir) + os.sep
        if all(path in since.files and path in now.files for path in edited if path.startswith(content)):
            # no paper's file came or went: content/ is as the fingerprint found it, not walked again
            memo.papers.vouch(lambda path: tuple(entry[:4]) if (entry := now.files.get(path)) else None)

    def start() -> BuildCache:  # called once the output is locked, while it is listed alongside
        kept = memo if memo is not None else (None if clean else load_session(root, now)) or BuildCache()
        kept.map.ahead = ahead
        # The memo's millions of objects live as long as this process: the cyclic collector,
        # paused, never scans them, and frozen, neither does the saver's.
        gc.freeze()
        _kept[:] = [kept]  # not freed on return: cli.run ends the process first
        return kept

    collecting = gc.isenabled()  # not in the warm process, nor in a `build` command's (see warm.serve, cli.build)
    try:
        gc.disable()
        # the warm process's cache is given as it is: what it left in the output is known before the output is locked
        result, report = build_and_write(config, output, progress=progress, notify=notify,
                                         start=start if memo is None else start(),
                                         inspect=inspect)
    finally:
        if collecting:
            gc.enable()
        if ahead is not None:
            ahead.stop()
    papers = len(result.catalog.papers)
    summary = {"papers": papers, "pages": result.pages, "total": report.total,
               "content_dir": str(config.content_dir), "size": report.size}
    optional = {}  # only for the warning: spares an edit build a pass over every path
    if report.size > sitesize.PAGES_LIMIT:
        optional = sitesize.optional_bytes((path, stat[0]) for path, stat in report.stats.items())
    warnings = [*result.warnings, *report.warnings, *sitesize.size_warnings(report.size, optional)]
    written = Written(**summary, written=report.written, removed=report.removed, cached=False, warnings=warnings)
    sources_warnings = result.warnings
    del result, report  # not kept by the process that saves the session and may stay warm, forked below
    try:
        write_record(root, output, now, summary, optional, sources_warnings)
        if memo is None:  # the warm process (see warm.serve) saves its session itself, once it has answered
            stay_warm = warm.wanted(papers)
            listener = None

            def save() -> None:
                nonlocal listener
                if stay_warm:  # bound first: a build started meanwhile waits for this process, not the session
                    listener = warm.open_listener(root)
                    warm.settled(lambda: _keep_session(root, now))
                else:
                    _keep_session(root, now)

            def then() -> None:  # once the session is saved and its lock let go
                if listener is not None:
                    warm.serve(listener, now, _warm_build, lambda made: save_session_locked(
                        root, lambda: warm.settled(lambda: _keep_session(root, made), _ready_for_next_build)),
                               lambda: _ready_for_next_build((root, now)))
            save_session_alongside(root, save, papers, then if stay_warm else None)
    except OSError as exc:
        written.warnings.append(cache_warning(root, exc))
        _forget(root, output)
    return written


def _edited(since: Fingerprint, now: Fingerprint) -> list[str]:
    """The input files that changed, came or went from the build of inputs `since` to now."""
    return [*(path for path, entry in now.files.items() if since.files.get(path) != entry),
            *(path for path in since.files if path not in now.files)]


_configs: dict = {}  # (site.yaml, base URL) -> the config this process's last build loaded from them


def _config(config_path: Path, base_url: str | None, edited: list[str] | None) -> SiteConfig:
    """The site's config; in the warm process, the last build's where no file but papers was `edited`
    since (None: not known)."""
    from ..source.config import load_config

    key, content = (str(config_path), base_url), str(config_path.parent / "content") + os.sep
    if edited is not None and key in _configs and all(path.startswith(content) for path in edited):
        return _configs[key]
    _configs.clear()
    _configs[key] = config = load_config(config_path).with_base_url(base_url)
    return config


def _keep_session(root: Path, now: Fingerprint) -> None:
    """The session of this process's last build, and what the next one's map layout ahead reads."""
    from . import map_ahead
    kept = _kept[0]
    kept.map.ahead = None
    save_session(root, now, kept)
    map_ahead.keep(root, now, kept)


def _ready_for_next_build(kept: tuple[Path, Fingerprint] | None = None) -> None:
    """In the warm process, between builds: what the next build's survey of each output takes, and
    its map's work. `kept`: (root, inputs) of the session this process has kept already (the map's
    spare reads what it left now; otherwise once it is kept)."""
    from . import map_ahead
    from .output import ahead_of_next_build
    for left in _kept[0].surveys.values():
        ahead_of_next_build(left)
    map_ahead.ready_for_next_build(_kept[0], kept)


def _warm_build(request: dict, now: Fingerprint, made: Fingerprint | None, progress, notify) -> Written:
    """In the warm process: the build a command handed over, from the cache it holds, that of the
    build of inputs `made` (None: not known)."""
    return build_now(Path(request["config_path"]), Path(request["output"]), request["base_url"], now,
                     progress=progress, notify=notify, memo=_kept[0], since=made)


def build_and_write(config: SiteConfig, out_dir: Path, progress: Callable[[str], None] = lambda stage: None,
                    notify: Callable[[str], None] | None = None,
                    start: BuildCache | Callable[[], BuildCache] | None = None,
                    inspect: Inspect | None = None) -> tuple[Build, WriteReport]:
    """Build into out_dir, starting from `start` (what the last build left), or from what
    `start()` loads while the output folder is listed alongside. Pages are written as they
    are rendered, on every core, and never held in memory; the search index and the map are
    built alongside. `notify` hears that the build waits for another one writing to out_dir.
    `inspect(build, folders)` sees the new site before it is moved in: each file is in
    build.files, else in the first of `folders` that holds it; a SiteError it raises leaves
    the previous site as it was."""
    from ..pipeline import build_site
    from .output import OutputChanged, Staging
    from .runner import BuildCache, Streamed

    memo = None if callable(start) else start or BuildCache()
    # What this process's last build left in the output, while the output is listed alongside to check
    expected = memo.surveys.pop(str(out_dir), None) if memo is not None else None
    while True:
        with Staging(out_dir, None, config.root, notify, survey_alongside=True, expected=expected) as staging:
            if memo is None:
                memo = start() or BuildCache()
            build = build_site(config, Streamed(memo, staging, progress))
            if inspect is not None:
                progress("checking")
                inspect(build, [staging.folder, staging.out_dir])
            progress(f"writing {len(build.files) + len(build.stored)} files")
            began = time.perf_counter()
            try:
                report = staging.commit(build.files, build.stored)
            except OutputChanged:
                expected = None  # a file in the output was changed by hand since: built again, against what is there
                continue
        if staging.left is not None:
            memo.surveys[str(out_dir)] = staging.left
        build.timings["write"] = time.perf_counter() - began
        return build, report


def one_spelling(config_path: Path) -> Path:
    """site.yaml's path spelled one way however it was given (./site.yaml, an absolute path,
    ../site/site.yaml): from the working folder when it is inside it, else absolute. Fingerprints
    and the session know files by the paths the build reads them by, so another spelling would
    build the whole site again; messages name files as this spells them."""
    try:
        folder = config_path.parent.resolve()  # not abspath: `link/..` is wherever link points
    except (RuntimeError, OSError):  # a symlink that loops: as given, for load_config to report
        return config_path
    try:
        return folder.relative_to(Path.cwd()) / config_path.name
    except (ValueError, OSError):  # outside it (or it is gone)
        return folder / config_path.name


def _forget(root: Path, output: Path) -> None:
    """A cache half written is no cache: remove what may be stale."""
    for path in (record_path(root, output), session_path(root)):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
