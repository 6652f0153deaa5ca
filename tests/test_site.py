"""Build the bundled catalog into a temp dir, then read it like a visitor would."""
from __future__ import annotations

import filecmp
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import html5lib
import pytest

from papersite.text.plain import plain_text

from tests.conftest import ROOT
from tests.htmlcheck import page_url, parse, resolve


@pytest.fixture(scope="module")
def html_pages(bundled):
    _, out, _ = bundled
    return sorted(out.rglob("*.html"))


def test_every_page_kind_is_there(bundled):
    _, out, build = bundled
    papers = build.catalog.papers
    assert len(papers) == 57
    for expected in ("index.html", "papers/index.html", "venues/index.html", "topics/index.html",
                     "search/index.html", "404.html", "sitemap.xml", "robots.txt", ".nojekyll",
                     "search/index.json", "search/docs.json", "static/lunr.min.js", "static/style.css"):
        assert (out / expected).is_file(), expected
    for paper in papers:
        assert (out / "papers" / paper.slug / "index.html").is_file()
    for venue in build.catalog.venues:
        assert (out / "venues" / venue.slug / "index.html").is_file()
    assert {v.slug for v in build.catalog.venues} == {"icml-2024", "iclr-2024"}


def test_every_internal_link_and_asset_resolves(bundled, html_pages):
    root, out, build = bundled
    base = build.catalog.config.base_path
    broken, parsed = [], {}  # path -> its parse: many links point into the same pages

    def page_at(path):
        if path not in parsed:
            parsed[path] = parse(path)
        return parsed[path]
    for html in html_pages:
        page = page_at(html)
        url = page_url(out, base, html)
        for href in page.links + page.assets:
            target = resolve(out, base, url, href)
            if target is not None and not target.is_file():
                broken.append(f"{html.relative_to(out)} -> {href}")
            fragment = href.partition("#")[2]
            if fragment and target is not None and target.is_file():
                assert fragment in page_at(target).ids, f"{html}: missing #{fragment}"
    assert broken == []
    assert len(html_pages) > 57


def test_every_page_is_well_formed_html5(html_pages):
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
    for html in html_pages:
        parser.parse(html.read_bytes())
        errors = [e for e in parser.errors]
        assert errors == [], f"{html}: {errors[:3]}"


def test_paper_page_has_everything_a_reader_needs(bundled):
    _, out, build = bundled
    catalog = build.catalog
    for paper in catalog.papers:
        page = parse(out / "papers" / paper.slug / "index.html")
        meta = dict(page.meta)
        if "$" in paper.title:  # math in a title is typeset, and plain text in meta tags
            assert "<math" in (out / "papers" / paper.slug / "index.html").read_text().split("<h1")[1]
        else:
            assert page.h1.strip() == paper.title
        assert meta["citation_title"] == plain_text(paper.title)
        assert meta["citation_publication_date"] == "2024"
        assert meta["citation_conference_title"] == catalog.venue(paper.venue).full_name
        assert "bibtex" in page.ids and "abstract-heading" in page.ids
        for topic in paper.topics:
            assert f"/topics/{topic}/" in page.links
        assert 1 <= len(paper.topics) <= 3
    with_math = [p for p in catalog.papers if "$" in p.abstract]
    assert with_math, "the seeds contain math"
    for paper in with_math:
        html = (out / "papers" / paper.slug / "index.html").read_text()
        assert "<math" in html or 'class="tex"' in html
        abstract = html.split('<section class="abstract"')[1].split("</section>")[0]
        assert "$" not in re.sub(r'<code class="tex">.*?</code>', "", abstract)  # TeX left only in fallbacks


def test_related_papers_and_neighbours(bundled):
    _, out, build = bundled
    catalog = build.catalog
    venue_papers = catalog.venue_papers["icml-2024"]
    middle = venue_papers[len(venue_papers) // 2]
    page = parse(out / "papers" / middle.slug / "index.html")
    previous, following = venue_papers[len(venue_papers) // 2 - 1], venue_papers[len(venue_papers) // 2 + 1]
    assert f"/papers/{previous.slug}/" in page.links and f"/papers/{following.slug}/" in page.links
    related_links = [link for link in page.links if link.startswith("/papers/") and link != f"/papers/{middle.slug}/"]
    assert len(set(related_links)) >= 5


def test_no_empty_topic_pages(bundled):
    _, out, build = bundled
    topic_pages = sorted((out / "topics").glob("*/index.html"))
    assert len(topic_pages) == len(build.catalog.topics) > 5
    for page in topic_pages:
        assert len([l for l in parse(page).links if l.startswith("/papers/") and l != "/papers/"]) >= 1


def test_sitemap_and_robots(bundled):
    _, out, build = bundled
    tree = ET.parse(out / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [loc.text for loc in tree.getroot().findall("s:url/s:loc", ns)]
    base = build.catalog.config.base_url
    assert all(loc.startswith(base) for loc in locs)
    assert f"{base}papers/{build.catalog.papers[0].slug}/" in locs
    assert len(locs) == len(set(locs)) >= 57 + 5
    assert f"Sitemap: {base}sitemap.xml" in (out / "robots.txt").read_text()


def test_two_builds_are_byte_identical_across_hash_seeds(bundled, tmp_path):
    root, out, _ = bundled
    for seed, target in (("1", tmp_path / "a"), ("987", tmp_path / "b")):
        subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "-q", "-o", str(target),
                        "--config", str(root / "site.yaml")],
                       check=True, cwd=root, env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin",
                                                  # the BLAS kernels this process runs: see papermap.layout.arithmetic
                                                  **{k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}})
    assert_same_tree(out, tmp_path / "a")
    assert_same_tree(tmp_path / "a", tmp_path / "b")


def assert_same_tree(left, right):
    left_files = sorted(p.relative_to(left) for p in left.rglob("*") if p.is_file())
    right_files = sorted(p.relative_to(right) for p in right.rglob("*") if p.is_file())
    assert left_files == right_files
    match, mismatch, errors = filecmp.cmpfiles(left, right, left_files, shallow=False)
    assert mismatch == [] and errors == []


def test_every_link_kind_has_a_label(site, tmp_path):
    from papersite.model import LINK_KINDS
    links = ", ".join(f"{kind}: 'https://example.org/{kind}'" for kind in LINK_KINDS)
    site.paper("linked", extra=f"links: {{{links}}}\n")
    site.build(tmp_path / "out")
    html = (tmp_path / "out" / "papers" / "linked" / "index.html").read_text()
    for kind, label in [("slides", "Slides"), ("video", "Video"), ("supplementary", "Supplementary"),
                        ("project", "Project page")]:
        assert f'href="https://example.org/{kind}" rel="noopener">{label}</a>' in html
