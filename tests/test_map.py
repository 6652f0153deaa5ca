"""The paper map: map/ and its data file, built into a real site and read back."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from pathlib import Path

import html5lib
import pytest

from papersite import parallel
from papersite.papermap import layout as paper_map
from papersite.preview.rebuild import Rebuilder
from papersite.search import read_record
from papersite.text.words import prose_term_counts as term_counts
from papersite.papermap.files import browser_slug
from tests.conftest import TinySite

DIFFUSION = ["Score-based diffusion models denoise images step by step with a learned score network.",
             "Denoising diffusion sampling of images, faster: fewer score network steps, same image quality.",
             "Latent diffusion models generate images from text with a denoising score network.",
             "Guidance for diffusion image generation: the score network steers denoising.",
             "Consistency of diffusion samplers: denoising images with one score network evaluation.",
             "Video diffusion: denoising frames of images jointly with a shared score network."]
BANDITS = ["Regret bounds for contextual bandits with linear rewards and exploration bonuses.",
           "Thompson sampling for multi-armed bandits: regret of exploration under linear rewards.",
           "Adversarial bandits with delayed rewards: a regret bound for exploration.",
           "Best-arm identification in bandits: exploration until the rewards separate, with regret.",
           "Batched bandits: regret when rewards arrive in rounds and exploration is limited.",
           "Dueling bandits with preference rewards and logarithmic regret from exploration."]


def two_topic_site(root) -> TinySite:
    site = TinySite(root)
    for i, body in enumerate(DIFFUSION):
        site.paper(f"diffusion-{i}", id=f"d{i}", title=f"Diffusion Paper {i}", topics="[generative-models]", body=body)
    for i, body in enumerate(BANDITS):
        site.paper(f"bandit-{i}", id=f"b{i}", title=f"Bandit Paper {i}", topics="[learning-theory]", body=body)
    return site


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    site = two_topic_site(tmp_path_factory.mktemp("map") / "site")
    build, _ = site.build()
    return site, build


def points_of(build) -> dict:
    return json.loads(build.files["map/points.json"])


def urls_of(data: dict, base_path: str) -> list[str]:
    """map.js's rule: a number is the length of the slugified title's start."""
    return [f"{base_path}papers/{browser_slug(title)[:slug] if isinstance(slug, int) else slug}/"
            for title, slug in zip(data["title"], data["slug"])]


def test_every_paper_is_on_the_map_and_links_to_its_page(built):
    site, build = built
    data = points_of(build)
    count = len(build.catalog.papers)
    assert len(data["x"]) == len(data["y"]) == len(data["title"]) == len(data["topic"]) == count == 12
    assert all(0 <= v < data["grid"] for v in data["x"] + data["y"])
    assert sum(n for _, n in data["venues"]) == count
    base = build.catalog.config.base_path
    links = urls_of(data, base)
    assert sorted(links) == sorted(f"{base}papers/{p.slug}/" for p in build.catalog.papers)
    for link in links:  # every link is a page of the site
        assert link[len(base):] + "index.html" in build.files
    assert {data["topics"][t] for t in data["topic"]} == {"Generative Models", "Learning Theory"}


def test_papers_about_the_same_thing_sit_together(built):
    _, build = built
    data = points_of(build)
    points = list(zip(data["x"], data["y"]))
    groups = ["Diffusion" in title for title in data["title"]]
    same, other = [], []
    for i, a in enumerate(points):
        for j, b in enumerate(points[:i]):
            (same if groups[i] == groups[j] else other).append(math.dist(a, b))
    assert sum(same) / len(same) < 0.6 * sum(other) / len(other)


def test_the_map_is_linked_from_home_and_the_navigation(built):
    _, build = built
    base = build.catalog.config.base_path
    for page in ("index.html", "papers/index.html", "papers/diffusion-0/index.html"):
        document = html5lib.parse(build.files[page], namespaceHTMLElements=False)
        nav = document.find(".//nav[@class='site-nav']")
        assert f"{base}map/" in [a.get("href") for a in nav.iter("a")], page
    home = html5lib.parse(build.files["index.html"], namespaceHTMLElements=False)
    assert f"{base}map/" in [a.get("href") for a in home.find(".//main").iter("a")]
    page = html5lib.parse(build.files["map/index.html"], namespaceHTMLElements=False)
    app = page.find(".//*[@id='map-app']")
    assert app.get("data-points") == f"{base}map/points.json"
    scripts = [s.get("src") for s in page.iter("script") if s.get("src")]
    assert f"{base}static/map.js" in scripts
    sitemap = build.files["sitemap.xml"].decode()
    assert "/map/<" in sitemap and "points.json" not in sitemap


def test_rebuilds_are_byte_identical_and_reuse_the_layout(built, tmp_path, monkeypatch):
    site, build = built
    again, _ = site.build(tmp_path / "again")
    assert again.files["map/points.json"] == build.files["map/points.json"]
    fits, read = [], []  # frames made; texts read into a frame (their vectors worked out)
    real_fit, real_vectors = paper_map.fit, paper_map._vectors
    monkeypatch.setattr(paper_map, "fit", lambda counts, digest: fits.append(counts) or real_fit(counts, digest))
    monkeypatch.setattr(paper_map, "_vectors", lambda frame, counts, columns=None: read.extend(counts) or
                        real_vectors(frame, counts, columns))
    monkeypatch.setattr(paper_map, "LANDMARKS", 6)  # of these 12 papers, 6 are laid out, 6 placed among them
    monkeypatch.setattr(paper_map, "FRAME", 3)  # and the texts of 3 of those make the frame
    texts = dict(zip([f"p{i}" for i in range(12)], DIFFUSION + BANDITS))
    layouts = paper_map.LayoutCache()

    def lay_out(texts):  # as the build does: the job (run anywhere), then keep what it gave
        job, size = layouts.job(texts)
        return layouts.keep(job()), size

    first, size = lay_out(texts)
    assert size == len(texts) and len(fits) == 1 and len(fits[0]) == 3 and len(read) == 12
    assert lay_out(dict(texts)) == (first, 0) and len(fits) == 1 and len(read) == 12  # cached: no work
    chosen = paper_map.landmarks(list(texts))
    other = next(key for key in texts if key not in chosen)
    edited = dict(texts, **{other: "Bandits with regret bounds and exploration, nothing else."})
    del read[:]
    points, size = lay_out(edited)
    assert size == 1 and len(fits) == 1 and read == [term_counts(edited[other])]  # the edited paper alone
    assert points == paper_map.layout(list(edited.values()), list(edited))  # where a clean layout puts it
    assert [p for key, p, q in zip(texts, points, first) if p != q] in ([], [points[list(texts).index(other)]])
    fits.clear()
    landmark = dict(edited, **{chosen[4]: "Bandits with regret bounds and exploration, nothing more."})
    del read[:]
    points, size = lay_out(landmark)
    assert size == 1 and not fits and read == [term_counts(landmark[chosen[4]])]  # laid out again in the same frame
    assert points == paper_map.layout(list(landmark.values()), list(landmark))
    framed = dict(landmark, **{chosen[0]: "Bandits with regret bounds and exploration, nothing at all."})
    del read[:], fits[:]
    points, size = lay_out(framed)
    assert size == 12 and len(fits) == 1 and len(read) == 12  # the frame made anew: everything with it
    assert points == paper_map.layout(list(framed.values()), list(framed))
    landmark = framed
    monkeypatch.setattr(paper_map, "arithmetic", lambda: "another processor's BLAS kernels")
    fitted = len(fits)
    assert lay_out(landmark)[1] == 12 and len(fits) == fitted + 1  # nothing reused: a clean build there differs
    assert lay_out(dict(list(texts.items())[:4]))[1] > 0
    assert set(layouts.where()) == set(list(texts)[:4])


def test_the_previews_map_follows_an_edit_then_lands_on_what_build_lays_out(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # these few papers' layout gets a process, as 10,000 do
    site = two_topic_site(tmp_path / "site")
    landed = threading.Event()
    rebuilder = Rebuilder(site.root / "site.yaml", map_landed=landed.set)
    first = points_of(rebuilder.rebuild().build)  # a first build waits for the layout
    assert not landed.is_set()

    def edit(body):
        site.paper("bandit-0", id="b0", title="Bandit Paper 0", topics="[learning-theory]", body=body)
        build = rebuilder.rebuild().build
        rebuilder.follow()  # as the preview does once the build is served
        return build

    edited = edit("Denoising diffusion of images with a score network, and no bandits at all.")
    served = points_of(edited)
    assert (served["x"], served["y"]) == (first["x"], first["y"])  # meanwhile, every paper where it was
    assert any(b"no bandits at all" in page for path, page in edited.files.items() if path.startswith("papers/"))
    edited = edit("Denoising diffusion of images with a score network, and not one bandit.")  # again, at once
    assert points_of(edited)["x"] == first["x"]
    for _ in range(3):  # the first layout may land before the second edit stopped it
        assert landed.wait(60)
        landed.clear()
        exact = rebuilder.rebuild().build
        rebuilder.follow()
        if rebuilder.cache.map.pending is None:
            break
    clean, _ = site.build(tmp_path / "clean")
    assert exact.files["map/points.json"] == clean.files["map/points.json"] != edited.files["map/points.json"]
    assert points_of(rebuilder.rebuild().build) == points_of(exact)  # kept: nothing more to lay out


def test_a_layout_failing_in_the_background_fails_one_preview_rebuild_and_the_next_lays_out_anew(tmp_path,
                                                                                                   monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    site = two_topic_site(tmp_path / "site")
    landed = threading.Event()
    rebuilder = Rebuilder(site.root / "site.yaml", map_landed=landed.set)
    rebuilder.rebuild()
    real = paper_map.fit
    monkeypatch.setattr(paper_map, "fit", lambda *args: 1 / 0)  # a bug, in the forked process
    site.paper("bandit-0", id="b0", title="Bandit Paper 0", topics="[learning-theory]",
               body="Denoising diffusion of images with a score network, and no bandits at all.")
    assert rebuilder.rebuild().build is not None  # served at once, the map as it was
    rebuilder.follow()
    assert landed.wait(60)
    landed.clear()
    failed = rebuilder.rebuild()
    assert failed.build is None and "ZeroDivisionError" in str(failed.error)
    monkeypatch.setattr(paper_map, "fit", real)  # the bug fixed
    assert rebuilder.rebuild().build is not None
    rebuilder.follow()
    assert landed.wait(60)
    exact = rebuilder.rebuild().build
    clean, _ = site.build(tmp_path / "clean")
    assert exact.files["map/points.json"] == clean.files["map/points.json"]
    rebuilder.close()


def test_layout_is_a_pure_function_of_the_texts():
    texts = DIFFUSION + BANDITS
    assert paper_map.layout(texts) == paper_map.layout(list(texts))
    assert paper_map.layout([]) == []
    assert paper_map.layout(["alone"]) == [(paper_map.GRID // 2, paper_map.GRID // 2)]
    two = paper_map.layout(["same words here", "same words here"])  # no term tells them apart
    assert len(two) == 2 and all(0 <= v < paper_map.GRID for p in two for v in p)


def test_another_process_computes_the_same_layout():
    """No state of this process (a warm cache, the BLAS set-up) decides where papers go."""
    code = ("import json, sys; from papersite.papermap import layout as paper_map; from tests.test_map import DIFFUSION, BANDITS; "
            "print(json.dumps(paper_map.layout(DIFFUSION + BANDITS)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    assert [tuple(p) for p in json.loads(out)] == paper_map.layout(DIFFUSION + BANDITS)


def test_a_hostile_title_is_data_not_markup(tmp_path):
    site = TinySite(tmp_path / "site")
    title = "</script><script>alert(1)</script> \"quoted\" & 'single' <img src=x onerror=alert(1)>"
    site.write("content/icml-2024/hostile.md",
               f"---\nid: h\ntitle: '{title.replace(chr(39), chr(39) * 2)}'\nvenue: icml-2024\nyear: 2024\n---\nBody.\n")
    site.paper("plain", id="p", title="Plain", body="Another body.")
    build, _ = site.build()
    raw = build.files["map/points.json"]
    assert b"<" not in raw and b">" not in raw and b"&" not in raw  # escaped as \u003c etc.
    data = json.loads(raw)
    assert title in data["title"]
    hostile = data["title"].index(title)
    assert data["slug"][hostile] in ("hostile", len("hostile")) or urls_of(data, "/")[hostile] == "/papers/hostile/"
    assert urls_of(data, "/")[hostile] == "/papers/hostile/"


def test_a_slug_that_is_not_its_title_is_written_out(tmp_path):
    site = TinySite(tmp_path / "site")
    site.paper("my-own-name", id="a", title="Quite Another Title")
    site.paper("ecole-theorie", id="b", title="École théorie")  # not ASCII: written out
    site.paper("a-long-title", id="c", title="A Long Title, Cut Short by the Importer")
    build, _ = site.build()
    data = points_of(build)
    slugs = dict(zip(data["title"], data["slug"]))
    assert slugs == {"Quite Another Title": "my-own-name", "École théorie": "ecole-theorie",
                     "A Long Title, Cut Short by the Importer": len("a-long-title")}


def test_papers_are_numbered_as_the_search_numbers_them(built):
    """The search page sends its results to the map as paper numbers."""
    _, build = built
    data = points_of(build)
    facets = json.loads(build.files["search/docs.json"])
    for n, title in enumerate(data["title"]):
        record = read_record(json.loads(build.files[f"search/d/{n // facets['perFile']}.json"])[str(n)], facets)
        assert record["title"] == title
        assert urls_of(data, build.catalog.config.base_path)[n] == record["url"]


def test_counts_given_are_used_and_give_the_layout_counting_gives(monkeypatch):
    texts = dict(zip([f"p{i}" for i in range(12)], DIFFUSION + BANDITS))
    monkeypatch.setattr(paper_map, "LANDMARKS", 6)
    counted = []
    real = paper_map.term_counts
    monkeypatch.setattr(paper_map, "term_counts", lambda text: counted.append(text) or real(text))
    alone = paper_map.LayoutCache()
    job, _ = alone.job(texts)
    expected = alone.keep(job())
    assert sorted(counted) == sorted(texts.values())
    counted.clear()
    given = paper_map.LayoutCache()
    job, _ = given.job(texts, counts=lambda key, text: real(text) if key != "p3" else None)
    assert given.keep(job()) == expected
    assert counted == [texts["p3"]]  # only the text whose counts were not given


def test_a_layout_made_anew_in_a_fresh_interpreter_is_the_one_made_here(monkeypatch):
    """A clean build lays the map out in a fresh process (it starts small), sent the counts
    related papers keep of each text, or the text where they kept none: the same landmarks'
    layout and the same points as made here. The counts are streamed, a few at a time."""
    from papersite import parallel
    from papersite.catalog.related import RelatedIndex
    monkeypatch.setattr(paper_map, "LANDMARKS", 6)  # chosen here: the fresh process is sent them
    monkeypatch.setattr(paper_map, "SENT_AT_ONCE", 5)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("PAPERSITE_JOBS", "2")
    texts = dict(zip([f"p{i}" for i in range(12)], DIFFUSION + BANDITS))
    index = RelatedIndex()
    index.update({key: (text,) for key, text in texts.items() if key not in ("p3", "p8")})
    job, size = paper_map.LayoutCache().job(texts, counts=index.kept_counts)  # p3, p8: sent as texts
    assert isinstance(job, parallel.Detachable) and size == len(texts)
    here = job()
    with parallel.in_background(job, size) as result:
        fresh = result()
    assert (fresh.digest, fresh.keys, fresh.points) == (here.digest, here.keys, here.points)
    assert fresh.placed.where() == here.placed.where() and len(set(here.points)) > 6 and len(here.placed.rows) == 6
    assert fresh.skeleton.own == here.skeleton.own and fresh.skeleton.frame.columns == here.skeleton.frame.columns
    for part in ("idf", "basis"):
        assert (getattr(fresh.skeleton.frame, part) == getattr(here.skeleton.frame, part)).all()
    for part in ("vectors", "graph", "points"):
        assert (getattr(fresh.skeleton, part) == getattr(here.skeleton, part)).all()
    for part in ("vectors", "tops", "similar"):
        assert (getattr(fresh.placed, part) == getattr(here.placed, part)).all()


def landmarks_of(counts, frame: int):
    """The landmarks' layout of texts given as counts, the first `frame` of them making the frame."""
    keys = [str(i) for i in range(len(counts))]
    return paper_map.lay_out_landmarks(paper_map.fit(counts[:frame], "test"), keys, keys, dict(zip(keys, counts)).get,
                                       "test")


