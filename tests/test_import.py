"""The importer core: records -> content files a build accepts; identity across imports
(updates in place, never duplicates, never overwrites an edit); venues; the summary."""
from __future__ import annotations

import functools
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from build import cli
from papersite.source.config import load_config
from papersite.source.content import load_papers, split_front_matter
from papersite.errors import Problem, SiteError
from papersite.importers import import_records
from papersite.importers.catalog_index import HEADER, INDEX
from papersite.importers.identity import TextIndex, record_id
from papersite.importers.records import Author, Record
from papersite.importers.seed import read_seed
from papersite.importers.venues import Venues
from tests.conftest import ROOT, SEEDS, TinySite

TODAY = "2025-03-04"


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch):
    monkeypatch.setenv("PAPERSITE_TODAY", TODAY)


@pytest.fixture
def seeded(site):
    """A tiny site with the real taxonomy and one of the seed venues."""
    site.write("site.yaml", seeded_config())
    return site


@functools.cache  # PyYAML takes a fifth of a second over the taxonomy, both ways
def seeded_config() -> str:
    taxonomy = yaml.safe_load((ROOT / "papersite" / "default_topics.yaml").read_text())
    return ("# my comment stays\ntitle: T\n" + yaml.safe_dump(taxonomy) +
            "venues:\n  - slug: icml-2024\n    name: ICML 2024\n    year: 2024\n"
            "    aliases: [Proc. ICML 2024]\n  # a comment after the venues\n")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def run_import(site, *args):
    return run("import", *args, "--config", site.root / "site.yaml")


def records(site, *items, seed=False, venue=None, today=None):
    """Import Records (as a reader yields them) into the site: the core without any format."""
    return import_records([(list(items), seed)], site.config, site.root / "site.yaml", venue=venue, today=today)


def record(number=1, title="Sparse Graph Learning", abstract="We study sparse graphs and their spectra.",
           authors=("Ada Lovelace", "Alan Turing"), venue="ICML 2024", year=2024, **fields) -> Record:
    return Record(source=Path("export.json"), line=None, number=number, title=title, abstract=abstract,
                  authors=[a if isinstance(a, Author) else Author(a) for a in authors], venue=venue, year=year,
                  **fields)


def snapshot(site) -> dict[str, bytes]:
    """Every byte of the catalog: content/ (manifest included) and site.yaml."""
    files = {p.relative_to(site.root).as_posix(): p.read_bytes() for p in (site.root / "content").rglob("*")
             if p.is_file()}
    files["site.yaml"] = (site.root / "site.yaml").read_bytes()
    return files


def content_files(site) -> list[Path]:
    return sorted((site.root / "content").rglob("*.md"))


def front(path: Path) -> dict:
    return yaml.safe_load(split_front_matter(path.read_text())[0])


