"""papersite's command line: `python build.py`, `python -m papersite`, or `papersite` once installed.

A thin CLI: each command loads site.yaml, calls the library and turns a
SiteError into one clear message and exit code 1. Whatever else goes wrong
ends the same way, in one line (PAPERSITE_TRACEBACK=1 shows the traceback);
Ctrl-C ends with status 130 and SIGTERM with 143, quietly.
"""
from __future__ import annotations

import contextlib
import errno
import gc
import importlib
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import click

from . import __version__
from .errors import Problem, SiteError

# Each command imports what it needs when it runs: a `build` that finds nothing
# changed (see engine/command.py) must not pay for loading Jinja, Markdown and lunr.
_LAZY = {"Preview": "preview.server", "exposure_warning": "preview.hosts"}


def __getattr__(name: str):
    """The preview's names, loaded on first use (and replaceable by tests, as attributes)."""
    if name not in _LAZY:
        raise AttributeError(name)
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __package__), name)
    globals()[name] = value
    return value


def _formats_help() -> str:
    from .importers.formats import FORMATS
    return f"Read the files as this format: {', '.join(FORMATS)} (else detected from each file)."


class LazyHelpOption(click.Option):
    """An option whose help text is made when it is shown."""

    def __init__(self, *args, make_help, **kwargs):
        self.make_help = make_help
        super().__init__(*args, **kwargs)

    help = property(lambda self: self.make_help(), lambda self, value: None)

config_option = click.option("--config", "config_path", default="site.yaml", show_default=True,
                             type=click.Path(dir_okay=False, path_type=Path), help="The site.yaml to use.")
base_url_option = click.option("--base-url", help="Override base_url from site.yaml, e.g. https://me.github.io/repo/.")


def invoked_as() -> str:
    """The command as the user runs it, to quote back: papersite, python -m papersite or python build.py."""
    if click.get_current_context().find_root().info_name == "papersite":  # main(): installed, or -m
        return "python -m papersite" if sys.argv[0].endswith("__main__.py") else "papersite"
    return "python build.py"


def fail(error: SiteError):
    raise click.ClickException(str(error))


class Progress:
    """One updating status line on a terminal; silent otherwise or with -q."""

    def __init__(self, quiet: bool):
        self.live = not quiet and sys.stderr.isatty()

    def __call__(self, stage: str) -> None:
        if self.live:
            click.echo(f"\r\033[K{stage}...", nl=False, err=True)

    def done(self) -> None:
        if self.live:
            click.echo("\r\033[K", nl=False, err=True)


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that every build cleans up on its way out."""


class SafeGroup(click.Group):
    """The last safety net: every command ends in one line and a non-zero status."""

    def invoke(self, ctx: click.Context):
        try:
            with signals_handled():
                return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(130)
        except Terminated:
            click.echo("Terminated.", err=True)
            ctx.exit(143)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:  # a bug nobody found yet: still no traceback for the user
            if os.environ.get("PAPERSITE_TRACEBACK"):
                raise
            click.echo(f"Error: {describe(error)} (unexpected: rerun with PAPERSITE_TRACEBACK=1 for the "
                       "details, and please report it)", err=True)
            ctx.exit(1)


def describe(error: Exception) -> str:
    """One line for an unexpected exception."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    if isinstance(error, MemoryError):
        return "out of memory"
    text = " ".join(str(error).split())
    text = text if len(text) <= 300 else text[:297] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@contextlib.contextmanager
