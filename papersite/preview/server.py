"""Preview server: serves a Build from memory under the site's base path.

Only the built files can be served (they are looked up in a dict), so no
request can reach a file outside the site. In preview mode the server also
keeps the last good build when a rebuild fails, and adds live reload:

    <base>__reload        Server-Sent Events: {"build": n, "since": m, "changed": [...], "problems": [...]}
                          now and after every rebuild: build n changed these output files of build m
                          (null: any of them)
    <base>__preview.js    reloads the tab when its page or a file it loaded changed, shows problems
                          as an overlay
    <base>__preview.css   the overlay's style

Served HTML pages get a <link> and <script> for these two files (external,
because the pages' CSP allows only 'self' scripts and styles). Built files
on disk never contain them.

Requests are parsed here, strictly, not by the stdlib: a malformed one gets
400 or 505 and a plain-text reason; one whose Host is not this machine gets
421 (DNS rebinding); one request per connection, as in HTTP/1.0. What the
server prints is escaped, since request lines and file names can hold
terminal control sequences.
"""
from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import mimetypes
import posixpath
import re
import socket
import sys
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, quote, unquote, unquote_to_bytes, urlsplit

from ..errors import SiteError
from ..pipeline import Build
from .rebuild import Rebuilder, changed_paths, summary
from .watch import ChangeQueue, ChangeSet, SourceWatcher, rebuild_loop

TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml", ".json": "application/json",
         ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml",
         ".bib": "text/plain; charset=utf-8", ".ris": "text/plain; charset=utf-8"}  # citations: readable in the tab
PREVIEW_DIR = Path(__file__).parent
PREVIEW_FILES = {"__preview.js": "preview.js", "__preview.css": "preview.css"}
RELOAD = "__reload"
KEEPALIVE = 15.0  # seconds between SSE comments; a write to a closed tab ends its thread
SETTLE = 0.5  # seconds the preview waits, at most, for the tabs showing an edited page to load it
LISTED_CHANGES = 2000  # past this many changed files, every tab reloads (a template edit changes all)
NOT_BUILT = b"<!doctype html><html><head><title>Not built yet</title></head><body>" \
            b"<p>The site has not built yet.</p></body></html>"


