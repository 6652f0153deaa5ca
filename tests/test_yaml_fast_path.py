"""libyaml's fast path gives the same data, lines and errors as PyYAML's own parser."""
from __future__ import annotations

import random

import pytest
import yaml

from papersite.source import yamlsource
from papersite.errors import SiteError

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")

ATOMS = ["a", ":", " ", "\n", "- ", "[", "]", "{", "}", ",", "'", '"', "&x", "*x", "#", "!", "|", ">", "é",
         "\t", "?", "1", "no", "~", "\\", "%", "title", "2024-01-01"]


def outcome(text: str, fast: bool, monkeypatch) -> tuple:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(yamlsource, "_FastLoader", None)
        try:
            return ("ok", repr(yamlsource.load_yaml(text, "f.md", first_line=2)))
        except SiteError as error:
            return ("error", str(error))


def documents(rng: random.Random, count: int) -> list[str]:
    found = ["title: 'A: B'\nauthors: [Ada, Alan]\nyear: 2024\ntopics:\n- x\n- y\n",
             "a: &x [1, 2]\nb: *x\nc: no\nd: 2024-01-01\ne: é\n", "a: 1\na: 2\n", "a: \"\\x00\"\n",
             "- [a, ?b]\n", "a: |#\n  x\n", "a:\tb\n", "a: !x b\n", "", "# only a comment\n"]
    for _ in range(count):
        lines = [rng.choice(["title", "authors", "a", "- x"]) + ": " +
                 "".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 10))) for _ in range(rng.randint(1, 4))]
        found.append("\n".join(lines) + "\n")
        found.append("".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 20))))
    return found


def test_fast_and_pure_python_parsing_agree(monkeypatch):
    for text in documents(random.Random(2), 1500):
        assert outcome(text, True, monkeypatch) == outcome(text, False, monkeypatch), repr(text)
