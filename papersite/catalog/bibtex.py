"""BibTeX: citation keys unique across the catalog, entries, and .bib files.

Entries are written for BibTeX and biber alike: the entry type follows the
venue's kind, names are in `von Last, Jr., First` form, LaTeX specials are
escaped outside $math$, and every value is brace-balanced as BibTeX counts
braces (it counts `\\{` too), so no title can end its entry or start another.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from operator import attrgetter
from typing import Iterable

from ..model import ISSUER_KINDS, Paper, Venue

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# Title words a key never starts with, as in Google Scholar's keys ("vaswani2017attention").
STOPWORDS = frozenset("""a an the and or of on in for to with without from by at as into onto via is are be
do does can we our its it what when where why how which towards toward beyond vs versus not no new""".split())
JR = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
# A name with one of these words is an organisation: braced, so BibTeX never splits it into parts.
ORGANISATION_WORDS = frozenset("""collaboration consortium team group project committee association society
foundation institute institution laboratory laboratories lab labs university council network initiative
organization organisation corporation company inc inc. ltd ltd. llc gmbh research alliance centre center agency
department ministry office board contributors developers authors""".split())

# TeX that does input/output, defines or renames macros, or rebuilds control sequences from
# characters could read or write files when the .bib is typeset: math holding one is written as text.
_UNSAFE_TEX = re.compile(
    r"\\(?:input|include|includeonly|endinput|openin|openout|read|readline|write|immediate|special|closein|"
    r"closeout|csname|endcsname|catcode|uccode|lccode|mathcode|sfcode|def|edef|gdef|xdef|let|futurelet|"
    r"expandafter|noexpand|newcommand|renewcommand|providecommand|DeclareRobustCommand|DeclareMathOperator|"
    r"newenvironment|renewenvironment|usepackage|RequirePackage|documentclass|InputIfFileExists|IfFileExists|"
    r"directlua|luaexec|latelua|ShellEscape|scantokens|lowercase|uppercase|string|detokenize|begin|end|"
    r"makeatletter|makeatother|every[a-z]*|output|primitive|pdf[a-z]*|font|href|url|includegraphics|"
    r"verbatiminput|lstinputlisting|loop|repeat|jobname|afterassignment|aftergroup)(?![A-Za-z])"
    r"|\^\^|[@#%&]")
_MATH = re.compile(r"(?<!\\)\$[^$]+(?<!\\)\$")
_NEEDS_ESCAPING = re.compile(r"[&%#_$~^\\{}]|\s\s|[^\S ]")
_TEXT_SPECIALS = {"&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
_TEXT_SPECIAL = re.compile(r"[&%#_$~^\\{}]")
# Braces in text: escaped while they nest; an unbalanced one is spelled out, since BibTeX
# counts `\{` as a brace too and would read past the end of the value.
_BALANCED_BRACES = {"{": r"\{", "}": r"\}"}
_UNBALANCED_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


# --- names ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Name:
    """A person's name in its BibTeX parts, or an organisation (`literal`, never split)."""

    first: str = ""
    von: str = ""
    last: str = ""
    jr: str = ""
    literal: str = ""  # an organisation, or a name that cannot be split safely


@functools.lru_cache(maxsize=65_536)  # a name recurs on every paper of its author, in every format
def split_name(name: str) -> Name:
    """'Ludwig van Beethoven' -> first 'Ludwig', von 'van', last 'Beethoven'.

    Names are written in display order ('Martin Luther King Jr.', 'Martin
    Luther King, Jr.') or in BibTeX order ('van Beethoven, Ludwig'). A
    mononym, an organisation and anything with 'and', '&' or digits is a
    literal.
    """
    name = " ".join(name.split())
    if name.startswith("{") and name.endswith("}") and _balanced(name[1:-1]):
        return Name(literal=name[1:-1].strip())
    words = name.split(" ")
    lowered = {w.lower().strip(",") for w in words}
    if (len(words) == 1 or lowered & ORGANISATION_WORDS or "and" in lowered or "&" in name
            or any(c.isdigit() for c in name) or "{" in name or "}" in name):
        return Name(literal=name)
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and parts[1].lower() in JR:  # 'Martin Luther King, Jr.'
        return _display_order(parts[0].split(" "), parts[1])
    if len(parts) == 2 and all(parts):  # 'van Beethoven, Ludwig'
        von, last = _von_last(parts[0].split(" "))
        return Name(first=parts[1], von=von, last=last)
    if len(parts) == 3 and all(parts):  # 'King, Jr., Martin Luther'
        von, last = _von_last(parts[0].split(" "))
        return Name(first=parts[2], von=von, last=last, jr=parts[1])
    if len(parts) > 1:
        return Name(literal=name)
    if len(words) > 2 and words[-1].lower() in JR:
        return _display_order(words[:-1], words[-1])
    return _display_order(words, "")


