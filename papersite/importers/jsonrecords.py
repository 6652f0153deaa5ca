"""JSON: an array of records, an object holding one (`{"papers": [...]}`, OpenReview's
`{"notes": [...]}`), an object of records keyed by their ids (`{"abc": {"id": "abc", ...}}`),
a single record, or JSON Lines; each record a flat object (CSV column names), a CSL-JSON item
or an OpenReview note (API v1 `content.title`, v2 `content.title.value`).

Records are decoded one at a time from the text, so each gets its line number and a
syntax error keeps the records before it. A record that is valid JSON but cannot be
imported (a number too long, nesting too deep) is a problem of its own: the next is read.
"""
from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

from ..errors import Problem
from ..source.yamlsource import MAX_DEPTH, MAX_INT_CHARS
from . import arxiv, csljson
from .flat import ALIASES, Columns, column_key, record_from
from .records import Author, FileProblem, Record, Reader, read_text
from .text import inline, light_latex, link_for, paragraphs, status_from

# Front matter may nest MAX_DEPTH levels; a record's extra fields go two levels down in it.
MAX_RECORD_DEPTH = MAX_DEPTH - 2


class _Unreadable(Exception):
    """A record that is valid JSON but cannot be taken: reported and skipped, the next one read.
    `syntax`: what to call it should it turn out not to end (then nothing after it can be read)."""

    def __init__(self, message: str, syntax: str = "", end: int | None = None):
        super().__init__(message)
        self.syntax, self.end = syntax, end  # end: where the record ends, when known


def _whole_number(digits: str) -> int:
    # Python refuses to convert an integer of more than 4,300 digits, and the build refuses one of
    # more than MAX_INT_CHARS in front matter: either would stop the import or the next build.
    if len(digits) > MAX_INT_CHARS:
        raise _Unreadable(f"has a whole number of {len(digits):,} digits, too large to import "
                          "(quote it in the file if it is meant as text)")
    return int(digits)


_DECODER = json.JSONDecoder(parse_int=_whole_number)


def _decode(text: str, pos: int):
    """json's raw_decode; nesting too deep for it and numbers too long are _Unreadable."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise _Unreadable("is nested too deeply to read", "nested too deeply") from None
    if text.count("[", pos, end) + text.count("{", pos, end) > MAX_RECORD_DEPTH and \
            _depth_over(value, MAX_RECORD_DEPTH):  # walked only when it could be
        raise _Unreadable(f"is nested more than {MAX_RECORD_DEPTH} levels deep, more than a content file "
                          "may hold", end=end)
    return value, end


def _depth_over(value, limit: int) -> bool:
    """Whether value nests more than `limit` lists and objects deep (iteratively: a record
    nested as deep as json can read would exhaust the stack of a recursive walk)."""
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (value.values() if isinstance(value, dict) else value))
    return False


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|[^"\[\]{}]+', re.DOTALL)
_SCALAR = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\s,\]}]+', re.DOTALL)


def _end_of_value(text: str, pos: int) -> int:
    """Where the JSON value at pos ends, found without building it (an _Unreadable record, to
    go on after it). Raises JSONDecodeError when it does not end."""
    if text[pos] not in "[{":
        match = _SCALAR.match(text, pos)
        if match is None:
            raise json.JSONDecodeError("unterminated string", text, pos)
        return match.end()
    depth = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise json.JSONDecodeError("unterminated string", text, pos)
        first = text[pos]
        depth += 1 if first in "[{" else -1 if first in "]}" else 0
        pos = match.end()
        if depth == 0:
            return pos
    raise json.JSONDecodeError("a record is not closed", text, len(text))


def _value_or_skipped(text: str, pos: int):
    """(the JSON value at pos, or the _Unreadable that skips it; where it ends)."""
    try:
        return _decode(text, pos)
    except _Unreadable as exc:
        try:
            return exc, exc.end if exc.end is not None else _end_of_value(text, pos)
        except json.JSONDecodeError:
            if not exc.syntax:
                raise
            raise json.JSONDecodeError(exc.syntax, text, pos) from None


_SPACE = re.compile(r"\s*")


def flavour(path: Path) -> str:
    """'openreview', 'csljson' or 'json', from the file's first record."""
    for _, item in _records(path):
        if not isinstance(item, (Problem, _Unreadable)):
            return classify(item) if isinstance(item, dict) else "json"
    return "json"


