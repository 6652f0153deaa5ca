"""Fault injection: dangerous output folders, concurrent and interrupted builds, a full disk,
read-only and unreadable files, special files, huge numbers.

Every case checks what a user sees: the exit status, one clear line naming the file, no
traceback, and that every file that existed before (sources, the previous site, files
beside the project) is still there byte for byte, with nothing stray left behind.

Some cases need a read to fail. chmod does not stop root, and CI runs as root: there those
cases run in a forked child that has become `nobody` (see `unprivileged`).
"""
from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import build
from papersite.engine.output import manifest_path
from papersite.site.static import CSL_ASSETS, NPM_ASSETS
from tests.conftest import MINIMAL_CONFIG, ROOT, TinySite, paper_text

HUGE = 20 * 1024 * 1024  # files past this are compared by size and mtime (a sparse 50 GB file is one)


# --- Helpers ----------------------------------------------------------------------

def snapshot(root: Path) -> dict[str, tuple]:
    """Everything under root, links not followed: files with their bytes, folders, links, special files."""
    found = {}
    for here, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(here) / name
            st = os.lstat(path)
            key = path.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[key] = ("folder",)
            elif stat.S_ISREG(st.st_mode):
                found[key] = ("file", (st.st_size, st.st_mtime_ns) if st.st_size > HUGE else path.read_bytes())
            else:
                found[key] = ("special", stat.S_IFMT(st.st_mode))
    return found


def site_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


class Run:
    def __init__(self, code: int, stdout: str, stderr: str):
        self.code, self.stdout, self.stderr = code, stdout, stderr

    def __repr__(self):
        return f"Run(code={self.code}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def cli(cwd: Path, *args) -> Run:
    """build.py ARGS in-process, run from `cwd` as a user would."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(build.cli, [str(a) for a in args])
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"crashed: {result.exception!r}\n{result.output}"
    return Run(result.exit_code, result.stdout, result.stderr)


def command(*args) -> list[str]:
    return [sys.executable, str(ROOT / "build.py"), *map(str, args)]


def process(cwd: Path, *args, timeout: float = 300, **options) -> Run:
    """build.py ARGS as a real process."""
    proc = subprocess.run(command(*args), cwd=cwd, capture_output=True, text=True, timeout=timeout, **options)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def refused(run: Run, *needles: str, code: int = 1) -> None:
    """A clean failure: the status, one line (or the 'N problems' list), each needle in it."""
    assert run.code == code, run
    assert "Traceback" not in run.stdout + run.stderr, run
    lines = run.stderr.rstrip("\n").split("\n")
    if lines[0].endswith("problems:"):
        assert len(lines) == int(lines[0].split()[1]) + 1, run
    else:
        assert len(lines) == 1, run
    for needle in needles:
        assert needle in run.stderr, (needle, run)


def beside(out: Path) -> list[str]:
    """What lies next to an output folder apart from itself and its manifest: must be nothing."""
    return sorted(p.name for p in out.parent.iterdir()
                  if p.name.startswith(f".{out.name}.") and p != manifest_path(out))


def make_project(root: Path, papers: int = 3) -> TinySite:
    site = TinySite(root)
    for n in range(papers):
        site.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n}",
                   body=f"Abstract {n} about generalization and $x^{n % 9}$, words {n * 7} and {n * 13}.")
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}\n')
    site.write("static/extra.css", "body { color: #123; }\n")
    site.write("content/.imported.json", "{}\n")
    return site


@pytest.fixture
def project(tmp_path) -> TinySite:
    """A project with sources, a previous site, and a sibling folder beside the project."""
    (tmp_path / "neighbour").mkdir()
    (tmp_path / "neighbour" / "thesis.tex").write_text("\\documentclass{article}\n")
    site = make_project(tmp_path / "site")
    site.write("docs/guide.md", "# How we curate\n")
    run = cli(site.root, "build", "-q")
    assert run.code == 0, run
    return site


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Path:
    """A project big enough to fork workers and take a few seconds to build, built once."""
    root = tmp_path_factory.mktemp("large") / "site"
    make_project(root, papers=450)  # past parallel.MIN_ITEMS: workers fork
    run = process(root, "build", "-q", env={**os.environ, "PAPERSITE_JOBS": "2"})
    assert run.code == 0, run
    return root


@pytest.fixture
def big(large, tmp_path) -> Path:
    """A copy of the large project with its previous site, and an edit that changes every page pending."""
    root = tmp_path / "site"
    shutil.copytree(large, root, symlinks=True, ignore=shutil.ignore_patterns("_site"))
    # Hard links keep the inodes the manifest records, so the copy's site is known unchanged;
    # builds never write into an existing file, so the shared inodes are never altered.
    shutil.copytree(large / "_site", root / "_site", copy_function=os.link)
    shutil.copy2(manifest_path(large / "_site"), manifest_path(root / "_site"))
    config = root / "site.yaml"
    config.write_text(config.read_text().replace("title: Test Catalog", "title: Test Catalog, revised"))
    return root


def wait_for_staging(root: Path, proc: subprocess.Popen, files: int = 20, timeout: float = 120) -> None:
    """Until the build in `proc` has written `files` files of its new site (it is mid-build)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the build ended before it could be interrupted"
        for staging in root.glob("._site.new-*"):
            try:
                if sum(len(names) for _, _, names in os.walk(staging)) >= files:
                    return
            except OSError:
                pass
        time.sleep(0.01)
    raise AssertionError("the build never started writing")


