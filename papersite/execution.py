"""How a build runs the spine's stages (pipeline.py says what they are).

    BuildCache  what a build may reuse from the last one: kept in memory by a
                warm session (the preview, `build --watch`), and partly on disk
                between `build` commands (cache.py)
    Run         how one build executes: where the pages go (kept in memory, or
                streamed into the output's staging folder by the workers that
                render them), whether the search index and the map's layout
                are built in processes of their own alongside the other
                stages, and the garbage collector paused meanwhile

The stages map over papers and pages on all cores (parallel.py); Run decides
the rest, so the spine reads the same whichever way it runs.
"""
from __future__ import annotations

import contextlib
import gc
from dataclasses import dataclass, field
from typing import Callable, Iterator, TypeVar

from .citations import CitationCache
from .config import SiteConfig
from .content import PaperCache
from .output import Receipt, Staging
from .pages import Abstract
from .paper_map import LayoutCache
from .parallel import in_background
from .people import PeopleCache
from .related import RelatedIndex
from .render import RenderCache, TemplateCache
from .search import SearchCache

R = TypeVar("R")


@dataclass
class BuildCache:
    """What a rebuild may reuse."""

    config: SiteConfig | None = None  # the last one: kept while equal, so everything built from it is too
    papers: PaperCache = field(default_factory=PaperCache)
    abstracts: dict[str, Abstract] = field(default_factory=dict)  # keyed by Markdown source
    related: RelatedIndex = field(default_factory=RelatedIndex)  # updated for the texts that changed
    people: PeopleCache = field(default_factory=PeopleCache)  # who is who, while no paper's authors change
    keys: dict = field(default_factory=dict)  # citation keys' bare keys, by what makes them (bibtex.assign_keys)
    templates: TemplateCache = field(default_factory=TemplateCache)  # checked against template sources
    plans: dict = field(default_factory=dict)  # paper id -> (inputs, page) of the last plan
    pages: RenderCache = field(default_factory=RenderCache)  # each page's bytes, by what it shows
    digests: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # output path -> (bytes, hash) written
    search: SearchCache = field(default_factory=SearchCache)  # tokens, postings and files of the search index
    citations: CitationCache = field(default_factory=CitationCache)  # each paper's RIS, CSL-JSON and BibTeX
    map: LayoutCache = field(default_factory=LayoutCache)  # the paper map's layout, by its texts

    def settle(self, config: SiteConfig) -> SiteConfig:
        """The last config if this one is the same (by repr, where True and 1 differ): what is
        built from it (venues, topics) then stays the very same objects, cheap to compare."""
        if self.config is None or repr(config) != repr(self.config):
            self.config = config
        return self.config


class Run:
    """How one build executes its stages.

    `staging`: the output's staging folder, which the workers put each page,
    citation and search file into as they make it (never held in memory, nor
    sent back to this process); the receipts gather in `stored`, for
    Staging.commit. Without it, every file comes back as bytes.
    `alongside`: the serial jobs, the search index and the map's layout, run
    in forked processes while related papers and pages take the cores. What
    such a process caches is lost with it: not for a warm session, which
    keeps its caches.
    """

    def __init__(self, cache: BuildCache | None = None, staging: Staging | None = None,
                 alongside: bool = False):
        self.cache = cache if cache is not None else BuildCache()
        self.staging = staging
        self.alongside_jobs = alongside
        self.stored: dict[str, Receipt] = {}

    @property
    def store(self) -> Callable[[str, bytes], Receipt] | None:
        """What a stage calls with each file it makes, in a worker too (None: return the bytes)."""
        return self.staging.put if self.staging is not None else None

    def reuse(self, path: str, output: bytes | Receipt) -> bytes | Receipt | None:
        """Last build's output of a file that did not change, to give again (None: make it anew).
        Bytes are given again; a receipt, only while the output folder holds those bytes."""
        if isinstance(output, bytes):
            return output
        return self.staging.holding(path, output) if self.staging is not None else None

    def collect(self, files: dict[str, bytes | Receipt]) -> dict[str, bytes]:
        """The files a stage returned as bytes; the receipts of those it stored are kept aside."""
        if self.staging is None:
            return files
        kept = {}
        for path, entry in files.items():
            if isinstance(entry, str):
                self.stored[path] = entry
            else:
                kept[path] = entry
        return kept

    def alongside(self, func: Callable[[], R], size: int) -> contextlib.AbstractContextManager[Callable[[], R]]:
        """A serial job of `size` items: inside the block, the function given waits for its result."""
        return in_background(func, size if self.alongside_jobs else 0)

    @contextlib.contextmanager
    def executing(self) -> Iterator[None]:
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
