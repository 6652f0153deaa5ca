"""The persistent build cache: `build` (from .cache/papersite/) and `build --clean` give the same
site, byte for byte, whatever changed in between; a damaged cache is never trusted; a cache that
cannot be written is a warning. All through the real CLI."""
from __future__ import annotations

import functools
import json
import os
import pickle
import re
import shutil
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import papersite.engine.command
import papersite.engine.sitesize
import papersite.engine.store
from papersite.cli import cli
from tests.conftest import MINIMAL_CONFIG, TinySite, paper_text

TEMPLATE = """{% extends "theme/paper.html" %}
{% block main %}<p class="mark">edited template</p>{{ super() }}{% endblock %}
"""


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def tree(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def assert_same_as_clean(site: TinySite, tmp_path: Path, step: str) -> str:
    """`build` into _site, `build --clean` into a folder of its own: the same files, the same bytes."""
    config = site.root / "site.yaml"
    output = run("build", "--config", config, "-o", site.root / "_site")
    clean = tmp_path / f"clean-{step}"
    run("build", "--clean", "--config", config, "-o", clean)
    cached, fresh = tree(site.root / "_site"), tree(clean)
    differing = sorted(p for p in cached.keys() | fresh.keys() if cached.get(p) != fresh.get(p))
    assert not differing, f"after {step}: the cached build differs from a clean one in {differing[:5]}"
    return output


@pytest.fixture
def catalog(site: TinySite) -> TinySite:
    for n in range(6):
        site.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n} on generalization",
                   body=f"We study generalization bounds {n} with $x^{n}$ and diffusion models.")
    return site


def test_a_second_build_with_nothing_changed_does_nothing(catalog, tmp_path):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    first = run("build", "--config", config, "-o", out)
    assert "no input changed" not in first
    before = {path: os.stat(out / path).st_mtime_ns for path in tree(out)}
    second = run("build", "--config", config, "-o", out)
    assert "0 files written, 0 removed" in second and "no input changed since the last build" in second
    assert {path: os.stat(out / path).st_mtime_ns for path in tree(out)} == before
    papersite.engine.store.wait_for_saver(catalog.root)
    assert (catalog.root / ".cache" / "papersite" / "session.pickle").is_file()
    assert "no input changed" not in run("build", "--clean", "--config", config, "-o", out)


@pytest.mark.parametrize("landmarks, forked", [(None, False), (3, False), (3, True)])
def test_cached_builds_equal_clean_builds_after_every_kind_of_change(catalog, tmp_path, monkeypatch, landmarks,
                                                                     forked):
    """3 landmarks: half the papers are placed among the map's landmarks. Forked: the search
    index and the map are made in processes of their own, as at 10,000 papers, and what they
    cached comes back to the session; the landmarks are laid out ahead of every build."""
    from papersite import parallel
    from papersite.engine import map_ahead as layout_ahead
    from papersite.papermap import layout as paper_map
    if landmarks:
        monkeypatch.setattr(paper_map, "LANDMARKS", landmarks)
    if forked:
        monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
        monkeypatch.setenv("PAPERSITE_JOBS", "2")
        monkeypatch.setattr(layout_ahead, "WORTH_FROM", 0)
    assert_same_as_clean(catalog, tmp_path, "first build")
    catalog.paper("paper-2", id="p2", title="Paper 2 retitled", body="A new abstract on diffusion $y$.")
    assert_same_as_clean(catalog, tmp_path, "an edit")
    (catalog.root / "content" / "icml-2024" / "paper-4.md").unlink()
    assert_same_as_clean(catalog, tmp_path, "a deletion")
    catalog.paper("paper-9", id="p9", title="A new paper", topics="[generative-models]")
    assert_same_as_clean(catalog, tmp_path, "an added paper")
    catalog.write("templates/paper.html", TEMPLATE)
    assert_same_as_clean(catalog, tmp_path, "a new template")
    assert b"edited template" in (catalog.root / "_site" / "papers" / "paper-9" / "index.html").read_bytes()
    catalog.write("static/extra.txt", "an asset\n")
    assert_same_as_clean(catalog, tmp_path, "a static file")
    yaml = (catalog.root / "site.yaml").read_text().replace("title: Test Catalog", "title: Renamed Catalog")
    catalog.write("site.yaml", yaml)
    assert_same_as_clean(catalog, tmp_path, "a site.yaml change")
    assert b"Renamed Catalog" in (catalog.root / "_site" / "index.html").read_bytes()
    catalog.paper("paper-1", id="p1", title="Paper 1 edited", body="Short.")
    catalog.paper("paper-3", id="p3", title="Paper 3 edited", body="Shorter $z$.")
    assert_same_as_clean(catalog, tmp_path, "two edits")


def test_cached_builds_equal_clean_builds_after_successive_one_paper_edits(site, tmp_path):
    """Edit after edit, each built on what the last edit's build left: abstracts (adding words
    most papers share, as an author's sentence does, then taking them out), titles and author
    lists. Forty papers share "generalization": its document frequency is past where related
    papers round it."""
    words = ["diffusion", "bandits", "kernels", "graphs", "transformers"]
    fields = {n: {"title": f"Paper {n} on {words[n % 5]}", "authors": "[Ada Lovelace]",
                  "body": f"We study generalization of {words[n % 5]} and {words[(n * 3 + 1) % 5]} with $x^{n}$."}
              for n in range(40)}

    def write(n: int) -> None:
        text = paper_text(id=f"p{n}", title=fields[n]["title"], body=fields[n]["body"])
        site.write(f"content/icml-2024/paper-{n}.md", text.replace("[Ada Lovelace]", fields[n]["authors"]))

    for n in fields:
        write(n)
    assert_same_as_clean(site, tmp_path, "first build")
    edits = [(3, "body", "We study bandits and generalization; we also report a further result."),
             (17, "body", "Kernels, graphs and generalization of diffusion: a further result, and another one."),
             (3, "body", "We study bandits only."),
             (8, "title", "Paper 8 retitled, on kernels"),
             (21, "title", "Graphs, again"),
             (30, "authors", "[Ada Lovelace, Grace Hopper]"),
             (12, "authors", "[Grace Hopper]"),
             (17, "body", "Generalization.")]
    for number, (n, field, value) in enumerate(edits):
        fields[n][field] = value
        write(n)
        assert_same_as_clean(site, tmp_path, f"edit {number + 1}, of paper {n}'s {field}")
    shown = {n: (site.root / "_site" / "papers" / f"paper-{n}" / "index.html").read_text() for n in (8, 12, 17)}
    assert "Paper 8 retitled, on kernels" in shown[8] and "Grace Hopper" in shown[12]
    assert "a further result" not in shown[17]


