"""LOAD: the record's files as :class:`~recordkit.corpus.model.Record`
objects, gathered in a :class:`~recordkit.corpus.model.Corpus`."""
from .loader import iter_files, load
from .model import Corpus, Diagnostic, Fix, Mention, Record, Target

__all__ = ["Corpus", "Diagnostic", "Fix", "Mention", "Record", "Target", "iter_files", "load"]
