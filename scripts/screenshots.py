#!/usr/bin/env python3
"""Screenshots of every page kind, phone and desktop, light and dark.

    .venv/bin/python scripts/screenshots.py [OUT_DIR]     (default: /tmp/papersite-shots)

Builds the bundled catalog in memory, serves it on a free loopback port and
drives Debian's Chromium with Playwright. For looking at the site, not a test.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papersite.source.config import load_config  # noqa: E402
from papersite.pipeline import build_site  # noqa: E402
from papersite.preview.handler import make_server  # noqa: E402
from papersite.preview.state import SiteState  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    config = load_config(ROOT / "site.yaml")
    build = build_site(config)
    catalog = build.catalog
    server = make_server(SiteState(build, config.base_path), "127.0.0.1", 0, log=lambda line: None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}{config.base_path}"
    paper = next((p for p in catalog.papers if "$" in p.abstract), catalog.papers[0])
    pages = {
        "home": "", "paper": f"papers/{paper.slug}/", "venue": f"venues/{catalog.venues[0].slug}/",
        "topic": f"topics/{catalog.topics[0].slug}/", "papers": "papers/", "topics": "topics/",
        "search": "search/?q=diffusion", "404": "no-such-page/",
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        for scheme in ("light", "dark"):
            for width_name, (width, height) in WIDTHS.items():
                context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
                page = context.new_page()
                for name, path in pages.items():
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    target = out / f"{name}-{width_name}-{scheme}.png"
                    page.screenshot(path=str(target), full_page=name != "papers")
                    print(target)
                context.close()
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/papersite-shots"))
