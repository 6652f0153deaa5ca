"""Text helpers the readers share: LaTeX to Unicode, TeX's quotes and dashes in any format
(tex_punctuation), whitespace, dates, identifiers, names.

Math (`$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`) is always kept exactly as written: the site
typesets it. Everything else is decoded to plain Unicode, or to Markdown for abstracts.
"""
from __future__ import annotations

import bisect
import logging
import re
from functools import lru_cache

from pylatexenc import latexwalker, macrospec
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from ..source.yamlsource import FORBIDDEN_CHARACTERS

# pylatexenc logs what it cannot convert; the text is kept as written, which is all a reader can do.
logging.getLogger("pylatexenc").addHandler(logging.NullHandler())

MATH = re.compile(r"(?<!\\)\$\$.+?(?<!\\)\$\$|(?<!\\)\$.+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\]"
                  r"|\\begin\{(?P<env>equation|align|alignat|gather|multline|eqnarray|displaymath|math)(?P<star>\*?)\}"
                  r".*?\\end\{(?P=env)(?P=star)\}", re.S)
# URLs must reach the page byte for byte: LaTeX would read `~` as a space and `%` as a comment.
_URL_MACRO = re.compile(r"\\url\s*\{([^{}]*)\}")
_HREF_MACRO = re.compile(r"\\href\s*\{([^{}]*)\}")
_BARE_URL = re.compile(r"https?://[^\s{}\\<>\"]+[^\s{}\\<>\".,;:!?)\]]")
_HOLD = "\ue000{}\ue001"  # private-use characters: pylatexenc passes them through untouched
_HELD = re.compile("\ue000(\\d+)\ue001")
# A bare % would start a LaTeX comment and swallow the rest of the line; & is an alignment tab.
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]+")


def _macros(markdown: bool) -> list[MacroTextSpec]:
    def spec(name, md, plain):
        return MacroTextSpec(name, simplify_repl=md if markdown else plain)

    return [
        spec("emph", "*%s*", "%s"), spec("textit", "*%s*", "%s"), spec("textsl", "*%s*", "%s"),
        spec("textbf", "**%s**", "%s"), spec("texttt", "`%s`", "%s"),
        spec("url", "<%s>", "%s"), spec("href", "[%(2)s](%(1)s)", "%(2)s"),
        spec("footnote", " (%(2)s)", " (%(2)s)"), spec("cite", "[%(4)s]", "[%(4)s]"),
        spec("citep", "[%(4)s]", "[%(4)s]"), spec("citet", "[%(4)s]", "[%(4)s]"),
        spec("LaTeX", "LaTeX", "LaTeX"), spec("TeX", "TeX", "TeX"), spec("BibTeX", "BibTeX", "BibTeX"),
    ]


@lru_cache(maxsize=2)
def _decoder(markdown: bool) -> LatexNodes2Text:
    db = get_default_latex_context_db()
    db.add_context_category("papersite", prepend=True, macros=_macros(markdown))
    return LatexNodes2Text(latex_context=db, math_mode="verbatim", keep_braced_groups=False)


@lru_cache(maxsize=1)
def _walker_context():
    """The parser's macro table, plus \\href's two arguments (the default knows only \\url)."""
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category("papersite", prepend=True, macros=[macrospec.MacroSpec("href", "{{")])
    return db


