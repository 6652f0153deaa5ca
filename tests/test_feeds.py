"""Discovery: Atom feeds, Open Graph / Twitter cards, schema.org JSON-LD and Scholar tags."""
from __future__ import annotations

import json
import re
import shutil
import textwrap
import xml.etree.ElementTree as ET

import html5lib
import pytest

from papersite import urls
from papersite.site.feeds import FEED_ENTRIES
from papersite.text.plain import plain_text
from tests.conftest import ROOT, TinySite
from tests.json_ld_theme import PAPER_WITH_JSON_LD, add_json_ld

ATOM = "{http://www.w3.org/2005/Atom}"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def parse_html(path):
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)


def head_tags(tree):
    """(property or name -> content) of meta tags, and the link elements, of a page's head. A tag
    with both (the description, og:description) counts under each."""
    meta = {}
    for el in tree.iter("meta"):
        for key in {el.get("property"), el.get("name")} - {None}:
            meta.setdefault(key, []).append(el.get("content"))
    return meta, list(tree.iter("link"))


def read_feed(out, path):
    root = ET.parse(out / path).getroot()  # raises on XML that is not well-formed
    assert root.tag == f"{ATOM}feed"
    return root


def check_feed(root, base_url, feed_path, alternate_path):
    for name in ("id", "title", "updated", "author/" + ATOM + "name"):
        assert (root.findtext(ATOM + name) or "").strip(), f"feed without {name}"
    assert root.findtext(ATOM + "id") == base_url + feed_path
    links = {link.get("rel"): link.get("href") for link in root.findall(ATOM + "link")}
    assert links == {"self": base_url + feed_path, "alternate": base_url + alternate_path}
    assert TIMESTAMP.match(root.findtext(ATOM + "updated"))
    entries = root.findall(ATOM + "entry")
    for entry in entries:
        link = entry.find(ATOM + "link")
        assert link.get("rel") == "alternate" and link.get("href").startswith(base_url + "papers/")
        assert entry.findtext(ATOM + "id") == link.get("href")
        assert entry.findtext(ATOM + "title").strip() and "<" not in entry.findtext(ATOM + "title")
        assert entry.findtext(ATOM + "summary").strip()
        assert TIMESTAMP.match(entry.findtext(ATOM + "updated"))
    assert root.findtext(ATOM + "updated") == max(e.findtext(ATOM + "updated") for e in entries)
    return entries


def test_catalog_venue_and_topic_feeds(bundled):
    _, out, build = bundled
    catalog, base = build.catalog, build.catalog.config.base_url
    entries = check_feed(read_feed(out, "feed.xml"), base, "feed.xml", "")
    assert len(entries) == min(FEED_ENTRIES, len(catalog.papers))
    by_url = {base + urls.path_of(p): p for p in catalog.papers}
    for entry in entries:
        paper = by_url[entry.findtext(ATOM + "id")]
        assert entry.findtext(ATOM + "title") == plain_text(paper.title)  # math as text, not markup
        assert not paper.date  # the bundled papers have none: updated is the day they were imported
        assert entry.findtext(ATOM + "updated") == f"{paper.added}T00:00:00Z"  # from content, not the clock
        assert [c.get("term") for c in entry.findall(ATOM + "category")] == list(paper.topics)
    for group, members in [(v, catalog.venue_papers[v.slug]) for v in catalog.venues] + \
                          [(t, catalog.topic_papers[t.slug]) for t in catalog.topics]:
        feed = read_feed(out, urls.feed_of(group))
        assert group.name in feed.findtext(ATOM + "title")
        entries = check_feed(feed, base, urls.feed_of(group), urls.path_of(group))
        assert [e.findtext(ATOM + "id") for e in entries] == \
            [base + urls.path_of(p) for p in members[:FEED_ENTRIES]]


