"""What an import tells its user: the files it created, updated or left unchanged, every record
it skipped and why, every record it could not read or place, and the summary line."""
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
    notices: list[Problem] = field(default_factory=list)  # every skip and problem, in the order met
    venues_added: list[str] = field(default_factory=list)

    def problem(self, problem: Problem, records: int = 1) -> None:
        self.problems.append(problem)
        self.notices.append(problem)
        self.unreadable += records

    def skip(self, where: Problem, reason: str) -> None:
        self.skipped.append(Skipped(where, reason))
        self.notices.append(where)

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
        return (f"{self.read} record{'s' if self.read != 1 else ''} read: {len(self.created)} created, "
                f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {skipped} skipped{why}.")
