"""Titles for abstracts that arrive without one (seed text), and the mark that says so.

derive_title picks the phrase of the abstract (or "Name: phrase" when it
introduces a coined name) with the highest expected content-word overlap with
the real title, under word probabilities learned from real (abstract, title)
pairs (title_model.py), and shapes it as a title. docs/derived-titles.md says
how the method was chosen and how well it does on abstracts it was not tuned on.
A pure function of the abstract: imports are deterministic and easy to test.
"""
from __future__ import annotations

import re

from ..model import TITLE_SOURCE_DERIVED, title_hash, title_is_derived
from .title_model import PLACEHOLDER_OPEN, Doc, degenerate_reason, phrase_may_end, rank, restore_math

__all__ = ["derive_title", "title_mark", "title_is_derived", "MAX_TITLE_LEN"]

MAX_TITLE_LEN = 90

# Lower-cased in titles unless first or right after a colon (Chicago style,
# which is what "GALA3D: Generative 3D Gaussians with Layout-Guided Control" uses).
_SMALL_WORDS = frozenset(
    "a an the and but or nor for of on in to at by with from as into via vs "
    "versus over per upon onto than under across between through toward towards "
    "within without among amid beyond about against".split()
)

_HYPHEN = re.compile(r"(-)")


def _case_word(word: str, force_cap: bool) -> str:
    """Title-case one word, part by part across hyphens ("layout-guided")."""
    if word.isalpha() and word.isascii() and word.islower():  # most words: the branches below, in short
        return word if not force_cap and word in _SMALL_WORDS else word[0].upper() + word[1:]
    parts = _HYPHEN.split(word) if "-" in word else [word]
    out = []
    for i, p in enumerate(parts):
        bare = p.strip("\"',.;:")
        if not bare or p == "-" or PLACEHOLDER_OPEN in p or any(map(str.isupper, p)):
            out.append(p)  # acronyms, names, math: keep as written
        elif bare.lower() in _SMALL_WORDS and (i > 0 or (not force_cap and len(parts) == 1)):
            out.append(p.lower())  # "with", "text-to-music", "state-of-the-art"
        else:
            j = p.index(bare[0])
            out.append(p[:j] + p[j].upper() + p[j + 1:])
    return "".join(out)


def _title_case(s: str) -> str:
    words = s.split()
    out = []
    for i, w in enumerate(words):
        force = i == 0 or words[i - 1].endswith(":")
        out.append(_case_word(w, force))
    return " ".join(out)


_MIXED_CASE = re.compile(r"\b([A-Z])([A-Z])([a-z]{3,})")


def _unmix_case(s: str) -> str:
    """'GAussians with LAyout-guided' -> 'Gaussians with Layout-guided'.

    Papers highlight the letters of their acronym inside the expansion; a title
    should not.
    """
    return _MIXED_CASE.sub(lambda m: m.group(1) + m.group(2).lower() + m.group(3), s)


def _shape(tokens: list[str], math: list[str], budget: int) -> str:
    """Phrase tokens -> title text: title case, math restored, within budget characters."""
    words = list(tokens)
    while True:
        text = restore_math(_title_case(_unmix_case(" ".join(words))), math)
        if len(text) <= budget or len(words) <= 2:
            return text
        words.pop()
        while len(words) > 2 and not phrase_may_end(words[-1]):
            words.pop()


_NON_WORD = re.compile(r"\W+")
_WE = re.compile(r"we\b", re.I)
# What \W matches in ASCII text (all but letters, digits and "_"), as spaces: a str.translate
# table, which runs several times faster than the regex.
_SPACE_FOR_NON_WORD = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


def _norm(s: str) -> str:
    """The words of s, lower-cased, one space apart."""
    if s.isascii():
        return " ".join(s.translate(_SPACE_FOR_NON_WORD).split()).lower()
    return _NON_WORD.sub(" ", s).strip().lower()


def derive_title(abstract: str) -> str:
    """Derive a short, recognisable title from an abstract.

    The phrase (or "Name: phrase") of the abstract most likely to share its
    content words with the real title; see title_model.py. The result is at
    most MAX_TITLE_LEN characters, never starts with "We", never ends in
    punctuation, keeps $math$ intact and is never the abstract's whole first
    sentence. Deterministic.
    """
    doc = Doc(abstract)
    if not doc.sentence_texts:
        return "Untitled"
    low = abstract.lower()
    position = "position" in low and " position paper" in " ".join(low.split())  # ICML's "Position: ..." convention
    prefix = "Position: " if position else ""
    name, tokens = rank(doc)
    if name:
        prefix += restore_math(_unmix_case(name), doc.math) + ": "
    title = (prefix + _shape(tokens, doc.math, MAX_TITLE_LEN - len(prefix))) if tokens else ""
    first = _norm(restore_math(doc.sentence_texts[0], doc.math))
    if not title or _norm(title) == first or degenerate_reason(title) or _WE.match(title):
        title = _fallback(doc)
    return title


def _fallback(doc) -> str:
    """No usable phrase (a one-line or odd abstract): its opening words, cut to a title."""
    words = [w.strip("\"'()[],.;:!?") for w in doc.sentence_texts[0].split()[:8]]
    words = [w for w in words if w]
    while words and words[0].lower() in ("we", "in", "this", "here"):
        words = words[1:]
    first = _norm(restore_math(doc.sentence_texts[0], doc.math))
    while words and (not phrase_may_end(words[-1]) or _norm(" ".join(words)) == first):
        words.pop()
    text = restore_math(_title_case(" ".join(words)), doc.math) if words else ""
    if not text or len(text) > MAX_TITLE_LEN or text.count("$") % 2:
        return "Untitled"
    return text


# ---------------------------------------------------------------------------
# The derived-title mark
# ---------------------------------------------------------------------------

def title_mark(title: str) -> dict:
    """Front matter that marks title as derived from the abstract, for the importer to add:
    {"title_source": "derived:<hash of the title>"}. The build shows the mark only while
    the title still has that hash, so editing the title removes it with no second edit."""
    return {"title_source": f"{TITLE_SOURCE_DERIVED}:{title_hash(title)}"}


