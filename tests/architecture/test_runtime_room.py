"""The speed wing has a room of its own: ``recordkit/runtime/`` is the only
package that forks, pauses the collector, reaches into the C library or
holds a measured figure, and it knows no record (docs/architecture.md,
"base").  The store of parsed records (``corpus/store/store.py``) may pickle its
own entries.

Read with :mod:`ast` from every module, as test_imports.py reads imports
(imports inside functions included)."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "recordkit"
RUNTIME = PKG / "runtime"

#: module -> what it may use of these beyond runtime/
ALLOWED = {"pickle": {"recordkit/corpus/store/store.py"}}
GUARDED = ("gc", "ctypes", "pickle")


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _in_runtime(rel: str) -> bool:
    return rel.startswith("recordkit/runtime/")


def test_forks_the_collector_ctypes_and_pickle_only_in_runtime():
    bad = []
    for rel, _, tree in _modules():
        if _in_runtime(rel):
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                if top in GUARDED and rel not in ALLOWED.get(top, ()):
                    bad.append(f"{rel}:{node.lineno}: import {name}")
            if isinstance(node, ast.Attribute) and node.attr in ("fork", "forkpty") \
                    and isinstance(node.value, ast.Name) and node.value.id == "os":
                bad.append(f"{rel}:{node.lineno}: os.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "os" and \
                    any(a.name in ("fork", "forkpty") for a in node.names):
                bad.append(f"{rel}:{node.lineno}: from os import fork")
    assert not bad, "speed machinery outside recordkit/runtime/ (use runtime.spread, runtime.batch, " \
                    "runtime.snapshot, runtime.system):\n" + "\n".join(bad)


def test_runtime_knows_no_record():
    """runtime/ imports nothing of recordkit's but itself."""
    bad = []
    for rel, _, tree in _modules():
        if not _in_runtime(rel):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0 and (node.module or "").startswith("recordkit") and \
                        not (node.module or "").startswith("recordkit.runtime"):
                    bad.append(f"{rel}:{node.lineno}: from {node.module}")
                if node.level > 1:
                    bad.append(f"{rel}:{node.lineno}: from {'.' * node.level}{node.module or ''}")
            elif isinstance(node, ast.Import):
                bad += [f"{rel}:{node.lineno}: import {a.name}" for a in node.names
                        if a.name.startswith("recordkit") and not a.name.startswith("recordkit.runtime")]
    assert not bad, "\n".join(bad)


def _tuning_names() -> set[str]:
    tree = ast.parse((RUNTIME / "tuning.py").read_text(encoding="utf-8"))
    return {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}


#: the figures the stages held before they moved to runtime/tuning.py, and
#: the words (between underscores) of a constant's name that say it is a
#: figure of the speed work, or the first word of one
MOVED = {"PARENT_WEIGHT", "HELPER_PIECE", "OWN_PIECE", "HELPER_SHARE_OF_RULES", "COST", "COPY_COST",
         "FORK_PAGES", "MIN_FILES", "RACY_NS", "SHARD"}
SPEED_WORDS = {"FORK", "JOBS", "PIECE", "COST", "RACY"}
SPEED_FIRST = {"HELPER", "HELPERS", "PARENT"}


def _speed_name(name: str) -> bool:
    words = name.split("_")
    return name in MOVED or bool(SPEED_WORDS.intersection(words)) or words[0] in SPEED_FIRST


def test_measured_figures_only_in_tuning():
    """Every figure of the speed work is named in runtime/tuning.py: no
    other module assigns one of its names, nor a module-level number whose
    name says it is such a figure."""
    names = _tuning_names()
    assert {"MIN_FILES", "FIRST_WEIGHT", "HELPERS_SHARE", "SITE_FORK_PAGES", "SQL_HELPER_GROUPS", "RACY_NS"} <= names
    bad = []
    for rel, _, tree in _modules():
        if rel == "recordkit/runtime/tuning.py":
            continue
        for node in tree.body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                literal = isinstance(node.value, (ast.Constant, ast.Dict, ast.BinOp, ast.UnaryOp)) and \
                    not isinstance(getattr(node.value, "value", None), str)
                if t.id in names and literal:
                    bad.append(f"{rel}:{node.lineno}: {t.id} (a name of runtime/tuning.py)")
                elif literal and _speed_name(t.id):
                    bad.append(f"{rel}:{node.lineno}: {t.id}")
    assert not bad, "measured figures outside recordkit/runtime/tuning.py:\n" + "\n".join(bad)
