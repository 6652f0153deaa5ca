"""The CLI contract: command names, help, one-line errors, exit codes, summary line."""
import os
import re
import shutil
import subprocess
import sys

from click.testing import CliRunner

from build import cli
from tests.conftest import ROOT, TinySite, paper_text


def run(*args, cwd=None):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_every_command_has_help():
    for command in ("import", "build", "serve"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "Usage:" in result.output and len(result.output.splitlines()) > 5


def test_build_writes_beside_site_yaml_from_any_working_folder(site, tmp_path, monkeypatch):
    """As content/ is read from beside site.yaml, so _site/ is written there (it went to the
    working folder: `build --config ~/papers/site.yaml` from ~ wrote ~/_site); -o stays as given."""
    site.paper("a-paper")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    result = run("build", "--config", f"../{site.root.name}/site.yaml")
    assert result.exit_code == 0, result.output
    assert f" into {site.root / '_site'}/: " in result.output
    assert (site.root / "_site" / "papers" / "a-paper" / "index.html").is_file()
    assert os.listdir(tmp_path / "elsewhere") == []
    assert run("build", "--config", f"../{site.root.name}/site.yaml", "-o", "out").exit_code == 0
    assert (tmp_path / "elsewhere" / "out" / "papers" / "a-paper" / "index.html").is_file()
    assert "[default: _site beside site.yaml]" in run("build", "--help").output


def test_build_prints_one_summary_line(site, tmp_path):
    site.paper("a-paper")
    out = tmp_path / "out"
    result = run("build", "--config", site.root / "site.yaml", "-o", out)
    assert result.exit_code == 0, result.output
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    assert 10 ** 6 < size < 10 ** 7  # citeproc.js and the CSL styles are most of it
    assert re.fullmatch(rf"Built 1 papers, \d+ pages \({size / 10 ** 6:.1f} MB\) into .*: \d+ files written, 0 removed, "
                        r"0 unchanged, in \d+\.\d\d s\n", result.output)
    assert (out / "papers" / "a-paper" / "index.html").is_file()
    assert run("build", "--config", site.root / "site.yaml", "-o", out, "-q").output == ""


def test_base_url_option_changes_links(site, tmp_path):
    site.paper("a-paper")
    run("build", "-q", "--config", site.root / "site.yaml", "-o", tmp_path / "out",
        "--base-url", "https://me.github.io/repo")
    html = (tmp_path / "out" / "papers" / "a-paper" / "index.html").read_text()
    assert 'href="/repo/static/style.css"' in html
    assert '<link rel="canonical" href="https://me.github.io/repo/papers/a-paper/">' in html


def test_errors_are_listed_with_exit_code_1(site, tmp_path):
    site.write("content/icml-2024/bad.md", paper_text(topics="[nope]", body=""))
    result = run("build", "--config", site.root / "site.yaml", "-o", tmp_path / "out")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "bad.md:7: unknown topic 'nope'" in result.output
    assert "empty abstract" not in result.output  # no abstract is a fact of life, not an error
    assert not (tmp_path / "out").exists()


def test_import_reports_what_it_did(site, tmp_path):
    seed = tmp_path / "seed.txt"
    seed.write_text("ICML 2024 Papers\n\nWe propose FooNet, a network for testing importers with care.\n")
    result = run("import", seed, "--config", site.root / "site.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.endswith("1 record read: 1 created, 0 updated, 0 unchanged, 0 skipped.\n")
    assert run("import", seed, "--config", site.root / "site.yaml").output.endswith(
        "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped.\n")


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", readme)
    assert len(commands) == 2, "README keeps two quickstart command lines"
    main, tests = commands
    assert "build.py serve" in main and "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text()
    assert "grep -E '^python3 -m venv .*pytest' README.md" in ci and 'eval "$test_command"' in ci


def test_python_m_papersite_is_the_same_cli(tmp_path):
    import papersite
    via_module = subprocess.run([sys.executable, "-m", "papersite", "--help"], cwd=ROOT, capture_output=True, text=True)
    via_script = subprocess.run([sys.executable, "build.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert via_module.returncode == 0 and via_script.returncode == 0
    assert via_module.stdout.replace("Usage: papersite", "Usage: build.py") == via_script.stdout
    version = subprocess.run([sys.executable, "-m", "papersite", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert version.stdout == f"papersite {papersite.__version__}\n"


def test_a_real_build_process_ends_at_once_with_its_output_and_status(site, tmp_path):
    """After a build, cli.run ends the process without freeing the session: what it printed still
    arrives through a pipe, the session saver still saves, and a failure keeps its status."""
    site.paper("a-paper")
    out = tmp_path / "out"
    for entry in (["build.py"], ["-m", "papersite"]):
        built = subprocess.run([sys.executable, *entry, "build", "--config", site.root / "site.yaml", "-o", out],
                               cwd=ROOT, capture_output=True, text=True)
        assert built.returncode == 0 and built.stdout.startswith("Built 1 papers"), built
        assert (out / "papers" / "a-paper" / "index.html").is_file()
    again = subprocess.run([sys.executable, "build.py", "build", "--config", site.root / "site.yaml", "-o", out],
                           cwd=ROOT, capture_output=True, text=True)
    assert "no input changed since the last build" in again.stdout, again
    failed = subprocess.run([sys.executable, "build.py", "build", "--config", tmp_path / "none.yaml"],
                            cwd=ROOT, capture_output=True, text=True)
    assert failed.returncode == 1 and "none.yaml" in failed.stderr and failed.stdout == "", failed


def test_pip_install_gives_a_papersite_command_that_builds(tmp_path):
    """`pip install .` packages the engine with its theme and data files: the installed
    command builds a catalog from another folder, with nothing of the checkout on its path."""
    source, target = tmp_path / "source", tmp_path / "installed"  # a copy: setuptools writes build/ into it
    for folder in ("papersite", "templates", "static"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "requirements.txt", "README.md"):
        shutil.copy(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    site = TinySite(tmp_path / "site")
    site.paper("a-paper")
    for package in ("lunr", "citeproc"):  # what `npm ci` brings a catalog (site.static.NPM_ASSETS)
        shutil.copytree(ROOT / "node_modules" / package, site.root / "node_modules" / package)
    env = {**os.environ, "PYTHONPATH": str(target)}
    built = subprocess.run([str(target / "bin" / "papersite"), "build", "-q"], cwd=site.root, env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "An abstract about" in (site.root / "_site" / "papers" / "a-paper" / "index.html").read_text()
    # the wheel's theme is the repository's top-level one, byte for byte
    for name in ("templates/paper.html", "static/style.css"):
        assert (target / "papersite" / "theme" / name).read_bytes() == (ROOT / name).read_bytes()
    assert (site.root / "_site" / "static" / "style.css").read_bytes() == (ROOT / "static" / "style.css").read_bytes()
    # and the importers' data: the title model and the default taxonomy
    assert (target / "papersite" / "importers" / "title_model.json").is_file()
    assert (target / "papersite" / "default_topics.yaml").is_file()
