"""How a build runs the spine's stages (pipeline.build_site says what they are).

    BuildCache  what each stage may reuse from the last build: kept in memory by a
                warm preview, and partly on disk between `build` commands (store.py)
    Runner      how one build runs: what it starts from, where the files go (kept as
                bytes, or streamed into the output's staging folder by the workers
                that make them), and whether the search index and the map's layout
                are made in processes of their own alongside the other stages

Three runners, one spine:

    InMemory()                 deploy and tests: every file as bytes, nothing kept
    Warm(memo)                 the preview and `build --watch`: every cache kept for the next edit
    Streamed(memo, staging)    `build`: pages written as they are rendered, the cache saved after

Inside `runner.stages()`, each stage is timed; a job started `alongside` forks at
its line, from what the lines above it made, and is waited for where its result
is asked for.
"""
from __future__ import annotations

import contextlib
import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar

from ..catalog.people import PeopleCache
from ..catalog.related import RelatedIndex
from ..papermap.layout import LayoutCache
from ..parallel import Detachable, give_back_freed_memory, in_background, timed_call
from ..search import SearchCache
from ..site.citations import CitationCache
from ..site.render import RenderCache, TemplateCache
from ..source.config import SiteConfig
from ..source.content import PaperCache
from ..text.abstracts import Abstract
from .output import Receipt, Staging

R = TypeVar("R")
DOING = {"load": "reading content", "markdown": "rendering abstracts", "related": "finding related papers",
         "render": "rendering pages", "map": "laying out the map", "search": "building the search index",
         "static": "copying static files"}  # what a build is doing, by stage, for the terminal's status line


@dataclass
class BuildCache:
    """What a rebuild may reuse, stage by stage. Whatever a stage reuses is the very same
    object as last time, so what is built from it compares equal cheaply, and a page whose
    inputs are all the same objects is not rendered again."""

    config: SiteConfig | None = None  # the last one: kept while equal, so everything built from it is too
    papers: PaperCache = field(default_factory=PaperCache)
    abstracts: dict[str, Abstract] = field(default_factory=dict)  # keyed by Markdown source
    related: RelatedIndex = field(default_factory=RelatedIndex)  # updated for the texts that changed
    people: PeopleCache = field(default_factory=PeopleCache)  # who is who, while no paper's authors change
    keys: dict = field(default_factory=dict)  # citation keys' bare keys, by what makes them (bibtex.assign_keys)
    titles: dict = field(default_factory=dict)  # each title's place in A-Z order (catalog.order.title_key)
    templates: TemplateCache = field(default_factory=TemplateCache)  # checked against template sources
    plans: dict = field(default_factory=dict)  # paper id -> (inputs, page) of the last plan
    pages: RenderCache = field(default_factory=RenderCache)  # each page's bytes, by what it shows
    digests: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # output path -> (bytes, hash) written
    search: SearchCache = field(default_factory=SearchCache)  # tokens, postings and files of the search index
    citations: CitationCache = field(default_factory=CitationCache)  # each paper's RIS, CSL-JSON and BibTeX
    map: LayoutCache = field(default_factory=LayoutCache)  # the paper map's layout, by its texts
    # output folder -> what this process's last build left there (output.Left, see Staging); not in the session
    surveys: dict = field(default_factory=dict)

    def settle(self, config: SiteConfig) -> SiteConfig:
        """The last config if this one is the same (by repr, where True and 1 differ)."""
        if self.config is None or repr(config) != repr(self.config):
            self.config = config
        return self.config


