"""Shared fixtures: tiny sites written into temp dirs, and the bundled catalog built once."""
from __future__ import annotations

import dataclasses
import shutil
import textwrap
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test

from papersite.source.config import load_config
from papersite.engine.command import build_and_write

ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt"))

MINIMAL_CONFIG = """\
title: Test Catalog
base_url: https://example.org/catalog/
topics:
  - slug: learning-theory
    name: Learning Theory
    description: Theory.
    keywords: [generalization]
  - slug: generative-models
    name: Generative Models
    keywords: [diffusion]
venues:
  - slug: icml-2024
    name: ICML 2024
    year: 2024
    full_name: International Conference on Machine Learning
"""


# The everyday loop is `pytest -m "not slow"`; CI runs everything. Tests are
# marked slow here, by kind, so that a new test of a slow kind needs no decorator: browser
# tests (Chromium), Hypothesis tests, random walks ("random_walk" in the name), and the
# modules and tests below: vnu.jar on Java, git, Node, the real command in a subprocess,
# many builds, whole-site parses; each took about half a second of CPU or more on this
# shared machine (a second or more of wall time). A name here that no longer exists
# fails collection.
SLOW_FOLDERS = {"browser"}
SLOW_MODULES = {
    "test_vnu.py",  # vnu.jar
    "test_faults.py",  # kills, full disks and signals, mostly through the real command in a subprocess
    "test_incremental.py",  # every test compares many rebuilds with clean builds
    "test_deploy.py",  # git repositories and pushes
    "test_yaml_fast_path.py",  # 1,500 random documents through two parsers
    "test_search_parity.py",  # lunr.js in Node against the Python port
    "test_properties.py",  # Hypothesis, every test
    "test_warm.py",  # the real command in a subprocess, kept warm between builds
}
SLOW_TESTS = {
    "test_check.py": {"test_the_bundled_catalog_is_clean", "test_invalid_html_is_reported_with_page_and_line"},  # vnu.jar
    "test_authors.py": {"test_new_page_kinds_are_valid_html"},  # vnu.jar
    "test_bad_input.py": {
        "test_a_template_error_mid_render_leaves_the_previous_site",
        "test_an_abstract_at_the_limit_builds",
        "test_deeply_nested_yaml_is_refused",
        "test_import_of_bad_seed_files",
        "test_removed_papers_disappear_after_a_rebuild",
        "test_the_real_command_prints_no_traceback",
    },
    "test_citations.py": {
        "test_keys_are_unique_hand_set_ones_win_and_suffixes_follow_import_order",
        "test_rebuilds_give_the_files_a_clean_build_gives",
    },
    "test_build_cache.py": {
        "test_a_search_index_made_in_another_process_is_where_the_next_build_starts",
        "test_cached_builds_equal_clean_builds_after_every_kind_of_change",
        "test_cached_builds_equal_clean_builds_after_successive_one_paper_edits",
        "test_the_same_bytes_in_a_new_file_are_reused_and_a_revert_is_built",
        "test_a_damaged_cache_is_never_trusted",
        "test_a_new_engine_version_starts_from_nothing",
        "test_the_map_layout_is_kept_until_a_title_or_abstract_changes",
    },
    "test_cli.py": {
        "test_a_real_build_process_ends_at_once_with_its_output_and_status",
        "test_build_prints_one_summary_line",
        "test_pip_install_gives_a_papersite_command_that_builds",
        "test_python_m_papersite_is_the_same_cli",
    },
    "test_derive.py": {"test_indexed_topics_equal_trying_every_keyword"},
    "test_map.py": {"test_another_process_computes_the_same_layout"},
    "test_new.py": {"test_an_empty_build_says_how_to_import_as_the_user_runs_it",  # the real command, twice
                    "test_the_workflows_build_steps_run_in_a_new_catalog"},  # npm ci and the real command
    "test_site_size.py": {"test_the_theme_shows_what_its_indented_templates_showed"},  # git, two whole-site parses
    "test_determinism.py": {
        "test_listing_order_does_not_change_the_output",
        "test_listing_order_does_not_change_the_written_site",
        "test_where_the_site_lives_and_how_it_is_invoked_does_not_leak",
    },
    "test_extra_css.py": {
        "test_a_missing_stylesheet_fails_the_build_with_its_line_and_leaves_the_site",
        "test_every_page_links_the_stylesheets_after_the_theme",
    },
    "test_feeds.py": {"test_every_page_has_open_graph_tags_for_link_previews"},
    "test_hostile.py": {"test_every_page_of_the_bundled_catalog_carries_the_csp"},
    "test_import.py": {
        "test_a_second_import_changes_no_byte",
        "test_import_with_logging_configured_prints_only_the_summary",
        "test_seeds_import_build_and_show_their_abstracts",
    },
    "test_import_formats.py": {
        "test_bibtex_macros_from_an_earlier_string_file_apply_to_later_files",
        "test_reading_twice_gives_identical_records",
        "test_real_icml_export_keeps_every_title_author_and_abstract",
    },
    "test_markup.py": {
        "test_markdown_past_a_limit_fails_the_build_with_file_and_line",
        "test_markdown_within_the_limits_builds",
        "test_nesting_fuzz_renders_or_names_a_line",
        "test_problems_from_forked_workers_name_every_file",
    },
    "test_parallel.py": {
        "test_a_build_on_two_workers_equals_one_on_one",
        "test_a_one_shot_build_on_two_workers_writes_the_in_memory_site",
        "test_an_error_in_a_forked_stage_leaves_the_previous_site",
    },
    "test_publish.py": {"test_crawl_from_the_home_page_every_link_and_asset_answers_200"},
    "test_related.py": {"test_updates_after_edits_equal_a_fresh_computation"},  # a random walk
    "test_same_site.py": {"test_a_commit_builds_byte_identical_sites_twice"},
    "test_search_files.py": {
        "test_editing_one_paper_changes_only_a_few_search_files",
        "test_edits_on_a_warm_cache_give_a_clean_build",
        "test_settings_describe_the_lunr_index",
    },
    "test_serve.py": {
        "test_a_client_that_keeps_sending_after_an_error_is_cut_off",
        "test_200_concurrent_requests_all_succeed",
        "test_serve_on_a_port_in_use_says_so",
        "test_serve_without_a_site_yaml_says_so",
    },
    "test_site.py": {
        "test_every_page_is_well_formed_html5",
        "test_two_builds_are_byte_identical_across_hash_seeds",
    },
    "test_sitemap.py": {
        "test_a_rebuild_that_crosses_the_limit_equals_a_clean_build",
        "test_over_the_limit_an_index_of_sitemaps",
    },
    "test_title_mark.py": {"test_page_shows_the_mark_until_the_title_is_edited"},
    "test_watch.py": {"test_git_checkout_of_many_files_is_one_change_set"},
}


