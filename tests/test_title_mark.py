"""The derived-title mark: a paper page says its title was derived from the abstract only
while the title is still the derived one."""
import html5lib
import yaml

from papersite.importers.titles import derive_title, title_is_derived, title_mark

ABSTRACT = ("Retrieval is hard. We introduce Retrieval-Augmented Decoding (RAD), which conditions "
            "generation on retrieved passages for generalization.")
NOTE = "derived from the abstract"


def page_note(out, slug="rad"):
    """The text of the paper page's title note, or None."""
    tree = html5lib.parse((out / "papers" / slug / "index.html").read_bytes(), namespaceHTMLElements=False)
    notes = [el for el in tree.iter() if "title-note" in (el.get("class") or "").split()]
    assert len(notes) <= 1
    return "".join(notes[0].itertext()) if notes else None


def write_paper(site, title, extra=""):
    site.paper("rad", title=yaml.safe_dump(title, default_style='"').strip(), body=ABSTRACT, extra=extra)


def mark_line(title):
    return yaml.safe_dump(title_mark(title), allow_unicode=True)


def test_title_mark_is_front_matter_naming_the_title():
    title = derive_title(ABSTRACT)
    mark = title_mark(title)
    assert list(mark) == ["title_source"] and mark["title_source"].startswith("derived:")
    assert title_is_derived(title, mark["title_source"])
    assert not title_is_derived(title + " Revisited", mark["title_source"])
    assert title_mark(title) == mark  # deterministic
    assert title_is_derived(title, "derived")  # a bare mark, as written by hand, counts
    assert not title_is_derived(title, "") and not title_is_derived(title, "authors")


def test_page_shows_the_mark_until_the_title_is_edited(site):
    title = derive_title(ABSTRACT)
    write_paper(site, title, extra=mark_line(title))
    site.build()
    assert NOTE in page_note(site.root / "_site")
    # A person fixes the title and leaves the mark line alone: the note goes.
    write_paper(site, "Retrieval-Augmented Decoding for Grounded Generation", extra=mark_line(title))
    site.build()
    assert page_note(site.root / "_site") is None


def test_a_plain_paper_has_no_note(site):
    write_paper(site, "Retrieval-Augmented Decoding")
    site.build()
    assert page_note(site.root / "_site") is None


def test_title_source_must_be_text(site):
    from papersite.errors import SiteError
    import pytest

    write_paper(site, "Retrieval-Augmented Decoding", extra="title_source: [derived]\n")
    with pytest.raises(SiteError) as err:
        site.build()
    assert "title_source" in str(err.value) and "rad.md:" in str(err.value)
