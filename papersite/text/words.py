"""The text toolkit: stemmers and stop lists, shared by search, related papers and topics.

`stem` and `STOP_WORDS` are lunr.js 2.3.9's own, ported exactly: the search
index is built in Python and queried by lunr.js in the browser, so a word must
stem the same on both sides (lunr.py's stemmer does not: "delayed" -> "delai";
tests/test_search_parity.py checks every word of the seeds against lunr.js).
Related papers and the paper map use `plural_stem` and `PROSE_STOP_WORDS`:
with the Porter stemmer or lunr's stop list they scored no better on real
papers (bench/text_toolkit.py), and the plural stemmer is the cheaper.

`GREEK` names the Greek letters, which math in titles and abstracts is full of:
the search index holds "ε-greedy" as "epsilon-greedy" (`spell_greek`), and new
files are named "epsilon-greedy".

`suffix_stem` is lighter, and topics keep it: derive's keyword matching (its
thresholds were tuned with it) loses precision with the Porter stemmer, and
recall with a plural-only one (bench/text_toolkit.py).
"""
from __future__ import annotations

import re
from array import array
from collections import Counter
from functools import lru_cache
from typing import NamedTuple, Sequence

from lunr.stop_word_filter import WORDS as _LUNR_WORDS

__all__ = ["GREEK", "PROSE_STOP_WORDS", "STOP_WORDS", "TITLE_STOP_WORDS", "TermNumbers", "plural_stem",
           "prose_term_counts", "reading_key", "spell_greek", "stem", "suffix_stem"]

STOP_WORDS: frozenset[str] = frozenset(_LUNR_WORDS)  # lunr.js 2.3.9's stop words (lunr.py ships the same list)


def _greek(letters: str) -> dict[str, str]:
    """Each letter, and its capital, -> its name. search.js builds its table from the same string
    the same way (tests/test_search_parity.py compares the two)."""
    pairs = letters.split()
    return {case: name for letter, name in zip(pairs[::2], pairs[1::2]) for case in (letter, letter.upper())}


# α..ω and the variant forms math uses (ϵ, ϑ, ϕ ...)
GREEK: dict[str, str] = _greek(
    "α alpha β beta γ gamma δ delta ε epsilon ζ zeta η eta θ theta ι iota κ kappa λ lambda μ mu "
    "ν nu ξ xi ο omicron π pi ρ rho ς sigma σ sigma τ tau υ upsilon φ phi χ chi ψ psi ω omega "
    "ϐ beta ϑ theta ϕ phi ϖ pi ϰ kappa ϱ rho ϵ epsilon")
_GREEK_LETTER = re.compile("[" + "".join(GREEK) + "]")


def spell_greek(text: str) -> str:
    """Each Greek letter as its name, a word of its own: "ε-greedy in ΦFlow" -> " epsilon -greedy in
    phi Flow". What search indexes (papersite.search.lunr_text.searchable): a visitor types
    "epsilon" for the ε math writes, and search.js spells out a query's letters the same way."""
    if text.isascii():
        return text
    return _GREEK_LETTER.sub(lambda letter: f" {GREEK[letter[0]]} ", text)


def reading_key(text: str) -> str:
    """How a plain text sorts, as it is read: Greek letters by their names ("ΦFlow" sorts as
    "phiflow", among the P's), case folded."""
    if not text.isascii():
        text = _GREEK_LETTER.sub(lambda letter: GREEK[letter[0]], text.casefold())
    return text.casefold()


# Function words and the stock phrases of abstracts ("we propose a novel method"): what
# related papers and the paper map leave out when they compare texts.
PROSE_STOP_WORDS: frozenset[str] = frozenset("""
a about above after again against all also although among an and any are as at be because been
before being below between both but by can could did do does doing during each either et al few for
from further had has have having here how however i if in into is it its itself just may might more
most much must new no nor not novel of off on once only or other our ours out over own paper
propose proposed provide results same several should show shows so some such than that the their
them then there these they this those through thus to too two under until up upon use used using
very via was we well were what when where which while who whom why will with within without would
yet one first based approach method methods work also can""".split())

