"""The preview: `serve` and `build --watch`, rebuilding on every change.

    server.py       the preview server: the site from memory, live reload, errors shown in the browser
    rebuild.py      Rebuilder: a Warm build after each change, keeping the last good one
    first_look.py   an edited paper's own page, served before the whole site is rebuilt
    watch.py        the debounced watching of the sources
    build_watch.py  `build --watch`: the same rebuilds, written to the output folder
"""
