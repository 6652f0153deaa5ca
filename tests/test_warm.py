"""The warm process (papersite/engine/warm.py): the next `build` is made by the last one's
process, gives the bytes a clean build gives, fails as a cold build fails, and leaves nothing
running once its cache is gone. Every build here is the real command in a process of its own."""
from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from papersite.engine import warm
from papersite.engine.store import Fingerprint, wait_for_saver
from tests.conftest import ROOT, TinySite, paper_text

# Kept warm whatever the catalog's size, for a minute at most (each test ends it sooner)
COLD_ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERSITE_WARM": "0"}
WARM_ENV = {**COLD_ENV, "PAPERSITE_WARM_FROM": "0", "PAPERSITE_WARM": "1"}
# Runs the command, then says which rendering libraries the command's own process loaded
COMMAND = ("import sys; from papersite.cli import cli\n"
           "try:\n    cli(['build', '-q', '--config', sys.argv[1], *sys.argv[2:]])\n"
           "except SystemExit as end:\n    code = end.code or 0\n"
           "print('loaded:', sorted(m for m in ('jinja2', 'markdown') if m in sys.modules))\n"
           "sys.exit(code)")


# The same, with the output surveyed apart however few its files (as a large site's is): the warm
# process then keeps a fresh interpreter ready for the next build's survey
COMMAND_APART = ("import papersite.engine.output, papersite.parallel\n"
                 "papersite.engine.output.SURVEY_APART_FROM = 0; papersite.parallel.MIN_ITEMS = 1\n" + COMMAND)


def build(site: TinySite, *options: str, env: dict | None = None, command: str = COMMAND) -> subprocess.CompletedProcess:
    """`build` in a process of its own, waiting for its session to be saved. Its output is read to
    the end: a process it leaves running with it (the warm one, a worker) would hold it open."""
    done = subprocess.run([sys.executable, "-c", command, str(site.root / "site.yaml"), *options], cwd=site.root,
                          env=env or WARM_ENV, capture_output=True, text=True, timeout=120)
    wait_for_saver(site.root)
    return done


def handed_over(done: subprocess.CompletedProcess) -> bool:
    """Whether the warm process made that build: the command then loaded no rendering library."""
    assert done.stdout.strip().endswith("]"), done.stdout + done.stderr
    return done.stdout.strip().endswith("loaded: []")


