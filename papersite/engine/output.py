"""Write a built site to disk: all or nothing, and never rewrite an unchanged file.

The files that changed are written into a sibling staging folder first; only
once every one of them is there does anything in the output move. A first
build's staging folder is then renamed into place whole; a rebuild moves
each new file over the old one with one atomic rename and removes the files
the new site drops, so it costs as many file operations as files that
changed, not as many as the site has. A build that fails or is interrupted
before the move leaves the previous site complete; one interrupted during
it (a few renames) leaves every file whole and the manifest vouching for
all of them, so the next build finishes the job; a build that changes
nothing touches nothing.

To know what changed without reading the old site back, a manifest next to
the output folder (outside it, so it is never published) records each file's
size, mtime, inode and a hash of its bytes. A file whose stat still matches
and whose new bytes hash the same is unchanged; anything else (no manifest, a
file touched by hand) is compared byte for byte, as without a manifest.

`Staging.put` may be called from forked workers as they render (a `build`
streams its pages to disk that way: written on both cores, never held in
memory); it returns a receipt (see Receipt), which `commit` takes beside the
files given as bytes.

Which folders a build may replace, and the lock that keeps two builds apart, are in
output_guard.py.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import hashlib
import json
import operator
import os
import pickle
import re
import shutil
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import Problem, SiteError
from ..parallel import Detachable, in_background, start_spare
from ..source.files import write_all
from .output_guard import (SITE_MARK, OutputLock, Stat, foreign_message, manifest_path, refuse_foreign,
                           refuse_unsafe_output, resolve_output)


@dataclass(frozen=True)
class WriteReport:
    written: int  # files new or changed
    removed: int  # files that no longer belong to the site
    total: int
    size: int = 0  # bytes, all files of the site
    stats: dict = field(default_factory=dict)  # path -> (size, mtime_ns, inode) of every file of the site
    warnings: tuple[str, ...] = ()  # for the user, such as a damaged manifest ignored


# A receipt of a file put into the staging folder: the digest of its bytes. A plain str when the
# output already held those bytes (the file is kept), a Written when this build wrote them.
Receipt = str


class Written(str):
    """The receipt of a file this build wrote into the staging folder. A session keeps it as a
    plain str (cache.save_session): the next build finds the file in the output, and unpickles
    plain strings much faster than objects of a class."""

    __slots__ = ()




def write_site(files: dict[str, bytes], out_dir: Path,
               digests: dict[str, tuple[bytes, str]] | None = None, project: Path | None = None) -> WriteReport:
    """Make out_dir hold exactly `files`. `digests` (path -> (bytes, hash)) lets a
    process that writes again and again hash each new output only once; `project`
    (the folder of site.yaml) is what the output must never overlap."""
    with Staging(out_dir, digests, project) as staging:
        return staging.commit(files)


def check_output(out_dir: Path, project: Path | None = None) -> None:
    """Raise the SiteError a build into out_dir would raise before it starts."""
    with Staging(out_dir, project=project):
        pass


SURVEY_APART_FROM = 5_000  # files in the output: listing fewer costs less than a process


class Staging:
    """The files of the next version of out_dir that differ, assembled beside it and moved in
    by commit().

    Use it as a context manager: leaving it, by success or by error, removes
    the staging folder (what is left of it) and releases the lock. `notify` is told when the build waits for another build's lock.
    """

    def __init__(self, out_dir: Path, digests: dict[str, tuple[bytes, str]] | None = None,
                 project: Path | None = None, notify: Callable[[str], None] | None = None,
                 survey_alongside: bool = False, expected: Left | None = None):
        """`survey_alongside`: list what the output holds in a process of its own, while the
        caller prepares the build; `surveyed()` waits for it. `expected`: what this process's last
        commit into out_dir left there (its `left`), which the build compares its files with instead,
        while the survey checks alongside that the output holds just that: commit raises
        OutputChanged, moving nothing, where it does not (the build is then made again, without)."""
        self.shown = Path(out_dir)  # as the user gave it, for messages
        self.out_dir = resolve_output(self.shown)
        refuse_unsafe_output(self.shown, self.out_dir, project)
        self.digests = digests  # None: a one-shot build, which hashes each file once and keeps no bytes
        self.made: set[str] = set()  # folders of the staging folder made so far (by this process)
        self.owner = os.getpid()
        # Named in the parent, so forked workers put into the same folder.
        self.folder = self.out_dir.with_name(f".{self.out_dir.name}.new-{self.owner}")
        try:
            self.out_dir.parent.mkdir(parents=True, exist_ok=True)  # the lock lives there
            self._lock = OutputLock(self.out_dir, self.shown, notify or _tell_stderr)
        except OSError as exc:
            raise _write_error(self.shown, exc) from None
        self._survey: Survey | None = None
        self.expected = expected
        self._trusted = expected is not None  # until commit checks it
        self.left: Left | None = None  # what the output holds once committed: see commit()
        self._jobs = contextlib.ExitStack()
        try:
            _clear_leftovers(self.out_dir)  # under the lock: no other build is using them
            self.folder.mkdir(parents=True)
            job = functools.partial(_survey_unless, self.out_dir, self.shown, expected and expected.survey)
            if expected is not None:
                # In the warm process, whose memory is the cache: a fork would copy each page of it
                # the build then writes to. A fresh process instead, sent the survey expected.
                job = Detachable(job, lambda: (_survey_unless, (self.out_dir, self.shown, expected.pickled_survey)),
                                "survey")
            files = _recorded_files(self.out_dir) if survey_alongside else 0
            self._pending = self._jobs.enter_context(in_background(job, files if files >= SURVEY_APART_FROM else 0))
            if not survey_alongside:
                self.surveyed()
        except BaseException as exc:
            self._jobs.close()
            _remove_tree(self.folder)
            self._lock.release()
            if isinstance(exc, OSError):
                raise _write_error(self.shown, exc) from None
            raise

    def surveyed(self) -> Survey:
        """What the output folder holds (waiting for the survey, unless one is expected); raises
        the SiteError of a folder that holds files no build of ours wrote."""
        if self._trusted:
            return self.expected.survey
        if self._survey is None:
            try:
                found = self._pending()  # None: just what was expected
            except OSError as exc:
                raise _write_error(self.shown, exc) from None
            finally:
                self._jobs.close()
            self._survey = found if found is not None else self.expected.survey
        return self._survey

    @property
    def on_disk(self) -> dict[str, Stat]:
        return self.surveyed().on_disk

    @property
    def warnings(self) -> tuple[str, ...]:
        damaged = self.surveyed().damaged
        if not damaged:
            return ()
        return (f"warning: {manifest_path(self.shown)} is damaged ({damaged}): ignored, and written anew; "
                f"the files in {self.shown}/ were compared byte for byte instead",)

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._jobs.close()
            _remove_tree(self.folder)
        finally:
            self._lock.release()

    def put(self, path: str, data: bytes) -> Receipt:
        """Write `data` as `path` of the new site, unless the current file already holds it."""
        if os.getpid() != self.owner and os.getppid() != self.owner:
            # A worker whose build was killed: its staging folder is gone, or
            # belongs to the next build's clean-up. Write nothing more.
            raise SystemExit(1)
        digest = _digest(path, data, self.digests)
        if _unchanged(self.out_dir, path, data, digest, self.surveyed()):
            return digest
        # Paths as strings, files by os calls: run for every file, and pathlib and buffered
        # files make each write cost more
        target = os.path.join(self.folder, path)
        try:
            # One mkdir per folder, not per file: a paper's folder gets three files,
            # and mkdir would otherwise cost most of a write.
            folder = os.path.dirname(target)
            if folder not in self.made:
                try:
                    os.mkdir(folder)  # one call where makedirs makes two: its parent is mostly there
                except OSError:  # not there, or there already: as makedirs says
                    os.makedirs(folder, exist_ok=True)
                self.made.add(folder)
            _write_file(target, data)
        except OSError as exc:
            raise _write_error(self.shown, exc) from None
        return Written(digest)

    def holding(self, receipts: dict[str, Receipt]) -> dict[str, Receipt]:
        """Of last build's `receipts` (path -> receipt), those whose bytes the current site holds,
        as its manifest says (a file touched since, by hand or by another build, is not vouched
        for), as plain receipts: that very one when it was a kept file's (see engine/runner.py:
        BuildCache), not one this build wrote."""
        vouched = self.surveyed().vouched
        if not receipts.items() <= vouched.items():  # compared in C: mostly every one is held
            receipts = {path: receipt for path, receipt in receipts.items() if vouched.get(path) == receipt}
        return {path: receipt if type(receipt) is str else str(receipt) for path, receipt in receipts.items()}

    def commit(self, files: dict[str, bytes], stored: dict[str, Receipt] | None = None) -> WriteReport:
        """Put `files`, besides those already `stored`; keep the unchanged ones; move the new ones in.
        `left` is then what the output holds, as a survey would find it."""
        stored = {**(stored or {}), **{path: self.put(path, data) for path, data in files.items()}}
        trusted, self._trusted = self._trusted, False
        held = self.surveyed()
        if trusted and held is not self.expected.survey:
            raise OutputChanged(self.shown)
        foreign = sorted(held.unvouched - stored.keys())
        if foreign:
            raise SiteError(Problem(self.shown / foreign[0], None, foreign_message(self.shown, foreign)))
        fresh = [path for path, kind in zip(stored, map(type, stored.values())) if kind is Written]
        stale = sorted(held.on_disk.keys() - stored.keys())
        if not fresh and not stale and self.out_dir.is_dir():
            if held.recorded != len(stored):  # first build with a manifest: record what is there
                _write_manifest(self.out_dir, _entries(stored, held.on_disk), [], required=False)
            else:
                self.left = Left(held, self.expected.entries if trusted else None)
            # nothing written, nothing stale: the output holds exactly the stored files
            return WriteReport(0, 0, len(stored), sum(map(_SIZE, held.on_disk.values())), held.on_disk,
                               self.warnings)
        try:
            if not held.on_disk:  # a new or empty folder: the staging folder holds the whole site
                stats = {path: _stat(os.path.join(self.folder, path)) for path in stored}
                entries = _entries(stored, stats)
                _write_manifest(self.out_dir, entries, [], required=True)
                _swap(self.folder, self.out_dir)
            else:
                # kept files as they are (their receipts, the hashes last vouched for), new ones as staged
                stats, entries = dict(held.on_disk), None
                for path in stale:
                    del stats[path]
                for path in fresh:
                    stats[path] = _stat(os.path.join(self.folder, path))  # a rename keeps both
                if trusted and self.expected.entries is not None:  # the last manifest's, changed where the site did
                    entries = dict(self.expected.entries)
                    for path in stale:
                        del entries[path]
                    entries.update(_entries({path: stored[path] for path in fresh}, stats))
                entries = entries if entries is not None else _entries(stored, stats)
                # Written before anything moves, naming the old site's files too: wherever a
                # crash stops, the manifest vouches for every file in the output, and the next
                # build (comparing what does not match it) finishes the job.
                _write_manifest(self.out_dir, entries, stale, required=True)
                _move_in(self.folder, self.out_dir, sorted(fresh), stale)
        except OSError as exc:
            raise _write_error(self.shown, exc) from None
        if trusted:
            vouched = dict(held.vouched)
            for path in stale:
                del vouched[path]
            vouched.update((path, str(stored[path])) for path in fresh)
        else:
            vouched = {path: str(entry) for path, entry in stored.items()}
        self.left = Left(Survey(stats, vouched, set(), len(stored)), entries)
        for path in (self.digests or {}).keys() - stored.keys():
            del self.digests[path]
        # stats holds the stored files, no other (stale ones are gone from it): their sizes summed in C
        return WriteReport(len(fresh), len(stale), len(stored), sum(map(_SIZE, stats.values())), stats,
                           self.warnings)


_SIZE = operator.itemgetter(0)  # of a Stat


def _write_error(out_dir: Path, exc: OSError) -> SiteError:
    where = f" ({exc.filename})" if exc.filename else ""
    return SiteError(Problem(out_dir, None, f"could not write the site: {exc.strerror or exc}{where}; "
                                            "the previous site is unchanged"))


def _write_file(path: str, data: bytes) -> None:
    """`data` as the file at `path`, made or truncated."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def _unchanged(out_dir: Path, path: str, data: bytes, digest: str, held: Survey) -> bool:
    stat = held.on_disk.get(path)
    if stat is None or stat[0] != len(data):
        return False
    return held.vouched.get(path) == digest or _same(out_dir / path, data)


