"""Derive titles and topics for abstracts that arrive without them.

Everything here is a pure function of its inputs (no I/O), so builds are
deterministic and easy to test.

Titles: abstracts announce their contribution in a few stock ways ("we propose
X, a ...", "we introduce Long Name (ACR)", "we show that ...", "this paper
studies ..."). We collect every such phrase as a scored candidate, keep the best
one and shape it into a title (clause cut, length cap, title case).

Topics: keyword/phrase matches against a taxonomy (default_topics.yaml), with
light stemming so "diffusion model" also matches "diffusion models".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["derive_title", "assign_topics", "MAX_TITLE_LEN"]

MAX_TITLE_LEN = 90

# ---------------------------------------------------------------------------
# Word lists
# ---------------------------------------------------------------------------

# Lower-cased in titles unless first or right after a colon (Chicago style,
# which is what "GALA3D: Generative 3D Gaussians with Layout-Guided Control" uses).
_SMALL_WORDS = frozenset(
    "a an the and but or nor for of on in to at by with from as into via vs "
    "versus over per upon onto than under across between through toward towards "
    "within without among amid beyond about against".split()
)
# Prepositions/conjunctions before which a long title may be cut.
_CUT_WORDS = frozenset(
    "for of on in to at by with from via under across through toward towards "
    "within without using when where while whereas that which and as beyond "
    "during after before".split()
)
# Heads that say nothing by themselves ("a novel approach for X" -> "X").
_GENERIC_HEADS = (
    "approach|method|framework|technique|system|pipeline|paradigm|strategy|"
    "scheme|algorithm|procedure|solution|tool|recipe|way"
)
# Adjectives that add nothing to a title.
_FILLER_ADJ = frozenset(
    "novel new simple effective powerful general-purpose principled unified "
    "lightweight comprehensive rigorous in-depth non-trivial nontrivial "
    "first first-ever various several different specific "
    "recently-introduced recently-proposed".split()
)
# "simple yet effective", "simple and efficient": self-praise, not content.
_PRAISE = (r"(?<![\w-])(?:simple|effective|efficient|powerful|novel|elegant)"
           r"\s+(?:yet|and|but|,)\s+(?:simple|effective|efficient|powerful|general|versatile|scalable)\b")
# Adverbs that hedge or intensify claims ("is actually much more ...").
_HEDGES = re.compile(
    r"\b(?:actually|already|indeed|also|surprisingly|significantly|substantially|"
    r"consistently|frequently|simply|much|further|often|generally|largely|"
    r"remarkably|highly|theoretically|empirically|comprehensively|effectively)\s+",
    re.I,
)
# Sentence openers that mark the main contribution / a side remark.
_MAIN_MARK = re.compile(
    r"^(?:In this (?:\w+ )?(?:paper|work|study|article)|This (?:paper|work|study)|"
    r"Here,|We propose|We introduce|We present)",
    re.I,
)
_SIDE_MARK = re.compile(
    r"^(?:Finally|Additionally|Moreover|Furthermore|Further|Besides|Also|Then|"
    r"Second|Secondly|Third|Lastly|In addition|As a (?:case study|result|"
    r"consequence)|Experiments?|Empirically|Notably|For example|For instance|"
    r"Extensive|Our (?:code|experiments)|Code)\b",
    re.I,
)

_SUBJ = r"(?:\bwe|\bthis (?:paper|work|study|article)|\bour (?:paper|work|study))"
_ADVS = r"(?:\s+(?:\w+ly|first|then|further|also|now|here|thus|therefore|next))*"

_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"  # private-use marks around masked math
_PH = re.compile(f"{_PH_OPEN}(\\d+){_PH_CLOSE}")


# ---------------------------------------------------------------------------
# Text preparation
# ---------------------------------------------------------------------------

_TEXT_MACRO = re.compile(
    r"\\(?:textbf|texttt|textit|textsc|textrm|text|mathrm|mathbf|mathtt|mathit|emph)"
    r"\s*\{([^{}]*)\}"
)


@dataclass
class _Ctx:
    """What the title heuristics know about one abstract."""

    math: list[str]
    sentences: list[str]
    acronyms: dict[str, str] = field(default_factory=dict)  # ACR -> long form
    known_as: str | None = None  # concept named by "known as X"
    lead: str | None = None  # topic of the first sentence ("Grokking, or ...")


def _mask_math(text: str) -> tuple[str, list[str]]:
    """Replace $...$ by placeholders so no heuristic looks inside math.

    Math that only wraps text ($\\textbf{\\texttt{Lingual-SMoE}}$) or a number
    is unwrapped instead: it is prose in disguise.
    """
    spans: list[str] = []

    def repl(m: re.Match) -> str:
        inner = m.group(1)
        plain = inner
        for _ in range(3):
            plain = _TEXT_MACRO.sub(r"\1", plain)
        plain = plain.strip("{} ")
        if (plain != inner and not re.search(r"[\\^_{}]", plain)) or re.fullmatch(
            r"[\d.,%+-]+", plain
        ):
            return plain
        spans.append(m.group(0))
        return f"{_PH_OPEN}{len(spans) - 1}{_PH_CLOSE}"

    return re.sub(r"\$([^$]+)\$", repl, text), spans


def _clean(abstract: str) -> tuple[str, list[str]]:
    text = " ".join(abstract.split())
    text, spans = _mask_math(text)
    text = text.replace("$", "")  # an unbalanced dollar left over from broken math
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # markdown links
    text = re.sub(r"https?://\S+", "", text)
    # Quotes and emphasis become plain double quotes: they often mark a name.
    for a, b in (("’’", '"'), ("''", '"'), ("``", '"'), ("“", '"'), ("”", '"'),
                 ("‘", "'"), ("’", "'"), ("—", " — "), ("–", " – ")):
        text = text.replace(a, b)
    text = re.sub(r"`([^`'\"]+)'", r'"\1"', text)
    text = re.sub(r"\*\*(.+?)\*\*", r'"\1"', text)
    text = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r'"\1"', text)
    return " ".join(text.split()), spans


_ABBREV_END = re.compile(
    r"\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|resp|w\.r\.t|approx|a\.k\.a|aka)\.$", re.I
)


def _split_sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"(\[\ue000])", text)
    out: list[str] = []
    for p in parts:
        if out and _ABBREV_END.search(out[-1]):
            out[-1] += " " + p
        else:
            out.append(p)
    return out


def _initials(words: list[str]) -> list[str]:
    """First letters of words and of their hyphenated parts."""
    out = []
    for w in words:
        for part in re.split(r"[-/]", w):
            if part[:1].isalnum():
                out.append(part[0].lower())
    return out


def _is_subsequence(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(c in it for c in needle)


def _long_form(acr: str, before: str) -> str | None:
    """The words before "(ACR)" that the acronym abbreviates, if any."""
    letters = [c.lower() for c in acr if c.isupper()]
    if len(letters) < 2:
        return None
    words = re.findall(r"[\w'-]+", before)[-(len(letters) + 3):]
    for start in range(len(words) - 1, -1, -1):
        first = _initials([words[start]])
        if first and first[0] == letters[0] and _is_subsequence(
            letters, _initials(words[start:])
        ):
            return " ".join(words[start:])
    return None


def _looks_like_acronym(tok: str) -> bool:
    if not re.fullmatch(r"[A-Za-z][\w.+-]{1,23}", tok):
        return False
    uppers = sum(c.isupper() for c in tok)
    return uppers >= 2 or (uppers >= 1 and any(c.isdigit() for c in tok))


def _context(text: str, spans: list[str]) -> _Ctx:
    sentences = _split_sentences(text)
    ctx = _Ctx(math=spans, sentences=sentences)
    for m in re.finditer(r"\(([^()\s]{2,24})\)", text):
        acr = m.group(1)
        if _looks_like_acronym(acr) and acr not in ctx.acronyms:
            long = _long_form(acr, text[: m.start()])
            if long:
                ctx.acronyms[acr] = long
    m = re.search(r"\bknown as (?:the )?([\w' -]+?)(?:[,.;]| states| is| and)", text)
    if m and not re.search(r"\b(?:this|these|such)\b", m.group(1)):
        ctx.known_as = m.group(1).strip()
    m = re.match(r"([A-Z][\w-]*(?: [a-z][\w-]*){0,2}),? (?:or|is|are|has|have)\b",
                 sentences[0] if sentences else "")
    if m and m.group(1).split()[0].lower() not in ("the", "a", "an", "in", "many"):
        ctx.lead = m.group(1)
    return ctx


# ---------------------------------------------------------------------------
# Phrase shaping
# ---------------------------------------------------------------------------


def _strip_parens(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"\s*\([^()]*\)", "", s)
        s = re.sub(r"\s*\[[^\[\]]*\]", "", s)
    # Dash asides: "disparities – performance, privacy – are ..."
    s = re.sub(r"\s+[–—]\s+[^–—]+\s+[–—]\s+", " ", s)
    s = re.sub(r"\s+--\s+[^-]+\s+--\s+", " ", s)
    return s


def _strip_appositives(s: str) -> str:
    # ", the leading algorithm in RL," is an aside, not part of the phrase.
    s = re.sub(r",\s+(?:the|a|an)\s+[^,]{3,70},\s+", " ", s)
    return re.sub(r",\s+(?:the|a|an)\s+[^,]{3,120}\.?$", "", s)


# Where a noun phrase or clause stops being title material.
_BOUNDARY = re.compile(
    "|".join((
        r"\s*[;:.!?](?:\s|$)",  # sentence-internal punctuation
        r"\s[–—]\s|—",  # dash aside
        r",\s+(?:which|where|whereby|who|whose|while|thereby|thus|hence|and|but|so|"
        r"i\.e\.|e\.g\.|namely|designed|inspired|based|such as|since|because|"
        r"as well as|with|in which|\w+ing)\b",  # ", which ...", ", leveraging ..."
        r",\s+(?:we|it|they|our)\b",  # a new clause
        r"\s+(?:which|where|whereby|wherein|if|whenever|unless|provided that)\s",
        r"\s+(?:but rather|as long as|in order to)\b",
        r"\s+and (?:the|a|an|its|their|our|we|thus|hence|then)\b",  # "... and the implications"
        r"\s+and (?:then )?(?:propose|introduce|present|show|develop|use|apply|demonstrate|"
        r"provide|derive|establish|find|prove|study|analy[sz]e|evaluate|validate|achieve|obtain)\b",
        r"\s+(?:\w+ly\s+)?(?:defined|proposed|introduced|developed|studied|considered|known) "
        r"(?:by|in)\b",  # "... recently defined by Rubinfeld and Vasilyan"
    )),
    re.I,
)


def _cut_clause(s: str, keep_that: bool = False) -> str:
    for m in _BOUNDARY.finditer(s):
        # "the behavior, representativeness, and content of X" is a list, not a clause.
        if re.match(r",\s+and\b", m.group(0)) and "," in s[: m.start()] and not re.match(
            r"\s*(?:we|it|they|the|a|an|its|their|our|thus|hence|then|\w+ly)\b", s[m.end():]
        ):
            continue
        if re.fullmatch(r",\s+\w+ing", m.group(0)) and re.match(r"[^,]*,\s+(?:and|or)\b", s[m.end():]):
            continue  # "RPS, pruning techniques, and ..." is a list item, not a participle
        s = s[: m.start()]
        break
    if not keep_that:
        s = re.split(r"\s+that\s+", s, maxsplit=1)[0]
    return s.strip(" ,")


def _drop_trailing_pronoun_pp(s: str) -> str:
    # "... based on our self-conditioned flow matching objective" -> cut the PP.
    return re.sub(
        r"\s+(?:based on|in|on|of|for|with|from|to|by|within)\s+(?:one of )?"
        r"(?:our|its|their|his|her)\b.*$",
        "",
        s,
    )


def _drop_single_letter_math(s: str, ctx: _Ctx) -> str:
    """'graph $G$' -> 'graph': one-letter variables mean nothing out of context."""

    def repl(m: re.Match) -> str:
        inner = ctx.math[int(m.group(1))].strip("$")
        if re.fullmatch(r"[A-Za-z]'?|\\[A-Za-z]+", inner.strip()):
            return ""
        return m.group(0)

    # Only where the variable trails a noun ("graph $G$ into"), not "$k$ components".
    s = re.sub(_PH.pattern + r"(?=\s*(?:$|[,.;:)]|(?:for|of|on|in|to|into|with|from|as|and|or|by|"
               r"via|using|under|that|which|is|are)\b))", repl, s)
    return " ".join(s.split())


def _restore(s: str, ctx: _Ctx) -> str:
    return _PH.sub(lambda m: ctx.math[int(m.group(1))], s)


def _display_len(s: str, ctx: _Ctx) -> int:
    return len(_restore(s, ctx))


def _fix_articles(s: str) -> str:
    def repl(m: re.Match) -> str:
        art, word = m.group(1), m.group(2)
        if word.isupper() and len(word) > 1:  # acronym: "an ML model", "a GAN"
            vowel = word[0] in "AEFHILMNORSX"
        else:
            vowel = word[0].lower() in "aeiou" and not re.match(r"(?i)un[ie]|us|one", word)
        new = "an" if vowel else "a"
        return (new.capitalize() if art[0].isupper() else new) + " " + word

    return re.sub(r"\b([Aa]n?) ([\w$\ue000]+)", repl, s)


def _case_word(word: str, force_cap: bool) -> str:
    """Title-case one word, part by part across hyphens ("layout-guided")."""
    parts = re.split(r"(-)", word)
    out = []
    for i, p in enumerate(parts):
        bare = p.strip("\"',.;:")
        if not bare or p == "-" or _PH_OPEN in p or any(c.isupper() for c in p):
            out.append(p)  # acronyms, names, math: keep as written
        elif bare.lower() in _SMALL_WORDS and (i > 0 or (not force_cap and len(parts) == 1)):
            out.append(p.lower())  # "with", "text-to-music", "state-of-the-art"
        else:
            j = p.index(bare[0])
            out.append(p[:j] + p[j].upper() + p[j + 1:])
    return "".join(out)


def _title_case(s: str) -> str:
    words = s.split()
    out = []
    for i, w in enumerate(words):
        force = i == 0 or words[i - 1].endswith(":")
        out.append(_case_word(w, force))
    return " ".join(out)


def _unmix_case(s: str) -> str:
    """'GAussians with LAyout-guided' -> 'Gaussians with Layout-guided'.

    Papers highlight the letters of their acronym inside the expansion; a title
    should not.
    """
    return re.sub(r"\b([A-Z])([A-Z])([a-z]{3,})",
                  lambda m: m.group(1) + m.group(2).lower() + m.group(3), s)


_COMPRESSIONS = (
    (re.compile(r"\b(?:upper and lower|lower and upper) (bounds?)\b", re.I), r"\1"),
    (re.compile(r"\ba (?:family|series|set|suite|class|collection|variety|range) of\s+", re.I), ""),
    (re.compile(r"\bto accommodate\b", re.I), "to"),
    (re.compile(r"\b(algorithms|methods|techniques)\b(?=\s+(?:for|in|on|under|with|$))", re.I), ""),
    (re.compile(r"\b(gradient descent|optimization|learning) (?:algorithms|methods)\b", re.I), r"\1"),
)


def _fit(s: str, ctx: _Ctx, budget: int) -> str | None:
    """Shorten phrase s to at most budget characters, or give up (None)."""
    s = " ".join(s.split()).strip(" ,")
    if _display_len(s, ctx) <= budget:
        return s
    # 1. Drop filler adjectives.
    s = " ".join(w for w in s.split() if w.lower().strip(",") not in _FILLER_ADJ)
    # 2. Stock compressions, then acronyms the abstract itself defines.
    for pat, rep in _COMPRESSIONS:
        if _display_len(s, ctx) <= budget:
            return s
        s = " ".join(pat.sub(rep, s).split())
    # 3. Abbreviate long terms the abstract abbreviates itself; then drop a
    #    trailing qualifier if a substantial title remains; then abbreviate
    #    everything and cut harder.
    acronyms = sorted(ctx.acronyms.items(), key=lambda kv: -len(kv[1]))
    for min_len in (3, 1):
        for acr, long in acronyms:
            if _display_len(s, ctx) <= budget:
                return s
            if len(long.split()) >= min_len:
                s = re.sub(rf"\b{re.escape(long)}s?\b", acr, s, flags=re.I)
        if _display_len(s, ctx) <= budget:
            return s
        cut = _cut_words(s, ctx, budget, min_words=6 if min_len == 3 else 2)
        if cut:
            return cut
    return None


def _cut_words(s: str, ctx: _Ctx, budget: int, min_words: int) -> str | None:
    """Longest prefix that fits and ends right before a preposition/conjunction."""
    words = s.split()
    for i in range(len(words) - 1, min_words - 1, -1):
        if words[i].lower() in _CUT_WORDS:
            head = " ".join(words[:i]).rstrip(",")
            last = words[i - 1].lower().strip(",")
            if last in _SMALL_WORDS or last.endswith("ed") or last in ("and", "or", "be"):
                continue
            tail = re.split(r"\s(?:%s)\s" % "|".join(_CUT_WORDS), " " + head + " ")[-1]
            if "," in tail or re.search(r"\bas an? [\w-]+$", head):
                continue  # would end inside a list / "as a function (of ...)"
            if _display_len(head, ctx) <= budget:
                return head
    return None


def _shape(phrase: str, ctx: _Ctx, budget: int = MAX_TITLE_LEN, keep_that: bool = False,
           keep_article: bool = False) -> str | None:
    """Turn a raw noun phrase / clause into title text (not yet title-cased)."""
    s = _strip_parens(phrase)
    s = re.sub(r"\bthat (?:is|are) (?=\w+ed\b)", "", s)  # "a teacher that is oriented toward"
    s = _strip_appositives(s)
    s = _cut_clause(s, keep_that=keep_that)
    s = _drop_trailing_pronoun_pp(s)
    s = re.sub(r"\bwhen using\b", "with", s)
    s = re.sub(
        r"\bby (?:using|leveraging|exploiting|enjoying|utilizing|harnessing) "
        r"(?:the (?:\w+ )*?(?:power|expressiveness|strength|benefits?|advantages?) of )?",
        "with ",
        s,
    )
    s = re.sub(r"\bsuch (?=[a-z])", "", s)  # "trained on such synthetic data"
    # Words that describe the paper's attitude, not its content.
    s = re.sub(_PRAISE + r"\s+", "", s, flags=re.I)
    s = re.sub(r"(?<![\w-])(?:novel|specific|recently[- ](?:introduced|proposed|developed))\s+",
               "", s, flags=re.I)
    s = re.sub(r"\s+of (?:independent|general|broad) interest\b", "", s)
    s = s.replace('"', "")
    s = _drop_single_letter_math(s, ctx)
    lead_det = r"^(?:its|their|our)\s+" if keep_article else r"^(?:the|its|their|our)\s+"
    s = re.sub(lead_det, "", s, flags=re.I)
    s = s.strip(" ,.;:")
    if not s:
        return None
    return _fit(s, ctx, budget)


_ANAPHORA = re.compile(
    r"\b(?:this|these|those|aforementioned|above-mentioned|former|latter)\b|^(?:it|they)\b", re.I
)


def _resolve_anaphora(s: str, ctx: _Ctx) -> str | None:
    """'this far-reaching theoretical result' -> 'the polar factorization theorem'."""
    if not _ANAPHORA.search(s):
        return s
    if ctx.known_as:
        s2 = re.sub(r"\b(?:this|these)\s+(?:[\w-]+\s+){0,3}?(?:result|theorem|"
                    r"phenomenon|problem|setting|question|issue|effect)\b",
                    "the " + ctx.known_as, s, count=1)
        if not _ANAPHORA.search(s2):
            return s2
    return None


# ---------------------------------------------------------------------------
# Verb morphology (for "we extend X" -> "Extending X")
# ---------------------------------------------------------------------------

_DOUBLE_FINAL = frozenset(
    "equip admit commit submit permit control omit refer prefer occur stop plan "
    "map run set get put begin drop ship scan tap fit wrap trim".split()
)


def _base_verb(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", w):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _gerund(verb: str) -> str:
    v = verb.lower()
    if v.endswith("ing"):
        return v
    if v in _DOUBLE_FINAL:
        return v + v[-1] + "ing"
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    return v + "ing"


def _verb_phrase_to_gerund(vp: str, third_person: bool = False) -> str | None:
    """'further compress trainable parameters' -> 'compressing trainable parameters'."""
    words = vp.split()
    while words and (words[0].lower().endswith("ly")
                     or words[0].lower() in ("further", "first", "then", "also")):
        words = words[1:]
    if not words or not re.fullmatch(r"[a-z]+", words[0]):
        return None
    verb = _base_verb(words[0]) if third_person else words[0]
    if {verb, words[0]} & {"be", "is", "are", "was", "were", "has", "have", "can", "will", "may"}:
        return None
    # "computing or approximating X": keep the last alternative.
    if len(words) > 2 and words[1] == "or" and words[2].endswith("ing"):
        words = words[2:]
        return " ".join(words)
    return " ".join([_gerund(verb)] + words[1:])


# ---------------------------------------------------------------------------
# Candidate generation
# ---------------------------------------------------------------------------


@dataclass(order=True)
class _Cand:
    score: float
    order: int  # earlier in the text wins ties
    title: str = field(compare=False)  # raw (placeholders, not yet finalised)
    kind: str = field(compare=False, default="")


def _sentence_bonus(sent: str, idx: int) -> float:
    bonus = -0.8 * idx  # abstracts lead with their contribution
    if _MAIN_MARK.search(sent):
        bonus += 15
    elif _SIDE_MARK.search(sent) or re.search(r"\bwe (?:also|further|then|additionally)\b", sent, re.I):
        bonus -= 10
    if re.match(r"To (?:address|overcome|tackle|solve|fill|bridge|mitigate|remedy|fix)\b", sent):
        bonus += 5
    return bonus


def _np_title(phrase: str, ctx: _Ctx, budget: int = MAX_TITLE_LEN,
              keep_article: bool = False) -> str | None:
    """Noun phrase after 'we propose' etc. -> title text, or None if unusable."""
    p = phrase.strip()
    p = re.sub(r"^the first(?:-ever)?\s+", "a ", p, flags=re.I)
    p = re.sub(r"^(?:an?|the)\s+(?:novel|new)\s+", lambda m: m.group(0).split()[0] + " ", p, flags=re.I)
    # "a principled approach that utilizes X" -> "utilizing X"
    m = re.match(rf"(?:an?|the)\s+(?:[\w-]+\s+)?(?:{_GENERIC_HEADS}|model)\s+that\s+(\w+)\s+(.*)", p, re.I)
    if m and m.group(1).endswith("s"):
        vp = (m.group(1) + " " + m.group(2))
        vp = re.sub(r"\s+and (?:comes?|come) with\s+", " with ", vp)
        g = _verb_phrase_to_gerund(vp, third_person=True)
        return _shape(g, ctx, budget) if g else None
    p = re.sub(r"^(an?\s+)" + _PRAISE + r"\s+", r"\1", p, flags=re.I)
    p = re.sub(r"\s+results\b(?=\s+(?:using|with|via|on|for|by)\b)", "", p)  # "synthesis results using X"
    m = re.match(rf"(?:an?\s+)?(?:simple\s+)?(?:{_GENERIC_HEADS})\s+(?:for|to)\s+(\w+ing\b.*)", p, re.I)
    if m:
        p = m.group(1)
    elif m := re.match(rf"(?:an?\s+)?(?:simple\s+)?(?:{_GENERIC_HEADS})\s+to\s+([a-z]+\s+.*)", p, re.I):
        p = _verb_phrase_to_gerund(m.group(1)) or p
    p = _resolve_anaphora(_cut_clause(_strip_parens(_strip_appositives(p))), ctx)
    if not p:
        return None
    t = _shape(p, ctx, budget, keep_article=keep_article)
    if not t or len(t.split()) < 2:
        return None
    if re.fullmatch(rf"(?:an?\s+)?(?:[\w-]+\s+)?(?:{_GENERIC_HEADS})", t, re.I):
        return None
    return t


def _claim_title(clause: str, ctx: _Ctx, budget: int = MAX_TITLE_LEN) -> str | None:
    c = clause.strip()
    # "for ERMs on overlapping classes, the performance ... degrades" -> main clause
    m = re.match(r"(?:for|in|under|when|if|as|with|despite|on|using|given)\b[^,]{3,120},\s+(.*)", c, re.I)
    if m:
        c = m.group(1)
    c = _HEDGES.sub("", _strip_parens(c))
    c = _resolve_anaphora(_cut_clause(c, keep_that=True), ctx)
    if not c or len(c.split()) < 3:
        return None
    return _shape(c, ctx, budget, keep_that=True)


def _descriptor(app: str, ctx: _Ctx, budget: int) -> tuple[str | None, bool]:
    """Appositive after a name ('a simple yet powerful approach for learning X')
    -> ('learning X', weak?)."""
    d = _strip_parens(app).strip()
    d = re.split(r",\s+|\s+that\s+|\s+which\s+", d, maxsplit=1)[0]
    d = re.sub(r"^(?:an?|the)\s+", "", d, flags=re.I)
    d = re.sub(r"^(?:series|family|suite|set|class|collection) of\s+", "", d, flags=re.I)
    words = d.split()
    while words and (words[0].lower() in _FILLER_ADJ or words[0].lower() in ("yet", "and", "but")):
        words = words[1:]
    d = " ".join(words)
    m = re.match(rf"(?:{_GENERIC_HEADS}|model)s?\s+(?:for|to)\s+(.*)", d, re.I)
    if m:
        d = m.group(1)
        if re.match(r"[a-z]+\b", d) and not d.split()[0].endswith("ing") and "to" in m.group(0).split():
            d = _verb_phrase_to_gerund(d) or d
    if re.fullmatch(rf"(?:{_GENERIC_HEADS}|model)s?", d, re.I) or len(d.split()) < 2:
        return None, False
    weak = bool(re.match(r"(?:improvement|extension|variant|generalization|modification|"
                         r"version|instance|simplification)\b", d, re.I))
    if _ANAPHORA.search(d):
        return None, False
    return _shape(_unmix_case(d), ctx, budget), weak


def _context_descriptor(ctx: _Ctx, upto: int, budget: int) -> str | None:
    """Purpose of the work stated elsewhere: 'we aim to X', 'the problem of X'."""
    pats = (
        r"\bfeasibility of (\w+ing\b.*)",
        r"\baims? to (.*)",
        r",? i\.e\., (\w+ing\b.*)",
        r"\bproblem of (\w+ing\b.*)",
        r"\bfocus(?:es)? on (\w+ing\b.*)",
    )
    for pat in pats:
        for sent in ctx.sentences[: upto + 1]:
            m = re.search(pat, sent, re.I)
            if not m:
                continue
            vp = _verb_phrase_to_gerund(m.group(1))
            t = _shape(vp, ctx, budget) if vp else None
            if t and len(t.split()) >= 2 and not _ANAPHORA.search(t):
                return t
    return None


_NAME_TRIGGER = re.compile(
    rf"{_SUBJ}{_ADVS}\s+(?:propos|introduc|present|develop|design|call|name|dub|term)(?:e|es|ed|s)?\b"
    r"|\b(?:called|named|dubbed|termed|coined)\b"
    rf"|\bour\b(?:\s+[\w-]+){{0,3}}?\s+(?:{_GENERIC_HEADS}|model|architecture|estimator)\s*,"
    r"|\bour\b",
    re.I,
)
_HEAD_AFTER_ACR = re.compile(
    r"\s+(loss|metric|score|objective|regularizer|layer|kernel|estimator|benchmark|dataset)\b", re.I
)


def _named_with_expansion(sent: str, idx: int, ctx: _Ctx, out: list[_Cand]) -> None:
    """'we introduce Distance Aware Bottleneck (DAB)' -> 'DAB: Distance Aware Bottleneck'."""
    for m in re.finditer(r"\(([^()\s]{2,24})\)", sent):
        acr = m.group(1)
        if not _looks_like_acronym(acr):
            continue
        prefix = sent[: m.start()]
        trig = None
        for t in _NAME_TRIGGER.finditer(prefix):
            trig = t
        if not trig:
            continue
        span = prefix[trig.end():].strip(" ,")
        span = re.sub(r"^(?:(?:an?|the)\s+)?(?:(?:novel|new)\s+)?", "", span, flags=re.I)
        span = re.sub(rf"\s+(?:{_GENERIC_HEADS})$", "", span, flags=re.I)
        words = span.split()
        if not (1 <= len(words) <= 12) or re.match(r"(?:to|that|how)\b", span) or "," in span:
            continue
        content = [w for w in words if w.lower() not in _SMALL_WORDS]
        caps = sum(1 for w in content if w[:1].isupper() or w[:1].isdigit() or _PH_OPEN in w)
        proper = content and caps / len(content) >= 0.6
        ours = trig.group(0).lower().startswith("our")
        initial_match = _initials(words[:1]) == [acr[0].lower()] and _is_subsequence(
            [c.lower() for c in acr if c.isupper()], _initials(words))
        if not (proper or ours or initial_match):
            continue
        head = _HEAD_AFTER_ACR.match(sent[m.end():])
        if head:
            span += " " + head.group(1)
        score = 100.0
        if re.search(r"\b(?:metric|measure|score)\s+(?:called|named)\s*$", prefix[: trig.end()], re.I):
            score -= 10  # an evaluation metric is rarely the headline contribution
        body = _shape(_unmix_case(span), ctx, MAX_TITLE_LEN - len(acr) - 2)
        if body:
            out.append(_Cand(score + _sentence_bonus(sent, idx), -idx,
                             f"{acr}: {_title_case(body)}", "name+exp"))


def _is_name_token(tok: str) -> bool:
    if tok.lower() in _SMALL_WORDS or len(tok) < 3:
        return False
    return any(c.isupper() for c in tok[1:]) or (tok[0].isupper() and tok[1:].replace("-", "").isalpha())


_NAME_TOKEN = r"[A-Za-z][\w.-]*[A-Za-z0-9]"
_N2 = re.compile(
    rf"{_SUBJ}{_ADVS}\s+(?:propos|introduc|present|develop|design|build|releas|creat)(?:e|es|ed|s)?\s+"
    r"(?:(?:the|a|an)\s+)?(?:(?:novel|new)\s+)?"
    rf"(?P<pre>(?:[\w-]+\s+){{0,3}}?(?:{_GENERIC_HEADS}|model|architecture|estimator)\s+)?"
    rf"(?P<name>{_NAME_TOKEN})(?:\s+(?:{_GENERIC_HEADS}|model|architecture|estimator))?"
    r"(?P<rest>(?:,|\s+which\b|\s+by\b|\s+that\b|\s+as\b|\s+for\b|\s+to\b|\s*\.|\s*$).*)",
    re.I,
)
_CALLED_NAME = re.compile(
    rf"(?<!so-)\b(?:called|named|dubbed|termed|coined)\s+(?:as\s+)?(?P<name>{_NAME_TOKEN})"
    r"(?P<rest>[,.]?(?:\s.*)?$)"
)
_NP_THEN_NAME = re.compile(
    rf"{_SUBJ}{_ADVS}\s+(?:propos|introduc|present)(?:e|es|ed|s)?\s+(?P<np>(?:an?)\s+[^,]{{3,80}}),"
    rf"\s+(?:the\s+)?(?P<name>{_NAME_TOKEN})(?P<rest>,.*|\s*\.?$)",
    re.I,
)
_LEADING_NAME = re.compile(rf"(?P<name>{_NAME_TOKEN})(?P<rest>,\s+(?:a|an)\s.+)")
_REFER_AS = re.compile(r"\bwe (?:refer to|call|name|dub|term) (?P<what>.+?) as (?P<name>\S+?)[.,]?$", re.I)


def _bare_names(sent: str, idx: int, ctx: _Ctx, out: list[_Cand]) -> None:
    """'We present GALA3D, generative 3D GAussians ...' -> 'GALA3D: Generative ...'."""
    hits = []
    for m in _N2.finditer(sent):
        hits.append((m.group("name"), m.group("rest"), m.group("pre")))
    m = _REFER_AS.search(sent)
    if m:
        hits.append((m.group("name"), "", None))
    for m in _CALLED_NAME.finditer(sent):  # "a method called GraphZip that ..."
        hits.append((m.group("name"), m.group("rest"), None))
    m = _LEADING_NAME.match(sent)  # "ZetaNet, a novel architecture for ..., achieves"
    if m:
        hits.append((m.group("name"), m.group("rest"), None))
    m = _NP_THEN_NAME.search(sent)  # "we propose a new architecture, the Transformer, based on ..."
    if m:
        hits.append((m.group("name"), ", " + m.group("np") + " " + m.group("rest").lstrip(", "), None))
    for name, rest, pre in hits:
        name = name.rstrip(".")
        if not _is_name_token(name):
            continue
        # The rest of the name may be in capitals too ("Clifford-Steerable Convolutional ...").
        if re.match(r"\s+[A-Z]", rest or ""):
            continue
        budget = MAX_TITLE_LEN - len(name) - 2
        desc, weak, score = None, False, 95.0
        rest = rest or ""
        if m := re.match(r",?\s+which stands for\s+([A-Z][^,.;]+)", rest):
            desc = _shape(m.group(1), ctx, budget)  # "BERT, which stands for Bidirectional ..."
        elif m := re.match(r",\s*(?!\s|(?:which|that|for|to|by|with)\b)(.+)", rest):
            desc, weak = _descriptor(m.group(1), ctx, budget)
        if not desc and (m := re.match(r"\s+by\s+(\w+ing\b.*)", rest)):
            desc = _shape(m.group(1), ctx, budget)
        if not desc and (m := re.match(r",?\s+(?:for|to enable)\s+(\w+ing\b.*)", rest)):
            desc = _shape(m.group(1), ctx, budget)
        if not desc and (m := re.match(r",?\s+(?:to|that can)\s+([a-z]+)\s+(.*)", rest)):
            vp = _verb_phrase_to_gerund(m.group(1) + " " + m.group(2))
            desc = _shape(vp, ctx, budget) if vp else None
        if not desc and (m := re.match(r",?\s+that\s+(\w+s)\s+(.*)", rest)):
            vp = _verb_phrase_to_gerund(m.group(1) + " " + m.group(2), third_person=True)
            desc = _shape(vp, ctx, budget) if vp else None
            score -= 5
        if (not desc or weak) and pre and len(pre.split()) >= 4:
            desc, weak = _descriptor(pre, ctx, budget)
        if not desc or weak:
            ctx_desc = _context_descriptor(ctx, idx, budget)
            if ctx_desc:
                desc, weak = ctx_desc, False
        if not desc and (m := re.match(r",?\s+which\s+(?:first\s+)?(\w+s)\s+(.*)", rest)):
            vp = _verb_phrase_to_gerund(m.group(1) + " " + m.group(2), third_person=True)
            desc = _shape(vp, ctx, budget) if vp else None
            score -= 15
        if not desc:
            out.append(_Cand(50 + _sentence_bonus(sent, idx), -idx, name, "bare-name"))
            continue
        if weak:
            score -= 20
        out.append(_Cand(score + _sentence_bonus(sent, idx), -idx,
                         f"{name}: {_title_case(desc)}", "name+desc"))


_CONCEPT = re.compile(
    r"(?:\bconcept|\bnotion|\bphenomenon)\s+(?:of|called|named|dubbed|termed)\s+"
    r"\"?(?P<x>[a-z][\w -]+?)\"?(?=[,.;]| and | whereby| which| that)"
    r"|(?<!so-)\b(?:called|dubbed|termed|coined|presenting(?: the)?)\s+\"(?P<q>[^\"]{3,60})\"",
    re.I,
)


def _concepts(sent: str, idx: int, ctx: _Ctx, out: list[_Cand]) -> None:
    """'We introduce the new concept of delayed robustness' -> a named idea."""
    if not re.search(r"\bwe\b", sent, re.I):
        return
    for m in _CONCEPT.finditer(sent):
        x = (m.group("x") or m.group("q")).strip()
        if len(x.split()) < 2 or _ANAPHORA.search(x):
            continue
        title = _title_case(x)
        if ctx.lead and ctx.lead.lower() not in x.lower() and len(ctx.lead.split()) <= 2:
            title = f"{_title_case(ctx.lead)} and {title}"
        else:
            # Add what the same sentence says the work does: "X: Extending Y to Z".
            g = re.search(r"\bwe (extend|generalize|adapt)\s+(.*?),", sent, re.I)
            if g:
                sub = _shape(_gerund(g.group(1)) + " " + g.group(2), ctx, MAX_TITLE_LEN - len(title) - 2)
                if sub:
                    title = f"{title}: {_title_case(sub)}"
        out.append(_Cand(72 + _sentence_bonus(sent, idx), -idx, title, "concept"))


_NP_VERB = (r"(?:propos|introduc|present|develop|design|giv|provid|establish|deriv|offer|"
            r"construct|build|devis)(?:e|es|ed|s)?")
_CLAIM_VERB = (r"(?:show|prove|demonstrate|find|found|argue|reveal|discover|observe|discuss|posit|"
               r"hypothesize|conjecture|verify|confirm|conclude|establish|illustrate)(?:s|es|ed|d)?")
_STUDY_VERB = r"(?:stud(?:y|ies)|analy[sz]es?|examines?|investigates?)"
_GERUND_VERB = (r"(?:revisit|address|tackle|characterize|extend|identify|assess|evaluate|rethink|"
                r"understand|quantify|compare|explore|unify|bridge|generalize|scale|improve|learn|"
                r"measure|explain|interpret|formalize|benchmark|demystify|mitigate)(?:s|es|ed|d)?")


def _phrases(sent: str, idx: int, ctx: _Ctx, out: list[_Cand]) -> None:
    bonus = _sentence_bonus(sent, idx)

    def add(score: float, title: str | None, kind: str) -> None:
        if title:
            words = title.split()
            if len(words) < 5:
                score -= 8  # too thin to recognise a paper by
            if any(len(ctx.math[int(i)]) > 10 for i in _PH.findall(title)):
                score -= 10  # heavy math reads badly in a title
            out.append(_Cand(score + bonus, -idx, _title_case(title), kind))

    lead = rf"{_SUBJ}{_ADVS}\s+"
    for m in re.finditer(lead + rf"(?P<v>{_NP_VERB})\s+(?P<rest>.+)", sent, re.I):
        rest = m.group("rest")
        if re.match(r"that\b", rest):
            add(55, _claim_title(rest[5:], ctx), "claim")
        elif tm := re.match(r"to\s+(?:\w+ly\s+)?([a-z]+)\s+(.*)", rest):
            add(60, _shape(_gerund(tm.group(1)) + " " + tm.group(2), ctx), "gerund")
        elif gm := re.match(r"(\w+ing)\s+(.*)", rest):
            add(55, _shape(gm.group(1) + " " + gm.group(2), ctx), "gerund")
        elif em := re.match(r"(?:the |a |an )?(?:first )?(?:\w+ )?(?:evidence|proof) that,?\s+(.*)", rest, re.I):
            add(55, _claim_title(em.group(1), ctx), "claim")
        elif hm := re.match(
            r"(?:an?|the)\s+(?:\w+\s+)?([\w-]+(?: [\w-]+){0,3}\s+"
            r"(?:hypothesis|conjecture|principle|law|view))\s+that\s+(.*)",
            rest, re.I):
            sub = _claim_title(hm.group(2), ctx)
            add(68, f"{_title_case(hm.group(1))}: {_title_case(sub)}" if sub else hm.group(1), "hypothesis")
        else:
            first = rest.split()[0] if rest.split() else ""
            if _is_name_token(first.strip(",.")) and not re.match(r"(?:A|An|The)\b", first):
                continue  # a bare name; _bare_names handles it
            t = _np_title(rest, ctx)
            score = 60
            if t and re.match(rf"(?:an?\s+)?(?:[\w-]+\s+)?(?:{_GENERIC_HEADS})\s+for\b", t, re.I):
                score -= 5  # "A Framework for X" says less than a specific noun phrase
            elif t and re.match(r"(?:an?\s+)?(?:new\s+)?models?\s+for\b", t, re.I):
                score -= 18  # "A New Model for <task>" only restates the task
            add(score, t, "np")
    for m in re.finditer(lead + rf"{_CLAIM_VERB}(?:,[^,]{{1,60}},)?\s+(?P<w>that|how)\s+(?P<c>.+)", sent, re.I):
        how = m.group("w").lower() == "how"
        t = _claim_title(m.group("c"), ctx, MAX_TITLE_LEN - 4 * how)
        if t and how:
            t = "how " + t
        add(56, t, "claim")
    for m in re.finditer(r"\b(?:by (?:proving|showing|demonstrating)|our (?:analysis|results|findings|"
                         r"theory|experiments) (?:show|demonstrate|suggest|reveal|indicate)s?) that\s+(?P<c>.+)",
                         sent, re.I):
        add(58, _claim_title(m.group("c"), ctx), "claim")
    study = lead + rf"{_STUDY_VERB}\s+(?:both\s+)?(?:\w+ly\s+(?:and\s+\w+ly\s+)?)?(?P<rest>.+)"
    for m in re.finditer(study, sent, re.I):
        rest = m.group("rest")
        if pm := re.match(r"the problem of\s+(.*)", rest, re.I):
            p = re.sub(r"^(?:obtaining|achieving|finding|performing|providing)\s+", "", pm.group(1))
            add(58, _shape(p, ctx), "problem")
            continue
        colon = re.match(r"(.+?)\s+in (?:one of )?(?:its|their) [\w ]+?:\s+(.*)", rest)
        if colon:  # "we study ICL in its simplest setup: pretraining ..." -> "ICL: Pretraining ..."
            topic = colon.group(1)
            topic = ctx.acronyms.get(topic, topic)
            sub = _shape(colon.group(2), ctx, MAX_TITLE_LEN - len(topic) - 2)
            if sub:
                add(58, f"{_title_case(topic)}: {_title_case(sub)}", "study")
                continue
        t = _np_title(rest, ctx)
        if t and re.match(r"the\b", rest, re.I):
            t = _fit("on the " + t, ctx, MAX_TITLE_LEN)
        add(57, t, "study")
    for m in re.finditer(lead + rf"(?:(?:\w+ly|both)\s+)*(?P<v>{_GERUND_VERB})\s+(?P<rest>.+)", sent, re.I):
        v = _base_verb(m.group("v")) if not m.group("v").lower().endswith("ed") else m.group("v")[:-1]
        rest = _strip_parens(m.group("rest"))
        if re.match(r"(?:that|how|whether|why)\b", rest):
            continue
        t = _np_title(rest, ctx, MAX_TITLE_LEN - len(v) - 4, keep_article=True)
        if t:
            t = re.sub(r"^(?:an?)\s+", lambda x: x.group(0).lower(), t)
            add(52, _gerund(v) + " " + t, "gerund")
    for m in re.finditer(r"\btake an? (closer (?:\w+ )?look) at\s+(?P<rest>.+)", sent, re.I):
        add(62, _shape("a " + m.group(1) + " at " + m.group("rest"), ctx), "closer-look")
    aim = rf"\b(?:{_SUBJ}\s+aims?|goal of this (?:paper|work|study) is) to\s+(?P<vp>.+)"
    for m in re.finditer(aim, sent, re.I):
        vp = _verb_phrase_to_gerund(m.group("vp"))
        add(55, _shape(vp, ctx) if vp else None, "aim")
    for m in re.finditer(lead + r"focus(?:es)? on\s+(?P<rest>.+)", sent, re.I):
        rest = m.group("rest")
        am = re.match(r"([^,]+?)(?:\s*\([^)]*\))?,\s+the (?:problem|task) of\s+(\w+ing\b.*)", rest)
        if am:
            sub = _shape(am.group(2), ctx, MAX_TITLE_LEN - len(am.group(1)) - 2)
            add(58, f"{_title_case(am.group(1))}: {_title_case(sub)}" if sub else am.group(1), "focus")
        else:
            add(58, _np_title(rest, ctx), "focus")
    main = r"\bour main (?:contribution|result)s? (?:is|are|comprises|consists of|includes)\s+(?P<rest>.+)"
    for m in re.finditer(main, sent, re.I):
        add(62, _np_title(m.group("rest"), ctx), "np")
    if re.search(r"\bwe\b", sent, re.I):
        for m in re.finditer(r"\bquestions? (?:about|on|regarding|concerning)\s+(?P<rest>.+)", sent, re.I):
            t = _np_title(m.group("rest"), ctx, MAX_TITLE_LEN - 3, keep_article=True)
            add(58, "on " + t if t else None, "questions")


# ---------------------------------------------------------------------------
# Title: public entry point
# ---------------------------------------------------------------------------


def _finish(raw: str, ctx: _Ctx) -> str:
    t = _restore(raw, ctx)
    t = _fix_articles(" ".join(t.split()))
    t = re.sub(r"\s+([,:;])", r"\1", t)
    prev = None
    while prev != t:  # trailing punctuation, or a dangling "... of" left by a cut
        prev = t
        t = t.strip(" \t,.;:!?-–—'\"")
        words = t.split()
        if len(words) > 1 and words[-1].lower() in _SMALL_WORDS:
            t = " ".join(words[:-1])
    first = t.split()[0] if t else ""
    if first[:1].islower() and not any(c.isupper() for c in first):  # not "signSGD"
        t = t[0].upper() + t[1:]
    return t


def _norm(s: str) -> str:
    return re.sub(r"\W+", " ", s).strip().lower()


def _fallback(ctx: _Ctx, first: str) -> str:
    """No contribution phrase found: use the first sentence's subject or opening."""
    s = _strip_parens(first)
    m = re.match(rf"({_NAME_TOKEN}(?: [\w-]+)?) (?:is|are) an? (?:[\w-]+ )?(?:{_GENERIC_HEADS}|model|architecture) "
                 r"(?:for|to) (.+)", s, re.I)
    if m:
        vp = m.group(2) if m.group(2).split()[0].endswith("ing") else _verb_phrase_to_gerund(m.group(2))
        desc = _shape(vp, ctx, MAX_TITLE_LEN - len(m.group(1)) - 2) if vp else None
        if desc:
            return f"{_title_case(m.group(1))}: {_title_case(desc)}"
    s = re.sub(r"^(?:In this (?:\w+ )?(?:paper|work|study),?\s*)?(?:we|this \w+)\s+\w+\s+", "", s, flags=re.I)
    s = re.split(r"\s+(?:is|are|has|have|was|were|can|could|may|remains?)\s+|,\s+", s, maxsplit=1)[0]
    t = _fit(s, ctx, 60)
    if not t:
        words = s.split()[:8]
        while len(words) > 1 and _display_len(" ".join(words), ctx) > 60:
            words.pop()
        t = " ".join(words)
    return _title_case(t)


