"""The seed text format: a header line naming the venue and year, then abstracts
separated by blank lines.

    ICML 2024 Papers

    Grokking, or delayed generalization, is ...

    Many machine learning tasks can be formulated as ...

Seed abstracts have no title, authors or identifier: the importer derives the
title and topics from the text, and recognises a paper again by its abstract.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import Problem
from ..source.yamlsource import FORBIDDEN_CHARACTERS
from .records import FileProblem, Reader, Record
from .text import tex_punctuation

HEADER = re.compile(r"^(?P<name>.*?\b(?P<year>(19|20)\d\d))\b(?:\s+papers?)?\s*$", re.IGNORECASE)


def read_seed(path: Path, context=None) -> Reader:
    """Records of a seed file, in order; a Problem (file and line) when the file cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        yield FileProblem(path, None, f"not UTF-8 text ({exc.reason})")
        return
    except OSError as exc:
        yield FileProblem(path, None, f"cannot read: {exc.strerror}")
        return
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        yield FileProblem(path, 1, "empty file: expected a header such as 'ICML 2024 Papers'")
        return
    header = HEADER.match(lines[first].strip())
    if not header:
        yield FileProblem(path, first + 1, f"expected a header with a venue and year such as "
                                           f"'ICML 2024 Papers', not '{clean(lines[first])[:60]}'")
        return
    name, year = clean(header["name"]), int(header["year"])
    block, start, count = [], 0, 0
    for number, line in enumerate(lines[first + 1:] + [""], start=first + 2):
        if line.strip():
            if not block:
                start = number
            block.append(line.strip())
        elif block:
            abstract = clean(" ".join(block))
            block = []
            if abstract:  # a block of control characters only is not an abstract
                count += 1
                yield Record(source=path, line=start, number=count, abstract=abstract, year=year, venue=name)
    if not count:
        yield FileProblem(path, first + 1, "no abstracts found after the header")


def clean(text: str) -> str:
    """TeX's quotes and dashes as every reader reads them (text.tex_punctuation): a backtick
    would otherwise open a Markdown code span.

    Control characters are dropped: no page shows them and front matter cannot hold them.
    """
    return tex_punctuation(" ".join(FORBIDDEN_CHARACTERS.sub("", text).split()))
