"""The README's content example builds as printed, and its unquoted form says to quote."""
from __future__ import annotations

import re

from click.testing import CliRunner

import build
from tests.conftest import ROOT, TinySite

SITE = """\
title: Example
base_url: https://example.org/
topics:
  - {slug: computer-vision, name: Computer Vision}
  - {slug: generative-models, name: Generative Models}
venues:
  - {slug: icml-2024, name: ICML 2024, year: 2024}
"""


def readme_example() -> str:
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## Content format", 1)[1]
    return re.search(r"```markdown\n(.*?)```", section, re.DOTALL).group(1)


def build_example(tmp_path, text: str):
    site = TinySite(tmp_path / "site")
    site.write("site.yaml", SITE)
    site.write("content/icml-2024/gala3d.md", text)
    return site, CliRunner().invoke(build.cli, ["build", "-q", "--config", str(site.root / "site.yaml"),
                                                "-o", str(site.root / "_site")])


def test_the_readme_content_example_builds(tmp_path):
    text = readme_example()
    assert 'arxiv: "2402.07207"' in text
    site, result = build_example(tmp_path, text)
    assert result.exit_code == 0, result.output
    page = (site.root / "_site/papers/gala3d/index.html").read_text()
    assert 'href="https://arxiv.org/abs/2402.07207"' in page
    assert "GALA3D: Generative 3D Gaussians with Layout-Guided Control" in page


def test_the_example_unquoted_says_to_quote_it(tmp_path):
    text = readme_example().replace('arxiv: "2402.07207"', "arxiv: 2402.07207")
    line = text.splitlines().index("  arxiv: 2402.07207") + 1
    _, result = build_example(tmp_path, text)
    assert result.exit_code == 1
    assert result.stderr == (f"Error: content/icml-2024/gala3d.md:{line}: link 'arxiv' was read as the number "
                             "2402.07207, which can drop digits: quote it as written in the file "
                             "(arxiv: \"2402.07207\")\n")
