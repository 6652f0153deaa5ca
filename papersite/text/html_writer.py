"""Markdown's tree -> allowed HTML and its plain text, in one walk.

The last tree processor of the abstract extension (markdown_html) writes the tree
through an allow-list: only known elements and attributes survive, link URLs are
checked, every text is read as a browser would read Markdown's own output (entities
decoded) and escaped again. This makes the output well-formed whatever Markdown did
with odd input such as `&#0;`.
"""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import Element

import markdown
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from .limits import clean
from .mathml import MATHML_ATTRIBUTES, MATHML_ELEMENTS, TEX_CLASS, TEX_DISPLAY_CLASS

__all__ = ["ALLOWED_ELEMENTS", "HTML_ELEMENTS", "PLAIN_ATTR", "SAFE_URL_SCHEMES", "AllowListWriter", "WrittenHtml",
           "is_safe_url"]

HTML_ELEMENTS = frozenset(
    "p br hr em strong code pre blockquote ul ol li a".split())
ALLOWED_ELEMENTS = HTML_ELEMENTS | MATHML_ELEMENTS

SAFE_URL_SCHEMES = frozenset({"http", "https", "mailto"})

# A formula's readable text, for the text side; never reaches the output: not on the allow-list.
PLAIN_ATTR = "data-papersite-plain"

_VOID = frozenset({"br", "hr", "img"})
_WORD_BREAKS = frozenset({"br", "hr", "p", "li", "blockquote", "pre"})


def is_safe_url(url: str) -> bool:
    """http(s), mailto or relative. `url` must already be entity-decoded."""
    # Browsers ignore controls and whitespace inside a scheme ("java\tscript:").
    compact = re.sub(r"[\x00-\x20\x7f-\x9f]+", "", url)
    head = re.split(r"[/?#]", compact, maxsplit=1)[0]
    if ":" not in head:
        return True  # relative
    return head.split(":", 1)[0].lower() in SAFE_URL_SCHEMES


def _allowed_attrs(tag: str, attrs: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    kept = []
    for name, value in attrs:
        value = clean(value or "")
        if tag == "a" and name == "href" and is_safe_url(value):
            kept.append((name, value))
        elif tag == "a" and name == "title":
            kept.append((name, value))
        elif tag == "code" and name == "class" and value in (TEX_CLASS, TEX_DISPLAY_CLASS):
            kept.append((name, value))
        elif tag == "ol" and name == "start" and value.isdigit() and len(value) < 10:
            kept.append((name, value))
        elif tag == "math" and name == "display" and value == "block":
            kept.append((name, value))
        elif tag in MATHML_ELEMENTS and tag != "math" and name in MATHML_ATTRIBUTES:
            kept.append((name, value))
    return kept


class AllowListWriter(Treeprocessor):
    """Markdown's tree -> allowed HTML (`html`) and its plain text (`plain`), in one walk.

    Run as the last tree processor. Only allowed elements and
    attributes are written: others are unwrapped (their text stays), images
    become their alt text, links without a safe href are unwrapped. Every
    text and attribute value is read as a browser would read Markdown's own
    serialization (its escaping, its stashed HTML restored, every character
    reference decoded), then
    escaped again: the output is well-formed whatever the input, such as
    `&#0;`. The text side reads like the page (block elements and images
    separate words) and takes a formula's text from its PLAIN_ATTR instead
    of its MathML.
    """

    def __init__(self, md: markdown.Markdown, stashed: dict[str, str]):
        super().__init__(md)
        self.stashed = stashed  # what Markdown's stash holds for this text: placeholder -> its HTML
        self.html = self.plain = ""

    def run(self, root: Element) -> Element:
        self.out: list[str] = []
        self.text: list[str] = []
        self.placeholders = re.compile("|".join(map(re.escape, self.stashed))) if self.stashed else None
        self._children(root, in_link=False, in_formula=False)
        self.html = "".join(self.out).strip()
        self.plain = " ".join(clean("".join(self.text)).split())  # str.split's whitespace is re's \s
        return Element(root.tag)  # nothing left for Markdown to write

    def _data(self, value: str | None, in_formula: bool) -> None:
        if value:
            data = self._read(value, _escape_text)
            if not in_formula:
                self.text.append(data)
            self.out.append(html.escape(data, quote=False))

    def _children(self, el: Element, in_link: bool, in_formula: bool) -> None:
        self._data(el.text, in_formula)
        for child in el:
            self._element(child, in_link, in_formula)
            self._data(child.tail, in_formula)

    def _element(self, el: Element, in_link: bool, in_formula: bool) -> None:
        tag = el.tag
        attrs = [(name, self._read(value, _escape_attribute)) for name, value in sorted(el.items())]
        if not in_formula:
            if tag == "img":
                self.text.append(" " + (dict(attrs).get("alt") or "") + " ")
            elif tag in _WORD_BREAKS:
                self.text.append(" ")
            for name, value in attrs:
                if name == PLAIN_ATTR:
                    self.text.append(value)
                    in_formula = True
        if tag == "img":
            self.out.append(html.escape(dict(attrs).get("alt") or "", quote=False))
            return
        attrs = _allowed_attrs(tag, attrs)
        keep = tag in ALLOWED_ELEMENTS
        if tag == "a":
            keep = not in_link and any(n == "href" for n, _ in attrs)  # a safe href, and no nested link
            in_link = in_link or keep
        if keep:
            self.out.append("<" + tag + "".join(f' {n}="{html.escape(v, quote=True)}"' for n, v in attrs) + ">")
        if tag not in _VOID:
            self._children(el, in_link, in_formula)
            if keep:
                self.out.append(f"</{tag}>")

    def _read(self, value: str, escape) -> str:
        """What a browser reads in `value` as Markdown writes it with `escape`."""
        if not _TO_READ.search(value):
            return value  # plain text of the cleaned input: read as it is
        value = escape(value)
        if self.placeholders and "\x02" in value:
            value = self.placeholders.sub(lambda m: self.stashed[m.group()], value)
        return clean(html.unescape(value))


class WrittenHtml(Postprocessor):
    """The allow-list's HTML as Markdown's output."""

    def __init__(self, writer: AllowListWriter):
        super().__init__()
        self.writer = writer

    def run(self, text: str) -> str:
        return self.writer.html


# How Markdown escapes what it writes (its serializer's rules): an `&` that
# starts a character reference is kept, so "&copy;" in the tree reads "©".
_BARE_AMP = re.compile(r"&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)", re.I)
# What escaping, stashing or a reference could change.
_TO_READ = re.compile('[&<>"\x02\x03]')


def _escape_text(text: str) -> str:
    if "&" in text:
        text = _BARE_AMP.sub("&amp;", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    return _escape_text(text).replace('"', "&quot;")
