"""``recordkit rename OLD NEW``: give a record a new id, and every reference
to it across the record with it.

Only the files that name OLD or NEW are parsed (a byte search finds them),
so renaming in a record of 10,000 files costs a read of the files and the
parse of the few hundred that refer to the record.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..config import DEFAULT_MAX_FILE_SIZE
from ..corpus.loader import iter_files
from ..corpus.parse import parse_bytes
from ..common.transaction import digest
from .plan import PLACES_SHOWN, AuthorError, Change, Plan
from .retarget import EditRefused, retarget, token_re, verify
from ..common.text import a_or_an, some_of
from ..common.walk import every_path


def check_new_id(schema, old: str, new: str) -> None:
    """Refuse a new id that is malformed, of another kind, or the old one."""
    if new == old:
        raise AuthorError(f"{old} and {new} are the same id", usage=True)
    from ..corpus.identity import MAX_ID_LENGTH
    if len(new) > MAX_ID_LENGTH:
        # (the loader would not take it: every reference to the record would dangle)
        raise AuthorError(f"{new[:40]}…: an id has at most {MAX_ID_LENGTH} characters (RK105), this one "
                          f"{len(new):,}", usage=True)
    kind_old, kind_new = schema.kind_of(old), schema.kind_of(new)
    rx = schema.id_re
    if rx is None or "kind" not in rx.groupindex:
        raise AuthorError("`recordkit rename` renames ids whose kind the schema's id_pattern names (a `kind` "
                          "group), and " + ("the schema has no id_pattern" if rx is None
                                            else f"id_pattern {rx.pattern} has no kind group"), usage=True)
    if kind_new is None:
        raise AuthorError(f"{new} is not an id of the form KIND-NNN", usage=True)
    if kind_new not in schema.kinds:
        import difflib
        near = difflib.get_close_matches(kind_new, list(schema.kinds), n=1)
        raise AuthorError(f"{new}: {kind_new} is not a kind of the schema"
                          + (f" (did you mean {near[0]}?)" if near else ""), usage=True)
    if kind_old is not None and kind_old != kind_new:    # (an old id of no kind: "no record", or a malformed id)
        raise AuthorError(f"{old} is {a_or_an(kind_old)} and {new} {a_or_an(kind_new)}: a rename keeps the kind "
                          f"(make a new {kind_new} with `recordkit new` and merge into it)", usage=True)


def check_schema_id(schema, new: str, relpath: str, others) -> None:
    """Refuse a new id the schema would report on the renamed record, at
    ``relpath`` after the rename: one its ``id_pattern`` does not match
    (RK105: a MADR decision without its number), or one whose group named
    by a ``unique: [pattern:GROUP]`` entry is another record's already
    (RK111: another decision's number).  Read from the schema, as lint
    reads it, so any schema's pattern and unique groups are held, and a
    page (the schema's ``pages``) is held to neither, as lint holds it.
    ``others``: the other records that may hold such a value (not the
    renamed one: its old value is its own).  A ``field:NAME`` entry is not
    checked: a rename changes no field's value, only its links."""
    if schema.page_globs and schema.is_page(relpath):
        return
    rx = schema.id_re
    if rx is None:
        return
    m = rx.match(new)
    if m is None:
        raise AuthorError(f"{new} does not match the id pattern {rx.pattern}: lint would report it (RK105); "
                          "choose a name of that form", usage=True)
    for source, group in schema.unique:
        value = m.group(group) if source == "pattern" else None
        if value is None:
            continue
        for r in others:
            if not r.ok or not isinstance(r.id, str) or \
                    (schema.page_globs and schema.is_page(r.relpath)):
                continue
            theirs = rx.match(r.id)
            if theirs is not None and theirs.group(group) == value:
                raise AuthorError(f"{new}: {group} {value} is the {group} of {r.relpath} already, and the schema "
                                  f"keeps it unique: lint would report both (RK111); choose another {group}",
                                  usage=True)


def _names_any(path: Path, needles: list[bytes]) -> bytes | None:
    """The first of ``needles`` the file at ``path`` holds (None: none),
    read in pieces (a file too large to be read whole)."""
    keep = max(map(len, needles)) - 1
    tail = b""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 20)
            if not chunk:
                return None
            window = tail + chunk
            for n in needles:
                if n in window:
                    return n
            tail = window[-keep:] if keep else b""


def _read_naming(p: Path, needles: list[bytes], max_size: int) -> bytes | None:
    """The bytes of the file at ``p`` (None: a named pipe, a device, a
    socket, or a file larger than ``max_size`` that names none of
    ``needles``); a larger one that names one is refused: it would keep the
    old id."""
    import stat

    from ..corpus.parse import NotRead, read_regular
    try:
        return read_regular(p, max_size)[0]
    except NotRead as exc:
        try:
            regular = stat.S_ISREG(os.stat(p).st_mode)
            named = _names_any(p, needles) if regular else None
        except OSError as exc2:
            raise AuthorError(f"{p}: cannot be read: {exc2.strerror or exc2}") from exc2
        if named:       # larger than max_file_size, and it names an id
            raise AuthorError(f"{p}: {exc}, and it names {named.decode()}: raise max_file_size, "
                              "or edit it by hand") from None
        return None
    except OSError as exc:
        raise AuthorError(f"{p}: cannot be read: {exc.strerror or exc}") from exc


class _Wanted:
    """What makes a file a candidate: it names one of ``ids`` (by its
    content, bytes or text, or its name), or holds one of ``values`` in its
    content or name."""

    def __init__(self, ids: tuple[str, ...], values: tuple[str, ...]):
        self.text = ids
        self.bytes = tuple(i.encode() for i in ids)
        self.names = frozenset(i + ".md" for i in ids)
        self.values = values

    def __call__(self, content, name: str) -> bool:
        if name in self.names:
            return True
        if isinstance(content, bytes):
            if any(n in content for n in self.bytes):
                return True
            return any(v in name or v.encode() in content for v in self.values)
        if any(n in content for n in self.text):
            return True
        return any(v in name or v in content for v in self.values)


def read_candidates(root: Path, files: list[Path], ids: tuple[str, ...], schema,
                    max_size: int = DEFAULT_MAX_FILE_SIZE, values: tuple[str, ...] = ()):
    """Parse the files whose bytes name one of ``ids`` (or are named after
    one): the records.  A file larger than ``max_size``
    (``max_file_size``: no command reads it as a record) that names one is
    refused: it would keep the old id.  ``values``: text whose files (by
    their bytes or name) are parsed too, to find the records whose id holds
    it (a unique value of the new id)."""
    needles = [i.encode() for i in ids]
    wanted = _Wanted(ids, values)
    out = []
    prefix = len(str(root)) + 1
    for p in files:
        data = _read_naming(p, needles, max_size)
        if data is not None and wanted(data, p.name):
            rec, _ = parse_bytes(data, p, str(p)[prefix:].replace(os.sep, "/"), schema)
            rec.digest = digest(data)
            out.append(rec)
    return out


def held_candidates(records, ids: tuple[str, ...], schema, max_size: int = DEFAULT_MAX_FILE_SIZE,
                    values: tuple[str, ...] = ()):
    """:func:`read_candidates` over files parsed already (``records``: a
    language server's snapshot, the editor's unsaved texts applied): each
    is tested on the content it holds in memory, else on its file's bytes
    (read, not kept); a candidate is the record itself when it parsed (no
    second parse), else the parse of its bytes, as the command parses it."""
    needles = [i.encode() for i in ids]
    wanted = _Wanted(ids, values)
    out = []
    for r in records:
        content = r.source.held()
        if content is None or (not content and not r.ok):    # (a file not read: too large, not regular)
            content = _read_naming(r.path, needles, max_size)
            if content is None:
                continue
        if not wanted(content, r.path.name):
            continue
        if not r.ok:
            data = content.encode("utf-8") if isinstance(content, str) else content
            r, _ = parse_bytes(data, r.path, r.relpath, schema)
        out.append(r)
    return out


def plan_rename(config, schema, old: str, new: str, files: list[Path] | None = None, *,
                records: list | None = None) -> Plan:
    """The changes that rename ``old`` to ``new`` (raises :class:`AuthorError`).

    ``files``: the record's files (default: walked from the root), read
    for the ones that name ``old`` or ``new``.  ``records``: instead, the
    record's files parsed already, each with its text (a language server's
    snapshot, the editor's unsaved texts applied: the plan is made from
    those texts, with the same tests and refusals as from the files)."""
    check_new_id(schema, old, new)
    root = Path(config.root).resolve()
    if records is not None:
        files = [r.path for r in records]
    elif files is None:
        files = iter_files(root, config.exclude, config.skip_dirs)
    # the values the new id takes of the schema's `unique: [pattern:GROUP]`
    # (check_new_id: it matches id_pattern): the files that hold one are
    # read too, for check_schema_id to find another record of that value
    m = schema.id_re.match(new) if schema.id_re is not None else None
    values = tuple(v for source, group in schema.unique if source == "pattern" and (v := m.group(group))) \
        if m is not None else ()
    if records is not None:
        recs = held_candidates(records, (old, new), schema, config.max_file_size, values)
    else:
        recs = read_candidates(root, files, (old, new), schema, config.max_file_size, values)
    owners = [r for r in recs if r.ok and r.id == old]
    if not owners:
        from ..common.didyoumean import IdIndex
        near = IdIndex(p.stem for p in files).closest(old)
        raise AuthorError(f"no record {old} under {root}" + (f" (did you mean {near}?)" if near else ""),
                          usage=True)
    if len(owners) > 1:
        raise AuthorError(f"{old} is the id of {len(owners)} files ({', '.join(r.relpath for r in owners)}); "
                          f"make it unique first (RK107)")
    taken = [r for r in recs if (r.ok and r.id == new) or r.path.stem == new]
    if taken:
        raise AuthorError(f"{new} exists already: {taken[0].relpath}")
    rec = owners[0]
    if os.path.islink(rec.path):
        raise AuthorError(f"{rec.relpath} is a symbolic link; rename its target by hand")
    new_path = rec.path.with_name(new + rec.path.suffix) if rec.path.stem == old else rec.path
    if new_path != rec.path and os.path.lexists(new_path):
        raise AuthorError(f"{new_path} exists already")
    check_schema_id(schema, new, Path(os.path.relpath(new_path, root)).as_posix(), [r for r in recs if r is not rec])

    plan = Plan(root=root)
    pattern = token_re(old)
    left = []
    for r in sorted(recs, key=lambda r: r.relpath):
        got = retarget(r, old, new, pattern)
        left.extend(f"{r.relpath}:{line}" for line in got.left)
        if got.text == r.text and r is not rec:
            continue
        try:
            verify(r, got.text, schema, pattern, new)
        except EditRefused as exc:
            raise AuthorError(str(exc)) from None
        plan.references += got.count
        if r is rec and new_path != rec.path:
            plan.changes.append(Change(rec.path, rec.text, None))
            plan.changes.append(Change(new_path, None, got.text, renamed_from=rec.path))
        else:
            plan.changes.append(Change(r.path, r.text, got.text))
    files_n = len({c.path for c in plan.changes if c.after is not None and c.path != new_path})
    own = len(token_re(old).findall(rec.text[:rec.body_offset])) if rec.ok else 0   # its id: (and so on)
    others = plan.references - own
    plan.summary = (f"{old} → {new}: {plan.rel(rec.path)} → {plan.rel(new_path)}, "
                    f"{others} reference{'s' if others != 1 else ''} in {files_n} other file{'s' if files_n != 1 else ''}")
    if left:
        plan.notes.append(f"{old} inside code or a link's address (not a reference, left as it is): " + some_of(left, shown=PLACES_SHOWN))
    plan.notes.extend(_outside_notes(config, old))
    return plan


def _outside_notes(config, old: str) -> list[str]:
    """Where the check modules name ``old`` (they are not record files)."""
    folder = Path(config.checks)
    if not folder.is_dir():
        return []
    pattern = token_re(old)
    hits = []
    for p in sorted(q for q in every_path(folder) if q.name.endswith(".py")):
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        line, counted = 1, 0            # (counted on from the last hit, not from the start)
        for m in pattern.finditer(text):
            line += text.count("\n", counted, m.start())
            counted = m.start()
            hits.append(f"{p.relative_to(folder.parent).as_posix()}:{line}")
    return [f"{old} is also named outside the record, left as it is: " + some_of(hits, shown=PLACES_SHOWN)] \
        if hits else []


__all__ = ["plan_rename", "check_new_id", "check_schema_id", "held_candidates"]
