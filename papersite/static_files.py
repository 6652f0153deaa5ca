"""Static assets: the theme's, the project's overrides, and front-end packages from npm."""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from . import urls
from .config import SiteConfig
from .errors import Problem, SiteError
from .render import THEME

# npm packages the site ships: output name -> file inside node_modules
NPM_ASSETS = {"lunr.min.js": "lunr/lunr.min.js"}


def static_files(config: SiteConfig) -> dict[str, bytes]:
    """Output path -> bytes. A project file replaces the theme file of the same name."""
    files: dict[str, bytes] = {}
    for name, relative in NPM_ASSETS.items():
        files[urls.STATIC + name] = _npm_asset(config, relative)
    for folder in (THEME / "static", config.static_dir):
        for path in _walk(folder):
            files[urls.STATIC + path.relative_to(folder).as_posix()] = path.read_bytes()
    _check_extra_css(config, sorted(p.relative_to(config.static_dir).as_posix() for p in _walk(config.static_dir)))
    return files


def _check_extra_css(config: SiteConfig, ours: list[str]) -> None:
    """Every extra_css stylesheet is a file the build copies from static/. Checked on every
    build, since static/ can change while site.yaml does not (the preview's rebuilds)."""
    where = config.extra_css_at or tuple(("site.yaml", None) for _ in config.extra_css)
    sheets = [name for name in ours if name.endswith(".css")]
    problems = []
    for name, (path, line) in zip(config.extra_css, where):
        if name in ours:
            continue
        close = difflib.get_close_matches(name, sheets, n=1, cutoff=0.8)
        hint = f"did you mean '{close[0]}'?" if close else \
            f"static/ has {', '.join(sheets)}" if sheets else "static/ has no .css files"
        problems.append(Problem(path, line, f"extra_css: 'static/{name}' not found ({hint})"))
    if problems:
        raise SiteError(problems)


def _walk(folder: Path) -> list[Path]:
    found = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(here) / n for n in names if not n.startswith(".") and n != "README.md")
    return sorted(found)


def _npm_asset(config: SiteConfig, relative: str) -> bytes:
    for root in (config.root, Path(__file__).parent.parent):
        candidate = root / "node_modules" / relative
        if candidate.is_file():
            return candidate.read_bytes()
    raise SiteError(Problem(f"node_modules/{relative}", None,
                            "front-end package missing: run 'npm ci' in the project folder"))
