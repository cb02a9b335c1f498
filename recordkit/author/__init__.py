"""WRITE: commands that change the record's files: ``new`` (a record with
the next free id), ``rename`` and ``merge`` (an id and every reference to
it).  Every change is lossless (only the id's characters change) and made
all at once or not at all (:mod:`recordkit.common.transaction`)."""
from .plan import AuthorError, Change, Plan

__all__ = ["AuthorError", "Change", "Plan"]
