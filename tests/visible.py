"""What a reader gets from a built site: each page's visible text and what its links lead to.

Two sites are the same to a reader when every page shows the same text, laid
out the same way as far as whitespace goes, and every link on it leads to the
same bytes, wherever those bytes live. Markup a reader never sees (meta tags,
indentation between blocks, class names) may differ.

Whitespace follows CSS's `white-space: normal`: a run of spaces, tabs and
newlines shows as one space, and none shows at the edge of a block (a
paragraph, a list item, a heading); inside <pre> and <textarea> every
character shows.
"""
from __future__ import annotations

import hashlib
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urlsplit

import html5lib

BLOCKS = frozenset("""address article aside blockquote body br dd details dialog div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary table tbody td
    tfoot th thead tr ul""".split())
UNSHOWN = frozenset({"head", "script", "style", "template", "noscript"})
PREFORMATTED = frozenset({"pre", "textarea"})
# attributes whose text a reader meets (as a label, a tooltip or a placeholder), or that change what shows
SHOWN_ATTRIBUTES = ("alt", "title", "placeholder", "aria-label", "value", "hidden", "start", "download", "type",
                    "rel", "id")
BREAK = "\x00"  # a block boundary while the text is collected


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]  # MathML's and SVG's elements come with their namespace


def visible(html: bytes, resolve) -> tuple[str, list[tuple]]:
    """(the page's text as shown, with a newline at each block boundary; its links and the
    attributes a reader meets, in document order). `resolve(href)` says what a link leads to."""
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    parts: list[str] = []
    shown: list[tuple] = []
    title = tree.find("head/title")
    shown.append(("title", title.text if title is not None else None))

    def walk(element, preformatted: bool):
        if not isinstance(element.tag, str):  # a comment: only its tail shows
            return
        tag = _local(element.tag)
        if tag in UNSHOWN:
            return
        block = tag in BLOCKS
        attributes = tuple((name, element.get(name)) for name in SHOWN_ATTRIBUTES if element.get(name) is not None)
        if tag in ("a", "link", "form") or element.get("href") or element.get("src"):
            target = element.get("href") or element.get("src") or element.get("action")
            shown.append((tag, attributes, resolve(target) if target else None))
        elif attributes:
            shown.append((tag, attributes))
        preformatted = preformatted or tag in PREFORMATTED
        if block:
            parts.append(BREAK)
        if element.text:
            parts.append(element.text if preformatted else re.sub(r"[ \t\n\r\f]+", " ", element.text))
        for child in element:
            walk(child, preformatted)
            if child.tail:
                parts.append(child.tail if preformatted else re.sub(r"[ \t\n\r\f]+", " ", child.tail))
        if block:
            parts.append(BREAK)

    body = tree.find("body")
    if body is not None:
        walk(body, False)
    text = "".join(parts)
    # spaces at a block's edge do not show; several boundaries in a row are one
    text = re.sub(f" *{BREAK}[ {BREAK}]*", "\n", text)
    return text.strip("\n"), shown


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


class Site:
    """A built site on disk, as a reader reaches it from `base_path` (e.g. '/' or '/catalog/')."""

    def __init__(self, root: Path, base_path: str = "/"):
        self.root, self.base_path = Path(root), base_path
        self.digests: dict[Path, str] = {}  # most pages link the same feeds and files

    def files(self) -> list[str]:
        return sorted(Path(folder, name).relative_to(self.root).as_posix()
                      for folder, _, names in os.walk(self.root) for name in names)

    def target(self, page: str, href: str):
        """What a link on `page` leads to. Inside the site: another page, by its path (pages are
        compared one by one), or a file by what it holds (the same bytes, or the same XML elements:
        whitespace between them means nothing in a feed), wherever it lives. Outside it, or to a
        missing file (the link check's business): the address as written."""
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "#")) or not parts.path:
            return ("address", href)
        path = unquote(parts.path)
        if path.startswith("/"):
            if not path.startswith(self.base_path):
                return ("address", href)
            relative = path[len(self.base_path):]
        else:
            relative = os.path.normpath(os.path.join(os.path.dirname(page), path)).lstrip("./")
        file = self.root / relative
        if relative == "" or relative.endswith("/") or file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            return ("missing", href)
        if file.suffix == ".html":
            return ("page", file.relative_to(self.root).as_posix(), parts.fragment, parts.query)
        return ("file", self.content(file), parts.fragment, parts.query)

    def content(self, file: Path) -> str:
        if file not in self.digests:
            data = file.read_bytes()
            if file.suffix == ".xml":
                data = ET.canonicalize(data.decode("utf-8"), strip_text=True).encode("utf-8")
            self.digests[file] = digest(data)
        return self.digests[file]

    def page(self, page: str) -> tuple[str, list[tuple]]:
        return visible((self.root / page).read_bytes(), lambda href: self.target(page, href))


def differences(old: Site, new: Site, may_change: frozenset[str] = frozenset(), limit: int = 20) -> list[str]:
    """How `new` differs from `old` for a reader: pages missing or showing other text or links, and
    other files missing or changed (but for `may_change`, e.g. a stylesheet whose effect a browser
    test checks). Files only `new` has are fine: a link that leads there compares by content."""
    found = []
    new_files = set(new.files())
    for path in old.files():
        if len(found) >= limit:
            break
        if path not in new_files:
            if path.endswith(".html"):
                found.append(f"{path}: page gone")
            continue  # a file no page links to any more; a link that led to it compares by content
        if path.endswith(".html"):
            before, after = old.page(path), new.page(path)
            if before[0] != after[0]:
                found.append(f"{path}: text differs: {_first_difference(before[0], after[0])}")
            elif before[1] != after[1]:
                pairs = [(a, b) for a, b in zip(before[1], after[1]) if a != b]
                found.append(f"{path}: links or attributes differ: {pairs[:1] or (len(before[1]), len(after[1]))}")
        elif path not in may_change and old.content(old.root / path) != new.content(new.root / path):
            found.append(f"{path}: content differs")
    return found


def _first_difference(a: str, b: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at {at}: {a[max(0, at - 40):at + 40]!r} vs {b[max(0, at - 40):at + 40]!r}"
