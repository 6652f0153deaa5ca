"""The map laid out ahead, for a `build` after an edit to one of the texts its frame is made of.

Such an edit makes the frame (the LSA space every text is read in) anew, lays the
landmarks out in it and places every other paper among them again (papermap/layout.py):
seconds on a large catalog, which a build could otherwise start only once it has
loaded the last session and read the papers. `build` starts both
first instead, in a process of its own, from what the last build left for it here
(each paper's map text and term counts, and which file gave it) and the content
files that changed since. The build takes that layout only if it is of the very
texts it lays out (paper_map.LayoutCache.job checks), and a point only for the very
text placed; it lays out as usual otherwise: a guess, never trusted.
"""
from __future__ import annotations

import importlib
import os
import pickle
from array import array
from pathlib import Path

from .store import Fingerprint, cache_dir, read_entry, write_entry_from
from ..source.config import SiteConfig
from ..source.content import is_content_name, read_paper
from ..papermap.files import map_text
from ..text.limits import MarkupError
from ..text.markdown_html import render_abstract
from ..papermap.layout import SPARE, SPARSE, fit, in_frame, landmarks, lay_out_landmarks, place_on_cores, \
    skeleton_digest, term_counts, text_digest
from ..parallel import Background, in_fresh, prepare_spare, start_spare, worth_forking
from ..text.words import TermNumbers

WORTH_FROM = 256 * 1024  # bytes of what the last build left: below that (a few hundred papers), not worth a process


def ahead_path(root: Path) -> Path:
    return cache_dir(root) / "map-ahead.pickle"


def keep(root: Path, fingerprint_: Fingerprint, cache) -> None:
    """What the next build's layout ahead starts from (see last_build); the map's spare, where one
    waits (ready_for_next_build), reads it now. Raises OSError."""
    state = last_build(fingerprint_, cache)
    if state is not None:
        write_entry_from(ahead_path(root), lambda file: pickle.dump((fingerprint_.engine, state), file,
                                                                   protocol=pickle.HIGHEST_PROTOCOL))
        prepare_spare(SPARE, preload, (root, fingerprint_.engine))


def last_build(fingerprint_: Fingerprint, cache) -> dict | None:
    """What a layout ahead starts from, of the build of inputs `fingerprint_` whose BuildCache is
    `cache`: which file gave each paper, the digest of each paper's map text and its term counts
    (the text itself only where related papers kept no counts of it), and the digest of the
    frame's texts of the last layout and the inputs' Fingerprint.key (None: no layout to start
    from)."""
    layout = cache.map
    if layout.skeleton is None or not layout.texts:
        return None
    sources = {path: (digest, parsed.paper.id)
               for path, (digest, parsed) in cache.papers.by_content(fingerprint_.known).items()
               if parsed.paper is not None}
    # each text's term counts, as related papers keep them: not counted again ahead; all in two
    # arrays, with where each text's counts start, for a quick load (not two small arrays a text)
    terms, counts, starts, texts = array("i"), array("i"), {}, {}
    for key, text in layout.texts.items():
        kept = cache.related.kept_terms(key, text)
        if kept is None:
            texts[key] = text
        else:
            starts[key] = len(terms)
            terms += kept[0]
            counts += kept[1]
    return {"inputs": fingerprint_.key, "frame": layout.skeleton.frame.digest, "sources": sources,
            "digests": layout.digests_of(layout.texts), "texts": texts, "words": cache.related.words,
            "terms": (starts, terms, counts)}


class LayoutAhead:
    """The layout being made in a process of its own: its result is None when the edits changed
    none of the frame's texts (nothing to make ahead: the build lays the map out in the frame it
    has), else the landmarks' Skeleton (its digest says of which texts) and the other texts'
    Placement among them. The build places itself any text it has that was not guessed."""

    def __init__(self, process):
        self.process = process  # parallel.Background or in_fresh's: done(), result(), cancel()
        self.made = None
        self.got = False

    def done(self) -> bool:
        return self.got or self.process.done()

    def result(self):
        """What it made (waiting for it); None also when it failed: a guess never fails a build."""
        if not self.got:
            try:
                self.made = self.process.result()
            except Exception:
                self.made = None
            self.got = True
        return self.made

    def stop(self) -> None:
        self.process.cancel()


