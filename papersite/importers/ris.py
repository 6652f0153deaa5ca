"""RIS (.ris): Zotero, EndNote, Mendeley and publisher exports.

The file is cut into records at `TY` / `ER` lines as it is read (memory stays flat, each
record knows its line), and rispy parses each one: continuation lines, repeated tags.
"""
from __future__ import annotations

import re
from pathlib import Path

import rispy

from ..errors import Problem
from ..model import ISSUED_KINDS
from .records import Author, FileProblem, Record, Reader
from .text import (arxiv_id, bare_doi, inline, light_latex, link_for, name_first_last, paragraphs, parse_date,
                   status_from)

KINDS = {"JOUR": "journal", "EJOUR": "journal", "JFULL": "journal", "MGZN": "journal",
         "CONF": "conference", "CPAPER": "conference",
         # issued by a university, an institution or a publisher (PB), which is then the venue
         "THES": "thesis", "RPRT": "report", "BOOK": "book", "EBOOK": "book",
         "CHAP": "collection", "ECHAP": "collection"}  # a chapter: its book (T2) is the venue
PREPRINT = re.compile(r"\barxiv\b|biorxiv|medrxiv|ssrn|preprint", re.IGNORECASE)
TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")
CONSUMED = {"type_of_reference", "title", "primary_title", "authors", "first_authors", "year", "date",
            "publication_year", "abstract", "notes_abstract", "keywords", "doi", "urls", "secondary_title",
            "journal_name", "alternate_title3", "alternate_title1", "alternate_title2", "id",
            "file_attachments1", "end_of_reference", "unknown_tag"}


def read(path: Path, context) -> Reader:
    try:
        file = path.open(encoding="utf-8-sig", newline=None)
    except OSError as exc:
        yield FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
        return
    number, line = 0, 0
    with file:
        try:
            lines, start = [], 0
            for line, raw in enumerate(file, start=1):
                raw = raw.rstrip("\n")
                tag = TAG.match(raw)
                if tag and tag[1] == "TY":
                    if lines:  # a record without its ER: it ends where the next begins
                        number += 1
                        yield _parse(lines, path, start, number)
                    lines, start = [raw], line
                elif lines:
                    lines.append(raw)
                    if tag and tag[1] == "ER":
                        number += 1
                        yield _parse(lines, path, start, number)
                        lines = []
            if lines:
                number += 1
                yield _parse(lines, path, start, number)
        except UnicodeDecodeError as exc:
            yield Problem(path, line + 1, f"not UTF-8 text ({exc.reason}): save the file as UTF-8")
    if number == 0:
        yield FileProblem(path, None, "no RIS records found (each starts with a 'TY  - ' line)")


def _parse(lines: list[str], path: Path, line: int, number: int) -> Record | Problem:
    if not TAG.match(lines[-1]) or TAG.match(lines[-1])[1] != "ER":
        lines = [*lines, "ER  - "]
    try:
        entries = rispy.RisParser().parse_lines(iter(lines))
    except Exception as exc:  # rispy raises plain exceptions on malformed records
        return Problem(path, line, f"RIS record {number} cannot be read: {inline(str(exc)) or type(exc).__name__}")
    if not entries:
        return Problem(path, line, f"RIS record {number} cannot be read")
    return _record(entries[0], path, line, number)


def _record(entry: dict, path: Path, line: int, number: int) -> Record:
    def get(*keys: str) -> str:
        for key in keys:
            value = entry.get(key)
            if isinstance(value, list):
                value = " ".join(value)
            if value and str(value).strip():
                return inline(str(value))
        return ""

    rec = Record(source=path, line=line, number=number)
    rec.title = inline(light_latex(get("title", "primary_title")))
    abstract = entry.get("abstract") or entry.get("notes_abstract") or ""
    rec.abstract = paragraphs(light_latex(abstract if isinstance(abstract, str) else "\n\n".join(abstract),
                                          markdown=True))
    names = [*(entry.get("authors") or []), *(entry.get("first_authors") or [])]
    rec.authors = [Author(name_first_last(light_latex(n))) for n in names if n.strip()]
    rec.year, rec.date = parse_date(get("date"))
    year, date = parse_date(get("year", "publication_year"))
    if year and (not rec.year or rec.year != year):
        rec.year, rec.date = year, date
    elif year and len(date) > len(rec.date):
        rec.date = date
    kind = get("type_of_reference").upper()
    rec.venue = get("secondary_title", "alternate_title3", "journal_name", "alternate_title1", "alternate_title2")
    rec.venue = rec.venue or inline(" ".join((entry.get("unknown_tag") or {}).get("BT", [])))
    rec.venue_kind = KINDS.get(kind, "")
    urls = entry.get("urls") or []
    signals = " ".join((rec.venue, get("publisher"), get("doi"), *urls))
    if kind in ("UNPB", "GEN", "ELEC", "JOUR", "RPRT", "MANSCPT") and PREPRINT.search(signals):
        rec.venue_kind = "preprint"
        if not rec.venue or PREPRINT.search(rec.venue):
            rec.venue = "arXiv" if re.search("arxiv", signals, re.I) else rec.venue
    if rec.venue_kind == "collection" and not rec.venue and get("publisher"):
        rec.venue_kind = "book"  # a chapter that names no book: its publisher places it, as it does a book
    issuer = rec.venue_kind in ISSUED_KINDS and not rec.venue and get("publisher")
    if issuer:
        rec.venue = get("publisher")
    keywords = entry.get("keywords") or []
    rec.keywords = [inline(k) for k in keywords if k.strip()]
    if get("id"):
        rec.ids["key"] = get("id")
    doi = bare_doi(get("doi"))
    if doi:
        rec.ids["doi"] = doi
        rec.links["doi"] = f"https://doi.org/{doi}"
    for url in urls:
        aid = arxiv_id(url) if "arxiv.org" in url else ""
        if aid:
            rec.ids["arxiv"] = aid
            rec.links.setdefault("arxiv", f"https://arxiv.org/abs/{aid}")
        elif url.lower().endswith(".pdf") and link_for("pdf", url):
            rec.links.setdefault("pdf", link_for("pdf", url))
        elif link_for("url", url):
            rec.links.setdefault("url", link_for("url", url))
    for attachment in entry.get("file_attachments1") or []:
        if link_for("pdf", attachment):
            rec.links.setdefault("pdf", link_for("pdf", attachment))
    notes = " ".join(entry.get("notes") or [])
    if re.search(r"\b(oral|spotlight|poster)\b", notes, re.I):
        rec.status = status_from(notes)
    for key, value in entry.items():
        if key not in CONSUMED and value and not (key == "publisher" and issuer):  # not the venue again
            rec.extra[key] = value
    for tag, values in (entry.get("unknown_tag") or {}).items():
        if tag != "BT":
            rec.extra[tag] = values if len(values) > 1 else values[0]
    return rec
