"""`check`, `check --fix`, `check --external` and `build --strict`, over hand-made catalogs
with one problem each, and over the bundled catalog (clean)."""
from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import threading

import pytest
from click.testing import CliRunner

from build import cli
from tests.conftest import MINIMAL_CONFIG, ROOT

TWO_VENUES = MINIMAL_CONFIG + """\
  - slug: iclr-2024
    name: ICLR 2024
    year: 2024
    full_name: International Conference on Learning Representations
"""
ABSTRACT = "We study how networks generalize, and prove a bound on the error of the learned function."


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def check(site, *options):
    """`check` without the HTML validity check (vnu.jar on Java: tested on its own, below)."""
    return run("check", "--no-html", *options, "--config", site.root / "site.yaml")


def write_paper(site, name, venue="icml-2024", title="A Paper", authors=("Ada Lovelace",),
                topics=("learning-theory",), body=ABSTRACT, extra=""):
    """A content file: line 3 is the title, line 4 the authors, line 8 the abstract (without `extra`)."""
    text = (f"---\nid: {name}\ntitle: {json.dumps(title)}\nauthors: {json.dumps(list(authors), ensure_ascii=False)}\n"
            f"venue: {venue}\ntopics: {json.dumps(list(topics))}\n{extra}---\n{body}\n")
    return site.write(f"content/{venue}/{name}.md", text)


def lines(result) -> list[str]:
    """The findings `check` printed (its summary goes to stderr)."""
    return result.stdout.splitlines()


def test_a_clean_catalog_passes(site):
    write_paper(site, "a-paper")
    result = check(site)
    assert result.exit_code == 0, result.output
    assert lines(result) == []
    assert "No problems found." in result.stderr


def test_duplicate_title_across_venues(site):
    site.write("site.yaml", TWO_VENUES)
    write_paper(site, "first", title="Grokking Explained")
    write_paper(site, "second", venue="iclr-2024", title="Grokking explained", body="Another abstract altogether.")
    result = check(site)
    assert result.exit_code == 1
    assert lines(result) == ["content/icml-2024/first.md:3: likely a duplicate of content/iclr-2024/second.md:3 "
                             "(ICLR 2024): the same title"]
    assert "1 problem found" in result.stderr


def test_duplicate_abstract(site):
    long_abstract = ABSTRACT * 3
    write_paper(site, "first", title="One Title", body=long_abstract)
    write_paper(site, "second", title="Another Title", body=long_abstract)
    assert lines(check(site)) == ["content/icml-2024/second.md:8: likely a duplicate of content/icml-2024/first.md:3 "
                                  "(ICML 2024): the same abstract"]


def test_author_spelled_with_and_without_accents_is_one_person_with_a_sure_fix(site):
    write_paper(site, "first", title="First Paper", authors=("Tim Rocktäschel",))
    write_paper(site, "second", title="Second Paper", authors=("Ada Lovelace", "Tim Rocktaschel"))
    result = check(site)
    assert result.exit_code == 1
    assert lines(result) == ["content/icml-2024/second.md:4: author 'Tim Rocktaschel' is written 'Tim Rocktäschel' in "
                             "content/icml-2024/first.md:4: one person, spelled two ways [--fix: write 'Tim Rocktäschel']"]
    assert "1 with a sure fix" in result.stderr


def test_initials_taken_for_a_full_name_may_be_one_person(site):
    write_paper(site, "first", title="First Paper", authors=("John Smith",))
    write_paper(site, "second", title="Second Paper", authors=("J. Smith",))
    assert lines(check(site)) == ["content/icml-2024/second.md:4: author 'J. Smith' may be 'John Smith' "
                                  "(content/icml-2024/first.md:4), and is shown as one person with them: write the "
                                  "full name, or, if they are two people, tell them apart with an ORCID"]


def test_initials_that_fit_two_people(site):
    write_paper(site, "first", title="First Paper", authors=("John Smith",))
    write_paper(site, "second", title="Second Paper", authors=("Jane Smith",))
    write_paper(site, "third", title="Third Paper", authors=("J. Smith",))
    assert lines(check(site)) == ["content/icml-2024/third.md:4: author 'J. Smith' may be 'Jane Smith' or "
                                  "'John Smith': write the full name"]


def test_one_name_that_may_be_two_people(site):
    for n in range(3):
        write_paper(site, f"theory-{n}", title=f"Theory Paper {n}", authors=("Wei Chen", "Ada Lovelace"))
        write_paper(site, f"images-{n}", title=f"Image Paper {n}", authors=("Wei Chen", "Alan Turing"),
                    topics=("generative-models",), body=f"Diffusion models for images, take {n}.")
    assert lines(check(site)) == [
        "content/icml-2024/theory-0.md:4: 'Wei Chen' may be two people: their papers fall into 2 groups with no "
        "co-author, no co-author's co-author and no topic in common (this one, and "
        "content/icml-2024/images-0.md:4); if so, tell them apart with an ORCID"]


