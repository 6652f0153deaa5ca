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
    assert re.fullmatch(r"not published: the site is \d+ KB, and GitHub Pages publishes sites of at most 1 GB "
                        r"\(README.md: Deploy; site.yaml's omit: can leave out [a-z-]+ \(\d+ KB\)(, [a-z-]+ \(\d+ KB\))*\)"
                        r"; deploy anyway with --force", str(caught.value)), caught.value
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
