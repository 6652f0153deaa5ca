"""The preview's first look at an edit (papersite/first_look.py): the edited paper's own page,
rendered over the last build before the rebuild, and never a page for an edit it cannot show."""
from __future__ import annotations

import html5lib
import pytest

from papersite.preview.rebuild import Rebuilder
from papersite.preview.watch import ChangeSet

ONE = "content/icml-2024/one.md"


@pytest.fixture
def warm(site):
    site.paper("one", title="Original Title", body="Bandits explore arms and regret.")
    site.paper("two", id="p2", title="Another Paper", body="Bandits with regret bounds.")
    rebuilder = Rebuilder(site.root / "site.yaml")
    assert rebuilder.rebuild().error is None
    return site, rebuilder


def h1(files: dict, path: str) -> str:
    return "".join(html5lib.parse(files[path], namespaceHTMLElements=False).find(".//h1").itertext())


def test_a_title_edit_shows_on_its_page_first_and_the_rebuild_then_equals_a_fresh_build(warm):
    site, rebuilder = warm
    last = rebuilder.last
    site.paper("one", title="Edited <script>alert(1)</script> Title", body="Bandits explore arms and regret, $x^2$.")
    look = rebuilder.first_look(ChangeSet((ONE,)))
    assert look is not None and look.error is None
    assert look.paths == {"papers/one/index.html"} and look.changed == 1
    files = look.build.files
    assert h1(files, "papers/one/index.html") == "Edited <script>alert(1)</script> Title"
    assert b"<script>alert(1)" not in files["papers/one/index.html"]  # escaped, as in any build
    assert b"<math" in files["papers/one/index.html"]  # the new abstract, typeset
    # everything else is the last build's, the very same bytes: the rebuild brings the rest
    assert all(files[path] is last.files[path] for path in last.files if path != "papers/one/index.html")
    assert b"Edited" not in files["papers/index.html"]
    outcome = rebuilder.rebuild()
    assert outcome.error is None and b"Edited" in outcome.build.files["papers/index.html"]
    fresh = Rebuilder(site.root / "site.yaml").rebuild().build.files
    assert outcome.build.files == fresh  # the first look left nothing behind in the caches


@pytest.mark.parametrize("edit", [
    pytest.param(lambda site: site.paper("one", title="Original Title", topics="[generative-models]",
                                         body="Bandits explore arms and regret."), id="topics"),
    pytest.param(lambda site: site.write(ONE, site.root.joinpath(ONE).read_text().replace(
        "Ada Lovelace", "Grace Hopper")), id="authors"),
    pytest.param(lambda site: site.paper("one", title="Original Title", extra="date: 2024-07-21\n",
                                         body="Bandits explore arms and regret."), id="date"),
    pytest.param(lambda site: site.write(ONE, "---\nid: p1\ntitle: [unclosed\n---\nText.\n"), id="broken YAML"),
    pytest.param(lambda site: site.paper("one", title="Original Title", topics="[no-such-topic]"), id="bad topic"),
])
def test_an_edit_that_moves_the_paper_or_breaks_it_gets_no_first_look(warm, edit):
    site, rebuilder = warm
    edit(site)
    assert rebuilder.first_look(ChangeSet((ONE,))) is None


def test_new_deleted_and_non_content_files_get_no_first_look(warm):
    site, rebuilder = warm
    site.paper("three", id="p3", title="A New Paper")
    assert rebuilder.first_look(ChangeSet(("content/icml-2024/three.md",))) is None
    site.root.joinpath("content/icml-2024/two.md").unlink()
    assert rebuilder.first_look(ChangeSet(("content/icml-2024/two.md",))) is None
    site.paper("one", title="Edited Title")
    site.write("templates/paper.html", "{% extends 'theme/paper.html' %}")
    assert rebuilder.first_look(ChangeSet((ONE, "templates/paper.html"))) is None  # the template too
    assert rebuilder.first_look(ChangeSet((ONE,))) is not None  # the paper alone would have one


def test_no_first_look_after_site_yaml_changed_or_a_failed_build(warm):
    site, rebuilder = warm
    site.paper("one", title="Edited Title")
    site.write("site.yaml", site.root.joinpath("site.yaml").read_text().replace("title:", "title: Renamed", 1))
    assert rebuilder.first_look(ChangeSet((ONE,))) is None  # its stamp moved: the rebuild reads it first
    site.paper("one", title="Edited Title", topics="[no-such-topic]")
    assert rebuilder.rebuild().error is not None
    site.paper("one", title="Fixed Title")
    assert rebuilder.first_look(ChangeSet((ONE,))) is None  # the caches are a failed build's
    assert rebuilder.rebuild().error is None
    site.paper("one", title="Edited Again")
    look = rebuilder.first_look(ChangeSet((ONE,)))
    assert look is not None and h1(look.build.files, "papers/one/index.html") == "Edited Again"


def test_markdown_the_build_refuses_gets_no_first_look(warm):
    site, rebuilder = warm
    site.paper("one", title="Original Title", body="$" + "x" * 200_000 + "$")
    look = rebuilder.first_look(ChangeSet((ONE,)))
    outcome = rebuilder.rebuild()
    assert (look is None) == (outcome.error is not None)  # the first look refuses what the build refuses