JSON_LINES = (".jsonl", ".ndjson")


def _records(path: Path, named: frozenset[str] = frozenset()):
    """(line, value or Problem) for every record of the file; JSON Lines files are streamed.
    `named`: see _shape."""
    if path.suffix.lower() in JSON_LINES:
        number = 0
        try:
            with path.open(encoding="utf-8-sig") as file:
                for number, raw in enumerate(file, start=1):
                    if raw.strip():
                        yield number, _line_value(path, number, raw)
        except OSError as exc:
            yield None, FileProblem(path, None, f"cannot read: {exc.strerror or exc}")
        except UnicodeDecodeError as exc:
            yield number + 1, Problem(path, number + 1, f"not UTF-8 text ({exc.reason}): save the file as UTF-8")
        return
    text = read_text(path)
    if isinstance(text, Problem):
        yield text.line, text
        return
    yield from _items(path, text, named)


def classify(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, dict) and ("title" in content or "abstract" in content):
        return "openreview"
    author = item.get("author")
    if "issued" in item or "container-title" in item or (
            isinstance(author, list) and author and isinstance(author[0], dict)
            and {"family", "given", "literal"} & set(author[0])):
        return "csljson"
    return "json"


def read(path: Path, context, name: str) -> Reader:
    columns = None
    number = 0
    mapped = getattr(context, "columns", None) or {}
    named = frozenset(column_key(header) for field, header in mapped.items() if field in ("title", "abstract"))
    for line, item in _records(path, named):
        if isinstance(item, Problem):
            yield item
            continue
        number += 1
        if isinstance(item, _Unreadable):
            yield Problem(path, line, f"record {number} {item}: skipped")
            continue
        if not isinstance(item, dict):
            yield Problem(path, line, f"record {number} is {_kind(item)}, not an object")
            continue
        if name == "openreview":
            yield from _checked(_made(lambda: note(item, path, line, number), path, line, number),
                                path, line, number, "an OpenReview note")
        elif name == "csljson":
            yield from _checked(_made(lambda: csljson.record(item, path, line, number), path, line, number),
                                path, line, number, "a CSL-JSON item")
        else:
            if columns is None:  # the first record's keys; a later record may add others
                columns = Columns(list(item), getattr(context, "columns", None))
                for message in columns.problems:
                    yield Problem(path, line, message)
                if columns.problems:
                    return
            unknown = [key for key in item if key not in columns.names]
            if unknown:
                columns = Columns(columns.names + unknown, getattr(context, "columns", None))
            yield _made(lambda: _flat(item, columns, path, line, number), path, line, number)


def _flat(item: dict, columns: Columns, path: Path, line: int | None, number: int) -> Record | Problem:
    record = record_from(item, columns, path, line, number)
    if isinstance(record, Record) and arxiv.is_snapshot(item):
        return arxiv.snapshot_record(record, item)
    return record


def _made(make, path: Path, line: int | None, number: int) -> Record | Problem | None:
    """make(): whatever a record holds that its reader chokes on costs this record only, reported."""
    try:
        return make()
    except Exception as exc:
        reason = inline(str(exc))[:200] or type(exc).__name__
        return Problem(path, line, f"record {number} cannot be read ({reason}): skipped")


def _checked(record, path, line, number, what):
    yield record if record is not None else Problem(path, line, f"record {number} is not {what}")


def _kind(value) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number", bool: "true or false",
            type(None): "null"}.get(type(value), type(value).__name__)


