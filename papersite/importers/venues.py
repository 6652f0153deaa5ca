"""Which venue of site.yaml a record belongs to, and the venues an import adds to it.

A record names its venue as its source does (a booktitle, a journal, an
OpenReview venueid, a seed header). It is matched, ignoring case and
punctuation, against each declared venue's slug, name, full_name and aliases,
with the record's year appended when the name lacks one; a dated venue only
takes records of its year. A venue not declared yet is appended to site.yaml,
keeping the file's comments and layout.
"""
from __future__ import annotations

import codecs
import json
import re
from dataclasses import replace
from pathlib import Path

import yaml

from ..source.content import slugify
from ..errors import Problem, SiteError
from ..model import DATED_KINDS, VENUE_KINDS, Venue
from .identity import fold
from .writer import one_line, write_atomically

SLUG_WORDS = 6  # of a new venue's name in its slug, then its year
# "Proceedings of the 41st International Conference on Machine Learning": the venue is what follows
PROCEEDINGS = re.compile(r"^(?:(?:the\s+)?proceedings\s+of\s+(?:the\s+)?)?(?:\d+(?:st|nd|rd|th)\s+)(?=\w)|"
                         r"^(?:the\s+)?proceedings\s+of\s+(?:the\s+)?", re.IGNORECASE)
OPENREVIEW_VENUEID = re.compile(r"^(?P<org>[A-Za-z][\w-]*)\.[a-z]{2,4}/(?P<year>(?:19|20)\d\d)(?:/(?P<rest>.*))?$")


# A year or an ordinal anywhere, a volume number at the end ("... Processing Systems 33")
NUMBERS = re.compile(r"\b(?:(?:19|20)\d\d|\d+(?:st|nd|rd|th))\b|\b\d{1,3}$")
# The prose around a venue's name that says which edition it was, not which venue: "the", an
# ordinal ("13th", "Thirty-eighth"), "Proceedings of", a year and the punctuation closing a
# reference ("..., 2025."). Two years of one venue then read alike.
_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_ORDINAL = (rf"(?:\d+(?:st|nd|rd|th)|(?:{_TENS}[\s-]?)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|"
            rf"ninth|tenth|eleventh|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth)|"
            rf"(?:twen|thir|for|fif|six|seven|eigh|nine)tieth)")
EDITION = re.compile(rf"^(?:(?:the\s+)?proceedings\s+of\s+)?(?:the\s+)?(?:{_ORDINAL}\s+)?(?:(?:19|20)\d\d\s+)?",
                     re.IGNORECASE)
VOLUME = re.compile(r"[\s,;:]+(?:vol\.|volume)\s*\d+\b.*$", re.IGNORECASE)  # ", Volume 1 (Long Papers)"
YEAR_PROSE = re.compile(r"[\s,;:'-]*\b(?:19|20)\d\d$")  # a closing year; one within a name is its own
CLOSING = re.compile(r"[\s.,;:]+$")


def bare_name(name: str) -> str:
    """'the 13th International Conference on Learning Representations, 2025.' ->
    'International Conference on Learning Representations'; a name that is all edition stays."""
    name = CLOSING.sub("", name.strip())
    bare = CLOSING.sub("", YEAR_PROSE.sub("", VOLUME.sub("", EDITION.sub("", name, count=1)))).strip(" ,;:-")
    return bare or name


def _key(name: str) -> str:
    """How a known venue's name is looked up: folded, without edition, year, volume or "(ACRONYM)"."""
    return " ".join(NUMBERS.sub(" ", fold(re.sub(r"\([^()]*\)\s*$", "", bare_name(name)))).split())


def _known_venues() -> dict[str, tuple[str, str, str]]:
    """known_venues.json as key -> (short name, kind, long name); a short name is a key too."""
    table = json.loads(Path(__file__).with_name("known_venues.json").read_text(encoding="utf-8"))
    known = {}
    for short, entry in table.items():
        if not short.startswith("_"):
            known[_key(short)] = (short, entry["kind"], "")
            for long in entry["names"]:
                # another short name ("NIPS") is no long name to give as the full name
                known.setdefault(_key(long), (short, entry["kind"], long if " " in long else ""))
    return known