def test_pages_announce_their_feeds(bundled):
    _, out, build = bundled
    base = build.catalog.config.base_path
    for page, own_feed in [("index.html", None), ("papers/index.html", None)] + \
            [(urls.output_file(urls.path_of(v)), urls.feed_of(v)) for v in build.catalog.venues] + \
            [(urls.output_file(urls.path_of(t)), urls.feed_of(t)) for t in build.catalog.topics]:
        _, links = head_tags(parse_html(out / page))
        feeds = [link.get("href") for link in links
                 if link.get("rel") == "alternate" and link.get("type") == "application/atom+xml"]
        assert feeds == [base + "feed.xml"] + ([base + own_feed] if own_feed else []), page
        for href in feeds:
            assert (out / href[len(base):]).is_file()
    # a paper page has no feed of its own, and tens of thousands of them would each repeat the
    # catalog's link (author pages: tests/test_authors.py)
    for paper in build.catalog.papers:
        _, links = head_tags(parse_html(out / urls.output_file(urls.path_of(paper))))
        assert not [link for link in links if link.get("type") == "application/atom+xml"], paper.id


@pytest.fixture(scope="module")
def html_pages(bundled):
    _, out, _ = bundled
    return sorted(out.rglob("*.html"))


def test_every_page_has_open_graph_tags_for_link_previews(bundled, html_pages):
    _, out, build = bundled
    papers = {urls.output_file(urls.path_of(p)) for p in build.catalog.papers}
    for page in html_pages:
        meta, links = head_tags(parse_html(page))
        canonical = [link.get("href") for link in links if link.get("rel") == "canonical"]
        relative = page.relative_to(out).as_posix()
        assert len(canonical) == 1 and canonical[0].startswith(build.catalog.config.base_url)
        for key in ("og:title", "og:description", "og:type", "og:site_name"):
            assert len(meta.get(key, [])) == 1 and meta[key][0].strip(), f"{relative}: {key}"
        # X makes a summary card of og:type, og:title and og:description: no copies under twitter:*;
        # a preview without og:url takes the page's URL, the canonical one
        assert not {"twitter:card", "twitter:title", "twitter:description", "og:url"} & meta.keys(), relative
        assert meta["og:description"] == meta["description"]  # one tag: the page says it once
        assert len([el for el in parse_html(page).iter("meta") if el.get("content") == meta["description"][0]]) == 1
        assert meta["og:type"] == ["article" if relative in papers else "website"]
        assert meta["og:site_name"] == [build.catalog.config.title]


def test_paper_pages_have_scholar_tags_and_json_ld_only_if_the_theme_adds_it(bundled, tmp_path):
    _, out, build = bundled
    catalog = build.catalog
    for paper in catalog.papers:
        tree = parse_html(out / urls.output_file(urls.path_of(paper)))
        # the Scholar tags say what schema.org JSON-LD would: the default theme leaves it out
        assert not [s for s in tree.iter("script") if s.get("type") == "application/ld+json"]
        meta, _ = head_tags(tree)
        venue = catalog.venue(paper.venue)
        assert meta["citation_title"] == [plain_text(paper.title)]
        assert meta.get("citation_author", []) == list(paper.authors)
        assert meta["citation_publication_date"] == [str(paper.year)]
        assert meta["citation_conference_title"] == [venue.full_name or venue.name]
        assert meta.get("citation_pdf_url", []) == [u for kind, u in paper.links if kind == "pdf"]

    # README's templates/paper.html that puts it back
    site = TinySite(tmp_path / "site")
    shutil.copytree(ROOT / "content", site.root / "content", dirs_exist_ok=True)
    shutil.copy(ROOT / "site.yaml", site.root / "site.yaml")
    add_json_ld(site.root)
    site.build()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert textwrap.indent(PAPER_WITH_JSON_LD.strip(), "  ") in readme  # the template these tests use
    for paper in catalog.papers:
        tree = parse_html(site.root / "_site" / urls.output_file(urls.path_of(paper)))
        [script] = [s.text for s in tree.iter("script") if s.get("type") == "application/ld+json"]
        data = json.loads(script)
        url = catalog.config.base_url + urls.path_of(paper)
        assert data["@context"] == "https://schema.org" and data["@type"] == "ScholarlyArticle"
        assert data["headline"] == plain_text(paper.title) and data["datePublished"] == str(paper.year)
        # not what the page says otherwise: the abstract and topics it shows, the URL of its canonical link
        assert not {"abstract", "keywords", "url", "name"} & data.keys()
        assert tree.find(".//link[@rel='canonical']").get("href") == url
        assert [a["name"] for a in data.get("author", [])] == list(paper.authors)
        assert data["publication"]["name"] == catalog.venue(paper.venue).full_name


