"""The real ICML 2024 papers (../shared/data/icml2024-events.json) as benchmarks need them.

Only paper events ("Poster" covers posters, orals and spotlights; workshops,
tutorials and invited talks are left out) with an abstract. The file lives
outside the repository (see bench/titledata.py): benchmarks use it when present.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from titledata import DEFAULT, PAPER_TYPES


@dataclass(frozen=True)
class RealPaper:
    title: str
    abstract: str
    authors: tuple[str, ...]
    url: str


@cache
def real_papers(path: Path = DEFAULT) -> tuple[RealPaper, ...]:
    if not Path(path).exists():
        raise SystemExit(f"{path} is missing: this benchmark needs the real ICML 2024 export")
    records = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(RealPaper(" ".join(r["name"].split()), r["abstract"].strip(),
                           tuple(a.strip() for a in (r.get("speakers/authors") or "").split(",") if a.strip()),
                           r.get("virtualsite_url") or "")
                 for r in records
                 if r.get("type") in PAPER_TYPES and (r.get("abstract") or "").strip() and r.get("name"))
