"""The theory lifecycle: ``promote_when`` conditions, their evaluation against
the graph and the numeric check results, and the derived *standing* of every
record.

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
``malformed`` (RK403: unknown check, kind, relation, status or record, or an
item of the wrong shape), always with a reason.

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

import difflib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from .edges import id_sort_key
from .model import plain_key
from .text import shown as _shown
from .text import yaml_text as _yaml_text

REQUIREMENT_KEYS = ("check", "record", "claim")
RECORD_KEYS = ("kind", "relation", "status")

# Requirement states.
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

PROPOSED, ACTIVE = "proposed", "active"
SUPPORTED = "supported"
PROMOTE_FIELD = "promote_when"
PROMOTED_BY = "promoted_by"

_MISSING = object()


# ---------------------------------------------------------------------------
# The format
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """Why a ``promote_when`` is malformed (RK403).  ``where`` is the key path
    of the offending value in the record's front matter; ``at_key`` points at
    the key rather than its value (an unknown key)."""
    message: str
    where: tuple
    at_key: bool = False


@dataclass
class Requirement:
    """One ``requires`` item as written."""
    index: int
    type: str | None                 # "check", "record", "claim"; None when unrecognisable
    text: str                        # the same text ``recordkit show`` prints
    raw: Any
    check: str | None = None
    kind: str | None = None
    relation: str | None = None
    status: str | None = None
    claim: str | None = None
    problems: list[Problem] = field(default_factory=list)   # shape problems

    @property
    def where(self) -> tuple:
        return (PROMOTE_FIELD, "requires", self.index)


@dataclass
class PromoteWhen:
    """A record's ``promote_when``, parsed.  ``present`` is False when the
    field is missing or empty."""
    present: bool
    summary: str | None = None
    requires: list[Requirement] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)   # about promote_when / requires as a whole

    @property
    def prose_only(self) -> bool:
        return self.present and not self.requires and not self.problems


def requirement_text(item) -> str:
    """The wording of a ``promote_when.requires`` item (``recordkit show`` prints it)."""
    if isinstance(item, dict):
        if "check" in item:
            return f"check {_words(item['check'])}"
        if "claim" in item:
            return f"claim {_words(item['claim'])} supported"
        if "record" in item:
            r = item["record"] if isinstance(item["record"], dict) else {}
            status = r.get("status") or item.get("status")
            return (f"a {_words(r.get('kind', '?'))} pointing here by {_words(r.get('relation', '?'))}"
                    + (f" with status {_words(status)}" if status else ""))
    return _words(item)


def _words(value) -> str:
    """A front-matter value in running text: a string as it is, anything
    else as YAML (never a Python repr)."""
    return value if isinstance(value, str) else _yaml_text(value)


_text = requirement_text


def parse_promote_when(value: Any) -> PromoteWhen:
    """Parse a ``promote_when`` value (front-matter data), noting shape
    problems; what needs the corpus (unknown kinds, checks, records) is
    checked by :func:`validate`."""
    if value is None or value == "" or value == {}:
        return PromoteWhen(False)
    if isinstance(value, str):          # prose alone, written as a string
        return PromoteWhen(True, summary=value)
    if not isinstance(value, dict):     # the field's type is RK202's business
        return PromoteWhen(True)
    pw = PromoteWhen(True)
    s = value.get("summary")
    pw.summary = s if isinstance(s, str) else (None if s is None else _yaml_text(s))
    reqs = value.get("requires")
    if reqs is None:
        return pw
    if not isinstance(reqs, list):
        pw.problems.append(Problem(
            f"promote_when.requires must be a list of items (check:, record: or claim:), "
            f"not a {_type_name(reqs)}", (PROMOTE_FIELD, "requires")))
        return pw
    pw.requires = [_parse_item(i, item) for i, item in enumerate(reqs)]
    return pw


def _type_name(v) -> str:
    return {dict: "mapping", list: "list", str: "string", int: "number", float: "number",
            bool: "boolean"}.get(type(v), type(v).__name__)


def _parse_item(i: int, item: Any) -> Requirement:
    where = (PROMOTE_FIELD, "requires", i)
    req = Requirement(i, None, _text(item), item)
    if not isinstance(item, dict):
        req.problems.append(Problem(
            f"requirement {i + 1} is a {_type_name(item)}; write a mapping with one of "
            f"check:, record: or claim:", where))
        return req
    present = [k for k in REQUIREMENT_KEYS if k in item]
    if not present:
        keys = ", ".join(str(k) for k in item) or "nothing"
        req.problems.append(Problem(
            f"requirement {i + 1} has none of check:, record: or claim: (it has {keys})", where))
        return req
    if len(present) > 1:
        req.problems.append(Problem(
            f"requirement {i + 1} has {' and '.join(present)}: write one per item", where))
        return req
    t = req.type = present[0]
    allowed = {t} | ({"status"} if t == "record" else set())
    for k in item:
        if k not in allowed:
            near = difflib.get_close_matches(str(k), sorted(allowed), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            req.problems.append(Problem(f"unknown key `{plain_key(k)}` in a {t}: requirement{hint}",
                                        where + (k,), at_key=True))
    v = item[t]
    if t in ("check", "claim"):
        if not isinstance(v, str) or not v.strip():
            req.problems.append(Problem(f"{t}: needs an id (a string), not {_shown(v)}", where + (t,)))
        elif t == "check":
            req.check = v.strip()
        else:
            req.claim = v.strip()
        return req
    # record:
    if not isinstance(v, dict):
        req.problems.append(Problem(
            f"record: needs a mapping {{kind: ..., relation: ...[, status: ...]}}, not {_shown(v)}", where + ("record",)))
        return req
    for k in v:
        if k not in RECORD_KEYS:
            near = difflib.get_close_matches(str(k), RECORD_KEYS, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            req.problems.append(Problem(f"unknown key `{plain_key(k)}` in record: (expected kind, relation, status){hint}",
                                        where + ("record", k), at_key=True))
    for k in ("kind", "relation"):
        val = v.get(k)
        if val is None:
            req.problems.append(Problem(f"record: needs {k}:", where + ("record",)))
        elif not isinstance(val, str) or not val.strip():
            req.problems.append(Problem(f"record: {k} must be a name, not {_shown(val)}", where + ("record", k)))
        else:
            setattr(req, k, val.strip())
    inner, outer = v.get("status", _MISSING), item.get("status", _MISSING)
    if inner is not _MISSING and outer is not _MISSING and inner != outer:
        req.problems.append(Problem(f"status is given twice, as {_shown(inner)} and {_shown(outer)}", where + ("status",)))
    status, spath = (inner, where + ("record", "status")) if inner is not _MISSING else (outer, where + ("status",))
    if status is not _MISSING:
        if not isinstance(status, str) or not status.strip():
            req.problems.append(Problem(f"record: status must be a status name, not {_shown(status)}", spath))
        else:
            req.status = status.strip()
    return req


def _near(word: str, choices: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {near[0]}?)" if near else ""


def validate(corpus, rec, pw: PromoteWhen | None = None, known_checks=None) -> list[Problem]:
    """Every RK403 problem of ``rec``'s ``promote_when``: its shape, then what
    it names (checks, kinds, relations, statuses, records).  ``known_checks``
    is a collection of check ids, or None when they cannot be known (then
    check ids are not judged)."""
    if pw is None:
        pw = parse_promote_when(rec.get(PROMOTE_FIELD))
    out = list(pw.problems)
    for req in pw.requires:
        out.extend(req.problems)
        out.extend(_name_problems(corpus, rec, req, known_checks))
    return out


def _name_problems(corpus, rec, req: Requirement, known_checks) -> list[Problem]:
    if req.problems:
        return []
    schema = corpus.schema
    out = []
    where = req.where
    if req.type == "check":
        if known_checks is not None and req.check not in known_checks:
            out.append(Problem(f"unknown check '{req.check}'{_near(req.check, known_checks)}", where + ("check",)))
    elif req.type == "claim":
        target = corpus.records.get(req.claim)
        if target is None:
            from .near import did_you_mean
            out.append(Problem(f"{req.claim} does not exist{did_you_mean(corpus, req.claim)}", where + ("claim",)))
        else:
            kind = schema.kinds.get(target.kind)
            if kind is not None and SUPPORTED not in kind.statuses:
                out.append(Problem(f"{req.claim} is a {target.kind}, which has no status '{SUPPORTED}': "
                                   f"claim: names a record that can be supported", where + ("claim",)))
    elif req.type == "record":
        rpath = where + ("record",)
        kind = schema.kinds.get(req.kind)
        if kind is None:
            out.append(Problem(f"unknown kind '{req.kind}'{_near(req.kind, schema.kinds)}", rpath + ("kind",)))
        rel = schema.relations.get(req.relation)
        if rel is None:
            out.append(Problem(f"unknown relation '{req.relation}'{_near(req.relation, schema.relations)}",
                               rpath + ("relation",)))
        if kind is not None and rel is not None:
            if not (rel.allows_source(req.kind) and rel.allows_target(rec.kind)) and not (
                    rel.symmetric and rel.allows_source(rec.kind) and rel.allows_target(req.kind)):
                out.append(Problem(f"no {req.kind} can point at a {rec.kind} by {req.relation} "
                                   f"(the schema allows {req.relation} from {', '.join(rel.sources)} "
                                   f"to {', '.join(rel.targets)}), so this can never hold", rpath + ("relation",)))
        if kind is not None and req.status is not None and req.status not in kind.statuses:
            spath = rpath + ("status",) if (rpath + ("status",)) in rec.values else where + ("status",)
            out.append(Problem(f"'{req.status}' is not a status of {req.kind} (its statuses: "
                               f"{', '.join(kind.statuses)}){_near(req.status, kind.statuses)}", spath))
    return out


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------

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


def _fmt_num(x) -> str:
    if isinstance(x, dict):
        vals = [v for v in x.values() if isinstance(v, (int, float))]
        if not vals:
            return "?"
        worst = max(vals, key=lambda v: (not math.isfinite(v), v))
        return _fmt_num(worst)
    if isinstance(x, (int, float)):
        return f"{x:.3g}"
    return "?" if x is None else str(x)


def check_item_state(check_id: str, result) -> tuple[str, str]:
    """(state, reason) of ``check: check_id`` given its result (or None)."""
    if result is None:
        return UNKNOWN, f"check {check_id} has not been run (recordkit check)"
    if getattr(result, "stale", False):
        return UNKNOWN, (f"the result of check {check_id} is stale: its code or inputs changed since it ran "
                         f"(recordkit check)")
    verdict = getattr(result, "verdict", None)
    d, tol = getattr(result, "discrepancy", None), getattr(result, "tolerance", None)
    if verdict == "pass":
        return MET, f"check {check_id} passes (discrepancy {_fmt_num(d)} ≤ {_fmt_num(tol)})"
    msg = getattr(result, "message", "") or ""
    if verdict == "fail":
        return UNMET, f"check {check_id} fails: discrepancy {_fmt_num(d)} > tolerance {_fmt_num(tol)}"
    if verdict in ("error", "timeout", "crashed"):
        what = {"error": "raised an error", "timeout": "timed out", "crashed": "crashed"}[verdict]
        return UNMET, f"check {check_id} {what}" + (f": {msg}" if msg else "")
    return UNKNOWN, f"check {check_id} has no usable result (verdict {verdict}; recordkit check)"


def _numeric(module: str):
    """``recordkit.numeric.<module>``, or None while it does not exist."""
    import importlib
    try:
        return importlib.import_module(f"recordkit.numeric.{module}")
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == f"recordkit.numeric.{module}" or exc.name == "recordkit.numeric"):
            return None
        raise


def discover_checks(corpus):
    """id -> check spec for every check the record defines
    (``recordkit.numeric.discover``), or None when that cannot be known."""
    mod = _numeric("discover")
    return None if mod is None else dict(mod.discover(corpus) or {})


def load_check_results(corpus, specs=None) -> dict:
    """The cached numeric check results (``recordkit.numeric.results``), or an
    empty mapping when that module is not available (every check unknown)."""
    mod = _numeric("results")
    if mod is None:
        return {}
    return (mod.load_results(corpus, specs) if specs is not None else mod.load_results(corpus)) or {}


def known_check_ids(corpus):
    """The ids of every check the record defines, or None when unknowable."""
    specs = discover_checks(corpus)
    return None if specs is None else set(specs)


class Lifecycle:
    """Evaluates the lifecycle of a whole corpus, lazily and once.

    ``results``: check id -> result (``.verdict``, ``.discrepancy``,
    ``.tolerance``, ``.stale``); None loads them with
    :func:`load_check_results` when a ``check:`` item is first evaluated.
    ``checks``: the known check ids; None discovers them when first needed
    (and tolerates their being unknowable).  ``specs``: id -> check spec
    from a discovery already made (saves a second one).
    """

    def __init__(self, corpus, results=None, checks=None, specs=None):
        self.corpus = corpus
        if specs is not None:          # id -> check spec, from a discovery already made
            self._specs = specs
        self._results = results
        self._checks = checks
        self._checks_loaded = checks is not None
        self._incoming = None
        self._evals: dict[str, Evaluation] = {}
        self._undermined = None
        fields = {}
        for name, kind in corpus.schema.kinds.items():
            fields[name] = PROMOTE_FIELD in kind.fields
        self._lifecycle_kinds = {k for k, v in fields.items() if v}

    # -- inputs, loaded on demand ---------------------------------------------
    def _discover(self):
        if not hasattr(self, "_specs"):
            self._specs = discover_checks(self.corpus)
        return self._specs

    @property
    def results(self):
        if self._results is None:
            self._results = load_check_results(self.corpus, self._discover())
        return self._results

    @property
    def checks(self):
        if not self._checks_loaded:
            specs = self._discover()
            self._checks = None if specs is None else set(specs)
            self._checks_loaded = True
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
        for req in pw.requires:
            probs = req.problems or _name_problems(self.corpus, rec, req, known)
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
    def undermined_paths(self) -> dict[str, list[str]]:
        """id -> the shortest path of builds-on edges from that record to a
        record whose status is broken (ties broken by id order), for every
        record that builds on one and is not broken itself."""
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
            nxt: dict[str, str] = {}
            while frontier:
                new = []
                for v in frontier:
                    for u in sorted(preds.get(v, ()), key=id_sort_key):
                        if u not in seen:
                            seen.add(u)
                            nxt[u] = v
                            new.append(u)
                frontier = new
            paths: dict[str, list[str]] = {}
            for u in nxt:
                p = [u]
                while p[-1] in nxt:
                    p.append(nxt[p[-1]])
                paths[u] = p
            self._undermined = paths
        return self._undermined

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
        path = self.undermined_paths().get(record_id)
        if path:
            st.path = path
            st.state = UNDERMINED
            last = self.corpus.records[path[-1]]
            st.detail = " → ".join(path) + f" ({last.status})"
        else:
            st.state, st.detail = st.lifecycle, st.lifecycle_detail
        return st

    def standings(self) -> dict[str, "Standing"]:
        return {rid: self.standing(rid) for rid in self.corpus.records}


def _reasons(items: list[ItemState]) -> str:
    return "; ".join(f"{i.state}: {i.reason}" if i.state != MALFORMED else i.reason for i in items)


def _all_hold(n: int) -> str:
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
            return READY, _all_hold(n)
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
        return ESTABLISHED, f"promoted by {ev.promoted_by}; {_all_hold(n)}"
    return None, ""


@dataclass
class Standing:
    """A record's derived standing.

    ``state``: what to display (``undermined`` wins), or None;
    ``detail``: a line of explanation (for undermined, the path);
    ``path``: for undermined, the ids from this record to the broken one;
    ``lifecycle`` / ``lifecycle_detail``: the lifecycle standing (ready,
    blocked, awaiting-judgement, established, unestablished) whether or not
    undermined hides it; ``evaluation``: the evaluated promote_when.
    """
    id: str
    state: str | None = None
    detail: str = ""
    path: list[str] = field(default_factory=list)
    lifecycle: str | None = None
    lifecycle_detail: str = ""
    evaluation: Evaluation | None = None

    @property
    def undermined(self) -> bool:
        return bool(self.path)

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


def analyze(corpus, results=None, checks=None) -> Lifecycle:
    """A :class:`Lifecycle` over ``corpus`` (see there for the arguments)."""
    return Lifecycle(corpus, results=results, checks=checks)


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


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------

def span(rec, where: tuple, at_key: bool = False):
    """The position of the value at key path ``where`` (its key with
    ``at_key``), with the end pulled back over trailing blank space: a block
    mapping's node otherwise ends at the start of the next line."""
    pos = rec.key_pos(*where) if at_key else rec.value_pos(*where)
    line, col, end_line, end_col = pos
    if end_line is None or (end_line, end_col) <= (line, col):
        return pos
    from .edit import offset_of
    text = rec.text
    start = offset_of(text, line, col)
    end = offset_of(text, end_line, end_col)
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if end <= start:
        return pos
    el = text.count("\n", 0, end) + 1
    ec = end - (text.rfind("\n", 0, end) + 1) + 1
    return (line, col, el, ec)


