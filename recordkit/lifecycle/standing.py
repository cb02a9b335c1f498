"""Standings: ``promote_when`` evaluated against the records and the numeric
check results, and the derived *standing* of every record.

A record's kind takes part in the lifecycle when the schema gives it a
``promote_when`` field (THEORY in the default schema).  Such a record is
``proposed`` until what its ``promote_when`` asks holds, then ``active``.

``promote_when`` has a ``summary`` (the condition in words) and ``requires``,
a list of machine-checkable items, each with exactly one of:

``check: ID``
    that numeric check passes (its cached result is a fresh ``pass``);
``record: {kind: K, relation: R[, status: S]}``
    some record of kind K points at this one by relation R (a front-matter
    edge), with status S when given; ``status`` may also be written beside
    ``record:`` as a sibling key;
``claim: ID``
    that record exists and its status is ``supported``.

Each item evaluates to ``met``, ``unmet``, ``unknown`` (a check result that
is missing or stale: nothing is known, so it is never taken as true) or
``malformed`` (RK403: unknown check, a check id defined more than once,
kind, relation, status or record, or an item of the wrong shape), always
with a reason.

Standings (:func:`standings`) are derived for every record:

``ready``
    proposed, at least one requirement, every one met;
``blocked``
    proposed, with an item unmet, unknown or malformed (or no promote_when);
``awaiting-judgement``
    proposed, the condition is prose only: a person decides; never ready;
``established``
    active, ``promoted_by`` present, every requirement met;
``unestablished``
    active, but ``promoted_by`` is missing or a requirement is not met
    (the evidence is gone, unknown, or was never there);
``undermined``
    builds, directly or transitively along the schema's ``builds_on``
    relations (extends, grounds, promoted_by), on a record whose status is
    broken (retired, rejected, refuted).

Precedence: ``undermined`` wins for display (:attr:`Standing.state`); the
lifecycle standing it hides stays in :attr:`Standing.lifecycle`, and
:attr:`Standing.states` lists both.  A record whose own status is broken has
no standing (its status says it all), and neither does a record outside the
lifecycle that builds on nothing broken: ``state`` is None.

Everything here is a pure function of the corpus and the results given; one
pass over the graph, so fast for large records.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..common.order import id_sort_key
from ..numeric import store
from ..numeric.discover import discover_all
from ..numeric.results import judge
from .conditions import (ACTIVE, PROMOTE_FIELD, PROMOTED_BY, PROPOSED, SUPPORTED, Problem, PromoteWhen,
                         Requirement, name_problems, parse_promote_when)

MET, UNMET, UNKNOWN, MALFORMED = "met", "unmet", "unknown", "malformed"
MARKS = {MET: "✓", UNMET: "✗", UNKNOWN: "?", MALFORMED: "✗"}

# Standings.

READY = "ready"
BLOCKED = "blocked"
AWAITING = "awaiting-judgement"
ESTABLISHED = "established"
UNESTABLISHED = "unestablished"
UNDERMINED = "undermined"
STANDINGS = (READY, BLOCKED, AWAITING, ESTABLISHED, UNESTABLISHED, UNDERMINED)

#: an undermining path of more ids than these two together is shown by its
#: first ``PATH_HEAD`` and last ``PATH_TAIL`` ids and the count left out (a
#: chain of thousands of records would otherwise give each its whole path:
#: a quadratic output, 7 GB of graph JSON for 20,000)
PATH_HEAD = 5
PATH_TAIL = 5



@dataclass
class ItemState:
    """The state of one requirement: ``state`` is met, unmet, unknown or
    malformed; ``by`` is the record that satisfies it (record:, claim:)."""
    requirement: Requirement
    state: str
    reason: str
    by: str | None = None

    @property
    def ok(self) -> bool:
        return self.state == MET

    @property
    def text(self) -> str:
        return self.requirement.text

    @property
    def mark(self) -> str:
        return MARKS[self.state]

    def to_dict(self) -> dict:
        return {"text": self.text, "ok": self.ok, "state": self.state, "reason": self.reason,
                "by": self.by, "index": self.requirement.index}


@dataclass
class Evaluation:
    """A lifecycle record's ``promote_when``, evaluated."""
    id: str
    status: str | None
    promote_when: PromoteWhen
    items: list[ItemState] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)   # every RK403 problem
    promoted_by: str | None = None

    @property
    def all_hold(self) -> bool:
        """Every item met and nothing malformed (true of a prose-only condition)."""
        return self.promote_when.present and not self.problems and all(i.ok for i in self.items)

    @property
    def ready(self) -> bool:
        """At least one requirement, and every one holds."""
        return bool(self.items) and self.all_hold

    def failing(self) -> list[ItemState]:
        return [i for i in self.items if not i.ok]

    def first_record_by(self) -> str | None:
        """The record that satisfied the first ``record:`` requirement."""
        for i in self.items:
            if i.requirement.type == "record":
                return i.by if i.ok else None
        return None

    def to_dict(self) -> dict:
        return {"summary": self.promote_when.summary, "requires": [i.to_dict() for i in self.items]}


