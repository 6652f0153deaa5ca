"""The citation downloads of a built site, as static/site.js makes them in the browser: a paper
page's RIS and CSL-JSON (from its #cite-data) and a listing's .bib (from its data-bib and the
venues' .bib files). For tests that read what a reader downloads without a browser;
tests/browser/test_downloads.py checks that site.js makes these same bytes, and
tests/test_citations.py that they are the reference writers' (papersite/site/citations.py)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import html5lib

from papersite.site.citations import page_item, ris_from_csl

CITE_DATA = re.compile(r'<script type="application/json" id="cite-data">(.*?)</script>', re.S)
BIB_BUTTON = re.compile(r'<button type="button" class="link-button" data-bib="([^"]*)"(?: data-keys="([^"]*)")? '
                        r'data-name="([^"]*)">')
JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")  # JS's \s
ENTRY_KEY = re.compile(r"@[^{]*\{([^,]*),")
ENTRY_GAP = re.compile(r"(?<=\n\})\n\n(?=@)")  # between two entries of a .bib (bibtex_file)


def read(out: Path | dict, path: str) -> str:
    """A file of a site: `out` is its folder, or a build's files (path -> bytes)."""
    return out[path].decode("utf-8") if isinstance(out, dict) else (Path(out) / path).read_text(encoding="utf-8")


def page_html(out: Path | dict, path: str) -> str:
    """The page at a site-relative path ('papers/x/', 'authors/y/', '' for home)."""
    return read(out, path + "index.html")


def cite_data(out: Path | dict, slug: str) -> dict | None:
    """The paper page's #cite-data, or None (site.yaml `omit: [citation-files]`)."""
    found = CITE_DATA.search(page_html(out, f"papers/{slug}/"))
    return json.loads(found.group(1)) if found else None


def paper_download(out: Path | dict, slug: str, fmt: str) -> bytes:
    """A paper's download: 'ris' (cite.ris) or 'json' (cite.json, CSL-JSON), made from its page as
    site.js makes it: where #cite-data says "page", the fields read from the page (the text of
    #abstract-text, the entry of #bibtex, as html5lib parses them, which is as browsers do), less
    those #cite-data gives or nulls; the citation-key is the id."""
    data = cite_data(out, slug)
    if data is None:
        raise FileNotFoundError(f"papers/{slug}/: no citation data")
    item = {}
    if data.get("page"):
        page = html5lib.parse(page_html(out, f"papers/{slug}/"), namespaceHTMLElements=False)
        entry, abstract = (page.find(f".//*[@id='{id}']") for id in ("bibtex", "abstract-text"))
        item = page_item("".join(entry.itertext()) if entry is not None else "", None)
        if abstract is not None:
            item["abstract"] = JS_SPACE.sub(" ", "".join(abstract.itertext())).strip(" ")
    for name, value in data["csl"].items():
        if value is None:
            item.pop(name, None)
        else:
            item[name] = value
    item["citation-key"] = item["id"]
    if fmt == "json":
        return (json.dumps([item], ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    if "ris" not in data:
        return ris_from_csl(item).encode("utf-8")
    # text and CSL field names in turn (citations.ris_parts)
    return "".join(item[part] if n % 2 else part for n, part in enumerate(data["ris"])).encode("utf-8")


def venue_entries(out: Path | dict, slug: str) -> list[str]:
    text = read(out, f"venues/{slug}/papers.bib")
    return ENTRY_GAP.split(text[:-1])


def bib_button(out: Path | dict, path: str) -> tuple[str, str | None, str] | None:
    """The listing page's .bib download made in the browser: (its data-bib, its data-keys or None,
    its file name), or None."""
    found = BIB_BUTTON.search(page_html(out, path))
    if found is None:
        return None
    parts, keys, name = found.groups()
    return html.unescape(parts), None if keys is None else html.unescape(keys), html.unescape(name)


def listing_download(out: Path | dict, path: str) -> tuple[str, bytes]:
    """(file name, bytes) of the .bib a listing page ('topics/x/', 'authors/y/', 'papers/')
    offers: made from the venues' .bib files, as site.js makes it."""
    button = bib_button(out, path)
    if button is None:
        raise FileNotFoundError(f"{path}: no BibTeX download")
    parts, keys, name = button
    if keys is not None:  # an author's: the venues, and the keys of the entries
        by_key = {ENTRY_KEY.match(entry)[1]: entry for slug in parts.split() for entry in venue_entries(out, slug)}
        return name, ("\n\n".join(by_key[key] for key in keys.split()) + "\n").encode("utf-8")
    entries = []
    for part in parts.split():
        slug, _, places = part.partition(":")
        found = venue_entries(out, slug)
        if not places:
            entries += found
            continue
        for run in places.split(","):
            first, _, last = run.partition("-")
            entries += found[int(first):int(last or first) + 1]
    return name, ("\n\n".join(entries) + "\n").encode("utf-8")
