"""recordkit: a toolkit for a research record of Markdown files with typed relations."""
from .numeric import check  # the decorator checks/ modules import
from .version import __version__


def load(root=".", **kwargs):
    """Load the record under ``root`` and return a :class:`recordkit.corpus.Corpus`."""
    from .corpus.loader import load as _load
    return _load(root, **kwargs)


__all__ = ["__version__", "check", "load"]
