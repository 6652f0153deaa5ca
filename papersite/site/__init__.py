"""The site's pages and files, made from the catalog.

    pages.py       plan_pages: which pages exist, with which template and context
    render.py      Jinja2 (autoescaped), the site's templates first, then the default theme
    citations.py   BibTeX, RIS and CSL-JSON files, Scholar tags and JSON-LD
    feeds.py       Atom feeds
    static.py      the theme's static files and lunr.js; .nojekyll and CNAME
"""
