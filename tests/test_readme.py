"""Every snippet in README.md is exercised, so the docs cannot drift from the code.

Each fenced block of the README is claimed by exactly one check below, chosen by its
language and first line; a block that no check claims (a new snippet nobody tests) fails
`test_every_snippet_has_a_check`. Checks that live in other test modules are called from here.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import bibtexparser
import pytest
from click.testing import CliRunner

import build
from tests.conftest import MINIMAL_CONFIG, ROOT, TinySite, paper_text


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence
    lang: str
    text: str

    def __str__(self) -> str:
        return f"README.md:{self.line} ({self.lang or 'plain'})"


def readme_blocks() -> list[Block]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return [Block(readme[:m.start()].count("\n") + 1, m["lang"], m["text"])
            for m in re.finditer(r"^```(?P<lang>\w*)\n(?P<text>.*?)^```", readme, re.S | re.M)]


CHECKS: list[tuple[str, str, Callable[[Block, Path], None]]] = []  # (lang, first-line pattern, check)


def claims(lang: str, first_line: str):
    def register(check):
        CHECKS.append((lang, first_line, check))
        return check
    return register


def checks_of(block: Block):
    first = block.text.splitlines()[0] if block.text else ""
    return [check for lang, pattern, check in CHECKS if lang == block.lang and re.search(pattern, first)]


def test_every_snippet_has_a_check():
    blocks = readme_blocks()
    assert len(blocks) >= 15
    unclaimed = [str(b) for b in blocks if len(checks_of(b)) != 1]
    assert not unclaimed, f"snippets with no check (or two) in tests/test_readme.py: {unclaimed}"


@pytest.mark.parametrize("block", readme_blocks(), ids=str)
def test_snippet(block, tmp_path):
    [check] = checks_of(block)
    check(block, tmp_path)


def run(*args) -> object:
    return CliRunner().invoke(build.cli, [str(a) for a in args])


def site_with(tmp_path, config_extra: str = "") -> TinySite:
    site = TinySite(tmp_path / "site")
    site.write("site.yaml", MINIMAL_CONFIG + config_extra)
    return site


def build_site(site: TinySite):
    result = run("build", "-q", "--config", site.root / "site.yaml", "-o", site.root / "_site")
    assert result.exit_code == 0, result.output
    return site.root / "_site"


# --- Commands ------------------------------------------------------------------------------

def option_groups(command: str) -> list[set[str]]:
    """The options `build.py COMMAND --help` lists, each with its other spellings (-o, --output)."""
    result = run(command, "--help")
    assert result.exit_code == 0, f"no command '{command}': {result.output}"
    groups = []
    for line in result.output.split("Options:", 1)[1].splitlines():
        match = re.match(r"\s+(-[^ ,]+(?:, -[^ ,]+)*)", line)
        if match:
            groups.append({name.split(" ")[0] for name in match[1].split(", ")})
    return [group for group in groups if not group & {"-h", "--help"}]


def options_of(command: str) -> set[str]:
    return set().union(*option_groups(command))


def command_lines(text: str) -> list[tuple[str, set[str]]]:
    """(command, options) of each `build.py COMMAND ...` line; comments dropped."""
    found = []
    for line in text.splitlines():
        line = line.split("  #", 1)[0]
        match = re.search(r"build\.py (\w+)(.*)", line)
        if match:
            found.append((match[1], set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", match[2]))))
    return found


@claims("sh", r"^python3 -m venv \.venv && ")
def quickstart(block: Block, tmp_path: Path):
    """The two quickstart lines: .ci/run runs the test one (tests/test_cli.py, test_publish.py
    check that); here: the files they install from exist and the command they end with is real."""
    for needed in re.findall(r"-r (\S+)", block.text) + ["package.json", "package-lock.json"]:
        assert (ROOT / needed).is_file(), needed
    for command, options in command_lines(block.text):
        assert options <= options_of(command)
    if "pytest" in block.text:
        assert re.search(r"grep -E '\^python3 -m venv \.\*pytest' README\.md", (ROOT / ".ci/run").read_text())


@claims("sh", r"^(?!python3 -m venv ).*build\.py (import|build|serve|deploy)")
def day_to_day(block: Block, tmp_path: Path):
    lines = command_lines(block.text)
    assert lines
    for command, options in lines:
        assert options <= options_of(command), f"{command}: {sorted(options - options_of(command))}"


@claims("", r"^python build\.py import ")
def cli_reference(block: Block, tmp_path: Path):
    """The CLI reference names every command and every option, and nothing else."""
    documented = dict(command_lines(block.text))
    assert set(documented) == set(build.cli.commands)
    for command, options in documented.items():
        assert options <= options_of(command), f"{command}: {sorted(options - options_of(command))}"
        missing = [sorted(group) for group in option_groups(command) if not group & options]
        assert not missing, f"{command}: options the README does not list: {missing}"


@claims("", r"^\.venv/bin/python build\.py deploy ")
def deploy_line(block: Block, tmp_path: Path):
    day_to_day(block, tmp_path)


# --- How it works ----------------------------------------------------------------------------

@claims("", r"^site\.yaml    ")
def repository_layout(block: Block, tmp_path: Path):
    """Every folder and file the layout names is at the top of the repository, and the theme's
    own examples are in it (templates/paper.html, static/...)."""
    named = re.findall(r"(?:^|\s)([a-z_]+(?:\.[a-z]+|/)(?:[a-z_]+\.[a-z]+)?)", block.text)
    assert len(named) >= 10, named
    for name in named:
        assert (ROOT / name).exists() or (ROOT / "templates" / name).exists(), name
    assert not list((ROOT / "papersite").rglob("*.html")), "the engine keeps no second copy of the theme"


@claims("", r"^site\.yaml ─")
def pipeline_diagram(block: Block, tmp_path: Path):
    """Every stage the diagram names exists, and the spine (or the CLI, for site.yaml) calls it."""
    names = [name for name in re.findall(r"\b[a-z_]+(?:\.[A-Za-z_]+)+\b", block.text) if name != "site.yaml"]
    assert len(names) >= 5
    spine = "".join((ROOT / "papersite" / name).read_text(encoding="utf-8")
                    for name in ("pipeline.py", "cli.py", "engine/command.py"))
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):  # the longest prefix that is a module, then its attributes
            try:
                target = importlib.import_module("papersite." + ".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            break
        for part in parts[cut:]:
            target = getattr(target, part)
        assert parts[-1] in spine, f"{name} is not called by the spine (pipeline.py, or the commands)"


# --- Content -----------------------------------------------------------------------------------

@claims("markdown", r"^---$")
def content_example(block: Block, tmp_path: Path):
    from tests.test_readme_content import test_the_readme_content_example_builds
    test_the_readme_content_example_builds(tmp_path)


@claims("", r"^Error: \d+ problems:$")
def error_example(block: Block, tmp_path: Path):
    """The README's error output is what a build prints for those two mistakes."""
    site = site_with(tmp_path, "  - slug: iclr-2024\n    name: ICLR 2024\n    year: 2024\n")
    site.write("content/icml-2024/grokking.md", paper_text(id="g", topics="[learning-theroy]"))
    site.write("content/iclr-2024/calibration.md", paper_text(id="c", venue="iclr-2024").replace(
        "year: 2024", "year: 2O24"))
    result = run("build", "-q", "--config", site.root / "site.yaml", "-o", site.root / "_site")
    assert result.exit_code == 1
    assert result.stderr == block.text