def test_a_text_placed_alone_lands_where_it_lands_among_hundreds():
    import random
    rng = random.Random(7)
    words = " ".join(DIFFUSION + BANDITS).split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 60))) for _ in range(700)]
    counts = [term_counts(text) for text in texts]
    skeleton = landmarks_of(counts[:40], frame=20)
    together = paper_map.place(skeleton, counts)
    assert [paper_map.place(skeleton, [c])[0] for c in counts] == together
    vectors = paper_map._vectors(skeleton.frame, counts)  # to the last bit, not only on the grid
    assert all((paper_map._vectors(skeleton.frame, [c])[0] == vector).all() for c, vector in zip(counts, vectors))
    assert len(set(together)) > 100  # spread over the map, not all on one point


@pytest.mark.skipif(not parallel.worth_forking(10**6), reason="needs two cores")
def test_texts_placed_on_every_core_are_placed_as_in_one_process_to_the_last_bit(monkeypatch):
    import os
    import random
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    rng = random.Random(11)
    words = " ".join(DIFFUSION + BANDITS).split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 60))) for _ in range(300)]
    counts = {f"d{i}": term_counts(text) for i, text in enumerate(texts)}
    skeleton = landmarks_of(list(counts.values())[:40], frame=20)
    keyed = {digest: digest for digest in list(counts)[40:]}
    workers = []
    real_place = paper_map.place_texts

    def place_texts(*args):
        workers.append(os.getpid())  # this process's own list: a worker's append stays in the worker
        return real_place(*args)
    monkeypatch.setattr(paper_map, "place_texts", place_texts)
    shared = paper_map.place_on_cores(skeleton, keyed, counts.__getitem__)
    assert not workers  # every part was placed by a worker
    alone = real_place(skeleton, keyed, counts.__getitem__)
    assert shared.rows == alone.rows and shared.points == alone.points and len(set(alone.points)) > 50
    for part in ("vectors", "tops", "similar"):
        assert getattr(shared, part).dtype == getattr(alone, part).dtype
        assert (getattr(shared, part) == getattr(alone, part)).all()


