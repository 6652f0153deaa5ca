"""Past the sitemap protocol's URL limit, sitemap.xml becomes an index of sitemap-N.xml files."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from papersite.site import pages
from papersite.preview.rebuild import Rebuilder

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
BASE = "https://example.org/catalog/"


def urls_in(path) -> list[str]:
    return [loc.text for loc in ET.parse(path).getroot().findall("s:url/s:loc", NS)]


@pytest.fixture
def catalog(site):
    for n in range(6):
        site.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n}")
    return site


def test_under_the_limit_one_sitemap(catalog):
    build, _ = catalog.build()
    out = catalog.root / "_site"
    assert ET.parse(out / "sitemap.xml").getroot().tag == "{%s}urlset" % NS["s"]
    assert not list(out.glob("sitemap-*.xml"))
    assert len(urls_in(out / "sitemap.xml")) <= pages.SITEMAP_LIMIT


def test_over_the_limit_an_index_of_sitemaps(catalog, monkeypatch):
    _, _ = catalog.build(catalog.root / "whole")
    every = urls_in(catalog.root / "whole" / "sitemap.xml")
    monkeypatch.setattr(pages, "SITEMAP_LIMIT", 5)
    catalog.build()
    out = catalog.root / "_site"
    root = ET.parse(out / "sitemap.xml").getroot()
    assert root.tag == "{%s}sitemapindex" % NS["s"]
    listed = [loc.text for loc in root.findall("s:sitemap/s:loc", NS)]
    count = -(-len(every) // 5)
    assert count > 2
    assert listed == [f"{BASE}sitemap-{n}.xml" for n in range(1, count + 1)]
    parts = [urls_in(out / f"sitemap-{n}.xml") for n in range(1, count + 1)]
    assert all(1 <= len(part) <= 5 for part in parts)
    assert [url for part in parts for url in part] == every  # every URL once, in order
    assert not (out / f"sitemap-{count + 1}.xml").exists()
    assert f"Sitemap: {BASE}sitemap.xml" in (out / "robots.txt").read_text()


def test_a_rebuild_that_crosses_the_limit_equals_a_clean_build(catalog, monkeypatch):
    catalog.build(catalog.root / "whole")
    monkeypatch.setattr(pages, "SITEMAP_LIMIT", len(urls_in(catalog.root / "whole" / "sitemap.xml")) + 1)
    rebuilder = Rebuilder(catalog.root / "site.yaml")
    first = rebuilder.rebuild()
    assert first.error is None
    assert "sitemap-1.xml" not in first.build.files
    for n in range(6, 14):
        catalog.paper(f"paper-{n}", id=f"p{n}", title=f"Paper {n}")
    warm = rebuilder.rebuild().build.files
    assert "sitemap-1.xml" in warm
    clean, _ = catalog.build()
    assert warm == clean.files
