"""recordkit: a toolkit for a research record of Markdown files with typed relations."""
from .numeric import check  # the decorator checks/ modules import
from .version import __version__


def load(root=".", **kwargs):
    """Load the record under ``root`` and return a :class:`recordkit.corpus.Corpus`
    (with the public API's ``corpus.graph`` and ``corpus.backlinks(id)``)."""
    from .corpus.loader import load as _load
    corpus = _load(root, **kwargs)
    _conveniences(type(corpus))
    return corpus


def _graph(corpus):
    """``corpus.graph``: :func:`recordkit.graph.of` (the graph stage builds
    it on first use and keeps it on the corpus)."""
    from .graph import of
    return of(corpus)


def _backlinks(corpus, record_id: str) -> dict[str, list[str]]:
    """``corpus.backlinks(id)``: :func:`recordkit.graph.queries.backlinks`."""
    from .graph.queries import backlinks
    return backlinks(corpus, record_id)


def _conveniences(cls) -> None:
    """The public API's two conveniences on a corpus, ``corpus.graph`` and
    ``corpus.backlinks(id)``, attached by the top of the house when it hands
    out a corpus: the load stage that defines ``Corpus`` never imports the
    graph stage, and no module of recordkit uses them (each asks
    ``recordkit.graph.of(corpus)``: tests/architecture/test_imports.py)."""
    if "graph" not in vars(cls):
        cls.graph = property(_graph)
        cls.backlinks = _backlinks


__all__ = ["__version__", "check", "load"]