# The content-word metric's function words (bench/titles.py): the shipped title model
# (importers/title_model.json) was fit with exactly these, so they stay as they are.
TITLE_STOP_WORDS: frozenset[str] = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more
most my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves via using towards toward upon onto within without across
among beyond versus vs per
""".split())

# A port of lunr.stemmer from lunr.js 2.3.9 (MIT, Oliver Nightingale), itself
# based on Martin Porter's JavaScript implementation. Kept step by step as in
# lunr.js, quirks included; only $ became \Z (Python's $ also matches before a
# final newline).
_STEP2 = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance",
    "izer": "ize", "bli": "ble", "alli": "al", "entli": "ent", "eli": "e",
    "ousli": "ous", "ization": "ize", "ation": "ate", "ator": "ate",
    "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous",
    "aliti": "al", "iviti": "ive", "biliti": "ble", "logi": "log",
}  # fmt: skip
_STEP3 = {
    "icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic",
    "ful": "", "ness": "",
}  # fmt: skip

_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = _c + "[^aeiouy]*"  # consonant sequence
_V = _v + "[aeiou]*"  # vowel sequence

_MGR0 = re.compile("^(" + _C + ")?" + _V + _C)  # [C]VC... is m>0
_MEQ1 = re.compile("^(" + _C + ")?" + _V + _C + "(" + _V + ")?\\Z")  # [C]VC[V] is m=1
_MGR1 = re.compile("^(" + _C + ")?" + _V + _C + _V + _C)  # [C]VCVC... is m>1
_S_V = re.compile("^(" + _C + ")?" + _v)  # vowel in stem

_RE_1A = re.compile(r"^(.+?)(ss|i)es\Z")
_RE2_1A = re.compile(r"^(.+?)([^s])s\Z")
_RE_1B = re.compile(r"^(.+?)eed\Z")
_RE2_1B = re.compile(r"^(.+?)(ed|ing)\Z")
_RE2_1B_2 = re.compile(r"(at|bl|iz)\Z")
_RE3_1B_2 = re.compile(r"([^aeiouylsz])\1\Z")
_RE4_1B_2 = re.compile("^" + _C + _v + "[^aeiouwxy]\\Z")
# The step that differs from lunr.py: y -> i only after a consonant.
_RE_1C = re.compile(r"^(.+?[^aeiou])y\Z")
_RE_2 = re.compile("^(.+?)(" + "|".join(_STEP2) + ")\\Z")
_RE_3 = re.compile("^(.+?)(" + "|".join(_STEP3) + ")\\Z")
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ou", "ism", "ate",
          "iti", "ous", "ive", "ize")
_RE_4 = re.compile("^(.+?)(" + "|".join(_STEP4) + ")\\Z")
_RE2_4 = re.compile(r"^(.+?)(s|t)(ion)\Z")
_RE_5 = re.compile(r"^(.+?)e\Z")
_RE3_5 = re.compile("^" + _C + _v + "[^aeiouwxy]\\Z")
_STEP2_ENDS, _STEP3_ENDS, _STEP4_ENDS = tuple(_STEP2), tuple(_STEP3), _STEP4 + ("ion",)  # ion: _RE2_4


def _porter(w: str) -> str:
    if len(w) < 3:
        return w

    firstch = w[0]
    if firstch == "y":  # an initial y is a consonant: hide it from the vowel classes
        w = "Y" + w[1:]

    # Each endswith test below only skips suffix regexes that cannot match: their lazy ^(.+?)
    # tries every position of the word, and most words take few of the steps.

    # Step 1a
    if w.endswith("s"):
        if m := _RE_1A.match(w):
            w = m[1] + m[2]
        elif m := _RE2_1A.match(w):
            w = m[1] + m[2]

    # Step 1b
    if w.endswith(("ed", "ing")):
        if m := _RE_1B.match(w):
            if _MGR0.match(m[1]):
                w = w[:-1]
        elif m := _RE2_1B.match(w):
            stem = m[1]
            if _S_V.match(stem):
                w = stem
                if _RE2_1B_2.search(w):
                    w += "e"
                elif _RE3_1B_2.search(w):
                    w = w[:-1]
                elif _RE4_1B_2.match(w):
                    w += "e"

    # Step 1c
    if w.endswith("y") and (m := _RE_1C.match(w)):
        w = m[1] + "i"

    # Step 2
    if w.endswith(_STEP2_ENDS) and (m := _RE_2.match(w)) and _MGR0.match(m[1]):
        w = m[1] + _STEP2[m[2]]

    # Step 3
    if w.endswith(_STEP3_ENDS) and (m := _RE_3.match(w)) and _MGR0.match(m[1]):
        w = m[1] + _STEP3[m[2]]

    # Step 4
    if w.endswith(_STEP4_ENDS):
        if m := _RE_4.match(w):
            if _MGR1.match(m[1]):
                w = m[1]
        elif m := _RE2_4.match(w):
            stem = m[1] + m[2]
            if _MGR1.match(stem):
                w = stem

    # Step 5
    if w.endswith("e") and (m := _RE_5.match(w)):
        stem = m[1]
        if _MGR1.match(stem) or (_MEQ1.match(stem) and not _RE3_5.match(stem)):
            w = stem

    if w.endswith("ll") and _MGR1.match(w):  # lunr.js: /ll$/.test(w)
        w = w[:-1]

    if firstch == "y":
        w = "y" + w[1:]
    return w


def _to_utf16_units(s: str) -> str:
    """One str character per UTF-16 code unit (astral characters as surrogate
    pairs), because lunr.js's length test and regexes count code units."""
    return "".join(
        c if ord(c) <= 0xFFFF
        else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in s
    )  # fmt: skip


