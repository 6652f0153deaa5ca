"""Rebuilds on a warm cache must equal a clean build, byte for byte, after any edits.

Rebuilds go through Rebuilder.rebuild(), the code the watcher, the preview
server and `build --watch` run; each result is compared with build_site()
on a fresh cache.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from papersite.site import pages
from papersite.source.config import load_config
from papersite.engine.output import write_site
from papersite.engine.command import build_and_write
from papersite.pipeline import build_site
from papersite.preview.rebuild import Rebuilder
from tests.conftest import MINIMAL_CONFIG

TWO_VENUES = MINIMAL_CONFIG + """\
  - slug: iclr-2024
    name: ICLR 2024
    year: 2024
"""


def clean_build(site):
    return build_site(load_config(site.root / "site.yaml"))


def assert_same_as_clean(rebuilder: Rebuilder, site, step: str = "") -> None:
    outcome = rebuilder.rebuild()
    assert outcome.error is None, f"{step}: {outcome.error}"
    warm, clean = outcome.build.files, clean_build(site).files
    differing = sorted(p for p in warm.keys() | clean.keys() if warm.get(p) != clean.get(p))
    assert not differing, f"{step}: warm rebuild differs from a clean build in {differing[:10]}"


def paper(site, name: str, venue: str = "icml-2024", **fields) -> Path:
    from tests.conftest import paper_text
    return site.write(f"content/{venue}/{name}.md", paper_text(venue=venue, **fields))


@pytest.fixture
def project(site):
    site.write("site.yaml", TWO_VENUES)
    paper(site, "alpha", id="a", title="Alpha Learning", body="Generalization bounds for $x^2$ alpha.")
    paper(site, "beta", id="b", title="Beta Diffusion", topics="[generative-models]",
          body="Diffusion models and generalization, beta.")
    paper(site, "gamma", "iclr-2024", id="c", title="Gamma Theory", body="Generalization theory, gamma.")
    return site


def test_every_kind_of_edit(project):
    site = project
    rebuilder = Rebuilder(site.root / "site.yaml")
    steps = {
        "edit a title": lambda: paper(site, "alpha", id="a", title="Alpha Learning Revisited",
                                      body="Generalization bounds for $x^2$ alpha."),
        "edit an abstract": lambda: paper(site, "beta", id="b", title="Beta Diffusion", topics="[generative-models]",
                                          body="Diffusion models, *now* with $\\nabla u^*$ generalization."),
        "change topics": lambda: paper(site, "gamma", "iclr-2024", id="c", title="Gamma Theory",
                                       topics="[learning-theory, generative-models]", body="Generalization, gamma."),
        "add a paper": lambda: paper(site, "delta", id="d", title="Delta Bounds", body="Alpha and gamma bounds."),
        "delete a paper": lambda: (site.root / "content/icml-2024/beta.md").unlink(),
        "rename a file": lambda: os.replace(site.root / "content/icml-2024/delta.md",
                                            site.root / "content/icml-2024/delta-two.md"),
        "move to another venue folder": lambda: os.replace(site.root / "content/icml-2024/alpha.md",
                                                           site.root / "content/iclr-2024/alpha.md"),
        "add a template override": lambda: site.write(
            "templates/paper.html", '{% extends "theme/paper.html" %}{% block title %}Paper: {{ title }}{% endblock %}'),
        "edit the template": lambda: site.write(
            "templates/paper.html", '{% extends "theme/paper.html" %}{% block title %}P: {{ title }}{% endblock %}'),
        "delete the template": lambda: (site.root / "templates/paper.html").unlink(),
        "add a static file": lambda: site.write("static/extra.css", "body { color: red }"),
        "edit a static file": lambda: site.write("static/extra.css", "body { color: blue }"),
        "delete a static file": lambda: (site.root / "static/extra.css").unlink(),
        "site.yaml: title and a topic": lambda: site.write("site.yaml", TWO_VENUES.replace(
            "title: Test Catalog", "title: Renamed Catalog").replace("name: Learning Theory", "name: Theory")),
        "site.yaml: base_url": lambda: site.write("site.yaml", TWO_VENUES.replace(
            "https://example.org/catalog/", "https://example.org/other/")),
    }
    assert_same_as_clean(rebuilder, site)
    for name, edit in steps.items():
        edit()
        assert_same_as_clean(rebuilder, site, name)


@pytest.mark.parametrize("broken, message", [
    ("content/icml-2024/alpha.md", "invalid YAML"),
    ("site.yaml", "site.yaml"),
    ("templates/paper.html", "template syntax error"),
])
def test_a_broken_edit_then_its_fix(project, broken, message):
    site = project
    rebuilder = Rebuilder(site.root / "site.yaml")
    good = rebuilder.rebuild().build
    path = site.root / broken
    before = path.read_text() if path.exists() else None
    site.write(broken, "---\ntitle: [unclosed\n---\n" if broken.endswith(".md") else
               "title: [unclosed\n" if broken.endswith(".yaml") else "{% block %}")
    outcome = rebuilder.rebuild()
    assert outcome.build is None and message in str(outcome.error)
    assert rebuilder.last is good
    if before is None:
        path.unlink()
    else:
        site.write(broken, before)
    assert_same_as_clean(rebuilder, site)


def test_a_random_walk_of_edits(project):
    """Seeded, so a failure replays; each step is any edit an author might make."""
    site, rng = project, random.Random(4)
    rebuilder = Rebuilder(site.root / "site.yaml")
    titles = ["Alpha", "Beta, a $\\beta$ study", "Gamma", "Delta Bounds", "Epsilon Greedy", "Zeta"]
    bodies = ["Generalization bounds.", "Diffusion *models* and $x_1$ bounds.", "Greedy exploration bounds."]
    for step in range(25):
        existing = sorted((site.root / "content").rglob("*.md"))
        action = rng.choice(["edit", "edit", "add", "delete", "rename", "template", "config"])
        if action == "edit" or (action in ("delete", "rename") and len(existing) < 2):
            target = rng.choice(existing)
            paper(site, target.stem, target.parent.name, id=f"id-{target.stem}", title=rng.choice(titles),
                  topics=rng.choice(["[learning-theory]", "[generative-models]", "[]"]), body=rng.choice(bodies))
        elif action == "add":
            paper(site, f"new-{step}", rng.choice(["icml-2024", "iclr-2024"]), id=f"id-new-{step}",
                  title=rng.choice(titles), body=rng.choice(bodies))
        elif action == "delete":
            rng.choice(existing).unlink()
        elif action == "rename":
            source = rng.choice(existing)
            os.replace(source, source.with_name(f"renamed-{step}.md"))
        elif action == "template":
            site.write("templates/paper.html", '{% extends "theme/paper.html" %}'
                       f'{{% block title %}}{step}: {{{{ title }}}}{{% endblock %}}')
        else:
            site.write("site.yaml", TWO_VENUES.replace("Test Catalog", f"Catalog {step}")
                       .replace("/catalog/", rng.choice(["/catalog/", "/other/", "/"])))
        assert_same_as_clean(rebuilder, site, f"step {step}: {action}")


SEED_SENTENCES = [s for f in sorted((Path(__file__).parent / "fixtures" / "seeds").glob("*.txt"))
                  for block in f.read_text(encoding="utf-8").split("\n\n")[1:] for s in block.split(". ") if s]


@pytest.mark.parametrize("override", [
    None,  # the theme: pages are reused while what they show is unchanged
    # reads the catalog: every paper page depends on every paper, so each is rendered every time
    '{% extends "theme/paper.html" %}{% block title %}{{ title }}, one of '
    '{{ catalog.venue_papers[paper.venue]|length }}{% endblock %}',
])
def test_a_random_walk_on_a_paginated_catalog(site, monkeypatch, override):
    """Enough papers for related lists, several listing pages and neighbours to move; any edit."""
    monkeypatch.setattr(pages, "PAGE_SIZE", 4)
    rng = random.Random(11)
    site.write("site.yaml", TWO_VENUES)
    if override:
        site.write("templates/paper.html", override)

    def body():
        return ". ".join(rng.sample(SEED_SENTENCES, 3)) + "."

    def write(name, venue):
        paper(site, name, venue, id=f"id-{name}", title=f"{rng.choice(['Alpha', 'Beta', 'Gamma'])} {name}",
              topics=rng.choice(["[learning-theory]", "[generative-models]", "[learning-theory, generative-models]"]),
              body=body())

    for index in range(24):
        write(f"p{index}", rng.choice(["icml-2024", "iclr-2024"]))
    rebuilder = Rebuilder(site.root / "site.yaml")
    assert_same_as_clean(rebuilder, site)
    for step in range(16):
        existing = sorted((site.root / "content").rglob("*.md"))
        target = rng.choice(existing)
        action = rng.choice(["title", "title", "body", "body", "add", "delete", "move"])
        if action in ("title", "body"):
            text = target.read_text()
            if action == "title":
                text = text.replace("title: ", f"title: Z{step} ", 1)  # moves it in the ordering
            else:
                text = text.rsplit("---\n", 1)[0] + "---\n" + body() + "\n"
            target.write_text(text)
        elif action == "add":
            write(f"new{step}", rng.choice(["icml-2024", "iclr-2024"]))
        elif action == "delete":
            target.unlink()
        else:
            other = "iclr-2024" if target.parent.name == "icml-2024" else "icml-2024"
            text = target.read_text().replace(f"venue: {target.parent.name}", f"venue: {other}")
            target.unlink()
            site.write(f"content/{other}/{target.name}", text)
        assert_same_as_clean(rebuilder, site, f"step {step}: {action}")


def test_watch_writes_equal_a_clean_build_and_a_no_change_rebuild_writes_nothing(project, tmp_path):
    site = project
    out = tmp_path / "watched"
    rebuilder = Rebuilder(site.root / "site.yaml", output=out)
    assert rebuilder.rebuild().changed > 0
    paper(site, "alpha", id="a", title="Alpha Changed", body="Generalization bounds for $x^2$ alpha.")
    first = rebuilder.rebuild()
    assert 0 < first.changed < len(first.build.files)  # only what depends on the edit

    clean_out = tmp_path / "clean"
    build_and_write(load_config(site.root / "site.yaml"), clean_out)
    assert tree(out) == tree(clean_out)

    before = stamps(out)
    again = rebuilder.rebuild()
    assert again.error is None and again.changed == 0
    assert stamps(out) == before  # same inodes, same mtimes: nothing was written


def test_second_write_of_the_same_build_writes_nothing(project, tmp_path):
    out = tmp_path / "out"
    build = clean_build(project)
    write_site(build.files, out)
    before = stamps(out)
    report = write_site(clean_build(project).files, out)
    assert (report.written, report.removed) == (0, 0)
    assert stamps(out) == before


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()} | {".": (folder.stat().st_ino, 0)}


PEOPLE_VENUES = TWO_VENUES + """\
  - slug: jmlr
    name: JMLR
    kind: journal