class Page(HTMLParser):
    """The parts of a paper page a reader looks at: h1, the authors line, the abstract."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.text = {"h1": "", "authors": "", "abstract": ""}
        self._open: list[str | None] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        part = "h1" if tag == "h1" else "authors" if "authors" in classes else \
            "abstract" if "abstract" in classes else None
        if tag not in ("br", "img", "meta", "link", "input", "hr"):
            self._open.append(part)

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for part in reversed(self._open):
            if part:
                self.text[part] += data
                break


def build_pages(site, tmp_path) -> dict[str, Page]:
    out = tmp_path / "out"
    result = run("build", "-q", "--config", site.root / "site.yaml", "-o", out)
    assert result.exit_code == 0, result.output
    return {p.parent.name: Page(p.read_text()) for p in (out / "papers").glob("*/index.html")}


def squash(text: str) -> str:
    return " ".join(text.split())


# --- Seed text through the CLI -----------------------------------------------------

def test_seed_reader_yields_records_with_lines():
    items = list(read_seed(SEEDS[0]))
    assert all(isinstance(item, Record) for item in items)
    assert items[0].venue == "ICML 2024" and items[0].year == 2024 and items[0].line == 3
    assert items[0].abstract.startswith("Grokking, or delayed generalization") and items[0].title == ""
    assert sum(len(list(read_seed(p))) for p in SEEDS) == 57


def test_seeds_import_build_and_show_their_abstracts(seeded, tmp_path):
    result = run_import(seeded, *SEEDS)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "57 records read: 57 created, 0 updated, 0 unchanged, 0 skipped."
    assert "added venue 'iclr-2024'" in result.output
    config = load_config(seeded.root / "site.yaml")
    assert [v.slug for v in config.venues] == ["icml-2024", "iclr-2024"]
    assert (seeded.root / "site.yaml").read_text().startswith("# my comment stays\n")
    assert "# a comment after the venues" in (seeded.root / "site.yaml").read_text()
    papers = load_papers(config)
    assert len({p.id for p in papers}) == 57 and len({p.slug for p in papers}) == 57
    for paper in papers:
        assert 1 <= len(paper.topics) <= 3 and paper.title_derived and paper.title_source.startswith("derived:") and paper.added == TODAY
    pages = build_pages(seeded, tmp_path)
    grokking = next(p for p in papers if p.abstract.startswith("Grokking, or delayed"))
    assert squash(pages[grokking.slug].text["h1"]) == grokking.title
    assert squash(pages[grokking.slug].text["abstract"]).startswith("Abstract Grokking, or delayed generalization")


def test_a_second_import_changes_no_byte(seeded):
    run_import(seeded, *SEEDS)
    before = snapshot(seeded)
    mtimes = {p: p.stat().st_mtime_ns for p in content_files(seeded)}
    result = run_import(seeded, *SEEDS)
    assert result.output == "57 records read: 0 created, 0 updated, 57 unchanged, 0 skipped.\n"
    assert snapshot(seeded) == before
    assert {p: p.stat().st_mtime_ns for p in content_files(seeded)} == mtimes


def test_a_second_import_of_doubly_escaped_bibtex_and_an_arxiv_snapshot_changes_no_byte(seeded):
    imports = Path(__file__).parent / "fixtures" / "imports"
    paths = (imports / "double-escaped.bib", imports / "arxiv-snapshot.jsonl")
    first = run_import(seeded, *paths)
    assert "arxiv-snapshot.jsonl:4: not valid JSON" in first.output  # the line cut short, reported
    assert "7 created" in first.output
    before = snapshot(seeded)
    again = run_import(seeded, *paths)
    assert "0 created, 0 updated" in again.output and snapshot(seeded) == before


def test_an_edited_file_survives_and_is_reported(seeded):
    run_import(seeded, SEEDS[0])
    target = content_files(seeded)[0]
    edited = target.read_text().replace("authors: []", "authors: [Ada Lovelace]")
    target.write_text(edited)
    result = run_import(seeded, SEEDS[0])
    assert result.exit_code == 0
    assert target.read_text() == edited
    shown = target.relative_to(seeded.root).as_posix()
    assert re.search(rf"^{re.escape(shown)}: skipped: edited by hand, not overwritten \(the record at "
                     rf".*000_85b5dcf3920078f0.txt:\d+\)$", result.output, re.MULTILINE)
    assert result.output.splitlines()[-1] == ("19 records read: 0 created, 0 updated, 18 unchanged, "
                                              "1 skipped (1 edited by hand).")


def test_a_renamed_file_is_found_by_its_id_and_still_updated(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    [target] = content_files(seeded)
    renamed = target.with_name("my-better-name.md")
    target.rename(renamed)
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with great care.\n")
    result = run_import(seeded, seed)
    assert result.output.splitlines()[-1].startswith("1 record read: 0 created, 1 updated")
    assert content_files(seeded) == [renamed] and "great care" in renamed.read_text()


def test_a_typo_fixed_seed_abstract_updates_the_paper(seeded, tmp_path):
    seed = tmp_path / "icml.txt"
    original = SEEDS[0].read_text()
    seed.write_text(original)
    run_import(seeded, seed)
    before = {p: front(p) for p in content_files(seeded)}
    grokking = next(p for p in before if "Grokking, or delayed" in p.read_text())
    fixed = original.replace("Grokking, or delayed generalization", "Grokking, or delayed generalisation", 1)
    fixed = fixed.replace("near zero training error", "near-zero training error", 1)
    seed.write_text(fixed)
    result = run_import(seeded, seed, "--venue", "icml-2024")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("19 records read: 0 created, 1 updated, 18 unchanged")
    assert content_files(seeded) == sorted(before)
    assert "near-zero training error" in grokking.read_text()
    assert front(grokking)["id"] == before[grokking]["id"]  # the id stays, though the text's hash changed
    assert run_import(seeded, seed).output.splitlines()[-1].endswith("0 updated, 19 unchanged, 0 skipped.")


def test_the_same_seed_abstract_twice_is_one_paper(seeded, tmp_path):
    seed = tmp_path / "twice.txt"
    seed.write_text("ICML 2024\n\n" + "We propose FooNet, a network for testing.\n\n" * 2)
    result = run_import(seeded, seed)
    assert re.search(r"twice.txt:5: skipped: duplicate of .*twice.txt:3 \(same id 'icml2024-[0-9a-f]{10}'\)",
                     result.output)
    assert result.output.splitlines()[-1] == ("2 records read: 1 created, 0 updated, 0 unchanged, "
                                              "1 skipped (1 duplicate).")
    assert result.exit_code == 0 and len(content_files(seeded)) == 1


def test_a_bad_seed_file_is_reported_and_the_others_imported(seeded, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("\nSome papers without a year\n\nAn abstract.\n")
    good = tmp_path / "good.txt"
    good.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    result = run_import(seeded, bad, good)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"{bad}:2: expected a header with a venue and year such as 'ICML 2024 Papers'" in result.output
    assert result.output.splitlines()[-1] == ("1 record read: 1 created, 0 updated, 0 unchanged, "
                                              "0 skipped; 1 file not imported.")
    assert len(content_files(seeded)) == 1


@pytest.mark.parametrize("manifest, message", [
    ('["icml-2024/a.md"]', r"content/\.imported\.json:1: expected an object mapping file paths to hashes, not a list"),
    ('{\n "icml-2024/a.md": 3\n}', r"content/\.imported\.json:2: the hash of 'icml-2024/a.md' must be a string"),
    ('{"icml-2024/a.md": ', r"content/\.imported\.json:1: not valid JSON \(Expecting value\)"),
    ("[" * 100_000 + "]" * 100_000, r"content/\.imported\.json: nested too deeply to be a manifest"),
    ('{"icml-2024/a.md": "ab",\n "icml-2024/b.md": ' + "9" * 5000 + "}",
     r"content/\.imported\.json:2: the hash of 'icml-2024/b.md' must be a string, not a number"),
])
def test_a_damaged_manifest_stops_the_import_before_anything_is_written(seeded, tmp_path, manifest, message):
    seeded.write("content/.imported.json", manifest)
    before = snapshot(seeded)
    result = run_import(seeded, SEEDS[0])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert re.fullmatch(rf"Error: .*{message}.*: restore it from git, or delete it .*\n", result.output)
    assert len(result.output.splitlines()) == 1
    assert snapshot(seeded) == before


def test_a_json_record_with_a_number_too_long_is_reported_and_the_others_imported(seeded, tmp_path):
    export = tmp_path / "papers.json"
    export.write_text(json.dumps([
        {"title": "Grokking Revisited", "abstract": "We revisit grokking.", "venue": "ICML 2024"},
        {"title": "Huge Numbers", "abstract": "We count.", "venue": "ICML 2024", "n": "N"},
        {"title": "Diffusion Again", "abstract": "We diffuse.", "venue": "ICML 2024"}], indent=1)
        .replace('"N"', "9" * 5000))
    result = run_import(seeded, export)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines() == [
        f"{export}:7: record 2 has a whole number of 5,000 digits, too large to import (quote it in the file if it "
        "is meant as text): skipped",
        "3 records read: 2 created, 0 updated, 0 unchanged, 1 skipped (1 unreadable)."]
    assert [front(path)["title"] for path in content_files(seeded)] == ["Diffusion Again", "Grokking Revisited"]
    assert len(load_papers(load_config(seeded.root / "site.yaml"))) == 2  # and they build


def killed_while_writing(path: Path, data: bytes) -> int:
    """The pid of a process killed with SIGKILL while write_atomically wrote half of data to path."""
    from papersite.importers import writer
    pid = os.fork()
    if pid == 0:
        try:
            def half_then_killed(fd, data):
                os.write(fd, data[:len(data) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
            writer.write_all = half_then_killed
            writer.write_atomically(path, data)
        finally:
            os._exit(1)  # never back into pytest
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return pid


def test_what_an_import_killed_while_writing_left_the_next_import_removes(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    [paper] = content_files(seeded)
    content = seeded.root / "content"
    left = []
    for path in (paper, content / "icml-2024" / "new-paper.md", content / ".imported.json", seeded.root / "site.yaml"):
        data = path.read_bytes() if path.exists() else paper.read_bytes()
        pid = killed_while_writing(path, data)
        left.append(path.with_name(f".{path.name}.{pid}.tmp"))
    for path, data in ((seeded.root / INDEX, HEADER + b"0" * 80),
                       (seeded.root / ".cache" / "import-report.txt", b"x.bib:1: skipped\n")):
        path.parent.mkdir(exist_ok=True)
        left.append(path.with_name(f".{path.name}.{killed_while_writing(path, data)}.tmp"))
    assert all(path.is_file() for path in left)
    dead = int(left[0].name.split(".")[-2])
    kept = {  # a person's, or being written by a process that runs (this one)
        content / "icml-2024" / f".notes.md.{dead}.tmp": b"my notes, not an import's",
        content / f".site.yaml.{dead}.tmp": paper.read_bytes(),  # site.yaml's name, not where it is
        content / "icml-2024" / f".other.md.{os.getpid()}.tmp": paper.read_bytes()[:10],
        content / "icml-2024" / f"paper.md.{dead}.tmp": paper.read_bytes(),  # not hidden: not a name of ours
        seeded.root / f".notes.txt.{dead}.tmp": b"",
        seeded.root / ".cache" / f".import-index.pickle.{dead}.tmp": b"not what an import writes there",
    }
    for path, data in kept.items():
        path.write_bytes(data)
    before = snapshot(seeded)

    result = run_import(seeded, seed)
    assert result.exit_code == 0 and result.output.endswith("1 unchanged, 0 skipped.\n"), result.output
    assert not any(path.exists() for path in left)
    assert {path: path.read_bytes() for path in kept} == kept
    assert snapshot(seeded) == {name: data for name, data in before.items()
                                if seeded.root / name not in left}


def test_an_import_writes_nothing_into_a_symlinked_venue_folder_the_build_would_not_read(seeded, tmp_path):
    elsewhere = seeded.root / "elsewhere"
    elsewhere.mkdir()
    (seeded.root / "content" / "icml-2024").symlink_to(elsewhere)
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    result = run_import(seeded, seed)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines() == [
        f"{seed}:3: not written: content/icml-2024 is a symlinked folder, which the build does not follow; "
        "make it a folder of its own",
        "1 record read: 0 created, 0 updated, 0 unchanged, 1 skipped (1 unreadable).",
        "Error: nothing was imported: 1 record unreadable (see above)"]
    assert list(elsewhere.iterdir()) == []


def test_the_names_of_files_being_written_are_ignored_by_git_in_a_new_catalog_and_here(tmp_path):
    run("new", tmp_path / "catalog")
    subprocess.run(["git", "init", "--quiet", str(tmp_path / "catalog")], check=True)
    written = ["content/icml-2024/.a-paper.md.4242.tmp", "content/..imported.json.4242.tmp", ".site.yaml.4242.tmp",
               ".cache/papersite/session.pickle.4242.tmp"]
    ours = ["content/icml-2024/a-paper.md", "content/.imported.json", "site.yaml", "content/icml-2024/notes.tmp"]
    for repository, names in ((tmp_path / "catalog", written + ours), (ROOT, written[:3] + ours)):
        for name in names:
            ignored = subprocess.run(["git", "-C", str(repository), "check-ignore", "--quiet", "--no-index", name])
            assert (ignored.returncode == 0) == (name in written), (repository, name)


def test_added_is_the_day_first_seen_and_is_kept(seeded, tmp_path, monkeypatch):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    monkeypatch.setenv("PAPERSITE_TODAY", "2025-12-31")
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with more care.\n")
    run_import(seeded, seed)
    [path] = content_files(seeded)
    assert front(path)["added"] == TODAY and "more care" in path.read_text()
    monkeypatch.setenv("PAPERSITE_TODAY", "31/12/2025")
    result = run_import(seeded, seed)
    assert result.exit_code == 1 and result.output == ("Error: PAPERSITE_TODAY: must be a date such as 2024-07-21, "
                                                       "not '31/12/2025'\n")


# --- Records of other formats (as their readers yield them) --------------------------

def test_records_become_pages_with_their_title_authors_and_abstract(seeded, tmp_path):
    report = records(seeded,
                     record(1, title="Sparse Graphs: $O(n)$ Bounds", authors=[
                         Author("Ada Lovelace", orcid="0000-0002-1825-0097", affiliation="Analytical Engines"),
                         Author("Alan Turing")],
                         abstract="First paragraph about *graphs*.\n\nSecond paragraph.",
                         ids={"arxiv": "2402.07207"}, links={"pdf": "https://example.org/a.pdf"},
                         status="oral", date="2024-07-21", keywords=["Reinforcement Learning"]),
                     record(2, title="<script>alert(1)</script> A Paper Without Abstract", abstract="",
                            authors=("Grace Hopper",)))
    assert len(report.created) == 2 and not report.problems
    papers = {p.title: p for p in load_papers(seeded.config)}
    sparse = papers["Sparse Graphs: $O(n)$ Bounds"]
    assert sparse.id == "arxiv-2402.07207" and sparse.status == "oral" and sparse.date == "2024-07-21"
    assert sparse.people[0].orcid == "0000-0002-1825-0097" and sparse.authors == ("Ada Lovelace", "Alan Turing")
    assert dict(sparse.links) == {"pdf": "https://example.org/a.pdf", "arxiv": "https://arxiv.org/abs/2402.07207"}
    assert sparse.topics == ("reinforcement-learning",) and sparse.title_source == "" and sparse.added == TODAY
    assert "bibtex_key" not in front(sparse.source)
    pages = build_pages(seeded, tmp_path)
    page = pages[sparse.slug]
    assert "Ada Lovelace" in page.text["authors"] and "Alan Turing" in page.text["authors"]
    assert "First paragraph about graphs." in squash(page.text["abstract"])
    empty = pages[papers["<script>alert(1)</script> A Paper Without Abstract"].slug]
    assert squash(empty.text["h1"]) == "<script>alert(1)</script> A Paper Without Abstract"  # text, not markup
    assert "No abstract is available" in empty.text["abstract"] and "Grace Hopper" in empty.text["authors"]


def test_ids_come_from_the_strongest_identifier():
    def rid(**ids):
        return record_id(ids, {}, "A Title", "An abstract.", "icml-2024")
    assert rid(openreview="AbC_12-x", arxiv="2402.07207", doi="10.1/x", key="k") == "openreview-AbC_12-x"
    assert rid(arxiv="2402.07207v3", doi="10.1/x", key="k") == "arxiv-2402.07207"
    assert rid(doi="https://doi.org/10.1145/ABC.12", key="k") == "doi-10.1145-abc.12"
    assert re.fullmatch(r"doi-10.1145-abc-12-[0-9a-f]{6}", rid(doi="10.1145/abc(12)"))
    assert rid(key="[x]") != rid(key="%x")
    assert rid(key="smith2024:graphs") == "icml2024-smith2024-graphs"
    assert re.fullmatch(r"icml2024-t[0-9a-f]{10}", rid())
    assert rid() == record_id({}, {}, "a  title!", "Another abstract.", "icml-2024")  # the normalised title
    assert rid() != record_id({}, {}, "A Title", "", "icml-2024", "Ada Lovelace")  # and the first author
    assert record_id({}, {}, "", "Seed text.", "icml-2024") == "icml2024-" + __import__("hashlib").sha1(
        b"seed text.").hexdigest()[:10]
    assert record_id({}, {"arxiv": "https://arxiv.org/abs/2402.07207v1"}, "T", "", "x") == "arxiv-2402.07207"
    assert re.fullmatch(r"icml2024-h[0-9a-f]{10}", rid(key="ключ"))  # nothing URL-safe left: a hash


def test_an_updated_export_updates_the_file_in_place(seeded):
    first = record(1, title="Sparse Grahp Learning", abstract="We study sparse graphs.", ids={"doi": "10.1145/sg"})
    records(seeded, first)
    [path] = content_files(seeded)
    records(seeded, record(1, title="Sparse Graph Learning", abstract="We study sparse graphs and spectra.",
                           authors=("Ada Lovelace", "Alan Turing", "Grace Hopper"), ids={"doi": "10.1145/SG"}),
            today="2030-01-01")
    assert content_files(seeded) == [path]
    data = front(path)
    assert data["title"] == "Sparse Graph Learning" and data["authors"][-1] == "Grace Hopper"
    assert data["added"] == TODAY and data["id"] == "doi-10.1145-sg"
    assert path.read_text().endswith("We study sparse graphs and spectra.\n")


def test_a_fixed_title_without_identifier_updates_by_its_abstract(seeded):
    abstract = "We study sparse graphs, their spectra and how random walks mix on them in few steps."
    records(seeded, record(1, title="Sparse Grahp Learning", abstract=abstract))
    report = records(seeded, record(1, title="Sparse Graph Learning", abstract=abstract))
    assert len(report.updated) == 1 and not report.created
    [path] = content_files(seeded)
    assert front(path)["title"] == "Sparse Graph Learning"


def test_an_import_stopped_half_way_and_run_again_ends_as_one_that_was_not(seeded, tmp_path):
    """Two papers whose abstracts are near-identical (a template, a resubmission): one import
    makes both. Stopped after the first and run again, the second was taken for the first
    ("near-identical abstract", a paper this very input already has) and skipped."""
    text = "We study sparse graphs, their spectra and how random walks mix on them in few steps."
    both = [record(1, title="Sparse Graph Learning", abstract=text),
            record(2, title="Walks on Sparse Graphs", abstract=text.replace("few", "very few"),
                   authors=("Grace Hopper",))]
    whole = records(seeded, *both)
    assert len(whole.created) == 2 and not whole.skipped
    other = TinySite(tmp_path / "other")
    other.write("site.yaml", seeded_config())
    records(other, both[0])  # the run stopped here
    again = records(other, *both)
    assert len(again.created) == 1 and len(again.unchanged) == 1 and not again.skipped, again.skipped
    assert snapshot(other) == snapshot(seeded)


def test_a_record_twice_in_an_update_updates_its_paper_once(seeded):
    """The first copy finds the paper by its abstract (title and text fixed); the second is a
    duplicate of the first by id, not a new paper."""
    text = "We study sparse graphs, their spectra and how random walks mix on them in few steps."
    records(seeded, record(1, title="Sparse Grahp Learning", abstract=text))
    fixed = record(1, title="Sparse Graph Learning", abstract=text.replace("few", "very few"))
    report = records(seeded, fixed, record(2, title=fixed.title, abstract=fixed.abstract))
    assert len(report.updated) == 1 and not report.created
    [skip] = report.skipped
    assert skip.reason == "duplicate" and \
        str(skip.where).startswith("export.json: record 2: skipped: duplicate of export.json: record 1 (same id '")
    assert len(content_files(seeded)) == 1


def test_duplicates_in_one_input_and_against_the_catalog_are_reported(seeded):
    report = records(seeded,
                     record(1, ids={"arxiv": "2401.00001"}),
                     record(2, ids={"arxiv": "2401.00001v2"}, title="Another Title"),
                     record(3, title="Sparse  graph LEARNING", abstract="Other words entirely, here.",
                            authors=("A. Lovelace",)),
                     record(4, title="Sparse Graph Learning", authors=("Someone Else",), abstract="Different."))
    assert [s.reason for s in report.skipped] == ["duplicate", "duplicate"]
    assert [str(s.where) for s in report.skipped] == [
        "export.json: record 2: skipped: duplicate of export.json: record 1 (same id 'arxiv-2401.00001')",
        "export.json: record 3: skipped: duplicate of export.json: record 1 (same title and first author)"]
    assert len(report.created) == 2  # another first author: another paper
    again = records(seeded, record(9, title="Sparse graph learning", abstract="Yet another text.",
                                   ids={"doi": "10.5555/other"}))
    [skip] = again.skipped
    assert re.fullmatch(r"export.json: record 9: skipped: duplicate of content/icml-2024/sparse-graph-learning.md "
                        r"\(same title and first author, another id: 'arxiv-2401.00001'\)", str(skip.where))
    assert len(content_files(seeded)) == 2


def test_a_real_title_replaces_a_derived_one(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    abstract = "We propose FooNet, a network for testing importers with care and precision."
    seed.write_text(f"ICML 2024\n\n{abstract}\n")
    run_import(seeded, seed)
    [path] = content_files(seeded)
    assert front(path)["title_source"].startswith("derived:")
    fixed = abstract.replace("care", "care,")
    report = records(seeded, record(1, title="FooNet: Careful Importer Tests", abstract=fixed))
    assert report.updated == [path]
    data = front(path)
    assert data["title"] == "FooNet: Careful Importer Tests" and "title_source" not in data
    assert data["authors"] == ["Ada Lovelace", "Alan Turing"]
    # and the seed text, imported again, does not take the real title back
    result = run_import(seeded, seed)
    assert "which has a title of its own" in result.output
    assert front(path)["title"] == "FooNet: Careful Importer Tests"


def test_missing_and_unreadable_records_are_reported_and_the_rest_imported(seeded):
    report = records(seeded, record(1, title=""), Problem(Path("x.bib"), 12, "cannot decode entry 'k'"),
                     record(3, title="Good Paper"),
                     record(4, title="Too Long", abstract="word " * 20_000))
    assert len(report.created) == 1
    assert [str(p) for p in report.problems] == [
        "x.bib:12: cannot decode entry 'k'",
        "export.json: record 4: abstract is 99,999 characters; the limit is 64,000: is a blank line missing "
        "between two?"]
    assert [str(s.where) for s in report.skipped] == ["export.json: record 1: skipped: no title"]
    assert report.summary() == ("4 records read: 1 created, 0 updated, 0 unchanged, 3 skipped "
                                "(1 no title, 2 unreadable).")


# --- Venues ------------------------------------------------------------------------

def test_venues_match_by_name_alias_and_year_and_new_ones_are_declared(seeded):
    report = records(seeded,
                     record(1, title="A", venue="icml 2024"),
                     record(2, title="B", venue="Proc. ICML, 2024"),
                     record(3, title="C", venue="ICML", year=2024),
                     record(4, title="D", venue="ICLR.cc/2024/Conference", year=None),
                     record(5, title="E", venue="Journal of Machine Learning Research", venue_kind="journal",
                            year=2021),
                     record(6, title="F", venue="Journal of Machine Learning Research", venue_kind="journal",
                            year=2023),
                     record(7, title="G", venue="ICML", year=2023),
                     record(8, title="H", venue="Proceedings of the 41st Conference on Uncertainty (UAI 2025)",
                            year=2025))
    assert not report.problems, report.problems
    papers = {p.title: p for p in load_papers(seeded.config)}
    assert {t: papers[t].venue for t in "ABC"} == {"A": "icml-2024", "B": "icml-2024", "C": "icml-2024"}
    assert report.venues_added == ["iclr-2024", "jmlr", "icml-2023", "uai-2025"]  # JMLR: a known journal
    venues = {v.slug: v for v in seeded.config.venues}
    assert (venues["iclr-2024"].name, venues["iclr-2024"].year, venues["iclr-2024"].kind) == \
        ("ICLR 2024", 2024, "conference")
    jmlr = venues["jmlr"]
    assert (jmlr.name, jmlr.full_name) == ("JMLR", "Journal of Machine Learning Research")
    assert (jmlr.year, jmlr.kind) == (None, "journal") and (papers["E"].year, papers["F"].year) == (2021, 2023)
    assert venues["uai-2025"].full_name == "Proceedings of the 41st Conference on Uncertainty (UAI 2025)"
    assert (venues["icml-2023"].name, venues["icml-2023"].aliases) == ("ICML 2023", ())
    text = (seeded.root / "site.yaml").read_text()
    assert text.startswith("# my comment stays\n") and "  # a comment after the venues\n" in text
    before = snapshot(seeded)
    records(seeded, record(1, title="A", venue="icml 2024"), record(7, title="G", venue="ICML", year=2023))
    assert snapshot(seeded) == before


def test_a_conference_under_its_long_name_is_named_as_the_field_names_it(seeded):
    """Google Scholar's BibTeX names NeurIPS "Advances in Neural Information Processing Systems",
    in any case, with a volume number, as a journal @article: the venue is NeurIPS of that year,
    a conference with the long name as its full_name, and a venue site.yaml already declares
    under the short name takes the record. The year is in every new venue's slug."""
    seeded.write("site.yaml", seeded_config() + "  - slug: neurips-2023\n    name: NeurIPS 2023\n    year: 2023\n")
    long = "Advances in Neural Information Processing Systems"
    report = records(seeded,
                     record(1, title="A", venue=long, year=2020),
                     record(2, title="B", venue="Advances in neural information processing systems 30",
                            venue_kind="journal", year=2017),
                     record(3, title="C", venue=long, year=2023),
                     record(4, title="D", venue="Proceedings of the 38th International Conference on Machine Learning",
                            year=2021),
                     record(5, title="E", venue="Symposium on the Theory of Everything Under the Sun", year=2019),
                     record(6, title="F", venue="Symposium on the Theory of Everything Under the Sun", year=2021))
    assert not report.problems, report.problems
    papers = {p.title: p for p in load_papers(seeded.config)}
    assert {t: papers[t].venue for t in "ABCDEF"} == {
        "A": "neurips-2020", "B": "neurips-2017", "C": "neurips-2023", "D": "icml-2021",
        "E": "symposium-on-the-theory-of-everything-2019", "F": "symposium-on-the-theory-of-everything-2021"}
    venues = {v.slug: v for v in seeded.config.venues}
    assert [(v.name, v.year, v.kind, v.full_name) for v in (venues["neurips-2020"], venues["neurips-2017"])] == [
        ("NeurIPS 2020", 2020, "conference", long), ("NeurIPS 2017", 2017, "conference", long)]
    assert venues["icml-2021"].full_name == "Proceedings of the 38th International Conference on Machine Learning"
    assert "neurips-2023" not in report.venues_added


