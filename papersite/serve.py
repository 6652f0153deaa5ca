"""Preview server: serves a Build from memory under the site's base path.

Only the built files can be served (they are looked up in a dict), so no
request can reach a file outside the site. In preview mode the server also
keeps the last good build when a rebuild fails, and adds live reload:

    <base>__reload        Server-Sent Events: {"build": n, "problems": [...]} now and after every rebuild
    <base>__preview.js    reloads the tab when n changes, shows problems as an overlay
    <base>__preview.css   the overlay's style

Served HTML pages get a <link> and <script> for these two files (external,
because the pages' CSP allows only 'self' scripts and styles). Built files
on disk never contain them.
"""
from __future__ import annotations

import json
import mimetypes
import posixpath
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlsplit

from .errors import SiteError
from .pipeline import Build
from .watch import ChangeQueue, ChangeSet, Rebuilder, SourceWatcher, rebuild_loop, summary

TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml", ".json": "application/json",
         ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}
PREVIEW_DIR = Path(__file__).parent / "theme" / "preview"
PREVIEW_FILES = {"__preview.js": "preview.js", "__preview.css": "preview.css"}
RELOAD = "__reload"
KEEPALIVE = 15.0  # seconds between SSE comments; a write to a closed tab ends its thread
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
NOT_BUILT = b"<!doctype html><html><head><title>Not built yet</title></head><body>" \
            b"<p>The site has not built yet.</p></body></html>"


class SiteState:
    """The build being served; swapped whole after each successful rebuild.

    `version` counts builds whose output changed; open tabs reload when it
    moves. `problems` are the errors of the latest rebuild, shown as an overlay.
    """

    def __init__(self, build: Build | None, base_path: str, preview: bool = False):
        self.lock = threading.Condition(threading.RLock())  # status() is also called under it
        self.build = build
        self.base_path = base_path
        self.preview = preview
        self.version = 0
        self.problems: list[dict] = []
        self.closed = False

    def publish(self, build: Build, changed: bool = True) -> None:
        """Serve a new good build; tabs reload only when its output changed."""
        with self.lock:
            self.build = build
            self.base_path = build.catalog.config.base_path
            self.version += 1 if changed else 0
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
            data = json.dumps({"build": self.version, "problems": self.problems})
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


def make_handler(state: SiteState, log: Callable[[str], None]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "papersite"
        timeout = 30  # a client that stalls mid-request or stops reading frees its thread

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if state.preview and unquote(path).rsplit("/", 1)[-1] == RELOAD:
                self._events()
            else:
                self._respond(path, with_body=True)

        def do_HEAD(self) -> None:
            self._respond(urlsplit(self.path).path, with_body=False)

        def _respond(self, path: str, with_body: bool) -> None:
            status, kind, body = state.lookup(path)
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

        def _events(self) -> None:
            """Server-Sent Events: the status now, then after every change, until the tab closes."""
            self.close_connection = True
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

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
            if len(args) > 1 and str(args[1]).startswith(("4", "5")):
                log(f"{self.command} {self.path} -> {args[1]}")

    return Handler


class PreviewHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # open event streams must not keep the process alive
    request_queue_size = 128  # the stdlib's 5 drops connections when many tabs load at once


def make_server(state: SiteState, host: str, port: int,
                log: Callable[[str], None] = print) -> ThreadingHTTPServer:
    return PreviewHTTPServer((host, port), make_handler(state, log))


def exposure_warning(host: str) -> str | None:
    """A warning when the preview is reachable from other machines."""
    if host in LOCAL_HOSTS:
        return None
    return f"warning: listening on {host}: other machines can reach this preview (use 127.0.0.1 to keep it local)"


class Preview:
    """The authoring loop: build, serve from memory, watch, rebuild, reload every tab."""

    def __init__(self, config_path: Path, base_url: str | None, host: str, port: int,
                 log: Callable[[str], None] = print):
        self.log = log
        self.config_path = Path(config_path)
        self.rebuilder = Rebuilder(self.config_path, base_url)
        self.state = SiteState(None, "/", preview=True)
        self.server = make_server(self.state, host, port, log)  # bind first: a busy port fails fast
        self.report(None)
        self.queue = ChangeQueue()
        self.watcher = SourceWatcher(self.config_path, self.queue)
        self.loop = threading.Thread(target=rebuild_loop, args=(self.queue, self.report), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{self.state.base_path}"

    def report(self, changes: ChangeSet | None) -> None:
        """Rebuild, publish the result and print one line about it."""
        outcome = self.rebuilder.rebuild()
        if outcome.build:
            self.state.publish(outcome.build, changed=outcome.changed > 0 or changes is None)
        else:
            self.state.fail(outcome.error)
        self.log(summary(changes, outcome))

    def start(self) -> None:
        """Watch and serve in background threads (tests and the benchmark use this); stop() ends it."""
        self.watcher.start()
        self.loop.start()
        self.serving = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.serving.start()

    def stop(self) -> None:
        self.queue.close()
        self.watcher.stop()
        self.state.close()  # ends open event streams
        self.server.shutdown()
        self.server.server_close()

    def serve_forever(self, open_browser: bool = False) -> None:
        """Watch and serve until Ctrl-C."""
        self.watcher.start()
        self.loop.start()
        self.log(f"Serving at {self.url} (Ctrl-C to stop)")
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