def unprivileged(function):
    """function() where permissions apply: as ourselves, or as `nobody` in a forked child when root.
    Returns what it returns (a Run); the child only runs code already imported."""
    if os.geteuid() != 0:
        return function()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            run = function()
            payload = json.dumps([run.code, run.stdout, run.stderr])
        except BaseException as error:  # noqa: BLE001 - reported to the parent, which fails the test
            payload = json.dumps(["crash", repr(error), ""])
        with os.fdopen(write, "w") as pipe:
            pipe.write(payload)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    code, stdout, stderr = json.loads(payload)
    if code == "crash":
        if "PermissionError" in stdout and "setuid" not in stdout:
            raise AssertionError(stdout)
        pytest.skip(f"cannot run as nobody here: {stdout}")
    return Run(code, stdout, stderr)


@pytest.fixture
def shared_tmp():
    """A folder `nobody` can reach (pytest's own tmp_path is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="papersite-faults-"))
    folder.chmod(0o755)
    yield folder
    for here, folders, files in os.walk(folder):
        for name in folders:
            os.chmod(Path(here) / name, 0o755)
    shutil.rmtree(folder)


def give_to_nobody(root: Path) -> None:
    if os.geteuid() != 0:
        return
    for here, folders, files in os.walk(root):
        for name in [*folders, *files, ""]:
            os.lchown(Path(here) / name, 65534, 65534)


def warm_up(site: TinySite) -> None:
    """Import everything a build imports, before a child drops its privileges."""
    assert cli(site.root, "build", "-q", "-o", site.root.parent / "warm").code == 0
    shutil.rmtree(site.root.parent / "warm")
    manifest_path(site.root.parent / "warm").unlink()


# --- Dangerous output folders -------------------------------------------------------

@pytest.mark.parametrize("target, needle", [
    ("content", "the project's content/ folder"),
    ("content/icml-2024", "inside the project's content/ folder"),
    ("templates", "the project's templates/ folder"),
    ("static", "the project's static/ folder"),
    (".", "the project folder"),
    ("..", "contains the project folder"),
    ("../..", "contains the project folder"),
    ("docs", "papersite did not write"),
    ("../neighbour", "papersite did not write"),
    (".git", "the project's .git/ folder"),
    ("/", "the root of the file system"),
])
def test_a_dangerous_output_folder_is_refused_and_nothing_changes(project, target, needle):
    (project.root / ".git").mkdir()
    (project.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = snapshot(project.root.parent)
    run = cli(project.root, "build", "-o", target)
    refused(run, f"Error: {target}: ", needle, "choose an empty or new folder such as _site")
    assert snapshot(project.root.parent) == before


def test_an_ancestor_given_as_an_absolute_path_and_another_config_is_refused(project, tmp_path):
    before = snapshot(tmp_path)
    for target in (tmp_path, project.root, project.root / "content"):
        run = cli(tmp_path, "build", "--config", project.root / "site.yaml", "-o", target)
        refused(run, str(target), "refusing to build into this folder")
    assert snapshot(tmp_path) == before


def test_the_home_folder_and_what_contains_it_are_refused(project, tmp_path, monkeypatch):
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for target, needle in ((home, "your home folder"), (home.parent, "contains your home folder")):
        refused(cli(project.root, "build", "-o", target), "refusing to build into this folder", needle)
    assert list(home.iterdir()) == []


@pytest.mark.parametrize("link_to", ["content", "templates", ".", ".."])
def test_a_symlink_to_a_source_or_the_project_is_refused(project, link_to):
    (project.root.parent / "out").symlink_to((project.root / link_to).resolve())
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-o", "../out"), "../out: refusing to build into this folder")
    assert snapshot(project.root.parent) == before


def test_a_source_folder_that_is_a_link_elsewhere_is_protected_there_too(tmp_path):
    elsewhere = tmp_path / "data" / "papers"
    site = make_project(tmp_path / "site")
    shutil.move(site.root / "content", elsewhere)
    (site.root / "content").symlink_to(elsewhere)
    before = snapshot(tmp_path)
    for target in (elsewhere, elsewhere.parent, elsewhere / "icml-2024"):
        refused(cli(site.root, "build", "-o", target), "refusing to build into this folder", "content/ folder")
    assert snapshot(tmp_path) == before
    assert cli(site.root, "build", "-q").code == 0  # and the linked content builds


def test_a_folder_holding_only_a_hidden_file_is_not_ours_either(project):
    (project.root / "out").mkdir()
    (project.root / "out" / ".keep").write_text("mine\n")
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-o", "out"), "out: already holds files that papersite did not write",
            "out/.keep")
    assert snapshot(project.root.parent) == before


def test_an_output_that_is_a_file_or_below_a_file_is_refused(project):
    before = snapshot(project.root.parent)
    run = cli(project.root, "build", "-o", "site.yaml")  # click's own usage error
    assert run.code == 2 and run.stderr.endswith("Error: Invalid value for '-o' / '--output': "
                                                 "Directory 'site.yaml' is a file.\n"), run
    run = cli(project.root, "build", "-o", "site.yaml/out")
    refused(run, "site.yaml/out", "could not write the site")
    assert snapshot(project.root.parent) == before


def test_an_empty_or_new_folder_is_fine(project):
    (project.root / "empty").mkdir()
    for target in ("empty", "new/deeper/out", "_site[1]"):
        run = cli(project.root, "build", "-q", "-o", target)
        assert run.code == 0 and run.stderr == "", run
        assert (project.root / target / "index.html").is_file()
        assert beside(project.root / target) == []


# --- Files someone else put into the output ------------------------------------------

def test_a_file_added_to_the_previous_site_is_never_deleted(project):
    notes = project.root / "_site" / "papers" / "notes.txt"
    notes.write_text("my notes\n")
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), "Error: _site/papers/notes.txt: not written by papersite",
            "move it out of _site/ or delete it")
    assert snapshot(project.root.parent) == before
    notes.rename(project.root / "notes.txt")  # doing what it says works
    assert cli(project.root, "build", "-q").code == 0


def test_a_deleted_manifest_does_not_lock_the_site_out(project):
    manifest_path(project.root / "_site").unlink()
    before = site_files(project.root / "_site")
    run = cli(project.root, "build", "-q")
    assert run.code == 0, run  # our own site, every file of it written again: fine
    assert site_files(project.root / "_site") == before and manifest_path(project.root / "_site").is_file()


def test_a_deleted_manifest_and_a_removed_paper_say_what_to_do(project):
    manifest_path(project.root / "_site").unlink()
    (project.root / "content/icml-2024/paper-2.md").unlink()
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), "_site/papers/paper-2/index.html: not written by papersite",
            "delete it")
    assert snapshot(project.root.parent) == before
    shutil.rmtree(project.root / "_site")
    assert cli(project.root, "build", "-q").code == 0


# --- A symlinked output ---------------------------------------------------------------

def test_a_symlinked_output_is_built_into_its_target_and_the_link_stays(project, tmp_path):
    target = tmp_path / "www" / "catalog"
    target.mkdir(parents=True)
    (project.root / "public").symlink_to(target)
    for _ in range(2):
        run = cli(project.root, "build", "-q", "-o", "public")
        assert run.code == 0, run
        assert (project.root / "public").is_symlink() and os.readlink(project.root / "public") == str(target)
        assert (target / "papers/paper-1/index.html").is_file()
        assert sorted(p.name for p in target.parent.iterdir()) == ["catalog", ".catalog.manifest.json"][::-1]
        assert sorted(p.name for p in project.root.iterdir() if p.name.startswith(".public")) == []
    assert site_files(target) == site_files(project.root / "_site")


def test_a_dangling_or_looping_symlinked_output_is_refused(project, tmp_path):
    (project.root / "public").symlink_to(tmp_path / "nowhere" / "site")
    (project.root / "loop").symlink_to(project.root / "loop")
    before = snapshot(tmp_path)
    refused(cli(project.root, "build", "-o", "public"), "public: is a symlink to", "which does not exist")
    refused(cli(project.root, "build", "-o", "loop"), "loop: cannot follow this symlink: Too many levels")
    refused(cli(project.root, "build", "-o", "loop/site"), "loop/site: ")
    assert snapshot(tmp_path) == before


# --- build --watch and deploy follow the same rules ---------------------------------------

@pytest.mark.parametrize("target", ["content", "..", "docs"])
def test_build_watch_refuses_before_it_starts(project, target):
    before = snapshot(project.root.parent)
    run = cli(project.root, "build", "--watch", "-o", target)
    refused(run, f"{target}")
    assert snapshot(project.root.parent) == before


@pytest.fixture
def repository(tmp_path, monkeypatch):
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.org")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / "work")], check=True, capture_output=True)
    site = make_project(tmp_path / "work")
    site.write("site.yaml", MINIMAL_CONFIG.replace("https://example.org/catalog/", "http://127.0.0.1:8000/"))
    site.write(".gitignore", "_site/\n")
    for args in (["add", "."], ["commit", "-qm", "papers"], ["push", "-q", "origin", "main"]):
        subprocess.run(["git", "-C", str(site.root), *args], check=True, capture_output=True)
    return site, remote


def branches(remote: Path) -> str:
    return subprocess.run(["git", "-C", str(remote), "branch", "--list"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("address", ["http://127.0.0.1:8000/", "http://localhost:8000/x/", "http://[::1]/"])
def test_deploy_refuses_the_local_preview_address(repository, address):
    site, remote = repository
    site.write("site.yaml", MINIMAL_CONFIG.replace("https://example.org/catalog/", address))
    subprocess.run(["git", "-C", str(site.root), "commit", "-qam", "local", "--allow-empty"], check=True)
    before = snapshot(site.root.parent)
    run = cli(site.root, "deploy")
    refused(run, f"base_url is {address}, the local preview address", "--base-url", "--force")
    assert snapshot(site.root.parent) == before and "gh-pages" not in branches(remote)


def test_deploy_with_a_base_url_or_forced(repository, tmp_path, monkeypatch):
    site, remote = repository
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where deploy builds its temporary output
    run = cli(site.root, "deploy", "--base-url", "https://me.github.io/papers/")
    assert run.code == 0, run
    assert "gh-pages" in branches(remote)
    assert cli(site.root, "deploy", "--force").code == 0
    assert list(scratch.iterdir()) == []  # the temporary output, its lock and manifest: all gone


# --- Concurrent builds --------------------------------------------------------------------

def test_two_builds_into_one_output_at_once_both_give_a_whole_site(big, tmp_path):
    env = {**os.environ, "PAPERSITE_JOBS": "2"}
    builds = [subprocess.Popen(command("build"), cwd=big, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in builds]
    assert [proc.returncode for proc in builds] == [0, 0], outputs
    assert "Traceback" not in str(outputs)
    waited = [err for _, err in outputs if "waiting for another build into _site/ to finish (process " in err]
    assert len(waited) == 1, outputs  # one took the lock, the other waited for it
    assert beside(big / "_site") == []
    assert process(big, "build", "-q", "-o", tmp_path / "clean").code == 0
    assert site_files(big / "_site") == site_files(tmp_path / "clean")


def test_a_build_that_finds_the_output_locked_names_its_holder_written_a_moment_after(tmp_path):
    """The build holding the lock writes its process id just after it takes it: a build that
    finds it taken in between still says who holds it."""
    import threading

    from papersite.engine import output_guard
    fd = os.open(tmp_path / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        writer = threading.Timer(0.03, lambda: os.pwrite(fd, b"4242\n", 0))
        writer.start()
        assert output_guard._holder(fd) == "4242"
        writer.join()
    finally:
        os.close(fd)


def test_a_waiting_build_can_be_interrupted(big):
    """Ctrl-C while another build holds the output (here this test holds its lock, as a build
    does: a real first build may finish before the second gets to wait) ends it quietly."""
    lock_path = big / "._site.lock"
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        second = subprocess.Popen(command("build"), cwd=big, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, start_new_session=True)
        said = second.stderr.readline()  # the build says it waits, then blocks on the lock
        assert "waiting for another build into _site/ to finish" in said, said
        os.killpg(second.pid, signal.SIGINT)
        out, err = second.communicate(timeout=60)
    finally:
        os.unlink(lock_path)
        os.close(lock)
    assert second.returncode == 130 and "Traceback" not in err, err
    assert beside(big / "_site") == []


# --- Interrupted builds ---------------------------------------------------------------------

def test_kill_9_mid_build_leaves_the_previous_site_and_the_next_build_cleans_up(big, tmp_path):
    before = site_files(big / "_site")
    sources = snapshot(big / "content")
    proc = subprocess.Popen(command("build", "-q"), cwd=big, env={**os.environ, "PAPERSITE_JOBS": "2"},
                            start_new_session=True)
    wait_for_staging(big, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert site_files(big / "_site") == before and snapshot(big / "content") == sources
    run = process(big, "build", "-q")
    assert run.code == 0 and run.stderr == "", run
    assert beside(big / "_site") == []
    assert b"Test Catalog, revised" in (big / "_site/papers/paper-1/index.html").read_bytes()
    assert process(big, "build", "-q", "-o", tmp_path / "clean").code == 0
    assert site_files(big / "_site") == site_files(tmp_path / "clean")


def test_kill_9_of_the_build_alone_leaves_its_workers_nothing_to_spoil(big, tmp_path):
    """Only the parent killed: its forked workers live on for a moment, holding the lock;
    they write nothing more, and the next build waits for them, then cleans up."""
    before = site_files(big / "_site")
    proc = subprocess.Popen(command("build", "-q"), cwd=big, env={**os.environ, "PAPERSITE_JOBS": "2"})
    wait_for_staging(big, proc)
    proc.kill()
    proc.wait(timeout=60)
    assert site_files(big / "_site") == before
    run = process(big, "build", "-q")
    assert run.code == 0 and "Traceback" not in run.stderr, run
    assert beside(big / "_site") == []
    assert process(big, "build", "-q", "-o", tmp_path / "clean").code == 0
    assert site_files(big / "_site") == site_files(tmp_path / "clean")
    time.sleep(1)  # any straggler would have written by now
    assert beside(big / "_site") == []


@pytest.mark.parametrize("signal_name, status, word", [("SIGINT", 130, "Interrupted"),
                                                      ("SIGTERM", 143, "Terminated")])
def test_ctrl_c_or_sigterm_mid_build_exits_quietly_and_leaves_the_previous_site(big, signal_name, status, word):
    before = snapshot(big)
    # Ctrl-C in a terminal signals the whole process group: the build and its workers.
    proc = subprocess.Popen(command("build"), cwd=big, env={**os.environ, "PAPERSITE_JOBS": "2"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_staging(big, proc)
    os.killpg(proc.pid, getattr(signal, signal_name))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err == f"{word}: the build stopped; _site/ was left as it was.\n" and out == ""
    assert snapshot(big) == before  # the previous site, the sources, and nothing stray


def test_ctrl_c_while_the_libraries_load_is_quiet_too(project):
    if not Path("/proc/self/maps").exists():
        pytest.skip("needs /proc to see what a process has loaded")
    before = snapshot(project.root)
    proc = subprocess.Popen(command("build", "--clean"), cwd=project.root, stdout=subprocess.PIPE,  # --clean: load
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # the libraries (see cache.py)
    maps = Path(f"/proc/{proc.pid}/maps")
    while proc.poll() is None and "markupsafe" not in maps.read_text():  # jinja2 is being imported
        time.sleep(0.001)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err and len(err.splitlines()) <= 1, err
    assert snapshot(project.root) == before


def test_a_failed_build_leaves_no_lock_or_staging_behind(project):
    before = snapshot(project.root.parent)
    project.write("templates/paper.html", '{% extends "theme/paper.html" %}{% block main %}{{ 1 / 0 }}'
                                          '{% endblock %}\n')
    refused(cli(project.root, "build", "-q"), "templates/paper.html:1")
    after = snapshot(project.root.parent)
    del after["site/templates/paper.html"], before["site/templates/paper.html"]
    assert after == before


# --- A full disk, a read-only output ------------------------------------------------------------

def limit_file_size(size: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


@pytest.mark.parametrize("limit", ["pages", "manifest"])
def test_a_full_disk_leaves_the_previous_site(big, limit):
    files = site_files(big / "_site")
    # the largest page: citeproc.js and the CSL styles are larger, but unchanged, so not written again
    copies = {f"static/{name}" for name in (*NPM_ASSETS, *CSL_ASSETS)}
    largest = max(len(data) for path, data in files.items() if path not in copies)
    size = 2048 if limit == "pages" else largest + 1  # every page fits, the manifest does not
    if limit == "manifest":
        big.joinpath("static/big.css").write_text("x" * (largest // 2))  # more entries, none larger
        for n in range(800):
            big.joinpath(f"static/icons/{n:03}.svg").parent.mkdir(exist_ok=True)
            big.joinpath(f"static/icons/{n:03}.svg").write_text(f"<svg>{n}</svg>")
        assert manifest_path(big / "_site").stat().st_size + 800 * 60 > size  # entries run to 80 bytes
    before = snapshot(big)
    run = process(big, "build", "-q", preexec_fn=limit_file_size(size))
    refused(run, "Error: _site: could not write the site: File too large", "the previous site is unchanged")
    assert snapshot(big) == before


def test_a_read_only_previous_site_is_replaced(shared_tmp):
    site = make_project(shared_tmp / "site")
    warm_up(site)
    assert cli(site.root, "build", "-q").code == 0
    for here, folders, files in os.walk(site.root / "_site"):
        for name in files + folders:
            os.chmod(Path(here) / name, 0o555 if name in folders else 0o444)
    os.chmod(site.root / "_site", 0o555)
    site.paper("paper-1", id="p1", title="Paper 1, revised")
    give_to_nobody(shared_tmp)
    run = unprivileged(lambda: cli(site.root, "build", "-q"))
    assert run.code == 0 and run.stderr == "", run
    assert b"Paper 1, revised" in (site.root / "_site/papers/paper-1/index.html").read_bytes()
    assert beside(site.root / "_site") == []


def test_a_read_only_project_folder_is_a_clear_error(shared_tmp):
    site = make_project(shared_tmp / "site")
    warm_up(site)
    assert cli(site.root, "build", "-q").code == 0
    site.paper("paper-1", id="p1", title="Paper 1, revised")
    give_to_nobody(shared_tmp)
    os.chmod(site.root, 0o555)
    before = snapshot(site.root)
    run = unprivileged(lambda: cli(site.root, "build", "-q"))
    os.chmod(site.root, 0o755)
    refused(run, "Error: _site: could not write the site: Permission denied", "the previous site is unchanged")
    assert snapshot(site.root) == before


# --- Unreadable and special files in content/ and static/ -----------------------------------------

@pytest.mark.parametrize("path, mode, message", [
    ("content/icml-2024", 0o000, "content/icml-2024: cannot read this folder: Permission denied"),
    ("content/icml-2024/paper-1.md", 0o000, "content/icml-2024/paper-1.md: cannot read: Permission denied"),
    ("static/extra.css", 0o000, "static/extra.css: cannot read: Permission denied"),
    ("static/fonts", 0o000, "static/fonts: cannot read this folder: Permission denied"),
    ("templates/paper.html", 0o000, "templates/paper.html: cannot read: Permission denied"),
])
def test_unreadable_sources_are_errors_naming_them(shared_tmp, path, mode, message):
    site = make_project(shared_tmp / "site")
    site.write("static/fonts/a.woff2", b"\x00font")
    warm_up(site)
    assert cli(site.root, "build", "-q").code == 0
    site.paper("paper-0", id="p0", title="Paper 0, revised")
    give_to_nobody(shared_tmp)
    os.chmod(site.root / path, mode)
    before = snapshot(site.root)
    try:
        run = unprivileged(lambda: cli(site.root, "build", "-q"))
    finally:
        os.chmod(site.root / path, 0o755)
    refused(run, f"{message}")
    assert snapshot(site.root) == before


def make_special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    else:
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
        except PermissionError:
            pytest.skip("making a device needs root")


@pytest.mark.parametrize("where", ["content/icml-2024/pipe.md", "static/pipe.css", "templates/pipe.html"])
@pytest.mark.parametrize("kind, shown", [("fifo", "a FIFO (named pipe)"), ("socket", "a socket"),
                                         ("device", "a character device")])
def test_special_files_are_refused_unopened(project, where, kind, shown):
    make_special(project.root / where, kind)
    before = snapshot(project.root.parent)
    run = process(project.root, "build", "-q", timeout=60)  # a FIFO opened for reading would block forever
    refused(run, f"{where}: not a regular file but {shown}: refused unread")
    assert snapshot(project.root.parent) == before


def test_a_site_yaml_that_is_a_fifo_or_huge_is_refused_unread(project):
    config = project.root / "site.yaml"
    config.rename(project.root / "real.yaml")
    os.mkfifo(config)
    before = snapshot(project.root.parent)
    refused(process(project.root, "build", "-q", timeout=60),
            "Error: site.yaml: not a regular file but a FIFO (named pipe): refused unread")
    assert snapshot(project.root.parent) == before
    config.unlink()
    with config.open("wb") as file:
        file.truncate(50 * 1024 ** 3)
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), "Error: site.yaml: file is 51200.0 MB; the limit is 10 MB")
    assert snapshot(project.root.parent) == before


def test_a_huge_content_file_is_refused_by_its_size_unread(project, monkeypatch):
    import builtins
    import io

    huge = project.root / "content/icml-2024/dump.md"
    with huge.open("wb") as file:
        file.truncate(50 * 1024 ** 3)  # sparse: 50 GB that take no disk, but reading them would never end
    before = snapshot(project.root.parent)
    opened = []  # every opening of the file, by any of Python's ways to open one, fails the build

    def refusing(real):
        def opener(path, *args, **kwargs):
            if isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).endswith("dump.md"):
                opened.append(os.fsdecode(path))
                raise AssertionError(f"{path} was opened")
            return real(path, *args, **kwargs)
        return opener

    for module, name in ((builtins, "open"), (io, "open"), (os, "open")):
        monkeypatch.setattr(module, name, refusing(getattr(module, name)))
    run = cli(project.root, "build", "-q")
    monkeypatch.undo()
    assert opened == []  # refused by its size, unread (never opened)
    refused(run, "content/icml-2024/dump.md: file is 51200.0 MB; the limit is 10 MB")
    assert snapshot(project.root.parent) == before


@pytest.mark.parametrize("where", ["content/icml-2024/x.md", "static/x.css", "templates/x.html"])
def test_broken_links_and_links_out_of_the_project_are_errors(project, tmp_path, where):
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    link = project.root / where
    link.symlink_to(project.root / "no-such-file")
    before = snapshot(tmp_path)
    refused(cli(project.root, "build", "-q"),
            f"{where}: broken symlink: {project.root / 'no-such-file'} does not exist")
    assert snapshot(tmp_path) == before
    link.unlink()
    link.symlink_to(secret)
    before = snapshot(tmp_path)
    refused(cli(project.root, "build", "-q"), f"{where}: symlinked file leads outside the project folder")
    assert snapshot(tmp_path) == before


def test_a_symlinked_folder_out_of_the_project_is_an_error(project, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.md").write_text(paper_text(id="other"))
    (project.root / "static" / "more").symlink_to(tmp_path / "elsewhere")
    before = snapshot(tmp_path)
    refused(cli(project.root, "build", "-q"), "static/more: symlinked folder leads outside the project folder")
    assert snapshot(tmp_path) == before


def test_links_inside_the_project_are_followed_once_and_content_reads_no_folder_link(project):
    shared = project.root / "shared"
    shared.mkdir()
    (shared / "linked-paper.md").write_text(paper_text(id="linked", title="Linked"))
    (project.root / "content/icml-2024/linked.md").symlink_to(shared / "linked-paper.md")
    (project.root / "static/img").symlink_to(shared)
    (project.root / "static/loop").symlink_to(project.root / "static")  # a loop ends
    outside = project.root.parent / "neighbour"
    (outside / "paper.md").write_text(paper_text(id="outside"))
    for name, target in (("loop", project.root / "content"), ("shared", shared), ("out", outside)):
        (project.root / "content" / name).symlink_to(target)  # not followed, even outside: nothing is read
    before = snapshot(outside)
    run = cli(project.root, "build", "-q")
    assert run.code == 0, run
    assert run.stderr.splitlines() == [f"warning: content/{name}: a symlinked folder, not followed: the papers in "
                                       "it are not in the site (move the folder into content/, or link each file)"
                                       for name in ("loop", "out", "shared")]
    papers = sorted(p.name for p in (project.root / "_site/papers").iterdir())
    assert papers == ["index.html", "linked", "paper-0", "paper-1", "paper-2"]
    assert (project.root / "_site/static/img/linked-paper.md").is_file()
    assert not (project.root / "_site/static/loop").exists()
    assert snapshot(outside) == before


# --- Huge and odd numbers in YAML ------------------------------------------------------------------

BIG = "9" * 5000


@pytest.mark.parametrize("year, message", [
    (BIG, "site.yaml:14: invalid YAML: a whole number of 5,000 characters is too large"),
    (f"!!int {BIG}", "site.yaml:14: invalid YAML: a whole number of 5,000 characters is too large"),
    ("1.0e+999", "site.yaml:14: 'year' must be a whole number, not a decimal number (inf)"),
    (".inf", "site.yaml:14: 'year' must be a whole number, not a decimal number (inf)"),
    (".nan", "site.yaml:14: 'year' must be a whole number, not a decimal number (nan)"),
    ("2024.0", "site.yaml:14: 'year' must be a whole number, not a decimal number (2024.0)"),
    ("99999999999", "site.yaml:14: 'year' must be a year from 1 to 9999, not 99999999999"),
    ("0", "site.yaml:14: 'year' must be a year from 1 to 9999, not 0"),
    ("-2024", "site.yaml:14: 'year' must be a year from 1 to 9999, not -2024"),
])
def test_huge_and_odd_numbers_in_site_yaml(project, year, message):
    project.write("site.yaml", MINIMAL_CONFIG.replace("    year: 2024\n", f"    year: {year}\n"))
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), f"Error: {message}")
    assert snapshot(project.root.parent) == before


@pytest.mark.parametrize("value, message", [
    ("!!float abc", "'abc' is not a valid !!float"), ("!!int -", "'-' is not a valid !!int"),
    ("!!int 0x", "'0x' is not a valid !!int"), ("!!bool maybe", "'maybe' is not a valid !!bool"),
    ("!!timestamp soon", "'soon' is not a valid !!timestamp"), ("!!float -.", "'-.' is not a valid !!float"),
])
def test_explicit_tags_with_impossible_values_name_their_line(project, value, message):
    project.write("content/icml-2024/bad.md", paper_text(id="bad", extra=f"extra: {{x: {value}}}\n"))
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), f"Error: content/icml-2024/bad.md:8: invalid YAML: {message}")
    assert snapshot(project.root.parent) == before


@pytest.mark.parametrize("front, message", [
    (f"id: {BIG}\n", "bad.md:2: invalid YAML: a whole number of 5,000 characters is too large"),
    (f"extra: {{n: {BIG}}}\n", "bad.md:8: invalid YAML: a whole number of 5,000 characters is too large"),
    ("year: 1.0e+999\n", "bad.md:6: 'year' must be a whole number, not a decimal number (inf)"),
    ("year: 99999999999999\n", "bad.md:6: year 99999999999999 does not match venue 'icml-2024' (2024)"),
    ("title: 1984\n", "bad.md:3: 'title' must be a string, not a whole number (1984): quote it to make it text"),
    ("links: {arxiv: 2402.10000}\n", "bad.md:8: link 'arxiv' was read as the number 2402.1, which can drop digits: "
                                     "quote it as written in the file (arxiv: \"2402.07207\")"),
    ("links: {doi: .nan}\n", "bad.md:8: link 'doi' was read as the number nan"),
])
def test_huge_and_odd_numbers_in_front_matter(project, front, message):
    fields = {"id": "id: bad\n", "title": "title: Bad\n", "year": "year: 2024\n"}
    key = front.split(":")[0]
    text = paper_text(id="bad", title="Bad", extra="" if key in fields else front)
    if key in fields:
        text = text.replace(fields[key], front)
    project.write("content/icml-2024/bad.md", text)
    before = snapshot(project.root.parent)
    refused(cli(project.root, "build", "-q"), f"Error: content/icml-2024/{message}")
    assert snapshot(project.root.parent) == before


# --- The last safety net ---------------------------------------------------------------------------

def test_an_unexpected_error_is_one_line_and_the_traceback_is_on_request(project, monkeypatch):
    from papersite import pipeline

    def broken(*args, **kwargs):
        raise RuntimeError("something nobody anticipated\nover two lines")

    monkeypatch.setattr(pipeline, "plan_pages", broken)
    before = snapshot(project.root.parent)
    run = cli(project.root, "build", "-q", "--clean")  # --clean: else nothing changed, nothing is built
    refused(run, "Error: RuntimeError: something nobody anticipated over two lines (unexpected: rerun with "
                 "PAPERSITE_TRACEBACK=1 for the details")
    assert snapshot(project.root.parent) == before
    monkeypatch.setenv("PAPERSITE_TRACEBACK", "1")
    result = CliRunner().invoke(build.cli, ["build", "-q", "--clean", "--config", str(project.root / "site.yaml"),
                                            "-o", str(project.root / "_site")])
    assert isinstance(result.exception, RuntimeError)
    assert snapshot(project.root.parent) == before


def test_an_unexpected_os_error_names_its_file(project, monkeypatch):
    from papersite import pipeline

    def broken(*args, **kwargs):
        raise IsADirectoryError(21, "Is a directory", "templates/odd")

    monkeypatch.setattr(pipeline, "plan_pages", broken)
    refused(cli(project.root, "build", "-q", "--clean"), "Error: templates/odd: Is a directory (unexpected")
