"""Fit the title model on the tuning part of the development set; write papersite/importers/title_model.json.

    .venv/bin/python bench/tune_titles.py [PATH-TO-icml2024-events.json]

Needs numpy (bench/requirements.txt); the site never does. Deterministic: the
same data gives the same file. The held-out part (bench/titledata.py) is not read.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from papersite.importers import title_model as tm  # noqa: E402
from titledata import DEFAULT, load_pairs, split  # noqa: E402

MIN_SEEN = 3  # a word's own title rate is shipped once it is in this many tuning abstracts
# "ACR: Long Form" reads as a title should, so it may win with this much less expected F1,
# and so does "Name: phrase" for a coined name ("GraphZip"); together they cost 0.002
# F1 on the tuning part.
ACRONYM_BONUS = 0.03
NAME_BONUS = 0.03
EXPECTED_LENS = (5.0, 6.0, 7.0, 8.0, 9.0)


def counts(pairs):
    seen, hits = Counter(), Counter()
    for abstract, title in pairs:
        a, t = tm.content_stems(abstract), tm.content_stems(title)
        seen.update(a)
        hits.update(a & t)
    return seen, hits


def verbs(pairs) -> list[str]:
    """Words abstracts use as verbs ("we propose", "to recover") and titles almost never
    contain: a title phrase neither starts with one nor runs across one."""
    after, in_titles = Counter(), Counter()
    for abstract, title in pairs:
        for m in re.finditer(r"\b(?:[Ww]e|to)\s+([a-z]{3,})\b", abstract):
            after[m.group(1)] += 1
        in_titles.update(w.lower() for w in re.findall(r"[A-Za-z]+", title))
    base = {w for w, n in after.items() if n >= 2 and not w.endswith("ing")}
    def third_person(w: str) -> str:
        if w.endswith("y") and w[-2:-1] not in "aeiou":
            return w[:-1] + "ies"
        return w + ("es" if w.endswith(("s", "sh", "ch", "x", "z", "o")) else "s")

    forms = base | {third_person(w) for w in base if not w.endswith(("ed", "ly"))}
    return sorted(w for w in forms if in_titles[w] < 3 and w not in tm.STOP_WORDS)


def modifiers(pairs) -> list[str]:
    """Words that abstracts nearly always follow with another word of the same phrase
    ("non-linear", "weighted", "global"): adjectives, which a title cannot end on."""
    before, total = Counter(), Counter()
    for abstract, _ in pairs:
        toks = abstract.split()
        for tok, nxt in zip(toks, toks[1:] + [""]):
            word = tok.lower()
            if not re.fullmatch(r"[a-z][a-z-]*[a-z]", word):
                continue  # ends a clause or sentence ("linear,"), or is not a plain word
            # The word, and the last part of a compound ("risk-sensitive": "sensitive").
            forms = {word, word.rsplit("-", 1)[-1]}
            total.update(forms)
            if re.fullmatch(r"[A-Za-z][\w-]*", nxt) and nxt.lower() not in tm.STOP_WORDS:
                before.update(forms)
    return sorted(w for w, n in total.items() if n >= 4 and before[w] / n >= 0.85)


def rows(pairs, seen, hits, g):
    """Features with leave-one-out word rates (a paper must not vouch for its own words)."""
    X, y = [], []
    for abstract, title in pairs:
        doc = tm.Doc(abstract)
        t = tm.content_stems(title)
        for stem in doc.stats:
            inside = stem in t
            n, h = seen[stem] - 1, hits[stem] - inside
            prior = (h, n) if n >= MIN_SEEN else None
            X.append(doc.features(stem, prior, g))
            y.append(inside)
    return np.array(X), np.array(y, dtype=float)


def fit(X, y, l2=1.0, steps=30):
    """Logistic regression by Newton's method (a few features, so exact and fast)."""
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (p - y) + l2 * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(X.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def write(data: dict) -> None:
    tm.DATA_FILE.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    for cached in (tm.model, tm._static, tm._verbs, tm._modifiers):
        cached.cache_clear()
    tm.clear_caches()


def phrase_f1(pairs, expected_len: float) -> float:
    from papersite.importers.titles import derive_title

    tm.model()["expected_len"] = expected_len
    return sum(tm.content_f1(derive_title(a), t) for a, t in pairs) / len(pairs)


def main(path: Path = DEFAULT) -> None:
    tuning, _ = split(load_pairs(path))
    seen, hits = counts(tuning)
    g = sum(hits.values()) / sum(seen.values())
    X, y = rows(tuning, seen, hits, g)
    w = fit(X, y)
    priors = {s: [hits[s], seen[s]] for s in sorted(seen) if seen[s] >= MIN_SEEN}
    data = {"about": "papersite/importers/title_model.py: title-word model fitted by bench/tune_titles.py on "
                     f"{len(tuning)} ICML 2024 (abstract, title) pairs",
            "features": list(tm.FEATURES), "weights": [round(float(v), 4) for v in w],
            "global_rate": round(g, 5), "priors": priors, "verbs": verbs(tuning),
            "modifiers": modifiers(tuning)}
    data.update(acronym_bonus=ACRONYM_BONUS, name_bonus=NAME_BONUS, expected_len=EXPECTED_LENS[0])
    write(data)
    by_len = {T: phrase_f1(tuning, T) for T in EXPECTED_LENS}  # how long the unknown title is taken to be
    data["expected_len"] = max(EXPECTED_LENS, key=lambda T: (by_len[T], -T))
    write(data)
    print(f"{len(tuning)} abstracts, {len(y)} words, {int(y.sum())} in titles; "
          f"{len(priors)} word rates; weights:")
    for name, v in zip(tm.FEATURES, w):
        print(f"  {name:16} {v:+.3f}")
    print("tuning F1 by expected title length: " + ", ".join(f"{T:g}: {v:.4f}" for T, v in by_len.items()))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