def test_one_name_with_one_circle_is_one_person(site):
    """Groups joined by a co-author's co-author (a lab's students) are not said to be two people."""
    for n in range(3):
        write_paper(site, f"theory-{n}", title=f"Theory Paper {n}", authors=("Wei Chen", "Ada Lovelace"))
        write_paper(site, f"images-{n}", title=f"Image Paper {n}", authors=("Wei Chen", "Alan Turing"),
                    topics=("generative-models",), body=f"Diffusion models for images, take {n}.")
    write_paper(site, "students", title="Students Together", authors=("Ada Lovelace", "Alan Turing"))
    assert lines(check(site)) == []


def test_missing_abstract(site):
    write_paper(site, "a-paper", body="")
    assert lines(check(site)) == ["content/icml-2024/a-paper.md:8: no abstract: Google Scholar indexes only pages "
                                  "that show one"]


def test_missing_year_of_a_journal_paper(site):
    site.write("site.yaml", MINIMAL_CONFIG + "  - slug: jmlr\n    name: JMLR\n    year: 2024\n    kind: journal\n"
                                             "    full_name: Journal of Machine Learning Research\n")
    write_paper(site, "a-paper", venue="jmlr")
    assert lines(check(site)) == ["content/jmlr/a-paper.md:5: no 'year' or 'date': the year of journal 'jmlr' (2024) "
                                  "is used, and its papers span years"]
    write_paper(site, "a-paper", venue="jmlr", extra="year: 2024\n")
    assert check(site).exit_code == 0


def test_venue_without_full_name(site):
    site.write("site.yaml", MINIMAL_CONFIG + "  - slug: colt-2024\n    name: COLT 2024\n    year: 2024\n")
    write_paper(site, "a-paper", venue="colt-2024")
    assert lines(check(site)) == ["site.yaml:16: venue 'colt-2024' has no full_name: citations and Google Scholar "
                                  "show 'COLT 2024' instead"]


def test_stray_tex_in_title_names_and_abstract(site):
    write_paper(site, "a-paper", title="Training {BERT} Faster", authors=('Kurt G{\\"o}del',),
                body="We gain 5\\% with \\emph{no} cost, see \\cite{smith}.")
    assert lines(check(site)) == [
        "content/icml-2024/a-paper.md:3: title: braces '{BERT}' show as typed (BibTeX's case protection?); remove them "
        "[--fix: rewrite the title]",
        "content/icml-2024/a-paper.md:4: author 'Kurt G{\\\"o}del': TeX accent {\\\"o} shows as typed; write 'ö' "
        "[--fix: rewrite the name]",
        "content/icml-2024/a-paper.md:8: TeX outside math shows as typed: \\cite (put the formula between $ signs)",
        "content/icml-2024/a-paper.md:8: \\% shows as typed; write '%' [--fix: rewrite the abstract]",
        "content/icml-2024/a-paper.md:8: \\emph{...} shows as typed; write Markdown *...* [--fix: rewrite the abstract]",
    ]


def test_unbalanced_math(site):
    write_paper(site, "open-dollar", title="Open Dollar", body="A bound of $O(\\sqrt{n}) $ on the error.\n\n"
                                                              "Prices of $5 and $10 are text.")
    write_paper(site, "open-brace", title="Open Brace", body="A bound of $\\frac{1}{n$ on the error.")
    assert lines(check(site)) == [
        "content/icml-2024/open-brace.md:8: unbalanced braces in the formula '$\\frac{1}{n$'",
        "content/icml-2024/open-dollar.md:8: '$' shows as typed: a formula here is not closed, or its closing $ "
        "follows a space or comes before a digit: 'A bound of $O(\\sqrt{n}) $ on the error.'",
    ]


def test_no_sure_fix_next_to_a_dollar_that_shows_as_typed(site):
    """ICML 2024 has `$\\sim$$30\\%$`: the second formula is text (a `$` right after a formula opens
    none), so its `\\%` shows as typed, but it was meant as math: it is no stray TeX to fix."""
    write_paper(site, "a-paper", body="Memory down by $\\sim$$30\\%$ on average.")
    assert lines(check(site)) == [
        "content/icml-2024/a-paper.md:8: '$' shows as typed: a formula here is not closed, or its closing $ follows "
        "a space or comes before a digit: 'down by $\\sim$$30\\%$ on average.'"]


def test_a_non_ascii_citation_key_is_reported_with_its_line(site):
    write_paper(site, "a-paper", extra="bibtex_key: gödel2024\n")
    result = check(site)
    assert result.exit_code == 1
    assert "content/icml-2024/a-paper.md:7: 'bibtex_key' may hold letters, digits and _:.+/- only" in result.stderr


