#!/usr/bin/env python3
"""papersite: turn a catalog of paper abstracts into a static website.

A thin CLI: each command loads site.yaml, calls the library and turns a
SiteError into one clear message and exit code 1.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from papersite.config import load_config
from papersite.deploy import deploy_site
from papersite.errors import SiteError
from papersite.importers import import_files
from papersite.importers.formats import FORMATS
from papersite.pipeline import build_and_write
from papersite.serve import Preview, exposure_warning
from papersite.watch import watch_and_build

config_option = click.option("--config", "config_path", default="site.yaml", show_default=True,
                             type=click.Path(dir_okay=False, path_type=Path), help="The site.yaml to use.")
base_url_option = click.option("--base-url", help="Override base_url from site.yaml, e.g. https://me.github.io/repo/.")


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """Build a static website from a catalog of research-paper abstracts."""


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--venue", metavar="SLUG", help="Put every record in this venue of site.yaml (else each record's own).")
@click.option("--format", "fmt", metavar="NAME",
              help=f"Read the files as this format: {', '.join(FORMATS)} (else detected from each file).")
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
    when a record could not be read, after importing the others.
    """
    mapping = {}
    for column in columns:
        name, sep, header = column.partition("=")
        if not sep or not name.strip() or not header.strip():
            fail(SiteError(f"--column: expected FIELD=HEADER such as title=Paper Title, not '{column}'"))
        mapping[name.strip()] = header.strip()
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
    if report.problems:
        sys.exit(1)


@cli.command()
@click.option("-o", "--output", default="_site", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the site into (replaced as a whole).")
@base_url_option
@config_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("--watch", is_flag=True, help="Keep running: rebuild and write on every change to the sources.")
def build(output, base_url, config_path, quiet, watch):
    """Build the site into OUTPUT."""
    if watch:
        try:
            watch_and_build(config_path, output, base_url, echo=click.echo)
        except SiteError as error:
            fail(error)
        return
    start = time.perf_counter()
    progress = Progress(quiet)
    try:
        config = load_config(config_path).with_base_url(base_url)
        result, written = build_and_write(config, output, progress=progress)
    except SiteError as error:
        progress.done()
        fail(error)
    progress.done()
    if not result.catalog.papers:
        click.echo(f"warning: no papers in {config.content_dir}/: built an empty catalog "
                   "(import abstracts with 'python build.py import FILE')", err=True)
    if not quiet:
        click.echo(f"Built {len(result.catalog.papers)} papers, {result.pages} pages into {output}/: "
                   f"{written.written} files written, {written.removed} removed, "
                   f"{written.total - written.written} unchanged, in {time.perf_counter() - start:.2f} s")


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a web browser.")
@base_url_option
@config_option
def serve(host, port, open_browser, base_url, config_path):
    """Preview the site: serve it from memory under its base path, rebuild on
    every change to content/, templates/, static/ or site.yaml, and reload
    open tabs. A broken edit keeps the last good build and shows the error."""
    warning = exposure_warning(host)
    if warning:
        click.echo(warning, err=True)
    try:
        preview = Preview(config_path, base_url, host, port, log=click.echo)
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}")
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
    try:
        config = load_config(config_path).with_base_url(base_url)
        result = deploy_site(config, remote, branch, message, force, config_name=config_path.name)
    except SiteError as error:
        fail(error)
    state = "published" if result.changed else "unchanged, already published"
    click.echo(f"{result.files} files {state}: {remote}/{branch} at {result.commit[:12]}, for {config.base_url}")


if __name__ == "__main__":
    cli()
