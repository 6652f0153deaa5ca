"""A project's templates/ and static/ override the packaged theme, file by file."""
from tests.conftest import MINIMAL_CONFIG


def test_a_project_template_replaces_the_theme_one_and_can_extend_it(site):
    site.paper("a-paper")
    site.write("templates/paper.html", '{% extends "theme/paper.html" %}\n'
               '{% block main %}{{ super() }}<p id="reading-group">Discussed on {{ site.extra.day }}.</p>'
               '{% endblock %}\n')
    site.write("site.yaml", MINIMAL_CONFIG + "extra: {day: Friday}\n")
    build, _ = site.build()
    html = build.files["papers/a-paper/index.html"].decode()
    assert '<p id="reading-group">Discussed on Friday.</p>' in html
    assert '<h1 id="paper-title">A Paper</h1>' in html  # the theme's block is still there
    assert "reading-group" not in build.files["index.html"].decode()


def test_a_project_static_file_replaces_the_theme_one_and_adds_new_ones(site):
    site.paper("a-paper")
    site.write("static/style.css", "body { color: rebeccapurple; }\n")
    site.write("static/logo.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    build, _ = site.build()
    assert build.files["static/style.css"] == b"body { color: rebeccapurple; }\n"
    assert build.files["static/logo.svg"].startswith(b"<svg")
    assert b"/* papersite theme" not in build.files["static/style.css"]
    assert "static/site.js" in build.files  # untouched theme files stay