def _candidates(ctx: _Ctx) -> list[_Cand]:
    cands: list[_Cand] = []
    for idx, sent in enumerate(ctx.sentences):
        _named_with_expansion(sent, idx, ctx, cands)
        _bare_names(sent, idx, ctx, cands)
        _concepts(sent, idx, ctx, cands)
        _phrases(sent, idx, ctx, cands)
    return sorted(cands, reverse=True)


def derive_title(abstract: str) -> str:
    """Derive a short, recognisable title from an abstract.

    Prefers the named method/system/concept the abstract introduces
    ("ACR: Long Name", "Name: What It Does"); otherwise a noun phrase or claim
    taken from the contribution statement. The result is at most
    MAX_TITLE_LEN characters, never starts with "We", never ends in
    punctuation, keeps $math$ intact and is never the abstract's whole first
    sentence. Deterministic.
    """
    text, spans = _clean(abstract)
    if not text:
        return "Untitled"
    ctx = _context(text, spans)
    position = " position paper" in text.lower()  # ICML's "Position: ..." convention
    # The first sentence, by our splitter and by a naive one (any ". " ends it).
    firsts = {_norm(_restore(ctx.sentences[0], ctx)),
              _norm(_restore(re.split(r"(?<=[.!?])\s+", text)[0], ctx))}
    for cand in _candidates(ctx):
        t = _finish(cand.title, ctx)
        if position:
            t = "Position: " + t
        if (
            len(t.split()) >= 2
            and len(t) <= MAX_TITLE_LEN
            and not re.match(r"we\b", t, re.I)
            and _norm(t) not in firsts
        ):
            return t
    # Fallback: never "We ...", never the whole first sentence.
    words = _fallback(ctx, ctx.sentences[0]).split()
    while words and words[0].lower().strip(".,;:") == "we":
        words = words[1:]
    t = _finish(" ".join(words), ctx)
    while words and _norm(t) in firsts:
        words = words[:-1]
        t = _finish(" ".join(words), ctx)
    ok = t and len(t) <= MAX_TITLE_LEN and not re.match(r"we\b", t, re.I)
    return t if ok else "Untitled"


