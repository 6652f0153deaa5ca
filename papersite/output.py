"""Write a built site to disk: all or nothing, and never rewrite an unchanged file.

The new site is assembled in a sibling staging folder: files whose bytes did
not change are hard links to the current ones (same inode, same mtime), the
rest are written fresh. The staging folder is then swapped in with one
atomic rename. A build that fails or is interrupted before the swap leaves
the previous site complete; a build that changes nothing touches nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
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


def write_site(files: dict[str, bytes], out_dir: Path) -> WriteReport:
    out_dir = Path(out_dir)
    _refuse_dangerous(out_dir)
    changed = [path for path, data in files.items() if not _same(out_dir / path, data)]
    stale = [path for path in _existing_files(out_dir) if path not in files]
    if not changed and not stale and out_dir.is_dir():
        return WriteReport(0, 0, len(files))
    _clear_leftovers(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.new-{os.getpid()}")
    try:
        changed_set = set(changed)
        for path in sorted(files):
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if path in changed_set or not _link(out_dir / path, target):
                target.write_bytes(files[path])
        _swap(staging, out_dir)
    except OSError as exc:
        raise SiteError(Problem(out_dir, None, f"could not write the site: {exc.strerror or exc}; "
                                               "the previous site is unchanged")) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # after a swap this holds the old site
    return WriteReport(len(changed), len(stale), len(files))


def _same(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _existing_files(out_dir: Path) -> list[str]:
    if not out_dir.is_dir():
        return []
    found = []
    for folder, _dirs, names in os.walk(out_dir):
        rel = Path(folder).relative_to(out_dir)
        found.extend((rel / name).as_posix() for name in names)
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
