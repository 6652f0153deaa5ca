"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

Find the browser in this order: $CHROMIUM_PATH, `chromium` on PATH, then
Playwright's own download (a laptop). Each test page records console errors
and page errors; tests assert that a session logs none.
"""
from __future__ import annotations

import os
import shutil
import threading

import pytest
from playwright.sync_api import sync_playwright

from papersite.preview.handler import make_server
from papersite.preview.state import SiteState

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or \
        (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh page; `page.console_errors` lists every error the page logged."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    yield page
    context.close()


class Served:
    """A Build served from memory on 127.0.0.1 under its base path."""

    def __init__(self, build, base_path: str):
        self.state = SiteState(build, base_path)
        self.server = make_server(self.state, "127.0.0.1", 0, log=lambda line: None)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.url = self.origin + base_path

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def served_bundled(bundled):
    """The bundled catalog, built once and served for the whole session."""
    _, _, build = bundled
    served = Served(build, build.catalog.config.base_path)
    yield served
    served.close()


@pytest.fixture
def serve_build():
    """Serve other builds (e.g. a tiny site) for one test: `served = serve_build(build)`."""
    started = []

    def serve(build):
        served = Served(build, build.catalog.config.base_path)
        started.append(served)
        return served

    yield serve
    for served in started:
        served.close()
