"""The spine: content -> catalog -> pages -> files.

    load_papers -> Catalog.build -> render abstracts -> related papers
    -> plan_pages -> render_pages + citations + map + search index + static files -> output.Staging

Each stage is a function of the input files and returns values, so the
preview server can serve a Build straight from memory. How a build executes
them (on all cores, pages streamed to disk, the search index and the map alongside, the
caches of a warm session or of the last `build`) is execution.py's business,
handed in as a Run; the persistent cache is cache.py's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from .catalog import Catalog
from .citations import Citations
from .config import SiteConfig
from .content import load_papers, split_front_matter
from .errors import Problem, SiteError
from .execution import BuildCache, Run
from .map_data import map_files, map_texts
from .markup import MarkupError, cut_snippet, render_abstract
from .output import Receipt, Staging, WriteReport
from .pages import Abstract, plan_pages
from .parallel import Detachable, parallel_map, timed_call
from .render import make_env, render_pages
from .sources import unreadable
from .static_files import static_files

__all__ = ["Build", "BuildCache", "Run", "build_site", "build_and_write"]
R = TypeVar("R")


@dataclass
class Build:
    catalog: Catalog
    files: dict[str, bytes]  # output path -> bytes, in no set order (sorting 47,000 paths cost an edit 6%)
    pages: int
    timings: dict[str, float]
    stored: dict[str, Receipt] = field(default_factory=dict)  # the files a Run streamed to disk instead

    @property
    def paths(self) -> list[str]:
        """Every file of the site."""
        return sorted(self.files.keys() | self.stored.keys())


def build_site(config: SiteConfig, cache: BuildCache | None = None,
               progress: Callable[[str], None] = lambda stage: None, run: Run | None = None) -> Build:
    """The site. `cache`: what to reuse, and keep up to date for the next build (a warm session);
    `run`: how to execute the stages (see Run; it brings its own cache). Given neither, nobody
    keeps what the stages cache, so the search index and the map are built alongside."""
    run = run or Run(cache, alongside=cache is None)
    cache, lap = run.cache, Stopwatch()
    with run.executing():
        progress("reading content")
        config = cache.settle(config)
        papers = load_papers(config, cache.papers)
        check_templates(config)
        catalog = Catalog.build(papers, config, cache.people, cache.keys)
        lap("load")
        progress(f"rendering {len(papers)} abstracts")
        abstracts = render_abstracts(catalog, cache)
        lap("markdown")
        texts = {p.id: (p.title, abstracts[p.id].text) for p in catalog.papers}
        cache.related.count_terms(texts)  # before the map's process forks: it lays out the same words, counted
        search_job, search_size = cache.search.job(catalog, abstracts, run.store)
        layout_job, layout_size = cache.map.job(map_texts(catalog, abstracts), counts=cache.related.kept_counts)
        with run.alongside(lap.timed(search_job), search_size) as search, \
                run.alongside(lap.timed(layout_job), layout_size) as layout:
            related = cache.related.update(texts)
            lap("related")
            pages = plan_pages(catalog, abstracts, related, cache.plans)
            progress(f"rendering {len(pages)} pages")
            env = make_env(config, cache.templates, catalog=catalog, abstracts=abstracts,
                           paper_count=len(catalog.papers),
                           # which sections the navigation links to (a change re-renders every page)
                           browse={"authors": bool(catalog.authors), "years": len(catalog.years) > 1})
            files = run.collect(render_pages(env, pages, cache.pages, run.store, run.reuse))
            files |= run.collect(Citations(catalog, abstracts, cache.citations, run.store, run.reuse).files())
            files |= site_marks(config)
            lap("render")
            files |= map_files(catalog, cache.map.keep(lap.waited("map_work", layout)), cache.map.shown)
            lap("map")  # waiting for it, as for the search index below
            progress("building the search index")
            files |= run.collect(cache.search.keep(lap.waited("search_work", search), catalog, abstracts))
            lap("search")  # waiting for it: its own time, search_work, may have been spent alongside
        files |= static_files(config)
        lap("static")
    return Build(catalog, files, len(pages), lap.timings, run.stored)


class Stopwatch:
    """Each stage's seconds, by name: lap(name) ends the stage that ran since the last lap."""

    def __init__(self):
        self.timings: dict[str, float] = {}
        self.clock = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name], self.clock = now - self.clock, now

    @staticmethod
    def timed(func: Callable[[], R]) -> Callable[[], tuple[R, float]]:
        """func, returning its own time too (wherever it runs: in another process too)."""
        def job() -> tuple[R, float]:
            return timed_call(func, ())
        if isinstance(func, Detachable):
            return Detachable(job, lambda: (timed_call, func.detach()))
        return job

    def waited(self, name: str, result: Callable[[], tuple[R, float]]) -> R:
        """What a timed job returned; its own time is recorded under `name`."""
        value, self.timings[name] = result()
        return value


def check_templates(config: SiteConfig) -> None:
    problems = unreadable(config.templates_dir, config.root)
    if problems:
        raise SiteError(problems)


def site_marks(config: SiteConfig) -> dict[str, bytes]:
    """.nojekyll (GitHub Pages serves the site as it is) and the custom domain, if any."""
    files = {".nojekyll": b""}
    if config.cname:
        files["CNAME"] = config.cname.encode() + b"\n"
    return files


def render_abstracts(catalog: Catalog, cache: BuildCache) -> dict[str, Abstract]:
    """id -> rendered abstract, reusing renders of unchanged Markdown.

    Markdown past a limit is a SiteError naming every file and line."""
    new = sorted({p.abstract for p in catalog.papers} - cache.abstracts.keys())
    known = cache.abstracts | dict(zip(new, parallel_map(abstract_of, new)))
    failed = [p for p in catalog.papers if isinstance(known[p.abstract], MarkupError)]
    if failed:
        raise SiteError(sorted((_markup_problem(p, known[p.abstract], catalog.config) for p in failed),
                               key=lambda problem: (str(problem.path), problem.line or 0)))
    rendered = {p.id: known[p.abstract] for p in catalog.papers}
    cache.abstracts = {p.abstract: known[p.abstract] for p in catalog.papers}  # drop text that is gone
    return rendered


def abstract_of(source: str) -> Abstract | MarkupError:
    """One abstract rendered. The problem comes back as a value (from a worker too), so
    every file's problem is listed."""
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


def build_and_write(config: SiteConfig, out_dir: Path, progress: Callable[[str], None] = lambda stage: None,
                    notify: Callable[[str], None] | None = None,
                    start: BuildCache | Callable[[], BuildCache] | None = None) -> tuple[Build, WriteReport]:
    """Build into out_dir, starting from `start` (what the last build left: see cache.py), or
    from what `start()` loads while the output folder is listed alongside.
    Pages are written as they are rendered, on every core, and never held in memory;
    the search index and the map are built alongside. `notify` hears that the build waits for
    another one writing to out_dir."""
    with Staging(out_dir, None, config.root, notify, survey_alongside=True) as staging:
        start = start() if callable(start) else start
        staging.surveyed()  # before any worker forks: they all put into the staging folder
        run = Run(start, staging, alongside=True)
        build = build_site(config, progress=progress, run=run)
        progress(f"writing {len(build.files) + len(build.stored)} files")
        began = time.perf_counter()
        report = staging.commit(build.files, build.stored)
    build.timings["write"] = time.perf_counter() - began
    return build, report
