"""render.py: compiled templates kept for the process, and pages reused while nothing they show changed."""
import os

import jinja2
import pytest
from click.testing import CliRunner

import papersite.site.render
from papersite.cli import cli
from papersite.engine.runner import BuildCache, Warm
from papersite.pipeline import build_site
from tests.conftest import MINIMAL_CONFIG, TinySite


def two_paper_site(root, config=MINIMAL_CONFIG) -> TinySite:
    site = TinySite(root)
    site.write("site.yaml", config)
    site.paper("a", id="a", title="First Paper")
    site.paper("b", id="b", title="Second Paper")
    return site


def compiled_during(monkeypatch) -> list[str]:
    """The names of the templates Jinja compiles from now on."""
    names, compile_ = [], jinja2.Environment.compile

    def counting(env, source, name=None, filename=None, *args, **kwargs):
        names.append(name)
        return compile_(env, source, name, filename, *args, **kwargs)
    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return names


def test_another_site_with_the_same_config_compiles_no_template_and_builds_the_same(tmp_path, monkeypatch):
    first, _ = two_paper_site(tmp_path / "one").build()
    compiled = compiled_during(monkeypatch)
    second, _ = two_paper_site(tmp_path / "two").build()
    assert compiled == []
    assert second.files == first.files


def test_sites_that_differ_in_all_but_what_filters_read_compile_the_theme_to_the_same_code(tmp_path):
    """What TemplateCache keeps compiled code by is all it depends on."""
    configs = [two_paper_site(tmp_path / "one").config, two_paper_site(tmp_path / "two", MINIMAL_CONFIG.replace(
        "title: Test Catalog\n", "title: Another Catalog\ndescription: Nothing alike.\nauthor: Someone\n"
        "language: fr\ncname: papers.example\nextra: {motto: hello}\n")).config]
    assert configs[0] != configs[1]
    envs = [papersite.site.render.make_env(config) for config in configs]
    names = [name for name in envs[0].loader.list_templates() if not name.startswith("theme/")]  # the same files
    assert "base.html" in names and "paper.html" in names
    for name in names:
        source, filename, _ = envs[0].loader.get_source(envs[0], name)
        first, second = (env.compile(source, name, filename, raw=True) for env in envs)
        assert first == second, name


def test_a_site_whose_base_url_and_venues_change_is_not_served_code_folded_for_the_old_ones(tmp_path):
    # Jinja computes `'static/style.css'|link` and `('icml-2024'|venue).name` as it compiles
    site = two_paper_site(tmp_path / "site")
    site.write("templates/probe.html", "{{ 'static/style.css'|link }} {{ ('icml-2024'|venue).name }}")
    for path, name in ("catalog", "ICML 2024"), ("elsewhere", "ICML 2024"), ("elsewhere", "The Other Name"):
        site.write("site.yaml", MINIMAL_CONFIG.replace("name: ICML 2024", f"name: {name}").replace(
            "https://example.org/catalog/", f"https://example.org/{path}/"))
        env = papersite.site.render.make_env(site.config, papersite.site.render.TemplateCache())
        assert env.get_template("probe.html").render() == f"/{path}/static/style.css {name}"


def test_a_project_template_edited_between_builds_is_compiled_again(tmp_path):
    site = two_paper_site(tmp_path / "site")
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}{% block main %}<p>Version one</p>{% endblock %}')
    cache = BuildCache()
    first = build_site(site.config, Warm(cache))
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}{% block main %}<p>Version two</p>{% endblock %}')
    second = build_site(site.config, Warm(cache))
    assert "<p>Version one</p>" in first.files["papers/a/index.html"].decode()
    assert "<p>Version two</p>" in second.files["papers/a/index.html"].decode()


def test_a_rebuild_with_nothing_changed_renders_only_the_pages_that_read_the_whole_catalog(tmp_path, monkeypatch):
    site = two_paper_site(tmp_path / "site")
    cache = BuildCache()
    first = build_site(site.config, Warm(cache))
    rendered, render_page = [], papersite.site.render.render_page
    monkeypatch.setattr(papersite.site.render, "render_page",
                        lambda env, page: rendered.append(page.path) or render_page(env, page))
    second = build_site(site.config, Warm(cache))
    assert second.files == first.files
    assert rendered, "the home page lists every paper: it is always rendered"
    assert not [path for path in rendered if path.startswith("papers/")]


@pytest.mark.parametrize("footer_count", [False, True])
def test_a_paper_added_renders_again_only_the_pages_that_show_it(tmp_path, monkeypatch, footer_count):
    """The paper count is a small global: a paper added renders every page again only when a
    template reads it (here a project's base.html that shows it on every page), and the pages
    show the new count then."""
    site = two_paper_site(tmp_path / "site")
    site.paper("c", id="c", title="Third Paper", body="Bandit regret bounds under delayed feedback.")
    if footer_count:
        site.write("templates/base.html", '{% extends "theme/base.html" %}'
                   '{% block head %}{{ super() }}<meta name="papers" content="{{ paper_count }}">{% endblock %}')
    cache = BuildCache()
    build_site(site.config, Warm(cache))
    rendered, render_page = [], papersite.site.render.render_page
    monkeypatch.setattr(papersite.site.render, "render_page",
                        lambda env, page: rendered.append(page.path) or render_page(env, page))
    site.paper("d", id="d", title="Fourth Paper", body="Molecular graph kernels for chemistry.")
    built = build_site(site.config, Warm(cache))
    assert "papers/d/" in rendered
    assert ("papers/c/" in rendered) is footer_count  # no page of a paper it is not next to or related to
    if footer_count:
        assert '<meta name="papers" content="4">' in built.files["papers/c/index.html"].decode()


def test_the_next_build_command_compiles_no_template(tmp_path, monkeypatch):
    """The session that `build` keeps on disk brings the compiled templates to the next one."""
    site = two_paper_site(tmp_path / "site")
    build = ["build", "--config", str(site.root / "site.yaml"), "-o", str(site.root / "_site")]
    assert CliRunner().invoke(cli, build).exit_code == 0
    site.paper("b", id="b", title="Second Paper", body="An edited abstract.")
    monkeypatch.setattr(papersite.site.render.TemplateCache, "_process", {})  # as in a new process
    compiled = compiled_during(monkeypatch)
    result = CliRunner().invoke(cli, build)
    assert result.exit_code == 0 and "Built 2 papers," in result.output
    assert compiled == []


def test_papers_read_again_as_equal_objects_keep_their_pages_and_are_this_builds_objects_after(tmp_path, monkeypatch):
    """A paper read again into an equal object (its file touched; a session loaded) keeps its page,
    and what the plan and the BibTeX entries keep of it is this build's object, not the last one's:
    otherwise each later build compares every paper field by field."""
    site = two_paper_site(tmp_path / "site")
    cache = BuildCache()
    build_site(site.config, Warm(cache))
    page_before = cache.plans["a"][1]
    for path in (site.root / "content").rglob("*.md"):
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    rendered, render_page = [], papersite.site.render.render_page
    monkeypatch.setattr(papersite.site.render, "render_page",
                        lambda env, page: rendered.append(page.path) or render_page(env, page))
    built = build_site(site.config, Warm(cache))
    assert not [path for path in rendered if path.startswith("papers/")]
    paper = next(p for p in built.catalog.papers if p.id == "a")
    assert cache.plans["a"][1] is page_before
    assert cache.plans["a"][0][0] is paper and page_before.made_from[1][0] is paper
    assert cache.citations.papers["a"][0][0] is paper
