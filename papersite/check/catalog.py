"""Checks of the catalog itself: what the papers say, read by the build's own loader."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ..catalog import Catalog
from ..catalog.people import fold, name_key
from ..model import DATED_KINDS, Paper
from ..source.yamlsource import load_yaml
from .findings import Finding, body_line, line_of, shown
from .tex import tex_problems

MIN_ABSTRACT_FOR_DUPLICATE = 200  # characters: short abstracts ("TBA") may well be shared
MIN_PAPERS_PER_PERSON = 2  # of each group, before one name is said to be two people


def catalog_findings(catalog: Catalog, config_path: Path) -> list[Finding]:
    root = catalog.config.root
    return [*_duplicates(catalog, root), *_missing(catalog, root), *_venues(catalog, config_path),
            *_tex(catalog, root), *_keys(catalog, root), *_spellings(catalog, root), *_two_people(catalog, root)]


def _where(paper: Paper, root: Path, *key) -> tuple[str, int | None]:
    return shown(paper.source, root), line_of(paper.source, *key)


def _at(paper: Paper, root: Path, *key) -> str:
    path, line = _where(paper, root, *key)
    return f"{path}:{line}" if line else path


def _duplicates(catalog: Catalog, root: Path) -> list[Finding]:
    found = []
    for what, key in (("title", lambda p: fold(p.title)),
                      ("abstract", lambda p: fold(p.abstract) if len(p.abstract) >= MIN_ABSTRACT_FOR_DUPLICATE else "")):
        first: dict[str, Paper] = {}
        for paper in sorted(catalog.papers, key=lambda p: str(p.source)):
            value = key(paper)
            if not value:
                continue
            if value in first:
                other = first[value]
                where = "title" if what == "title" else None
                path, line = _where(paper, root, "title") if where else (shown(paper.source, root), body_line(paper.source))
                found.append(Finding(path, line, f"likely a duplicate of {_at(other, root, 'title')} "
                                                 f"({catalog.venue(other.venue).name}): the same {what}", "duplicate"))
            else:
                first[value] = paper
    return found


def _missing(catalog: Catalog, root: Path) -> list[Finding]:
    found = []
    for paper in catalog.papers:
        if not paper.abstract:
            found.append(Finding(shown(paper.source, root), body_line(paper.source),
                                 "no abstract: Google Scholar indexes only pages that show one", "abstract"))
        venue = catalog.venue(paper.venue)
        if venue.kind not in DATED_KINDS and line_of(paper.source, "year") is None \
                and line_of(paper.source, "date") is None:
            path, line = _where(paper, root, "venue")
            found.append(Finding(path, line, f"no 'year' or 'date': the year of {venue.kind} '{venue.slug}' "
                                             f"({paper.year}) is used, and its papers span years", "year"))
    return found


def _venues(catalog: Catalog, config_path: Path) -> list[Finding]:
    missing = [(index, venue) for index, venue in enumerate(catalog.config.venues)
               if not venue.full_name and venue.slug in catalog.venue_papers]
    if not missing:
        return []
    try:
        lines = load_yaml(config_path.read_text(encoding="utf-8-sig"), config_path)[1]
    except (OSError, ValueError, Exception):  # read once already by the build: a race at most
        lines = {}
    return [Finding(shown(config_path, catalog.config.root), lines.get(("venues", index)),
                    f"venue '{venue.slug}' has no full_name: citations and Google Scholar show "
                    f"'{venue.name}' instead", "venue") for index, venue in missing]


def _tex(catalog: Catalog, root: Path) -> list[Finding]:
    found = []
    for paper in catalog.papers:
        path = shown(paper.source, root)
        for offset, message, sure in tex_problems(paper.title):
            found.append(Finding(path, line_of(paper.source, "title"), f"title: {message}", "tex",
                                 "rewrite the title" if sure else ""))
        for index, name in enumerate(paper.authors):
            for offset, message, sure in tex_problems(name):
                found.append(Finding(path, line_of(paper.source, "authors", index), f"author '{name}': {message}",
                                     "tex", "rewrite the name" if sure else ""))
        for offset, message, sure in tex_problems(paper.abstract):
            found.append(Finding(path, body_line(paper.source, offset), message, "tex",
                                 "rewrite the abstract" if sure else ""))
    return found


def _keys(catalog: Catalog, root: Path) -> list[Finding]:
    return [Finding(*_where(paper, root, "bibtex_key"), f"citation key '{catalog.citation_keys[paper.id]}' is not "
                    "ASCII: BibTeX and biber may refuse it", "key")
            for paper in catalog.papers if not catalog.citation_keys.get(paper.id, "").isascii()]


def _declared(catalog: Catalog) -> set[tuple[str, ...]]:
    """Names site.yaml's `authors:` speaks for: their spellings are a person's own decision."""
    return {name_key(name) for person in catalog.config.authors for name in (person.name, *person.aliases)}


def _spellings(catalog: Catalog, root: Path) -> list[Finding]:
    """Names the build takes for one person, written more than one way; and initials that fit several."""
    declared = _declared(catalog)
    uses: dict[str, list[tuple[Paper, int]]] = defaultdict(list)  # spelling -> where it is written
    for paper in catalog.papers:
        for index, name in enumerate(paper.authors):
            uses[name].append((paper, index))
    found = []
    by_surname = defaultdict(list)
    for author in catalog.authors:
        keys = {name_key(s) for s in author.spellings}
        if keys:
            by_surname[max(keys, key=len)[-1:]].append(author)
        if len(author.spellings) < 2 or keys & declared:
            continue
        shown_key = name_key(author.name)
        first_paper, first_index = uses[author.name][0] if uses[author.name] else (None, 0)
        there = _at(first_paper, root, "authors", first_index) if first_paper else "site.yaml"
        for spelling in author.spellings:
            if spelling == author.name:
                continue
            for paper, index in uses[spelling]:
                path, line = _where(paper, root, "authors", index)
                if name_key(spelling) == shown_key:
                    found.append(Finding(path, line, f"author '{spelling}' is written '{author.name}' in {there}: "
                                                     "one person, spelled two ways", "name",
                                         f"write '{author.name}'"))
                else:
                    found.append(Finding(path, line, f"author '{spelling}' may be '{author.name}' ({there}), and is "
                                                     "shown as one person: write the full name, or, if they are two "
                                                     "people, tell them apart with an ORCID", "name"))
    for authors in by_surname.values():
        if len(authors) < 3:
            continue
        for author in authors:
            short = name_key(author.name)
            if not any(len(token) == 1 for token in short[:-1]):
                continue
            fits = [other for other in authors if other is not author and _abbreviates(short, name_key(other.name))]
            if len(fits) >= 2 and short not in declared:
                paper, index = next((p, i) for p, i in uses[author.spellings[0]])
                names = " or ".join(f"'{other.name}'" for other in fits[:3])
                found.append(Finding(*_where(paper, root, "authors", index),
                                     f"author '{author.spellings[0]}' may be {names}: write the full name", "name"))
    return found


def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """'j smith' abbreviates 'john smith' (each given name an initial of, or equal to, full's)."""
    if len(short) != len(full) or short[-1] != full[-1] or short == full:
        return False
    return all(a == b or (len(a) == 1 and b.startswith(a)) for a, b in zip(short[:-1], full[:-1]))


def _two_people(catalog: Catalog, root: Path) -> list[Finding]:
    """A name whose papers fall into groups with no co-author and no topic in common: say it may be two
    people. Conservative: each group has MIN_PAPERS_PER_PERSON papers or more."""
    found = []
    for author in catalog.authors:
        if len(author.papers) < 2 * MIN_PAPERS_PER_PERSON or author.person.orcid:
            continue
        coauthors = {paper.id: {a for _, a in catalog.bylines.get(paper.id, ()) if a is not author}
                     for paper in author.papers}
        groups = _connected(list(author.papers), lambda a, b: bool(coauthors[a.id] & coauthors[b.id]))
        big = [group for group in groups if len(group) >= MIN_PAPERS_PER_PERSON]
        if len(big) < 2 or len(big) != len(groups):
            continue  # single papers that fit no group: too little to tell
        topics = [set().union(*(paper.topics for paper in group)) for group in big]
        if any(topics[i] & topics[j] for i in range(len(big)) for j in range(i + 1, len(big))):
            continue
        first, second = big[0][0], big[1][0]
        index = second.authors.index(next(n for n, a in catalog.bylines[second.id] if a is author))
        found.append(Finding(*_where(second, root, "authors", index),
                             f"'{author.name}' may be two people: their papers fall into {len(big)} groups with no "
                             f"co-author and no topic in common (this one, and {_at(first, root, 'authors')}); "
                             "if so, tell them apart with an ORCID", "name"))
    return found


def _connected(papers: list[Paper], linked) -> list[list[Paper]]:
    groups: list[list[Paper]] = []
    for paper in papers:
        joined = [group for group in groups if any(linked(paper, other) for other in group)]
        merged = [paper] + [p for group in joined for p in group]
        groups = [group for group in groups if group not in joined] + [merged]
    return groups