class SiteState:
    """The build being served; swapped whole after each successful rebuild.

    `version` counts builds whose output changed; an open tab reloads when it moves
    and the change touched its page or a file the page loaded (or the tab missed a
    change). `problems` are the errors of the latest rebuild, shown as an overlay.
    """

    def __init__(self, build: Build | None, base_path: str, preview: bool = False):
        self.lock = threading.Condition(threading.RLock())  # status() is also called under it
        self.build = build
        self.base_path = base_path
        self.preview = preview
        self.version = 0
        self.since = 0  # the version before the last change
        self.changed: list[str] | None = None  # the output files the last change touched; None: any
        self.problems: list[dict] = []
        self.closed = False
        self.viewers: dict[str, int] = {}  # output file -> open event streams of tabs showing it
        self.opened: dict[str, int] = {}  # output file -> event streams ever opened by tabs showing it

    def publish(self, build: Build, changed: frozenset[str] | None = None) -> None:
        """Serve a new good build. `changed`: its output files that differ from the build
        served until now (None: any may); tabs reload only when one they show changed."""
        with self.lock:
            self.build = build
            self.base_path = build.catalog.config.base_path
            if changed is None or changed:
                self.since, self.version = self.version, self.version + 1
                self.changed = None if changed is None or len(changed) > LISTED_CHANGES else sorted(changed)
            self.problems = []
            self.lock.notify_all()

    def fail(self, error: SiteError) -> None:
        """Keep serving the last good build; show the problems."""
        with self.lock:
            self.problems = [{"path": str(p.path), "line": p.line, "message": p.message} for p in error.problems]
            self.lock.notify_all()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    @contextlib.contextmanager
    def viewing(self, file: str | None):
        """An open event stream of a tab showing `file` (None: a tab that did not say)."""
        with self.lock:
            if file is not None:
                self.viewers[file] = self.viewers.get(file, 0) + 1
                self.opened[file] = self.opened.get(file, 0) + 1
            self.lock.notify_all()
        try:
            yield
        finally:
            with self.lock:
                if file is not None:
                    self.viewers[file] -= 1
                    if not self.viewers[file]:
                        del self.viewers[file]

    def publish_and_settle(self, build: Build, changed: frozenset[str], limit: float = SETTLE) -> None:
        """publish(), then wait until a tab showing each changed file has reloaded (its event
        stream opened again), at most `limit` seconds: what follows (the rebuild) takes the
        cores, and would slow the tabs loading the page. (A stream a tab closed counts until
        the server next writes to it: waiting for one tab a file, not all, leaves it out.)"""
        with self.lock:
            waiting = {file: self.opened[file] + 1 for file in changed if file in self.viewers}
        self.publish(build, changed)
        if waiting:
            with self.lock:
                self.lock.wait_for(lambda: self.closed or all(self.opened[file] >= count
                                                              for file, count in waiting.items()), limit)

    def status(self) -> tuple:
        with self.lock:
            return self.version, tuple(json.dumps(p, sort_keys=True) for p in self.problems)

    def wait_for_change(self, seen: tuple, timeout: float) -> tuple | None:
        """Block until status() differs from seen or timeout passed; None once closed."""
        with self.lock:
            self.lock.wait_for(lambda: self.closed or self.status() != seen, timeout)
            return None if self.closed else self.status()

    def event(self) -> bytes:
        """The current status as one SSE message."""
        with self.lock:
            data = json.dumps({"build": self.version, "since": self.since, "changed": self.changed,
                               "problems": self.problems})
        return f"data: {data}\n\n".encode()

    def lookup(self, url_path: str) -> tuple[int, str, bytes]:
        """Status, content type and body for a request path."""
        with self.lock:
            build, base, version = self.build, self.base_path, self.version
        files = build.files if build else {}
        path = unquote(url_path)
        name = path.rsplit("/", 1)[-1]
        if self.preview and name in PREVIEW_FILES and "\x00" not in path:
            # matched by name, not base path: a tab opened before base_url changed still finds them
            return HTTPStatus.OK, _type(name), (PREVIEW_DIR / PREVIEW_FILES[name]).read_bytes()
        if self.preview and build is None:
            return HTTPStatus.SERVICE_UNAVAILABLE, TYPES[".html"], self._inject(NOT_BUILT, base, version)
        status, kind, body = self._find(files, base, path)
        if self.preview and kind == TYPES[".html"]:
            body = self._inject(body, base, version)
        return status, kind, body

    def _find(self, files: dict[str, bytes], base: str, path: str) -> tuple[int, str, bytes]:
        if not path.startswith(base):
            if path.rstrip("/") == base.rstrip("/"):
                return HTTPStatus.MOVED_PERMANENTLY, base, b""
            return self._not_found(files)
        relative = path[len(base):]
        if ".." in relative.split("/") or "\\" in relative or "\x00" in relative:
            return self._not_found(files)
        key = relative + "index.html" if relative == "" or relative.endswith("/") else relative
        if key in files:
            return HTTPStatus.OK, _type(key), files[key]
        if key + "/index.html" in files:
            return HTTPStatus.MOVED_PERMANENTLY, base + key + "/", b""
        return self._not_found(files)

    @staticmethod
    def _not_found(files: dict[str, bytes]) -> tuple[int, str, bytes]:
        return HTTPStatus.NOT_FOUND, TYPES[".html"], files.get("404.html", b"Not found")

    @staticmethod
    def _inject(html: bytes, base: str, version: int) -> bytes:
        """Add the preview stylesheet and script to a page, just before </head>."""
        tags = (f'<link rel="stylesheet" href="{base}__preview.css">'
                f'<script src="{base}__preview.js" data-build="{version}" defer></script>').encode()
        at = html.lower().find(b"</head>")
        return html[:at] + tags + html[at:] if at >= 0 else tags + html


def _type(path: str) -> str:
    ext = posixpath.splitext(path)[1]
    return TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"


