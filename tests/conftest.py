"""Shared fixtures: tiny sites written into temp dirs, and the bundled catalog built once."""
from __future__ import annotations

import dataclasses
import shutil
import textwrap
from pathlib import Path

import pytest

from papersite.config import load_config
from papersite.pipeline import build_and_write

ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt"))

MINIMAL_CONFIG = """\
title: Test Catalog
base_url: https://example.org/catalog/
topics:
  - slug: learning-theory
    name: Learning Theory
    description: Theory.
    keywords: [generalization]
  - slug: generative-models
    name: Generative Models
    keywords: [diffusion]
venues:
  - slug: icml-2024
    name: ICML 2024
    year: 2024
    full_name: International Conference on Machine Learning
"""


def paper_text(id="p1", title="A Paper", venue="icml-2024", topics="[learning-theory]",
               body="An abstract about $x^2$ generalization.", extra="") -> str:
    return (f"---\nid: {id}\ntitle: {title}\nauthors: [Ada Lovelace]\nvenue: {venue}\nyear: 2024\n"
            f"topics: {topics}\n{extra}---\n{body}\n")


class TinySite:
    """A site folder in tmp_path: write files, load config, build."""

    def __init__(self, root: Path):
        self.root = root
        self.write("site.yaml", MINIMAL_CONFIG)
        (root / "content").mkdir()

    def write(self, relative: str, text: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return path

    def paper(self, name: str, **fields) -> Path:
        return self.write(f"content/icml-2024/{name}.md", paper_text(**fields))

    @property
    def config(self):
        return load_config(self.root / "site.yaml")

    def build(self, out: Path | None = None):
        out = out or self.root / "_site"
        build, report = build_and_write(self.config, out)
        return read_back(build, out), report


@pytest.fixture
def site(tmp_path) -> TinySite:
    return TinySite(tmp_path / "site")


@pytest.fixture(scope="session")
def bundled(tmp_path_factory):
    """The repository's own catalog, copied and built once for the whole session."""
    root = tmp_path_factory.mktemp("bundled")
    for name in ("site.yaml", "content", "templates", "static"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        elif source.exists():
            shutil.copy(source, root / name)
    config = load_config(root / "site.yaml")
    build, report = build_and_write(config, root / "_site")
    return root, root / "_site", read_back(build, root / "_site")


def read_back(build, out: Path):
    """The build with every file's bytes as written to `out` (a one-shot build
    streams its pages to disk and keeps only receipts)."""
    return dataclasses.replace(build, files={path: (out / path).read_bytes() for path in build.paths}, stored={})
