"""`build.py deploy`: the built site lands on a gh-pages branch of a (local, bare) remote."""
from __future__ import annotations

import re
import subprocess

import pytest
from click.testing import CliRunner

from build import cli
from papersite.deploy import deploy_site
from papersite.errors import SiteError

from tests.conftest import MINIMAL_CONFIG, TinySite


def git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A clone of an empty bare repository holding one committed tiny site."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.org")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", str(remote)], check=True)
    subprocess.run(["git", "clone", "--quiet", str(remote), str(tmp_path / "work")], check=True, capture_output=True)
    site = TinySite(tmp_path / "work")
    site.write("site.yaml", MINIMAL_CONFIG + "cname: papers.example.org\n")
    site.paper("a-paper", id="p1", title="Alpha Paper")
    site.write(".gitignore", "_site/\n")
    git(site.root, "add", ".")
    git(site.root, "commit", "--quiet", "-m", "Add a paper")
    git(site.root, "push", "--quiet", "origin", "main")
    return site, remote


def test_deploy_publishes_the_site_to_gh_pages(project):
    site, remote = project
    result = deploy_site(site.config)
    files = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").splitlines()
    for expected in ("index.html", ".nojekyll", "CNAME", "papers/a-paper/index.html", "feed.xml",
                     "search/index.json", "static/style.css"):
        assert expected in files
    assert git(remote, "show", "gh-pages:CNAME") == "papers.example.org"
    assert result.changed and result.files == len(files)
    assert git(remote, "rev-parse", "gh-pages") == result.commit
    head = git(site.root, "rev-parse", "--short=12", "HEAD")
    assert git(remote, "log", "-1", "--format=%s", "gh-pages") == f"Deploy {head} with papersite"
    # the source branch, index and working tree are untouched
    assert git(site.root, "status", "--porcelain") == ""
    assert git(site.root, "rev-parse", "--abbrev-ref", "HEAD") == "main"

    again = deploy_site(site.config)
    assert not again.changed and again.commit == result.commit  # nothing new: no empty commit


def test_deploy_refuses_uncommitted_sources_unless_forced(project):
    site, remote = project
    first = deploy_site(site.config).commit
    site.paper("a-paper", id="p1", title="Alpha Paper, Revised")
    site.paper("b-paper", id="p2", title="Beta Paper")  # untracked counts too
    with pytest.raises(SiteError) as caught:
        deploy_site(site.config)
    message = str(caught.value)
    assert "uncommitted changes in content/icml-2024/a-paper.md, content/icml-2024/b-paper.md" in message
    assert "--force" in message
    assert git(remote, "rev-parse", "gh-pages") == first

    second = deploy_site(site.config, force=True, message="Preview of the revision")
    assert second.changed
    assert git(remote, "rev-parse", "gh-pages^") == first  # history kept: a fast-forward
    assert git(remote, "log", "-1", "--format=%s", "gh-pages") == "Preview of the revision"
    assert "Alpha Paper, Revised" in git(remote, "show", "gh-pages:papers/a-paper/index.html")


def test_a_site_too_big_for_github_pages_is_not_published_unless_forced(project, monkeypatch):
    import papersite.engine.sitesize
    site, remote = project
    monkeypatch.setattr(papersite.engine.sitesize, "PAGES_LIMIT", 1000)  # bytes: this site is larger
    with pytest.raises(SiteError) as caught:
        deploy_site(site.config)
    # no omit: hint: what it could leave out (RIS and CSL-JSON data, a download button) is a few bytes of pages
    assert re.fullmatch(r"not published: the site is \d+(\.\d)? (KB|MB), and GitHub Pages publishes sites of at most 1 GB "
                        r"\(README.md: Deploy\); deploy anyway with --force", str(caught.value)), caught.value
    assert "gh-pages" not in git(remote, "branch", "--list")
    assert deploy_site(site.config, force=True).changed


def test_changes_outside_the_sources_do_not_block(project):
    site, _ = project
    site.write("notes.txt", "scratch")
    site.build()  # _site/ is ignored anyway
    assert deploy_site(site.config).changed


def test_cli_deploy(project, monkeypatch):
    site, remote = project
    monkeypatch.chdir(site.root)
    result = CliRunner().invoke(cli, ["deploy", "-m", "From the CLI"])
    assert result.exit_code == 0, result.output
    assert "published: origin/gh-pages" in result.output
    assert git(remote, "log", "-1", "--format=%s", "gh-pages") == "From the CLI"

    site.write("site.yaml", MINIMAL_CONFIG)
    refused = CliRunner().invoke(cli, ["deploy"])
    assert refused.exit_code == 1
    assert "uncommitted changes in site.yaml" in refused.output

    missing = CliRunner().invoke(cli, ["deploy", "--force", "--remote", "upstream"])
    assert missing.exit_code == 1 and "no git remote named 'upstream'" in missing.output