def check_item_state(check_id: str, result) -> tuple[str, str]:
    """(state, reason) of ``check: check_id`` given its result (or None):
    :func:`recordkit.numeric.results.judge` as a requirement state."""
    holds, reason = judge(check_id, result)
    return (MET if holds else UNKNOWN if holds is None else UNMET), reason


def facts(rec) -> tuple:
    """What the lifecycle of a corpus reads of ``rec``: whether it is a
    record, its id, kind, status, front-matter relations and
    ``promote_when``.  An edit that leaves them leaves every standing."""
    if not rec.ok:
        return (False,)
    rels = tuple((k, tuple(t.id for t in ts)) for k, ts in (rec.relations or {}).items())
    return (True, rec.id, rec.kind, rec.status, rels, repr(rec.get(PROMOTE_FIELD)))


def _undermining_facts(rec, schema) -> tuple:
    """What the undermining paths read of ``rec``: whether it is a record,
    its id, whether its status is broken, its builds-on relations."""
    if not rec.ok:
        return (False,)
    builds_on = {n for n, r in schema.relations.items() if r.builds_on}
    rels = tuple((k, tuple(t.id for t in ts)) for k, ts in rec.relations.items() if k in builds_on)
    return (True, rec.id, rec.status in set(schema.broken_statuses), rels)


