"""Extractive titles ranked by weights learned from real (abstract, title) pairs.

A real title mostly reuses words of its abstract (93% of its content words, on
ICML 2024), but which ones is hard to guess by rule. So every content word of
an abstract gets a probability of being in the title, from a logistic model over
a few features (how often the word makes it into titles when it is in the
abstract, where it first appears, whether it looks like a name, ...). A title is
then the phrase of the abstract, or "Name: phrase", that maximises the expected
content-word F1 against the unknown real title.

The weights and the per-word rates come from bench/tune_titles.py and ship in
title_model.json; everything here is a pure function of the abstract.
"""
from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, chain, compress, repeat
from operator import add, itemgetter
from pathlib import Path

from ..text.words import TITLE_STOP_WORDS

DATA_FILE = Path(__file__).with_name("title_model.json")


_WORD = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> list[str]:
    """Content words: lower-cased runs of letters and digits, longer than 2, not stop words."""
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in TITLE_STOP_WORDS]


def content_stems(text: str) -> set[str]:
    """The set the title metric compares: first 5 letters of each content word."""
    return {w[:5] for w in content_words(text)}


def content_f1(derived: str, real: str) -> float:
    """Content-word F1 between two titles (0 when either has no content word)."""
    a, b = content_stems(derived), content_stems(real)
    common = len(a & b)
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


# Words a title cannot end on: prepositions, conjunctions, articles, and the
# adjectives titles use most, which need a noun after them ("A Circuit for Fast").
_DANGLING = frozenset("""
a an the and or nor but of for in on at by to from with via into onto over under through toward
towards within without across among between against about as than versus vs per upon beyond
fast efficient robust scalable accurate simple novel new general optimal deep large small neural
improved better stable faster effective unified adaptive provable provably generalized
""".split())
_BROKEN_HYPHEN = re.compile(r"[A-Za-z]- (?!(?:and|or|to|vs)\b)[A-Za-z]")
_NUMBER_ONLY = re.compile(r"[\W\d_]*|[ivxlcdm]+\.?", re.I)


_TITLE_WORD = re.compile(r"[\w'-]+")
_AND_BEYOND = re.compile(r"\band beyond$", re.I)


def degenerate_reason(title: str) -> str | None:
    """Why a title is degenerate, or None. The rule of issue #15:
    fewer than 3 content words; broken hyphenation ("A Com- Plete Theory");
    a dangling end ("A Circuit for Fast"); a title that is only a number."""
    t = " ".join(title.split())
    if _NUMBER_ONLY.fullmatch(t):
        return "number"
    if _BROKEN_HYPHEN.search(t):
        return "broken hyphenation"
    words = _TITLE_WORD.findall(t)
    if words and words[-1].lower() in _DANGLING and not _AND_BEYOND.search(t):
        return "dangling end"
    if len(content_words(t)) < 3:
        return "fewer than 3 content words"
    return None


# ---------------------------------------------------------------------------
# Text preparation
# ---------------------------------------------------------------------------

# Private-use marks around masked math: "\ue0003\ue001" stands for the abstract's 4th $...$ span.
PLACEHOLDER_OPEN, _PLACEHOLDER_CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{PLACEHOLDER_OPEN}(\\d+){_PLACEHOLDER_CLOSE}")


_TEXT_MACRO = re.compile(
    r"\\(?:textbf|texttt|textit|textsc|textrm|text|mathrm|mathbf|mathtt|mathit|emph)"
    r"\s*\{([^{}]*)\}"
)


_MATH = re.compile(r"\$([^$]+)\$")
_MATH_MARKUP = re.compile(r"[\\^_{}]")
_NUMBER = re.compile(r"[\d.,%+-]+")


def _mask_math(text: str) -> tuple[str, list[str]]:
    """Replace $...$ by placeholders so no heuristic looks inside math.

    Math that only wraps text ($\\textbf{\\texttt{Lingual-SMoE}}$) or a number
    is unwrapped instead: it is prose in disguise.
    """
    spans: list[str] = []

    def repl(m: re.Match) -> str:
        inner = m.group(1)
        plain = inner
        if "\\" in plain:  # a text macro needs its backslash; once nothing changes, nothing will
            for _ in range(3):
                plain, changed = _TEXT_MACRO.subn(r"\1", plain)
                if not changed:
                    break
        plain = plain.strip("{} ")
        if (plain != inner and not _MATH_MARKUP.search(plain)) or _NUMBER.fullmatch(plain):
            return plain
        spans.append(m.group(0))
        return f"{PLACEHOLDER_OPEN}{len(spans) - 1}{_PLACEHOLDER_CLOSE}"

    return _MATH.sub(repl, text), spans


_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_BACKTICK_QUOTE = re.compile(r"`([^`'\"]+)'")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
# "*" opening emphasis (no word character or "*" before it, no space after) ... "*" closing it
# (no space before, no word character or "*" after). Each star is matched before its
# lookbehind, which then checks the two characters ending at it: a pattern that starts with
# a literal lets the regex engine skip ahead to the next "*", and the lazy group stops at the
# next literal "*" instead of trying a lookbehind at every character.
_EMPHASIS = re.compile(r"\*(?<![\w*]\*)(?=\S)(.+?)\*(?<=\S\*)(?![\w*])")
_EMPHASIS_OPEN, _EMPHASIS_CLOSE = re.compile(r"\*(?<![\w*]\*)(?=\S)"), re.compile(r"\*(?<=\S\*)(?![\w*])")
_QUOTES = (("’’", '"'), ("''", '"'), ("``", '"'), ("“", '"'), ("”", '"'),
           ("‘", "'"), ("’", "'"), ("—", " — "), ("–", " – "))


