"""Bad input through the command line: one tiny site per case.

Every case ends in one of two ways: a non-zero exit with one line per problem,
each naming the file (and the line, where a line means something), or a build
that handles the input gracefully. Never a Python traceback: a user error is
not a crash.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import build
from papersite.source.config import load_config
from papersite.source.content import MAX_ABSTRACT_CHARS
from papersite.engine.command import build_and_write
from papersite.engine.output import manifest_path
from tests.conftest import ROOT, paper_text
from tests.htmlcheck import parse

# "Error: path:line: message" for one problem; "Error: N problems:" then "  path:line: message".
PROBLEM_LINE = re.compile(r"^(?:Error: |  )(?P<path>[^\s:][^:]*?)(?::(?P<line>\d+))?: (?P<message>\S.*)$")


class Run:
    def __init__(self, result):
        self.result = result
        self.code = result.exit_code
        self.output = result.output  # stdout and stderr, as a terminal shows them
        self.stderr = result.stderr

    def problems(self) -> list[tuple[str, int | None, str]]:
        """(path, line, message) for each reported problem; asserts the one-line-per-problem format."""
        lines = self.stderr.rstrip("\n").split("\n")
        if re.match(r"^Error: \d+ problems:$", lines[0]):
            count, lines = int(lines[0].split()[1]), lines[1:]
            assert len(lines) == count, self.stderr
        else:
            assert len(lines) == 1, self.stderr
        found = []
        for text in lines:
            match = PROBLEM_LINE.match(text)
            assert match, f"not a 'path:line: message' line: {text!r}"
            found.append((match["path"], int(match["line"]) if match["line"] else None, match["message"]))
        return found


def cli(site, *args: str) -> Run:
    """python build.py ARGS, run in the site's folder as a user would."""
    old = os.getcwd()
    os.chdir(site.root)
    try:
        result = CliRunner().invoke(build.cli, list(args))
    finally:
        os.chdir(old)
    # A crash would be stored here by CliRunner instead of being printed.
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"crashed: {result.exception!r}\n{result.output}"
    assert "Traceback" not in result.output
    return Run(result)


def build_fails(site) -> list[tuple[str, int | None, str]]:
    run = cli(site, "build", "-q")
    assert run.code == 1, run.output
    assert not (site.root / "_site").exists(), "a failed first build must not leave an output folder"
    return run.problems()


def build_ok(site) -> Run:
    run = cli(site, "build", "-q")
    assert run.code == 0, run.output
    return run


def only_problem(site) -> tuple[str, int | None, str]:
    found = build_fails(site)
    assert len(found) == 1, found
    return found[0]


BAD = "content/icml-2024/bad.md"


# --- Front matter ------------------------------------------------------------

def test_malformed_yaml(site):
    site.write(BAD, paper_text(title="[unclosed"))
    assert only_problem(site) == (BAD, 4, "invalid YAML: expected ',' or ']', but got ':' "
                                          "(while parsing a flow sequence started on line 3)")


def test_tab_indented_yaml(site):
    site.write(BAD, "---\nid: x\n\ttitle: y\n---\nText.\n")
    path, line, message = only_problem(site)
    assert (path, line) == (BAD, 3) and message.startswith("invalid YAML")


def test_missing_front_matter(site):
    site.write(BAD, "Just an abstract, no front matter.\n")
    assert only_problem(site) == (BAD, 1, "missing front matter: the file must start with a line '---'")


def test_unclosed_front_matter(site):
    site.write(BAD, "---\nid: x\ntitle: y\nThe abstract.\n")
    assert only_problem(site) == (BAD, 1, "front matter is not closed: add a line '---' after it")


def test_front_matter_that_is_not_a_mapping(site):
    site.write(BAD, "---\n- a list\n---\nText.\n")
    found = build_fails(site)
    assert (BAD, 2, "front matter must be a mapping of keys to values, not a list") in found


def test_missing_required_fields_each_get_a_line(site):
    site.write(BAD, "---\nauthors: [Ada]\n---\nText.\n")
    found = build_fails(site)
    assert [message for _, _, message in found] == [
        "missing required field 'id'", "missing required field 'title'", "missing required field 'venue'"]
    assert all(path == BAD and line == 2 for path, line, _ in found)


