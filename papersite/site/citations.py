"""How a paper is cited: RIS and CSL-JSON files, .bib files, Google Scholar tags and JSON-LD.

Every format is a function of the paper, its venue, its citation key (from the
catalog) and its abstract, so a rebuild reuses what it wrote for a paper until
one of those changes.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from operator import attrgetter
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
    return " ".join(text.split())


def _url(paper: Paper, page_url: str) -> str:
    return dict(paper.links).get("url") or page_url


def _date_parts(paper: Paper) -> list[int]:
    return [int(part) for part in paper.date.split("-")] if paper.date else [paper.year]


def ris(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic], page_url: str) -> bytes:
    """One RIS reference (CRLF-free, UTF-8), as Zotero, EndNote and Mendeley read it."""
    authors = []
    for name in paper.authors:
        parts = split_name(name)
        authors.append(parts.literal or ", ".join(filter(None, (
            " ".join(filter(None, (parts.von, parts.last))), parts.first, parts.jr))))
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
    if doi(paper):
        reference["doi"] = doi(paper)
    reference["urls"] = [_url(paper, page_url)]
    pdf = dict(paper.links).get("pdf")
    if pdf:
        reference["file_attachments1"] = [pdf]
    reference["id"] = key
    clean = {name: [_one_line(v) for v in value] if isinstance(value, list) else _one_line(value)
             for name, value in reference.items()}
    return _RIS.formats([clean]).encode("utf-8")


def csl_name(name: str) -> dict[str, str]:
    parts = split_name(name)
    if parts.literal:
        return {"literal": parts.literal}
    found = {"family": parts.last, "given": parts.first, "non-dropping-particle": parts.von, "suffix": parts.jr}
    return {field_name: value for field_name, value in found.items() if value}


def csl_json(paper: Paper, venue: Venue, key: str, abstract: str, topics: Iterable[Topic],
             page_url: str) -> bytes:
    """A CSL-JSON array of one item (Zotero, Pandoc, citeproc)."""
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
    return (json.dumps([item], ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Cited:
    """One paper in every citation format, and where its files go."""

    bibtex: bytes  # the entry, UTF-8: joined as is into every .bib that lists the paper
    ris: Any  # bytes, or where a one-shot build stored them (its receipt: output.Receipt)
    csl: Any
    ris_path: str
    csl_path: str


def cite(paper: Paper, venue: Venue, key: str, abstract: str, topics: tuple[Topic, ...], page_url: str,
         files: bool = True) -> Cited:
    """`files`: make the RIS and CSL-JSON files too (else only the BibTeX entry, which the .bib files list)."""
    entry = bibtex_entry(paper, venue, page_url, key).encode("utf-8")
    if not files:
        return Cited(entry, None, None, urls.cite_of(paper, "ris"), urls.cite_of(paper, "json"))
    return Cited(entry, ris(paper, venue, key, abstract, topics, page_url),
                 csl_json(paper, venue, key, abstract, topics, page_url),
                 urls.cite_of(paper, "ris"), urls.cite_of(paper, "json"))


_ID, _BIBTEX = attrgetter("id"), attrgetter("bibtex")


def _cite(job: tuple) -> Cited:
    return cite(*job)


@dataclass
class CitationCache:
    """Each paper's citations from the last build, with what they were made from."""

    papers: dict[str, tuple[tuple, Cited]] = field(default_factory=dict)
    stamp: tuple = ()  # base_url and the topics: what every paper's citations also depend on
    # .bib path -> (the papers listed, their ids, the file); the papers object is kept alive,
    # so an identical one (an unchanged author's tuple) skips remaking the ids
    listings: dict[str, tuple[tuple, tuple, Any]] = field(default_factory=dict)  # the file: bytes or a receipt
    files: dict[str, bytes] = field(default_factory=dict)  # each paper's RIS and CSL-JSON files


