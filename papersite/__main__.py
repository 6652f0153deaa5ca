"""`python -m papersite`: the same CLI as `python build.py`."""
import signal
import sys


def _interrupted_early(signum, frame):  # Ctrl-C while the libraries load is quiet too
    sys.stderr.write("Interrupted.\n")
    sys.exit(130)


signal.signal(signal.SIGINT, _interrupted_early)

from papersite.cli import main  # noqa: E402

main()
