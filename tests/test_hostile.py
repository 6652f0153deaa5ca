"""Hostile content is inert on every page and in every file the site ships.

One tiny site whose site.yaml and papers carry <script>, event handlers,
javascript: and data: URLs, comments, </textarea>-style breakouts, Jinja
syntax and raw HTML. Every payload would set `window.__pwned` (see
tests/browser/test_hostile.py for a real browser). Here the built files are
read as a browser, a feed reader and a search client would read them.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import html5lib
import pytest
import yaml

from papersite.text.plain import snippet
from tests.conftest import MINIMAL_CONFIG, TinySite
from tests.json_ld_theme import add_json_ld
from tests.test_search_files import read_store
from tests.test_search_files import search as search_ids

PAYLOAD = "window.__pwned=1"

SITE_TITLE = "Catalog <script>window.__pwned=1</script> {{ 7*7 }}"
SITE = {
    "title": SITE_TITLE,
    "description": "</title><img src=x onerror=window.__pwned=1> {{ site }} <!-- hidden -->",
    "author": '"><script>window.__pwned=1</script>',
    "base_url": "https://example.org/catalog/",
    "topics": [
        {"slug": "learning-theory", "name": "Theory <img src=x onerror=window.__pwned=1>",
         "description": "{{ 7*7 }} <!-- x --> </textarea><script>window.__pwned=1</script>",
         "keywords": ["generalization"]},
        {"slug": "generative-models", "name": "Generative {% raw %}models", "keywords": ["diffusion"]},
    ],
    "venues": [
        {"slug": "icml-2024", "name": "ICML <b onmouseover=window.__pwned=1>2024</b>", "year": 2024,
         "full_name": "</textarea></title><script>window.__pwned=1</script>",
         "url": 'https://icml.cc/?q="><script>window.__pwned=1</script>'},
    ],
    "extra": {"note": "<script>window.__pwned=1</script>"},
}

# No "$" and a single "*": the title is shown exactly as written.
TITLE = ('Hostile <script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"> '
         "</textarea></title></style></script><!-- c --> {{ 7*7 }} {% raw %} {# x #} &amp; &lt;b&gt; ]]>")
PAPER_ID = '</script><img src=x onerror="window.__pwned=1">'
AUTHORS = ['<img src=x onerror="window.__pwned=1">', '"><svg onload=window.__pwned=1>', "{{ 7*7 }}",
           "Ada </script><script>window.__pwned=1</script>", "javascript:window.__pwned=1"]
LINKS = {"pdf": 'https://x.org/a.pdf"><script>window.__pwned=1</script>',
         "code": "https://x.org/'onmouseover='window.__pwned=1",
         "url": "https://x.org/?a=1&b=<svg/onload=window.__pwned=1>"}
ABSTRACT = """\
Zebra hostile abstract <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1">
<a href="javascript:window.__pwned=1" onclick="window.__pwned=1">raw link</a> <!-- a comment -->
</textarea></script></style></title> <base href="https://evil.example/"> <meta http-equiv="refresh" content="0;url=javascript:window.__pwned=1">

