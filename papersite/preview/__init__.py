"""The preview (`serve`) and `build --watch`: the site rebuilt on every edit.

`serve` keeps the site in memory and serves it on 127.0.0.1 under its base path,
with live reload:

    <base>__reload        Server-Sent Events: {"build": n, "since": m, "changed": [...], "problems": [...]}
                          now and after every rebuild: build n changed these output files of build m
                          (null: any of them)
    <base>__preview.js    reloads the tab when its page or a file it loaded changed, shows problems
                          as an overlay
    <base>__preview.css   the overlay's style

Served HTML pages get a <link> and <script> for these two files (external,
because the pages' CSP allows only 'self' scripts and styles).

    server.py       Preview: the loop tying the watcher, the rebuilder and the HTTP server together
    state.py        SiteState: the build served, its version, the problems shown, the tabs open
    files.py        what a URL path serves: a file of the build and nothing else
    handler.py      HTTP: requests read strictly and answered, one a connection
    hosts.py        the Host names the server answers to (DNS rebinding); the warning when others can reach it
    terminal.py     what the preview prints, escaped
    watch.py        the sources watched, bursts of events made single rebuilds
    rebuild.py      the warm Rebuilder
    first_look.py   an edited paper's page, served before the whole site is rebuilt
    build_watch.py  `build --watch`
"""
