"""Collects every problem in a YAML mapping instead of stopping at the first."""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from ..errors import Problem
from .yamlsource import Lines, line_of

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

_TYPE_NAMES = {str: "a string", int: "a whole number", list: "a list", dict: "a mapping", bool: "true or false"}


class Checker:
    """Reads typed fields from YAML data, recording a Problem for each bad one."""

    def __init__(self, path: Path | str, lines: Lines):
        self.path = path
        self.lines = lines
        self.problems: list[Problem] = []

    def problem(self, key: tuple, message: str) -> None:
        self.problems.append(Problem(self.path, line_of(self.lines, *key), message))

    def mapping(self, data: Any, key: tuple, what: str) -> dict:
        if isinstance(data, dict):
            return data
        self.problem(key, f"{what} must be a mapping of keys to values, not {_kind(data)}")
        return {}

    def unknown_keys(self, data: dict, key: tuple, allowed: tuple[str, ...]) -> None:
        for name in data:
            if name in allowed:
                continue
            hint = difflib.get_close_matches(str(name), allowed, n=1)
            suggestion = f" (did you mean '{hint[0]}'?)" if hint else f" (allowed: {', '.join(allowed)})"
            self.problem(key + (name,), f"unknown key '{name}'{suggestion}")

    def field(self, data: dict, key: tuple, name: str, kind: type, default: Any = None,
              required: bool = False) -> Any:
        """data[name] checked against `kind`; lists of strings for kind=list."""
        if name not in data or data[name] is None:
            if required:
                self.problem(key, f"missing required field '{name}'")
            return default
        value = data[name]
        here = key + (name,)
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            hint = ": quote it to make it text" if kind is str and isinstance(value, (int, float)) else ""
            self.problem(here, f"'{name}' must be {_TYPE_NAMES[kind]}, not {_kind(value)}{hint}")
            return default
        if kind is str:
            value = value.strip()
            if required and not value:
                self.problem(here, f"'{name}' must not be empty")
                return default
        if kind is list:
            bad = [i for i, item in enumerate(value) if not isinstance(item, str) or not item.strip()]
            for i in bad:
                self.problem(here + (i,), f"'{name}' items must be non-empty strings, not {_kind(value[i])}")
            value = [item.strip() for item in value if isinstance(item, str) and item.strip()]
        return value

    def slug(self, data: dict, key: tuple, name: str = "slug") -> str | None:
        value = self.field(data, key, name, str, required=True)
        if value is not None and not SLUG.match(value):
            self.problem(key + (name,), f"'{name}' must be lowercase letters, digits and hyphens, not '{value}'")
            return None
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, float):
        return f"a decimal number ({_short(value)})"
    for kind, name in _TYPE_NAMES.items():
        if isinstance(value, kind):
            return f"{name} ({_short(value)})" if kind in (str, int) else name
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
