r"""Abstract Markdown with TeX math -> safe HTML and its plain text, in one pass.

Abstracts are untrusted Markdown with inline TeX (`$...$`, `\(...\)`) and
display TeX (`$$...$$`, `\[...\]`). Python-Markdown reads them with raw HTML
switched off (it is escaped, never passed through) and headings switched off (a
line like "#1 ranked" is not a heading in an abstract), through an extension
built on its public API only:

- markdown_limits refuses input nested or long past the limits, with its line;
- math_spans finds the formulas before Markdown's escapes and emphasis, and
  mathml typesets each through an allow-list;
- html_writer writes the tree through an allow-list, and its plain text: each
  formula carries its readable text in an attribute the writer drops from the
  HTML and puts in the text instead.
"""

from __future__ import annotations

import functools
import html
import re
import threading
from html.entities import codepoint2name
from xml.etree.ElementTree import Element

import markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString, code_escape

from .html_writer import PLAIN_ATTR, AllowListWriter, WrittenHtml
from .limits import Limits, MarkupError, clean
from .markdown_limits import AfterInline, BeforeInline, NestedLines
from .math_spans import MathPattern
from .mathml import typeset
from .tex_text import tex_to_text

__all__ = ["render_abstract", "render_markdown", "render_title"]


def _math_to_html(tex: str, display: bool, source: str) -> Element:
    math = typeset(tex, display, source)
    math.set(PLAIN_ATTR, tex_to_text(tex))
    return math


class _CharacterReference(InlineProcessor):
    """`&amp;`, `&#42;`...: put aside in Markdown's stash, as its own 'entity' does, and
    recorded in `stashed` (placeholder -> reference) for the writer, which decodes it.

    The placeholder keeps the reference out of reach of every pattern, also when
    Markdown runs them again over the text of an element it made (emphasis): a
    `$` on each side of one does not make a formula.
    """

    def __init__(self, md: markdown.Markdown, stashed: dict[str, str]):
        super().__init__(r"&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);", md)
        self.stashed = stashed

    def handleMatch(self, m, data):
        placeholder = self.md.htmlStash.store(m.group(0))
        self.stashed[placeholder] = m.group(0)
        return placeholder, m.start(0), m.end(0)


class _MailLink(InlineProcessor):
    """`<name@example.org>`: a mailto link.

    Markdown's own 'automail' writes the address letter by letter as character
    references (named where HTML 4 has a name) behind its placeholder for '&'. This
    gives the letters as those references read, HTML5's reading of the names included:
    the same page.
    """

    def __init__(self, md: markdown.Markdown):
        super().__init__(r"<([^<> !]+@[^@<> ]+)>", md)

    def handleMatch(self, m, data):
        email = self.unescape(m.group(1)).removeprefix("mailto:")
        link = Element("a", {"href": code_escape(_as_references_read("mailto:" + email, named=False))})
        link.text = AtomicString(code_escape(_as_references_read(email, named=True)))
        return link, m.start(0), m.end(0)


def _as_references_read(text: str, named: bool) -> str:
    return html.unescape("".join(f"&{codepoint2name[code]};" if named and code in codepoint2name else f"&#{code};"
                                 for code in map(ord, text)))


# Code spans, links and images all need a ` or a [. Markdown's patterns for code
# spans and links open with a lookbehind, so Python's re tries them at every
# position of every text; most abstracts hold neither character and are read by a
# Markdown without those patterns (nor the image ones), which gives the same tree.
_CODE_AND_LINKS = ("backtick", "reference", "link", "image_link", "image_reference", "short_reference",
                   "short_image_ref")


