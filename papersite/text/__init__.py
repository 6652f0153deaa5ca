r"""Text: abstracts rendered, and the words that search, related papers and the map count.

    abstracts.py        the Markdown stage: render_abstracts(catalog) -> {id: Abstract}
    markdown_html.py    Markdown with TeX math -> safe HTML and its plain text, in one pass
                        (render_abstract, render_title), through Python-Markdown's extension API:
    markdown_limits.py    input nested or long past the limits refused, with its line
    math_spans.py         where the formulas are
    mathml.py             TeX -> MathML through an allow-list, with
    math_alphabets.py       \mathcal, \mathbb, \mathbf... as Unicode's styled letters
    text_mode.py            \text{...}, \textit{...} and the formulas inside them
    html_writer.py        the tree written through an allow-list
    tex_text.py         TeX -> readable text (search, snippets)
    plain.py            titles and abstracts as one line of plain text; snippets
    limits.py           what an abstract may hold; MarkupError
    words.py            stemmers, stop words and term counts, shared by search, related and the map
"""
