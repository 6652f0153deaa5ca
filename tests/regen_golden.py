"""The whole-site golden test's catalog, its build, and the command that rewrites its expected output.

tests/test_golden.py builds tests/fixtures/golden_site/ (five papers, two venues, three topics,
math, shared authors) with the real pipeline and compares every file of the output, path and
bytes, with the committed tree tests/golden/small_catalog/. When the output changes on purpose
(a template, the theme's CSS or scripts, the search files, a feed...), rewrite the tree and commit
it with the change, so that the commit's diff shows what the change did to a whole site:

    .venv/bin/python -m tests.regen_golden

It rebuilds the catalog, replaces tests/golden/small_catalog/ with the output and prints what was
added, removed or changed. Nothing is normalised: the build is deterministic (tests/test_determinism.py),
so the files are committed exactly as built, except the third-party files in VENDORED.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from papersite.source.config import load_config
from papersite.engine.command import build_and_write
from papersite.site.static import CSL_ASSETS, NPM_ASSETS, package_file_path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "fixtures" / "golden_site"
GOLDEN = ROOT / "tests" / "golden" / "small_catalog"

# Files the build copies byte for byte: lunr.js and citeproc.js from node_modules/, the CSL styles
# and locale from their Python packages (not our code, and an upgrade is not a change of
# papersite's output) and the theme's static/ (the golden catalog has none of its own). They are
# left out of the tree and of the comparison, and tests/test_golden.py checks each against its
# source instead: committing them would copy the theme and third-party files into tests/.
VENDORED = {**{f"static/{name}": ROOT / "node_modules" / relative for name, relative in NPM_ASSETS.items()},
            **{f"static/{name}": package_file_path(package, relative)
               for name, (package, relative) in CSL_ASSETS.items()},
            **{f"static/{path.name}": path for path in sorted((ROOT / "static").iterdir()) if path.is_file()}}


def build_golden_site(work: Path) -> dict[str, bytes]:
    """Copy the golden catalog into `work`, build it into work/site/_site as `build` does, and
    return every file written there (hidden ones included): relative POSIX path -> bytes."""
    root = work / "site"
    shutil.copytree(SOURCE, root)
    out = root / "_site"
    build_and_write(load_config(root / "site.yaml"), out)
    return read_tree(out)


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, hidden ones included: relative POSIX path -> bytes."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def without_vendored(files: dict[str, bytes]) -> dict[str, bytes]:
    return {path: data for path, data in files.items() if path not in VENDORED}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        built = without_vendored(build_golden_site(Path(tmp)))
    before = read_tree(GOLDEN) if GOLDEN.is_dir() else {}
    if GOLDEN.is_dir():
        shutil.rmtree(GOLDEN)
    for path, data in built.items():
        target = GOLDEN / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    added = sorted(built.keys() - before.keys())
    removed = sorted(before.keys() - built.keys())
    changed = sorted(path for path in built.keys() & before.keys() if built[path] != before[path])
    for mark, paths in (("added", added), ("removed", removed), ("changed", changed)):
        for path in paths:
            print(f"{mark:>8}  {path}")
    print(f"{GOLDEN.relative_to(ROOT)}: {len(built)} files, {sum(map(len, built.values())):,} bytes; "
          f"{len(added)} added, {len(removed)} removed, {len(changed)} changed", file=sys.stderr)


if __name__ == "__main__":
    main()
