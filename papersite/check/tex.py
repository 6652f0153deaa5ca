r"""Stray TeX and unbalanced math in titles, names and abstracts.

Outside math, Markdown shows TeX as typed: `5\%`, `Schr{\"o}dinger`, `\emph{x}` and `{BERT}`
reach the page with their backslashes and braces (BibTeX exports are full of them). Accents,
`\%`, `\&`, case-protecting braces and `\emph`/`\textit`/`\textbf` have one sure meaning, which
`fix_text` writes; other commands (`\cite{...}`) are only reported. `\_`, `\#`, `\$`, `\*` are
Markdown's own escapes and are left alone.
"""
from __future__ import annotations

import re
import unicodedata

from ..text.math_spans import MATH_RE, MATH_START, _formula_end

_MATH = re.compile(MATH_START + MATH_RE + ")", re.S)  # as the renderer compiles it: MATH_START skips ahead
_TEX_LIKE = re.compile(r"[\\${}]")  # what every finding here needs
# Text that is not prose: code spans, link destinations, autolinks and bare URLs.
_VERBATIM = re.compile(r"`[^`\n]*`|\]\([^)\s]*\)|<[A-Za-z][\w+.-]*:[^>\s]*>|https?://\S+")

_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
            ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
            "r": "\u030a"}
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ",
            "oe": "œ", "OE": "Œ", "i": "ı"}
_BASE = r"(?:\\i(?![A-Za-z])|[A-Za-z])"
_ACCENT = re.compile(
    r"\{\\(?P<s1>['`^\"~=.])\s*(?P<b1>" + _BASE + r"|\{" + _BASE + r"\})\}"  # {\"o}, {\"{o}}
    r"|\{\\(?P<w1>[uvHckr])\s*(?P<b2>\{" + _BASE + r"\}|\s" + _BASE + r")\}"  # {\v{s}}, {\v s}
    r"|\\(?P<s2>['`^\"~=.])\s*(?P<b3>\{" + _BASE + r"\}|" + _BASE + r")"  # \"o, \"{o}
    r"|\\(?P<w2>[uvHckr])(?P<b4>\{" + _BASE + r"\})"  # \v{s}
    r"|\{\\(?P<l1>ss|aa|AA|ae|AE|oe|OE|o|O|l|L)\}|\\(?P<l2>ss|aa|AA|ae|AE|oe|OE|o|O|l|L)\{\}")
