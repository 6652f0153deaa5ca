"""The persistent build cache: `.cache/papersite/` beside site.yaml (git-ignored).

Content-addressed: everything in it is keyed by digests of what the build
reads (every file of content/, templates/, static/, the theme, site.yaml and
the front-end assets), the command's options, and the engine itself
(papersite's version, a digest of the engine's own files, the Python version
and the versions of the packages installed beside it). Reading the inputs costs one stat a file: a file's bytes are hashed
again only when its stat (mtime, ctime, size, inode) differs from the last
build's.

Two kinds of entries:
  - a build record per output folder: the inputs' digest, and the output's
    manifest as that build left it. When neither changed, the build has
    nothing to do and stops there (no library beyond the standard one is
    imported for it).
  - the last session: parsed papers (under their file's digest), rendered
    abstracts (under their Markdown source), related papers, people and
    compiled templates, which the next build starts from (engine/runner.py: BuildCache).

Each entry file carries a digest of its payload: a corrupt or truncated
entry is detected and ignored (the build starts from nothing), never
trusted. A cache that cannot be written is a warning, never a failed build.
This module is light on purpose: a build that finds nothing changed imports
it and little else.
"""
from __future__ import annotations

import gc
import hashlib
import json
import mmap
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any, BinaryIO, Callable, Iterable

from .. import __version__
from ..source.files import SOURCE_DIRS, stamp, writer_is_gone


FORMAT = 3  # of the entry files; part of every key
MAGIC = b"papersite-cache"
ENGINE = Path(__file__).resolve().parent.parent  # the papersite package
LUNR = Path("node_modules") / "lunr" / "lunr.min.js"
HASHED_UP_TO = 256 * 1024 * 1024  # bytes; a bigger file is known by its stat


def cache_dir(root: Path) -> Path:
    return Path(root) / ".cache" / "papersite"


def theme_root() -> Path:
    """Where the default theme's templates/ and static/ are (render.THEME, without importing Jinja)."""
    installed = ENGINE / "theme"
    return installed if (installed / "templates").is_dir() else ENGINE.parent


def _digest(data) -> str:
    # SHA-256, not BLAKE2: processors hash it in hardware, and a session runs to hundreds of MB
    return hashlib.sha256(data).hexdigest()[:32]


# --- What the build reads --------------------------------------------------------

@dataclass
class Fingerprint:
    """Every input file: path -> [mtime, ctime, size, inode, digest of its bytes]; `key`,
    a digest of all of them (by path and bytes only), of the options and of the engine;
    `engine`, a digest of the engine alone (what the last session's objects depend on)."""

    files: dict[str, list]
    key: str
    engine: str

    def known(self, path: str) -> tuple[tuple, str] | None:
        """A file's stamp and digest, as hashed (paths as the build names them)."""
        entry = self.files.get(path)
        return (tuple(entry[:4]), entry[4]) if entry else None


def input_roots(root: Path) -> list[Path]:
    """Folders and files whose every byte can reach the site (a superset is harmless)."""
    theme = theme_root()
    roots = [root / name for name in SOURCE_DIRS]
    roots += [theme / "templates", theme / "static", ENGINE, root / LUNR, ENGINE.parent / LUNR]
    return roots


def fingerprint(config_path: Path, options: tuple, last: dict[str, list] | None = None) -> Fingerprint:
    """The inputs as they are now; `last` (a previous Fingerprint's files) spares hashing
    the files whose stat did not change."""
    config_path = Path(config_path)
    root = config_path.parent  # as given, as load_config takes it: paths are the ones the build reads
    last = last or {}
    files: dict[str, list] = {}
    seen: set[tuple[int, int]] = set()  # folders walked (device, inode)
    content = str(root / "content")
    for top in [config_path, *input_roots(root)]:
        _scan(str(top), files, last, seen, follow=str(top) != content)
    whole, engine = hashlib.blake2b(digest_size=16), hashlib.blake2b(digest_size=16)
    version = repr((FORMAT, __version__, sys.version)).encode()
    inside = str(ENGINE) + os.sep
    # The engine is keyed by its files' bytes, not where it is installed; sources by their path too.
    # Each hashed as one string: one update, not one a file.
    engine_lines, source_lines = [], []
    for path in sorted(files):
        if path.startswith(inside):
            engine_lines.append(f"{path[len(inside):]}\0{files[path][4]}\n")
        else:
            source_lines.append(f"{path}\0{files[path][4]}\n")
    engine.update("".join(engine_lines).encode("utf-8", "surrogateescape"))
    whole.update("".join(source_lines).encode("utf-8", "surrogateescape"))
    engine.update(version + repr(installed_distributions()).encode())
    whole.update(engine.digest() + repr((str(config_path), options)).encode())
    return Fingerprint(files, whole.hexdigest(), engine.hexdigest())


