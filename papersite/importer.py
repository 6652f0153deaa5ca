"""Import abstracts from other formats into content files.

The first format is the seed text: a header line such as "ICML 2024 Papers",
then abstracts separated by blank lines. Titles and topics are derived from
the text (see derive.py) and written as ordinary, editable front matter.

Safety: content/.imported.json records a hash of every file the importer
wrote. A file whose bytes no longer match was edited by a person and is
never overwritten; re-importing the same input changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .config import SiteConfig
from .content import MAX_ABSTRACT_CHARS, find_content_files, slugify, split_front_matter
from .derive import assign_topics, derive_title
from .errors import Problem, SiteError
from .model import Venue
from .yamlsource import FORBIDDEN_CHARACTERS

MANIFEST = ".imported.json"
SLUG_WORDS = 8


@dataclass(frozen=True)
class Entry:
    """One abstract read from an input file."""

    venue_name: str  # "ICML 2024"
    year: int
    abstract: str
    source: Path
    line: int


@dataclass
class ImportReport:
    created: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    skipped_edited: list[Path] = field(default_factory=list)
    venues_added: list[str] = field(default_factory=list)


HEADER = re.compile(r"^(?P<name>.*?\b(?P<year>(19|20)\d\d))\b(?:\s+papers?)?\s*$", re.IGNORECASE)


def read_seed_text(path: Path) -> list[Entry]:
    """Parse the seed format; errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SiteError(Problem(path, None, f"not UTF-8 text ({exc.reason})")) from None
    except OSError as exc:
        raise SiteError(Problem(path, None, f"cannot read: {exc.strerror}")) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise SiteError(Problem(path, 1, "empty file: expected a header such as 'ICML 2024 Papers'"))
    header = HEADER.match(lines[first].strip())
    if not header:
        raise SiteError(Problem(path, first + 1, f"expected a header with a venue and year such as "
                                                 f"'ICML 2024 Papers', not '{lines[first].strip()[:60]}'"))
    name, year = _clean(header["name"]), int(header["year"])
    entries, block, start = [], [], 0
    for number, line in enumerate(lines[first + 1:] + [""], start=first + 2):
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
        elif block:
            abstract = _clean(" ".join(block))
            if abstract:  # a block of control characters only is not an abstract
                entries.append(Entry(name, year, abstract, path, start))
            block = []
    if not entries:
        raise SiteError(Problem(path, first + 1, "no abstracts found after the header"))
    return entries


def _clean(text: str) -> str:
    """TeX-style quotes to typographic ones; they would otherwise read as Markdown code spans.

    Control characters are dropped: no page shows them and front matter cannot hold them.
    """
    text = FORBIDDEN_CHARACTERS.sub("", text)
    text = re.sub(r"``(.*?)(''|’’|\")", r"“\1”", text)
    return re.sub(r"\s+", " ", text).strip()


READERS = {".txt": read_seed_text}


def read_entries(path: Path) -> list[Entry]:
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise SiteError(Problem(path, None, f"unknown input format '{path.suffix}' "
                                            f"(supported: {', '.join(sorted(READERS))})"))
    return reader(path)


def paper_id(entry: Entry) -> str:
    """Stable: the venue and a hash of the abstract's words."""
    words = " ".join(entry.abstract.lower().split())
    return f"{slugify(entry.venue_name).replace('-', '')}-{hashlib.sha1(words.encode()).hexdigest()[:10]}"


def import_files(paths: list[Path], config: SiteConfig, site_yaml: Path) -> ImportReport:
    entries = [entry for path in paths for entry in read_entries(Path(path))]
    too_long = [Problem(e.source, e.line, f"abstract is {len(e.abstract):,} characters; the limit is "
                                          f"{MAX_ABSTRACT_CHARS:,}: is a blank line missing between two?")
                for e in entries if len(e.abstract) > MAX_ABSTRACT_CHARS]
    if too_long:  # the build would refuse the file; write nothing
        raise SiteError(too_long)
    report = ImportReport()
    venues = _ensure_venues(entries, config, site_yaml, report)
    content = config.content_dir
    manifest = _read_manifest(content)
    existing = _existing_ids(content)
    taken = {p.stem for p in find_content_files(content)} if content.is_dir() else set()
    topics = [{"slug": t.slug, "name": t.name, "description": t.description, "keywords": list(t.keywords)}
              for t in config.topics]
    seen_ids: set[str] = set()
    for entry in entries:
        pid = paper_id(entry)
        if pid in seen_ids:
            continue  # the same abstract twice in the input
        seen_ids.add(pid)
        venue = venues[entry.venue_name]
        title = derive_title(entry.abstract)
        target = existing.get(pid)
        if target is None:
            target = content / venue.slug / f"{_unique_slug(title, taken)}.md"
            taken.add(target.stem)
        data = _render(pid, title, venue, assign_topics(title, entry.abstract, topics), entry.abstract)
        key = target.relative_to(content).as_posix()
        if target.exists():
            current = target.read_bytes()
            if current == data:
                report.unchanged.append(target)
                manifest[key] = _hash(data)
                continue
            if manifest.get(key) != _hash(current):
                report.skipped_edited.append(target)
                continue
            report.updated.append(target)
        else:
            report.created.append(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        manifest[key] = _hash(data)
    _write_manifest(content, manifest)
    return report


def _render(pid: str, title: str, venue: Venue, topics: list[str], abstract: str) -> bytes:
    front = {"id": pid, "title": title, "authors": [], "venue": venue.slug, "year": venue.year,
             "topics": topics}
    yaml_text = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000, default_flow_style=None)
    return (f"---\n# Imported: title and topics were derived from the abstract. Edit freely;\n"
            f"# an edited file is never overwritten by a later import.\n{yaml_text}---\n{abstract}\n").encode()


