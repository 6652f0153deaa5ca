"""content/ as an import finds it, kept from one import to the next, so that an import's cost
follows the records it reads, not the size of the catalog.

Recognising a record's paper needs every paper's id, identifiers, title and first author
(matching.py). Reading and parsing every content file for them made each import into a
catalog of 10,000 papers cost seconds before its first record. The index, beside site.yaml
in the git-ignored .cache/ (never under content/, which is published), keeps for each content
file its stat stamp (source/files.py: what the build cache trusts too) and what scan_file
found in it. An import still stats every file, but reads only those whose stamp moved since:
a person's edit, a file added by hand, the files the last import wrote (left out of the index,
so read once by the next). A damaged index is read no further and made again from content/.
Abstracts are not kept: the few venues a near-identical abstract is looked for in are read
when first needed (matching.py).
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..errors import Problem
from ..source.content import is_content_name, slugify
from ..source.files import stamp, walk_files
from .identity import title_key
from .writer import Existing, scan_file, write_atomically

INDEX = Path(".cache", "import-index.json")
FORMAT = 1  # of the index's entries: another number (an older papersite's) and the index is made again

# An entry: [mtime_ns, ctime_ns, size, inode, URL slug, paper or None (no id: the build reports the file)];
# a paper: [id, venue, title, title_source, first author, added, has an abstract, [kind, value, kind, value, ...],
# title key, title derived].
Entry = list


class CatalogIndex:
    """Every content file under content/, with its paper as scan_file reads it, from the index
    where the file's stamp is the one the index holds, else read now."""

    def __init__(self, content: Path, site_yaml: Path, manifest: dict[str, str]):
        self.content, self.path = content, Path(site_yaml).parent / INDEX
        self.notice: Problem | None = None  # why the index read was not used, when it was damaged
        kept = self._read()
        self.entries: dict[str, Entry] = {}  # relative path (as the manifest names files) -> entry, in path order
        self.changed = False  # the index to write differs from the one read
        prefix = len(str(content)) + 1
        for path, found in walk_files(content, None, None, is_content_name, []) if content.is_dir() else []:
            key = path[prefix:].replace(os.sep, "/")
            try:
                now = list(stamp(found.stat()))
            except OSError:
                now = None  # a dangling link: scan_file cannot read it either, and it stays out of the index
            entry = kept.pop(key, None)
            if now is None or entry is None or entry[:4] != now or not _sound(entry):
                if entry is not None and now is not None and entry[:4] == now:
                    self._damaged("an entry of the wrong shape")
                paper = scan_file(Path(path), manifest.get(key))
                entry = [*(now or [0, 0, 0, 0]), slugify(os.path.basename(path)[:-3]),
                         None if paper is None else _entry(paper)]
                self.changed = True
                if now is None:
                    entry[0] = None  # never equal to a stamp: read again by the next import
            self.entries[key] = entry
        self.changed = self.changed or bool(kept)  # files gone since

    def papers(self) -> dict[str, list]:
        """Relative path -> paper, of every file that has one, in path order."""
        return {key: entry[5] for key, entry in self.entries.items() if entry[5] is not None}

    def slugs(self) -> set[str]:
        """The URL slug of every content file, also of those that do not parse."""
        return {entry[4] for entry in self.entries.values()}

    def save(self, written: set[str]) -> None:
        """Write the index, leaving out the files this import wrote (`written`, relative paths):
        their stamps moved, and the next import reads them. Nothing is lost if it cannot be
        written: the next import reads more."""
        for key in written:
            self.changed = self.entries.pop(key, None) is not None or self.changed
        if not self.changed or not self.entries and not self.path.exists():
            return
        data = {"format": FORMAT, "content": str(self.content.resolve()),
                "files": {key: entry for key, entry in self.entries.items() if entry[0] is not None}}
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(exist_ok=True)
            write_atomically(self.path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    def _read(self) -> dict[str, Entry]:
        """The entries of the index, {} when there is none, or it is another papersite's or
        another content folder's, or damaged (then self.notice says so)."""
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return self._damaged(f"cannot read it ({exc.strerror or exc})")
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            return self._damaged(f"not valid JSON ({getattr(exc, 'msg', None) or type(exc).__name__})")
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            return self._damaged("not an index of content files")
        if data.get("format") != FORMAT or data.get("content") != str(self.content.resolve()):
            return {}
        return data["files"]

    def _damaged(self, why: str) -> dict:
        if self.notice is None:
            self.notice = Problem(self.path, None, f"warning: {why}: made again from the content files "
                                                   "(nothing is lost; this import reads them all)")
        self.changed = True
        return {}


def _entry(paper: Existing) -> list:
    return [paper.id, paper.venue, paper.title, paper.title_source, paper.first_author, paper.added,
            paper.has_abstract, [part for identifier in paper.identifiers for part in identifier],
            paper.title_key, paper.title_derived]


def _sound(entry) -> bool:
    """An entry as _entry and CatalogIndex write them (a stamp already compared equal)."""
    if not isinstance(entry, list) or len(entry) != 6 or not isinstance(entry[4], str):
        return False
    paper = entry[5]
    if paper is None:
        return True
    return (isinstance(paper, list) and len(paper) == 10 and all(isinstance(v, str) for v in paper[:6])
            and isinstance(paper[6], bool) and isinstance(paper[7], list) and len(paper[7]) % 2 == 0
            and all(isinstance(v, str) for v in paper[7]) and isinstance(paper[8], str)
            and isinstance(paper[9], bool))


def existing(content: Path, key: str, paper: list) -> Existing:
    """The Existing of an index entry's paper, its abstract not read yet."""
    ids = paper[7]
    return Existing(Path(content, key), paper[0], paper[1], paper[2], paper[3], paper[4], None, paper[5],
                    [(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)], has_abstract=paper[6])