def _debug_candidates(abstract: str) -> list[tuple[float, str, str]]:
    """All scored candidates, best first (for tuning the heuristics)."""
    text, spans = _clean(abstract)
    ctx = _context(text, spans)
    return [(round(c.score, 1), c.kind, _finish(c.title, ctx)) for c in _candidates(ctx)]


# ---------------------------------------------------------------------------
# Topics
# ---------------------------------------------------------------------------

TITLE_WEIGHT = 3.0  # a keyword in the title says more than one in the abstract
_MIN_EXTRA_SCORE = 2.5  # below this a second/third topic is noise
_EXTRA_RATIO = 0.4  # ...and it must be this fraction of the best score
_GENERIC_SLUGS = ("general", "other", "misc")


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    """Crude suffix stripping, enough to equate 'models'/'model', 'policies'/'policy'."""
    w = word.lower()
    if len(w) <= 3:
        return w
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("y"):
        w = w[:-1] + "i"
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@dataclass
class _Text:
    """A text tokenised for keyword matching."""

    stems: list[str]
    raw: list[str]
    where: dict[str, list[int]]  # stem or raw token -> positions


def _tokens(text: str) -> _Text:
    raw = re.findall(r"[A-Za-z0-9]+", text)
    stems = [_stem(t) for t in raw]
    where: dict[str, list[int]] = {}
    for i, (st, r) in enumerate(zip(stems, raw)):
        where.setdefault(st, []).append(i)
        if r != st:
            where.setdefault(r, []).append(i)
    return _Text(stems, raw, where)