def test_a_search_index_made_in_another_process_is_where_the_next_build_starts(catalog, monkeypatch):
    """The index comes back from the process that made it, holding this process's papers, so
    that an edit indexes one paper again, not all of them."""
    from papersite import parallel
    from papersite.source.config import load_config
    from papersite.engine.runner import BuildCache
    from papersite.engine.command import build_and_write
    from papersite.search import SearchCache
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    sizes, job = [], SearchCache.job
    monkeypatch.setattr(SearchCache, "job", lambda self, *args: (lambda made: sizes.append(made[1]) or made)(
        job(self, *args)))
    config, cache = load_config(catalog.root / "site.yaml"), BuildCache()
    build, _ = build_and_write(config, catalog.root / "_site", start=cache)
    assert sizes == [6] and [p.id for p in cache.search.papers] == sorted(p.id for p in build.catalog.papers)
    assert all(any(p is q for q in build.catalog.papers) for p in cache.search.papers)  # not copies
    catalog.paper("paper-2", id="p2", title="Paper 2 retitled", body="A new abstract on diffusion $y$.")
    build_and_write(config, catalog.root / "_site", start=cache)
    assert sizes == [6, 1]


def test_the_same_bytes_in_a_new_file_are_reused_and_a_revert_is_built(catalog, tmp_path):
    assert_same_as_clean(catalog, tmp_path, "first build")
    path = catalog.root / "content" / "icml-2024" / "paper-0.md"
    original = path.read_bytes()
    path.write_bytes(original.replace(b"Paper 0", b"Paper zero"))
    assert not re.search(r"\b1 files written", assert_same_as_clean(catalog, tmp_path, "an edit"))
    path.unlink()
    path.write_bytes(original)  # a new inode, the old bytes
    assert_same_as_clean(catalog, tmp_path, "a revert")
    assert b"Paper 0 on" in (catalog.root / "_site" / "papers" / "paper-0" / "index.html").read_bytes()


def test_a_new_engine_version_starts_from_nothing(catalog, tmp_path, monkeypatch):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    monkeypatch.setattr(papersite.engine.store, "__version__", "99.0.0")
    assert papersite.engine.store.load_session(catalog.root, papersite.engine.store.fingerprint(config, ())) is None
    assert "no input changed" not in run("build", "--config", config, "-o", out)
    assert_same_as_clean(catalog, tmp_path, "a version bump")