def start(root: Path, config: SiteConfig, fingerprint_: Fingerprint) -> LayoutAhead | None:
    """The layout ahead, started; None where the last build left nothing to start from, or too
    little to be worth a process."""
    try:
        size = ahead_path(root).stat().st_size
    except OSError:
        return None
    if size < WORTH_FROM or not worth_forking(size):
        return None
    # forked: this process has not loaded its session yet, so the fork shares little
    return LayoutAhead(Background(lambda: lay_out(root, config, content_digests(config, fingerprint_),
                                                  fingerprint_.engine), lambda: None))


def start_warm(config: SiteConfig, fingerprint_: Fingerprint, cache, last: Fingerprint,
               edited: list[str]) -> LayoutAhead | None:
    """In the warm process (engine/warm.py), for a build of inputs `fingerprint_`: the layout ahead,
    started if a file `edited` since its last build (of inputs `last`, whose BuildCache is `cache`)
    may have changed the frame: one that gave the paper of one of its texts, or a new content file.
    Made in a fresh interpreter (the spare started between builds, see ready_for_next_build),
    from what that build left on disk (`keep`), which the spare has read by then, and the
    content files changed since: a fork would share the cache's pages, and both processes
    would copy each one they write to."""
    skeleton = cache.map.skeleton
    if skeleton is None or not worth_forking(len(skeleton.own)):
        return None
    frame = set(in_frame(skeleton.keys))
    top = str(config.content_dir) + os.sep
    for path in edited:
        if not (path.startswith(top) and is_content_name(os.path.basename(path))):
            continue  # not a paper's file
        read, paper = cache.papers.paper_of(path)
        if not read or (paper is not None and paper.id in frame):
            changed = {path: entry[4] if (entry := fingerprint_.files.get(path)) else None
                       for path in content_files(config, edited)}
            try:
                return LayoutAhead(in_fresh(lay_out, (config.root, config, changed, fingerprint_.engine, last.key),
                                            SPARE))
            except OSError:  # no interpreter to start: the build lays the map out itself
                return None
    return None


def ready_for_next_build(cache, kept: tuple[Path, Fingerprint] | None = None) -> None:
    """In the warm process, between builds: the interpreter the next build's map work takes (a
    layout ahead, or the whole layout), started now, where the map is large enough; and the
    sparse products an edited paper is placed with, imported now (a tenth of a second). `kept`:
    (root, inputs) of the build that has kept what the spare reads already (else `keep` has it
    read once it has)."""
    skeleton = cache.map.skeleton
    if skeleton is not None:
        importlib.import_module(SPARSE)
    if skeleton is not None and worth_forking(len(skeleton.own)):
        start_spare(SPARE, [__name__, "papersite.numeric", SPARSE])
        if kept is not None:
            prepare_spare(SPARE, preload, (kept[0], kept[1].engine))


def content_files(config: SiteConfig, paths) -> list[str]:
    """Of the input files `paths` (as a Fingerprint names them), the content files a build reads:
    Markdown files but READMEs, none hidden."""
    top = str(config.content_dir) + os.sep
    hidden = os.sep + "."  # a part of the path under content/ that starts with a dot
    return [path for path in paths if path.startswith(top) and is_content_name(os.path.basename(path))
            and hidden not in path[len(top) - 1:]]


def content_digests(config: SiteConfig, fingerprint_: Fingerprint) -> dict[str, str]:
    """The content files the build will read (content_files), each with the digest of its bytes."""
    files = fingerprint_.files
    return {path: files[path][4] for path in content_files(config, files)}


_read_ahead: list = []  # in the map's spare: (engine, what the last build left, its papers' keys, landmarks)


