"""What a URL path of the preview serves: a file of the build, and nothing else.

The build's files are looked up in a dict, never on disk, so no request can reach
a file outside the site; a path with '..', a backslash or NUL is not found even so.
In preview mode an HTML page gets the live-reload script and the overlay's style
(see __init__.py); the built files never contain them.
"""
from __future__ import annotations

import mimetypes
import posixpath
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml", ".json": "application/json",
         ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml",
         ".bib": "text/plain; charset=utf-8", ".ris": "text/plain; charset=utf-8"}  # citations: readable in the tab
PREVIEW_DIR = Path(__file__).parent
PREVIEW_FILES = {"__preview.js": "preview.js", "__preview.css": "preview.css"}
NOT_BUILT = b"<!doctype html><html><head><title>Not built yet</title></head><body>" \
            b"<p>The site has not built yet.</p></body></html>"


def lookup(files: dict[str, bytes] | None, base: str, url_path: str, preview: bool = False,
           version: int = 0) -> tuple[int, str, bytes]:
    """Status, content type and body for a request path (still percent-encoded) under the
    base path; a 301's content type is where it points. `files`: None before the first build;
    `version`: the build a preview tab's script starts from."""
    path = unquote(url_path)
    name = path.rsplit("/", 1)[-1]
    if preview and name in PREVIEW_FILES and "\x00" not in path:
        # matched by name, not base path: a tab opened before base_url changed still finds them
        return HTTPStatus.OK, content_type(name), (PREVIEW_DIR / PREVIEW_FILES[name]).read_bytes()
    if preview and files is None:
        return HTTPStatus.SERVICE_UNAVAILABLE, TYPES[".html"], inject(NOT_BUILT, base, version)
    status, kind, body = _find(files or {}, base, path)
    if preview and kind == TYPES[".html"]:
        body = inject(body, base, version)
    return status, kind, body


def _find(files: dict[str, bytes], base: str, path: str) -> tuple[int, str, bytes]:
    if not path.startswith(base):
        if path.rstrip("/") == base.rstrip("/"):
            return HTTPStatus.MOVED_PERMANENTLY, base, b""
        return _not_found(files)
    relative = path[len(base):]
    if ".." in relative.split("/") or "\\" in relative or "\x00" in relative:
        return _not_found(files)
    key = relative + "index.html" if relative == "" or relative.endswith("/") else relative
    if key in files:
        return HTTPStatus.OK, content_type(key), files[key]
    if key + "/index.html" in files:
        return HTTPStatus.MOVED_PERMANENTLY, base + key + "/", b""
    return _not_found(files)


def _not_found(files: dict[str, bytes]) -> tuple[int, str, bytes]:
    return HTTPStatus.NOT_FOUND, TYPES[".html"], files.get("404.html", b"Not found")


def inject(html: bytes, base: str, version: int) -> bytes:
    """Add the preview stylesheet and script to a page, just before </head>."""
    tags = (f'<link rel="stylesheet" href="{base}__preview.css">'
            f'<script src="{base}__preview.js" data-build="{version}" defer></script>').encode()
    at = html.lower().find(b"</head>")
    return html[:at] + tags + html[at:] if at >= 0 else tags + html


def content_type(path: str) -> str:
    ext = posixpath.splitext(path)[1]
    return TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"