def signals_handled():
    """Ctrl-C and SIGTERM end the command in the process that runs it, with its clean-up.

    Forked workers inherit these handlers from the moment they exist (before their
    own set-up runs): there, Ctrl-C is ignored, for the parent stops them, and
    SIGTERM ends them at once, silently.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach only the main thread's handlers; leave them alone
        return
    parent = os.getpid()

    def on_interrupt(signum, frame):
        if os.getpid() == parent:
            raise KeyboardInterrupt

    def on_terminate(signum, frame):
        if os.getpid() != parent:
            os._exit(128 + signum)
        raise Terminated

    previous = signal.signal(signal.SIGINT, on_interrupt), signal.signal(signal.SIGTERM, on_terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])


@click.group(cls=SafeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="papersite", message="%(prog)s %(version)s")
def cli():
    """Build a static website from a catalog of research-paper abstracts."""


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--venue", metavar="SLUG", help="Put every record in this venue of site.yaml (else each record's own).")
@click.option("--format", "fmt", metavar="NAME", cls=LazyHelpOption, make_help=_formats_help)
@click.option("--column", "columns", metavar="FIELD=HEADER", multiple=True,
              help="CSV/TSV: read FIELD (title, authors, abstract, ...) from the column named HEADER. Repeatable.")
@config_option
def import_command(paths, venue, fmt, columns, config_path):
    """Import papers from PATHS into content/.

    Reads BibTeX, CSL-JSON, RIS, CSV/TSV, JSON records and OpenReview notes,
    arXiv Atom and OAI-PMH XML, and the seed text format (a header line such
    as "ICML 2024 Papers", then abstracts separated by blank lines; titles and
    topics are derived). One Markdown file per paper; re-importing updates
    papers in place and changes nothing when nothing changed; a file you
    edited is never overwritten. New venues are added to site.yaml. Exits 1
    when a record or a file could not be read, after importing the others,
    and when nothing could be imported.
    """
    mapping = {}
    for column in columns:
        name, sep, header = column.partition("=")
        if not sep or not name.strip() or not header.strip():
            fail(SiteError(f"--column: expected FIELD=HEADER such as title=Paper Title, not '{column}'"))
        mapping[name.strip()] = header.strip()
    from .source.config import load_config
    from .importers import import_files
    try:
        config = load_config(config_path)
        report = import_files(list(paths), config, config_path, venue=venue, fmt=fmt, columns=mapping)
    except SiteError as error:
        fail(error)
    for notice in report.notices:
        click.echo(str(notice), err=True)
    for slug in report.venues_added:
        click.echo(f"added venue '{slug}' to {config_path}: check its name and full_name")
    click.echo(report.summary())
    if report.nothing_imported():
        click.echo(f"Error: {report.nothing_imported()}", err=True)
    if report.failed():
        sys.exit(1)


@cli.command()
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the site into: a new or empty folder, or a previous output "
                   "(it is replaced as a whole).  [default: _site beside site.yaml]")
@base_url_option
@config_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("--watch", is_flag=True, help="Keep running: rebuild and write on every change to the sources.")
@click.option("--clean", is_flag=True, help="Ignore the build cache (.cache/papersite/ beside site.yaml): "
                                            "build everything from nothing.")
@click.option("--strict", is_flag=True, help="Run `check` on the new site first: on any problem, exit 1 and "
                                             "leave the previous site as it was.")
def build(output, base_url, config_path, quiet, watch, clean, strict):
    """Build the site into OUTPUT.

    A build starts from what the last one left in .cache/papersite/ and does
    nothing at all when no input changed; the site is the same as --clean's,
    byte for byte."""
    from .engine import command
    from .engine.sitesize import in_megabytes
    if output is None:  # beside site.yaml, wherever the command runs (as content/ is)
        output = command.one_spelling(config_path).parent / "_site"
    if watch:
        from .preview.build_watch import watch_and_build
        try:
            watch_and_build(config_path, output, base_url, echo=click.echo)
        except SiteError as error:
            fail(error)
        return
    start = time.perf_counter()
    progress = Progress(quiet)
    if _program:  # then this process ends once the site is built (see run): what it leaves needs no collecting
        gc.disable()
    try:
        result = command.build(config_path, output, base_url, clean, progress=progress,
                             notify=(lambda message: None) if quiet else None,
                             inspect=strict_check(config_path, output, base_url) if strict else None)
    except SiteError as error:
        progress.done()
        fail(error)
    except (KeyboardInterrupt, Terminated) as stop:
        progress.done()
        why = "Interrupted" if isinstance(stop, KeyboardInterrupt) else "Terminated"
        click.echo(f"{why}: the build stopped; {output}/ was left as it was.", err=True)
        raise click.exceptions.Exit(130 if isinstance(stop, KeyboardInterrupt) else 143) from None
    progress.done()
    for warning in result.warnings:
        click.echo(warning, err=True)
    if not result.papers:
        click.echo(f"warning: no papers in {result.content_dir}/: built an empty catalog "
                   f"(import abstracts with '{invoked_as()} import FILE')", err=True)
    if not quiet:
        cached = " (no input changed since the last build)" if result.cached else ""
        click.echo(f"Built {result.papers} papers, {result.pages} pages ({in_megabytes(result.size)}) into {output}/: "
                   f"{result.written} files written, {result.removed} removed, "
                   f"{result.total - result.written} unchanged{cached}, in {time.perf_counter() - start:.2f} s")
    global _ends_at_once
    _ends_at_once = True


@cli.command()
@click.option("--fix", is_flag=True, help="Make the sure fixes, in files the importer wrote and nobody edited since.")
@click.option("--external", is_flag=True, help="Also fetch every external link (a few at a time; links that "
                                                "answered are remembered for a week in .cache/papersite/).")
@click.option("--no-html", "no_html", is_flag=True, help="Skip the HTML validity check (vnu.jar, which needs Java).")
@base_url_option
@config_option
def check(fix, external, no_html, base_url, config_path):
    """Report what is wrong with the catalog and its site, as file:line: message.

    Builds the site in memory and checks the catalog (likely duplicates, author names
    that may be one person or two, missing abstracts, years and venue names, stray TeX
    and unbalanced math, citation keys) and the site (links and anchors, HTML validity,
    Google Scholar's rules, GitHub Pages' size limit). Exits 1 when anything is reported.
    docs/checks.md explains each check."""
    from .check import apply_fixes, run_checks
    from .source.config import load_config
    try:
        config = load_config(config_path).with_base_url(base_url)
        findings = run_checks(config, config_path, external=external, html=not no_html)
        if fix:
            fixed = apply_fixes(findings, config)
            for message in fixed.left_alone:
                click.echo(message, err=True)
            if fixed.files:
                click.echo(f"fixed {len(fixed.files)} file{'s' if len(fixed.files) != 1 else ''}: "
                           f"{', '.join(fixed.files)}")
                findings = run_checks(config, config_path, external=external, html=not no_html)
    except SiteError as error:
        fail(error)
    report_findings(findings)


def report_findings(findings) -> None:
    """Each finding on a line of its own, a summary, and exit 1 when one is a problem."""
    for finding in findings:
        click.echo(str(finding))
    problems = [finding for finding in findings if not finding.note]
    fixable = sum(bool(finding.fix) for finding in problems)
    if problems:
        hint = f", {fixable} with a sure fix ({invoked_as()} check --fix makes them)" if fixable else ""
        click.echo(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found{hint}", err=True)
        sys.exit(1)
    click.echo("No problems found.", err=True)


def strict_check(config_path: Path, output: Path, base_url: str | None):
    """build --strict's look at the new site before it replaces the old: any finding stops the build."""
    def inspect(build, folders: list[Path]) -> None:
        from .check import SiteFiles, run_checks
        from .source.config import load_config
        if build is None:  # nothing changed: the site as it is
            config = load_config(config_path).with_base_url(base_url)
            site, catalog = SiteFiles.folder(output, str(output)), None
        else:
            config, catalog = build.catalog.config, build.catalog
            site = SiteFiles.layered(build.paths, folders, build.files, str(output))
        findings = [finding for finding in run_checks(config, config_path, site, catalog) if not finding.note]
        if findings:
            problems = [Problem(finding.path, finding.line, finding.said) for finding in findings]
            problems.append(Problem(output, None, "not written: build --strict stops on what check reports; "
                                                  "the previous site is unchanged"))
            raise SiteError(problems)
    return inspect


