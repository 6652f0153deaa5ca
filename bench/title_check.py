"""Do derived titles stay the same to the byte? This tree's derive_title against an older commit's.

    .venv/bin/python bench/title_check.py [--against COMMIT] [--data PATH-TO-icml2024-events.json]

The texts: every ICML 2024 abstract of the development set (bench/titledata.py) and the
other events' (workshops, tutorials, talks); the 57 seeds, as the tests read them and as
bench/titles.py does; and variants made from those that reach the rarer branches
(truncated mid-sentence or mid-word, lower- and upper-cased, math, quotes, emphasis,
links, asides and acronyms spliced in, sentences shuffled, introducing verbs), plus
word salad drawn from the words the naming rules react to. This tree derives each
twice, with the token cache emptied first and then full in the other order. Prints
how many differ (and the first few) and exits 1 when any does.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.importers import title_model  # noqa: E402
from papersite.importers.title_model import PLACEHOLDER_OPEN  # noqa: E402
from papersite.importers.titles import derive_title  # noqa: E402
from titledata import DEFAULT, PAPER_TYPES  # noqa: E402
from old_papersite import old_derive  # noqa: E402
from titles import seed_abstracts  # noqa: E402

BASELINE = "d7cf0b5"  # the derivation before it was made faster again (issue #15's 5 s)

SPLICES = (
    "We propose FourierFT, which compresses the weights.",
    "In this paper we introduce Low-Rank Adaptation (LoRA) for transformers.",
    "Low-Rank Adaptation (LoRA) is popular; we present the Threshold-Consistent Margin (TCM) loss.",
    "We study $\\mathcal{O}(n^2)$ bounds for $\\textbf{\\texttt{Lingual-SMoE}}$ and $5\\%$ gains.",
    "Our method, called **GraphZip**, beats *strong* baselines (see Fig. 2, e.g. on [ImageNet](https://x.org)).",
    "This work develops ``quoted'' names and \u201ccurly\u201d ones \u2014 with dashes \u2013 too.",
    "We dub it `Gala3D' (code: https://github.com/a/b).",
    "namely SCGD and SCSC, i.e. two methods, et al. 2020, vs. others.",
    "(An aside (nested) that never closes.",
    "Position paper: we argue that a position paper is a position.",
    "1 Introduction We introduce the",
)
SALAD = ("we We propose introduce called named namely a the novel FourierFT, GraphZip LoRA (LoRA) "
         "Low-Rank Adaptation (LRA), **L**ow method models. graph neural networks $x_1$ (see it). : , "
         "This paper Our framework dubbed term coin new simple Transformers: [a] {b} e.g. i.e. "
         "non-convex multi-task state-of-the-art 3D GPT-4 \u2019s ' \" ``x'' Fast Efficient for and").split()


def icml_texts(path: Path) -> tuple[list[str], list[str]]:
    """(paper abstracts as titledata reads them, the other events' abstracts)."""
    records = json.loads(path.read_text(encoding="utf-8"))
    papers = [r["abstract"].strip() for r in records
              if r.get("type") in PAPER_TYPES and (r.get("abstract") or "").strip() and r.get("name")]
    others = [r["abstract"] for r in records if r.get("type") not in PAPER_TYPES and (r.get("abstract") or "").strip()]
    return papers, others


def raw_seeds() -> list[str]:
    """The seed abstracts as tests/test_derive.py reads them (line breaks kept)."""
    out = []
    for path in sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt")):
        blocks = [b.strip() for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
        out += [b for b in blocks[1:] if b]
    return out


def variants(texts: list[str], rng: random.Random) -> list[str]:
    out = []
    for text in texts:
        words = text.split()
        sentences = re.split(r"(?<=[.!?])\s+", text)
        cut = rng.randrange(1, max(2, len(text)))
        out += [
            text[:cut],  # mid-word, mid-sentence
            " ".join(words[:rng.randrange(1, max(2, len(words)))]),
            text.lower(),
            text.upper(),
            " ".join(rng.sample(sentences, len(sentences))),
            " ".join(sentences[:1] + [rng.choice(SPLICES)] + sentences[1:]),
            rng.choice(SPLICES) + " " + text,
            text.replace(". ", ".\n\n", 2).replace(" the ", " the  (parenthetical remark) ", 1),
            text.replace('"', "``", 1).replace('"', "''", 1).replace("-", "\u2013", 1),
        ]
    return out


def salad(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(SALAD) for _ in range(rng.randrange(0, 60))) for _ in range(n)]


def corpus(data: Path) -> dict[str, list[str]]:
    rng = random.Random(15)
    parts: dict[str, list[str]] = {}
    if data.exists():
        parts["icml papers"], parts["icml other events"] = icml_texts(data)
    else:
        print(f"{data}: not found; checking the seeds and their variants only")
    parts["seeds (as tests read them)"] = raw_seeds()
    parts["seeds (as bench/titles.py reads them)"] = seed_abstracts()
    base = parts.get("icml papers", [])[::4] + parts.get("icml other events", []) + parts["seeds (as tests read them)"]
    parts["variants"] = variants(base, rng)
    parts["word salad"] = salad(rng, 2000)
    parts["edge cases"] = ["", " ", "Short.", "We we we we.", "We propose X.", "Background matters here. We propose Foobar",
                           "We introduce the", "$x$", "$$", "(", ")", "(((", "e.g.", "A. B. C.", "\ue000", "\ue0000\ue001"]
    return parts


def outcome(derive, text: str) -> str:
    """The title, or the exception it raised (an input with the private-use placeholder marks
    of title_model._mask_math in it raises IndexError, before and after)."""
    try:
        return derive(text)
    except Exception as exc:  # noqa: BLE001 - the same failure is the same outcome
        return f"raised {type(exc).__name__}"


def reference(commit: str, parts: dict[str, list[str]]) -> dict[str, list[str]]:
    """The older commit's outcomes, kept in the temporary folder between runs (keyed by the
    commit and a hash of the texts)."""
    digest = hashlib.sha256(json.dumps([commit, parts]).encode()).hexdigest()[:16]
    saved = Path(tempfile.gettempdir()) / f"papersite-title-check-{digest}.json"
    if saved.exists():
        return json.loads(saved.read_text(encoding="utf-8"))
    old = old_derive(commit)
    got = {name: [outcome(old, t) for t in texts] for name, texts in parts.items()}
    saved.write_text(json.dumps(got), encoding="utf-8")
    return got


def token_view(model, tok: str) -> tuple:
    """What the derivation reads of one token: _token, _piece, its run code and bracket depth."""
    record = model._record(tok)
    return model._token(tok), model._piece(tok), record[model._CODE], record[model._DEPTH]


def check_tokens(commit: str, parts: dict[str, list[str]]) -> int:
    """Every token of every text (and its bare form), analysed by both trees: the same?"""
    old_derive(commit)
    old_model = importlib.import_module(f"papersite_{commit}.importers.title_model")
    tokens = sorted({tok for texts in parts.values() for t in texts for tok in title_model._clean(t)[0].split()})
    tokens += sorted({tok.strip(title_model._TOKEN_EDGE) for tok in tokens} - set(tokens))
    bad = [tok for tok in tokens if token_view(old_model, tok) != token_view(title_model, tok)]
    print(f"{'token analyses':40} {len(tokens):6d} tokens {len(bad):4d} differ  {bad[:5]}")
    return len(bad)


def doc_view(model, text: str) -> tuple:
    """What the ranking reads of an abstract: sentences, contribution flags, acronyms and
    expansions, per-stem statistics, runs, and the word probabilities (floats, exactly)."""
    doc = model.Doc(text)
    return (doc.sentences, doc.contrib, doc.acronyms, sorted(doc.expansions), list(doc.stats.items()),
            model.chunks(doc), list(model.word_probabilities(doc).items()))


def check_docs(commit: str, parts: dict[str, list[str]]) -> int:
    """Every text read by both trees: the same doc_view?"""
    old_model = importlib.import_module(f"papersite_{commit}.importers.title_model")
    texts = [t for ts in parts.values() for t in ts if PLACEHOLDER_OPEN not in t]
    bad = [t for t in texts if doc_view(old_model, t) != doc_view(title_model, t)]
    print(f"{'abstracts read (Doc, word probabilities)':40} {len(texts):6d} texts  {len(bad):4d} differ  "
          f"{[t[:60] for t in bad[:3]]}")
    return len(bad)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default=BASELINE, help="commit whose titles are the reference")
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--show", type=int, default=5, help="how many differences to print")
    args = parser.parse_args()
    parts = corpus(args.data)
    expected_by_part = reference(args.against, parts)
    differ = 0
    for name, texts in parts.items():
        started = time.perf_counter()
        expected = expected_by_part[name]
        title_model.clear_caches()
        cold = [outcome(derive_title, t) for t in texts]
        warm = [outcome(derive_title, t) for t in reversed(texts)][::-1]
        bad = [i for i, (e, c, w) in enumerate(zip(expected, cold, warm)) if not e == c == w]
        differ += len(bad)
        print(f"{name:40} {len(texts):6d} texts  {len(bad):4d} differ  ({time.perf_counter() - started:.1f} s)")
        for i in bad[:args.show]:
            print(f"    {texts[i][:100]!r}\n      {args.against}: {expected[i]!r}\n      this tree: {cold[i]!r} / {warm[i]!r}")
    differ += check_tokens(args.against, parts)
    differ += check_docs(args.against, parts)
    total = sum(map(len, parts.values()))
    print(f"\n{total} texts, {differ} with a different title than {args.against}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
