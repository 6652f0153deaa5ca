"""Lab and personal sites: site.yaml's `people: members:` highlighted in every author list, and
papers marked `selected: true` on the home page and in listings; read back from a built site."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import build
from tests.htmlcheck import parse

SITE = """\
title: Lovelace Lab
base_url: https://example.org/lab/
topics:
  - {slug: learning-theory, name: Learning Theory}
venues:
  - {slug: icml-2023, name: ICML 2023, year: 2023}
  - {slug: icml-2024, name: ICML 2024, year: 2024}
people:
  members:
    - Ada Lovelace
    - "O'Brien <Lab>"
    - Grace Hoper
"""
MEMBERS_LINE = 12  # of `- Grace Hoper`, the member who wrote nothing (a misspelling)

PAPERS = {
    # name: (venue, authors, selected)
    "counting-engines": ("icml-2024", '["Lovelace, Ada", Alan Turing]', True),
    "compilers": ("icml-2024", "[Grace Hopper, Alan Turing]", False),
    "bold-claims": ("icml-2023", "[\"O'Brien <Lab>\", Grace Hopper]", True),
    "other-work": ("icml-2023", "[Alan Turing]", False),
}


def write_site(root: Path) -> Path:
    (root / "site.yaml").parent.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(SITE, encoding="utf-8")
    for index, (name, (venue, authors, selected)) in enumerate(PAPERS.items()):
        folder = root / "content" / venue
        folder.mkdir(parents=True, exist_ok=True)
        title = "<script>alert(1)</script> Bold claims" if name == "bold-claims" else name.replace("-", " ").title()
        (folder / f"{name}.md").write_text(
            f"---\nid: p{index}\ntitle: {title!r}\nauthors: {authors}\nvenue: {venue}\n"
            f"topics: [learning-theory]\n{'selected: true' + chr(10) if selected else ''}---\n"
            f"An abstract about {name}.\n", encoding="utf-8")
    return root


class Marks(HTMLParser):
    """The names marked as members (<a class="member">), the badges, and each paper item's title."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.members: list[str] = []
        self.badges = 0
        self.selected_section: list[str] = []  # titles' links under "Selected papers"
        self._in: str | None = None
        self._section = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "member" in (attrs.get("class") or "").split():
            self._in = "member"
            self.members.append("")
        if tag == "span" and attrs.get("class") == "selected-badge":
            self.badges += 1
        if tag == "ol" and "selected-papers" in (attrs.get("class") or ""):
            self._section = True
        if self._section and tag == "a" and attrs.get("href", "").startswith("/lab/papers/"):
            self.selected_section.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "a":
            self._in = None
        if tag == "ol":
            self._section = False

    def handle_data(self, data):
        if self._in == "member":
            self.members[-1] += data


def marks(path: Path) -> Marks:
    parser = Marks()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = write_site(tmp_path_factory.mktemp("lab"))
    result = CliRunner().invoke(build.cli, ["build", "--config", str(root / "site.yaml"), "-o", str(root / "_site")])
    return root, root / "_site", result


def test_a_member_who_wrote_nothing_is_a_warning_naming_the_line(built):
    root, _, result = built
    assert result.exit_code == 0, result.output
    expected = (f"warning: {root / 'site.yaml'}:{MEMBERS_LINE}: people: members: 'Grace Hoper' wrote no paper "
                "in the catalog (did you mean 'Grace Hopper'?)")
    assert expected in result.output.splitlines()
    assert result.output.count("people: members:") == 1  # Ada (as "Lovelace, Ada") and O'Brien were found


def test_members_are_highlighted_in_every_author_list(built):
    _, out, _ = built
    pages = {
        "paper": out / "papers" / "counting-engines" / "index.html",
        "paper of a member with markup in the name": out / "papers" / "bold-claims" / "index.html",
        "all papers": out / "papers" / "index.html",
        "venue": out / "venues" / "icml-2024" / "index.html",
        "topic": out / "topics" / "learning-theory" / "index.html",
        "year": out / "years" / "2024" / "index.html",
        "author": out / "authors" / "alan-turing" / "index.html",
    }
    shown = {kind: sorted(marks(path).members) for kind, path in pages.items()}
    assert shown == {
        "paper": ["Lovelace, Ada"],  # the name as the paper writes it, marked as the member it is
        "paper of a member with markup in the name": ["O'Brien <Lab>"],
        "all papers": ["Lovelace, Ada", "O'Brien <Lab>"],
        "venue": ["Lovelace, Ada"],
        "topic": ["Lovelace, Ada", "O'Brien <Lab>"],
        "year": ["Lovelace, Ada"],
        "author": ["Lovelace, Ada"],
    }
    html = (out / "papers" / "bold-claims" / "index.html").read_text(encoding="utf-8")
    assert "O&#39;Brien &lt;Lab&gt;</a>" in html and "<Lab>" not in html and "<script>alert" not in html
    # a member's link still leads to their page
    assert "/lab/authors/ada-lovelace/" in parse(pages["paper"]).links


def test_selected_papers_lead_the_home_page_and_are_marked_in_listings(built):
    _, out, _ = built
    home = marks(out / "index.html")
    assert home.selected_section == ["/lab/papers/counting-engines/", "/lab/papers/bold-claims/"]  # catalog order
    assert home.badges == 2 and sorted(home.members) == ["Lovelace, Ada", "O'Brien <Lab>"]
    assert "<h2 id=\"selected-heading\">Selected papers</h2>" in (out / "index.html").read_text(encoding="utf-8")
    for listing, count in (("papers", 2), ("venues/icml-2024", 1), ("venues/icml-2023", 1),
                           ("topics/learning-theory", 2), ("authors/grace-hopper", 1)):
        assert marks(out / listing / "index.html").badges == count, listing
    assert marks(out / "papers" / "counting-engines" / "index.html").badges == 1
    assert marks(out / "papers" / "compilers" / "index.html").badges == 0


def test_a_site_without_members_or_selected_papers_shows_neither(site):
    site.paper("p1", id="p1")
    built, _ = site.build()
    home = built.files["index.html"].decode()
    assert "Selected papers" not in home and 'class="member"' not in built.files["papers/p1/index.html"].decode()


@pytest.mark.parametrize("people, message", [
    ("people: [Ada Lovelace]\n", "'people' must be a mapping of keys to values, not a list"),
    ("people:\n  members: Ada Lovelace\n", "people: 'members' must be a list of names, e.g. [Ada Lovelace]"),
    ("people:\n  member: [Ada Lovelace]\n", "unknown key 'member'"),
    ("people:\n  members: [Ada Lovelace, Ada Lovelace]\n", "people: members: 'Ada Lovelace' is listed twice"),
    ("people:\n  members: [3]\n", "people: members: each entry must be a name, not 3"),
])
def test_a_bad_people_entry_stops_the_build_naming_its_line(site, people, message):
    config = (site.root / "site.yaml").read_text(encoding="utf-8")
    site.write("site.yaml", config + people)
    site.paper("p1", id="p1")
    result = CliRunner().invoke(build.cli, ["build", "--config", str(site.root / "site.yaml")])
    assert result.exit_code == 1
    line = len(config.splitlines()) + (1 if people.startswith("people: [") else 2)
    assert f"site.yaml:{line}: {message}" in result.output, result.output
    assert not (site.root / "_site").exists()


def test_selected_must_be_true_or_false(site):
    site.paper("p1", id="p1", extra="selected: yes please\n")
    result = CliRunner().invoke(build.cli, ["build", "--config", str(site.root / "site.yaml")])
    assert result.exit_code == 1 and "p1.md:8: 'selected' must be true or false" in result.output, result.output
