"""Author pages, year pages and the all-papers listing list each paper compactly, as DBLP and
Scholar profiles do: its title linked, its byline, its venue and year (where the page does not
already say them), and no abstract snippet or topics. Venue and topic listings keep snippets."""
from __future__ import annotations

import html5lib
import pytest

from tests.conftest import MINIMAL_CONFIG, TinySite, paper_text

ABSTRACTS = {"p1": "Kernels generalize under a margin condition we state.",
             "p2": "Diffusion samplers need fewer steps than believed."}


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    site = TinySite(tmp_path_factory.mktemp("compact"))
    site.write("site.yaml", MINIMAL_CONFIG + "  - slug: jmlr\n    name: JMLR\n    year: 2023\n")
    site.write("content/icml-2024/p1.md", paper_text(id="p1", title="Kernel Margins", body=ABSTRACTS["p1"]))
    site.write("content/jmlr/p2.md", paper_text(id="p2", title="Fast Samplers", venue="jmlr",
                                                topics="[generative-models]", body=ABSTRACTS["p2"])
               .replace("year: 2024", "year: 2023").replace("[Ada Lovelace]", "[Ada Lovelace, Alan Turing]"))
    site.build()
    return site.root / "_site"


def entries(out, page: str) -> list[tuple[str, str, str]]:
    """(title, href, rest of the entry's text) of each paper in the page's lists."""
    document = html5lib.parse((out / page).read_bytes(), namespaceHTMLElements=False)
    found = []
    for item in document.iter("li"):
        link = item.find("a")
        if link is not None and "/papers/p" in link.get("href", ""):
            whole = " ".join("".join(item.itertext()).split())
            title = "".join(link.itertext())
            found.append((title, link.get("href"), whole[len(title):].strip()))
    return found


def test_the_all_papers_listing_shows_title_byline_venue_and_year(out):
    assert entries(out, "papers/index.html") == [
        ("Kernel Margins", "/catalog/papers/p1/", "Ada Lovelace · ICML 2024"),  # the year is in the name
        ("Fast Samplers", "/catalog/papers/p2/", "Ada Lovelace, Alan Turing · JMLR · 2023"),
    ]


def test_an_author_page_gives_the_venue_under_its_year_headings(out):
    assert entries(out, "authors/alan-turing/index.html") == [
        ("Fast Samplers", "/catalog/papers/p2/", "Ada Lovelace, Alan Turing · JMLR")]
    page = (out / "authors/ada-lovelace/index.html").read_text(encoding="utf-8")
    assert '<h2 id="year-2024">2024</h2>' in page and '<h2 id="year-2023">2023</h2>' in page


def test_a_year_page_gives_the_byline_under_its_venue_headings(out):
    assert entries(out, "years/2023/index.html") == [("Fast Samplers", "/catalog/papers/p2/", "Ada Lovelace, Alan Turing")]


@pytest.mark.parametrize("page", ["papers/index.html", "authors/ada-lovelace/index.html", "years/2024/index.html"])
def test_compact_listings_carry_no_snippet_or_topics(out, page):
    text = (out / page).read_text(encoding="utf-8")
    assert not any(abstract[:30] in text for abstract in ABSTRACTS.values())
    assert "Learning Theory</span>" not in text and 'class="tag"' not in text


def test_venue_and_topic_listings_keep_their_snippets(out):
    assert ABSTRACTS["p1"] in (out / "venues/icml-2024/index.html").read_text(encoding="utf-8")
    assert ABSTRACTS["p2"] in (out / "topics/generative-models/index.html").read_text(encoding="utf-8")
