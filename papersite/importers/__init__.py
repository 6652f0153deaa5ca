"""Import papers from other formats into content files.

    report = import_files([Path("papers.bib")], config, Path("site.yaml"), venue="icml-2024")

A file a person edited is never overwritten, re-importing the same input changes nothing,
and every record that is not imported is in the report with its file and line.

Which module does what:
    run.py          an import from start to end: files read, records prepared in batches on the workers
    formats.py      a reader per format (bibtex.py, csljson.py, ris.py, table.py, jsonrecords.py, arxiv.py,
                    seed.py, with flat.py, text.py and records.py): each file's `Record`s
    prepare.py      a record made ready alone: text cleaned, title (seed text) and topics derived
    importer.py     one record at a time: which paper it is, then its file created, updated or skipped
    matching.py     the papers a record can be, found by id, identifier, abstract, or title and author
    identity.py     a record's id, and the keys papers are matched by
    venues.py       which venue of site.yaml a record belongs to, and the new venues written there
    topics.py       topics from keywords, title and abstract
    titles.py       a title derived from an abstract (title_model.py: the model it ranks by)
    writer.py       content files as the importer writes them, the catalog read back, the edit manifest
    report.py       what an import tells: files created, updated, unchanged; records skipped and why
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .report import ImportReport, Skipped
    from .run import TODAY_VARIABLE, import_files, import_records

__all__ = ["import_files", "import_records", "ImportReport", "Skipped", "TODAY_VARIABLE"]

_HOMES = {"import_files": "run", "import_records": "run", "TODAY_VARIABLE": "run",
          "ImportReport": "report", "Skipped": "report"}


def __getattr__(name: str):
    """The public names, loaded on first use: a reader (formats, for the CLI's help) comes without the importer."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value
