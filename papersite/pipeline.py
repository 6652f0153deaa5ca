"""The spine: content -> catalog -> pages -> files.

    load_papers -> Catalog.build -> render abstracts -> related papers
    -> plan_pages -> render_pages + search index + static files -> write_site

Everything before write_site is a function of the input files and returns
values, so the preview server can serve a Build straight from memory.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .catalog import Catalog
from .config import SiteConfig
from .content import PaperCache, load_papers
from .markup import plain_text, render_markdown, snippet
from .output import WriteReport, write_site
from .pages import Abstract, plan_pages
from .related import find_related
from .render import TemplateCache, make_env, render_pages
from .search import search_files
from .static_files import static_files


@dataclass
class BuildCache:
    """What a rebuild in the same process may reuse."""

    papers: PaperCache = field(default_factory=PaperCache)
    abstracts: dict[str, Abstract] = field(default_factory=dict)  # keyed by Markdown source
    templates: TemplateCache = field(default_factory=TemplateCache)  # checked against template sources
    stages: dict[str, tuple] = field(default_factory=dict)  # stage -> (inputs, output) of the last build


@dataclass
class Build:
    catalog: Catalog
    files: dict[str, bytes]  # output path -> bytes
    pages: int
    timings: dict[str, float]


def build_site(config: SiteConfig, cache: BuildCache | None = None,
               progress: Callable[[str], None] = lambda stage: None) -> Build:
    cache = cache or BuildCache()
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def stage(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = now - clock
        clock = now

    progress("reading content")
    papers = load_papers(config, cache.papers)
    catalog = Catalog.build(papers, config)
    stage("load")
    progress(f"rendering {len(papers)} abstracts")
    abstracts = render_abstracts(catalog, cache)
    texts = {p.id: f"{p.title}. {abstracts[p.id].text}" for p in catalog.papers}
    related = reuse(cache, "related", texts, lambda: find_related(texts))
    stage("markdown")
    pages = plan_pages(catalog, abstracts, related)
    progress(f"rendering {len(pages)} pages")
    env = make_env(config, cache.templates, catalog=catalog, abstracts=abstracts)
    files = render_pages(env, pages)
    files[".nojekyll"] = b""
    if config.cname:
        files["CNAME"] = config.cname.encode() + b"\n"
    stage("render")
    progress("building the search index")
    files.update(reuse(cache, "search", (catalog, abstracts), lambda: search_files(catalog, abstracts)))
    stage("search")
    files.update(static_files(config))
    stage("static")
    return Build(catalog, dict(sorted(files.items())), len(pages), timings)


def reuse(cache: BuildCache, stage: str, inputs: object, compute: Callable[[], object]):
    """The stage's last output if its inputs equal last time's, else compute it.

    For pure, costly stages (related papers, search index): a template, static
    or site.yaml edit then skips them. Equality is cheap here because unchanged
    papers are the very same cached objects.
    """
    last = cache.stages.get(stage)
    if last is not None and last[0] == inputs:
        return last[1]
    output = compute()
    cache.stages[stage] = (inputs, output)
    return output


def render_abstracts(catalog: Catalog, cache: BuildCache) -> dict[str, Abstract]:
    """id -> rendered abstract, reusing renders of unchanged Markdown."""
    rendered, fresh = {}, {}
    for paper in catalog.papers:
        abstract = cache.abstracts.get(paper.abstract)
        if abstract is None:
            abstract = Abstract(render_markdown(paper.abstract), plain_text(paper.abstract),
                                snippet(paper.abstract))
        fresh[paper.abstract] = rendered[paper.id] = abstract
    cache.abstracts = fresh  # drop renders of text that no longer exists
    return rendered


def build_and_write(config: SiteConfig, out_dir: Path, cache: BuildCache | None = None,
                    progress: Callable[[str], None] = lambda stage: None) -> tuple[Build, WriteReport]:
    build = build_site(config, cache, progress)
    progress(f"writing {len(build.files)} files")
    start = time.perf_counter()
    report = write_site(build.files, out_dir)
    build.timings["write"] = time.perf_counter() - start
    return build, report