class Citations:
    """The citations of one build's catalog: `bib(papers)` makes the .bib of any list of papers
    (e.g. authors/<slug>/papers.bib), `files()` every citation file of the catalog.

    A rebuild remakes only the papers whose inputs changed (mostly identity checks: see
    engine/runner.py: BuildCache); a first build makes them on all cores. With `store`
    (output path, bytes -> receipt; see render_pages) the workers write each paper's files.
    """

    def __init__(self, catalog: Catalog, abstracts: dict, cache: CitationCache | None = None,
                 store: Callable[[str, bytes], Any] | None = None,
                 reuse: Callable[[str, Any], Any] = lambda path, output: output):
        """`store` and `reuse` as for render.render_pages."""
        self.catalog = catalog
        link = urls.Urls(catalog.config.base_url)
        cache = cache if cache is not None else CitationCache()
        stamp = (catalog.config.base_url, catalog.config.topics, catalog.config.omit)
        with_files = catalog.config.writes("citation-files")
        if cache.stamp != stamp:
            cache.papers, cache.files, cache.stamp = {}, {}, stamp
        venues = {venue.slug: venue for venue in catalog.config.venues}
        last, keys, fresh, todo = cache.papers, catalog.citation_keys, {}, []
        files = cache.files  # kept up to date, not remade: a one-paper edit changes two entries
        for paper in catalog.papers:  # every paper, even in a one-paper rebuild: kept lean
            inputs = (paper, venues[paper.venue], keys[paper.id], abstracts[paper.id].text)
            kept = last.get(paper.id)
            if kept is not None and kept[0] == inputs:
                cited = kept[1]
                if not with_files:
                    fresh[paper.id] = kept
                    continue
                ris, csl = reuse(cited.ris_path, cited.ris), reuse(cited.csl_path, cited.csl)
                if ris is cited.ris and csl is cited.csl:
                    fresh[paper.id] = kept
                    continue
                if ris is not None and csl is not None:  # receipts of the last build, vouched for again
                    fresh[paper.id] = (inputs, replace(cited, ris=ris, csl=csl))
                    files[cited.ris_path], files[cited.csl_path] = ris, csl
                    continue
            todo.append(inputs)
        topic_of = catalog.topic
        jobs = [(*inputs, tuple(map(topic_of, inputs[0].topics)), link.absolute(inputs[0]), with_files)
                for inputs in todo]
        for gone in last.keys() - fresh.keys():  # removed or changed (a slug may have changed)
            files.pop(last[gone][1].ris_path, None)
            files.pop(last[gone][1].csl_path, None)
        # a listing's .bib is remade only when one of its entries changed (or its papers did)
        self.remade: set[str] = set()  # ids of the papers whose BibTeX entry is new or changed
        if store is None or not with_files:
            make = _cite
        else:
            def make(job: tuple) -> Cited:
                cited = _cite(job)
                return Cited(cited.bibtex, store(cited.ris_path, cited.ris), store(cited.csl_path, cited.csl),
                             cited.ris_path, cited.csl_path)
        for inputs, cited in zip(todo, parallel_map(make, jobs)):
            old = last.get(inputs[0].id)
            if old is None or old[1].bibtex != cited.bibtex:
                self.remade.add(inputs[0].id)
            fresh[inputs[0].id] = (inputs, cited)
            if with_files:
                files[cited.ris_path], files[cited.csl_path] = cited.ris, cited.csl
        cache.papers = fresh  # papers that are gone are forgotten
        self.cited = {paper_id: kept[1] for paper_id, kept in fresh.items()}
        self.cache = cache
        self.store, self.reuse = store, reuse
        self.listings: dict[str, tuple[tuple, tuple, Any]] = {}

    def of(self, paper: Paper) -> Cited:
        return self.cited[paper.id]

    def bib(self, papers: Iterable[Paper], path: str | None = None) -> Any:
        """A .bib of these papers of the catalog, in the order given. With its output `path`,
        last build's file is reused while it lists the same papers and no entry changed; and
        with `store`, the file is stored at once and its receipt given (no listing's bytes are
        kept: on a large catalog, hundreds of megabytes)."""
        last = self.cache.listings.get(path) if path else None
        ids = last[1] if last is not None and last[0] is papers and isinstance(papers, tuple) \
            else tuple(map(_ID, papers))
        output = None
        if last is not None and last[1] == ids and self.remade.isdisjoint(ids):
            output = self.reuse(path, last[2])  # a receipt only while the output holds those bytes
        if output is None:
            output = bibtex_file(list(map(_BIBTEX, map(self.cited.__getitem__, ids))))
            if path and self.store is not None:
                output = self.store(path, output)
        if path:
            self.listings[path] = (papers, ids, output)
        return output

    def files(self) -> dict[str, bytes]:
        """Output path -> bytes (or, with `store`, a receipt): each paper's RIS and CSL-JSON, and the .bib of the catalog,
        of each venue, topic and author (see bib_of); less what site.yaml's `omit:` leaves out."""
        catalog = self.catalog
        files = dict(self.cache.files)
        listings = [(urls.bibtex_of(), catalog.papers)]
        listings += [(urls.bibtex_of(venue), catalog.venue_papers[venue.slug]) for venue in catalog.venues]
        listings += [(urls.bibtex_of(topic), catalog.topic_papers[topic.slug]) for topic in catalog.topics]
        if catalog.config.writes("author-bibtex"):
            listings += [(bib_of(author), author.papers) for author in catalog.authors]
        for path, papers in listings:
            if path not in files:  # the co-authors of a paper who wrote nothing else share its .bib
                files[path] = self.bib(papers, path)
        self.cache.listings = self.listings  # listings that are gone are forgotten
        return files


def bib_of(author) -> str:
    """Where an author's .bib lives: the .bib of someone with one paper would be byte for byte
    that paper's, which their co-authors' pages would repeat, so they all link to the paper's
    cite.bib (most people of a catalog have one paper); anyone else has authors/<slug>/papers.bib."""
    return urls.cite_of(author.papers[0], "bib") if len(author.papers) == 1 else urls.bibtex_of(author)


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


def scholarly_article(paper: Paper, venue: Venue, topics: list[Topic], title: str,
                      abstract: str, url: str) -> dict[str, Any]:
    """schema.org ScholarlyArticle for a paper page (title and abstract as plain text)."""
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
        "headline": title,
        "name": title,
        "url": url,
        "datePublished": paper.date or str(paper.year),
        "abstract": abstract,
        "author": authors,
        where[0]: where[1],
        "keywords": [topic.name for topic in topics],
        "sameAs": [link for kind, link in paper.links if kind in _IDENTIFYING_LINKS],
    }
    return {key: value for key, value in article.items() if value != []}


def json_ld(data: Any) -> Markup:
    """JSON for a <script type="application/ld+json"> element.

    `<`, `>` and `&` are written as \\u escapes so a title holding
    `</script>` or `<!--` cannot end the script element early.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