def _digest(path: str, data: bytes, digests: dict[str, tuple[bytes, str]] | None) -> str:
    if digests is None:
        return hashlib.blake2b(data, digest_size=16).hexdigest()
    known = digests.get(path)
    if known is None or known[0] is not data:  # identity: a rebuild reuses unchanged bytes
        known = digests[path] = (data, hashlib.blake2b(data, digest_size=16).hexdigest())
    return known[1]


@dataclass(frozen=True)
class Left:
    """What a commit left in the output folder: the survey of it the next build would make, and
    the manifest's entries (see _entries; None: not kept)."""

    survey: Survey
    entries: dict[str, str] | None

    @functools.cached_property
    def pickled_survey(self) -> _Pickled:
        """The survey as a process of its own is sent it, pickled once: the warm process makes it
        between builds (see Staging), not while a build waits."""
        return _Pickled(pickle.dumps(self.survey, protocol=pickle.HIGHEST_PROTOCOL))


def ahead_of_next_build(left: Left) -> None:
    """In the warm process, between builds: what the next build into the output `left` describes
    sends the process that surveys it (see Staging), and that process, started now."""
    _ = left.pickled_survey  # made now, not while the next build waits
    if len(left.survey.on_disk) >= SURVEY_APART_FROM:
        start_spare("survey", [__name__])


