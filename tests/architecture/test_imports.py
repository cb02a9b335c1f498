"""The package's imports follow the pipeline: no circle, and no stage
imports a later one.  The stage order is written once, in
docs/architecture.md (the ``stages`` block); this test reads it there.

Imports are read with :mod:`ast` from every module of ``recordkit/``,
those inside functions included (an import deferred for speed is still a
dependency).  Imports under ``if TYPE_CHECKING:`` never run, so the stage
order leaves them out; the circle test counts them (a module that names
another's type depends on it as much as one that calls it).  ``from pkg
import name`` counts as an import of ``pkg.name`` when that is a module,
else of ``pkg``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "recordkit"
DOC = REPO / "docs" / "architecture.md"


def stage_order() -> list[tuple[str, list[str]]]:
    """[(stage name, [module prefixes])] in pipeline order, from the
    ``stages`` block of docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"```text stages\n(.*?)```", text, re.S)
    assert m, "docs/architecture.md has no ```text stages block"
    out = []
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, *mods = line.split()
            out.append((name.rstrip(":"), mods))
    return out


def stage_of(module: str, order) -> int | None:
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(order):
        for p in prefixes:
            exact = p.startswith("=")      # "=recordkit": that module only, not the package's
            p = p.lstrip("=")
            if (module == p or (not exact and module.startswith(p + "."))) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


class _Imports(ast.NodeVisitor):
    """The imports of one module (``found``: ours; ``external``: the rest)."""
    def __init__(self, name: str, is_pkg: bool, known: set[str]):
        self.name, self.is_pkg, self.known = name, is_pkg, known
        self.found: list[tuple[str, int]] = []
        self.external: set[str] = set()
        self.guarded: list[tuple[str, int]] = []     # our imports inside try/except ImportError
        self.dynamic: list[int] = []                 # importlib.import_module / __import__ calls
        self.typing: list[tuple[str, int]] = []      # ours under ``if TYPE_CHECKING:``
        self._guard = 0
        self._typing = 0

    def visit_If(self, node):
        test = ast.unparse(node.test)
        if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            self._typing += 1
            for n in node.body:
                self.visit(n)
            self._typing -= 1
            for n in node.orelse:
                self.visit(n)
            return
        self.generic_visit(node)

    def visit_Try(self, node):
        catches = any(h.type is not None and re.search(r"\b(ImportError|ModuleNotFoundError)\b", ast.unparse(h.type))
                      for h in node.handlers)
        self._guard += catches
        for n in node.body:
            self.visit(n)
        self._guard -= catches
        for n in node.handlers + node.orelse + node.finalbody:
            self.visit(n)

    def _add(self, target: str, line: int):
        if not (target == "recordkit" or target.startswith("recordkit.")):
            if not self._typing:         # (a type named for annotations only is not a use)
                self.external.add(target.split(".")[0])
        elif self._typing:
            self.typing.append((target, line))
        else:
            self.found.append((target, line))
            if self._guard:
                self.guarded.append((target, line))

    def visit_Import(self, node):
        for a in node.names:
            self._add(a.name, node.lineno)

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.name.split(".") if self.is_pkg else self.name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        for a in node.names:
            full = f"{mod}.{a.name}"
            self._add(full if full in self.known else mod, node.lineno)

    def visit_Call(self, node):
        f = ast.unparse(node.func)
        if f in ("importlib.import_module", "import_module", "__import__"):
            self.dynamic.append(node.lineno)
        self.generic_visit(node)


#: module -> the top-level names of the other packages it imports
EXTERNAL: dict[str, set[str]] = {}


def import_graph(type_only: bool = False):
    """``(graph, guarded, dynamic)``: ``graph`` maps each module to the
    ``(module, line)`` of our own modules it imports (with ``type_only``,
    those under ``if TYPE_CHECKING:`` too)."""
    mods = modules()
    known = set(mods)
    graph, guarded, dynamic = {}, [], []
    for name, path in mods.items():
        v = _Imports(name, path.name == "__init__.py", known)
        v.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        graph[name] = v.found + (v.typing if type_only else [])
        EXTERNAL[name] = v.external
        guarded += [(name, t, ln) for t, ln in v.guarded]
        dynamic += [(name, ln) for ln in v.dynamic]
    return graph, guarded, dynamic


