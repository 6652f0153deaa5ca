"""Checks of the built site: links and anchors, Google Scholar's rules, size, HTML validity."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urljoin, urlsplit

from .. import urls
from ..catalog import Catalog
from ..engine.sitesize import PAGES_LIMIT, in_megabytes
from .findings import Finding

SCHOLAR_MAX_BYTES = 5 * 10 ** 6  # Google Scholar skips larger files
NEAR_PAGES_LIMIT = PAGES_LIMIT * 8 // 10  # warn from here on: the next import may cross it
_ATTRIBUTE = re.compile(r"""\s(href|src|action)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_ID = re.compile(r"""\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_META = re.compile(r"""<meta\s+name="(citation_[a-z_]+)"\s+content="([^"]*)"\s*/?>""")
_SKIPPED_SCHEMES = ("mailto:", "tel:", "javascript:", "data:")


@dataclass
class SiteFiles:
    """The files of a built site, wherever they are: `read` gives a file's bytes, `size` its length."""

    paths: list[str]
    read: Callable[[str], bytes]
    size: Callable[[str], int]
    shown: str = "_site"  # how messages name the site's folder

    @classmethod
    def in_memory(cls, files: dict[str, bytes], shown: str = "_site") -> "SiteFiles":
        return cls(sorted(files), files.__getitem__, lambda path: len(files[path]), shown)

    @classmethod
    def layered(cls, paths: list[str], folders: list[Path], files: dict[str, bytes], shown: str) -> "SiteFiles":
        """Files of `files`, else of the first folder that holds them (a staging folder over the output)."""
        def where(path: str) -> Path:
            for folder in folders:
                candidate = folder / path
                if candidate.is_file():
                    return candidate
            return folders[-1] / path

        def read(path: str) -> bytes:
            return files[path] if path in files else where(path).read_bytes()

        def size(path: str) -> int:
            return len(files[path]) if path in files else where(path).stat().st_size
        return cls(sorted(paths), read, size, shown)

    @classmethod
    def folder(cls, folder: Path, shown: str) -> "SiteFiles":
        paths = sorted(Path(dirpath, name).relative_to(folder).as_posix()
                       for dirpath, _, names in os.walk(folder) for name in names)
        return cls.layered(paths, [folder], {}, shown)


def site_findings(site: SiteFiles, catalog: Catalog, root: Path,
                  external: bool = False) -> tuple[list[Finding], list[tuple[str, str, int]]]:
    """The findings, and (when `external`) every external link as (url, page, line)."""
    links, external = _links(site, catalog.config.base_url, external)
    return [*links, *_scholar(site, catalog, root), *_size(site)], external


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _links(site: SiteFiles, base_url: str, want_external: bool) -> tuple[list[Finding], list[tuple[str, str, int]]]:
    base_path = urlsplit(base_url).path or "/"
    present = set(site.paths)
    ids: dict[str, set[str]] = {}
    found, external = [], []

    def has_anchor(target: str, fragment: str) -> bool:
        if f'id="{fragment}"'.encode() in site.read(target):  # the usual case, without parsing the page
            return True
        if target not in ids:
            text = site.read(target).decode("utf-8", "replace")
            ids[target] = {html.unescape(m[1] if m[1] is not None else m[2]) for m in _ID.finditer(text)}
        return fragment in ids[target]

    # A site has few distinct links (every page links the same listings): each is resolved once.
    # Keyed by the link, or by (page, link) when it is relative to the page.
    resolved: dict = {}
    for page in site.paths:
        if not page.endswith(".html"):
            continue
        text = site.read(page).decode("utf-8", "replace")
        page_url = base_path + (page.removesuffix("index.html") if page.endswith("index.html") else page)
        for match in _ATTRIBUTE.finditer(text):
            raw = match[2] if match[2] is not None else match[3]
            rooted = raw.startswith("/") and not raw.startswith("//")
            key = raw if rooted else (page_url, raw)
            problem = resolved.get(key)
            if problem is None:
                problem = resolved[key] = _link_problem(raw, page_url, base_url, base_path, present, has_anchor)
            if problem == _EXTERNAL:
                if want_external:
                    external.append((html.unescape(raw).strip(), f"{site.shown}/{page}", _line(text, match.start())))
            elif problem:
                found.append(Finding(f"{site.shown}/{page}", _line(text, match.start()),
                                     f"{match[1]}=\"{html.unescape(raw).strip()}\": {problem}", "link"))
    return found, external


_EXTERNAL = "external"


def _link_problem(raw: str, page_url: str, base_url: str, base_path: str, present: set[str], has_anchor) -> str:
    """What is wrong with a link of a page: "" (nothing), _EXTERNAL (another site's), or why it leads nowhere."""
    url = html.unescape(raw).strip() if "&" in raw else raw.strip()
    if not url or url.lower().startswith(_SKIPPED_SCHEMES):
        return ""
    if url.startswith(base_url):
        url = base_path + url[len(base_url):]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return _EXTERNAL if parts.scheme in ("http", "https", "") else ""
    where = parts if url.startswith("/") else urlsplit(urljoin(page_url, url))
    return _resolve(unquote(where.path), unquote(where.fragment), base_path, present, has_anchor)


def _resolve(path: str, fragment: str, base_path: str, present: set[str], has_anchor) -> str:
    if not path.startswith(base_path):
        return f"outside the site's base path {base_path}"
    target = path[len(base_path):]
    if target == "" or target.endswith("/"):
        target += "index.html"
    elif target not in present and target + "/index.html" in present:
        target += "/index.html"
    if target not in present:
        return "no such file in the site"
    if fragment and target.endswith(".html") and not has_anchor(target, fragment):
        return f"no element with id '{fragment}' in {target}"
    return ""