class _Pickled:
    """An object pickled already: pickling it again copies its bytes, and unpickling gives the object."""

    def __init__(self, data: bytes):
        self.data = data

    def __reduce__(self):
        return pickle.loads, (self.data,)


def _survey_unless(out_dir: Path, shown: Path, expected: Survey | None) -> Survey | None:
    """survey(), or None when it is `expected` (a survey made apart sends back a word, not every path)."""
    found = survey(out_dir, shown)
    return None if found == expected else found


class OutputChanged(Exception):
    """The output is not as the build expected it (Staging's `expected`): a file was changed,
    added or removed since this process last wrote it."""


@dataclass(frozen=True)
class Survey:
    """What the output folder holds, read under the build's lock."""

    on_disk: dict[str, Stat]  # every file, with its stat
    vouched: dict[str, str]  # path -> hash, for the files that are as the manifest recorded them
    unvouched: set[str]  # the files of an old site without a manifest: the new site must write them all
    recorded: int  # files the manifest names
    damaged: str = ""  # why the manifest there could not be read (then it counts as missing)


def survey(out_dir: Path, shown: Path) -> Survey:
    """The output folder's files, and which of them the manifest vouches for (the hash of a
    file whose stat still matches). Raises the SiteError of a folder holding files no
    papersite build wrote."""
    manifest, damaged = _read_manifest(out_dir)
    on_disk = _existing_files(out_dir)
    unvouched = refuse_foreign(shown, on_disk, manifest, damaged)
    files = manifest["files"] if manifest else {}
    vouched = {path: recorded[3] for path, recorded in files.items()
               if isinstance(recorded, list) and len(recorded) == 4 and tuple(recorded[:3]) == on_disk.get(path)}
    return Survey(on_disk, vouched, unvouched, len(files), damaged if on_disk else "")


