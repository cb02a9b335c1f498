"""No package of recordkit uses another's private names.

A name with a leading underscore is its module's own business: its
package may change it without looking further.  So no module imports an
underscored name (``from recordkit.corpus.parse import _read``) from a
module of another top-level package of ``recordkit/`` (``corpus``,
``markdown``, ``lint``, ...; ``config`` and ``version`` count as packages
of their own), and none reads an underscored attribute of a module of
another package it imported (``lc._all_hold(n)`` after ``from .. import
lifecycle as lc``).  What other packages need is public: link syntax, for
one, is :mod:`recordkit.markdown`'s public names.

Imports are read with :mod:`ast`, those inside functions and under ``if
TYPE_CHECKING:`` included.  Dunder names (``__version__``) are public.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "recordkit"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _package(parts: list[str]) -> str | None:
    """The top-level package of recordkit a module (as its dotted parts)
    belongs to: ``corpus`` for ``recordkit.corpus.parse``; None for
    ``recordkit`` itself."""
    return parts[1] if len(parts) > 1 else None


def _target(parts: list[str], is_pkg: bool, node: ast.ImportFrom) -> list[str]:
    if node.level:
        base = parts if is_pkg else parts[:-1]
        base = base[:len(base) - (node.level - 1)]
        return base + (node.module.split(".") if node.module else [])
    return (node.module or "").split(".")


def private_uses(source: str, path: Path) -> list[str]:
    """``"file:line: what"`` for each private name of another package that
    the module at ``path`` (its text: ``source``) imports or reads."""
    parts = _module_name(path)
    is_pkg = path.name == "__init__.py"
    mine = _package(parts)
    tree = ast.parse(source, str(path))
    modules: dict[str, str | None] = {}    # local name -> the package of the recordkit module it is bound to
    out = []
    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _target(parts, is_pkg, node)
            if not target or target[0] != "recordkit":
                continue
            for a in node.names:
                # ``from pkg import module``: the module's package is pkg's, or the module's own
                theirs = _package(target) if len(target) > 1 else _package(target + [a.name])
                if _private(a.name) and theirs != mine:
                    out.append(f"{rel}:{node.lineno}: imports {'.'.join(target)}.{a.name}")
                if not _private(a.name):
                    modules[a.asname or a.name] = theirs
        elif isinstance(node, ast.Import):
            for a in node.names:
                target = a.name.split(".")
                if target[0] == "recordkit" and a.asname:
                    modules[a.asname] = _package(target)
                    if any(_private(p) for p in target) and _package(target) != mine:
                        out.append(f"{rel}:{node.lineno}: imports {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
            theirs = modules.get(node.value.id, mine)
            if theirs != mine and theirs is not None:
                out.append(f"{rel}:{node.lineno}: reads {node.value.id}.{node.attr} (of recordkit.{theirs})")
    return out


def test_no_private_name_of_another_package():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        found += private_uses(path.read_text(encoding="utf-8"), path)
    assert found == [], "private names used across packages (make them public in their module):\n" + "\n".join(found)


def test_the_checker_finds_them():
    """The test above can fail: each kind of private use is caught, and
    uses inside one package are not."""
    here = PKG / "author" / "x.py"
    src = (
        "from ..corpus.parse import _read\n"                       # another package, relative
        "from recordkit.graph.edges import _derived_by_pattern\n"  # absolute
        "from .. import lifecycle as lc\n"
        "from .plan import _private_of_author\n"                    # its own package: fine
        "def f():\n"
        "    from ..markdown.links import MD_DEST_RE, _SCHEME_RE\n"  # deferred
        "    return lc._all_hold(1)\n")
    got = private_uses(src, here)
    assert [g.split(": ", 1)[1] for g in got] == [
        "imports recordkit.corpus.parse._read",
        "imports recordkit.graph.edges._derived_by_pattern",
        "imports recordkit.markdown.links._SCHEME_RE",
        "reads lc._all_hold (of recordkit.lifecycle)",
    ]
    assert private_uses("from . import _x\nfrom .y import _z\n", PKG / "corpus" / "__init__.py") == []
    assert private_uses("from recordkit import __version__\n", PKG / "cli" / "x.py") == []
