"""recordkit graph --format: networkx reads back what it wrote; dot parses the DOT."""
import json
import shutil
import subprocess

import networkx as nx
import pytest

from conftest import REPO, run_cli


@pytest.mark.parametrize("fmt", ["json", "graphml", "gexf", "dot"])
def test_exports_round_trip(tmp_path, fmt):
    out = tmp_path / f"g.{fmt}"
    proc = run_cli("graph", "--format", fmt, "-o", str(out), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    import recordkit
    c = recordkit.load(REPO / "records")
    n_nodes, n_edges = c.graph.number_of_nodes(), c.graph.number_of_edges()
    if fmt == "json":
        data = json.loads(out.read_text())
        g = nx.node_link_graph(data, edges="links")
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