def installed_distributions() -> list[str]:
    """The name and version of every package Python can import from (their metadata folders'
    names): a new Markdown or Jinja may render the same input differently. One listing a
    folder of sys.path; reading the versions' metadata would cost more than the whole check."""
    found = []
    for folder in sys.path:
        try:
            found += [name for name in os.listdir(folder or ".") if name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue  # a zip file, or gone
    return sorted(found)


def _scan(top: str, files: dict[str, list], last: dict[str, list], seen: set[tuple[int, int]],
          follow: bool = True) -> None:
    """Every file under top (or top itself), links followed, each real folder once. Unless
    `follow`, symlinked folders are not (as content/'s, which the build does not read): each is
    known by its link alone, under its path and a separator (so no file's path)."""
    try:
        st = os.stat(top)
    except OSError:
        return  # missing (no templates/ of its own, say): the build sees the same
    if not S_ISDIR(st.st_mode):
        _take(top, st, files, last)
        return
    seen.add((st.st_dev, st.st_ino))
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            files[folder] = [0, 0, 0, 0, "unreadable folder"]  # the build reports it
            continue
        for entry in entries:
            try:
                st = entry.stat()
            except OSError:
                files[entry.path] = [0, 0, 0, 0, "broken link"]  # the build reports it
                continue
            if not S_ISDIR(st.st_mode):
                path = entry.path
                known = last.get(path)
                # as _take does, without a call and a list a file: most files are as they were
                if known is not None and known[0] == st.st_mtime_ns and known[1] == st.st_ctime_ns and \
                        known[2] == st.st_size and known[3] == st.st_ino:
                    files[path] = known
                else:
                    _take(path, st, files, last)
            elif not follow and entry.is_symlink():
                try:
                    files[entry.path + os.sep] = [*stamp(entry.stat(follow_symlinks=False)), "folder not followed"]
                except OSError:
                    pass  # gone meanwhile
            elif entry.name != "__pycache__" and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))  # a link loop ends; a second way in adds nothing
                folders.append(entry.path)


def _take(path: str, st: os.stat_result, files: dict[str, list], last: dict[str, list]) -> None:
    now = list(stamp(st))
    known = last.get(path)
    if known is not None and known[:4] == now:
        files[path] = known
    elif not S_ISREG(st.st_mode):  # a FIFO or a device: opening it could hang (the build refuses it)
        files[path] = [*now, f"not a file ({st.st_mode:o})"]
    elif st.st_size > HASHED_UP_TO:  # known by its stat alone, never read (content refuses it anyway)
        files[path] = [*now, f"{st.st_size} bytes"]
    else:
        try:
            with open(path, "rb") as file:
                files[path] = [*now, hashlib.file_digest(file, lambda: hashlib.blake2b(digest_size=16)).hexdigest()]
        except OSError as exc:
            files[path] = [*now, f"unreadable: {exc.errno}"]  # the build reports it


# --- Entry files -------------------------------------------------------------------

HEADER_ROOM = 128  # bytes before the payload: the header, padded with spaces, and a newline


# write_entry_from's temporary files: an entry's name, the writer's pid, .tmp
LEFTOVER = re.compile(r"(?:session\.pickle|map-ahead\.pickle|build-[0-9a-f]{32}\.json)\.([0-9]+)\.tmp")


