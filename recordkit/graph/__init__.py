"""DERIVE: the record's edges and the NetworkX graph built from them.

:mod:`.edges` works without networkx (the lint needs only which records are
linked); :mod:`.build` is the only module that imports networkx."""


def of(corpus):
    """The corpus's ``networkx.MultiDiGraph``, built on the first ask and
    kept with the corpus (:func:`recordkit.graph.build.graph_of`; networkx is
    imported then, not with this package)."""
    from .build import graph_of
    return graph_of(corpus)
