"""Work on both cores gives the same results, in the same order, and the same errors."""
from __future__ import annotations

import pytest

from papersite import parallel
from papersite.config import load_config
from papersite.errors import Problem, SiteError
from papersite.pipeline import build_site


@pytest.fixture
def forked(monkeypatch):
    """Fork for any job, however small, on two workers."""
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")


def square_or_fail(n: int) -> int:
    if n == 13:
        raise SiteError(Problem("content/x.md", 7, "thirteen"))
    return n * n


def test_results_come_back_in_order(forked):
    assert parallel.parallel_map(square_or_fail, list(range(12))) == [n * n for n in range(12)]


def test_an_error_in_a_worker_comes_back_whole(forked):
    with pytest.raises(SiteError) as raised:
        parallel.parallel_map(square_or_fail, list(range(20)))
    assert raised.value.problems == [Problem("content/x.md", 7, "thirteen")]


def test_a_build_on_two_workers_equals_one_on_one(bundled, forked, monkeypatch):
    root, _, inline = bundled  # built with the usual threshold: 57 papers stay in one process
    config = load_config(root / "site.yaml")
    two = build_site(config).files
    monkeypatch.setenv("PAPERSITE_JOBS", "1")
    one = build_site(config).files
    assert two == one == inline.files
