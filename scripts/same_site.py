"""Do two versions of papersite build the same sites, byte for byte?

    python scripts/same_site.py BEFORE [AFTER] [--papers 1000] [--catalog DIR]... [--diff] [--keep]

BEFORE and AFTER are git commits; AFTER defaults to the work tree, uncommitted
changes included. Each version builds the catalog bundled with it and one
synthetic catalog (bench/synth.py, written once from the work tree so both
versions read the same input, and built with each version's own theme), and
each --catalog folder given (a copy of it, with its own site.yaml). The
script lists every file that differs or exists on one side only, and exits 1
if any does, 0 if both sites are byte-identical.

Commits are exported with `git archive` into a temp folder, so the repository
(its branches, index and worktree list) is never touched.
"""
from __future__ import annotations

import argparse
import difflib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTED = 40  # differing files listed per catalog


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="a commit, e.g. 9a0b361 or main")
    parser.add_argument("after", nargs="?", help="a commit (default: the work tree as it is)")
    parser.add_argument("--papers", type=int, default=1000, help="papers in the synthetic catalog (default 1000)")
    parser.add_argument("--catalog", type=Path, action="append", default=[],
                        help="a catalog folder (its site.yaml and content) built by both versions too; may repeat")
    parser.add_argument("--diff", action="store_true", help="show the start of a diff for each differing text file")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (its path is printed)")
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="same-site-"))
    try:
        sides = [checkout(args.before, scratch)]
        sides.append(checkout(args.after, scratch) if args.after else ("work tree", ROOT))
        synth = scratch / "synth"
        run([sys.executable, ROOT / "bench" / "synth.py", str(args.papers), synth])
        same = True
        catalogs = [("bundled catalog", None), (f"{args.papers}-paper synthetic catalog", synth)]
        for number, folder in enumerate(args.catalog):  # copied: each build leaves its cache in the catalog
            shutil.copytree(folder, scratch / f"catalog{number}", ignore=shutil.ignore_patterns(".cache", "_site"))
            catalogs.append((f"catalog {folder}", scratch / f"catalog{number}"))
        for number, (name, catalog) in enumerate(catalogs):
            outputs = [scratch / f"site{number}-{side}" for side in ("before", "after")]
            for (_, engine), out in zip(sides, outputs):
                build(engine, catalog or engine, out)  # the bundled catalog is each version's own
            same &= report(name, sides[0][0], sides[1][0], *outputs, args.diff)
        print("byte-identical" if same else "the sites differ")
        return 0 if same else 1
    finally:
        if args.keep:
            print(f"kept {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def checkout(commit: str, scratch: Path) -> tuple[str, Path]:
    """(label, folder) of `commit` exported into scratch, with the work tree's node_modules linked in."""
    full = run(["git", "-C", ROOT, "rev-parse", "--verify", f"{commit}^{{commit}}"]).strip()
    folder = scratch / full[:12]
    if not folder.exists():
        archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", full],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        if (ROOT / "node_modules").is_dir():
            (folder / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    return f"{commit} ({full[:12]})", folder


def build(engine: Path, catalog: Path, out: Path) -> None:
    """Build `catalog` into `out` with the papersite in `engine`, as a user would: its build.py."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    run([sys.executable, engine / "build.py", "build", "-q", "--config", catalog / "site.yaml", "-o", out],
        cwd=catalog, env=env)


def run(command: list, **options) -> str:
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, **options)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(map(str, command))}\n{result.stderr}{result.stdout}")
    return result.stdout


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def report(catalog: str, before: str, after: str, old: Path, new: Path, show_diff: bool) -> bool:
    """Print how the two builds of one catalog differ; True when they are byte-identical."""
    a, b = files(old), files(new)
    changes = [f"only with {before}: {name}" for name in sorted(a.keys() - b.keys())]
    changes += [f"only with {after}: {name}" for name in sorted(b.keys() - a.keys())]
    differing = [name for name in sorted(a.keys() & b.keys()) if a[name] != b[name]]
    changes += [f"differs: {name}" for name in differing]
    if not changes:
        print(f"{catalog}: {len(a)} files, byte-identical")
        return True
    print(f"{catalog}: {len(changes)} of {len(a.keys() | b.keys())} files differ ({before} -> {after})")
    for line in changes[:LISTED]:
        print(f"  {line}")
    if len(changes) > LISTED:
        print(f"  ... and {len(changes) - LISTED} more")
    if show_diff:
        for name in differing[:LISTED]:
            print_diff(name, a[name], b[name])
    return False


def print_diff(name: str, old: bytes, new: bytes, lines: int = 20) -> None:
    try:
        old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        print(f"--- {name}: binary, {len(old)} -> {len(new)} bytes")
        return
    diff = list(difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), name, name, n=1, lineterm=""))
    print("\n".join(diff[:lines]) + ("\n..." if len(diff) > lines else ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
