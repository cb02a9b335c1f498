"""recordkit graph --format: networkx reads back what it wrote; dot parses the DOT."""
import json
import shutil
import subprocess

import networkx as nx
import pytest

from conftest import REPO, run_cli
from recordkit.graph import of as graph_of


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "graphml", "gexf", "dot"])
def test_exports_round_trip(tmp_path, fmt):
    out = tmp_path / f"g.{fmt}"
    proc = run_cli("graph", "--format", fmt, "-o", str(out), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    import recordkit
    c = recordkit.load(REPO / "records")
    n_nodes, n_edges = graph_of(c).number_of_nodes(), graph_of(c).number_of_edges()
    if fmt == "json":
        data = json.loads(out.read_text())
        try:
            g = nx.node_link_graph(data, edges="links")
        except TypeError:   # networkx < 3.4 (pyproject allows 3.1) names it link=
            g = nx.node_link_graph(data, link="links")
        assert g.nodes["THEORY-798"]["kind"] == "THEORY"
        assert "backlinks" in g.nodes["LIT-849"]
    elif fmt == "graphml":
        g = nx.read_graphml(out)
        assert g.nodes["LIT-849"]["kind"] == "LIT"
    elif fmt == "gexf":
        g = nx.read_gexf(out)
        assert g.nodes["LIT-849"]["kind"] == "LIT"
    else:
        pydot = pytest.importorskip("pydot")
        (dot_graph,) = pydot.graph_from_dot_file(str(out))
        g = nx.nx_pydot.from_pydot(dot_graph)
        if shutil.which("dot"):
            r = subprocess.run(["dot", "-Tsvg", str(out), "-o", str(tmp_path / "g.svg")], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            svg = (tmp_path / "g.svg").read_text()
            assert "THEORY&#45;798" in svg or "THEORY-798" in svg
    assert g.number_of_nodes() == n_nodes
    assert g.number_of_edges() == n_edges
    sources = {(u, v) for u, v, d in g.edges(data=True)
               if str(d.get("relation") or d.get("label") or "").strip('"') == "source"}
    assert ("THEORY-798", "LIT-849") in sources


def test_graph_needs_an_output():
    proc = run_cli("graph", cwd=REPO)
    assert proc.returncode == 2


def test_unwritable_output_is_a_message_not_a_traceback(tmp_path):
    proc = run_cli("graph", "--html", str(tmp_path / "missing" / "g.html"), cwd=REPO)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "No such file or directory" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["graphml", "gexf", "dot"])
def test_a_control_character_in_a_title_leaves_the_export_well_formed(tmp_path, fmt):
    """A title holding a control character (YAML "\\x01", "\\e") or U+FFFE made
    GraphML and GEXF files no XML parser reads, and Graphviz's SVG of the
    DOT file the same; such a character is written as a visible escape."""
    import xml.dom.minidom
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    note = tmp_path / "records" / "lit" / "LIT-849.md"
    text = note.read_text(encoding="utf-8")
    title = next(line for line in text.splitlines() if line.startswith("title:"))
    note.write_text(text.replace(title, 'title: "Ctl \\x01 esc \\e bell \\a end \\uFFFE"', 1), encoding="utf-8")
    out = tmp_path / f"g.{fmt}"
    proc = run_cli("graph", "--format", fmt, "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    if fmt == "dot":
        if not shutil.which("dot"):
            pytest.skip("no Graphviz")
        r = subprocess.run(["dot", "-Tsvg", str(out), "-o", str(tmp_path / "g.svg")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        out = tmp_path / "g.svg"
    xml.dom.minidom.parse(str(out))            # well-formed
    if fmt == "graphml":
        assert nx.read_graphml(out).nodes["LIT-849"]["title"] == "Ctl \\x01 esc \\x1b bell \\x07 end \\ufffe"
