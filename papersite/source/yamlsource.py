"""Safe YAML loading that remembers which line every key came from.

Errors in site.yaml and in front matter must name the line, so we compose the
node tree once (safe loader only: tags such as !!python/object never construct
anything) and record the line of every mapping key and sequence item.
"""
from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import Problem, SiteError

Lines = dict[tuple, int]

MAX_DEPTH = 50  # front matter nests 2 deep; site.yaml 3
MAX_VALUES = 100_000  # after expanding aliases: a "billion laughs" stops here
# What YAML forbids as raw text (plus lone surrogates), still reachable through
# escapes such as "\x00" or "\ud800": it would break the HTML, XML and JSON output.
FORBIDDEN_CHARACTERS = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _Loader(yaml.SafeLoader):
    """SafeLoader without timestamps: a date stays a string, for validation to report. `no`
    and `yes` still read as false and true, as YAML 1.1 says; where text is expected,
    validation asks for quotes (`title: No` is an error at its line, not a title "False").

    Nesting is limited while composing: PyYAML's scanner is quadratic in the
    depth of [ and {.
    """

    _depth = 0

    def compose_node(self, parent, index):
        if self._depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                                              self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


# Dates would turn `year: 2024-05-01` into a datetime; keep them as strings so
# validation can report the wrong type instead of guessing.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


MAX_INT_CHARS = 100  # far past any year or count; Python refuses to even print ints past 4,300 digits


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    if len(node.value) > MAX_INT_CHARS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a whole number of {len(node.value):,} characters is too large "
                        "(quote it if it is meant as text)", node.start_mark)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


def _checked(tag: str, construct):
    """PyYAML's scalar constructors trust an explicit tag (`!!float abc`, `!!bool maybe`,
    `!!int -`) and fail with ValueError, KeyError or IndexError: make that a YAML error
    at the value's line."""
    def construct_checked(loader: yaml.SafeLoader, node: yaml.Node):
        try:
            return construct(loader, node)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError, OverflowError):
            kind = tag.rsplit(":", 1)[-1]
            shown = repr(node.value) if isinstance(node.value, str) and len(node.value) <= 40 else "this value"
            raise yaml.constructor.ConstructorError(None, None, f"{shown} is not a valid !!{kind}",
                                                    node.start_mark) from None
    return construct_checked


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
for _tag in ("null", "bool", "int", "float", "binary", "timestamp"):
    _tag = f"tag:yaml.org,2002:{_tag}"
    _Loader.add_constructor(_tag, _checked(_tag, _Loader.yaml_constructors[_tag]))


# libyaml composes the same node tree about ten times faster: used first when
# PyYAML was built with it. It accepts a few things PyYAML refuses (tabs before
# a token, `!` alone as a tag, `|#`, `?` in a flow list): text holding those goes
# to PyYAML only (tests/test_yaml_fast_path.py checks the two agree).
_FastLoader = None
_NOT_FOR_LIBYAML = re.compile(r"[\t!]|[|>][-+0-9]*#|[\[{][^\n]*\?")
if yaml.__with_libyaml__:
    class _FastLoader(yaml.CSafeLoader):
        yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
        yaml_constructors = _Loader.yaml_constructors


def load_yaml(text: str, path: Path | str, first_line: int = 1) -> tuple[Any, Lines]:
    """Parse YAML text; return the data and a map from key path to line number.

    `first_line` is the file line where `text` starts (front matter starts at 2).
    """
    at = _LineOf(text, first_line)
    if _FastLoader is not None and not _NOT_FOR_LIBYAML.search(text):
        try:
            node, data = _parse(_FastLoader, text, path, at)
            return data, _lines(node, at)
        except (yaml.YAMLError, SiteError, RecursionError):
            pass  # parse again with PyYAML's own parser: the error is then reported as always
    try:
        node, data = _parse(_Loader, text, path, at)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = at(mark) if mark else None
        reason = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.context_mark and exc.problem_mark and at(exc.context_mark) != line:
            reason += f" ({exc.context} started on line {at(exc.context_mark)})"
        raise SiteError(Problem(path, line, f"invalid YAML: {reason}")) from None
    except yaml.reader.ReaderError as exc:  # a raw character YAML does not allow, e.g. NUL
        line = at(yaml.Mark("", exc.position, 0, 0, None, None))
        character = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise SiteError(Problem(path, line, f"invalid YAML: the character U+{character:04X} is not allowed "
                                            "in text")) from None
    except yaml.YAMLError as exc:
        raise SiteError(Problem(path, first_line, "invalid YAML: " + " ".join(str(exc).split()))) from None
    except RecursionError:
        raise SiteError(Problem(path, first_line, "invalid YAML: nested too deeply")) from None
    return data, _lines(node, at)


