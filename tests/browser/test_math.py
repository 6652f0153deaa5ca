r"""Formulas in Chromium's MathML layout: thin spaces where TeX puts them around named operators;
the glyphs TeX means (𝒩 for \mathcal{N}, a bold Φ), text inside formulas in the face of the text
around it, and formulas at the size and weight of that text."""
from __future__ import annotations

from papersite.pipeline import build_site
from tests.browser.pixels import ink, ink_distance
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


# --- glyphs, faces, sizes: each formula's pixels against the same glyphs as plain text -------------
#
# Each formula is compared with a rendering of what it should look like (plain text: the
# glyphs in the formula's own font, or the words as HTML in the paragraph's face) and of what
# it looked like before (letters left to mathvariant, which Chromium ignores, so 𝑁 for 𝒩;
# text mode in the math font, upright; TeX shown as code). The distance between those two
# renderings says the comparison can tell them apart with this machine's fonts.
# (TeX, the glyphs it means, the glyphs it showed)
GLYPHS = [
    (r"\mathcal{NP}", "𝒩𝒫", "𝑁𝑃"),
    (r"\mathbb{R}", "ℝ", "𝑅"),
    (r"\mathfrak{g}", "𝔤", "𝑔"),
    (r"\mathscr{L}", "ℒ", "𝐿"),
    (r"\boldsymbol{\Phi}", "𝚽", "𝛷"),
    (r"\bf{\Phi}", "𝚽", "𝛷"),
    (r"\boldsymbol{\alpha}", "𝜶", "𝛼"),
    (r"\Delta", "Δ", "𝛥"),
]
# (TeX, the HTML element its words look like in the paragraph, the words, the TeX if it was code)
TEXTS = [
    (r"\textit{irreducibility assumption}", "em", "irreducibility assumption", None),
    (r"\text{aL\small{LM}4T\small{S}}", "span", "aLLM4TS", r"$\text{aL\small{LM}4T\small{S}}$"),
    (r"\textbf{Bold}", "strong", "Bold", None),
]
# (TeX, a part of the formula, the look of that part, its wrong look); a look is
# [element, text, in the formula's font, font weight].
PARTS = [
    (r"s \log p", "mi:nth-of-type(2)", ["span", "log", True, None], ["span", "𝑙𝑜𝑔", True, None]),
    (r"\textit{$\underline{G}$raph}", "mtext", ["em", "raph", False, None], ["span", "raph", True, None]),
    (r"\sum_{i=1}^{n} x_i", "mo", ["span", "∑", True, None], ["span", "∑", False, None]),
]
LAYOUT = [r"\frac{a}{b}", r"x_i^2"]

# The clip of a screenshot of the index-th element `selector` (or of its part), with room
# for ink beyond its box: 0.3 em, or none to the sides of a part, whose neighbours are near.
SHOT = """([selector, index, part, padX]) => {
  let el = document.querySelectorAll(selector)[index];
  if (part) el = el.querySelector(part);
  el.scrollIntoView({block: 'center'});
  const box = el.getBoundingClientRect(), em = parseFloat(getComputedStyle(el).fontSize);
  const x = padX ? 0.3 * em : 0, y = 0.3 * em;
  return {x: box.left - x, y: box.top - y, width: box.width + 2 * x, height: box.height + 2 * y};
}"""

# A block like the one of formula `index` in `container`, after it, holding a look; returns its selector.
LOOK = """([container, index, tag, text, mathFont, weight]) => {
  const math = document.querySelectorAll(container + ' math')[index];
  const block = math.closest('p, h1');
  const copy = block.cloneNode(false);
  copy.removeAttribute('id');
  const el = document.createElement(tag);
  el.textContent = text;
  el.dataset.look = document.querySelectorAll('[data-look]').length;
  if (mathFont) {
    const style = getComputedStyle(math);
    el.style.fontFamily = style.fontFamily;
    el.style.fontSize = style.fontSize;
    el.style.fontStyle = 'normal';
  }
  if (weight) el.style.fontWeight = weight;
  copy.append(el);
  block.after(copy);
  return `[data-look="${el.dataset.look}"]`;
}"""