def _recorded_files(out_dir: Path) -> int:
    """About how many files the manifest names, from its size alone (a survey worth a process?)."""
    try:
        return os.stat(manifest_path(out_dir)).st_size // 64
    except OSError:
        return 0


def _read_manifest(out_dir: Path) -> tuple[dict | None, str]:
    """({"files": {path: [size, mtime, inode, hash]}, "leaving": [path, ...]}, ""), or (None, why)
    when there is none (why: "") or it cannot be read (why it is damaged): then the files are
    compared byte for byte."""
    try:
        text = manifest_path(out_dir).read_bytes()
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror or exc}"
    try:
        manifest = _MANIFEST_JSON.decode(text.decode("utf-8"))
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} at line {exc.lineno}"
    except (ValueError, RecursionError) as exc:  # not UTF-8, a number too long, nested too deep
        return None, str(exc) if isinstance(exc, ValueError) else "nested too deeply"
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return None, 'not a manifest: no "files" object'
    leaving = manifest.get("leaving", [])
    return {"files": manifest["files"], "leaving": leaving if isinstance(leaving, list) else []}, ""


def _manifest_number(digits: str) -> int:
    # sizes, times in nanoseconds and inodes: far below this. Past 4,300 digits, int() fails
    # with a message about Python rather than the file.
    if len(digits) > 40:
        raise ValueError(f"a number of {len(digits):,} digits")
    return int(digits)


_MANIFEST_JSON = json.JSONDecoder(parse_int=_manifest_number)


def _entries(stored: dict[str, Receipt], stats: dict[str, Stat]) -> dict[str, str]:
    """Each file's manifest entry, as JSON: "path":[size,mtime,inode,"hash"] (a hash is hex digits)."""
    return {path: f'{_json_string(path)}:[{stat[0]},{stat[1]},{stat[2]},"{entry}"]'
            for path, entry in stored.items() if (stat := stats.get(path)) is not None}


def _json_string(text: str) -> str:
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'  # as json.dumps writes it, and far quicker to make
    return json.dumps(text)