"""


def by(site, name, venue, authors, extra=""):
    """A paper with these authors (YAML flow list) and front matter lines."""
    return site.write(f"content/{venue}/{name}.md", f"---\nid: {name}\ntitle: {name.title()}\nauthors: {authors}\n"
                      f"venue: {venue}\n{extra}topics: [learning-theory]\n---\nAbout {name}.\n")


def test_author_edits(site):
    """Who wrote what moves author pages, slugs and the links to them on unchanged papers' pages."""
    site.write("site.yaml", PEOPLE_VENUES)
    by(site, "alpha", "icml-2024", "[Tim Rocktaschel, Diederik P. Kingma]")
    by(site, "beta", "iclr-2024", "[Ada Lovelace, Tim Rocktaschel]")
    by(site, "gamma", "jmlr", "[Wei Chen]", "year: 2021\n")
    rebuilder = Rebuilder(site.root / "site.yaml")
    steps = {
        "add an author": lambda: by(site, "beta", "iclr-2024", "[Ada Lovelace, Tim Rocktaschel, Grace Hopper]"),
        "an accented spelling becomes the name shown": lambda: by(
            site, "gamma", "jmlr", "[Wei Chen, Tim Rocktäschel]", "year: 2021\n"),
        "initials merge into the one full name": lambda: by(site, "delta", "jmlr", '["Kingma, D."]', "year: 2022\n"),
        "a second candidate undoes the merge": lambda: by(site, "epsilon", "jmlr", "[Durk Kingma]", "year: 2022\n"),
        "an ORCID splits one name into two people": lambda: by(
            site, "delta", "jmlr", '["Kingma, D.", {name: Wei Chen, orcid: 0000-0001-0000-0002}]', "year: 2022\n"),
        "details from front matter": lambda: by(
            site, "gamma", "jmlr", "[{name: Wei Chen, affiliation: Lab A}, Tim Rocktäschel]", "year: 2021\n"),
        "site.yaml merges two people": lambda: site.write("site.yaml", PEOPLE_VENUES + """\
authors:
  - name: Diederik P. Kingma
    aliases: [Durk Kingma, "Kingma, D."]
    url: https://example.org/dpk
"""),
        "a status": lambda: by(site, "alpha", "icml-2024", "[Tim Rocktaschel, Diederik P. Kingma]",
                               'status: "oral"\n'),
        "a title edit reorders an author's papers": lambda: site.write(
            "content/icml-2024/alpha.md", (site.root / "content/icml-2024/alpha.md").read_text().replace(
                "title: Alpha", "title: Zulu")),
        "a journal paper changes year": lambda: by(site, "gamma", "jmlr", "[Wei Chen, Tim Rocktäschel]",
                                                   "year: 2019\n"),
        "an author's last paper goes": lambda: (site.root / "content/jmlr/epsilon.md").unlink(),
        "everyone leaves a paper": lambda: by(site, "beta", "iclr-2024", "[]"),
    }
    assert_same_as_clean(rebuilder, site)
    for name, edit in steps.items():
        edit()
        assert_same_as_clean(rebuilder, site, name)


