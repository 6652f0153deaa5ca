"""arXiv: API responses (Atom `<feed>` of `<entry>`) and OAI-PMH `ListRecords` harvests
(metadata formats oai_dc, arXiv and arXivRaw; the resumptionToken is ignored).

The XML is parsed with expat as a stream, one record at a time (a harvest of any size reads
in flat memory), and refused if it declares entities: an export has no need of them, and
expanding them is how XML bombs work.
"""
from __future__ import annotations

import email.utils
import re
from pathlib import Path
from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from ..errors import Problem
from .records import Author, FileProblem, Record, Reader
from .text import arxiv_id, bare_doi, inline, light_latex, link_for, name_first_last, paragraphs, parse_date, \
    split_names

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV_ATOM = "{http://arxiv.org/schemas/atom}"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"
DC = "{http://purl.org/dc/elements/1.1/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
ARXIV_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
CHUNK = 64 * 1024


class _Refused(Exception):
    pass


def _elements(path: Path, wanted: set[str]):
    """(line, Element) for each element named in `wanted`, as the file is read; (None, Problem) at
    the end if the XML breaks off (the records before it are kept)."""
    parser = expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    found: list[tuple[int, Element]] = []
    state = {"builder": None, "depth": 0, "line": 0}

    def name(raw: str) -> str:
        return "{" + raw if "}" in raw else raw

    def start(tag, attrs):
        tag = name(tag)
        builder = state["builder"]
        if builder is None and tag in wanted:
            builder = state["builder"] = TreeBuilder()
            state["depth"], state["line"] = 0, parser.CurrentLineNumber
        if builder is not None:
            state["depth"] += 1
            builder.start(tag, {name(k): v for k, v in attrs.items()})

    def end(tag):
        builder = state["builder"]
        if builder is not None:
            builder.end(name(tag))
            state["depth"] -= 1
            if state["depth"] == 0:
                found.append((state["line"], builder.close()))
                state["builder"] = None

    def data(text):
        if state["builder"] is not None:
            state["builder"].data(text)

    def refuse(*_):
        raise _Refused("the XML declares entities; exports never need them and they are not expanded")

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    parser.EntityDeclHandler = refuse
    parser.buffer_text = True
    try:
        with path.open("rb") as file:
            while True:
                chunk = file.read(CHUNK)
                parser.Parse(chunk, not chunk)
                yield from found
                found.clear()
                if not chunk:
                    break
    except OSError as exc:
        yield None, FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
    except _Refused as exc:
        yield None, FileProblem(path, parser.CurrentLineNumber, str(exc))
    except expat.ExpatError as exc:
        yield from found
        if exc.code == expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS]:
            message = "the XML ends inside an element: is the file cut short?"
        else:
            message = f"not valid XML: {expat.ErrorString(exc.code)} (column {exc.offset + 1})"
        yield None, Problem(path, exc.lineno, message)


def _text(element: Element | None, path: str) -> str:
    found = element.find(path) if element is not None else None
    return "".join(found.itertext()) if found is not None else ""


def _all(element: Element, path: str) -> list[str]:
    return ["".join(e.itertext()) for e in element.findall(path)]


def _title(text: str) -> str:
    return inline(light_latex(text))


def _abstract(text: str) -> str:
    return paragraphs(light_latex(text, markdown=True))


def _arxiv_links(record: Record, aid: str) -> None:
    record.ids["arxiv"] = aid
    record.links["arxiv"] = f"https://arxiv.org/abs/{aid}"
    record.venue, record.venue_kind = "arXiv", "preprint"


def _mail_date(text: str) -> tuple[int | None, str]:
    """arXiv's version dates ("Mon, 2 Apr 2007 19:18:42 GMT") -> (year, 'YYYY-MM-DD'), or (None, '')."""
    try:
        day = email.utils.parsedate_to_datetime(text.strip()).date()
    except (TypeError, ValueError, IndexError):
        return None, ""
    return day.year, day.isoformat()


def _doi(record: Record, text: str) -> None:
    doi = bare_doi(text)
    if doi:
        record.ids["doi"] = doi
        record.links["doi"] = f"https://doi.org/{doi}"


# arXiv API (Atom) -----------------------------------------------------------------------------

def read_atom(path: Path, context) -> Reader:
    number = 0
    for line, entry in _elements(path, {ATOM + "entry"}):
        if isinstance(entry, Problem):
            yield entry
            continue
        number += 1
        yield _atom_entry(entry, path, line, number)