def test_a_change_to_the_engine_itself_is_a_change(catalog, tmp_path, monkeypatch):
    config = catalog.root / "site.yaml"
    engine = tmp_path / "engine"
    shutil.copytree(papersite.engine.store.ENGINE, engine, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(papersite.engine.store, "ENGINE", engine)
    before = papersite.engine.store.fingerprint(config, ())
    (engine / "site" / "render.py").write_text((engine / "site" / "render.py").read_text() + "\n# a change\n")
    after = papersite.engine.store.fingerprint(config, (), before.files)
    assert after.engine != before.engine and after.key != before.key


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "garbage"])
def test_a_damaged_cache_is_never_trusted(catalog, tmp_path, damage):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    catalog.paper("paper-2", id="p2", title="Paper 2 edited", body="Edited.")
    cache = catalog.root / ".cache" / "papersite"
    papersite.engine.store.wait_for_saver(catalog.root)
    entries = [entry for entry in cache.iterdir() if entry.suffix in (".json", ".pickle")]
    assert len(entries) == 3  # the record of the build, the session, what the map's layout ahead starts from
    for entry in entries:
        data = entry.read_bytes()
        entry.write_bytes({"truncated": data[:len(data) // 2], "empty": b"",
                           "flipped": data[:-10] + bytes([data[-10] ^ 1]) + data[-9:],
                           "garbage": b"papersite-cache 1 5 0\nhello"}[damage])
    output = assert_same_as_clean(catalog, tmp_path, damage)
    assert "no input changed" not in output
    assert b"Paper 2 edited" in (out / "papers" / "paper-2" / "index.html").read_bytes()


@pytest.mark.parametrize("record", [
    "[" * 100_000 + "]" * 100_000,
    '{"key": "k", "summary": {}, "files": {"site.yaml": [' + "9" * 5000 + "]}}",
    '{"key": "k", "summary": {}, "files": {"CONFIG": {"a": 1}}}',
    '{"key": "k", "summary": [], "files": {}}',
    '{"summary": {}, "files": {}}',
    '{"key": 7, "summary": {}, "files": {}}',
])
def test_a_build_record_of_another_shape_is_ignored_even_when_its_digest_holds(catalog, tmp_path, record):
    """Whatever a record whose digest is right holds, the build does not trip on it."""
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    record = record.replace('"CONFIG"', json.dumps(str(config)))  # an entry the next build looks up
    papersite.engine.store.write_entry(papersite.engine.store.record_path(catalog.root, out), record.encode())
    catalog.paper("paper-2", id="p2", title="Paper 2 edited", body="Edited.")
    assert "no input changed" not in assert_same_as_clean(catalog, tmp_path, "record")
    assert b"Paper 2 edited" in (out / "papers" / "paper-2" / "index.html").read_bytes()


def test_a_damaged_output_manifest_is_a_warning_naming_it_and_is_written_anew(catalog):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    manifest = catalog.root / "._site.manifest.json"
    manifest.write_text('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = CliRunner().invoke(cli, ["build", "-q", "--config", str(config), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"warning: {manifest} is damaged (nested too deeply): ignored, and written anew; "
                             f"the files in {out}/ were compared byte for byte instead\n")
    assert "index.html" in json.loads(manifest.read_text())["files"]
    assert "warning" not in run("build", "--config", config, "-o", out)


def killed_while_writing(write) -> int:
    """The pid of a process that ran write(kill) and died by SIGKILL where it called kill()."""
    pid = os.fork()
    if pid == 0:
        try:
            write(lambda: os.kill(os.getpid(), signal.SIGKILL))
        finally:
            os._exit(1)  # never back into pytest
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return pid


def test_what_a_build_killed_while_saving_the_cache_left_the_next_build_removes(catalog):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    cache = catalog.root / ".cache" / "papersite"

    def half_a_session(kill):
        def dump(file):
            file.write(b"x" * 100_000)
            kill()
        papersite.engine.store.write_entry_from(papersite.engine.store.session_path(catalog.root), dump)

    dead = killed_while_writing(half_a_session)
    leftover = cache / f"session.pickle.{dead}.tmp"
    assert leftover.is_file()
    record = papersite.engine.store.record_path(catalog.root, out)
    kept = {  # being written by a process that runs (this one), or not a name write_entry_from gives
        cache / f"{record.name}.{os.getpid()}.tmp": b"in the making",
        cache / f"session.pickle.tmp": b"someone's",
        cache / f"notes.{dead}.tmp": b"someone's",
    }
    for path, data in kept.items():
        path.write_bytes(data)
    assert "no input changed" in run("build", "--config", config, "-o", out)  # also when nothing is built
    assert not leftover.exists()
    assert {path: path.read_bytes() for path in kept} == kept


def test_a_symlinked_folder_in_content_is_said_every_build_and_what_is_in_it_is_no_input(catalog, tmp_path):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    elsewhere = catalog.root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "b.md").write_text("---\nid: b\n---\nnot a paper of this catalog\n")
    (catalog.root / "content" / "linked").symlink_to(elsewhere)
    warning = ("warning: content/linked: a symlinked folder, not followed: the papers in it are not in the site "
               "(move the folder into content/, or link each file)\n")
    built = CliRunner().invoke(cli, ["build", "--config", str(config), "-o", str(out)])  # the new link is a change
    again = CliRunner().invoke(cli, ["build", "--config", str(config), "-o", str(out)])  # and is said again
    for result, cached in ((built, False), (again, True)):
        assert result.exit_code == 0 and result.output.startswith(warning), result.output
        assert ("no input changed" in result.output) == cached, result.output
    (elsewhere / "b.md").write_text("edited, and still not read\n")
    (elsewhere / "c.md").write_text("new\n")
    assert "no input changed" in run("build", "--config", config, "-o", out)
    assert "linked" not in json.dumps(sorted(tree(out)))
    (catalog.root / "content" / "linked").unlink()
    output = run("build", "--config", config, "-o", out)
    assert "warning" not in output and "no input changed" not in output


