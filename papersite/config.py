"""site.yaml: the schema, declared once, and its validation.

Every problem is collected before the build stops; unknown keys are errors
with the closest valid key suggested; users keep their own data under `extra:`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import Problem, SiteError
from .model import Topic, Venue
from .sources import read_source
from .validate import Checker
from .yamlsource import load_yaml


@dataclass(frozen=True)
class SiteConfig:
    title: str
    """Site name, shown in every page header and in feeds."""
    base_url: str = "http://127.0.0.1:8000/"
    """Where the site is published, e.g. https://user.github.io/repo/ (always ends with /)."""
    description: str = ""
    """One or two sentences for the home page and search engines."""
    author: str = ""
    """Person or organisation that curates the catalog."""
    language: str = "en"
    """Language of the pages (the html lang attribute)."""
    cname: str = ""
    """Custom domain for GitHub Pages (written to CNAME when set)."""
    topics: tuple[Topic, ...] = ()
    """The topic taxonomy: slug, name, description, keywords."""
    venues: tuple[Venue, ...] = ()
    """Venues papers may name: slug, name, year, full_name, url."""
    extra: dict = field(default_factory=dict)
    """Free-form data for your own templates: {{ site.extra.whatever }}."""
    root: Path = Path(".")
    """Folder holding site.yaml, content/, templates/ and static/ (not a key)."""

    @property
    def base_path(self) -> str:
        """The URL path the site lives under: '/' or '/repo/'."""
        return urlsplit(self.base_url).path

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def static_dir(self) -> Path:
        return self.root / "static"

    def with_base_url(self, base_url: str | None) -> "SiteConfig":
        """A copy with base_url overridden (the --base-url option)."""
        if not base_url:
            return self
        checker = Checker("--base-url", {})
        url = _check_base_url(checker, base_url, ())
        if checker.problems:
            raise SiteError(checker.problems)
        return replace(self, base_url=url)


MAX_CONFIG_BYTES = 10 * 1024 * 1024  # site.yaml runs to kilobytes; PyYAML parses about 1 MB/s
# Years become dates (feeds, JSON-LD): what a date can hold.
MIN_YEAR, MAX_YEAR = 1, 9999
KEYS = ("title", "base_url", "description", "author", "language", "cname", "topics", "venues", "extra")
TOPIC_KEYS = ("slug", "name", "description", "keywords")
VENUE_KEYS = ("slug", "name", "year", "full_name", "url")


def load_config(path: Path | str = "site.yaml") -> SiteConfig:
    """Read and validate site.yaml; raise SiteError listing every problem."""
    path = Path(path)
    if not os.path.lexists(path):
        raise SiteError(Problem(path, None, "not found: create a site.yaml (see README.md)"))
    raw = read_source(path, path, None, MAX_CONFIG_BYTES, "is this a site.yaml?")
    if isinstance(raw, Problem):
        raise SiteError(raw)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SiteError(Problem(path, None, f"not UTF-8 text ({exc.reason})")) from None
    data, lines = load_yaml(text, path)
    return parse_config(data, lines, path)


def parse_config(data: Any, lines: dict, path: Path) -> SiteConfig:
    check = Checker(path, lines)
    data = check.mapping(data if data is not None else {}, (), "site.yaml")
    check.unknown_keys(data, (), KEYS)
    title = check.field(data, (), "title", str, required=True)
    base_url = check.field(data, (), "base_url", str, SiteConfig.base_url)
    base_url = _check_base_url(check, base_url, ("base_url",))
    topics = tuple(_topics(check, data))
    venues = tuple(_venues(check, data))
    config = SiteConfig(
        title=title or "",
        base_url=base_url,
        description=check.field(data, (), "description", str, ""),
        author=check.field(data, (), "author", str, ""),
        language=check.field(data, (), "language", str, "en"),
        cname=check.field(data, (), "cname", str, ""),
        topics=topics,
        venues=venues,
        extra=check.field(data, (), "extra", dict, {}),
        root=path.parent,
    )
    if check.problems:
        raise SiteError(check.problems)
    return config


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. 'http://[::1'
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in url)


def _check_base_url(check: Checker, url: str, key: tuple) -> str:
    if not _is_http_url(url):
        check.problem(key, f"base_url must be an absolute http(s) URL like https://user.github.io/repo/, not '{url}'")
        return SiteConfig.base_url
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        check.problem(key, "base_url must not have a query or fragment")
    return url if url.endswith("/") else url + "/"


def _items(check: Checker, data: dict, name: str):
    """Yield (index, mapping) for each entry of a list-of-mappings key."""
    entries = data.get(name) or []
    if not isinstance(entries, list):
        check.problem((name,), f"'{name}' must be a list")
        return
    for index, entry in enumerate(entries):
        yield (name, index), check.mapping(entry, (name, index), f"each entry of '{name}'")


def _topics(check: Checker, data: dict):
    seen: set[str] = set()
    for key, entry in _items(check, data, "topics"):
        check.unknown_keys(entry, key, TOPIC_KEYS)
        slug = check.slug(entry, key)
        name = check.field(entry, key, "name", str, required=True)
        keywords = check.field(entry, key, "keywords", list, [])
        if slug in seen:
            check.problem(key + ("slug",), f"duplicate topic slug '{slug}'")
        elif slug and name:
            seen.add(slug)
            yield Topic(slug, name, check.field(entry, key, "description", str, ""), tuple(keywords))


def _venues(check: Checker, data: dict):
    seen: set[str] = set()
    for key, entry in _items(check, data, "venues"):
        check.unknown_keys(entry, key, VENUE_KEYS)
        slug = check.slug(entry, key)
        name = check.field(entry, key, "name", str, required=True)
        year = check.field(entry, key, "year", int, required=True)
        if year is not None and not MIN_YEAR <= year <= MAX_YEAR:
            check.problem(key + ("year",), f"'year' must be a year from {MIN_YEAR} to {MAX_YEAR}, not {year}")
            year = None
        full_name = check.field(entry, key, "full_name", str, "")
        url = check.field(entry, key, "url", str, "")
        if url and not _is_http_url(url):
            check.problem(key + ("url",), f"'url' must be an http(s) URL, not '{url[:60]}'")
            url = ""
        if slug in seen:
            check.problem(key + ("slug",), f"duplicate venue slug '{slug}'")
        elif slug and name and year is not None:
            seen.add(slug)
            yield Venue(slug, name, year, full_name, url)
