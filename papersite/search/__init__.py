"""The client-side search: lunr index shards plus a document store, as static files.

    search/index.json   the shard table: which file holds which range of terms  (always loaded)
    search/docs.json    paper count, venues, topics, each paper's topics        (always loaded)
    search/t/<b>.json   term shards: postings of the terms from boundary <b> on  (per query)
    search/d/<n>.json   document store, DOCS_PER_FILE papers a file              (per result page)
    search/order.json   paper numbers in title order                            (lists without a query)
    search/terms.json   the whole vocabulary                   (fuzzy, *x and misspelt queries)

search.js fetches the two small files when the search page opens, then the
shards and document files a query needs; the vocabulary only for a query
that needs it (see static/search.js).

    files.py      search_files: numbering, what is indexed, what a rebuild reuses
    lunr_text.py  lunr.js's text pipeline (tokenizer, trimmer, stop words, stemmer)
    shards.py     the index cut into shards by term, and why they give exactly lunr's scores
    store.py      the document store and the facets
"""
from .files import FIELDS, SHARDS, TERMS, SearchCache, search_files
from .lunr_text import clear_caches
from .shards import ShardedIndex, shard_name
from .store import DOC_FILES, DOCS_PER_FILE, ORDER, read_record

__all__ = ["DOCS_PER_FILE", "DOC_FILES", "FIELDS", "ORDER", "SHARDS", "TERMS", "SearchCache", "ShardedIndex",
           "clear_caches", "read_record", "search_files", "shard_name"]