class Runner:
    """How one build runs its stages.

    `memo`: what the stages reuse, and keep up to date for the next build.
    `staging`: the output's staging folder, which the workers put each page,
    citation and search file into as they make it (never held in memory, nor
    sent back to this process); Staging.commit takes their receipts. Without
    it, every file comes back as bytes.
    `alongside`: the search index and the map's layout are made in processes of
    their own while related papers and pages take the cores. What such a process
    caches is lost with it: not for a warm build, which keeps its caches.
    """

    def __init__(self, memo: BuildCache | None = None, staging: Staging | None = None, alongside: bool = False,
                 progress: Callable[[str], None] = lambda doing: None):
        self.memo = memo if memo is not None else BuildCache()
        self.staging = staging
        self.alongside_jobs = alongside
        self.progress = progress  # hears what the build is doing, as each stage starts

    @property
    def store(self) -> Callable[[str, bytes], Receipt] | None:
        """What a stage calls with each file it makes, in a worker too (None: return the bytes).
        The output folder's survey is waited for first: the workers that put files check it, and
        only this process can wait for it (until then, it is made alongside the first stages)."""
        if self.staging is None:
            return None
        self.staging.surveyed()
        return self.staging.put

    def reuse(self, outputs: dict[str, bytes | Receipt]) -> dict[str, bytes | Receipt]:
        """Of the last build's outputs of files that did not change (path -> output), those to give
        again (the rest are made anew): bytes, and a receipt while the output folder holds its bytes.
        One call for all of a stage's files: a one-paper rebuild gives tens of thousands again."""
        if self.staging is None:
            return {path: output for path, output in outputs.items() if isinstance(output, bytes)}
        return self.staging.holding(outputs)

    @contextlib.contextmanager
    def stages(self) -> Iterator[Stages]:
        """The stages of one build. A build allocates millions of long-lived objects and frees
        few cycles: the cyclic collector would rescan them again and again, so it is paused
        meanwhile. Leaving early (an error) stops the jobs running alongside."""
        collecting = gc.isenabled()
        gc.disable()
        try:
            with contextlib.ExitStack() as jobs:
                yield Stages(self, jobs)
        finally:
            if collecting:
                gc.enable()


class InMemory(Runner):
    """Every file as bytes, from nothing, nothing kept: deploy and the tests."""

    def __init__(self):
        super().__init__(alongside=True)


class Warm(Runner):
    """Every file as bytes, starting from `memo` and keeping it up to date: the preview."""

    def __init__(self, memo: BuildCache):
        super().__init__(memo)


class Streamed(Runner):
    """Pages, citations and search files written into `staging` as they are made, starting
    from `memo` (what the last `build` left): the `build` command."""

    def __init__(self, memo: BuildCache, staging: Staging, progress: Callable[[str], None] = lambda doing: None):
        super().__init__(memo, staging, alongside=True, progress=progress)


class Stages:
    """Runs and times the stages of one build, and gathers the files they make.

    stage(name, func, *args)         func(*args), its time added to `name`'s
    stage.files(name, func, *args)   the same, for a stage that returns files
    stage.alongside(name, job)       starts a (job, size) alongside; returns what waits for it

    A stage's time runs from the end of the stage before it, so waiting for a job
    alongside counts to the stage that asked for its result; the job's own time is
    `<name>_work`."""

    def __init__(self, runner: Runner, jobs: contextlib.ExitStack):
        self.runner = runner
        self.jobs = jobs
        self.timings: dict[str, float] = {}
        self.made: dict[str, bytes] = {}  # output path -> bytes
        self.stored: dict[str, Receipt] = {}  # output path -> receipt of the bytes put into the staging folder
        self.clock = time.perf_counter()

    def __call__(self, name: str, func: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        if name not in self.timings:
            self.runner.progress(DOING.get(name, name))
        result = func(*args, **kwargs)
        give_back_freed_memory()
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.clock
        self.clock = now
        return result

    def files(self, name: str, func: Callable[..., dict[str, bytes | Receipt]], *args: Any) -> None:
        made = self(name, func, *args)
        if self.runner.staging is None:  # no staging folder, no receipts: every file is bytes
            self.made.update(made)
            return
        for path, entry in made.items():
            if isinstance(entry, str):  # a receipt: the bytes are in the staging folder
                self.stored[path] = entry
            else:
                self.made[path] = entry

    def alongside(self, name: str, job: tuple[Callable[[], R], int]) -> Callable[[], R]:
        """job: (func, size), a serial job of `size` items, started now (in a process of its
        own when the runner runs jobs alongside and it is worth one, else inline when waited for)."""
        func, size = job
        waiting = self.jobs.enter_context(in_background(_timed(func), size if self.runner.alongside_jobs else 0))

        def result() -> R:
            value, self.timings[f"{name}_work"] = waiting()
            return value
        return result


def _timed(func: Callable[[], R]) -> Callable[[], tuple[R, float]]:
    """func, returning its own time too, wherever it runs (a fresh interpreter too)."""
    if isinstance(func, Detachable):
        return Detachable(lambda: timed_call(func, ()), lambda: (timed_call, func.detach()), func.spare)
    return lambda: timed_call(func, ())