[md js](javascript:window.__pwned=1) [md data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[vb](vbscript:msgbox) <javascript:window.__pwned=1> ![img](x" onerror="window.__pwned=1)
[entity](&#106;avascript:window.__pwned=1) [spaced]( javascript:window.__pwned=1 ) [ref][r]

{{ 7*7 }} then {% for x in range(3) %}{{ x }}{% endfor %} <style>body{display:none}</style>
<iframe src="javascript:window.__pwned=1"></iframe> <svg><script>window.__pwned=1</script></svg>
<form action="javascript:window.__pwned=1"><button>go</button></form> <object data="data:text/html,x"></object>

    <script>window.__pwned=1</script> (an indented code block)

[r]: javascript:window.__pwned=1
"""
MATH_TITLE = r"Math $\href{javascript:window.__pwned=1}{x}$ and $\text{<img src=x onerror=window.__pwned=1>}$"
MATH_ABSTRACT = r"""Zebra math: $\href{javascript:window.__pwned=1}{x}$, $\text{<img src=x onerror=window.__pwned=1>}$,
$$\style{color:red}{x} \class{evil}{y} \toggle{a}{b}$$ and \(\unicode{60}script\unicode{62}\) and $\mathrm{</math><script>window.__pwned=1</script>}$."""


def front_matter(data: dict, body: str) -> str:
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000) + "---\n" + body


def make_hostile_site(root: Path) -> TinySite:
    """A tiny site full of payloads: three papers (one hostile, one with hostile TeX, one plain)."""
    site = TinySite(root)
    site.write("site.yaml", yaml.safe_dump(SITE, allow_unicode=True, sort_keys=False, width=10_000))
    site.write("content/icml-2024/hostile.md", front_matter(
        {"id": PAPER_ID, "title": TITLE, "authors": AUTHORS, "venue": "icml-2024", "year": 2024,
         "topics": ["learning-theory", "generative-models"], "links": LINKS}, ABSTRACT))
    site.write("content/icml-2024/math.md", front_matter(
        {"id": "math", "title": MATH_TITLE, "venue": "icml-2024", "topics": ["learning-theory"]}, MATH_ABSTRACT))
    site.write("content/icml-2024/plain.md", front_matter(
        {"id": "plain", "title": "A Plain Zebra Paper", "authors": ["Ada Lovelace"], "venue": "icml-2024",
         "topics": ["learning-theory"]}, "Zebra hostile neighbours: a plain abstract about generalization."))
    return site


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    site = make_hostile_site(tmp_path_factory.mktemp("hostile") / "site")
    add_json_ld(site.root)  # the JSON-LD a theme may add holds content as data too
    build, _ = site.build()
    return site.root / "_site", build


def html_files(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def tree(path: Path):
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)


def text(element) -> str:
    return "".join(element.itertext())


def test_every_page_kind_is_built(hostile):
    out, build = hostile
    assert len(build.catalog.papers) == 3
    for page in ("index.html", "papers/index.html", "venues/index.html", "venues/icml-2024/index.html",
                 "topics/index.html", "topics/learning-theory/index.html", "topics/generative-models/index.html",
                 "papers/hostile/index.html", "papers/math/index.html", "search/index.html", "404.html",
                 "feed.xml", "venues/icml-2024/feed.xml", "sitemap.xml", "search/docs.json", "search/index.json"):
        assert (out / page).is_file(), page


# --- Nothing from content becomes markup --------------------------------------

MATHML = "{http://www.w3.org/1998/Math/MathML}"
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "poster", "data", "cite", "background", "srcset",
                  "{http://www.w3.org/1999/xlink}href", "xlink:href"}
NEVER = {"img", "iframe", "object", "embed", "style", "base", "frame", "frameset", "applet", "textarea",
         "{http://www.w3.org/2000/svg}svg", "svg", "video", "audio", "source", "template"}


def test_no_injected_elements_attributes_or_urls_on_any_page(hostile):
    out, build = hostile
    base = build.catalog.config.base_path
    for page in html_files(out):
        document = tree(page)
        where = page.relative_to(out)
        for element in document.iter():
            assert callable(element.tag) is False, f"{where}: an HTML comment got through"
            tag = element.tag
            assert tag not in NEVER, f"{where}: <{tag}>"
            for name, value in element.attrib.items():
                local = name.rsplit("}", 1)[-1]
                assert not local.lower().startswith("on"), f"{where}: <{tag} {name}={value!r}>"
                assert local not in ("style", "srcdoc"), f"{where}: <{tag} {name}>"
                if name in URL_ATTRIBUTES:
                    scheme = urlsplit(re.sub(r"[\x00-\x20]", "", value)).scheme.lower()
                    assert scheme in ("", "http", "https", "mailto"), f"{where}: <{tag} {name}={value!r}>"
            if tag == "script":
                if element.get("src"):
                    assert element.get("src").startswith(base + "static/") and not text(element).strip()
                else:
                    assert element.get("type") in ("application/ld+json", "application/json"), \
                        f"{where}: inline script"  # data, never run
                    assert "<" not in text(element)
                    json.loads(text(element))
            if tag == "meta" and element.get("http-equiv"):
                assert element.get("http-equiv") == "Content-Security-Policy", f"{where}: {element.attrib}"
            if tag == "link":
                assert element.get("rel") in ("canonical", "alternate", "icon", "stylesheet"), element.attrib
            if tag == "form":
                assert element.get("action") == base + "search/", f"{where}: {element.attrib}"


def test_payload_text_never_appears_unescaped(hostile):
    out, _ = hostile
    for page in html_files(out):
        raw = page.read_text(encoding="utf-8")
        for needle in ("<script>window", "<img", "<svg", "<iframe", "<style", "<base", "<!--", "<b ",
                       "</textarea>", "<object", "<form action=\"javascript", "<meta http-equiv=\"refresh"):
            assert needle not in raw, (page, needle)  # escaped (&lt;img) it is text; raw it would be markup


def test_the_paper_page_shows_content_as_text(hostile):
    out, _ = hostile
    page = tree(out / "papers/hostile/index.html")
    assert text(page.find(".//h1")) == TITLE
    assert text(page.find(".//title")) == f"{TITLE} · {SITE_TITLE}"
    assert text(page.find(".//p[@class='authors']")) == ", ".join(AUTHORS)
    metas = [(m.get("name") or m.get("property"), m.get("content")) for m in page.iter("meta")]
    assert ("citation_title", TITLE) in metas and ("og:title", TITLE) in metas
    assert [c for n, c in metas if n == "citation_author"] == AUTHORS
    assert ("citation_pdf_url", LINKS["pdf"]) in metas
    assert ("description", snippet(ABSTRACT, 160)) in metas
    links = {a.get("href") for a in page.iter("a")}
    assert set(LINKS.values()) <= links  # http(s) URLs with odd characters stay one attribute value
    abstract = text(page.find(".//section[@class='abstract']"))
    for literal in ("<script>window.__pwned=1</script>", '<img src=x onerror="window.__pwned=1">',
                    "{{ 7*7 }}", "{% for x in range(3) %}{{ x }}{% endfor %}", "<!-- a comment -->",
                    "</textarea></script></style></title>"):
        assert literal in abstract
    whole = text(page)
    assert "49" not in whole and "012" not in whole  # Jinja syntax never evaluated


def test_javascript_and_data_links_in_markdown_are_not_links(hostile):
    out, _ = hostile
    section = tree(out / "papers/hostile/index.html").find(".//section[@class='abstract']")
    hrefs = [a.get("href") for a in section.iter("a")]
    assert all(urlsplit(h).scheme in ("http", "https", "mailto") for h in hrefs), hrefs


def test_hostile_tex_is_typeset_or_shown_as_source(hostile):
    out, _ = hostile
    page = tree(out / "papers/math/index.html")
    h1, abstract = page.find(".//h1"), page.find(".//section[@class='abstract']")
    mathml = [el for el in list(h1.iter()) + list(abstract.iter()) if el.tag.startswith(MATHML)]
    assert len(mathml) > 10
    for element in mathml:  # \href, \class, \style and friends set nothing
        assert not {"href", "class", "style", "id"} & {name.rsplit("}", 1)[-1] for name in element.attrib}
    assert "<img src=x onerror=window.__pwned=1>" in text(h1).replace("\xa0", " ")  # \text{...} is text
    [fallback] = abstract.iter("code")  # TeX it cannot convert safely is shown as source
    assert fallback.get("class") == "tex tex-display" and "\\style{color:red}" in text(fallback)


def test_every_page_kind_shows_site_yaml_text_as_text(hostile):
    out, _ = hostile
    for page in ("index.html", "papers/index.html", "venues/index.html", "venues/icml-2024/index.html",
                 "topics/index.html", "topics/learning-theory/index.html", "search/index.html", "404.html"):
        document = tree(out / page)
        assert text(document.find(".//a[@class='brand']")) == SITE_TITLE, page
        whole = text(document.find(".//body"))
        assert "49" not in whole, page
    venue = tree(out / "venues/icml-2024/index.html")
    assert text(venue.find(".//h1")) == SITE["venues"][0]["name"]
    topic = tree(out / "topics/learning-theory/index.html")
    assert text(topic.find(".//h1")) == SITE["topics"][0]["name"]
    assert SITE["topics"][0]["description"] in text(topic.find(".//main"))
    listing = tree(out / "papers/index.html")
    # a compact entry: the title is the entry's first link
    assert TITLE in [text(item.find("a")) for item in listing.iter("li") if item.find("p") is not None]


# --- Feeds, JSON-LD, BibTeX, search files ---------------------------------------

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.mark.parametrize("feed", ["feed.xml", "venues/icml-2024/feed.xml", "topics/learning-theory/feed.xml"])
def test_feeds_carry_content_as_text(hostile, feed):
    out, _ = hostile
    root = ET.parse(out / feed).getroot()
    assert all(el.tag.startswith(ATOM) for el in root.iter()), "an element that is not Atom got in"
    entry = next(e for e in root.iter(ATOM + "entry") if "/papers/hostile/" in e.find(ATOM + "id").text)
    assert entry.find(ATOM + "title").text == TITLE
    assert [a.find(ATOM + "name").text for a in entry.iter(ATOM + "author")] == AUTHORS
    assert entry.find(ATOM + "summary").text == snippet(ABSTRACT)
    assert "49" not in ET.tostring(root, encoding="unicode")


def test_sitemap_is_well_formed(hostile):
    out, _ = hostile
    ET.parse(out / "sitemap.xml")


def test_json_ld_holds_content_as_data(hostile):
    out, _ = hostile
    [script] = [s for s in tree(out / "papers/hostile/index.html").iter("script")
                if s.get("type") == "application/ld+json"]
    raw = text(script)
    assert "<" not in raw and ">" not in raw  # </script> and <!-- cannot end the element
    article = json.loads(raw)
    assert article["headline"] == TITLE
    assert [a["name"] for a in article["author"]] == AUTHORS


def test_bibtex_entry_is_balanced_and_has_only_its_fields(hostile):
    out, _ = hostile
    bibtex = text(tree(out / "papers/hostile/index.html").find(".//pre[@id='bibtex']"))
    assert bibtex.startswith("@inproceedings{") and bibtex.count("@") == 1
    depth = 0
    for char in bibtex:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0
    assert depth == 0
    fields = re.findall(r"^  (\w+) = ", bibtex, re.MULTILINE)
    assert fields == ["title", "author", "booktitle", "year", "url"]
    assert "<script>window.\\_\\_pwned=1</script>" in bibtex  # text, escaped for LaTeX, shown as text


def test_search_files_hold_content_as_data_without_markup(hostile):
    out, build = hostile
    names = sorted(path.relative_to(out).as_posix() for path in (out / "search").rglob("*.json"))
    assert {"search/docs.json", "search/index.json"} < set(names)
    for name in names:  # shard table, facets, term shards, document store, vocabulary
        raw = (out / name).read_bytes()
        assert b"<" not in raw and b">" not in raw, name  # no </script, no <!--, even as data
    doc = read_store(build.files)["hostile"]
    assert doc["title"] == TITLE
    assert doc["url"] == "/catalog/papers/hostile/"
    assert doc["snippet"] == snippet(ABSTRACT)
    assert "hostile" in search_ids(build.files, "hostile")  # indexed, and found again


# --- Content-Security-Policy --------------------------------------------------

def csp_of(document) -> dict[str, list[str]]:
    metas = [m for m in document.iter("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    policy = {}
    for directive in metas[0].get("content").split(";"):
        name, *values = directive.split()
        policy[name] = values
    return policy


def check_csp(out: Path, base_path: str) -> int:
    pages = html_files(out)
    for page in pages:
        document = tree(page)
        head = document.find("head")
        policy = csp_of(document)
        assert policy["default-src"] == ["'self'"]
        # scripts and styles fall back on default-src (CSP 3): no inline script or style attribute runs
        assert policy.get("script-src", policy["default-src"]) == ["'self'"]
        assert policy.get("style-src", policy["default-src"]) == ["'self'"]
        assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
        assert policy["img-src"] == ["'self'", "data:"]
        for values in policy.values():
            assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:", "blob:"} & set(values)
        # The policy comes before anything it governs.
        order = [el for el in head if el.tag in ("meta", "link", "script", "style")]
        first = next(i for i, el in enumerate(order) if el.get("http-equiv") == "Content-Security-Policy")
        assert all(el.tag == "meta" for el in order[:first])
        # Only the site's own scripts and styles, and no inline ones the policy would block.
        for element in document.iter():
            assert "style" not in element.attrib, page
            assert element.tag != "style", page
        for script in document.iter("script"):
            if script.get("type") not in ("application/ld+json", "application/json"):  # data, not run
                assert script.get("src", "").startswith(base_path + "static/"), (page, script.attrib)
        for link in document.iter("link"):
            if link.get("rel") == "stylesheet":
                assert link.get("href").startswith(base_path + "static/"), (page, link.attrib)
    return len(pages)


def test_every_page_of_the_hostile_site_carries_the_csp(hostile):
    out, build = hostile
    assert check_csp(out, build.catalog.config.base_path) >= 12


def test_every_page_of_the_bundled_catalog_carries_the_csp(bundled):
    _, out, build = bundled
    assert check_csp(out, build.catalog.config.base_path) > 57
