"""BibTeX entries for paper pages."""
from __future__ import annotations

import re
import unicodedata

from .model import Paper, Venue

_SPECIAL = re.compile(r"([&%#_])")


def bibtex_key(paper: Paper) -> str:
    """e.g. 'turing2024grokking'; falls back to the venue when authors are unknown."""
    surname = paper.authors[0].split()[-1] if paper.authors else paper.venue.split("-")[0]
    words = [w for w in re.findall(r"[A-Za-z0-9]+", _ascii(paper.title)) if len(w) > 3] or ["paper"]
    return re.sub(r"[^a-z0-9]", "", f"{_ascii(surname)}{paper.year}{words[0]}".lower())


def bibtex_entry(paper: Paper, venue: Venue, url: str) -> str:
    fields = [("title", "{" + _escape(paper.title) + "}")]
    if paper.authors:
        fields.append(("author", " and ".join(_escape(a) for a in paper.authors)))
    fields += [("booktitle", _escape(venue.full_name or venue.name)), ("year", str(paper.year))]
    links = dict(paper.links)
    if "doi" in links:
        fields.append(("doi", links["doi"].removeprefix("https://doi.org/")))
    fields.append(("url", links.get("url") or url))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@inproceedings{{{bibtex_key(paper)},\n{body}\n}}"


def _escape(text: str) -> str:
    """Escape LaTeX specials outside $math$; drop braces that would unbalance the entry."""
    parts = re.split(r"(\$[^$]*\$)", text)
    out = []
    for part in parts:
        if part.startswith("$") and part.endswith("$") and len(part) > 1:
            out.append(part if part.count("{") == part.count("}") else part.replace("{", "").replace("}", ""))
        else:
            out.append(_SPECIAL.sub(r"\\\1", part.replace("{", "").replace("}", "").replace("\\", "")))
    return "".join(out)


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
