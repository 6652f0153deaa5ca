"""Named TeX operators in Chromium's MathML layout: visible thin spaces where TeX puts them."""
from __future__ import annotations

from papersite.pipeline import build_site
from tests.conftest import TinySite

# Gaps between the glyph boxes of a formula's top-level children, in em of the formula's font.
GAPS = """id => {
  const math = document.querySelectorAll('.abstract math, article math, main math')[id];
  const em = parseFloat(getComputedStyle(math).fontSize);
  const boxes = [...math.firstElementChild.children].filter(el => el.localName !== 'mspace')
    .map(el => el.getBoundingClientRect());
  return {texts: [...math.firstElementChild.children].filter(el => el.localName !== 'mspace').map(el => el.textContent),
          gaps: boxes.slice(1).map((box, i) => (box.left - boxes[i].right) / em)};
}"""


def test_named_operators_have_visible_space_in_chromium(tmp_path, page, serve_build):
    site = TinySite(tmp_path / "site")
    site.paper("math", body=r"Entropy $s\log p$, glued $slogp$, $\arg\min_\beta f$ and $\sin(x)$.")
    served = serve_build(build_site(site.config))
    page.goto(served.url + "papers/math/")
    spaced, glued, argmin, sine = (page.evaluate(GAPS, i) for i in range(4))
    assert spaced["texts"] == ["s", "log", "p"]
    # TeX's thin space is 3/18 em; letters in one <mi> row touch (within glyph side bearings).
    assert all(gap > 0.12 for gap in spaced["gaps"]), spaced
    assert all(gap < 0.08 for gap in glued["gaps"]), glued
    assert spaced["gaps"][0] - glued["gaps"][0] > 0.1, (spaced, glued)
    assert argmin["texts"][:2] == ["arg", "minβ"] and all(gap > 0.12 for gap in argmin["gaps"]), argmin
    assert sine["texts"][:2] == ["sin", "("] and sine["gaps"][0] < 0.08, sine  # no space before "("
    assert page.console_errors == []
