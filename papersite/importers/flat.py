"""Records from flat key-value rows: CSV/TSV columns and JSON objects with the same names.

Column names are matched case-insensitively, ignoring spaces, `_`, `-` and `/`
("Paper Title", "paper_title", "speakers/authors"); a mapping {our field: their column}
(the import command's `--column FIELD=HEADER`) names unusual ones. Whatever no field takes goes to
`extra` under its own name.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..errors import Problem
from .records import Author, Record
from .text import (arxiv_id, bare_doi, inline, light_latex, link_for, openreview_id, paragraphs,
                   name_first_last, parse_date, split_list, split_names, status_from)

# our field -> the names exports use for it, most specific first (compared after column_key)
ALIASES = {
    "title": ("title", "papertitle", "name"),
    "authors": ("authors", "author", "speakersauthors", "speakers", "authornames", "creators", "creator"),
    "abstract": ("abstract", "summary", "paperabstract"),
    "year": ("year",),
    "date": ("date", "published", "publicationdate", "pubdate"),
    "venue": ("venue", "conference", "journal", "booktitle", "containertitle"),
    "keywords": ("keywords", "keyword", "subjectareas", "subjects", "tags"),
    "status": ("status", "decision", "award", "presentation"),
    "id": ("id", "uid", "paperid", "key", "citationkey", "bibtexkey"),
    "pdf": ("pdf", "pdfurl", "pdflink"),
    "url": ("url", "link", "paperurl", "virtualsiteurl", "site", "html"),
    "code": ("code", "codeurl", "github", "software", "repository"),
    "openreview": ("openreview", "openreviewurl", "forum", "openreviewid"),
    "arxiv": ("arxiv", "arxivid", "arxivurl", "eprint"),
    "doi": ("doi",),
    "slides": ("slides",), "video": ("video", "videourl"), "poster": ("poster", "posterurl"),
    "project": ("project", "projectpage", "website"), "data": ("data", "dataset"),
    "supplementary": ("supplementary", "supplementarymaterial", "supp"),
    "type": ("type", "eventtype"),
}
FIELDS = tuple(ALIASES)
LINK_KINDS = ("pdf", "url", "code", "openreview", "arxiv", "doi", "slides", "video", "poster", "project",
              "data", "supplementary")
# Event exports (ICML's virtual site, MiniConf) list workshops, tutorials and talks next to papers.
NOT_PAPERS = re.compile(r"workshop|tutorial|invited|keynote|panel|social|expo|affinity|competition|"
                        r"town ?hall|remarks|break|meetup|mentorship|careers|sponsor", re.IGNORECASE)


def column_key(name: str) -> str:
    return re.sub(r"[\s_\-/.]+", "", str(name).lower())


class Columns:
    """Which of a file's column names feeds which field; built once per file."""

    def __init__(self, names: list[str], mapping: dict[str, str] | None = None):
        self.names = list(names)
        self.field_of: dict[str, str] = {}  # their column -> our field
        self.problems: list[str] = []
        by_norm: dict[str, str] = {}
        for name in self.names:
            by_norm.setdefault(column_key(name), name)
        for ours, theirs in (mapping or {}).items():
            if ours not in ALIASES:
                self.problems.append(f"--column {ours}={theirs}: unknown field '{ours}' "
                                     f"(fields: {', '.join(FIELDS)})")
                continue
            column = theirs if theirs in self.names else by_norm.get(column_key(theirs))
            if column is None:
                self.problems.append(f"--column {ours}={theirs}: no column '{theirs}' in the header; "
                                     f"columns: {', '.join(self.names)}")
                continue
            self.field_of[column] = ours
        taken = set(self.field_of.values())
        for ours, names in ALIASES.items():
            if ours in taken:
                continue
            column = next((by_norm[n] for n in names if n in by_norm and by_norm[n] not in self.field_of), None)
            if column is not None:
                self.field_of[column] = ours
                taken.add(ours)

    def has(self, ours: str) -> bool:
        return ours in self.field_of.values()


