"""One whole site, byte for byte, against a committed copy (as Pelican's functional tests do).

tests/fixtures/golden_site/ is built with the real pipeline into a temp folder, and every file of
the output is compared with tests/golden/small_catalog/: the same paths, the same bytes. A change
of the output that is meant is committed with the tree it gives, rewritten by

    .venv/bin/python -m tests.regen_golden

(see tests/regen_golden.py). On a mismatch the failure lists the missing and the extra paths and
shows a unified diff of the first differing text files.
"""
from __future__ import annotations

import difflib

import pytest

from tests.regen_golden import GOLDEN, VENDORED, build_golden_site, read_tree, without_vendored

SHOWN_DIFFS = 3  # differing files shown in full diff; the others are listed
DIFF_LINES = 80  # lines of each diff shown


def compare_trees(expected: dict[str, bytes], built: dict[str, bytes]) -> str:
    """'' when the two trees are the same; else a readable report of how they differ."""
    missing = sorted(expected.keys() - built.keys())
    extra = sorted(built.keys() - expected.keys())
    differing = sorted(path for path in expected.keys() & built.keys() if expected[path] != built[path])
    if not (missing or extra or differing):
        return ""
    report = [f"the built site differs from {GOLDEN.name}/: {len(missing)} missing, {len(extra)} extra, "
              f"{len(differing)} differing files (if the change is meant: python -m tests.regen_golden)"]
    report += [f"missing (in {GOLDEN.name}/, not built): {path}" for path in missing]
    report += [f"extra (built, not in {GOLDEN.name}/): {path}" for path in extra]
    for path in differing[:SHOWN_DIFFS]:
        try:
            old, new = expected[path].decode("utf-8"), built[path].decode("utf-8")
        except UnicodeDecodeError:
            report.append(f"binary file {path} differs: {len(expected[path]):,} bytes expected, "
                          f"{len(built[path]):,} built")
            continue
        diff = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                         f"golden/{path}", f"built/{path}"))
        if not diff:  # the same lines: the difference is in line endings or a final newline
            diff = [f"{path}: same lines, different bytes (line endings or final newline?)\n"]
        shown = diff[:DIFF_LINES] + ([f"... {len(diff) - DIFF_LINES} more diff lines\n"]
                                     if len(diff) > DIFF_LINES else [])
        report.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                              for line in shown).rstrip("\n"))
    report += [f"also differs: {path}" for path in differing[SHOWN_DIFFS:]]
    return "\n".join(report)


def test_the_small_catalog_builds_exactly_the_committed_site(tmp_path):
    assert GOLDEN.is_dir(), f"{GOLDEN} is missing: python -m tests.regen_golden writes it"
    built = build_golden_site(tmp_path)
    for path, source in VENDORED.items():  # copies: compared with their sources, not committed
        assert built[path] == source.read_bytes(), path
    report = compare_trees(read_tree(GOLDEN), without_vendored(built))
    if report:
        pytest.fail(report, pytrace=False)


def test_the_comparison_reports_missing_extra_and_differing_files():
    expected = {"a.html": b"<p>one</p>\n<p>two</p>\n", "gone.txt": b"x", "same.css": b"a{}", "img.bin": b"\xff\x00"}
    built = {"a.html": b"<p>one</p>\n<p>TWO</p>\n", "new.txt": b"y", "same.css": b"a{}", "img.bin": b"\xff\x01"}
    report = compare_trees(expected, built)
    assert report.splitlines()[0].startswith("the built site differs from small_catalog/: "
                                             "1 missing, 1 extra, 2 differing files")
    assert "missing (in small_catalog/, not built): gone.txt" in report
    assert "extra (built, not in small_catalog/): new.txt" in report
    assert "--- golden/a.html\n+++ built/a.html\n@@ -1,2 +1,2 @@\n <p>one</p>\n-<p>two</p>\n+<p>TWO</p>" in report
    assert "binary file img.bin differs: 2 bytes expected, 2 built" in report
    assert "same.css" not in report
    assert compare_trees(expected, dict(expected)) == ""
