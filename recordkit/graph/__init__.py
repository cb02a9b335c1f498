"""DERIVE: the record's edges and the NetworkX graph built from them.

:mod:`.edges` works without networkx (the lint needs only which records are
linked); :mod:`.build` is the only module that imports networkx."""


def of(corpus):
    """The corpus's ``networkx.MultiDiGraph``, built on the first ask and
    kept with the corpus (:func:`recordkit.graph.build.graph_of`; networkx is
    imported then, not with this package)."""
    from .build import graph_of
    return graph_of(corpus)


def updated(graph, corpus, changed):
    """The graph of ``corpus`` made from ``graph`` (the graph of a corpus of
    the same ids that differs in the records ``changed`` only), or None
    when it must be built (:func:`recordkit.graph.build.updated`)."""
    from .build import updated as _updated
    return _updated(graph, corpus, changed)
