"""A synthetic catalog for benchmarks: N papers, deterministic for a given seed.

    python bench/synth.py 1000 /tmp/synth-1000 [--seed 1]

Papers are spread over several venues and years, with plausible titles,
authors, topics from the project's site.yaml taxonomy and abstracts that
hold some $LaTeX$. Written to a folder of your choice (a temp dir), never
into the repository.
"""
from __future__ import annotations

import argparse
import itertools
import math
import random
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

VENUES = [("icml", "ICML", "International Conference on Machine Learning"),
          ("iclr", "ICLR", "International Conference on Learning Representations"),
          ("neurips", "NeurIPS", "Conference on Neural Information Processing Systems"),
          ("colt", "COLT", "Conference on Learning Theory"),
          ("aistats", "AISTATS", "International Conference on Artificial Intelligence and Statistics")]
YEARS = range(2019, 2025)

FIRST = """Ada Alan Grace Edsger Barbara John Donald Leslie Frances Tony Margaret Claude Judea Yoshua
Geoffrey Daphne Fei Li Wei Priya Ravi Sofia Mateo Amara Kenji Chiara Tomasz Ingrid Omar Hana""".split()
LAST = """Lovelace Turing Hopper Dijkstra Liskov McCarthy Knuth Lamport Allen Hoare Hamilton Shannon Pearl
Bengio Hinton Koller Chen Zhang Patel Kumar Rossi Garcia Okafor Tanaka Novak Larsen Haddad Kim""".split()
ADJECTIVES = """Scalable Robust Efficient Provable Adaptive Sparse Hierarchical Contrastive Causal Implicit
Stochastic Latent Differentiable Equivariant Federated Bayesian Variational Self-Supervised Offline""".split()
NOUNS = ["Transformers", "Diffusion Models", "Graph Networks", "Policy Gradients", "Attention",
         "Representations", "Optimizers", "Autoencoders", "Gaussian Processes", "Normalizing Flows",
         "Language Models", "Reward Models", "Value Functions", "Bandits", "Kernels", "Priors"]
TASKS = ["Generalization", "Exploration", "Few-Shot Learning", "Domain Adaptation", "Density Estimation",
         "Planning", "Reasoning", "Retrieval", "Calibration", "Compression", "Uncertainty Quantification",
         "Robust Control", "Molecule Generation", "Time Series Forecasting", "Image Synthesis"]
SYLLABLES = "ra ne to vi ka lo mi su de po ga ri ze fu ba tor gen lex mor quan syn".split()
SEEDS = sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt"))
MATH = re.compile(r"\$[^$\n]+\$")


class Language:
    """A word-level Markov chain trained on the seed abstracts: real vocabulary and word frequencies."""

    def __init__(self, seed_files: list[Path]):
        abstracts = []
        for path in seed_files:
            blocks = path.read_text(encoding="utf-8").split("\n\n")[1:]  # first block: the venue header
            abstracts.extend(" ".join(b.split()) for b in blocks if b.strip())
        self.math = sorted({m for a in abstracts for m in MATH.findall(a)})
        self.next: dict[str, list[str]] = {}
        self.starts: list[str] = []
        for abstract in abstracts:
            words = MATH.sub(" MATH ", abstract).split()
            self.starts.append(words[0])
            for a, b in zip(words, words[1:]):
                self.next.setdefault(a, []).append(b)

    def abstract(self, rng: random.Random, jargon: list[str], field: list[str], rare: "Vocabulary") -> str:
        word, words = rng.choice(self.starts), []
        for _ in range(rng.randint(110, 230)):
            if word == "MATH":
                words.append(rng.choice(self.math))
            elif rng.random() < 0.25 and word.isalpha() and word.islower():
                # Real corpora are clustered: most rare words come from the paper's subfield.
                words.append(rng.choice(field) if rng.random() < 0.8 else rare.word(rng))
            else:
                words.append(word)
            if rng.random() < 0.03:
                words.append(rng.choice(jargon))  # the paper's own method names recur in its abstract
            word = rng.choice(self.next.get(word) or self.starts)
        return " ".join(words).rstrip(",;:") + "."