# ---------------------------------------------------------------------------
# Promotion: the lossless edit
# ---------------------------------------------------------------------------

class PromotionRefused(Exception):
    """The theory cannot be promoted; ``reasons`` says why."""

    def __init__(self, reasons: list[str]):
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def promotion_edit(rec, by: str, status: str = ACTIVE) -> str:
    """The text of ``rec``'s file with ``status`` set to ``status`` and
    ``promoted_by`` set to ``by``, every other byte unchanged: the status
    value is spliced where it stands (keeping its quotes), an existing
    ``promoted_by`` value is replaced, else a ``promoted_by:`` line is
    inserted after the status line."""
    from .edit import apply_fixes, offset_of
    from .model import Fix
    text = rec.text
    if ("status",) not in rec.values:
        raise PromotionRefused([f"{rec.id} has no status to change"])
    fixes = []
    line, col, end_line, end_col = rec.value_pos("status")
    s, e = offset_of(text, line, col), offset_of(text, end_line, end_col)
    fixes.append(Fix(s, e, _requote(text[s:e], status)))
    if PROMOTED_BY in (rec.meta or {}):
        fixes.append(_promoted_by_fix(rec, by))
    else:
        # after the status line (a top-level key, so at its indentation: none)
        nl = text.find("\n", e)
        eol = "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"
        indent = " " * (rec.key_pos("status")[1] - 1)
        fixes.append(Fix(nl + 1, nl + 1, f"{indent}{PROMOTED_BY}: {by}{eol}"))
    new, skipped = apply_fixes(text, fixes)
    if skipped:  # pragma: no cover - the edits never overlap
        raise PromotionRefused(["the edits overlap; edit the file by hand"])
    return new


