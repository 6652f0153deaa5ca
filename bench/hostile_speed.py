"""Hostile inputs, timed: how long the command takes to refuse (or to build) the pathological
inputs whose outcome tests/test_bad_input.py and tests/test_faults.py check.

    .venv/bin/python bench/hostile_speed.py [--repeat 3] [--only NAME]

The tests assert what each input gives (the error, its file and line, or a good build) and no
time: a time limit in a test fails on a busy machine. The times are here, printed, not asserted.
Each case is a tiny site in a temp folder (under /dev/shm when it exists), run through build.py's
command in this process, from the site's folder, as the tests run it; a run is timed from the
command's start to its end, and the best and the median of --repeat runs are printed, with the
exit status (1 where the input is refused), after one untimed build of a one-paper site (the
imports and caches of a first build are not the inputs' doing). The limits the tests once held, for comparison:

    deep-yaml         5 s   PyYAML alone is quadratic in the depth: 10,000 levels took seconds
    alias-bomb        5 s   a "billion laughs" is refused by counting, not by expanding
    abstract-5mb     10 s   refused by its length
    abstract-limit   30 s   one paragraph dense with math, at the limit: a quadratic renderer took minutes
    import-6mb       10 s   `import` of a seed file holding a 6 MB abstract
    sparse-50gb      30 s   a 50 GB (sparse) content file, refused by its size, unread
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from click.testing import CliRunner  # noqa: E402

import build  # noqa: E402  (build.py: the command a user runs)
from papersite.source.content import MAX_ABSTRACT_CHARS  # noqa: E402

CONFIG = """\
title: Hostile Inputs
base_url: https://example.org/catalog/
topics:
  - slug: learning-theory
    name: Learning Theory
    keywords: [generalization]
venues:
  - slug: icml-2024
    name: ICML 2024
    year: 2024
"""


def paper(id: str = "p1", body: str = "An abstract.", extra: str = "") -> str:
    return (f"---\nid: {id}\ntitle: A Paper\nauthors: [Ada Lovelace]\nvenue: icml-2024\nyear: 2024\n"
            f"topics: [learning-theory]\n{extra}---\n{body}\n")


def deep_yaml(root: Path) -> list[str]:
    write(root, "content/icml-2024/bad.md", "---\nid: " + "[" * 10_000 + "\n---\nText.\n")
    write(root, "content/icml-2024/closed.md", "---\nextra: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n---\nT.\n")
    write(root, "content/icml-2024/block.md",
          "---\nextra:\n" + "".join(" " * i + "a:\n" for i in range(1, 300)) + "---\nT.\n")
    return ["build", "-q"]


def alias_bomb(root: Path) -> list[str]:
    laughs = "extra:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  {name}: &{name} [{', '.join(['*' + prev] * 10)}]\n" for prev, name in zip("abcdefgh", "bcdefghi"))
    write(root, "content/icml-2024/bad.md", paper(extra=laughs))
    write(root, "content/icml-2024/loop.md", paper(id="p2", extra="extra: &me {self: *me}\n"))
    return ["build", "-q"]


def abstract_5mb(root: Path) -> list[str]:
    body = "We prove a bound on $\\|x\\|_2$ for deep networks, with words and more words. " * 70_000
    write(root, "content/icml-2024/huge.md", paper(body=body))
    return ["build", "-q"]


def abstract_limit(root: Path) -> list[str]:
    write(root, "content/icml-2024/long.md",
          paper(body=("$x_{i}$ and $y^2$ bound " * 3000)[:MAX_ABSTRACT_CHARS - 1]))
    return ["build", "-q"]


def import_6mb(root: Path) -> list[str]:
    write(root, "huge.txt", "ICML 2024 Papers\n\n" + "A long abstract of many words. " * 200_000 + "\n")
    return ["import", "huge.txt"]


def sparse_50gb(root: Path) -> list[str]:
    write(root, "content/icml-2024/plain.md", paper())
    with (root / "content/icml-2024/dump.md").open("wb") as file:
        file.truncate(50 * 1024 ** 3)  # no disk taken; reading it would never end
    return ["build", "-q"]


CASES = {"deep-yaml": deep_yaml, "alias-bomb": alias_bomb, "abstract-5mb": abstract_5mb,
         "abstract-limit": abstract_limit, "import-6mb": import_6mb, "sparse-50gb": sparse_50gb}


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@contextlib.contextmanager
def inside(folder: Path):
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def run_once(make, tmp: Path) -> tuple[float, int]:
    root = Path(tempfile.mkdtemp(dir=tmp))
    write(root, "site.yaml", CONFIG)
    (root / "content").mkdir(exist_ok=True)
    args = make(root)
    with inside(root):
        start = time.perf_counter()
        result = CliRunner().invoke(build.cli, args)
        seconds = time.perf_counter() - start
    return seconds, result.exit_code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=sorted(CASES), action="append", help="a case to run (repeatable)")
    args = parser.parse_args()
    base = "/dev/shm" if Path("/dev/shm").is_dir() else None
    print(f"{'case':<16} {'best s':>8} {'median s':>9}  exit")
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        run_once(lambda root: write(root, "content/icml-2024/p.md", paper()) or ["build", "-q"], Path(tmp))  # warm-up
        for name, make in CASES.items():
            if args.only and name not in args.only:
                continue
            runs = [run_once(make, Path(tmp)) for _ in range(args.repeat)]
            times = [seconds for seconds, _ in runs]
            codes = sorted({code for _, code in runs})
            print(f"{name:<16} {min(times):>8.2f} {statistics.median(times):>9.2f}  {','.join(map(str, codes))}",
                  flush=True)


if __name__ == "__main__":
    main()
