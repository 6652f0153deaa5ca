"""Publishing: the written site served the way GitHub Pages serves it, under a project sub-path
or at the root of a custom domain; the 404 page from any depth; the Pages workflow."""
from __future__ import annotations

import http.client
import mimetypes
import re
import shlex
import threading
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml

from papersite.source.config import load_config
from papersite.engine.command import build_and_write

from tests.conftest import ROOT
from tests.htmlcheck import PageParser
from tests.test_search_files import search_references

SUBPATH = "https://user.github.io/repo/"
CUSTOM_DOMAIN = "https://papers.example.org/"


class PagesServer:
    """A written site folder served like GitHub Pages: under the base path, a folder's
    index.html, a redirect for a folder asked for without its slash, else 404.html."""

    def __init__(self, folder: Path, base_path: str):
        self.folder, self.base_path = folder, base_path
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                status, headers, body = pages.lookup(unquote(urlsplit(self.path).path))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.host = f"127.0.0.1:{self.server.server_port}"

    def lookup(self, path: str) -> tuple[int, dict, bytes]:
        relative = path[len(self.base_path):] if path.startswith(self.base_path) else None
        if relative is None or ".." in relative.split("/"):
            return 404, {}, b"not this site"
        target = self.folder / relative
        if target.is_dir():
            if not path.endswith("/"):
                return 301, {"Location": path + "/"}, b""
            target = target / "index.html"
        if target.is_file():
            return 200, {"Content-Type": mimetypes.guess_type(target.name)[0] or "application/octet-stream"}, \
                target.read_bytes()
        return 404, {"Content-Type": "text/html"}, (self.folder / "404.html").read_bytes()

    def get(self, path: str) -> tuple[int, str, bytes]:
        connection = http.client.HTTPConnection(self.host, timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type", ""), response.read()
        finally:
            connection.close()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module", params=[SUBPATH, CUSTOM_DOMAIN], ids=["project-subpath", "custom-domain"])
def published(request, bundled, tmp_path_factory):
    """The bundled catalog built for a base_url, written to disk and served under its path."""
    root, _, _ = bundled
    config = load_config(root / "site.yaml").with_base_url(request.param)
    out = tmp_path_factory.mktemp("published") / "_site"
    build, _ = build_and_write(config, out)
    server = PagesServer(out, config.base_path)
    yield server, config, out
    server.close()


def references(body: bytes, content_type: str) -> list[str]:
    """Every URL a page, feed or sitemap points at."""
    if "html" in content_type:
        parser = PageParser()
        parser.feed(body.decode("utf-8"))
        found = parser.links + parser.assets
        found += re.findall(r'<meta property="og:url" content="([^"]+)"', body.decode("utf-8"))
        return found
    if "xml" in content_type:
        root = ET.fromstring(body)
        return [el.get("href") for el in root.iter() if el.get("href")] + \
               [el.text for el in root.iter() if el.tag.endswith("}loc") or el.tag.endswith("}id")]
    if content_type.startswith("text/plain"):
        return re.findall(r"^Sitemap: (\S+)", body.decode("utf-8"), re.M)
    if "json" in content_type:  # the search index: a shard table and a document store
        return search_references(body)
    return []


def local_path(page: str, href: str, config) -> str | None:
    """The request path on our server for a reference, or None when it leaves the site (external)."""
    url = urljoin(page, href)
    if url.startswith(config.base_url):  # canonical, sitemap, feed: absolute URLs of the published site
        url = config.base_path + url[len(config.base_url):]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        assert urlsplit(config.base_url).netloc not in parts.netloc, f"{href} on {page} leaves {config.base_url}"
        return None
    assert parts.path.startswith(config.base_path), f"{href} on {page} leaves the base path"
    return parts.path


def test_crawl_from_the_home_page_every_link_and_asset_answers_200(published):
    server, config, out = published
    # robots.txt is linked from nowhere, but crawlers start there
    queue = [config.base_path, config.base_path + "robots.txt"]
    seen, broken = set(queue), []
    while queue:
        path = queue.pop()
        status, content_type, body = server.get(path)
        if status != 200:
            broken.append(f"{path}: {status}")
            continue
        for href in references(body, content_type):
            target = local_path(path, href, config)
            if target and target not in seen:
                seen.add(target)
                queue.append(target)
    assert broken == []
    # everything was reached by following links: every page, feed and the search index
    reached = {p[len(config.base_path):] for p in seen}
    for file in out.rglob("*"):
        relative = file.relative_to(out).as_posix()
        if relative.startswith("static/csl/"):  # fetched by cite-styles.js when a reader opens its panel
            assert server.get(config.base_path + relative)[0] == 200, relative
        elif file.suffix in (".html", ".xml", ".json") and relative != "404.html":
            assert relative.removesuffix("index.html") in reached, relative
    assert len(reached) > 100


@pytest.mark.parametrize("depth", ["a/", "a/b/c/", "papers/no-such-paper/", "static/missing.css"])
def test_404_page_works_from_any_depth(published, depth):
    server, config, _ = published
    status, _, body = server.get(config.base_path + depth)
    assert status == 404
    html = body.decode("utf-8")
    assert "Page not found" in html
    # the search box, pointed at the search page under the base path
    assert re.search(rf'<form[^>]*action="{re.escape(config.base_path)}search/"', html)
    assert 'name="q"' in html
    parser = PageParser()
    parser.feed(html)
    assert any(a.endswith("style.css") for a in parser.assets)
    for href in parser.links + parser.assets:
        target = local_path(config.base_path + depth, href, config)
        if target and not href.startswith("#"):  # "#main" (skip link) stays on this page
            assert server.get(target)[0] == 200, f"{href} from the 404 page at {depth}"


def test_folder_without_slash_redirects_like_pages(published):
    server, config, _ = published
    assert server.get(config.base_path + "papers")[0] == 301


# --- the GitHub Actions workflow ----------------------------------------------------------------

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def readme_commands() -> set[str]:
    """Shell commands in README.md's sh blocks, as a CI runner without a venv would type them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = set()
    for block in re.findall(r"```sh\n(.*?)```", readme, re.S):
        for line in block.splitlines():
            for command in line.split("#")[0].split("&&"):
                command = re.sub(r"(^|\s)\.venv/bin/", r"\1", command.strip())
                if command:
                    commands.add(command)
    return commands


def test_pages_workflow():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    jobs = workflow["jobs"]
    assert set(jobs) == {"build", "deploy"}
    assert jobs["deploy"]["needs"] == "build"
    assert jobs["deploy"]["environment"]["name"] == "github-pages"

    build_steps, deploy_steps = jobs["build"]["steps"], jobs["deploy"]["steps"]
    actions = {step["uses"].split("@")[0]: step for step in build_steps + deploy_steps if "uses" in step}
    for official in ("actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert official in actions
    assert [s["uses"].split("@")[0] for s in deploy_steps] == ["actions/deploy-pages"]
    assert actions["actions/setup-python"]["with"]["cache"] == "pip"
    assert actions["actions/setup-python"]["with"]["cache-dependency-path"] == "requirements.txt"
    assert actions["actions/setup-node"]["with"]["cache"] == "npm"
    assert actions["actions/configure-pages"]["id"] == "pages"
    assert actions["actions/upload-pages-artifact"]["with"]["path"] == "_site"  # build's default output

    runs = [step["run"].strip() for step in build_steps if "run" in step]
    build = [r for r in runs if "build.py build" in r]
    assert len(build) == 1
    # base_url from Pages (no trailing slash there), so links carry /REPO/ or nothing on a custom domain
    assert shlex.split(build[0])[-2:] == ["--base-url", "${{ steps.pages.outputs.base_url }}/"]
    ran = {re.sub(r'\s+--base-url\s+"[^"]*"', "", r) for r in runs}
    documented = readme_commands()
    assert ran <= documented, f"workflow commands not in README.md: {sorted(ran - documented)}"
    assert {"pip install -q -r requirements.txt", "npm ci", "python build.py build"} <= ran
    order = [next(i for i, s in enumerate(build_steps) if s.get("run", "").startswith(c))
             for c in ("pip install", "npm ci", "python build.py build")]
    assert order == sorted(order) and order[-1] > list(actions).index("actions/configure-pages")
