"""Reading source files safely: what content/ and static/ (and site.yaml) go through.
(And write_all, the one way files are written in full.)

Nothing is skipped silently and nothing is opened that could hang the build:
folders that cannot be read, links that lead out of the project, FIFOs, sockets
and devices, and files over a size limit are Problems, found by a stat before
anything is read.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable

from ..errors import Problem

SOURCE_DIRS = ("content", "templates", "static")  # the folders of a site's sources, beside site.yaml


def stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    """What tells a file changed. mtime alone misses a same-size edit saved within the
    file system's timestamp resolution; ctime and the inode (editors that save by
    renaming a new file over the old one) catch it."""
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


def walk_files(top: Path, root: Path | None = None, problems: list[Problem] | None = None,
               wanted: Callable[[str], bool] = lambda name: True,
               unfollowed: list[str] | None = None) -> list[tuple[str, os.DirEntry]]:
    """(path, directory entry) of every file under `top` whose name is `wanted`, in Path
    order; hidden files and folders are left out.

    Symlinked folders are followed when they lead inside the project (`root`) or `top`,
    each real folder once (so a loop ends); a folder that cannot be read, or a link that
    leads outside, is a Problem added to `problems`. A file reached through two folder
    links is listed once. Given `unfollowed`, no symlinked folder is followed: each is
    added to it instead, named as messages name files, in Path order.
    """
    allowed = allowed_roots(top, root if root is not None else top.parent)
    found, folders, links, visited = [], [str(top)], [], set()
    while folders or links:
        if not folders:  # links last, so a file reached both ways keeps its real path
            links.sort(reverse=True)
            folders.append(links.pop())
        folder = folders.pop()
        real = os.path.realpath(folder)
        if real in visited:
            continue  # a loop, or a second way to the same folder
        visited.add(real)
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):  # else deleted while we walk: nothing there
                _report(problems, folder, root, f"cannot read this folder: {exc.strerror or exc}")
            continue
        for entry in entries:
            name = entry.name
            if _is_dir(entry):
                if name.startswith("."):
                    continue
                if not entry.is_symlink():
                    folders.append(entry.path)
                elif unfollowed is not None:
                    unfollowed.append(entry.path)
                elif _inside(os.path.realpath(entry.path), allowed):
                    links.append(entry.path)
                else:
                    _report(problems, entry.path, root, _outside_message("folder", os.path.realpath(entry.path)))
            elif not name.startswith(".") and wanted(name):
                found.append((entry.path, entry))
    found.sort(key=lambda item: item[0].replace(os.sep, "\0"))  # as Paths sort: part by part
    if unfollowed:
        unfollowed[:] = sorted((display(Path(path), root) if root is not None else path for path in unfollowed),
                               key=lambda path: path.replace(os.sep, "\0"))
    return found


def allowed_roots(folder: Path, root: Path) -> tuple[str, ...]:
    """Where links under a source folder may lead: the project folder, or the source folder
    itself (which may be a link to elsewhere). Outside, a link could publish any file the
    user can read (~/.ssh/id_rsa) from a repository they merely cloned."""
    return tuple({os.path.realpath(root), os.path.realpath(folder)})


def _inside(real: str, allowed: tuple[str, ...]) -> bool:
    return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep) for top in allowed)


def _outside_message(kind: str, real: str) -> str:
    return (f"symlinked {kind} leads outside the project folder (to {real}); "
            f"links may only point inside it: copy the {kind} here instead")


def _report(problems: list[Problem] | None, path: str, root: Path | None, message: str) -> None:
    if problems is not None:
        problems.append(Problem(display(Path(path), root) if root is not None else path, None, message))


def display(path: Path, root: Path) -> str:
    """How messages name a file: relative to the project when inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def read_source(path: Path | str, shown, allowed: tuple[str, ...] | None, limit: int | None,
                hint: str = "") -> bytes | Problem:
    """The bytes of a source file, or the Problem that stops it, checked before reading:
    a symlink must lead inside `allowed` (None: anywhere); FIFOs, devices and sockets
    are refused unopened (a FIFO would block the build); a file over `limit` bytes
    (None: no limit) is refused by its size, with `hint`; what is read is bounded too,
    should the file grow meanwhile."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real = os.path.realpath(path)
            if allowed is not None and not _inside(real, allowed):
                return Problem(shown, None, _outside_message("file", real))
            try:
                st = os.stat(path)
            except FileNotFoundError:
                return Problem(shown, None, f"broken symlink: {os.readlink(path)} does not exist")
        if not stat.S_ISREG(st.st_mode):
            return Problem(shown, None, f"not a regular file but {_file_kind(st.st_mode)}: refused unread")
        if limit is not None and st.st_size > limit:
            return _too_big(shown, st.st_size, limit, hint)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the stat
                return Problem(shown, None, "not a regular file: refused unread")
            if limit is None:
                with os.fdopen(os.dup(fd), "rb") as file:
                    return file.read()
            chunks, size = [], 0
            while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        return Problem(shown, None, f"cannot read: {exc.strerror or exc}")
    raw = b"".join(chunks)
    return _too_big(shown, len(raw), limit, hint) if len(raw) > limit else raw


def _too_big(shown, size: int, limit: int, hint: str) -> Problem:
    return Problem(shown, None, f"file is {size / 1_048_576:.1f} MB; the limit is "
                                f"{limit // 1_048_576} MB{': ' + hint if hint else ''}")


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "a special file"


def unreadable(folder: Path, root: Path) -> list[Problem]:
    """What in `folder` could not be read, by the rules above, for a folder whose files
    another library opens (Jinja skips a template it cannot open or that is not a
    file, silently, and fails with a bare OSError on an unreadable one)."""
    problems: list[Problem] = []
    if folder.is_dir():
        allowed = allowed_roots(folder, root)
        for path, _ in walk_files(folder, root, problems):
            found = read_source(path, display(Path(path), root), allowed, None)
            if isinstance(found, Problem):
                problems.append(found)
    return problems


def writer_is_gone(pid: int) -> bool:
    """Whether no process `pid` runs on this machine: a temporary file named after the process
    writing it may be removed by another only then (a writer killed with -9 left it). A pid in
    use again by another process keeps the file until that one ends too."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # someone else's process: alive
        return False
    return False


def write_all(fd: int, data: bytes) -> None:
    """All of `data` to an open file: write(2) may write less than it is given."""
    written = os.write(fd, data)
    if written == len(data):  # all at once, as a file on a local disk is written
        return
    view = memoryview(data)[written:]
    while view:
        view = view[os.write(fd, view):]


# An import in progress: `.cache/importing.<pid>` beside site.yaml, from the importer's first
# write to its last. Content files name venues that reach site.yaml only at the end, so a
# rebuild in between would fail; the preview waits for the marker to go (preview/watch.py).
IMPORTING = "importing."


def import_marker(root: Path, pid: int | None = None) -> Path:
    return Path(root) / ".cache" / f"{IMPORTING}{os.getpid() if pid is None else pid}"


def import_running(root: Path) -> bool:
    """Whether an import is writing into the project at `root`. A marker whose process is gone
    (an import killed with -9) is left over, not a running import: it is ignored."""
    try:
        names = os.listdir(Path(root) / ".cache")
    except OSError:
        return False
    for name in names:
        pid = name[len(IMPORTING):]
        if name.startswith(IMPORTING) and pid.isdigit() and not writer_is_gone(int(pid)):
            return True
    return False