class BadRequest(Exception):
    """A request the server refuses before looking anything up: status and a short reason."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


MAX_LINE = 65536  # bytes in the request line or one header line, as the stdlib server allows
METHOD = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 token
VERSION = re.compile(r"HTTP/([0-9]+)(?:\.([0-9]+))?")
TARGET = re.compile(r"[\x21-\x7e]+")  # printable ASCII: clients percent-encode everything else
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
HOST = re.compile(r"(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::[0-9]*)?")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def parse_request_line(raw: bytes) -> tuple[str, str, str]:
    """Method, target and version of one request line (its CRLF stripped), or BadRequest."""
    try:
        line = raw.decode("ascii")
    except UnicodeDecodeError:
        raise BadRequest(400, "the request line is not ASCII text") from None
    parts = line.split(" ")
    if len(parts) != 3:
        raise BadRequest(400, "malformed request line")
    method, target, version = parts
    match = VERSION.fullmatch(version)
    if match and match.group(1) != "1":
        raise BadRequest(505, "only HTTP/1.0 and HTTP/1.1 are supported")
    if not match or match.group(2) is None:
        raise BadRequest(400, "malformed HTTP version")
    if not METHOD.fullmatch(method):
        raise BadRequest(400, "malformed method")
    if not TARGET.fullmatch(target):
        raise BadRequest(400, "malformed request target")
    return method, target, version


def request_path(target: str) -> tuple[str, str | None]:
    """The path of a request target and the host an absolute-form target names, or BadRequest.

    The path must decode to UTF-8 text without control characters: no file
    of a site has any other name."""
    host = None
    if not target.startswith("/"):
        parts = urlsplit(target)
        if parts.scheme.lower() != "http" or not parts.netloc:
            raise BadRequest(400, "the request target must be a path or an http:// URL")
        host = parts.netloc
        target = parts.path or "/"
    path = target.split("?", 1)[0].split("#", 1)[0]
    if BAD_PERCENT.search(path):
        raise BadRequest(400, "bad percent-encoding in the path")
    try:
        decoded = unquote_to_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(400, "the path is not UTF-8") from None
    if CONTROL.search(decoded):
        raise BadRequest(400, "control character in the path")
    return path, host


class HostFilter:
    """The Host names this server answers to: loopback ones and the one it was started with.

    A web page can point its own domain at 127.0.0.1 (DNS rebinding) and then
    read the preview as same-origin; its requests carry that domain as Host.
    An IP address as Host cannot be rebound, so a server listening on every
    address (0.0.0.0, ::) accepts any address, plus this machine's name."""

    def __init__(self, bind_host: str):
        self.names = {"localhost"}
        self.addresses: set = set()
        self.any_address = False
        bind = _address(bind_host or "0.0.0.0")  # '' listens on every address, like 0.0.0.0
        if bind is None:
            self.names.add(bind_host.lower().rstrip("."))
        elif bind.is_unspecified:
            self.any_address = True
            self.names.update({socket.gethostname().lower(), socket.gethostname().lower() + ".local"})
        else:
            self.addresses.add(bind)

    def describe(self) -> str:
        extra = sorted(self.names - {"localhost"}) + sorted(str(a) for a in self.addresses if not a.is_loopback)
        names = ["localhost", "127.0.0.1", "[::1]"] + extra + (["any IP address"] if self.any_address else [])
        return ", ".join(names[:-1]) + " and " + names[-1]

    def allows(self, host: str) -> bool:
        """Whether a Host value (name or address, with or without a port) means this server."""
        match = HOST.fullmatch(host)
        if not match:
            return False
        name = (match.group("ip6") or match.group("name")).lower().rstrip(".")
        address = _address(name)
        if address is None:
            return name in self.names
        return address.is_loopback or self.any_address or address in self.addresses


