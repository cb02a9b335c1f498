"""A record's storage has one room: its underscored fields (``_keys``,
``_mentions``, ``_spots``, ...) and what its ``source`` holds (``_text``,
``_raw``, ``_body``, ``_line_starts``) are named only in
``corpus/model.py``, ``corpus/source.py`` and ``corpus/store/``.  Every
other module asks the record (``rec.text``, ``rec.mention_places()``) or
its source (``rec.source.peek_body(offset)``, ``rec.source.contains(b"](#")``),
so how the file's bytes or text are kept can change in one place
(docs/architecture.md, "Declared data").

Read with :mod:`ast`: an attribute of one of these names read or written
on anything but ``self`` or ``cls``, and ``getattr``/``hasattr``/``setattr``
with one of them as a string."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from recordkit.corpus.model import Record
from recordkit.corpus.source import Source

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "recordkit"

#: where the storage may be named
ROOM = ("recordkit/corpus/model.py", "recordkit/corpus/source.py", "recordkit/corpus/store/")


def _storage_names() -> set[str]:
    names = {f.name for f in dataclasses.fields(Record) if f.name.startswith("_")}
    names |= {n for n in Source.__slots__ if n.startswith("_")}
    # what the record held before it had a source: no module may bring it back
    names |= {"_raw", "_text", "_body", "_line_starts", "file_bytes"}
    return names


def _offences(rel: str, tree: ast.AST, names: set[str]) -> list[str]:
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names and not (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            bad.append(f"{rel}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in names:
            bad.append(f"{rel}:{node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
    return bad


def test_a_records_storage_is_named_only_in_its_room():
    names = _storage_names()
    assert {"_keys", "_mentions", "_spots", "_text", "_raw"} <= names
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith(ROOM):
            continue
        bad += _offences(rel, ast.parse(path.read_text(encoding="utf-8"), rel), names)
    assert not bad, ("a record's storage named outside corpus/model.py, corpus/source.py and corpus/store/ "
                     "(ask the record or rec.source):\n" + "\n".join(bad))


def test_the_guard_sees_what_it_guards():
    names = _storage_names()
    tree = ast.parse("raw = rec._raw\nx = getattr(rec, '_text', None)\nself._keys = 1\n")
    assert [b.split(": ", 1)[1] for b in _offences("m.py", tree, names)] == ["._raw", "getattr(…, '_text')"]
