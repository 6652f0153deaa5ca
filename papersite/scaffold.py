"""`new DIR`: a fresh catalog that builds and serves straight away.

The folder gets an empty content/, a short site.yaml with the default taxonomy,
the default theme's templates/ and static/ to edit in place, package.json and
package-lock.json so that `npm ci` brings lunr.js and citeproc.js, requirements.txt pinning this
papersite, a GitHub Pages workflow that installs both and builds, a .gitignore and a README.
A DIR that holds anything is refused, every file is created exclusively (nothing is
ever overwritten), and a failure takes back what this run made.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from . import __version__
from .errors import Problem, SiteError
from .site.render import THEME

DEFAULT_TOPICS = Path(__file__).parent / "default_topics.yaml"

# The front-end packages the build ships (site.static.NPM_ASSETS), as the engine's own
# package-lock.json pins them (tests/test_new.py keeps the two equal): name -> (version, integrity, license).
NPM_PACKAGES = {
    "citeproc": ("2.4.63", "sha512-68F95Bp4UbgZU/DBUGQn0qV3HDZLCdI9+Bb2ByrTaNJDL5VEm9LqaiNaxljsvoaExSLEXe1/r6n2Z06SCzW3/Q==",
                 "CPAL-1.0 OR AGPL-1.0"),
    "lunr": ("2.3.9", "sha512-zTU3DaZaF3Rt9rhN3uBMGQD3dD2/vFQqnvZCDv4dl5iOzq2IZQqTxu90r4E5J+nP70J3ilqVCrbho2eWaeW8Ow==",
             "MIT"),
}
NPM_NAME = "papersite-catalog"

# Where a catalog's requirements.txt installs papersite from when nothing says where this
# papersite came from: the project's home at this version's tag (`new` says it is a guess).
PAPERSITE_HOME = "https://github.com/papersite/papersite"


@dataclass(frozen=True)
class PapersiteSource:
    """A pip URL that installs this papersite, and whether it was found rather than guessed."""
    url: str
    found: bool


def papersite_source(checkout: Path = Path(__file__).resolve().parent.parent) -> PapersiteSource:
    """The repository and commit this papersite came from: what pip recorded when it installed
    papersite from a git URL (direct_url.json), else the git checkout it runs from (its `origin`,
    at HEAD), else PAPERSITE_HOME at this version's tag. Only a URL GitHub Actions can fetch counts."""
    with contextlib.suppress(PackageNotFoundError, ValueError, TypeError, AttributeError):
        recorded = json.loads(distribution("papersite").read_text("direct_url.json") or "null")
        commit = recorded.get("vcs_info", {}).get("commit_id")
        if commit and _fetchable(recorded["url"]):
            return PapersiteSource(f"git+{_https(recorded['url'])}@{commit}", True)
    if (checkout / ".git").exists() and (checkout / "pyproject.toml").is_file():
        origin, head = _git(checkout, "remote", "get-url", "origin"), _git(checkout, "rev-parse", "HEAD")
        if origin and head and _fetchable(origin):
            return PapersiteSource(f"git+{_https(origin)}@{head}", True)
    return PapersiteSource(f"git+{PAPERSITE_HOME}@v{__version__}", False)


def _git(checkout: Path, *args: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=10)
        if done.returncode == 0:
            return done.stdout.strip()
    return ""


def _https(url: str) -> str:
    """git@host:owner/repo(.git) as https://host/owner/repo(.git); other URLs as they are."""
    if url.startswith("git@") and ":" in url:
        host, path = url[len("git@"):].split(":", 1)
        return f"https://{host}/{path}"
    return url.removeprefix("git+")


def _fetchable(url: str) -> bool:
    return _https(url).startswith("https://")


def requirements_text(source: PapersiteSource) -> str:
    return (
        "# The papersite this catalog is built with, pinned to one commit or tag; change it to update\n"
        "# papersite (README: \"Theme updates\" says what to do with templates/ and static/ then).\n"
        f"papersite @ {source.url}\n")

# The action versions are the ones the engine's own .github/workflows/pages.yml uses
# (tests/test_new.py keeps them equal).
PAGES_WORKFLOW = """\
# Build the catalog and publish it with GitHub Pages.
# Turn it on once: the repository's Settings -> Pages -> Build and deployment -> Source: "GitHub Actions".
# base_url comes from Pages itself (https://USER.github.io/REPO/, or your custom domain),
# so every link carries the right path without editing site.yaml.
name: Deploy to GitHub Pages

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

# One deployment at a time; let a running one finish rather than cancel it half-way.
concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"
          cache: pip
          cache-dependency-path: requirements.txt
      - uses: actions/setup-node@v6
        with:
          node-version: "20"
          cache: npm
      - id: pages
        uses: actions/configure-pages@v6
      # The install and build commands of this catalog's README.md.
      - run: pip install -q -r requirements.txt
      - run: npm ci
      # papersite's build cache, restored from the newest run; the build checks every entry.
      - uses: actions/cache@v5
        with:
          path: .cache/papersite
          key: papersite-${{ runner.os }}-${{ hashFiles('requirements.txt') }}-${{ hashFiles('site.yaml', 'content/**', 'templates/**', 'static/**') }}
          restore-keys: |
            papersite-${{ runner.os }}-${{ hashFiles('requirements.txt') }}-
      - run: papersite build --base-url "${{ steps.pages.outputs.base_url }}/"
      - uses: actions/upload-pages-artifact@v5
        with:
          path: _site
          include-hidden-files: true  # keep .nojekyll

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v5
"""

