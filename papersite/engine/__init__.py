"""How a build runs: the spine (pipeline.py) says what the stages are, this package how.

    runner.py      BuildCache (what a rebuild reuses) and the runners: InMemory, Warm, Streamed
    command.py     `build`: nothing to do when no input changed, else a Streamed build, the cache kept
    warm.py        the last build kept warm: the next `build` is made by a fork of it, from memory
    store.py       the persistent cache in .cache/papersite/: fingerprints, entries, the last session
    output.py      writing a site all or nothing, through a staging folder, only the files that changed
    output_guard.py  which folders a build may replace (never sources, never another's files); the lock
    map_ahead.py   the map's landmarks laid out ahead, for a `build` after an edit to one of them
    sitesize.py    whether GitHub Pages publishes a site this big

Nothing below the spine imports this package (tests/test_architecture.py).
"""