def latex_to_text(value: str, markdown: bool = False) -> str:
    """Decode a LaTeX field (BibTeX): accents, protective braces, dashes, quotes; math kept.

    `markdown` turns \\emph, \\textbf, \\href, \\url into Markdown (for abstracts).
    Only the macros and braced groups go through pylatexenc (it reads about 12,000 characters
    a second); the plain text between them needs no more than its dashes, quotes and ties.
    tex_punctuation reads the quotes and dashes of plain text too; a BibTeX field is TeX
    throughout, so what it leaves (`--flag`, a lone ``) is then read as TeX reads it.
    Raises on input the decoder cannot handle (the caller reports the entry).
    """
    if not any(c in value for c in "\\{}~-`'"):
        return value
    held: list[str] = []

    def hold(url: str) -> str:
        held.append(url)
        return _HOLD.format(len(held) - 1)

    text = value
    if "\ue000" in text or "\ue001" in text:  # the placeholders' own characters are held too, as they are
        text = re.sub("[\ue000\ue001]", lambda m: hold(m[0]), text)
    if "\\url" in text:
        text = _URL_MACRO.sub(lambda m: "\\url{" + hold(m[1].strip()) + "}", text)
    if "\\href" in text:
        text = _HREF_MACRO.sub(lambda m: "\\href{" + hold(m[1].strip()) + "}", text)
    if "://" in text:
        text = _BARE_URL.sub(lambda m: hold(m[0]), text)
    # The quotes first, on the whole field: braces and macros cut it into pieces a quote spans.
    text = _decode(tex_punctuation(text), markdown)
    return _HELD.sub(lambda m: held[int(m[1])], text) if held else text


# A TeX field escaped once more by its exporter (PMLR's proceedings sources): `\$i\\in[K]\$`,
# `\\textit\{Stage I\}`. Its backslashes are doubled and its braces and dollars escaped.
_ESCAPE_TOKEN = re.compile(r"\\(.)|[{}$]", re.S)
_ESCAPED_MACRO = re.compile(r"[A-Za-z'`^\"~=.]")


def undo_double_escape(value: str) -> str:
    """The TeX a doubly escaped field meant (`\\\\in` -> `\\in`, `\\{` -> `{`, `\\$` -> `$`), or the
    field as it is unless it is consistently so: at least one doubled backslash before a macro
    name or accent, and no bare brace or dollar nor a single-backslash macro, which would mean
    the field is ordinary TeX (where `\\$` is a literal dollar and `\\{` a literal brace)."""
    if "\\\\" not in value:
        return value
    evidence = False
    for match in _ESCAPE_TOKEN.finditer(value):
        char = match[1]
        if char is None or char.isalpha():  # a bare {, } or $, or a macro: singly escaped TeX
            return value
        if char == "\\" and _ESCAPED_MACRO.match(value, match.end()):
            evidence = True
    if not evidence:
        return value
    return _ESCAPE_TOKEN.sub(lambda m: m[1] if m[1] and m[1] in "\\{}$%&_#" else m[0], value)


def _decode(text: str, markdown: bool) -> str:
    maths = [m.span() for m in MATH.finditer(text)] if "$" in text or "\\(" in text or "\\[" in text else []
    out, pos, next_math, size = [], 0, 0, len(text)
    while pos < size:
        while next_math < len(maths) and maths[next_math][1] <= pos:
            next_math += 1
        math = maths[next_math] if next_math < len(maths) else (size, size)
        if math[0] <= pos:
            out.append(text[pos:math[1]])
            pos = math[1]
        elif text[pos] == "{" and not text.startswith("{\\", pos):  # protective braces: drop them
            pos += 1  # and its closing brace below, as one that closes nothing: one pass however deep
        elif text[pos] in "\\{":
            end = _island_end(text, pos)
            out.append(_decoder(markdown).latex_to_text(_escape_specials(text[pos:end]),
                                                        latex_context=_walker_context(), tolerant_parsing=True))
            pos = end
        elif text[pos] == "}":  # a brace that closes nothing
            pos += 1
        else:
            found = _LATEX_START.search(text, pos)
            stop = min(found.start() if found else size, math[0])
            out.append(_ligatures(text[pos:stop]))
            pos = stop
    return "".join(out)


_LATEX_START = re.compile(r"[\\{}]")
_LIGATURES = re.compile(r"---|--|``|''|~")
_LIGATURE = {"---": "\u2014", "--": "\u2013", "``": "\u201c", "''": "\u201d", "~": " "}
_QUOTE_MARKS = {2: (_LIGATURE["``"], _LIGATURE["''"]), 1: ("\u2018", "\u2019")}  # by the opening backticks
_ACCENTS = "'`^\"~=.uvHtcdbkr"


