"""BibTeX (.bib): PMLR proceedings files, al-folio and jekyll-scholar bibliographies, Zotero,
Better BibTeX, DBLP and Google Scholar exports.

bibtexparser 2 splits the file (a broken entry becomes one failed block, the others survive)
and splits names into their parts; this module resolves @string macros (also from earlier
files of the same command line) and `#` concatenation, and decodes LaTeX entry by entry, so
an entry the decoder chokes on is one Problem, not a lost file.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

import bibtexparser
from bibtexparser import middlewares
from bibtexparser.library import Library
from bibtexparser.model import (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry, Field,
                                MiddlewareErrorBlock, ParsingFailedBlock, String)

from ..errors import Problem
from .records import Author, FileProblem, Record, Reader
from .text import (arxiv_id, bare_doi, inline, latex_to_text, link_for, month_number, openreview_id,
                   paragraphs, parse_date, split_list, tex_url, undo_double_escape)

# bibtexparser logs every broken block; each becomes a Problem here instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

MONTH_MACROS = {abbr: name for abbr, name in zip(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    ("January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"))}

NAME_FIELDS = ("author", "editor")
# Where a paper's links live, in BibTeX's own fields and in al-folio's and PMLR's.
LINK_FIELDS = {
    "pdf": "pdf", "code": "code", "software": "code", "slides": "slides", "poster": "poster",
    "video": "video", "website": "project", "project": "project", "html": "url", "supp": "supplementary",
    "supplementary": "supplementary", "data": "data", "dataset": "data", "openreview": "openreview",
}
CONSUMED = {"title", "subtitle", "author", "abstract", "year", "month", "date", "booktitle", "journal",
            "journaltitle", "keywords", "doi", "url", "eprint", "archiveprefix", "eprinttype", "arxiv",
            "award", "award_name", "crossref", *LINK_FIELDS}
# What a paper takes from its crossref'd (or the file's one) @proceedings entry.
INHERITED = {"booktitle", "year", "month", "date", "published", "publisher", "address", "volume",
             "series", "organization"}
# DBLP numbers people who share a name ("Jun Zhu 0001"); the number is no part of the name.
DBLP_HOMONYM = re.compile(r"\s+\d{4}$")
# Zotero's `file` is a path on the exporting computer: meaningless on a site, and private.
PRIVATE = {"file"}
PREPRINT = re.compile(r"\barxiv\b|\bcorr\b|biorxiv|medrxiv|chemrxiv|preprint|ssrn", re.IGNORECASE)
CONFERENCE_TYPES = {"inproceedings", "conference"}
# Works issued by a university, an institution or a publisher, which is then their venue: the entry
# type, the venue's kind and the fields that may name it, in order.
ISSUED_TYPES = {"phdthesis": ("thesis", ("school", "institution")), "mastersthesis": ("thesis", ("school", "institution")),
                "thesis": ("thesis", ("school", "institution")), "techreport": ("report", ("institution", "publisher")),
                "report": ("report", ("institution", "publisher")), "book": ("book", ("publisher",)),
                # a chapter with no booktitle: its publisher places it, as it does a book
                "incollection": ("book", ("publisher",)), "inbook": ("book", ("publisher",))}
ARXIV_DOI = re.compile(r"\s*(?:https?://(?:dx\.)?doi\.org/)?10\.48550/", re.IGNORECASE)  # arXiv's own DOIs
PREPRINT_TYPES = {"misc", "unpublished", "online", "techreport", "report", "preprint", "electronic"}
# A field that holds one URL and nothing else (`\url{...}` or braced, maybe)
LINK_VALUE = re.compile(r"\s*(?:\\url\s*)?\{?\s*(?:https?://|www\.)\S*\s*$", re.IGNORECASE)


class _ResolveMacros(middlewares.BlockMiddleware):
    """@string macros, month macros and `#` concatenation; field names to lower case.

    `known` maps lower-case macro names to values and keeps this file's definitions, so a
    later file of the same command line can use them.
    """

    def __init__(self, known: dict[str, str]):
        super().__init__(allow_inplace_modification=True, allow_parallel_execution=False)
        self.known = known

    @classmethod
    def metadata_key(cls) -> str:
        return "papersite_resolve_macros"

    def transform(self, library: Library) -> Library:
        for string in library.strings:  # defined before the entries that use them, in file order
            self.known[string.key.lower()] = self._value(string.value)
        return super().transform(library)

    def transform_string(self, string: String, library: Library) -> String:
        return string

    def transform_entry(self, entry: Entry, library: Library):
        fields, seen = [], {}
        for field in entry.fields:
            key = field.key.lower()
            if key in seen:
                return MiddlewareErrorBlock(entry, ValueError(
                    f"field '{key}' given twice (as '{seen[key]}' and '{field.key}')"))
            seen[key] = field.key
            fields.append(Field(key, self._value(field.value), field.start_line))
        entry.fields = fields
        return entry

    def _value(self, raw) -> str:
        if not isinstance(raw, str):
            return str(raw)
        return "".join(self._piece(piece.strip()) for piece in _concatenated(raw))

    def _piece(self, piece: str) -> str:
        if len(piece) >= 2 and (piece[0], piece[-1]) in (("{", "}"), ('"', '"')):
            return piece[1:-1]
        name = piece.lower()
        if name in self.known:
            return self.known[name]
        return MONTH_MACROS.get(name, piece)  # an undefined macro stays as written, as BibTeX prints it


def _concatenated(raw: str) -> list[str]:
    """`{Proc. } # icml # "2024"` -> its parts: `#` outside braces and quotes joins."""
    if "#" not in raw:
        return [raw]
    parts, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(raw):
        if char == "\\":
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(raw[start:i])
            start = i + 1
    parts.append(raw[start:])
    return parts if len(parts) > 1 else [raw]


def read(path: Path, text: str, context) -> Reader:
    stack = [_ResolveMacros(context.macros), middlewares.SeparateCoAuthors(name_fields=NAME_FIELDS),
             middlewares.SplitNameParts(name_fields=NAME_FIELDS)]
    library = bibtexparser.parse_string(text, parse_stack=stack)
    entries = {block.key.lower(): block for block in library.blocks if isinstance(block, Entry)}
    volumes = [e for e in entries.values() if e.entry_type.lower() == "proceedings"]
    # A PMLR proceedings file describes its volume once; its papers carry no booktitle or year.
    volume = _fields(volumes[0]) if len(volumes) == 1 else {}
    number = 0
    for block in library.blocks:
        if isinstance(block, Entry):
            number += 1
            line = _line(block)
            try:
                fields = _fields(block)
                crossref = str(fields.get("crossref", "")).strip().lower()
                parent = _fields(entries[crossref]) if crossref in entries else volume
                yield _record(block, fields, parent, path, line, number)
            except Exception as exc:  # whatever the decoder chokes on costs this entry only
                yield Problem(path, line, f"entry '{block.key}' cannot be read: {_reason(exc)}")
        elif isinstance(block, ParsingFailedBlock):
            number += 1
            yield _failure(path, block)
    if not number and not library.strings and text.strip():  # a .bib of other text: say so, not nothing
        yield FileProblem(path, None, "no BibTeX entries found (each starts with a line such as '@article{key,')")


def _line(block) -> int | None:
    return block.start_line + 1 if block.start_line is not None else None


def _fields(entry: Entry) -> dict:
    # Each field on its own: an exporter may have escaped some fields once more than the others.
    return {field.key: undo_double_escape(field.value) if isinstance(field.value, str) else field.value
            for field in entry.fields}


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "braces nested too deeply"
    return inline(str(exc)) or type(exc).__name__


def _failure(path: Path, block: ParsingFailedBlock) -> Problem:
    line = _line(block)
    if isinstance(block, DuplicateBlockKeyBlock):
        first = _line(block.previous_block)
        kind = "@string" if isinstance(block.previous_block, String) else "entry"
        return Problem(path, line, f"duplicate key '{block.key}': an {kind} at line {first} has it too; "
                                   f"this one is skipped (give it another key)")
    if isinstance(block, DuplicateFieldKeyBlock):
        keys = ", ".join(sorted(block.duplicate_keys))
        return Problem(path, line, f"entry '{block.ignore_error_block.key}': field '{keys}' given twice")
    if isinstance(block, MiddlewareErrorBlock):
        key = getattr(block.ignore_error_block, "key", "?")
        hint = "; separate names with ' and '" if "Too many commas" in str(block.error) else ""
        return Problem(path, line, f"entry '{key}' cannot be read: {_reason(block.error)}{hint}")
    reason = inline(getattr(block.error, "abort_reason", "") or str(block.error)) or type(block.error).__name__
    return Problem(path, line, f"not valid BibTeX ({reason.rstrip('.')}): is a brace or quote missing?")


def _record(entry: Entry, fields: dict, parent: dict, path: Path, line: int | None, number: int) -> Record:
    def raw(key: str) -> str:
        value = fields.get(key, parent.get(key, "") if key in INHERITED else "")
        return value if isinstance(value, str) else ""

    def plain(key: str) -> str:
        return inline(latex_to_text(raw(key)))

    kind = entry.entry_type.lower()
    issuer = ""  # the field that named the venue of a thesis, report or book
    record = Record(source=path, line=line, number=number, title=_titled(plain("title"), plain("subtitle")),
                    abstract=paragraphs(latex_to_text(raw("abstract"), markdown=True)),
                    authors=_names(fields.get("author", [])), et_al=_and_others(fields.get("author", [])))
    record.ids["key"] = entry.key
    if kind == "proceedings":
        record.skip_reason = "a @proceedings entry describes a volume, not a paper"

    journal = plain("journal") or plain("journaltitle")
    booktitle = plain("booktitle") or inline(latex_to_text(parent.get("title", "")))
    signals = " ".join((journal, raw("eprinttype"), raw("archiveprefix"), raw("howpublished"),
                        raw("publisher") if kind in PREPRINT_TYPES else ""))
    if kind == "article":
        record.venue = journal
        record.venue_kind = "journal"
    elif kind in ("incollection", "inbook") and booktitle:  # a chapter: the book is its venue
        record.venue = booktitle
        record.venue_kind = "collection"
    elif kind in CONFERENCE_TYPES:
        record.venue = booktitle
        record.venue_kind = "workshop" if re.search(r"\bworkshops?\b", booktitle, re.I) else "conference"
    else:
        record.venue = booktitle or journal
    if (kind == "article" or kind in PREPRINT_TYPES) and (PREPRINT.search(signals) or (
            kind in PREPRINT_TYPES and (raw("eprint") or "arxiv.org" in raw("url") or ARXIV_DOI.match(raw("doi"))))):
        record.venue_kind = "preprint"
        if not record.venue or PREPRINT.search(journal):  # "arXiv preprint arXiv:2401.01234" names no venue
            record.venue = _server(signals)
    elif kind in ISSUED_TYPES and not record.venue:
        record.venue_kind, names = ISSUED_TYPES[kind]
        issuer = next((name for name in names if plain(name)), "")
        record.venue = plain(issuer) if issuer else ""
        if kind == "mastersthesis" and not raw("type"):
            record.extra["type"] = "Master's thesis"  # exported again as @mastersthesis

    record.venue_abbr = plain("abbr")  # al-folio's badge: ICLR; also kept in extra, as the export has it
    _dates(record, raw)
    record.keywords = split_list(plain("keywords"))
    record.status = plain("award_name") or plain("award")
    _links(record, lambda key: tex_url(raw(key)), kind)

    for key, value in fields.items():
        if key in CONSUMED or key in PRIVATE or key in record.extra or key == issuer:
            continue
        if isinstance(value, list):
            record.extra[key] = [name.name for name in _names(value)]
        elif LINK_VALUE.match(value):  # DBLP's biburl: a URL, not text to typeset
            record.extra[key] = tex_url(value).strip()
        elif value.strip():
            record.extra[key] = inline(latex_to_text(value))
    for key in ("journal", "booktitle"):
        if fields.get(key) and record.venue != plain(key) and key not in record.extra:
            record.extra[key] = plain(key)
    return record


# biblatex prints "Title. Subtitle"; catalogs and citation styles mostly write "Title: Subtitle".
# A title that ends in its own punctuation ("Why?") keeps it and takes no colon.
_TITLE_END = re.compile(r"[.:;!?\u2026\u2013\u2014-]$")


def _titled(title: str, subtitle: str) -> str:
    """biblatex's `subtitle` joined to the title it completes."""
    if not subtitle:
        return title
    if not title:
        return subtitle
    return f"{title} {subtitle}" if _TITLE_END.search(title) else f"{title}: {subtitle}"