#: imports of a later stage from an earlier one that are allowed: none.  A
#: corpus's graph is asked of the graph stage (``recordkit.graph.of(corpus)``),
#: which keeps it on the corpus's declared ``kept_graph`` field.
ALLOWED_UPWARD: frozenset = frozenset()

#: the one module that imports our own modules by name: it imports every
#: module of a plugin folder (lint/rules/, lint/formats/), which is how a
#: rule or an output format is added with one file
PLUGIN_LOADER = "recordkit.common.plugins"


def test_every_module_has_a_stage():
    order = stage_order()
    missing = [m for m in modules() if stage_of(m, order) is None]
    assert not missing, f"modules in no stage of docs/architecture.md: {missing}"


@pytest.mark.slow
def test_no_import_of_a_later_stage():
    order = stage_order()
    graph, _, _ = import_graph()
    bad = []
    for mod, targets in graph.items():
        for target, line in targets:
            a, b = stage_of(mod, order), stage_of(target, order)
            if b is not None and a is not None and b > a and (mod, target) not in ALLOWED_UPWARD:
                bad.append(f"{mod}:{line} ({order[a][0]}) imports {target} ({order[b][0]})")
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            strong(v)
    return out


def _package_of(module: str, mods) -> str | None:
    """The package whose ``__init__`` ``module`` is, when it is one."""
    return module if mods[module].name == "__init__.py" else None


@pytest.mark.slow
def test_no_import_circle():
    """No circle, counting imports deferred into functions and imports for
    type names only, with no exception.
    (A package's ``__init__`` that re-exports its modules is not counted as
    imported by them: importing ``pkg.mod`` runs ``pkg`` first anyway.)"""
    graph, _, _ = import_graph(type_only=True)
    mods = modules()
    edges = {m: {t for t, _ in ts if t != m and (m, t) not in ALLOWED_UPWARD
                 and not (_package_of(t, mods) and m.startswith(t + "."))}
             for m, ts in graph.items()}
    assert _cycles(edges) == []


def test_the_checker_finds_circles_and_upward_imports():
    """The test above can fail: a made-up graph with a circle is caught."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    order = stage_order()
    assert stage_of("recordkit.corpus.parse", order) < stage_of("recordkit.graph.build", order) \
        < stage_of("recordkit.lint.engine", order) < stage_of("recordkit.cli.lint", order)


@pytest.mark.slow
def test_no_guarded_or_dynamic_import_of_our_own_modules():
    _, guarded, dynamic = import_graph()
    assert not guarded, f"our own modules imported inside try/except ImportError: {guarded}"
    assert [m for m, _ in dynamic if m != PLUGIN_LOADER] == [], dynamic


@pytest.mark.slow
def test_networkx_only_in_the_graph_stage_and_the_exports():
    """The graph stage is the only place the graph is built and asked;
    only the exports to graph formats (the emit stage) use networkx's
    writers besides it."""
    order = stage_order()
    names = dict(order)
    allowed = tuple(p.lstrip("=") for p in names["derive"] + names["emit"])
    import_graph()
    users = [m for m, ext in EXTERNAL.items() if "networkx" in ext]
    assert users and all(m.startswith(allowed) for m in users), users


def test_the_syntax_knows_no_record():
    """``recordkit.markdown`` is syntax only: it imports nothing of recordkit
    but itself and ``common`` (no schema, no record, no stage), so every
    stage may use it and it can be read on its own."""
    graph, _, _ = import_graph(type_only=True)
    bad = [f"{m}:{line} imports {t}" for m, ts in graph.items() if m.startswith("recordkit.markdown")
           for t, line in ts if not t.startswith(("recordkit.markdown", "recordkit.common"))]
    assert bad == [], "\n".join(bad)


def test_no_module_asks_a_corpus_for_its_graph():
    """``corpus.graph`` and ``corpus.backlinks`` are the public API's
    conveniences, attached by ``recordkit.load``: recordkit's own modules ask
    the graph stage (``graph.of(corpus)``, ``graph.queries.backlinks``), so
    the load stage never imports the graph stage."""
    import re
    pat = re.compile(r"\bcorpus\.(?:graph|backlinks)\b")
    bad = [f"{p.relative_to(PKG.parent)}:{n}" for p in sorted(PKG.rglob("*.py")) if p != PKG / "__init__.py"
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if pat.search(line.split("#")[0]) and "``" not in line]
    assert not bad, "ask recordkit.graph.of(corpus) instead:\n  " + "\n  ".join(bad)
