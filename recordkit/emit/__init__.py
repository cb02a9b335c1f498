"""EMIT: what recordkit writes for people to read (the site, the graph page)."""