def port_number(ctx, param, value: str) -> int:
    """--port as a number; out of range it is one clear error (exit 1), not a socket traceback."""
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise click.ClickException(f"--port must be a whole number from 0 to 65535, not '{value}'")
    return port


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default="8000", show_default=True, metavar="PORT", callback=port_number,
              help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a web browser.")
@base_url_option
@config_option
def serve(host, port, open_browser, base_url, config_path):
    """Preview the site: serve it from memory under its base path, rebuild on
    every change to content/, templates/, static/ or site.yaml, and reload
    open tabs. A broken edit keeps the last good build and shows the error."""
    from .source.config import load_config
    this = sys.modules[__name__]  # the preview's names load here (see __getattr__)
    Preview, exposure_warning = this.Preview, this.exposure_warning
    if not config_path.is_file():  # nothing to preview here (the wrong folder?); a broken one is shown live
        try:
            load_config(config_path)
        except SiteError as error:
            fail(error)
    warning = exposure_warning(host)
    if warning:
        click.echo(warning, err=True)
    try:
        preview = Preview(config_path, base_url, host, port, log=click.echo)
    except OSError as error:
        hint = ""
        if error.errno == errno.EADDRINUSE:  # most often a preview already running
            hint = f" (another preview? --port {port + 1 if 0 < port < 65535 else 8001} or --port 0 picks another)"
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}{hint}")
    preview.serve_forever(open_browser)


