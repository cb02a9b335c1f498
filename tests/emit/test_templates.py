"""Page templates: one environment, the user's templates folder first.

A newcomer's task from the issue: override a page template by putting a file
in the templates folder named in the configuration.  These tests do it as a
user would (``recordkit.toml`` + ``recordkit graph --html``), and check that
kind colours come from the schema only (page and DOT export).
"""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jinja2
import pytest

from browser import PageProbe, require_chromium, launch_chromium, small_index
from conftest import REPO, run_cli, write
from recordkit.config import ConfigError, load_config
from recordkit.emit import templates as tpl
from recordkit.emit.graph_page import SCRIPT_PARTS, page_script, render_graph_html

PACKAGE_TEMPLATES = REPO / "recordkit" / "templates"


def project(tmp_path: Path, extra: str = "", files: dict[str, str] | None = None) -> Path:
    """A project using the repository's example record, with ``extra``
    configuration and ``files`` (relative to the project) written."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "recordkit.toml").write_text(
        f'root = "{(REPO / "records").as_posix()}"\nchecks = "{(REPO / "checks").as_posix()}"\n'
        f'site_title = "override test"\n{textwrap.dedent(extra)}', encoding="utf-8")
    for rel, text in (files or {}).items():
        write(proj, rel, text)
    return proj


def graph_page(proj: Path) -> str:
    proc = run_cli("graph", "--html", "g.html", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    return (proj / "g.html").read_text(encoding="utf-8")


# ------------------------------------------------------------- configuration ---

def test_templates_key_is_relative_to_the_config_file(tmp_path):
    proj = project(tmp_path, 'templates = "my templates"\n')
    assert load_config(proj).templates == proj / "my templates"
    assert load_config(REPO).templates is None


@pytest.mark.parametrize("value", ["3", '""', "[\"a\"]"])
def test_templates_key_must_be_a_path(tmp_path, value):
    proj = project(tmp_path, f"templates = {value}\n")
    with pytest.raises(ConfigError, match="templates"):
        load_config(proj)


# ---------------------------------------------------------- the environment ---

def test_user_folder_first_then_package(tmp_path):
    user = tmp_path / "t"
    write(user, "graph.css", "/* mine */\n")
    write(user, "site/page.html.j2", "<p>{{ text }}</p>\n")
    assert tpl.read_text("graph.css", user) == "/* mine */\n"
    assert tpl.read_text("graph.css") == (PACKAGE_TEMPLATES / "graph.css").read_text(encoding="utf-8")
    # "recordkit/<name>" is always the package's own, even when the user replaced it
    assert tpl.read_text("recordkit/graph.css", user) == tpl.read_text("graph.css")
    # a file only the package has falls through to the package
    assert tpl.read_text("graph/data.js", user) == (PACKAGE_TEMPLATES / "graph/data.js").read_text(encoding="utf-8")
    # not graph-specific: any folder, e.g. the site's templates
    assert tpl.get_template("site/page.html.j2", user).render(text="<b>") == "<p>&lt;b&gt;</p>\n"
    with pytest.raises(jinja2.TemplateNotFound):
        tpl.get_template("site/page.html.j2")


def test_autoescape_is_on_for_html_only(tmp_path):
    user = tmp_path / "t"
    for name in ("a.html", "a.html.j2", "a.xml.j2", "a.txt.j2", "a.js.j2"):
        write(user, name, "{{ s }}")
    got = {n: tpl.get_template(n, user).render(s="<&>") for n in
           ("a.html", "a.html.j2", "a.xml.j2", "a.txt.j2", "a.js.j2")}
    assert got == {"a.html": "&lt;&amp;&gt;", "a.html.j2": "&lt;&amp;&gt;", "a.xml.j2": "&lt;&amp;&gt;",
                   "a.txt.j2": "<&>", "a.js.j2": "<&>"}


def test_undefined_variable_is_an_error(tmp_path):
    user = tmp_path / "t"
    write(user, "x.html.j2", "{{ nope }}")
    with pytest.raises(jinja2.UndefinedError):
        tpl.get_template("x.html.j2", user).render()


class _DictWithAttribute(dict):
    title = "the attribute"


@pytest.mark.parametrize("source", [
    "{{ d.title }}|{{ d.missing }}|{{ d.missing.deeper }}|{{ d.items is callable }}|{{ d.get('title') }}",
    "{{ d.title }}{% if d.nope %}x{% endif %}{{ d.keys()|list|length }}",
])
def test_attribute_of_a_dict_is_what_jinja_gives(tmp_path, source):
    """The environment looks ``d.name`` up as the key at once on a dict
    (speed); what a page gets is Jinja2's own answer, for a key, a missing
    key, a dict method's name and a dict subclass's attribute."""
    user = tmp_path / "t"
    write(user, "x.html.j2", source)
    reference = jinja2.Environment(undefined=tpl._Undefined, autoescape=True).from_string(source)
    for d in ({"title": "T", "items": "shadowed"}, {"title": None}, {}, _DictWithAttribute(title="key")):
        assert tpl.get_template("x.html.j2", user).render(d=d) == reference.render(d=d)


def test_a_missing_folder_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigError, match="not a folder"):
        tpl.environment(tmp_path / "missing")


def test_an_edited_user_template_is_reloaded(tmp_path):
    user = tmp_path / "t"
    p = write(user, "x.html.j2", "one")
    assert tpl.get_template("x.html.j2", user).render() == "one"
    p.write_text("two", encoding="utf-8")
    import os
    st = p.stat()
    os.utime(p, (st.st_atime, st.st_mtime + 5))
    assert tpl.get_template("x.html.j2", user).render() == "two"


# ------------------------------------------------------ the graph page, as a user ---

def test_without_a_templates_folder_the_package_page_is_written(tmp_path):
    html = graph_page(project(tmp_path))
    assert (PACKAGE_TEMPLATES / "graph.css").read_text(encoding="utf-8") in html
    assert page_script() in html


def test_a_user_stylesheet_replaces_the_package_one(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n',
                   {"templates/graph.css": "body { background: #fdf6e3; } /* user-css-marker */\n"})
    html = graph_page(proj)
    assert "user-css-marker" in html
    assert (PACKAGE_TEMPLATES / "graph.css").read_text(encoding="utf-8") not in html
    assert page_script() in html   # the rest is the package's


def test_a_user_page_template_replaces_the_package_one(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n', {"templates/graph.html.j2": """
        <!DOCTYPE html><title>{{ title }}</title><h1>my own page</h1>
        <script type="application/json" id="rk-data">{{ data | safe }}</script>
        """})
    html = graph_page(proj)
    assert "<h1>my own page</h1>" in html and "<title>override test — graph</title>" in html
    assert '"THEORY-798"' in html


def test_a_user_script_part_replaces_only_that_part(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n',
                   {"templates/graph/start.js": "// user-start-marker\n"})
    html = graph_page(proj)
    assert "// user-start-marker" in html
    pkg_start = (PACKAGE_TEMPLATES / "graph" / "start.js").read_text(encoding="utf-8")
    assert pkg_start not in html
    assert (PACKAGE_TEMPLATES / "graph" / "search.js").read_text(encoding="utf-8") in html


def test_a_broken_user_template_is_a_message_not_a_traceback(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n',
                   {"templates/graph.html.j2": "<p>\n{% if %}\n"})
    proc = run_cli("graph", "--html", "g.html", cwd=proj)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert re.search(r"template error: .*graph\.html\.j2:2: not valid template syntax: \S", proc.stderr), proc.stderr
    assert not (proj / "g.html").exists()


def test_an_undefined_variable_names_the_line(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n',
                   {"templates/graph.html.j2": "<p>{{ title }}</p>\n<p>{{ no_such_thing }}</p>\n"})
    proc = run_cli("graph", "--html", "g.html", cwd=proj)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # recordkit's words at the line; Jinja2's message (its wording) the detail
    assert re.search(r"template error: \S*graph\.html\.j2:2: the template uses a value that is not defined: \S",
                     proc.stderr), proc.stderr


def test_a_script_part_that_would_close_the_element_is_refused(tmp_path):
    proj = project(tmp_path, 'templates = "templates"\n',
                   {"templates/graph/api.js": 'var s = "</script>";\n'})
    proc = run_cli("graph", "--html", "g.html", cwd=proj)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "graph/api.js" in proc.stderr


def test_a_missing_templates_folder_is_a_configuration_error(tmp_path):
    proj = project(tmp_path, 'templates = "no-such-folder"\n')
    proc = run_cli("graph", "--html", "g.html", cwd=proj)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no-such-folder is not a folder" in proc.stderr


def test_the_script_is_the_parts_in_order():
    script = page_script()
    at = [script.index((PACKAGE_TEMPLATES / p).read_text(encoding="utf-8")) for p in SCRIPT_PARTS]
    assert at == sorted(at) and at[0] == 0
    assert len(script) == sum(len((PACKAGE_TEMPLATES / p).read_text(encoding="utf-8")) for p in SCRIPT_PARTS)
    # every part in the folder is listed: a new file cannot be silently left out
    on_disk = {p.relative_to(PACKAGE_TEMPLATES).as_posix() for p in (PACKAGE_TEMPLATES / "graph").glob("*.js")}
    assert on_disk == set(SCRIPT_PARTS)


# ------------------------------------------------------------- kind colours ---

USER_SCHEMA = """
kinds:
  NOTE:
    color: '#123456'
