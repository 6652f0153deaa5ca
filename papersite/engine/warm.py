"""The last build, kept warm: the next `build` of a large catalog is made by it instead of
loading the session from disk.

A `build` of a catalog of WARM_FROM papers or more leaves the process that saves its session
(store.save_session_alongside) running once the session is written, for IDLE_MINUTES: it
holds that build's cache in memory and listens on `.cache/papersite/warm.sock`. The next
`build` still fingerprints the inputs itself (with nothing changed it stops there, as
always); with something changed it hands the build over. The warm process builds from the
cache in memory, as the preview does, telling the command what it is doing and what it built,
then saves its session and waits for the next build. It builds in itself, not in a fork: a
fork would copy each page of the cache that the build touches (at 10,000 papers, 50,000 memory
pages and a fifth of an edit's time). A SiteError leaves the caches whole, as in the preview; an
interrupted or crashed build may not, and ends the process. A cold `build` spends more than
half of a one-paper edit importing the engine and unpickling the session (docs/performance.md).

Nothing is trusted that a cold build would not trust: the warm process serves only a build of
the same engine, from the same working folder, of the same user; what it holds is the cache of
a build that worked, checked by each stage as a loaded session is. Whenever it cannot serve
(none running, another engine, a `--clean` or `--strict` build, a build that crashed) the command
builds cold, as before. It ends when idle, when its socket is taken over or removed (so
deleting .cache/papersite/ ends it), and on `PAPERSITE_WARM=0` builds never start one.
"""
from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any, Callable

from .store import Fingerprint, cache_dir

WARM_FROM = 1000  # papers: below that, a cold build of an edit takes well under a second
IDLE_MINUTES = 10.0  # how long the warm process waits for the next build
ACCEPT_WAIT = 300.0  # seconds a build waits for the warm process to take it (it may be saving the session)
_HEADER = struct.Struct("!I")


def socket_path(root: Path) -> Path:
    return cache_dir(root) / "warm.sock"


def idle_seconds() -> float:
    """How long a warm process waits for a build: PAPERSITE_WARM minutes (0: never kept warm);
    unset, IDLE_MINUTES, but never on a CI runner (CI set), which builds once."""
    value = os.environ.get("PAPERSITE_WARM", "").strip()
    if not value:
        return 0.0 if os.environ.get("CI", "").strip().lower() not in ("", "0", "false") else IDLE_MINUTES * 60
    try:
        return max(float(value), 0.0) * 60
    except ValueError:
        return IDLE_MINUTES * 60


def wanted(papers: int) -> bool:
    """Whether a build of `papers` papers is worth keeping warm (PAPERSITE_WARM_FROM: from how many)."""
    try:
        least = int(os.environ.get("PAPERSITE_WARM_FROM", WARM_FROM))
    except ValueError:
        least = WARM_FROM
    # where the other end of a socket can be told (SO_PEERCRED: Linux), else it would serve no one
    return idle_seconds() > 0 and papers >= least and hasattr(os, "fork") and hasattr(socket, "SO_PEERCRED")


# --- Messages: a length, then the bytes -------------------------------------------------

def _send(conn: socket.socket, payload: bytes, fds: list[int] | None = None) -> None:
    data = _HEADER.pack(len(payload)) + payload
    if fds:
        sent = socket.send_fds(conn, [data], fds)
        data = data[sent:]
    conn.sendall(data)


def _receive(conn: socket.socket, with_fds: int = 0) -> tuple[bytes, list[int]] | None:
    """One message (None: the other end closed first) and the file descriptors sent with it."""
    fds: list[int] = []
    head = b""
    while len(head) < _HEADER.size:
        if with_fds and not head:
            chunk, fds, _, _ = socket.recv_fds(conn, _HEADER.size, with_fds)
        else:
            chunk = conn.recv(_HEADER.size - len(head))
        if not chunk:
            return None
        head += chunk
    size, = _HEADER.unpack(head)
    body = bytearray()
    while len(body) < size:
        chunk = conn.recv(min(size - len(body), 1 << 20))
        if not chunk:
            return None
        body += chunk
    return bytes(body), fds


