"""The ``promote_when`` grammar: its vocabulary, its parse (shape
problems), and the problems of what it names (RK403).  See
:mod:`recordkit.lifecycle` for the format.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ..common.didyoumean import hint, near_words
from ..common.text import plain_key
from ..common.text import shown as _shown
from ..common.text import yaml_text as _yaml_text
from ..common.textpos import trimmed_span
from ..common.text import a_or_an

REQUIREMENT_KEYS = ("check", "record", "claim")
RECORD_KEYS = ("kind", "relation", "status")

# Requirement states.

PROPOSED, ACTIVE = "proposed", "active"
SUPPORTED = "supported"
PROMOTE_FIELD = "promote_when"
PROMOTED_BY = "promoted_by"

_MISSING = object()


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
            return (f"{a_or_an(_words(r.get('kind', '?')))} pointing here by {_words(r.get('relation', '?'))}"
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
            f"not {a_or_an(_type_name(reqs))}", (PROMOTE_FIELD, "requires")))
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
            f"requirement {i + 1} is {a_or_an(_type_name(item))}; write a mapping with one of "
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
            req.problems.append(Problem(f"unknown key `{plain_key(k)}` in {a_or_an(t)}: requirement{_near(str(k), sorted(allowed))}",
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
            req.problems.append(Problem(f"unknown key `{plain_key(k)}` in record: (expected kind, relation, status)"
                                        f"{_near(str(k), RECORD_KEYS)}",
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
    return hint(near_words(word, choices))


def validate(corpus, rec, pw: PromoteWhen | None = None, known_checks=None, duplicates=None) -> list[Problem]:
    """Every RK403 problem of ``rec``'s ``promote_when``: its shape, then what
    it names (checks, kinds, relations, statuses, records).  ``known_checks``
    is a collection of check ids, or None when they cannot be known (then
    check ids are not judged); ``duplicates``: check id -> its definitions
    for the ids defined more than once (see :func:`name_problems`)."""
    if pw is None:
        pw = parse_promote_when(rec.get(PROMOTE_FIELD))
    out = list(pw.problems)
    for req in pw.requires:
        out.extend(req.problems)
        out.extend(name_problems(corpus, rec, req, known_checks, duplicates))
    return out


def name_problems(corpus, rec, req: Requirement, known_checks, duplicates=None) -> list[Problem]:
    """The problems of what ``req`` names.  A ``check:`` naming an id that
    ``duplicates`` (id -> its definitions: specs with ``where``, or text)
    holds is one: which definition is meant is ambiguous, so no result can
    stand for it."""
    if req.problems:
        return []
    schema = corpus.schema
    out = []
    where = req.where
    if req.type == "check":
        if duplicates and req.check in duplicates:
            out.append(Problem(f"check '{req.check}' is defined more than once "
                               f"({_definitions(corpus, duplicates[req.check])}): which one is required is "
                               f"ambiguous; give each definition its own id", where + ("check",)))
        elif known_checks is not None and req.check not in known_checks:
            out.append(Problem(f"unknown check '{req.check}'{_near(req.check, known_checks)}", where + ("check",)))
    elif req.type == "claim":
        target = corpus.records.get(req.claim)
        if target is None:
            out.append(Problem(f"{req.claim} does not exist{hint(corpus.near_ids(req.claim))}", where + ("claim",)))
        else:
            kind = schema.kinds.get(target.kind)
            if kind is not None and SUPPORTED not in kind.statuses:
                out.append(Problem(f"{req.claim} is {a_or_an(target.kind)}, which has no status '{SUPPORTED}': "
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
                out.append(Problem(f"no {req.kind} can point at {a_or_an(rec.kind)} by {req.relation} "
                                   f"(the schema allows {req.relation} from {', '.join(rel.sources)} "
                                   f"to {', '.join(rel.targets)}), so this can never hold", rpath + ("relation",)))
        if kind is not None and req.status is not None and req.status not in kind.statuses:
            spath = rpath + ("status",) if (rpath + ("status",)) in rec.values else where + ("status",)
            out.append(Problem(f"'{req.status}' is not a status of {req.kind} (its statuses: "
                               f"{', '.join(kind.statuses)}){_near(req.status, kind.statuses)}", spath))
    return out


def _definitions(corpus, defs) -> str:
    """Where the definitions ``defs`` of a check id are, relative to the
    project when they are inside it."""
    import os
    base = getattr(getattr(corpus, "config", None), "base", None)
    out = []
    for d in defs:
        path, line = getattr(d, "path", None), getattr(d, "line", None)
        if path is None:
            out.append(str(d))
            continue
        if base is not None:
            try:
                rel = os.path.relpath(path, base)
                if not rel.startswith(".."):
                    path = rel
            except ValueError:
                pass
        out.append(f"{path}:{line}" if line is not None else str(path))
    return ", ".join(out)


def span(rec, where: tuple, at_key: bool = False) -> tuple:
    """The position of the value at key path ``where`` (its key with
    ``at_key``), with the end pulled back over trailing blank space: a block
    mapping's node otherwise ends at the start of the next line."""
    pos = rec.key_pos(*where) if at_key else rec.value_pos(*where)
    return trimmed_span(rec.text, pos)