def preload(root: Path, engine: str) -> None:
    """In the map's spare, between builds: what the last build left (`keep`), read now, and the
    landmarks among its papers."""
    _read_ahead.clear()  # the last one's memory reused, not held beside the new one
    last = _left(root, engine)
    keys = [] if last is None else [source[1] for source in last["sources"].values()]
    _read_ahead[:] = [(engine, last, keys, landmarks(keys))]


def _left(root: Path, engine: str) -> dict | None:
    """What the last build of this engine left for a layout ahead (last_build); None: nothing."""
    payload = read_entry(ahead_path(root))
    if payload is None:
        return None
    made_by, last = pickle.loads(payload)
    return last if made_by == engine else None


def lay_out(root: Path, config: SiteConfig, content: dict[str, str | None], engine: str, since: str | None = None):
    """In the process ahead: the texts the build will lay out, guessed from the last build's (what
    it kept here) and the content files (`content`: path -> digest of its bytes); if their frame
    differs from the last one, the landmarks' layout in the new one (a Skeleton) and the other
    texts' Placement among it, else None. `engine`: the build's (Fingerprint.engine). `since`:
    the Fingerprint.key of the last build's inputs, where `content` holds only the files changed
    since (None: removed); else it holds them all."""
    read = _read_ahead.pop() if _read_ahead else None  # by preload: a spare takes one job
    if read is None or read[0] != engine:
        read = (engine, _left(root, engine), None, None)
    last = read[1]
    if last is None or (since is not None and last.get("inputs") != since):
        return None
    sources, digests, texts, words = last["sources"], last["digests"], last["texts"], last["words"]
    starts, all_terms, all_counts = last["terms"]
    ends = dict(zip(starts, [*list(starts.values())[1:], len(all_terms)]))  # packed in this order
    keys: dict[str, str | None] = {}  # content file -> its paper's key (None: read below)
    if since is None:  # every content file: the last build's key where it read the same bytes
        for path, digest in content.items():
            was = sources.get(path)
            keys[path] = was[1] if was is not None and digest == was[0] else None
        changed = [path for path, key in keys.items() if key is None]
    else:  # the files changed since the last build: every other one is as it read it
        keys = {path: source[1] for path, source in sources.items()}
        for path, digest in content.items():
            if digest is None:
                keys.pop(path, None)
            else:
                keys[path] = None
        changed = [path for path, digest in content.items() if digest is not None]
    for path in changed:
        parsed = read_paper(Path(path), config)
        if parsed.paper is None:
            return None  # the build says what is wrong
        try:  # as the build renders it (pipeline.abstract_of), whose module this process need not import
            _, abstract = render_abstract(parsed.paper.abstract)
        except MarkupError:
            return None
        keys[path] = parsed.paper.id
        texts[parsed.paper.id] = text = map_text(parsed.paper.title, abstract)
        digests[parsed.paper.id] = text_digest(text)
        starts.pop(parsed.paper.id, None)
    if len(set(keys.values())) != len(keys):
        return None  # two papers with one id: the build says so
    papers = list(keys.values())
    chosen = read[3] if papers == read[2] else landmarks(papers)  # the same papers: the same landmarks
    marks = [digests[key] for key in chosen]
    frame = skeleton_digest(zip(in_frame(chosen), marks))
    if frame == last["frame"]:
        return None  # the same frame: the build lays the landmarks out again in it, or places the edited papers alone

    def counts(key: str):
        start = starts.get(key)
        if start is None:
            return term_counts(texts[key])
        return TermNumbers(words, all_terms[start:ends[key]], all_counts[start:ends[key]])

    given = [counts(key) for key in chosen]
    skeleton = lay_out_landmarks(fit(in_frame(given), frame), chosen, marks, dict(zip(chosen, given)).__getitem__,
                                 skeleton_digest(zip(chosen, marks)))
    own, others = set(chosen), {}  # text digest -> a key with that text
    for key in keys.values():
        if key not in own:
            others.setdefault(digests[key], key)
    # placed here too: all of them move with the landmarks, and the build would otherwise
    # place them itself, once it waits for the map, on its critical path. On every core: by
    # now the build has mostly made its pages, and waits for this.
    return skeleton, place_on_cores(skeleton, others, counts)
