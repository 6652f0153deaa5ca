"""An abstract of one line of ordinary text is rendered without Markdown
(markdown_html._plain_paragraph): whenever it is, the HTML and text are Markdown's."""
from __future__ import annotations

import itertools

from hypothesis import example, given, settings
from hypothesis import strategies as st

from papersite.text import markdown_html

# What ordinary text holds, and what might make it other than one plain paragraph.
ORDINARY = list("aZ09 .,;:'\"()%/=#!?~^|{}@") + ["é", "ß", "—", "’", "\u0301", "😀", "\u3000", "\xa0", "\u200b"]
MARKUP = list("\\`*_[]<>&$-+\n\t\r") + ["1. ", "2) ", "- ", "* ", "+ ", "---", "===", "  \n", "\n\n", "\x00", "\x85",
                                       "\u2028", "\ufeff", "&amp;", "$x$", "\\(x\\)", "<a@b.org>", "http://x.org"]
WORDS = ["We propose", "a method", "3D", "1.5", "(i)", "state-of-the-art", "x", "  "]
TEXT = st.lists(st.sampled_from(WORDS * 3 + ORDINARY * 2 + MARKUP), max_size=12).map("".join)


def agrees(text: str) -> bool:
    """False when the plain path does not apply; raises when it applies and differs."""
    plain = markdown_html._plain_paragraph(text)
    if plain is None:
        return False
    assert plain == markdown_html._render_with_markdown(text), repr(text)
    return True


@settings(max_examples=300, deadline=None)
@example(text="# Not a heading")
@example(text="1) a")
@example(text="1) " * 40 + "a")  # past the nesting limit: an error, from Markdown's path
@example(text="12. a")
@example(text="- a")
@example(text="+ a")
@example(text="a -- b")
@example(text="a > b")
@example(text="\xa0a")
@example(text="a\u2028b")
@given(text=TEXT)
def test_plain_paragraph_is_markdowns(text):
    agrees(text)


def test_short_texts_exhaustively():
    """Every text of up to four characters of these: list markers, numbers, spaces, rules."""
    alphabet = ["a", "1", " ", ".", ")", "-", "+", "#", "=", "é", "\xa0"]
    taken = sum(agrees("".join(chars)) for size in range(1, 5) for chars in itertools.product(alphabet, repeat=size))
    assert taken > 1000  # the plain path is in fact tried


def test_an_ordinary_abstract_takes_the_plain_path():
    text = ("We propose a simple modification of the min-max (MM) network: it's 2x faster, \"monotone\" "
            "and 95% as accurate; see Theorem 1. Code: https://example.org/code?x=1#top — état de l’art.")
    assert agrees(text)


def test_a_plain_abstract_shares_its_text_with_its_paper_even_rendered_by_a_worker(monkeypatch):
    """The rendered text of a one-line abstract is its source: the catalog keeps one string for
    both, not a copy a worker sent back (tens of megabytes at 50,000 papers)."""
    from papersite import parallel
    from papersite.catalog import Catalog
    from papersite.source.content import load_papers
    from papersite.text.abstracts import render_abstracts
    from tests.conftest import TinySite
    import tempfile
    from pathlib import Path

    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    with tempfile.TemporaryDirectory() as folder:
        site = TinySite(Path(folder) / "site")
        site.paper("plain", id="plain", title="Plain", body="We propose a method that works.")
        site.paper("short", id="short", title="Short", body="Short.")
        site.paper("marked", id="marked", title="Marked", body="We propose *a method*.")
        catalog = Catalog.build(load_papers(site.config), site.config)
        abstracts = render_abstracts(catalog, {})
    by_id = {p.id: p for p in catalog.papers}
    assert abstracts["plain"].text is by_id["plain"].abstract
    assert abstracts["short"].text is by_id["short"].abstract is abstracts["short"].snippet
    assert abstracts["marked"].text == "We propose a method." and abstracts["plain"].html == "<p>We propose a method that works.</p>"
