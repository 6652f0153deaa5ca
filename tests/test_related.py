"""Related papers: deterministic, and an updated index always equals a fresh computation."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from papersite import parallel
from papersite.catalog import related
from papersite.catalog.related import RelatedIndex, find_related

SEEDS = sorted((Path(__file__).parent / "fixtures" / "seeds").glob("*.txt"))
ABSTRACTS = [a for f in SEEDS for a in f.read_text(encoding="utf-8").split("\n\n")[1:] if a.strip()]


def corpus(rng: random.Random, size: int) -> dict[str, str]:
    """Texts mixing the seed abstracts' sentences, so papers share terms unevenly."""
    sentences = [s for a in ABSTRACTS for s in a.split(". ") if s]
    return {f"p{i:04d}": ". ".join(rng.sample(sentences, rng.randint(2, 6))) for i in range(size)}


def edit(rng: random.Random, text: str, words: list[str]) -> str:
    tokens = text.split()
    for _ in range(rng.randint(1, 4)):
        action = rng.random()
        if action < 0.4 and len(tokens) > 3:
            del tokens[rng.randrange(len(tokens))]
        elif action < 0.8:
            tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(words))
        else:
            tokens.append(f"brandnewterm{rng.randrange(5)}")  # a term few papers share
    return " ".join(tokens)


TEXTS = {
    "diffusion-a": "Diffusion models generate images by denoising; we speed up diffusion sampling.",
    "diffusion-b": "A faster sampler for diffusion models: fewer denoising steps for image generation.",
    "diffusion-c": "Guidance for diffusion models in text-to-image generation.",
    "rl-a": "Reinforcement learning agents explore with intrinsic rewards in sparse reward tasks.",
    "rl-b": "Exploration bonuses and intrinsic rewards for reinforcement learning agents.",
    "theory": "Generalization bounds for overparameterized networks via sample complexity.",
}


def test_related_papers_are_the_similar_ones():
    related = find_related(TEXTS, count=2)
    assert set(related["diffusion-a"]) == {"diffusion-b", "diffusion-c"}
    assert related["rl-a"][0] == "rl-b" and related["rl-b"][0] == "rl-a"
    assert all(pid not in others for pid, others in related.items())
    assert all(len(others) <= 2 for others in related.values())


def test_related_is_deterministic_and_order_free():
    forward = find_related(TEXTS)
    backward = find_related(dict(reversed(list(TEXTS.items()))))
    assert forward == backward


def test_related_papers_of_the_seeds_are_plausible():
    texts = {f"s{i:03d}": text for i, text in enumerate(ABSTRACTS)}
    related = find_related(texts)
    assert set(related) == set(texts)
    assert all(pid not in others and len(others) <= 5 for pid, others in related.items())
    assert sum(len(others) for others in related.values()) > 3 * len(texts)
    assert find_related(dict(reversed(list(texts.items())))) == related  # input order does not matter


@pytest.mark.parametrize("at_once", [64, 2])
def test_updates_after_edits_equal_a_fresh_computation(monkeypatch, at_once):
    # at_once: how many changed vectors an edit scores together (two: an edit's are scored in several blocks)
    monkeypatch.setattr("papersite.catalog.related.SCORED_AT_ONCE", at_once)
    rng = random.Random(7)
    texts = corpus(rng, 200)
    words = sorted({w for t in texts.values() for w in t.split()})
    index = RelatedIndex(restart=1.0)  # always update in place, never start over
    assert index.update(parts(texts)) == find_related(texts)
    for step in range(30):
        for pid in rng.sample(sorted(texts), rng.choice([1, 1, 1, 2, 5])):
            texts[pid] = edit(rng, texts[pid], words)
        assert index.update(parts(texts)) == find_related(texts), f"step {step}"
        fresh = RelatedIndex()
        fresh.update(parts(texts))
        assert index.best == fresh.best and by_word(index) == by_word(fresh), f"step {step}"


def test_an_edit_reranks_every_list_holding_the_paper_also_lists_it_joined_by_an_edit():
    """The lists an edited paper is in are ranked again, lists it entered by an earlier edit
    too, even when it shares no top term with them any more. Here "r" joins "p"'s list
    through the one word they share, then pushes that word out of its top terms with more
    words of its own: p's words and their weights stay as they were."""
    fillers = [f"filler{i}" for i in range(related.TERMS_PER_PAPER + 5)]
    texts = {"p": "alphaword zetaword", "q": " ".join(fillers), "r": " ".join(fillers[:5]),
             "s": "gammaword epsilonword", "t": "alphaword gammaword epsilonword"}
    index = RelatedIndex(count=1, restart=1.0)
    index.update(parts(texts))
    texts["s"] += " epsilonword"
    index.update(parts(texts))  # edits begin
    texts["r"] += " alphaword" * 10
    joined = index.update(parts(texts))
    assert joined == find_related(texts, count=1) and joined["p"] == ["r"]
    texts["r"] = " ".join(fillers * 3) + " alphaword"
    left = index.update(parts(texts))
    assert left == find_related(texts, count=1) and left["p"] == ["t"]


