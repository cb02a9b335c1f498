"""LOAD: the record's files as :class:`~recordkit.corpus.model.Record`
objects, gathered in a :class:`~recordkit.corpus.loader.Corpus`."""
from .loader import Corpus, iter_files, load
from .model import Diagnostic, Fix, Mention, Record, Target

__all__ = ["Corpus", "Diagnostic", "Fix", "Mention", "Record", "Target", "iter_files", "load"]