"""


def test_the_script_knows_no_kind_colour():
    """Colours come from the index (the schema); the script names no kind."""
    script = page_script()
    for kind in ("LIT", "NOTE", "THEORY", "CLAIM", "QUESTION"):
        assert not re.search(r"\b%s\b" % kind, script), kind


@pytest.mark.slow
def test_dot_export_takes_kind_colours_from_the_schema(tmp_path):
    proj = project(tmp_path, 'schema = "schema.yaml"\n', {"schema.yaml": USER_SCHEMA})
    proc = run_cli("graph", "--format", "dot", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    fills = dict(re.findall(r'"?([A-Z]+)-\d+"? \[[^\]]*?fillcolor="(#[0-9a-fA-F]+)"', proc.stdout))
    assert fills["NOTE"] == "#123456"
    assert fills["LIT"] == "#4e79a7"    # the default schema's, untouched
    # and with the default schema, NOTE is the default schema's green
    proc = run_cli("graph", "--format", "dot", cwd=REPO)
    fills = dict(re.findall(r'"?([A-Z]+)-\d+"? \[[^\]]*?fillcolor="(#[0-9a-fA-F]+)"', proc.stdout))
    assert fills["NOTE"] == "#59a14f"


# ------------------------------------------------------------- in a browser ---

@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with launch_chromium() as b:
        yield b


def test_an_extending_user_template_shows_in_the_page(tmp_path, browser):
    """A user's graph.html.j2 extends the package's, fills a block and adds a
    stylesheet rule; the page still works and shows both, and the NOTE swatch
    has the user schema's colour."""
    proj = project(tmp_path, 'templates = "templates"\nschema = "schema.yaml"\n', {
        "schema.yaml": USER_SCHEMA,
        "templates/graph.html.j2": """
            {% extends "recordkit/graph.html.j2" %}
            {% block help %}<p id="my-help">Ask {{ title }} anything.</p>{% endblock %}
            {% block head %}<style>#my-help { color: rgb(1, 2, 3); }</style>{% endblock %}
            """,
    })
    graph_page(proj)
    probe = PageProbe(browser)
    try:
        page = probe.open(proj / "g.html")
        page.wait_for_function("recordkitGraph.settled()")
        assert page.inner_text("#my-help") == "Ask override test — graph anything."
        assert page.evaluate("getComputedStyle(document.getElementById('my-help')).color") == "rgb(1, 2, 3)"
        assert page.query_selector("#rk-help") is None
        assert page.evaluate("recordkitGraph.nodeCount") == page.evaluate("recordkitGraph.drawnCount()") > 0
        swatch = page.evaluate("getComputedStyle(document.querySelector("
                               "'#rk-f-kind [data-kind=\"NOTE\"] .rk-dot')).backgroundColor")
        assert swatch == "rgb(18, 52, 86)"
        lit = page.evaluate("getComputedStyle(document.querySelector("
                            "'#rk-f-kind [data-kind=\"LIT\"] .rk-dot')).backgroundColor")
        assert lit == "rgb(78, 121, 167)"
        assert probe.errors == [], probe.errors
    finally:
        probe.close()


def test_render_takes_the_templates_folder(tmp_path):
    user = tmp_path / "t"
    write(user, "graph.css", "/* lib-user-css */\n")
    assert "/* lib-user-css */" in render_graph_html(small_index(), templates=user)
    assert "/* lib-user-css */" not in render_graph_html(small_index())