def test_json_ld_cannot_break_out_of_its_script(site):
    add_json_ld(site.root)
    title = "Beyond </script><script>alert(1)</script> & <!-- Tricks"
    site.paper("tricky", title=json.dumps(title), body="Abstract with </script> inside & more.")
    build, _ = site.build()
    html = build.files["papers/tricky/index.html"].decode()

    def script(opening):
        start = html.index(opening) + len(opening)
        body = html[start:html.index("</script>", start)]
        assert "<" not in body and ">" not in body and "&" not in body
        return json.loads(body)
    assert script('<script type="application/ld+json">')["headline"] == title
    cited = script('<script type="application/json" id="cite-data">')  # the RIS and CSL-JSON downloads'
    assert cited["csl"]["title"] == title
    # the abstract: read from the page (#abstract-text, escaped there), else carried
    if cited.get("page") and "abstract" not in cited["csl"]:
        assert '<div id="abstract-text"><p>Abstract with &lt;/script&gt; inside &amp; more.</p></div>' in html
    else:
        assert "</script> inside & more" in cited["csl"]["abstract"]
    assert html.count("<script") == html.count("</script>")  # nothing injected


def test_feeds_order_by_date_then_added_with_dates_from_content(tmp_path):
    """Newest first by `date`, else `added` (the import day), else the year; never the clock."""
    from tests.conftest import TinySite
    site = TinySite(tmp_path / "site")
    papers = {  # name: extra front matter
        "dated": "date: 2024-07-21\nadded: 2024-01-05\n",
        "month": "date: 2024-07\n",
        "imported": "added: 2026-11-30\n",  # a new import without a date: first
        "imported-earlier": "added: 2026-11-30\n",  # same day: the catalog's order (title) decides
        "old-import": "added: 2023-02-01\n",
        "bare": "",
    }
    for name, extra in papers.items():
        site.write(f"content/icml-2024/{name}.md",
                   f"---\nid: {name}\ntitle: {name.title()}\nvenue: icml-2024\ntopics: [learning-theory]\n{extra}"
                   f"---\nAbstract of {name}.\n")
    build, _ = site.build()
    out, base = site.root / "_site", build.catalog.config.base_url
    for feed_path in ("feed.xml", "venues/icml-2024/feed.xml", "topics/learning-theory/feed.xml"):
        root = read_feed(out, feed_path)
        entries = [(e.findtext(ATOM + "id").removeprefix(base + "papers/").rstrip("/"),
                    e.findtext(ATOM + "published"), e.findtext(ATOM + "updated")) for e in root.findall(ATOM + "entry")]
        assert entries == [
            ("imported", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00Z"),
            ("imported-earlier", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00Z"),
            ("dated", "2024-07-21T00:00:00Z", "2024-07-21T00:00:00Z"),
            ("month", "2024-07-01T00:00:00Z", "2024-07-01T00:00:00Z"),
            ("bare", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"),
            ("old-import", "2023-02-01T00:00:00Z", "2023-02-01T00:00:00Z"),
        ]
        assert root.findtext(ATOM + "updated") == "2026-11-30T00:00:00Z"
    first = (out / "feed.xml").read_bytes()
    site.build()
    assert (out / "feed.xml").read_bytes() == first
