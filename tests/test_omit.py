"""site.yaml `omit:`: what a user wants left out of the pages: the RIS and CSL-JSON downloads
(and the data they are made from), or the author pages' BibTeX download; nothing else changes.
No file is written for either (issue 36: downloads are made in the browser); `author-feeds`
leaves out nothing any more (there are no author feeds), and is kept so older site.yaml files build."""
from __future__ import annotations

import re

import pytest

from papersite.source.config import OMITTABLE
from papersite.errors import SiteError
from tests.conftest import MINIMAL_CONFIG, TinySite
from tests.test_authors import people_site
from tests.test_build_cache import assert_same_as_clean

OFFERS = {  # what each name leaves out: (the pages, by path, and what marks it in them)
    "author-feeds": [],
    "author-bibtex": [(r"authors/[^/]+/index\.html", "data-bib=")],
    # (the RIS and CSL-JSON buttons: site.js makes them on a page with #cite-data)
    "citation-files": [(r"papers/[^/]+/index\.html", 'id="cite-data"'),
                       (r"reading-list/index\.html", 'data-export="ris"')],
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


@pytest.mark.parametrize("names", [[name] for name in OMITTABLE] + [list(OMITTABLE)], ids="+".join)
def test_omit_leaves_out_what_it_names_and_nothing_else(tmp_path, whole, names):
    _, full = whole
    _, built = build(tmp_path, names)
    assert set(built.paths) == set(full.paths)  # the same files
    left_out = [(re.compile(path), marker) for name in names for path, marker in OFFERS[name]]
    changed = 0
    for path in sorted(full.paths):
        if not path.endswith(".html"):
            continue
        before, now = full.files[path].decode(), built.files[path].decode()
        marked = [marker for pattern, marker in left_out if pattern.fullmatch(path) and marker in before]
        assert not [marker for marker in marked if marker in now], path
        if marked:
            changed += 1
        else:
            assert now == before, path  # a page without what was left out is as it was
    assert changed or names == ["author-feeds"]  # pages did offer it


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
    pages = sorted((site.root / "_site/papers").glob("*/index.html"))
    assert pages and not [page for page in pages if 'id="cite-data"' in page.read_text(encoding="utf-8")]
    config.write_text(original, encoding="utf-8")
    assert_same_as_clean(site, tmp_path, "nothing omitted again")
    assert all('id="cite-data"' in page.read_text(encoding="utf-8") for page in pages if page.parent.name != "page")
