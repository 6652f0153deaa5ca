"""Content files as the importer writes them, what is already in content/, and the
manifest that tells the importer's files from a person's edits.

content/.imported.json maps each file the importer wrote (path relative to
content/) to the SHA-256 of its bytes. A file whose bytes match is the
importer's to update; any other file is a person's and is never overwritten.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..source.content import find_content_files, split_front_matter
from ..errors import Problem, SiteError
from ..source.files import write_all, writer_is_gone
from ..source.yamlsource import FORBIDDEN_CHARACTERS, load_yaml
from .identity import family_name, identifiers, title_key
from .titles import title_is_derived

MANIFEST = ".imported.json"
HEADER = "# Imported. Edit freely: an edited file is never overwritten by a later import.\n"
# Files of the first importer say their title was derived only in this comment.
DERIVED_FIRST = "---\n# Imported: title and topics were derived from the abstract."
DERIVED_HEADER = ("# Imported: title and topics were derived from the abstract. Edit freely;\n"
                  "# an edited file is never overwritten by a later import.\n")
# Read back by YAML as the same string: a lower-case slug with a dash ('icml-2024'); never a
# number, date, boolean or null, which is what a plain scalar risks.
PLAIN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


def render(front: dict, abstract: str, derived: bool) -> bytes:
    """The bytes of a content file: a comment, the front matter, the abstract.

    Front matter values are written as JSON, which YAML reads as the same values (strings
    hold no control characters or line separators by then): five times faster than PyYAML's
    representer, the costliest step of an import. `extra`, free-form, goes through PyYAML."""
    lines = []
    for key, value in front.items():
        if key == "extra":
            lines.append(yaml.dump({key: value}, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                                   width=1000, default_flow_style=None).rstrip("\n"))
        else:
            lines.append(f"{key}: {_flow(value)}")
    body = f"{abstract}\n" if abstract else ""
    head = DERIVED_HEADER if derived else HEADER
    return ("---\n" + head + "\n".join(lines) + "\n---\n" + body).encode("utf-8")


_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(..., ensure_ascii=False), made once


def _flow(value) -> str:
    if isinstance(value, str):
        return value if PLAIN.fullmatch(value) else _JSON_TEXT(value)
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # int


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when PyYAML has it


def one_line(text: str) -> str:
    """Text as front matter holds a title or a name: control characters dropped, whitespace
    runs made one space; nothing else changed (the record's text is the paper's)."""
    if not text.isprintable():  # every character FORBIDDEN_CHARACTERS matches is unprintable
        text = FORBIDDEN_CHARACTERS.sub("", text)
    return " ".join(text.split())


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_imported(manifest: dict[str, str], key: str, data: bytes, owned: set[str] | None = None) -> bool:
    """Whether a content file (`key`: its path relative to content/) holds what an import wrote: its
    bytes are those the manifest records for it, or for any file (`owned`: the manifest's hashes, as
    a set, for a caller asking about many files). A person who edits a file makes it theirs."""
    digest = file_hash(data)
    return manifest.get(key) == digest or digest in (owned if owned is not None else set(manifest.values()))


def write_atomically(path: Path, data: bytes, existed: bool | None = None) -> None:
    """Write through a temporary file renamed over the target: an interruption leaves the
    old file or the new one, never half of either. The file keeps its permissions."""
    # existed=False: the caller made sure nothing is there, not even a link. Each check
    # skipped is a system call saved per paper, which counts at 10,000 papers; so do the
    # os functions on strings, at a third of what pathlib and open() cost a file.
    if existed is not False and path.is_symlink():  # write where it points; replacing the link would cut it
        path = path.resolve()
    target = os.fspath(path)
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        try:
            file = os.open(temporary, _CREATE, 0o666)
        except FileNotFoundError:  # a new folder
            os.makedirs(folder, exist_ok=True)
            file = os.open(temporary, _CREATE, 0o666)
        try:
            write_all(file, data)
        finally:
            os.close(file)
        if existed if existed is not None else os.path.exists(target):
            shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)

# write_atomically's temporary files: ".<name>.<pid>.tmp"
_TEMPORARY = re.compile(r"\.(.+)\.([0-9]+)\.tmp")
_RENDERED_START = b"---\n# Imported"  # of HEADER and DERIVED_HEADER


def clear_leftovers(content: Path, site_yaml: Path, others: dict[Path, bytes]) -> None:
    """Remove the temporary files of an import killed while it wrote (kill -9, a power cut):
    hidden, so the build never reads them, they would stay forever. Only what is provably one:
    a name write_atomically gives, of a process no longer running, holding the start of what an
    import writes there (a content file, the manifest, site.yaml, or one of `others`: a file
    and what it starts with). Folders are walked as the import finds content files, links not
    followed; anything else is a person's and stays."""
    for path, start in others.items():
        for entry in _entries(path.parent):
            match = _TEMPORARY.fullmatch(entry.name)
            if match and match[1] == path.name and writer_is_gone(int(match[2])):
                _remove_if_it_starts(path.parent / entry.name, start)
    found = [(site_yaml.parent, entry.name) for entry in _entries(site_yaml.parent)]
    folders = [content]
    while folders:
        folder = folders.pop()
        for entry in _entries(folder):
            name = entry.name
            if name[0] == "." and name.endswith(".tmp"):  # as _TEMPORARY names them, or a hidden folder
                if not _is_folder(entry):
                    found.append((folder, name))
            elif name[0] != "." and _is_folder(entry):
                folders.append(Path(entry.path))
    for folder, name in found:
        match = _TEMPORARY.fullmatch(name)
        if not match:
            continue
        written = match[1]
        if written == site_yaml.name and folder == site_yaml.parent:
            start = b""  # site.yaml with venues appended: any text
        elif written == MANIFEST and folder == content:
            start = b"{"
        elif written.endswith(".md") and folder != site_yaml.parent:
            start = _RENDERED_START
        else:
            continue
        if writer_is_gone(int(match[2])):
            _remove_if_it_starts(folder / name, start)


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))
    except OSError:
        return []  # the import says what it cannot read


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _remove_if_it_starts(path: Path, start: bytes) -> None:
    """Remove the regular file at path if its bytes are `start` or its beginning (a write cut
    short), or begin with it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return
            head = os.read(fd, len(start))
        finally:
            os.close(fd)
        if head == start[:len(head)]:
            os.unlink(path)
    except OSError:
        pass  # a link, unreadable, or gone meanwhile: left as it is


def read_manifest(content: Path) -> dict[str, str]:
    """The manifest, checked: a manifest of the wrong shape is an error, never silently
    replaced (that would make every imported file look edited, or overwrite real edits)."""
    path = content / MANIFEST
    shown = path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise SiteError(Problem(shown, None, "not UTF-8 text: " + _RESTORE)) from None
    except OSError as exc:
        raise SiteError(Problem(shown, None, f"cannot read: {exc.strerror}")) from None
    try:
        data = _MANIFEST_JSON.decode(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise SiteError(Problem(shown, line, f"not valid JSON ({getattr(exc, 'msg', exc)}): {_RESTORE}")) from None
    except RecursionError:
        raise SiteError(Problem(shown, None, f"nested too deeply to be a manifest: {_RESTORE}")) from None
    if not isinstance(data, dict):
        raise SiteError(Problem(shown, 1, f"expected an object mapping file paths to hashes, not a "
                                          f"{_json_type(data)}: {_RESTORE}"))
    for key, value in data.items():
        if not isinstance(value, str):
            line = _line_of(text, key)
            raise SiteError(Problem(shown, line, f"the hash of '{key[:60]}' must be a string, not a "
                                                 f"{_json_type(value)}: {_RESTORE}"))
    return data


# Every value is a hash, a string: a whole number, however long, only has to be reported as a number
# where a hash belongs, not converted (past 4,300 digits Python refuses to, naming no file).
_MANIFEST_JSON = json.JSONDecoder(parse_int=float)

_RESTORE = ("restore it from git, or delete it (every imported file is then treated as edited by hand and "
            "never updated)")


def _json_type(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(value), type(value).__name__)


def _line_of(text: str, key: str) -> int | None:
    at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def write_manifest(content: Path, manifest: dict[str, str]) -> None:
    # json.dumps(..., indent=1), by the C encoder, which indent turns off: a tenth of the time at 50,000 files
    text = json.dumps(dict(sorted(manifest.items())), separators=(",\n ", ": "))
    data = (("{\n " + text[1:-1] + "\n}" if manifest else text) + "\n").encode("utf-8")
    path = content / MANIFEST
    if not path.exists() or path.read_bytes() != data:
        write_atomically(path, data)


@dataclass(eq=False)
class Existing:
    """A content file already in the catalog, as much as recognising it again needs."""

    path: Path
    id: str
    venue: str
    title: str
    title_source: str
    first_author: str  # family name, folded
    abstract: str | None  # None: not read yet (a paper of the index: see catalog_index.py)
    added: str
    identifiers: list[tuple[str, str]] = field(default_factory=list)
    claimed: str = ""  # the record of this import that took it: a later one is a duplicate
    created: bool = False  # written by this import
    has_abstract: bool = False  # its file had an abstract when scanned

    def has_text(self) -> bool:
        """Whether the paper has an abstract, read or not."""
        return bool(self.abstract) if self.abstract is not None else self.has_abstract

    @property
    def title_key(self) -> str:
        return title_key(self.title)

    @property
    def title_derived(self) -> bool:
        """Still the title derived from the abstract (a person's edit of it ends that)."""
        return title_is_derived(self.title, self.title_source)


def scan_catalog(content: Path, manifest: dict[str, str] | None = None) -> list[Existing]:
    """Every content file that parses far enough to have an id, in path order; the build
    reports the others."""
    if not content.is_dir():
        return []
    manifest = manifest or {}
    prefix = len(str(content)) + 1
    found = (scan_file(path, manifest.get(str(path)[prefix:].replace(os.sep, "/")))
             for path in find_content_files(content))
    return [paper for paper in found if paper is not None]


def scan_file(path: Path, recorded_hash: str | None = None) -> Existing | None:
    """The paper of a content file, if it parses far enough to have an id. A file whose bytes
    have the hash the manifest records is read as render() wrote it (_read_rendered), without
    a YAML parser: a re-import of 10,000 papers spent most of its time parsing their front matter."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
        front, body, _ = split_front_matter(text)
        data = None
        if recorded_hash is not None and recorded_hash == file_hash(raw):
            data = _read_rendered(front)
        if data is None:
            data, _ = load_yaml(front, path, first_line=2)
    except (ValueError, OSError, UnicodeDecodeError, SiteError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), (str, int)) or isinstance(data["id"], bool):
        return None
    authors = data.get("authors") if isinstance(data.get("authors"), list) else []
    first = authors[0] if authors else ""
    first = first.get("name", "") if isinstance(first, dict) else first
    links = data.get("links") if isinstance(data.get("links"), dict) else {}
    links = {k: v for k, v in links.items() if isinstance(v, str)}
    kind, _, value = str(data["id"]).partition("-")  # "arxiv-2402.07207": an id made from an identifier
    ids = {kind: value} if kind in ("openreview", "arxiv") and value else {}
    abstract = body.strip()
    return Existing(
        path=path, id=str(data["id"]), venue=_text(data.get("venue")), title=_text(data.get("title")),
        title_source=_text(data.get("title_source")) or ("derived" if text.startswith(DERIVED_FIRST) else ""),
        first_author=family_name(_text(first)), abstract=abstract, added=_text(data.get("added")),
        identifiers=identifiers(ids, links), has_abstract=bool(abstract),
    )


def read_abstract(path: Path) -> str:
    """The abstract of a content file, as scan_file reads it ("" when it cannot be read)."""
    try:
        return abstract_of(path.read_bytes())
    except OSError:
        return ""


def abstract_of(data: bytes) -> str:
    try:
        return split_front_matter(data.decode("utf-8-sig"))[1].strip()
    except ValueError:  # UnicodeDecodeError is one
        return ""


# What scan_catalog reads of a file render() wrote, and how: "key: value" lines, the value
# as _flow wrote it. _FLOW_SAFE lists everything _flow writes in a list or mapping but floats.
_SCANNED = frozenset({"id", "title", "title_source", "authors", "venue", "added", "links"})
_KEY = re.compile(r"[a-z_]+")
_FLOW_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_FLOW_INT = re.compile(r"-?[1-9][0-9]*|0")
_FLOW_SAFE = re.compile(r'[\[\]{},: ]|"(?:[^"\\]|\\.)*"|-?[1-9][0-9]*|0|true|false|null'
                        r"|[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_FLOW_PLAIN = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w.-])')


def _read_rendered(front: str) -> dict | None:
    """What scan_catalog needs of the front matter of a file render() wrote, read line by
    line: a value is a slug as written, or JSON (strings, integers, lists and mappings of
    them), which YAML reads as the same value. None when a line is anything else (a file of
    an older importer, say): YAML then reads it. `extra`, written by PyYAML, is skipped."""
    data = {}
    in_extra = False
    for line in front.split("\n"):
        if not line or line[0] == "#" or (in_extra and line[0] in " -"):
            continue  # a comment, or a line of extra's block
        in_extra = line == "extra:" or line.startswith("extra: ")
        if in_extra:
            continue
        key, colon, value = line.partition(": ")
        if not colon or not value or not _KEY.fullmatch(key):
            return None
        if key in _SCANNED:
            parsed = _unflow(value)
            if parsed is None:
                return None
            data[key] = parsed
    return data


def _unflow(value: str):
    """A value as _flow wrote it, or None when it is not one (then YAML has to read it)."""
    if "\x85" in value or "\u2028" in value or "\u2029" in value:
        return None  # line breaks to YAML, inside quotes too
    if value[0] == '"':
        if not _FLOW_STRING.fullmatch(value):
            return None  # a quoted string that goes on, on the next line
        try:
            return json.loads(value)
        except ValueError:  # an escape YAML has and JSON has not ("\\x41", "\\e")
            return None
    if PLAIN.fullmatch(value):
        return value
    if _FLOW_INT.fullmatch(value):
        return int(value)
    if value[0] not in "[{":
        return None
    try:
        return _FLOW_JSON.decode(value)  # no slug in it, as is usual
    except ValueError:
        pass
    if _FLOW_SAFE.sub("", value):
        return None  # something other than strings, integers, slugs and brackets
    try:
        return _FLOW_JSON.decode(_FLOW_PLAIN.sub(lambda m: json.dumps(m.group(1)) if m.group(1) else m.group(0), value))
    except ValueError:
        return None


def _no_float(text: str):
    raise ValueError(f"{text}: YAML and JSON may read a number with a fraction or exponent differently")


_FLOW_JSON = json.JSONDecoder(parse_float=_no_float, parse_constant=_no_float)


def _text(value) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)
