#!/usr/bin/env python3
"""papersite: turn a catalog of paper abstracts into a static website.

`python build.py --help` lists the commands; papersite/cli.py has them (the same
CLI as `python -m papersite`, and `papersite` after `pip install .`).
"""
import signal
import sys

if __name__ == "__main__":  # Ctrl-C while the libraries load (half a second) is quiet too
    def _interrupted_early(signum, frame):
        sys.stderr.write("Interrupted.\n")
        sys.exit(130)

    signal.signal(signal.SIGINT, _interrupted_early)

from papersite.cli import cli, run  # noqa: E402

if __name__ == "__main__":
    run(cli)
