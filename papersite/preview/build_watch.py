"""`build --watch`: build, then rebuild and write on every change to the sources."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import Problem, SiteError
from ..engine.output import check_output
from .rebuild import Rebuilder, summary
from ..source.files import SOURCE_DIRS
from .watch import ChangeQueue, SourceWatcher, rebuild_loop


def watch_and_build(config_path: Path, output: Path, base_url: str | None,
                    echo: Callable[[str], None], queue: ChangeQueue | None = None) -> None:
    """`build --watch`: build, then rebuild and write on every change until Ctrl-C
    (or until `queue` is closed, which is how tests stop it)."""
    refuse_output_in_sources(config_path, output)
    check_output(output, Path(config_path).parent)  # now, rather than as the error of every rebuild
    rebuilder = Rebuilder(config_path, base_url, output)
    echo(summary(None, rebuilder.rebuild(), "written"))
    queue = queue or ChangeQueue()
    watcher = SourceWatcher(config_path, queue)
    watcher.start()
    echo(f"Watching {', '.join(SOURCE_DIRS)} and {config_path.name} (Ctrl-C to stop)")
    try:
        rebuild_loop(queue, lambda changes: echo(summary(changes, rebuilder.rebuild(), "written")))
    except KeyboardInterrupt:
        echo("stopped")
    finally:
        watcher.stop()


def refuse_output_in_sources(config_path: Path, output: Path) -> None:
    """Writing into a watched folder would trigger a rebuild after every rebuild."""
    root = config_path.resolve().parent
    target = output.resolve()
    for name in SOURCE_DIRS:
        if target == root / name or (root / name) in target.parents:
            raise SiteError(Problem(output, None, f"the output folder is inside {name}/, which is "
                                                  "watched for changes: choose a folder such as _site"))