def _ligatures(text: str) -> str:
    return _LIGATURES.sub(lambda m: _LIGATURE[m.group()], text)


# TeX's text punctuation in any source. Plain text (JSON, CSV, RIS, XML, seed text) holds it
# beside Markdown, where a backtick opens a code span, `--` starts a command-line flag and a line
# of `---` is a rule: only what is TeX's beyond doubt is converted, the rest stays as typed.
_PUNCT_HOLD = "\ue002{}\ue003"  # not latex_to_text's marks: it holds its URLs before calling this
_PUNCT_HELD = re.compile("\ue002(\\d+)\ue003")
_VERBATIM = re.compile(f"{MATH.pattern}|{_BARE_URL.pattern}", re.S)
_BLANK_LINE = re.compile(r"(\n[ \t]*\n\s*)")  # a code span or a quote ends with its paragraph
_TICKS_OR_DASHES = re.compile(r"`+|(?<!-)-{2,3}(?!-)")  # four dashes or more are a separator, not a dash
_TICKS = re.compile(r"`+")
_WHITESPACE = re.compile(r"\s")
# A quote's closing mark ends a word: "`the model's view'" closes after "view", not in "model's".
_DOUBLE_CLOSED = re.compile(r"((?:[^`]|`(?!`))+?)(?<!\\)(?:''|’’)(?!['’])")
_DOUBLE_CLOSED_STRAIGHT = re.compile(r'((?:[^`"]|`(?!`))+?)"')  # ``teacher NN": a common slip
_SINGLE_CLOSED = re.compile(r"([^`]+?)(?<![\\\s])['’](?![\w'’`])")
_BEFORE_EN_DASH = (")", "]", "%", "\ue003")  # beside a word, a number or held math: 1--2, $k$--$n$
_AFTER_EN_DASH = ("(", "[", "\ue002")


def tex_punctuation(text: str) -> str:
    """TeX's quotes and dashes as the characters TeX prints: ``a'' and ``a" -> “a”, `a' -> ‘a’,
    --- -> —, and -- between two words or numbers, or between spaces -> –.

    Math and URLs stay exactly as written, and so does a Markdown code span (`x--y`, ``DoWhy``):
    a backtick is a TeX quote only when a closing quote ends its word before any closing
    backtick. `--flag`, a lone `` or '', and a line of dashes (a Markdown rule) stay as typed.
    """
    if "`" not in text and "--" not in text:
        return text
    held: list[str] = []

    def hold(match: re.Match) -> str:
        held.append(match[0])
        return _PUNCT_HOLD.format(len(held) - 1)

    if "\ue002" in text or "\ue003" in text:
        text = re.sub("[\ue002\ue003]", hold, text)
    text = _VERBATIM.sub(hold, text)
    parts = _BLANK_LINE.split(text)
    text = "".join(part if i % 2 else _punctuate(part) for i, part in enumerate(parts))
    return _PUNCT_HELD.sub(lambda m: held[int(m[1])], text) if held else text