def _from_utf16_units(s: str) -> str:
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@lru_cache(maxsize=1 << 18)  # a catalog repeats the same words endlessly
def stem(word: str) -> str:
    """Stem one lower-cased, trimmed token exactly as lunr.js 2.3.9 does."""
    if not word.isascii() and any(ord(c) > 0xFFFF for c in word):
        return _from_utf16_units(_porter(_to_utf16_units(word)))
    return _porter(word)


@lru_cache(maxsize=8192)
def suffix_stem(word: str) -> str:
    """Crude suffix stripping, enough to equate 'models'/'model', 'policies'/'policy'
    (any case in; lower case out)."""
    w = word.lower()
    if len(w) <= 3:
        return w
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("y"):
        w = w[:-1] + "i"
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def plural_stem(word: str) -> str:
    """A light plural stemmer for lower-cased words: enough to pair 'networks' with 'network'."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


PROSE_WORD = re.compile(r"[a-z][a-z0-9]+")


def prose_term_counts(text: str) -> Counter:
    """The text's words, lowercased, without prose stop words, plurals folded ("networks" ->
    "network"), counted in the order they first occur: what related papers and the map compare.
    Each distinct word is stemmed once per process; a catalog repeats the same few thousand."""
    counts = Counter(map(_PROSE_STEMS.__getitem__, PROSE_WORD.findall(text.lower())))
    counts.pop("", None)  # stop words
    return counts


class TermNumbers(NamedTuple):
    """A text's prose_term_counts as numbers into a word list shared by many texts: what related
    papers keep of every paper (a tenth of a Counter's memory), and what the map takes as it is."""

    words: Sequence[str]  # term number -> term
    terms: array  # of C ints: the text's term numbers, in the order the terms first occur
    counts: array  # of C ints: how often each occurs

    def items(self):
        """(term, count) pairs, as prose_term_counts(text).items() gives them."""
        return zip(map(self.words.__getitem__, self.terms), self.counts)


class _ProseStems(dict):
    """word -> stem, '' for a stop word."""

    def __missing__(self, word: str) -> str:
        stem = self[word] = "" if word in PROSE_STOP_WORDS else plural_stem(word)
        return stem


_PROSE_STEMS = _ProseStems()