class Lifecycle:
    """Evaluates the lifecycle of a whole corpus, lazily and once.

    ``results``: check id -> result (``.verdict``, ``.discrepancy``,
    ``.tolerance``, ``.stale``); None loads them with
    :func:`recordkit.numeric.store.load_results` when a ``check:`` item is
    first evaluated.  ``checks``: the known check ids; None discovers them
    when first needed.  ``specs``: id -> check spec from a discovery already
    made (saves a second one).  ``duplicates``: id -> every definition of a
    check id defined more than once (:attr:`Discovery.duplicates`); None
    discovers them when a ``check:`` item is first evaluated.  A ``check:``
    item naming such an id is malformed: which definition it means is
    ambiguous, so it never holds.
    """

    def __init__(self, corpus, results=None, checks=None, specs=None, duplicates=None):
        self.corpus = corpus
        self._specs = specs            # id -> check spec, from a discovery already made
        self._results = results
        self._checks = checks
        self._duplicates = duplicates
        self._incoming = None
        self._evals: dict[str, Evaluation] = {}
        self._undermined = None
        self._lifecycle_kinds = {name for name, kind in corpus.schema.kinds.items() if PROMOTE_FIELD in kind.fields}

    def carried(self, corpus, edits) -> "Lifecycle":
        """The analysis of ``corpus``: this one's corpus with a few records
        edited (``edits``: ``(old record, new record)`` pairs), the checks
        found the same.  When no edit changed the records' :func:`facts`,
        what was worked out here is kept, but the edited records'
        evaluations; otherwise the evaluations are worked out again as
        asked, the index of incoming relations is updated for the one record
        edited (see :meth:`_incoming_after`), and the undermining paths are
        kept when the edit left its record's id, broken-or-not status and
        builds-on relations."""
        new = Lifecycle(corpus, self._results, self._checks, self._specs, self._duplicates)
        if all(facts(a) == facts(b) for a, b in edits):
            new._incoming = self._incoming
            new._undermined = self._undermined
            edited = {a.id for a, _ in edits}
            new._evals = {k: v for k, v in dict(self._evals).items() if k not in edited}   # (copied at once: a
            # request on another thread may be evaluating on this analysis)
            return new
        if self._incoming is not None and len(edits) == 1:
            new._incoming = self._incoming_after(corpus, *edits[0])
        schema = corpus.schema
        if all(_undermining_facts(a, schema) == _undermining_facts(b, schema) for a, b in edits):
            new._undermined = self._undermined
        return new

    def _incoming_after(self, corpus, old, rec) -> dict:
        """:meth:`incoming`'s index for ``corpus``, this one's with ``old``
        edited into ``rec``: the edges from the files that no longer hold
        their id taken out (``old``; a file whose id ``rec`` took, being
        read first), those from the files that now hold one put in (``rec``;
        a file with ``old``'s id, no longer a duplicate), the edges into an
        id gone dropped and those into an id new found."""
        before, after = self.corpus.records, corpus.records
        lost = [f for f in (old, before.get(rec.id)) if f is not None and f.ok and before.get(f.id) is f
                and after.get(f.id) is not f]
        gained = [f for f in (rec, after.get(old.id)) if f is not None and f.ok and after.get(f.id) is f
                  and before.get(f.id) is not f]
        gone = {f.id for f in lost if f.id not in after}
        new_ids = {f.id for f in gained if f.id not in before}
        sym = {n for n, r in corpus.schema.relations.items() if r.symmetric}
        inc = dict(self._incoming)
        touched: dict = {}

        def sources(key):
            got = touched.get(key)
            if got is None:
                got = touched[key] = set(inc.get(key, ()))
            return got

        def points(u, v, rel) -> bool:    # does u, as ``corpus`` holds it, point at v by rel
            r = after.get(u)
            return r is not None and v in after and any(t.id == v for t in r.relations.get(rel, ()))
        for f in lost:
            for rel, targets in f.relations.items():
                for t in targets:
                    if t.id in before and t.id != f.id:
                        if rel not in sym or not points(t.id, f.id, rel):
                            sources((t.id, rel)).discard(f.id)
                        if rel in sym and not points(t.id, f.id, rel):
                            sources((f.id, rel)).discard(t.id)
        for key in [(g, rel) for g in gone for rel in corpus.schema.relations if (g, rel) in inc]:
            if key[1] in sym:
                for u in inc[key]:
                    sources((u, key[1])).discard(key[0])
            touched[key] = set()
        if new_ids:
            for u, r in after.items():
                for rel, targets in r.relations.items():
                    for t in targets:
                        if t.id in new_ids and t.id != u:
                            sources((t.id, rel)).add(u)
                            if rel in sym:
                                sources((u, rel)).add(t.id)
        for f in gained:
            for rel, targets in f.relations.items():
                for t in targets:
                    if t.id in after and t.id != f.id:
                        sources((t.id, rel)).add(f.id)
                        if rel in sym:
                            sources((f.id, rel)).add(t.id)
        for key, got in touched.items():
            if got:
                inc[key] = sorted(got, key=id_sort_key)
            else:
                inc.pop(key, None)
        return inc

    # -- inputs, loaded on demand ---------------------------------------------
    def _discover(self):
        if self._specs is None:
            disc = discover_all(self.corpus)
            self._specs = disc.checks
            if self._duplicates is None:
                self._duplicates = disc.duplicates
        return self._specs

    @property
    def duplicates(self) -> dict:
        """check id -> its definitions, for every id defined more than once."""
        if self._duplicates is None:
            self._duplicates = discover_all(self.corpus).duplicates
        return self._duplicates

    @property
    def results(self):
        if self._results is None:
            self._results = store.load_results(self.corpus, self._discover())
        return self._results

    @property
    def checks(self):
        if self._checks is None:
            self._checks = set(self._discover())
        return self._checks

    def incoming(self, target: str, relation: str) -> list[str]:
        """Ids of the records that point at ``target`` by ``relation`` in their
        front matter (either way for a symmetric relation), in id order."""
        if self._incoming is None:
            sym = {n for n, r in self.corpus.schema.relations.items() if r.symmetric}
            inc = defaultdict(set)
            for u, v, rel in self._frontmatter_edges():
                inc[(v, rel)].add(u)
                if rel in sym:
                    inc[(u, rel)].add(v)
            self._incoming = {k: sorted(s, key=id_sort_key) for k, s in inc.items()}
        return self._incoming.get((target, relation), [])

    def _frontmatter_edges(self):
        """(source, target, relation) for every front-matter relation target
        that exists: the graph's ``origin == "frontmatter"`` edges, read
        straight from the records (a walk of the whole MultiDiGraph, body
        mentions included, costs more)."""
        records = self.corpus.records
        for u, rec in records.items():
            for rel, targets in rec.relations.items():
                for t in targets:
                    if t.id in records and t.id != u:
                        yield u, t.id, rel

    # -- evaluation ------------------------------------------------------------
    def in_lifecycle(self, rec) -> bool:
        return rec.kind in self._lifecycle_kinds

    def evaluate(self, record_id: str) -> Evaluation | None:
        """The evaluation of a lifecycle record's ``promote_when`` (None for a
        record outside the lifecycle)."""
        rec = self.corpus.records.get(record_id)
        return None if rec is None else self.evaluate_record(rec)

    def evaluate_record(self, rec) -> Evaluation | None:
        """As :meth:`evaluate`, for a loaded file (also a duplicate-id file
        that ``corpus.records`` does not hold)."""
        canonical = self.corpus.records.get(rec.id) is rec
        if canonical and rec.id in self._evals:
            return self._evals[rec.id]
        if not self.in_lifecycle(rec):
            return None
        record_id = rec.id
        pw = parse_promote_when(rec.get(PROMOTE_FIELD))
        ev = Evaluation(record_id, rec.status, pw)
        pb = rec.relations.get(PROMOTED_BY)
        ev.promoted_by = pb[0].id if pb else None
        ev.problems = list(pw.problems)
        needs_checks = any(r.type == "check" and not r.problems for r in pw.requires)
        known = self.checks if needs_checks else None
        dups = self.duplicates if needs_checks else None
        for req in pw.requires:
            probs = req.problems or name_problems(self.corpus, rec, req, known, dups)
            ev.problems.extend(probs)
            if probs:
                ev.items.append(ItemState(req, MALFORMED, "malformed: " + probs[0].message))
                continue
            ev.items.append(self._evaluate_item(rec, req))
        if canonical:
            self._evals[record_id] = ev
        return ev

    def _evaluate_item(self, rec, req: Requirement) -> ItemState:
        records = self.corpus.records
        if req.type == "check":
            state, reason = check_item_state(req.check, self.results.get(req.check))
            return ItemState(req, state, reason)
        if req.type == "claim":
            target = records[req.claim]
            if target.status == SUPPORTED:
                return ItemState(req, MET, f"{req.claim} is supported", by=req.claim)
            return ItemState(req, UNMET, f"{req.claim} is {target.status or 'without a status'}, not supported")
        # record:
        of_kind = [s for s in self.incoming(rec.id, req.relation) if records[s].kind == req.kind]
        good = [s for s in of_kind if req.status is None or records[s].status == req.status]
        if good:
            by = good[0]
            st = records[by].status
            return ItemState(req, MET, f"{by} ({st}) points here by {req.relation}", by=by)
        what = f"no {req.kind}" + (f" with status {req.status}" if req.status else "")
        reason = f"{what} points here by {req.relation}"
        if of_kind:
            others = ", ".join(f"{s} ({records[s].status})" for s in of_kind[:3])
            reason += f"; {others} {'does' if len(of_kind) == 1 else 'do'}"
        return ItemState(req, UNMET, reason)

    # -- undermined ------------------------------------------------------------
    def _undermining(self) -> tuple[dict, dict, dict]:
        """``(nxt, length, tail)``: for every record that builds on a record
        whose status is broken (and is not broken itself), the next record
        of its shortest builds-on path to one (ties broken by id order), the
        number of ids on that path (itself and the broken one included), and
        its last :data:`PATH_TAIL` ids.  Linear in the records and edges: a
        tail is shared along a chain rather than copied (a chain of 20,000
        records, each with its whole path, was 200 million ids)."""
        if self._undermined is None:
            records = self.corpus.records
            broken = set(self.corpus.schema.broken_statuses)
            builds_on = {n for n, r in self.corpus.schema.relations.items() if r.builds_on}
            preds = defaultdict(set)     # the reverse of builds_on_paths(corpus)
            for u, v, rel in self._frontmatter_edges():
                if rel in builds_on:
                    preds[v].add(u)
            frontier = sorted((n for n, r in records.items() if r.status in broken), key=id_sort_key)
            seen = set(frontier)
            length = {v: 1 for v in frontier}
            tail = {v: (v,) for v in frontier}
            nxt: dict[str, str] = {}
            while frontier:
                new = []
                for v in frontier:
                    for u in sorted(preds.get(v, ()), key=id_sort_key):
                        if u not in seen:
                            seen.add(u)
                            nxt[u] = v
                            length[u] = length[v] + 1
                            tail[u] = tail[v] if length[v] >= PATH_TAIL else (u,) + tail[v]
                            new.append(u)
                frontier = new
            self._undermined = (nxt, length, tail)
        return self._undermined

    def undermined_path(self, record_id: str) -> tuple[list[str], int] | None:
        """``(ids, skipped)``: the shortest path of builds-on edges from the
        record to a record whose status is broken, or None when it builds on
        none.  A path of more than :data:`PATH_HEAD` + :data:`PATH_TAIL`
        ids is shortened to its first and last ones, ``skipped`` saying how
        many are left out between them (0 otherwise)."""
        nxt, length, tail = self._undermining()
        if record_id not in nxt:
            return None
        n = length[record_id]
        head = [record_id]
        limit = n if n <= PATH_HEAD + PATH_TAIL else PATH_HEAD
        while len(head) < limit:
            head.append(nxt[head[-1]])
        if n <= PATH_HEAD + PATH_TAIL:
            return head, 0
        return head + list(tail[record_id]), n - PATH_HEAD - PATH_TAIL

    # -- standing ----------------------------------------------------------------
    def standing(self, record_id: str) -> "Standing":
        rec = self.corpus.records[record_id]
        broken = set(self.corpus.schema.broken_statuses)
        st = Standing(record_id)
        if rec.status in broken:
            return st
        ev = self.evaluate(record_id)
        st.evaluation = ev
        if ev is not None:
            st.lifecycle, st.lifecycle_detail = _lifecycle_standing(ev)
        found = self.undermined_path(record_id)
        if found:
            st.path, st.path_skipped = found
            st.state = UNDERMINED
            last = self.corpus.records[st.path[-1]]
            st.detail = st.path_text() + f" ({last.status})"
        else:
            st.state, st.detail = st.lifecycle, st.lifecycle_detail
        return st

    def standings(self) -> dict[str, "Standing"]:
        return {rid: self.standing(rid) for rid in self.corpus.records}