_ASCII_QUOTES = tuple(q for q in _QUOTES if q[0].isascii())


def _clean(abstract: str) -> tuple[str, list[str], list[str] | None]:
    """(text, its math spans, its tokens): the text with single spaces, math masked (see
    _mask_math), links, URLs and emphasis gone, quotes plain. The tokens are text.split()
    when no step changed the text after spacing it (most abstracts), else None."""
    # Each step runs only when its text can match: most abstracts have no math, link or emphasis.
    # Only the steps that can leave double spaces call for spacing the text again.
    if PLACEHOLDER_OPEN in abstract or _PLACEHOLDER_CLOSE in abstract:  # ours alone: no title shows them
        abstract = abstract.replace(PLACEHOLDER_OPEN, " ").replace(_PLACEHOLDER_CLOSE, " ")
    tokens = abstract.split()
    text = original = " ".join(tokens)
    spans: list[str] = []
    respace = False
    if "$" in text:
        text, spans = _mask_math(text)
        text = text.replace("$", "")  # an unbalanced dollar left over from broken math
        respace = True
    if "](" in text:
        text = _MD_LINK.sub(r"\1", text)  # markdown links
        respace = True
    if "http" in text:
        text = _URL.sub("", text)
        respace = True
    # Quotes and emphasis become plain double quotes: they often mark a name.
    for a, b in (_ASCII_QUOTES if text.isascii() else _QUOTES):
        if a in text:
            text = text.replace(a, b)
            respace = respace or " " in b
    if "`" in text:
        text = _BACKTICK_QUOTE.sub(r'"\1"', text)
    if "*" in text:
        if "**" in text:
            text = _STRONG.sub(r'"\1"', text)
        # _EMPHASIS scans on from every "*" that may open; it can match only if a "*" that
        # may close comes at least two characters after the first that may open.
        opening = _EMPHASIS_OPEN.search(text)
        if opening and _EMPHASIS_CLOSE.search(text, opening.start() + 2):
            text = _EMPHASIS.sub(r'"\1"', text)
    # The steps leave no whitespace but spaces, so the text is spaced already unless it has
    # two in a row or one at either end.
    if respace and ("  " in text or text[:1] == " " or text[-1:] == " "):
        text = " ".join(text.split())
    return text, spans, (tokens if text is original or text == original else None)


# Where a sentence ends: ".", "!" or "?" (group 1), spaces, then a capital, a quote, a bracket
# or math; but not the "." of an abbreviation ("e.g.", "et al.", "Fig."). The punctuation is
# matched first, so the regex engine skips ahead to the next ".", "!" or "?"; each
# lookbehind is fixed-width and runs only there.
_ABBREVIATIONS = ("e.g", "i.e", "et al", "etc", "vs", "cf", "Fig", "Eq", "resp", "w.r.t", "approx", "a.k.a", "aka")
_NOT_ABBREVIATION = "".join(rf"(?<!(?i:\b{re.escape(a)}\.))" for a in _ABBREVIATIONS)
_SENTENCE_END = re.compile(r"([.!?])(?=\s+[A-Z\"(\[\ue000])" + _NOT_ABBREVIATION + r"\s+")
# The same for a text with no "!" or "?" (most): a pattern that starts with a literal, which the
# regex engine finds several times faster than a character class; in a text with single
# spaces, \s+ is one space.
_FULL_STOP_END = re.compile(r"(\.)(?= [A-Z\"(\[\ue000])" + _NOT_ABBREVIATION + " ")


def _split_sentences(text: str) -> list[str]:
    """The sentences of a text with single spaces (as _clean leaves it), each with its final
    punctuation; joined by single spaces they are the text again."""
    parts = (_SENTENCE_END if "!" in text or "?" in text else _FULL_STOP_END).split(text)
    if len(parts) == 1:
        return parts
    out = list(map(add, parts[0:-1:2], parts[1::2]))
    out.append(parts[-1])
    return out


def restore_math(s: str, math: list[str]) -> str:
    """Text with the placeholders of _mask_math put back to the $...$ spans they stand for."""
    if PLACEHOLDER_OPEN not in s:
        return s
    return _PLACEHOLDER.sub(lambda m: math[int(m.group(1))], s)


# ---------------------------------------------------------------------------
# Features
# ---------------------------------------------------------------------------


FEATURES = ("bias", "prior", "unseen", "count", "first_sentence", "position", "contribution",
            "name_like", "capitalised", "expansion", "rarity", "in_first_words")

_CONTRIB = re.compile(
    r"\b(?:we|this (?:paper|work|study|article)|our (?:paper|work|method|approach|framework))\b"
    r"(?:\s+\w+){0,2}?\s+(?:propos|introduc|present|develop|design|stud|investigat|"
    r"analy[sz]|explor|establish|show|provid|call|nam|dub)\w*", re.I)
