r"""MathML's `mathvariant` as Unicode's mathematical alphanumeric symbols.

MathML Core, which Chromium implements, honours `mathvariant` only as "normal"
on <mi>: `<mi mathvariant="script">N</mi>` is shown as an italic N. What it does
show is the styled letter itself, `<mi>𝒩</mi>`, from the block at U+1D400 and the
older letterlike symbols that fill its holes (ℬ ℰ ℱ ℋ ℐ ℒ ℳ ℛ ℂ ℍ ℕ ℙ ℚ ℝ ℤ ℭ ℌ ℑ ℜ ℨ ℎ ℯ ℊ ℴ),
which every browser shows.
"""

from __future__ import annotations

__all__ = ["MATH_VARIANTS", "styled"]

_LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Unicode's order of each styled Greek alphabet: ϴ after Ρ (where U+03A2 is a hole), ∇ after Ω,
# final ς before σ, then the variant letters.
_GREEK_ORDER = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡϴΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ"
_DIGITS = "0123456789"

# mathvariant -> first code point of its Latin, Greek and digit alphabets (None: Unicode has none).
_STARTS = {
    "bold": (0x1D400, 0x1D6A8, 0x1D7CE),
    "italic": (0x1D434, 0x1D6E2, None),
    "bold-italic": (0x1D468, 0x1D71C, None),
    "script": (0x1D49C, None, None),
    "bold-script": (0x1D4D0, None, None),
    "fraktur": (0x1D504, None, None),
    "double-struck": (0x1D538, None, 0x1D7D8),
    "bold-fraktur": (0x1D56C, None, None),
    "sans-serif": (0x1D5A0, None, 0x1D7E2),
    "bold-sans-serif": (0x1D5D4, 0x1D756, 0x1D7EC),
    "sans-serif-italic": (0x1D608, None, None),
    "sans-serif-bold-italic": (0x1D63C, 0x1D790, None),
    "monospace": (0x1D670, None, 0x1D7F6),
}

# The letters Unicode had already encoded as letterlike symbols: their places in
# the block are reserved, never assigned.
_EXCEPTIONS = {
    "italic": {"h": "ℎ"},
    "script": {"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ", "R": "ℛ",
               "e": "ℯ", "g": "ℊ", "o": "ℴ"},
    "fraktur": {"C": "ℭ", "H": "ℌ", "I": "ℑ", "R": "ℜ", "Z": "ℨ"},
    "double-struck": {"C": "ℂ", "H": "ℍ", "N": "ℕ", "P": "ℙ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"},
}

_TABLES: dict[str, dict[str, str]] = {}
for _variant, (_latin, _greek, _digits) in _STARTS.items():
    _table = {letter: chr(_latin + index) for index, letter in enumerate(_LATIN)}
    if _greek is not None:
        _table.update((letter, chr(_greek + index)) for index, letter in enumerate(_GREEK_ORDER))
    if _digits is not None:
        _table.update((digit, chr(_digits + index)) for index, digit in enumerate(_DIGITS))
    _table.update(_EXCEPTIONS.get(_variant, {}))
    _TABLES[_variant] = _table
_TABLES["italic"].update({"ı": "\U0001D6A4", "ȷ": "\U0001D6A5"})
del _variant, _latin, _greek, _digits, _table

# TeX's bold symbols keep capital Greek and \nabla upright (\boldsymbol{\Phi} is a bold
# upright Φ, \boldsymbol{\alpha} a bold italic α).
_UPRIGHT_IN_TEX = frozenset("ΑΒΓΔΕΖΗΘϴΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ∇")
for _letter in _UPRIGHT_IN_TEX:
    _TABLES["bold-italic"][_letter] = _TABLES["bold"][_letter]
    _TABLES["sans-serif-bold-italic"][_letter] = _TABLES["bold-sans-serif"][_letter]
del _letter

MATH_VARIANTS = frozenset(_TABLES)


def styled(text: str, variant: str) -> str | None:
    """`text` in the letters of `variant`, or None when one of its letters or digits has none.

    Characters that are neither (`+`, `'`) stay as they are: TeX's math alphabets change
    only letters and digits too.
    """
    table = _TABLES.get(variant)
    if table is None:
        return None
    out = []
    for char in text:
        mapped = table.get(char)
        if mapped is None and (char.isalpha() or char.isdigit()):
            return None
        out.append(mapped or char)
    return "".join(out)