class People:
    """Authors as real catalogs have them: about three new people per paper, a
    few prolific ones (preferential attachment), and some written differently
    from paper to paper (initials, "Last, First"). Drawn from a random stream of
    their own, so titles and abstracts are the same as without it."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed * 1_000_003 + 7)
        self.mentions: list[tuple[str, str]] = []  # (first, last) of every authorship so far

    def author(self) -> str:
        rng = self.rng
        if not self.mentions or rng.random() < 0.85:
            surname = rng.choice(LAST) if rng.random() < 0.3 else \
                "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
            person = (rng.choice(FIRST), surname)
        else:
            person = rng.choice(self.mentions)
        self.mentions.append(person)
        first, last = person
        spelling = rng.random()
        if spelling < 0.05:
            return f"{first[0]}. {last}"
        if spelling < 0.08:
            return f"{last}, {first}"
        return f"{first} {last}"


class Vocabulary:
    """Made-up words with Zipf frequencies. Its size follows Heaps' law (about 25 * sqrt(tokens)),
    so a bigger catalog has a bigger vocabulary, as real corpora do."""

    def __init__(self, rng: random.Random, size: int):
        words: set[str] = set()
        while len(words) < size:
            words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        self.cumulative = list(itertools.accumulate(1 / rank for rank in range(1, size + 1)))

    def word(self, rng: random.Random) -> str:
        return rng.choices(self.words, cum_weights=self.cumulative)[0]

    def subfield(self, rng: random.Random, count: int = 150) -> list[str]:
        return rng.sample(self.words, count)

    def pick(self, rng: random.Random, count: int) -> list[str]:
        return [w.capitalize() for w in rng.sample(self.words, count)]


def taxonomy() -> list[dict]:
    """The topics of the project's own site.yaml (the benchmark uses the real taxonomy)."""
    data = yaml.safe_load((ROOT / "site.yaml").read_text(encoding="utf-8"))
    return data.get("topics") or [{"slug": "learning-theory", "name": "Learning Theory"}]


def site_yaml(topics: list[dict]) -> str:
    venues = [{"slug": f"{slug}-{year}", "name": f"{name} {year}", "year": year, "full_name": full}
              for slug, name, full in VENUES for year in YEARS]
    return yaml.safe_dump({"title": "Synthetic Catalog", "base_url": "http://127.0.0.1:8000/",
                           "topics": topics, "venues": venues}, sort_keys=False, allow_unicode=True)


def paper(rng: random.Random, index: int, topics: list[dict], language: Language,
          vocabulary: Vocabulary, fields: list[list[str]], people: People | None = None) -> tuple[str, str]:
    """(relative path, file text) of paper number `index`."""
    slug, _, _ = rng.choice(VENUES)
    year = rng.choice(YEARS)
    jargon = vocabulary.pick(rng, 3)
    title = f"{jargon[0]}: {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} for {rng.choice(TASKS)}"
    title += f" ({index})"  # keeps titles, and so slugs, unique without hiding the pattern
    authors = [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(rng.randint(1, 6))]
    if people is not None:
        authors = [people.author() for _ in authors]
    chosen = rng.sample([t["slug"] for t in topics], k=min(len(topics), rng.randint(1, 3)))
    front = {"id": f"synth-{index:06d}", "title": title, "authors": authors, "venue": f"{slug}-{year}",
             "year": year, "topics": chosen}
    text = "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) + "---\n"
    return f"content/{slug}-{year}/paper-{index:06d}.md", text + language.abstract(rng, jargon, rng.choice(fields), vocabulary) + "\n"


def write_catalog(count: int, root: Path, seed: int = 1) -> Path:
    """Write site.yaml and `count` papers under root; returns the site.yaml path."""
    rng = random.Random(seed)
    topics, language = taxonomy(), Language(SEEDS)
    vocabulary = Vocabulary(rng, max(500, int(25 * math.sqrt(170 * count))))
    fields = [vocabulary.subfield(rng) for _ in range(max(5, count // 40))]  # ~40 papers a subfield
    people = People(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(site_yaml(topics), encoding="utf-8")
    for folder in ("templates", "static"):
        (root / folder).mkdir(exist_ok=True)
    for index in range(count):
        relative, text = paper(rng, index, topics, language, vocabulary, fields, people)
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "site.yaml"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if (args.folder / ".git").exists() or args.folder.resolve() == ROOT:
        parser.error("write the synthetic catalog to a scratch folder, not a repository")
    print(write_catalog(args.count, args.folder, args.seed))


if __name__ == "__main__":
    main(sys.argv[1:])
