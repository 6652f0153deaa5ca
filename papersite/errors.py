"""Errors a user can fix: each names the file, the line and what is wrong."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input file."""

    path: Path | str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else f"{self.path}"
        return f"{where}: {self.message}"


class SiteError(Exception):
    """A build cannot go on. Carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, (Problem, str)):
            problems = [problems]
        self.problems = list(problems)
        super().__init__(str(self))

    def __reduce__(self):  # raised in a worker process, it crosses back whole
        return (type(self), (self.problems,))

    def __str__(self) -> str:
        lines = [str(p) for p in self.problems]
        if len(lines) == 1:
            return lines[0]
        return f"{len(lines)} problems:\n" + "\n".join(f"  {line}" for line in lines)
