"""The importer's scan of content/: files whose bytes the manifest records are read as
render() wrote them, without YAML; the result must be what YAML reads, or the file goes
to YAML."""
import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.source.content import split_front_matter
from papersite.importers import writer
from papersite.source.yamlsource import load_yaml

# Text as one_line leaves it (no control characters, no line breaks) and slugs, which
# render writes unquoted; numbers, booleans and words YAML reads as something else.
texts = st.one_of(
    st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30)
    .map(lambda s: " ".join(s.split())).filter(bool),
    st.from_regex(r"[a-z][a-z0-9]{0,4}(-[a-z0-9]{1,4}){1,3}", fullmatch=True),
    st.sampled_from(["true", "null", "no", "1e5", "0123", "2024-07-21", "a: b", "# not a comment", "[x]",
                     "'quoted'", '"double"', "x\\y", "é ß 漢字 😀", "-", "~"]),
)
values = st.one_of(
    texts, st.integers(-5, 3000), st.lists(texts, max_size=4),
    st.dictionaries(st.sampled_from(["name", "orcid", "affiliation"]), texts, max_size=3),
    st.lists(st.one_of(texts, st.fixed_dictionaries({"name": texts, "affiliation": texts})), max_size=3),
    st.dictionaries(st.sampled_from(["pdf", "code", "doi"]), texts, max_size=3),
)
fronts = st.fixed_dictionaries(
    {"id": st.one_of(texts, st.integers(0, 10**6)), "title": texts},
    optional={"title_source": texts, "authors": values, "venue": values, "year": st.integers(1900, 2100),
              "added": texts, "topics": st.lists(texts, max_size=3), "links": values,
              "extra": st.dictionaries(texts, values, max_size=2)},
)


def _scanned_by_yaml(front_text: str) -> dict:
    data, _ = load_yaml(front_text, "x.md", first_line=2)
    return {key: value for key, value in data.items() if key in writer._SCANNED}


@settings(max_examples=300, deadline=None)
@given(fronts, st.booleans())
def test_reading_rendered_front_matter_agrees_with_yaml(front, derived):
    text = writer.render(front, "An abstract.", derived).decode("utf-8")
    front_text, _, _ = split_front_matter(text)
    fast = writer._read_rendered(front_text)
    if fast is not None:  # None: YAML reads it, which is always right
        assert fast == _scanned_by_yaml(front_text)


def test_the_values_render_writes_are_read_without_yaml():
    front = {"id": "arxiv-2402.07207", "title": "GALA3D: Generative 3D Gaussians", "title_source": "derived:ab12cd34",
             "authors": ["Ada Lovelace", {"name": "Kurt Gödel", "orcid": "0000-0002-1825-0097"}, "li-wei"],
             "venue": "icml-2024", "year": 2024, "added": "2025-01-01", "topics": ["language-models"],
             "links": {"pdf": "https://example.org/a.pdf"}, "extra": {"note": "x", "weights": [0.5, 1e-05]}}
    front_text, _, _ = split_front_matter(writer.render(front, "", False).decode())
    assert writer._read_rendered(front_text) == {key: front[key] for key in writer._SCANNED}


def test_anything_else_goes_to_yaml():
    for line in ("title: 'Quoted the YAML way'", "title: Plain words", "year: 2024.0", "links: {pdf: 1.5}",
                 "authors:", "  - Ada", "title: \"a\u2028b\"", 'title: "PyYAML\\x41 escapes"', 'title: "folded'):
        assert writer._read_rendered(f"id: p1\n{line}") is None, line


def _catalog(tmp_path):
    content = tmp_path / "content"
    (content / "v").mkdir(parents=True)
    manifest = {}
    for n, title in enumerate(["First Paper", "Second: A Paper"]):
        data = writer.render({"id": f"p{n}", "title": title, "authors": ["Ada Lovelace"], "venue": "v",
                              "year": 2024, "added": "2025-01-01", "links": {"doi": f"https://doi.org/10.1234/x{n}"}},
                             f"Abstract {n}.", False)
        (content / "v" / f"p{n}.md").write_bytes(data)
        manifest[f"v/p{n}.md"] = writer.file_hash(data)
    return content, manifest


def test_a_scan_trusting_the_manifest_equals_one_reading_every_file_with_yaml(tmp_path):
    content, manifest = _catalog(tmp_path)
    fast, slow = writer.scan_catalog(content, manifest), writer.scan_catalog(content)
    assert [dataclasses.astuple(p) for p in fast] == [dataclasses.astuple(p) for p in slow]
    assert [p.title for p in fast] == ["First Paper", "Second: A Paper"]
    assert fast[0].identifiers == [("doi", "10.1234/x0")]
    for path in sorted(content.rglob("*.md")):  # and it was read without YAML
        assert writer._read_rendered(split_front_matter(path.read_text())[0]) is not None


def test_a_file_edited_by_hand_is_read_with_yaml(tmp_path):
    """An edit changes the bytes, so the manifest's hash no longer vouches for the file's form."""
    content, manifest = _catalog(tmp_path)
    path = content / "v" / "p0.md"
    path.write_text(path.read_text().replace('title: "First Paper"', "title: 'Edited, the YAML way'"))
    assert [p.title for p in writer.scan_catalog(content, manifest)] == ["Edited, the YAML way", "Second: A Paper"]


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(texts, st.text(max_size=70), max_size=6))
def test_the_manifest_is_written_as_it_always_was(tmp_path_factory, manifest):
    """write_manifest uses the C JSON encoder (indent turns it off): the bytes of json.dumps(indent=1)."""
    content = tmp_path_factory.mktemp("content")
    writer.write_manifest(content, manifest)
    expected = json.dumps(dict(sorted(manifest.items())), indent=1) + "\n"
    assert (content / writer.MANIFEST).read_bytes() == expected.encode("utf-8")
