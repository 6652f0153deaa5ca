"""Checks of the catalog itself: what the papers say, read by the build's own loader."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ..catalog import Catalog
from ..catalog.people import fold, name_key
from ..errors import SiteError
from ..model import DATED_KINDS, Paper
from ..source.yamlsource import load_yaml
from .findings import Finding, body_line, line_of, shown
from .tex import tex_problems

MIN_ABSTRACT_FOR_DUPLICATE = 200  # characters: short abstracts ("TBA") may well be shared
MIN_PAPERS_PER_PERSON = 3  # of each group, before one name is said to be two people (2 named one person twice in ICML 2024)


def catalog_findings(catalog: Catalog, config_path: Path) -> list[Finding]:
    root = catalog.config.root
    return [*_duplicates(catalog, root), *_missing(catalog, root), *_venues(catalog, config_path),
            *_tex(catalog, root), *_spellings(catalog, root), *_two_people(catalog, root)]


def _where(paper: Paper, root: Path, *key) -> tuple[str, int | None]:
    return shown(paper.source, root), line_of(paper.source, *key)


def _at(paper: Paper, root: Path, *key) -> str:
    path, line = _where(paper, root, *key)
    return f"{path}:{line}" if line else path


def _duplicates(catalog: Catalog, root: Path) -> list[Finding]:
    found = []
    for what, key in (("title", lambda p: fold(p.title)),
                      ("abstract", lambda p: " ".join(p.abstract.casefold().split())
                       if len(p.abstract) >= MIN_ABSTRACT_FOR_DUPLICATE else "")):
        first: dict[str, Paper] = {}
        for paper in sorted(catalog.papers, key=lambda p: str(p.source)):
            value = key(paper)
            if not value:
                continue
            if value in first:
                other = first[value]
                line = line_of(paper.source, "title") if what == "title" else body_line(paper.source)
                found.append(Finding(shown(paper.source, root), line, f"likely a duplicate of {_at(other, root, 'title')} "
                                                                      f"({catalog.venue(other.venue).name}): the same "
                                                                      f"{what}", "duplicate"))
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
    except (OSError, SiteError):  # read once already by the build: gone since, at most
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
        spelled: dict[tuple, list[str]] = defaultdict(list)  # one way of writing the name -> its spellings
        for spelling in author.spellings:
            spelled[name_key(spelling)].append(spelling)
        for spellings in spelled.values():
            best = min(spellings, key=lambda s: _spelling_rank(s, len(uses[s])))
            for spelling in spellings:
                if spelling != best:
                    there = _at(uses[best][0][0], root, "authors", uses[best][0][1]) if uses[best] else "site.yaml"
                    found += [Finding(*_where(paper, root, "authors", index), f"author '{spelling}' is written "
                                      f"'{best}' in {there}: one person, spelled two ways", "name", f"write '{best}'",
                                      rename=(spelling, best))
                              for paper, index in uses[spelling]]
        if len(spelled) > 1:  # initials and full names, taken for one person
            full = max(spelled, key=lambda key: (sum(len(t) > 1 for t in key), key))
            name = min(spelled[full], key=lambda s: _spelling_rank(s, len(uses[s])))
            there = _at(uses[name][0][0], root, "authors", uses[name][0][1]) if uses[name] else "site.yaml"
            for key, spellings in sorted(spelled.items()):
                if key == full:
                    continue
                for spelling in spellings:
                    found += [Finding(*_where(paper, root, "authors", index), f"author '{spelling}' may be "
                                      f"'{name}' ({there}), and is shown as one person with them: write the full "
                                      "name, or, if they are two people, tell them apart with an ORCID", "name")
                              for paper, index in uses[spelling]]
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


def _spelling_rank(spelling: str, used: int) -> tuple:
    """Which of the spellings of one name to keep, first: accents kept, each word capitalised
    (not 'LIU' or 'liu'), "First Last" over "Last, First", the most used."""
    words = [w for w in re.split(r"[\s-]+", spelling.replace(",", " ")) if w[:1].isalpha()]
    capitalised = sum(w[0].isupper() and (len(w) == 1 or not w.isupper()) for w in words)
    return (-sum(not c.isascii() for c in spelling), -capitalised, "," in spelling, -used, spelling)


def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """'j smith' abbreviates 'john smith' (each given name an initial of, or equal to, full's)."""
    if len(short) != len(full) or short[-1] != full[-1] or short == full:
        return False
    return all(a == b or (len(a) == 1 and b.startswith(a)) for a, b in zip(short[:-1], full[:-1]))


def _two_people(catalog: Catalog, root: Path) -> list[Finding]:
    """A name whose papers fall into groups that share no co-author, no co-author's co-author and no
    topic: say it may be two people. Conservative: each group has MIN_PAPERS_PER_PERSON papers or more
    (a lab's students rarely all write apart; two people of one name rarely share a circle)."""
    found = []
    circle: dict[object, set] = defaultdict(set)  # Author -> everyone they wrote a paper with
    for byline in catalog.bylines.values():
        people = {author for _, author in byline}
        for author in people:
            circle[author] |= people
    for author in catalog.authors:
        if len(author.papers) < 2 * MIN_PAPERS_PER_PERSON or author.person.orcid:
            continue
        coauthors = {paper.id: {a for _, a in catalog.bylines.get(paper.id, ()) if a is not author}
                     for paper in author.papers}
        groups = _connected(list(author.papers), lambda a, b: bool(coauthors[a.id] & coauthors[b.id]))
        groups = sorted((sorted(group, key=lambda p: str(p.source)) for group in groups), key=lambda g: str(g[0].source))
        if len(groups) < 2 or any(len(group) < MIN_PAPERS_PER_PERSON for group in groups):
            continue  # single papers that fit no group: too little to tell
        near = [set().union(*(circle[a] for paper in group for a in coauthors[paper.id])) - {author}
                for group in groups]
        direct = [set().union(*(coauthors[paper.id] for paper in group)) for group in groups]
        topics = [set().union(*(paper.topics for paper in group)) for group in groups]
        pairs = [(i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))]
        if any(topics[i] & topics[j] or near[i] & direct[j] or near[j] & direct[i] or near[i] & near[j]
               for i, j in pairs):
            continue
        first, second = groups[0][0], groups[1][0]
        index = second.authors.index(next(n for n, a in catalog.bylines[second.id] if a is author))
        found.append(Finding(*_where(second, root, "authors", index),
                             f"'{author.name}' may be two people: their papers fall into {len(groups)} groups with "
                             f"no co-author, no co-author's co-author and no topic in common (this one, and "
                             f"{_at(first, root, 'authors')}); if so, tell them apart with an ORCID", "name"))
    return found


def _connected(papers: list[Paper], linked) -> list[list[Paper]]:
    groups: list[list[Paper]] = []
    for paper in papers:
        joined = [group for group in groups if any(linked(paper, other) for other in group)]
        merged = [paper] + [p for group in joined for p in group]
        groups = [group for group in groups if group not in joined] + [merged]
    return groups