# The field's main venues, by the names exports give (Google Scholar's BibTeX: "Advances in Neural
# Information Processing Systems"): a new venue is named "NeurIPS 2020", and the record also finds
# a venue site.yaml declares so.
KNOWN_VENUES = _known_venues()


# A part of DBLP's booktitles: "Forty-first International Conference on Machine Learning, {ICML} 2024,
# Vienna, Austria, July 21-27, 2024"; "Computer Vision - {ECCV} 2020 - 16th European Conference, ..."
DATED_SHORT = re.compile(r"([A-Z][A-Za-z]*[A-Z][A-Za-z-]*) ((?:19|20)\d\d)")
PARTS = re.compile(r",\s*|\s+[-\u2013\u2014]+\s+")


def short_name(name: str, year: int | None) -> tuple[str, str, str]:
    """The name the field uses for the venue named `name` ("ICML 2024", or "NeurIPS" where the
    year is not in it), its long name where `name` is the long name and no more (else ""), and
    its kind ("" if the name is no known venue's); ("", "", "") when none is known."""
    if guess_kind(name) == "workshop":  # "..., ICML 2024" may close a workshop's name: not ICML's
        return "", "", ""
    for part in PARTS.split(name)[1:]:
        found = DATED_SHORT.fullmatch(part.strip())
        if found and (year is None or int(found[2]) == year):
            return found[0], "", KNOWN_VENUES.get(_key(found[1]), ("", "", ""))[1]
    short, kind, long = KNOWN_VENUES.get(_key(name), ("", "", ""))
    return short, "" if EDITION.match(name)[0] else long, kind  # "Proceedings of the 41st ...": as given


# The last part of a venueid that says where a submission stands, not where it appeared: its
# status (text.status_from), and the paper belongs to the venue it was submitted to.
SUBMISSION_STATE = re.compile(r"(?i)((desk_)?rejected_|withdrawn_)?submission")


def _usable_abbr(abbr: str, name: str, kind: str) -> str:
    """A short name the source gives, where it can name the venue: al-folio's `abbr` is a badge,
    which on a workshop paper is its conference's ("ICML") and on a preprint or thesis is no venue's."""
    abbr = one_line(abbr)
    if not abbr or len(abbr) > 24 or kind not in ("", "conference", "journal") or guess_kind(name) == "workshop":
        return ""
    return "" if re.search(r"\b(arxiv|preprint|corr|workshops?|thesis|phd)\b", abbr, re.IGNORECASE) else abbr


def openreview_venue(venueid: str) -> tuple[str, int, str] | None:
    """'ICLR.cc/2024/Conference' -> ('ICLR 2024', 2024, 'conference');
    'ICML.cc/2024/Workshop/GenBio' -> ('ICML 2024 Workshop GenBio', 2024, 'workshop');
    'ICLR.cc/2024/Conference/Rejected_Submission' -> ('ICLR 2024', 2024, 'conference')."""
    match = OPENREVIEW_VENUEID.match(venueid.strip())
    if not match:
        return None
    org, year, rest = match["org"], int(match["year"]), match["rest"] or ""
    parts = [p for p in rest.split("/") if p and p.lower() not in ("conference", "track")]
    if parts and SUBMISSION_STATE.fullmatch(parts[-1]):
        parts.pop()
    kind = "workshop" if any(p.lower() == "workshop" for p in parts) else "conference"
    return " ".join([org, str(year)] + [p.replace("_", " ") for p in parts]), year, kind


def guess_kind(name: str) -> str:
    words = fold(name)
    if re.search(r"\bworkshops?\b", words):
        return "workshop"
    if re.search(r"\b(arxiv|preprints?|biorxiv|medrxiv|ssrn)\b", words):
        return "preprint"
    if re.search(r"\b(journal|transactions|letters|review|magazine)\b", words):
        return "journal"
    return "conference"


SLUG_YEAR = re.compile(r"^(?P<name>.*?)-?(?P<year>(?:19|20)\d\d)$")