def _display_order(words: list[str], jr: str) -> Name:
    """BibTeX's rule for 'First von Last': von runs from the first to the last lower-case word
    before the last word."""
    if len(words) == 1:
        return Name(last=words[0], jr=jr)
    lower = [i for i in range(1, len(words) - 1) if _is_lower(words[i])]
    if lower:
        start, stop = lower[0], lower[-1] + 1
        return Name(" ".join(words[:start]), " ".join(words[start:stop]), " ".join(words[stop:]), jr)
    return Name(" ".join(words[:-1]), "", words[-1], jr)


def _von_last(words: list[str]) -> tuple[str, str]:
    """'van der Berg' -> ('van der', 'Berg'); the last word is always the last name."""
    cut = 0
    while cut < len(words) - 1 and _is_lower(words[cut]):
        cut += 1
    return " ".join(words[:cut]), " ".join(words[cut:])


def _is_lower(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return bool(letters) and letters[0].islower()


def bibtex_name(name: str) -> str:
    """A name as BibTeX reads it: 'van Beethoven, Jr., Ludwig', '{OpenAI}'."""
    parts = split_name(name)
    if parts.literal:
        return "{" + escape(parts.literal) + "}"
    last = escape(" ".join(filter(None, (parts.von, parts.last))))
    pieces = [last] + ([escape(parts.jr)] if parts.jr else []) + ([escape(parts.first)] if parts.first else [])
    return ", ".join(pieces)


# --- escaping -------------------------------------------------------------------------------------

def escape(text: str) -> str:
    """LaTeX for a field value: specials escaped outside $math$; math kept when it is
    brace-balanced and holds no command that could reach a file; braces balanced as BibTeX
    counts them (escaped ones too)."""
    if not _NEEDS_ESCAPING.search(text):
        return text.strip()  # most titles and names
    text = " ".join(text.split())
    pieces, last = [], 0
    for match in _MATH.finditer(text):
        pieces.append((False, text[last:match.start()]))
        math = match.group(0)
        safe = _balanced(math) and not _UNSAFE_TEX.search(math)
        pieces.append((safe, math))
        last = match.end()
    pieces.append((False, text[last:]))
    plain = "".join(piece for is_math, piece in pieces if not is_math)
    table = {**_TEXT_SPECIALS, **(_BALANCED_BRACES if _balanced(plain) else _UNBALANCED_BRACES)}
    return "".join(piece if is_math else _TEXT_SPECIAL.sub(lambda m: table[m.group(0)], piece)
                   for is_math, piece in pieces)


def _balanced(text: str) -> bool:
    """Braces nest as BibTeX counts them: every brace, escaped or not."""
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _verbatim(url: str) -> str:
    """url and doi are read verbatim by biblatex and the url package: only what would unbalance
    the value is percent-encoded."""
    return url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


# --- keys -----------------------------------------------------------------------------------------

def base_key(paper: Paper) -> str:
    """surname + year + first significant title word: 'vanbeethoven2024grokking'."""
    return _base_key(paper.authors[0] if paper.authors else "", paper.venue, paper.year, paper.title)


@functools.lru_cache(maxsize=65_536)  # every rebuild assigns every key again
def _base_key(author: str, venue: str, year: int, title: str) -> str:
    if author:
        parts = split_name(author)
        words = _words(parts.literal) if parts.literal else _words(parts.von + parts.last)
        surname = "".join(words) if not parts.literal else next(
            (w for w in words if w not in STOPWORDS), "".join(words))
    else:
        surname = "".join(_words(venue.split("-")[0]))
    title_words = [w for w in _words(_MATH.sub(" ", title)) if w not in STOPWORDS and not w.isdigit()]
    word = title_words[0] if title_words else "paper"
    return f"{surname[:24] or 'anon'}{year}{word[:24]}"


def _words(text: str) -> list[str]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z0-9]+", ascii_text)


def _suffix(n: int) -> str:
    """0 -> '', 1 -> 'b', 2 -> 'c', ..., 25 -> 'z', 26 -> 'aa': the first paper keeps the bare key."""
    n += 1
    letters = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return "" if letters == "a" else letters