def commit_on(repo, branch, name, text, message):
    """A commit on `branch` of `repo` that adds one file, made without touching any work tree."""
    blob = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=text, check=True,
                          capture_output=True, text=True).stdout.strip()
    listing = git(repo, "ls-tree", branch) + f"\n100644 blob {blob}\t{name}\n"
    tree = subprocess.run(["git", "-C", str(repo), "mktree"], input=listing, check=True, capture_output=True,
                          text=True).stdout.strip()
    commit = git(repo, "commit-tree", tree, "-p", branch, "-m", message)
    git(repo, "update-ref", f"refs/heads/{branch}", commit)
    return commit


def test_a_local_commit_not_pushed_yet_is_kept_and_published(project):
    site, remote = project
    first = deploy_site(site.config).commit
    mine = commit_on(site.root, "gh-pages", "verify.html", "google-site-verification\n", "Add a verification file")
    assert git(remote, "rev-parse", "gh-pages") == first  # not pushed yet
    site.paper("b-paper", id="p2", title="Beta Paper")
    git(site.root, "add", ".")
    git(site.root, "commit", "--quiet", "-m", "Add another paper")

    result = deploy_site(site.config)
    assert result.changed
    assert git(remote, "rev-parse", "gh-pages") == git(site.root, "rev-parse", "gh-pages") == result.commit
    assert git(remote, "rev-list", "gh-pages").splitlines() == [result.commit, mine, first]  # nothing dropped
    assert "Beta Paper" in git(remote, "show", "gh-pages:papers/b-paper/index.html")

    # the same again with nothing new to build: the local commit is still pushed, not left behind
    mine = commit_on(site.root, "gh-pages", "notes.txt", "kept\n", "A note")
    again = deploy_site(site.config)
    assert again.changed and git(remote, "rev-parse", "gh-pages") == again.commit
    assert mine in git(remote, "rev-list", "gh-pages").splitlines()


def test_a_local_branch_that_diverged_from_the_remote_is_refused_and_nothing_moves(project, tmp_path):
    site, remote = project
    first = deploy_site(site.config).commit
    mine = commit_on(site.root, "gh-pages", "verify.html", "google-site-verification\n", "Add a verification file")
    # meanwhile another clone deploys
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "--quiet", str(remote), str(other)], check=True, capture_output=True)
    git(other, "fetch", "--quiet", "origin", "gh-pages:gh-pages")
    theirs = commit_on(other, "gh-pages", "CNAME", "other.example.org\n", "Their deploy")
    git(other, "push", "--quiet", "origin", "gh-pages")
    site.paper("b-paper", id="p2", title="Beta Paper")
    git(site.root, "add", ".")
    git(site.root, "commit", "--quiet", "-m", "Add another paper")

    with pytest.raises(SiteError) as caught:
        deploy_site(site.config, force=True)  # --force never drops a commit either
    message = str(caught.value)
    assert f"the local branch 'gh-pages' has 1 commit that origin/gh-pages lacks ({mine[:7]}" in message
    assert "Add a verification file" in message
    assert "git branch -f gh-pages origin/gh-pages" in message and "merge origin/gh-pages" in message
    assert git(remote, "rev-parse", "gh-pages") == theirs
    assert git(site.root, "rev-parse", "gh-pages") == mine
    assert first in git(remote, "rev-list", "gh-pages").splitlines()

    git(site.root, "branch", "-f", "gh-pages", "origin/gh-pages")  # what the message says, to drop them
    result = deploy_site(site.config)
    assert git(remote, "rev-list", "gh-pages").splitlines()[:2] == [result.commit, theirs]


def test_a_failed_push_leaves_the_local_branch_as_it_was(project):
    site, remote = project
    first = deploy_site(site.config).commit
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'rejected by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    site.paper("b-paper", id="p2", title="Beta Paper")
    git(site.root, "add", ".")
    git(site.root, "commit", "--quiet", "-m", "Add another paper")
    with pytest.raises(SiteError) as caught:
        deploy_site(site.config)
    assert "could not push to 'origin'" in str(caught.value)
    assert git(site.root, "rev-parse", "gh-pages") == git(remote, "rev-parse", "gh-pages") == first


def test_deploy_says_which_folders_of_content_it_did_not_follow(project, monkeypatch):
    site, remote = project
    (site.root / "content" / "up").symlink_to("..")
    git(site.root, "add", ".")
    git(site.root, "commit", "--quiet", "-m", "A link")
    monkeypatch.chdir(site.root)
    result = CliRunner().invoke(cli, ["deploy"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("warning: content/up: a symlinked folder, not followed")
    assert git(remote, "ls-tree", "-r", "--name-only", "gh-pages", "papers/").splitlines() == [
        "papers/a-paper/index.html", "papers/index.html"]