def clean_tree(site: TinySite, tmp_path: Path, step: str) -> dict[str, bytes]:
    out = tmp_path / f"clean-{step}"
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "-q", "--clean", "--config",
                           str(site.root / "site.yaml"), "-o", str(out)], cwd=site.root,
                          env=COLD_ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return tree(out)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def warm_pid(root: Path) -> int | None:
    """The warm process's pid, as its socket tells it (None: none listening)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(warm.socket_path(root)))
        credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return struct.unpack("3i", credentials)[0]
    except OSError:
        return None
    finally:
        conn.close()


def gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if not running(pid):  # a zombie: ended, not yet reaped
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def catalog(site: TinySite):
    for n in range(8):
        site.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n} on generalization",
                   body=f"We study generalization bounds {n} with $x^{n}$ and diffusion models.")
    yield site
    pid = warm_pid(site.root)
    try:
        warm.socket_path(site.root).unlink()
    except OSError:
        pass
    if pid is not None:
        assert gone(pid), "the warm process did not end once its socket was removed"


def test_builds_after_edits_are_made_warm_and_equal_clean_builds(catalog, tmp_path):
    first = build(catalog)
    assert first.returncode == 0 and not handed_over(first), first.stderr
    assert warm_pid(catalog.root) is not None
    edits = [("paper-2", dict(id="p2", title="Paper 2 on generalization", body="A new abstract on bandits.")),
             ("paper-5", dict(id="p5", title="Paper 5, retitled", body="We study diffusion models.")),
             ("paper-9", dict(id="p9", title="A new paper on kernels", body="Kernels and generalization.")),
             ("paper-2", dict(id="p2", title="Paper 2 on generalization", body="Bandits, again $y^2$."))]
    for step, (name, fields) in enumerate(edits):
        catalog.paper(name, **fields)
        done = build(catalog)
        assert done.returncode == 0, done.stderr
        assert handed_over(done), f"edit {step}: built cold"
        assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, str(step)), f"edit {step}"
    (catalog.root / "content" / "icml-2024" / "paper-3.md").unlink()
    done = build(catalog)
    assert done.returncode == 0 and handed_over(done), done.stderr
    assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, "removed")
    assert not (catalog.root / "_site" / "papers" / "paper-3").exists()
    assert working_in(catalog.root) == [warm_pid(catalog.root)]  # each took the last one's place



def test_the_output_surveyed_apart_by_a_spare_made_ready_between_builds_that_holds_no_terminal(catalog, tmp_path):
    first = build(catalog, command=COMMAND_APART)
    assert first.returncode == 0 and not handed_over(first), first.stderr
    pid = warm_pid(catalog.root)
    # made once the warm process holds no terminal, after the session is saved (with the map's: see
    # test_build_cache's test_a_warm_builds_layout_ahead_is_made_in_the_spare_interpreter_started_between_builds)
    spares = spares_within(pid, "papersite.engine.output")
    # its stdin and stdout are pipes to the warm process; its stderr is not the command's
    assert len(spares) == 1 and os.readlink(f"/proc/{spares[0]}/fd/2") == "/dev/null"
    for step, body in enumerate(["Surveyed apart.", "Again, surveyed apart."]):
        catalog.paper("paper-2", id="p2", title="Paper 2", body=body)
        done = build(catalog, command=COMMAND_APART)
        assert done.returncode == 0 and handed_over(done), done.stderr
        assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, str(step))
        assert gone(spares[0])  # the last one surveyed, and ended
        spares = spares_within(pid, "papersite.engine.output")  # the next one's, made once the build is answered
        assert len(spares) == 1
    (catalog.root / "_site" / "papers" / "paper-2" / "index.html").unlink()  # by hand: seen by the survey apart
    catalog.paper("paper-5", id="p5", title="Paper 5", body="Edited once more.")
    done = build(catalog, command=COMMAND_APART)
    assert done.returncode == 0 and handed_over(done), done.stderr
    assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, "by hand")


def children(pid: int) -> list[int]:
    """The running processes whose parent is `pid`."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.append(int(name))
    return found


