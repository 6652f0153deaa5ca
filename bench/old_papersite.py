"""papersite's functions as they were at an older commit, for the benchmarks that compare
derived titles and topics against it: the whole package is unpacked from git under another
name, so its model file and modules come along."""
from __future__ import annotations

import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Where each function lived: the modules of papersite that held it, newest layout first.
_HOMES = {"derive_title": ("importers.titles", "derive"), "assign_topics": ("importers.topics", "derive")}


def old_derive(commit: str, *names: str):
    """derive_title (or the functions named, from _HOMES) as papersite was at commit: its whole
    package unpacked from git under another name, so its model file and modules come along."""
    name = f"papersite_{commit}"
    if name not in sys.modules:
        folder = Path(tempfile.mkdtemp())
        archive = subprocess.run(["git", "archive", commit, "papersite"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        (folder / "papersite").rename(folder / name)
        sys.path.insert(0, str(folder))
    found = []
    for wanted in names or ("derive_title",):
        for home in _HOMES[wanted]:
            try:
                module = importlib.import_module(f"{name}.{home}")
            except ModuleNotFoundError:
                continue
            found.append(getattr(module, wanted))
            break
    return found if names else found[0]
