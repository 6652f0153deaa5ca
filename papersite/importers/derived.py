"""Titles and topics a record does not bring: the only place the importer calls derive.py.

Titles are derived for seed text only (the one format without titles). Topics
come from the record's keywords when they name topics of the taxonomy, else
from the text.
"""
from __future__ import annotations

from .. import derive
from ..derive import derive_title, topic_matcher
from ..model import Topic
from .identity import fold

MAX_TOPICS = 3


def title_from(abstract: str) -> str:
    return derive_title(abstract)


def title_mark(title: str) -> dict:
    """The front matter that says a title was derived: it holds the title's hash, so the mark
    goes when a person edits the title (the build and later imports read it)."""
    return derive.title_mark(title)


class Topics:
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
