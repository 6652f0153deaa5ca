"""The preview server: lookups and live-reload state without sockets, then the
real server on 127.0.0.1 for traversal, disconnects, load and the whole loop."""
from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time
from dataclasses import replace

import pytest
from click.testing import CliRunner

import build as cli_module
from papersite.errors import Problem, SiteError
from papersite.pipeline import build_site
from papersite.serve import Preview, SiteState, exposure_warning, make_server
from papersite.watch import ChangeQueue, watch_and_build
from tests.conftest import TinySite

SECRET = "TOP-SECRET-OUTSIDE-THE-SITE"


@pytest.fixture
def tiny(site):
    site.paper("one", title="First Title")
    site.write("secret.txt", SECRET)  # next to site.yaml, outside the built site
    return site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One tiny site built once; tests must not change it."""
    site = TinySite(tmp_path_factory.mktemp("served") / "site")
    site.paper("one", title="First Title")
    site.write("secret.txt", SECRET)
    return build_site(site.config)


# --- lookups, no sockets -----------------------------------------------------

def test_serves_under_the_base_path(built):
    state = SiteState(built, "/catalog/")
    status, kind, body = state.lookup("/catalog/papers/one/")
    assert status == 200 and kind.startswith("text/html") and b"First Title" in body
    assert state.lookup("/catalog")[:2] == (301, "/catalog/")
    assert state.lookup("/catalog/papers/one")[:2] == (301, "/catalog/papers/one/")
    assert state.lookup("/papers/one/")[0] == 404


@pytest.mark.parametrize("path", [
    "/catalog/../secret.txt", "/catalog/../../etc/passwd", "/catalog/%2e%2e/secret.txt",
    "/catalog/%2E%2E/%2e%2e/etc/passwd", "/catalog/papers%2f..%2f..%2fsecret.txt",
    "/catalog/papers/..%2f..%2fsecret.txt", "/catalog/..%5csecret.txt", "/catalog/%252e%252e/secret.txt",
    "/catalog/secret.txt%00.html", "/catalog//etc/passwd", "/secret.txt", "/catalog/site.yaml",
])
def test_traversal_is_refused(built, path):
    state = SiteState(built, "/catalog/", preview=True)
    status, _, body = state.lookup(path)
    assert status == 404 and SECRET.encode() not in body


def test_preview_injects_the_script_only_into_served_html(built):
    plain = SiteState(built, "/catalog/")
    preview = SiteState(built, "/catalog/", preview=True)
    assert b"__preview" not in plain.lookup("/catalog/papers/one/")[2]
    page = preview.lookup("/catalog/papers/one/")[2]
    assert b'<script src="/catalog/__preview.js" data-build="0" defer></script></head>' in page
    assert b'<link rel="stylesheet" href="/catalog/__preview.css">' in page
    assert b"__preview" in preview.lookup("/catalog/nowhere/")[2]  # the 404 page too
    assert b"__preview" not in preview.lookup("/catalog/search/index.json")[2]
    assert not any(b"__preview" in data for data in built.files.values())  # never in built files


def test_preview_assets(built):
    state = SiteState(built, "/catalog/", preview=True)
    status, kind, body = state.lookup("/catalog/__preview.js")
    assert status == 200 and kind.startswith("text/javascript") and b"EventSource" in body
    assert state.lookup("/catalog/__preview.css")[1].startswith("text/css")
    assert SiteState(built, "/catalog/").lookup("/catalog/__preview.js")[0] == 404  # not outside preview


def test_not_built_yet_page(tmp_path):
    state = SiteState(None, "/", preview=True)
    status, _, body = state.lookup("/anything/")
    assert status == 503 and b"__preview.js" in body


def test_publish_and_fail_drive_the_status(built):
    state = SiteState(built, "/catalog/", preview=True)
    start = state.status()
    state.fail(SiteError(Problem("content/x.md", 3, "invalid YAML")))
    assert json.loads(state.event()[6:]) == {
        "build": 0, "problems": [{"path": "content/x.md", "line": 3, "message": "invalid YAML"}]}
    state.publish(built, changed=False)  # fixed, same output: overlay goes, no reload
    assert state.status() == start
    state.publish(built)
    assert json.loads(state.event()[6:]) == {"build": 1, "problems": []}


def test_wait_for_change_wakes_on_publish_and_close(built):
    state = SiteState(built, "/", preview=True)
    seen = state.status()
    threading.Timer(0.05, state.publish, args=(built,)).start()
    assert state.wait_for_change(seen, timeout=5) != seen
    assert state.wait_for_change(state.status(), timeout=0.05) == state.status()  # timeout: unchanged
    threading.Timer(0.05, state.close).start()
    assert state.wait_for_change(state.status(), timeout=5) is None


def test_exposure_warning():
    assert exposure_warning("127.0.0.1") is None and exposure_warning("localhost") is None
    assert "other machines" in exposure_warning("0.0.0.0")


def test_cli_binds_loopback_by_default_and_warns_otherwise(monkeypatch, tiny):
    started = []

    class FakePreview:
        def __init__(self, config_path, base_url, host, port, log):
            started.append((host, port))

        def serve_forever(self, open_browser=False):
            pass

    monkeypatch.setattr(cli_module, "Preview", FakePreview)
    runner = CliRunner()
    result = runner.invoke(cli_module.cli, ["serve", "--config", str(tiny.root / "site.yaml")])
    assert result.exit_code == 0 and started[-1] == ("127.0.0.1", 8000) and "warning" not in result.output
    result = runner.invoke(cli_module.cli, ["serve", "--host", "0.0.0.0", "--config", str(tiny.root / "site.yaml")])
    assert started[-1][0] == "0.0.0.0" and "other machines can reach this preview" in result.output


# --- the real server on 127.0.0.1 -------------------------------------------

@pytest.fixture
def server(built):
    # big.bin: large enough that a response cannot fit in the socket buffers
    state = SiteState(replace(built, files={**built.files, "big.bin": b"x" * 8_000_000}), "/catalog/", preview=True)
    httpd = make_server(state, "127.0.0.1", 0, log=lambda line: None)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state, httpd.server_address[1]
    state.close()
    httpd.shutdown()
    httpd.server_close()


def raw_get(port: int, target: str) -> bytes:
    """Send the request line as is: HTTP client libraries would normalise '..' away."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"GET {target} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("target", [
    "/catalog/../secret.txt", "/catalog/%2e%2e/secret.txt", "/catalog/%2e%2e%2fsecret.txt",
    "/catalog/papers%2f..%2f..%2fsecret.txt", "http://127.0.0.1/catalog/../secret.txt", "/../../../etc/passwd",
])
def test_server_refuses_traversal(server, target):
    _, port = server
    response = raw_get(port, target)
    assert response.startswith(b"HTTP/1.0 404") and SECRET.encode() not in response
    assert b"root:" not in response


