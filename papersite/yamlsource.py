"""Safe YAML loading that remembers which line every key came from.

Errors in site.yaml and in front matter must name the line, so we compose the
node tree once (safe loader only: tags such as !!python/object never construct
anything) and record the line of every mapping key and sequence item.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Problem, SiteError

Lines = dict[tuple, int]


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps YAML 1.2-ish scalars: 'no' stays a string, no timestamps."""


# Dates would turn `year: 2024-05-01` into a datetime; keep them as strings so
# validation can report the wrong type instead of guessing.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str, path: Path | str, first_line: int = 1) -> tuple[Any, Lines]:
    """Parse YAML text; return the data and a map from key path to line number.

    `first_line` is the file line where `text` starts (front matter starts at 2).
    """
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + mark.line if mark else None
        reason = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.context_mark and exc.problem_mark and exc.context_mark.line != mark.line:
            reason += f" ({exc.context} started on line {first_line + exc.context_mark.line})"
        raise SiteError(Problem(path, line, f"invalid YAML: {reason}")) from None
    except yaml.YAMLError as exc:
        raise SiteError(Problem(path, first_line, f"invalid YAML: {exc}")) from None
    except RecursionError:
        raise SiteError(Problem(path, first_line, "invalid YAML: nested too deeply")) from None
    lines: Lines = {}
    if node is not None:
        _record_lines(node, (), lines, first_line)
    return data, lines


def _record_lines(node: yaml.Node, key: tuple, lines: Lines, offset: int) -> None:
    lines[key] = node.start_mark.line + offset
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = key + (key_node.value,)
            _record_lines(value_node, child, lines, offset)
            lines[child] = key_node.start_mark.line + offset
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, key + (index,), lines, offset)


def line_of(lines: Lines, *key) -> int | None:
    """The line of `key`, or of its closest recorded parent."""
    key = tuple(key)
    while key not in lines and key:
        key = key[:-1]
    return lines.get(key)
