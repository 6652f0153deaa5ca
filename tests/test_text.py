"""The text toolkit (papersite/text.py); tests/test_search_parity.py checks `stem` against lunr.js itself."""
from papersite.text.words import STOP_WORDS, stem, suffix_stem


def test_stem_is_lunr_js_porter():
    assert [stem(w) for w in ("delayed", "key", "generalization", "policies", "transformers")] == \
        ["delay", "key", "gener", "polici", "transform"]


def test_suffix_stem_equates_plurals_and_simple_inflections():
    pairs = [("models", "model"), ("policies", "policy"), ("Images", "image"), ("learning", "learn"),
             ("trained", "train"), ("classes", "class"), ("graph's", "graph")]
    for a, b in pairs:
        assert suffix_stem(a) == suffix_stem(b), (a, b)
    assert suffix_stem("gas") == "gas" and suffix_stem("bus") == "bus"  # too short, or not a plural
    assert suffix_stem("diffusion") != suffix_stem("diffuse")  # light: no derivational suffixes


def test_stop_words_are_lunr_js_list():
    assert {"the", "and", "of", "is", "would"} <= STOP_WORDS
    assert not {"model", "learning", "paper", "novel"} & STOP_WORDS
    assert len(STOP_WORDS) == 119
