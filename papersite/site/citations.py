"""How a paper is cited: BibTeX, RIS and CSL-JSON, the venues' .bib files, Google Scholar tags
and JSON-LD.

The only citation files written are the venues' .bib files. A paper page carries its
RIS and CSL-JSON (citation_data), and a listing where its entries are among those files
(bib_parts, bib_keys): the browser makes each download from them (static/site.js), with
the bytes that ris, csl_json and bibtex_file give, which stay as the reference.
"""
from __future__ import annotations

import functools
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import rispy
from markupsafe import Markup

from .. import urls
from ..catalog.bibtex import arxiv_id, bibtex_entry, bibtex_file, doi, printed, split_name
from ..catalog import Catalog
from ..model import ISSUED_KINDS, ISSUER_KINDS, Paper, Topic, Venue
from ..parallel import parallel_map

RIS_TYPES = {"conference": "CPAPER", "workshop": "CPAPER", "journal": "JOUR", "preprint": "UNPB",
             "thesis": "THES", "report": "RPRT", "book": "BOOK", "collection": "CHAP"}
CSL_TYPES = {"conference": "paper-conference", "workshop": "paper-conference", "journal": "article-journal",
             "preprint": "article",  # CSL 1.0.2: "article" is a preprint or working paper
             "thesis": "thesis", "report": "report", "book": "book", "collection": "chapter"}
# Google Scholar's tag for the venue, by kind (its inclusion guidelines); a conference's otherwise.
SCHOLAR_VENUE_TAGS = {"journal": "citation_journal_title", "preprint": "citation_publisher",
                      "thesis": "citation_dissertation_institution",
                      "report": "citation_technical_report_institution", "book": "citation_publisher",
                      "collection": "citation_inbook_title"}
# schema.org; else ScholarlyArticle
SCHEMA_TYPES = {"thesis": "Thesis", "report": "Report", "book": "Book", "collection": "Chapter"}
_IDENTIFYING_LINKS = {"doi", "arxiv", "openreview"}  # links that identify the paper itself


class _RisWriter(rispy.RisWriter):
    """rispy's writer without the '1.' counter line it puts before each reference."""

    def set_header(self, count: int) -> str:
        return ""


_RIS = _RisWriter()


def _one_line(text: str) -> str:
    """RIS is one tag a line: a newline in a value would start a tag of its own."""
    return text if _spaced_once(text) else " ".join(text.split())


def _spaced_once(text: str) -> bool:
    """Whether " ".join(text.split()) is `text` itself: no space at either end or next to another,
    and no other whitespace (every whitespace character but the space is unprintable). A scan in C,
    about half the time of the split and join of an abstract."""
    return text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " "


def _url(paper: Paper, page_url: str) -> str:
    return dict(paper.links).get("url") or page_url


def _date_parts(paper: Paper) -> list[int]:
    return [int(part) for part in paper.date.split("-")] if paper.date else [paper.year]


def ris(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic], page_url: str) -> bytes:
    """One RIS reference (CRLF-free, UTF-8), as Zotero, EndNote and Mendeley read it. Written by
    rispy: the reference that _ris_text's lines are checked against (tests/test_citations.py)."""
    return _RIS.formats([_ris_reference(paper, venue, key, abstract, topics, page_url)]).encode("utf-8")


# The RIS tag of each field of _ris_reference, as rispy names them (rispy.TAG_KEY_MAPPING)
RIS_TAGS = {"title": "TI", "authors": "AU", "year": "PY", "date": "DA", "publisher": "PB", "secondary_title": "T2",
            "volume": "VL", "number": "IS", "start_page": "SP", "end_page": "EP", "abstract": "AB",
            "keywords": "KW", "doi": "DO", "urls": "UR", "file_attachments1": "L1", "id": "ID"}


def _ris_text(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic], page_url: str) -> str:
    """ris()'s text, written here as rispy writes it: every paper page makes one, and rispy's
    generic writer took a third of the time of the page's citation data. A list (AU, KW, UR,
    rispy's list tags) is a line per value."""
    reference = _ris_reference(paper, venue, key, abstract, topics, page_url)
    lines = [f"TY  - {reference.pop('type_of_reference')}"]
    for name, value in reference.items():
        tag = RIS_TAGS[name]
        if isinstance(value, list):
            lines += [f"{tag}  - {each}" for each in value]
        else:
            lines.append(f"{tag}  - {value}")
    lines.append("ER  - \n")
    return "\n".join(lines)


