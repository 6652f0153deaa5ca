"""lunr.js 2.3.9's text pipeline in Python: how a field value becomes terms.

The index is built here and queried by lunr.js in the browser, so every step
must be lunr.js's, not lunr.py's (whose tokenizer, trimmer and stemmer differ
in corners): split on JS's /[\\s\\-]+/, lower-case, trim non-word characters
(ASCII \\W, as in JS), drop stop words, stem with lunr.js's Porter stemmer
(papersite.text). tests/test_search_parity.py checks each step against lunr.js
through node.
"""
from __future__ import annotations

import re
from collections import Counter

from ..text.words import STOP_WORDS, stem

# lunr.js splits on /[\s\-]+/; JS's \s also covers these characters, which
# Python's str.split() does not split on.
JS_EXTRA_SEPARATORS = (
    "\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
SEPARATORS = re.compile("[ \t\n\r\x0b\x0c\xa0\\-" + JS_EXTRA_SEPARATORS + "]+")
_SPLIT_DIFFERS = re.compile("[\x1c-\x1f\x85\ufeff]")  # where str.split() and JS's \s disagree

# lunr.js: s.replace(/^\W+/, '').replace(/\W+$/, ''). JS's \W is ASCII-only,
# hence re.ASCII ("café" -> "caf", as in the browser). \Z because Python's $
# also matches before a final newline.
_LEADING_NON_WORD = re.compile(r"^\W+", re.ASCII)
_TRAILING_NON_WORD = re.compile(r"\W+\Z", re.ASCII)


def trim(token: str) -> str:
    """Strip leading and trailing non-word characters exactly as lunr.js's trimmer does."""
    return _TRAILING_NON_WORD.sub("", _LEADING_NON_WORD.sub("", token))


class _Terms(dict):
    """Raw lower-cased token -> lunr.js's term for it (None: a stop word),
    computed once per distinct token: a catalog repeats the same words endlessly."""

    def __missing__(self, token: str) -> str | None:
        if len(self) > 2_000_000:  # a bound, far above any real vocabulary
            self.clear()
        word = trim(token)
        term = self[token] = None if word in STOP_WORDS else stem(word)
        return term


_TERMS = _Terms()


def field_terms(text: str) -> dict[str, int]:
    """Term -> frequency for one field value, exactly as lunr.js indexes it
    (an all-punctuation token becomes the empty term, as in lunr.js)."""
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
