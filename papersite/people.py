"""The catalog's people: every author once, however their name was spelled.

    people = collect_people(papers, config.authors)   # papers in catalog order
    people.authors      # Author per person, A-Z by surname
    people.bylines      # paper id -> ((name as written, Author), ...)

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

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .model import Paper, Person

_PUNCTUATION = re.compile(r"[^\w]+")
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})  # "Jr." is not a given name or a surname


@dataclass(frozen=True, eq=False)
class Author:
    """One person of the catalog: their page lives at authors/<slug>/.

    Compared by identity: a build makes each Author once, and pages compare
    what they show (names, slugs, papers), never Author objects."""

    slug: str
    name: str  # as shown
    sort_key: tuple[str, str]  # (surname, given names), folded: the A-Z order
    person: Person  # merged details: orcid, affiliation, url
    spellings: tuple[str, ...]  # every way the catalog writes the name, sorted
    papers: tuple[Paper, ...]  # newest year first, then by title

    @property
    def letter(self) -> str:
        """The heading this person is listed under in the A-Z index."""
        first = self.sort_key[0][:1].upper()
        return first if first.isalpha() and first.isascii() else "#"


@dataclass(frozen=True)
class People:
    authors: tuple[Author, ...] = ()
    bylines: dict[str, tuple[tuple[str, Author], ...]] = field(default_factory=dict)


def fold(text: str) -> str:
    """'Tim Rocktäschel' -> 'tim rocktaschel': accents, case and punctuation gone."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    # Letters NFKD does not decompose (ø, ł, ß) fold by hand; the rest is case-folded.
    bare = bare.translate(_LETTERS).casefold()
    return " ".join(_PUNCTUATION.sub(" ", bare).replace("_", " ").split())


_LETTERS = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "AE",
                          "œ": "oe", "Œ": "OE", "ß": "ss", "ı": "i", "þ": "th", "ð": "d"})


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


def collect_people(papers: tuple[Paper, ...] | list[Paper], declared: tuple[Person, ...] = ()) -> People:
    """Everyone who wrote one of `papers` (in catalog order: earlier papers' details win
    after site.yaml's), merged as the module docstring says."""
    # A group is a person in the making: site.yaml's are ("site", i), others ("name", key, orcid).
    site_orcid = {p.orcid: ("site", i) for i, p in enumerate(declared) if p.orcid}
    site_names: dict[tuple, tuple] = {}
    for i, person in enumerate(declared):
        for spelling in (person.name, *person.aliases):
            site_names.setdefault(name_key(spelling), ("site", i))  # the first declaration wins a clash

    mentions: list[tuple[Paper, int, Person, tuple]] = []  # (paper, position, person, group)
    orcids_of: dict[tuple, set[str]] = defaultdict(set)  # name key -> ORCIDs its undeclared holders have
    for paper in papers:
        people = paper.people if len(paper.people) == len(paper.authors) else tuple(map(Person, paper.authors))
        for position, person in enumerate(people):
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
            mentions.append((paper, position, person, group))

    # Groups of one name without an ORCID join its only ORCID holder.
    merged: dict[tuple, tuple] = {}
    for key, orcids in orcids_of.items():
        if len(orcids) == 1:
            merged[("name", key, "")] = ("name", key, next(iter(orcids)))

    # Initials: a group whose key abbreviates the keys of exactly one other group joins it.
    keys_of: dict[tuple, set[tuple]] = defaultdict(set)  # group -> its name keys
    for group, key in site_names.items():
        keys_of[key].add(group)
    for _, _, _, group in mentions:
        if group[0] == "name":
            keys_of[merged.get(group, group)].add(group[1])
    by_surname: dict[str, list[tuple[tuple, tuple]]] = defaultdict(list)  # surname -> (key, group)
    for group, keys in keys_of.items():
        for key in keys:
            by_surname[key[-1]].append((key, group))
    for group in sorted(keys_of, key=repr):
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

    members: dict[tuple, list[tuple[Paper, int, Person]]] = defaultdict(list)
    for paper, position, person, group in mentions:
        members[resolve(group)].append((paper, position, person))

    made = []  # (group, shown name, sort key, details, spellings, papers)
    for group, entries in members.items():
        uses = Counter(person.name for _, _, person in entries)
        declared_person = declared[group[1]] if group[0] == "site" else None
        if declared_person is not None:
            shown = declared_person.name
        else:
            shown = max(uses, key=lambda s: _completeness(s, uses[s]))
        details = {"orcid": "", "affiliation": "", "url": ""}
        for source in ([declared_person] if declared_person else []) + [p for _, _, p in entries]:
            for name in details:
                details[name] = details[name] or getattr(source, name)
        key = name_key(shown) or (shown,)
        papers_of = sorted({paper.id: paper for paper, _, _ in entries}.values(),
                           key=lambda p: (-p.year, _newest_first(p.date), p.title.casefold(), p.id))
        made.append((group, shown, (key[-1], " ".join(key[:-1])), Person(shown, **details),
                     tuple(sorted(uses)), tuple(papers_of)))
    slugs = _slugs(made)
    built = {m[0]: Author(slugs[m[0]], *m[1:]) for m in made}

    bylines: dict[str, list[tuple[str, Author]]] = defaultdict(list)
    for paper, position, person, group in mentions:
        bylines[paper.id].append((person.name, built[resolve(group)]))
    authors = tuple(sorted(built.values(), key=lambda a: (a.sort_key, a.name, a.slug)))
    return People(authors, {paper_id: tuple(line) for paper_id, line in bylines.items()})


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
        entries.sort(key=lambda e: (e[0][0] != "site", bool(e[3].orcid), e[3].orcid, e[1]))
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
