"""An import from start to end: each file read (formats.py), its records prepared on the workers
(prepare.py) batch after batch while the next batch is read, and handed to the Importer
(importer.py) in the order read, one at a time, as matching records to papers needs.
"""
from __future__ import annotations

import contextlib
import datetime
import logging
import os
import stat
from pathlib import Path
from typing import Iterable

from ..errors import Problem, SiteError
from ..parallel import MapInBackground
from ..source.config import SiteConfig
from ..source.files import import_marker
from .importer import Importer
from .prepare import Prepared, prepare
from .records import Deferred, FileProblem, Record
from .report import ImportReport
from .topics import Topics

BATCH = 2000  # records derived at once: enough to pay for forking workers, few enough to keep memory flat
TODAY_VARIABLE = "PAPERSITE_TODAY"  # YYYY-MM-DD: the day recorded as `added` (tests and reproducible runs)

Item = Record | Deferred | Problem


def import_files(paths: list[Path], config: SiteConfig, site_yaml: Path, *, venue: str | None = None,
                 fmt: str | None = None, columns: dict[str, str] | None = None,
                 today: str | None = None) -> ImportReport:
    """Import every record of every file into config's content/ (and new venues into site_yaml).

    Raises SiteError, before writing anything, for what stops the whole import (an unknown
    --venue, a damaged manifest); problems with single records are in the report."""
    from . import formats  # the readers load their parsers only when a file needs them
    if fmt is not None and fmt not in formats.FORMATS:
        raise SiteError(Problem("--format", None, f"unknown format '{fmt}' (known: {', '.join(formats.FORMATS)})"))
    context = formats.ImportContext(columns=dict(columns or {}))

    def files():
        for path in map(Path, paths):
            refused = _not_a_file(path)
            if refused:
                yield [refused], False
                continue
            try:
                name = fmt or formats.detect_format(path)
            except OSError:
                name = None  # read_records says why
            yield formats.read_records(path, name if fmt is None else fmt, context, deferred=True), name == "seed"

    return import_records(files(), config, site_yaml, venue=venue, today=today)


def import_records(files: Iterable[tuple[Iterable[Item], bool]], config: SiteConfig, site_yaml: Path,
                   *, venue: str | None = None, today: str | None = None) -> ImportReport:
    """Import records, given file by file as (records and problems, whether titles are derived
    from the abstracts: seed text)."""
    with _marked(Path(site_yaml).parent):
        importer = Importer(config, site_yaml, venue, today or today_from_environment())
        batches = _Batches(importer, Topics(config.topics))
        _take_all(files, batches)
    return importer.report


def _take_all(files: Iterable[tuple[Iterable[Item], bool]], batches: "_Batches") -> None:
    with _quiet_parsers():
        try:
            for items, seed in files:
                for item in items:
                    batches.take(item, seed)
                batches.end_of_file()
        finally:  # also after Ctrl-C: what was written stays known as the importer's
            batches.finish()


@contextlib.contextmanager
def _marked(root: Path):
    """The import's marker (source/files.py) from before its first write to after its last, so
    that a preview running meanwhile rebuilds once, from the finished import: until site.yaml
    gets the new venues at the end, the papers written name venues it does not declare."""
    marker = import_marker(root)
    made = not marker.parent.exists()
    try:
        marker.parent.mkdir(exist_ok=True)
        marker.touch()
    except OSError:
        marker = None  # the import goes ahead; a preview then may show a passing error
    try:
        yield
    finally:
        if marker is not None:
            with contextlib.suppress(OSError):
                marker.unlink(missing_ok=True)
                if made:
                    marker.parent.rmdir()  # no trace of the marker; a folder with more in it stays


def today_from_environment() -> str:
    value = os.environ.get(TODAY_VARIABLE, "")
    if not value:
        return datetime.date.today().isoformat()
    try:
        return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        raise SiteError(Problem(TODAY_VARIABLE, None, f"must be a date such as 2024-07-21, not '{value[:40]}'")) \
            from None


def _not_a_file(path: Path) -> Problem | None:
    """Why a path cannot be read as an export, checked without opening it (a FIFO would hang)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
    return None if stat.S_ISREG(mode) else FileProblem(path, None, "not a regular file: give the export file itself")


@contextlib.contextmanager
def _quiet_parsers():
    """Keep the parsers' log lines (pylatexenc's "macro '\\frac' failed its substitution!"
    for each macro it cannot convert) off the user's screen when logging is configured:
    the text is kept as written and what matters is in the report. Only these loggers,
    and only for the import."""
    loggers = [logging.getLogger(name) for name in ("pylatexenc", "bibtexparser")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


class _Batches:
    """Records prepared on the workers, BATCH at a time, and given to the importer in order."""

    def __init__(self, importer: Importer, topics: Topics):
        self.importer, self.topics = importer, topics
        self.pending: list[tuple[Item, bool]] = []
        self.deriving: tuple[list[tuple[Item, bool]], MapInBackground] | None = None

    def take(self, item: Item, seed: bool) -> None:
        self.pending.append((item, seed))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self, last: bool = False) -> None:
        """Start preparing the pending records on the workers, and give the importer the batch
        before them, prepared while this process read these. `last`: these too."""
        before = self._derived()
        pending, self.pending = self.pending, []
        if pending:
            self.deriving = (pending, MapInBackground(self._prepare, [job for job in pending
                                                                      if not isinstance(job[0], Problem)]))
        self._give(*before)
        if last:
            self._give(*self._derived())

    def end_of_file(self) -> None:
        self.flush(last=True)
        self.importer.end_of_file()

    def finish(self) -> None:
        """The importer's finish(), with the records still pending left out."""
        if self.deriving is not None:
            self.deriving[1].stop()
        self.importer.finish()

    def _prepare(self, job: tuple[Record | Deferred, bool]) -> Prepared | Problem:
        item, seed = job
        return prepare(item, seed, self.topics)

    def _derived(self) -> tuple[list[tuple[Item, bool]], list[Prepared | Problem]]:
        """The batch being prepared and what the workers made of it, when done; ([], []) when none is."""
        if self.deriving is None:
            return [], []
        (batch, job), self.deriving = self.deriving, None
        return batch, job.result()

    def _give(self, batch: list[tuple[Item, bool]], prepared: list[Prepared | Problem]) -> None:
        prepared = iter(prepared)
        for item, seed in batch:
            self.importer.take(item if isinstance(item, Problem) else next(prepared), seed)