def _punctuate(text: str) -> str:
    """One paragraph's quotes and dashes (its math and URLs held)."""
    runs: dict[int, list[int]] = {}  # backtick run length -> where such runs start: a code span's closing one
    for run in _TICKS.finditer(text):
        runs.setdefault(len(run[0]), []).append(run.start())
    out, pos = [], 0
    while found := _TICKS_OR_DASHES.search(text, pos):
        start, end, token = found.start(), found.end(), found[0]
        out.append(text[pos:start])
        pos = end
        if token[0] == "-":
            out.append(_dash(text, start, end))
            continue
        if start and text[start - 1] == "\\":  # TeX's grave accent, or Markdown's escaped backtick
            out.append(token)
            continue
        starts = runs[len(token)]
        following = bisect.bisect_right(starts, start)
        closer = starts[following] if following < len(starts) else None  # of a code span, if this opens one
        quote = _quote(text, end, len(token))
        if quote is not None and closer is not None and not _WHITESPACE.search(text, quote.end(), closer):
            quote = None  # `print('a')`: the closing backtick ends the same word, so the span is code
        if quote is not None:
            opening, closing = _QUOTE_MARKS[len(token)]
            out.append(opening + _punctuate(quote[1]) + closing)
            pos = quote.end()
        elif closer is not None:  # a code span: kept whole, as typed
            pos = closer + len(token)
            out.append(text[start:pos])
        else:
            out.append(token)
    out.append(text[pos:])
    return "".join(out)


def _quote(text: str, pos: int, ticks: int) -> re.Match | None:
    """The quoted text and its closing mark after an opening `` or ` that ends at pos; None if none closes it."""
    if ticks == 1:
        return _SINGLE_CLOSED.match(text, pos)
    if ticks == 2:
        return _DOUBLE_CLOSED.match(text, pos) or _DOUBLE_CLOSED_STRAIGHT.match(text, pos)
    return None


def _dash(text: str, start: int, end: int) -> str:
    before = text[start - 1] if start else "\n"
    after = text[end] if end < len(text) else "\n"
    if end - start == 3:
        line_end = text.find("\n", end)
        line = text[text.rfind("\n", 0, start) + 1:line_end if line_end >= 0 else len(text)]
        return "---" if not line.strip(" \t-") else _LIGATURE["---"]  # a line of dashes is a Markdown rule
    if (before.isalnum() or before in _BEFORE_EN_DASH) and (after.isalnum() or after in _AFTER_EN_DASH) \
            or before in " \t" and after in " \t":
        return _LIGATURE["--"]
    return "--"  # --verbose, i--


def _escape_specials(text: str) -> str:
    pieces, last = [], 0
    for math in MATH.finditer(text):
        pieces.append(_BARE_SPECIAL.sub(r"\\\1", text[last:math.start()]))
        pieces.append(math.group())
        last = math.end()
    pieces.append(_BARE_SPECIAL.sub(r"\\\1", text[last:]))
    return "".join(pieces)


def _group_end(text: str, pos: int, close: str = "}") -> int:
    """The index after the brace (or bracket) closing the one at pos; the end of text if none does."""
    depth, i, size, opening = 0, pos, len(text), text[pos]
    while i < size:
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == opening:
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return size


def _island_end(text: str, pos: int) -> int:
    """Where the macro (with its arguments) or the braced group starting at pos ends."""
    size = len(text)
    if text[pos] == "{":
        return _group_end(text, pos)
    i = pos + 1
    if i >= size:
        return size
    if not text[i].isalpha():
        i += 1
        if text[pos + 1] in _ACCENTS and i < size and not text[pos + 1].isalpha():
            if text[i] == "{":
                return _group_end(text, i)
            if text[i] == "\\":
                return _island_end(text, i)
            if text[i].isalpha():
                return i + 1
        return i
    while i < size and text[i].isalpha():
        i += 1
    if i < size and text[i] == "*":
        i += 1
    if text[pos + 1:i] in _ACCENTS and len(text[pos + 1:i]) == 1 and i < size and text[i] == " ":
        return min(i + 2, size)  # \\c c, \\v s
    while True:
        k = i
        while k < size and text[k] in " \t":
            k += 1
        if k < size and text[k] == "{":
            i = _group_end(text, k)
        elif k < size and text[k] == "[" and text[pos + 1:pos + 5] == "cite":
            i = _group_end(text, k, "]")
        else:
            return i