def assign_keys(papers: Iterable[Paper], bases: dict[tuple, str] | None = None) -> dict[str, str]:
    """Paper id -> citation key, unique across the catalog (also ignoring case, as BibTeX does).

    A hand-set `bibtex_key` wins (duplicates are caught by the catalog). Made keys that
    collide get a suffix b, c, ... in the order the papers were first imported (`added`,
    then id; papers without `added` first), so an import never renames an older paper's key.
    Bare keys are handed out before any suffix, so a new paper never takes another's bare key.
    `bases`: the bare keys made last time, by what they are made of (first author, venue,
    year, title); updated to this catalog's (a `build` keeps them, as a warm session keeps
    the lru_cache of _base_key).
    """
    global _last_assignment
    papers = list(papers)
    inputs = list(map(_KEY_INPUTS, papers))
    last = _last_assignment
    # A rebuild after an edit to an abstract assigns the same keys: found in one C-speed pass;
    # after a retitle, only the keys of the bare keys the paper leaves and joins are given again.
    known = bases if bases is not None else {}
    if last is None or not (last.inputs == inputs or last.follow(inputs, known)):
        last = _last_assignment = _Assignment.of(papers, inputs, known)
    if bases is not None:
        bases.clear()
        bases.update(last.made)
    return dict(last.keys)


class _Assignment:
    """What assign_keys worked out: the papers' inputs, keys, bare keys by what they are made of,
    the papers of each bare key (in their order of suffixes), every key taken, the hand-set ones
    (casefolded), and the keys a suffix skipped because they were taken."""

    def __init__(self, inputs, keys, made, groups, taken, hand, skipped):
        self.inputs, self.keys, self.made = inputs, keys, made
        self.groups, self.taken, self.hand, self.skipped = groups, taken, hand, skipped
        self.by_id = {row[0]: row for row in inputs}

    @classmethod
    def of(cls, papers: list[Paper], inputs: list[tuple], known: dict[tuple, str]) -> "_Assignment":
        keys = {p.id: p.bibtex_key for p in papers if p.bibtex_key}
        taken = {key.casefold() for key in keys.values()}
        hand = frozenset(taken)
        groups: dict[str, list[Paper]] = defaultdict(list)
        made = {}
        for paper, row in zip(papers, inputs):
            if not paper.bibtex_key:
                what = _what(row)
                base = made[what] = known.get(what) or _base_key(*what)
                groups[base].append(paper)
        queues, skipped = {}, set()
        for base in sorted(groups):
            members = groups[base]
            if len(members) > 1:
                members.sort(key=lambda p: (p.added, p.id))
            if base not in taken:
                keys[members[0].id] = base
                taken.add(base)
                members = members[1:]
            if members:
                queues[base] = members
        for base in sorted(queues):
            n = 0
            for paper in queues[base]:
                n += 1
                key = base + _suffix(n)
                while key in taken:
                    skipped.add(key)
                    n += 1
                    key = base + _suffix(n)
                keys[paper.id] = key
                taken.add(key)
        return cls(inputs, keys, made, {base: [p.id for p in ps] for base, ps in groups.items()}, taken, hand,
                   skipped)

    def follow(self, inputs: list[tuple], known: dict[tuple, str]) -> bool:
        """Updated to these inputs if the papers are the same, no hand-set key or `added` changed,
        and at most one paper's bare key did (see _move); False, and left as it was, otherwise.
        Bare keys made here are added to `known`."""
        by_id = self.by_id
        if len(inputs) != len(by_id):
            return False
        changed = [(by_id.get(row[0]), row) for row in inputs if by_id.get(row[0]) != row]
        moved = None
        for was, now in changed:
            if was is None or was[5] or now[5] or was[6] != now[6]:  # a paper came, a hand-set key, a new `added`
                return False
            if _what(was) != _what(now):
                if moved is not None:
                    return False
                moved = was, now
        if moved is not None and not self._move(*moved, known):
            return False
        self.inputs = inputs
        by_id.update((row[0], row) for _, row in changed)
        return True

    def _move(self, was: tuple, now: tuple, known: dict[tuple, str]) -> bool:
        """One paper's bare key made of `now` rather than `was`: the keys of the papers of its old
        bare key and of its new one given again, as assign_keys gives them, if no other key can
        move: each group's keys had no gap (no suffix skipped a key taken), the keys they take
        now were nobody's, and the keys they let go no suffix skipped."""
        paper_id, before, after = now[0], _what(was), _what(now)
        old = self.made[before]
        new = known[after] = self.made.get(after) or known.get(after) or _base_key(*after)
        shared = any(_what(self.by_id[m]) == before for m in self.groups[old] if m != paper_id)
        regrouped = {}
        if new != old:
            order = lambda m: (self.by_id[m][6], m)  # noqa: E731  (added, id): the order of suffixes
            regrouped = {old: [m for m in self.groups[old] if m != paper_id],
                         new: sorted([*self.groups.get(new, ()), paper_id], key=order)}
        taking, freeing, keys = set(), set(), {}
        for base, members in regrouped.items():
            had = self.groups.get(base, [])
            held = self._keys_of(base, len(had))
            if [self.keys[m] for m in had] != held:
                return False
            given = self._keys_of(base, len(members))
            keys.update(zip(members, given))
            taking.update(set(given) - set(held))
            freeing.update(set(held) - set(given))
        if taking & self.taken or freeing & self.skipped:
            return False
        if not shared:
            del self.made[before]
        self.made[after] = new
        for base, members in regrouped.items():
            if members:
                self.groups[base] = members
            else:
                del self.groups[base]
        self.taken -= freeing
        self.taken |= taking
        self.keys.update(keys)
        return True

    def _keys_of(self, base: str, count: int) -> list[str]:
        """The keys of `count` papers of one bare key, in order, where no suffix skips a key."""
        first = 0 if base not in self.hand else 1
        return [base + _suffix(n) for n in range(first, first + count)]


