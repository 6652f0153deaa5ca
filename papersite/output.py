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


Stat = tuple[int, int, int]  # size, mtime_ns, inode


def write_site(files: dict[str, bytes], out_dir: Path, digests: dict[str, tuple[bytes, str]] | None = None
               ) -> WriteReport:
    """Make out_dir hold exactly `files`. `digests` (path -> (bytes, hash)) lets a
    process that writes again and again hash each new output only once."""
    out_dir = Path(out_dir)
    _refuse_dangerous(out_dir)
    digests = {} if digests is None else digests
    manifest, on_disk = _read_manifest(out_dir), _existing_files(out_dir)
    changed = [path for path, data in files.items()
               if not _unchanged(out_dir, path, data, manifest.get(path), on_disk.get(path), digests)]
    stale = [path for path in on_disk if path not in files]
    for path in digests.keys() - files.keys():
        del digests[path]
    if not changed and not stale and out_dir.is_dir():
        if len(manifest) != len(files):  # first build with a manifest: record what is there
            _write_manifest(out_dir, files, on_disk, digests)
        return WriteReport(0, 0, len(files))
    _clear_leftovers(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.new-{os.getpid()}")
    try:
        changed_set, made = set(changed), set()
        for path in sorted(files):
            target = staging / path
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            if path in changed_set or not _link(out_dir / path, target):
                target.write_bytes(files[path])
        written = _existing_files(staging)  # inodes and mtimes survive the swap
        _swap(staging, out_dir)
    except OSError as exc:
        raise SiteError(Problem(out_dir, None, f"could not write the site: {exc.strerror or exc}; "
                                               "the previous site is unchanged")) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # after a swap this holds the old site
    _write_manifest(out_dir, files, written, digests)
    return WriteReport(len(changed), len(stale), len(files))


def _unchanged(out_dir: Path, path: str, data: bytes, recorded: list | None, stat: Stat | None,
               digests: dict[str, tuple[bytes, str]]) -> bool:
    if stat is None or stat[0] != len(data):
        return False
    if recorded is not None and tuple(recorded[:3]) == stat and recorded[3] == _digest(path, data, digests):
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


def _write_manifest(out_dir: Path, files: dict[str, bytes], stats: dict[str, Stat],
                    digests: dict[str, tuple[bytes, str]]) -> None:
    entries = {path: [*stats[path], _digest(path, data, digests)] for path, data in files.items() if path in stats}
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


def _link(source: Path, target: Path) -> bool:
    try:
        os.link(source, target)
        return True
    except OSError:
        return False


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