def clear_leftovers(root: Path) -> None:
    """Remove the temporary files of entries whose writer was killed before it could (kill -9, a
    power cut): only names write_entry_from gives, of processes no longer running."""
    try:
        names = os.listdir(cache_dir(root))
    except OSError:
        return  # no cache yet
    for name in names:
        match = LEFTOVER.fullmatch(name)
        if match and writer_is_gone(int(match[1])):
            try:
                os.unlink(cache_dir(root) / name)
            except OSError:
                pass  # gone meanwhile, or not ours to remove after all: left as it was


def write_entry(path: Path, payload: bytes) -> None:
    """Write payload with a header naming its length and digest; atomically (a reader
    sees the old entry or the new one). Raises OSError."""
    write_entry_from(path, lambda file: file.write(payload))


def write_entry_from(path: Path, dump: Callable[[BinaryIO], Any]) -> None:
    """write_entry of what dump(file) writes to the file it is given, as it writes it: a large
    session's pickle made whole in memory would nearly double the saver's peak. The header's
    room is kept first and filled last."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as file:
            file.write(b" " * HEADER_ROOM)
            payload = _Digesting(file)
            dump(payload)
            header = MAGIC + f" {FORMAT} {payload.size} {payload.digest()}".encode()
            file.seek(0)
            file.write(header.ljust(HEADER_ROOM - 1) + b"\n")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise


class _Digesting:
    """A file to write to, counting and digesting (as _digest) what goes through."""

    def __init__(self, file: BinaryIO):
        self.file, self.hash, self.size = file, hashlib.sha256(), 0

    def write(self, data) -> int:
        self.hash.update(data)
        self.size += memoryview(data).nbytes
        return self.file.write(data)

    def digest(self) -> str:
        return self.hash.hexdigest()[:32]


def read_entry(path: Path) -> memoryview | None:
    """The payload, or None when the entry is missing, truncated or does not match its digest.
    Mapped rather than read: a session is too large to copy for nothing. An entry is
    replaced by renaming a new file over it (write_entry_from), never rewritten in place, so
    the mapped bytes stay as they were checked."""
    try:
        with open(path, "rb") as file:
            try:
                data = memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
            except (OSError, ValueError):  # an empty file, or a file system that maps none
                data = memoryview(file.read())
    except OSError:
        return None
    header, newline, _ = bytes(data[:HEADER_ROOM]).partition(b"\n")
    parts = header.split()
    if not newline or len(parts) != 4 or parts[0] != MAGIC or parts[1] != str(FORMAT).encode():
        return None
    payload = data[len(header) + 1:]  # not a copy of it
    if parts[2] != str(len(payload)).encode() or parts[3].decode("ascii", "replace") != _digest(payload):
        return None
    return payload


# --- The record of the last build into an output folder --------------------------------

def record_path(root: Path, output: Path) -> Path:
    return cache_dir(root) / f"build-{_digest(os.fsencode(spelled_output(output)))}.json"


def spelled_output(output: Path) -> str:
    """The output folder as the cache names it, however it was spelled (-o _site, -o ./_site):
    absolute, `..` and `.` taken out. Only a name (unchanged() also checks the folder itself),
    so not resolved: a symlink that loops is the build's to refuse, not this to trip on."""
    return os.path.abspath(output)


def output_stamp(output: Path) -> list | None:
    """The output folder and its manifest (see output.py) as a build left them, with the
    mtime of the folder and of each folder in it: a file added or removed there by hand
    (papers/notes.txt) changes it. Deeper than that, the output is not looked at."""
    output = Path(output)
    manifest = output.with_name(f".{output.name}.manifest.json")  # output.manifest_path, without its imports
    try:
        folder, listed = os.stat(output), os.stat(manifest)
        folders = sorted([entry.name, entry.stat(follow_symlinks=False).st_mtime_ns]
                         for entry in os.scandir(output) if entry.is_dir(follow_symlinks=False))
    except OSError:
        return None
    return [folder.st_ino, folder.st_mtime_ns, *stamp(listed), folders]


def read_record(root: Path, output: Path) -> dict | None:
    payload = read_entry(record_path(root, output))
    if payload is None:
        return None
    try:
        record = json.loads(bytes(payload))
    except (ValueError, RecursionError):  # a cache is never trusted: as if there were none
        return None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict) or \
            not isinstance(record.get("key"), str) or not isinstance(record.get("summary"), dict) or not isinstance(record.get("warnings", []), list):
        return None
    # fingerprint() compares each entry's first four items with a file's stat
    if not all(type(entry) is list and len(entry) == 5 for entry in record["files"].values()):
        return None
    return record