def record_from(row: dict, columns: Columns, path: Path, line: int | None, number: int) -> Record | Problem:
    """One row (column -> value) to a Record; values may be strings, numbers or lists."""
    record = Record(source=path, line=line, number=number)
    values: dict[str, object] = {}
    for column, value in row.items():
        if value is None or value == "" or value == []:
            continue
        ours = columns.field_of.get(column)
        if ours is None:
            record.extra[str(column)] = _extra(value)
        else:
            values[ours] = value
    text = {k: _text(v) for k, v in values.items()}
    record.title = inline(light_latex(text.get("title", "")))
    record.abstract = paragraphs(light_latex(text.get("abstract", ""), markdown=True), keep_lines=True)
    record.authors = _authors(values.get("authors"))
    _per_author(record, values.get("authors"))
    year, date = parse_date(text.get("date"))
    if text.get("year"):
        given, _ = parse_date(text["year"])
        if given:
            year = given
            date = date if date.startswith(f"{given:04d}") else f"{given:04d}"
    record.year, record.date = year, date
    record.venue = inline(text.get("venue", ""))
    keywords = values.get("keywords")
    record.keywords = [inline(str(k)) for k in keywords if str(k).strip()] if isinstance(keywords, list) \
        else split_list(text.get("keywords", ""))
    if text.get("status"):
        record.status = status_from(text["status"]) or inline(text["status"])
    kind = inline(text.get("type", ""))
    if kind:
        record.extra["type"] = kind
        if NOT_PAPERS.search(kind) and not re.search(r"paper|poster|oral|spotlight", kind, re.IGNORECASE):
            record.skip_reason = f"{kind}: not a paper"
    if text.get("id"):
        record.ids["key"] = inline(text["id"])
    for kind in LINK_KINDS:
        value = inline(text.get(kind, ""))
        if not value:
            continue
        link = link_for(kind, value)
        if link:
            record.links[kind] = link
        else:
            record.extra[kind] = value
    _ids_from_links(record, text)
    return record


# Columns that hold one value per author, in the authors' order (paperlists: "aff", "orcid").
PER_AUTHOR = {"aff": "affiliation", "affiliation": "affiliation", "affiliations": "affiliation",
              "orcid": "orcid", "orcids": "orcid"}
# E-mail addresses (or their domains) are private: they stay out of the catalog.
PRIVATE = {"email", "emails", "emailaddress", "affdomain"}


def _per_author(record: Record, cell) -> None:
    """Affiliations and ORCIDs given as `;`-separated columns aligned with a `;`-separated author cell
    ("+" joins one author's several affiliations)."""
    for column in [c for c in record.extra if column_key(c) in PRIVATE]:
        del record.extra[column]
    if not isinstance(cell, str) or ";" not in cell:
        return
    for column in [c for c in record.extra if column_key(c) in PER_AUTHOR]:
        values = record.extra[column]
        parts = values.split(";") if isinstance(values, str) else []
        if len(parts) != len(record.authors):
            continue
        kind = PER_AUTHOR[column_key(column)]
        for i, (author, part) in enumerate(zip(record.authors, parts)):
            if kind == "orcid":
                found = re.search(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]", part)
                author = replace(author, orcid=found[0]) if found else author
            elif part.strip():
                author = replace(author, affiliation="; ".join(inline(a) for a in part.split("+") if a.strip()))
            record.authors[i] = author
        del record.extra[column]


def _ids_from_links(record: Record, text: dict) -> None:
    doi = bare_doi(text.get("doi", ""))
    if doi:
        record.ids["doi"] = doi
    arxiv = text.get("arxiv", "") or (text.get("url", "") if "arxiv.org" in text.get("url", "") else "")
    if arxiv_id(arxiv):
        record.ids["arxiv"] = arxiv_id(arxiv)
    candidates = [text.get("openreview", "")] + [text.get(k, "") for k in ("url", "pdf")
                                                  if "openreview.net" in text.get(k, "")]
    found = next((openreview_id(c) for c in candidates if c and openreview_id(c)), "")
    if found:
        record.ids["openreview"] = found


def _text(value) -> str:
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("value", value.get("name", "")))
    if isinstance(value, bool):
        return ""
    return str(value)


def _extra(value):
    if isinstance(value, str):
        return value.strip()
    return value


def _authors(value) -> list[Author]:
    if value is None:
        return []
    if isinstance(value, str):
        return [Author(light_latex(n)) for n in split_names(value)]
    if isinstance(value, dict):
        value = [value]
    authors = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            name = item.get("name") or " ".join(
                str(item.get(k, "")) for k in ("given", "first_name", "firstname", "first", "family",
                                                "last_name", "lastname", "last"))
            orcid = re.search(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]", str(item.get("orcid", "")))
            affiliation = item.get("affiliation") or item.get("institution") or ""
            if isinstance(affiliation, list):
                affiliation = "; ".join(str(a.get("name", a)) if isinstance(a, dict) else str(a) for a in affiliation)
            name = inline(light_latex(str(name)))
            if name:
                authors.append(Author(name, orcid[0] if orcid else "", inline(str(affiliation))))
        elif isinstance(item, str) and item.strip():  # one list item is one person
            authors.append(Author(name_first_last(light_latex(item))))
    return authors