def test_wrong_typed_fields_each_name_their_line(site):
    site.write(BAD, "---\nid: x\ntitle: [a, b]\nauthors: Ada\nvenue: icml-2024\nyear: soon\n"
                    "topics: learning-theory\nlinks: [https://x.org]\n---\nText.\n")
    found = {line: message for _, line, message in build_fails(site)}
    assert found == {
        3: "'title' must be a string, not a list",
        4: "'authors' must be a list, not a string ('Ada')",
        6: "'year' must be a whole number, not a string ('soon')",
        7: "'topics' must be a list, not a string ('learning-theory')",
        8: "'links' must be a mapping, not a list",
    }


def test_empty_strings_and_wrong_items(site):
    site.write(BAD, paper_text(title="''", topics="[learning-theory, 3, '']"))
    found = {(line, message) for _, line, message in build_fails(site)}
    assert (3, "'title' must not be empty") in found
    assert (7, "'topics' items must be non-empty strings, not a whole number (3)") in found


def test_unknown_topic_and_venue_suggest_the_closest(site):
    site.write(BAD, paper_text(venue="icml-2042", topics="[learning-theroy, astrology]"))
    assert set(build_fails(site)) == {
        (BAD, 5, "unknown venue 'icml-2042'; did you mean 'icml-2024'?"),
        (BAD, 7, "unknown topic 'learning-theroy'; did you mean 'learning-theory'?"),
        (BAD, 7, "unknown topic 'astrology'; add it under 'topics:' in site.yaml"),
    }


def test_unknown_keys(site):
    site.write(BAD, paper_text(extra="titel: Typo\nlinks: {pfd: 'https://x.org/a.pdf'}\n"))
    assert set(build_fails(site)) == {
        (BAD, 8, "unknown key 'titel' (did you mean 'title'?)"),
        (BAD, 9, "unknown key 'pfd' (did you mean 'pdf'?)"),
    }


def test_a_key_given_twice(site):
    site.write(BAD, paper_text(extra="title: Another title\n"))
    assert only_problem(site) == (BAD, 8, "invalid YAML: 'title' is given twice (first on line 3)")


def test_javascript_and_data_links_are_refused(site):
    site.write(BAD, paper_text(extra="links: {pdf: 'javascript:alert(1)', code: 'data:text/html,x'}\n"))
    found = {message for _, _, message in build_fails(site)}
    assert found == {"link 'pdf' must be an http(s) URL, not 'javascript:alert(1)'",
                     "link 'code' must be an http(s) URL, not 'data:text/html,x'"}


def test_duplicate_id_names_both_files(site):
    site.paper("first", id="same")
    site.write("content/other/second.md", paper_text(id="same"))
    assert only_problem(site) == ("content/other/second.md", 2,
                                  "duplicate id 'same': also used by content/icml-2024/first.md:2")


def test_duplicate_slug_names_both_files(site):
    site.paper("grokking", id="a")
    site.write("content/other/Grokking.md", paper_text(id="b"))  # same URL: /papers/grokking/
    assert only_problem(site) == ("content/other/Grokking.md", None,
                                  "duplicate URL slug (from the file name) 'grokking': "
                                  "also used by content/icml-2024/grokking.md")


def test_empty_abstract_builds_a_page_that_says_so(site, tmp_path):
    site.write(BAD, paper_text(body="   \n\n"))
    build_and_write(load_config(site.root / "site.yaml"), tmp_path / "out")
    page = (tmp_path / "out" / "papers" / "bad" / "index.html").read_text()
    assert "No abstract is available for this paper." in page


# --- Encodings and sizes -----------------------------------------------------

def test_non_utf8_bytes(site):
    site.write(BAD, paper_text(body="Caf\xe9 society.").encode("latin-1"))
    assert only_problem(site) == (BAD, 9, "not UTF-8 text (byte 0xe9); save the file as UTF-8")


