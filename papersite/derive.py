"""Derive titles and topics for abstracts that arrive without them.

Everything here is a pure function of its inputs (no I/O but the shipped model
file), so builds are deterministic and easy to test.

Titles: the phrase of the abstract (or "Name: phrase" when it introduces a
coined name) with the highest expected content-word overlap with the real
title, under word probabilities learned from real (abstract, title) pairs; see
title_model.py and docs/derived-titles.md for how it was chosen and how well it
does on abstracts it was not tuned on.

Topics: keyword/phrase matches against a taxonomy (default_topics.yaml), with
light stemming so "diffusion model" also matches "diffusion models".
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from .title_model import Doc, degenerate_reason, phrase_may_end, rank

__all__ = ["derive_title", "assign_topics", "topic_matcher", "TopicMatcher", "title_mark", "title_is_derived", "MAX_TITLE_LEN"]

MAX_TITLE_LEN = 90

# Lower-cased in titles unless first or right after a colon (Chicago style,
# which is what "GALA3D: Generative 3D Gaussians with Layout-Guided Control" uses).
_SMALL_WORDS = frozenset(
    "a an the and but or nor for of on in to at by with from as into via vs "
    "versus over per upon onto than under across between through toward towards "
    "within without among amid beyond about against".split()
)

_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"  # private-use marks around masked math
_PH = re.compile(f"{_PH_OPEN}(\\d+){_PH_CLOSE}")

# ---------------------------------------------------------------------------
# Text preparation
# ---------------------------------------------------------------------------

_TEXT_MACRO = re.compile(
    r"\\(?:textbf|texttt|textit|textsc|textrm|text|mathrm|mathbf|mathtt|mathit|emph)"
    r"\s*\{([^{}]*)\}"
)


def _mask_math(text: str) -> tuple[str, list[str]]:
    """Replace $...$ by placeholders so no heuristic looks inside math.

    Math that only wraps text ($\\textbf{\\texttt{Lingual-SMoE}}$) or a number
    is unwrapped instead: it is prose in disguise.
    """
    spans: list[str] = []

    def repl(m: re.Match) -> str:
        inner = m.group(1)
        plain = inner
        for _ in range(3):
            plain = _TEXT_MACRO.sub(r"\1", plain)
        plain = plain.strip("{} ")
        if (plain != inner and not re.search(r"[\\^_{}]", plain)) or re.fullmatch(
            r"[\d.,%+-]+", plain
        ):
            return plain
        spans.append(m.group(0))
        return f"{_PH_OPEN}{len(spans) - 1}{_PH_CLOSE}"

    return re.sub(r"\$([^$]+)\$", repl, text), spans


_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_BACKTICK_QUOTE = re.compile(r"`([^`'\"]+)'")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
_QUOTES = (("’’", '"'), ("''", '"'), ("``", '"'), ("“", '"'), ("”", '"'),
           ("‘", "'"), ("’", "'"), ("—", " — "), ("–", " – "))


def _clean(abstract: str) -> tuple[str, list[str]]:
    # Each step runs only when its text can match: most abstracts have no math, link or emphasis.
    # Only the steps that can leave double spaces call for spacing the text again.
    text = " ".join(abstract.split())
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
    for a, b in _QUOTES:
        if a in text:
            text = text.replace(a, b)
            respace = respace or " " in b
    if "`" in text:
        text = _BACKTICK_QUOTE.sub(r'"\1"', text)
    if "*" in text:
        text = _STRONG.sub(r'"\1"', text)
        text = _EMPHASIS.sub(r'"\1"', text)
    return (" ".join(text.split()) if respace else text), spans


_ABBREV_END = re.compile(
    r"\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|resp|w\.r\.t|approx|a\.k\.a|aka)\.$", re.I
)


# The space between two sentences (group 1). Matching the punctuation itself, rather than
# looking behind for it, lets the regex engine skip ahead to the next "." "!" or "?".
_SENTENCE_GAP = re.compile(r"[.!?](\s+)(?=[A-Z\"(\[\ue000])")


def _ends_in_abbreviation(s: str) -> bool:
    # The longest abbreviation is 7 characters; \b still sees the character before pos.
    return _ABBREV_END.search(s, max(0, len(s) - 8)) is not None


def _split_sentences(text: str) -> list[str]:
    out: list[str] = []
    prev = 0
    for m in _SENTENCE_GAP.finditer(text):
        part = text[prev:m.start(1)]
        if out and _ends_in_abbreviation(out[-1]):
            out[-1] += " " + part
        else:
            out.append(part)
        prev = m.end(1)
    part = text[prev:]
    if out and _ends_in_abbreviation(out[-1]):
        out[-1] += " " + part
    else:
        out.append(part)
    return out


_HYPHEN = re.compile(r"(-)")


def _case_word(word: str, force_cap: bool) -> str:
    """Title-case one word, part by part across hyphens ("layout-guided")."""
    parts = _HYPHEN.split(word) if "-" in word else [word]
    out = []
    for i, p in enumerate(parts):
        bare = p.strip("\"',.;:")
        if not bare or p == "-" or _PH_OPEN in p or any(map(str.isupper, p)):
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



# ---------------------------------------------------------------------------
# Titles
# ---------------------------------------------------------------------------


def _restore(s: str, math: list[str]) -> str:
    if _PH_OPEN not in s:
        return s
    return _PH.sub(lambda m: math[int(m.group(1))], s)


def _shape(tokens: list[str], math: list[str], budget: int) -> str:
    """Phrase tokens -> title text: title case, math restored, within budget characters."""
    words = list(tokens)
    while True:
        text = _restore(_title_case(_unmix_case(" ".join(words))), math)
        if len(text) <= budget or len(words) <= 2:
            return text
        words.pop()
        while len(words) > 2 and not phrase_may_end(words[-1]):
            words.pop()


_NON_WORD = re.compile(r"\W+")
_WE = re.compile(r"we\b", re.I)


def _norm(s: str) -> str:
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
    if not doc.sentences:
        return "Untitled"
    low = abstract.lower()
    position = "position" in low and " position paper" in " ".join(low.split())  # ICML's "Position: ..." convention
    prefix = "Position: " if position else ""
    name, tokens = rank(doc)
    if name:
        prefix += _restore(_unmix_case(name), doc.math) + ": "
    title = (prefix + _shape(tokens, doc.math, MAX_TITLE_LEN - len(prefix))) if tokens else ""
    first = _norm(_restore(" ".join(doc.sentences[0]), doc.math))
    if not title or _norm(title) == first or degenerate_reason(title) or _WE.match(title):
        title = _fallback(doc)
    return title


def _fallback(doc) -> str:
    """No usable phrase (a one-line or odd abstract): its opening words, cut to a title."""
    words = [w.strip("\"'()[],.;:!?") for w in doc.sentences[0][:8]]
    words = [w for w in words if w]
    while words and words[0].lower() in ("we", "in", "this", "here"):
        words = words[1:]
    first = _norm(_restore(" ".join(doc.sentences[0]), doc.math))
    while words and (not phrase_may_end(words[-1]) or _norm(" ".join(words)) == first):
        words.pop()
    text = _restore(_title_case(" ".join(words)), doc.math) if words else ""
    if not text or len(text) > MAX_TITLE_LEN or text.count("$") % 2:
        return "Untitled"
    return text


# ---------------------------------------------------------------------------
# The derived-title mark
# ---------------------------------------------------------------------------

TITLE_SOURCE_DERIVED = "derived"


def _title_hash(title: str) -> str:
    return hashlib.sha256(" ".join(title.split()).encode()).hexdigest()[:8]


def title_mark(title: str) -> dict:
    """Front matter that marks title as derived from the abstract, for the importer to add:
    {"title_source": "derived:<hash of the title>"}. The build shows the mark only while
    the title still has that hash, so editing the title removes it with no second edit."""
    return {"title_source": f"{TITLE_SOURCE_DERIVED}:{_title_hash(title)}"}


def title_is_derived(title: str, title_source: str | None) -> bool:
    """Whether a paper's title is still the one derived from its abstract: title_source is
    "derived:<hash>" with this title's hash (see title_mark), or a bare "derived" (a mark
    written by hand or by an importer that records no hash; it stays until removed)."""
    source = (title_source or "").strip()
    if source == TITLE_SOURCE_DERIVED:
        return True
    kind, _, digest = source.partition(":")
    return kind == TITLE_SOURCE_DERIVED and digest.strip() == _title_hash(title)


# ---------------------------------------------------------------------------
# Topics
# ---------------------------------------------------------------------------

# Thresholds measured with bench/topics.py on the tuning part of the development set.
TITLE_WEIGHT = 3.0  # a keyword in the title says more than one in the abstract
_MIN_SCORE = 2.0  # a best topic at or below this is right under half the time: no confident topic
_MIN_EXTRA_SCORE = 3.5  # below this a second/third topic is noise
_EXTRA_RATIO = 0.4  # ...and it must be this fraction of the best score
_GENERIC_SLUGS = ("general", "other", "misc")


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    """Crude suffix stripping, enough to equate 'models'/'model', 'policies'/'policy'."""
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


@dataclass
class _Text:
    """A text tokenised for keyword matching."""

    stems: list[str]
    raw: list[str]
    where: dict[str, list[int]]  # stem or raw token -> positions


_WORD = re.compile(r"[A-Za-z0-9]+")


def _tokens(text: str, keys=None) -> _Text:
    """text tokenised; where holds only the tokens in keys when keys is given
    (the only ones a lookup will ask for), each with the same positions."""
    raw = _WORD.findall(text)
    stems = list(map(_stem, raw))
    where: dict[str, list[int]] = {}
    for i, (st, r) in enumerate(zip(stems, raw)):
        if keys is None or st in keys:
            where.setdefault(st, []).append(i)
        if r != st and (keys is None or r in keys):
            where.setdefault(r, []).append(i)
    return _Text(stems, raw, where)


def _is_acronym_kw(kw: str) -> bool:
    # "RL", "GNN", "LLM": matched case-sensitively so "ot" in prose doesn't count as OT.
    return kw.isupper() and " " not in kw and len(kw) <= 6


@dataclass(frozen=True)
class _Keyword:
    text: str
    acronym: bool
    stems: tuple[str, ...]
    weight: float


@lru_cache(maxsize=256)
def _prepare(keywords: tuple[str, ...]) -> tuple[_Keyword, ...]:
    """Deduplicated keywords, longest first (see _hits)."""
    out: dict[object, _Keyword] = {}
    for kw in keywords:
        acronym = _is_acronym_kw(kw)
        stems = tuple(_stem(t) for t in re.findall(r"[A-Za-z0-9]+", kw))
        if not stems:
            continue
        key = kw if acronym else stems  # "image" and "images" are one keyword
        # Phrases are more specific than single words.
        out.setdefault(key, _Keyword(kw, acronym, stems, 1.0 + 0.5 * (len(stems) - 1)))
    return tuple(sorted(out.values(), key=lambda k: (-len(k.stems), k.text)))


def _find(kw: _Keyword, text: _Text) -> list[tuple[int, int]]:
    """Token spans where keyword kw occurs."""
    if kw.acronym:
        pos = text.where.get(kw.text, []) + text.where.get(kw.text + "s", [])
        return [(i, i + 1) for i in sorted(pos) if text.raw[i] in (kw.text, kw.text + "s")]
    n = len(kw.stems)
    return [(i, i + n) for i in text.where.get(kw.stems[0], []) if tuple(text.stems[i:i + n]) == kw.stems]


def _hits(keywords: tuple[_Keyword, ...], text: _Text) -> list[int]:
    """Occurrences per keyword. Longer keywords claim their tokens first, so
    "diffusion models" counts as that phrase and not also as "diffusion"."""
    taken: set[int] = set()
    counts = []
    for kw in keywords:
        n = 0
        for start, end in _find(kw, text):
            span = set(range(start, end))
            if not span & taken:
                taken |= span
                n += 1
        counts.append(n)
    return counts


class TopicMatcher:
    """A taxonomy prepared for assign_topics, built once per taxonomy.

    Its index maps each token a keyword can start with (the first stem of a
    phrase; an acronym as written, and its plural) to the keywords that start
    with it, so a text costs in proportion to its own words, not to the
    taxonomy's size. A keyword whose first token is not in the text has no
    occurrence, and dropping it changes neither another keyword's hits (it
    claims no tokens) nor a score (its term is 0), so the result is the same
    as trying every keyword.
    """

    def __init__(self, topics: list[dict]):
        self.slugs = tuple(str(t["slug"]) for t in topics)
        self.keywords = tuple(_prepare(tuple(str(k) for k in t.get("keywords") or ())) for t in topics)
        self.generic = next((slug for slug in self.slugs if any(g in slug for g in _GENERIC_SLUGS)), None)
        index: dict[str, list[tuple[int, int]]] = {}
        for ti, keywords in enumerate(self.keywords):
            for ki, kw in enumerate(keywords):
                for start in ((kw.text, kw.text + "s") if kw.acronym else (kw.stems[0],)):
                    index.setdefault(start, []).append((ti, ki))
        self.index = {start: tuple(entries) for start, entries in index.items()}

    def _candidates(self, text: _Text, into: dict[int, set[int]]) -> None:
        index = self.index
        for token in text.where:  # only index keys (see assign)
            for ti, ki in index[token]:
                into.setdefault(ti, set()).add(ki)

    def assign(self, title: str, abstract: str) -> list[str]:
        """assign_topics(title, abstract, the taxonomy this matcher was built from)."""
        if not self.slugs:
            return []
        t_tok = _tokens(title or "", self.index)
        a_tok = _tokens(abstract or "", self.index)
        candidates: dict[int, set[int]] = {}
        self._candidates(t_tok, candidates)
        self._candidates(a_tok, candidates)
        scores = [0.0] * len(self.slugs)
        for ti, kis in candidates.items():
            keywords = tuple(self.keywords[ti][ki] for ki in sorted(kis))  # the topic's order
            in_title = _hits(keywords, t_tok)
            in_abstract = _hits(keywords, a_tok)
            scores[ti] = sum(
                kw.weight * (TITLE_WEIGHT * t + min(a, 3))
                for kw, t, a in zip(keywords, in_title, in_abstract)
            )
        scored = sorted(zip(scores, self.slugs), key=lambda st: (-st[0], st[1]))
        best_score, best_slug = scored[0]
        if best_score <= _MIN_SCORE:
            return [self.generic] if self.generic is not None else []
        picked = [best_slug]
        for score, slug in scored[1:3]:
            if score >= _MIN_EXTRA_SCORE and score >= _EXTRA_RATIO * best_score:
                picked.append(slug)
        return picked


@lru_cache(maxsize=16)
def _matcher(key: tuple) -> TopicMatcher:
    return TopicMatcher([{"slug": slug, "keywords": list(keywords)} for slug, keywords in key])


def topic_matcher(topics: list[dict]) -> TopicMatcher:
    """The matcher for a taxonomy, shared by every caller with an equal taxonomy."""
    return _matcher(tuple((str(t["slug"]), tuple(str(k) for k in t.get("keywords") or ())) for t in topics))


def assign_topics(title: str, abstract: str, topics: list[dict]) -> list[str]:
    """Return 1-3 topic slugs from topics, best first, or [] when none is confident.

    Each topic scores by its keyword/phrase matches (stem-insensitive; title
    matches weigh TITLE_WEIGHT times more, abstract matches are capped per
    keyword so one repeated word can't dominate). A best score at or below
    _MIN_SCORE is no confident topic: the generic topic (slug containing
    "general"/"other"/"misc") if the taxonomy has one, else []. Extra topics
    must reach both an absolute and a relative threshold. Ties break by slug,
    so the result is deterministic. A caller with many texts should keep
    topic_matcher(topics) and call its assign.
    """
    if not topics:
        return []
    return topic_matcher(topics).assign(title, abstract)
