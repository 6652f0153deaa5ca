"""The preview server: lookups and live-reload state without sockets, then the
real server on 127.0.0.1 for traversal, disconnects, load, malformed requests,
Host names (DNS rebinding), escaped logs and the whole loop; then serve's options."""
from __future__ import annotations

import http.client
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import papersite.cli as cli_module
from papersite import parallel
from papersite.errors import Problem, SiteError
from papersite.pipeline import build_site
from papersite.preview.handler import make_server
from papersite.preview.hosts import HostFilter, exposure_warning
from papersite.preview.server import MAP_LANDED, Preview
from papersite.preview.state import LISTED_CHANGES, SiteState
from papersite.preview.terminal import printable, terminal_text
from papersite.preview.build_watch import watch_and_build
from papersite.preview.watch import ChangeQueue
from tests.conftest import ROOT, TinySite, paper_text

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
        "build": 0, "since": 0, "changed": None,
        "problems": [{"path": "content/x.md", "line": 3, "message": "invalid YAML"}]}
    state.publish(built, changed=frozenset())  # fixed, same output: overlay goes, no reload
    assert state.status() == start
    state.publish(built)  # anything may have changed
    assert json.loads(state.event()[6:]) == {"build": 1, "since": 0, "changed": None, "problems": []}
    state.publish(built, frozenset({"papers/b/index.html", "papers/a/index.html"}))
    assert json.loads(state.event()[6:]) == {
        "build": 2, "since": 1, "changed": ["papers/a/index.html", "papers/b/index.html"], "problems": []}
    state.publish(built, frozenset(f"papers/{n}/index.html" for n in range(LISTED_CHANGES + 1)))
    assert json.loads(state.event()[6:]) == {"build": 3, "since": 2, "changed": None, "problems": []}


def test_wait_for_change_wakes_on_publish_and_close(built):
    state = SiteState(built, "/", preview=True)
    seen = state.status()
    threading.Timer(0.05, state.publish, args=(built,)).start()
    assert state.wait_for_change(seen, timeout=60) != seen  # 60 s: a hang guard
    assert state.wait_for_change(state.status(), timeout=0.05) == state.status()  # timeout: unchanged
    threading.Timer(0.05, state.close).start()
    assert state.wait_for_change(state.status(), timeout=60) is None


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
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield state, httpd.server_address[1]
    state.close()
    httpd.shutdown()
    httpd.server_close()


