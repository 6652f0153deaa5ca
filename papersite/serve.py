"""Preview server: serves a Build from memory under the site's base path.

Only the built files can be served (they are looked up in a dict), so no
request can reach a file outside the site.
"""
from __future__ import annotations

import mimetypes
import posixpath
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import unquote, urlsplit

from .pipeline import Build

TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml", ".json": "application/json",
         ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}


class SiteState:
    """The build being served; swapped whole after each successful rebuild."""

    def __init__(self, build: Build, base_path: str):
        self.lock = threading.Lock()
        self.build = build
        self.base_path = base_path

    def lookup(self, url_path: str) -> tuple[int, str, bytes]:
        """Status, content type and body for a request path."""
        with self.lock:
            files, base = self.build.files, self.base_path
        path = unquote(url_path)
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


def _type(path: str) -> str:
    ext = posixpath.splitext(path)[1]
    return TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"


def make_handler(state: SiteState, log: Callable[[str], None]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "papersite"

        def do_GET(self) -> None:
            self._respond(with_body=True)

        def do_HEAD(self) -> None:
            self._respond(with_body=False)

        def _respond(self, with_body: bool) -> None:
            status, kind, body = state.lookup(urlsplit(self.path).path)
            try:
                self.send_response(status)
                if status == HTTPStatus.MOVED_PERMANENTLY:
                    self.send_header("Location", kind)
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

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
            if args and str(args[1]).startswith(("4", "5")):
                log(f"{self.command} {self.path} -> {args[1]}")

    return Handler


def make_server(state: SiteState, host: str, port: int,
                log: Callable[[str], None] = print) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), make_handler(state, log))
    server.daemon_threads = True
    return server
