"""The spine: site.yaml and content/ in, every file of the site out.

    load -> catalog -> abstracts -> related papers -> pages -> render -> search, static, map

One stage a line. Each takes what the lines above made and returns values; the
runner (engine/runner.py) decides how they run: in memory, warm for the preview,
or streamed to disk for `build`. The commands (cli.py) reach the build only here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .catalog import Catalog
from .catalog.related import counted_texts
from .engine.runner import InMemory, Runner
from .papermap.files import map_files, map_texts
from .site.citations import venue_bibs
from .site.pages import plan_pages
from .site.render import check_templates, render_pages, site_env
from .site.static import site_marks, static_files
from .source.config import SiteConfig
from .source.content import load_papers
from .text.abstracts import render_abstracts

__all__ = ["Build", "build_site"]


@dataclass
class Build:
    catalog: Catalog
    files: dict[str, bytes]  # output path -> bytes, in no set order
    pages: int
    timings: dict[str, float]  # seconds by stage
    stored: dict[str, str] = field(default_factory=dict)  # output path -> receipt: files streamed to disk instead
    warnings: tuple[str, ...] = ()  # what the user should know of a build that worked

    @property
    def paths(self) -> list[str]:
        """Every file of the site."""
        return sorted(self.files.keys() | self.stored.keys())


def build_site(config: SiteConfig, runner: Runner | None = None) -> Build:
    """The site of `config`; `runner` says how to build it (by default in memory, from nothing)."""
    run = runner or InMemory()
    memo = run.memo  # what each stage kept from the last build
    with run.stages() as stage:
        config = memo.settle(config)
        papers = stage("load", load_papers, config, memo.papers)
        stage("load", check_templates, config)
        catalog = stage("load", Catalog.build, papers, config, memo.people, memo.keys, memo.titles)
        abstracts = stage("markdown", render_abstracts, catalog, memo.abstracts)
        texts = stage("related", counted_texts, catalog.papers, abstracts, memo.related)
        layout = stage.alongside("map", memo.map.job(map_texts(catalog, abstracts), counts=memo.related.kept_counts))
        related = stage("related", memo.related.update, texts)
        # not before: the index's process and related papers' scoring workers at once were a large build's peak
        search = stage.alongside("search", memo.search.job(catalog, abstracts, run.store, run.reuse))
        pages = stage("render", plan_pages, catalog, abstracts, related, memo.plans)
        env = stage("render", site_env, config, catalog, abstracts, memo.templates)
        stage.files("render", render_pages, env, pages, memo.pages, run.store, run.reuse)
        stage.files("render", venue_bibs, catalog, memo.citations, run.store, run.reuse)
        stage.files("render", site_marks, config)
        stage.files("search", memo.search.keep, search(), catalog, abstracts)
        stage.files("static", static_files, config)
        # the map waited for last: after an edit to a text of its frame, its job is the longest
        stage.files("map", map_files, catalog, memo.map.keep(layout()), memo.map.shown)
    return Build(catalog, stage.made, len(pages), stage.timings, stage.stored,
                 memo.papers.warnings + catalog.warnings)