@claims("yaml", r"^authors:$")
def authors_example(block: Block, tmp_path: Path):
    """The spellings the README merges become one author page with the details it gives."""
    site = site_with(tmp_path, block.text)
    for n, name in enumerate(["Diederik P. Kingma", "Durk Kingma", "Kingma, D."]):
        site.write(f"content/icml-2024/p{n}.md", paper_text(id=f"p{n}", title=f"Paper {n}").replace(
            "[Ada Lovelace]", f"['{name}']"))
    out = build_site(site)
    page = (out / "authors" / "diederik-p-kingma" / "index.html").read_text(encoding="utf-8")
    assert all(f"Paper {n}" in page for n in range(3))
    assert "https://orcid.org/0000-0001-2345-6789" in page and "Example Lab" in page
    assert not (out / "authors" / "durk-kingma").exists()


@claims("yaml", r"^venues:$")
def venue_aliases(block: Block, tmp_path: Path):
    """A record naming a venue by one of its aliases is imported into that venue."""
    site = site_with(tmp_path)
    site.write("site.yaml", MINIMAL_CONFIG.split("venues:")[0] + block.text)
    export = site.write("export.csv", "title,authors,abstract,venue,year\n"
                                      "First Paper,Ada Lovelace,An abstract.,Proc. ICML 2024,2024\n"
                                      "Second Paper,Alan Turing,Another one.,ICML.cc/2024/Conference,2024\n")
    result = run("import", export, "--config", site.root / "site.yaml")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (site.root / "content" / "icml-2024").glob("*.md")) == [
        "first-paper.md", "second-paper.md"]
    assert "added venue" not in result.output