def test_bom_and_crlf_build(site):
    site.write("content/icml-2024/windows.md",
               ("\ufeff" + paper_text(title="Saved on Windows", body="Line one.\n\nLine two.")).replace("\n", "\r\n")
               .encode("utf-8"))
    build_ok(site)
    html = (site.root / "_site/papers/windows/index.html").read_text(encoding="utf-8")
    assert parse(site.root / "_site/papers/windows/index.html").h1.strip() == "Saved on Windows"
    assert "\r" not in html and "\ufeff" not in html
    assert "<p>Line one.</p>" in html and "<p>Line two.</p>" in html


def test_raw_control_characters_in_front_matter(site):
    site.write(BAD, paper_text(title="Nul\x00byte"))
    assert only_problem(site) == (BAD, 3, "invalid YAML: the character U+0000 is not allowed in text")


def test_escaped_control_characters_and_surrogates_are_refused(site):
    site.write(BAD, paper_text(title='"Bell\\a"'))
    site.write("content/icml-2024/half.md", paper_text(id="p2", title='"\\ud800 half a pair"'))
    assert set(build_fails(site)) == {
        (BAD, 3, "invalid YAML: the character U+0007 is not allowed in text"),
        ("content/icml-2024/half.md", 3, "invalid YAML: the character U+D800 is not allowed in text"),
    }


def test_control_characters_in_an_abstract_are_dropped(site):
    site.paper("bell", body="Ring\x07 the\x00 bell\x1b.")
    build_ok(site)
    html = (site.root / "_site/papers/bell/index.html").read_text(encoding="utf-8")
    assert "<p>Ring the bell.</p>" in html
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", "".join(
        p.read_text(encoding="utf-8") for p in (site.root / "_site").rglob("*") if p.suffix in (".html", ".xml", ".json")))


def test_five_megabyte_abstract_is_refused_by_its_length(site):
    # how long the refusal takes: bench/hostile_speed.py
    body = ("We prove a bound on $\\|x\\|_2$ for deep networks, with words and more words. " * 70_000)
    assert len(body) > 5_000_000
    site.paper("huge", body=body)
    found = only_problem(site)
    assert found == ("content/icml-2024/huge.md", 9,
                     f"abstract is {len(body.strip()):,} characters; the limit is {MAX_ABSTRACT_CHARS:,}: "
                     "an abstract, not the paper")


def test_an_abstract_at_the_limit_builds(site):
    """Worst case near the limit: one paragraph dense with math (each span costs most). How long
    it takes (a quadratic renderer took minutes): bench/hostile_speed.py."""
    body = ("$x_{i}$ and $y^2$ bound " * 3000)[:MAX_ABSTRACT_CHARS - 1]
    site.paper("long", body=body)
    build_ok(site)
    assert (site.root / "_site/papers/long/index.html").read_text(encoding="utf-8").count("<math") > 2000


def test_a_stray_dump_is_refused_by_size(site):
    site.write(BAD, b"---\nid: x\n---\n" + b"x" * (11 * 1024 * 1024))
    assert only_problem(site) == (BAD, None, "file is 11.0 MB; the limit is 10 MB: is this an abstract?")


# --- Hostile YAML ------------------------------------------------------------

def test_deeply_nested_yaml_is_refused(site):
    # Refused by the depth limit as the YAML is read (PyYAML alone would give up with "nested too
    # deeply" at Python's recursion limit, after a scan quadratic in the depth: 10,000 took
    # seconds). How long the refusal takes: bench/hostile_speed.py.
    site.write(BAD, "---\nid: " + "[" * 10_000 + "\n---\nText.\n")
    site.write("content/icml-2024/closed.md", "---\nextra: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n---\nT.\n")
    site.write("content/icml-2024/block.md", "---\nextra:\n" + "".join(" " * i + "a:\n" for i in range(1, 300)) + "---\nT.\n")
    found = build_fails(site)
    assert {(path, message) for path, _, message in found} == {
        (path, "invalid YAML: nested more than 50 levels deep")
        for path in (BAD, "content/icml-2024/closed.md", "content/icml-2024/block.md")}