def test_a_client_that_disconnects_mid_response_does_not_hurt(server):
    state, port = server
    for _ in range(5):
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn.sendall(b"GET /catalog/big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert conn.recv(100).startswith(b"HTTP/1.0 200")
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, not FIN
        conn.close()
    events = socket.create_connection(("127.0.0.1", port), timeout=5)  # a tab closed mid-stream
    events.sendall(b"GET /catalog/__reload HTTP/1.1\r\nHost: localhost\r\n\r\n")
    received = b""
    while b"data:" not in received:
        received += events.recv(4096)
    events.close()
    state.publish(state.build)  # the server now writes to a closed stream
    status, body = get(port, "/catalog/papers/one/")
    assert status == 200 and b"First Title" in body


def test_200_concurrent_requests_all_succeed(server):
    _, port = server
    paths = ["/catalog/", "/catalog/papers/one/", "/catalog/search/index.json", "/catalog/static/style.css"]
    results: list[int] = []
    barrier = threading.Barrier(200, timeout=30)

    def client(index: int) -> None:
        barrier.wait()  # all at once
        status, body = get(port, paths[index % len(paths)])
        results.append(status if body else 0)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results.count(200) == 200


def test_event_stream_sends_status_then_changes(server):
    state, port = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/catalog/__reload")
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    assert read_event(response) == {"build": 0, "problems": []}
    state.fail(SiteError(Problem("site.yaml", 2, "bad")))
    assert read_event(response)["problems"][0]["line"] == 2
    state.publish(state.build)
    assert read_event(response) == {"build": 1, "problems": []}
    conn.close()


def read_event(response) -> dict:
    while True:
        line = response.fp.readline().decode()
        if line.startswith("data: "):
            return json.loads(line[6:])


# --- the whole loop: watch, rebuild, publish -----------------------------------

def test_preview_rebuilds_keeps_the_last_good_build_and_reports(tiny):
    lines: list[str] = []
    preview = Preview(tiny.root / "site.yaml", None, "127.0.0.1", 0, log=lines.append)
    preview.start()
    try:
        port = preview.server.server_address[1]
        assert preview.url.endswith("/catalog/")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/catalog/__reload")
        events = conn.getresponse()
        assert read_event(events)["build"] == 1

        tiny.paper("one", title="Second Title")
        assert read_event(events) == {"build": 2, "problems": []}
        assert b"Second Title" in get(port, "/catalog/papers/one/")[1]

        tiny.paper("one", title="Second Title", topics="[no-such-topic]")
        problems = read_event(events)["problems"]
        assert problems[0]["path"] == "content/icml-2024/one.md" and problems[0]["line"] == 7
        assert b"Second Title" in get(port, "/catalog/papers/one/")[1]  # the last good build

        tiny.paper("one", title="Third Title")
        assert read_event(events) == {"build": 3, "problems": []}
        conn.close()
        assert "initial build" in lines[0]
        assert any("content/icml-2024/one.md: " in line and "files changed in" in line for line in lines)
        assert any("build failed" in line and "unknown topic" in line for line in lines)
    finally:
        preview.stop()


def test_build_watch_writes_on_change(tiny, tmp_path):
    out, queue, lines = tmp_path / "out", ChangeQueue(), []
    thread = threading.Thread(target=watch_and_build,
                              args=(tiny.root / "site.yaml", out, None, lines.append, queue), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not (out / "papers/one/index.html").exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.3)  # the watcher is running
    tiny.paper("one", title="Watched Title")
    while b"Watched Title" not in (out / "papers/one/index.html").read_bytes():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    queue.close()
    thread.join(5)
    assert not thread.is_alive()
    assert any("files written in" in line for line in lines)


def test_preview_starts_even_when_the_first_build_fails(tiny):
    tiny.paper("one", title="First Title", topics="[no-such-topic]")
    lines: list[str] = []
    preview = Preview(tiny.root / "site.yaml", None, "127.0.0.1", 0, log=lines.append)
    preview.start()
    try:
        port = preview.server.server_address[1]
        status, body = get(port, "/")
        assert status == 503 and b"__preview.js" in body  # the overlay script shows the problem
        assert preview.state.problems[0]["path"] == "content/icml-2024/one.md"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/__reload")
        events = conn.getresponse()
        assert read_event(events)["build"] == 0
        tiny.paper("one", title="First Title")
        assert read_event(events) == {"build": 1, "problems": []}
        conn.close()
        assert b"First Title" in get(port, "/catalog/papers/one/")[1]
    finally:
        preview.stop()
