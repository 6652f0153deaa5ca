"""The spine: content -> catalog -> pages -> files.

    load_papers -> Catalog.build -> render abstracts -> related papers
    -> plan_pages -> render_pages + search index + static files -> output.Staging

Everything before the output is written is a function of the input files and
returns values, so the preview server can serve a Build straight from memory.

A rebuild runs the same pipeline on a warm BuildCache: parsed files (by
stamp), rendered abstracts (by source), related papers (updated for the
texts that changed) and rendered pages (by what they show) are reused.
Abstracts and pages are rendered on all cores.

A one-shot build (no cache to keep: `python build.py build`) puts each page
into the output's staging folder from the worker that rendered it, and builds
the search index in a process of its own while related papers and pages are
computed.
"""
from __future__ import annotations

import contextlib
import gc
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .catalog import Catalog
from .citations import CitationCache, Citations
from .config import SiteConfig
from .content import PaperCache, load_papers, split_front_matter
from .errors import Problem, SiteError
from .markup import MarkupError, cut_snippet, render_abstract
from .output import Staging, Stored, WriteReport
from .pages import Abstract, plan_pages
from .parallel import in_background, parallel_map
from .people import PeopleCache
from .related import RelatedIndex
from .render import RenderCache, TemplateCache, make_env, render_pages
from .search import SearchCache, search_files
from .sources import unreadable
from .static_files import static_files


@dataclass
class BuildCache:
    """What a rebuild in the same process may reuse."""

    config: SiteConfig | None = None  # the last one: kept while equal, so everything built from it is too
    papers: PaperCache = field(default_factory=PaperCache)
    abstracts: dict[str, Abstract] = field(default_factory=dict)  # keyed by Markdown source
    related: RelatedIndex = field(default_factory=RelatedIndex)  # updated for the texts that changed
    people: PeopleCache = field(default_factory=PeopleCache)  # who is who, while no paper's authors change
    templates: TemplateCache = field(default_factory=TemplateCache)  # checked against template sources
    plans: dict = field(default_factory=dict)  # paper id -> (inputs, page) of the last plan
    pages: RenderCache = field(default_factory=RenderCache)  # each page's bytes, by what it shows
    digests: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # output path -> (bytes, hash) written
    search: SearchCache = field(default_factory=SearchCache)  # tokens, postings and files of the search index
    citations: CitationCache = field(default_factory=CitationCache)  # each paper's RIS, CSL-JSON and BibTeX


    def settle(self, config: SiteConfig) -> SiteConfig:
        """The last config if this one is the same (by repr, where True and 1 differ): what is
        built from it (venues, topics) then stays the very same objects, cheap to compare."""
        if self.config is None or repr(config) != repr(self.config):
            self.config = config
        return self.config


@dataclass
class Build:
    catalog: Catalog
    files: dict[str, bytes | Stored]  # output path -> bytes (or where they were stored)
    pages: int
    timings: dict[str, float]


def build_site(config: SiteConfig, cache: BuildCache | None = None,
               progress: Callable[[str], None] = lambda stage: None,
               store: Callable[[str, bytes], Stored] | None = None) -> Build:
    """The site, in memory; with `store` (see render_pages) the pages go there instead."""
    with collector_paused():
        return _build_site(config, cache or BuildCache(), progress, store, one_shot=cache is None)