# _CONTRIB on an ASCII sentence, lower-cased: the same matches, found several times faster,
# since each of the three starts with a literal the regex engine can scan for. The
# lookbehinds are the leading \b (no word character before "we", "this", "our").
_CONTRIB_VERB = (r"\b(?:\s+\w+){0,2}?\s+(?:propos|introduc|present|develop|design|stud|investigat|"
                 r"analy[sz]|explor|establish|show|provid|call|nam|dub)\w*")
_CONTRIB_LOWER = tuple(re.compile(head + _CONTRIB_VERB).search for head in (
    r"we(?<!\w..)", r"this(?<!\w....) (?:paper|work|study|article)",
    r"our(?<!\w...) (?:paper|work|method|approach|framework)"))


def _is_contribution(sentence: str) -> bool:
    """Whether a sentence states the contribution ("we propose ...", "this paper studies ...")."""
    if sentence.isascii():
        low = sentence.lower()
        we, this, our = _CONTRIB_LOWER
        return bool(we(low) or this(low) or our(low))
    return _CONTRIB.search(sentence) is not None


_ACRONYM = re.compile(r"\(([A-Za-z][\w-]{1,15})\)")
_TOKEN_EDGE = "\"'()[]{},.;:!?“”‘’*"
_PUNCTUATION = re.compile(r"[,;:.!?]")
_INITIAL_SPLIT = re.compile(r"[-/]")


def _name_like(tok: str) -> bool:
    """'GALA3D', 'EmerNeRF', 'signSGD', 'LQ-LoRA': a coined name, not a word."""
    core = tok.replace("-", "") if "-" in tok else tok
    if len(core) < 2 or not core.isalnum():
        return False
    if core.isascii():  # the same test with whole-string methods: letters and digits only
        rest = core[1:]
        return rest != rest.lower() or not (core.isalpha() or core.isdigit())
    inner_upper = any(map(str.isupper, core[1:]))
    return inner_upper or (any(map(str.isdigit, core)) and any(map(str.isalpha, core)))


# ---------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------

class _Records(dict):
    """token -> its record (_analyse), made on first use. Tokens repeat across abstracts; a
    dict, emptied when full, is several times cheaper to consult than lru_cache, and
    map(_CACHE.__getitem__, tokens) analyses the new ones without a second pass."""

    def __missing__(self, tok: str) -> tuple:
        return _analyse(tok)


_CACHE = _Records()
_CACHE_SIZE = 200_000

# A record starts with what Doc reads for every token, so that the loop over the tokens finds
# it in the first cache line of the tuple; then the token's phrase piece (see _piece) and the
# rest of what _token says of it. One flat tuple: nothing nested to allocate, keep or fetch.
# _STEM is the content stem of a token with exactly one (19 in 20 content tokens), else
# None: the loop then has no tuple to iterate.
_STEM, _STEMS, _NAME_STEMS, _CAP_STEMS, _CODE, _DEPTH = range(6)
_SHOWN, _PIECE_STEMS, _MAY_START, _MAY_END, _KIND = range(6, 11)
_BARE, _NAME_LIKE, _CAPITALISED = range(11, 14)
_get_stems, _get_name_stems, _get_may_start = itemgetter(_STEMS), itemgetter(_NAME_STEMS), itemgetter(_MAY_START)


def clear_caches() -> None:
    _CACHE.clear()


def _analyse(tok: str) -> tuple:
    """A token's record, made and kept in the cache: _full_record's, found by a shorter way
    for the two kinds of token most new ones are."""
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    if tok.isalnum() and tok.isascii():  # four in ten new tokens
        record = _word_record(tok)
    elif tok[-1:] in (",", ".", ";", ":") and len(tok) > 1:  # three in ten: "model,"
        record = _ending_record(_CACHE[tok[:-1]])
    else:
        record = _full_record(tok)
    _CACHE[tok] = record
    return record


def _full_record(tok: str) -> tuple:
    """A token's record: its content stems; the stems again if it is name-like, and again if
    it is capitalised (else ()); its code for the run scan in Doc ("0" inside a run, "1"
    ending one, "2" breaking one, "(" opening an aside); its opening minus closing brackets;
    the five fields of its piece (_piece); the bare token, name-like?, capitalised?"""
    bare = tok.strip(_TOKEN_EDGE)
    low = bare.lower()
    if low.isalnum() and low.isascii():  # one word of [a-z0-9] (most tokens): content_words without the regex
        stems = (low[:5],) if len(low) > 2 and low not in TITLE_STOP_WORDS else ()
    else:
        stems = tuple(dict.fromkeys([w[:5] for w in _WORD.findall(low) if len(w) > 2 and w not in TITLE_STOP_WORDS]))
    name_like, cap = _name_like(bare), bare[:1].isupper()
    piece = _make_piece(tok, bare, stems, low)
    if "(" in tok or "[" in tok or ")" in tok or "]" in tok:
        code = "(" if tok[0] in "([" else "012"[piece[4]]
        depth = tok.count("(") + tok.count("[") - tok.count(")") - tok.count("]")
    else:
        code, depth = "012"[piece[4]], 0
    stem = stems[0] if len(stems) == 1 else None
    return (stem, stems, stems if name_like else (), stems if cap else (), code, depth, *piece, bare, name_like, cap)