def _items(path: Path, text: str, named: frozenset[str] = frozenset()):
    """(line, value) for every record of the text, or (line, Problem) where it stops being JSON."""
    lines = _Lines(text)
    pos = _SPACE.match(text, 0).end()
    if pos == len(text):
        yield 1, FileProblem(path, 1, "empty file: expected a JSON array of records")
        return
    try:
        if text[pos] == "[":
            yield from _array(text, pos, lines)
            return
        first, end = _value_or_skipped(text, pos)
        rest = _SPACE.match(text, end).end()
        if rest < len(text):  # more values follow: JSON Lines
            yield lines.at(pos), first
            yield from _json_lines(path, text, rest, lines)
            return
        if text[pos] == "{":
            shape, key = _shape(first, named) if isinstance(first, dict) else _shape_unread(text, pos)
            if shape == "list":
                yield from _array(text, next(at for name, at in _members(text, pos) if name == key), lines)
                return
            if shape == "keyed":
                for name, at in _members(text, pos):
                    yield lines.at(at), first[name] if isinstance(first, dict) else _value_or_skipped(text, at)[0]
                return
        yield lines.at(pos), first
    except json.JSONDecodeError as exc:
        yield exc.lineno, Problem(path, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})")


def _array(text: str, pos: int, lines: "_Lines"):
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return
    while True:
        value, end = _value_or_skipped(text, pos)
        yield lines.at(pos), value
        pos = _SPACE.match(text, end).end()
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()
        elif text.startswith("]", pos):
            return
        else:
            raise json.JSONDecodeError("expected ',' or ']' after a record", text, pos)


# The keys that make an object a paper's: a title or an abstract. Not `name`, a title's name
# in some tables, which a person's object has too (`"authors": [{"name": ...}]`).
_TITLE_KEYS = frozenset(ALIASES["title"]) - {"name"}
_ABSTRACT_KEYS = frozenset(ALIASES["abstract"])
_AUTHOR_KEYS = frozenset(ALIASES["authors"])