def likely_typo(slug: str, known: list[str], this_year: int | None = None) -> str:
    """The known slug a new one is most likely a typo of, or "". A new year of a known venue
    (uai-2020 beside uai-2019) is a venue of its own, unless no venue has that year yet
    (icml-2042: later than next year); so is another venue, however alike the names
    (iclr-2024 beside icml-2024, aacl-2024 beside acl-2024), unless it is a known slug with two
    neighbouring characters swapped (imcl-2024, icml-2204) or spelled otherwise (icml2024, icml)."""
    name, year = _name_and_year(slug)
    for other in known:
        other_name, other_year = _name_and_year(other)
        if name == other_name:
            if year and other_year and year != other_year and (this_year is None or int(year) <= this_year + 1):
                continue
            return other
        if len(slug) == len(other):
            differ = [i for i in range(len(slug)) if slug[i] != other[i]]
            if len(differ) == 2 and differ[1] == differ[0] + 1 and slug[differ[0]] == other[differ[1]] \
                    and slug[differ[1]] == other[differ[0]]:
                return other
    return ""


def _name_and_year(slug: str) -> tuple[str, str]:
    """'icml-2024' -> ('icml', '2024'); 'tmlr' -> ('tmlr', '')."""
    found = SLUG_YEAR.match(slug)
    return (found["name"], found["year"]) if found else (slug, "")


