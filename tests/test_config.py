import pytest

from papersite.source.config import load_config
from papersite.errors import SiteError


def errors_of(site, text):
    site.write("site.yaml", text)
    with pytest.raises(SiteError) as caught:
        load_config(site.root / "site.yaml")
    return [str(p) for p in caught.value.problems]


def test_minimal_config_loads(site):
    config = site.config
    assert config.title == "Test Catalog"
    assert config.base_path == "/catalog/"
    assert [t.slug for t in config.topics] == ["learning-theory", "generative-models"]
    assert config.venues[0].year == 2024


def test_unknown_key_is_an_error_with_a_suggestion(site):
    problems = errors_of(site, "title: T\ndescripton: typo\n")
    assert problems == ["site/site.yaml:2: unknown key 'descripton' (did you mean 'description'?)"] or \
        problems[0].endswith("site.yaml:2: unknown key 'descripton' (did you mean 'description'?)")


def test_every_problem_is_listed_with_its_line(site):
    problems = errors_of(site, """\
title: 3
base_url: ftp://nope
topics:
  - slug: Bad Slug
    name: X
  - name: Missing slug
venues:
  - slug: v
    name: V
    year: "2024"
""")
    text = "\n".join(problems)
    assert "site.yaml:1: 'title' must be a string" in text
    assert "site.yaml:2: base_url must be an absolute http(s) URL" in text
    assert "site.yaml:4: 'slug' must be lowercase letters" in text
    assert "site.yaml:6: missing required field 'slug'" in text
    assert "site.yaml:10: 'year' must be a whole number" in text
    assert len(problems) == 5


def test_extra_is_free_form(site):
    site.write("site.yaml", "title: T\nextra:\n  anything: [1, 2]\n  nested: {a: b}\n")
    assert site.config.extra == {"anything": [1, 2], "nested": {"a": "b"}}


def test_missing_site_yaml(tmp_path):
    with pytest.raises(SiteError, match="site.yaml: not found"):
        load_config(tmp_path / "site.yaml")


def test_bad_yaml_names_the_line(site):
    problems = errors_of(site, "title: T\ntopics: [a, b\n")
    assert ":3: invalid YAML" in problems[0] or ":2: invalid YAML" in problems[0]


def test_base_url_gets_a_trailing_slash_and_override(site):
    site.write("site.yaml", "title: T\nbase_url: https://me.github.io/repo\n")
    config = site.config
    assert config.base_url == "https://me.github.io/repo/"
    assert config.with_base_url("https://papers.example.org").base_path == "/"
    with pytest.raises(SiteError, match="--base-url"):
        config.with_base_url("not a url")
