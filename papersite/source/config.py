"""site.yaml: the schema, declared once, and its validation.

Every problem is collected before the build stops; unknown keys are errors
with the closest valid key suggested; users keep their own data under `extra:`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import Problem, SiteError
from ..model import DATED_KINDS, VENUE_KINDS, Person, Topic, Venue
from .files import read_source
from .validate import Checker
from .yamlsource import line_of, load_yaml


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
    """Venues papers may name: slug, name, year, full_name, url, kind, aliases."""
    authors: tuple[Person, ...] = ()
    """Details of people, and the other spellings of their names to merge: name, aliases, orcid,
    affiliation, url."""
    extra: dict = field(default_factory=dict)
    """Free-form data for your own templates: {{ site.extra.whatever }}."""
    extra_css: tuple[str, ...] = ()
    """Stylesheets in static/ that every page links after the theme's, e.g. ("custom.css",)."""
    members: tuple[str, ...] = ()
    """people: members: the lab's members, by name (any spelling the catalog merges): their
    names are highlighted in every author list."""
    omit: tuple[str, ...] = ()
    """What the pages leave out: any of OMITTABLE (README: site.yaml reference)."""
    extra_css_at: tuple[tuple[str, int | None], ...] = field(default=(), compare=False, repr=False)
    """Where each extra_css entry is written (site.yaml, line), for the build's check that it exists (not a key)."""
    members_at: tuple[tuple[str, int | None], ...] = field(default=(), compare=False, repr=False)
    """Where each member is named (site.yaml, line), for the warning about one who wrote no paper (not a key)."""
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

    def writes(self, name: str) -> bool:
        """Whether the pages offer what an `omit:` name stands for (see OMITTABLE); templates ask it."""
        if name not in OMITTABLE:
            raise ValueError(f"no optional files called {name!r}: {', '.join(OMITTABLE)}")
        return name not in self.omit


MAX_CONFIG_BYTES = 10 * 1024 * 1024  # site.yaml runs to kilobytes, and PyYAML is slow
# Years become dates (feeds, JSON-LD): what a date can hold.
MIN_YEAR, MAX_YEAR = 1, 9999
KEYS = ("title", "base_url", "description", "author", "language", "cname", "topics", "venues", "authors",
        "extra", "extra_css", "omit", "people")
# What `omit:` may leave out: citation-files, the RIS and CSL-JSON downloads of paper pages (and the
# data in each they are made from: the reading list then exports BibTeX alone); author-bibtex, the
# BibTeX download of author pages; author-feeds, nothing since there are no author feeds (issue 36),
# accepted so that older site.yaml files build. The patterns are the files each name stood for when
# the site wrote them, for engine/sitesize.py's hint, which now finds none.
OMITTABLE = {
    "author-feeds": r"authors/[^/]+/feed\.xml",
    "author-bibtex": r"authors/[^/]+/papers\.bib|papers/[^/]+/cite\.bib",  # an author of one paper has its cite.bib
    "citation-files": r"papers/[^/]+/cite\.(?:ris|json)",  # the reading list then exports BibTeX alone
}
TOPIC_KEYS = ("slug", "name", "description", "keywords")
VENUE_KEYS = ("slug", "name", "year", "full_name", "url", "kind", "aliases")
PERSON_KEYS = ("name", "orcid", "affiliation", "url")
AUTHOR_KEYS = PERSON_KEYS + ("aliases",)
PEOPLE_KEYS = ("members",)
ORCID = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")


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
    extra_css = _extra_css(check, data)
    members = _members(check, data)
    config = SiteConfig(
        title=title or "",
        base_url=base_url,
        description=check.field(data, (), "description", str, ""),
        author=check.field(data, (), "author", str, ""),
        language=check.field(data, (), "language", str, "en"),
        cname=check.field(data, (), "cname", str, ""),
        topics=topics,
        venues=venues,
        authors=tuple(_authors(check, data)),
        extra=check.field(data, (), "extra", dict, {}),
        extra_css=tuple(name for name, _ in extra_css),
        members=tuple(name for name, _ in members),
        members_at=tuple((str(path), line_of(lines, "people", "members", index)) for _, index in members),
        omit=_omit(check, data),
        extra_css_at=tuple((str(path), line_of(lines, "extra_css", index)) for _, index in extra_css),
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


def _extra_css(check: Checker, data: dict) -> list[tuple[str, int]]:
    """extra_css: (name, index) of each path of a .css file inside static/ (each build checks that it exists)."""
    found: list[tuple[str, int]] = []
    entries = data.get("extra_css")
    if entries is not None and not isinstance(entries, list):
        check.problem(("extra_css",), "'extra_css' must be a list of stylesheets in static/, e.g. [custom.css]")
        return found
    for index, entry in enumerate(entries or []):
        key = ("extra_css", index)
        if not isinstance(entry, str) or not entry.strip():
            check.problem(key, f"extra_css entries must be file names in static/, not {entry!r}"[:120])
            continue
        name = entry.strip()
        parts = name.split("/")
        if "://" in name or name.startswith("//"):
            check.problem(key, f"extra_css: '{name}' must be a file in static/, not a URL "
                               "(the pages' Content-Security-Policy allows only the site's own stylesheets)")
        elif name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts) \
                or any(ord(c) < 32 or c == "\x7f" for c in name):
            check.problem(key, f"extra_css: '{name}' must be a path inside static/, such as custom.css "
                               "or css/custom.css (no '..', no leading '/')")
        elif any(p.startswith(".") for p in parts):
            check.problem(key, f"extra_css: '{name}' is a hidden file, which the build does not copy: rename it")
        elif not name.lower().endswith(".css"):
            check.problem(key, f"extra_css: '{name}' is not a stylesheet: give a .css file in static/")
        elif name == "style.css":
            check.problem(key, "extra_css: 'style.css' is the theme's stylesheet, which every page links already: "
                               "put your rules in another file, such as custom.css")
        elif any(name == seen for seen, _ in found):
            check.problem(key, f"extra_css: '{name}' is listed twice")
        else:
            found.append((name, index))
    return found


