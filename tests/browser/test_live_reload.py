"""Live reload in real Chromium: the preview server, its watcher and the injected script.

The server runs in this process (port 0) on a tiny site in a temp folder;
every change is made on disk, as an author's editor would.
"""
from __future__ import annotations

import time

import pytest
from playwright.sync_api import Error as PlaywrightError, expect

from papersite.preview.server import Preview


@pytest.fixture
def preview(site):
    site.paper("one", title="Original Title")
    site.paper("two", id="p2", title="Another Paper")
    preview = Preview(site.root / "site.yaml", None, "127.0.0.1", 0, log=lambda line: None)
    preview.start()
    yield site, preview
    preview.stop()


def test_edit_reloads_break_shows_overlay_fix_clears_it(preview, page):
    site, server = preview
    page.goto(server.url + "papers/one/")
    expect(page.locator("h1")).to_have_text("Original Title")
    expect(page.locator("#papersite-preview-error")).to_have_count(0)
    expect(page.locator("html[data-preview-connected]")).to_have_count(1)  # the event stream is open

    site.paper("one", title="Edited On Disk")
    expect(page.locator("h1")).to_have_text("Edited On Disk", timeout=60_000)

    site.write("content/icml-2024/one.md", "---\nid: p1\ntitle: [unclosed\nvenue: icml-2024\n---\nText.\n")
    overlay = page.locator("#papersite-preview-error")
    expect(overlay).to_be_visible(timeout=60_000)
    expect(overlay).to_contain_text("content/icml-2024/one.md:")
    expect(overlay).to_contain_text("invalid YAML")
    expect(page.locator("h1")).to_have_text("Edited On Disk")  # still the last good build

    site.paper("one", title="Fixed Again")
    expect(page.locator("h1")).to_have_text("Fixed Again", timeout=60_000)
    expect(overlay).to_have_count(0)
    assert page.console_errors == []  # the script and style pass the pages' CSP


def test_overlay_shows_on_every_page_and_escapes_messages(preview, page):
    site, server = preview
    page.goto(server.url)
    expect(page.locator("html[data-preview-connected]")).to_have_count(1)
    site.paper("two", id="p2", title="Another Paper", topics="['<img src=x onerror=alert(1)>']")
    overlay = page.locator("#papersite-preview-error")
    expect(overlay).to_contain_text("content/icml-2024/two.md:7", timeout=60_000)
    expect(overlay).to_contain_text("unknown topic '<img src=x onerror=alert(1)>'")  # shown as text
    assert overlay.locator("img").count() == 0

    page.goto(server.url + "papers/")  # another page, opened while the build is broken
    expect(page.locator("#papersite-preview-error")).to_contain_text("unknown topic", timeout=60_000)

    site.paper("two", id="p2", title="Another Paper")
    expect(page.locator("#papersite-preview-error")).to_have_count(0, timeout=60_000)
    assert page.console_errors == []


def test_a_tab_reloads_only_when_its_page_or_a_file_it_loaded_changed(preview, browser):
    site, server = preview
    context = browser.new_context()
    try:
        edited, other = context.new_page(), context.new_page()
        edited.goto(server.url + "papers/one/")
        other.goto(server.url + "topics/")  # shows no title: an edit to one leaves it as it is
        for tab in (edited, other):
            expect(tab.locator("html[data-preview-connected]")).to_have_count(1)
        other.evaluate("window.stayed = true")
        # each tab's stream says which page it shows: a first look waits for that page's tab
        assert {"papers/one/index.html", "topics/index.html"} <= server.state.viewers.keys()
        before = server.state.status()[0]

        site.paper("one", title="Edited On Disk")
        expect(edited.locator("h1")).to_have_text("Edited On Disk", timeout=60_000)
        # the first look (its page alone), then the rebuild (listings, feeds, search...)
        deadline = time.monotonic() + 60  # a hang guard: it takes well under a second
        while server.state.status()[0] < before + 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        expect(other.locator(f"html[data-preview-build='{before + 2}']")).to_have_count(1, timeout=60_000)
        assert other.evaluate("window.stayed") is True  # told of both builds, and not reloaded
        expect(edited.locator("h1")).to_have_text("Edited On Disk")

        site.write("static/style.css", "body { color: rebeccapurple; }\n")  # every page loads it
        deadline = time.monotonic() + 60  # a hang guard; not wait_for_function: the pages' CSP forbids its eval
        while stayed(other):
            assert time.monotonic() < deadline, "the tab did not reload"
            time.sleep(0.05)
        expect(other.locator("body")).to_have_css("color", "rgb(102, 51, 153)")
    finally:
        context.close()


def stayed(tab) -> bool:
    """Whether the tab still has the mark set before the change (a reload loses it)."""
    try:
        return tab.evaluate("window.stayed") is True
    except PlaywrightError:  # caught mid-reload: its page is going away
        return True