# A macro with its braced arguments, or a braced accent group such as {\"o}.
# Only text macros: accents, escaped specials, emphasis, links. Anything else in plain text
# (\\underline, \\frac outside $...$) is more likely math with lost dollars than LaTeX to decode.
_TEXT_MACRO = (r"(?:['`^\"~=.]|[cvuHdbkr](?![A-Za-z]))\s?(?:\{\\?[A-Za-z]?\}|\\?[A-Za-z])"
               r"|[%&#_${}]|(?:ss|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)(?![A-Za-z])(?:\{\})?"
               r"|(?:emph|textit|textbf|texttt|textsl|textsc|textrm|url|href|footnote|LaTeX|TeX)(?![A-Za-z])"
               r"(?:\s*\{[^{}]*\})*")
_MACRO_RUN = re.compile(r"\{\{\\(?:" + _TEXT_MACRO + r")\}\}|\{\\(?:" + _TEXT_MACRO + r")\}|\\(?:" + _TEXT_MACRO + ")")


def light_latex(value: str, markdown: bool = False) -> str:
    """Decode only the LaTeX macros of mostly plain text (JSON, CSV, RIS, XML): `\\'e`, `\\emph{}`,
    and TeX's quotes and dashes where they are unmistakable (tex_punctuation).

    Plain sources use `~`, `%`, `&`, `{}` and `--flag` as ordinary characters, so only
    backslash macros outside math are decoded; everything else stays as written.
    """
    if "\\" not in value:
        return tex_punctuation(value)
    pieces, last = [], 0
    for math in [*MATH.finditer(value), None]:
        end = math.start() if math else len(value)
        segment = value[last:end]
        if "\\" in segment:
            segment = _MACRO_RUN.sub(lambda m: _decode_run(m.group(), markdown), segment)
        pieces.append(segment)
        if math:
            pieces.append(math.group())
            last = math.end()
    return tex_punctuation("".join(pieces))


def _decode_run(run: str, markdown: bool) -> str:
    try:
        return latex_to_text(run, markdown)
    except Exception:  # a macro pylatexenc cannot read stays as written
        return run


def inline(text: str) -> str:
    """One line: whitespace runs to one space, control characters dropped."""
    if not text.isprintable():
        text = FORBIDDEN_CHARACTERS.sub("", text)
    return " ".join(text.split())


def paragraphs(text: str, keep_lines: bool = False) -> str:
    """Paragraphs separated by one blank line, spaces collapsed.

    `keep_lines` keeps single line breaks inside a paragraph (plain-text sources, where a
    line break is the author's: list items, addresses); else they are wrapping and become spaces.
    """
    text = FORBIDDEN_CHARACTERS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    out = []
    for block in re.split(r"\n[ \t\u00a0]*\n\s*", text):
        lines = [_SPACES.sub(" ", line).strip() for line in block.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            out.append("\n".join(lines) if keep_lines else " ".join(lines))
    return "\n\n".join(out)


MONTHS = {name: number for number, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
     ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
     ("oct", "october"), ("nov", "november"), ("dec", "december")], start=1) for name in names}
_ISO = re.compile(r"^\s*(\d{4})(?:[-/.](\d{1,2})?(?:[-/.](\d{1,2})?)?)?[-/.]*(?:[T ][\d:.]+Z?[+\-\d:]*)?\s*$")


def parse_date(text: str | int | None) -> tuple[int | None, str]:
    """'2024-07-21', '2024/07/21/', '2024///', '2024-07', 'July 2024', 2024 -> (year, 'YYYY[-MM[-DD]]')."""
    if text is None:
        return None, ""
    text = str(text).strip()
    match = _ISO.match(text)
    if match:
        year, month, day = match[1], match[2], match[3]
        return _assemble(int(year), int(month) if month else None, int(day) if day else None)
    year = re.search(r"\b(1[89]\d\d|20\d\d)\b", text)
    if not year:
        return None, ""
    month = next((MONTHS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in MONTHS), None)
    return _assemble(int(year[1]), month, None)


