"""CSL-JSON items (Zotero's and Better BibTeX's "CSL JSON" export); read by jsonrecords."""
from __future__ import annotations

import re
from pathlib import Path

from ..model import ISSUED_KINDS
from .records import Author, Record
from .text import (arxiv_id, bare_doi, inline, light_latex, link_for, paragraphs, parse_date, split_list,
                   status_from)

KINDS = {"paper-conference": "conference", "article-journal": "journal", "article-magazine": "journal",
         "article-newspaper": "journal", "review": "journal",
         # issued by a university, an institution or a publisher, which is then the venue
         "thesis": "thesis", "report": "report", "book": "book",
         "chapter": "collection"}  # a chapter: its book (container-title) is the venue
PREPRINT = re.compile(r"\barxiv\b|biorxiv|medrxiv|ssrn|preprint", re.IGNORECASE)
CONSUMED = {"title", "author", "abstract", "issued", "container-title", "event-title", "event", "type", "DOI",
            "URL", "keyword", "id", "citation-key", "number", "publisher", "archive", "note"}


def record(item: dict, path: Path, line: int | None, number: int) -> Record | None:
    if not isinstance(item.get("title", ""), str):
        return None
    text = {k: v for k, v in item.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}

    def get(key: str) -> str:
        return inline(str(text.get(key, "")))

    rec = Record(source=path, line=line, number=number)
    rec.title = inline(light_latex(get("title")))
    # Zotero keeps the abstract's own line breaks: one per paragraph or list item.
    rec.abstract = paragraphs(light_latex(str(item.get("abstract") or ""), markdown=True), keep_lines=True)
    rec.authors = [a for a in map(person, item.get("author") or []) if a]
    rec.year, rec.date = issued(item.get("issued"))
    rec.venue = get("container-title") or get("event-title") or get("event")
    kind = get("type")
    rec.venue_kind = KINDS.get(kind, "")
    signals = " ".join((get("publisher"), get("archive"), get("number"), get("container-title"), get("URL"),
                        get("DOI")))
    if kind in ("article", "manuscript", "report", "") and PREPRINT.search(signals):
        rec.venue_kind = "preprint"
        rec.venue = rec.venue or ("arXiv" if re.search("arxiv", signals, re.I) else get("publisher"))
    if rec.venue_kind == "collection" and not rec.venue and get("publisher"):
        rec.venue_kind = "book"  # a chapter that names no book: its publisher places it, as it does a book
    issuer = rec.venue_kind in ISSUED_KINDS and not rec.venue and get("publisher")
    if issuer:
        rec.venue = get("publisher")
    rec.keywords = split_list(get("keyword"))
    key = get("citation-key") or get("id")
    if key:
        rec.ids["key"] = key
    doi = bare_doi(get("DOI"))
    if doi:
        rec.ids["doi"] = doi
        rec.links["doi"] = f"https://doi.org/{doi}"
    aid = next((arxiv_id(v) for v in (get("number"), get("URL"), doi) if "arxiv" in v.lower() and arxiv_id(v)), "")
    if aid:
        rec.ids["arxiv"] = aid
        rec.links["arxiv"] = f"https://arxiv.org/abs/{aid}"
    url = link_for("url", get("URL"))
    if url and "arxiv.org/abs" not in url:
        rec.links["url"] = url
    note = get("note")
    if note:
        rec.extra["note"] = note
        rec.status = status_from(note) if re.search(r"\b(oral|spotlight|poster)\b", note, re.I) else ""
    for key in ("number", "publisher", "archive"):
        if get(key) and not (key == "number" and aid) and not (key == "publisher" and issuer):
            rec.extra[key] = get(key)
    for key, value in item.items():
        if key not in CONSUMED and value not in ("", [], None, {}):
            rec.extra[key] = value
    return rec


def person(name) -> Author | None:
    if not isinstance(name, dict):
        return Author(inline(str(name))) if isinstance(name, str) and name.strip() else None
    if name.get("literal"):
        return Author(inline(light_latex(str(name["literal"]))))
    parts = [name.get("given"), name.get("dropping-particle"), name.get("non-dropping-particle"),
             name.get("family")]
    full = inline(light_latex(" ".join(str(p) for p in parts if p)))
    suffix = inline(str(name.get("suffix") or ""))
    if suffix:
        full = f"{full}{',' if name.get('comma-suffix') else ''} {suffix}"
    return Author(full) if full else None


def issued(value) -> tuple[int | None, str]:
    """CSL dates: {"date-parts": [[2024, 7, 21]]}, {"raw": "..."}, {"literal": "..."} or a string."""
    if isinstance(value, str):
        return parse_date(value)
    if not isinstance(value, dict):
        return None, ""
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        numbers = []
        for part in parts[0][:3]:  # year, month, day: as many as are numbers int() takes
            part = str(part).strip()
            if not re.fullmatch(r"-?[0-9]{1,9}", part):
                break
            numbers.append(part)
        if numbers:
            return parse_date("-".join(f"{int(p):02d}" if i else p for i, p in enumerate(numbers)))
    return parse_date(value.get("raw") or value.get("literal") or "")