def _members(check: Checker, data: dict) -> list[tuple[str, int]]:
    """people: members: (name, index) of each member named once."""
    people = data.get("people")
    if people is None:
        return []
    people = check.mapping(people, ("people",), "'people'")
    check.unknown_keys(people, ("people",), PEOPLE_KEYS)
    names = people.get("members") or []
    if not isinstance(names, list):
        check.problem(("people", "members"), "people: 'members' must be a list of names, e.g. [Ada Lovelace]")
        return []
    found, seen = [], set()
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            check.problem(("people", "members", index), f"people: members: each entry must be a name, not {name!r}"[:120])
        elif name in seen:
            check.problem(("people", "members", index), f"people: members: '{name[:60]}' is listed twice")
        else:
            seen.add(name)
            found.append((name, index))
    return found


def _omit(check: Checker, data: dict) -> tuple[str, ...]:
    names = data.get("omit")
    if names is None:
        return ()
    if not isinstance(names, list):
        check.problem(("omit",), f"'omit' must be a list of optional files, e.g. [author-feeds]: {', '.join(OMITTABLE)}")
        return ()
    found = set()
    for index, name in enumerate(names):
        if isinstance(name, str) and name in OMITTABLE:
            found.add(name)
            continue
        close = get_close_matches(str(name), OMITTABLE, 1)
        hint = f"did you mean '{close[0]}'?" if close else f"one of {', '.join(OMITTABLE)}"
        check.problem(("omit", index), f"omit: {str(name)[:60]!r} is not a file the build can leave out ({hint})")
    return tuple(name for name in OMITTABLE if name in found)  # one order: configs compare by repr


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
        kind = check.field(entry, key, "kind", str, "conference")
        if kind not in VENUE_KINDS:
            check.problem(key + ("kind",), f"'kind' must be one of {', '.join(VENUE_KINDS)}, not '{kind[:40]}'")
            kind = "conference"
        # A journal, a preprint server, a university or a publisher spans years: its papers say theirs.
        year = check.field(entry, key, "year", int, required=kind in DATED_KINDS)
        if year is not None and not MIN_YEAR <= year <= MAX_YEAR:
            check.problem(key + ("year",), f"'year' must be a year from {MIN_YEAR} to {MAX_YEAR}, not {year}")
            year = None
        full_name = check.field(entry, key, "full_name", str, "")
        url = check.field(entry, key, "url", str, "")
        if url and not _is_http_url(url):
            check.problem(key + ("url",), f"'url' must be an http(s) URL, not '{url[:60]}'")
            url = ""
        aliases = tuple(check.field(entry, key, "aliases", list, []))
        if slug in seen:
            check.problem(key + ("slug",), f"duplicate venue slug '{slug}'")
        elif slug and name and (year is not None or kind not in DATED_KINDS):
            seen.add(slug)
            yield Venue(slug, name, year, full_name, url, kind, aliases)


def check_person(check: Checker, entry: dict, key: tuple) -> Person | None:
    """One person's details (site.yaml `authors:` or a mapping in a paper's `authors:`)."""
    name = check.field(entry, key, "name", str, required=True)
    orcid = check.field(entry, key, "orcid", str, "")
    orcid = orcid.removeprefix("https://orcid.org/").removeprefix("http://orcid.org/")
    if orcid and not ORCID.match(orcid):
        check.problem(key + ("orcid",), f"'orcid' must look like 0000-0002-1825-0097, not '{orcid[:40]}'")
        orcid = ""
    url = check.field(entry, key, "url", str, "")
    if url and not _is_http_url(url):
        check.problem(key + ("url",), f"'url' must be an http(s) URL, not '{url[:60]}'")
        url = ""
    if not name:
        return None
    return Person(name, orcid, check.field(entry, key, "affiliation", str, ""), url)


def _authors(check: Checker, data: dict):
    seen: set[str] = set()
    for key, entry in _items(check, data, "authors"):
        check.unknown_keys(entry, key, AUTHOR_KEYS)
        person = check_person(check, entry, key)
        aliases = tuple(check.field(entry, key, "aliases", list, []))
        if person is None:
            continue
        if person.name in seen:
            check.problem(key + ("name",), f"author '{person.name}' is listed twice")
            continue
        seen.add(person.name)
        yield replace(person, aliases=aliases)