def test_a_cache_that_cannot_be_written_is_a_warning(catalog, tmp_path):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    (catalog.root / ".cache").write_text("not a folder")
    result = CliRunner().invoke(cli, ["build", "--config", str(config), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: could not write the build cache" in result.output
    assert (out / "papers" / "paper-1" / "index.html").is_file()
    assert "no input changed" not in run("build", "--config", config, "-o", out)


def test_a_site_github_pages_would_not_publish_is_a_warning(catalog, tmp_path, monkeypatch):
    """The build counts the site's bytes (what Pages counts), whether it wrote, kept or found
    nothing to do, and warns above Pages' 1 GB (here lowered to just under this site)."""
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    first = papersite.engine.command.build(config, out)
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    assert first.size == size and not first.warnings and 10 ** 6 < size < 10 ** 7  # citeproc.js is most of it
    assert "warning" not in run("build", "--config", config, "-o", out)
    monkeypatch.setattr(papersite.engine.sitesize, "PAGES_LIMIT", size - 1)
    for args in (["build", "--clean"], ["build"]):  # everything built; then nothing to do
        result = CliRunner().invoke(cli, [*args, "--config", str(config), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert f"warning: the site is {size / 10 ** 6:.1f} MB, and GitHub Pages publishes sites of at most 1 GB" \
            in result.output, result.output
        assert ("no input changed" in result.output) == (args == ["build"]), result.output
        assert "omit:" not in result.output  # no files of its names are written: nothing to suggest
    catalog.paper("paper-9", id="p9", title="One more paper", body="Text.")
    grown = papersite.engine.command.build(config, out)
    assert grown.size == sum(path.stat().st_size for path in out.rglob("*") if path.is_file()) > size
    assert grown.warnings and not grown.cached


def test_an_output_that_changed_is_built_again(catalog, tmp_path):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    shutil.rmtree(out)
    assert "no input changed" not in run("build", "--config", config, "-o", out)
    assert (out / "index.html").is_file()
    other = tmp_path / "elsewhere"
    assert "no input changed" not in run("build", "--config", config, "-o", other)
    assert "no input changed" not in run("build", "--config", config, "-o", other, "--base-url", "https://x.org/")
    assert b"https://x.org/" in (other / "index.html").read_bytes()


def test_a_no_op_build_loads_no_rendering_library(catalog, tmp_path):
    """What makes it fast: nothing changed, so Jinja, Markdown, lunr and PyYAML stay unloaded."""
    import subprocess
    import sys
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    root = Path(__file__).resolve().parent.parent
    script = ("import sys; from papersite.cli import cli\n"
              "try:\n    cli(['build', '-q', '--config', sys.argv[1], '-o', sys.argv[2]])\n"
              "except SystemExit:\n    pass\n"
              "print(sorted(m for m in ('jinja2', 'markdown', 'lunr', 'yaml') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script, str(config), str(out)], cwd=root,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_the_pages_workflow_keeps_the_cache_between_runs():
    import yaml
    root = Path(__file__).resolve().parent.parent
    steps = yaml.safe_load((root / ".github" / "workflows" / "pages.yml").read_text())["jobs"]["build"]["steps"]
    cached = [i for i, step in enumerate(steps) if step.get("uses", "").startswith("actions/cache@")]
    built = [i for i, step in enumerate(steps) if "build.py build" in step.get("run", "")]
    assert len(cached) == 1 and cached[0] < built[0]
    options = steps[cached[0]]["with"]
    assert options["path"] == ".cache/papersite"
    assert "content/**" in options["key"] and options["restore-keys"].strip() in options["key"]


def test_an_edit_parses_and_renders_only_what_changed(catalog, tmp_path, monkeypatch):
    """The second build really starts from the first: one file parsed, one abstract rendered."""
    import papersite.catalog.bibtex
    import papersite.source.content
    import papersite.papermap.files
    import papersite.text.abstracts
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    catalog.paper("paper-3", id="p3", title="Paper 3 on bounds", body="A changed abstract.")
    parsed, rendered, keyed = [], [], []
    read_paper, render_abstract = papersite.source.content.read_paper, papersite.text.abstracts.render_abstract
    monkeypatch.setattr(papersite.source.content, "read_paper", lambda path, *a: parsed.append(path) or read_paper(path, *a))
    monkeypatch.setattr(papersite.text.abstracts, "render_abstract", lambda s: rendered.append(s) or render_abstract(s))
    base_key = papersite.catalog.bibtex._base_key.__wrapped__  # made anew: not this process's memory of it
    monkeypatch.setattr(papersite.catalog.bibtex, "_base_key", lambda *what: keyed.append(what[-1]) or base_key(*what))
    shown, map_title = [], papersite.papermap.files._shown
    monkeypatch.setattr(papersite.papermap.files, "_shown", lambda title, slug: shown.append(title) or map_title(title, slug))
    run("build", "--config", config, "-o", out)
    assert [p.name for p in parsed] == ["paper-3.md"] and rendered == ["A changed abstract."]
    assert keyed == ["Paper 3 on bounds"]  # the other papers' citation keys come from the session
    assert shown == ["Paper 3 on bounds"]  # and their titles as the map shows them
    assert_same_as_clean(catalog, tmp_path, "one edit")


def test_every_spelling_of_the_config_path_shares_one_cache(catalog, tmp_path, monkeypatch):
    """site.yaml by default, by its absolute path, through ..: one site, one cache (each spelling
    once parsed and rendered the whole catalog again, and messages named files each its own way)."""
    import papersite.source.content
    monkeypatch.chdir(catalog.root)
    run("build")
    assert "no input changed since the last build" in run("build", "--config", catalog.root / "site.yaml")
    assert "no input changed since the last build" in run("build", "--config", f"../{catalog.root.name}/./site.yaml")
    assert "no input changed since the last build" in run("build", "-o", "content/../_site")  # the output too
    catalog.paper("paper-3", id="p3", title="Paper 3 on bounds", body="A changed abstract.")
    parsed = []
    read_paper = papersite.source.content.read_paper
    monkeypatch.setattr(papersite.source.content, "read_paper", lambda path, *a: parsed.append(path) or read_paper(path, *a))
    run("build", "--config", "content/../site.yaml")
    assert parsed == [Path("content/icml-2024/paper-3.md")], parsed  # the others' parses come from the session
    assert_same_as_clean(catalog, tmp_path, "spellings")
    catalog.write("site.yaml", "title: [")
    result = CliRunner().invoke(cli, ["build", "--config", catalog.root / "site.yaml"])
    assert result.exit_code == 1 and result.output.startswith("Error: site.yaml:1: "), result.output
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # from outside the site's folder: absolute
    result = CliRunner().invoke(cli, ["build", "--config", f"../{catalog.root.name}/site.yaml"])
    assert result.output.startswith(f"Error: {catalog.root / 'site.yaml'}:1: "), result.output


def test_an_edit_renders_again_only_the_pages_that_show_it(site, tmp_path, monkeypatch):
    """A title edit re-renders that paper's pages and the listings it is on, not the pages of
    papers and people it shares nothing with (a template the analysis cannot read would
    count as showing the whole catalog: every page rendered on every build)."""
    import papersite.site.render
    site.write("site.yaml", MINIMAL_CONFIG + "  - slug: iclr-2024\n    name: ICLR 2024\n    year: 2024\n")
    def paper(venue, name, title, author, body):
        site.write(f"content/{venue}/{name}.md", f"---\nid: {name}\ntitle: {title}\nauthors: [{author}]\n"
                                                 f"venue: {venue}\nyear: 2024\n---\n{body}\n")
    paper("icml-2024", "kernel-bounds", "Kernel Bounds", "Xavier Kernel", "Generalization bounds for kernels.")
    paper("icml-2024", "kernel-margins", "Kernel Margins", "Xavier Kernel", "Margin bounds for kernels.")
    paper("iclr-2024", "diffusion", "Diffusion Samplers", "Yara Noise", "Diffusion samplers denoise images.")
    config, out = site.root / "site.yaml", site.root / "_site"
    run("build", "--config", config, "-o", out)
    rendered = []
    render_page = papersite.site.render.render_page
    monkeypatch.setattr(papersite.site.render, "render_page", lambda env, page: rendered.append(page.path) or
                        render_page(env, page))
    paper("iclr-2024", "diffusion", "Diffusion Samplers Revisited", "Yara Noise", "Diffusion samplers denoise images.")
    run("build", "--config", config, "-o", out)
    assert {"papers/diffusion/", "venues/iclr-2024/", "authors/yara-noise/"} <= set(rendered), rendered
    untouched = {"papers/kernel-bounds/", "papers/kernel-margins/", "venues/icml-2024/", "authors/xavier-kernel/"}
    assert not untouched & set(rendered), rendered
    assert_same_as_clean(site, tmp_path, "a title edit")


def test_a_page_an_edit_keeps_is_loaded_without_its_context_and_never_makes_it(site, monkeypatch):
    """The session keeps a paper's or an author's page as what its context is made of, and a
    build that keeps the page (nothing it shows changed) never makes the context at all."""
    import papersite.site.pages
    site.write("site.yaml", MINIMAL_CONFIG)
    for name, title, author in (("kernels", "Kernel Bounds", "Xavier Kernel"), ("diffusion", "Diffusion", "Yara Noise")):
        site.write(f"content/icml-2024/{name}.md", f"---\nid: {name}\ntitle: {title}\nauthors: [{author}]\n"
                                                   f"venue: icml-2024\nyear: 2024\n---\nAbout {name}.\n")
    config, out = site.root / "site.yaml", site.root / "_site"
    run("build", "--config", config, "-o", out)
    made = []

    def recorded(real):
        @functools.wraps(real)  # pickled by name, as the real one is
        def make(*inputs):
            made.append(inputs[0])
            return real(*inputs)
        return make

    for name in ("paper_context", "author_context"):  # found by name when a session loads
        monkeypatch.setattr(papersite.site.pages, name, recorded(getattr(papersite.site.pages, name)))
    site.write("content/icml-2024/diffusion.md", "---\nid: diffusion\ntitle: Diffusion Again\nauthors: [Yara Noise]\n"
                                                 "venue: icml-2024\nyear: 2024\n---\nAbout diffusion.\n")
    run("build", "--config", config, "-o", out)
    shown = sorted({getattr(what, "title", None) or what.name for what in made})
    assert "Diffusion Again" in shown and "Yara Noise" in shown
    assert "Xavier Kernel" not in shown, shown  # an author the edit did not touch: page kept
    session = pickle.loads(papersite.engine.store.read_entry(papersite.engine.store.session_path(site.root)))[1]
    kept = session["pages"].pages["authors/xavier-kernel/"][1]
    assert kept._context is None and kept.context["person"].name == "Xavier Kernel"


def author_contexts_made(monkeypatch) -> list[str]:
    """The names of the authors whose page contexts the builds from now on make (in this process)."""
    import papersite.site.pages
    made = []
    real = papersite.site.pages.author_context

    @functools.wraps(real)  # pickled by name, as the real one is
    def recorded(author, *inputs):
        made.append(author.name)
        return real(author, *inputs)
    monkeypatch.setattr(papersite.site.pages, "author_context", recorded)
    return made


def test_a_page_whose_context_matched_is_kept_by_identity_from_then_on(site, monkeypatch):
    """A file saved again with nothing shown changed (a comment added) gives a new Paper, so its
    author's page is planned anew and compared by its context once; the page is then kept as
    this build's, so later builds find it by identity and never make that context again."""
    site.write("site.yaml", MINIMAL_CONFIG)

    def write(name, title, author, comment=""):
        site.write(f"content/icml-2024/{name}.md", f"---\nid: {name}\ntitle: {title}\nauthors: [{author}]\n"
                                                   f"venue: icml-2024\nyear: 2024\n{comment}---\nAbout {name}.\n")
    write("kernels", "Kernel Bounds", "Xavier Kernel")
    write("diffusion", "Diffusion", "Yara Noise")
    config, out = site.root / "site.yaml", site.root / "_site"
    run("build", "--config", config, "-o", out)
    write("diffusion", "Diffusion", "Yara Noise", "# checked by hand\n")
    run("build", "--config", config, "-o", out)
    made = author_contexts_made(monkeypatch)
    write("kernels", "Kernel Bounds Again", "Xavier Kernel")
    run("build", "--config", config, "-o", out)
    assert "Xavier Kernel" in made and "Yara Noise" not in made, made
    session = pickle.loads(papersite.engine.store.read_entry(papersite.engine.store.session_path(site.root)))[1]
    planned = session["plans"][("author", "yara-noise")][1][0]
    assert session["pages"].pages["authors/yara-noise/"][1] is planned
    assert b"Kernel Bounds Again" in (out / "authors" / "xavier-kernel" / "index.html").read_bytes()


def test_an_author_list_edit_re_plans_only_the_people_it_touched(site, tmp_path, monkeypatch):
    """Who is who is worked out afresh after an author-list edit, but the people who come out the
    same are the same Author objects: their pages are kept without making their contexts."""
    site.write("site.yaml", MINIMAL_CONFIG)

    def write(name, authors):
        site.write(f"content/icml-2024/{name}.md", f"---\nid: {name}\ntitle: {name.title()}\nauthors: [{authors}]\n"
                                                   f"venue: icml-2024\nyear: 2024\n---\nAbout {name}.\n")
    write("kernels", "Xavier Kernel, Wei Chen")
    write("diffusion", "Yara Noise, Wei Chen")
    config, out = site.root / "site.yaml", site.root / "_site"
    run("build", "--config", config, "-o", out)
    made = author_contexts_made(monkeypatch)
    write("diffusion", "Yara Noise, Wei Chen, Zoe Sampler")
    run("build", "--config", config, "-o", out)
    assert "Zoe Sampler" in made and "Xavier Kernel" not in made, made
    assert b"Zoe Sampler" in (out / "authors" / "wei-chen" / "index.html").read_bytes()
    assert_same_as_clean(site, tmp_path, "an author added")


def test_the_cache_reads_what_the_build_reads():
    """The store finds the theme without importing the modules that use it."""
    from papersite.site import render
    assert papersite.engine.store.theme_root() == render.THEME


def test_another_version_of_a_dependency_is_another_engine(catalog, monkeypatch):
    config = catalog.root / "site.yaml"
    before = papersite.engine.store.fingerprint(config, ())
    installed = papersite.engine.store.installed_distributions()
    assert any(name.startswith("markdown-") for name in installed)
    monkeypatch.setattr(papersite.engine.store, "installed_distributions",
                        lambda: [name.replace("markdown-", "markdown-0.") for name in installed])
    assert papersite.engine.store.fingerprint(config, (), before.files).engine != before.engine


def test_a_file_added_to_the_output_by_hand_is_noticed(catalog, tmp_path):
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    (out / "papers" / "notes.txt").write_text("mine\n")
    result = CliRunner().invoke(cli, ["build", "--config", str(config), "-o", str(out)])
    assert result.exit_code == 1 and "notes.txt: not written by papersite" in result.output


def test_the_map_layout_is_kept_until_a_title_or_abstract_changes(catalog, monkeypatch):
    """The layout is the map's costly part: a build after an edit that leaves every text as
    it was (here a paper's topics) takes it from the cache; a changed abstract computes it."""
    from papersite.papermap import layout as paper_map
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    points = (out / "map" / "points.json").read_bytes()
    computed = []
    real_fit = paper_map.fit  # the frame (all 6 papers are landmarks, and make it)
    monkeypatch.setattr(paper_map, "fit", lambda counts, digest: computed.append(len(counts))
                        or real_fit(counts, digest))
    catalog.paper("paper-2", id="p2", title="Paper 2 on generalization", topics="[generative-models]",
                  body="We study generalization bounds 2 with $x^2$ and diffusion models.")
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    assert computed == [] and (out / "map" / "points.json").read_bytes() != b""
    catalog.paper("paper-2", id="p2", title="Paper 2 on generalization", topics="[generative-models]",
                  body="An abstract about bandits, now.")
    run("build", "--config", config, "-o", out)
    assert computed == [6]
    assert points  # the first build wrote a map


@pytest.mark.skipif(not __import__("papersite.parallel").parallel.worth_forking(10**6), reason="needs two cores")
@pytest.mark.parametrize("guess", ["right", "wrong", "damaged"])
def test_an_edit_to_a_landmark_is_laid_out_ahead(catalog, tmp_path, monkeypatch, guess):
    """The landmarks' layout is made ahead, in a process started before the session loads, and
    taken when it is of the very texts the build lays out, with every other paper placed among
    the landmarks there too; a wrong guess, or a damaged file to guess from, is laid out as
    usual. Either way: the clean build's site."""
    from papersite import parallel
    from papersite.engine import map_ahead as layout_ahead
    from papersite.papermap import layout as paper_map
    monkeypatch.setattr(paper_map, "LANDMARKS", 3)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setattr(layout_ahead, "WORTH_FROM", 0)
    # Laid out in a forked process rather than a fresh one, which would not count fits and places
    monkeypatch.setattr(paper_map, "Detachable", lambda inline, detach, spare=None: inline)
    config, out = catalog.root / "site.yaml", catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    landmark = paper_map.landmarks([f"p{n}" for n in range(6)])[0]
    catalog.paper(f"paper-{landmark[1:]}", id=landmark, title="A landmark retitled",
                  body="We study generalization bounds with $x$ and diffusion models, again.")
    if guess == "wrong":
        monkeypatch.setattr(layout_ahead, "map_text", lambda title, text: "a guess of another text")
    elif guess == "damaged":
        path = layout_ahead.ahead_path(catalog.root)
        path.write_bytes(path.read_bytes()[:-100])
    fits = tmp_path / "fits"  # one line a landmarks' layout, whichever process made it
    real_fit = paper_map.fit
    monkeypatch.setattr(paper_map, "fit", lambda *args: (fits.open("a").write("fit\n"), real_fit(*args))[1])
    monkeypatch.setattr(layout_ahead, "fit", paper_map.fit)
    places = tmp_path / "places"  # one line a call: by the build or ahead, and how many texts it placed anew
    real_place = paper_map.place_texts

    def placing(by):
        def place(skeleton, texts, counted, last=None, before=None):
            with places.open("a") as log:
                log.write(f"{by} {sum(1 for d in texts if last is None or d not in last.rows)}\n")
            return real_place(skeleton, texts, counted, last, before)
        return place
    monkeypatch.setattr(paper_map, "place_texts", placing("build"))
    monkeypatch.setattr(layout_ahead, "place_on_cores", placing("ahead"))
    run("build", "--config", config, "-o", out)
    made = len(fits.read_text().splitlines()) if fits.exists() else 0
    # right: made once, ahead; wrong: ahead, and again by the build; damaged: by the build alone
    assert made == {"right": 1, "wrong": 2, "damaged": 1}[guess]
    calls = [line.split() for line in places.read_text().splitlines()]
    by_build = sum(int(count) for by, count in calls if by == "build")
    assert by_build == {"right": 0, "wrong": 3, "damaged": 3}[guess]  # the three papers no landmark
    assert_same_as_clean(catalog, tmp_path, f"a landmark's edit, guessed {guess}")


@pytest.mark.skipif(not __import__("papersite.parallel").parallel.worth_forking(10**6), reason="needs two cores")
@pytest.mark.parametrize("edited", ["the frame's landmark", "another landmark", "another paper"])
def test_a_warm_build_lays_the_map_out_ahead_after_an_edit_to_a_text_of_its_frame_alone(catalog, tmp_path,
                                                                                        monkeypatch, edited):
    """The warm process (engine/warm.py) builds from the cache it holds: its layout ahead is made
    only when an edited file gave the paper of a text of the map's frame. Another landmark's edit
    is laid out by the build, in the frame it has. (Made in a fork here, which sees the constants
    patched below: the fresh interpreter it is made in is tested with the real ones, below.)"""
    from papersite import parallel
    from papersite.engine import command, map_ahead as layout_ahead
    from papersite.engine.store import fingerprint, spelled_output
    from papersite.papermap import layout as paper_map
    monkeypatch.setattr(paper_map, "LANDMARKS", 3)
    monkeypatch.setattr(paper_map, "FRAME", 1)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setattr(paper_map, "Detachable", lambda inline, detach, spare=None: inline)
    config, out = command.one_spelling(catalog.root / "site.yaml"), catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    memo, since = command._kept[0], fingerprint(config, (spelled_output(out), None))
    chosen = paper_map.landmarks([f"p{n}" for n in range(6)])
    key = {"the frame's landmark": chosen[0], "another landmark": chosen[1]}.get(edited) \
        or next(f"p{n}" for n in range(6) if f"p{n}" not in chosen)
    catalog.paper(f"paper-{key[1:]}", id=key, title="Retitled", body="We study bandits with $x$, again.")
    started, fits = [], tmp_path / "fits"
    real_ahead, real_fit = layout_ahead.LayoutAhead, paper_map.fit
    monkeypatch.setattr(layout_ahead, "LayoutAhead", lambda *args: started.append(1) or real_ahead(*args))
    monkeypatch.setattr(paper_map, "fit", lambda *args: (fits.open("a").write("fit\n"), real_fit(*args))[1])
    monkeypatch.setattr(layout_ahead, "fit", paper_map.fit)
    monkeypatch.setattr(layout_ahead, "in_fresh", lambda func, args, spare: parallel.Background(
        lambda: func(*args), lambda: None))
    # by the build (in a process of its own, or not), not ahead (map_ahead has the function as it was)
    laid, real_lay_out = tmp_path / "laid", paper_map.lay_out_landmarks
    monkeypatch.setattr(paper_map, "lay_out_landmarks", lambda *args: (laid.open("a").write("laid\n"),
                                                                       real_lay_out(*args))[1])
    now = fingerprint(config, (spelled_output(out), None), since.files)
    command.build_now(config, out, None, now, memo=memo, since=since)
    made = len(fits.read_text().splitlines()) if fits.exists() else 0
    assert (len(started), made) == ((1, 1) if edited == "the frame's landmark" else (0, 0))
    assert laid.exists() == (edited == "another landmark")  # the frame's: laid out ahead, and taken
    run("build", "--clean", "--config", config, "-o", tmp_path / "clean")
    assert tree(out) == tree(tmp_path / "clean")


@pytest.mark.skipif(not __import__("papersite.parallel").parallel.worth_forking(10**6), reason="needs two cores")
@pytest.mark.parametrize("change", ["edited", "added and removed"])
def test_a_warm_builds_layout_ahead_is_made_in_the_spare_interpreter_started_between_builds(catalog, tmp_path,
                                                                                            monkeypatch, change):
    """Made in a fresh interpreter, not a fork of the warm process (whose cache both would then copy
    page by page as they wrote to it): the map's spare, started between builds, from what the last
    build left on disk, which it read before the build asked (gone by then here), and the files
    changed since. The build takes its layout, and fits no frame itself."""
    from papersite import parallel
    from papersite.engine import command, map_ahead as layout_ahead
    from papersite.engine.store import fingerprint, spelled_output
    from papersite.papermap import layout as paper_map
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # every paper is a landmark, and a text of the frame
    config, out = command.one_spelling(catalog.root / "site.yaml"), catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    memo, since = command._kept[0], fingerprint(config, (spelled_output(out), None))
    layout_ahead.ready_for_next_build(memo)
    spare = parallel._spares[paper_map.SPARE]
    layout_ahead.keep(catalog.root, since, memo)  # as the warm process keeps it, and has the spare read it
    parallel.prepare_spare(paper_map.SPARE, os.mkdir, (str(tmp_path / "read"),))  # once it has read it
    waited = time.monotonic()
    while not (tmp_path / "read").exists() and time.monotonic() - waited < 60:
        time.sleep(0.05)
    layout_ahead.ahead_path(catalog.root).unlink()
    if change == "edited":
        catalog.paper("paper-3", id="p3", title="Retitled", body="We study bandits with $x$, again.")
    else:
        catalog.paper("paper-9", id="p9", title="A new paper", body="We study bandits with $x$, again.")
        (catalog.root / "content" / "icml-2024" / "paper-2.md").unlink()
    ran, fits, real_fresh = [], tmp_path / "fits", parallel.in_fresh
    monkeypatch.setattr(layout_ahead, "in_fresh", lambda *args: ran.append(args[0]) or real_fresh(*args))
    real_fit = paper_map.fit
    monkeypatch.setattr(paper_map, "fit", lambda *args: (fits.open("a").write("fit\n"), real_fit(*args))[1])
    monkeypatch.setattr(paper_map, "Detachable", lambda inline, detach, spare=None: inline)  # any fit: here
    now = fingerprint(config, (spelled_output(out), None), since.files)
    command.build_now(config, out, None, now, memo=memo, since=since)
    assert ran == [layout_ahead.lay_out] and not fits.exists()  # made there, and taken
    assert paper_map.SPARE not in parallel._spares and spare.wait(10) == 0  # by the spare, now ended
    run("build", "--clean", "--config", config, "-o", tmp_path / "clean")
    assert tree(out) == tree(tmp_path / "clean")


def test_a_layout_ahead_starts_only_from_what_the_build_of_the_inputs_it_is_told_left(catalog):
    """Sent only the files changed since the last build, the process ahead starts from what that
    build left, or does nothing: another build's would be another catalog's."""
    from papersite.engine import command, map_ahead as layout_ahead
    from papersite.engine.store import fingerprint, spelled_output
    from papersite.source.config import load_config
    config, out = command.one_spelling(catalog.root / "site.yaml"), catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    since = fingerprint(config, (spelled_output(out), None))
    site = load_config(config)
    edited = catalog.paper("paper-3", id="p3", title="Retitled", body="We study bandits with $x$, again.")
    changed = {str(edited): "a digest the process ahead has not seen"}
    made = layout_ahead.lay_out(catalog.root, site, changed, since.engine, since.key)
    assert made is not None and "p3" in made[0].keys  # every paper a landmark here
    assert layout_ahead.lay_out(catalog.root, site, changed, since.engine, "another build's inputs") is None
    layout_ahead.preload(catalog.root, since.engine)  # as the spare does, then the file is gone
    layout_ahead.ahead_path(catalog.root).unlink()
    assert layout_ahead.lay_out(catalog.root, site, changed, since.engine, since.key)[0].digest == made[0].digest
    assert layout_ahead.lay_out(catalog.root, site, changed, since.engine, since.key) is None  # read once


def test_a_warm_build_walks_content_only_when_a_paper_came_or_went_and_reloads_a_changed_config(catalog,
                                                                                               tmp_path, monkeypatch):
    """In the warm process (engine/warm.py) the command's fingerprint says which files changed: an
    edit to papers alone reads neither content/'s listing nor site.yaml again; a paper added, or
    site.yaml edited, is read as a cold build reads it. Each time: the clean build's bytes."""
    from papersite.engine import command
    from papersite.engine.store import fingerprint, spelled_output
    from papersite.source import content, config as site_config
    config, out = command.one_spelling(catalog.root / "site.yaml"), catalog.root / "_site"
    run("build", "--config", config, "-o", out)
    papersite.engine.store.wait_for_saver(catalog.root)
    memo, since = command._kept[0], fingerprint(config, (spelled_output(out), None))
    calls = []
    for module, name in ((content, "_content_entries"), (site_config, "load_config")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, real=real, name=name, **kwargs: (
            calls.append(name), real(*args, **kwargs))[1])

    def warm_build(step: str) -> list[str]:
        nonlocal since
        calls.clear()
        now = fingerprint(config, (spelled_output(out), None), since.files)
        command.build_now(config, out, None, now, memo=memo, since=since)
        since, called = now, sorted(set(calls))
        run("build", "--clean", "--config", config, "-o", tmp_path / step)
        assert tree(out) == tree(tmp_path / step), step
        return called

    catalog.paper("paper-2", id="p2", title="Paper 2 retitled", body="A new abstract on bandits.")
    assert warm_build("edited") == []
    catalog.paper("paper-7", id="p7", title="A new paper", body="On kernels.")
    assert warm_build("added") == ["_content_entries"]
    assert (out / "papers" / "paper-7" / "index.html").exists()
    catalog.write("site.yaml", (catalog.root / "site.yaml").read_text().replace("Test Catalog", "Renamed Catalog"))
    assert warm_build("renamed") == ["load_config"]
    assert b"Renamed Catalog" in (out / "index.html").read_bytes()
    (catalog.root / "content" / "icml-2024" / "paper-7.md").unlink()
    assert warm_build("removed") == ["_content_entries"]
    assert not (out / "papers" / "paper-7").exists()


SAVER_WAITED = """
import fcntl, os, signal, sys, threading, time
from pathlib import Path
from papersite.engine.store import wait_for_saver
from papersite.cli import signals_handled

def strike():
    time.sleep(0.3)  # the main thread waits for the saver's lock
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this thread's, as a pool's may get it

threading.Thread(target=strike, daemon=True).start()
try:
    with signals_handled():
        wait_for_saver(Path(sys.argv[1]))
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_ctrl_c_handed_to_another_thread_ends_the_wait_for_the_saver(tmp_path):
    # `build` waits for the last build's saver with the survey's and the layout ahead's pools
    # running: their threads may get the signal (tests/test_parallel.py)
    import fcntl
    from tests.test_parallel import run_apart

    lock = papersite.engine.store.cache_dir(tmp_path) / "session.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # a saver still writing
        assert run_apart(SAVER_WAITED.replace("sys.argv[1]", repr(str(tmp_path)))).returncode == 130


def test_an_entry_written_as_it_is_made_replaces_the_old_one_whole_or_not_at_all(tmp_path):
    """A cache entry streams to its file (a 50,000-paper session is 535 MB): one that fails half-way
    leaves the last entry as it was, and no temporary file; one that completes reads back whole."""
    from papersite.engine.store import read_entry, write_entry, write_entry_from
    path = tmp_path / "entry"
    write_entry(path, b"the last session")

    def failing(file):
        file.write(b"half of a new one")
        raise OSError("no space left on device")
    with pytest.raises(OSError):
        write_entry_from(path, failing)
    assert bytes(read_entry(path)) == b"the last session"
    assert [p.name for p in tmp_path.iterdir()] == ["entry"]
    chunks = [b"x" * 70_000, memoryview(b"y" * 10), b""]
    write_entry_from(path, lambda file: [file.write(chunk) for chunk in chunks])
    assert bytes(read_entry(path)) == b"x" * 70_000 + b"y" * 10


def test_a_record_written_after_an_edit_reads_as_the_fingerprint_it_was_written_from(tmp_path):
    """write_record encodes only the files whose entries are new since this process's last record;
    what it writes still reads back as the whole fingerprint, names in any script included."""
    store = papersite.engine.store
    root, output = tmp_path, tmp_path / "_site"
    files = {"site.yaml": [1, 2, 3, 4, "a"], "content/é/\"q\".md": [5, 6, 7, 8, "b"], "content/x\udcff.md": [9, 9, 9, 9, "c"]}
    first = store.Fingerprint(files, "k1", "e")
    store.write_record(root, output, first, {"papers": 2}, None, ["a warning"])
    assert store.read_record(root, output)["files"] == files
    edited = {**files, "content/é/\"q\".md": [5, 6, 7, 9, "d"], "content/new.md": [1, 1, 1, 1, "e"]}
    del edited["site.yaml"]
    store.write_record(root, output, store.Fingerprint(edited, "k2", "e"), {"papers": 3}, None, [])
    record = store.read_record(root, output)
    assert record["files"] == edited and record["key"] == "k2" and record["summary"] == {"papers": 3}
    assert list(record["files"]) == list(edited)
