"""``recordkit lsp``: the record live in an editor, over the Language Server
Protocol (pygls).  The engine (positions, workspace and snapshots, the
server, diagnostics, scheduling, watching) is here; the language features
are in :mod:`recordkit.lsp.features`.  Nothing outside this package but
``recordkit/cli/lsp.py`` imports it."""