def test_a_citation_key_that_moves_reaches_the_pages_of_authors_whose_papers_stayed(site):
    """Two papers share a key's stem (first author, year, first word): suffixed a and b. Retitling
    one moves the other's key, whose co-author's page (its papers untouched) must list the new key."""
    site.write("site.yaml", PEOPLE_VENUES)
    rebuilder = Rebuilder(site.root / "site.yaml")

    def two(first_title: str) -> None:
        site.write("content/icml-2024/one.md", "---\nid: one\ntitle: " + first_title + "\nauthors: [Ada Lovelace]\n"
                   "venue: icml-2024\nyear: 2024\n---\nAbout one.\n")
        site.write("content/icml-2024/two.md", "---\nid: two\ntitle: Bounds for Two\nauthors: [Ada Lovelace, "
                   "Grace Hopper]\nvenue: icml-2024\nyear: 2024\n---\nAbout two.\n")

    def hopper_keys() -> str:
        page = rebuilder.last.files["authors/grace-hopper/index.html"].decode()
        return page.split('data-keys="', 1)[1].split('"', 1)[0]

    two("Bounds on One")
    assert_same_as_clean(rebuilder, site, "first")
    suffixed = hopper_keys()
    site.write("content/icml-2024/one.md", (site.root / "content/icml-2024/one.md").read_text().replace(
        "Bounds on One", "Kernels for One"))
    assert_same_as_clean(rebuilder, site, "retitled")
    assert hopper_keys() != suffixed and hopper_keys() == suffixed[:-1], (suffixed, hopper_keys())