def spares_within(pid: int, module: str, within: float = 10.0) -> list[int]:
    """The spare interpreters of process `pid` that import `module` while they wait, once there is
    one (or `within` seconds have passed)."""
    def spares() -> list[int]:
        found = []
        for child in children(pid):
            try:
                with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                    if module.encode() in cmdline.read().split(b"\0"):
                        found.append(child)
            except OSError:
                continue
        return found
    deadline = time.monotonic() + within
    while not (found := spares()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def running(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def working_in(folder: Path) -> list[int]:
    """The processes whose working folder is `folder` (once those that ended are gone)."""
    time.sleep(0.5)
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.readlink(f"/proc/{name}/cwd") == str(folder) and running(int(name)):
                found.append(int(name))
        except OSError:
            continue
    return found


def test_a_broken_edit_fails_as_a_cold_build_fails_and_the_next_build_is_warm(catalog, tmp_path):
    assert build(catalog).returncode == 0
    before = tree(catalog.root / "_site")
    catalog.write("content/icml-2024/paper-4.md", "---\nid: p4\ntitle: [unclosed\n---\nBody.\n")
    done = build(catalog)
    assert done.returncode == 1 and handed_over(done)
    assert "paper-4.md" in done.stderr and "Traceback" not in done.stderr
    assert tree(catalog.root / "_site") == before
    catalog.paper("paper-4", id="p4", title="Paper 4, mended", body="Mended.")
    done = build(catalog)
    assert done.returncode == 0 and handed_over(done), done.stderr
    assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, "mended")


def test_files_changed_by_hand_in_the_output_are_seen_by_a_warm_build(catalog, tmp_path):
    """A warm build compares its files with the output as it left it, not waiting for the output to
    be listed: a page deleted or edited by hand since is written again all the same, and a file no
    build wrote stops the build as it stops a cold one."""
    assert build(catalog).returncode == 0
    site = catalog.root / "_site"
    (site / "static" / "map.js").unlink()  # files the edit below leaves as they were
    style = site / "static" / "style.css"
    style.write_bytes(style.read_bytes().replace(b"}", b"} ", 1))
    catalog.paper("paper-1", id="p1", title="Paper 1, edited", body="Edited.")
    done = build(catalog)
    assert done.returncode == 0 and handed_over(done), done.stderr
    assert tree(site) == clean_tree(catalog, tmp_path, "restored")
    (site / "notes.txt").write_text("mine\n")
    catalog.paper("paper-1", id="p1", title="Paper 1, edited again", body="Edited again.")
    before = tree(site)
    done = build(catalog)
    assert done.returncode == 1 and handed_over(done)
    assert "notes.txt" in done.stderr and "Traceback" not in done.stderr
    assert tree(site) == before


def test_what_the_command_says_is_what_a_cold_build_says(catalog):
    assert build(catalog).returncode == 0
    catalog.paper("paper-1", id="p1", title="Paper 1, edited", body="Edited.")
    command = [sys.executable, str(ROOT / "build.py"), "build", "--config", str(catalog.root / "site.yaml")]
    said = subprocess.run(command, cwd=catalog.root, env=WARM_ENV, capture_output=True, text=True, timeout=120)
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("Built 8 papers,") and " 0 removed, " in said.stdout, said.stdout
    catalog.write("content/icml-2024/paper-1.md", "no front matter at all\n")
    said = subprocess.run(command, cwd=catalog.root, env=WARM_ENV, capture_output=True, text=True, timeout=120)
    cold = subprocess.run(command, cwd=catalog.root, env=COLD_ENV,
                          capture_output=True, text=True, timeout=120)
    assert said.returncode == cold.returncode == 1
    assert said.stderr == cold.stderr and "paper-1.md" in said.stderr


def test_a_build_of_another_engine_or_folder_is_never_handed_over(catalog, monkeypatch):
    assert build(catalog).returncode == 0
    pid = warm_pid(catalog.root)
    assert pid is not None
    now = Fingerprint({}, "key", "another engine")
    monkeypatch.setenv("PAPERSITE_WARM", "1")  # this process asks too: on a CI runner (CI set) it would not
    monkeypatch.chdir(catalog.root.parent)  # another working folder: declined, and it stays
    asked = {"config_path": "site/site.yaml", "output": "site/_site", "base_url": None}
    assert warm.hand_over(catalog.root, Fingerprint({}, "key", _engine_of(catalog)), asked, print, None) is None
    assert warm_pid(catalog.root) == pid
    monkeypatch.chdir(catalog.root)  # another engine: declined, and it ends (it is of the old one)
    assert warm.hand_over(catalog.root, now, {**asked, "config_path": "site.yaml"}, print, None) is None
    assert gone(pid)


def _engine_of(site: TinySite) -> str:
    from papersite.engine.store import fingerprint
    return fingerprint(site.root / "site.yaml", (None, None)).engine


def test_removing_the_cache_ends_the_warm_process_and_the_next_build_is_cold(catalog):
    assert build(catalog).returncode == 0
    pid = warm_pid(catalog.root)
    import shutil
    shutil.rmtree(catalog.root / ".cache")
    assert gone(pid)
    catalog.paper("paper-1", id="p1", title="Paper 1, edited", body="Edited.")
    done = build(catalog)
    assert done.returncode == 0 and not handed_over(done), done.stderr


def test_nothing_is_kept_warm_when_turned_off_or_for_a_small_catalog(catalog):
    assert build(catalog, env={**WARM_ENV, "PAPERSITE_WARM": "0"}).returncode == 0
    assert warm_pid(catalog.root) is None
    catalog.paper("paper-1", id="p1", title="Paper 1, edited", body="Edited.")
    assert build(catalog, env={**WARM_ENV, "PAPERSITE_WARM_FROM": "1000"}).returncode == 0  # 8 papers
    assert warm_pid(catalog.root) is None
    on_ci = {name: value for name, value in WARM_ENV.items() if name != "PAPERSITE_WARM"}
    catalog.paper("paper-1", id="p1", title="Paper 1, edited again", body="Edited.")
    assert build(catalog, env={**on_ci, "CI": "true"}).returncode == 0  # a CI runner builds once
    assert warm_pid(catalog.root) is None
    catalog.paper("paper-1", id="p1", title="Paper 1, edited once more", body="Edited.")
    assert build(catalog, env={**on_ci, "CI": ""}).returncode == 0
    assert warm_pid(catalog.root) is not None


def test_the_warm_process_holds_no_terminal_and_ends_when_idle(catalog):
    done = build(catalog, env={**WARM_ENV, "PAPERSITE_WARM": "0.1"})  # idle for 6 seconds
    assert done.returncode == 0
    # capture_output reads the command's pipes to their end: had the warm process kept them, the
    # build would have returned only once it ended
    pid = warm_pid(catalog.root)
    assert pid is not None
    assert gone(pid, within=60)
    assert not warm.socket_path(catalog.root).exists()


def test_builds_into_two_folders_take_turns_with_the_warm_process(catalog, tmp_path):
    """The warm process made by a build into one folder makes the next build into another, whose
    last build it did not make: its inputs are then sent whole, not as what changed since."""
    other = catalog.root / "other"
    assert build(catalog).returncode == 0
    for step, title in enumerate(["Retitled once", "Retitled twice", "Retitled thrice"]):
        catalog.paper("paper-6", id="p6", title=title, body="We study generalization bounds 6.")
        for output in ("-o", str(other)), ():
            done = build(catalog, *output)
            assert done.returncode == 0 and handed_over(done), done.stderr
        clean = clean_tree(catalog, tmp_path, str(step))
        assert tree(catalog.root / "_site") == clean and tree(other) == clean, step


def test_ctrl_c_stops_the_warm_build_leaves_the_site_and_ends_the_warm_process(catalog, tmp_path):
    """Interrupted midway, a cache may be half updated: the warm process ends, and the next build,
    cold, is a clean build's."""
    assert build(catalog).returncode == 0
    pid, before = warm_pid(catalog.root), tree(catalog.root / "_site")
    slow = '{% extends "theme/paper.html" %}{% block main %}{% for i in range(2000000) %}{% endfor %}' \
           '{{ super() }}{% endblock %}\n'
    catalog.write("templates/paper.html", slow)  # every paper page rendered again, slowly
    command = [sys.executable, str(ROOT / "build.py"), "build", "--config", str(catalog.root / "site.yaml")]
    proc = subprocess.Popen(command, cwd=catalog.root, env=WARM_ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(catalog.root.glob("._site.new-*")) and time.monotonic() < deadline:  # the warm process is building
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # the command's group: the warm process is not in it
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.endswith("Interrupted: the build stopped; _site/ was left as it was.\n") and "Traceback" not in err
    assert tree(catalog.root / "_site") == before
    assert gone(pid) and warm_pid(catalog.root) is None
    deadline = time.monotonic() + 30
    while list(catalog.root.glob("._site.new-*")) and time.monotonic() < deadline:  # cleaned up first
        time.sleep(0.05)
    assert not list(catalog.root.glob("._site.new-*"))
    (catalog.root / "templates" / "paper.html").unlink()
    catalog.paper("paper-3", id="p3", title="Paper 3, after the interruption", body="Edited.")
    done = build(catalog)
    assert done.returncode == 0 and not handed_over(done), done.stderr
    assert tree(catalog.root / "_site") == clean_tree(catalog, tmp_path, "after")