def _same_user(conn: socket.socket) -> bool:
    """Whether the process at the other end is this user's (SO_PEERCRED: pid, uid, gid)."""
    try:
        credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return False
    return struct.unpack("3i", credentials)[1] == os.getuid()


def _address(path: Path) -> str | None:
    """The socket's address: its path, or relative to the working folder where that is too long."""
    for spelled in (str(path), os.path.relpath(path)):
        if len(os.fsencode(spelled)) < 100:
            return spelled
    return None


# --- The command's side ------------------------------------------------------------------

def hand_over(root: Path, now: Fingerprint, request: dict[str, Any], progress: Callable[[str], None],
              notify: Callable[[str], None] | None, last: dict | None = None):
    """The build of `request` (config_path, output, base_url) made by the warm process: what it
    returned (a Written), or None when there is none to take it (build cold then). Raises
    what the build raised (a SiteError), KeyboardInterrupt when interrupted meanwhile.
    `last`: the record of the last build into the output (store.read_record): the inputs are
    sent as what changed since, when that build is the warm process's (else they all go)."""
    address = _address(socket_path(root))
    if idle_seconds() <= 0 or address is None or not socket_path(root).exists():
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(5)
        try:
            conn.connect(address)
        except OSError:
            return None  # gone meanwhile
        if not _same_user(conn):
            return None
        message = {**request, "cwd": os.getcwd(), "key": now.key, "engine": now.engine, **_since(now, last)}
        _send(conn, json.dumps(message).encode(), [1, 2])  # its output goes where this command's goes
        conn.settimeout(ACCEPT_WAIT)
        return _follow(conn, now, progress, notify)
    except (OSError, ValueError, pickle.PickleError, EOFError):
        return None
    finally:
        conn.close()


def _since(now: Fingerprint, last: dict | None) -> dict[str, Any]:
    """The inputs as what changed since the record `last` (whose entries `now` shares where a file's
    stat did not change: see store.fingerprint), or whole without one."""
    if last is None:
        return {"files": now.files}
    before = last["files"]
    changed = {path: entry for path, entry in now.files.items() if before.get(path) is not entry}
    return {"since": last["key"], "changed": changed, "gone": [path for path in before if path not in now.files]}


def _follow(conn: socket.socket, now: Fingerprint, progress: Callable[[str], None],
            notify: Callable[[str], None] | None):
    worker = None
    try:
        while True:
            received = _receive(conn)
            if received is None:
                return None  # declined, or the fork died: build cold
            kind, value = pickle.loads(received[0])
            if kind == "resend":  # the warm process was not made by the last build: every input, then
                _send(conn, json.dumps(now.files).encode())
            elif kind == "taken":
                worker = value
                conn.settimeout(None)  # a build takes as long as it takes
            elif kind == "progress":
                progress(value)
            elif kind == "notify":
                if notify is None:
                    print(value, file=sys.stderr, flush=True)
                else:
                    notify(value)
            elif kind == "built":
                return value
            else:  # the fork's last word: it has cleaned up and ends
                worker = None
                if kind == "failed":
                    raise value
                if kind == "interrupted":
                    raise KeyboardInterrupt
                return None  # a crash: a cold build says what is wrong, or does it
    except BaseException:
        if worker is not None:  # Ctrl-C or SIGTERM here: the fork stops, leaving the site as it was
            _stop(conn, worker)
        raise


def _stop(conn: socket.socket, worker: int) -> None:
    try:
        os.kill(worker, signal.SIGINT)
        conn.settimeout(30)
        while _receive(conn) is not None:  # until it has cleaned up and closed the connection
            pass
    except OSError:
        pass


