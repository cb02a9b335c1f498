"""recordkit: a toolkit for a research record of Markdown files with typed relations."""
__version__ = "0.1.0"

from .numeric import check  # noqa: E402  (the decorator checks/ modules import)


def load(root=".", **kwargs):
    """Load the record under ``root`` and return a :class:`recordkit.corpus.Corpus`."""
    from .corpus.loader import load as _load
    return _load(root, **kwargs)


__all__ = ["__version__", "check", "load"]
