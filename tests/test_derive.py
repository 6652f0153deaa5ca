"""Tests for papersite.derive: titles and topics derived from bare abstracts."""

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.derive import MAX_TITLE_LEN, assign_topics, derive_title

SEEDS = Path(__file__).parent / "fixtures" / "seeds"
TAXONOMY = Path(__file__).parent.parent / "papersite" / "default_topics.yaml"


def read_seeds() -> list[str]:
    """All seed abstracts: each file is a venue header line, then abstracts
    separated by blank lines."""
    abstracts = []
    for path in sorted(SEEDS.glob("*.txt")):
        blocks = [b.strip() for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
        abstracts += [b for b in blocks[1:] if b]
    return abstracts


ABSTRACTS = read_seeds()
TOPICS = yaml.safe_load(TAXONOMY.read_text(encoding="utf-8"))["topics"]
SLUGS = {t["slug"] for t in TOPICS}
TITLES = {a: derive_title(a) for a in ABSTRACTS}


def seed(fragment: str) -> str:
    """The one seed abstract containing fragment."""
    found = [a for a in ABSTRACTS if fragment in a]
    assert len(found) == 1, fragment
    return found[0]


def norm(s: str) -> str:
    return re.sub(r"\W+", " ", s).strip().lower()


def first_sentence(abstract: str) -> str:
    return re.split(r"(?<=[.!?])\s+", abstract.strip())[0]


def test_seed_count():
    assert len(ABSTRACTS) == 57


# --- titles: hard rules, on every seed -------------------------------------


def title_problems(abstract: str, title: str) -> list[str]:
    problems = []
    if not 2 <= len(title.split()) or len(title) > MAX_TITLE_LEN:
        problems.append("length")
    if re.match(r"we\b", title, re.I):
        problems.append("starts with We")
    if re.search(r"[.,;:!?\-]$", title) or title != title.strip() or "  " in title:
        problems.append("punctuation/spacing")
    if norm(title) == norm(first_sentence(abstract)):
        problems.append("is the first sentence")
    if title.count("$") % 2 or any(m not in abstract for m in re.findall(r"\$[^$]+\$", title)):
        problems.append("broken math")  # math is kept whole or left out
    if derive_title(abstract) != title:
        problems.append("not deterministic")
    return problems


def test_title_hard_rules_on_every_seed():
    failures = {TITLES[a]: p for a in ABSTRACTS if (p := title_problems(a, TITLES[a]))}
    assert not failures


def test_titles_are_distinct():
    assert len(set(TITLES.values())) == len(ABSTRACTS)


# --- titles: specific seeds ------------------------------------------------


def test_gala3d_example():
    assert TITLES[seed("We present GALA3D")] == "GALA3D: Generative 3D Gaussians with Layout-Guided Control"
    short = ("We present GALA3D, generative 3D GAussians with LAyout-guided control, "
             "for effective compositional text-to-3D generation.")
    assert derive_title(short) == "GALA3D: Generative 3D Gaussians with Layout-Guided Control"


def test_grokking_title_names_the_phenomenon():
    title = TITLES[seed("Grokking, or delayed generalization")]
    assert "grokking" in title.lower() or "delayed robustness" in title.lower()


@pytest.mark.parametrize("fragment, expected", [
    ("Transitional Uncertainty with Layered", "TULIP: Transitional Uncertainty with Layered Intermediate Predictions"),
    ("Individual Contributions as intrinsic", "ICES: Individual Contributions as Intrinsic Exploration Scaffolds"),
    ("Clifford-Steerable Convolutional", "CS-CNNs: Clifford-Steerable Convolutional Neural Networks"),
    ("signSGD with federated defense", "signSGD-FD: signSGD with Federated Defense"),  # "our method, X (ACR)"
    ("Sparse Iso-FLOP", "Sparse-IFT: Sparse Iso-FLOP Transformations"),  # "our approach, X (ACR)"
    ("named the Quadratic Synchronization Rule", "QSR: Quadratic Synchronization Rule"),  # "named X (ACR)"
])
def test_acronym_expansions(fragment, expected):
    assert TITLES[seed(fragment)] == expected


@pytest.mark.parametrize("fragment, prefix, words", [
    ("We introduce Magicoder", "Magicoder: ", ["language models", "code"]),  # "X, a series of ..."
    ("We present EmerNeRF", "EmerNeRF: ", ["driving scenes"]),  # "X, a simple yet powerful approach for ..."
    ("Lingual-SMoE}}", "Lingual-SMoE: ", ["routing"]),  # name inside $\textbf{\texttt{...}}$
    ("we introduce FourierFT", "FourierFT: ", ["fourier"]),  # purpose from "we aim to ..."
    ("method SoTeacher", "SoTeacher: ", ["teacher"]),
    ("(LQ-LoRA)", "LQ-LoRA: ", ["low-rank", "quantized"]),
])
def test_named_methods(fragment, prefix, words):
    title = TITLES[seed(fragment)]
    assert title.startswith(prefix)
    for w in words:
        assert w in title.lower()


@pytest.mark.parametrize("fragment, words", [
    ("polar factorization theorem", ["polar factorization"]),  # "this result" resolved via "known as"
    ("doubly stochastic gradients", ["convergence", "doubly sgd"]),  # "we establish X"
    ("implicit bias of policy gradient", ["implicit bias", "policy gradient"]),  # "this paper studies X"
    ("CW complex hypothesis", ["cw complex hypothesis"]),
    ("Independent Subnetwork Training (IST)", ["closer", "independent subnetwork training"]),
    ("position paper", ["position:", "marginalized"]),
    ("Inverse Optimal Transport (iOT)", ["inverse optimal transport"]),
    ("Contrastive Language-Image Pretraining", ["clip", "optimal transport"]),  # acronym keeps it short
])
def test_contribution_phrases(fragment, words):
    title = TITLES[seed(fragment)].lower()
    for w in words:
        assert w in title


def test_math_is_kept_intact():
    title = TITLES[seed("decremental dynamic embedding")]
    assert "$\\ell_p$" in title
    assert "$G$" not in title  # a bare variable name means nothing in a title


# --- titles: patterns and edge cases ---------------------------------------


@pytest.mark.parametrize("abstract, expected", [
    ("Retrieval is hard. We introduce Retrieval-Augmented Decoding (RAD), which conditions "
     "generation on retrieved passages.", "RAD: Retrieval-Augmented Decoding"),
    ("Graph learning matters. We develop a method called GraphZip that compresses graphs losslessly.",
     "GraphZip: Compressing Graphs Losslessly"),
    ("Graph learning matters. We develop a framework, named LoopNet, for learning loops in graphs.",
     "LoopNet: Learning Loops in Graphs"),
    ("Large models are costly. In this paper, we propose FlashNorm, a fast normalization layer for "
     "transformers. Experiments show gains.", "FlashNorm: Fast Normalization Layer for Transformers"),
    ("ZetaNet, a novel architecture for long-range sequence modeling, achieves state-of-the-art "
     "results. It uses zeta functions.", "ZetaNet: Architecture for Long-Range Sequence Modeling"),
    ("We show that transformers can implement in-context gradient descent. This explains ICL.",
     "Transformers Can Implement In-Context Gradient Descent"),
    ("Federated learning suffers from client drift. We propose a simple yet effective approach to "
     "mitigate client drift by correcting local updates with control variates.",
     "Mitigating Client Drift by Correcting Local Updates with Control Variates"),
])
def test_title_patterns(abstract, expected):
    assert derive_title(abstract) == expected


@pytest.mark.parametrize("abstract", ["", "   ", "Short.", "We we we we.", "We propose X."])
def test_degenerate_abstracts(abstract):
    title = derive_title(abstract)
    assert title and len(title) <= MAX_TITLE_LEN and not re.match(r"we\b", title, re.I)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_title_rules_hold_for_any_text(text):
    title = derive_title(text)
    assert title and len(title) <= MAX_TITLE_LEN
    assert not re.match(r"we\b", title, re.I)
    assert not re.search(r"[.,;:!?]$", title)
    assert title.count("$") % 2 == 0


# --- topics ----------------------------------------------------------------


def test_taxonomy_shape():
    assert 20 <= len(TOPICS) <= 26
    assert len(SLUGS) == len(TOPICS)
    for t in TOPICS:
        assert set(t) == {"slug", "name", "description", "keywords"}
        assert re.fullmatch(r"[a-z]+(?:-[a-z]+)*", t["slug"])
        assert t["name"] and t["description"].endswith(".") and t["description"].count(". ") == 0
        assert t["keywords"] and all(isinstance(k, str) and k.strip() for k in t["keywords"])


def test_topics_valid_for_every_seed():
    for abstract in ABSTRACTS:
        slugs = assign_topics(TITLES[abstract], abstract, TOPICS)
        assert 1 <= len(slugs) <= 3, TITLES[abstract]
        assert len(set(slugs)) == len(slugs) and set(slugs) <= SLUGS, TITLES[abstract]
        assert assign_topics(TITLES[abstract], abstract, TOPICS) == slugs


@pytest.mark.parametrize("fragment, slug", [
    ("text-to-music diffusion models", "generative-models"),
    ("AdjointDPM", "generative-models"),
    ("multi-agent reinforcement learning (MARL)", "reinforcement-learning"),
    ("reward-free RL paradigm", "reinforcement-learning"),
    ("Differentially private learning algorithms", "privacy"),
    ("triple difference estimator", "causal-inference"),
    ("Inverse Optimal Transport (iOT)", "optimal-transport"),
    ("testable learning model", "learning-theory"),
    ("Stackelberg games", "online-learning-games"),
    ("Magicoder", "language-models"),
    ("Stable and Expressive Positional Encodings", "graph-learning"),
    ("Mechanistic Interpretability (MI)", "interpretability"),
    ("position paper", "fairness-safety"),
    ("Grokking, or delayed generalization", "deep-learning-theory"),
])
def test_primary_topic(fragment, slug):
    abstract = seed(fragment)
    assert assign_topics(TITLES[abstract], abstract, TOPICS)[0] == slug


@pytest.mark.parametrize("fragment, slug", [
    ("Grokking, or delayed generalization", "robustness"),  # delayed robustness, adversarial examples
    ("Brenier proved", "optimal-transport"),
    ("protein-ligand binding", "generative-models"),  # flow matching
    ("Contrastive Language-Image Pretraining", "representation-learning"),
])
def test_secondary_topics(fragment, slug):
    abstract = seed(fragment)
    assert slug in assign_topics(TITLES[abstract], abstract, TOPICS)


SMALL = [
    {"slug": "diffusion", "name": "D", "description": "D.", "keywords": ["diffusion model"]},
    {"slug": "rl", "name": "R", "description": "R.", "keywords": ["RL", "reward"]},
    {"slug": "misc-other", "name": "M", "description": "M.", "keywords": ["zzz"]},
    {"slug": "aaa", "name": "A", "description": "A.", "keywords": ["reward"]},
]


def test_topic_matching_is_stem_insensitive():
    assert assign_topics("", "We train Diffusion Models.", SMALL) == ["diffusion"]


def test_acronym_keywords_match_case_sensitively():
    assert assign_topics("", "Deep RL agents.", SMALL)[0] == "rl"
    assert assign_topics("", "The girl curled up.", SMALL) == ["misc-other"]  # no "rl" inside words


def test_no_match_falls_back_to_generic_topic():
    assert assign_topics("Nothing", "Nothing relevant here.", SMALL) == ["misc-other"]
    assert assign_topics("Nothing", "Nothing.", SMALL[:2]) == ["diffusion"]  # else the first topic


def test_ties_break_by_slug_and_title_weighs_more():
    assert assign_topics("", "A reward.", SMALL)[0] == "aaa"  # aaa and rl tie on "reward"
    ranked = assign_topics("Diffusion Model", "reward reward reward", SMALL)
    assert ranked[0] == "diffusion"


def test_extra_topics_need_a_meaningful_score():
    abstract = "reinforcement learning " * 5 + "with one diffusion model"
    topics = SMALL + [{"slug": "reinforcement", "name": "RL", "description": "RL.",
                       "keywords": ["reinforcement learning"]}]
    assert assign_topics("Reinforcement Learning", abstract, topics) == ["reinforcement"]