def _word_record(tok: str) -> tuple:
    """_full_record of a token of ASCII letters and digits only: its own bare form, with no
    bracket, quote, hyphen or placeholder to look for."""
    breaking, no_end, _ = _word_sets()
    low = tok.lower()
    stems = (low[:5],) if len(low) > 2 and low not in TITLE_STOP_WORDS else ()
    rest = tok[1:]
    name_like = len(tok) > 1 and (rest != rest.lower() or not (tok.isalpha() or tok.isdigit()))
    cap = tok[0].isupper()
    if low in breaking:
        start, end, kind = False, False, 2
    elif not stems:
        start, end, kind = False, False, 0
    else:
        start = low not in _BAD_START and not low.endswith("ly")
        end = low not in no_end and (low in _NOUNS_LIKE_ADJECTIVES or not low.endswith(_ADJECTIVE_ENDS))
        kind = 0
    return (stems[0] if stems else None, stems, stems if name_like else (), stems if cap else (), "02"[kind > 0], 0,
            tok, stems if kind < 2 else (), start, end, kind, tok, name_like, cap)


def _ending_record(record: tuple) -> tuple:
    """_full_record of a token followed by ",", ".", ";" or ":", from the token's record: the
    same bare word, but it ends a run and shows its bare word; unless the token breaks runs,
    which it then does too."""
    if record[_KIND] == 2:
        return record
    return (*record[:_CODE], "1", record[_DEPTH], record[_BARE], *record[_PIECE_STEMS:_KIND], 1, *record[_KIND + 1:])


def _record(tok: str) -> tuple:
    return _CACHE[tok]


def _token(tok: str) -> tuple[str, tuple[str, ...], bool, bool]:
    """(bare token, its content stems, name-like?, capitalised?)."""
    record = _record(tok)
    return record[_BARE], record[_STEMS], record[_NAME_LIKE], record[_CAPITALISED]


def _word_initials(word: str) -> list[str]:
    """First letters of a word and of its hyphenated parts, lower-cased."""
    if "-" not in word and "/" not in word:
        return [word[0].lower()] if word[:1].isalnum() else []
    return [part[0].lower() for part in _INITIAL_SPLIT.split(word) if part[:1].isalnum()]


def _long_form(acr: str, words: list[str]) -> list[str] | None:
    """The shortest run of words ending before "(ACR)" whose initials spell the acronym's
    capitals in order, starting with its first: "Low-Rank Adaptation (LoRA)"."""
    letters = [c.lower() for c in acr if c.isupper()]
    words = list(map(str.strip, words, repeat(_TOKEN_EDGE)))
    initials = list(map(_word_initials, words))
    for start in range(len(words) - 1, -1, -1):
        first = initials[start]
        if not first or first[0] != letters[0]:
            continue
        it = chain.from_iterable(initials[start:])
        if all(c in it for c in letters):
            long = words[start:]
            ok_start = _record(long[0])[_MAY_START] or (PLACEHOLDER_OPEN in long[0] and _token(long[0])[1])
            return long if ok_start and _record(long[-1])[_MAY_END] else None
    return None




