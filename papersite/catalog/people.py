"""The catalog's people: every author once, however their name was spelled.

    people = collect_people(papers, config.authors)
    people.authors      # Author per person, A-Z by surname
    people.bylines      # paper id -> ((name as written, Author), ...)
    people.paths        # paper id -> ((name as written, author page path), ...)

Two spellings are one person when

- site.yaml's `authors:` says so: its name and `aliases:` are all that person
  (and an ORCID given there claims every mention carrying it);
- they fold to the same key: accents removed, case and punctuation ignored,
  "Last, First" read as "First Last" (Rocktäschel = Rocktaschel,
  "Lovelace, Ada" = "Ada Lovelace");
- one abbreviates given names ("Kingma, D. P.", "D. Kingma") and exactly one
  other person of that surname has compatible full given names ("Diederik P.
  Kingma"); with two candidates (John and Jane Smith for "J. Smith") nothing
  is merged.

The same name with different ORCIDs is different people; a mention of that
name without an ORCID joins the only ORCID holder, or else stays apart.

The name shown is site.yaml's, else the most complete spelling (more full
given names, then accents kept, then "First Last" over "Last, First", then
the most used, then alphabetical): the same papers always give the same
names and slugs.
"""
from __future__ import annotations

import difflib
import functools
import hashlib
import operator
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from .. import urls
from ..model import Author, Paper, Person
from .order import title_key

_PUNCTUATION = re.compile(r"[^\w]+")
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})  # "Jr." is not a given name or a surname


@dataclass(frozen=True)
class People:
    authors: tuple[Author, ...] = ()  # A-Z
    bylines: dict[str, tuple[tuple[str, Author], ...]] = field(default_factory=dict)  # paper id -> (name, Author)
    # paper id -> (name as written, author page path): what pages show, as strings, so a page is made
    # again when its authors' pages move (a merge, a new slug), and only then
    paths: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)


def fold(text: str) -> str:
    """'Tim Rocktäschel' -> 'tim rocktaschel': accents, case and punctuation gone."""
    if text.isascii():  # nothing to decompose or fold by hand, and casefold is lower: the same, faster
        bare = text.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        bare = "".join(c for c in decomposed if not unicodedata.combining(c))
        # Letters NFKD does not decompose (ø, ł, ß) fold by hand; the rest is case-folded.
        bare = bare.translate(_LETTERS).casefold()
    return " ".join(_PUNCTUATION.sub(" ", bare).replace("_", " ").split())


_LETTERS = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "AE",
                          "œ": "oe", "Œ": "OE", "ß": "ss", "ı": "i", "þ": "th", "ð": "d"})


@functools.lru_cache(maxsize=500_000)  # a rebuild meets the same names again; folding is the slow part
def name_key(name: str) -> tuple[str, ...]:
    """Folded name tokens, given names first, surname last; "Last, First" reordered,
    a trailing "Jr." dropped. () for a name with no letters or digits."""
    parts = [p for p in name.split(",") if p.strip() and fold(p) not in _SUFFIXES]
    if len(parts) >= 2:
        # "Kingma, D. P." and "van Beethoven, Ludwig": what follows the (first) comma comes first
        ordered = " ".join(parts[1:]) + " " + parts[0]
    else:
        ordered = " ".join(parts)
    tokens = fold(ordered).split()
    while len(tokens) > 1 and tokens[-1] in _SUFFIXES:
        tokens.pop()
    return tuple(tokens)