def pytest_ignore_collect(collection_path, config):
    """The everyday loop does not even import the folders and modules that hold only slow tests."""
    if config.getoption("markexpr") == "not slow" and collection_path.parent == ROOT / "tests":
        return collection_path.name in (SLOW_MODULES | SLOW_FOLDERS) or None
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        module, name = item.path.name, getattr(item, "originalname", item.name)
        if (item.path.parent.name in SLOW_FOLDERS or module in SLOW_MODULES or name in SLOW_TESTS.get(module, ())
                or "random_walk" in name or is_hypothesis_test(getattr(item, "obj", None))):
            item.add_marker(pytest.mark.slow)
    # SLOW_MODULES and SLOW_TESTS name files of tests/ itself (tests/browser/ is slow as a whole,
    # and has file names of its own such as test_extra_css.py)
    modules = {item.path.name: item.module for item in items
               if isinstance(item, pytest.Function) and item.path.parent == ROOT / "tests"}
    stale = [module for module in sorted(SLOW_MODULES | SLOW_TESTS.keys()) if not (ROOT / "tests" / module).is_file()]
    stale += [f"{module}::{name}" for module, names in SLOW_TESTS.items() if module in modules
              for name in sorted(names) if not hasattr(modules[module], name)]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py: SLOW_MODULES or SLOW_TESTS name tests that do not exist: {', '.join(stale)}")


def paper_text(id="p1", title="A Paper", venue="icml-2024", topics="[learning-theory]",
               body="An abstract about $x^2$ generalization.", extra="") -> str:
    return (f"---\nid: {id}\ntitle: {title}\nauthors: [Ada Lovelace]\nvenue: {venue}\nyear: 2024\n"
            f"topics: {topics}\n{extra}---\n{body}\n")


class TinySite:
    """A site folder in tmp_path: write files, load config, build."""

    def __init__(self, root: Path):
        self.root = root
        self.write("site.yaml", MINIMAL_CONFIG)
        (root / "content").mkdir()

    def write(self, relative: str, text: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return path

    def paper(self, name: str, **fields) -> Path:
        return self.write(f"content/icml-2024/{name}.md", paper_text(**fields))

    @property
    def config(self):
        return load_config(self.root / "site.yaml")

    def build(self, out: Path | None = None):
        out = out or self.root / "_site"
        build, report = build_and_write(self.config, out)
        return read_back(build, out), report


@pytest.fixture
def site(tmp_path) -> TinySite:
    return TinySite(tmp_path / "site")


@pytest.fixture(scope="session")
def bundled(tmp_path_factory):
    """The repository's own catalog, copied and built once for the whole session."""
    root = tmp_path_factory.mktemp("bundled")
    for name in ("site.yaml", "content", "templates", "static"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        elif source.exists():
            shutil.copy(source, root / name)
    config = load_config(root / "site.yaml")
    build, report = build_and_write(config, root / "_site")
    return root, root / "_site", read_back(build, root / "_site")


def read_back(build, out: Path):
    """The build with every file's bytes as written to `out` (a one-shot build
    streams its pages to disk and keeps only receipts)."""
    return dataclasses.replace(build, files={path: (out / path).read_bytes() for path in build.paths}, stored={})