def test_a_dblp_booktitle_is_named_by_the_short_name_it_holds(seeded):
    """DBLP's booktitles hold the short name as one of their parts: the record finds the ICML 2024
    site.yaml declares, and a new venue is named by that part, the booktitle its full name; a
    workshop's name ending in the conference's is not the conference."""
    icml = "Forty-first International Conference on Machine Learning, ICML 2024, Vienna, Austria, July 21-27, 2024"
    neurips = ("Advances in Neural Information Processing Systems 33: Annual Conference on Neural Information "
               "Processing Systems 2020, NeurIPS 2020, December 6-12, 2020, virtual")
    eccv = "Computer Vision - ECCV 2020 - 16th European Conference, Glasgow, UK, August 23-28, 2020, Proceedings, Part I"
    workshop = "Workshop on Generative Biology, ICML 2024, Vienna, Austria"
    report = records(seeded, record(1, title="A", venue=icml), record(2, title="B", venue=neurips, year=2020),
                     record(3, title="C", venue=eccv, year=2020), record(4, title="D", venue=workshop))
    assert not report.problems, report.problems
    papers = {p.title: p for p in load_papers(seeded.config)}
    assert {t: papers[t].venue for t in "ABCD"} == {"A": "icml-2024", "B": "neurips-2020", "C": "eccv-2020",
                                                   "D": "workshop-on-generative-biology-icml-2024"}
    venues = {v.slug: v for v in seeded.config.venues}
    assert (venues["neurips-2020"].name, venues["neurips-2020"].full_name, venues["neurips-2020"].kind) == \
        ("NeurIPS 2020", neurips, "conference")
    assert (venues["eccv-2020"].name, venues["eccv-2020"].full_name) == ("ECCV 2020", eccv)
    assert venues["workshop-on-generative-biology-icml-2024"].kind == "workshop"


