"""The importer: seed text -> content files; idempotent; never overwrites an edit."""
import pytest
import yaml

from papersite.config import load_config
from papersite.content import load_papers
from papersite.errors import SiteError
from papersite.importer import import_files, read_seed_text
from tests.conftest import ROOT, SEEDS


@pytest.fixture
def seeded(site):
    """A tiny site with the real taxonomy and the seed venues."""
    taxonomy = yaml.safe_load((ROOT / "papersite" / "default_topics.yaml").read_text())
    site.write("site.yaml", "# my comment stays\ntitle: T\n" + yaml.safe_dump(taxonomy) +
               "venues:\n  - slug: icml-2024\n    name: ICML 2024\n    year: 2024\n")
    return site


def run_import(site, paths=SEEDS):
    return import_files(list(paths), load_config(site.root / "site.yaml"), site.root / "site.yaml")


def stamps(site):
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted((site.root / "content").rglob("*"))
            if p.is_file()}


def test_read_seed_text_splits_abstracts_with_lines():
    entries = read_seed_text(SEEDS[0])
    assert entries[0].venue_name == "ICML 2024" and entries[0].year == 2024
    assert entries[0].line == 3
    assert entries[0].abstract.startswith("Grokking, or delayed generalization")
    assert sum(len(read_seed_text(p)) for p in SEEDS) == 57


def test_import_all_seeds_then_build_them(seeded):
    report = run_import(seeded)
    assert len(report.created) == 57 and not report.skipped_edited
    assert report.venues_added == ["iclr-2024"]  # icml-2024 was declared already
    config = load_config(seeded.root / "site.yaml")
    assert [v.slug for v in config.venues] == ["icml-2024", "iclr-2024"]
    assert (seeded.root / "site.yaml").read_text().startswith("# my comment stays\n")
    papers = load_papers(config)
    assert len(papers) == 57
    assert len({p.id for p in papers}) == 57 and len({p.slug for p in papers}) == 57
    for paper in papers:
        assert 1 <= len(paper.topics) <= 3
        assert paper.title and len(paper.title) <= 90 and not paper.title.startswith("We ")
        assert paper.authors == ()
    assert {p.venue for p in papers} == {"icml-2024", "iclr-2024"}


def test_reimport_changes_nothing(seeded):
    run_import(seeded)
    before = stamps(seeded)
    config_before = (seeded.root / "site.yaml").read_text()
    report = run_import(seeded)
    assert len(report.unchanged) == 57 and not report.created and not report.updated
    assert stamps(seeded) == before
    assert (seeded.root / "site.yaml").read_text() == config_before


def test_an_edited_file_is_never_overwritten(seeded):
    run_import(seeded)
    target = sorted((seeded.root / "content" / "icml-2024").glob("*.md"))[0]
    edited = target.read_text().replace("authors: []", "authors: [Ada Lovelace]")
    target.write_text(edited)
    report = run_import(seeded)
    assert report.skipped_edited == [target]
    assert target.read_text() == edited
    assert len(report.unchanged) == 56


def test_a_renamed_file_is_found_by_its_id(seeded):
    run_import(seeded)
    target = sorted((seeded.root / "content" / "icml-2024").glob("*.md"))[0]
    renamed = target.with_name("my-better-name.md")
    target.rename(renamed)
    report = run_import(seeded)
    assert not report.created
    assert not target.exists() and renamed.exists()


def test_a_bad_header_names_the_file_and_line(seeded, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("\nSome papers without a year\n\nAn abstract.\n")
    with pytest.raises(SiteError, match=r"bad.txt:2: expected a header with a venue and year"):
        run_import(seeded, [bad])


def test_a_new_venue_is_appended_to_site_yaml(seeded, tmp_path):
    new = tmp_path / "neurips.txt"
    new.write_text("NeurIPS 2023 Papers\n\nWe propose FooNet, a network for testing importers.\n")
    report = run_import(seeded, [new])
    assert report.venues_added == ["neurips-2023"]
    config = load_config(seeded.root / "site.yaml")
    assert config.venues[-1].name == "NeurIPS 2023" and config.venues[-1].year == 2023
    [paper] = load_papers(config)
    assert paper.venue == "neurips-2023" and paper.year == 2023