def _address(text: str):
    """An IP address (IPv4-mapped IPv6 as IPv4), or None for a name."""
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def printable(text: str | bytes, limit: int = 200) -> str:
    """Text safe for a terminal: control, format and non-ASCII characters escaped, long text cut."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "backslashreplace")
    escaped = "".join(c if c.isprintable() and c.isascii() else
                      c.encode("unicode_escape").decode("ascii") for c in text[:limit])
    return escaped[:limit] + ("..." if len(escaped) > limit or len(text) > limit else "")


def terminal_text(text: str) -> str:
    """Lines safe for a terminal: control and format characters escaped, line breaks and accents kept."""
    return "\n".join("".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in line)
                     for line in text.split("\n"))


def make_handler(state: SiteState, log: Callable[[str], None],
                 hosts: HostFilter | None = None) -> type[BaseHTTPRequestHandler]:
    hosts = hosts or HostFilter("127.0.0.1")

    class Handler(BaseHTTPRequestHandler):
        server_version = "papersite"
        timeout = 30  # a client that stalls mid-request or stops reading frees its thread

        def handle_one_request(self) -> None:
            """Read and check one request, answer it, close the connection (HTTP/1.0 style).

            Replaces the stdlib's parsing, which answers some malformed
            requests with nothing, HTTP/0.9 bodies or a traceback."""
            self.close_connection = True
            self.refusing = False
            self.sent = None  # the status, once a response has started
            self.command, self.path, self.request_version, self.requestline = "", "", "HTTP/1.0", ""
            try:
                raw = self._request_line()
                if raw is None:
                    return  # connected and closed, or went idle, without a request: nothing to answer
                self.command, target, self.request_version = parse_request_line(raw)
                self.path = target
                self.headers = self._headers()
                path, target_host = request_path(target)
                self._check_host(target_host)
                if self.command not in ("GET", "HEAD"):
                    raise BadRequest(501, f"method {self.command} is not supported: use GET or HEAD")
            except BadRequest as error:
                self._refuse(error.status, error.reason)
                return
            except TimeoutError:
                self._refuse(408, "the request did not arrive in time")
                return
            except ConnectionError:
                return
            try:
                if self.command == "GET" and state.preview and unquote(path).rsplit("/", 1)[-1] == RELOAD:
                    with state.viewing(parse_qs(urlsplit(self.path).query).get("page", [None])[0]):
                        self._events()
                else:
                    self._respond(path, with_body=self.command == "GET")
            except (ConnectionError, TimeoutError):
                pass  # the client went away or stopped reading (the timeout): nothing to do
            except Exception as error:  # a bug: answer if nothing was sent yet, say so in one line, keep serving
                if self.sent is None:
                    self._refuse(500, f"{type(error).__name__}: {error}")
                else:
                    log(f"{self.command} {printable(self.path)}: {type(error).__name__}: {printable(str(error))}")

        def _request_line(self) -> bytes | None:
            try:
                if self.rfile.peek(1)[:1] == b"\x16":  # it would wait for a reply, never send a newline
                    self.requestline = "(TLS handshake)"
                    raise BadRequest(400, "TLS handshake: the preview speaks plain http://, not https://")
                raw = self.rfile.readline(MAX_LINE + 1)
                if raw in (b"\r\n", b"\n"):  # RFC 9112 2.2: ignore one empty line before a request
                    raw = self.rfile.readline(MAX_LINE + 1)
            except TimeoutError:
                return None
            if not raw:
                return None
            self.requestline = raw[:1000].rstrip(b"\r\n").decode("ascii", "backslashreplace")
            if len(raw) > MAX_LINE:
                raise BadRequest(400, "request line too long")
            if not raw.endswith(b"\n"):
                raise BadRequest(400, "incomplete request line")
            return raw.rstrip(b"\r\n")

        def _headers(self):
            try:
                headers = http.client.parse_headers(self.rfile)
            except http.client.LineTooLong:
                raise BadRequest(400, "header line too long") from None
            except http.client.HTTPException:
                raise BadRequest(400, "too many headers") from None
            if headers.defects:  # e.g. a line that is not 'Name: value'
                raise BadRequest(400, "malformed header line")
            return headers

        def _check_host(self, target_host: str | None) -> None:
            values = self.headers.get_all("Host") or []
            if len(values) > 1:
                raise BadRequest(400, "more than one Host header")
            if not values or not values[0].strip():
                if self.request_version != "HTTP/1.0":
                    raise BadRequest(400, "missing Host header")
            elif not HOST.fullmatch(values[0].strip()):
                raise BadRequest(400, "malformed Host header")
            for host in filter(None, (target_host, values[0].strip() if values else None)):
                if not hosts.allows(host):
                    raise BadRequest(421, f"this preview answers only to {hosts.describe()}, "
                                          f"not to Host {host!r}")

        def _refuse(self, status: int, reason: str) -> None:
            """A short plain-text error, then the connection closes."""
            body = f"{status} {HTTPStatus(status).phrase}: {reason}\n".encode("ascii", "backslashreplace")
            log(f"{printable(self.requestline) or '(no request line)'} -> {status} {printable(reason)}")
            self.refusing = True  # logged here, with the reason
            try:
                self.send_response(status)
                if status == 501:
                    self.send_header("Allow", "GET, HEAD")
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                self._drain()
            except OSError:
                pass  # the client went away

        def _drain(self) -> None:
            """Read what the client still sends, briefly: closing a socket with unread
            input resets the connection, and the client could lose the error."""
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + 2.0  # a client that keeps sending is cut off
            while (wait := deadline - time.monotonic()) > 0:
                self.connection.settimeout(wait)
                if not self.connection.recv(1 << 20):
                    break

        def _respond(self, path: str, with_body: bool) -> None:
            status, kind, body = state.lookup(path)
            try:
                self.send_response(status)
                if status == HTTPStatus.MOVED_PERMANENTLY:
                    self.send_header("Location", quote(kind, safe="/%"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                if with_body:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser went away mid-response; nothing to do

        def _events(self) -> None:
            """Server-Sent Events: the status now, then after every change, until the tab closes."""
            try:
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                seen = state.status()
                self.wfile.write(b"retry: 500\n" + state.event())
                self.wfile.flush()
                while (now := state.wait_for_change(seen, KEEPALIVE)) is not None:
                    self.wfile.write(state.event() if now != seen else b": keepalive\n\n")
                    self.wfile.flush()
                    seen = now
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                pass  # the tab closed or navigated away

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            self.sent = code  # send_response() calls this as it starts a response
            if str(code).startswith(("4", "5")) and not self.refusing:
                log(f"{self.command} {printable(self.path)} -> {code}")

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
            log(printable(format % args))

    return Handler


class PreviewHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # open event streams must not keep the process alive
    request_queue_size = 128  # the stdlib's 5 drops connections when many tabs load at once


    def __init__(self, address, handler, log: Callable[[str], None] = print):
        self.log = log
        super().__init__(address, handler)

    def handle_error(self, request, client_address) -> None:
        """One line instead of the stdlib's traceback; a client that went away is not news."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            self.log(f"error answering {client_address[0]}: {type(error).__name__}: {printable(str(error))}")