SITE_YAML = """\
# site.yaml: settings for the whole catalog. Reference: papersite's README, "site.yaml reference".
title: {title}
description: ""
base_url: http://127.0.0.1:8000/  # where the site will live, e.g. https://USER.github.io/REPO/
author: ""
language: en
# A lab's or a person's site: members' names stand out in every author list, and papers with
# `selected: true` in their front matter lead the home page.
# people: {{members: [Ada Lovelace]}}

# The topic taxonomy. Papers list topic slugs; the importer assigns them from
# the keywords. A topic with no papers gets no page.
{topics}
# Venues papers may name. `import` appends venues it meets for the first time.
venues: []

# What the pages may leave out: the RIS and CSL-JSON downloads, author pages' BibTeX download:
# omit: [author-feeds, author-bibtex, citation-files]
"""

GITIGNORE = """\
_site/
._site.*
.cache/
node_modules/
# a file being written by import (.<name>.<pid>.tmp); one a killed run left, the next removes
.*.[0-9]*.tmp
"""

NPMRC = """\
omit-lockfile-registry-resolved=true
fund=false
audit=false
"""

README = """\
# {title}

A catalog of research papers, built into a static website by papersite.

- `content/`: one Markdown file per paper (front matter, then the abstract);
- `site.yaml`: the site's title, address, topics and venues;
- `templates/`, `static/`: the theme, yours to edit.

```sh
pip install -q -r requirements.txt   # papersite, at the release requirements.txt pins
npm ci                               # lunr.js and citeproc.js, for search and citations
papersite import papers.bib          # add papers to content/
papersite serve                      # preview at http://127.0.0.1:8000/
papersite build                      # write the site to _site/
```

Publishing: push this folder to a GitHub repository, and in its Settings -> Pages set
Source to "GitHub Actions". `.github/workflows/pages.yml` then runs the install commands
above and `papersite build` on every push to `main`, for the address Pages gives
(`https://USER.github.io/REPO/`). Or run `papersite deploy`, which publishes to the `gh-pages`
branch ("Deploy from a branch"), once `base_url` in site.yaml is the site's address.

Updating papersite: change the tag in requirements.txt and install again. `templates/` and
`static/` are your copies of the theme and stay as they are: a file you delete from them
falls back on the installed papersite's own, so delete the ones you never edited to follow
the theme's updates; compare the ones you did with a fresh copy (`papersite new /tmp/theme`,
then `diff -ru /tmp/theme/templates templates`). See papersite's README, "Theme updates".
"""


def new_catalog(folder: Path, source: PapersiteSource | None = None) -> Path:
    """Make a fresh catalog in `folder`, which must not exist or be empty; returns it.
    Its requirements.txt installs papersite from `source` (by default papersite_source())."""
    folder = Path(folder)
    if os.path.lexists(folder) and not folder.is_dir():
        raise SiteError(Problem(folder, None, "exists and is not a folder: give a new or empty folder"))
    if folder.is_dir() and any(folder.iterdir()):
        raise SiteError(Problem(folder, None, "is not empty: give a new or empty folder (new never overwrites)"))
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    try:
        _fill(folder, folder.resolve().name or "Paper Catalog", source or papersite_source(), made)
    except BaseException as error:
        _take_back(made, folder if created else None)
        if isinstance(error, FileExistsError):
            raise SiteError(Problem(error.filename, None, "appeared while the catalog was made: left alone")) from None
        raise
    return folder


def _take_back(made: list[Path], created: Path | None) -> None:
    """Remove what this run made, and nothing else: whatever appeared meanwhile stays."""
    for path in reversed(made):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    if created is not None:
        with contextlib.suppress(OSError):  # not empty: someone else's files are in it
            created.rmdir()


def _fill(root: Path, title: str, source: PapersiteSource, made: list[Path]) -> None:
    """Every entry is created exclusively (mkdir, open "x"), and listed in `made` once it is ours."""
    def folder(name: str) -> Path:
        (root / name).mkdir()
        made.append(root / name)
        return root / name

    (folder("content") / ".gitkeep").touch()  # git keeps no empty folder; builds skip hidden files
    for name in ("templates", "static"):
        shutil.copytree(THEME / name, folder(name), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    folder(".github")
    (root / ".github" / "workflows").mkdir()
    quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a YAML string
    files = {
        "site.yaml": SITE_YAML.format(title=quoted, topics=_default_topics()),
        ".gitignore": GITIGNORE,
        ".npmrc": NPMRC,
        "requirements.txt": requirements_text(source),
        ".github/workflows/pages.yml": PAGES_WORKFLOW,
        "package.json": _json(_package()),
        "package-lock.json": _json(_package_lock()),
        "README.md": README.format(title=title),
    }
    for name, text in files.items():
        with open(root / name, "x", encoding="utf-8") as file:
            made.append(root / name)
            file.write(text)


def _default_topics() -> str:
    """default_topics.yaml from its `topics:` key on (its header is about the importer's matching)."""
    text = DEFAULT_TOPICS.read_text(encoding="utf-8")
    return text[text.index("\ntopics:") + 1:].rstrip("\n") + "\n"


def _package() -> dict:
    return {"name": NPM_NAME, "version": "0.0.0", "private": True,
            "description": "Browser-side assets for papersite: lunr.js for search, citeproc.js for citations",
            "dependencies": {name: version for name, (version, _, _) in NPM_PACKAGES.items()}}


def _package_lock() -> dict:
    packages = {f"node_modules/{name}": {"version": version, "integrity": integrity, "license": license_}
                for name, (version, integrity, license_) in NPM_PACKAGES.items()}
    return {"name": NPM_NAME, "version": "0.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": NPM_NAME, "version": "0.0.0", "dependencies": _package()["dependencies"]},
                         **packages}}


def _json(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"