def _shape(item: dict, named: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """What a JSON file's one top-level object holds: ("list", key), the records are the list
    under key (`{"papers": [...]}`); ("keyed", None), the records are its members (OpenReview
    notes by id); ("one", None), it is a record itself. `named`: the column names --column
    gives a title or an abstract, as column_key makes them."""
    paper = _paper_score(item, named)
    if paper < 2:  # a bare title may be a list's own ("Accepted papers"); an abstract is a paper's
        for key, value in item.items():
            if isinstance(value, list) and _mostly_papers(value, named):
                return "list", key
    if paper:
        return "one", None
    values = list(item.values())
    if values and all(isinstance(v, dict) for v in values) and _mostly_papers(values, named):
        return "keyed", None
    for key, value in item.items():  # records whose title goes by another name (`name`)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return "list", key
    if len(item) == 1 and next(iter(item.values())) == []:  # `{"papers": []}`: a list of no records yet
        return "list", next(iter(item))
    return "one", None


def _shape_unread(text: str, pos: int) -> tuple[str, str | None]:
    """_shape of an object that is valid JSON but holds a record that cannot be taken (so it
    was not built), from its text: its first array of objects is the list of records; members
    that are all objects are records keyed by id; else it is one record."""
    members = list(_members(text, pos))
    for name, at in members:
        if text.startswith("[", at) and text.startswith("{", _SPACE.match(text, at + 1).end()):
            return "list", name
    if len(members) > 1 and all(text.startswith("{", at) for _, at in members):
        return "keyed", None
    return "one", None


def _paper_score(value, named: frozenset[str] = frozenset()) -> int:
    """2: an object with an abstract, or a title and authors; 1: with a title; 0: not a paper's.
    An OpenReview note is judged by its content."""
    if not isinstance(value, dict):
        return 0
    content = value.get("content")
    if isinstance(content, dict) and ("title" in content or "abstract" in content):
        value = content
    keys = {column_key(k) for k in value}
    titled = bool(keys & _TITLE_KEYS or keys & named)
    return 2 if keys & _ABSTRACT_KEYS or titled and keys & _AUTHOR_KEYS else 1 if titled else 0


def _mostly_papers(values: list, named: frozenset[str]) -> bool:
    """Most of the values are papers' objects (a record without its title is still one of them)."""
    return bool(values) and 2 * sum(_paper_score(v, named) > 0 for v in values) >= len(values)


def _members(text: str, pos: int):
    """(name, where its value starts) for every member of the object at pos, in order: its line.
    A value is decoded only to step over it, once the caller asks for the next member."""
    pos = _SPACE.match(text, pos + 1).end()
    while pos < len(text) and text[pos] == '"':
        name, pos = _decode(text, pos)
        pos = _SPACE.match(text, _SPACE.match(text, pos).end() + 1).end()  # past ':'
        yield name, pos
        _, end = _value_or_skipped(text, pos)
        pos = _SPACE.match(text, end).end()
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()


def _json_lines(path: Path, text: str, pos: int, lines: "_Lines"):
    for number, raw in enumerate(text[pos:].split("\n"), start=lines.at(pos)):
        if raw.strip():
            yield number, _line_value(path, number, raw)


def _line_value(path: Path, number: int, raw: str):
    """The one JSON value of a line of JSON Lines, or the Problem with it."""
    raw = raw.strip()
    try:
        value, end = _value_or_skipped(raw, 0)
        if end != len(raw):
            raise json.JSONDecodeError("more than one value on the line", raw, _SPACE.match(raw, end).end())
        return value
    except json.JSONDecodeError as exc:
        return Problem(path, number, f"not valid JSON: {exc.msg} (column {exc.colno})")


class _Lines:
    """Line numbers of text positions, for positions that only grow."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


# OpenReview notes ---------------------------------------------------------------------------

OPENREVIEW = "https://openreview.net"


def note(item: dict, path: Path, line: int | None, number: int) -> Record | None:
    content = item.get("content")
    if not isinstance(content, dict):
        return None

    def value(key: str, default=""):
        found = content.get(key, default)
        if isinstance(found, dict) and "value" in found:  # API v2
            found = found["value"]
        return found if found is not None else default

    record = Record(source=path, line=line, number=number)
    record.title = inline(light_latex(str(value("title"))))
    record.abstract = paragraphs(light_latex(str(value("abstract")), markdown=True), keep_lines=True)
    record.authors = [Author(inline(str(a))) for a in _list(value("authors", [])) if str(a).strip()]
    profiles = [str(a) for a in _list(value("authorids", [])) if str(a).startswith("~")]
    if profiles:  # profile ids only: e-mail addresses are private and stay out of the catalog
        record.extra["authorids"] = profiles
    record.keywords = [inline(str(k)) for k in _list(value("keywords", [])) if str(k).strip()]
    venue, venueid = inline(str(value("venue"))), inline(str(value("venueid")))
    record.venue = venueid or venue
    if venue and venueid:
        record.extra["venue"] = venue
    record.status = status_from(_decision(item, content)) or status_from(venue) or status_from(venueid)
    forum = str(item.get("forum") or item.get("id") or "")
    if forum:
        record.ids["openreview"] = forum
        record.links["openreview"] = f"{OPENREVIEW}/forum?id={forum}"
    pdf = str(value("pdf"))
    if pdf.startswith("/"):
        record.links["pdf"] = OPENREVIEW + pdf
    elif link_for("pdf", pdf):
        record.links["pdf"] = link_for("pdf", pdf)
    for key in ("code", "html"):
        link = link_for("url" if key == "html" else key, str(value(key)))
        if link:
            record.links["url" if key == "html" else key] = link
    published = item.get("pdate") or item.get("odate")
    if isinstance(published, (int, float)) and published > 0:
        day = datetime.datetime.fromtimestamp(published / 1000, datetime.timezone.utc).date()
        record.year, record.date = day.year, day.isoformat()
    year = re.search(r"\b(19|20)\d\d\b", venueid or venue)
    if year:
        record.year = int(year[0])
        if not record.date.startswith(year[0]):
            record.date = year[0]
    used = {"title", "abstract", "authors", "authorids", "keywords", "venue", "venueid", "pdf", "code",
            "html", "decision"}
    for key in content:
        if key not in used and not key.startswith("_") and value(key) not in ("", [], None):
            record.extra[key] = value(key)
    return record


def _list(found) -> list:
    return found if isinstance(found, list) else [found] if found else []


def _decision(item: dict, content: dict) -> str:
    decision = content.get("decision")
    replies = (item.get("details") or {}).get("directReplies") or (item.get("details") or {}).get("replies") or []
    for reply in replies if decision is None else []:
        found = (reply.get("content") or {}).get("decision") if isinstance(reply, dict) else None
        if found is not None:
            decision = found
            break
    if isinstance(decision, dict):
        decision = decision.get("value")
    return str(decision or "")
