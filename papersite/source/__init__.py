"""What the user wrote, read and checked: site.yaml and one Markdown file per paper.

    config.py      load_config(path) -> SiteConfig: the schema, every problem named by line
    content.py     load_papers(config) -> [Paper]: front matter and abstract, validated
    yamlsource.py  safe YAML that remembers which line every value came from
    validate.py    the checks config and content share (types, allowed values)
    files.py       reading files safely: no hang on a FIFO, no link out of the project
"""