def _reasons(items: list[ItemState]) -> str:
    return "; ".join(f"{i.state}: {i.reason}" if i.state != MALFORMED else i.reason for i in items)


def all_hold(n: int) -> str:
    """The words for ``n`` requirements that all hold (the lint's RK404 says them too)."""
    return "its one requirement holds" if n == 1 else f"all {n} requirements hold"


def _lifecycle_standing(ev: Evaluation) -> tuple[str | None, str]:
    pw = ev.promote_when
    n = len(ev.items)
    if ev.status == PROPOSED:
        if not pw.present:
            return BLOCKED, "no promote_when: state the condition that would promote it"
        if pw.prose_only:
            return AWAITING, "promote_when is prose only: a person judges when it is met"
        if ev.ready:
            return READY, all_hold(n)
        bits = []
        if pw.problems:
            bits.append("; ".join(p.message for p in pw.problems))
        failing = ev.failing()
        if failing:
            bits.append(_reasons(failing))
        return BLOCKED, "; ".join(bits)
    if ev.status == ACTIVE:
        bits = []
        if not ev.promoted_by:
            bits.append("no promoted_by")
        if not pw.present:
            bits.append("no promote_when")
        elif pw.problems:
            bits.append("; ".join(p.message for p in pw.problems))
        failing = ev.failing()
        if failing:
            bits.append(_reasons(failing))
        if bits:
            return UNESTABLISHED, "; ".join(bits)
        if pw.prose_only:
            return ESTABLISHED, f"promoted by {ev.promoted_by} (a person judged the prose condition met)"
        return ESTABLISHED, f"promoted by {ev.promoted_by}; {all_hold(n)}"
    return None, ""


