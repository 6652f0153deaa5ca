"""site.yaml `omit:`: a catalog too large for GitHub Pages leaves out author feeds, author .bib
files or each paper's RIS and CSL-JSON, and every link to them; nothing else changes."""
from __future__ import annotations

import re

import pytest

from papersite.source.config import OMITTABLE
from papersite.errors import SiteError
from tests.conftest import MINIMAL_CONFIG, TinySite
from tests.htmlcheck import page_url, parse, resolve
from tests.test_authors import people_site
from tests.test_build_cache import assert_same_as_clean

FILES = {  # what each name leaves out
    "author-feeds": r"authors/[^/]+/feed\.xml",
    "author-bibtex": r"authors/[^/]+/papers\.bib|papers/[^/]+/cite\.bib",
    "citation-files": r"papers/[^/]+/cite\.(ris|json)",
}


def build(root, omit: list[str] | None = None):
    site = people_site(TinySite(root / "site"))
    if omit is not None:
        with open(site.root / "site.yaml", "a", encoding="utf-8") as config:
            config.write(f"omit: [{', '.join(omit)}]\n")
    built, _ = site.build(root / "out")
    return root / "out", built


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    return build(tmp_path_factory.mktemp("whole"))


def links(out, html, base: str) -> set[str]:
    """Every file a page links or loads, as a path in the site."""
    parsed = parse(html)
    targets = (resolve(out, base, page_url(out, base, html), href) for href in parsed.links + parsed.assets)
    return {target.relative_to(out).as_posix() for target in targets if target is not None}


@pytest.mark.parametrize("names", [[name] for name in OMITTABLE] + [list(OMITTABLE)], ids="+".join)
def test_omit_leaves_out_its_files_and_only_the_links_to_them(tmp_path, whole, names):
    full_out, full = whole
    out, built = build(tmp_path, names)
    pattern = re.compile("|".join(FILES[name] for name in names))
    expected = {path for path in full.paths if pattern.fullmatch(path)}
    assert expected, "the whole site has the files to leave out"
    assert set(built.paths) == set(full.paths) - expected
    base = built.catalog.config.base_path
    unlinked = 0
    for html in sorted(out.rglob("*.html")):
        page = html.relative_to(out).as_posix()
        now, before = links(out, html, base), links(full_out, full_out / page, base)
        assert all((out / target).is_file() for target in now), page  # no link leads nowhere
        assert now == before - expected, page  # only the links to what went are gone
        unlinked += len(before - now)
    assert unlinked  # pages did link them


def test_the_reading_list_offers_what_the_site_has(tmp_path, whole):
    _, built = build(tmp_path, ["citation-files"])
    page = built.files["reading-list/index.html"].decode()
    assert re.findall(r'data-export="(\w+)"', page) == ["bib"]
    everything = whole[1].files["reading-list/index.html"].decode()
    assert re.findall(r'data-export="(\w+)"', everything) == ["bib", "ris", "json"]


def test_omit_names_are_checked_where_they_are_written(site: TinySite):
    first = MINIMAL_CONFIG.count("\n") + 2  # the line of the list's first entry
    site.write("site.yaml", MINIMAL_CONFIG + "omit:\n  - author-feeds\n  - author-feed\n  - pdfs\n")
    with pytest.raises(SiteError) as error:
        site.config
    assert [str(problem) for problem in error.value.problems] == [
        f"{site.root / 'site.yaml'}:{first + 1}: omit: 'author-feed' is not a file the build can leave out (did you mean 'author-feeds'?)",
        f"{site.root / 'site.yaml'}:{first + 2}: omit: 'pdfs' is not a file the build can leave out "
        "(one of author-feeds, author-bibtex, citation-files)"]
    site.write("site.yaml", MINIMAL_CONFIG + "omit: author-feeds\n")
    with pytest.raises(SiteError, match="'omit' must be a list"):
        site.config


def test_a_cached_build_follows_omit_there_and_back(tmp_path):
    site = people_site(TinySite(tmp_path / "site"))
    config = site.root / "site.yaml"
    original = config.read_text(encoding="utf-8")
    assert_same_as_clean(site, tmp_path, "the whole site")
    config.write_text(original + "omit: [author-feeds, author-bibtex, citation-files]\n", encoding="utf-8")
    assert_same_as_clean(site, tmp_path, "everything omitted")
    assert not list((site.root / "_site").rglob("cite.ris"))
    config.write_text(original, encoding="utf-8")
    assert_same_as_clean(site, tmp_path, "nothing omitted again")
    assert list((site.root / "_site").rglob("cite.ris"))
