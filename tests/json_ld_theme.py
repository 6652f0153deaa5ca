"""The README's way to give paper pages schema.org JSON-LD, which the default theme leaves out
(the Scholar tags say the same): a templates/paper.html that extends the theme's."""
from __future__ import annotations

from pathlib import Path

PAPER_WITH_JSON_LD = """{% extends "theme/paper.html" %}
{% block head %}{{ super() }}<script type="application/ld+json">{{ paper|scholarly_article(venue, topics)|json_ld }}</script>
{% endblock %}
"""


def add_json_ld(site_root: Path) -> None:
    (site_root / "templates").mkdir(parents=True, exist_ok=True)
    (site_root / "templates/paper.html").write_text(PAPER_WITH_JSON_LD, encoding="utf-8")