def _what(row: tuple) -> tuple:
    """What a paper's bare key is made of, from its _KEY_INPUTS row."""
    return (row[1][0] if row[1] else "", row[2], row[3], row[4])


_KEY_INPUTS = attrgetter("id", "authors", "venue", "year", "title", "bibtex_key", "added")
_last_assignment: _Assignment | None = None  # what the last call worked out


# --- entries --------------------------------------------------------------------------------------

# Each venue kind's entry type, and the field that names the venue.
ENTRY_FORMS = {"conference": ("inproceedings", "booktitle"), "workshop": ("inproceedings", "booktitle"),
               "journal": ("article", "journal"), "preprint": ("misc", "howpublished"),
               "thesis": ("phdthesis", "school"), "report": ("techreport", "institution"),
               "book": ("book", "publisher"), "collection": ("incollection", "booktitle")}
_MASTERS = re.compile(r"\bmaster|\bmathesis\b", re.IGNORECASE)  # biblatex's type for a master's thesis: mathesis


def entry_form(paper: Paper, venue: Venue) -> tuple[str, str]:
    """The paper's BibTeX entry type and the field naming its venue; a thesis that says it is a
    master's (in BibTeX's `type` or CSL's `genre`) is a @mastersthesis."""
    kind, field_name = ENTRY_FORMS[venue.kind]
    if kind == "phdthesis" and _MASTERS.search(f"{paper.extra.get('type', '')} {paper.extra.get('genre', '')}"):
        kind = "mastersthesis"
    return kind, field_name


_LABELS = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis", "techreport": "Technical report"}


def work_label(paper: Paper, venue: Venue) -> str:
    """What a paper page calls a work that is not a paper of its venue ("" for a paper, or a book)."""
    return _LABELS.get(entry_form(paper, venue)[0], "")


_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/([a-z.-]+/\d{7}|\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)
_DOI = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\..+)$", re.IGNORECASE)


def arxiv_id(paper: Paper) -> str:
    """The arXiv identifier without its version: '2402.07207', 'hep-th/9901001'."""
    for kind, url in paper.links:
        if kind == "arxiv":
            match = _ARXIV.search(url)
            return match.group(1) if match else ""
    return ""


def primary_class(paper: Paper, eprint: str) -> str:
    """From extra (an arXiv import's primary category) or an old-style id ('hep-th/9901001')."""
    for name in ("primary_class", "primaryClass", "primary_category", "arxiv_primary_category"):
        value = paper.extra.get(name)
        if isinstance(value, str) and re.fullmatch(r"[A-Za-z-]+(\.[A-Za-z-]+)?", value.strip()):
            return value.strip()
    return eprint.split("/")[0] if "/" in eprint else ""


def doi(paper: Paper) -> str:
    """The bare DOI ('10.1234/x') of a doi link."""
    for kind, url in paper.links:
        if kind == "doi":
            match = _DOI.match(url)
            return match.group(1) if match else ""
    return ""


