"""content/ as an import finds it, kept from one import to the next, so that an import's cost
follows the records it reads, not the size of the catalog.

Recognising a record's paper needs every paper's id, identifiers, title and first author
(matching.py). Reading and parsing every content file for them made each import into a
catalog of 10,000 papers cost seconds before its first record. The index, beside site.yaml
in the git-ignored .cache/ (never under content/, which is published), keeps for each content
file its stat stamp (source/files.py: what the build cache trusts too) and what scan_file
found in it. An import still stats every file, but reads only those whose stamp moved since:
a person's edit, a file added by hand, the files the last import wrote (left out of the index,
so read once by the next). Abstracts are not kept: those of the few venues a near-identical
abstract is looked for in are read when first needed (matching.py).

The index is pickled (loaded in a third of JSON's time) after a SHA-256 digest of its bytes, as
the build cache is (engine/store.py): an index whose bytes are not the ones written (cut short,
damaged) is never unpickled, but made again from content/, with a warning.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from pathlib import Path

from ..source.content import is_content_name, slugify
from ..source.files import stamp, walk_files
from .writer import Existing, scan_file, write_atomically

INDEX = Path(".cache", "import-index.pickle")
# The index's first line; its second is the SHA-256 of the rest. Another first line (another
# papersite's) and the index is made again.
KIND = b"papersite import index "
HEADER = KIND + b"2\n"

# An entry: [stamp, URL slug, paper or None (no id: the build reports the file)];
# a paper: [id, venue, title, title_source, first author, added, has an abstract, [kind, value, kind, value, ...],
# title key, title derived].
Entry = list


class CatalogIndex:
    """Every content file under content/, with its paper as scan_file reads it, from the index
    where the file's stamp is the one the index holds, else read now."""

    def __init__(self, content: Path, site_yaml: Path, manifest: dict[str, str]):
        self.content, self.path = content, Path(site_yaml).parent / INDEX
        self.warning = ""  # why the index read was not used, when it was damaged
        kept = self._read()
        self.entries: dict[str, Entry] = {}  # relative path (as the manifest names files) -> entry, in path order
        self.changed = False  # the index to write differs from the one read
        prefix, entries, same = len(str(content)) + 1, self.entries, 0
        # the loop every file goes through, at 50,000 of them: as little as it can be
        for path, found in walk_files(content, None, None, is_content_name, []) if content.is_dir() else []:
            key = path[prefix:] if os.sep == "/" else path[prefix:].replace(os.sep, "/")
            try:
                now = stamp(found.stat())
            except OSError:
                now = None  # a dangling link: scan_file cannot read it either; read again next time
            entry = kept.get(key)
            if entry is not None and entry[0] == now:
                same += 1
            else:
                paper = scan_file(Path(path), manifest.get(key))
                entry = [now, slugify(os.path.basename(path)[:-3]), None if paper is None else _entry(paper)]
                self.changed = True
            entries[key] = entry
        self.changed = self.changed or same != len(kept)  # files gone since

    def papers(self) -> dict[str, list]:
        """Relative path -> paper, of every file that has one, in path order."""
        return {key: entry[2] for key, entry in self.entries.items() if entry[2] is not None}

    def slugs(self) -> set[str]:
        """The URL slug of every content file, also of those that do not parse."""
        return {entry[1] for entry in self.entries.values()}

    def save(self, written: set[str]) -> None:
        """Write the index, leaving out the files this import wrote (`written`, relative paths):
        their stamps moved, and the next import reads them. Nothing is lost if it cannot be
        written: the next import reads more."""
        for key in written:
            self.changed = self.entries.pop(key, None) is not None or self.changed
        if not self.changed or not self.entries and not self.path.exists():
            return
        data = pickle.dumps((str(self.content.resolve()),
                             {key: entry for key, entry in self.entries.items() if entry[0] is not None}), 5)
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(exist_ok=True)
            write_atomically(self.path, HEADER + hashlib.sha256(data).hexdigest().encode() + b"\n" + data)

    def _read(self) -> dict[str, Entry]:
        """The entries of the index, {} when there is none, or it is another papersite's or
        another content folder's, or damaged (then self.warning says so)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return self._damaged(f"cannot read it ({exc.strerror or exc})")
        if not data.startswith(HEADER):
            return {} if data.startswith(KIND) else self._damaged("not an index of content files")
        digest, _, data = data[len(HEADER):].partition(b"\n")
        if digest != hashlib.sha256(data).hexdigest().encode():
            return self._damaged("its bytes are not the ones written (cut short or damaged)")
        try:
            content, files = pickle.loads(data)
        except (pickle.UnpicklingError, ValueError, TypeError, EOFError):  # the bytes written, by another papersite
            return self._damaged("not an index of content files")
        return files if content == str(self.content.resolve()) else {}

    def _damaged(self, why: str) -> dict:
        self.warning = (f"warning: {why}: made again from the content files "
                        "(nothing is lost; this import reads them all)")
        self.changed = True
        return {}


def _entry(paper: Existing) -> list:
    return [paper.id, paper.venue, paper.title, paper.title_source, paper.first_author, paper.added,
            paper.has_abstract, [part for identifier in paper.identifiers for part in identifier],
            paper.title_key, paper.title_derived]


def existing(content: Path, key: str, paper: list) -> Existing:
    """The Existing of an index entry's paper, its abstract not read yet."""
    ids = paper[7]
    return Existing(Path(content, key), paper[0], paper[1], paper[2], paper[3], paper[4], None, paper[5],
                    [(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)], has_abstract=paper[6])