def test_an_edit_that_adds_a_common_word_gives_few_papers_a_new_vector():
    """Adding a word that hundreds of papers hold among their top terms moves its document
    frequency by one: rounded, its IDF stays, and so do their vectors and lists, and the
    update still equals a fresh computation. (Exact frequencies gave each of them a new vector.)"""
    rng = random.Random(5)
    texts = {f"p{i:04d}": f"commonword {' '.join(rng.sample(WORDS, 6))}" for i in range(400)}
    texts.update({f"q{i:04d}": " ".join(rng.sample(WORDS, 6)) for i in range(200)})
    index = RelatedIndex(restart=1.0)
    index.update(parts(texts))
    index.prepare_for_edits()
    before = list(index.vectors)
    common = index.vocabulary[next(iter(related.term_counts("commonword")))]
    holding = sum(common in vector for vector, _ in before)
    for number in range(5):
        texts[f"q{number:04d}"] += " commonword"
        assert index.update(parts(texts)) == find_related(texts), number
    renewed = sum(new is not old for new, old in zip(index.vectors, before))
    assert holding >= 300 and renewed <= 5 + holding // 10



def test_an_edit_that_moves_a_common_word_s_weight_ranks_again_every_list_it_reaches(monkeypatch):
    """When a common word's rounded IDF moves, dozens of papers get a new vector at once, scored a
    few at a time: every list one of their new scores enters is ranked again, as a fresh
    computation ranks it."""
    monkeypatch.setattr("papersite.catalog.related.SCORED_AT_ONCE", 3)
    rng = random.Random(11)
    texts = corpus(rng, 500)
    index = RelatedIndex(restart=1.0)
    index.update(parts(texts))
    renewed = 0
    for number in range(30):
        before = list(index.vectors)
        for pid in rng.sample(sorted(texts), 3):  # words a few dozen of the papers hold
            texts[pid] += " " + rng.choice(["gradient", "information", "accuracy", "exploration", "network"])
        assert index.update(parts(texts)) == find_related(texts), number
        renewed = max(renewed, sum(new is not old for new, old in zip(index.vectors, before)))
    assert renewed >= 20  # some edit moved a common word's weight in many papers at once

WORDS = [f"{a}{b}" for a in ("alpha", "beta", "gamma", "delta", "kappa") for b in ("red", "green", "blue", "grey")]


def test_adding_and_removing_papers_starts_over():
    rng = random.Random(3)
    texts = corpus(rng, 80)
    index = RelatedIndex(restart=1.0)
    index.update(parts(texts))
    texts["p9999"] = texts["p0001"] + " extra words"
    assert index.update(parts(texts)) == find_related(texts)
    del texts["p0002"]
    assert index.update(parts(texts)) == find_related(texts)


def test_a_build_scores_as_an_edit_does():
    """A build scores in numpy blocks, an edit in Python dicts: the same integers, the
    same lists, ties (copies of a text) to the lowest number, at any block size."""
    rng = random.Random(11)
    texts = corpus(rng, 120)
    texts.update({f"q{i:04d}": texts["p0007"] for i in range(8)})  # eight ties for p0007's lists
    index = RelatedIndex()
    index.update(parts(texts))
    for paper in range(len(index.ids)):
        vector, floor = index._vector_of(paper)
        assert (vector, floor) == (index.vectors[paper], index.floors[paper])
        assert index._best_of(index._scores(paper)) == index.ranked(paper)
    assert index.related["p0007"] == ["q0000", "q0001", "q0002", "q0003", "q0004"]
    small_blocks = related._BlockScorer(index.vectors, index.count)
    assert [b for block in small_blocks.blocks(cells=7 * len(index.ids)) for b in small_blocks.best(block)] \
        == index.best


def test_vectors_made_a_block_of_papers_at_a_time_are_each_paper_s_own(monkeypatch):
    """A build makes its vectors VECTOR_BLOCK papers at a time (every paper's temporaries at once
    took ~250 MB at 50,000 papers): at any block size, each is the vector an edit makes alone."""
    texts = corpus(random.Random(5), 60)
    whole = RelatedIndex()
    whole.update(parts(texts))
    monkeypatch.setattr(related, "VECTOR_BLOCK", 7)  # 60 papers: 8 full blocks and one of 4
    blocks = RelatedIndex()
    blocks.update(parts(texts))
    assert blocks.vectors == whole.vectors and blocks.floors == whole.floors
    assert blocks.related == whole.related
    assert all(blocks._vector_of(paper) == (blocks.vectors[paper], blocks.floors[paper])
               for paper in range(len(blocks.ids)))