def _parse(loader_class: type, text: str, path: Path | str, at: "_LineOf") -> tuple[yaml.Node | None, Any]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is not None and not _plainly_fine(node, text):
            _check_graph(node, path, at)
        return node, loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def _plainly_fine(root: yaml.Node, text: str) -> bool:
    """True when _check_graph cannot object, found cheaply; else it runs (and words any error).

    Without '&' there are no anchors, so no aliases to expand or loop; without a
    backslash no escape can make a character the reader did not already accept;
    every level of nesting needs an indicator (- : ? [ {), so fewer of those
    than MAX_DEPTH bound the depth. Only duplicate keys are left to look for.
    """
    if "&" in text or "\\" in text or len(text) >= MAX_VALUES or \
            sum(text.count(c) for c in "-:?[{") + 1 >= MAX_DEPTH:
        return False
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            keys = [k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)]
            if len(set(keys)) != len(keys) or "<<" in keys:
                return False
            stack.extend(value for _, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return True


def _lines(node: yaml.Node | None, at: "_LineOf") -> Lines:
    lines: Lines = {}
    if node is not None:
        _record_lines(node, (), lines, at)
    return lines


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _LineOf:
    """The file line of a PyYAML mark. PyYAML also breaks lines at U+0085, U+2028 and
    U+2029; editors (and split_front_matter) do not, so count only '\\n'."""

    def __init__(self, text: str, first_line: int):
        self.newlines = [match.start() for match in re.finditer("\n", text)]
        self.first_line = first_line

    def __call__(self, mark: yaml.Mark) -> int:
        return self.first_line + bisect.bisect_left(self.newlines, mark.index)


def _check_graph(root: yaml.Node, path: Path | str, at: _LineOf) -> None:
    """Refuse what safe loading alone lets through: aliases that contain themselves, that
    expand to a huge or too deep document, and escaped characters no output can hold.

    Iterative, and each node is measured once however often aliases repeat it.
    """
    def fail(node: yaml.Node, message: str):
        raise SiteError(Problem(path, at(node.start_mark), f"invalid YAML: {message}"))

    measured: dict[int, tuple[int, int]] = {}  # id(node) -> (values, depth) once expanded
    started: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            sizes = [measured[id(child)] for child in _children(node)]
            values = 1 + sum(size for size, _ in sizes)
            depth = 1 + max((d for _, d in sizes), default=0)
            if values > MAX_VALUES:
                fail(node, f"aliases expand this to more than {MAX_VALUES:,} values")
            if depth > MAX_DEPTH:
                fail(node, f"nested more than {MAX_DEPTH} levels deep (through aliases)")
            measured[id(node)] = (values, depth)
            continue
        if id(node) in measured:
            continue
        if id(node) in started:  # still being measured: we are inside it
            fail(node, "an alias refers to a collection that contains it")
        started.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            bad = FORBIDDEN_CHARACTERS.search(node.value)
            if bad:
                fail(node, f"the character U+{ord(bad.group()):04X} is not allowed in text")
        elif isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], yaml.Node] = {}  # (tag, text): 1 and '1' are two keys
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                    name = (key_node.tag, key_node.value)
                    if name in seen:
                        fail(key_node, f"'{key_node.value}' is given twice (first on line {at(seen[name].start_mark)})")
                    seen[name] = key_node
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))


def _record_lines(node: yaml.Node, key: tuple, lines: Lines, at: _LineOf) -> None:
    lines[key] = at(node.start_mark)
    stack = [(node, key)]  # bounded by MAX_VALUES (see _check_graph)
    while stack:
        node, key = stack.pop()
        lines.setdefault(key, at(node.start_mark))  # a mapping value keeps its key's line
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                child = key + (key_node.value,)
                lines[child] = at(key_node.start_mark)
                stack.append((value_node, child))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, key + (index,)) for index, item in enumerate(node.value))


def line_of(lines: Lines, *key) -> int | None:
    """The line of `key`, or of its closest recorded parent."""
    key = tuple(key)
    while key not in lines and key:
        key = key[:-1]
    return lines.get(key)