def test_counts_numbered_as_related_papers_keep_them_give_the_layout_counts_by_term_give():
    """The map takes each paper's counts as related papers keep them (numbers into one word
    list) rather than make a dict a text: the same landmarks' layout, the same points, also
    with some texts counted afresh among them."""
    import random

    from papersite.catalog.related import RelatedIndex
    rng = random.Random(3)
    words = " ".join(DIFFUSION + BANDITS).split()
    texts = {f"p{i:03d}": " ".join(rng.choice(words) for _ in range(rng.randint(5, 60))) for i in range(300)}
    index = RelatedIndex()
    index.update({key: (text,) for key, text in texts.items()})
    order = rng.sample(list(texts), len(texts))  # not the order the index numbered their words in
    by_term = [term_counts(texts[key]) for key in order]
    numbered = [index.kept_counts(key, texts[key]) for key in order]
    assert all(isinstance(n, paper_map.TermNumbers) for n in numbered)
    mixed = [c if i % 3 else n for i, (c, n) in enumerate(zip(by_term, numbered))]
    keys = order[:60]
    frames = [landmarks_of(counts[:60], frame=60) for counts in (by_term, numbered, mixed)]
    # columns in the order terms first occur, text after text; each with its IDF among the frame's texts
    first_seen = [term for term in dict.fromkeys(t for c in by_term[:60] for t in c) if term in frames[0].frame.columns]
    assert list(frames[0].frame.columns) == first_seen and len(first_seen) > 20
    df = {term: sum(term in c for c in by_term[:60]) for term in first_seen}
    assert [math.log(1 + 60 / df[term]) for term in first_seen] == frames[0].frame.idf.tolist()
    for frame in frames[1:]:
        assert list(frame.frame.columns.items()) == list(frames[0].frame.columns.items())
        assert frame.own == frames[0].own
        for part in ("idf", "basis"):
            assert (getattr(frame.frame, part) == getattr(frames[0].frame, part)).all()
        for part in ("vectors", "graph", "points"):
            assert (getattr(frame, part) == getattr(frames[0], part)).all()
    points = [paper_map.place(frames[0], counts[60:]) for counts in (by_term, numbered, mixed)]
    assert points[0] == points[1] == points[2]
    assert len(set(points[0])) > 50