def _write_manifest(out_dir: Path, entries: dict[str, str], leaving: list[str], required: bool) -> None:
    """`entries`: see _entries; `leaving`: files of the current site the new one drops, still ours
    until the swap."""
    target = manifest_path(out_dir)
    temporary = target.with_name(target.name + f".{os.getpid()}")
    try:
        temporary.write_text(f'{{"files":{{{",".join(entries.values())}}},"leaving":{json.dumps(sorted(leaving))}}}',
                             encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        if required:
            raise
        # else the next build compares bytes, as it would without a manifest


def _same(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


def _existing_files(out_dir: Path) -> dict[str, Stat]:
    """Every file under out_dir (not following links), with its stat. A folder that
    cannot be listed is an error: what it holds might not be ours to replace."""
    found: dict[str, Stat] = {}
    folders = [("", str(out_dir))]
    while folders:
        prefix, folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            if not prefix:
                continue  # refuse_unsafe_output has said it is a file
            raise
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append((prefix + entry.name + "/", entry.path))
            else:
                st = entry.stat(follow_symlinks=False)
                found[prefix + entry.name] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return found


def _stat(path: str) -> Stat:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ino


def _move_in(staging: Path, out_dir: Path, fresh: list[str], stale: list[str]) -> None:
    """Move the staged files into out_dir, each by one atomic rename over the old one, then
    remove the files the new site drops: as many file operations as files that changed."""
    made: set[str] = set()
    for path in fresh:
        _make_folder(out_dir, os.path.dirname(path), made)
        source, target = os.path.join(staging, path), os.path.join(out_dir, path)  # strings: run for every file
        try:
            os.rename(source, target)
        except IsADirectoryError:  # a folder of the old site where the new one has a file
            _remove_tree(Path(target))
            os.rename(source, target)
        except PermissionError:  # a folder of ours made read-only: still ours to update
            _make_writable(Path(target).parent)
            os.rename(source, target)
    emptied = set()
    for path in stale:
        target = out_dir / path
        try:
            target.unlink()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            pass  # gone with a folder a file replaced, or the name is a folder of the new site now
        except PermissionError:
            _make_writable(target.parent)
            target.unlink()
        emptied.update(Path(path).parents)
    for folder in sorted(emptied, key=lambda f: len(f.parts), reverse=True):  # deepest first
        if folder.parts:
            with contextlib.suppress(OSError):  # not empty: it still holds files of the new site
                os.rmdir(out_dir / folder)


def _make_folder(out_dir: Path, folder: str, made: set[str]) -> None:
    """out_dir/folder, made where missing; an old site's file (or link) that stands in its way
    goes (it is one the new site drops: the manifest check said every file there is ours).
    `made`: the folders made or found so far, each looked at once."""
    if not folder or folder in made:
        return
    _make_folder(out_dir, os.path.dirname(folder), made)
    path = os.path.join(out_dir, folder)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is None or not stat.S_ISDIR(mode):
        try:
            if mode is not None:
                os.unlink(path)
            os.mkdir(path)
        except PermissionError:
            _make_writable(Path(path).parent)
            if mode is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            os.mkdir(path)
    made.add(folder)


def _make_writable(folder: Path) -> None:
    os.chmod(folder, os.stat(folder).st_mode | stat.S_IRWXU)


def _leftover_names(name: str) -> re.Pattern:
    return re.compile(rf"\.{re.escape(name)}\.(?:new-\d+|old-\d+|manifest\.json\.\d+)")


def _clear_leftovers(out_dir: Path) -> None:
    """Remove what builds killed before they could clean up left beside the output."""
    pattern = _leftover_names(out_dir.name)
    for name in os.listdir(out_dir.parent):
        if pattern.fullmatch(name):
            leftover = out_dir.parent / name
            if leftover.is_dir() and not leftover.is_symlink():
                _remove_tree(leftover)
            else:
                leftover.unlink(missing_ok=True)


def _remove_tree(folder: Path) -> None:
    """rmtree that also empties read-only folders: an old site someone chmod-ed is still ours to remove."""
    def retry(function, path, _):
        parent = os.path.dirname(path)
        try:
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IRWXU)
            if function in (os.rmdir, os.unlink, os.remove):
                function(path)
            elif function in (os.scandir, os.listdir, os.open):  # a folder we could not list
                os.chmod(path, os.stat(path).st_mode | stat.S_IRWXU)
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass  # left for the next build's clean-up

    if not os.path.lexists(folder):
        return
    if sys.version_info >= (3, 12):
        shutil.rmtree(folder, onexc=retry)
    else:
        shutil.rmtree(folder, onerror=retry)


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


# --- What the output folder may be ----------------------------------------------

def _tell_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