def test_broken_internal_links_and_anchors(site):
    write_paper(site, "target", title="Target Paper")
    write_paper(site, "a-paper", body="See [the target](../target/), [nothing](../nothing/) and "
                                      "[a missing part](../target/#no-such-part) or [the abstract](../target/#main).")
    result = check(site)
    found = [line.split(": ", 1) for line in lines(result)]
    assert [message for _, message in found] == [
        'href="../nothing/": no such file in the site',
        "href=\"../target/#no-such-part\": no element with id 'no-such-part' in papers/target/index.html"]
    page = (site.root / "_site").name + "/papers/a-paper/index.html"
    assert {where.rpartition(":")[0] for where, _ in found} == {page}
    built = site.build()[0].files["papers/a-paper/index.html"].decode()
    line = int(found[0][0].rpartition(":")[2])
    assert 'href="../nothing/"' in built.splitlines()[line - 1]


def test_scholar_pdf_on_the_site_must_be_beside_the_abstract(site):
    write_paper(site, "a-paper", extra="links: {pdf: https://example.org/catalog/pdfs/a-paper.pdf}\n")
    write_paper(site, "elsewhere", title="On arXiv", extra="links: {pdf: https://arxiv.org/pdf/2401.00001}\n")
    [scholar, link] = lines(check(site))
    assert link.startswith("_site/papers/a-paper/index.html:")  # the PDF's link, at its line
    assert link.endswith(': href="https://example.org/catalog/pdfs/a-paper.pdf": no such file in the site')
    assert [scholar] == [
        "_site/papers/a-paper/index.html: Google Scholar: citation_pdf_url "
        "'https://example.org/catalog/pdfs/a-paper.pdf' is not in the page's own folder "
        "https://example.org/catalog/papers/a-paper/"]


def test_a_site_near_github_pages_limit(site, monkeypatch):
    from papersite.check import site as site_checks
    write_paper(site, "a-paper")
    monkeypatch.setattr(site_checks, "NEAR_PAGES_LIMIT", 1000)
    [line] = lines(check(site))
    assert line.startswith("_site: the site is ") and "near GitHub Pages' limit of 1 GB" in line


# --- check --fix -----------------------------------------------------------------------------------

def imported(site, *paths):
    """Record the files as an import does (content/.imported.json), so they are the importer's."""
    manifest = {path.relative_to(site.root / "content").as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
                for path in paths}
    site.write("content/.imported.json", json.dumps(manifest, indent=1) + "\n")


def test_fix_rewrites_imported_files_and_leaves_edited_ones_alone(site):
    problems = dict(title="Training {BERT} Faster", authors=("Tim Rocktaschel",),
                    body="We gain 5\\% on Schr{\\\"o}dinger's $x^{2}$ with \\textbf{no} cost.")
    ours = write_paper(site, "ours", **problems)
    theirs = write_paper(site, "theirs", **{**problems, "title": "Another {GAN}"})
    write_paper(site, "named", title="Named Paper", authors=("Tim Rocktäschel",))
    imported(site, ours)
    theirs_before = theirs.read_bytes()

    result = run("check", "--no-html", "--fix", "--config", site.root / "site.yaml")
    assert result.exit_code == 1  # the problems of the edited file remain
    assert "content/icml-2024/theirs.md: left alone: edited by hand (not as content/.imported.json records it); " \
           "make the 5 fixes yourself" in result.stderr
    assert "fixed 1 file: content/icml-2024/ours.md" in result.stdout
    assert ours.read_text() == ("---\nid: ours\ntitle: \"Training BERT Faster\"\nauthors: [\"Tim Rocktäschel\"]\n"
                                "venue: icml-2024\ntopics: [\"learning-theory\"]\n---\n"
                                "We gain 5% on Schrödinger's $x^{2}$ with **no** cost.\n")
    assert theirs.read_bytes() == theirs_before
    assert not any("/ours.md:" in line for line in lines(result)), result.output
    manifest = json.loads((site.root / "content" / ".imported.json").read_text())
    assert manifest["icml-2024/ours.md"] == hashlib.sha256(ours.read_bytes()).hexdigest()  # still the importer's

    fixed = ours.read_bytes()
    again = run("check", "--no-html", "--fix", "--config", site.root / "site.yaml")
    assert ours.read_bytes() == fixed and "fixed" not in again.stdout  # idempotent
    assert lines(again) == lines(result)[1:]  # all but "fixed 1 file"