def _ris_reference(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic],
                   page_url: str) -> dict[str, Any]:
    """The paper as a rispy reference: field name -> value, or list of values, each one line."""
    authors = [_ris_name(name) for name in paper.authors]
    reference: dict[str, Any] = {"type_of_reference": RIS_TYPES[venue.kind], "title": paper.title}
    if authors:
        reference["authors"] = authors
    reference["year"] = str(paper.year)
    if paper.date:
        ymd = paper.date.split("-") + ["", ""]
        reference["date"] = f"{ymd[0]}/{ymd[1]}/{ymd[2]}/"
    where = printed(paper, venue)
    if venue.kind in ISSUED_KINDS:  # the university, institution or publisher
        reference["publisher"] = venue.full_name or venue.name
    else:
        reference["secondary_title"] = venue.full_name or venue.name
    for name, value in (("volume", where.volume), ("number", where.issue if venue.kind != "report" else ""),
                        ("start_page", where.first_page),
                        ("end_page", where.last_page), ("publisher", where.publisher)):
        if value:
            reference[name] = value  # rispy's names for VL, IS, SP, EP and PB
    if abstract:
        reference["abstract"] = abstract
    if topics:
        reference["keywords"] = [topic.name for topic in topics]
    bare_doi = doi(paper)
    if bare_doi:
        reference["doi"] = bare_doi
    reference["urls"] = [_url(paper, page_url)]
    pdf = dict(paper.links).get("pdf")
    if pdf:
        reference["file_attachments1"] = pdf  # one link: rispy writes a list's repr here
    reference["id"] = key
    return {name: [_one_line(v) for v in value] if isinstance(value, list) else _one_line(value)
            for name, value in reference.items()}


@functools.lru_cache(maxsize=65_536)  # as split_name's: a name recurs on every paper of its author
def _ris_name(name: str) -> str:
    """An author's name as RIS writes it: "von Last, First, Jr", or an organisation's as it is."""
    parts = split_name(name)
    return parts.literal or ", ".join(filter(None, (
        " ".join(filter(None, (parts.von, parts.last))), parts.first, parts.jr)))


def csl_name(name: str) -> dict[str, str]:
    parts = split_name(name)
    if parts.literal:
        return {"literal": parts.literal}
    found = {"family": parts.last, "given": parts.first, "non-dropping-particle": parts.von, "suffix": parts.jr}
    return {field_name: value for field_name, value in found.items() if value}


def csl_item(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic],
             page_url: str) -> dict[str, Any]:
    """The paper as one CSL-JSON item (Zotero, Pandoc, citeproc)."""
    item: dict[str, Any] = {
        "id": key,
        "citation-key": key,
        "type": CSL_TYPES[venue.kind],
        "title": paper.title,
        "issued": {"date-parts": [_date_parts(paper)]},
        "URL": _url(paper, page_url),
    }
    if paper.authors:
        item["author"] = [csl_name(name) for name in paper.authors]
    where = printed(paper, venue)
    if venue.kind in ISSUER_KINDS:
        item["publisher"] = venue.full_name or venue.name
        if venue.kind == "preprint" and arxiv_id(paper):
            item["number"] = "arXiv:" + arxiv_id(paper)
        if venue.kind == "report" and where.issue:
            item["number"] = where.issue  # CSL's number of a report is the report's
    else:
        item["container-title"] = venue.full_name or venue.name
    for name, value in (("volume", where.volume), ("issue", where.issue if venue.kind != "report" else ""),
                        ("page", where.pages),
                        ("publisher", where.publisher)):
        if value:
            item[name] = value
    if doi(paper):
        item["DOI"] = doi(paper)
    if abstract:
        item["abstract"] = abstract
    names = [topic.name for topic in topics]
    if names:
        item["keyword"] = ", ".join(names)
    return item