def _atom_entry(entry: Element, path: Path, line: int, number: int) -> Record | Problem:
    entry_id = inline(_text(entry, ATOM + "id"))
    if "/api/errors" in entry_id:
        return Problem(path, line, f"the arXiv API answered with an error: {inline(_text(entry, ATOM + 'summary'))}")
    record = Record(source=path, line=line, number=number, title=_title(_text(entry, ATOM + "title")),
                    abstract=_abstract(_text(entry, ATOM + "summary")))
    for author in entry.findall(ATOM + "author"):
        name = inline(light_latex(_text(author, ATOM + "name")))
        if name:
            record.authors.append(Author(name, affiliation=inline(_text(author, ARXIV_ATOM + "affiliation"))))
    record.year, record.date = parse_date(_text(entry, ATOM + "published"))
    aid = arxiv_id(entry_id) if "arxiv.org" in entry_id else ""
    if aid:
        _arxiv_links(record, aid)
    elif link_for("url", entry_id):
        record.links["url"] = link_for("url", entry_id)
    _doi(record, _text(entry, ARXIV_ATOM + "doi"))
    for link in entry.findall(ATOM + "link"):
        href = link.get("href", "")
        if (link.get("title") == "pdf" or link.get("type") == "application/pdf") and link_for("pdf", href):
            record.links["pdf"] = link_for("pdf", href)
    primary = entry.find(ARXIV_ATOM + "primary_category")
    categories = [c.get("term", "") for c in entry.findall(ATOM + "category") if c.get("term")]
    if primary is not None and primary.get("term"):
        record.extra["primary_category"] = primary.get("term")
    if categories:
        record.extra["categories"] = categories
    for tag, key in (("comment", "comment"), ("journal_ref", "journal_ref")):
        value = inline(_text(entry, ARXIV_ATOM + tag))
        if value:
            record.extra[key] = value
    updated = inline(_text(entry, ATOM + "updated"))
    if updated:
        record.extra["updated"] = updated
    return record


# OAI-PMH --------------------------------------------------------------------------------------

def read_oai(path: Path, context) -> Reader:
    number = 0
    for line, element in _elements(path, {OAI + "record", OAI + "error"}):
        if isinstance(element, Problem):
            yield element
            continue
        if element.tag == OAI + "error":
            code = element.get("code", "")
            if code != "noRecordsMatch":  # an empty harvest is not an error
                yield Problem(path, line, f"the OAI-PMH server answered with an error: {code} "
                                          f"{inline(''.join(element.itertext()))}".rstrip())
            continue
        number += 1
        yield _oai_record(element, path, line, number)


def _oai_record(element: Element, path: Path, line: int, number: int) -> Record | Problem:
    header = element.find(OAI + "header")
    identifier = inline(_text(header, OAI + "identifier"))
    metadata = element.find(OAI + "metadata")
    record = Record(source=path, line=line, number=number)
    if identifier:
        record.extra["oai_identifier"] = identifier
    if header is not None and header.get("status") == "deleted":
        aid = arxiv_id(identifier) if "arxiv" in identifier.lower() else ""
        if aid:
            record.ids["arxiv"] = aid
        record.skip_reason = f"deleted from the repository ({identifier})"
        return record
    body = next(iter(metadata), None) if metadata is not None else None
    if body is None:
        return Problem(path, line, f"OAI-PMH record {number} ({identifier or 'no identifier'}) has no metadata")
    if body.tag == OAI_DC + "dc":
        _dublin_core(record, body)
    elif body.tag == ARXIV + "arXiv":
        _arxiv_format(record, body, ARXIV)
    elif body.tag == ARXIV_RAW + "arXivRaw":
        _arxiv_format(record, body, ARXIV_RAW)
    else:
        return Problem(path, line, f"OAI-PMH record {number}: metadata format '{body.tag}' is not supported "
                                   f"(harvest with metadataPrefix oai_dc, arXiv or arXivRaw)")
    if not record.ids.get("arxiv") and "arxiv" in identifier.lower() and arxiv_id(identifier):
        _arxiv_links(record, arxiv_id(identifier))
    return record