def _assemble(year: int, month: int | None, day: int | None) -> tuple[int | None, str]:
    if not 1000 <= year <= 2999:
        return None, ""
    if month is None or not 1 <= month <= 12:
        return year, f"{year:04d}"
    if day is None or not 1 <= day <= 31:
        return year, f"{year:04d}-{month:02d}"
    return year, f"{year:04d}-{month:02d}-{day:02d}"


def month_number(text: str) -> int | None:
    text = text.strip().lower().rstrip(".")
    if text.isdigit():  # and not "²", nor 5,000 digits, which int() refuses
        return int(text) if re.fullmatch(r"0?[1-9]|1[0-2]", text) else None
    return MONTHS.get(text)


_DOI = re.compile(r"(10\.\d{4,9}/\S+)")
_ARXIV_NEW = re.compile(r"(?<!\d)(?<!\d\.)(\d{4}\.\d{4,5})(v\d+)?(?!\d)")
_ARXIV_OLD = re.compile(r"([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?")


def bare_doi(text: str) -> str:
    """'https://doi.org/10.1/x', 'doi:10.1/x' -> '10.1/x'; '' when there is none."""
    match = _DOI.search(text.strip())
    return match[1].rstrip(".,;") if match else ""


def arxiv_id(text: str) -> str:
    """An arXiv id without its version, from an id, abs/pdf URL, 'arXiv:...' or arXiv DOI."""
    text = text.strip()
    match = _ARXIV_NEW.search(text)
    if match:
        return match[1]
    match = _ARXIV_OLD.search(text)
    return match[1] if match else ""


def openreview_id(text: str) -> str:
    """The note id of an OpenReview forum/pdf URL, or a bare id."""
    text = text.strip()
    match = re.search(r"openreview\.net/(?:forum|pdf|attachment)\?(?:.*&)?id=([A-Za-z0-9_\-]+)", text)
    if match:
        return match[1]
    return text if re.fullmatch(r"[A-Za-z0-9_\-]{6,}", text) else ""


def url_link(text: str) -> str:
    """The value as an http(s) URL, or '' (relative paths and file names are not links)."""
    text = text.strip()
    if re.match(r"^https?://[^\s/]+\S*$", text, re.IGNORECASE):
        return text
    if re.match(r"^www\.[^\s/]+\.\w+\S*$", text):
        return "https://" + text
    return ""


# TeX's escapes in a BibTeX url, doi or eprint field, which the field's URL means as the
# characters themselves: `10.1007/3-540-60164-3\_27`, `p\#a`, `\~{}user`, `{\textasciitilde}user`.
_URL_ESCAPE = re.compile(r"\{\\(textasciitilde|textunderscore)\}|\\(textasciitilde|textunderscore)(?:\{\}|\s+|(?![A-Za-z]))"
                         r"|\{\\(~)(?:\{\})?\}|\\(~)(?:\{\})?|\{\\([_#%&$])\}|\\([_#%&$])")
_URL_CHARACTER = {"textasciitilde": "~", "textunderscore": "_"}
# `{https://...}` (a field braced twice) and `\url{https://...}`: the URL is what is inside
_URL_WRAPPED = re.compile(r"\s*(?:\\url\s*)?\{([^{}]*)\}\s*")


def tex_url(value: str) -> str:
    """A URL, DOI or arXiv id as a BibTeX field writes it, as it is meant: TeX's escapes of
    `_ # % & $ ~` decoded and a wrapping `\\url{}` or brace pair dropped; nothing else changes
    (no dashes or quotes made typographic, no accents)."""
    if "\\" in value:
        value = _URL_ESCAPE.sub(lambda m: next(_URL_CHARACTER.get(g, g) for g in m.groups() if g), value)
    wrapped = _URL_WRAPPED.fullmatch(value)
    return wrapped[1] if wrapped else value