def csl_json(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic],
             page_url: str) -> bytes:
    """A CSL-JSON array of one item: the bytes of the paper page's CSL-JSON download (cite.json)."""
    return (json.dumps([csl_item(paper, venue, key, abstract, topics, page_url)], ensure_ascii=False,
                       sort_keys=True) + "\n").encode("utf-8")


def citation_data(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic],
                  page_url: str, abstract_html: str | None = None, entry: str = "") -> dict[str, Any]:
    """What a paper page carries for its RIS and CSL-JSON downloads, made in the browser
    (static/site.js: citeText); the downloads are byte for byte csl_json's and ris'.

    Without `abstract_html`, the whole CSL-JSON item and the RIS as ris_parts (the form of
    themes older than #abstract-text). With it (what the page's #abstract-text holds) and the
    BibTeX `entry` the page shows (#bibtex), "page": true and only what site.js does not read
    from the page as page_item does: the item's fields that differ from page_item's (null for
    one the item lacks), and the RIS where ris_from_csl, which site.js mirrors, does not write it."""
    topics = tuple(topics)
    item = csl_item(paper, venue, key, abstract, topics, page_url)
    text = _ris_text(paper, venue, key, abstract, topics, page_url)
    if abstract_html is None:
        return {"csl": item, "ris": ris_parts(text, item)}
    read = page_item(entry, abstract_html if paper.abstract else None)  # the page shows #abstract-text
    csl = {name: value for name, value in item.items() if read.get(name) != value and name != "citation-key"}
    csl.update((name, None) for name in read if name not in item)
    data: dict[str, Any] = {"csl": csl, "page": True}
    if ris_from_csl(item) != text:
        data["ris"] = ris_parts(text, item)
    return data


# What a browser reads as whitespace in String.prototype.trim and /\s/ (not quite str.split's)
_JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
_SPACES_APART = re.compile("[\x1c-\x1f\x85\ufeff]")  # whitespace to one of str.split and /\s/ only
_TAG = re.compile(r"<[^>]*>")
# what a browser's parser or JavaScript's lines read otherwise than Python's: then not read at all
_ODD_LINES = re.compile("[\0\r\u2028\u2029]")
# where a browser's parser may not keep an HTML fragment's text as written (a newline after <pre>...)
_REPARSED = re.compile(r"<(pre|textarea|table|svg|template|script|style)\b", re.I)


def page_text(fragment: str) -> str | None:
    """What site.js reads as the text of an element holding `fragment` (its textContent, each run
    of whitespace one space, trimmed), for papersite's own HTML (the allow-list writer's: every
    "<" and ">" outside a tag escaped); None where a browser may read it otherwise."""
    if _REPARSED.search(fragment) or "\0" in fragment:  # a parser drops NUL
        return None
    text = html.unescape(_TAG.sub("", fragment))
    if _spaced_once(text):  # most abstracts: printable, so none of _SPACES_APART's, and one line already
        return text
    if not _SPACES_APART.search(text):
        return _one_line(text)  # the same, and faster
    return _JS_SPACE.sub(" ", text).strip(" ")


# CSL types by BibTeX entry type (catalog/bibtex.py ENTRY_FORMS; CSL_TYPES)
CSL_OF_ENTRY = {"inproceedings": "paper-conference", "article": "article-journal", "misc": "article",
                "phdthesis": "thesis", "mastersthesis": "thesis", "techreport": "report", "book": "book",
                "incollection": "chapter"}
_ENTRY_HEAD = re.compile(r"@([A-Za-z0-9_]+)\{([^,\n]*),\n")
_ENTRY_FIELD = re.compile(r"^  ([A-Za-z0-9_]+) = \{(.*)\},?$", re.M)
_CSL_OF_FIELD = {"booktitle": "container-title", "journal": "container-title", "url": "URL", "doi": "DOI"}


# every field page_item may read from a BibTeX entry
ENTRY_READS = ("id", "type", "title", "author", "issued", "container-title", "URL", "DOI")