def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Do short's given names abbreviate full's (same surname; each an initial of,
    or equal to, full's name at that position), with at least one initial expanded?"""
    if len(short) > len(full) or short[-1] != full[-1]:
        return False
    expanded = False
    for a, b in zip(short[:-1], full[:-1]):
        if len(a) == 1:
            if b[0] != a:
                return False
            expanded = expanded or len(b) > 1
        elif a != b:
            return False
    return expanded


def _has_initial(key: tuple[str, ...]) -> bool:
    return any(len(token) == 1 for token in key[:-1])


def _completeness(spelling: str, uses: int) -> tuple:
    key = name_key(spelling)
    return (sum(len(t) > 1 for t in key[:-1]), len(key), sum(not c.isascii() for c in spelling),
            "," not in spelling, uses, tuple(-ord(c) for c in spelling))


class PeopleCache:
    """The last result, for a rebuild: while every paper has the same authors and year as
    last time (an edit of a title or an abstract), who is who cannot have changed, and
    only the people whose papers are new objects are made again."""

    def __init__(self):
        self.declared: tuple[Person, ...] | None = None
        self.papers: dict[str, Paper] = {}  # id -> the paper as last seen
        self.people: People | None = None


def collect_people(papers: tuple[Paper, ...] | list[Paper], declared: tuple[Person, ...] = (),
                   cache: PeopleCache | None = None) -> People:
    """Everyone who wrote one of `papers`, merged as the module docstring says. A person's
    details come from site.yaml, then from their papers, newest year first."""
    people = None
    if cache is not None and cache.people is not None and cache.declared == declared:
        people = _refreshed(cache, papers)
    if people is None:
        people = _collect(papers, declared, cache.people if cache is not None else None)
    if cache is not None:
        cache.declared, cache.people = declared, people
        cache.papers = {paper.id: paper for paper in papers}
    return people


def _people_of(paper: Paper) -> tuple[Person, ...]:
    return paper.people if len(paper.people) == len(paper.authors) else tuple(map(Person, paper.authors))


def _paper_order(paper: Paper) -> tuple:
    """A person's papers: newest year first, then newest date, then by title."""
    return (-paper.year, _newest_first(paper.date), title_key(paper.title), paper.id)


def _refreshed(cache: PeopleCache, papers) -> People | None:
    """The last result with the papers that are new objects put in (each of their people's
    papers re-sorted: a title may have changed); None if who is who may have changed (a paper
    came or went, or its authors or year changed)."""
    last, seen = cache.people, cache.papers
    if len(papers) != len(seen):
        return None
    changed = []
    for paper in papers:
        old = seen.get(paper.id)
        if old is not paper:
            if old is None or old.year != paper.year or _people_of(old) != _people_of(paper):
                return None
            changed.append(paper)
    if not changed:
        return last
    by_id = {paper.id: paper for paper in papers}
    renewed: dict[int, Author] = {}  # id(old Author) -> new
    for paper in changed:
        for _, author in last.bylines.get(paper.id, ()):
            if id(author) not in renewed:
                renewed[id(author)] = replace(author, papers=tuple(sorted((by_id[p.id] for p in author.papers),
                                                                          key=_paper_order)))
    if not renewed:
        return last
    bylines = dict(last.bylines)
    for author in renewed.values():
        for paper in author.papers:
            bylines[paper.id] = tuple((name, renewed.get(id(a), a)) for name, a in last.bylines[paper.id])
    return People(tuple(renewed.get(id(a), a) for a in last.authors), bylines, last.paths)


def _collect(papers, declared: tuple[Person, ...], last: People | None = None) -> People:
    """Everyone, merged afresh. An Author of `last` that comes out the same (its very papers, the
    same name, details and spellings) is kept rather than made again: pages are kept while they
    show the same objects, so an author-list edit then re-plans only the people it touched."""
    # A group is a person in the making: site.yaml's are ("site", i), others ("name", key, orcid).
    site_orcid = {p.orcid: ("site", i) for i, p in enumerate(declared) if p.orcid}
    site_names: dict[tuple, tuple] = {}
    for i, person in enumerate(declared):
        for spelling in (person.name, *person.aliases):
            site_names.setdefault(name_key(spelling), ("site", i))  # the first declaration wins a clash

    mentions: list[tuple[Paper, Person, tuple]] = []  # (paper, person, group)
    orcids_of: dict[tuple, set[str]] = defaultdict(set)  # name key -> ORCIDs its undeclared holders have
    for paper in papers:
        for person in _people_of(paper):
            key = name_key(person.name) or (person.name,)
            group = site_orcid.get(person.orcid) if person.orcid else None
            if group is None:
                group = site_names.get(key)
                if group is not None and person.orcid and declared[group[1]].orcid not in ("", person.orcid):
                    group = None  # the same name, but another ORCID: someone else
            if group is None:
                group = ("name", key, person.orcid)
                if person.orcid:
                    orcids_of[key].add(person.orcid)
            mentions.append((paper, person, group))

    # Groups of one name without an ORCID join its only ORCID holder.
    merged: dict[tuple, tuple] = {}
    for key, orcids in orcids_of.items():
        if len(orcids) == 1:
            merged[("name", key, "")] = ("name", key, next(iter(orcids)))

    # Initials: a group whose key abbreviates the keys of exactly one other group joins it.
    keys_of: dict[tuple, set[tuple]] = defaultdict(set)  # group -> its name keys
    for key, group in site_names.items():
        keys_of[group].add(key)
    for _, _, group in mentions:
        if group[0] == "name":
            keys_of[merged.get(group, group)].add(group[1])
    by_surname: dict[str, list[tuple[tuple, tuple]]] = defaultdict(list)  # surname -> (key, group)
    for group, keys in keys_of.items():
        for key in keys:
            by_surname[key[-1]].append((key, group))
    for group in keys_of:
        if group[0] != "name" or group in merged or group[2] or not _has_initial(group[1]):
            continue  # declared people and ORCID holders are merged by what they declare
        short = group[1]
        candidates = {other for key, other in by_surname[short[-1]]
                      if other != group and _abbreviates(short, key)}
        if len(candidates) == 1:
            merged[group] = candidates.pop()

    def resolve(group: tuple) -> tuple:
        seen = set()
        while group in merged and group not in seen:  # each step expands initials: no cycle, but be sure
            seen.add(group)
            group = merged[group]
        return group

    members: dict[tuple, list[tuple[Paper, Person]]] = defaultdict(list)
    resolved = []
    for paper, person, group in mentions:
        group = resolve(group) if group in merged else group
        members[group].append((paper, person))
        resolved.append(group)

    made = []  # (group, shown name, sort key, details, spellings, papers)
    order: dict[str, tuple] = {}  # paper id -> its _paper_order, made once: a paper is among each author's
    for group, entries in members.items():
        declared_person = declared[group[1]] if group[0] == "site" else None
        if len(entries) == 1 and declared_person is None:  # most people: one paper, one spelling
            (paper, person), = entries
            shown, spellings, papers_of = person.name, (person.name,), (paper,)
            details = Person(shown, person.orcid, person.affiliation, person.url)
        else:
            uses = Counter(person.name for _, person in entries)
            shown = declared_person.name if declared_person else next(iter(uses)) if len(uses) == 1 else \
                max(uses, key=lambda s: _completeness(s, uses[s]))
            papers_of = {paper.id: paper for paper, _ in entries}
            for paper_id, paper in papers_of.items():
                if paper_id not in order:
                    order[paper_id] = _paper_order(paper)
            papers_of = tuple(sorted(papers_of.values(), key=lambda paper: order[paper.id]))
            sources = ([declared_person] if declared_person else []) + \
                [person for _, person in sorted(entries, key=lambda e: (-e[0].year, e[0].id))]
            details = Person(shown, *(next((v for source in sources if (v := getattr(source, name))), "")
                                      for name in ("orcid", "affiliation", "url")))
            spellings = tuple(sorted(uses))
        key = name_key(shown) or (shown,)
        made.append((group, shown, (key[-1], " ".join(key[:-1])), details, spellings, papers_of))
    slugs = _slugs(made)
    kept = {author.slug: author for author in last.authors} if last is not None else {}
    built = {m[0]: _same_or_new(kept.get(slugs[m[0]]), slugs[m[0]], *m[1:]) for m in made}

    # One (name, Author) and one (name, path) tuple for each way an author is written, shared by
    # every paper that writes them so: a build keeps them all (each paper's own took 7 MB of the
    # 16 MB who is who held at 10,000 papers).
    bylines: dict[str, list[tuple[str, Author]]] = defaultdict(list)
    entries: dict[tuple[str, tuple], tuple[str, Author]] = {}  # (name, group) -> entry
    for (paper, person, _), group in zip(mentions, resolved):  # in each paper's order
        entry = entries.get((person.name, group))
        if entry is None:
            entry = entries[person.name, group] = (person.name, built[group])
        bylines[paper.id].append(entry)
    authors = tuple(sorted(built.values(), key=lambda a: (a.sort_key, a.name, a.slug)))
    lines = {paper.id: tuple(bylines.get(paper.id, ())) for paper in papers}  # every paper, authors or not
    path_of = {id(author): urls.path_of(author) for author in built.values()}
    page_of = {id(entry): (entry[0], path_of[id(entry[1])]) for entry in entries.values()}
    paths = {paper_id: tuple(page_of[id(entry)] for entry in line) for paper_id, line in lines.items()}
    return People(authors, lines, paths)


def _same_or_new(old: Author | None, slug: str, name: str, sort_key: tuple[str, str], person: Person,
                 spellings: tuple[str, ...], papers: tuple[Paper, ...]) -> Author:
    if old is not None and old.name == name and old.sort_key == sort_key and old.person == person and \
            old.spellings == spellings and len(old.papers) == len(papers) and \
            all(map(operator.is_, old.papers, papers)):
        return old
    return Author(slug, name, sort_key, person, spellings, papers)


def _newest_first(date: str) -> tuple:
    return tuple(-int(part) for part in date.split("-") if part.isdigit())


def _slugs(made: list) -> dict[tuple, str]:
    """group -> slug, unique. The slug comes from the shown name; people who would
    share one get a suffix from what identifies them (the ORCID's last digits, else
    a hash of the name as shown): adding someone renames nobody else, and a suffix
    lasts only while the collision does."""
    wanted: dict[str, list] = defaultdict(list)
    for entry in made:
        group, shown = entry[0], entry[1]
        base = "-".join(name_key(shown)).encode("ascii", "ignore").decode()
        base = re.sub(r"[^a-z0-9]+", "-", base).strip("-")
        if not base:  # a name in a script without ASCII letters: a hash, stable and unique enough
            base = "a-" + hashlib.sha1(shown.encode("utf-8")).hexdigest()[:8]
        elif base == "page":  # authors/page/<n>/ are the index's own pages
            base = "page-author"
        wanted[base].append(entry)
    slugs: dict[tuple, str] = {}
    taken = set(wanted)
    for base, entries in sorted(wanted.items()):
        if len(entries) == 1:
            slugs[entries[0][0]] = base
            continue
        # The declared person, else the one without an ORCID, else the first by ORCID keeps the plain slug.
        entries.sort(key=lambda e: (e[0][0] != "site", bool(e[3].orcid), e[3].orcid, e[1], repr(e[0])))
        slugs[entries[0][0]] = base
        for entry in entries[1:]:
            orcid = entry[3].orcid
            tag = orcid.replace("-", "")[-4:].lower() if orcid else hashlib.sha1(entry[1].encode()).hexdigest()[:6]
            slug, n = f"{base}-{tag}", 2
            while slug in taken:
                slug, n = f"{base}-{tag}-{n}", n + 1
            taken.add(slug)
            slugs[entry[0]] = slug
    return slugs


def find_members(authors: tuple[Author, ...], names: tuple[str, ...],
                 places: tuple[tuple[str, int | None], ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The author page paths of site.yaml's `people: members:`, and a warning for each member
    no author of the catalog is: a member is the person any of whose spellings folds to the
    member's name as people are merged (accents, case, punctuation, "Last, First")."""
    if not names:
        return frozenset(), ()
    wanted = {name_key(name): name for name in names}
    paths, met = set(), set()
    for author in authors:
        keys = {name_key(author.name), *map(name_key, author.spellings)} & wanted.keys()
        if keys:
            paths.add(urls.path_of(author))
            met |= keys
    warnings = []
    shown = sorted({author.name for author in authors})
    for (key, name), (file, line) in zip(wanted.items(), places):
        if key not in met:
            close = difflib.get_close_matches(name, shown, 1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            warnings.append(f"warning: {file}:{line}: people: members: '{name}' wrote no paper in the catalog{hint}")
    return frozenset(paths), tuple(warnings)
