"""Helpers to read a built site the way a browser would: parse pages, collect links."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit


class PageParser(HTMLParser):
    """Collects links, asset references, ids, meta tags and the text of selected tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.assets: list[str] = []
        self.ids: list[str] = []
        self.meta: list[tuple[str, str]] = []
        self.tags: list[str] = []
        self.h1 = ""
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "link" and attrs.get("href"):
            self.assets.append(attrs["href"])
        if tag in ("script", "img") and attrs.get("src"):
            self.assets.append(attrs["src"])
        if tag == "form" and attrs.get("action"):
            self.links.append(attrs["action"])
        if tag == "meta" and attrs.get("name"):
            self.meta.append((attrs["name"], attrs.get("content", "")))
        for name, value in attrs.items():
            if name.startswith("data-") and value and value.startswith("/"):
                self.assets.append(value)
        if tag == "h1":
            self._in_h1 = True

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1 += data


def parse(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def resolve(site: Path, base_path: str, page_url: str, href: str) -> Path | None:
    """The file a link points to inside the site, or None for external links."""
    url = urlsplit(urljoin(page_url, href))
    if url.scheme not in ("", "http", "https") or (url.netloc and url.netloc != "site.test"):
        return None
    path = url.path
    assert path.startswith(base_path), f"link {href} leaves the base path {base_path}"
    relative = path[len(base_path):]
    return site / (relative + "index.html" if relative == "" or relative.endswith("/") else relative)


def page_url(site: Path, base_path: str, html_file: Path) -> str:
    relative = html_file.relative_to(site).as_posix()
    if relative.endswith("index.html"):
        relative = relative[: -len("index.html")]
    return f"http://site.test{base_path}{relative}"