def test_fix_leaves_a_file_whose_title_spans_lines_alone(site):
    path = site.write("content/icml-2024/folded.md", "---\nid: folded\ntitle: >-\n  Training {BERT}\n  Faster\n"
                                                      "venue: icml-2024\n---\nAn abstract.\n")
    imported(site, path)
    before = path.read_bytes()
    result = run("check", "--no-html", "--fix", "--config", site.root / "site.yaml")
    assert path.read_bytes() == before
    assert "content/icml-2024/folded.md: left alone: the fixes could not be made in place" in result.stderr
    assert result.exit_code == 1


# --- build --strict --------------------------------------------------------------------------------

def test_build_strict_fails_and_keeps_the_previous_site(site):
    write_paper(site, "a-paper")
    out = site.root / "_site"
    assert run("build", "-q", "--strict", "--config", site.root / "site.yaml").exit_code == 0
    page = out / "papers" / "a-paper" / "index.html"
    before = page.read_bytes()

    write_paper(site, "a-paper", title="Training {BERT} Faster")
    result = run("build", "-q", "--strict", "--config", site.root / "site.yaml")
    assert result.exit_code == 1
    assert "content/icml-2024/a-paper.md:3: title: braces '{BERT}' show as typed" in result.stderr
    assert "not written: build --strict stops on what check reports; the previous site is unchanged" in result.stderr
    assert page.read_bytes() == before
    assert not list(site.root.glob("._site.new-*"))  # the staged site is gone

    assert run("build", "-q", "--config", site.root / "site.yaml").exit_code == 0  # without --strict it builds
    assert b"{BERT}" in page.read_bytes()
    # nothing changed since: --strict checks the site as it is
    again = run("build", "-q", "--strict", "--config", site.root / "site.yaml")
    assert again.exit_code == 1 and "{BERT}" in again.stderr


def test_build_strict_sees_broken_links_of_the_new_site(site):
    write_paper(site, "a-paper")
    assert run("build", "-q", "--strict", "--config", site.root / "site.yaml").exit_code == 0
    write_paper(site, "a-paper", body="See [nothing](../nothing/).")
    result = run("build", "-q", "--strict", "--config", site.root / "site.yaml")
    assert result.exit_code == 1
    assert 'papers/a-paper/index.html' in result.stderr and 'href="../nothing/": no such file' in result.stderr
    assert "nothing" not in (site.root / "_site" / "papers" / "a-paper" / "index.html").read_text()


# --- check --external ------------------------------------------------------------------------------

class _Links(http.server.BaseHTTPRequestHandler):
    asked: list[str] = []

    def do_HEAD(self):
        type(self).asked.append(self.path)
        self.send_response(200 if self.path == "/ok" else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def link_server():
    _Links.asked = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Links)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_external_links_are_checked_only_when_asked_and_remembered(site, link_server):
    write_paper(site, "a-paper", extra=f"links: {{code: {link_server}/ok, data: {link_server}/gone}}\n")
    assert check(site).exit_code == 0 and _Links.asked == []  # off by default

    result = check(site, "--external")
    assert result.exit_code == 1
    [line] = lines(result)
    assert line.startswith("_site/papers/a-paper/index.html:")
    assert line.endswith(f": external link {link_server}/gone: HTTP 404")
    assert sorted(_Links.asked) == ["/gone", "/ok"]

    _Links.asked.clear()
    assert lines(check(site, "--external")) == [line]
    assert _Links.asked == ["/gone"]  # the link that answered is remembered in .cache/papersite/
    assert (site.root / ".cache" / "papersite" / "external-links.json").is_file()


# --- the bundled catalog, and HTML validity --------------------------------------------------------

def bundled_copy(tmp_path):
    for name in ("site.yaml", "content"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")
    return tmp_path / "site.yaml"


@pytest.mark.skipif(shutil.which("java") is None, reason="vnu needs Java (CI has Java 17)")
def test_the_bundled_catalog_is_clean(tmp_path):
    result = run("check", "--config", bundled_copy(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


@pytest.mark.skipif(shutil.which("java") is None, reason="vnu needs Java (CI has Java 17)")
def test_invalid_html_is_reported_with_page_and_line(site):
    write_paper(site, "a-paper")
    site.write("templates/404.html", "<!doctype html>\n<html lang=\"en\">\n<head><title>x</title></head>\n"
                                     "<body><p><div>no</div></p></body></html>\n")
    (site.root / "node_modules").symlink_to(ROOT / "node_modules")
    result = run("check", "--config", site.root / "site.yaml")
    assert result.exit_code == 1
    assert "_site/404.html:4: invalid HTML: No “p” element in scope but a “p” end tag seen." in lines(result)


def test_html_check_without_java_is_a_note_not_a_failure(site, monkeypatch):
    write_paper(site, "a-paper")
    monkeypatch.setattr(shutil, "which", functools.partial(lambda name: None))
    result = run("check", "--config", site.root / "site.yaml")
    assert result.exit_code == 0
    assert lines(result) == ["_site: note: HTML validity not checked: Java is not installed"]
