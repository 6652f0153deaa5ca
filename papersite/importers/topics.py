"""Topics for imported papers: from the record's own keywords when they name topics of the
taxonomy, else matched in its title and abstract.

Matching is keyword/phrase matches against the taxonomy (default_topics.yaml), with
light stemming so "diffusion model" also matches "diffusion models". A pure function
of its inputs; bench/topics.py measures it on papers it was not tuned on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..model import Topic
from ..text.words import suffix_stem as _stem
from .identity import fold

__all__ = ["Topics", "TopicMatcher", "topic_matcher", "assign_topics", "MAX_TOPICS"]

MAX_TOPICS = 3

# Thresholds measured with bench/topics.py on the tuning part of the development set.
TITLE_WEIGHT = 3.0  # a keyword in the title says more than one in the abstract
_MIN_SCORE = 1.0  # one phrase (1.5) or two words (2) in the abstract is a topic; one word (1) is not
_MIN_EXTRA_SCORE = 3.5  # below this a second/third topic is noise
_EXTRA_RATIO = 0.3  # ...and it must be this fraction of the best score
_GENERIC_SLUGS = ("general", "other", "misc")


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
    # "RL", "GNN", "LLM", "ViT", "NeRF": matched as written, so "ot" in prose doesn't count as OT
    # nor the "VITS" of Thompson sampling as ViT.
    word = kw.replace("-", "")
    return word.isalnum() and len(word) <= 6 and (kw.isupper() or any(c.isupper() for c in kw[1:]))


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


def _enough(found: list[_Keyword], naming: frozenset[str]) -> bool:
    """Whether the keywords found make a case for their topic: two different ones, or one phrase,
    acronym or word of the topic's own name ("privacy", "graph"). Another word alone ("image",
    "token", "node", "sampling"), however often it occurs, is too common across fields to decide."""
    return len(found) >= 2 or any(kw.acronym or len(kw.stems) > 1 or kw.stems[0] in naming for kw in found)


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
        self.naming = tuple(frozenset(map(_stem, _WORD.findall(str(t.get("name") or "").lower())))
                            for t in topics)
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
            found = [kw for kw, t, a in zip(keywords, in_title, in_abstract) if t or a]
            if not _enough(found, self.naming[ti]):
                continue
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
    return TopicMatcher([{"slug": slug, "name": name, "keywords": list(keywords)} for slug, name, keywords in key])


def topic_matcher(topics: list[dict]) -> TopicMatcher:
    """The matcher for a taxonomy, shared by every caller with an equal taxonomy."""
    return _matcher(tuple((str(t["slug"]), str(t.get("name") or ""), tuple(str(k) for k in t.get("keywords") or ()))
                          for t in topics))


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


class Topics:
    """The topics of imported records, for one taxonomy."""

    def __init__(self, topics: tuple[Topic, ...]):
        self.taxonomy = [{"slug": t.slug, "name": t.name, "description": t.description,
                          "keywords": list(t.keywords)} for t in topics]
        self.by_word: dict[str, str] = {}
        for topic in topics:  # a topic's own slug and name first, then its keywords
            for word in (topic.slug, topic.name):
                self.by_word.setdefault(fold(word), topic.slug)
        for topic in topics:
            for keyword in topic.keywords:
                self.by_word.setdefault(fold(str(keyword)), topic.slug)
        self.by_word.pop("", None)
        self.matcher = topic_matcher(self.taxonomy)  # prepared once, not per record

    def assign(self, keywords: list[str], title: str, abstract: str) -> list[str]:
        """0-3 topic slugs, most relevant first."""
        if not self.taxonomy:
            return []
        picked = []
        for keyword in keywords:
            slug = self.by_word.get(fold(keyword))
            if slug and slug not in picked:
                picked.append(slug)
        return picked[:MAX_TOPICS] or self.matcher.assign(title, abstract)