def test_a_preprint_and_its_published_version_are_one_paper_in_the_published_venue(seeded):
    """DBLP and Zotero list a paper's arXiv preprint beside its conference version: the catalog
    has one paper, in the conference; the preprint gives it what it lacks (DBLP's entries have
    no abstract, and no arXiv link) and takes nothing. Known by a shared arXiv id, else by the
    same title and first author. A second import changes nothing."""
    def published(number, title, **fields):
        return record(number, title=title, venue="ICML 2024", **fields)

    def preprint(number, title, authors=("Ada Lovelace", "Alan Turing"), **fields):
        return record(number, title=title, venue="arXiv", venue_kind="preprint", authors=authors, **fields)

    imports = [published(1, "Sparse Graphs", ids={"arxiv": "2401.00001"}), published(2, "Dense Graphs", abstract=""),
               preprint(3, "Sparse graphs", ids={"arxiv": "2401.00001"}, abstract="The preprint's own words."),
               preprint(4, "DENSE GRAPHS", ids={"arxiv": "2402.00002"}, abstract="Dense graphs, as preprinted."),
               preprint(5, "Dense Graphs", authors=("Grace Hopper",))]
    report = records(seeded, *imports)
    assert report.skipped == [] and len(report.created) == 3
    papers = sorted(load_papers(seeded.config), key=lambda p: (p.title, p.venue))
    assert [(p.title, p.venue, p.authors[0]) for p in papers] == [
        ("Dense Graphs", "arxiv", "Grace Hopper"),  # another first author: another paper
        ("Dense Graphs", "icml-2024", "Ada Lovelace"), ("Sparse Graphs", "icml-2024", "Ada Lovelace")]
    dense, sparse = papers[1], papers[2]
    assert dense.abstract == "Dense graphs, as preprinted." and dict(dense.links) == {
        "arxiv": "https://arxiv.org/abs/2402.00002"}
    assert sparse.abstract == "We study sparse graphs and their spectra."  # its own, kept
    before = snapshot(seeded)
    again = records(seeded, *reversed(imports))
    assert snapshot(seeded) == before and again.skipped == [] and len(again.unchanged) == 5