class Doc:
    """One abstract, tokenised: sentences of tokens, and per content stem its features.

    This is the hot path of the importer, written for the fewest interpreter steps, as
    measured (docs/derived-titles.md, "Speed"): C-level passes (map, regexes) where one call
    does a whole list, and one plain loop over the tokens for the statistics and runs,
    which on Python 3.11 takes fewer steps than a pass per list."""

    def __init__(self, abstract: str):
        text, self.math, tokens = _clean(abstract)
        # _clean leaves single spaces, so a sentence's text is its tokens joined, and the
        # sentences joined are the text.
        self.sentence_texts = sentence_texts = _split_sentences(text) if text else []
        self.contrib = contrib = list(map(_is_contribution, sentence_texts))
        self.expansions: set[str] = set()
        # "Distance Aware Bottleneck (DAB)": (acronym, the words it abbreviates, where).
        self.acronyms: list[tuple[str, list[str], int]] = []
        if "(" in text:
            for m in _ACRONYM.finditer(text):
                acr = m.group(1)
                letters = sum(map(str.isupper, acr))
                if letters >= 2:
                    # The last letters + 4 words of the 160 characters before it (as split() would
                    # give them, without splitting the rest).
                    before = text[max(0, m.start() - 160):m.start()].rsplit(None, letters + 4)[-letters - 4:]
                    # content_stems of each word, which its record holds already
                    self.expansions.update(chain.from_iterable(map(_get_stems, map(_CACHE.__getitem__, before[-letters - 2:]))))
                    long = _long_form(acr, before[-letters - 4:])
                    if long and not _PUNCTUATION.search(" ".join(long)[:-1]):
                        self.acronyms.append((acr, long, text.count(". ", 0, m.start())))
        # The records of all tokens, in order; the first token of each sentence.
        self._tokens = tokens = text.split() if tokens is None else tokens
        self._records = records = list(map(_CACHE.__getitem__, tokens))
        # The first token of each sentence (a sentence has one token more than spaces).
        starts = list(accumulate(map(add, map(str.count, sentence_texts, repeat(" ")), repeat(1)), initial=0))
        if starts[-1] != len(tokens):  # never, with the spacing _clean leaves; but cheap to be sure
            starts = list(accumulate(map(len, map(str.split, sentence_texts)), initial=0))
        self._starts = starts
        self._sentences = None
        self._total = starts[-1] or 1
        # One pass over the tokens, sentence by sentence (a loop does this in fewer steps than
        # a pass per list): the content stems, one entry per occurrence, and the occurrences
        # before each token; per stem, in order of first occurrence, its count and the token
        # it first occurs in; the stems of name-like tokens, and of capitalised ones not
        # starting their sentence; and the runs, token spans [a, b) that a title phrase may
        # be cut from (see chunks), from each token's code: "0" goes on a run, "1" ends one
        # (itself included), "2" breaks one. An aside in parentheses is never part of a
        # title: from a token opening one ("(") to where its brackets close (or its sentence
        # ends), every token breaks runs.
        counts: dict[str, int] = {}
        first: list[int] = []  # per stem, in the order of counts
        every: list[str] = []
        before = [0]
        names: set[str] = set()
        capitalised: set[str] = set()
        spans: list[tuple[int, int]] = []
        add_every, add_before, add_first, add_span = every.append, before.append, first.append, spans.append
        for a, b in zip(starts, starts[1:]):
            run = -1  # where the open run starts
            depth = 0
            for i, record in enumerate(records[a:b], a):
                stem = record[_STEM]
                if stem is not None:  # one stem: the same as below, without a tuple to iterate
                    add_every(stem)
                    if stem in counts:
                        counts[stem] += 1
                    else:
                        counts[stem] = 1
                        add_first(i)
                    if record[_NAME_STEMS]:
                        names.add(stem)
                    if record[_CAP_STEMS] and i != a:
                        capitalised.add(stem)
                elif record[_STEMS]:
                    stems = record[_STEMS]
                    every += stems
                    for stem in stems:
                        if stem in counts:
                            counts[stem] += 1
                        else:
                            counts[stem] = 1
                            add_first(i)
                    if record[_NAME_STEMS]:
                        names.update(stems)
                    if record[_CAP_STEMS] and i != a:
                        capitalised.update(stems)
                add_before(len(every))
                code = record[_CODE]
                if code == "0" and not depth:  # most tokens: on a run, outside an aside
                    if run < 0:
                        run = i
                    continue
                if depth or code == "(":
                    depth = max(0, depth + record[_DEPTH])
                    code = "2"
                if code == "1":
                    add_span((i if run < 0 else run, i + 1))
                    run = -1
                elif run >= 0:
                    add_span((run, i))
                    run = -1
            if run >= 0:
                add_span((run, b))
        self._every, self._before, self._counts, self._first = every, before, counts, first
        self._names, self._capitalised, self._spans = names, capitalised, spans
        self._first_sentence_end = starts[1] if len(starts) > 1 else 0
        self._in_contrib = in_contrib = set()
        for si in compress(range(len(sentence_texts)), contrib):
            in_contrib.update(every[before[starts[si]]:before[starts[si + 1]]])
        self._stats = self._runs = None

    @property
    def sentences(self) -> list[list[str]]:
        """The tokens of each sentence."""
        if self._sentences is None:
            tokens, starts = self._tokens, self._starts
            self._sentences = [tokens[a:b] for a, b in zip(starts, starts[1:])]
        return self._sentences

    @property
    def stats(self) -> dict[str, list]:
        """Per content stem, in order of first occurrence: [count, first sentence, first
        position (as a fraction of the tokens), in a contribution sentence, name-like,
        capitalised inside a sentence]."""
        if self._stats is None:
            starts, total = self._starts, self._total
            self._stats = {
                stem: [count, bisect_right(starts, pos) - 1, pos / total, stem in self._in_contrib,
                       stem in self._names, stem in self._capitalised]
                for (stem, count), pos in zip(self._counts.items(), self._first)}
        return self._stats

    @property
    def runs(self) -> list[list[tuple[str, tuple[str, ...], bool, bool, int]]]:
        """Runs of tokens that a title phrase may be cut from (_piece tuples)."""
        if self._runs is None:
            records = self._records
            self._runs = [[r[_SHOWN:_KIND + 1] for r in records[a:b]] for a, b in self._spans]
        return self._runs

    def features(self, stem: str, prior: tuple[float, float] | None, global_rate: float) -> list[float]:
        """The feature vector of FEATURES; prior is (in-title count, in-abstract count)."""
        count, first_sent, first_pos, contrib, name_like, cap = self.stats[stem]
        if prior is None:
            rate, unseen, df = global_rate, 1.0, 0.0
        else:
            hits, seen = prior
            rate = (hits + 2 * global_rate) / (seen + 2)
            unseen, df = 0.0, seen
        return [1.0, math.log(rate / (1 - rate)), unseen, math.log1p(count), float(first_sent == 0),
                first_pos, float(contrib), float(name_like), float(cap), float(stem in self.expansions),
                math.log1p(df), float(first_pos < 0.06)]


