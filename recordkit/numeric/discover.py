"""Find the record's numeric checks without running any of their code.

Two forms:

* function checks: module-level functions of ``<checks>/*.py`` decorated
  with ``@check("id", tolerance=..., claim=...)`` (or ``@recordkit.check``,
  ``@recordkit.numeric.check``, or any alias imported from those).  The
  modules are read with :mod:`ast`, never imported.
* block checks: fenced code blocks in record bodies whose info string is
  ``python check`` followed by ``key=value`` pairs (``id`` required;
  ``tolerance``, ``claim``, ``timeout`` optional)::

      ```python check id=var-diff-identity tolerance=1e-12
      error = ...
      ```

Each check gets a *source hash*, the key of the result cache
(:mod:`recordkit.numeric.cache`): sha256 over the check's id, form and
tolerance, its source (for a function check: the whole module, since helpers
in the module matter, plus the text of the local modules it imports — sibling
modules of the checks folder and ``recordkit.*`` modules — and of the data
files named in ``inputs=``), the numpy version and the recordkit version.

Problems (a module that does not parse, a decorator whose id is not a
literal, a malformed info string) and duplicate ids are collected in a
:class:`Discovery`; :func:`discover` returns just the checks.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import shlex
import stat
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from ..config import DEFAULT_MAX_FILE_SIZE
from .registry import BLOCK_KEYS, CHECK_KEYWORDS, DEFAULT_TOLERANCE, CheckSpec, parse_timeout, parse_tolerance
from ..common.walk import walk as _walk_tree

_RECORDKIT_MODULES = ("recordkit", "recordkit.numeric", "recordkit.numeric.registry")
_PKG_DIR = Path(__file__).resolve().parent.parent      # .../recordkit


@dataclass
class Problem:
    """Something discovery could not read: reported, never raised."""
    path: str
    line: int
    message: str
    record: str | None = None     # id of the record, for a block check's problem

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class Discovery:
    """What :func:`discover_all` found.

    ``checks``: id -> the first definition (in path order: check modules
    first, then records); ``duplicates``: id -> every definition of an id
    defined more than once (the first included); ``problems``: what could not
    be read.
    """
    checks: dict[str, CheckSpec] = field(default_factory=dict)
    duplicates: dict[str, list[CheckSpec]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def add(self, spec: CheckSpec) -> None:
        if spec.id in self.checks:
            self.duplicates.setdefault(spec.id, [self.checks[spec.id]]).append(spec)
        else:
            self.checks[spec.id] = spec

    def duplicate_message(self, check_id: str) -> str:
        where = ", ".join(s.where for s in self.duplicates.get(check_id, []))
        return f"check id `{check_id}` is defined more than once: {where}"


def discover(corpus) -> dict[str, CheckSpec]:
    """id -> :class:`CheckSpec` for every check of ``corpus`` (the first
    definition of a duplicated id)."""
    return discover_all(corpus).checks


def discover_all(corpus) -> Discovery:
    """Every check of ``corpus``: the check modules of its configured checks
    folder, then the block checks of its records.

    Cheap to call again: a check module is re-read only when it or a file
    its hash covers changed (mtime, size), and a corpus's blocks are found
    once per corpus object."""
    disc = Discovery()
    for spec in function_checks(corpus.config.checks, disc.problems, max_size=corpus.config.max_file_size):
        disc.add(spec)
    blocks = corpus._check_blocks
    if blocks is None:
        blocks = ([], [])
        for rec in sorted(corpus.files, key=lambda r: r.relpath):
            if rec.ok and _may_hold_checks(rec):
                blocks[0].extend(block_checks(rec, blocks[1]))
        corpus._check_blocks = blocks
    for spec in blocks[0]:
        disc.add(replace(spec))
    disc.problems.extend(blocks[1])
    return disc


def carry_blocks(prev, corpus, edits) -> bool:
    """Give ``corpus`` (``prev`` with the files of ``edits``, ``(old record,
    new record)`` pairs, edited) the block checks found in ``prev``, when
    neither side of any edit may hold one.  Whether it did."""
    if prev._check_blocks is None or any(_may_hold_checks(r) for pair in edits for r in pair if r.ok):
        return False
    corpus._check_blocks = prev._check_blocks
    return True


def _may_hold_checks(rec) -> bool:
    """A fast prefilter; block_checks decides.  The loader keeps the text
    after every fence of the body (a superset of the lines block_checks
    takes for fences), which saves searching 85 MB of bodies for a hint."""
    infos = rec.fence_infos
    if infos is None:
        return bool(_BLOCK_HINT.search(rec.body))
    return any(_INFO_RE.match(i) for i in infos)


_BLOCK_HINT = re.compile(r"python[ \t]+check\b")   # a fast prefilter (literal prefix); block_checks decides


# -- function checks ---------------------------------------------------------

def function_checks(folder, problems: list[Problem] | None = None,
                    max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[CheckSpec]:
    """The function checks of the modules ``folder/*.py`` (not those whose
    name starts with ``_`` or ``.``: helpers), in file and line order.  Only
    regular files of at most ``max_size`` bytes are read (a named pipe would
    block, a link to ``/dev/zero`` never end): anything else is a problem."""
    folder = Path(folder)
    if problems is None:
        problems = []
    out: list[CheckSpec] = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith((".", "_")):
                out.extend(_module_checks_memo(path, folder, problems, max_size))
    return out


#: check module path -> (its bytes, (file, bytes) its hash covers, specs, problems)
_MODULE_MEMO: dict = {}


def _read_file(path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The bytes of the regular file ``path`` of at most ``max_size`` bytes;
    :class:`recordkit.corpus.parse.NotRead` (saying why) or OSError otherwise."""
    from ..corpus.parse import read_regular
    return read_regular(path, max_size)[0]


def _stamp(path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes | None:
    """The content of ``path`` (reading is cheap; parsing is what the memo
    saves); for a folder (an ``inputs=`` folder), the names below it, so
    that a file added or removed there is seen."""
    from ..corpus.parse import NotRead
    if os.path.isdir(path):
        try:
            return b"<folder>\0" + "\0".join(f.relative_to(path).as_posix() for f in _folder_files(Path(path))).encode(
                "utf-8", "surrogateescape")
        except OSError:
            return None
    try:
        return _read_file(path, max_size)
    except (OSError, NotRead):
        return None


def _module_checks_memo(path: Path, folder: Path, problems: list[Problem],
                        max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[CheckSpec]:
    stamp = _stamp(path, max_size)
    hit = _MODULE_MEMO.get(path)
    if (hit is not None and stamp is not None and hit[0] == stamp
            and all(_stamp(p, max_size) == st for p, st in hit[1])):
        problems.extend(hit[3])
        return [replace(s, extra=dict(s.extra)) for s in hit[2]]
    mine: list[Problem] = []
    covered: list[Path] = []
    specs = module_checks(path, folder, mine, covered, max_size)
    _MODULE_MEMO[path] = (stamp, tuple((p, _stamp(p, max_size)) for p in covered), specs, mine)
    problems.extend(mine)
    return [replace(s, extra=dict(s.extra)) for s in specs]


def module_checks(path: Path, folder: Path, problems: list[Problem],
                   covered: list[Path] | None = None, max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[CheckSpec]:
    """The checks of one module; ``covered`` receives the other files their
    hashes depend on (imported local modules, inputs)."""
    if covered is None:
        covered = []
    from ..corpus.parse import NotRead
    try:
        text = _read_file(path, max_size).decode("utf-8")
    except NotRead as exc:
        problems.append(Problem(str(path), 1, f"check module {exc}"))
        return []
    except OSError as exc:
        problems.append(Problem(str(path), 1, f"cannot read check module: {exc.strerror or exc}"))
        return []
    except UnicodeDecodeError as exc:
        problems.append(Problem(str(path), 1, f"cannot read check module: byte {exc.start} is not UTF-8"))
        return []
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        problems.append(Problem(str(path), exc.lineno or 1, f"check module does not parse: {exc.msg}"))
        return []
    names, modules = _check_aliases(tree)
    deps = _dependency_text(tree, path, folder, covered, max_size)
    # the module and what it imports, hashed once for all its checks (each
    # check's hash taking the text itself made discovery quadratic in the
    # checks of a module); a check adds its inputs to a copy
    module_hasher = hashlib.sha256((text + deps).encode("utf-8", "surrogatepass"))
    lines = text.splitlines(keepends=True)
    out = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if not (isinstance(deco, ast.Call) and _is_check(deco.func, names, modules)):
                continue
            spec = _spec_from_call(deco, node, path, lines, problems)
            if spec is not None:
                mh = module_hasher.copy()
                mh.update(_inputs_text(spec, folder, covered, max_size, problems).encode("utf-8", "surrogatepass"))
                spec.hash = source_hash(spec, module_digest=mh.hexdigest())
                out.append(spec)
    return out


def _check_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound to the ``check`` decorator, and names bound to modules
    that have a ``check`` attribute, by the module's imports."""
    names = {"check"}
    modules = {"recordkit"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                if node.module in _RECORDKIT_MODULES and a.name == "check":
                    names.add(a.asname or a.name)
                full = f"{node.module}.{a.name}"
                if full in _RECORDKIT_MODULES:
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in _RECORDKIT_MODULES:
                    modules.add(a.asname or a.name)
    return names, modules


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _is_check(func, names: set[str], modules: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in names
    if isinstance(func, ast.Attribute) and func.attr == "check":
        base = _dotted(func.value)
        return base is not None and (base in modules or base in _RECORDKIT_MODULES)
    return False


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}


def _const(node):
    """A literal, or arithmetic over literals (``1e-3 * 5``, ``2**-20``)."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _const(node.left), _const(node.right)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if isinstance(node.op, ast.Pow) and abs(b) > 1000:
                raise ValueError("exponent too large")
            return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _const(node.operand)
        if isinstance(v, (int, float)):
            return -v
    raise ValueError("not a literal")


_NOT_A_LITERAL = "(not a literal)"


def _spec_from_call(deco: ast.Call, func: ast.AST, path: Path, lines: list[str],
                    problems: list[Problem]) -> CheckSpec | None:
    """The spec of one decorated function; ``lines``: the module's lines
    (with their ends), split once per module."""
    params = ["id", "tolerance", "claim"]
    values: dict = {}
    extra: dict = {}
    for i, arg in enumerate(deco.args):
        if i < len(params):
            values[params[i]] = arg
    for kw in deco.keywords:
        if kw.arg is None:
            problems.append(Problem(str(path), deco.lineno, "@check(**kwargs) cannot be read without running the module"))
            return None
        (values if kw.arg in params else extra)[kw.arg] = kw.value
    try:
        cid = _const(values["id"]) if "id" in values else None
    except (ValueError, ZeroDivisionError, OverflowError):
        cid = None
    if not isinstance(cid, str) or not cid.strip():
        problems.append(Problem(str(path), deco.lineno, "@check needs the check id as a string literal"))
        return None
    try:
        raw_tol = _const(values["tolerance"]) if "tolerance" in values else DEFAULT_TOLERANCE
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        problems.append(Problem(str(path), deco.lineno, f"@check `{cid}`: tolerance must be a number literal"))
        return None
    tol, tol_problem = parse_tolerance(raw_tol)
    refused: list[str] = []
    if tol_problem:
        problems.append(Problem(str(path), deco.lineno, f"@check `{cid}`: {tol_problem}; the check is not run"))
        refused.append(tol_problem)
    try:
        claim = _const(values["claim"]) if "claim" in values else ""
        claim = " ".join(str(claim).split())
    except (ValueError, ZeroDivisionError, OverflowError):
        claim = ""
    ex = {}
    for k in extra:
        if k not in CHECK_KEYWORDS:
            why = f"unknown keyword `{k}=`{_did_you_mean(k, CHECK_KEYWORDS)} (@check takes {', '.join(CHECK_KEYWORDS[1:])})"
            problems.append(Problem(str(path), deco.lineno, f"@check `{cid}`: {why}; the check is not run"))
            refused.append(why)
    for k, v in extra.items():
        try:
            ex[k] = _const(v)
        except (ValueError, ZeroDivisionError, OverflowError):
            problems.append(Problem(str(path), deco.lineno, f"@check `{cid}`: `{k}=` must be a literal"))
            if k == "timeout":      # never run it without the limit its author meant
                ex[k] = _NOT_A_LITERAL
    bad = parse_timeout(ex.get("timeout"))[1]
    if bad and ex.get("timeout") is not _NOT_A_LITERAL:
        problems.append(Problem(str(path), deco.lineno, f"@check `{cid}`: {bad}; the check is not run"))
    start = min([func.lineno] + [d.lineno for d in func.decorator_list])
    end = func.end_lineno or func.lineno
    source = "".join(lines[start - 1:end])
    return CheckSpec(id=cid.strip(), tolerance=tol, claim=claim, source=source, path=str(path),
                     line=deco.lineno, form="function", extra=ex, end_line=end, code_line=func.lineno,
                     func_name=func.name, problem="; ".join(refused) or None)


def _did_you_mean(word: str, choices) -> str:
    from ..common.didyoumean import near_words
    near = near_words(word, choices, n=1)
    return f" (did you mean `{near[0]}=`?)" if near else ""


def _local_module_file(name: str, folder: Path) -> Path | None:
    """The file of module ``name`` when it is local: a sibling in the checks
    folder, or a module of the recordkit package.  Never imports anything."""
    parts = name.split(".")
    if parts[0] == "recordkit":
        base = _PKG_DIR.joinpath(*parts[1:]) if len(parts) > 1 else _PKG_DIR
    else:
        base = folder.joinpath(*parts)
    for cand in (base.with_suffix(".py") if len(parts) > 1 or parts[0] != "recordkit" else None,
                 base / "__init__.py"):
        if cand is not None and cand.is_file():
            return cand
    return None


def _dependency_text(tree: ast.Module, path: Path, folder: Path, covered: list[Path] | None = None,
                     max_size: int = DEFAULT_MAX_FILE_SIZE) -> str:
    """The text of the local modules that ``tree`` imports, transitively
    (sibling modules of the checks folder; ``recordkit.*`` modules other
    than the package's ``__init__`` and ``recordkit.numeric``), in a stable
    order.  Dependencies are scanned for imports with a regular expression
    (fast, and it errs toward including too much), not parsed."""
    seen: dict[Path, str] = {}
    todo = [_imported_names(tree)]
    while todo:
        for name in sorted(todo.pop()):
            f = _local_module_file(name, folder)
            if f is None or f == path or f in seen:
                continue
            try:
                txt = _read_file(f, max_size).decode("utf-8")
            except Exception:      # OSError, NotRead, UnicodeDecodeError: not a module to follow
                continue
            seen[f] = txt
            if covered is not None:
                covered.append(f)
            # the package a relative import in ``f`` is relative to: ``name``
            # itself for a package's __init__, else the module's parent
            package = name if f.name == "__init__.py" else name.rpartition(".")[0]
            todo.append(_imported_names_text(txt, package))
    return "".join(f"\n# --- {_portable(p, folder)}\n{seen[p]}" for p in sorted(seen))


def _portable(p: Path, folder: Path) -> str:
    """A name of ``p`` that does not depend on where the project lives."""
    for base, prefix in ((folder, ""), (_PKG_DIR, "recordkit/")):
        try:
            return prefix + p.relative_to(base).as_posix()
        except ValueError:
            continue
    return p.name


def _keep(names: set[str]) -> set[str]:
    # the package __init__ and the numeric machinery define the mechanism, not the maths
    return {n for n in names if n not in _RECORDKIT_MODULES and not n.startswith("recordkit.numeric")}


def _imported_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return _keep(out)


_FROM_RE = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
_IMPORT_RE = re.compile(r"^[ \t]*import[ \t]+([^\n#]+)", re.M)


def _absolute(module: str, package: str | None) -> str | None:
    """The absolute name of the module written ``module`` in an import of
    a module of ``package`` (``.core``, ``..util.x``, ``.``); None when it
    cannot be resolved (a relative import outside any package, or going
    above the top-level package)."""
    level = len(module) - len(module.lstrip("."))
    if not level:
        return module or None
    if not package:
        return None
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = parts[:len(parts) - (level - 1)]
    rest = module[level:]
    return ".".join(base + ([rest] if rest else []))


def _imported_names_text(text: str, package: str | None = None) -> set[str]:
    """The modules the Python source ``text`` imports (and ``module.name``
    for each name imported from one, which may be a submodule); relative
    imports are resolved against ``package``, the package of that source."""
    out = set()
    for m in _FROM_RE.finditer(text):
        mod = _absolute(m.group(1), package)
        if mod is None:
            continue
        out.add(mod)
        for item in m.group(2).strip("()").replace("\\", " ").split(","):
            name = item.split(" as ")[0].strip()
            if name.isidentifier():
                out.add(f"{mod}.{name}")
    for m in _IMPORT_RE.finditer(text):
        for item in m.group(1).split(","):
            name = item.split(" as ")[0].strip()
            if name and all(p.isidentifier() for p in name.split(".")):
                out.add(name)
    return _keep(out)


def _inputs_text(spec: CheckSpec, folder: Path, covered: list[Path] | None = None,
                 max_size: int = DEFAULT_MAX_FILE_SIZE, problems: list[Problem] | None = None) -> str:
    """What the check's ``inputs=`` add to its hash: each input's name and
    contents; a folder's files, recursively (their names relative to it,
    sorted, and their contents), so that adding, removing or changing a
    file of it makes a stored result stale.  An input that does not exist,
    or an ``inputs=`` that is not a path or a list of paths, is a problem
    (reported on ``problems``)."""
    inputs = spec.extra.get("inputs")
    if inputs is None:
        return ""
    if isinstance(inputs, str):
        inputs = [inputs]
    where = f"@check `{spec.id}`"
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(i, str) and i.strip() for i in inputs):
        why = "inputs= must be a path or a list of paths (strings, relative to the checks folder)"
        if problems is not None:
            problems.append(Problem(spec.path, spec.line, f"{where}: {why}; the check is not run"))
        spec.problem = "; ".join(p for p in (spec.problem, why) if p)
        return "\n# inputs <not readable>"
    h = hashlib.sha256()
    for rel in sorted(inputs):
        p = folder / rel
        if covered is not None:
            covered.append(p)
        h.update(os.fsencode(rel))
        if p.is_dir():
            h.update(b"<folder>\0")
            for f in _folder_files(p):
                if covered is not None:
                    covered.append(f)
                h.update(os.fsencode(f.relative_to(p).as_posix()) + b"\0")
                _hash_input(h, f)
                h.update(b"\0")
            continue
        if not (p.exists() or p.is_symlink()) and problems is not None:
            problems.append(Problem(spec.path, spec.line, f"{where}: input `{rel}` does not exist "
                                                          f"(inputs= are relative to the checks folder {folder})"))
        _hash_input(h, p)
    return f"\n# inputs {h.hexdigest()}" if inputs else ""


def _folder_files(folder: Path) -> list[Path]:
    """The files below ``folder``, recursively, in a stable order (by their
    path relative to it); links to folders are not followed."""
    out = []
    for base, dirs, files in _walk_tree(folder):
        dirs.sort()
        out.extend(Path(base) / f for f in files)
    return sorted(out, key=lambda f: f.relative_to(folder).as_posix())


def _hash_input(h, p: Path) -> None:
    """Add the content of the input file ``p`` to ``h``, in chunks (a data
    file may be large: no size cap, constant memory); only a regular file is
    read (a named pipe would block, ``/dev/zero`` never end)."""
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        h.update(b"<missing>")
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            h.update(b"<not a regular file>")
            return
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
    except OSError:
        h.update(b"<unreadable>")
    finally:
        os.close(fd)


# -- block checks -------------------------------------------------------------

_FENCE_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_INFO_RE = re.compile(r"^\s*python\s+check(?:\s+(.*?))?\s*$")


def block_checks(rec, problems: list[Problem] | None = None) -> list[CheckSpec]:
    """The block checks in ``rec``'s body (fences nested in another fence
    are text, not checks)."""
    if problems is None:
        problems = []
    out = []
    lines = rec.body.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        if fence[0] == "`" and "`" in info:
            i += 1
            continue
        # find the closing fence
        j = i + 1
        while j < len(lines):
            c = _FENCE_RE.match(lines[j])
            if c and c.group(2)[0] == fence[0] and len(c.group(2)) >= len(fence) and not c.group(3).strip():
                break
            j += 1
        im = _INFO_RE.match(info)
        if im:
            fence_line = rec.body_line + i
            code = "\n".join(_dedent(l, indent) for l in lines[i + 1:j])
            spec = _block_spec(rec, im.group(1) or "", code, fence_line, j, problems)
            if spec is not None:
                out.append(spec)
        i = j + 1
    return out


def _dedent(line: str, n: int) -> str:
    k = 0
    while k < n and k < len(line) and line[k] == " ":
        k += 1
    return line[k:]


def _block_spec(rec, args: str, code: str, fence_line: int, close_index: int,
                problems: list[Problem]) -> CheckSpec | None:
    path = str(rec.path)
    try:
        tokens = shlex.split(args)
    except ValueError as exc:
        problems.append(Problem(path, fence_line, f"check block: cannot read the info string: {exc}", rec.id))
        return None
    kv = {}
    for tok in tokens:
        if "=" not in tok:
            problems.append(Problem(path, fence_line, f"check block: `{tok}` is not key=value", rec.id))
            return None
        k, v = tok.split("=", 1)
        kv[k.strip()] = v
    cid = kv.pop("id", "").strip()
    if not cid:
        problems.append(Problem(path, fence_line, "check block without id=", rec.id))
        return None
    try:
        tol = float(kv.pop("tolerance", DEFAULT_TOLERANCE))
    except ValueError:
        problems.append(Problem(path, fence_line, f"check block `{cid}`: tolerance is not a number", rec.id))
        return None
    refused: list[str] = []
    tol, tol_problem = parse_tolerance(tol)
    if tol_problem:
        problems.append(Problem(path, fence_line, f"check block `{cid}`: {tol_problem}; the check is not run", rec.id))
        refused.append(tol_problem)
    claim = " ".join(kv.pop("claim", "").split())
    extra = {}
    for k, v in kv.items():
        if k not in BLOCK_KEYS:
            why = f"unknown key `{k}=` in the info string{_did_you_mean(k, BLOCK_KEYS)} (a check block takes {', '.join(BLOCK_KEYS)})"
            problems.append(Problem(path, fence_line, f"check block `{cid}`: {why}; the check is not run", rec.id))
            refused.append(why)
        if k != "timeout":
            extra[k] = v
            continue
        try:
            extra[k] = float(v)
        except ValueError:
            extra[k] = v            # kept, so that the runner refuses to run it without a limit
        bad = parse_timeout(extra[k])[1]
        if bad:
            problems.append(Problem(path, fence_line, f"check block `{cid}`: {bad}; the check is not run", rec.id))
    fence_text = rec.line_text(fence_line)
    spec = CheckSpec(id=cid, tolerance=tol, claim=claim, source=code, path=path, line=fence_line,
                     form="block", record=rec.id, extra=extra,
                     end_line=rec.body_line + close_index, code_line=fence_line + 1,
                     problem="; ".join(refused) or None)
    spec.hash = source_hash(spec, module_text=fence_text)
    return spec


# -- hashing ------------------------------------------------------------------

@lru_cache(maxsize=None)
def _versions() -> str:
    from importlib import metadata

    from ..version import __version__
    try:
        np_version = metadata.version("numpy")
    except metadata.PackageNotFoundError:  # pragma: no cover
        np_version = "absent"
    return f"numpy={np_version};recordkit={__version__}"


def source_hash(spec: CheckSpec, module_text: str = "", module_digest: str | None = None) -> str:
    """sha256 of what determines a check's result: its form, id, tolerance
    and source, the sha256 of ``module_text`` (for a function check its
    module, the local modules it imports and its inputs; for a block its
    fence line) or that digest given as ``module_digest`` (computed once for
    all the checks of a module), and the numpy and recordkit versions."""
    if module_digest is None:
        module_digest = hashlib.sha256(module_text.encode("utf-8", "surrogatepass")).hexdigest()
    h = hashlib.sha256()
    for part in (spec.form, spec.id, repr(float(spec.tolerance)), spec.source, module_digest, _versions()):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


# -- who cites a check --------------------------------------------------------

def citations(corpus, specs: dict[str, CheckSpec] | None = None) -> dict[str, list[str]]:
    """check id -> ids of the records that cite it: by their ``checks:``
    list, by a ``check:`` requirement of ``promote_when``, or by holding it
    as a block.  Ids that no check defines are included too."""
    out: dict[str, list[str]] = {}

    def add(cid, rid):
        lst = out.setdefault(cid, [])
        if rid not in lst:
            lst.append(rid)

    from ..common.order import id_sort_key
    for rid in sorted(corpus.records, key=id_sort_key):
        rec = corpus.records[rid]
        for cid in cited_check_ids(rec):
            add(cid, rid)
        pw = rec.get("promote_when")
        if isinstance(pw, dict) and isinstance(pw.get("requires"), list):
            for item in pw["requires"]:
                if isinstance(item, dict) and isinstance(item.get("check"), str):
                    add(item["check"].strip(), rid)
    for spec in (specs or {}).values():
        if spec.record:
            add(spec.id, spec.record)
    return out


def cited_check_ids(rec) -> list[str]:
    """The check ids of ``rec``'s ``checks:`` field, as :func:`cited_checks`
    gives them, without their positions (a record restored from the store
    parses its front matter again for a position)."""
    value = rec.get("checks")
    if isinstance(value, str):
        return [value.strip()]
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str)]
    return []


def cited_checks(rec) -> list[tuple[str, tuple]]:
    """(check id, position) for each item of ``rec``'s ``checks:`` field."""
    value = rec.get("checks")
    if isinstance(value, str):
        return [(value.strip(), rec.value_pos("checks"))]
    if isinstance(value, list):
        return [(v.strip(), rec.value_pos("checks", i)) for i, v in enumerate(value) if isinstance(v, str)]
    return []