def test_formulas_look_like_the_glyphs_tex_means(tmp_path, browser, serve_build):
    site = TinySite(tmp_path / "site")
    formulas = [tex for tex, *_ in GLYPHS + TEXTS + PARTS]
    site.paper("glyphs", title=r"Hardness of $\mathcal{NP}$ sets", body="\n\n".join(f"${tex}$" for tex in formulas))
    served = serve_build(build_site(site.config))
    context = browser.new_context(viewport={"width": 1000, "height": 800}, device_scale_factor=2)
    page = context.new_page()
    page.goto(served.url + "papers/glyphs/")
    assert page.locator(".abstract code.tex").count() == 0  # every formula typeset
    assert page.locator(".abstract math").count() == len(formulas)

    def shot(selector, index=0, part=None, pad_x=True):
        return ink(page.screenshot(clip=page.evaluate(SHOT, [selector, index, part, pad_x])))

    def compare(container, index, right, wrong, part=None):
        """The formula's distances from the right look and from the wrong one, and theirs."""
        shown = shot(f"{container} math", index, part, pad_x=not part)
        right = shot(page.evaluate(LOOK, [container, index, *right]), pad_x=not part)
        wrong = shot(page.evaluate(LOOK, [container, index, *wrong]), pad_x=not part)
        return ink_distance(shown, right), ink_distance(shown, wrong), ink_distance(right, wrong)

    results = {}
    for index, (tex, glyphs, wrong) in enumerate(GLYPHS):
        results[tex] = compare(".abstract", index, ["span", glyphs, True, None], ["span", wrong, True, None])
    for index, (tex, tag, words, source) in enumerate(TEXTS, len(GLYPHS)):
        wrong = ["code", source, False, None] if source else ["span", words, True, None]
        results[tex] = compare(".abstract", index, [tag, words, False, None], wrong)
    for index, (tex, part, right, wrong) in enumerate(PARTS, len(GLYPHS + TEXTS)):
        results[tex] = compare(".abstract", index, right, wrong, part)
    # Math in a (bold) title is bold.
    results["title"] = compare("h1", 0, ["span", "𝒩𝒫", True, "bold"], ["span", "𝒩𝒫", True, "normal"])
    for tex, (right, wrong, apart) in results.items():
        # Placement a fraction of a pixel apart changes a little of the ink; other glyphs, most of it.
        assert apart > 0.4, f"{tex}: its right and wrong looks are alike with these fonts ({apart:.2f})"
        assert right < 0.25 and wrong > 0.4, f"{tex}: {right:.2f} from its right look, {wrong:.2f} from the wrong one"
    context.close()


SIZES = """() => {
  const size = el => parseFloat(getComputedStyle(el).fontSize);
  const box = el => el.getBoundingClientRect();
  const [frac, scripts] = [...document.querySelectorAll('.abstract math')];
  const [num, den] = [...frac.querySelector('mfrac').children].map(box);
  const [base, sub, sup] = [...scripts.querySelector('msubsup').children];
  const h1 = document.querySelector('h1'), title = h1.querySelector('math');
  const p = frac.closest('p'), mtext = h1.querySelector('mtext');
  return {paragraph: size(p), formula: size(frac), numerator: num, denominator: den,
          base: box(base), sub: box(sub), sup: box(sup), scriptSize: size(sub),
          h1: [size(h1), getComputedStyle(h1).fontWeight, getComputedStyle(h1).fontFamily],
          title: [size(title), getComputedStyle(title).fontWeight, getComputedStyle(mtext).fontFamily]};
}"""


def test_formulas_take_the_size_and_weight_of_their_text(tmp_path, page, serve_build):
    site = TinySite(tmp_path / "site")
    site.paper("sizes", title=r"On $\text{Bold}$ $x$", body="\n\n".join(f"${tex}$" for tex in LAYOUT))
    page.goto(serve_build(build_site(site.config)).url + "papers/sizes/")
    got = page.evaluate(SIZES)
    assert got["formula"] == got["paragraph"]  # not larger than the text around it
    assert got["title"] == got["h1"]  # the title's size, weight, and face for its words
    num, den = got["numerator"], got["denominator"]
    assert num["bottom"] <= den["top"] and abs((num["left"] + num["right"]) - (den["left"] + den["right"])) < 2
    base, sub, sup = got["base"], got["sub"], got["sup"]
    assert sub["left"] >= base["right"] - 1 and sup["left"] >= base["right"] - 1  # beside x, not under it
    assert sup["top"] < base["top"] and sub["bottom"] > base["bottom"] and sup["bottom"] <= sub["top"] + 1
    assert got["scriptSize"] < got["formula"]
    assert page.console_errors == []
