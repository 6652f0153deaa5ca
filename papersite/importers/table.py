"""CSV and TSV with a header row: MiniConf's papers.csv, conference-system exports, spreadsheets.

Read row by row (memory stays flat however long the file); a BOM, CRLF and newlines inside
quoted fields are handled by the csv module. The delimiter of a .csv is the one its header
uses most (`,`, `;` or a tab).
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

from ..errors import Problem
from .flat import Columns, record_from
from .records import Deferred, FileProblem, Reader

# A field may hold a long abstract; the csv default (128 KB) would refuse a pasted paper.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def _record_from(header: list[str], cells: list[str], columns: Columns, path: Path, line: int, number: int):
    return record_from(dict(zip(header, cells)), columns, path, line, number)


def read(path: Path, context, tsv: bool = False) -> Reader:
    """The rows of a CSV/TSV file as Deferred records (see records.Deferred)."""
    try:
        file = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        yield FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
        return
    with file:
        line = 1
        try:
            header_line = file.readline()
            delimiter = "\t" if tsv else max(",;\t", key=header_line.count)
            file.seek(0)  # utf-8-sig drops the BOM again
            rows = csv.reader(file, delimiter=delimiter)
            header = next(rows, None)
            if not header or not any(h.strip() for h in header):
                yield FileProblem(path, 1, "empty file: expected a header row such as 'title,authors,abstract'")
                return
            header = [h.strip() for h in header]
            columns = Columns(header, getattr(context, "columns", None))
            for message in columns.problems:
                yield FileProblem(path, 1, message)
            if columns.problems:
                return
            if not columns.has("title") and not columns.has("abstract"):
                yield FileProblem(path, 1, f"no title or abstract column among: {', '.join(header)} "
                                           f"(name one with --column title=\"{header[0]}\")")
                return
            number, line = 0, rows.line_num + 1
            for cells in rows:
                start, line = line, rows.line_num + 1
                if not any(cell.strip() for cell in cells):
                    continue
                number += 1
                if len(cells) > len(header):
                    extra = [c for c in cells[len(header):] if c.strip()]
                    if extra:
                        yield Problem(path, start, f"row {number} has {len(cells)} fields but the header has "
                                                   f"{len(header)}: is a field with a '{delimiter}' not quoted?")
                        continue
                yield Deferred(_record_from, header, cells, columns, path, start, number)
        except UnicodeDecodeError as exc:
            yield Problem(path, line, f"not UTF-8 text ({exc.reason}): save the file as UTF-8")
        except csv.Error as exc:
            yield Problem(path, line, f"not valid CSV: {exc}")
