"""`new DIR`: a fresh catalog that builds and serves straight away.

The folder gets an empty content/, a short site.yaml with the default taxonomy,
the default theme's templates/ and static/ to edit in place, package.json and
package-lock.json so that `npm ci` brings lunr.js, a .gitignore and a README.
A DIR that holds anything is refused, every file is created exclusively (nothing is
ever overwritten), and a failure takes back what this run made.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from .errors import Problem, SiteError
from .site.render import THEME

DEFAULT_TOPICS = Path(__file__).parent / "default_topics.yaml"

# The one front-end package the build ships (site.static.NPM_ASSETS), as the
# engine's own package-lock.json pins it (tests/test_new.py keeps the two equal).
LUNR_VERSION = "2.3.9"
LUNR_INTEGRITY = "sha512-zTU3DaZaF3Rt9rhN3uBMGQD3dD2/vFQqnvZCDv4dl5iOzq2IZQqTxu90r4E5J+nP70J3ilqVCrbho2eWaeW8Ow=="
NPM_NAME = "papersite-catalog"

SITE_YAML = """\
# site.yaml: settings for the whole catalog. Reference: papersite's README, "site.yaml reference".
title: {title}
description: ""
base_url: http://127.0.0.1:8000/  # where the site will live, e.g. https://USER.github.io/REPO/
author: ""
language: en

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
npm ci                           # lunr.js, for the search page
papersite import papers.bib      # add papers to content/
papersite serve                  # preview at http://127.0.0.1:8000/
papersite build                  # write the site to _site/
papersite deploy                 # publish it to the gh-pages branch, for GitHub Pages
```

For `deploy`, set `base_url` in site.yaml to the site's address
(`https://USER.github.io/REPO/`), then choose "Deploy from a branch", `gh-pages`,
in the repository's Settings -> Pages.

`papersite` is the command `pip install` gives; from a papersite checkout,
`python path/to/papersite/build.py` is the same.
"""


def new_catalog(folder: Path) -> Path:
    """Make a fresh catalog in `folder`, which must not exist or be empty; returns it."""
    folder = Path(folder)
    if os.path.lexists(folder) and not folder.is_dir():
        raise SiteError(Problem(folder, None, "exists and is not a folder: give a new or empty folder"))
    if folder.is_dir() and any(folder.iterdir()):
        raise SiteError(Problem(folder, None, "is not empty: give a new or empty folder (new never overwrites)"))
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    try:
        _fill(folder, folder.resolve().name or "Paper Catalog", made)
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


def _fill(root: Path, title: str, made: list[Path]) -> None:
    """Every entry is created exclusively (mkdir, open "x"), and listed in `made` once it is ours."""
    def folder(name: str) -> Path:
        (root / name).mkdir()
        made.append(root / name)
        return root / name

    (folder("content") / ".gitkeep").touch()  # git keeps no empty folder; builds skip hidden files
    for name in ("templates", "static"):
        shutil.copytree(THEME / name, folder(name), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a YAML string
    files = {
        "site.yaml": SITE_YAML.format(title=quoted, topics=_default_topics()),
        ".gitignore": GITIGNORE,
        ".npmrc": NPMRC,
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
            "description": "Browser-side assets for papersite: lunr.js for client-side search",
            "dependencies": {"lunr": LUNR_VERSION}}


def _package_lock() -> dict:
    return {"name": NPM_NAME, "version": "0.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": NPM_NAME, "version": "0.0.0", "dependencies": {"lunr": LUNR_VERSION}},
                         "node_modules/lunr": {"version": LUNR_VERSION, "integrity": LUNR_INTEGRITY,
                                               "license": "MIT"}}}


def _json(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"
