"""Catalog checks: unique ids and slugs, and the order of papers and topics."""
import json

import pytest

from papersite.catalog import Catalog
from papersite.source.content import load_papers
from papersite.errors import SiteError
from tests.conftest import paper_text


def test_duplicate_id_names_both_files(site):
    site.paper("one", id="same")
    site.paper("two", id="same")
    with pytest.raises(SiteError) as caught:
        Catalog.build(load_papers(site.config), site.config)
    [problem] = caught.value.problems
    assert "two.md" in str(problem) and "one.md" in str(problem) and "duplicate id 'same'" in str(problem)


def test_duplicate_slug_across_folders_names_both_files(site):
    site.write("content/a/same-name.md", paper_text(id="a"))
    site.write("content/b/same-name.md", paper_text(id="b"))
    with pytest.raises(SiteError, match=r"content/b/same-name.md: duplicate URL slug .* also used by .*content/a/same-name.md"):
        Catalog.build(load_papers(site.config), site.config)


def test_order(site):
    for slug, title in (("c", "Gamma"), ("a", "alpha"), ("b", "Beta")):
        site.paper(slug, id=slug, title=title)
    catalog = Catalog.build(load_papers(site.config), site.config)
    assert [p.title for p in catalog.papers] == ["alpha", "Beta", "Gamma"]  # case-insensitive
    assert [t.slug for t in catalog.topics] == ["learning-theory"]  # the unused topic gets no page


def test_titles_sort_as_they_are_read(site, tmp_path):
    """A title that starts with math sorts by what it reads ('ΦFlow' as 'phiflow'), on /papers/
    and in the search page's title order alike."""
    titles = {"phi": r"$\Phi$Flow: differentiable physics", "three": "3D scenes from text",
              "opt": "Optimal transport", "quant": "Quantum kernels", "eps": r"$\epsilon$-greedy exploration",
              "dots": r"$\ldots$ and more"}
    for slug, title in titles.items():
        site.paper(slug, id=slug, title=f'"{title}"'.replace("\\", "\\\\"))
    catalog = Catalog.build(load_papers(site.config), site.config)
    ids = [p.id for p in catalog.papers]
    assert ids.index("opt") < ids.index("phi") < ids.index("quant")
    assert ids.index("dots") < ids.index("three") < ids.index("eps")  # "… and", "3d", "epsilon"
    build, _ = site.build(tmp_path / "out")
    numbered = sorted(ids)  # the search numbers one venue's papers by id
    assert [numbered[n] for n in json.loads(build.files["search/order.json"])] == ids
    listing = build.files["papers/index.html"].decode()
    assert [slug for _, slug in sorted((listing.index(f"/papers/{slug}/"), slug) for slug in titles)] == ids