def page_item(entry: str, abstract_html: str | None) -> dict[str, Any]:
    """The CSL-JSON fields site.js (pageItem) reads from a paper page: its twin. The abstract is
    the text of #abstract-text (`abstract_html`; None: the page has none), the rest the BibTeX entry
    of #bibtex (`entry`) as written, field by field, the way its simple values read: a paper's
    fields that read otherwise (escapes, particles, an organisation) differ from the item's and
    the page carries them. None for a field site.js may read otherwise than this function can say."""
    read: dict[str, Any] = {}
    if abstract_html is not None:
        read["abstract"] = page_text(abstract_html)
    if _ODD_LINES.search(entry):  # lines a browser reads otherwise (a CR is a line break there)
        return read | dict.fromkeys(ENTRY_READS)
    head = _ENTRY_HEAD.match(entry)
    if head is None:
        return read
    read["id"] = head.group(2)
    if head.group(1) in CSL_OF_ENTRY:
        read["type"] = CSL_OF_ENTRY[head.group(1)]
    for name, value in _ENTRY_FIELD.findall(entry):
        if name == "title":
            read["title"] = value[1:-1] if value.startswith("{") and value.endswith("}") else value
        elif name == "author":
            read["author"] = [dict(zip(("family", "suffix", "given") if len(parts) == 3 else ("family", "given"), parts))
                              for parts in (person.split(", ") for person in value.split(" and "))]
        elif name == "year":
            if value.isascii() and value.isdigit():
                read["issued"] = {"date-parts": [[int(value)]]}
        elif name in _CSL_OF_FIELD:
            read[_CSL_OF_FIELD[name]] = value
    return read


RIS_OF_CSL_TYPE = {CSL_TYPES[kind]: ris_type for kind, ris_type in RIS_TYPES.items()}


def ris_from_csl(item: dict[str, Any]) -> str:
    """The RIS that site.js (risFromCsl) writes from a CSL item alone: its twin, for the common
    shape of a reference (no date, pages, publisher or PDF). Where it differs from ris(), the
    page carries the RIS itself (citation_data)."""
    lines = [("TY", RIS_OF_CSL_TYPE.get(item["type"], "")), ("TI", item["title"])]
    lines += [("AU", name.get("literal") or ", ".join(filter(None, (
        " ".join(filter(None, (name.get("non-dropping-particle"), name.get("family")))),
        name.get("given"), name.get("suffix"))))) for name in item.get("author", ())]
    lines.append(("PY", str(item["issued"]["date-parts"][0][0])))
    for tag, name in (("T2", "container-title"), ("AB", "abstract")):
        if name in item:
            lines.append((tag, item[name]))
    if "keyword" in item:
        lines += [("KW", word) for word in item["keyword"].split(", ")]
    if "DOI" in item:
        lines.append(("DO", item["DOI"]))
    lines += [("UR", item["URL"]), ("ID", item["id"])]
    return "".join(f"{tag}  - {value}\n" for tag, value in lines) + "ER  - \n"


# The CSL-JSON fields whose values a RIS reference may hold whole, as a line's value
RIS_FROM_CSL = ("abstract", "title", "container-title", "publisher", "URL", "DOI", "id")


def ris_parts(text: str, item: dict[str, Any]) -> list[str]:
    """RIS text as text and CSL field names in turn: where a line's value is the value of one
    of the item's RIS_FROM_CSL fields, the field's name stands for it. ["TY  - JOUR\\nTI  - ",
    "title", "\\nAU  - Lovelace, Ada\\n..."]: the text is the parts joined, each name replaced."""
    names = {item[name]: name for name in RIS_FROM_CSL if isinstance(item.get(name), str) and item[name]}
    lines = text.split("\n")
    parts = [""]
    for number, line in enumerate(lines):
        end = "\n" if number < len(lines) - 1 else ""
        tag, separator, value = line.partition("  - ")
        if separator and value in names:
            parts[-1] += tag + separator
            parts += [names[value], end]
        else:
            parts[-1] += line + end
    return parts