def _requote(old: str, new: str) -> str:
    if len(old) >= 2 and old[0] in "'\"" and old[-1] == old[0]:
        return old[0] + new + old[0]
    return new


def _promoted_by_fix(rec, by: str):
    from .edit import offset_of
    from .model import Fix
    text = rec.text
    value = rec.meta[PROMOTED_BY]
    if value is None or value == "" or value == []:
        if value == []:  # `promoted_by: []`
            l, c, el, ec = rec.value_pos(PROMOTED_BY)
            s, e = offset_of(text, l, c), offset_of(text, el, ec)
            return Fix(s, e, f"[{by}]")
        if value == "":  # `promoted_by: ""`
            l, c, el, ec = rec.value_pos(PROMOTED_BY)
            s, e = offset_of(text, l, c), offset_of(text, el, ec)
            return Fix(s, e, _requote(text[s:e], by))
        l, c, el, ec = rec.key_pos(PROMOTED_BY)
        k_end = offset_of(text, el, ec)
        colon = text.find(":", k_end)
        return Fix(colon + 1, colon + 1, f" {by}")
    if isinstance(value, list) and len(value) == 1 and (PROMOTED_BY, 0) in rec.values:
        l, c, el, ec = rec.value_pos(PROMOTED_BY, 0)
        s, e = offset_of(text, l, c), offset_of(text, el, ec)
        return Fix(s, e, _requote(text[s:e], by))
    if isinstance(value, list):
        raise PromotionRefused([f"promoted_by lists {len(value)} records; leave one (or none) and try again"])
    l, c, el, ec = rec.value_pos(PROMOTED_BY)
    s, e = offset_of(text, l, c), offset_of(text, el, ec)
    return Fix(s, e, _requote(text[s:e], by))