# ---------------------------------------------------------------------------
# Ranking
# ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def model() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _static() -> tuple[dict[str, float], float, list[float]]:
    """The part of each word's score that does not depend on the abstract (bias, its title
    rate, rarity), precomputed; and that part for a word not in the rates table."""
    data = model()
    w, g = data["weights"], data["global_rate"]
    z = {}
    for stem, (hits, seen) in data["priors"].items():
        rate = (hits + 2 * g) / (seen + 2)
        z[stem] = w[0] + w[1] * math.log(rate / (1 - rate)) + w[10] * math.log1p(seen)
    unseen = w[0] + w[1] * math.log(g / (1 - g)) + w[2]
    return z, unseen, w


@lru_cache(maxsize=1)
def _count_terms() -> list[float]:
    """The count feature's term, w[3] * log1p(count), for the counts most stems have."""
    w3 = _static()[2][3]
    return [w3 * math.log1p(n) for n in range(64)]


def word_probabilities(doc: Doc) -> dict[str, float]:
    """Probability that each content stem of the abstract is in its title (same as the
    model over Doc.features, computed without building the vectors)."""
    static, unseen, w = _static()
    w3, w4, w5, w6, w7, w8, w9, w11 = w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[11]
    static_get, exp, log1p, count_terms = static.get, math.exp, math.log1p, _count_terms()
    in_contrib, names, capitalised, expansions = doc._in_contrib, doc._names, doc._capitalised, doc.expansions
    # Few stems are in any of these three: one test for most stems instead of three.
    rare = names | capitalised | expansions
    first_sentence_end, total = doc._first_sentence_end, doc._total
    out = {}
    for (stem, count), pos in zip(doc._counts.items(), doc._first):
        first_pos = pos / total
        # The terms in the order of FEATURES, each added only when its feature is on: adding
        # 0 changes nothing, so the sum is the same to the last bit.
        z = static_get(stem, unseen) + (count_terms[count] if count < 64 else w3 * log1p(count)) + w5 * first_pos
        if pos < first_sentence_end:
            z += w4
        if stem in in_contrib:
            z += w6
        if stem in rare:
            if stem in names:
                z += w7
            if stem in capitalised:
                z += w8
            if stem in expansions:
                z += w9
        if first_pos < 0.06:
            z += w11
        if z > 30.0:
            z = 30.0
        elif z < -30.0:
            z = -30.0
        out[stem] = 1 / (1 + exp(-z))
    return out


# ---------------------------------------------------------------------------
# Phrases
# ---------------------------------------------------------------------------

# A phrase never runs across these: they start a clause or an aside.
_BREAK_WORDS = frozenset("""
which that where whereby wherein while whereas who whose we our us it its they their them this these
those is are was were be been being can could may might must shall should will would has have had
do does did not also thus hence then therefore however moreover furthermore although though since
because if whether when i.e. e.g. etc such
""".split())
_BAD_START = _DANGLING | TITLE_STOP_WORDS


@lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    return frozenset(model().get("verbs", ()))


@lru_cache(maxsize=1)
def _modifiers() -> frozenset[str]:
    return frozenset(model().get("modifiers", ()))


