"""A synthetic catalog for benchmarks: N papers, deterministic for a given seed.

    python bench/synth.py 1000 /tmp/synth-1000 [--seed 1]

    python bench/synth.py 10000 /tmp/real-10000 --real

Papers are spread over several venues and years, with plausible titles,
authors, topics from the project's site.yaml taxonomy and abstracts that
hold some $LaTeX$. Written to a folder of your choice (a temp dir), never
into the repository.

The abstracts are calibrated on the 2,596 real ICML 2024 abstracts
(bench/corpus_stats.py prints both side by side; docs/performance.md has the
table): their length distribution, vocabulary growth (Heaps' law), `$TeX$`
density, and the shares of abstracts with a URL and with quotes. The text
itself comes from the seed abstracts in tests/fixtures, so the generator
needs nothing outside the repository.

`--real` writes the real ICML 2024 papers instead (../shared/data, see
bench/realdata.py), replicated to `count`: see RealReplica.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import random
import re
import sys
from collections import Counter
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
URL = re.compile(r"https?://|www\.|github")
QUOTE_MARKS = re.compile("``|''|[\"\u201c\u201d]")


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
            # Links and quotes are added at their real rates (see abstract), not learnt from the seeds.
            words = [QUOTE_MARKS.sub("", w) for w in MATH.sub(" MATH ", abstract).split() if not URL.search(w)]
            words = [w for w in words if w]
            self.starts.append(words[0])
            for a, b in zip(words, words[1:]):
                self.next.setdefault(a, []).append(b)
        self.uses = Counter(w for chain in self.next.values() for w in chain)

    def abstract(self, rng: random.Random, jargon: list[str], field: "Subfield", rare: "Vocabulary") -> str:
        word, words = rng.choice(self.starts), []
        for _ in range(length(rng)):
            if word == "MATH":
                pass  # placed below, at the real density
            elif word.isalpha() and word.islower() and \
                    rng.random() < (1.0 if self.uses[word] <= SEED_RARE else RARE_SHARE):
                # Real corpora are clustered: most rare words come from the paper's subfield.
                words.append(field.word(rng) if rng.random() < FIELD_SHARE else rare.word(rng))
            else:
                words.append(word)
            if rng.random() < 0.03:
                words.append(rng.choice(jargon))  # the paper's own method names recur in its abstract
            word = rng.choice(self.next.get(word) or self.starts)
        if rng.random() < MATH_SHARE:
            # 1 + a geometric number: MATH_SPANS on average
            for _ in range(min(len(words), 1 + int(rng.expovariate(math.log(MATH_SPANS / (MATH_SPANS - 1)))))):
                words.insert(rng.randrange(len(words) + 1), rng.choice(self.math))
        if rng.random() < QUOTE_SHARE:
            at = rng.randrange(len(words))
            opening, closing = rng.choice(QUOTE_STYLES)
            words[at] = opening + words[at] + closing
        text = " ".join(words).rstrip(",;:") + "."
        if rng.random() < URL_SHARE:
            text += " " + rng.choice(CODE_SENTENCES).format(user=rare.word(rng), repo=rng.choice(jargon))
        return text


# Calibrated on the real ICML 2024 abstracts (bench/corpus_stats.py): words per
# abstract p10/p50/p90 122/165/207; 19.8% of abstracts hold $TeX$, 4 spans each
# on average; 18.0% a URL (nearly all a code link at the end); 7.7% quotes.
LENGTH_MEDIAN, LENGTH_SPREAD, LENGTH_RANGE = 160, 0.20, (60, 300)  # generated words, before math and links
MATH_SHARE, MATH_SPANS = 0.198, 4.0
URL_SHARE, QUOTE_SHARE = 0.18, 0.077
QUOTE_STYLES = [('"', '"')] * 4 + [("\u201c", "\u201d"), ("``", "''")]  # as often as in the real ones
CODE_SENTENCES = ["Code is available at https://github.com/{user}/{repo}.",
                  "Our code is publicly available at https://github.com/{user}/{repo}.",
                  "The code and models are released at https://github.com/{user}/{repo}",
                  "Project page: https://{user}.github.io/{repo}."]
# The chain's words that the seeds use at most SEED_RARE times, and a RARE_SHARE of its other
# lower-case words, are replaced by a subfield's or the long tail's: the seeds' own vocabulary is
# small and a few hundred abstracts hold all of it, so kept whole it made the vocabulary of a
# catalog grow too slowly (Heaps' beta 0.40, real 0.54).
SEED_RARE, RARE_SHARE = 1, 0.03
FIELD_SHARE = 0.5  # of those, the share from the paper's subfield
FIELDS = 12.0  # the subfields' Chinese restaurant: about 65 subfields in 2,596 papers, 80 in 10,000


def length(rng: random.Random) -> int:
    """Words of an abstract: log-normal, as real abstract lengths are (a long right tail)."""
    low, high = LENGTH_RANGE
    return min(high, max(low, round(rng.lognormvariate(math.log(LENGTH_MEDIAN), LENGTH_SPREAD))))


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
    """The long tail: made-up words drawn by a Pitman-Yor process. A draw is a
    new word with probability (STRENGTH + DISCOUNT * words) / (STRENGTH + draws),
    else a repeat of an earlier draw: frequencies follow Zipf's law and the
    vocabulary grows as draws**DISCOUNT, Heaps' law, as in real catalogs."""

    DISCOUNT, STRENGTH = 0.6, 2500.0  # calibrated with bench/corpus_stats.py

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.words: set[str] = set()
        self.draws: list[str] = []

    def word(self, rng: random.Random) -> str:
        if rng.random() * (self.STRENGTH + len(self.draws)) < self.STRENGTH + self.DISCOUNT * len(self.words):
            word = self._new(rng)
        else:
            word = rng.choice(self.draws)
        self.draws.append(word)
        return word

    def _new(self, rng: random.Random) -> str:
        while (word := "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 5)))) in self.words:
            pass
        self.words.add(word)
        return word

    def subfield(self) -> "Subfield":
        return Subfield(self)

    def pick(self, rng: random.Random, count: int) -> list[str]:
        return [self.word(rng).capitalize() for _ in range(count)]


class Subfield:
    """A subfield's words: drawn from the long tail as its papers need them, and reused by its
    later papers (a Pitman-Yor process whose new words come from the catalog's): papers of one
    subfield share jargon, and a subfield's vocabulary grows with its papers, not all at once."""

    DISCOUNT, STRENGTH = 0.5, 20.0  # calibrated with bench/corpus_stats.py

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        self.draws: list[str] = []
        self.words = 0

    def word(self, rng: random.Random) -> str:
        if rng.random() * (self.STRENGTH + len(self.draws)) < self.STRENGTH + self.DISCOUNT * self.words:
            word = self.vocabulary.word(rng)
            self.words += 1
        else:
            word = rng.choice(self.draws)
        self.draws.append(word)
        return word


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
          vocabulary: Vocabulary, fields: list[Subfield], people: People | None = None) -> tuple[dict, str]:
    """(front matter, abstract) of paper number `index`."""
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
    return front, language.abstract(rng, jargon, subfield_of(rng, index, fields, vocabulary), vocabulary)