def _is_acronym_kw(kw: str) -> bool:
    # "RL", "GNN", "LLM": matched case-sensitively so "ot" in prose doesn't count as OT.
    return kw.isupper() and " " not in kw and len(kw) <= 6


@dataclass(frozen=True)
class _Keyword:
    text: str
    acronym: bool
    stems: tuple[str, ...]
    weight: float


@lru_cache(maxsize=256)
def _prepare(keywords: tuple[str, ...]) -> tuple[_Keyword, ...]:
    """Deduplicated keywords, longest first (see _hits)."""
    out: dict[object, _Keyword] = {}
    for kw in keywords:
        acronym = _is_acronym_kw(kw)
        stems = tuple(_stem(t) for t in re.findall(r"[A-Za-z0-9]+", kw))
        if not stems:
            continue
        key = kw if acronym else stems  # "image" and "images" are one keyword
        # Phrases are more specific than single words.
        out.setdefault(key, _Keyword(kw, acronym, stems, 1.0 + 0.5 * (len(stems) - 1)))
    return tuple(sorted(out.values(), key=lambda k: (-len(k.stems), k.text)))


def _find(kw: _Keyword, text: _Text) -> list[tuple[int, int]]:
    """Token spans where keyword kw occurs."""
    if kw.acronym:
        pos = text.where.get(kw.text, []) + text.where.get(kw.text + "s", [])
        return [(i, i + 1) for i in sorted(pos) if text.raw[i] in (kw.text, kw.text + "s")]
    n = len(kw.stems)
    return [(i, i + n) for i in text.where.get(kw.stems[0], []) if tuple(text.stems[i:i + n]) == kw.stems]