def test_alias_bombs_and_self_references_are_refused(site):
    laughs = "extra:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  {name}: &{name} [{', '.join(['*' + prev] * 10)}]\n" for prev, name in zip("abcdefgh", "bcdefghi"))
    site.write(BAD, paper_text(extra=laughs))
    site.write("content/icml-2024/loop.md", paper_text(id="p2", extra="extra: &me {self: *me}\n"))
    found = set(build_fails(site))  # refused by counting, not by expanding (bench/hostile_speed.py times it)
    assert (BAD, 13, "invalid YAML: aliases expand this to more than 100,000 values") in found
    assert ("content/icml-2024/loop.md", 8, "invalid YAML: an alias refers to a collection that contains it") in found


PYTHON_TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/apply:subprocess.check_output [['touch', '{marker}']]",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/object:builtins.object {{}}",
]


@pytest.mark.parametrize("tag", PYTHON_TAGS)
def test_python_tags_never_construct_anything(site, tag):
    marker = site.root / "pwned"
    site.write(BAD, paper_text(extra=f"extra: {tag.format(marker=marker)}\n"))
    path, line, message = only_problem(site)
    assert (path, line) == (BAD, 8)
    assert message.startswith("invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:python/")
    assert not marker.exists()


def test_python_tags_in_site_yaml_never_construct_anything(site):
    marker = site.root / "pwned"
    site.write("site.yaml", f"title: !!python/object/apply:os.system ['touch {marker}']\n")
    path, line, message = only_problem(site)
    assert (path, line) == ("site.yaml", 1) and "could not determine a constructor" in message
    assert not marker.exists()


# --- The content folder ------------------------------------------------------

def test_symlink_loops_under_content(site):
    site.paper("real")
    (site.root / "content/icml-2024/loop").symlink_to(site.root / "content")  # a folder loop: not followed
    (site.root / "content/again").symlink_to(site.root / "content/again")  # a link to itself
    build_ok(site)
    assert sorted(p.name for p in (site.root / "_site/papers").iterdir()) == ["index.html", "real"]


def test_a_file_symlink_loop_is_reported(site):
    site.paper("real")
    (site.root / "content/icml-2024/self.md").symlink_to(site.root / "content/icml-2024/self.md")
    assert only_problem(site) == ("content/icml-2024/self.md", None, "cannot read: Too many levels of symbolic links")


def test_file_names_with_spaces_and_non_ascii_characters(site):
    site.write("content/icml-2024/Théorie des Graphes (v2).md", paper_text(id="a", title="Théorie"))
    site.write("content/icml-2024/Ünïcödé   spaces.md", paper_text(id="b", title="Spaces"))
    build_ok(site)
    out = site.root / "_site/papers"
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "theorie-des-graphes-v2", "unicode-spaces"]
    assert parse(out / "theorie-des-graphes-v2/index.html").h1.strip() == "Théorie"


def test_a_file_name_without_letters_or_digits(site):
    site.write("content/icml-2024/日本語.md", paper_text())
    assert only_problem(site) == ("content/icml-2024/日本語.md", None,
                                  "file name gives an empty URL slug: use letters or digits")


def test_an_empty_content_folder_builds_an_empty_catalog(site):
    """Documented: the site builds, says it has no papers, and the command warns."""
    (site.root / "content/not-a-paper.md").mkdir()  # a folder named like a paper is not one
    (site.root / "content/README.md").write_text("Notes, not a paper.\n")
    run = build_ok(site)
    assert "warning: no papers in content/: built an empty catalog" in run.stderr
    out = site.root / "_site"
    for page in ("index.html", "papers/index.html", "venues/index.html", "topics/index.html",
                 "search/index.html", "404.html", "sitemap.xml", "feed.xml", "search/index.json", "search/docs.json"):
        assert (out / page).is_file(), page
    assert "0 papers" in (out / "index.html").read_text(encoding="utf-8")
    assert not (out / "papers").joinpath("not-a-paper").exists()


def test_a_missing_content_folder(site):
    (site.root / "content").rmdir()
    # the library names no command line: `papersite`, `python -m papersite` and build.py all reach it
    assert only_problem(site) == ("content", None, "content folder not found (make it, or bring papers in "
                                                   "with the import command)")


# --- site.yaml -----------------------------------------------------------------

