"""A printed page: black on white in either colour scheme, without controls, nothing cut off.

A printer leaves out backgrounds, so the dark scheme's light text came out light grey on white
paper, and the BibTeX entry, which scrolls sideways on screen, was cut at the margin.
"""
from __future__ import annotations

import pytest

from papersite import urls

INK = """() => {
  const rgb = s => s.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
  const luminance = el => { const [r, g, b] = rgb(getComputedStyle(el).color); return (r + g + b) / 765; };
  const pre = document.querySelector('.cite pre');
  return {
    text: Math.max(...['h1', '.abstract', '.authors', '.cite pre', '.related-list a']
      .map(s => document.querySelector(s)).filter(Boolean).map(luminance)),
    background: rgb(getComputedStyle(document.body).backgroundColor),
    bibtexCut: pre.scrollWidth > pre.clientWidth,
  };
}"""


@pytest.mark.parametrize("scheme,chosen", [("light", None), ("dark", None), ("light", "dark")],
                         ids=["light", "dark", "dark chosen"])
def test_a_printed_paper_page_is_black_on_white_without_controls(page, served_bundled, scheme, chosen):
    catalog = served_bundled.state.build.catalog
    paper = max(catalog.papers, key=lambda p: len(p.title))  # the longest BibTeX title line
    page.goto(served_bundled.url + urls.path_of(paper))
    if chosen:  # in the header's colour scheme picker
        page.select_option("#theme-choice", chosen)
    page.emulate_media(media="screen", color_scheme=scheme)
    on_screen = page.evaluate(INK)
    assert on_screen["bibtexCut"]  # on screen the entry scrolls: the case printing must handle
    page.emulate_media(media="print", color_scheme=scheme)
    printed = page.evaluate(INK)
    assert printed["text"] < 0.25 and printed["background"] == [255, 255, 255], printed
    assert not printed["bibtexCut"]
    for control in (".site-nav", ".site-search", "#theme-choice", "button.copy-button", "button.save-button", ".pager"):
        assert page.locator(control).first.is_hidden(), control
    assert page.is_visible("h1") and page.is_visible(".abstract") and page.is_visible(".cite pre")
    assert page.console_errors == []