def _hits(keywords: tuple[_Keyword, ...], text: _Text) -> list[int]:
    """Occurrences per keyword. Longer keywords claim their tokens first, so
    "diffusion models" counts as that phrase and not also as "diffusion"."""
    taken: set[int] = set()
    counts = []
    for kw in keywords:
        n = 0
        for start, end in _find(kw, text):
            span = set(range(start, end))
            if not span & taken:
                taken |= span
                n += 1
        counts.append(n)
    return counts


def _topic_score(topic: dict, title: _Text, abstract: _Text) -> float:
    keywords = _prepare(tuple(str(k) for k in topic.get("keywords") or ()))
    in_title = _hits(keywords, title)
    in_abstract = _hits(keywords, abstract)
    return sum(
        kw.weight * (TITLE_WEIGHT * t + min(a, 3))
        for kw, t, a in zip(keywords, in_title, in_abstract)
    )


def assign_topics(title: str, abstract: str, topics: list[dict]) -> list[str]:
    """Return 1-3 topic slugs from topics, best first.

    Each topic scores by its keyword/phrase matches (stem-insensitive; title
    matches weigh TITLE_WEIGHT times more, abstract matches are capped per
    keyword so one repeated word can't dominate). Extra topics must reach both
    an absolute and a relative threshold. With no match at all, a generic
    topic (slug containing "general"/"other"/"misc") or else the first topic
    is returned. Ties break by slug, so the result is deterministic.
    """
    if not topics:
        return []
    t_tok = _tokens(title or "")
    a_tok = _tokens(abstract or "")
    scored = sorted(
        ((_topic_score(t, t_tok, a_tok), str(t["slug"])) for t in topics),
        key=lambda st: (-st[0], st[1]),
    )
    best_score, best_slug = scored[0]
    if best_score <= 0:
        for t in topics:
            if any(g in str(t["slug"]) for g in _GENERIC_SLUGS):
                return [str(t["slug"])]
        return [str(topics[0]["slug"])]
    picked = [best_slug]
    for score, slug in scored[1:3]:
        if score >= _MIN_EXTRA_SCORE and score >= _EXTRA_RATIO * best_score:
            picked.append(slug)
    return picked