@claims("text", r"^\S+\.bib:\d+: entry ")
def import_summary(block: Block, tmp_path: Path):
    """An import with the README's three kinds of trouble prints lines of the README's shape."""
    site = site_with(tmp_path)
    nested = "{\\em " * 3000 + "x" + "}" * 3000  # deeper than the LaTeX decoder can follow
    entries = [
        "@inproceedings{gala3d, title = {GALA3D}, author = {Lovelace, Ada}, booktitle = {ICML 2024},"
        " year = {2024}, abstract = {We present GALA3D.}}",
        "@inproceedings{again, title = {GALA3D}, author = {Lovelace, Ada}, booktitle = {ICML 2024},"
        " year = {2024}, abstract = {We present GALA3D.}}",
        f"@inproceedings{{deep2024, title = {{{nested}}}, author = {{Turing, Alan}}, booktitle = {{ICML 2024}},"
        " year = {2024}}",
    ]
    bib = site.write("papers.bib", "\n\n".join(entries) + "\n")
    assert run("import", bib, "--config", site.root / "site.yaml").exit_code == 1  # the unreadable entry
    gala = site.root / "content" / "icml-2024" / "gala3d.md"
    gala.write_text(gala.read_text(encoding="utf-8") + "\nA sentence of my own.\n", encoding="utf-8")
    result = run("import", bib, "--config", site.root / "site.yaml")
    assert result.exit_code == 1

    def shape(text: str) -> list[str]:
        text = re.sub(r"\d+", "N", text)
        text = re.sub(r"'[^']*'", "'K'", text)
        return sorted(set(re.sub(r"\S+\.(bib|md)", "FILE", line) for line in text.splitlines()))

    printed = shape(result.stderr + result.stdout)
    for line in shape(block.text):
        if line.startswith("N records read"):
            summary = [p for p in printed if p.startswith("N records read")]
            assert summary and re.sub(r"\(.*\)", "", summary[0]) == re.sub(r"\(.*\)", "", line), summary
        else:
            assert line in printed, (line, printed)


# --- Theme -------------------------------------------------------------------------------------

@claims("yaml", r"^extra_css: ")
def extra_css_line(block: Block, tmp_path: Path):
    """The README's extra_css line and its stylesheet: every page links the stylesheet."""
    [css] = [b for b in readme_blocks() if b.lang == "css"]
    site = site_with(tmp_path, block.text)
    site.write("static/custom.css", css.text)
    site.paper("a-paper")
    out = build_site(site)
    assert (out / "static" / "custom.css").read_text(encoding="utf-8") == css.text
    pages = sorted(out.rglob("*.html"))
    assert len(pages) >= 8
    for page in pages:
        assert 'href="/catalog/static/custom.css"' in page.read_text(encoding="utf-8"), page


@claims("yaml", r"^omit: ")
def omit_line(block: Block, tmp_path: Path):
    """The README's omit line builds, and leaves out each kind of file it names (tests/test_omit.py
    checks that no link is left to them)."""
    site = site_with(tmp_path, block.text)
    site.paper("a-paper")
    out = build_site(site)
    left = {path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file()}
    assert "papers/a-paper/index.html" in left
    assert not [path for path in left if re.fullmatch(r"authors/.*(feed\.xml|\.bib)|papers/.*/cite\..*", path)]


@claims("css", r"^/\* static/custom\.css")
def custom_css(block: Block, tmp_path: Path):
    """Checked with the extra_css line (and in Chromium: tests/browser/test_extra_css.py)."""
    assert re.search(r"--accent:\s*#[0-9a-f]{6}", block.text)
    assert "--accent" in (ROOT / "static" / "style.css").read_text(encoding="utf-8")


@claims("jinja", r"^\{# templates/paper\.html #\}$")
def template_override(block: Block, tmp_path: Path):
    site = site_with(tmp_path)
    site.write("templates/paper.html", block.text)
    site.paper("a-paper")
    out = build_site(site)
    text = (out / "papers" / "a-paper" / "index.html").read_text(encoding="utf-8")
    assert "<p>Presented at our reading group.</p>" in text
    assert "generalization" in text  # super(): the theme's page, abstract and all, is still there


# --- Citations ---------------------------------------------------------------------------------

@claims("bibtex", r"^@\w+\{")
def bibtex_example(block: Block, tmp_path: Path):
    from tests.test_citations import test_the_readme_bibtex_example_is_what_a_build_writes
    test_the_readme_bibtex_example_is_what_a_build_writes(tmp_path)
    assert bibtexparser.parse_string(block.text).entries