def raw_get(port: int, target: str) -> bytes:
    """Send the request line as is: HTTP client libraries would normalise '..' away."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(f"GET {target} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
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
        conn = socket.create_connection(("127.0.0.1", port), timeout=60)
        conn.sendall(b"GET /catalog/big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert conn.recv(100).startswith(b"HTTP/1.0 200")
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, not FIN
        conn.close()
    events = socket.create_connection(("127.0.0.1", port), timeout=60)  # a tab closed mid-stream
    events.sendall(b"GET /catalog/__reload HTTP/1.1\r\nHost: localhost\r\n\r\n")
    received = b""
    while b"data:" not in received:
        received += events.recv(4096)
    events.close()
    state.publish(state.build)  # the server now writes to a closed stream
    status, body = get(port, "/catalog/papers/one/")
    assert status == 200 and b"First Title" in body


def test_the_pages_tabs_name_are_forgotten_once_their_streams_close(server):
    """Each tab's event stream names the page it shows (?page=); a name is not kept
    after its stream closes, however many distinct names come (issue 38 item 15)."""
    state, port = server
    for index in range(100):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as events:
            events.sendall(f"GET /catalog/__reload?page=papers/p{index}/index.html HTTP/1.1\r\n"
                           "Host: localhost\r\n\r\n".encode())
            received = b""
            while b"data:" not in received:
                received += events.recv(4096)
    state.close()  # the server's threads notice the closed streams
    deadline = time.monotonic() + 10
    while state.viewers and time.monotonic() < deadline:
        time.sleep(0.01)
    held = {name: len(value) for name, value in vars(state).items() if isinstance(value, (dict, set, list))}
    assert max(held.values()) < 10, held


def test_200_concurrent_requests_all_succeed(server):
    _, port = server
    paths = ["/catalog/", "/catalog/papers/one/", "/catalog/search/index.json", "/catalog/static/style.css"]
    results: list[int] = []
    barrier = threading.Barrier(200, timeout=60)

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
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/catalog/__reload")
    response = conn.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    assert read_event(response) == {"build": 0, "since": 0, "changed": None, "problems": []}
    state.fail(SiteError(Problem("site.yaml", 2, "bad")))
    assert read_event(response)["problems"][0]["line"] == 2
    state.publish(state.build, frozenset({"index.html"}))
    assert read_event(response) == {"build": 1, "since": 0, "changed": ["index.html"], "problems": []}
    conn.close()


def read_until(response, build: int) -> dict:
    """The events up to the one announcing `build` (the stream may skip those that came too fast)."""
    while (event := read_event(response))["build"] < build:
        pass
    return event


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
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/catalog/__reload")
        events = conn.getresponse()
        assert read_event(events)["build"] == 1

        tiny.paper("one", title="Second Title")
        # its own page first (build 2), then the whole site (build 3): the listings show the title too
        assert read_until(events, 3)["problems"] == []
        assert b"Second Title" in get(port, "/catalog/papers/one/")[1]
        assert b"Second Title" in get(port, "/catalog/papers/")[1]

        tiny.paper("one", title="Second Title", topics="[no-such-topic]")
        problems = read_event(events)["problems"]
        assert problems[0]["path"] == "content/icml-2024/one.md" and problems[0]["line"] == 7
        assert b"Second Title" in get(port, "/catalog/papers/one/")[1]  # the last good build

        tiny.paper("one", title="Third Title")  # no first look after a failed build: it may still be broken
        assert read_event(events)["build"] == 4
        conn.close()
        assert "initial build" in lines[0]
        assert any("content/icml-2024/one.md: 1 file shown first in" in line for line in lines)
        assert any("content/icml-2024/one.md: " in line and "files changed in" in line for line in lines)
        assert sum("shown first" in line for line in lines) == 1
        assert any("build failed" in line and "unknown topic" in line for line in lines)
    finally:
        preview.stop()


def test_the_preview_serves_an_edit_before_the_map_catches_up_then_the_map_build_makes(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # these few papers' layout gets a process, as 10,000 do
    site = TinySite(tmp_path / "site")
    for i in range(12):
        words = "Diffusion denoising of images by a score network" if i % 2 else "Regret of bandits exploring rewards"
        site.paper(f"p{i}", id=f"p{i}", title=f"Paper {i}", body=f"{words}, case {i}.")
    lines: list[str] = []
    preview = Preview(site.root / "site.yaml", None, "127.0.0.1", 0, log=lines.append)
    preview.start()
    try:
        port = preview.server.server_address[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/catalog/__reload")
        events = conn.getresponse()
        assert read_event(events)["build"] == 1
        before = get(port, "/catalog/map/points.json")[1]
        site.paper("p0", id="p0", title="Diffusion Models", body="Diffusion denoising of images by a score network.")
        assert read_until(events, 3)["build"] == 3  # the page first, then the site
        assert b"Diffusion Models" in get(port, "/catalog/papers/p0/")[1]
        meanwhile = json.loads(get(port, "/catalog/map/points.json")[1])
        assert (meanwhile["x"], meanwhile["y"]) == (json.loads(before)["x"], json.loads(before)["y"])
        deadline = time.monotonic() + 60
        while preview.rebuilder.cache.map.wanted is not None and time.monotonic() < deadline:
            time.sleep(0.01)  # the layout is being made (not read_event: it would wait for ever on a bug)
        while preview.state.status()[0] != 4 and time.monotonic() < deadline + 10:
            time.sleep(0.01)
        assert preview.state.status()[0] == 4
        landed = read_event(events)  # the map's exact layout, announced as a change of the map's files alone
        assert landed["build"] == 4 and landed["since"] == 3 and landed["changed"] == ["map/points.json"]
        clean, _ = site.build(tmp_path / "clean")
        assert get(port, "/catalog/map/points.json")[1] == clean.files["map/points.json"]
        assert any(line.split(" ", 1)[1].startswith(f"{MAP_LANDED}: 1 file changed") for line in lines)
        conn.close()
    finally:
        preview.stop()


def test_preview_escapes_what_the_sources_put_in_its_terminal_lines(tiny):
    lines: list[str] = []
    preview = Preview(tiny.root / "site.yaml", None, "127.0.0.1", 0, log=lines.append)
    preview.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", preview.server.server_address[1], timeout=60)
        conn.request("GET", "/catalog/__reload")
        events = conn.getresponse()
        read_event(events)
        tiny.write("content/icml-2024/one\x1b]0;pwned\x07\x1b[2J.md", paper_text(id="p2", topics="[nope]"))
        assert read_event(events)["problems"]
        conn.close()
        failed = next(line for line in lines if "build failed" in line)
        assert "\x1b" not in failed and "\x07" not in failed
        assert r"one\x1b]0;pwned\x07\x1b[2J.md" in failed and "unknown topic 'nope'" in failed
    finally:
        preview.stop()
    assert terminal_text("Théorie\n\u202eabc\t") == "Théorie\n\\u202eabc\\t"


def test_build_watch_writes_on_change(tiny, tmp_path):
    out, queue, lines, said = tmp_path / "out", ChangeQueue(), [], threading.Condition()

    def echo(line: str) -> None:
        with said:
            lines.append(line)
            said.notify_all()

    def wait_for_line(*parts: str) -> None:  # 60 s: a hang guard
        with said:
            assert said.wait_for(lambda: any(all(part in line for part in parts) for line in lines), 60), lines

    thread = threading.Thread(target=watch_and_build,
                              args=(tiny.root / "site.yaml", out, None, echo, queue), daemon=True)
    thread.start()
    wait_for_line("Watching ")  # built and written, and the watcher runs
    assert b"First Title" in (out / "papers/one/index.html").read_bytes()
    tiny.paper("one", title="Watched Title")
    wait_for_line("content/icml-2024/one.md: ", " written in ")  # a rebuild's line, once it has written
    assert b"Watched Title" in (out / "papers/one/index.html").read_bytes()
    queue.close()
    thread.join(60)
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
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/__reload")
        events = conn.getresponse()
        assert read_event(events)["build"] == 0
        tiny.paper("one", title="First Title")
        fixed = read_event(events)
        assert fixed["build"] == 1 and fixed["problems"] == [] and "papers/one/index.html" in fixed["changed"]
        conn.close()
        assert b"First Title" in get(port, "/catalog/papers/one/")[1]
    finally:
        preview.stop()


# --- malformed requests, Host names and logs, over raw sockets ------------------

@pytest.fixture(scope="module")
def logged_server(built):
    lines: list[str] = []
    state = SiteState(built, "/catalog/", preview=True)
    httpd = make_server(state, "127.0.0.1", 0, log=lines.append)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd.server_address[1], lines
    state.close()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def logged(logged_server):
    """A preview server, shared by the tests of this module, and the lines it logged in this test: (port, lines)."""
    logged_server[1].clear()
    return logged_server


def exchange(port: int, data: bytes, half_close: bool = False, family=socket.AF_INET,
             host: str = "127.0.0.1") -> bytes:
    """Send bytes as they are and read until the server closes (60 s at most: a hang guard)."""
    with socket.socket(family, socket.SOCK_STREAM) as conn:
        conn.settimeout(60)
        conn.connect((host, port))
        conn.sendall(data)
        if half_close:
            conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def status_of(response: bytes) -> int:
    assert response.startswith(b"HTTP/1.0 "), response[:80]
    return int(response.split(b" ", 2)[1])


def request(target: str = "/catalog/", host: str | None = "localhost", version: str = "HTTP/1.1",
            method: str = "GET", headers: str = "") -> bytes:
    host_line = f"Host: {host}\r\n" if host is not None else ""
    return f"{method} {target} {version}\r\n{host_line}{headers}\r\n".encode("latin-1")


TLS_CLIENT_HELLO = bytes.fromhex("160301020001000" "1fc0303") + bytes(32)  # no newline: it waits for a reply

MALFORMED = {
    "http2-preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    "http2-version": (request(version="HTTP/2.0"), 505),
    "http3-version": (request(version="HTTP/3"), 505),
    "version-9.9": (request(version="HTTP/9.9"), 505),
    "http0.9-version": (request(version="HTTP/0.9"), 505),
    "http0.9-simple-request": (b"GET /catalog/\r\n\r\n", 400),
    "version-1.1.1": (request(version="HTTP/1.1.1"), 400),
    "version-lowercase": (request(version="http/1.1"), 400),
    "version-not-http": (request(version="FOO/1.0"), 400),
    "garbage-line": (b"garbage\r\n\r\n", 400),
    "four-words": (b"GET /catalog/ HTTP/1.1 extra\r\nHost: localhost\r\n\r\n", 400),
    "double-space": (b"GET  /catalog/ HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    "empty-target": (b"GET  HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    "blank-lines-only": (b"\r\n\r\n", 400),
    "tls-client-hello": (TLS_CLIENT_HELLO, 400),
    "binary": (b"\x00\xff\xfe\x01\r\n\r\n", 400),
    "bad-method-token": (request(method="GE@T"), 400),
    "overlong-request-line": (request(target="/catalog/" + "a" * 70_000), 400),
    "overlong-header-line": (request(headers="X-Long: " + "a" * 70_000 + "\r\n"), 400),
    "too-many-headers": (request(headers="X-Many: 1\r\n" * 150), 400),
    "header-without-colon": (request(headers="this is not a header\r\n"), 400),
    "percent-not-hex": (request(target="/catalog/%zz"), 400),
    "percent-truncated": (request(target="/catalog/%4"), 400),
    "percent-at-end": (request(target="/catalog/papers/%"), 400),
    "percent-not-utf8": (request(target="/catalog/%ff%fe"), 400),
    "percent-overlong-utf8-dot": (request(target="/catalog/%c0%ae%c0%ae/secret.txt"), 400),
    "percent-nul": (request(target="/catalog/index.html%00.txt"), 400),
    "raw-nul": (b"GET /catalog/\x00 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    "percent-escape": (request(target="/catalog/%1b%5b31mred"), 400),
    "raw-escape": (b"GET /catalog/\x1b[31mred HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    "raw-non-ascii": ("GET /catalog/é HTTP/1.1\r\nHost: localhost\r\n\r\n".encode(), 400),
    "relative-target": (request(target="catalog/"), 400),
    "asterisk-target": (request(target="*"), 400),
    "ftp-target": (request(target="ftp://127.0.0.1/catalog/"), 400),
    "http11-without-host": (request(host=None), 400),
    "empty-host": (request(host=""), 400),
    "two-hosts": (request(headers="Host: localhost\r\n"), 400),
    "host-with-space": (request(host="local host"), 400),
    "host-with-userinfo": (request(host="me@localhost"), 400),
    "post": (request(method="POST", headers="Content-Length: 3\r\n") + b"abc", 501),
    "delete": (request(method="DELETE"), 501),
}


@pytest.mark.parametrize("data, expected", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_requests_get_an_error_status_and_the_server_keeps_serving(logged, capsys, data, expected):
    port, lines = logged
    response = exchange(port, data)
    # answered, not left to the server's 30 s timeout: that would give a 408, or no answer at all
    assert status_of(response) == expected
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"Content-Type: text/plain" in head and body.startswith(str(expected).encode())
    assert SECRET.encode() not in response
    reason = body.decode().split(": ", 1)[1].strip()  # "400 Bad Request: <reason>"
    assert lines[-1].endswith(f"-> {expected} {reason}")
    assert status_of(exchange(port, request())) == 200  # still serving
    assert "Traceback" not in capsys.readouterr().err


def test_a_client_that_keeps_sending_after_an_error_is_cut_off(logged):
    port, _ = logged
    cut_off = False
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(b"garbage\r\n")
        deadline = time.monotonic() + 60  # a hang guard: the server stops reading after 2 s
        received = b""
        try:
            while time.monotonic() < deadline:
                conn.sendall(b"x" * 1000)
                received += conn.recv(65536) if b"\r\n\r\n" not in received else b""
                time.sleep(0.05)
        except OSError:
            cut_off = True  # the server closed the connection: what should happen
    assert cut_off, "the server went on reading from a client that never stops sending"
    assert status_of(received) == 400


def test_a_huge_request_line_still_gets_its_400(logged):
    port, _ = logged
    response = exchange(port, request("/catalog/" + "a" * 20_000_000))
    assert status_of(response) == 400 and b"request line too long" in response


def test_a_bug_while_answering_gives_500_and_one_line(built, capsys, monkeypatch):
    lines: list[str] = []
    state = SiteState(built, "/catalog/", preview=True)
    httpd = make_server(state, "127.0.0.1", 0, log=lines.append)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        port = httpd.server_address[1]
        monkeypatch.setattr(state, "lookup", lambda path: 1 / 0)
        response = exchange(port, request("/catalog/papers/one/"))
        assert status_of(response) == 500 and b"ZeroDivisionError" in response
        monkeypatch.setattr(state, "lookup", lambda path: open("/nonexistent/preview.js", "rb"))
        assert status_of(exchange(port, request("/catalog/__preview.js"))) == 500
        monkeypatch.setattr(state, "event", lambda: 1 / 0)
        assert status_of(exchange(port, request("/catalog/__reload"))) == 200  # the stream had started
        monkeypatch.undo()
        assert status_of(exchange(port, request("/catalog/papers/one/"))) == 200
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert lines[0].endswith("-> 500 ZeroDivisionError: division by zero")
    assert "-> 500 FileNotFoundError: " in lines[1]
    assert lines[2] == "GET /catalog/__reload: ZeroDivisionError: division by zero"
    assert "Traceback" not in capsys.readouterr().err


def test_an_incomplete_request_line_gets_400(logged):
    port, _ = logged
    assert status_of(exchange(port, b"GET /catalog/ HTT", half_close=True)) == 400


def test_a_connection_closed_without_a_request_is_not_answered_or_logged(logged, capsys):
    port, lines = logged
    assert exchange(port, b"", half_close=True) == b""
    assert exchange(port, b"\r\n", half_close=True) == b""
    assert lines == [] and "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("host", [
    "localhost", "localhost:8000", "LOCALHOST", "localhost.", "localhost:", "127.0.0.1", "127.0.0.1:1",
    "127.8.9.10:80", "[::1]", "[::1]:8000", "[::ffff:127.0.0.1]:8000",
])
def test_loopback_host_names_are_served(logged, host):
    port, _ = logged
    response = exchange(port, request("/catalog/papers/one/", host=host))
    assert status_of(response) == 200 and b"First Title" in response


def test_an_http10_request_without_host_is_served(logged):
    port, _ = logged
    assert status_of(exchange(port, request(host=None, version="HTTP/1.0"))) == 200


REBINDING = ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io", "10.0.0.1",
             "192.168.1.20:8000", "[::2]", "[2001:db8::1]", "0.0.0.0", "127.1", "xn--localhost-", "localhost-"]


@pytest.mark.parametrize("host", REBINDING)
@pytest.mark.parametrize("target", ["/catalog/papers/one/", "/catalog/__reload", "/catalog/__preview.js",
                                    "/catalog/search/index.json"])
def test_other_host_names_are_refused(logged, host, target):
    """DNS rebinding: a page on evil.example, re-resolved to 127.0.0.1, sends Host: evil.example."""
    port, lines = logged
    for method in ("GET", "HEAD"):
        response = exchange(port, request(target, host=host, method=method))
        assert status_of(response) == 421
        assert b"First Title" not in response and b"data:" not in response and b"EventSource" not in response
    assert b"answers only to localhost, 127.0.0.1 and [::1]" in response or method == "HEAD"
    assert "-> 421" in lines[-1]


def test_an_absolute_form_target_must_name_this_machine_too(logged):
    port, _ = logged
    assert status_of(exchange(port, request("http://evil.example/catalog/"))) == 421
    assert status_of(exchange(port, request("http://localhost:1/catalog/", host="evil.example"))) == 421
    response = exchange(port, request("http://127.0.0.1/catalog/papers/one/"))
    assert status_of(response) == 200 and b"First Title" in response


def test_host_filter_for_other_listen_addresses():
    lan = HostFilter("192.0.2.5")
    assert lan.allows("192.0.2.5:8000") and lan.allows("localhost") and lan.allows("127.0.0.1")
    assert not lan.allows("192.0.2.6") and not lan.allows("evil.example")
    named = HostFilter("MyBox.lan")
    assert named.allows("mybox.lan:8000") and named.allows("mybox.lan.") and not named.allows("otherbox.lan")
    assert named.describe() == "localhost, 127.0.0.1, [::1] and mybox.lan"
    for every in (HostFilter("0.0.0.0"), HostFilter("::"), HostFilter("")):
        # an address cannot be rebound, so every address of every interface is fine; names are not
        assert every.allows("192.0.2.77:8000") and every.allows("[2001:db8::1]") and every.allows("localhost")
        assert every.allows(socket.gethostname()) and not every.allows("evil.example")
    ipv6 = HostFilter("2001:db8::5")
    assert ipv6.allows("[2001:db8::5]:8000") and not ipv6.allows("[2001:db8::6]")


def test_logs_escape_control_characters(logged):
    port, lines = logged
    nasty = [
        b"GET /catalog/\x1b[2J\x1b]0;pwned\x07 HTTP/1.1\r\nHost: localhost\r\n\r\n",  # raw escapes: 400
        request("/catalog/%1b[2J%07"),  # decoded escapes: 400
        request("/catalog/nowhere/%E2%80%AEtxt.exe"),  # right-to-left override: a 404, logged encoded
        b"\x1b[31mGET / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\x9b31m\r\n\r\n",
        request(host="evil.example", headers="X: \x1b[2J\r\n"),
        request("http://evil\x7f.example/"),
        b"GET /\xe2\x80\xae HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ]
    for data in nasty:
        status_of(exchange(port, data))
    assert len(lines) == len(nasty)
    for line in lines:
        assert line.isascii() and line.isprintable(), repr(line)
    assert r"\x1b[2J" in lines[0] and r"\x9b31m" in lines[4]


def test_long_request_lines_are_cut_in_the_log(logged):
    port, lines = logged
    status_of(exchange(port, request("/catalog/" + "a" * 5000)))
    assert len(lines[-1]) < 400 and "..." in lines[-1]


def test_printable():
    assert printable("GET /\x1b[31m\x00\x9b\u202e\u200b") == r"GET /\x1b[31m\x00\x9b\u202e\u200b"
    assert printable(b"\xff\x07ok") == r"\xff\x07ok"
    assert printable("a" * 300, limit=10) == "a" * 10 + "..."


def test_ipv6_loopback(built):
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        httpd = make_server(SiteState(built, "/catalog/"), "::1", 0, log=lambda line: None)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        port = httpd.server_address[1]
        response = exchange(port, request("/catalog/papers/one/", host=f"[::1]:{port}"), family=socket.AF_INET6,
                            host="::1")
        assert status_of(response) == 200 and b"First Title" in response
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- serve's options ----------------------------------------------------------

@pytest.mark.parametrize("port", ["70000", "-1", "65536", "abc", "8000.5", ""])
def test_serve_refuses_a_bad_port_in_one_line(tiny, port):
    result = CliRunner().invoke(cli_module.cli, ["serve", "--port", port, "--config", str(tiny.root / "site.yaml")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output == f"Error: --port must be a whole number from 0 to 65535, not '{port}'\n"


def test_serve_on_a_port_in_use_says_so(tiny):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, str(ROOT / "build.py"), "serve", "--port", str(port),
                               "--config", str(tiny.root / "site.yaml")],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == (f"Error: cannot listen on 127.0.0.1:{port}: Address already in use "
                           f"(another preview? --port {port + 1} or --port 0 picks another)\n")


def test_serve_without_a_site_yaml_says_so(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "serve", "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == "Error: site.yaml: not found: create a site.yaml (see README.md)\n"


def test_serve_on_an_unknown_host_says_so(tiny):
    result = CliRunner().invoke(cli_module.cli, ["serve", "--host", "no-such-host.invalid", "--port", "0",
                                                 "--config", str(tiny.root / "site.yaml")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output.splitlines()[-1].startswith("Error: cannot listen on no-such-host.invalid:0: ")


def test_a_first_look_waits_for_a_tab_showing_the_page_to_load_it_and_no_longer(built, monkeypatch):
    state = SiteState(built, "/catalog/", preview=True)
    page, other = "papers/a/index.html", "papers/b/index.html"
    waits, entered = [], threading.Event()  # the state's waits on its condition, and how each ended
    wait_for = state.lock.wait_for

    def recorded(predicate, timeout=None):
        entered.set()
        waits.append({"timeout": timeout})
        waits[-1]["met"] = wait_for(predicate, timeout)  # True: the predicate held; False: the time ran out
        return waits[-1]["met"]

    monkeypatch.setattr(state.lock, "wait_for", recorded)
    state.publish_and_settle(built, frozenset({page}), limit=5)
    assert waits == []  # no tab shows it: nothing to wait for

    done = threading.Event()

    def settle(limit: float) -> None:
        state.publish_and_settle(built, frozenset({page}), limit=limit)
        done.set()

    with state.viewing(page), state.viewing(other):
        waiting = threading.Thread(target=settle, args=(60,))  # 60 s: a hang guard, never reached
        waiting.start()
        assert entered.wait(60)  # it waits for the tab
        assert not done.wait(0.3)  # the tab has not reloaded yet
        with state.viewing(other):
            assert not done.wait(0.2)  # another page's tab is not the one
        with state.viewing(page):  # the tab, reloaded, opens its stream again
            assert done.wait(60)
        waiting.join()
        assert waits == [{"timeout": 60, "met": True}]  # ended by the tab, not by the limit
        settle(0.01)  # the tab never comes back: the limit ends the wait
        assert waits[1:] == [{"timeout": 0.01, "met": False}]
    assert state.viewers == {}