# --- The warm process's side -------------------------------------------------------------

class Listener:
    """The warm process's socket, bound before the session is saved so that a build started
    meanwhile waits for it rather than loading the session it is saving."""

    def __init__(self, root: Path):
        self.root = root
        self.path = socket_path(root)
        address = _address(self.path)
        if address is None:
            raise OSError("the cache's path is too long for a socket")
        temporary = _address(self.path.with_name(f"warm.{os.getpid()}.sock")) or address
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
            self.socket.bind(temporary)
            os.chmod(temporary, 0o600)
            self.socket.listen(4)
            os.replace(temporary, address)  # the warm process before this one sees it gone, and ends
            self.inode = os.stat(address).st_ino
        except OSError:
            self.socket.close()
            raise

    def ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def close(self) -> None:
        if self.ours():
            try:
                os.unlink(self.path)
            except OSError:
                pass
        self.socket.close()


def open_listener(root: Path) -> Listener | None:
    try:
        return Listener(root)
    except OSError:
        return None


def serve(listener: Listener, made: Fingerprint,
          build: Callable[[dict, Fingerprint, Fingerprint, Callable, Callable], Any],
          save: Callable[[Fingerprint], None], ready: Callable[[], None] = lambda: None) -> None:
    """Be the warm process of the build of inputs `made` until idle, or until another takes the
    socket. Each build handed over is made here, `build(request, fingerprint, since, progress,
    notify)`, on the cache this process holds (`since`: the inputs of the build it is the cache
    of, None when a failed build may have kept some of its own since); one that worked is
    answered, then its session saved (`save(fingerprint)`) before the next build is taken. An
    interrupted or crashed build ends this process: the next build is cold. `ready()` makes ahead
    what the next build would wait for, once this process holds no terminal (after each build,
    `save` does: see settled).
    Never returns."""
    try:
        os.setsid()  # not ended with the terminal the first build ran in
    except OSError:
        pass
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    os.close(quiet)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    here, idle = os.getcwd(), idle_seconds()
    # Garbage is collected between builds (see settled), never while a command waits for its build:
    # enabled, the collector ran once a build was made, before it was answered (30 ms at 10,000 papers)
    gc.disable()
    _ready(ready)
    trusted = True  # what this process holds is the cache of the build of inputs `made`, as that build left it
    try:
        listener.socket.settimeout(1.0)
        last = time.monotonic()
        while listener.ours() and time.monotonic() - last < idle:
            try:
                conn, _ = listener.socket.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn:
                request, fds = _request(conn)
                wanted = request is not None and len(fds) == 2 and request.get("engine") == made.engine \
                    and request.get("cwd") == here
                now = _inputs(conn, request, made) if wanted else None
                if now is None:
                    for fd in fds:
                        os.close(fd)
                    if request is not None and request.get("engine") != made.engine:
                        return  # the engine changed: this process is of the old one
                    continue  # closed without a word: the build runs cold
                outcome = _build_here(conn, fds, request, now, made if trusted else None, build)
            last = time.monotonic()
            if outcome == BUILT:
                made, trusted = now, True
                try:
                    save(made)  # its session (see settled)
                except Exception:  # no session then: the next cold build starts from an older one, or nothing
                    pass
            elif outcome == FAILED:
                # A stage may have kept what the failed build read (as the preview's do): the next build
                # checks every input, as one from a loaded session does, not only those changed since `made`
                trusted = False
                gc.collect()  # answered: now, what the failed build left
            elif outcome != DECLINED:
                return  # interrupted or crashed midway: what the cache holds may be half made
    finally:
        listener.close()
        os._exit(0)


def _ready(ready: Callable[[], None]) -> None:
    try:
        ready()
    except Exception:  # it only saves time
        pass