def test_a_missing_site_yaml(site):
    (site.root / "site.yaml").unlink()
    assert only_problem(site) == ("site.yaml", None, "not found: create a site.yaml (see README.md)")


def test_a_site_yaml_that_is_not_a_mapping(site):
    site.write("site.yaml", "- title: a list, not a mapping\n")
    assert build_fails(site) == [("site.yaml", 1, "site.yaml must be a mapping of keys to values, not a list"),
                                 ("site.yaml", 1, "missing required field 'title'")]


def test_an_empty_site_yaml(site):
    site.write("site.yaml", "")
    assert only_problem(site) == ("site.yaml", None, "missing required field 'title'")


def test_unknown_keys_in_site_yaml(site):
    text = (site.root / "site.yaml").read_text()
    site.write("site.yaml", text.replace("title: Test Catalog", "title: Test Catalog\ntitel: Typo\ncolour: red")
               .replace("    year: 2024\n", "    year: 2024\n    yaer: 2024\n"))
    assert set(build_fails(site)) == {
        ("site.yaml", 2, "unknown key 'titel' (did you mean 'title'?)"),
        ("site.yaml", 3, "unknown key 'colour' (allowed: title, base_url, description, author, language, cname, "
                         "topics, venues, authors, extra, extra_css, omit, people)"),
        ("site.yaml", 17, "unknown key 'yaer' (did you mean 'year'?)"),
    }


def test_site_yaml_that_is_not_utf8(site):
    site.write("site.yaml", "title: Caf\xe9\n".encode("latin-1"))
    assert only_problem(site) == ("site.yaml", None, "not UTF-8 text (invalid continuation byte)")


def test_site_yaml_deeply_nested(site):
    site.write("site.yaml", "title: T\nextra: " + "[" * 10_000 + "\n")
    assert only_problem(site) == ("site.yaml", 2, "invalid YAML: nested more than 50 levels deep")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "http://[::1"])
def test_venue_and_base_urls_must_be_http(site, url):
    text = (site.root / "site.yaml").read_text()
    site.write("site.yaml", text.replace("base_url: https://example.org/catalog/", f"base_url: '{url}'")
               + f"    url: '{url}'\n")
    assert set(build_fails(site)) == {
        ("site.yaml", 2, f"base_url must be an absolute http(s) URL like https://user.github.io/repo/, not '{url}'"),
        ("site.yaml", 16, f"'url' must be an http(s) URL, not '{url}'"),
    }


def test_a_bad_base_url_option(site):
    site.paper("a")
    run = cli(site, "build", "-q", "--base-url", "http://[::1")
    assert run.code == 1
    assert run.problems() == [("--base-url", None, "base_url must be an absolute http(s) URL like "
                                                   "https://user.github.io/repo/, not 'http://[::1'")]


# --- Templates -----------------------------------------------------------------

@pytest.mark.parametrize("template, line, message", [
    ('{% extends "theme/paper.html" %}\n{% block main %}\n{{ 1 / 0 }}{% endblock %}', 3,
     "template error while rendering /papers/a/: ZeroDivisionError: division by zero"),
    ('{% extends "theme/paper.html" %}\n{% block main %}{{ paper.title + 1 }}{% endblock %}', 2,
     'template error while rendering /papers/a/: TypeError: can only concatenate str (not "int") to str'),
    ('{% extends "paper.html" %}', 1,
     "template error while rendering /papers/a/: endless recursion (does a template extend or include itself?)"),
    ('\n{% include "missing.html" %}', 2, "template not found: missing.html"),
    ('{% if %}', 1, "template syntax error: Expected an expression, got 'end of statement block'"),
])
def test_template_errors_name_the_template_and_line(site, template, line, message):
    site.paper("a")
    site.write("templates/paper.html", template)
    [(path, found_line, found)] = build_fails(site)
    assert path == "templates/paper.html"
    assert (found_line, found) == (line, message)


# --- Import ----------------------------------------------------------------------

NOTHING = "Error: nothing was imported: 1 file not imported (see above)\n"  # a file that gives no records