def test_a_published_version_imported_after_its_preprint_takes_its_place(seeded):
    """And its folder: the file moves from content/arxiv/ to the conference's, under the same name."""
    report = records(seeded, record(1, title="Sparse Graphs", venue="arXiv", venue_kind="preprint"))
    [preprinted] = report.created
    assert front(preprinted)["venue"] == "arxiv" and preprinted.parent.name == "arxiv"
    later = records(seeded, record(2, title="Sparse graphs", venue="ICML 2024", abstract=""))  # DBLP: no abstract
    path = seeded.root / "content/icml-2024" / preprinted.name
    assert later.updated == [path] and not later.created and not preprinted.exists()
    assert front(path)["venue"] == "icml-2024" and front(path)["title"] == "Sparse graphs"
    assert load_papers(seeded.config)[0].abstract == "We study sparse graphs and their spectra."  # the preprint's
    before = snapshot(seeded)
    again = records(seeded, record(1, title="Sparse Graphs", venue="arXiv", venue_kind="preprint"),
                    record(2, title="Sparse graphs", venue="ICML 2024", abstract=""))
    assert snapshot(seeded) == before and again.skipped == []


def test_a_preprint_s_file_a_person_moved_or_edited_stays_where_it_is(seeded):
    """The published version moves only a file where the import put it: one a person moved into a
    folder of their own is updated there, one they edited is left as it is."""
    placed = records(seeded, record(1, title="Sparse Graphs", venue="arXiv", venue_kind="preprint")).created[0]
    edited = records(seeded, record(2, title="Dense Graphs", venue="arXiv", venue_kind="preprint",
                                    abstract="Dense graphs and their cuts.")).created[0]
    mine = seeded.root / "content/reading" / placed.name
    mine.parent.mkdir()
    placed.rename(mine)
    edited.write_text(edited.read_text() + "My notes.\n")
    notes = edited.read_bytes()
    report = records(seeded, record(3, title="Sparse graphs", venue="ICML 2024"),
                     record(4, title="Dense graphs", venue="ICML 2024", abstract="Dense graphs and their cuts."))
    assert report.updated == [mine] and front(mine)["venue"] == "icml-2024" and not report.created
    assert [s.reason for s in report.skipped] == ["edited by hand"] and edited.read_bytes() == notes
    assert not (seeded.root / "content/icml-2024").exists()


def test_one_import_of_a_preprint_and_two_exports_of_its_published_version_makes_one_paper(seeded):
    """Zotero's arXiv entry, DBLP's conference entry, Google Scholar's: the second takes the
    first's place, the third is its duplicate in the conference."""
    report = records(seeded, record(1, title="Sparse Graphs", venue="arXiv", venue_kind="preprint"),
                     record(2, title="Sparse graphs", venue="ICML 2024", abstract="", ids={"key": "DBLP:x"}),
                     record(3, title="Sparse Graphs", venue="ICML 2024", ids={"key": "scholar"}))
    assert len(report.created) == 1 and [s.reason for s in report.skipped] == ["duplicate"]
    [paper] = load_papers(seeded.config)
    assert paper.venue == "icml-2024" and paper.abstract == "We study sparse graphs and their spectra."


def test_a_preprint_leaves_a_published_paper_a_person_edited_alone(seeded):
    [path] = records(seeded, record(1, title="Sparse Graphs", venue="ICML 2024", abstract="")).created
    path.write_text(path.read_text() + "My own summary.\n")
    edited = path.read_bytes()
    report = records(seeded, record(2, title="Sparse graphs", venue="arXiv", venue_kind="preprint",
                                    ids={"arxiv": "2401.00001"}))
    assert path.read_bytes() == edited
    assert [s.reason for s in report.skipped] == ["duplicate"] and "a preprint of" in str(report.skipped[0].where)


def test_a_venue_no_imported_paper_is_in_is_not_added(seeded):
    """The venue of a record that made no paper of its own (a preprint of a paper, a duplicate)
    goes nowhere: site.yaml is not given a venue to check that holds nothing."""
    report = records(seeded, record(1, title="Sparse Graphs", venue="ICML 2024", ids={"arxiv": "2401.00001"}),
                     record(2, title="Sparse graphs", venue="arXiv", venue_kind="preprint"),
                     record(3, title="Sparse Graphs", venue="Somewhere Else 2024", ids={"arxiv": "2401.00001"}))
    assert len(report.created) == 1 and len(report.skipped) == 1 and report.venues_added == []
    assert [v.slug for v in seeded.config.venues] == ["icml-2024"]


def test_venue_option_assigns_every_record_and_must_exist(seeded, tmp_path):
    report = records(seeded, record(1, title="A", venue="Somewhere Else 1999", year=1999), venue="icml-2024")
    [path] = report.created
    assert front(path)["venue"] == "icml-2024" and front(path)["extra"] == {"year": 1999}
    seed = tmp_path / "s.txt"
    seed.write_text("NeurIPS 2023\n\nWe propose FooNet.\n")
    for typo in ("imcl-2024", "icml-2042", "icml2024"):  # two letters swapped; no venue's year yet; no dash
        result = run_import(seeded, seed, "--venue", typo)
        assert result.exit_code == 1
        assert result.output == (f"Error: --venue: unknown venue '{typo}'; did you mean 'icml-2024'? "
                                 "(a new venue: declare it under 'venues:' in site.yaml)\n")


def _seed(folder: Path, header: str, n: int) -> Path:
    path = folder / f"seed-{n}.txt"
    path.write_text(f"{header}\n\nWe propose Net{n}, network number {n} for testing new venues with care.\n")
    return path


def _declared(slug: str, name: str, year: int, indent: str = "  ") -> str:
    """A venue as the importer declares it in site.yaml."""
    return (f'{indent}- slug: {slug}\n{indent}  name: "{name}"\n{indent}  year: {year}\n'
            f"{indent}  kind: conference\n")


def test_a_new_venue_is_declared_by_every_import_where_a_person_would_write_it(tmp_path):
    """Issue 38, item 8: in a catalog fresh from `new`, the second new --venue was refused as a
    typo of the first, and new venues went after the closing `# omit:` comment, where
    uncommenting it made `omit:` part of the venues list."""
    folder = tmp_path / "catalog"
    assert run("new", folder).exit_code == 0
    config = folder / "site.yaml"
    original = config.read_text()
    assert "venues: []\n" in original and original.endswith("# omit: [author-feeds, author-bibtex, citation-files]\n")
    for n, (slug, name) in enumerate([("tea-seminar-2024", "Tea Seminar 2024"), ("lab-seminar-2024", "Lab Seminar 2024"),
                                      ("tea-seminar-2023", "Tea Seminar 2023")]):
        result = run("import", _seed(tmp_path, name, n), "--venue", slug, "--config", config)
        assert result.exit_code == 0, result.output
        assert f"added venue '{slug}'" in result.output
    assert config.read_text() == original.replace("venues: []\n", "venues:\n" + "".join([
        _declared("tea-seminar-2024", "Tea Seminar 2024", 2024), _declared("lab-seminar-2024", "Lab Seminar 2024", 2024),
        _declared("tea-seminar-2023", "Tea Seminar 2023", 2023)]))
    config.write_text(config.read_text().replace("# omit: [", "omit: ["))
    loaded = load_config(config)
    assert loaded.omit == ("author-feeds", "author-bibtex", "citation-files")
    assert [v.slug for v in loaded.venues] == ["tea-seminar-2024", "lab-seminar-2024", "tea-seminar-2023"]


def test_a_fork_of_this_repository_declares_new_venues_and_new_years_of_known_ones(site, tmp_path):
    """Issue 38, item 8: beside icml-2024 and iclr-2024 of this repository's site.yaml, colt-2024
    was refused as a typo, and uai-2020 beside uai-2019. Every other byte of site.yaml stays."""
    original = (ROOT / "site.yaml").read_bytes()
    site.write("site.yaml", original)
    venues = [("colt-2024", "COLT 2024", 2024), ("uai-2019", "UAI 2019", 2019), ("uai-2020", "UAI 2020", 2020)]
    for n, (slug, name, year) in enumerate(venues):
        result = run_import(site, _seed(tmp_path, name, n), "--venue", slug)
        assert result.exit_code == 0, result.output
    assert (site.root / "site.yaml").read_bytes() == original + "".join(_declared(*v) for v in venues).encode()
    result = run_import(site, _seed(tmp_path, "UAI 2019", 9), "--venue", "uia-2019")
    assert result.exit_code == 1 and "unknown venue 'uia-2019'; did you mean 'uai-2019'?" in result.output


