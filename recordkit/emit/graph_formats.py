"""Standard graph exports: node-link JSON, GraphML, GEXF, DOT.

networkx's own writers do the work; this module only makes the attributes
fit each format (GraphML and GEXF take scalars only, so lists are joined and
None values dropped).  DOT fills each node with its kind's colour, taken from
the content index (``meta.kinds``, i.e. the schema), as the graph page does.
"""
from __future__ import annotations

import io
import json
import re

import networkx as nx

from ..common.text import to_plain, xml_safe
from ..graph import of as graph_of

FORMATS = ("json", "graphml", "gexf", "dot")
UNKNOWN_KIND_COLOR = "#dddddd"


def export_string(corpus, fmt: str, *, index: dict | None = None) -> str:
    """The record's graph in ``fmt`` (one of :data:`FORMATS`), every node
    carrying the content index's attributes and, in DOT, its kind's colour."""
    if index is None:
        from ..views.index import build_index
        index = build_index(corpus)
    return to_string(export_graph(corpus, index=index), fmt, colors=kind_colors(index))


def kind_colors(index: dict) -> dict[str, str]:
    """Kind -> colour, as the content index gives them (the schema's)."""
    kinds = (index.get("meta") or {}).get("kinds") or {}
    return {k: v["color"] for k, v in kinds.items() if isinstance(v, dict) and v.get("color")}


def export_graph(corpus, *, index: dict | None = None) -> nx.MultiDiGraph:
    """A copy of the record's graph whose nodes carry every attribute of the
    content index (fields, standing, check verdicts)."""
    if index is None:
        from ..views.index import build_index
        index = build_index(corpus)
    g = nx.MultiDiGraph()
    for n in index["nodes"]:
        attrs = {k: _text(v) for k, v in n.items() if k != "id"}
        g.add_node(_text(n["id"]), **attrs)
    for u, v, d in graph_of(corpus).edges(data=True):
        g.add_edge(_text(u), _text(v), **{k: _text(x) for k, x in d.items()})
    return g


def _text(value):
    """``value`` with every string made writable as UTF-8: an id taken from
    a file name that is not UTF-8, or a YAML escape such as ``"\\ud800"``,
    holds a lone surrogate that no export could write (shown as ``\\xff``,
    ``\\ud800``, as in messages)."""
    from ..common.text import path_text
    if isinstance(value, str):
        return value if value.isascii() else path_text(value)
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value]
    if isinstance(value, dict):
        return {_text(k): _text(v) for k, v in value.items()}
    return value


def _flatten(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return ", ".join(str(_flatten(v)) for v in value)
    if isinstance(value, dict):
        return json.dumps(to_plain(value), ensure_ascii=False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value
    value = to_plain(value)     # a date, a set, bytes, a huge integer, NaN: as the JSON outputs write it
    return value if isinstance(value, (int, float, str)) else str(value)


def _xml(value):
    """A scalar for GraphML and GEXF: a string with what XML cannot hold
    escaped (:func:`recordkit.common.text.xml_safe`)."""
    return xml_safe(value) if isinstance(value, str) else value


def scalar_graph(g: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """``g`` with every attribute a scalar that XML can hold (GraphML, GEXF)."""
    h = nx.MultiDiGraph()
    for n, d in g.nodes(data=True):
        h.add_node(_xml(n), **{_xml(k): _xml(_flatten(v)) for k, v in d.items() if _flatten(v) is not None})
    for u, v, k, d in g.edges(keys=True, data=True):
        h.add_edge(_xml(u), _xml(v), key=_xml(k),
                   **{_xml(a): _xml(_flatten(b)) for a, b in d.items() if _flatten(b) is not None})
    return h


def to_string(g: nx.MultiDiGraph, fmt: str, *, colors: dict[str, str] | None = None) -> str:
    """``g`` written in ``fmt``.  ``colors`` (kind -> colour, see
    :func:`kind_colors`) fills DOT's nodes; a kind it lacks is light grey."""
    if fmt == "json":
        try:
            data = nx.node_link_data(g, edges="links")
        except TypeError:   # networkx < 3.4 names the keyword link= (3.6 drops it)
            data = nx.node_link_data(g, link="links")
        return json.dumps(to_plain(data), indent=1, ensure_ascii=False)
    if fmt == "graphml":
        buf = io.BytesIO()
        nx.write_graphml(scalar_graph(g), buf, encoding="utf-8")
        return buf.getvalue().decode("utf-8")
    if fmt == "gexf":
        buf = io.BytesIO()
        nx.write_gexf(scalar_graph(g), buf, encoding="utf-8")
        return buf.getvalue().decode("utf-8")
    if fmt == "dot":
        return _to_dot(g, colors or {})
    raise ValueError(f"unknown format {fmt}")


def _to_dot(g: nx.MultiDiGraph, colors: dict[str, str]) -> str:
    """DOT through pydot (networkx's DOT writer), with a label and colour per
    node and a style per edge origin.  Every string is quoted and escaped
    here: pydot wrote a node id ending in a backslash as ``"a\\"``, a string
    that never ends, and a title's ``\\n`` became a line break."""
    from networkx.drawing.nx_pydot import to_pydot
    h = nx.MultiDiGraph()
    for n, d in g.nodes(data=True):
        title = xml_safe(str(d.get("title") or ""))     # (Graphviz's SVG of a control character is no XML)
        short = title if len(title) <= 60 else title[:59] + "…"
        fill = colors.get(d.get("kind"), UNKNOWN_KIND_COLOR)
        # the id and the title each escaped, joined by DOT's line break
        label = f'"{_esc(xml_safe(str(n)))}\\n{_esc(short)}"'
        h.add_node(_dot_id(n), label=label, kind=_q(xml_safe(str(d.get("kind") or ""))),
                   status=_q(xml_safe(str(d.get("status") or ""))),
                   style="filled", fillcolor=_q(fill), fontname="Helvetica", shape="box")
    for u, v, d in g.edges(data=True):
        style = {"frontmatter": "solid", "body": "dotted", "derived": "dashed"}.get(d.get("origin"), "solid")
        h.add_edge(_dot_id(u), _dot_id(v), label=_q(d.get("relation", "")), style=style,
                   origin=_q(d.get("origin", "")))
    h.graph["graph"] = {"rankdir": "LR"}
    return to_pydot(h).to_string()


#: a DOT ID that needs no quotes (and is no DOT keyword)
_PLAIN_ID = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}


def _dot_id(n) -> str:
    """A node id as DOT writes it: as it is when it is a plain identifier,
    else quoted with :func:`_q` (so pydot leaves it alone)."""
    n = str(n)
    return n if _PLAIN_ID.fullmatch(n) and n.lower() not in _KEYWORDS else _q(n)


def _esc(s: str) -> str:
    """``s`` inside a DOT quoted string: a backslash doubled (Graphviz reads
    ``\\`` in a label as one backslash, and a lone one before ``n``, ``l``,
    ``N`` ... as a line break or a name), a double quote escaped."""
    return str(s).replace("\\", "\\\\").replace('"', '\\"')


def _q(s: str) -> str:
    return f'"{_esc(s)}"'