def plan_promotion(corpus, record_id: str, by: str | None = None, lc: Lifecycle | None = None):
    """Check that ``record_id`` can be promoted and compute the new file text.

    Returns ``(new_text, by)``.  Raises :class:`PromotionRefused` with the
    reasons when it cannot: the record is not a proposed lifecycle record,
    a requirement does not hold, or no record to name in ``promoted_by``
    (``by``; default: the record that satisfied the first ``record:``
    requirement) can be found.  Raises KeyError for an unknown id.
    """
    rec = corpus.records[record_id]
    lc = lc or analyze(corpus)
    ev = lc.evaluate(record_id)
    if ev is None:
        raise PromotionRefused([f"{record_id} is a {rec.kind}, which has no promote_when lifecycle"])
    if rec.status != PROPOSED:
        raise PromotionRefused([f"{record_id} is {rec.status}, not proposed"])
    reasons = []
    if not ev.promote_when.present:
        reasons.append(f"{record_id} has no promote_when")
    reasons.extend(p.message for p in ev.promote_when.problems)
    for i in ev.failing():
        reasons.append(f"{i.text}: {i.state} — {i.reason}" if i.state != MALFORMED else f"{i.text}: {i.reason}")
    if reasons:
        raise PromotionRefused(reasons)
    if by is None:
        by = ev.first_record_by()
        if by is None:
            raise PromotionRefused([f"{record_id} has no record: requirement to name the record that showed "
                                    f"the condition met; give it with --by ID"])
    target = corpus.records.get(by)
    rel = corpus.schema.relations.get(PROMOTED_BY)
    if target is None:
        raise PromotionRefused([f"--by {by}: no such record"])
    if by == record_id:
        raise PromotionRefused([f"--by {by}: a record cannot promote itself"])
    if rel is not None and not rel.allows_target(target.kind):
        raise PromotionRefused([f"--by {by}: promoted_by may name a {' or '.join(rel.targets)}, not a {target.kind}"])
    new = promotion_edit(rec, by)
    _verify(corpus, rec, new, by)
    return new, by


