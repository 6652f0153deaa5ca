"""papersite: a static website generator for catalogs of research-paper abstracts.

The spine is pipeline.build_site: load -> catalog -> abstracts -> related -> pages
-> render -> search, static, map. How it runs is engine/'s business; docs/architecture.md
draws the whole package.
"""
__version__ = "0.2.0"  # pyproject.toml reads it from here
__all__ = ["SiteConfig", "load_config", "Problem", "SiteError", "__version__"]
_HOMES = {"SiteConfig": "source.config", "load_config": "source.config", "Problem": "errors", "SiteError": "errors"}


def __getattr__(name: str):
    """The public names, imported on first use: a build that finds nothing changed loads
    almost nothing (see engine/command.py), and `import papersite.anything` runs this file first."""
    if name not in _HOMES:
        raise AttributeError(f"module 'papersite' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
