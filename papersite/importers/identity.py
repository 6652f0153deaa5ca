"""Which paper a record is: its id, and how it is recognised again on a later import.

The id comes from the strongest identifier a record has: an OpenReview id, then
an arXiv id without its version, then a DOI, then the source's own key or UID
(prefixed by the venue: keys are only unique within one source), then a hash of
the normalised title. Seed abstracts have none of these: their id hashes the
abstract, and a later import finds them again by near-identical text.
"""
from __future__ import annotations

import hashlib
import re
import zlib
from collections import defaultdict
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Callable

from ..catalog.people import fold  # one folding rule for names and titles: accents and case go, other scripts stay

MAX_ID_CHARS = 80
SAME_TEXT = 0.8  # difflib ratio of the words: one word fixed in 15 scores 0.93; two abstracts of one field, under 0.4
SAMPLE = 4  # long abstracts are indexed by one 3-gram in SAMPLE: enough to find them, a quarter the memory


@lru_cache(maxsize=4096)  # a title is folded for its id, its match and its index entry
def title_key(title: str) -> str:
    return fold(title)


def family_name(name: str) -> str:
    """The last word of a display-order name: what two spellings of one person share most often."""
    words = fold(name).split()
    return words[-1] if words else ""


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def _safe(text: str) -> str:
    """An id part made of letters, digits, '.', '_' and '-' only (safe in URLs, YAML, BibTeX);
    a hash when nothing usable remains or it would be too long."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    if not safe or len(safe) > MAX_ID_CHARS - 12:
        return "h" + _hash(text)
    # '/' and ':' (DOIs, keys like smith:2024) become '-' as they are; anything else replaced
    # could make two keys one id ('[x]', '%x'): the original's hash keeps them apart
    return safe if re.sub(r"[/:]", "-", text) == safe else f"{safe}-{_hash(text)[:6]}"


def arxiv_id(value: str) -> str:
    """'arXiv:2402.07207v2', 'https://arxiv.org/abs/2402.07207v2' -> '2402.07207'; '' if not one."""
    match = re.search(r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?:\.pdf)?/?$", value.strip(), re.I)
    return match.group(1) if match else ""


def doi(value: str) -> str:
    """'https://doi.org/10.1234/AbC', 'doi:10.1234/abc' -> '10.1234/abc' (DOIs ignore case); '' if not one."""
    match = re.search(r"(10\.\d{4,9}/\S+)$", value.strip())
    return match.group(1).lower() if match else ""


def openreview_id(value: str) -> str:
    """'https://openreview.net/forum?id=AbC123' or a bare id -> 'AbC123'."""
    value = value.strip()
    match = re.search(r"[?&](?:id|noteId)=([A-Za-z0-9_-]+)", value)
    if match:
        return match.group(1)
    return value if re.fullmatch(r"[A-Za-z0-9_-]{5,40}", value) else ""


def identifiers(ids: dict, links: dict) -> list[tuple[str, str]]:
    """(kind, value) for every OpenReview id, arXiv id and DOI known from a record's ids or links
    (or a content file's links), strongest first."""
    found = []
    for kind, parse in (("openreview", openreview_id), ("arxiv", arxiv_id), ("doi", doi)):
        for value in (ids.get(kind), links.get(kind)):
            parsed = parse(value) if isinstance(value, str) and value else ""
            if parsed and (kind, parsed) not in found:
                found.append((kind, parsed))
    return found


def record_id(ids: dict, links: dict, title: str, abstract: str, venue_slug: str, first_author: str = "",
              strong: list[tuple[str, str]] | None = None) -> str:
    """The id of a new paper (see the module docstring for the order); strong: identifiers(ids, links)
    when the caller has them already."""
    strong = identifiers(ids, links) if strong is None else strong
    if strong:
        kind, value = strong[0]
        return f"{kind}-{_safe(value)}"
    venue = venue_slug.replace("-", "")
    if ids.get("key", "").strip():
        return f"{venue}-{_safe(ids['key'].strip())}"
    if title_key(title):  # with the first author: two papers of a venue may share a title
        return f"{venue}-t{_hash(title_key(title) + '|' + family_name(first_author))}"
    # Seed text: as the first importer made them, so their ids never change.
    return f"{venue}-{_hash(' '.join(abstract.lower().split()))}"


def _grams(words: list[str]) -> set[int]:
    if len(words) < 3:
        return {zlib.crc32(w.encode()) for w in words}
    return {zlib.crc32(" ".join(words[i:i + 3]).encode()) for i in range(len(words) - 2)}


class TextIndex:
    """Finds, within a venue, the abstract nearly identical to a given one (a typo fixed, a
    sentence corrected): candidates share a sampled word 3-gram, and the best difflib ratio of
    their words wins. A lookup costs a few dict probes and at most five comparisons, so
    10,000 papers stay fast."""

    def __init__(self):
        # (venue, 3-gram) as one int -> the item holding it, or a list when several do
        self._postings: dict[int, int | list[int]] = {}
        self._items: list[tuple[object, str]] = []  # (value, abstract)

    def add(self, venue: str, abstract: str, value: object) -> None:
        grams = _grams(fold(abstract).split())
        if not grams:
            return
        number = len(self._items)
        self._items.append((value, abstract))
        sampled = [g for g in grams if g % SAMPLE == 0] if len(grams) > 4 * SAMPLE else grams
        postings, place = self._postings, zlib.crc32(venue.encode()) << 32
        for gram in sampled or grams:
            held = postings.setdefault(place | gram, number)
            if held != number:
                if isinstance(held, int):
                    postings[place | gram] = [held, number]
                else:
                    held.append(number)

    def find(self, venue: str, abstract: str, usable: Callable[[object], bool] = lambda value: True) -> object | None:
        """The value added with the nearest abstract, among the usable ones."""
        if not self._items:
            return None
        words = fold(abstract).split()
        counts: dict[int, int] = defaultdict(int)
        place = zlib.crc32(venue.encode()) << 32
        for gram in _grams(words):
            held = self._postings.get(place | gram, ())
            for number in (held,) if isinstance(held, int) else held:
                counts[number] += 1
        best, best_score = None, SAME_TEXT
        for number in sorted(counts, key=lambda n: (-counts[n], n))[:5]:
            value, text = self._items[number]
            if not usable(value):
                continue
            matcher = SequenceMatcher(None, words, fold(text).split(), autojunk=False)
            if matcher.real_quick_ratio() < best_score or matcher.quick_ratio() < best_score:
                continue
            score = matcher.ratio()
            if score >= best_score and (best is None or score > best_score):
                best, best_score = value, score
        return best