def bibtex_entries(catalog: Catalog, cache: dict[str, tuple[tuple, bytes]] | None = None) -> dict[str, bytes]:
    """Each paper's BibTeX entry (UTF-8, as its page shows it), by paper id. `cache` (paper id ->
    (inputs, entry), left holding this catalog's) keeps an entry while its paper, venue and key
    are the same objects and values: a rebuild remakes only what changed."""
    cache = {} if cache is None else cache
    link = urls.Urls(catalog.config.base_url)
    venues = {venue.slug: venue for venue in catalog.config.venues}
    keys, fresh, todo = catalog.citation_keys, {}, []
    for paper in catalog.papers:
        inputs = (paper, venues[paper.venue], keys[paper.id], catalog.config.base_url)
        kept = cache.get(paper.id)
        if kept is not None and kept[0] == inputs:
            fresh[paper.id] = (inputs, kept[1])  # this build's objects: compared by identity next time
        else:
            todo.append(inputs)
    jobs = [(paper, venue, link.absolute(paper), key) for paper, venue, key, _ in todo]
    for inputs, entry in zip(todo, parallel_map(_entry, jobs)):
        fresh[inputs[0].id] = (inputs, entry)
    cache.clear()
    cache.update(fresh)
    return {paper_id: kept[1] for paper_id, kept in fresh.items()}


def _entry(job: tuple) -> bytes:
    return bibtex_entry(*job).encode("utf-8")


@dataclass
class CitationCache:
    """Each paper's BibTeX entry from the last build, and each venue's .bib file."""

    papers: dict[str, tuple[tuple, bytes]] = field(default_factory=dict)  # see bibtex_entries
    # .bib path -> (the entries listed, the file: bytes or a receipt)
    listings: dict[str, tuple[tuple, Any]] = field(default_factory=dict)


def venue_bibs(catalog: Catalog, cache: CitationCache | None = None,
               store: Callable[[str, bytes], Any] | None = None,
               reuse: Callable[[dict[str, Any]], dict[str, Any]] = lambda outputs: outputs) -> dict[str, Any]:
    """Output path -> bytes (or, with `store`, a receipt) of each venue's .bib, its papers in
    the venue's order: the only .bib files written. They split the catalog between them, and
    every other .bib download (the catalog's, a topic's, an author's: see bib_parts) is made
    in the browser from them. A venue's file is kept while its entries are the same.
    `store` and `reuse` as for render.render_pages."""
    cache = cache if cache is not None else CitationCache()
    entries = bibtex_entries(catalog, cache.papers)
    files, listings, lists, same = {}, {}, {}, {}
    for venue in catalog.venues:
        path = urls.bibtex_of(venue)
        lists[path] = listed = tuple(entries[paper.id] for paper in catalog.venue_papers[venue.slug])
        last = cache.listings.get(path)
        if last is not None and last[0] == listed:
            same[path] = last[1]
    given = reuse(same)
    for path, listed in lists.items():
        output = given.get(path)
        if output is None:
            output = bibtex_file(listed)
            if store is not None:
                output = store(path, output)
        files[path] = output
        listings[path] = (listed, output)
    cache.listings = listings  # venues that are gone are forgotten
    return files


def venue_positions(catalog: Catalog) -> dict[str, tuple[str, int]]:
    """Paper id -> (its venue's slug, its place in the venue's .bib, from 0)."""
    return {paper.id: (slug, index) for slug, papers in catalog.venue_papers.items()
            for index, paper in enumerate(papers)}


def bib_parts(papers: Iterable[Paper], positions: dict[str, tuple[str, int]]) -> str:
    """Where the entries of a .bib of these papers are, in order, for the browser to gather
    them (static/site.js): "icml-2024:0-3,7 colt-2024:2", a venue slug and the places in its
    .bib (runs as ranges); a slug alone for the whole of a venue's .bib."""
    groups: list[tuple[str, list[int]]] = []
    for paper in papers:
        slug, index = positions[paper.id]
        if groups and groups[-1][0] == slug:
            groups[-1][1].append(index)
        else:
            groups.append((slug, [index]))
    return " ".join(f"{slug}:{_ranges(indexes)}" for slug, indexes in groups)


def _ranges(indexes: list[int]) -> str:
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(str(first) if first == last else f"{first}-{last}" for first, last in runs)


