"""The development set of issue #15: real (abstract, title) pairs of ICML 2024.

Kept: paper events ("Poster" covers posters, orals and spotlights) with a
non-empty abstract. Split by a hash of the title, so the split never depends on
the file's order: a third is held out of all tuning (bench/tune_titles.py never
sees it) and is what bench/titles.py reports on.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

# ../shared beside the repository (from a worktree of it, one level further up).
_HERE = Path(__file__).resolve().parent.parent
DEFAULT = next((p / "shared" / "data" / "icml2024-events.json" for p in (_HERE.parent, _HERE.parent.parent)
                if (p / "shared" / "data" / "icml2024-events.json").exists()),
               _HERE.parent / "shared" / "data" / "icml2024-events.json")
PAPER_TYPES = ("Poster",)


def load_pairs(path: Path = DEFAULT) -> list[tuple[str, str]]:
    """(abstract, title) of every paper event with an abstract, in file order."""
    records = json.loads(Path(path).read_text(encoding="utf-8"))
    return [(r["abstract"].strip(), " ".join(r["name"].split())) for r in records
            if r.get("type") in PAPER_TYPES and (r.get("abstract") or "").strip() and r.get("name")]


def is_held_out(title: str) -> bool:
    return int(hashlib.sha256(title.encode()).hexdigest(), 16) % 3 == 0


def split(pairs: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(tuning, held_out)."""
    tuning = [p for p in pairs if not is_held_out(p[1])]
    held = [p for p in pairs if is_held_out(p[1])]
    return tuning, held
