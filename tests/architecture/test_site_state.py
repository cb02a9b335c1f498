"""The site build keeps nothing between builds in its modules: what a build
leaves for the next in the same process is a field of
``recordkit/emit/site/state.BuildState``, which ``serve`` owns and hands to
each rebuild (a plain ``build_site`` call makes a fresh one).  A module of
``recordkit/emit/`` binds no name to an empty dict, list, set or weak
dictionary that it fills as it runs, and assigns no module global from a
function of the site build (``global``).

Read with :mod:`ast`, as figures.py counts module-level caches."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402

REPO = HERE.parents[1]
EMIT = REPO / "recordkit" / "emit"
SITE_BUILD = EMIT / "site"


def test_no_module_level_cache_in_emit():
    found = []
    for path in sorted(EMIT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(REPO).as_posix()}:{line} {name}" for name, line in figures.module_caches(tree)]
    assert not found, "keep what a build leaves for the next in emit/site/state.BuildState:\n" + "\n".join(found)


def test_no_module_global_assigned_by_the_site_build():
    found = []
    for path in sorted(SITE_BUILD.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Global):
                found.append(f"{rel}:{node.lineno} global {', '.join(node.names)}")
    assert not found, "\n".join(found)


def test_serve_owns_the_build_state_and_hands_it_to_each_rebuild():
    """serve's server keeps one BuildState, and gives it to build_site and
    to its record cache (read from the source: no server started)."""
    tree = ast.parse((SITE_BUILD / "serve.py").read_text(encoding="utf-8"))
    calls = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            calls.setdefault(name, []).append(node)
    assert any(kw.arg == "state" and ast.unparse(kw.value) == "self.state"
               for call in calls.get("build_site", []) for kw in call.keywords)
    assert any(ast.unparse(a) == "self.state" for call in calls.get("RecordCache", []) for a in call.args)
    assert calls.get("BuildState")
