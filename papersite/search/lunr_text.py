"""The text pipeline search.js runs in the browser, in Python: how a field value becomes terms.

The index is built here and queried by lunr.js in the browser, so every step
must be the browser's, not lunr.py's (whose tokenizer, trimmer and stemmer
differ in corners): fold the text as search.js folds a query (`searchable`),
split on JS's /[\\s\\-]+/, lower-case, trim what is not part of a word from
the ends (search.js's trimmer, which keeps letters of every script), drop
stop words, stem with lunr.js's Porter stemmer (papersite.text).
tests/test_search_parity.py checks each step against lunr.js and search.js
through node.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter

from ..text.words import STOP_WORDS, spell_greek, stem

# lunr.js splits on /[\s\-]+/; JS's \s also covers these characters, which
# Python's str.split() does not split on.
JS_EXTRA_SEPARATORS = (
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
SEPARATORS = re.compile("[ \t\n\r\x0b\x0c\xa0\\-" + JS_EXTRA_SEPARATORS + "]+")
_SPLIT_DIFFERS = re.compile("[\x1c-\x1f\x85\ufeff]")  # where str.split() and JS's \s disagree

# search.js's trimmer: lunr.js's own strips JS's ASCII-only \W from both ends, which would
# leave nothing of "שלום" or "中文" and only "caf" of "café". Word characters are ASCII \w
# and every Unicode letter, mark and number (a word may end in a vowel sign): the same set
# as search.js's /[\p{L}\p{M}\p{N}_]/u, wherever both know the character.
_LEADING_NON_WORD = re.compile(r"^\W+", re.ASCII)
_TRAILING_NON_WORD = re.compile(r"\W+\Z", re.ASCII)  # \Z: Python's $ also matches before a final newline


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_" or unicodedata.category(char)[0] == "M"


def trim(token: str) -> str:
    """Strip the characters that are not part of a word from both ends, as search.js's trimmer does."""
    if token.isascii():
        if token.isalnum():  # most tokens: nothing to trim (ASCII \w is letters, digits and _)
            return token
        return _TRAILING_NON_WORD.sub("", _LEADING_NON_WORD.sub("", token))
    start, end = 0, len(token)
    while start < end and not _is_word(token[start]):
        start += 1
    while end > start and not _is_word(token[end - 1]):
        end -= 1
    return token[start:end]


# --- what is indexed: a field's text folded as search.js folds a query (asIndexed) ---------

# "ℓ_p" typed as TeX writes it: a _ after a lone letter or digit, before a letter or digit
# (or {letters}), reads as the plain text of `$\ell_p$` does, "lp" (text.tex_text drops it).
# \w is exactly letters, numbers and _ here, as search.js's [\p{L}\p{N}_].
_SUBSCRIPT = re.compile(r"(?<!\w)([^\W_])_(?:\{([^\W_]+)\}|(?=[^\W_]))")

# Han ideographs: Chinese (and Japanese kanji) write words without spaces, so a title is one
# long token. Each run is indexed as its overlapping pairs of characters ("深度学习" -> 深度 度学
# 学习), and search.js cuts a query's runs the same way: any two or more characters of a run
# find it. search.js's HAN is the same ranges.
HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_HAN_RUN = re.compile(f"[{HAN}]+")


def join_subscripts(text: str) -> str:
    """"ℓ_p-norm" (after NFKC "l_p-norm") -> "lp-norm", "x_{t}" -> "xt"; "snake_case" stays."""
    return _SUBSCRIPT.sub(lambda m: m[1] + (m[2] or ""), text)


def _pairs(run: re.Match) -> str:
    run = run[0]
    return f" {' '.join(run[i:i + 2] for i in range(len(run) - 1)) if len(run) > 1 else run} "


def han_words(text: str) -> str:
    """Each run of Han characters as its pairs, words of their own: "GPT在中文" -> "GPT 在中 中文 "."""
    return _HAN_RUN.sub(_pairs, text)


def searchable(text: str) -> str:
    """A field's text as indexed: compatibility forms folded (NFKC: "ﬁ" -> "fi", "𝑥²" -> "x2",
    "ℓ" -> "l"), subscripts joined ("l_p" -> "lp"), each Greek letter spelt out as a word of
    its own ("ε-greedy" -> "epsilon-greedy": a visitor types "epsilon" for the ε math writes),
    Han runs as pairs of characters. search.js's asIndexed and parseQuery fold a query the
    same way, so a query's words are the indexed words."""
    if text.isascii():
        return join_subscripts(text) if "_" in text else text
    text = unicodedata.normalize("NFKC", text)
    if "_" in text:
        text = join_subscripts(text)
    return han_words(spell_greek(text))


class _Terms(dict):
    """Raw lower-cased token -> its term (None: a stop word),
    computed once per distinct token: a catalog repeats the same words endlessly."""

    def __missing__(self, token: str) -> str | None:
        if len(self) > 2_000_000:  # a bound, far above any real vocabulary
            self.clear()
        word = trim(token)
        term = self[token] = None if word in STOP_WORDS else stem(word)
        return term


_TERMS = _Terms()


def field_terms(text: str) -> dict[str, int]:
    """Term -> frequency for one field value (already `searchable`), exactly as lunr.js
    indexes it with search.js's trimmer (an all-punctuation token becomes the empty term)."""
    low = text.lower()
    if _SPLIT_DIFFERS.search(low):
        tokens = filter(None, SEPARATORS.split(low))
    else:  # the same split, faster
        tokens = low.replace("-", " ").split()
    counts = Counter(map(_TERMS.__getitem__, tokens))
    counts.pop(None, None)
    return counts


def clear_caches() -> None:
    """Forget every token's term (benchmarks time a cold build)."""
    _TERMS.clear()
    stem.cache_clear()


def js_order(term: str) -> bytes:
    """Sort key for JS string order (UTF-16 code units)."""
    return term.encode("utf-16-be", "surrogatepass")


def first_unit(term: str) -> str:
    """The first UTF-16 code unit ("" for the empty term), as JS's term[0]."""
    if not term or ord(term[0]) <= 0xFFFF:
        return term[:1]
    return chr(0xD800 + ((ord(term[0]) - 0x10000) >> 10))