def link_for(kind: str, value: str) -> str:
    """A links entry for a field: a URL, or a DOI/arXiv id expanded to one; '' when unusable."""
    value = value.strip()
    if kind == "doi":
        doi = bare_doi(value)
        return f"https://doi.org/{doi}" if doi else ""
    if kind == "arxiv":
        found = url_link(value) if "arxiv.org" in value else ""
        if found:
            return found
        aid = arxiv_id(value)
        return f"https://arxiv.org/abs/{aid}" if aid else ""
    if kind == "openreview" and not value.lower().startswith("http"):
        oid = openreview_id(value)
        return f"https://openreview.net/forum?id={oid}" if oid else ""
    return url_link(value)


_STATUS_WORDS = ("oral", "spotlight", "poster")


def status_from(text: str) -> str:
    """A decision or venue text ('Accept (oral)', 'ICLR 2024 spotlight') to a status; '' when none."""
    low = text.lower()
    for word in _STATUS_WORDS:
        if re.search(rf"\b{word}\b", low):
            return word
    match = re.search(r"notable[\s\-_]*top[\s\-_]*(\d+)\s*%?", low)
    if match:
        return f"notable top {match[1]}%"
    if "desk" in low and "reject" in low:
        return "desk rejected"
    if re.search(r"\breject", low):
        return "rejected"
    if "withdraw" in low:
        return "withdrawn"
    if re.search(r"(?:^|/)submission$", low):  # an OpenReview venueid: no decision yet
        return "under review"
    return ""


def split_list(text: str) -> list[str]:
    """Keywords: split on '|', else ';', else ','; empty items dropped."""
    for separator in ("|", ";", ","):
        if separator in text:
            return [inline(part) for part in text.split(separator) if part.strip()]
    return [inline(text)] if text.strip() else []


_SUFFIX = re.compile(r"^(?:Jr|Sr|Jun|Sen)\.?$|^(?:II|III|IV|V|VI)$", re.IGNORECASE)


def name_first_last(name: str) -> str:
    """'Lovelace, Ada' -> 'Ada Lovelace'; 'King, Jr., Martin' -> 'Martin King Jr.'; else as is."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and all(parts):
        return inline(f"{parts[1]} {parts[0]}")
    if len(parts) == 3 and all(parts):  # BibTeX's 'Last, Jr, First' or RIS's 'Last, First, Suffix'
        if _SUFFIX.match(parts[2]):
            return inline(f"{parts[1]} {parts[0]} {parts[2]}")
        return inline(f"{parts[2]} {parts[0]} {parts[1]}")
    return inline(name.strip(" ,"))


_INITIAL = re.compile(r"^(?:[A-Z]\.)+(?:-[A-Z]\.)?$|^[A-Z]$")


def _given_names(text: str) -> bool:
    """Whether the text after a lone surname reads as given names: one word, or with an initial."""
    words = text.split()
    return len(words) == 1 or (len(words) <= 3 and any(_INITIAL.match(w) for w in words))


def split_names(cell: str) -> list[str]:
    """A cell of author names to display names, choosing the separator the cell uses.

    'A | B', 'Last, First; Last, First', 'A and B', 'A, B, and C' and 'A, B, C' are lists;
    'Kingma, Diederik P.' (one comma, a surname before it) is one person.
    """
    cell = inline(cell)
    if not cell:
        return []
    if "|" in cell:
        return [name_first_last(p) for p in cell.split("|") if p.strip()]
    if ";" in cell:
        return [name_first_last(p) for p in cell.split(";") if p.strip()]
    if re.search(r"\s+and\s+", cell) and "," not in cell:
        return [inline(p) for p in re.split(r"\s+and\s+", cell) if p.strip()]
    parts = [re.sub(r"^(?:and|&)\s+", "", p.strip()) for p in re.split(r",|\s+and\s+", cell)]
    parts = [p for p in parts if p]
    if len(parts) == 2 and len(parts[0].split()) == 1 and _given_names(parts[1]):
        return [name_first_last(cell)]
    return [inline(p) for p in parts]