@lru_cache(maxsize=1)
def _word_sets() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(words that break a phrase, words it may not end on, the model's modifiers), built once."""
    modifiers = _modifiers()
    return _BREAK_WORDS | _verbs(), _DANGLING | modifiers, modifiers


# Suffixes of adjectives ("Convolutional", "Layout-Guided", "Reward-Free"), and the nouns
# among words with them, which a title may end on.
_ADJECTIVE_ENDS = ("al", "ive", "ous", "ic", "able", "ible", "less", "ful", "ary", "ed", "free", "like", "wise")
_NOUNS_LIKE_ADJECTIVES = frozenset("""
signal proposal retrieval removal interval potential trial survival tutorial terminal material
animal rehearsal arrival approval renewal reversal disposal withdrawal referral principal
objective alternative perspective incentive derivative narrative primitive positive negative
detective archive logic topic music metric heuristic arithmetic critic rhetoric mechanic clinic
epidemic characteristic graphic traffic physic variable table observable boundary dictionary
summary library vocabulary binary adversary anniversary itinerary secondary seed speed need feed
gaussian
""".split())


def _piece(tok: str) -> tuple[str, tuple[str, ...], bool, bool, int]:
    """A token as a phrase piece: (text shown, stems, may start, may end, 1 if it ends a run,
    2 if it breaks one, 0 otherwise)."""
    return _record(tok)[_SHOWN:_KIND + 1]


def _make_piece(tok: str, bare: str, stems: tuple[str, ...], low: str) -> tuple[str, tuple[str, ...], bool, bool, int]:
    breaking, no_end, modifiers = _word_sets()
    if not bare or low in breaking or "(" in tok or "[" in tok:
        return bare, (), False, False, 2
    first = tok[0]
    ends = tok[-1] in ",.;:!?\"”)]" or first in "\"“"
    shown = bare if ends or first in "\"“'‘" else tok
    if not stems:
        return shown, stems, False, False, int(ends)
    start = low not in _BAD_START and not low.endswith("ly") and PLACEHOLDER_OPEN not in tok
    if "-" in low:
        last = low.rsplit("-", 1)[-1]
        end = (low not in no_end and last not in modifiers and not bare.endswith(("-", "'s"))
               and not low.startswith(("non-", "multi-", "cross-", "semi-"))
               and (last in _NOUNS_LIKE_ADJECTIVES or not last.endswith(_ADJECTIVE_ENDS)))
    else:  # the word is its own last part, and starts with no "non-"
        end = (low not in no_end and not bare.endswith("'s")
               and (low in _NOUNS_LIKE_ADJECTIVES or not low.endswith(_ADJECTIVE_ENDS)))
    return shown, stems, start, end, int(ends)


def phrase_may_end(tok: str) -> bool:
    """Whether a title phrase may end on this token (a content word, not "for" or "fast")."""
    return _record(tok)[_MAY_END]


def chunks(doc: Doc) -> list[list[tuple[str, tuple[str, ...], bool, bool, int]]]:
    """Runs of tokens that a title phrase may be cut from (_piece tuples); asides in
    parentheses, clause words and verbs break them. Built by Doc."""
    return doc.runs


# Pruning skips the phrases of a start whose score is at most an upper bound; the bound is
# summed in another order than the score, so it must fall short by more than rounding can.
_MARGIN = 1e-9


def best_phrase(doc: Doc, probs: dict[str, float], expected_len: float, max_words: int = 12,
                exclude: frozenset = frozenset(), first_token: int = 0) -> tuple[float, list[str]]:
    """The phrase with the highest expected content-word F1 (score, tokens), from the token
    first_token on; the stems of exclude (a name put in front) count as already in the title."""
    best_key, best_toks = (-1.0, 0, 0), []  # (score, -run, -start): ties go to the earliest phrase
    get = probs.get
    # sorted: a set's order varies from process to process, and so would the sum's last bit
    base_gain, base_n = sum(map(get, sorted(exclude), repeat(0.0))), len(exclude)
    # The gain of each stem occurrence, in token order; an excluded stem gains 0.0, which
    # leaves every sum below as it would be without it.
    gains = map(get, doc._every, repeat(0.0))
    if exclude:
        gains = [0.0 if s in exclude else g for s, g in zip(doc._every, gains)]
    before, records = doc._before, doc._records
    # The gain of the stem occurrences before each one: a run's gain is a difference of two.
    # (Summed in another order than a slice would be, which the margin covers.)
    cum = list(accumulate(gains, initial=0.0))
    # No phrase of a run scores above 2 * (all its gain) / (3 + expected_len): try the
    # richest runs first and stop when no remaining run can win. (With repeated words
    # counted again: still an upper bound, and cheaper.)
    ranked = sorted((cum[before[a]] - cum[before[b]], index, a, b)
                    for index, (a, b) in enumerate(doc._spans) if b - a >= 2 and a >= first_token)
    floor = 3 + expected_len
    for neg_gain, index, a, b in ranked:
        if 2 * (base_gain - neg_gain) / floor + _MARGIN < best_key[0]:
            break
        run = records[a:b]
        length = b - a
        for i in compress(range(length), map(_get_may_start, run)):
            stop = min(length, i + max_words)
            # The same bound for the phrases starting here.
            if 2 * (base_gain + cum[before[a + stop]] - cum[before[a + i]]) / floor + _MARGIN < best_key[0]:
                continue
            seen = set(exclude)
            gain, n = base_gain, base_n
            for j in range(i, stop):
                for stem in run[j][_PIECE_STEMS]:
                    if stem not in seen:
                        seen.add(stem)
                        gain += get(stem, 0.0)
                        n += 1
                if j > i and n >= 3 and run[j][_MAY_END]:
                    key = (2 * gain / (n + expected_len), -index, -i)
                    if key > best_key:
                        best_key, best_toks = key, [piece[_SHOWN] for piece in run[i:j + 1]]
    return best_key[0], best_toks


# ---------------------------------------------------------------------------
# Titles
# ---------------------------------------------------------------------------


def _names(doc: Doc, probs: dict[str, float]) -> list[str]:
    """Coined names the abstract introduces ("we present GALA3D, ..."), most likely first."""
    found: dict[str, float] = {}
    common = model()["priors"]
    tokens, records, starts = doc._tokens, doc._records, doc._starts
    for si in compress(range(len(doc.contrib)), doc.contrib):
        a, b = starts[si], starts[si + 1]
        # Only name-like tokens with content stems can qualify.
        for tok, record in compress(zip(tokens[a:b], records[a:b]), map(_get_name_stems, records[a:b])):
            bare, stems, name_like = record[_BARE], record[_STEMS], record[_NAME_LIKE]
            # A coined name is rare: "LLMs" or "GPT-4" are in many abstracts and name nothing new.
            if (name_like and stems and PLACEHOLDER_OPEN not in tok and bare[:1].isalpha() and len(bare) <= 24
                    and all(common.get(s, (0, 0))[1] < 4 for s in stems)):
                found.setdefault(bare, max(probs.get(s, 0.0) for s in stems))
    return sorted(found, key=lambda n: (-found[n], n))[:1]


# "we propose FourierFT, ...", "a method called GraphZip", "we introduce the Threshold-Consistent
# Margin (TCM) loss": the verbs, and the words that may stand between a verb and the name.
_INTRODUCING = frozenset(f"{verb}{end}" for verb in "propose introduce present develop call dub name term coin".split()
                         for end in ("", "s", "d", "ed")) | {"dubbed"}
_BEFORE_NAME = frozenset("a an the our new novel simple".split())
_NOT_NAMES = frozenset("a an the this that these our we it in on for to of".split())


def introduced_name(doc: Doc) -> tuple[str, list[str] | None, int] | None:
    """The name the abstract gives its own contribution, and the words of its long form when
    it is an acronym defined there: "FourierFT" in "we introduce FourierFT, which ...";
    ("TULIP", [Transitional, ..., Predictions]) in "we propose Transitional ... Predictions
    (TULIP)"; and the number of the sentence that introduces it. None when no
    contribution sentence names one. A name the abstract only cites ("Low-Rank Adaptation
    (LoRA) is popular") is not introduced."""
    long_forms = {}
    for acr, long, _ in doc.acronyms:
        long_forms.setdefault(long[0].strip(_TOKEN_EDGE), []).append((acr, long))
    tokens, starts = doc._tokens, doc._starts
    for si in compress(range(len(doc.contrib)), doc.contrib):
        sentence = tokens[starts[si]:starts[si + 1]]
        for j in compress(range(len(sentence) - 1), map(_INTRODUCING.__contains__, sentence)):
            k = j + 1
            while k < len(sentence) - 1 and k - j <= 2 and sentence[k].lower() in _BEFORE_NAME:
                k += 1
            candidate = sentence[k]
            bare = candidate.strip(_TOKEN_EDGE)
            for acr, long in long_forms.get(bare, ()):
                if [w.strip(_TOKEN_EDGE) for w in sentence[k:k + len(long)]] == [w.strip(_TOKEN_EDGE) for w in long]:
                    return acr, long, si
            if (bare[:1].isupper() and bare.lower() not in _NOT_NAMES and len(bare) >= 3 and len(bare) <= 24
                    and PLACEHOLDER_OPEN not in candidate and _token(candidate)[1]
                    and (_name_like(bare) or candidate[-1:] in ",:"
                         or (k + 1 < len(sentence) and sentence[k + 1][:1] == "("))):
                return bare, None, si
    return None


def rank(doc: Doc, expected_len: float | None = None, name_bonus: float | None = None,
         acronym_bonus: float | None = None) -> tuple[str, list[str]]:
    """(name or "", phrase tokens) with the highest expected F1; led by the name the abstract
    gives its contribution when it gives one (introduced_name)."""
    data = model()
    T = data.get("expected_len", 6.0) if expected_len is None else expected_len
    bonus = data.get("name_bonus", 0.0) if name_bonus is None else name_bonus
    acr_bonus = data.get("acronym_bonus", 0.0) if acronym_bonus is None else acronym_bonus
    probs = word_probabilities(doc)
    introduced = introduced_name(doc)
    if introduced is not None:
        name, long, sentence = introduced
        if long is not None and len(dict.fromkeys(s for t in [name] + long for s in _token(t)[1])) >= 3:
            # the letters of the acronym, stressed inside its words ("**L**ow-Rank"), unstressed
            return name, [t[0] + t[1:-1].replace('"', "") + t[-1] if len(t) > 2 else t for t in long]
        stems = frozenset(_token(name)[1])
        _, toks = best_phrase(doc, probs, T, max_words=9, exclude=stems)
        # What follows the name says what it is, not which method the abstract cites: a phrase
        # that is only the long form of an acronym defined before ("Low-Rank Adaptation (LoRA)")
        # gives way to the best phrase without those words.
        said = {s for t in toks for s in _token(t)[1]}
        for acr, long, where in doc.acronyms:
            cited = {s for t in [acr] + long for s in _token(t)[1]}
            if where < sentence and said and said <= cited:
                _, toks = best_phrase(doc, {**probs, **dict.fromkeys(cited, 0.0)}, T, max_words=9, exclude=stems)
                break
        if toks and name not in {_token(t)[0] for t in toks}:  # the name once: "GraphTune: ... Graph ..." is fine
            return name, toks
    best_score, best_toks = best_phrase(doc, probs, T)
    best_name = ""
    for acr, long, _ in doc.acronyms:  # "ACR: Long Form", the way papers name their method
        stems = dict.fromkeys(s for t in [acr] + long for s in _token(t)[1])
        if len(stems) >= 3:
            score = 2 * sum(probs.get(s, 0.0) for s in stems) / (len(stems) + T) + acr_bonus
            if score > best_score:
                best_score, best_toks, best_name = score, long, acr
    defined = {acr for acr, _, _ in doc.acronyms}
    for name in _names(doc, probs):
        if name in defined:
            continue  # an acronym goes with its own expansion, above
        stems = frozenset(_token(name)[1])
        score, toks = best_phrase(doc, probs, T, max_words=9, exclude=stems)
        if toks and score + bonus > best_score and not stems & {s for t in toks for s in _token(t)[1]}:
            best_score, best_toks, best_name = score + bonus, toks, name
    return best_name, best_toks
