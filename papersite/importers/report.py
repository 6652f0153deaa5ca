"""What an import tells its user: the files it created, updated or left unchanged, every record
it skipped and why, every record it could not read or place, every file it could not read, the
summary line, and why it failed when nothing could be imported."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem

EDITED, DUPLICATE, NO_TITLE, NOT_A_PAPER = "edited by hand", "duplicate", "no title", "not a paper"


@dataclass(frozen=True)
class Skipped:
    """A record that was read but not written, and why."""

    where: Problem  # the record (or the content file it would overwrite) and the reason, as one line
    reason: str  # EDITED, DUPLICATE, NO_TITLE or NOT_A_PAPER (the source says so: a talk, a deleted record)


@dataclass
class ImportReport:
    read: int = 0  # records read, the unreadable ones included
    created: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # records that could not be read or placed
    unreadable: int = 0  # records those problems stand for (one problem may report a file's many)
    files_failed: list[Problem] = field(default_factory=list)  # files that gave no records at all
    notices: list[Problem] = field(default_factory=list)  # every skip and problem, in the order met
    # the notices with every record of a grouped one on a line of its own, and the file they are
    # written to when a notice names only some of its records (see Importer.end_of_file)
    every: list[Problem] = field(default_factory=list)
    listed_in: Path | None = None
    venues_added: list[str] = field(default_factory=list)

    def problem(self, problem: Problem, records: int = 1, each: list[Problem] | None = None) -> None:
        """`each`: the records a problem standing for several stands for, one line each."""
        self.problems.append(problem)
        self.notices.append(problem)
        self.every.extend(each or [problem])
        self.unreadable += records

    def file_problem(self, problem: Problem) -> None:
        """A file that gave no records: not a record read, but the import failed all the same."""
        self.files_failed.append(problem)
        self.notices.append(problem)
        self.every.append(problem)

    def notice(self, notice: Problem) -> None:
        """Something the user should know that did not stop a record (a warning)."""
        self.notices.append(notice)

    def skip(self, where: Problem, reason: str) -> None:
        self.skipped.append(Skipped(where, reason))
        self.notices.append(where)
        self.every.append(where)

    def failed(self) -> bool:
        """A record could not be read or placed, a file gave no records, or nothing was imported
        for a reason of that kind (the exit status is 1)."""
        return bool(self.problems or self.files_failed or self.nothing_imported())

    def nothing_imported(self) -> str:
        """Why no record became a paper, when problems are why; "" otherwise. An import of records
        all unchanged, edited by hand, duplicates or not papers did what it had to."""
        if self.created or self.updated or self.unchanged or any(
                skip.reason in (EDITED, DUPLICATE) for skip in self.skipped):
            return ""
        titleless = sum(skip.reason == NO_TITLE for skip in self.skipped)
        causes = [f"{n} {what}{'s' if n != 1 else ''} {why}" for n, what, why in (
            (self.unreadable, "record", "unreadable"), (titleless, "record", "without a title"),
            (len(self.files_failed), "file", "not imported")) if n]
        return f"nothing was imported: {', '.join(causes)} (see above)" if causes else ""

    def summary(self) -> str:
        """One line: '12 records read: 8 created, 1 updated, 2 unchanged, 1 skipped (1 duplicate).'"""
        reasons = {}
        for skip in self.skipped:
            reasons[skip.reason] = reasons.get(skip.reason, 0) + 1
        if self.unreadable:
            reasons["unreadable"] = self.unreadable
        skipped = sum(reasons.values())
        order = [EDITED, DUPLICATE, NO_TITLE, NOT_A_PAPER, "unreadable"]
        why = " (" + ", ".join(f"{reasons[r]} {r}" for r in order if r in reasons) + ")" if reasons else ""
        files = len(self.files_failed)
        unread = f"; {files} file{'s' if files != 1 else ''} not imported" if files else ""
        return (f"{self.read} record{'s' if self.read != 1 else ''} read: {len(self.created)} created, "
                f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {skipped} skipped{why}{unread}.")
