"""papersite: a static website generator for catalogs of research-paper abstracts.

The pipeline, in order (see pipeline.py):
    config.load_config -> content.load_papers -> catalog.Catalog.build
    -> pages.plan_pages -> render.render_pages (+ search, static) -> output.Staging
"""
from .config import SiteConfig, load_config
from .errors import Problem, SiteError

__version__ = "0.2.0"  # pyproject.toml reads it from here
__all__ = ["SiteConfig", "load_config", "Problem", "SiteError", "__version__"]
