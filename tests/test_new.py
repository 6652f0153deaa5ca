"""`new DIR`: a fresh catalog that builds, imports and serves straight away, and never overwrites."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from packaging.requirements import Requirement

import build
from papersite import __version__, scaffold
from papersite.site.render import THEME
from papersite.preview.server import Preview
from papersite.site.static import NPM_ASSETS
from tests.conftest import ROOT
from tests.htmlcheck import parse

BIB = """\
@inproceedings{lovelace2024diffusion,
  title = {Faster Diffusion Models for Image Generation},
  author = {Lovelace, Ada and Turing, Alan},
  booktitle = {International Conference on Machine Learning},
  year = {2024},
  abstract = {We speed up sampling from diffusion models for image generation with fewer denoising steps.}
}
"""


def run(*args):
    return CliRunner().invoke(build.cli, [str(a) for a in args])


def new(folder: Path):
    result = run("new", folder)
    assert result.exit_code == 0, result.output
    return folder


def test_a_new_catalog_builds_through_the_cli(tmp_path):
    folder = new(tmp_path / "my-papers")
    assert sorted(p.name for p in folder.iterdir()) == [
        ".github", ".gitignore", ".npmrc", "README.md", "content", "package-lock.json", "package.json",
        "requirements.txt", "site.yaml", "static", "templates"]
    assert [p.name for p in (folder / "content").iterdir()] == [".gitkeep"]  # no papers, but git keeps it

    result = run("build", "--config", folder / "site.yaml", "-o", folder / "_site")
    assert result.exit_code == 0, result.output
    home = parse(folder / "_site" / "index.html")
    assert "my-papers" in home.h1
    for asset in home.assets:  # the copied theme's stylesheet and scripts, and lunr.js, are there
        if asset.startswith("/static/"):
            assert (folder / "_site" / asset.lstrip("/")).is_file(), asset
    assert (folder / "_site" / "static" / "lunr.min.js").is_file()
    assert "/search/" in home.links and (folder / "_site" / "search" / "index.html").is_file()


def test_a_new_catalog_imports_papers_and_gains_their_venue(tmp_path):
    folder = new(tmp_path / "catalog")
    (tmp_path / "papers.bib").write_text(BIB, encoding="utf-8")
    result = run("import", tmp_path / "papers.bib", "--config", folder / "site.yaml")
    assert result.exit_code == 0, result.output
    config = yaml.safe_load((folder / "site.yaml").read_text(encoding="utf-8"))
    [venue] = config["venues"]  # appended where `venues: []` was
    [paper] = (folder / "content").rglob("*.md")
    assert "generative-models" in yaml.safe_load(paper.read_text(encoding="utf-8").split("---")[1])["topics"]

    result = run("build", "-q", "--config", folder / "site.yaml", "-o", folder / "_site")
    assert result.exit_code == 0, result.output
    page = parse(folder / "_site" / "papers" / paper.stem / "index.html")
    assert page.h1.strip() == "Faster Diffusion Models for Image Generation"
    assert f"/venues/{venue['slug']}/" in page.links


@pytest.mark.parametrize("slug, from_records", [("icml-2024", True), ("graph-reading-group", False)])
def test_a_new_catalog_imports_into_a_venue_it_names(tmp_path, slug, from_records):
    """`import FILE --venue SLUG` in a catalog with `venues: []` declares SLUG (named as the
    records name their venue, else after the slug, with their year) and says so."""
    folder = new(tmp_path / "catalog")
    bib = BIB if from_records else BIB.replace("  booktitle = {International Conference on Machine Learning},\n", "")
    (tmp_path / "papers.bib").write_text(bib, encoding="utf-8")
    result = run("import", tmp_path / "papers.bib", "--venue", slug, "--config", folder / "site.yaml")
    assert result.exit_code == 0, result.output
    assert f"added venue '{slug}' to {folder / 'site.yaml'}: check its name and full_name" in result.output
    assert result.output.splitlines()[-1] == "1 record read: 1 created, 0 updated, 0 unchanged, 0 skipped."
    [venue] = yaml.safe_load((folder / "site.yaml").read_text(encoding="utf-8"))["venues"]
    named = ("ICML 2024", 2024) if from_records else ("Graph Reading Group", 2024)  # ICML: a known long name
    assert (venue["slug"], venue["name"], venue.get("year")) == (slug, *named)
    [paper] = (folder / "content").rglob("*.md")
    assert paper.parent.name == slug

    again = run("import", tmp_path / "papers.bib", "--venue", slug, "--config", folder / "site.yaml")
    assert again.exit_code == 0 and "added venue" not in again.output
    assert again.output.splitlines()[-1] == "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped."
    result = run("build", "-q", "--config", folder / "site.yaml", "-o", folder / "_site")
    assert result.exit_code == 0, result.output
    page = parse(folder / "_site" / "papers" / paper.stem / "index.html")
    assert page.h1.strip() == "Faster Diffusion Models for Image Generation"
    assert f"/venues/{slug}/" in page.links
    assert (folder / "_site" / "venues" / slug / "index.html").is_file()


def test_a_venue_slug_close_to_a_declared_one_or_not_a_slug_is_refused(tmp_path):
    folder = new(tmp_path / "catalog")
    (tmp_path / "papers.bib").write_text(BIB, encoding="utf-8")
    assert run("import", tmp_path / "papers.bib", "--venue", "icml-2024", "--config", folder / "site.yaml").exit_code == 0
    before = (folder / "site.yaml").read_bytes()
    for slug, message in (("icml-2042", "unknown venue 'icml-2042'; did you mean 'icml-2024'?"),
                          ("ICML 2025", "'ICML 2025' is not a venue slug: lower-case letters, digits and dashes, "
                                        "such as 'icml-2025'")):
        result = run("import", tmp_path / "papers.bib", "--venue", slug, "--config", folder / "site.yaml")
        assert result.exit_code == 1 and message in result.output
    assert (folder / "site.yaml").read_bytes() == before


@pytest.mark.parametrize("command, shown", [(["-m", "papersite"], "python -m papersite"),
                                            ([str(ROOT / "build.py")], "python build.py")])
def test_an_empty_build_says_how_to_import_as_the_user_runs_it(tmp_path, command, shown):
    folder = new(tmp_path / "catalog")
    proc = subprocess.run([sys.executable, *command, "build", "-q"], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"warning: no papers in content/: built an empty catalog "
                           f"(import abstracts with '{shown} import FILE')\n")


def test_a_new_catalog_serves_straight_away(tmp_path):
    folder = new(tmp_path / "catalog")
    preview = Preview(folder / "site.yaml", None, "127.0.0.1", 0, log=lambda line: None)
    preview.start()
    try:
        with urllib.request.urlopen(preview.url, timeout=60) as response:
            assert response.status == 200 and b"<h1" in response.read()
        with urllib.request.urlopen(preview.url + "static/lunr.min.js", timeout=60) as response:
            assert response.status == 200
    finally:
        preview.stop()


def test_a_new_catalog_holds_the_default_theme_and_taxonomy(tmp_path):
    folder = new(tmp_path / "catalog")
    for name in ("templates", "static"):
        theme = sorted(p.relative_to(THEME / name) for p in (THEME / name).rglob("*") if p.is_file())
        copied = sorted(p.relative_to(folder / name) for p in (folder / name).rglob("*") if p.is_file())
        assert copied == theme
        assert all((folder / name / p).read_bytes() == (THEME / name / p).read_bytes() for p in theme)
    config = yaml.safe_load((folder / "site.yaml").read_text(encoding="utf-8"))
    default = yaml.safe_load(scaffold.DEFAULT_TOPICS.read_text(encoding="utf-8"))
    assert config["topics"] == default["topics"] and config["venues"] == []
    assert len((folder / "site.yaml").read_text(encoding="utf-8").splitlines()) - \
        len(scaffold.DEFAULT_TOPICS.read_text(encoding="utf-8").splitlines()) < 15  # short, but for the topics
    ignored = (folder / ".gitignore").read_text(encoding="utf-8").split()
    assert {"_site/", ".cache/", "node_modules/"} <= set(ignored)


def test_the_new_lockfile_pins_the_engines_front_end_packages(tmp_path):
    """`npm ci` in a new catalog installs what the engine's own lockfile pins, and every npm
    package the build ships (a new asset in static_files must reach the scaffold too)."""
    folder = new(tmp_path / "catalog")
    ours = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))
    shipped = {relative.split("/")[0] for relative in NPM_ASSETS.values()}
    assert set(package["dependencies"]) == shipped == set(lock["packages"][""]["dependencies"])
    for name in shipped:
        assert lock["packages"][f"node_modules/{name}"] == ours[f"node_modules/{name}"]
        assert package["dependencies"][name] == ours[""]["dependencies"][name]


def test_an_empty_folder_is_fine(tmp_path):
    (tmp_path / "empty").mkdir()
    assert (new(tmp_path / "empty") / "site.yaml").is_file()


@pytest.mark.parametrize("occupant", ["notes.txt", ".git"])
def test_a_folder_that_holds_anything_is_refused_and_left_alone(tmp_path, occupant):
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / occupant).write_text("mine", encoding="utf-8")
    result = run("new", folder)
    assert result.exit_code == 1
    assert result.output == f"Error: {folder}: is not empty: give a new or empty folder (new never overwrites)\n"
    assert [p.name for p in folder.iterdir()] == [occupant]
    assert (folder / occupant).read_text(encoding="utf-8") == "mine"


def test_a_file_is_refused(tmp_path):
    (tmp_path / "site.yaml").write_text("title: mine\n", encoding="utf-8")
    result = run("new", tmp_path / "site.yaml")
    assert result.exit_code == 1 and "exists and is not a folder" in result.output
    assert len(result.output.splitlines()) == 1
    assert (tmp_path / "site.yaml").read_text(encoding="utf-8") == "title: mine\n"


def test_a_failure_takes_back_what_it_made(tmp_path, monkeypatch):
    def broken():
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scaffold, "_default_topics", broken)  # after content/ and the theme are copied
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "fresh", tmp_path / "empty"):
        result = run("new", folder)
        assert result.exit_code == 1 and "No space left on device" in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["empty"]  # the folder new made is gone, the user's stays
    assert list((tmp_path / "empty").iterdir()) == []


# --- publishing with GitHub Pages, and theme updates -------------------------------------------

PAGES_URL = "https://someone.github.io/my-papers"  # what actions/configure-pages gives: no trailing slash


def workflow_steps(folder: Path) -> tuple[dict, list[dict], list[dict]]:
    workflow = yaml.safe_load((folder / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    return workflow, workflow["jobs"]["build"]["steps"], workflow["jobs"]["deploy"]["steps"]


def test_a_new_catalog_has_a_pages_workflow_with_its_readmes_commands(tmp_path):
    folder = new(tmp_path / "my-papers")
    workflow, build_steps, deploy_steps = workflow_steps(folder)
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    assert workflow["jobs"]["deploy"]["needs"] == "build"
    assert workflow["jobs"]["deploy"]["environment"]["name"] == "github-pages"
    uses = [step["uses"] for step in build_steps + deploy_steps if "uses" in step]
    names = [action.split("@")[0] for action in uses]
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(names)
    upload = next(s for s in build_steps if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_site"
    # every action at the major version the engine's own workflow has been run with
    _, ours_build, ours_deploy = workflow_steps(ROOT)
    ours = {s["uses"].split("@")[0]: s["uses"] for s in ours_build + ours_deploy if "uses" in s}
    assert uses == [ours[name] for name in names]

    runs = [step["run"].strip() for step in build_steps if "run" in step]
    assert runs == ["pip install -q -r requirements.txt", "npm ci",
                    'papersite build --base-url "${{ steps.pages.outputs.base_url }}/"']
    # the commands the catalog's README tells its owner to type, and papersite's README too
    readme = (folder / "README.md").read_text(encoding="utf-8")
    engine_readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in ("pip install -q -r requirements.txt", "npm ci", "papersite build"):
        assert f"\n{command} " in readme, command
        assert command in engine_readme, command


def requirement_of(folder: Path) -> Requirement:
    lines = [line for line in (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")]
    [requirement] = [Requirement(line) for line in lines]
    assert requirement.name == "papersite"  # the name pyproject.toml gives the package
    assert 'name = "papersite"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return requirement


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("origin, fetched_from", [
    ("https://github.com/some-lab/papersite.git", "https://github.com/some-lab/papersite.git"),
    ("git@github.com:some-lab/papersite.git", "https://github.com/some-lab/papersite.git"),
])
def test_a_new_catalog_installs_papersite_from_the_checkout_it_was_made_with(tmp_path, origin, fetched_from):
    checkout = tmp_path / "papersite"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "papersite"\n', encoding="utf-8")
    git(checkout, "init", "-q")
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    git(checkout, "remote", "add", "origin", origin)
    source = scaffold.papersite_source(checkout)
    folder = scaffold.new_catalog(tmp_path / "catalog", source)
    assert source.found
    assert requirement_of(folder).url == f"git+{fetched_from}@{git(checkout, 'rev-parse', 'HEAD')}"


def test_a_papersite_from_nowhere_github_can_fetch_is_named_as_a_guess(tmp_path):
    checkout = tmp_path / "papersite"  # a checkout whose origin is a folder on this machine
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "papersite"\n', encoding="utf-8")
    git(checkout, "init", "-q")
    git(checkout, "remote", "add", "origin", str(tmp_path / "elsewhere"))
    source = scaffold.papersite_source(checkout)
    assert not source.found
    assert requirement_of(scaffold.new_catalog(tmp_path / "catalog", source)).url == \
        f"git+{scaffold.PAPERSITE_HOME}@v{__version__}"


def test_new_says_when_the_papersite_it_pins_is_a_guess(tmp_path, monkeypatch):
    guess = scaffold.PapersiteSource(f"git+{scaffold.PAPERSITE_HOME}@v{__version__}", False)
    monkeypatch.setattr(scaffold, "papersite_source", lambda: guess)
    result = run("new", tmp_path / "catalog")
    assert result.exit_code == 0
    assert f"{tmp_path / 'catalog' / 'requirements.txt'}: installs papersite from {guess.url}, a guess" in result.output
    assert requirement_of(tmp_path / "catalog").url == guess.url


def test_the_workflows_build_steps_run_in_a_new_catalog(tmp_path):
    """Run the workflow's steps after the install (npm ci, papersite build) as the runner would,
    offline: `papersite` is this checkout, configure-pages' output a project site's address."""
    folder = new(tmp_path / "my-papers")
    (tmp_path / "papers.bib").write_text(BIB, encoding="utf-8")
    assert run("import", tmp_path / "papers.bib", "--config", folder / "site.yaml").exit_code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "papersite").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m papersite "$@"\n')
    (bin_dir / "papersite").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    _, build_steps, _ = workflow_steps(folder)
    for step in build_steps:
        command = step.get("run", "").strip()
        if not command or command.startswith("pip install"):
            continue
        command = command.replace("${{ steps.pages.outputs.base_url }}", PAGES_URL)
        if command == "npm ci":
            command = "npm ci --offline"  # from npm's cache, which the engine's own `npm ci` filled
        done = subprocess.run(["bash", "-e", "-c", command], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert (folder / "node_modules" / "lunr" / "lunr.min.js").is_file()
    assert (folder / "node_modules" / "citeproc" / "citeproc_commonjs.js").is_file()
    home = parse(folder / "_site" / "index.html")
    assert f'<link rel="canonical" href="{PAGES_URL}/">' in (folder / "_site" / "index.html").read_text()
    assert "/my-papers/search/" in home.links and "/search/" not in home.links
    [paper] = (folder / "content").rglob("*.md")
    page = parse(folder / "_site" / "papers" / paper.stem / "index.html")
    assert page.h1.strip() == "Faster Diffusion Models for Image Generation"
    assert all(link.startswith(("/my-papers/", "https:", "#")) for link in page.links), page.links
    assert (folder / "_site" / ".nojekyll").is_file()  # upload-pages-artifact keeps it (include-hidden-files)


def test_a_theme_file_deleted_from_a_new_catalog_follows_the_installed_theme(tmp_path):
    """README's "Theme updates": a file the owner never edited can go; the build then uses
    papersite's own, so it changes with papersite. An edited one stays the owner's."""
    folder = new(tmp_path / "catalog")
    (tmp_path / "papers.bib").write_text(BIB, encoding="utf-8")
    assert run("import", tmp_path / "papers.bib", "--config", folder / "site.yaml").exit_code == 0
    (folder / "static" / "style.css").unlink()
    (folder / "templates" / "paper.html").unlink()
    edited = (folder / "templates" / "home.html").read_text(encoding="utf-8").replace(
        "{% block main %}", "{% block main %}<p id=ours>Our reading group</p>", 1)
    (folder / "templates" / "home.html").write_text(edited, encoding="utf-8")
    result = run("build", "-q", "--config", folder / "site.yaml", "-o", folder / "_site")
    assert result.exit_code == 0, result.output
    assert (folder / "_site" / "static" / "style.css").read_bytes() == (THEME / "static" / "style.css").read_bytes()
    [paper] = (folder / "content").rglob("*.md")
    assert parse(folder / "_site" / "papers" / paper.stem / "index.html").h1.strip() == \
        "Faster Diffusion Models for Image Generation"
    assert "Our reading group" in (folder / "_site" / "index.html").read_text(encoding="utf-8")


def test_a_new_catalogs_people_line_works_once_uncommented(tmp_path):
    folder = new(tmp_path / "lab")
    (tmp_path / "papers.bib").write_text(BIB, encoding="utf-8")
    assert run("import", tmp_path / "papers.bib", "--config", folder / "site.yaml").exit_code == 0
    text = (folder / "site.yaml").read_text(encoding="utf-8")
    assert text.count("\n# people: ") == 1
    (folder / "site.yaml").write_text(text.replace("\n# people: ", "\npeople: "), encoding="utf-8")
    result = run("build", "-q", "--config", folder / "site.yaml", "-o", folder / "_site")
    assert result.exit_code == 0 and result.output == "", result.output  # Ada Lovelace wrote the paper
    [paper] = (folder / "content").rglob("*.md")
    html = (folder / "_site" / "papers" / paper.stem / "index.html").read_text(encoding="utf-8")
    assert '<a class="member" href="/authors/ada-lovelace/">Ada Lovelace</a>' in html
