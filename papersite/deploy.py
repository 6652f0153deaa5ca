"""Publish the built site to a branch of the project's git repository (gh-pages).

Like `mkdocs gh-deploy`: build, then commit the output as the whole tree of
the branch and push it. GitHub Pages set to "Deploy from a branch" serves it.
Plain git plumbing through a throwaway index, so the working tree, the real
index and the checked-out branch are never touched.

No commit is ever dropped from the branch: the new commit goes on top of
whichever of the local and the remote branch holds the other (the push is then
a fast-forward, and carries local commits not pushed yet), and a local branch
that has diverged from the remote's is refused before anything is built.
"""
from __future__ import annotations

import ipaddress
import os
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from .engine.sitesize import optional_bytes, too_big_for_pages
from .source.config import SiteConfig
from .errors import SiteError
from .engine.output import write_site
from .pipeline import build_site

# What the published site is built from (with the config file): deploying with
# these uncommitted would publish a site that no commit can reproduce.
SOURCES = ("content", "templates", "static")


@dataclass(frozen=True)
class Deployed:
    commit: str  # the branch's new head
    files: int
    changed: bool  # False when the site was identical to what the branch held
    warnings: tuple[str, ...] = ()  # the build's


def deploy_site(config: SiteConfig, remote: str = "origin", branch: str = "gh-pages",
                message: str | None = None, force: bool = False, config_name: str = "site.yaml") -> Deployed:
    """Build the site and publish it; refuse uncommitted sources unless `force`."""
    root = config.root
    _git(root, "rev-parse", "--git-dir", error="not inside a git repository: deploy publishes to a branch "
                                                "of the repository that holds site.yaml")
    _git(root, "remote", "get-url", remote, error=f"no git remote named '{remote}' (see `git remote -v`)")
    if not force:
        _refuse_local_base_url(config.base_url, config_name)
        _refuse_uncommitted(root, config_name)
    published_on(root, remote, branch)  # a diverged branch is refused now, not after the build
    build = build_site(config)
    too_big = too_big_for_pages(sum(map(len, build.files.values())),
                                optional_bytes((path, len(data)) for path, data in build.files.items()))
    if too_big and not force:
        raise SiteError(f"not published: {too_big}; deploy anyway with --force")
    with tempfile.TemporaryDirectory(prefix="papersite-deploy-") as tmp:
        site = Path(tmp) / "site"
        write_site(build.files, site, project=root)
        deployed = publish(site, root, remote, branch, message or _default_message(root))
    return replace(deployed, warnings=build.warnings)


def publish(site: Path, repo: Path, remote: str, branch: str, message: str) -> Deployed:
    """Commit the folder `site` as the whole tree of `branch` and push it to `remote`."""
    ref = f"refs/heads/{branch}"
    parent, published = published_on(repo, remote, branch)
    tree = _tree_of(site, repo)
    if parent and _rev(repo, f"{parent}^{{tree}}") == tree:
        commit = parent
    else:
        commit = _git(repo, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", message,
                      error="could not commit the site (is git's user.name and user.email set?)")
    _git(repo, "push", "--quiet", remote, f"{commit}:{ref}",
         error=f"could not push to '{remote}' (if '{branch}' was changed elsewhere, deploy again)")
    # Only once pushed: a failed push leaves the local branch as it was, so the next deploy does
    # not find a commit of its own there that the remote lacks.
    _git(repo, "update-ref", ref, commit, error=f"pushed, but could not update the local branch '{branch}'")
    files = sum(len(names) for _, _, names in os.walk(site))
    return Deployed(commit, files, commit != published)