@dataclass(frozen=True)
class Printed:
    """Where in its venue a paper appeared: volume, issue, pages and publisher, as text ("" unknown)."""

    volume: str = ""
    issue: str = ""
    first_page: str = ""
    last_page: str = ""
    publisher: str = ""

    @property
    def pages(self) -> str:
        """"12-34", or "12" (a paper that is one page, or numbered as an article: "e1001")."""
        return f"{self.first_page}-{self.last_page}" if self.last_page else self.first_page


_PAGE_RANGE = re.compile(r"\s*(?:-{1,3}|\u2013|\u2014)\s*")


# The last (paper, venue, Printed): a paper page asks five times in a row (the page, its BibTeX,
# RIS, CSL-JSON and Scholar tags). By identity: a Paper and a Venue are frozen, and held here
# they cannot be freed and their ids reused.
_last_printed: tuple = (None, None, None)


def printed(paper: Paper, venue: Venue) -> Printed:
    """The paper's `extra:` fields that say where it appeared, under the names the importers keep
    them by (BibTeX's volume, number, pages, publisher; CSL-JSON's issue and page; RIS's start_page
    and end_page), for the citation exports and Google Scholar. A value that is not a short line
    of text or a number is left out."""
    global _last_printed
    last = _last_printed
    if last[0] is paper and last[1] is venue:
        return last[2]
    where = _printed(paper, venue)
    _last_printed = (paper, venue, where)
    return where


def _printed(paper: Paper, venue: Venue) -> Printed:
    def text(*names: str) -> str:
        for name in names:
            value = paper.extra.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                return str(value)
            if isinstance(value, str) and value.strip() and len(value) <= 100:
                return " ".join(value.split())
        return ""

    # a journal's number is its issue, a report's its own number; a proceedings' is a series'
    issue = text("issue", "number") if venue.kind in ("journal", "report") else text("issue")
    pages = text("pages", "page")
    first, last = (_PAGE_RANGE.split(pages) + [""])[:2] if pages else (text("start_page"), text("end_page"))
    if len(_PAGE_RANGE.split(pages)) > 2 or (last and not first):  # "12-15, 20-22": not one range
        first, last = pages, ""
    publisher = text("publisher") if venue.kind not in ISSUER_KINDS else ""  # the venue is its publisher
    return Printed(text("volume"), issue, first, last, publisher)


def bibtex_entry(paper: Paper, venue: Venue, url: str, key: str | None = None) -> str:
    """One entry; `key` from assign_keys (the base key when a paper is shown alone)."""
    fields = [("title", "{" + escape(paper.title) + "}")]  # inner braces keep the title's capitals
    if paper.authors:
        names = [bibtex_name(a) for a in paper.authors] + (["others"] if paper.et_al else [])  # BibTeX's "et al."
        fields.append(("author", " and ".join(names)))
    venue_name = escape(venue.full_name or venue.name)
    eprint = arxiv_id(paper)
    kind, venue_field = entry_form(paper, venue)
    if not (kind == "misc" and eprint):  # an arXiv preprint is identified by eprint; any other by where it was posted
        fields.append((venue_field, venue_name))
    fields.append(("year", str(paper.year)))
    where = printed(paper, venue)
    fields += [(name, escape(value)) for name, value in (
        ("volume", where.volume), ("number", where.issue),
        ("pages", f"{where.first_page}--{where.last_page}" if where.last_page else where.first_page),
        ("publisher", where.publisher)) if value]
    lines = [f"  {name} = {{{value}}}" for name, value in fields]
    if len(paper.date) >= 7:  # a macro, unquoted: each style prints the month in its own language
        lines.append(f"  month = {MONTHS[int(paper.date[5:7]) - 1]}")
    more = [("doi", _verbatim(doi(paper))), ("url", _verbatim(dict(paper.links).get("url") or url))]
    if eprint:
        more += [("eprint", eprint), ("archivePrefix", "arXiv"), ("primaryClass", primary_class(paper, eprint))]
    lines += [f"  {name} = {{{value}}}" for name, value in more if value]
    return f"@{kind}{{{key or base_key(paper)},\n" + ",\n".join(lines) + "\n}"


def bibtex_file(entries: Iterable[bytes]) -> bytes:
    """A .bib file of entries (UTF-8, in the order given), one blank line between them."""
    return b"\n\n".join(entries) + b"\n"