def test_new_venues_go_before_the_comments_after_the_list_and_keep_its_line_endings(site, tmp_path):
    """Issue 38, item 8: a new venue went after the comments that follow the list (a venue
    commented out), and site.yaml's CRLF line endings were all rewritten."""
    text = ("title: T\r\nvenues:\r\n- slug: icml-2024\r\n  name: ICML 2024\r\n  year: 2024  # the main one\r\n"
            "\r\n# - slug: old-2020\r\n#   name: Old 2020\r\n")
    site.write("site.yaml", text.encode())
    assert run_import(site, _seed(tmp_path, "NeurIPS 2024", 1), "--venue", "neurips-2024").exit_code == 0
    declared = _declared("neurips-2024", "NeurIPS 2024", 2024, indent="").replace("\n", "\r\n")
    assert (site.root / "site.yaml").read_bytes() == text.replace("# the main one\r\n", "# the main one\r\n" + declared,
                                                                  1).encode()


NO_VENUE = "skipped: no venue: pass --venue SLUG to say which venue of site.yaml these papers belong to"


def test_records_without_a_venue_are_each_reported_when_few(seeded):
    report = records(seeded, record(1, title="A", venue=""), record(2, title="B", venue=""))
    assert [str(p) for p in report.problems] == [f"export.json: record {n}: {NO_VENUE}" for n in (1, 2)]
    assert not report.created and report.summary().endswith("2 skipped (2 unreadable).")
    assert not (seeded.root / ".cache").exists()


def test_many_records_without_a_venue_are_one_line_naming_the_file_that_lists_them_all(seeded):
    """Issue 38, item 9: "128 records, the first here" named one record of 128."""
    report = records(seeded, *[record(n, title=f"Paper {n}", venue="") for n in range(1, 9)])
    listed = seeded.root / ".cache" / "import-report.txt"
    assert [str(p) for p in report.problems] == [
        "export.json: record 1: skipped, as were 7 more records (every one is in .cache/import-report.txt): "
        "no venue: pass --venue SLUG to say which venue of site.yaml these papers belong to"]
    assert report.summary() == "8 records read: 0 created, 0 updated, 0 unchanged, 8 skipped (8 unreadable)."
    assert listed.read_text().splitlines() == [f"export.json: record {n}: {NO_VENUE}" for n in range(1, 9)] + [
        report.summary()]
    # outside content/, so never published; an import that lists everything itself leaves no stale list
    records(seeded, record(9, title="Placed", venue="ICML 2024"))
    assert not listed.exists()


def test_near_identical_text_index_finds_edits_not_neighbours():
    index = TextIndex()
    texts = [f"Paper {n} studies topic {n * 7919 % 10007} with method {n * 104729 % 10009} and finds effect "
             f"{n * 1299709 % 10037} on benchmark {n % 97}." for n in range(10_000)]
    for n, text in enumerate(texts):
        index.add("v", text, n)
    assert index.find("v", texts[1234].replace("finds", "reports")) == 1234
    assert index.find("w", texts[1234]) is None  # another venue
    assert index.find("v", "Paper 1234 studies something else entirely, with no method at all.") is None


def test_a_venue_that_cannot_be_added_automatically_is_an_error(site, tmp_path):
    site.write("site.yaml", "title: T\nvenues: [{slug: a, name: A 2024, year: 2024}]\n")
    seed = tmp_path / "s.txt"
    seed.write_text("NeurIPS 2023\n\nWe propose FooNet.\n")
    result = run_import(site, seed)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert re.fullmatch(r"Error: .*site.yaml:2: cannot add venues to this 'venues:' list automatically; "
                        r"add: NeurIPS 2023\n", result.output)