def _scholar(site: SiteFiles, catalog: Catalog, root: Path) -> list[Finding]:
    """Google Scholar's inclusion rules, for every paper page."""
    found = []
    present = set(site.paths)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(catalog.config.base_url))
    for paper in catalog.papers:
        page = urls.output_file(urls.path_of(paper))
        where = f"{site.shown}/{page}"
        if page not in present:
            found.append(Finding(where, None, "the paper's page is missing", "scholar"))
            continue
        text = site.read(page).decode("utf-8", "replace")
        tags: dict[str, list[str]] = {}
        for match in _META.finditer(text):
            tags.setdefault(match[1], []).append(html.unescape(match[2]))
        problems = []
        if len(tags.get("citation_title", [])) != 1:
            problems.append(f"{len(tags.get('citation_title', []))} citation_title tags: Scholar wants one paper "
                            "per page")
        if len(tags.get("citation_author", [])) != len(paper.authors):
            problems.append(f"{len(tags.get('citation_author', []))} citation_author tags for "
                            f"{len(paper.authors)} authors")
        if not tags.get("citation_publication_date"):
            problems.append("no citation_publication_date")
        if paper.abstract and 'class="abstract"' not in text:
            problems.append("the abstract is not shown")
        if site.size(page) > SCHOLAR_MAX_BYTES:
            problems.append(f"the page is {in_megabytes(site.size(page))}: Scholar reads files under 5 MB")
        folder = catalog.config.base_url + urls.path_of(paper)
        for pdf in tags.get("citation_pdf_url", []):
            problems.extend(_pdf_problems(pdf, folder, origin, catalog.config.base_url, present, site))
        found.extend(Finding(where, None, f"Google Scholar: {problem}", "scholar") for problem in problems)
    return found


def _pdf_problems(pdf: str, folder: str, origin: str, base_url: str, present: set[str], site: SiteFiles) -> list[str]:
    """A PDF on another host is that host's to index; one this site holds must sit beside the abstract."""
    if not urlsplit(pdf).scheme:
        return [f"citation_pdf_url '{pdf}' is not an absolute URL"]
    if not pdf.startswith(origin + "/"):
        return []
    if pdf.rpartition("/")[0] + "/" != folder:
        return [f"citation_pdf_url '{pdf}' is not in the page's own folder {folder}"]
    file = unquote(pdf[len(base_url):])
    if file not in present:
        return [f"citation_pdf_url '{pdf}': no such file in the site"]
    if site.size(file) > SCHOLAR_MAX_BYTES:
        return [f"the PDF {file} is {in_megabytes(site.size(file))}: Scholar reads files under 5 MB"]
    return []


def _size(site: SiteFiles) -> list[Finding]:
    total = sum(site.size(path) for path in site.paths)
    if total > PAGES_LIMIT:
        return [Finding(site.shown, None, f"the site is {in_megabytes(total)}: GitHub Pages publishes sites of at "
                                          "most 1 GB (README.md: Deploy; site.yaml's omit: leaves files out)", "size")]
    if total > NEAR_PAGES_LIMIT:
        return [Finding(site.shown, None, f"the site is {in_megabytes(total)}, near GitHub Pages' limit of 1 GB "
                                          "(README.md: Deploy; site.yaml's omit: leaves files out)", "size")]
    return []


# --- HTML validity ---------------------------------------------------------------------------------

def vnu_jar(root: Path) -> Path | None:
    """The Nu HTML checker from npm's vnu-jar, in the catalog's node_modules or papersite's own."""
    for folder in (root, Path(__file__).resolve().parents[2]):
        jar = folder / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
        if jar.is_file():
            return jar
    return None


def sample_pages(site: SiteFiles) -> list[str]:
    """One page of each kind: each top-level page, and the first page under each folder kind
    (a paper, a venue, a topic, an author, a year, a listing's page 2)."""
    kinds: dict[tuple, str] = {}
    for path in site.paths:
        if path.endswith(".html"):
            parts = path.split("/")
            kind = (parts[0], len(parts)) if len(parts) > 1 else (path,)
            kinds.setdefault(kind, path)
    return sorted(kinds.values())


def html_findings(site: SiteFiles, root: Path) -> list[Finding]:
    """vnu.jar's errors on a sample of each page kind; a note when Java or vnu.jar is missing."""
    java, jar = shutil.which("java"), vnu_jar(root)
    if not java or not jar:
        missing = "Java" if not java else "vnu.jar (npm install vnu-jar)"
        return [Finding(site.shown, None, f"HTML validity not checked: {missing} is not installed", "html",
                        note=True)]
    sample = sample_pages(site)
    with tempfile.TemporaryDirectory(prefix="papersite-vnu-") as folder:
        for path in sample:
            target = Path(folder, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(site.read(path))
        try:
            result = subprocess.run([java, "-jar", str(jar), "--errors-only", "--format", "json", "--stdout",
                                     *(str(Path(folder, p)) for p in sample)],
                                    capture_output=True, text=True, timeout=600)
            messages = json.loads(result.stdout)["messages"]
        except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as error:
            return [Finding(site.shown, None, f"HTML validity not checked: vnu.jar failed ({error})", "html",
                            note=True)]
    return sorted(Finding(f"{site.shown}/{m.get('url', '').split(folder, 1)[-1].lstrip('/')}", m.get("lastLine"),
                          f"invalid HTML: {m.get('message', '')}", "html")
                  for m in messages if m.get("type") == "error")