def settled(save: Callable[[], None], ready: Callable[[], None] = lambda: None) -> None:
    """save() (the session of the build just made), between builds: first what the next build
    would wait for made ahead (`ready`, see serve) and what that build left collected, after it
    the memory freed given back; all while a build asked for waits for the session's lock, as it
    waits for a saver's."""
    from ..parallel import give_back_freed_memory
    _ready(ready)
    # A build leaves cycles of garbage (the collector is paused while it runs, see runner.stages), and
    # freezes what it found: collected while idle, or every build would keep the last one's.
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    try:
        save()
    finally:
        give_back_freed_memory()  # the pickler's buffers too


def _request(conn: socket.socket) -> tuple[dict | None, list[int]]:
    """A build's request and the file descriptors of its output (None: not one to take)."""
    conn.settimeout(10)
    try:
        received = _receive(conn, with_fds=2)
    except OSError:
        return None, []
    if received is None:
        return None, []
    payload, fds = received
    try:
        request = json.loads(payload)
    except ValueError:
        request = None
    if not isinstance(request, dict) or not _same_user(conn):
        request = None
    return request, fds


def _inputs(conn: socket.socket, request: dict, made: Fingerprint) -> Fingerprint | None:
    """The inputs of the build `request` asks for: sent whole, or as what changed since `made`'s
    build (asked for whole when the command's last build was another)."""
    files = request.get("files")
    if files is None and request.get("since") == made.key:
        files = dict(made.files)
        for path in request.get("gone", ()):
            files.pop(path, None)
        files.update(request.get("changed", {}))
    elif files is None:
        try:
            _send(conn, pickle.dumps(("resend", None)))
            received = _receive(conn)
            files = json.loads(received[0]) if received else None
        except (OSError, ValueError):
            return None
    if not isinstance(files, dict) or not isinstance(request.get("key"), str):
        return None
    return Fingerprint(files, request["key"], request.get("engine"))


BUILT, FAILED, DECLINED, ENDED = "built", "failed", "declined", "ended"  # how a build handed over went


def _build_here(conn: socket.socket, fds: list[int], request: dict, now: Fingerprint, since: Fingerprint | None,
                build: Callable) -> str:
    """The build handed over, made here, in the process whose memory holds the cache (a fork would
    copy every page of it the build writes to, a fifth of an edit's time): its output on the
    command's terminal, its messages to the command. Returns BUILT; FAILED (a SiteError, raised
    where the caches are whole, as in the preview); DECLINED (the command went before it began);
    or ENDED (interrupted, or crashed, maybe midway through updating a cache)."""
    quiet = [os.dup(1), os.dup(2)]
    outcome = DECLINED
    try:
        for fd, target in zip(fds, (1, 2)):
            os.dup2(fd, target)
            os.close(fd)
        me = os.getpid()

        def on_signal(signum, frame):
            if os.getpid() == me:
                raise KeyboardInterrupt
            os._exit(128 + signum)  # a worker of this build: its parent stops it
        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        conn.settimeout(None)

        def say(kind: str, value: Any) -> None:
            _send(conn, pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL))

        try:
            say("taken", me)
        except OSError:
            return DECLINED
        outcome = ENDED
        try:
            written = build(request, now, since, lambda doing: say("progress", doing), lambda text: say("notify", text))
        except KeyboardInterrupt:
            say("interrupted", None)
        except Exception as error:
            from ..errors import SiteError
            if not isinstance(error, SiteError):
                say("crashed", f"{type(error).__name__}: {error}")
            else:
                outcome = FAILED
                try:
                    say("failed", error)
                except (pickle.PickleError, TypeError, AttributeError):
                    say("crashed", str(error))
        else:
            outcome = BUILT
            try:
                say("built", written)
            except OSError:
                pass  # the command is gone: the site is built all the same
    except BaseException:
        pass  # the command went, or Ctrl-C came between two steps: `outcome` says what the cache is
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        for fd, target in zip(quiet, (1, 2)):
            os.dup2(fd, target)
            os.close(fd)
    return outcome