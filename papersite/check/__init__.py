"""`check`: what is wrong with a catalog and its site before it is published.

    findings = run_checks(config)           # builds the site in memory, then checks it
    for finding in findings: print(finding) # file:line: message [--fix: the sure fix]
    apply_fixes(findings, config)           # the sure fixes, in files the importer wrote

The catalog is read by the build's own loader and the site is the build's own output;
nothing here parses content files again, except to find the line a finding names.
docs/checks.md lists every check.
"""
from __future__ import annotations

from pathlib import Path

from ..catalog import Catalog
from ..source.config import SiteConfig
from .catalog import catalog_findings
from .findings import Finding, front_lines
from .fix import apply_fixes
from .site import SiteFiles, html_findings, site_findings

__all__ = ["Finding", "SiteFiles", "apply_fixes", "run_checks"]


def run_checks(config: SiteConfig, config_path: Path | None = None, site: SiteFiles | None = None,
               catalog: Catalog | None = None, external: bool = False, html: bool = True) -> list[Finding]:
    """Every finding, sorted by file and line. Without `site` the site is built in memory (and the
    catalog with it); `external` also fetches every external link; `html` runs the Nu checker."""
    from ..pipeline import build_site
    if site is None:
        build = build_site(config)
        site, catalog = SiteFiles.in_memory(build.files), build.catalog
    elif catalog is None:
        from ..source.content import load_papers
        catalog = Catalog.build(load_papers(config), config)
    front_lines.cache_clear()  # the files may have changed since the last run in this process
    findings = catalog_findings(catalog, config_path or config.root / "site.yaml")
    found, links = site_findings(site, catalog, config.root, external)
    findings += found
    if html:
        findings += html_findings(site, config.root)
    if external:
        from .external import external_findings
        findings += external_findings(links, config.root / ".cache" / "papersite")
    return sorted(set(findings), key=lambda f: (f.path, f.line or 0, f.message))