def _dublin_core(record: Record, dc: Element) -> None:
    record.title = _title(_text(dc, DC + "title"))
    record.authors = [Author(name_first_last(light_latex(n))) for n in _all(dc, DC + "creator") if n.strip()]
    descriptions = [d for d in _all(dc, DC + "description") if d.strip()]
    comments = [inline(d) for d in descriptions if re.match(r"\s*Comment:", d)]
    abstracts = [d for d in descriptions if not re.match(r"\s*Comment:", d)]
    record.abstract = _abstract(abstracts[0]) if abstracts else ""
    if comments:
        record.extra["comment"] = comments[0].removeprefix("Comment:").strip()
    dates = [d for d in _all(dc, DC + "date") if d.strip()]
    if dates:
        record.year, record.date = parse_date(dates[0])  # the first version's date
    subjects = [inline(s) for s in _all(dc, DC + "subject") if s.strip()]
    if subjects:
        record.extra["subjects"] = subjects
    for identifier in _all(dc, DC + "identifier"):
        identifier = inline(identifier)
        if "arxiv.org/abs/" in identifier and arxiv_id(identifier):
            _arxiv_links(record, arxiv_id(identifier))
        elif identifier.lower().startswith("doi:") or "doi.org/" in identifier:
            _doi(record, identifier)
        elif link_for("url", identifier) and "url" not in record.links:
            record.links["url"] = link_for("url", identifier)


def _arxiv_format(record: Record, body: Element, ns: str) -> None:
    record.title = _title(_text(body, ns + "title"))
    record.abstract = _abstract(_text(body, ns + "abstract"))
    if ns == ARXIV:
        for author in body.findall(f"{ns}authors/{ns}author"):
            parts = [_text(author, ns + "forenames"), _text(author, ns + "keyname"), _text(author, ns + "suffix")]
            name = inline(light_latex(" ".join(parts)))
            if name:
                record.authors.append(Author(name, affiliation=inline(_text(author, ns + "affiliation"))))
        record.year, record.date = parse_date(_text(body, ns + "created"))
    else:  # arXivRaw: one string of names, dates per version
        record.authors = [Author(light_latex(n)) for n in split_names(_text(body, ns + "authors"))]
        first = body.find(f"{ns}version/{ns}date")
        if first is not None and first.text:
            record.year, record.date = _mail_date(first.text)
    aid = arxiv_id(_text(body, ns + "id"))
    if aid:
        _arxiv_links(record, aid)
    _doi(record, _text(body, ns + "doi"))
    categories = inline(_text(body, ns + "categories")).split()
    if categories:
        record.extra["categories"] = categories
    for tag, key in (("comments", "comment"), ("journal-ref", "journal_ref"), ("license", "license")):
        value = inline(_text(body, ns + tag))
        if value:
            record.extra[key] = value


# arXiv's metadata snapshot (Kaggle's JSON Lines) ---------------------------------------------

def is_snapshot(item: dict) -> bool:
    """A record of arXiv's metadata snapshot: `authors_parsed`, or `versions` with `update_date`."""
    return isinstance(item.get("authors_parsed"), list) or (
        isinstance(item.get("versions"), list) and "update_date" in item)


def snapshot_record(record: Record, item: dict) -> Record:
    """What the column names alone miss in a snapshot record (read as flat JSON first).

    `authors` is one string that also holds affiliations ("V. M. Biryukov (Serpukhov, IHEP)"),
    whose commas split it wrongly; `authors_parsed` ([last, first, suffix, affiliation...]) has
    the names. The first version's `created` is the submission date; `update_date`, the last
    change, only stands in when there is none.
    """
    parsed = item.get("authors_parsed")
    authors = [_parsed_author(parts) for parts in parsed] if isinstance(parsed, list) else []
    if authors and all(authors):  # else the `authors` string, as read, is all there is
        record.authors = authors
        record.extra.pop("authors_parsed", None)
    versions = item.get("versions")
    first = versions[0] if isinstance(versions, list) and versions and isinstance(versions[0], dict) else {}
    year, date = _mail_date(first["created"]) if isinstance(first.get("created"), str) else (None, "")
    if not year and isinstance(item.get("update_date"), str):
        year, date = parse_date(item["update_date"])
    if year and not record.year:
        record.year, record.date = year, date
    aid = arxiv_id(str(item.get("id") or ""))
    if aid:
        _arxiv_links(record, aid)
    if isinstance(item.get("abstract"), str):  # wrapped at a fixed width, as in the API: lines joined
        record.abstract = _abstract(item["abstract"])
    categories = record.extra.get("categories")
    if isinstance(categories, str) and categories.split():
        record.extra["categories"] = categories.split()
    return record


def _parsed_author(parts) -> Author | None:
    if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
        return None
    last, first, suffix = (parts + ["", ""])[:3]
    name = inline(light_latex(" ".join((first, last, suffix))))
    affiliation = "; ".join(inline(light_latex(a)) for a in parts[3:] if a.strip())
    return Author(name, affiliation=affiliation) if name else None
