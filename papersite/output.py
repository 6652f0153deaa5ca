"""Write a built site to disk: all or nothing, and never rewrite an unchanged file.

The new site is assembled in a sibling staging folder: files whose bytes did
not change are hard links to the current ones (same inode, same mtime), the
rest are written fresh. The staging folder is then swapped in with one
atomic rename. A build that fails or is interrupted before the swap leaves
the previous site complete; a build that changes nothing touches nothing.

To know what changed without reading the old site back, a manifest next to
the output folder (outside it, so it is never published) records each file's
size, mtime, inode and a hash of its bytes. A file whose stat still matches
and whose new bytes hash the same is unchanged; anything else (no manifest, a
file touched by hand) is compared byte for byte, as without a manifest.

`Staging.put` may be called from forked workers as they render (a one-shot
`build` streams its pages to disk that way: written on both cores, never held
in memory); it returns a `Stored` receipt that `commit` takes in place of the
bytes.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .errors import Problem, SiteError


@dataclass(frozen=True)
class WriteReport:
    written: int  # files new or changed
    removed: int  # files that no longer belong to the site
    total: int


@dataclass(frozen=True)
class Stored:
    """A file already put into the staging folder: what commit needs to know of it."""

    digest: str
    changed: bool  # written fresh; else the current file is kept


Stat = tuple[int, int, int]  # size, mtime_ns, inode


def write_site(files: dict[str, bytes | Stored], out_dir: Path,
               digests: dict[str, tuple[bytes, str]] | None = None) -> WriteReport:
    """Make out_dir hold exactly `files`. `digests` (path -> (bytes, hash)) lets a
    process that writes again and again hash each new output only once."""
    with Staging(out_dir, digests) as staging:
        return staging.commit(files)


class Staging:
    """The next version of out_dir, assembled beside it and swapped in by commit().

    Use it as a context manager: leaving it, by success or by error, removes
    the staging folder (after a swap, that is the old site).
    """

    def __init__(self, out_dir: Path, digests: dict[str, tuple[bytes, str]] | None = None):
        self.out_dir = Path(out_dir)
        _refuse_dangerous(self.out_dir)
        self.digests = {} if digests is None else digests
        self.manifest, self.on_disk = _read_manifest(self.out_dir), _existing_files(self.out_dir)
        # Named in the parent, so forked workers put into the same folder.
        self.folder = self.out_dir.with_name(f".{self.out_dir.name}.new-{os.getpid()}")
        _clear_leftovers(self.out_dir)

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def put(self, path: str, data: bytes) -> Stored:
        """Write `data` as `path` of the new site, unless the current file already holds it."""
        digest = _digest(path, data, self.digests)
        if _unchanged(self.out_dir, path, data, digest, self.manifest.get(path), self.on_disk.get(path)):
            return Stored(digest, False)
        target = self.folder / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as exc:
            raise _write_error(self.out_dir, exc) from None
        return Stored(digest, True)

    def commit(self, files: dict[str, bytes | Stored]) -> WriteReport:
        """Put the files not yet put, keep the unchanged ones, swap the new site in."""
        stored = {path: entry if isinstance(entry, Stored) else self.put(path, entry)
                  for path, entry in files.items()}
        changed = sum(entry.changed for entry in stored.values())
        stale = [path for path in self.on_disk if path not in stored]
        if not changed and not stale and self.out_dir.is_dir():
            if len(self.manifest) != len(stored):  # first build with a manifest: record what is there
                _write_manifest(self.out_dir, stored, self.on_disk)
            return WriteReport(0, 0, len(stored))
        try:
            made = set()
            for path in sorted(path for path, entry in stored.items() if not entry.changed):
                target = self.folder / path
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                _keep(self.out_dir / path, target)
            self.folder.mkdir(parents=True, exist_ok=True)  # an empty site is a folder too
            written = _existing_files(self.folder)  # inodes and mtimes survive the swap
            _swap(self.folder, self.out_dir)
        except OSError as exc:
            raise _write_error(self.out_dir, exc) from None
        _write_manifest(self.out_dir, stored, written)
        for path in self.digests.keys() - stored.keys():
            del self.digests[path]
        return WriteReport(changed, len(stale), len(stored))


def _write_error(out_dir: Path, exc: OSError) -> SiteError:
    return SiteError(Problem(out_dir, None, f"could not write the site: {exc.strerror or exc}; "
                                            "the previous site is unchanged"))


def _unchanged(out_dir: Path, path: str, data: bytes, digest: str, recorded: list | None,
               stat: Stat | None) -> bool:
    if stat is None or stat[0] != len(data):
        return False
    if recorded is not None and tuple(recorded[:3]) == stat and recorded[3] == digest:
        return True
    return _same(out_dir / path, data)


def _digest(path: str, data: bytes, digests: dict[str, tuple[bytes, str]]) -> str:
    known = digests.get(path)
    if known is None or known[0] is not data:  # identity: a rebuild reuses unchanged bytes
        known = digests[path] = (data, hashlib.blake2b(data, digest_size=16).hexdigest())
    return known[1]


def manifest_path(out_dir: Path) -> Path:
    """Where the manifest of out_dir lives: beside it, so it is never published."""
    return out_dir.with_name(f".{out_dir.name}.manifest.json")


def _read_manifest(out_dir: Path) -> dict[str, list]:
    try:
        manifest = json.loads(manifest_path(out_dir).read_bytes())
        return manifest["files"] if isinstance(manifest.get("files"), dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}  # none yet, or unreadable: compare bytes instead


def _write_manifest(out_dir: Path, stored: dict[str, Stored], stats: dict[str, Stat]) -> None:
    entries = {path: [*stats[path], entry.digest] for path, entry in stored.items() if path in stats}
    target = manifest_path(out_dir)
    temporary = target.with_name(target.name + f".{os.getpid()}")
    try:
        temporary.write_text(json.dumps({"files": entries}, separators=(",", ":")), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)  # without a manifest the next build compares bytes


def _same(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _existing_files(out_dir: Path) -> dict[str, Stat]:
    """Every file under out_dir (not following links), with its stat."""
    found: dict[str, Stat] = {}
    folders = [("", str(out_dir))]
    while folders:
        prefix, folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append((prefix + entry.name + "/", entry.path))
            else:
                st = entry.stat(follow_symlinks=False)
                found[prefix + entry.name] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return found


def _keep(current: Path, target: Path) -> None:
    """An unchanged file in the new site: a hard link to the current one, else a copy."""
    try:
        os.link(current, target)
    except OSError:
        shutil.copy2(current, target)


def _clear_leftovers(out_dir: Path) -> None:
    """Remove staging folders of builds that were killed before they could clean up."""
    for leftover in out_dir.parent.glob(f".{out_dir.name}.new-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _swap(staging: Path, out_dir: Path) -> None:
    """Put staging at out_dir; afterwards staging holds the old site (if any)."""
    if out_dir.is_dir() and _exchange(staging, out_dir):
        return
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        os.rename(out_dir, old)
        os.rename(staging, out_dir)
        os.rename(old, staging)
    else:
        os.rename(staging, out_dir)


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with Linux renameat2(RENAME_EXCHANGE); False where unsupported."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def _refuse_dangerous(out_dir: Path) -> None:
    """The output folder is replaced whole: never let that be a source folder."""
    resolved = out_dir.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve() or \
            (resolved / "site.yaml").exists() or (resolved / ".git").exists():
        raise SiteError(Problem(out_dir, None, "refusing to use this folder for output: it is replaced "
                                               "on every build (choose a folder such as _site)"))
