"""What a rule sees: the corpus, its schema and configuration, and the
analyses several rules share, each a typed attribute worked out once per
lint (not a scratch dictionary with string keys)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..common.didyoumean import hint
from ..corpus.model import Diagnostic, Fix, Pos, Record
from .registry import RULES

if TYPE_CHECKING:
    from ..lifecycle import Lifecycle
    from ..numeric.discover import Discovery


@dataclass(eq=False)
class LintContext:
    """What rules see.

    ``check_results``: the numeric check results given by the caller, or
    None: then the rules that need them load the cached ones
    (:attr:`results`) and the lifecycle loads them when a ``check:`` item
    needs them.

    The shared analyses are attributes worked out on first use
    (:attr:`check_discovery`, :attr:`results`, :attr:`lifecycle`,
    :attr:`check_blocks_by_path`); the per-record caches below are keyed by
    ``id(record)`` and cleared by :meth:`forget_records` where records come
    and go (the local rules, run as each file is parsed).
    """
    corpus: Any
    check_results: dict | None = None
    #: id(record) -> jsonschema errors of its front matter (RK202, RK203)
    type_errors: dict[int, list] = field(default_factory=dict)
    #: id(record) -> its claims table, or None (RK6xx)
    claims_tables: dict[int, Any] = field(default_factory=dict)
    #: id(record) -> the checks it answers for (RK501, RK502, RK503)
    check_items: dict[int, list] = field(default_factory=dict)
    #: (target, exclude) -> " (did you mean X?)" or "" (RK3xx)
    near_ids: dict[tuple, str] = field(default_factory=dict)
    #: a record's path -> the headings and blocks its body has, each body
    #: parsed once a lint (RK309)
    anchors: dict[Any, Any] = field(default_factory=dict)

    @property
    def schema(self):
        return self.corpus.schema

    @property
    def config(self):
        return self.corpus.config

    @property
    def records(self) -> dict[str, Record]:
        return self.corpus.records

    def diag(self, code: str, message: str, rec: Record, pos: Pos, fix: Fix | None = None,
             about=()) -> Diagnostic:
        """A diagnostic of rule ``code`` in ``rec`` at ``pos``.  ``about``:
        the keys (see :mod:`recordkit.lint.involve`) of what else it depends
        on, so that ``lint PATHS`` reports it when a path holds one of them."""
        line, col, end_line, end_col = pos
        r = RULES[code]
        return Diagnostic(code, message, rec.path, line, col, end_line, end_col,
                          severity=r.severity, record=rec.id, fix=fix, about=tuple(about))

    def forget_records(self) -> None:
        """Drop the per-record caches (their keys are ``id(record)``, which
        a later record may reuse once this one is gone)."""
        self.type_errors.clear()
        self.claims_tables.clear()
        self.check_items.clear()

    def carried(self, corpus, edits) -> "LintContext":
        """The context of ``corpus``: this one's corpus with a few files
        edited (``edits``: ``(old record, new record)`` pairs, as
        :func:`recordkit.corpus.loader.with_edits` made it), keeping the
        shared analyses the edits cannot have changed: the check discovery
        when neither side of an edit may hold a block check, and then the
        lifecycle, as :meth:`recordkit.lifecycle.Lifecycle.carried` keeps
        it (all of it when no edit changed a record's lifecycle facts: id,
        kind, status, relations, ``promote_when``); the did-you-mean answers
        while the ids stay; the body anchors of the records not edited.
        The per-record caches (keyed by ``id(record)``) start empty.  A
        rule sees the same as on a fresh context of ``corpus``."""
        from ..numeric.discover import carry_blocks
        new = LintContext(corpus, check_results=self.check_results)
        done = self.__dict__
        keep = new.__dict__
        if carry_blocks(self.corpus, corpus, edits):
            for name in ("check_discovery", "results", "check_blocks_by_path"):
                if name in done:
                    keep[name] = done[name]
            if "lifecycle" in done:
                keep["lifecycle"] = done["lifecycle"].carried(corpus, edits)
        elif "results" in done and self.check_results is not None:
            keep["results"] = done["results"]
        if "markdown" in done:
            keep["markdown"] = done["markdown"]
        if all(a.ok == b.ok and (not b.ok or a.id == b.id) for a, b in edits):    # the same ids
            new.near_ids = dict(self.near_ids)
        edited = {old.path for old, _ in edits}
        new.anchors = {p: a for p, a in dict(self.anchors).items() if p not in edited}   # (copies taken at once:
        # a request on another thread may be using this context)
        return new

    # -- analyses several rules share, worked out once per lint ---------------
    @cached_property
    def check_discovery(self) -> "Discovery":
        """Every numeric check of the record (RK4xx, RK5xx)."""
        from ..numeric.discover import discover_all
        return discover_all(self.corpus)

    @cached_property
    def results(self) -> dict:
        """The check results: those given, else the stored ones."""
        if self.check_results is not None:
            return self.check_results
        from ..numeric.store import load_results
        return load_results(self.corpus, self.check_discovery.checks)

    @cached_property
    def lifecycle(self) -> "Lifecycle":
        """The lifecycle analysis of the corpus (RK4xx)."""
        from ..lifecycle import Lifecycle
        return Lifecycle(self.corpus, results=self.check_results, specs=self.check_discovery.checks)

    @cached_property
    def check_blocks_by_path(self) -> dict[str, list]:
        """path -> the block checks its record holds, every definition
        (duplicates included), in line order (RK5xx)."""
        disc = self.check_discovery
        out: dict = {}
        specs = list(disc.checks.values()) + [s for dups in disc.duplicates.values() for s in dups[1:]]
        for s in specs:
            if s.form == "block":
                out.setdefault(s.path, []).append(s)
        for v in out.values():
            v.sort(key=lambda s: s.line)
        return out

    def anchors_of(self, rec: Record):
        """The headings and blocks of ``rec``'s body a link can name
        (:func:`recordkit.markdown.native.anchors`: the engine the site
        renders with, so the two cannot disagree), once a lint."""
        got = self.anchors.get(rec.path)
        if got is None:
            from ..markdown.native import anchors as body_anchors
            got = self.anchors[rec.path] = body_anchors(rec.body, self.schema.mention_re)
        return got

    def near_id_hint(self, target: str, exclude: str | None = None) -> str:
        """``" (did you mean X?)"`` for the record id one edit away from
        ``target``, or ``""``."""
        key = (target, exclude)
        got = self.near_ids.get(key)
        if got is None:
            got = self.near_ids[key] = hint(self.corpus.near_ids(target, exclude))
        return got


class LocalCorpus:
    """What a local rule may see of the corpus: its schema and configuration.
    Used where a file is parsed, before the rest of the record is known."""

    def __init__(self, schema, config):
        self.schema = schema
        self.config = config

    def __getattr__(self, name):
        raise RuntimeError(f"a local rule asked for corpus.{name}, which is not known where files are parsed")