def apply_promotion(corpus, record_id: str, by: str | None = None, lc: Lifecycle | None = None,
                    retries: int = 3) -> tuple[str, str, str]:
    """Promote ``record_id`` in its file: :func:`plan_promotion`, then write
    the new text atomically, but only while the file still holds the bytes
    the edit was made from.  When it changed meanwhile (an editor saved,
    ``lint --fix`` wrote it), the new text is read and the promotion planned
    again from it, up to ``retries`` times.  Returns ``(old_text, new_text,
    by)``; raises :class:`PromotionRefused` as :func:`plan_promotion` does,
    and when the file kept changing, vanished or no longer holds the id."""
    from .edit import WriteConflict, atomic_write, remove_stale_temps, text_digest
    import os
    from pathlib import Path
    rec = corpus.records[record_id]
    remove_stale_temps({rec.path.parent, Path(os.path.realpath(rec.path)).parent})
    for _ in range(retries + 1):
        new, chosen = plan_promotion(corpus, record_id, by=by, lc=lc)
        try:
            atomic_write(rec.path, new, expect=rec.digest or text_digest(rec.text))
            return rec.text, new, chosen
        except WriteConflict as exc:
            if exc.current is None:
                raise PromotionRefused([f"{rec.relpath} was removed while promoting {record_id}"])
            try:
                text = exc.current.decode("utf-8")
            except UnicodeDecodeError:
                raise PromotionRefused([f"{rec.relpath} changed while promoting and is no longer UTF-8 text"])
            from .lint.fix import with_texts
            corpus = with_texts(corpus, {rec.path: text})
            lc = None
            again = corpus.records.get(record_id)
            if again is None or again.path != rec.path:
                raise PromotionRefused([f"{rec.relpath} changed while promoting and no longer holds {record_id}"])
            rec = again
    raise PromotionRefused([f"{rec.relpath} kept changing while promoting {record_id} "
                            f"({retries + 1} tries); left as it is, try again"])


def _verify(corpus, rec, new: str, by: str) -> None:
    """Re-read the edited text: the front matter must say exactly what it said,
    but for ``status: active`` and ``promoted_by``."""
    from .parse import parse_text
    after, diags = parse_text(new, rec.path, rec.relpath, corpus.schema)
    want = dict(rec.meta)
    want["status"] = ACTIVE
    want[PROMOTED_BY] = [by] if isinstance(want.get(PROMOTED_BY), list) else by
    if diags or after.meta != want or after.body != rec.body:
        raise PromotionRefused([f"{rec.relpath}: the edit would not read back as intended; "
                                f"set status and promoted_by by hand"])


__all__ = [
    "Problem", "Requirement", "PromoteWhen", "ItemState", "Evaluation", "Standing", "Lifecycle",
    "PromotionRefused", "parse_promote_when", "validate", "evaluate", "standings", "analyze",
    "check_item_state", "load_check_results", "known_check_ids", "discover_checks", "plan_promotion", "apply_promotion",
    "promotion_edit", "span",
    "MET", "UNMET", "UNKNOWN", "MALFORMED", "MARKS", "READY", "BLOCKED", "AWAITING", "ESTABLISHED",
    "UNESTABLISHED", "UNDERMINED", "STANDINGS",
]
