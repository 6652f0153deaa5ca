"""How big a site is, and whether GitHub Pages publishes it."""
from __future__ import annotations

import re
from typing import Iterable

PAGES_LIMIT = 10 ** 9  # bytes: GitHub Pages publishes no site larger than 1 GB


def too_big_for_pages(size: int, optional: dict[str, int]) -> str | None:
    """What to say of a site of `size` bytes that GitHub Pages would not publish (None: it would);
    `optional`: how many of those bytes each name `omit:` takes would save (optional_bytes)."""
    if size <= PAGES_LIMIT:
        return None
    saving = [f"{name} ({in_megabytes(bytes_)})" for name, bytes_ in sorted(optional.items(), key=lambda kv: -kv[1])
              if bytes_]
    hint = f"; site.yaml's omit: can leave out {', '.join(saving)}" if saving else ""
    return f"the site is {in_megabytes(size)}, and GitHub Pages publishes sites of at most 1 GB (README.md: Deploy{hint})"


def optional_bytes(sizes: Iterable[tuple[str, int]]) -> dict[str, int]:
    """(output path, bytes) of every file -> the bytes of the files each `omit:` name stands for."""
    from ..source.config import OMITTABLE
    kinds = [(name, re.compile(pattern)) for name, pattern in OMITTABLE.items()]
    found = dict.fromkeys(OMITTABLE, 0)
    for path, size in sizes:
        if path.startswith(("authors/", "papers/")):  # where they all are: most paths are tested no further
            for name, pattern in kinds:
                if pattern.fullmatch(path):
                    found[name] += size
                    break
    return found


def in_megabytes(size: int) -> str:
    """Bytes as people read a site's size: 840 KB, 2.6 MB, 1,430 MB."""
    if size < 10 ** 6:
        return f"{size / 1000:,.0f} KB"
    return f"{size / 10 ** 6:.1f} MB" if size < 10 ** 7 else f"{size / 10 ** 6:,.0f} MB"


def size_warnings(size: int, optional: dict[str, int]) -> list[str]:
    too_big = too_big_for_pages(size, optional)
    return [f"warning: {too_big}"] if too_big else []