class PreviewHTTPServer6(PreviewHTTPServer):
    address_family = socket.AF_INET6


def make_server(state: SiteState, host: str, port: int,
                log: Callable[[str], None] = print) -> ThreadingHTTPServer:
    """A server on host:port (IPv4 or IPv6) that answers only to Host names meaning this machine or host."""
    server_class = PreviewHTTPServer6 if ":" in host else PreviewHTTPServer
    return server_class((host, port), make_handler(state, log, HostFilter(host)), log)


def exposure_warning(host: str) -> str | None:
    """A warning when the preview is reachable from other machines."""
    address = _address(host)
    if host == "localhost" or (address is not None and address.is_loopback):
        return None
    return f"warning: listening on {host}: other machines can reach this preview (use 127.0.0.1 to keep it local)"


MAP_LANDED = "the map's layout"  # how the terminal line names the change when the map catches up


@contextlib.contextmanager
def responsive_threads(wanted: bool = True):
    """The server's threads get the interpreter every millisecond meanwhile, not every five
    (the default), so that a page goes out while a rebuild runs."""
    interval = sys.getswitchinterval()
    if wanted:
        sys.setswitchinterval(min(interval, 0.001))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


class Preview:
    """The authoring loop: build, serve from memory, watch, rebuild, reload every tab."""

    def __init__(self, config_path: Path, base_url: str | None, host: str, port: int,
                 log: Callable[[str], None] = print):
        self.log = log
        self.config_path = Path(config_path)
        self.queue = ChangeQueue()
        # the map follows an edit: its exact layout comes in as a change of its own
        self.rebuilder = Rebuilder(self.config_path, base_url, map_landed=lambda: self.queue.put(MAP_LANDED))
        self.state = SiteState(None, "/", preview=True)
        self.server = make_server(self.state, host, port, log)  # bind first: a busy port fails fast
        self.report(None)
        self.watcher = SourceWatcher(self.config_path, self.queue)
        self.loop = threading.Thread(target=rebuild_loop, args=(self.queue, self.report), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{self.state.base_path}"

    def report(self, changes: ChangeSet | None) -> None:
        """Rebuild, publish the result and print one line about it; an edited paper's own page
        is served first, before the rebuild (see first_look.py)."""
        first = self.rebuilder.first_look(changes) if changes is not None else None
        if first is not None:
            self.state.publish_and_settle(first.build, first.paths)
            self.log(terminal_text(summary(changes, first, "shown first")))
        last = self.rebuilder.last
        with responsive_threads(first is not None):  # tabs may still fetch the first look's page
            outcome = self.rebuilder.rebuild()
        if outcome.build:
            served = self.state.build  # a first look's, maybe of an earlier edit
            changed = outcome.paths if served is last or served is None else \
                changed_paths(served.files, outcome.build.files)
            self.state.publish(outcome.build, None if changes is None else changed)
        else:
            self.state.fail(outcome.error)
        self.log(terminal_text(summary(changes, outcome)))  # paths and messages come from the sources
        self.rebuilder.follow()

    def start(self) -> None:
        """Watch and serve in background threads (tests and the benchmark use this); stop() ends it."""
        self.watcher.start()
        self.loop.start()
        # stop() waits for the serving loop to look up: every 50 ms, not the default 500
        self.serving = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.serving.start()

    def stop(self) -> None:
        self.queue.close()
        self.watcher.stop()
        self.state.close()  # ends open event streams
        self.server.shutdown()
        self.server.server_close()
        self.rebuilder.close()

    def serve_forever(self, open_browser: bool = False) -> None:
        """Watch and serve until Ctrl-C."""
        self.watcher.start()
        self.loop.start()
        self.log(terminal_text(f"Serving at {self.url} (Ctrl-C to stop)"))
        if open_browser:
            webbrowser.open(self.url)
        try:
            self.server.serve_forever()
        except KeyboardInterrupt:
            self.log("stopped")
        finally:
            self.queue.close()
            self.watcher.stop()
            self.state.close()
            self.server.server_close()
            self.rebuilder.close()