def bib_keys(papers: Iterable[Paper], keys: dict[str, str]) -> tuple[str, str]:
    """An author's .bib for the browser to gather: the slugs of the venues whose .bib files hold
    its entries, and their citation keys in order (space-separated: a key holds no space).
    Keys, not places as bib_parts gives: an author's page then stays as it was when another
    paper of a venue moves (an edited title, an import), while the keys of its papers do."""
    venues = " ".join(dict.fromkeys(paper.venue for paper in papers))
    return venues, " ".join(keys[paper.id] for paper in papers)


def catalog_bib_parts(catalog: Catalog) -> str:
    """bib_parts of the whole catalog: every venue's .bib, whole, in catalog order."""
    return " ".join(venue.slug for venue in catalog.venues)


def bib_name(author) -> str:
    """The name an author's .bib downloads under: that of the file it was before the browser
    made it (cite.bib, a paper's own, for someone with one paper; else papers.bib)."""
    return "cite.bib" if len(author.papers) == 1 else "papers.bib"


# --- metadata in paper pages ----------------------------------------------------------------------

def scholar_tags(paper: Paper, venue: Venue, title: str) -> list[tuple[str, str]]:
    """Google Scholar (Highwire Press) meta tags as (name, content), in the order Scholar reads
    them: each author followed by their institution and ORCID."""
    tags = [("citation_title", title)]
    people = {person.name: person for person in paper.people}
    for name in paper.authors:
        tags.append(("citation_author", name))
        person = people.get(name)
        if person and person.affiliation:
            tags.append(("citation_author_institution", person.affiliation))
        if person and person.orcid:
            tags.append(("citation_author_orcid", person.orcid))
    tags.append(("citation_publication_date", paper.date.replace("-", "/") if paper.date else str(paper.year)))
    venue_name = venue.full_name or venue.name
    tags.append((SCHOLAR_VENUE_TAGS.get(venue.kind, "citation_conference_title"), venue_name))
    where = printed(paper, venue)
    tags += [(name, value) for name, value in (
        ("citation_volume", where.volume),
        ("citation_technical_report_number" if venue.kind == "report" else "citation_issue", where.issue),
        ("citation_firstpage", where.first_page),
        ("citation_lastpage", where.last_page), ("citation_publisher", where.publisher)) if value]
    if doi(paper):
        tags.append(("citation_doi", doi(paper)))
    if arxiv_id(paper):
        tags.append(("citation_arxiv_id", arxiv_id(paper)))
    tags += [("citation_pdf_url", url) for kind, url in paper.links if kind == "pdf"]
    return tags


def scholarly_article(paper: Paper, venue: Venue, title: str) -> dict[str, Any]:
    """schema.org ScholarlyArticle for a paper page (the title as plain text). Not what the page
    says otherwise: its abstract and topics (shown), its URL (the canonical link)."""
    people = {person.name: person for person in paper.people}
    authors = []
    for name in paper.authors:
        author: dict[str, Any] = {"@type": "Person", "name": name}
        person = people.get(name)
        if person and person.orcid:
            author["identifier"] = "https://orcid.org/" + person.orcid
        if person and person.affiliation:
            author["affiliation"] = {"@type": "Organization", "name": person.affiliation}
        authors.append(author)
    venue_name = venue.full_name or venue.name
    where = ("isPartOf", {"@type": "Periodical", "name": venue_name}) if venue.kind == "journal" else \
        ("isPartOf", {"@type": "Book", "name": venue_name}) if venue.kind == "collection" else \
        ("publisher", {"@type": "Organization", "name": venue_name}) if venue.kind in ISSUER_KINDS else \
        ("publication", {"@type": "PublicationEvent", "name": venue_name})
    article: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": SCHEMA_TYPES.get(venue.kind, "ScholarlyArticle"),
        "headline": title,  # not "name" too: the same title
        "datePublished": paper.date or str(paper.year),
        "author": authors,
        where[0]: where[1],
        "sameAs": [link for kind, link in paper.links if kind in _IDENTIFYING_LINKS],
    }
    return {key: value for key, value in article.items() if value != []}


def json_ld(data: Any) -> Markup:
    """JSON for a <script type="application/ld+json"> element.

    `<`, `>` and `&` are written as \\u escapes so a title holding
    `</script>` or `<!--` cannot end the script element early.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))  # read by programs
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