def _unique_slug(title: str, taken: set[str]) -> str:
    words = slugify(title).split("-")[:SLUG_WORDS]
    base = "-".join(words) or "paper"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


def _existing_ids(content: Path) -> dict[str, Path]:
    """id -> file, for files already in content/ (so a renamed file is still found)."""
    found = {}
    if not content.is_dir():
        return found
    for path in find_content_files(content):
        try:
            front, _, _ = split_front_matter(path.read_text(encoding="utf-8-sig"))
            match = re.search(r"^id:\s*['\"]?([^'\"\s]+)", front, re.MULTILINE)
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        if match:
            found.setdefault(match.group(1), path)
    return found


def _ensure_venues(entries: list[Entry], config: SiteConfig, site_yaml: Path,
                   report: ImportReport) -> dict[str, Venue]:
    """Map each venue name to a Venue of site.yaml, adding missing ones to site.yaml."""
    known = {v.name.casefold(): v for v in config.venues}
    known.update({v.slug: v for v in config.venues})
    result, missing = {}, []
    for entry in entries:
        if entry.venue_name in result:
            continue
        venue = known.get(entry.venue_name.casefold()) or known.get(slugify(entry.venue_name))
        if venue is None:
            venue = Venue(slugify(entry.venue_name), entry.venue_name, entry.year)
            missing.append(venue)
            known[venue.name.casefold()] = venue
        result[entry.venue_name] = venue
    if missing:
        _append_venues(site_yaml, missing)
        report.venues_added.extend(v.slug for v in missing)
    return result


def _append_venues(site_yaml: Path, venues: list[Venue]) -> None:
    """Add venues to site.yaml as text, after the existing venues list, keeping comments."""
    text = site_yaml.read_text(encoding="utf-8")
    items = "".join(f"  - slug: {_plain_or_quoted(v.slug)}\n    name: {json.dumps(v.name)}\n    year: {v.year}\n"
                    for v in venues)
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    venues_node = next((value for key, value in (node.value if node else []) if key.value == "venues"), None)
    if isinstance(venues_node, yaml.SequenceNode) and venues_node.value and not venues_node.flow_style:
        at = venues_node.end_mark.index
        prefix = text[:at] if text[:at].endswith("\n") else text[:at] + "\n"
        text = prefix + items + text[at:]
    elif isinstance(venues_node, yaml.SequenceNode) and not venues_node.value:  # venues: []
        start, end = venues_node.start_mark.index, venues_node.end_mark.index
        text = text[:start].rstrip(" ") + "\n" + items + text[end:].lstrip(" ").removeprefix("\n")
    elif venues_node is None:
        text = text.rstrip("\n") + "\n\nvenues:\n" + items
    else:
        raise SiteError(Problem(site_yaml, venues_node.start_mark.line + 1,
                                "cannot add venues to this 'venues:' list automatically; add: "
                                + ", ".join(v.name for v in venues)))
    site_yaml.write_text(text, encoding="utf-8")


def _plain_or_quoted(text: str) -> str:
    """A YAML scalar that reads back as this string: 'icml-2024' as is, '2024' quoted."""
    return text if yaml.safe_load(text) == text else json.dumps(text)


def _read_manifest(content: Path) -> dict[str, str]:
    try:
        return json.loads((content / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_manifest(content: Path, manifest: dict[str, str]) -> None:
    content.mkdir(parents=True, exist_ok=True)
    data = json.dumps(dict(sorted(manifest.items())), indent=1) + "\n"
    path = content / MANIFEST
    if not path.exists() or path.read_text(encoding="utf-8") != data:
        path.write_text(data, encoding="utf-8")


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