def test_the_sparse_product_is_the_dense_one_and_exact_sums_are_the_same_in_blocks_of_any_size():
    """The TF-IDF matrix multiplies over its entries only: the dense product's values (a row with
    no entry gives zeros); and with entries and factors in whole units, as the map's vectors are
    (see _fixed), a block of rows gives each row the very bits it gets alone."""
    import numpy as np
    rng = np.random.default_rng(5)
    rows = np.sort(rng.integers(0, 300, 4000))
    rows[rows == 7] = 8
    columns = rng.integers(0, 500, 4000)
    values = rng.standard_normal(4000).astype(np.float32)
    dense = np.zeros((300, 500), np.float64)
    np.add.at(dense, (rows, columns), values)
    right, left = rng.standard_normal((500, 20)).astype(np.float32), rng.standard_normal((300, 20)).astype(np.float32)
    matrix = paper_map._sparse(rows, columns, values, (300, 500))
    product, transposed = matrix @ right, matrix.T @ left
    assert np.allclose(product, dense @ right, rtol=1e-4, atol=1e-4) and not product[7].any()
    assert np.allclose(transposed, dense.T @ left, rtol=1e-4, atol=1e-4)
    whole, factors = np.rint(values * 2 ** 14), np.rint(right.astype(np.float64) * 2 ** 18)
    block = paper_map._sparse(rows, columns, whole, (300, 500)) @ factors
    dense_whole = np.zeros((300, 500))
    np.add.at(dense_whole, (rows, columns), whole)
    assert (block == dense_whole @ factors).all()  # exact: BLAS's order of summing changes nothing
    for row in (0, 8, 150, 299):
        mine = rows == row
        alone = paper_map._sparse(np.zeros(mine.sum(), np.int64), columns[mine], whole[mine], (1, 500)) @ factors
        assert (alone[0] == block[row]).all()
        shuffled = rng.permutation(mine.sum())  # its entries in another order
        again = paper_map._sparse(np.zeros(mine.sum(), np.int64), columns[mine][shuffled], whole[mine][shuffled],
                                  (1, 500)) @ factors
        assert (again == alone).all()


