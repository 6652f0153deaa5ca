"""Every URL and output path in one place.

Pages are addressed by site-relative paths ('' is the home page,
'papers/<slug>/' a paper). Links are root-relative and carry the base path,
so a project site served under /<repo>/ works; canonical links, the sitemap
and feeds use the absolute base_url.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from .model import Author, Paper, Topic, Venue

HOME = ""
ALL_PAPERS = "papers/"
ALL_VENUES = "venues/"
ALL_TOPICS = "topics/"
ALL_AUTHORS = "authors/"
ALL_YEARS = "years/"
SEARCH = "search/"
SEARCH_INDEX = "search/index.json"
SEARCH_DOCS = "search/docs.json"
MAP = "map/"
MAP_POINTS = "map/points.json"  # the map's data: papersite/papermap/files.py
READING_LIST = "reading-list/"
STATIC = "static/"
FEED = "feed.xml"
BIBTEX = "papers.bib"  # every paper of a venue, for reference managers


def path_of(target: Paper | Venue | Topic | Author | int | str) -> str:
    """The site-relative path of a paper, venue, topic, author, year (an int), or a path given as is."""
    if isinstance(target, Paper):
        return f"papers/{target.slug}/"
    if isinstance(target, Venue):
        return f"venues/{target.slug}/"
    if isinstance(target, Topic):
        return f"topics/{target.slug}/"
    if isinstance(target, Author):
        return f"{ALL_AUTHORS}{target.slug}/"
    if isinstance(target, int) and not isinstance(target, bool):
        return f"{ALL_YEARS}{target}/"
    return target


def author_slug(path: str | None) -> str | None:
    """The slug of the author whose page `path` is (path_of), None for another path."""
    if not isinstance(path, str) or not path.startswith(ALL_AUTHORS) or not path.endswith("/"):
        return None
    return path[len(ALL_AUTHORS):-1] or None


def page_of(listing: str, number: int) -> str:
    """Page `number` of a paginated listing: 'venues/x/' for 1, 'venues/x/page/2/' after."""
    return listing if number == 1 else f"{listing}page/{number}/"


def letter_anchor(letter: str) -> str:
    """The id of the authors index's heading for names under `letter`: 'letter-A', and
    'letter-other' for the names listed under '#' (a '#' in a link's fragment is invalid)."""
    return f"letter-{letter}" if letter.isalnum() else "letter-other"


def feed_of(target: Venue | Topic | None = None) -> str:
    """The Atom feed of the whole catalog, or of one venue or topic ('venues/<slug>/feed.xml')."""
    return (path_of(target) if target else "") + FEED


def bibtex_of(venue: Venue) -> str:
    """A venue's .bib ('venues/<slug>/papers.bib'), the one kind of .bib file the site writes: every
    other .bib download is made in the browser from them (site/citations.py)."""
    return path_of(venue) + BIBTEX


def output_file(path: str) -> str:
    """Where a page's bytes go inside the output folder: 'papers/x/' -> 'papers/x/index.html'."""
    return path + "index.html" if path == "" or path.endswith("/") else path


class Urls:
    """Turns paths into links for one base_url."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.base_path = urlsplit(base_url).path or "/"

    def link(self, target: Paper | Venue | Topic | Author | int | str) -> str:
        """Root-relative link, e.g. /repo/papers/x/."""
        if type(target) is str:  # a path: most of a page's links (its chrome's), a shortcut past path_of's checks
            return self.base_path + target
        return self.base_path + path_of(target)

    def absolute(self, target: Paper | Venue | Topic | Author | int | str) -> str:
        """Absolute URL, e.g. https://user.github.io/repo/papers/x/."""
        if type(target) is str:
            return self.base_url + target
        return self.base_url + path_of(target)
