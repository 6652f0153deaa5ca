"""`check --fix`: the sure fixes, made only in files the importer wrote as they still are.

A file is the importer's while its bytes are those content/.imported.json records (the very
test `import` uses before it updates a file); any other file is a person's, left alone with a
message. A fixed file's new hash is recorded, so it stays the importer's to update.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

import yaml

from ..importers.writer import file_hash, is_imported, read_manifest, write_atomically, write_manifest
from ..source.config import SiteConfig
from ..source.content import split_front_matter
from .findings import Finding, front_lines
from .tex import fix_text


@dataclass
class Fixed:
    files: list[str] = field(default_factory=list)  # as shown in findings
    left_alone: list[str] = field(default_factory=list)  # messages: files a person edited


def apply_fixes(findings: list[Finding], config: SiteConfig) -> Fixed:
    """Make the sure fixes of `findings`; say which files were left alone, and why."""
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.fix:
            by_file[finding.path].append(finding)
    done = Fixed()
    if not by_file:
        return done
    content = config.content_dir
    manifest = read_manifest(content)
    for shown, fixes in sorted(by_file.items()):
        path = config.root / shown
        try:
            key = path.relative_to(content).as_posix()
            data = path.read_bytes()
        except (ValueError, OSError):
            done.left_alone.append(f"{shown}: left alone: not a content file the importer wrote")
            continue
        if not is_imported(manifest, key, data):
            done.left_alone.append(f"{shown}: left alone: edited by hand (not as content/.imported.json records "
                                   f"it); make the {len(fixes)} fix{'es' if len(fixes) > 1 else ''} yourself")
            continue
        renames = dict(finding.rename for finding in fixes if finding.rename)
        fixed = _fixed(data.decode("utf-8-sig"), renames)
        if fixed is None or fixed.encode() == data:
            done.left_alone.append(f"{shown}: left alone: the fixes could not be made in place; make them yourself")
            continue
        write_atomically(path, fixed.encode())
        manifest[key] = file_hash(fixed.encode())
        front_lines.cache_clear()
        done.files.append(shown)
    write_manifest(content, manifest)
    return done


def _fixed(text: str, renames: dict[str, str]) -> str | None:
    """The file with its title, author names and abstract fixed; None when a field it would rewrite
    spans lines (written by hand: not the importer's one-line form)."""
    text = text.replace("\r\n", "\n")
    front, body, _ = split_front_matter(text)
    lines = front.split("\n")
    for index, line in enumerate(lines):
        name = line.partition(":")[0]
        if name not in ("title", "authors") or line.startswith((" ", "\t")):
            continue
        try:
            value = yaml.safe_load(line)[name]
        except (yaml.YAMLError, TypeError, KeyError):
            return None
        if name == "title" and isinstance(value, str):
            new = fix_text(value)
        elif name == "authors" and isinstance(value, list):
            new = [_fixed_name(entry, renames) for entry in value]
        else:
            return None
        if new != value:
            lines[index] = f"{name}: {json.dumps(new, ensure_ascii=False)}"
    closing, newline, after = text[len("---\n") + len(front):].partition("\n")  # after: the abstract, as written
    return "---\n" + "\n".join(lines) + closing + newline + fix_text(after)


def _fixed_name(entry, renames: dict[str, str]):
    if isinstance(entry, str):
        name = " ".join(entry.split())
        return renames.get(name, fix_text(entry))
    if isinstance(entry, dict) and isinstance(entry.get("name"), str):
        name = " ".join(entry["name"].split())
        return {**entry, "name": renames.get(name, fix_text(entry["name"]))}
    return entry