def unchanged(record: dict | None, fingerprint_: Fingerprint, output: Path) -> bool:
    """Would a build write exactly what the last one left in output, which is still there?"""
    return record is not None and record.get("key") == fingerprint_.key and \
        record.get("output") == output_stamp(output)


def write_record(root: Path, output: Path, fingerprint_: Fingerprint, summary: dict,
                 optional: dict[str, int] | None = None, warnings: Iterable[str] = ()) -> None:
    """`optional`: optional_bytes of the site, for the warning a build with nothing to do repeats;
    so are the build's `warnings` (of its sources)."""
    record = {"key": fingerprint_.key, "output": output_stamp(output), "summary": summary,
              "optional": optional or {}, "warnings": list(warnings)}
    text = f'{json.dumps(record, separators=(",", ":"))[:-1]},"files":{_files_json(fingerprint_.files)}}}'
    write_entry(record_path(root, output), text.encode())


_encoded: dict[str, tuple[list, str]] = {}  # path -> (its fingerprint entry, "path":entry in JSON)


def _files_json(files: dict[str, list]) -> str:
    """json.dumps(files), compact. An entry is encoded again only when it is not the very list
    this process encoded last (a fingerprint shares the entries of unchanged files): a warm
    process's edit encodes a file or two, not every file of the catalog."""
    global _encoded
    last, kept = _encoded, {}
    for path, entry in files.items():
        known = last.get(path)
        if known is None or known[0] is not entry:
            known = (entry, f'{json.dumps(path)}:{json.dumps(entry, separators=(",", ":"))}')
        kept[path] = known
    _encoded = kept
    return "{" + ",".join(known[1] for known in kept.values()) + "}"


# --- The last session ----------------------------------------------------------------

def session_path(root: Path) -> Path:
    return cache_dir(root) / "session.pickle"


def save_session(root: Path, fingerprint_: Fingerprint, cache) -> None:
    """Keep what the next build may start from (a BuildCache's parts that do not hold
    output files). One pickle, so that objects shared between them stay shared (an
    unchanged paper is the same object in the people and in the papers). Raises OSError."""
    # What an edit would otherwise make first (the saver runs after the build, on its own time)
    cache.related.prepare_for_edits()
    session = {
        "config": cache.config,
        "papers": cache.papers.by_content(fingerprint_.known),
        "papers_for": cache.papers.config_key,
        "abstracts": cache.abstracts,
        "related": cache.related,
        "people": cache.people,
        "keys": cache.keys,
        "templates": cache.templates,
        "plans": cache.plans,
        "pages": cache.pages,  # receipts of the pages, by what they show
        "citations": cache.citations,  # of each paper's RIS and CSL-JSON, the .bib files' bytes
        "map": cache.map,  # the paper map's layout, recomputed only when a title or abstract changes
        "search": cache.search,  # the search index, updated for the papers that changed
    }
    def dump(file: BinaryIO) -> None:
        try:
            with _collector_paused():
                _session_pickler(file).dump((fingerprint_.engine, session))
        except OSError:
            raise
        except Exception as exc:  # a part that cannot be pickled: no session, rather than a failed build
            raise OSError(f"cannot keep the session: {exc}") from None
    write_entry_from(session_path(root), dump)


def _session_pickler(file: BinaryIO):
    """A pickler of the session into `file`, keeping the receipts of files this build wrote as
    the plain digests they are (the next build finds those files in the output)."""
    import pickle

    from .output import Written

    class Pickler(pickle.Pickler):
        def reducer_override(self, obj):
            return (str, (str(obj),)) if type(obj) is Written else NotImplemented

    return Pickler(file, protocol=pickle.HIGHEST_PROTOCOL)


ALONGSIDE_FROM = 400  # papers; a smaller session is saved in less time than a fork costs


