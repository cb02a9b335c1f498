"""The interactive graph page: one self-contained HTML file (``recordkit graph --html``).

The page embeds the content index (see :mod:`recordkit.index`), the script and the
styles inline, so it works offline from ``file://``.
"""
from .render import render_graph_html, write_graph_html

__all__ = ["render_graph_html", "write_graph_html"]
