"""Catalog checks, ordering, neighbours and related papers."""
import pytest

from papersite.catalog import Catalog
from papersite.content import load_papers
from papersite.errors import SiteError
from papersite.related import find_related
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


def test_order_and_neighbours(site):
    for slug, title in (("c", "Gamma"), ("a", "alpha"), ("b", "Beta")):
        site.paper(slug, id=slug, title=title)
    catalog = Catalog.build(load_papers(site.config), site.config)
    assert [p.title for p in catalog.papers] == ["alpha", "Beta", "Gamma"]  # case-insensitive
    alpha, beta, gamma = catalog.papers
    assert catalog.neighbours(alpha) == (None, beta)
    assert catalog.neighbours(beta) == (alpha, gamma)
    assert catalog.neighbours(gamma) == (beta, None)
    assert [t.slug for t in catalog.topics] == ["learning-theory"]  # the unused topic gets no page


TEXTS = {
    "diffusion-a": "Diffusion models generate images by denoising; we speed up diffusion sampling.",
    "diffusion-b": "A faster sampler for diffusion models: fewer denoising steps for image generation.",
    "diffusion-c": "Guidance for diffusion models in text-to-image generation.",
    "rl-a": "Reinforcement learning agents explore with intrinsic rewards in sparse reward tasks.",
    "rl-b": "Exploration bonuses and intrinsic rewards for reinforcement learning agents.",
    "theory": "Generalization bounds for overparameterized networks via sample complexity.",
}


def test_related_papers_are_the_similar_ones():
    related = find_related(TEXTS, count=2)
    assert set(related["diffusion-a"]) == {"diffusion-b", "diffusion-c"}
    assert related["rl-a"][0] == "rl-b" and related["rl-b"][0] == "rl-a"
    assert all(pid not in others for pid, others in related.items())
    assert all(len(others) <= 2 for others in related.values())


def test_related_is_deterministic_and_order_free():
    forward = find_related(TEXTS)
    backward = find_related(dict(reversed(list(TEXTS.items()))))
    assert forward == backward
