"""The preview's HTTP side: requests read strictly, answered from the SiteState, closed.

Requests are parsed here, not by the stdlib: a malformed one gets 400 or 505 and
a plain-text reason; one whose Host is not this machine gets 421 (DNS rebinding,
see hosts.py); one request per connection, as in HTTP/1.0. Only GET and HEAD are
answered, only with files of the served build (files.py). What the server prints
is escaped (terminal.py).
"""
from __future__ import annotations

import http.client
import re
import socket
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, quote, unquote, unquote_to_bytes, urlsplit

from .hosts import HOST, HostFilter
from .state import SiteState
from .terminal import printable

RELOAD = "__reload"
KEEPALIVE = 15.0  # seconds between SSE comments; a write to a closed tab ends its thread


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


def make_handler(state: SiteState, log: Callable[[str], None],
                 hosts: HostFilter | None = None) -> type[BaseHTTPRequestHandler]:
    """The request handler class of a server answering from `state` to the Host names `hosts` allows."""
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