@pytest.mark.parametrize("forked", [False, True])
def test_a_clean_build_lays_out_the_words_related_papers_counted(tmp_path, monkeypatch, forked):
    """The map and related papers read the same words: a first build counts them once, before the
    map's process forks (which then counts none), and lays out what counting them there gives."""
    from papersite.papermap.files import map_files, map_texts
    from papersite.text.abstracts import abstract_of
    if forked:  # as at 10,000 papers: the map laid out in a process of its own
        monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
        monkeypatch.setenv("PAPERSITE_JOBS", "2")
    site = two_topic_site(tmp_path / "site")
    catalog = site.build(tmp_path / "first")[0].catalog
    texts = map_texts(catalog, {p.id: abstract_of(p.abstract) for p in catalog.papers})
    expected = map_files(catalog, paper_map.layout(list(texts.values()), list(texts)))["map/points.json"]
    def counted(text):
        raise AssertionError(f"the map counted {text!r}")  # not pytest.fail: a forked job must raise an Exception
    monkeypatch.setattr(paper_map, "term_counts", counted)
    build, _ = site.build(tmp_path / "again")
    assert build.files["map/points.json"] == expected


@pytest.mark.parametrize("again_at_most", [64, 1])
def test_landmarks_laid_out_again_in_the_same_frame_are_what_a_clean_layout_gives(monkeypatch, again_at_most):
    """An edit to a landmark whose text is not the frame's follows only the kNN rows, and the
    placed texts' choices of landmarks, that it can change: to the last bit what a clean layout
    makes, with equal texts (equal similarities) among landmarks and placed texts alike, and with
    more landmarks changed at once than are followed row by row."""
    import random
    monkeypatch.setattr(paper_map, "LANDMARKS", 60)
    monkeypatch.setattr(paper_map, "FRAME", 15)
    monkeypatch.setattr(paper_map, "AGAIN_AT_MOST", again_at_most)
    rng = random.Random(11)
    words = " ".join(DIFFUSION + BANDITS).split()

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(5, 40)))
    texts = {f"p{i:03d}": text() for i in range(300)}
    texts.update({f"same{i}": texts["p001"] for i in range(20)})
    chosen = paper_map.landmarks(list(texts))
    layouts = paper_map.LayoutCache()
    job, _ = layouts.job(texts)
    layouts.keep(job())
    followed = []
    real = paper_map._nearest_again
    monkeypatch.setattr(paper_map, "_nearest_again", lambda *args: followed.append(args[2]) or real(*args))
    for edit in range(6):
        moved, before = rng.sample(chosen[15:], 1 if edit < 4 else 3), texts
        texts = dict(texts, **{key: text() for key in moved})
        if edit == 3:
            texts.update({key: texts[chosen[0]] for key in moved})  # a landmark now equal to another
        if edit == 4:  # one now as similar to a landmark as its last neighbour, and before it in the landmarks
            skeleton = layouts.skeleton
            row, last = next((row, graph[-1]) for row, graph in enumerate(skeleton.graph.tolist())
                             if any(15 <= other < graph[-1] and other != row and other not in graph
                                    for other in range(len(chosen))))
            other = next(other for other in range(15, last) if other != row and other not in skeleton.graph[row])
            texts[chosen[other]] = texts[chosen[last]]
        job, size = layouts.job(texts)
        laid = job()
        layouts.keep(laid)
        fresh = paper_map.LayoutCache()
        clean = fresh.job(texts)[0]()
        assert size == sum(texts[key] != before[key] for key in chosen) and laid.points == clean.points
        assert (laid.skeleton.graph == clean.skeleton.graph).all() and (laid.skeleton.points == clean.skeleton.points).all()
        for part in ("vectors", "tops", "similar"):
            assert (getattr(laid.placed, part) == getattr(clean.placed, part)).all()
    assert len(followed) == (6 if again_at_most > 1 else 4)  # the rest laid out with every row anew


def test_the_most_similar_are_chosen_in_one_order_whatever_comes_with_them():
    import numpy as np
    similar = np.array([[0.5, 0.9, 0.5, 0.5, 0.1], [1.0, 1.0, 1.0, 1.0, 1.0], [0.2, 0.3, 0.4, 0.5, 0.6]])
    assert paper_map._top(similar, 3).tolist() == [[1, 0, 2], [0, 1, 2], [4, 3, 2]]
    assert paper_map._top(similar[1:2], 2).tolist() == [[0, 1]]  # ties: the lower column first
    assert paper_map._top(similar, 9).tolist()[0] == [1, 0, 2, 3, 4]  # fewer columns than asked: all, in order