def published_on(repo: Path, remote: str, branch: str) -> tuple[str | None, str | None]:
    """(the commit to build on, the remote branch's head), fetched now: the newer of the local and
    the remote branch when one holds the other (None, None for a new branch). Raises SiteError
    when each has commits the other lacks: building on either would drop the other's."""
    ref = f"refs/heads/{branch}"
    _git(repo, "fetch", "--quiet", remote, f"+{ref}:refs/remotes/{remote}/{branch}", check=False)
    published, local = _rev(repo, f"refs/remotes/{remote}/{branch}"), _rev(repo, ref)
    if not local or local == published or (published and _is_ancestor(repo, local, published)):
        return published, published
    if not published or _is_ancestor(repo, published, local):
        return local, published  # local commits not pushed yet (a deploy whose push failed, say)
    ahead = _git(repo, "log", "--format=%h %s", f"{published}..{local}", error="could not compare the branches")
    ahead = ahead.splitlines()
    shown = "; ".join(ahead[:3]) + (f"; and {len(ahead) - 3} more" if len(ahead) > 3 else "")
    raise SiteError(f"not published: the local branch '{branch}' has {len(ahead)} commit{'s' if len(ahead) > 1 else ''} "
                    f"that {remote}/{branch} lacks ({shown}), and {remote}/{branch} has commits the local one "
                    f"lacks, so deploying would drop one or the other. Keep them: merge {remote}/{branch} into "
                    f"'{branch}' and push it; or drop them: git branch -f {branch} {remote}/{branch}. "
                    "Then deploy again")


def _is_ancestor(repo: Path, older: str, newer: str) -> bool:
    try:
        return subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer],
                              capture_output=True).returncode == 0
    except FileNotFoundError:
        raise SiteError("deploy needs git, and git is not installed") from None


def _refuse_uncommitted(root: Path, config_name: str) -> None:
    status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", config_name, *SOURCES,
                  error="could not read git status")
    dirty = [line[3:] for line in status.splitlines() if line.strip()]
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise SiteError(f"uncommitted changes in {shown}: commit them first so the published site "
                        "matches the repository, or deploy anyway with --force")


def _refuse_local_base_url(base_url: str, config_name: str) -> None:
    """The default base_url is the preview's: published, every canonical link, feed and
    sitemap entry would point at the reader's own machine."""
    host = (urlsplit(base_url).hostname or "").rstrip(".")
    try:
        local = ipaddress.ip_address(host).is_loopback or ipaddress.ip_address(host).is_unspecified
    except ValueError:
        local = host == "localhost" or host.endswith(".localhost")
    if local:
        raise SiteError(f"base_url is {base_url}, the local preview address: set base_url in {config_name} "
                        "to where the site will be published (e.g. https://USER.github.io/REPO/) or pass "
                        "--base-url, or deploy anyway with --force")


def _tree_of(site: Path, repo: Path) -> str:
    """Write the folder's files into the repository's object store; return the tree id."""
    with tempfile.TemporaryDirectory(prefix="papersite-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        # --force: the user's ignore rules must not drop files from the site
        _git(repo, "--work-tree", str(site.resolve()), "add", "--all", "--force", ".", env=env,
             error="could not add the site's files to git")
        return _git(repo, "write-tree", env=env, error="could not write the site's tree")


def _default_message(root: Path) -> str:
    head = _rev(root, "HEAD")
    return f"Deploy {head[:12]} with papersite" if head else "Deploy with papersite"


def _rev(repo: Path, name: str) -> str | None:
    return _git(repo, "rev-parse", "--verify", "--quiet", name, check=False) or None


def _git(repo: Path, *args: str, error: str = "git failed", check: bool = True, env: dict | None = None) -> str:
    """Run git in `repo` and return its stdout without the final newline.

    On failure raise SiteError(error + git's reason), or return '' when not `check`.
    """
    try:
        result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    except FileNotFoundError:
        raise SiteError("deploy needs git, and git is not installed") from None
    if result.returncode != 0:
        if not check:
            return ""
        why = result.stderr.strip().splitlines()  # git's last line says what went wrong
        raise SiteError(f"{error}: {why[-1]}" if why else error)
    return result.stdout.rstrip()