def test_the_manifest_is_json_of_paths_to_hashes(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    manifest = json.loads((seeded.root / "content" / ".imported.json").read_text())
    [path] = content_files(seeded)
    assert list(manifest) == [path.relative_to(seeded.root / "content").as_posix()]
    assert manifest[list(manifest)[0]] == __import__("hashlib").sha256(path.read_bytes()).hexdigest()


def test_import_errors_name_the_option(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet.\n")
    result = run_import(seeded, seed, "--column", "title")
    assert result.exit_code == 1
    assert result.output == "Error: --column: expected FIELD=HEADER such as title=Paper Title, not 'title'\n"


def test_import_site_error_from_config(tmp_path):
    (tmp_path / "site.yaml").write_text("title: [\n")
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet.\n")
    result = run("import", seed, "--config", tmp_path / "site.yaml")
    assert result.exit_code == 1 and "Traceback" not in result.output and "site.yaml:" in result.output
    with pytest.raises(SiteError):
        load_config(tmp_path / "site.yaml")


def test_a_new_paper_never_overwrites_a_file_and_never_hides_as_a_readme(seeded):
    readme = seeded.write("content/icml-2024/README.md", "Notes about this venue.\n")
    report = records(seeded, record(1, title="Readme"), record(2, title="Readme", authors=("Grace Hopper",)))
    assert readme.read_text() == "Notes about this venue.\n"
    assert sorted(p.name for p in report.created) == ["readme-2.md", "readme-3.md"]
    assert len(load_papers(seeded.config)) == 2


HOSTILE = ["no", "yes", "null", "~", "2024", "1e3", "0x1F", "2024-07-21", "- item", "a: b", "#hash", "[x]",
           "{y}", "'quote'", '"double"', "back\\slash \\n", "tab\there", "ünïcödé 🙂", "*alias", "&anchor",
           "!tag", "%x", "@at", "`tick`", "| pipe", "> fold", "  lead and trail  ", "icml-2024", "a-",
           "<script>alert(1)</script>", "{{ jinja }}", "\u00a0nbsp", "line\u2028sep"]


def test_front_matter_reads_back_as_written_whatever_the_text(seeded):
    report = records(seeded, *[record(n, title=f"T{n} {text}", authors=(text.strip() or "x", f"B{n}"), status=text,
                                      extra={"note": text, "n": n, "list": [text, None, 1.5]},
                                      links={"url": "https://example.org/?q=" + text.strip()},
                                      abstract=f"Abstract {n}: {text}")
                               for n, text in enumerate(HOSTILE, 1)])
    assert not report.problems and len(report.created) == len(HOSTILE)
    papers = sorted(load_papers(seeded.config), key=lambda p: int(p.abstract.split(":")[0].split()[1]))
    for n, (paper, text) in enumerate(zip(papers, HOSTILE), 1):
        data = front(paper.source)
        assert data["title"] == " ".join(f"T{n} {text}".split())
        assert data["status"] == " ".join(text.split()) or "status" not in data
        assert {k: data["extra"][k] for k in ("note", "n", "list")} == {"note": text, "n": n, "list": [text, None, 1.5]}
        if " " in text.strip():  # not a URL: kept, under extra
            assert data["extra"]["links"] == {"url": "https://example.org/?q=" + text.strip()}


def test_titles_and_names_are_kept_as_the_record_gives_them(seeded):
    title = "Junk DNA: ``Difficult\" Tasks, 80\\% of $\\textit{x}$ — ‘quoted’"
    records(seeded, record(1, title=title + "\x07", authors=("  Tim   Rocktäschel ",)))
    [paper] = load_papers(seeded.config)
    assert paper.title == title and paper.authors == ("Tim Rocktäschel",)


def test_a_new_file_is_named_after_the_title_as_a_reader_sees_it(seeded):
    """The file name is the paper's URL: its math reads as the page shows it, not as TeX commands,
    and a Greek letter standing alone goes by its name."""
    titles = {
        "$\\bf{\\Phi}_\\textrm{Flow}$: Differentiable Simulations": "phiflow-differentiable-simulations",
        "Regret of $\\mathcal{O}(T^{2/3})$ in Bandits": "regret-of-o-t-2-3-in-bandits",
        "$\\epsilon$-Greedy Exploration and $\\alpha$-Divergences": "epsilon-greedy-exploration-and-alpha-divergences",
        "Schrödinger Bridges: Über Alles": "schrodinger-bridges-uber-alles",
        "$$": "paper",
    }
    records(seeded, *[record(n, title=title, abstract=f"Abstract number {n} about something else.")
                      for n, title in enumerate(titles, 1)])
    names = sorted(p.stem for p in (seeded.root / "content" / "icml-2024").glob("*.md"))
    assert names == sorted(titles.values())
    assert {paper.slug for paper in load_papers(seeded.config)} == set(titles.values())


FRAC_BIB = """@inproceedings{half,
  title = {Rates of \\frac{1}{2} and \\frac Order},
  author = {Ada Lovelace},
  booktitle = {ICML 2024},
  year = {2024},
  abstract = {We prove \\frac{a}{b} bounds and a \\frac rate.},
}
"""


def test_latex_the_decoder_cannot_convert_logs_nothing_during_an_import(seeded, caplog):
    """pylatexenc logs a warning for a \\frac it cannot substitute; where logging is configured
    (here pytest's handler on the root logger) the user would see it."""
    seeded.write("papers.bib", FRAC_BIB)
    with caplog.at_level(logging.DEBUG):
        result = run_import(seeded, seeded.root / "papers.bib")
    assert result.exit_code == 0, result.output
    assert result.output == "1 record read: 1 created, 0 updated, 0 unchanged, 0 skipped.\n"
    assert [r for r in caplog.records if r.name.startswith("pylatexenc")] == []
    [paper] = load_papers(seeded.config)
    assert paper.title.startswith("Rates of 1/2 and ")
    # Scoped to the import: pylatexenc's logger is as it was.
    assert logging.getLogger("pylatexenc").level == logging.NOTSET


def test_import_with_logging_configured_prints_only_the_summary(seeded):
    seeded.write("papers.bib", FRAC_BIB)
    code = ("import logging, sys; logging.basicConfig(); from build import cli; "
            "cli(sys.argv[1:], standalone_mode=True)")
    done = subprocess.run([sys.executable, "-c", code, "import", str(seeded.root / "papers.bib"),
                           "--config", str(seeded.root / "site.yaml")], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PAPERSITE_TODAY": TODAY})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 record read: 1 created, 0 updated, 0 unchanged, 0 skipped.\n"
    assert done.stderr == ""




def test_titles_fold_letters_without_a_decomposition(seeded):
    """One folding rule for names and titles (people.fold): 'ø' is 'o', not dropped, so the
    same title typed without it is the same paper."""
    report = records(seeded, record(1, title="Sørensen Bounds for Sparse Graphs"),
                     record(2, title="Sorensen Bounds for Sparse Graphs"))
    assert len(report.created) == 1 and [s.reason for s in report.skipped] == ["duplicate"]


def test_new_venues_follow_the_indentation_of_the_venues_list(site):
    """A site.yaml written by PyYAML lists `- slug:` at the key's own indentation: the appended
    venues must too, or the file stops being YAML."""
    site.write("site.yaml", yaml.safe_dump({"title": "T", "venues": [{"slug": "icml-2024", "name": "ICML 2024",
                                                                       "year": 2024}]}, sort_keys=False))
    records(site, record(1, title="A", venue="UAI 2025", year=2025), record(2, title="B", venue="COLT 2023", year=2023))
    venues = yaml.safe_load((site.root / "site.yaml").read_text())["venues"]
    assert [v["slug"] for v in venues] == ["icml-2024", "uai-2025", "colt-2023"]
    assert len(load_papers(site.config)) == 2


# --- Venues from a reference's prose, and records that name none (issue 38, items 7 and 12) -----

IMPORTS = Path(__file__).parent / "fixtures" / "imports"


def test_booktitle_prose_names_a_known_venue_and_abbr_names_an_unknown_one(seeded):
    """"the 13th International Conference on Learning Representations, 2025." is ICLR 2025, the prose
    its full name; al-folio's `abbr` names a venue the table does not know; two years of an unknown
    venue are named alike; site.yaml gains the venues after its last one, every other byte kept."""
    config = (seeded.root / "site.yaml").read_bytes()
    result = run_import(seeded, IMPORTS / "venue-prose.bib")
    assert result.exit_code == 0 and "6 created" in result.output, result.output
    papers = {p.title: p.venue for p in load_papers(seeded.config)}
    assert papers == {"Alpha Networks for Sparse Graphs": "iclr-2025", "Beta Networks for Dense Graphs": "neurips-2024",
                      "Gamma Networks on Foo": "symposium-on-foo-studies-2025",
                      "Delta Networks on Foo": "symposium-on-foo-studies-2024",
                      "Epsilon Networks Somewhere": "swvn-2024", "Zeta Networks in Print": "tmlr"}
    venues = {v.slug: v for v in seeded.config.venues}
    assert (venues["iclr-2025"].name, venues["iclr-2025"].year, venues["iclr-2025"].full_name) == \
        ("ICLR 2025", 2025, "the 13th International Conference on Learning Representations, 2025")
    assert venues["neurips-2024"].name == "NeurIPS 2024"
    assert [venues[f"symposium-on-foo-studies-{y}"].name for y in (2024, 2025)] == \
        ["Symposium on Foo Studies 2024", "Symposium on Foo Studies 2025"]
    assert (venues["swvn-2024"].name, venues["swvn-2024"].full_name) == ("SWVN 2024", "Some Weird Venue Name")
    assert (venues["tmlr"].name, venues["tmlr"].year, venues["tmlr"].kind) == ("TMLR", None, "journal")
    text = (seeded.root / "site.yaml").read_bytes()
    head, tail = config.split(b"  # a comment after the venues\n")
    assert text.startswith(head + b"  - slug: iclr-2025\n    name: \"ICLR 2025\"\n    year: 2025\n")
    assert text.endswith(b"    kind: journal\n  # a comment after the venues\n" + tail)
    before = snapshot(seeded)
    again = run_import(seeded, IMPORTS / "venue-prose.bib")
    assert "0 created, 0 updated, 6 unchanged" in again.output and snapshot(seeded) == before


@pytest.mark.parametrize("name, year, slug", [
    ("Proceedings of the 41st International Conference on Machine Learning", 2024, "icml-2024"),
    ("the 13th International Conference on Learning Representations, 2025.", 2025, "iclr-2025"),
    ("NIPS", 2017, "neurips-2017"),
    ("Proceedings of the AAAI Conference on Artificial Intelligence", 2024, "aaai-2024"),
    ("Proceedings of the Thirty-Third International Joint Conference on Artificial Intelligence", 2024, "ijcai-2024"),
    ("Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics", 2024, "acl-2024"),
    ("Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing", 2023, "emnlp-2023"),
    ("Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational "
     "Linguistics: Human Language Technologies, Volume 1 (Long and Short Papers)", 2019, "naacl-2019"),
    ("Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)", 2023, "cvpr-2023"),
    ("Proceedings of the IEEE/CVF International Conference on Computer Vision, 2023.", 2023, "iccv-2023"),
    ("European Conference on Computer Vision", 2022, "eccv-2022"),
    ("Proceedings of the 29th ACM SIGKDD Conference on Knowledge Discovery and Data Mining", 2023, "kdd-2023"),
    ("Proceedings of the ACM Web Conference 2023", 2023, "www-2023"),
    ("Proceedings of the 46th International ACM SIGIR Conference on Research and Development in Information "
     "Retrieval", 2023, "sigir-2023"),
    ("Proceedings of Thirty Sixth Conference on Learning Theory", 2023, "colt-2023"),
    ("Proceedings of The 27th International Conference on Artificial Intelligence and Statistics", 2024,
     "aistats-2024"),
    ("Proceedings of the Thirty-Ninth Conference on Uncertainty in Artificial Intelligence", 2023, "uai-2023"),
    ("Proceedings of The 7th Conference on Robot Learning", 2023, "corl-2023"),
    ("Journal of Machine Learning Research", 2021, "jmlr"),
])
def test_known_venues_are_found_through_their_prose(name, year, slug):
    venue = Venues(()).resolve(name, year, "")
    assert venue.slug == slug, venue


def test_records_with_no_venue_are_placed_by_arxiv_or_publisher_and_the_rest_refused(seeded):
    """An arXiv @misc (by eprint or by arXiv's DOI) goes to the arXiv venue, as the arXiv importer's
    records do; a chapter naming only its publisher goes to the publisher's venue, as a book does;
    a record with nothing to place it by is still refused, with the message it had."""
    paths = [IMPORTS / name for name in ("no-venue.bib", "no-venue.ris", "no-venue.json")]
    result = run_import(seeded, *paths)
    papers = {p.title: p.venue for p in load_papers(seeded.config)}
    assert papers == {"Eta Preprints by Eprint": "arxiv", "Theta Preprints by DOI": "arxiv",
                      "Iota, a Chapter": "springer", "Lambda, a Chapter in RIS": "springer",
                      "Mu, a Preprint in RIS": "arxiv", "Nu, a Chapter in CSL": "springer"}
    venues = {v.slug: v for v in seeded.config.venues}
    assert (venues["arxiv"].kind, venues["springer"].kind) == ("preprint", "book")
    refusal = "skipped: no venue: pass --venue SLUG to say which venue of site.yaml these papers belong to"
    assert re.search(rf"no-venue\.bib:\d+: {re.escape(refusal)}", result.output), result.output
    assert re.search(rf"no-venue\.json:\d+: {re.escape(refusal)}", result.output), result.output
    assert result.output.splitlines()[-1] == \
        "8 records read: 6 created, 0 updated, 0 unchanged, 2 skipped (2 unreadable)."
    # again: no byte changes, and a file a person edited stays as they left it
    before = snapshot(seeded)
    again = run_import(seeded, *paths)
    assert "0 created, 0 updated, 6 unchanged" in again.output and snapshot(seeded) == before
    chapter = seeded.root / "content" / "springer" / "iota-a-chapter.md"
    edited = chapter.read_text().replace("Iota, a Chapter", "Iota, a Chapter (revised)")
    chapter.write_text(edited)
    third = run_import(seeded, *paths)
    assert chapter.read_text() == edited and "edited by hand" in third.output


# Issue 38, item 11: an import's cost follows the records it reads, not the catalog's size.
# The catalog's papers are known from .cache/import-index.pickle, checked file by file by stat stamp.



def _venue_records(year, numbers, **fields):
    return [record(n, title=f"Paper number {n} on sparse graphs", abstract=f"Abstract {n}: we study graph {n} "
                   f"and the {n} walks on it, with {n * 7} steps.", venue="ICML", year=year, **fields)
            for n in numbers]


def _content_reads(monkeypatch, site) -> list[str]:
    """The content files read from now on, relative to content/."""
    content, reads, read_bytes = site.root / "content", [], Path.read_bytes

    def counted(path):
        if path.suffix == ".md" and content in path.parents:
            reads.append(path.relative_to(content).as_posix())
        return read_bytes(path)
    monkeypatch.setattr(Path, "read_bytes", counted)
    return reads


def test_an_import_reads_only_the_content_files_that_changed_since_the_last(seeded, monkeypatch):
    """Each import read every content file of the catalog (441 s for 93 files imported one by
    one into what became 10,000 papers). The files the last import wrote are read once by the
    next; a file edited by hand is read again; the others not at all."""
    records(seeded, *_venue_records(2023, range(1, 31)))
    records(seeded, *_venue_records(2022, range(31, 34)))  # reads the 30 the first import wrote
    edited = seeded.root / "content" / "icml-2023" / "paper-number-7-on-sparse-graphs.md"
    edited.write_text(edited.read_text().replace("Abstract 7:", "Abstract 7, edited:"))
    reads = _content_reads(monkeypatch, seeded)
    report = records(seeded, *_venue_records(2021, range(34, 36)))
    assert len(report.created) == 2 and not report.skipped
    assert sorted(reads) == ["icml-2022/paper-number-31-on-sparse-graphs.md",
                             "icml-2022/paper-number-32-on-sparse-graphs.md",
                             "icml-2022/paper-number-33-on-sparse-graphs.md",
                             "icml-2023/paper-number-7-on-sparse-graphs.md"]


def test_a_record_matched_by_its_abstract_reads_the_papers_of_its_venue_only(seeded, monkeypatch):
    records(seeded, *_venue_records(2023, range(1, 6)), *_venue_records(2022, range(6, 9)))
    records(seeded, record(99, title="Unrelated", abstract="Nothing alike.", venue="ICML", year=2020))
    reads = _content_reads(monkeypatch, seeded)
    [again] = _venue_records(2022, [7])
    again.title = "Paper number 7 on sparse graphs, corrected"  # another id (no key): found by its abstract
    report = records(seeded, again)
    assert [p.relative_to(seeded.root / "content").as_posix() for p in report.updated] == [
        "icml-2022/paper-number-7-on-sparse-graphs.md"]
    assert sorted(set(reads)) == ["icml-2020/unrelated.md"] + [
        f"icml-2022/paper-number-{n}-on-sparse-graphs.md" for n in (6, 7, 8)]


def test_imports_write_the_same_files_with_the_index_as_without_it(seeded, tmp_path):
    """One catalog made by imports that each use the index, one by the same imports each
    starting without it: the same bytes. The imports update, find duplicates by id, title
    and near-identical abstract, and take a preprint's place with its published version."""
    text = "We study sparse graphs, their spectra and how random walks mix on them in few steps."
    imports = [
        [*_venue_records(2023, range(1, 6)), record(50, title="Sparse Grahp Learning", abstract=text)],
        [record(51, title="Sparse Graph Learning", abstract=text.replace("few", "very few")),
         record(52, title="A Preprint", abstract="Preprint text here.", venue="arXiv", year=2024,
                ids={"arxiv": "2401.00001"}),
         *_venue_records(2023, range(4, 8))],
        [record(53, title="A Preprint", abstract="Preprint text here.", venue="ICML 2024",
                ids={"arxiv": "2401.00001"}, links={"doi": "10.5555/x"}),
         record(54, title="Paper number 3 on sparse graphs", abstract="Other words.", venue="ICML", year=2023,
                authors=("Ada Lovelace",))],
    ]
    other = TinySite(tmp_path / "other")
    other.write("site.yaml", seeded_config())
    for items in imports:
        indexed = records(seeded, *items)
        (other.root / INDEX).unlink(missing_ok=True)
        plain = records(other, *items)
        assert [str(p) for p in indexed.notices] == [str(p) for p in plain.notices]
        assert indexed.summary() == plain.summary()
    assert (seeded.root / INDEX).is_file()
    assert snapshot(seeded) == snapshot(other)


def test_an_edit_by_hand_is_seen_by_the_next_import_though_the_index_says_otherwise(seeded):
    """Same size, same modification time: the index's stamp of the file no longer holds
    (ctime), so the import reads it again. Its DOI finds the record's paper (no second one),
    and the edited file is not overwritten."""
    records(seeded, *_venue_records(2023, range(1, 4)))
    records(seeded, *_venue_records(2023, range(1, 4)))  # the index now holds these files
    path = seeded.root / "content" / "icml-2023" / "paper-number-2-on-sparse-graphs.md"
    before = path.stat()
    text = path.read_text()
    added = "\nlinks: {arxiv: 'https://arxiv.org/abs/2401.00002'}"
    abstract = split_front_matter(text)[1].strip()
    edited = text.replace("year: 2023", "year: 2023" + added).replace(abstract, abstract[:len(abstract) - len(added)])
    assert edited != text and len(edited.encode()) == len(text.encode())
    path.write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    report = records(seeded, record(9, title="Another Title Altogether", abstract="Other words.",
                                    venue="ICML", year=2023, ids={"arxiv": "2401.00002v3"}))
    assert not report.created
    [skip] = report.skipped
    assert skip.reason == "edited by hand" and str(skip.where).startswith(
        "content/icml-2023/paper-number-2-on-sparse-graphs.md: skipped: edited by hand, not overwritten")
    assert path.read_text() == edited


@pytest.mark.parametrize("damage", ["cut short", "bytes changed", "not an index", "empty"])
def test_a_damaged_index_is_made_again_with_a_warning(seeded, tmp_path, damage):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    run_import(seeded, seed)
    index = seeded.root / INDEX
    data = index.read_bytes()
    index.write_bytes({"cut short": data[:len(data) // 2], "bytes changed": data[:-3] + b"xyz",
                       "not an index": b"\x80\x04garbage", "empty": b""}[damage])
    before = snapshot(seeded)
    result = run_import(seeded, seed)
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert result.output.splitlines() == [
        ".cache/import-index.pickle: warning: " + ("not an index of content files" if damage in ("not an index", "empty")
                                                    else "its bytes are not the ones written (cut short or damaged)") +
        ": made again from the content files (nothing is lost; this import reads them all)",
        "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped."]
    assert snapshot(seeded) == before
    assert run_import(seeded, seed).output == "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped.\n"


def test_an_index_of_another_catalog_or_papersite_is_made_again_silently(seeded, tmp_path):
    seed = tmp_path / "s.txt"
    seed.write_text("ICML 2024\n\nWe propose FooNet, a network for testing importers with care.\n")
    run_import(seeded, seed)
    run_import(seeded, seed)
    moved = TinySite(tmp_path / "moved")
    shutil.copytree(seeded.root, moved.root, dirs_exist_ok=True)  # its index names the other content/
    (seeded.root / "content" / "icml-2024").rename(seeded.root / "content" / "gone")
    assert run_import(moved, seed).output == "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped.\n"
    (moved.root / INDEX).write_bytes(b"papersite import index 0\nwhatever an older one wrote")
    assert run_import(moved, seed).output == "1 record read: 0 created, 0 updated, 1 unchanged, 0 skipped.\n"
    assert (moved.root / INDEX).read_bytes().startswith(HEADER)