def _server(text: str) -> str:
    """The preprint server a text names: CoRR is arXiv's listing in DBLP."""
    for name in ("bioRxiv", "medRxiv", "ChemRxiv", "SSRN"):
        if name.lower() in text.lower():
            return name
    return "arXiv"


def _names(value) -> list[Author]:
    """The names of a name list, without BibTeX's closing "others" (see _and_others)."""
    names = [_name(parts) for parts in value if isinstance(parts, middlewares.NameParts)] if isinstance(value, list) else []
    return [Author(name) for name in names if name and name.lower() != "others"]


def _and_others(value) -> bool:
    """The list ends in "and others": it names some of the authors (Google Scholar's exports cut
    long lists so)."""
    return isinstance(value, list) and any(isinstance(parts, middlewares.NameParts) and _name(parts).lower() == "others"
                                           for parts in value)


def _name(parts) -> str:
    words = [inline(latex_to_text(word)) for word in (*parts.first, *parts.von, *parts.last)]
    jr = [inline(latex_to_text(word)) for word in parts.jr]
    return DBLP_HOMONYM.sub("", inline(" ".join(words + jr)))


def _dates(record: Record, raw) -> None:
    year, date = parse_date(raw("date"))
    if not year:
        found = re.search(r"\d{4}", raw("year"))
        year = int(found[0]) if found else None
        date = f"{year:04d}" if year else ""
        words = latex_to_text(raw("month")).replace("~", " ").split()  # "jul # ~15" reads "July 15"
        month = month_number(words[0]) if words else None
        if year and month:
            day = raw("day").strip()
            date = f"{year:04d}-{month:02d}" + (f"-{int(day):02d}" if re.fullmatch(r"0?[1-9]|[12][0-9]|3[01]", day)
                                                 else "")
    published = parse_date(raw("published"))  # PMLR volumes give the day the proceedings came out
    if published[0] and (not year or (published[0] == year and len(published[1]) > len(date))):
        year, date = published
    record.year, record.date = year, date


