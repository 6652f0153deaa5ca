"""Which folders a build may replace, and one build at a time into each.

Since a build removes every file of the output it does not write again, Staging first makes sure
that loses nothing but an old site: the folder must not be (or hold, or lie
inside) the project or a source folder, and a folder that already holds files
must be a previous output. The manifest says which files are ours; without
one, a folder is taken for an old site only if it has our `.nojekyll` and
every file in it is one the new site writes again. A lock file beside the
output serialises builds into it, so one build's start-up never removes
another's staging folder. A symlinked output is followed: the site is built
into its target and the link stays.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Callable

from ..errors import Problem, SiteError
from ..source.files import SOURCE_DIRS

Stat = tuple[int, int, int]  # size, mtime_ns, inode

# What every papersite build writes at the top of a site: without a manifest,
# a folder lacking it is not one of our outputs.
SITE_MARK = ".nojekyll"
CHOOSE = "choose an empty or new folder such as _site"


def resolve_output(out_dir: Path) -> Path:
    """The real folder the site goes to: a symlink (at any level) is followed, and stays."""
    if out_dir.is_symlink():
        try:
            os.stat(out_dir)
        except FileNotFoundError:
            raise SiteError(Problem(out_dir, None, f"is a symlink to {os.readlink(out_dir)}, which does not "
                                                   "exist: create that folder, or remove the link")) from None
        except OSError as exc:  # a loop
            raise SiteError(Problem(out_dir, None, f"cannot follow this symlink: {exc.strerror}")) from None
    try:
        return out_dir.resolve()
    except (OSError, RuntimeError) as exc:  # a loop further up the path
        why = getattr(exc, "strerror", None) or exc
        raise SiteError(Problem(out_dir, None, f"cannot use this output folder: {why}")) from None


def refuse_unsafe_output(shown: Path, out_dir: Path, project: Path | None = None) -> None:
    """Refuse an output folder whose replacement would destroy sources: the file-system
    root, the home folder, a folder holding a project or repository, and, given the
    project (the folder of site.yaml), the project itself, any folder that contains it,
    and its source folders and everything inside them."""
    def refuse(why: str):
        raise SiteError(Problem(shown, None, f"refusing to build into this folder: {why}, and the output folder is "
                                             f"replaced on every build; {CHOOSE}"))

    if out_dir.exists() and not out_dir.is_dir():
        raise SiteError(Problem(shown, None, f"is a file, not a folder; {CHOOSE}"))
    if out_dir == Path(out_dir.anchor):
        refuse("it is the root of the file system")
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError):  # no home folder known
        home = None
    if out_dir == home:
        refuse("it is your home folder")
    if home is not None and out_dir in home.parents:
        refuse(f"it contains your home folder {home}")
    if project is not None:
        _refuse_project_parts(out_dir, Path(project).resolve(), refuse)
    for marker in ("site.yaml", ".git"):
        if os.path.lexists(out_dir / marker):
            refuse(f"it holds {marker}, so it is a project or a repository")


def _refuse_project_parts(out_dir: Path, root: Path, refuse: Callable[[str], None]) -> None:
    if out_dir == root:
        refuse("it is the project folder (where site.yaml is)")
    if out_dir in root.parents:
        refuse(f"it contains the project folder {root}")
    for name in (*SOURCE_DIRS, ".git"):
        source = root / name
        for form in {source, source.resolve()}:  # a source folder may be a link to elsewhere
            if out_dir == form or form in out_dir.parents:
                refuse(f"it is {'inside ' if out_dir != form else ''}the project's {name}/ folder")
            if out_dir in form.parents:
                refuse(f"it contains the project's {name}/ folder")


def refuse_foreign(shown: Path, on_disk: dict[str, Stat], manifest: dict | None, damaged: str = "") -> set[str]:
    """Refuse a folder that holds files no papersite build wrote. Returns the files of an old
    site that has no manifest (or a `damaged` one, saying why): commit refuses unless the new
    site writes them all again."""
    if not on_disk:
        return set()  # new or empty: nothing to lose
    if manifest is not None:
        foreign = sorted(on_disk.keys() - manifest["files"].keys() - set(manifest["leaving"]))
        if foreign:
            raise SiteError(Problem(shown / foreign[0], None, foreign_message(shown, foreign)))
        return set()
    if SITE_MARK not in on_disk:
        example = shown / min(on_disk)
        manifest_is = f"{manifest_path(shown).name} beside it is damaged: {damaged}" if damaged else \
            f"no {manifest_path(shown).name} beside it"
        raise SiteError(Problem(shown, None, f"already holds files that papersite did not write (such as {example}; "
                                             f"{manifest_is}), and the output folder is "
                                             f"replaced on every build; {CHOOSE}. If it is an old site whose "
                                             f"manifest was {'damaged' if damaged else 'deleted'}, delete the "
                                             "folder and build again"))
    return set(on_disk)


def foreign_message(shown: Path, foreign: list[str]) -> str:
    more = f" (and {len(foreign) - 1} more file{'s' if len(foreign) > 2 else ''})" if len(foreign) > 1 else ""
    return (f"not written by papersite{more}, and {shown}/ is replaced on every build: "
            f"move it out of {shown}/ or delete it, then build again")


class OutputLock:
    """An exclusive flock on a file beside the output, held while a build writes there.

    Removed when released; a waiter that then holds the lock of a removed file
    tries again, so two builds never both hold it. Forked workers share it, so
    after a kill -9 it is free only once the last of them has exited.
    """

    def __init__(self, out_dir: Path, shown: Path, notify: Callable[[str], None]):
        self.path = out_dir.with_name(f".{out_dir.name}.lock")
        self.fd: int | None = None
        while self.fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _holder(fd)
                    notify(f"waiting for another build into {shown}/ to finish"
                           f"{f' (process {holder})' if holder.isdigit() else ''}...")
                    fcntl.flock(fd, fcntl.LOCK_EX)
                if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                    self.fd = fd
            except FileNotFoundError:
                pass  # removed by the build that held it: take a new one
            except BaseException:
                os.close(fd)
                raise
            if self.fd is None:
                os.close(fd)
        try:  # who holds it, for the message of a build that waits
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock holds all the same

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)  # while still holding it: see the class comment
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def manifest_path(out_dir: Path) -> Path:
    """Where the manifest of out_dir lives: beside it, so it is never published."""
    return out_dir.with_name(f".{out_dir.name}.manifest.json")


HOLDER_WAIT = 0.1  # seconds a waiting build gives the holder of the lock to write who it is


def _holder(fd: int) -> str:
    """The process id the build holding the lock writes in it, once it holds it: a build that
    finds the lock taken may read it a moment too soon, so it reads it again for a while."""
    deadline = time.monotonic() + HOLDER_WAIT
    while True:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        if holder.isdigit() or time.monotonic() > deadline:
            return holder
        time.sleep(0.005)
