"""Render page specs to bytes with Jinja2.

Templates are looked up in the project's templates/ first, then in the
packaged theme, so a user overrides any template by giving a file the same
name. `{% extends "theme/base.html" %}` reaches the packaged original.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from . import urls
from .config import SiteConfig
from .errors import Problem, SiteError
from .feeds import json_ld
from .markup import plain_text, render_title
from .pages import Page

THEME = Path(__file__).parent / "theme"


class TemplateCache(jinja2.BytecodeCache):
    """Compiled templates kept in memory between builds of one process.

    Compiling the theme is most of a small site's build time. Jinja keys each
    entry by template and checks it against a checksum of the source, so an
    edited, added or removed template is never served stale. Jinja also folds
    constant expressions such as `'static/style.css'|link` at compile time, so
    compiled code depends on the config too: a config change drops everything.
    """

    def __init__(self):
        self.compiled: dict[str, bytes] = {}
        self.config: SiteConfig | None = None

    def use_for(self, config: SiteConfig) -> None:
        if config != self.config:
            self.compiled, self.config = {}, config

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def make_env(config: SiteConfig, bytecode_cache: TemplateCache | None = None, **globals_: Any) -> jinja2.Environment:
    if bytecode_cache is not None:
        bytecode_cache.use_for(config)
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
    )
    link = urls.Urls(config.base_url)
    env.globals.update(site=config, urls=urls, **globals_)
    env.filters.update(
        link=link.link,
        absolute=link.absolute,
        title_html=lambda text: Markup(render_title(text)),  # math in titles, typeset
        plain=lambda text: plain_text(text) if "$" in text else text,  # for <title>, meta tags
        json_ld=json_ld,  # schema.org data in a <script>, escaped so content cannot close it
    )
    return env


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


def render_pages(env: jinja2.Environment, pages: list[Page]) -> dict[str, bytes]:
    """Render every page; keys are output file paths ('papers/x/index.html')."""
    return {urls.output_file(page.path): render_page(env, page) for page in pages}


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