def test_import_of_bad_seed_files(site):
    site.write("no-header.txt", "Just an abstract.\n")
    site.write("latin1.txt", "ICML 2024 Papers\n\nCaf\xe9.\n".encode("latin-1"))
    site.write("huge.txt", "ICML 2024 Papers\n\n" + "A long abstract of many words. " * 200_000 + "\n")
    # a file's problems are reported one per line on stderr; the summary follows, and the exit status is 1
    run = cli(site, "import", "no-header.txt")
    assert run.code == 1 and run.stderr == ("no-header.txt:1: expected a header with a venue and year such as "
                                            "'ICML 2024 Papers', not 'Just an abstract.'\n" + NOTHING)
    run = cli(site, "import", "latin1.txt")
    assert run.code == 1 and run.stderr == "latin1.txt: not UTF-8 text (invalid continuation byte)\n" + NOTHING
    run = cli(site, "import", "huge.txt")  # how long the refusal takes: bench/hostile_speed.py
    assert run.code == 1 and run.stderr == (f"huge.txt:3: abstract is 6,199,999 characters; the limit is "
                                            f"{MAX_ABSTRACT_CHARS:,}: is a blank line missing between two?\n"
                                            "Error: nothing was imported: 1 record unreadable (see above)\n")
    assert list((site.root / "content").iterdir()) == []  # nothing written


# --- A real process: what a user sees ----------------------------------------------

@pytest.mark.parametrize("setup, code, expected", [
    (lambda s: s.write(BAD, "---\nid: " + "[" * 10_000 + "\n---\nT.\n"), 1,
     "Error: content/icml-2024/bad.md:2: invalid YAML: nested more than 50 levels deep\n"),
    (lambda s: None, 0, "warning: no papers in content/: built an empty catalog "
                        "(import abstracts with 'python build.py import FILE')\n"),
])
def test_the_real_command_prints_no_traceback(site, setup, code, expected):
    setup(site)
    proc = subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "-q"], cwd=site.root,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == code
    assert proc.stderr == expected
    assert proc.stdout == ""


# --- Output is never half-written -------------------------------------------------------

def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_template_error_mid_render_leaves_the_previous_site(site):
    for n in range(1, 6):
        site.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n}")
    build_ok(site)
    before = snapshot(site.root / "_site")
    site.paper("paper-6", id="p6", title="Paper 6")  # would add files...
    site.paper("paper-1", id="p1", title="Paper 1, revised")  # ...and change others
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}\n{% block main %}\n'
                                       '{% if paper.id == "p4" %}{{ paper.no_such_field }}{% endif %}\n'
                                       '{{ super() }}{% endblock %}\n')
    run = cli(site, "build", "-q")
    assert run.code == 1
    [(path, line, message)] = run.problems()
    assert path.endswith("templates/paper.html") and line == 3
    assert message == "template error while rendering /papers/paper-4/: " \
                      "'papersite.model.Paper object' has no attribute 'no_such_field'"
    assert snapshot(site.root / "_site") == before
    assert sorted(p.name for p in site.root.iterdir() if p != manifest_path(site.root / "_site")) == \
        [".cache", "_site", "content", "site.yaml", "templates"]  # .cache: the first build's (see cache.py)


def test_removed_papers_disappear_after_a_rebuild(site):
    for name in ("keep", "drop"):
        site.paper(name, id=name, title=name.title())
    site.write("static/extra.css", "body{}")
    build_ok(site)
    assert (site.root / "_site/papers/drop/index.html").is_file()
    (site.root / "content/icml-2024/drop.md").unlink()
    (site.root / "static/extra.css").unlink()
    build_ok(site)
    out = site.root / "_site"
    assert not (out / "papers/drop").exists() and not (out / "static/extra.css").exists()
    from papersite.site.static import CSL_ASSETS, NPM_ASSETS
    copies = {f"static/{name}" for name in (*NPM_ASSETS, *CSL_ASSETS)}  # third-party: citeproc.js says "drop"
    everything = b"".join(data for path, data in snapshot(out).items() if path not in copies)
    assert b"/papers/drop/" not in everything and b'"drop"' not in everything
    assert (out / "papers/keep/index.html").is_file()