def subfield_of(rng: random.Random, index: int, fields: list[Subfield], vocabulary: Vocabulary) -> Subfield:
    """Paper number `index`'s subfield, noted in `fields` (each earlier paper's): a new one with
    probability FIELDS / (FIELDS + index), else an earlier paper's (a Chinese restaurant: big
    subfields draw more papers, and their number grows with the logarithm of the catalog's size)."""
    chosen = vocabulary.subfield() if rng.random() * (FIELDS + index) < FIELDS else rng.choice(fields)
    fields.append(chosen)
    return chosen


class RealReplica:
    """The real ICML 2024 papers, copied until there are `count`, each copy with
    a fresh long tail of vocabulary.

    Copies of the same papers would keep the vocabulary of 2,596 papers at any
    size, far below what a real catalog of that size holds (Heaps' law: a
    real catalog twice as large has 2**0.54 = 1.45 times the words). So in copy
    c >= 1, each rare word (at most RARE_COUNT uses in the real export) is
    respelled with probability RESPELL, the same way throughout the copy: like
    another year of the same conference, common words and topics stay, a new
    long tail of names and jargon comes in, and papers of a copy still share
    it. RESPELL is set so the vocabulary at 10,000 papers matches the real
    export's Heaps' law (bench/corpus_stats.py prints both).
    """

    RARE_COUNT, RESPELL = 8, 0.65
    WORD = re.compile(r"(?<![\\$A-Za-z])[A-Za-z]{3,}(?![A-Za-z])")  # words, not TeX macros

    def __init__(self):
        from realdata import real_papers
        self.papers = real_papers()
        counts = Counter(w.lower() for p in self.papers for w in self.WORD.findall(p.title + " " + p.abstract))
        self.rare = {w for w, n in counts.items() if n <= self.RARE_COUNT}

    def paper(self, index: int) -> tuple[dict, str]:
        copy, number = divmod(index, len(self.papers))
        real = self.papers[number]
        slug, _, _ = VENUES[copy % len(VENUES)]
        year = YEARS[-1] - (copy // len(VENUES)) % len(YEARS)
        title, abstract = self._respelled(real.title, copy), self._respelled(real.abstract, copy)
        if copy:
            title += f" ({copy + 1})"  # unique titles, so unique slugs
        front = {"id": f"real-{index:06d}", "title": title, "authors": list(real.authors),
                 "venue": f"{slug}-{year}", "year": year}
        return front, abstract

    def _respelled(self, text: str, copy: int) -> str:
        if not copy:
            return text
        return self.WORD.sub(lambda m: self._variant(m.group(), copy), text)

    def _variant(self, word: str, copy: int) -> str:
        if word.lower() not in self.rare:
            return word
        digest = hashlib.blake2b(f"{copy}:{word.lower()}".encode(), digest_size=8).digest()
        if digest[0] >= self.RESPELL * 256:
            return word
        syllable = SYLLABLES[digest[1] % len(SYLLABLES)]
        return word[:-2] + syllable if len(word) > 5 else word + syllable


def generate(count: int, seed: int = 1, real: bool = False):
    """(front matter, abstract) of each paper, in order."""
    if real:
        replica = RealReplica()
        yield from (replica.paper(index) for index in range(count))
        return
    rng = random.Random(seed)
    topics, language = taxonomy(), Language(SEEDS)
    vocabulary = Vocabulary(rng)
    fields: list[Subfield] = []
    people = People(seed)
    for index in range(count):
        yield paper(rng, index, topics, language, vocabulary, fields, people)


def write_catalog(count: int, root: Path, seed: int = 1, real: bool = False) -> Path:
    """Write site.yaml and `count` papers under root; returns the site.yaml path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(site_yaml(taxonomy()), encoding="utf-8")
    for folder in ("templates", "static"):
        (root / folder).mkdir(exist_ok=True)
    for index, (front, abstract) in enumerate(generate(count, seed, real)):
        text = "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000) + "---\n"
        path = root / "content" / front["venue"] / f"paper-{index:06d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + abstract + "\n", encoding="utf-8")
    return root / "site.yaml"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real", action="store_true", help="the real ICML 2024 papers, replicated (RealReplica)")
    args = parser.parse_args(argv)
    if (args.folder / ".git").exists() or args.folder.resolve() == ROOT:
        parser.error("write the synthetic catalog to a scratch folder, not a repository")
    print(write_catalog(args.count, args.folder, args.seed, args.real))


if __name__ == "__main__":
    main(sys.argv[1:])