@dataclass
class Standing:
    """A record's derived standing.

    ``state``: what to display (``undermined`` wins), or None;
    ``detail``: a line of explanation (for undermined, the path);
    ``path``: for undermined, the ids from this record to the broken one
    (a long path shortened to its first and last ids, ``path_skipped``
    saying how many are left out between them: :meth:`path_text`);
    ``lifecycle`` / ``lifecycle_detail``: the lifecycle standing (ready,
    blocked, awaiting-judgement, established, unestablished) whether or not
    undermined hides it; ``evaluation``: the evaluated promote_when.
    """
    id: str
    state: str | None = None
    detail: str = ""
    path: list[str] = field(default_factory=list)
    path_skipped: int = 0
    lifecycle: str | None = None
    lifecycle_detail: str = ""
    evaluation: Evaluation | None = None

    def path_head(self) -> list[str]:
        """The ids of ``path`` before the ones left out (all of them when none is)."""
        return self.path[:PATH_HEAD] if self.path_skipped else self.path

    def path_tail(self) -> list[str]:
        """The ids of ``path`` after the ones left out (none when none is)."""
        return self.path[PATH_HEAD:] if self.path_skipped else []

    def path_text(self) -> str:
        """``path`` as text: ``A → B → … (N more) → Y → Z`` when shortened."""
        if not self.path_skipped:
            return " → ".join(self.path)
        return (" → ".join(self.path_head()) + f" → … ({self.path_skipped:,} more) → "
                + " → ".join(self.path_tail()))

    @property
    def states(self) -> tuple[str, ...]:
        """Every standing that applies, the displayed one first."""
        out = []
        if self.path:
            out.append(UNDERMINED)
        if self.lifecycle:
            out.append(self.lifecycle)
        return tuple(out)

    def to_dict(self) -> dict:
        out = {"state": self.state, "detail": self.detail, "states": list(self.states),
               "path": list(self.path), "lifecycle": self.lifecycle,
               "lifecycle_detail": self.lifecycle_detail}
        if self.evaluation is not None and self.evaluation.promote_when.present:
            out["promote"] = self.evaluation.to_dict()
        return out


def analyze(corpus, results=None, checks=None, duplicates=None) -> Lifecycle:
    """A :class:`Lifecycle` over ``corpus`` (see there for the arguments)."""
    return Lifecycle(corpus, results=results, checks=checks, duplicates=duplicates)


def standings(corpus, results=None, checks=None) -> dict[str, Standing]:
    """The standing of every record of ``corpus``: id -> :class:`Standing`.

    ``results``: check id -> check result; None loads the cached results
    (an empty mapping: every check unknown).  ``checks``: known check ids;
    None discovers them if a ``check:`` item needs it.
    """
    return analyze(corpus, results, checks).standings()


def evaluate(corpus, record_id: str, results=None, checks=None) -> Evaluation | None:
    """The evaluated ``promote_when`` of one record (None outside the lifecycle)."""
    return analyze(corpus, results, checks).evaluate(record_id)