class _AbstractMarkdown(Extension):
    """Markdown for abstracts, through Python-Markdown's public extension points."""

    def __init__(self, convert_math, code_and_links: bool):
        super().__init__()
        self.convert_math = convert_math
        self.code_and_links = code_and_links
        self.limits = Limits()
        self.stashed: dict[str, str] = {}  # character references Markdown holds: placeholder -> reference

    def reset(self) -> None:
        self.limits.reset()
        self.stashed.clear()

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.registerExtension(self)  # for reset()
        limits = self.limits
        # After 'normalize_whitespace' (30), which keeps lines one for one.
        md.preprocessors.register(NestedLines(md, limits), "nested_lines", 29)
        md.treeprocessors.register(BeforeInline(md, limits), "before_inline", 21)
        md.treeprocessors.register(AfterInline(md, limits), "after_inline", 19)
        md.preprocessors.deregister("html_block")  # raw block HTML -> escaped text
        md.inlinePatterns.deregister("html")       # raw inline HTML -> escaped text
        md.parser.blockprocessors.deregister("hashheader")
        md.parser.blockprocessors.deregister("setextheader")
        md.ESCAPED_CHARS.append("$")  # so "\$5" is a literal dollar
        # Markdown lists <math> as block-level (for raw HTML) and would prettify
        # newlines around it; here it is always inline content.
        md.block_level_elements.remove("math")
        # Above 'escape' (180) so TeX backslashes survive; below 'backtick' (190)
        # so `$x$` in a code span stays code.
        md.inlinePatterns.register(MathPattern(self.convert_math, limits), "math", 185)
        # Markdown's own 'entity' and 'automail' leave what they make where only its
        # internals can read it (its stash's list, its placeholder for '&'); these
        # leave it where the writer can. Same places: after 'autolink' (120) and
        # 'linebreak' (100), before emphasis (60).
        md.inlinePatterns.deregister("automail")
        md.inlinePatterns.register(_MailLink(md), "mail_link", 110)
        md.inlinePatterns.deregister("entity")
        md.inlinePatterns.register(_CharacterReference(md, self.stashed), "character_reference", 80)
        if not self.code_and_links:
            for name in _CODE_AND_LINKS:
                md.inlinePatterns.deregister(name)
        # Last of all (after 'unescape', 0), the allow-list writes the tree;
        # its HTML replaces Markdown's serialization of the empty root it leaves.
        writer = AllowListWriter(md, self.stashed)
        md.treeprocessors.register(writer, "allow_list", -100)
        md.postprocessors.register(WrittenHtml(writer), "allow_list", -100)


def _build_markdown(code_and_links: bool) -> markdown.Markdown:
    return markdown.Markdown(output_format="html", extensions=[_AbstractMarkdown(_math_to_html, code_and_links)])


_local = threading.local()  # Markdown instances are stateful: one per thread


def _markdown(text: str) -> markdown.Markdown:
    """The thread's Markdown for `text`, reset."""
    code_and_links = "`" in text or "[" in text
    instances = getattr(_local, "instances", None)
    if instances is None:
        instances = _local.instances = {}
    md = instances.get(code_and_links)
    if md is None:
        md = instances[code_and_links] = _build_markdown(code_and_links)
    return md.reset()


# One line of ordinary text, as most abstracts are, is one paragraph to Markdown: it starts
# no block (a list item starts - + * or a number and . or ); a rule - * or _) and holds no
# inline pattern (each needs \ ` * _ [ < & $ or a line break); printable, it holds nothing
# clean() drops, and without & < > nothing to escape. Its HTML and text are then known
# without Markdown; tests/test_plain_paragraph.py holds them to Markdown's.
# Two expressions: one alternation tried at every character is slower than both together.
_MARKUP_CHARACTER = re.compile(r"[\\`*_\[\]<>&$]")
_BLOCK_START = re.compile(r"[-+]|[0-9]+[.)]")


def _plain_paragraph(text: str) -> tuple[str, str] | None:
    """render_abstract(text) when `text` is one line of ordinary text, else None."""
    if text[:1] in ("", " ") or not text.isprintable() or _BLOCK_START.match(text) or \
            _MARKUP_CHARACTER.search(text):
        return None
    # Printable text has no whitespace but spaces: single ones inside leave nothing to join.
    return f"<p>{text}</p>", text if "  " not in text and text[-1] != " " else " ".join(text.split())


def render_abstract(text: str) -> tuple[str, str]:
    """Abstract Markdown (with TeX math) -> (safe HTML fragment, plain text), in one pass.

    Raises MarkupError for input past a limit (MAX_NESTING, MAX_TEX_LENGTH...).
    """
    return _plain_paragraph(text) or _render_with_markdown(text)


def _render_with_markdown(text: str) -> tuple[str, str]:
    text = clean(text)
    md = _markdown(text)
    writer = md.treeprocessors["allow_list"]
    writer.plain = ""  # Markdown skips its processors for blank input
    try:
        return md.convert(text), writer.plain
    except RecursionError:  # not expected within the limits: still a clear message
        raise MarkupError("nested too deeply to render (emphasis, links, lists or quotes inside "
                          "each other)") from None


def render_markdown(text: str) -> str:
    """Abstract Markdown (with TeX math) -> safe, well-formed HTML fragment."""
    return render_abstract(text)[0]


@functools.lru_cache(maxsize=1 << 16)  # every listing a paper is in shows its title
def render_title(text: str) -> str:
    """A title as safe HTML: its $math$ typeset like the abstract's, the rest escaped.

    Titles are one line and rarely hold math; when they do (e.g. "$\\ell_p$
    Space") it should look like the abstract does.
    """
    if "$" not in text:
        return html.escape(text, quote=False)
    try:
        rendered = render_markdown(text)
    except MarkupError:  # past a limit: shown as it was written
        return html.escape(text, quote=False)
    return rendered.removeprefix("<p>").removesuffix("</p>").strip() if rendered.count("<p>") == 1 \
        else html.escape(text, quote=False)