class Venues:
    """Resolves records to venues; remembers the venues to add to site.yaml."""

    def __init__(self, venues: tuple[Venue, ...], forced: str | None = None, option: str = "--venue",
                 this_year: int | None = None):
        self.declared = list(venues)
        self.added: list[Venue] = []
        self._keys: dict[str, list[Venue]] = {}
        self._kinds: dict[str, str] = {}  # slug -> kind
        self._resolved: dict[tuple[str, int | None, str], Venue | str] = {}
        for venue in venues:
            self._index(venue)
        self.forced: Venue | None = None
        self.to_declare = ""  # a --venue not in site.yaml yet
        if forced is not None:
            by_slug = {v.slug: v for v in venues}
            if forced in by_slug:
                self.forced = by_slug[forced]
                return
            hint = likely_typo(forced, sorted(by_slug), this_year)
            if hint:  # not a venue of its own unless site.yaml says so
                raise SiteError(Problem(option, None, f"unknown venue '{forced}'; did you mean '{hint}'? "
                                                      "(a new venue: declare it under 'venues:' in site.yaml)"))
            if slugify(forced) != forced:
                raise SiteError(Problem(option, None, f"'{forced}' is not a venue slug: lower-case letters, digits "
                                                      f"and dashes, such as '{slugify(forced) or 'icml-2024'}'"))
            self.to_declare = forced  # declared in site.yaml by the first record that takes it

    def kind(self, slug: str) -> str:
        """The kind of the venue of that slug, declared or added by this import ("" if neither)."""
        return self._kinds.get(slug, "")

    def _index(self, venue: Venue) -> None:
        self._kinds.setdefault(venue.slug, venue.kind)
        for key in {fold(venue.slug), fold(venue.name), fold(venue.full_name), *map(fold, venue.aliases)}:
            if key:
                self._keys.setdefault(key, []).append(venue)

    def resolve(self, name: str, year: int | None, kind: str, abbr: str = "") -> Venue | str:
        """The venue for a record's venue text and year, declaring it when new; or why there is none.
        `abbr`: the short name the source gives (al-folio's `abbr`). The same four give the same
        answer (most records of an export share them): kept."""
        if self.forced:
            return self.forced
        known = self._resolved.get((name, year, kind, abbr))
        if known is None:
            known = self._resolved[name, year, kind, abbr] = self._resolve(name, year, kind, abbr)
        return known

    def _resolve(self, name: str, year: int | None, kind: str, abbr: str = "") -> Venue | str:
        name = one_line(name)
        abbr = _usable_abbr(abbr, name, kind)
        if self.to_declare:
            venue = self._declare_forced(name, year, kind)
            self.forced = venue if isinstance(venue, Venue) else None
            return venue
        if not name:
            return "no venue: pass --venue SLUG to say which venue of site.yaml these papers belong to"
        openreview = openreview_venue(name)
        candidates = [name]
        if openreview:
            candidates.insert(0, openreview[0])
            year = year or openreview[1]
            kind = kind or openreview[2]
        candidates += [c for c in (PROCEEDINGS.sub("", name), bare_name(name)) if c not in candidates]
        short = short_name(name, year)[0] or (short_name(abbr, year)[0] if abbr else "")
        candidates += [c for c in (short, abbr) if c and c not in candidates]
        if year:
            candidates += [f"{c} {year}" for c in candidates if str(year) not in c]
        for candidate in candidates:
            for venue in self._keys.get(fold(candidate), ()):
                if year is None or venue.year is None or venue.year == year:
                    return venue
        return self._declare(name, year, kind, openreview, abbr=abbr)

    def _declare(self, name: str, year: int | None, kind: str, openreview, slug: str = "",
                 abbr: str = "") -> Venue | str:
        short, long, known_kind = short_name(name, year)
        if short and kind != "workshop":
            # the venue's own kind: Google Scholar exports conference papers as journal @articles
            kind = known_kind or "conference"
        elif abbr:  # the source's own short name: a known one's spelling ("NIPS"), else as given
            short, _, known_kind = short_name(abbr, year)
            short, long, kind = short or abbr, "", known_kind or kind
        kind = kind if kind in VENUE_KINDS else guess_kind(name)
        dated = kind in DATED_KINDS
        if dated and year is None:
            found = re.search(r"\b(19|20)\d\d\b", name)
            if not found:
                return f"no year: the venue '{name[:60]}' is a {kind}, which needs one; pass --venue SLUG"
            year = int(found.group())
        if openreview:
            short, full = openreview[0], ""
        elif short:
            dated_short = short if not dated or str(year) in short else f"{short} {year}"
            short, full = dated_short, long or CLOSING.sub("", name)
            full = "" if fold(full) in (fold(short), fold(short).removesuffix(f" {year}")) else full
        else:
            # "Proceedings of ... Machine Learning (ICML)" -> "ICML 2024", with the long form as full_name;
            # else the name without its edition's prose, so that its years are named alike
            given = re.search(r"\(([A-Z][A-Za-z]*[A-Z][A-Za-z-]*)[^()]*\)\s*$", name)
            short = given.group(1) if given and len(name) > 40 else bare_name(name)
            if dated and str(year) not in short:
                short = f"{short} {year}"
            same = (fold(short), fold(f"{short} {year}"), fold(short).removesuffix(f" {year}"))
            full = CLOSING.sub("", name) if fold(name) not in same else ""
        venue = Venue(slug or self._new_slug(short, year if dated else None), short, year if dated else None, full,
                      kind=kind)
        if not openreview and not any(fold(c) in (fold(venue.name), fold(full)) for c in (name, f"{name} {year}")):
            venue = replace(venue, aliases=(name,))
        self.added.append(venue)
        self._index(venue)
        return venue

    def _declare_forced(self, name: str, year: int | None, kind: str) -> Venue | str:
        """The --venue not in site.yaml, named as the record names its venue, else after its slug."""
        slug = self.to_declare
        venue = self._declare(name, year, kind, openreview_venue(name), slug) if name else None
        if not isinstance(venue, Venue):
            # "icml-2024" -> ICML 2024 (a guess at acronyms: the summary asks to check it)
            words = slug.split("-")
            named = " ".join(w.upper() if len(w) <= 4 and w.isalpha() else w.capitalize() for w in words)
            kind = kind if kind in VENUE_KINDS else guess_kind(named)
            if kind in DATED_KINDS:
                year = int(words[-1]) if re.fullmatch(r"(19|20)\d\d", words[-1]) else year
                if year is None:
                    return (f"no year: the new venue '{slug}' is a {kind}, which needs one; declare it under "
                            "'venues:' in site.yaml with its year")
            venue = Venue(slug, named, year if kind in DATED_KINDS else None, kind=kind)
            self.added.append(venue)
            self._index(venue)
        self.to_declare = ""
        return venue

    def _new_slug(self, name: str, year: int | None = None) -> str:
        """The first words of the name, and the year: a venue's years must not read alike."""
        words = [word for word in slugify(name).split("-") if word]
        if year is None or str(year) in words[:SLUG_WORDS]:
            words = words[:SLUG_WORDS]
        else:  # a long name: its first words, then its year
            words = [word for word in words if word != str(year)][:SLUG_WORDS] + [str(year)]
        base = "-".join(words) or "venue"
        taken = {v.slug for v in self.declared + self.added}
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        return slug