@contextlib.contextmanager
def collector_paused():
    """A build allocates millions of long-lived objects and frees few cycles: the
    cyclic collector would rescan them all again and again (up to a third of a
    10,000-paper rebuild). Paused while building, it runs as usual afterwards."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _build_site(config: SiteConfig, cache: BuildCache, progress: Callable[[str], None],
                store: Callable[[str, bytes], Stored] | None, one_shot: bool) -> Build:
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def stage(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = now - clock
        clock = now

    progress("reading content")
    config = cache.settle(config)
    papers = load_papers(config, cache.papers)
    problems = unreadable(config.templates_dir, config.root)
    if problems:
        raise SiteError(problems)
    catalog = Catalog.build(papers, config, cache.people)
    stage("load")
    progress(f"rendering {len(papers)} abstracts")
    abstracts = render_abstracts(catalog, cache)
    stage("markdown")
    # A one-shot build keeps no cache, so its search index, a serial job, is
    # built in a forked process while related papers and pages take the cores.
    def search_index() -> tuple[dict, float]:
        start = time.perf_counter()
        return search_files(catalog, abstracts, cache.search, store), time.perf_counter() - start

    with in_background(search_index, len(catalog.papers) if one_shot else 0) as search_done:
        related = cache.related.update({p.id: (p.title, abstracts[p.id].text) for p in catalog.papers})
        stage("related")
        pages = plan_pages(catalog, abstracts, related, cache.plans)
        progress(f"rendering {len(pages)} pages")
        env = make_env(config, cache.templates, catalog=catalog, abstracts=abstracts,
                       paper_count=len(catalog.papers),
                       # which sections the navigation links to (a change re-renders every page)
                       browse={"authors": bool(catalog.authors), "years": len(catalog.years) > 1})
        files = render_pages(env, pages, cache.pages, store)
        files.update(Citations(catalog, abstracts, cache.citations, store).files())
        files[".nojekyll"] = b""
        if config.cname:
            files["CNAME"] = config.cname.encode() + b"\n"
        stage("render")
        progress("building the search index")
        search, timings["search_work"] = search_done()
        files.update(search)
        stage("search")  # waiting for it: its own time, search_work, may have been spent alongside
    files.update(static_files(config))
    stage("static")
    return Build(catalog, dict(sorted(files.items())), len(pages), timings)


def render_abstracts(catalog: Catalog, cache: BuildCache) -> dict[str, Abstract]:
    """id -> rendered abstract, reusing renders of unchanged Markdown.

    Markdown past a limit is a SiteError naming every file and line."""
    new = sorted({p.abstract for p in catalog.papers} - cache.abstracts.keys())
    known = cache.abstracts | dict(zip(new, parallel_map(_render_abstract, new)))
    failed = [p for p in catalog.papers if isinstance(known[p.abstract], MarkupError)]
    if failed:
        raise SiteError(sorted((_markup_problem(p, known[p.abstract], catalog.config) for p in failed),
                               key=lambda problem: (str(problem.path), problem.line or 0)))
    rendered = {p.id: known[p.abstract] for p in catalog.papers}
    cache.abstracts = {p.abstract: known[p.abstract] for p in catalog.papers}  # drop text that is gone
    return rendered


def _render_abstract(source: str) -> Abstract | MarkupError:
    """In a worker: the problem comes back as a value, so every file's problem is listed."""
    try:
        html, text = render_abstract(source)
    except MarkupError as error:
        return error
    return Abstract(html, text, cut_snippet(text))


def _markup_problem(paper, error: MarkupError, config: SiteConfig) -> Problem:
    """The error's line within the abstract, as a line of the paper's file (read again to find it)."""
    try:
        path = paper.source.relative_to(config.root)
    except ValueError:
        path = paper.source
    try:
        _, body, body_line = split_front_matter(paper.source.read_text(encoding="utf-8-sig"))
        line = body_line + body[:len(body) - len(body.lstrip())].count("\n") + error.line - 1
    except (OSError, ValueError):  # changed or gone since it was read
        line = None
    return Problem(path, line, error.message)


def build_and_write(config: SiteConfig, out_dir: Path, cache: BuildCache | None = None,
                    progress: Callable[[str], None] = lambda stage: None,
                    notify: Callable[[str], None] | None = None) -> tuple[Build, WriteReport]:
    """Build into out_dir. Without a cache to keep (a one-shot build), pages are
    written as they are rendered, on every core, and never held in memory.
    `notify` hears that the build waits for another one writing to out_dir."""
    with Staging(out_dir, cache.digests if cache else None, config.root, notify) as staging:
        build = build_site(config, cache, progress, store=None if cache else staging.put)
        progress(f"writing {len(build.files)} files")
        start = time.perf_counter()
        report = staging.commit(build.files)
    build.timings["write"] = time.perf_counter() - start
    return build, report
