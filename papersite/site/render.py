"""Render page specs to bytes with Jinja2.

Templates are looked up in the project's templates/ first, then in the default
theme, so a project with no templates/ of its own (or only some of them) still
builds. `{% extends "theme/base.html" %}` reaches the default original.
"""
from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import jinja2
import jinja2.meta
from markupsafe import Markup, escape

from .. import urls
from ..catalog.bibtex import base_key, bibtex_entry, printed, work_label
from .citations import citation_data, json_ld, scholar_tags, scholarly_article
from ..source.config import SiteConfig
from ..source.files import unreadable
from ..errors import Problem, SiteError
from ..text.markdown_html import render_title
from ..text.plain import cut_snippet, plain_title
from .pages import Page
from ..parallel import parallel_map

def _default_theme() -> Path:
    """The folder holding the default theme's templates/ and static/.

    In a checkout it is the repository itself: the theme lives at the top, where
    users edit it in place. An installed package carries a copy of the same two
    folders under papersite/theme/ (see pyproject.toml).
    """
    installed = Path(__file__).parent.parent / "theme"
    return installed if (installed / "templates").is_dir() else Path(__file__).parent.parent.parent


THEME = _default_theme()


class TemplateCache(jinja2.BytecodeCache):
    """Compiled templates, kept for the whole process and with the session on disk.

    Compiling the theme is most of a small site's build time, and every build in
    a process (a preview session, `build --watch`, a test run) compiles the same
    theme; the templates a cache's last build used are also kept in it, so the
    session that engine/store.py keeps on disk brings them to the next `build`. Jinja
    keys each entry by template name and file, and checks it against a checksum
    of the source, so an edited, added or removed template is never served
    stale. Jinja also folds constant expressions such as `'static/style.css'|link`
    at compile time, so compiled code depends on what the filters read from the
    config too: entries are kept by it (make_env says what it is), and sites that
    differ only in their title or folder share them.
    """

    LIMIT = 512  # entries for the process, the oldest dropped first: a theme has about 20 templates
    _process: dict[tuple[str, str], bytes] = {}  # (what the filters read, bucket key) -> code

    def __init__(self):
        self.filters_read = ""
        self.compiled: dict[str, bytes] = {}  # bucket key -> code: this cache's own, pickled with it

    def use_for(self, filters_read: tuple) -> None:
        """Compile for filters that read these parts of the config."""
        key = repr(filters_read)
        if key != self.filters_read:
            self.filters_read, self.compiled = key, {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.compiled.get(bucket.key) or self._process.get((self.filters_read, bucket.key))
        if code is not None:
            bucket.bytecode_from_string(code)
            self.compiled[bucket.key] = code

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = code = bucket.bytecode_to_string()
        self._process[(self.filters_read, bucket.key)] = code
        if len(self._process) > self.LIMIT:
            self._process.pop(next(iter(self._process)), None)


def site_env(config: SiteConfig, catalog, abstracts: dict, templates: TemplateCache | None = None) -> jinja2.Environment:
    """The environment of a site's pages: its templates, and what every page may read."""
    return make_env(config, templates, catalog=catalog, abstracts=abstracts, paper_count=len(catalog.papers),
                    # which sections the navigation links to (a change re-renders every page)
                    browse={"authors": bool(catalog.authors), "years": len(catalog.years) > 1})


def check_templates(config: SiteConfig) -> None:
    """Every file of the site's templates/ can be read (else a SiteError naming each)."""
    problems = unreadable(config.templates_dir, config.root)
    if problems:
        raise SiteError(problems)


def make_env(config: SiteConfig, bytecode_cache: TemplateCache | None = None, **globals_: Any) -> jinja2.Environment:
    if bytecode_cache is not None:
        # What the filters below read from the config, which compiled code depends on
        # (see TemplateCache): keep it in step with them.
        bytecode_cache.use_for((config.base_url, config.venues, config.topics, config.language))
    theme = jinja2.FileSystemLoader(THEME / "templates")
    env = jinja2.Environment(
        bytecode_cache=bytecode_cache,
        loader=jinja2.ChoiceLoader([
            jinja2.FileSystemLoader(config.templates_dir),
            jinja2.PrefixLoader({"theme": theme}),
            theme,
        ]),
        autoescape=True,  # everything from content is escaped; only our abstract HTML is marked safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # An environment lives for one build: without this, every page's templates (layout,
        # partials, macros) are checked on disk again, four stat calls a page.
        auto_reload=False,
    )
    link = urls.Urls(config.base_url)
    venues = {v.slug: v for v in config.venues}
    abstracts = globals_.get("abstracts", {})
    topics = {t.slug: t for t in config.topics}
    env.globals.update({"site": config, "urls": urls, "browse": {"authors": False, "years": False}, **globals_})
    catalog = globals_.get("catalog")

    def _key(paper):
        return catalog.citation_keys.get(paper.id) if catalog is not None else base_key(paper)
    env.filters.update(
        link=link.link,
        absolute=link.absolute,
        title_html=title_html,  # math in titles, typeset
        plain=plain_title,  # for <title>, meta tags
        json_ld=json_ld,  # schema.org data in a <script>, escaped so content cannot close it
        snippet=lambda paper: abstracts[paper.id].snippet,  # a function of paper.abstract
        # a page's description: search engines show about 155 characters of it, link previews fewer
        description=lambda abstract: cut_snippet(abstract.text, 160),
        author_links=_cached_author_links(link.link, catalog.members if catalog is not None else frozenset()),
        venue=venues.__getitem__,  # 'icml-2024' -> Venue
        topic=topics.__getitem__,  # 'learning-theory' -> Topic
        # the key is the catalog's (unique); pages pass it so a renamed key re-renders the page
        bibtex=lambda paper, venue, key=None: bibtex_entry(paper, venue, link.absolute(paper), key or _key(paper)),
        scholar_tags=lambda paper, venue: scholar_tags(paper, venue, plain_title(paper.title)),
        meta_tags=meta_tags,  # [(name, content)] -> <meta> elements, for scholar_tags
        by_year=by_year,  # papers -> [(year, papers)], newest first
        printed=printed,  # (paper, venue) -> volume, issue, pages and publisher, from its extra:
        work_label=work_label,  # (paper, venue) -> "PhD thesis", "Technical report", or "" for a paper
        number=number_format(config.language),  # 2596 -> '2,596'
        # topics and `abstract` are no longer read (the page shows them); templates of older themes pass them
        scholarly_article=lambda paper, venue, topics_=None, abstract=None: scholarly_article(
            paper, venue, plain_title(paper.title)),
        # the data of a paper page's RIS and CSL-JSON downloads, for |json_ld
        # (`shown`: the BibTeX entry the page shows in #bibtex, beside abstract.html in #abstract-text,
        # which the downloads then read)
        citation_data=lambda paper, venue, topics_, abstract, key, shown=None: citation_data(
            paper, venue, key or _key(paper), abstract.text, topics_, link.absolute(paper),
            None if shown is None else abstract.html, shown or ""),
    )
    # `page_path is under(urls.ALL_VENUES)`: a test is called directly, where a method call in a
    # template (page_path.startswith(...)) goes through Jinja's context.call, and every page's navigation asks four times
    env.tests["under"] = str.startswith
    return env


@functools.lru_cache(maxsize=1 << 16)  # as render_title's: a paper's title shows on every listing it is in
def title_html(text: str) -> Markup:
    """A title as safe HTML (render_title), marked safe for the templates."""
    return Markup(render_title(text))


def meta_tags(pairs) -> Markup:
    """(name, content) pairs as <meta name content> elements, a line each, escaped as a template
    would: a paper page has a dozen Scholar tags, and a loop in the template costs several times this."""
    return Markup("".join(f'<meta name="{escape(name)}" content="{escape(content)}">\n' for name, content in pairs))


def by_year(papers) -> list[tuple[Any, list]]:
    """Papers grouped by year, newest first, each year's in their order: what
    `papers|groupby("year")|reverse` gives, without Jinja's lookup of each paper's year (an item
    lookup that fails before the attribute's), on every author page."""
    years: dict[Any, list] = {}
    for paper in papers:
        years.setdefault(paper.year, []).append(paper)
    return sorted(years.items(), key=lambda group: group[0], reverse=True)


def number_format(language: str) -> Callable[[Any], Any]:
    """A count with its thousands grouped: "2,596" in English; in other languages "2 596", with a
    narrow no-break space (the SI style, read everywhere). search.js and map.js group the same way."""
    separator = "," if language.lower().split("-")[0] == "en" else "\u202f"
    return lambda n: f"{n:,}".replace(",", separator) if isinstance(n, int) and not isinstance(n, bool) else n


def _cached_author_links(link: Callable[[str], str], members: frozenset[str]) -> Callable[..., Markup]:
    """The author_links filter, made once per byline and build: listings and author pages
    show each paper's eight times or more."""
    @functools.lru_cache(maxsize=None)
    def cached(byline: tuple, limit: int | None, et_al: bool, keep: str | None) -> Markup:
        return _author_links(link, byline, limit, et_al, keep, members)

    def author_links(byline, limit: int | None = None, et_al: bool = False, keep: str | None = None) -> Markup:
        try:
            return cached(byline, limit, bool(et_al), keep)
        except TypeError:  # a list a template made: not hashable, and rarely repeated
            return _author_links(link, byline, limit, bool(et_al), keep, members)
    return author_links


def _author_links(link: Callable[[str], str], byline, limit: int | None, et_al: bool = False,
                  keep: str | None = None, members: frozenset[str] = frozenset()) -> Markup:
    """(name, author page path) pairs as linked names, comma-separated; past `limit`
    names, "and N more"; "et al." after them where the paper names some of its authors
    (et_al). The author whose page path is `keep` (on their own page) is always shown, as
    text, not a link to the page it is on (as DBLP does): past the limit, after an ellipsis
    in place of the last name shown. In Python: listings
    show it for every paper, and a macro call costs as much as the rest of the paper's entry.
    The lab's members (site.yaml `people: members:`) are marked, as few as they are."""
    shown = list(byline if limit is None else byline[:limit])
    if keep is not None and len(byline) > len(shown) and all(path != keep for _, path in shown):
        own = [pair for pair in byline[len(shown):] if pair[1] == keep]
        if own:
            shown[-1:] = [("…", None), own[0]]
    # no class but a member's: the stylesheet finds the names by their paragraph, and a listing holds thousands
    html = ", ".join(escape(name) if path is None or path == keep else
                     f'<a class="member" href="{escape(link(path))}">{escape(name)}</a>' if path in members else
                     f'<a href="{escape(link(path))}">{escape(name)}</a>'
                     for name, path in shown)
    if et_al:
        html += ", et al."  # how many more is not known
    elif limit is not None and len(byline) > limit:
        html += f" and {len(byline) - limit} more"
    return Markup(html)


def render_page(env: jinja2.Environment, page: Page) -> bytes:
    try:
        template = env.get_template(page.template)
        return template.render(page.context, page_path=page.path).encode("utf-8")
    except jinja2.TemplateSyntaxError as exc:
        raise SiteError(Problem(_template_path(exc.filename, exc.name), exc.lineno,
                                f"template syntax error: {exc.message}")) from None
    except jinja2.TemplateNotFound as exc:
        where = (_failing_template(exc), _failing_line(exc)) if _failing_frame(exc) else (page.template, None)
        raise SiteError(Problem(*where, f"template not found: {exc.name}")) from None
    except jinja2.UndefinedError as exc:
        raise SiteError(Problem(_failing_template(exc), _failing_line(exc),
                                f"template error while rendering /{page.path}: {exc.message}")) from None
    except SiteError:
        raise
    except UnicodeDecodeError as exc:  # a template file that is not UTF-8
        raise SiteError(Problem(page.template, None, f"cannot read template: not UTF-8 text ({exc.reason})")) from None
    except RecursionError as exc:
        raise SiteError(Problem(_failing_template(exc), _failing_line(exc),
                                f"template error while rendering /{page.path}: endless recursion "
                                "(does a template extend or include itself?)")) from None
    except Exception as exc:  # {{ 1 / 0 }}, {{ title + 1 }} ...: the template's error, not ours
        raise SiteError(Problem(_failing_template(exc), _failing_line(exc),
                                f"template error while rendering /{page.path}: "
                                f"{type(exc).__name__}: {exc}")) from None


# Above this many pages to render, each slice gets a fresh worker (see parallel_map):
# on a large catalog that bounds the peak memory; below it the copies stay small
# and the forks cost more time than the memory is worth.
FRESH_ABOVE = 20_000

# Globals that hold the whole catalog: a template reading them can show anything.
CATALOG_WIDE = frozenset({"catalog", "abstracts"})


class RenderCache:
    """Each page's output from the last build, reused while nothing it shows has changed.

    What a page shows is its template, its context, the config and the small
    globals (such as paper_count): last build's are kept and compared (a page the plan
    kept is the same Page, and its context is not compared, nor even made). Comparing
    a context is mostly pointer checks (see engine/runner.py: BuildCache). A template
    that reads a catalog-wide global (found by parsing it and everything it extends,
    includes or imports) can show anything, so its pages are always rendered: in the
    theme that is the home, venues and topics pages.
    A page's output is its bytes, or where a build streaming to disk stored them
    (kept by the persistent cache, and reused only while the output still holds them).
    """

    def __init__(self):
        self.stamp: tuple | None = None
        self.pages: dict[str, tuple[str, Page, Any, str]] = {}  # path -> (template, page, output, file)
        self.wide: dict[str, bool] = {}  # template -> reads a catalog-wide global
        self.env: jinja2.Environment | None = None  # the last build's, for a page rendered ahead (first_look.py)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "env": None}  # kept by the persistent cache: an environment is this process's

    def start(self, env: jinja2.Environment) -> None:
        """Forget everything when a template, the config or a small global a template reads
        changed (the theme reads no paper_count: its home page counts the catalog's papers,
        so a paper added need not render every page again). Functions and modules among the
        globals are the engine's own: the same while it is."""
        sources = _template_sources(env)
        read = _names_read(env, sources)
        stamp = (sources, tuple((k, v) for k, v in sorted(env.globals.items())
                                if (read is None or k in read) and k not in CATALOG_WIDE and not callable(v)
                                and not isinstance(v, ModuleType)))
        if stamp != self.stamp:
            self.stamp, self.pages, self.wide = stamp, {}, {}
        self.env = env


def render_pages(env: jinja2.Environment, pages: list[Page], cache: RenderCache | None = None,
                 store: Callable[[str, bytes], Any] | None = None,
                 reuse: Callable[[dict[str, Any]], dict[str, Any]] = lambda outputs: outputs) -> dict[str, Any]:
    """Render every page (on all cores), reusing unchanged ones; keys are output files.

    Values are the pages' bytes, or with `store` (output file, bytes -> receipt,
    called where the page was rendered, in a worker too) its receipts: the
    pages of a build that streams to disk then go there without crossing back
    to this process. `reuse` ({output file: last build's output} -> those to
    give again, see engine.runner.Runner.reuse) checks receipts still hold.
    """
    cache = cache or RenderCache()
    cache.start(env)
    wide = {template: _reads_catalog(env, template, cache.wide) for template in {page.template for page in pages}}
    # Keyed by page path; an entry is (template, page, output, output file). A page the plan
    # kept is last build's Page: one identity check, its entry reused as is, and its context
    # never made (see Page). Another page is compared by its context.
    last, kept, todo, same = cache.pages, {}, [], []
    for page in pages:  # every page, even in a one-paper rebuild: kept lean
        entry = last.get(page.path)
        if entry is None or wide[page.template] or entry[0] != page.template or \
                not (entry[1] is page or entry[1].context == page.context):
            todo.append(page)
        else:
            same.append((page, entry))
    out = reuse({entry[3]: entry[2] for _, entry in same})
    for page, entry in same:
        output = out.get(entry[3])
        if output is None:  # its file is no longer as it was: rendered again
            todo.append(page)
        elif output is entry[2] and entry[1] is page:
            kept[page.path] = entry
        else:
            # This build's Page, even when only its context matched: the plan keeps it, so the next
            # build finds it here by identity instead of making both contexts again
            kept[page.path] = (entry[0], page, output, entry[3])
    for template in sorted({page.template for page in todo}):
        _load(env, template)  # compiled once here, before workers fork
    # Listings last: each reads hundreds of papers, so a worker rendering them copies
    # most of the parent's memory (see parallel_map). Last, they do not meet the
    # search process of a one-shot build, mostly done by then. A page
    # made from its inputs (a paper's, an author's) lists few, and its context is made by
    # the worker that renders it, not kept by this process (see Page).
    reads = [1 if page.made_from else max(1, len(page.context.get("papers", ()))) for page in todo]  # papers
    order = sorted(range(len(todo)), key=reads.__getitem__)
    if store is None:
        def job(page: Page) -> Any:
            return render_page(env, page)
    else:
        def job(page: Page) -> Any:
            return store(urls.output_file(page.path), render_page(env, page))
    # weighed by the papers they read, a fresh worker's slices of listings are shorter (parallel_map)
    results = dict(zip(order, parallel_map(job, [todo[i] for i in order], fresh=len(todo) > FRESH_ABOVE,
                                           weights=[reads[i] for i in order])))
    for i, page in enumerate(todo):
        file = urls.output_file(page.path)
        out[file] = results[i]
        kept[page.path] = (page.template, page, results[i], file)
    cache.pages = kept
    return out


def _load(env: jinja2.Environment, template: str) -> None:
    try:
        env.get_template(template)
    except jinja2.TemplateError:
        pass  # render_page reports it, with the page that needed it


def _template_sources(env: jinja2.Environment) -> tuple:
    """Every template file the loaders read from (the project's folder, the theme's), with its
    source. Each file is read once: the theme's are also seen as "theme/<name>"."""
    sources = []
    folders = [loader for loader in env.loader.loaders if isinstance(loader, jinja2.FileSystemLoader)]
    for folder, loader in enumerate(folders):
        for name in loader.list_templates():
            try:
                sources.append((folder, name, loader.get_source(env, name)[0]))
            except (jinja2.TemplateNotFound, OSError, UnicodeDecodeError):
                sources.append((folder, name, None))
    return tuple(sources)


def _reads_catalog(env: jinja2.Environment, name: str, memo: dict[str, bool]) -> bool:
    """Does template `name`, or one it extends, includes or imports, read a catalog-wide global?"""
    if name not in memo:
        memo[name] = True  # until proven otherwise (also ends cycles)
        try:
            names, referenced = _template_facts(env.loader.get_source(env, name)[0],
                                                frozenset(env.filters), frozenset(env.tests))
        except (jinja2.TemplateError, OSError, UnicodeDecodeError):
            return True
        memo[name] = bool(names & CATALOG_WIDE) or any(ref is None or _reads_catalog(env, ref, memo)
                                                        for ref in referenced)
    return memo[name]


def _names_read(env: jinja2.Environment, sources: tuple) -> frozenset[str] | None:
    """Every name the template files (_template_sources) read from outside themselves; None
    when one cannot be read or parsed (it may read any)."""
    names: set[str] = set()
    for _, _, source in sources:
        if source is None:
            return None
        try:
            names |= _template_facts(source, frozenset(env.filters), frozenset(env.tests))[0]
        except jinja2.TemplateError:
            return None
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _template_facts(source: str, filters: frozenset[str], tests: frozenset[str]
                    ) -> tuple[frozenset[str], tuple[str | None, ...]]:
    """(the names it reads from outside itself: globals and context, the templates it
    references; None for a computed name). A function of the source and of the filter and test
    names it may use, so kept for the process: every build of a theme would otherwise parse
    each template twice, once here and once to compile it."""
    # Parsed without the globals: Jinja does not count a name defined there as undeclared.
    # The filters and tests must be known by name, or the analysis fails on the first one
    # and the template would count as reading everything (every page rendered every build).
    bare = jinja2.Environment()
    bare.filters.update(dict.fromkeys(filters, _never_called))
    bare.tests.update(dict.fromkeys(tests, _never_called))
    tree = bare.parse(source)
    return (frozenset(jinja2.meta.find_undeclared_variables(tree)), tuple(jinja2.meta.find_referenced_templates(tree)))


def _never_called(*args, **kwargs):
    raise AssertionError("a template is only analysed here, never rendered")


def _template_path(filename: str | None, name: str | None) -> str:
    return filename or name or "<template>"


def _failing_frame(exc: BaseException):
    """The innermost traceback frame that belongs to a template file."""
    tb, found = exc.__traceback__, None
    while tb:
        if tb.tb_frame.f_code.co_filename.endswith((".html", ".xml", ".txt")):
            found = tb
        tb = tb.tb_next
    return found


def _failing_template(exc: BaseException) -> str:
    frame = _failing_frame(exc)
    return frame.tb_frame.f_code.co_filename if frame else "<template>"


def _failing_line(exc: BaseException) -> int | None:
    frame = _failing_frame(exc)
    return frame.tb_lineno if frame else None