def append_venues(site_yaml: Path, venues: list[Venue]) -> None:
    """Add venues to site.yaml as text, at the end of its venues list, where a person would write
    the next one: after the last venue's last line, before any comment or blank line that
    follows it (the file's closing `# omit: [...]`, say, which must stay a key of its own to be
    uncommented). Every other byte of the file stays as it was, its line endings too."""
    if not venues:
        return
    data = site_yaml.read_bytes()
    bom = data.startswith(codecs.BOM_UTF8)
    text = data.decode("utf-8-sig")
    newline = "\r\n" if "\r\n" in text else "\n"
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    venues_node = next((value for key, value in (node.value if node else []) if key.value == "venues"), None)
    listed = isinstance(venues_node, yaml.SequenceNode) and venues_node.value and not venues_node.flow_style
    # indented as the list's own items are ("- slug" as PyYAML writes them, "  - slug" by hand)
    items = "".join(_venue_yaml(v, venues_node.start_mark.column if listed else 2) for v in venues)
    items = items.replace("\n", newline)
    if listed:
        at = _end_of_last_line(text, venues_node)
        prefix = text[:at] if text[:at].endswith("\n") else text[:at] + newline
        text = prefix + items + text[at:]
    elif isinstance(venues_node, yaml.SequenceNode) and not venues_node.value:  # venues: []
        start, end = venues_node.start_mark.index, venues_node.end_mark.index
        text = text[:start].rstrip(" ") + newline + items + text[end:].lstrip(" ").removeprefix(newline)
    elif venues_node is None:
        text = text.rstrip("\r\n") + newline * 2 + "venues:" + newline + items
    else:
        raise SiteError(Problem(site_yaml, venues_node.start_mark.line + 1,
                                "cannot add venues to this 'venues:' list automatically; add: "
                                + ", ".join(v.name for v in venues)))
    write_atomically(site_yaml, (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8"))


def _end_of_last_line(text: str, node) -> int:
    """Where the line after a block collection's last value starts: its last scalar (or flow
    collection) is found, and its end. A block scalar's end is after the blank lines that
    follow it, which are its own only when it keeps them (`|+`)."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    start, at = node.start_mark.index, node.end_mark.index
    line_end = text.find("\n", start)
    header = text[start:line_end if line_end >= 0 else len(text)]
    if not (isinstance(node, yaml.ScalarNode) and node.style in ("|", ">") and "+" in header):
        while at > start and text[at - 1] in " \t\r\n":
            at -= 1
    if text[at - 1:at] == "\n":  # a kept block scalar's end: the next line starts here
        return at
    end = text.find("\n", at)
    return len(text) if end < 0 else end + 1


def _venue_yaml(venue: Venue, indent: int) -> str:
    lines = [f"slug: {_plain_or_quoted(venue.slug)}", f"name: {json.dumps(venue.name, ensure_ascii=False)}"]
    if venue.year is not None:
        lines.append(f"year: {venue.year}")
    if venue.full_name:
        lines.append(f"full_name: {json.dumps(venue.full_name, ensure_ascii=False)}")
    lines.append(f"kind: {venue.kind}")
    if venue.aliases:
        lines.append(f"aliases: {json.dumps(list(venue.aliases), ensure_ascii=False)}")
    return "".join(" " * indent + ("- " if n == 0 else "  ") + line + "\n" for n, line in enumerate(lines))


def _plain_or_quoted(text: str) -> str:
    """A YAML scalar that reads back as this string: 'icml-2024' as is, '2024' quoted."""
    return text if yaml.safe_load(text) == text else json.dumps(text)