def by_word(index: RelatedIndex) -> list[dict[str, int]]:
    """Vectors keyed by term (term numbers depend on the order terms were first seen)."""
    return [{index.words[t]: w for t, w in zip(*vector)} for vector in index.vectors]


def parts(texts: dict[str, str]) -> dict[str, tuple[str, ...]]:
    return {pid: (text,) for pid, text in texts.items()}


def test_the_counts_kept_for_a_paper_are_those_of_its_text_and_only_of_that_text():
    from papersite.text.words import prose_term_counts
    index = RelatedIndex()
    index.update({"a": ("Diffusion Models", "Denoising diffusion of images, and of images again."),
                  "b": ("Bandits", "Regret bounds for bandits.")})
    text = "Diffusion Models. Denoising diffusion of images, and of images again."
    kept = index.kept_counts("a", text)
    assert list(kept.items()) == list(prose_term_counts(text).items())  # the same counts, in the same order
    assert kept.words is index.words  # numbered into the index's words, which the map takes as they are
    assert index.kept_counts("a", "Diffusion Models. Something else.") is None  # another text: not these
    assert index.kept_counts("c", text) is None  # no such paper


def test_terms_counted_ahead_are_the_update_s_and_a_count_never_scored_is_not_trusted():
    """count_terms(texts) counts what update(texts) would count anew (the map takes those counts);
    counted for texts that never reach update() (a build failed in between), the next update
    starts over rather than edit lists that are not those texts'."""
    rng = random.Random(11)
    texts = corpus(rng, 60)
    index = RelatedIndex()
    ahead = parts(texts)
    index.count_terms(ahead)
    first = next(iter(texts))
    assert index.kept_counts(first, texts[first]) is not None  # counted: the map can take them now
    assert index.update(ahead) == find_related(texts)
    texts = corpus(random.Random(12), 60)  # a burst of edits, counted, never scored
    index.count_terms(parts(texts))
    words = sorted({w for t in texts.values() for w in t.split()})
    texts[first] = edit(rng, texts[first], words)  # then one more edit: the lists are still of before
    assert index.update(parts(texts)) == find_related(texts)
    fresh = RelatedIndex()
    fresh.update(parts(texts))
    assert index.best == fresh.best and by_word(index) == by_word(fresh)


def test_a_build_counts_every_text_as_an_edit_counts_one(monkeypatch):
    """A build counts the second half of the texts in another process: the counts, their order and
    the terms' numbers are those of counting each text alone, in order. The odd texts: stop words
    only, none at all, words a non-ASCII letter splits, plurals folded onto a word met earlier,
    digits; and a restart, whose terms are numbered already but for one."""
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    rng = random.Random(13)
    texts = corpus(rng, 2 * parallel.MIN_ITEMS + 50)
    texts.update({"a-odd": "The and of", "b-odd": "", "c-odd": "Naïve Networks network's 3D-CNNs x2y",
                  "d-odd": "Über ÉCOLE straße; Network networks NETWORKS.", "e-odd": "θ-rewards 42 a1 rewards",
                  "q-odd": "Brandnewword networks"})
    index = RelatedIndex()
    index.update(parts(texts))
    alone = RelatedIndex()
    alone.docs = [alone._counts(text) for text in index.texts]
    assert alone.words == index.words and alone.vocabulary == index.vocabulary
    assert alone.docs == index.docs
    texts["q-odd"] += " anotherbrandnewword"  # a new paper: starting over numbers only new terms anew
    texts["r-odd"] = "Networks"
    index.update(parts(texts))
    alone.docs = [alone._counts(text) for text in index.texts]
    assert alone.words == index.words and alone.docs == index.docs


def test_a_build_keeps_more_papers_than_a_row_has_stretches_as_an_edit_does():
    """More related papers wanted than the GROUPS stretches a build bounds a row's best by: every
    positive score is a candidate, and the lists are still the edit's."""
    rng = random.Random(17)
    texts = {f"p{i:04d}": f"commonword {' '.join(rng.sample(WORDS, 6))}" for i in range(3 * related.GROUPS)}
    index = RelatedIndex(count=related.GROUPS + 6)
    index.update(parts(texts))
    assert all(len(best) == 2 * (related.GROUPS + 6) for best in index.best)  # every other paper scores
    assert all(index._best_of(index._scores(paper)) == index.ranked(paper) for paper in range(len(index.ids)))