def _links(record: Record, raw, kind: str) -> None:
    """`raw`: a field's value, as a URL (TeX's escapes decoded, tex_url)."""
    doi = bare_doi(raw("doi"))
    if doi:
        record.ids["doi"] = doi
        record.links["doi"] = f"https://doi.org/{doi}"
    eprint_is_arxiv = bool(re.search(r"arxiv", raw("archiveprefix") + raw("eprinttype"), re.I)) or (
        not raw("archiveprefix") and not raw("eprinttype"))
    candidates = [raw("arxiv"), raw("eprint") if eprint_is_arxiv else "", raw("url") if "arxiv.org" in raw("url") else ""]
    if doi.lower().startswith("10.48550/arxiv."):
        candidates.append(doi)
    if PREPRINT.search(raw("journal")):
        candidates += [raw("journal"), raw("volume")]
    aid = next((arxiv_id(c) for c in candidates if c and arxiv_id(c)), "")
    if aid:
        record.ids["arxiv"] = aid
        record.links["arxiv"] = f"https://arxiv.org/abs/{aid}"
    url = raw("url").strip()
    if url and "arxiv.org/abs" not in url:
        oid = openreview_id(url) if "openreview.net" in url else ""
        if oid:
            record.ids["openreview"] = oid
            record.links["openreview"] = f"https://openreview.net/forum?id={oid}"
        elif link_for("url", url):
            record.links["url"] = link_for("url", url)
        else:  # `url = {paper.pdf}`, `url = {ftp://...}`: no web link, but not lost either
            record.extra["url"] = url
    howpublished = re.search(r"https?://[^\s{}]+", raw("howpublished"))  # @misc{..., howpublished = {\url{...}}}
    if howpublished and "url" not in record.links and link_for("url", howpublished[0]):
        record.links["url"] = link_for("url", howpublished[0])
    for field, link_kind in LINK_FIELDS.items():
        value = raw(field).strip()
        if not value or link_kind in record.links:
            continue
        link = link_for(link_kind, value)
        if link:
            record.links[link_kind] = link
            if link_kind == "openreview" and openreview_id(value):
                record.ids["openreview"] = openreview_id(value)
        else:  # al-folio's `pdf = {paper.pdf}` names a file of the site it came from
            record.extra[field] = value
