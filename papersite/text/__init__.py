"""Text: abstracts rendered, and the words that search, related papers and the map count.

    abstracts.py   the Markdown stage: render_abstracts(catalog) -> {id: Abstract}
    markup.py      Markdown with TeX math -> safe HTML and MathML; plain text and snippets
    words.py       stemmers, stop words and term counts, shared by search, related and the map
"""