@cli.command()
@click.option("--remote", default="origin", show_default=True, help="Git remote to push to.")
@click.option("--branch", default="gh-pages", show_default=True, help="Branch that receives the built site.")
@click.option("-m", "--message", help="Commit message (default: 'Deploy <commit> with papersite').")
@click.option("--force", is_flag=True, help="Deploy even with uncommitted changes to the sources.")
@base_url_option
@config_option
def deploy(remote, branch, message, force, base_url, config_path):
    """Build the site and publish it to BRANCH of the current repository,
    for GitHub Pages' "Deploy from a branch". Refuses while content/,
    site.yaml, templates/ or static/ have uncommitted changes, unless --force."""
    from .source.config import load_config
    from .deploy import deploy_site
    try:
        config = load_config(config_path).with_base_url(base_url)
        result = deploy_site(config, remote, branch, message, force, config_name=config_path.name)
    except SiteError as error:
        fail(error)
    for warning in result.warnings:
        click.echo(warning, err=True)
    state = "published" if result.changed else "unchanged, already published"
    click.echo(f"{result.files} files {state}: {remote}/{branch} at {result.commit[:12]}, for {config.base_url}")


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path))
def new(folder):
    """Make a fresh catalog in FOLDER, a new or empty folder: an empty content/,
    a short site.yaml with the default topics, the theme's templates/ and static/
    to edit, package.json for lunr.js, a .gitignore and a README."""
    from .scaffold import new_catalog, papersite_source
    source = papersite_source()
    try:
        new_catalog(folder, source)
    except SiteError as error:
        fail(error)
    if not source.found:
        click.echo(f"warning: {folder / 'requirements.txt'}: installs papersite from {source.url}, a guess "
                   "(this papersite came from no git repository GitHub can fetch): put where your "
                   "papersite lives there before the Pages workflow runs", err=True)
    checkout = Path(__file__).resolve().parent.parent / "build.py"  # run from a checkout, not installed
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(checkout))}" if checkout.is_file() else "papersite"
    click.echo(f"Made a new catalog in {folder}/. Next: cd {shlex.quote(str(folder))} && npm ci && {command} serve")


def main() -> None:
    """The `papersite` command and `python -m papersite`."""
    run(cli, prog_name="papersite")


_program = False  # whether this process is the command line program (run), not a caller of `cli` (a test)
_ends_at_once = False  # set by a `build` that has written the site and said so


def run(command: click.Command, **options) -> None:
    """Run the command line as a program does. After a finished `build` the process ends
    at once, its output flushed: freeing the session it loaded, millions of objects, is
    work for nothing in a process about to end. Every pool it used is stopped and the
    session saver is a process of its own by then."""
    global _program
    _program = True
    try:
        command.main(**options)
    except SystemExit as exit:
        if not _ends_at_once or not isinstance(exit.code, (int, type(None))):
            raise
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit.code or 0)
