"""EMIT: what recordkit writes for readers and other tools.

- :mod:`recordkit.emit.templates` — the one Jinja2 environment every page is
  rendered with (the user's templates folder first, then the package's
  ``recordkit/templates/``).
- :mod:`recordkit.emit.graph_page` — the interactive graph page, one
  self-contained HTML file (``recordkit graph --html``).
- :mod:`recordkit.emit.graph_formats` — the graph as node-link JSON, GraphML,
  GEXF or DOT through networkx's writers (``recordkit graph --format``).
- :mod:`recordkit.emit.site` — the static site (``recordkit build`` and
  ``recordkit serve``).

Each takes the content index (:func:`recordkit.views.index.build_index`) or the
corpus; nothing here loads, checks or judges records.  Import the module you
need: this package imports none of them, so the graph page does not pay for
networkx's writers and an export does not pay for Jinja2.
"""
