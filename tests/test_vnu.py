"""HTML validity: the W3C Nu checker (vnu.jar, from npm's vnu-jar) finds no errors on any page kind."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from papersite import urls

from tests.conftest import ROOT

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


@pytest.mark.skipif(shutil.which("java") is None, reason="vnu needs Java (CI has Java 17)")
def test_every_page_kind_is_valid_html(bundled):
    assert VNU.is_file(), "vnu.jar is missing: run 'npm ci'"
    _, out, build = bundled
    catalog = build.catalog
    with_math = [p for p in catalog.papers if "<math" in (out / urls.output_file(urls.path_of(p))).read_text()]
    math_titles = [p for p in catalog.papers if "$" in p.title]
    busiest_topic = max(catalog.topics, key=lambda t: len(catalog.topic_papers[t.slug]))
    sample = [urls.HOME, urls.ALL_PAPERS, urls.ALL_VENUES, urls.ALL_TOPICS, urls.SEARCH, "404.html",
              urls.path_of(catalog.venues[0]), urls.path_of(busiest_topic),
              urls.path_of(with_math[0]), *(urls.path_of(p) for p in math_titles[:1])]
    assert with_math, "the bundled catalog has abstracts with math"
    files = [str(out / urls.output_file(path)) for path in sample]
    result = subprocess.run(["java", "-jar", str(VNU), "--errors-only", "--format", "json", "--stdout", *files],
                            capture_output=True, text=True, timeout=300)
    messages = json.loads(result.stdout)["messages"]
    errors = [f"{m.get('url', '').split(str(out))[-1]}:{m.get('lastLine')}: {m['message']}" for m in messages]
    assert errors == []
    assert result.returncode == 0, result.stderr
