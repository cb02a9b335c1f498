"""The house's figures, printed (issue 31's acceptance list), from the same
readers the architecture tests use:

    python tests/architecture/figures.py

- import circles, counting type-only and deferred imports (edges of
  ``ALLOWED_UPWARD`` left out, as the test does: there are none);
- arrows to a later stage (the same allowance);
- private names imported across packages;
- the largest file, class and function of ``recordkit/``;
- module-level mutable caches: a module-level name bound to an empty
  ``{}``, ``[]``, ``set()``, ``dict()``, ``defaultdict(…)``,
  ``OrderedDict()`` or ``WeakKeyDictionary()``/``WeakValueDictionary()``
  (what a module fills as it runs), listed with where.

Exit status 0; it reports, the tests in this folder enforce.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import test_imports as imports  # noqa: E402
import test_private_imports as private  # noqa: E402

PKG = imports.PKG
EMPTY_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary"}


def _empty_container(node: ast.expr) -> bool:
    if isinstance(node, (ast.Dict, ast.List, ast.Set)):
        return not (getattr(node, "keys", None) or getattr(node, "elts", None))
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        return name in EMPTY_CALLS and not node.keywords and (
            not node.args or name in ("defaultdict",))
    return False


def module_caches(tree: ast.Module) -> list[tuple[str, int]]:
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and _empty_container(node.value):
            out += [(t.id, node.lineno) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _empty_container(node.value) \
                and isinstance(node.target, ast.Name):
            out.append((node.target.id, node.lineno))
    return out


def sizes():
    big_file, big_class, big_fn, caches = (0, ""), (0, ""), (0, ""), []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        big_file = max(big_file, (text.count("\n"), rel))
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if isinstance(node, ast.ClassDef):
                    big_class = max(big_class, (n, f"{rel}:{node.name}"))
                else:
                    big_fn = max(big_fn, (n, f"{rel}:{node.name}"))
        caches += [f"{rel}:{line} {name}" for name, line in module_caches(tree)]
    return big_file, big_class, big_fn, caches


def main() -> int:
    order = imports.stage_order()
    graph, _, _ = imports.import_graph(type_only=True)
    mods = imports.modules()
    edges = {m: {t for t, _ in ts if t != m and (m, t) not in imports.ALLOWED_UPWARD
                 and not (imports._package_of(t, mods) and m.startswith(t + "."))}
             for m, ts in graph.items()}
    circles = imports._cycles(edges)
    upward = sorted({f"{m} -> {t}" for m, ts in graph.items() for t, _ in ts
                     if (m, t) not in imports.ALLOWED_UPWARD and imports.stage_of(m, order) is not None
                     and imports.stage_of(t, order) is not None
                     and imports.stage_of(t, order) > imports.stage_of(m, order)})
    priv = []
    for path in sorted(PKG.rglob("*.py")):
        priv += private.private_uses(path.read_text(encoding="utf-8"), path)
    big_file, big_class, big_fn, caches = sizes()
    print(f"modules {len(mods)}")
    print(f"import circles (type-only and deferred imports counted) {len(circles)}"
          + "".join(f"\n  {' <-> '.join(c)}" for c in circles))
    print(f"arrows to a later stage {len(upward)} (allowed: "
          f"{', '.join(f'{a} -> {b}' for a, b in sorted(imports.ALLOWED_UPWARD)) or 'none'})"
          + "".join(f"\n  {u}" for u in upward))
    print(f"private names imported across packages {len(priv)}" + "".join(f"\n  {p}" for p in priv))
    print(f"largest file {big_file[0]} lines ({big_file[1]})")
    print(f"largest class {big_class[0]} lines ({big_class[1]})")
    print(f"longest function {big_fn[0]} lines ({big_fn[1]})")
    print(f"module-level mutable caches {len(caches)}" + "".join(f"\n  {c}" for c in caches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
