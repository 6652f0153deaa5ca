"""Which format a file is in, and its reader: `read_records(path, fmt=None, context=None)`.

The format comes from the content when it is unmistakable (an XML root, JSON, a BibTeX
entry, a RIS `TY` line, a seed header) and from the extension otherwise (CSV/TSV);
`fmt` (the `--format` option) overrides both. Every reader yields `Record`s and
`Problem`s; a file that gives no records at all (unreadable, unrecognised, empty) is one
`FileProblem`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem
from .records import Deferred, FileProblem, Reader, read_text

# name -> what it reads (for --help and error messages)
FORMATS = {
    "bibtex": "BibTeX (.bib): PMLR, al-folio, Zotero, DBLP, Google Scholar",
    "csljson": "CSL-JSON (Zotero, Better BibTeX)",
    "ris": "RIS (.ris): Zotero, EndNote, publishers",
    "csv": "CSV with a header row (MiniConf papers.csv, spreadsheets)",
    "tsv": "TSV with a header row",
    "json": "JSON array of records (also {\"papers\": [...]} and JSON Lines)",
    "openreview": "OpenReview notes, API v1 or v2 (JSON)",
    "arxiv": "arXiv API response (Atom XML)",
    "oai-pmh": "OAI-PMH ListRecords (XML; oai_dc, arXiv or arXivRaw metadata)",
    "seed": "seed text: a 'VENUE YEAR' header, then abstracts separated by blank lines",
}
EXTENSIONS = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".csv": "csv", ".tsv": "tsv",
              ".tab": "tsv", ".json": "json", ".jsonl": "json", ".ndjson": "json", ".atom": "arxiv",
              ".txt": "seed"}
HEAD_BYTES = 64 * 1024
SEED_HEADER = re.compile(r"^.*?\b(19|20)\d\d\b(?:\s+papers?)?\s*$", re.IGNORECASE)


@dataclass
class ImportContext:
    """State the readers of one command line share (any object with these attributes will do)."""

    columns: dict[str, str] = field(default_factory=dict)  # CSV/JSON: our field name -> the file's column
    macros: dict[str, str] = field(default_factory=dict)  # BibTeX @string macros of earlier files


def read_records(path: Path | str, fmt: str | None = None, context=None, deferred: bool = False) -> Reader:
    """The records of one file, in order, and a Problem for each one that cannot be read.
    `deferred`: a record may come as a records.Deferred, to make later (the importer's workers do)."""
    path = Path(path)
    context = context if context is not None else ImportContext()
    if fmt is not None and fmt not in FORMATS:
        yield FileProblem(path, None, f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
        return
    try:
        name = fmt or detect_format(path)
        if name is None:
            yield FileProblem(path, None, unrecognised(path))
            return
    except OSError as exc:
        yield FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
        return
    found = False
    for item in _reader(name)(path, context):
        found = True
        yield item if deferred or not isinstance(item, Deferred) else item()
    if not found and _blank(path):  # a file of @string macros alone gives no records, and is fine
        yield FileProblem(path, 1, "empty file: no records to import")


def _blank(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return not file.read(HEAD_BYTES).decode("utf-8", "ignore").lstrip("\ufeff").strip()
    except OSError:
        return False


def detect_format(path: Path) -> str | None:
    """The format name for a file, from its first 64 KB and its extension; None when unknown."""
    with path.open("rb") as file:
        head = file.read(HEAD_BYTES).decode("utf-8", "ignore").lstrip("\ufeff")
    extension = EXTENSIONS.get(path.suffix.lower())
    if extension in ("csv", "tsv"):  # a table's first cell may start with anything
        return extension
    start = head.lstrip()
    if not start:  # the reader of its extension says it is empty
        return extension
    if start.startswith("<"):
        if re.search(r"<(\w+:)?OAI-PMH\b", head):
            return "oai-pmh"
        if re.search(r"<(\w+:)?feed\b", head):
            return "arxiv"
        return None
    if start[:1] in "[{":
        from . import jsonrecords
        return jsonrecords.flavour(path)
    if re.search(r"^\s*@\s*[A-Za-z]+\s*[{(]", head, re.MULTILINE):
        return "bibtex"
    if re.search(r"^TY  - ", head, re.MULTILINE):
        return "ris"
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    if len(first) <= 200 and SEED_HEADER.match(first):
        return "seed"
    if not extension and re.search(r"\btitle\b", first, re.IGNORECASE):  # a header row, without a .csv
        return "tsv" if "\t" in first else "csv" if ("," in first or ";" in first) else None
    return extension


def unrecognised(path: Path) -> str:
    """Why detect_format found no format for the file, and what to do about it."""
    with path.open("rb") as file:
        start = file.read(HEAD_BYTES).decode("utf-8", "ignore").lstrip("\ufeff").lstrip()
    if start.startswith("<"):
        seen = "XML, but neither an arXiv API <feed> nor an <OAI-PMH> response"
    else:
        extension = f"its extension '{path.suffix}' names no format" if path.suffix else "it has no extension"
        seen = ("its content is not BibTeX (an '@type{' line), RIS (a 'TY  - ' line), JSON, XML or seed text "
                f"(a 'VENUE YEAR' first line), and {extension} ({', '.join(sorted(EXTENSIONS))})")
    return f"format not recognised: {seen}; if it is one of {', '.join(FORMATS)}, name it with --format NAME"


def _reader(name: str):
    if name == "bibtex":
        from . import bibtex
        return _whole_text(bibtex.read)
    if name == "ris":
        from . import ris
        return ris.read
    if name in ("csv", "tsv"):
        from . import table
        return lambda path, context: table.read(path, context, tsv=name == "tsv")
    if name in ("json", "csljson", "openreview"):
        from . import jsonrecords
        return lambda path, context: jsonrecords.read(path, context, name)
    if name in ("arxiv", "oai-pmh"):
        from . import arxiv
        return arxiv.read_atom if name == "arxiv" else arxiv.read_oai
    from .seed import read_seed  # the importer core's reader
    return read_seed


def _whole_text(reader):
    def read(path: Path, context) -> Reader:
        text = read_text(path)
        if isinstance(text, Problem):
            yield text
            return
        yield from reader(path, text, context)
    return read