def save_session_alongside(root: Path, save: Callable[[], None], papers: int,
                           then: Callable[[], None] | None = None) -> None:
    """save() (save_session, say) in a process of its own (pickling a large session takes a while),
    so that `build` returns as soon as the site is written. It holds the session's lock
    from before it starts: the next build's load_session waits for it, and so reads the
    newest session. A small one, or where processes cannot fork, is saved here and now (raising OSError);
    the saver tells of a failure itself (the site is written by then, and its record too).
    `then`: what the saver goes on to do once the session is saved and its lock let go (stay
    warm, see warm.py); with it, the saver is a process of its own whatever the session's size."""
    if not hasattr(os, "fork") or (papers < ALONGSIDE_FROM and then is None):
        save_session_locked(root, save)
        return
    lock = _session_lock(root)
    if lock is None:
        save()
        return
    child = os.fork()
    if child:
        os.close(lock)  # the lock stays held by the saver's copy of it
        os.waitpid(child, 0)  # which only forks the saver and ends: no zombie is left
        return
    try:
        if os.fork() == 0:
            try:
                save()
            except OSError as exc:
                print(cache_warning(root, exc), file=sys.stderr, flush=True)
                then = None
            except BaseException:
                then = None  # a cache must never fail the build, nor print a traceback after it
            os.close(lock)
            if then is not None:
                then()
    finally:
        os._exit(0)  # the saver and its parent alike: never back into the caller's code


def save_session_locked(root: Path, save: Callable[[], None]) -> None:
    """save() here and now, holding the session's lock (a build loading the session waits for it).
    Raises OSError."""
    lock = _session_lock(root)
    try:
        save()
    finally:
        if lock is not None:
            os.close(lock)


def cache_warning(root: Path, exc: OSError) -> str:
    return (f"warning: could not write the build cache in {cache_dir(root)}/ ({exc.strerror or exc}): "
            "the next build starts from nothing")


def _session_lock(root: Path) -> int | None:
    """An open file holding an exclusive flock on the session (None when it cannot be had)."""
    import fcntl
    try:
        cache_dir(root).mkdir(parents=True, exist_ok=True)
        fd = os.open(cache_dir(root) / "session.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    try:
        _flock(fd, fcntl.LOCK_EX)
    except OSError:
        os.close(fd)
        return None
    return fd


def wait_for_saver(root: Path) -> None:
    """Until a session being saved (see save_session_alongside) is written."""
    import fcntl
    try:
        fd = os.open(cache_dir(root) / "session.lock", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return  # none was ever saved
    try:
        _flock(fd, fcntl.LOCK_SH)
    except OSError:
        pass
    finally:
        os.close(fd)


def _flock(fd: int, operation: int) -> None:
    """fcntl.flock(fd, operation), waiting in short sleeps, not in the kernel: a signal the kernel
    hands to another thread (a pool's: see parallel.waited) then still reaches its handler, run by
    this one. Raises OSError."""
    import fcntl
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(0.01)


class _collector_paused:
    """Unpickling a session makes millions of objects: the cyclic collector would scan them
    all again and again, for nothing."""

    def __enter__(self):
        import gc
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        import gc
        if self.collecting:
            gc.enable()


def load_session(root: Path, fingerprint_: Fingerprint):
    """A BuildCache holding the last session, or None: none kept, made by another engine, or
    not intact. Each part is checked again by the stage that uses it: a parse is taken only
    for the same bytes, an abstract is keyed by its Markdown, related papers are updated
    for the texts that differ, templates are checked against their sources."""
    import pickle

    from .runner import BuildCache

    wait_for_saver(root)
    payload = read_entry(session_path(root))
    if payload is None:
        return None
    try:
        with _collector_paused():
            engine, session = pickle.loads(payload)
    except Exception:  # anything at all: a cache is never trusted
        return None
    if engine != fingerprint_.engine or not isinstance(session, dict):
        return None
    try:
        cache = BuildCache(config=session["config"], abstracts=session["abstracts"], related=session["related"],
                           people=session["people"], keys=session["keys"], templates=session["templates"],
                           plans=session["plans"],
                           pages=session["pages"], citations=session["citations"], map=session["map"],
                           search=session["search"])
        cache.papers.config_key = session["papers_for"]
        cache.papers.reuse(session["papers"], fingerprint_.known)
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return cache