_SYMBOL = re.compile(r"\\([%&])")
_STYLE = re.compile(r"\\(emph|textit|textbf)\{([^{}*\\$\n]+)\}")
_MARKS = {"emph": "*", "textit": "*", "textbf": "**"}
# {BERT}, {B}ayesian: BibTeX's case protection, a word with a capital (other braces may be meant)
_BRACED = re.compile(r"(?<![\\A-Za-z}\]])\{([A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
# A `$` the renderer left as text, or \( and \[ left open; a price ($5, US$5) is text meant
_DOLLARS = re.compile(r"(?<!\\)\$+|\\\(|\\\[")


def _stray_dollar(text: str, start: int, end: int) -> re.Match | None:
    """The first `$` (or `\\(`, `\\[`) between start and end, in text outside formulas, that is no price."""
    for match in _DOLLARS.finditer(text, start, end):
        at, after = match.start(), match.end()
        price = match.group() == "$" and text[after:after + 1].isdigit() and text[at - 1:at] != "$"
        if not price:
            return match
    return None


def _accented(match: re.Match) -> str:
    if match["l1"] or match["l2"]:
        return _LETTERS[match["l1"] or match["l2"]]
    accent = match["s1"] or match["w1"] or match["s2"] or match["w2"]
    base = (match["b1"] or match["b2"] or match["b3"] or match["b4"]).strip().strip("{}")
    base = "i" if base == "\\i" else base
    return unicodedata.normalize("NFC", base + _ACCENTS[accent])


def _formulas(text: str) -> list[re.Match | tuple[int, int]]:
    """(start, end) of each formula as the renderer finds it (math_spans.MathPattern), a `$` formula
    holding formulas of its own in a text macro included."""
    spans, at = [], 0
    while match := _MATH.search(text, at):
        end = match.end()
        opened = match["dt"] is not None
        if opened or (match["di"] and match["di"].count("{") > match["di"].count("}")):
            tex_end, _ = _formula_end(text, match.start("dt" if opened else "di"))
            if tex_end is not None and tex_end >= match.end():
                end, opened = tex_end + 1, False
        if not opened:
            spans.append((match.start(), end))
        at = end
    return spans


def _prose(text: str) -> list[tuple[int, int]]:
    """(start, end) of the text outside math, code and URLs."""
    kept = sorted(_formulas(text) + [m.span() for m in _VERBATIM.finditer(text)])
    pieces, at = [], 0
    for start, end in kept:
        if start >= at:
            pieces.append((at, start))
            at = end
    pieces.append((at, len(text)))
    return [(s, e) for s, e in pieces if s < e]


def _fixed_prose(text: str) -> str:
    text = _ACCENT.sub(_accented, text)
    text = _SYMBOL.sub(r"\1", text)
    text = _STYLE.sub(lambda m: f"{_MARKS[m[1]]}{m[2]}{_MARKS[m[1]]}", text)
    return _BRACED.sub(r"\1", text)


def fix_text(text: str) -> str:
    """`text` with the sure fixes made outside math, code and URLs (the same text when none applies);
    idempotent."""
    out, at = [], 0
    for start, end in _prose(text):
        if _stray_dollar(text, start, end):
            continue  # part of a formula left open, maybe: not prose to fix
        out.append(text[at:start])
        out.append(_fixed_prose(text[start:end]))
        at = end
    out.append(text[at:])
    return "".join(out)


def tex_problems(text: str) -> list[tuple[int, str, bool]]:
    """(offset, message, sure fix) of each stray TeX escape and unbalanced formula in `text`."""
    if not _TEX_LIKE.search(text):
        return []
    found = []
    for start, end in _formulas(text):
        tex = text[start:end]
        depth = 0
        for token in re.findall(r"\\.|[{}]", tex):
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth < 0:
                break
        if depth:
            found.append((start, f"unbalanced braces in the formula {_short(tex)}", False))
    for start, end in _prose(text):
        piece = text[start:end]
        # searched in `text`, bounded: the lookbehinds see what precedes the piece ($$ is no opener)
        opener = _stray_dollar(text, start, end)
        if opener:
            before = text[max(0, opener.start() - 20):opener.start()]
            before = before.partition(" ")[2] if opener.start() > 20 else before.lstrip()  # from a word's start
            found.append((opener.start(), f"'{opener.group()}' shows as typed: a formula here is not closed, or its "
                                          "closing $ follows a space or comes before a digit: "
                                          f"{_short(before + text[opener.start():end].partition(chr(10))[0], 60)}", False))
            continue  # the braces and commands of a formula left open are not stray
        for match in _ACCENT.finditer(piece):
            found.append((start + match.start(), f"TeX accent {match.group()} shows as typed; write "
                                                 f"'{_accented(match)}'", True))
        for match in _SYMBOL.finditer(piece):
            found.append((start + match.start(), f"{match.group()} shows as typed; write '{match[1]}'", True))
        for match in _STYLE.finditer(piece):
            found.append((start + match.start(), f"\\{match[1]}{{...}} shows as typed; write Markdown "
                                                 f"{_MARKS[match[1]]}...{_MARKS[match[1]]}", True))
        for match in _BRACED.finditer(piece):
            found.append((start + match.start(), f"braces {_short(match.group())} show as typed (BibTeX's case "
                                                 "protection?); remove them", True))
        covered = {s for m in [*_ACCENT.finditer(piece), *_STYLE.finditer(piece)] for s in range(*m.span())}
        commands = [m for m in _COMMAND.finditer(piece) if m.start() not in covered]
        if commands:
            names = list(dict.fromkeys(f"\\{m[1]}" for m in commands))
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            found.append((start + commands[0].start(), f"TeX outside math shows as typed: {shown} (put the formula "
                                                       "between $ signs)", False))
    return sorted(found)


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return f"'{text}'" if len(text) <= limit else f"'{text[:limit - 1]}…'"
