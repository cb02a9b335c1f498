"""Configuration: ``[tool.recordkit]`` in pyproject.toml, or recordkit.toml.

The file is looked for in the given directory and its parents; the first
``recordkit.toml``, or ``pyproject.toml`` with a ``[tool.recordkit]`` table,
wins.  Relative paths in it are relative to the file's folder.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .common.writes import OutputRefused  # noqa: F401  (raised there; importable here as before)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore


class ConfigError(Exception):
    """The configuration is unreadable or wrong (exit status 2)."""


KNOWN_KEYS = {"root", "checks", "schema", "site_title", "site_url", "cache_dir", "templates", "lint",
              "site", "max_file_size", "queries", "skip_dirs"}
#: the folders not walked when ``skip_dirs`` is not set: hidden ones (``.git``,
#: ``.obsidian``, ``.foam``, ...), ``_``-prefixed ones (``_templates``, a
#: site's ``_site``), and ``node_modules``.  A name pattern (fnmatch) matches
#: a folder's name; one with a ``/`` its path under the root.
DEFAULT_SKIP_DIRS = (".*", "_*", "node_modules")
#: the largest record file read when ``max_file_size`` is not set (4 MB)
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
LINT_KEYS = {"select", "ignore", "extend-select", "severity", "per-file-ignores", "exclude"}


@dataclass
class Config:
    base: Path                                   # folder of the config file (or cwd)
    file: Path | None = None
    root: Path = Path("records")
    checks: Path = Path("checks")
    schema: Path | str | None = None            # a schema file, or "preset:NAME"
    site_title: str = "recordkit"
    site_url: str | None = None
    cache_dir: Path = Path(".recordkit")
    templates: Path | None = None                # the user's page templates, searched first
    select: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)   # added to select (or to every rule), as in ruff
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE    # bytes; a larger file is RK109, not read
    skip_dirs: list[str] = field(default_factory=lambda: list(DEFAULT_SKIP_DIRS))   # folders not walked
    raw: dict = field(default_factory=dict)
    #: whether ``skip_dirs`` was settled against the schema and the vault's
    #: tool settings (:func:`recordkit.corpus.toolsettings.settle_walk`), and
    #: what those settings kept out of the walk (for messages)
    walk_settled: bool = False
    walk_notes: list = field(default_factory=list)
    #: where ``skip_dirs`` came from when the configuration does not set it:
    #: the schema layer that does (``preset:obsidian``), or "" (the default)
    skip_dirs_from: str = ""
    #: the schema's layers as parsed for this configuration (spec, layers):
    #: :func:`recordkit.schema.config_layers`
    schema_read: tuple | None = None


_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "K": 1 << 10, "MB": 1 << 20, "M": 1 << 20, "GB": 1 << 30, "G": 1 << 30}


def parse_size(value, what: str = "max_file_size") -> int:
    """A size in bytes: an integer, or a string such as ``"8MB"``, ``"512 KB"``
    (units are powers of 1024)."""
    import re
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a size such as 4000000 or \"8MB\", not {str(value).lower()}")
    if isinstance(value, int):
        n = value
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]?B?)\s*", str(value), re.I)
        if not m:
            raise ConfigError(f"{what} must be a size such as 4000000 or \"8MB\", not \"{value}\"")
        n = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if n < 1:
        raise ConfigError(f"{what} must be at least 1 byte")
    return n


def find_config_file(start: Path) -> tuple[Path | None, dict]:
    start = start.resolve()
    for folder in [start, *start.parents]:
        rk = folder / "recordkit.toml"
        if os.path.lexists(rk):
            # (a named pipe, a folder, a dangling link by that name is said by
            # _read, not passed over for the defaults)
            return rk, _read(rk)
        pp = folder / "pyproject.toml"
        if pp.is_file():
            data = _read(pp)
            table = _pyproject_table(pp, data)
            if table is not None:
                return pp, {"tool": {"recordkit": table}}
    return None, {}


def _pyproject_table(path: Path, data: dict) -> dict | None:
    """The ``[tool.recordkit]`` table of a pyproject.toml's ``data`` (None
    when it has none), or a ConfigError when ``tool`` or ``tool.recordkit``
    is there but no table (``tool = "x"``, ``recordkit = 5``: they were
    tracebacks, and ``recordkit = "abc"`` the unknown keys a, b, c)."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{_toml_where(path, 'tool', '')}: tool must be a table ([tool.recordkit] holds "
                          f"recordkit's configuration), not {_toml_show(tool)}")
    table = tool.get("recordkit")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{_toml_where(path, 'recordkit', 'tool')}: tool.recordkit must be a table "
                          f"([tool.recordkit], with keys such as root = \"records\"), not {_toml_show(table)}")
    return table


def _toml_show(value) -> str:
    """A TOML value as it is written (roughly): for messages."""
    import json
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (str, list)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            pass
    return str(value)


def _toml_where(path: Path, key: str, table: str) -> str:
    """``path:line:col`` of ``key =`` in the table ``table`` (its full
    name; "" the top level) of a TOML file, or ``path`` alone."""
    import re
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    current = ""
    key_re = re.compile(r"(\s*)([\"']?)" + re.escape(key) + r"\2\s*=")
    for n, line in enumerate(lines, 1):
        h = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if h:
            current = h.group(1)
            continue
        m = key_re.match(line)
        if m and current == table:
            return f"{path}:{n}:{len(m.group(1)) + 1}"
    return str(path)


def _read(path: Path) -> dict:
    from .common.reading import NotAFile, read_regular_file
    try:
        data = read_regular_file(path)
    except NotAFile as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except OSError as exc:
        link = f" (a symbolic link to {os.readlink(path)})" if os.path.islink(path) else ""
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}{link}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(f"{path}:{line}:{col}: not valid TOML: not UTF-8 (byte 0x{data[exc.start]:02x})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        import re
        # the position: the error's own fields where it has them (Python
        # 3.14, tomli 2.1), else the "(at line L, column C)" its text ends with
        if isinstance(getattr(exc, "lineno", None), int) and isinstance(getattr(exc, "colno", None), int) \
                and getattr(exc, "msg", None):
            raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: not valid TOML: {exc.msg}") from None
        m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc), re.S)
        if m:
            raise ConfigError(f"{path}:{m.group(2)}:{m.group(3)}: not valid TOML: {m.group(1)}") from None
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:      # tomllib reads nested arrays and tables by recursion
        raise ConfigError(f"{path}: cannot read: its values nest too deep (arrays or inline tables "
                          "hundreds of levels inside each other)") from None


def where(path: Path | None, key: str, table: str | None = None) -> str:
    """``path:line:col`` of ``key`` in the configuration file (in the table
    ``table`` when given: ``[lint]`` of recordkit.toml, ``[tool.recordkit.lint]``
    of pyproject.toml), or ``path`` alone where the key is not written as
    ``key =`` at the start of a line (a dotted key, an inline table)."""
    import re
    if path is None:
        return "configuration"
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    pyproject = path.name == "pyproject.toml"
    current = None if pyproject else ""          # the table of the lines read so far
    key_re = re.compile(r"(\s*)([\"']?)" + re.escape(key) + r"\2\s*=")
    for n, line in enumerate(lines, 1):
        h = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if h:
            name = h.group(1)
            if pyproject:
                current = (name[len("tool.recordkit"):].lstrip(".")
                           if name == "tool.recordkit" or name.startswith("tool.recordkit.") else None)
            else:
                current = name
            continue
        m = key_re.match(line)
        if m and current == (table or ""):
            return f"{path}:{n}:{len(m.group(1)) + 1}"
    return str(path)


def _unknown_keys(path: Path | None, keys: set, known: set, table: str | None, what: str) -> str:
    """The message for keys of the configuration that recordkit does not
    know: where the first is written (as ``key =`` or as the header of a
    table ``[key]``, where a misspelt ``[querys]`` is), and the closest
    known name of each, since a misspelt key is otherwise just ignored."""
    import difflib
    import re
    names = sorted(keys, key=str)
    at = where(path, names[0], table)
    if path is not None and at == str(path):
        # not written as ``key = ...``: the header of a table of that name
        prefix = ("tool.recordkit." if path.name == "pyproject.toml" else "") + (f"{table}." if table else "")
        header = re.compile(r"\s*\[+\s*" + re.escape(prefix + names[0]) + r"\s*[\].]")
        try:
            lines = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        for n, line in enumerate(lines, 1):
            if header.match(line):
                at = f"{path}:{n}:{len(line) - len(line.lstrip()) + 1}"
                break
    hints = []
    for name in names:
        close = difflib.get_close_matches(str(name), sorted(known), n=1, cutoff=0.6)
        if close:
            hints.append(f"{name} → {close[0]}" if len(names) > 1 else close[0])
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    return (f"{at}: unknown {what} key(s): {', '.join(map(str, names))}{hint}; the keys are "
            f"{', '.join(sorted(known))} (docs/configuration.md)")


def _path_value(table: dict, key: str, default: str, path: Path | None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value.strip():
        shown = f'"{value}"' if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else repr(value)
        raise ConfigError(f"{where(path, key)}: {key} must be the path of a folder, such as \"{default}\", not {shown}")
    return value


def _strings(value, key: str, path: Path | None, table: str, example: str, what: str | None = None) -> list[str]:
    """``value`` as a list of strings, or a ConfigError that says where
    (``key`` found in ``table``; ``what``: the name the message gives it)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{where(path, key, table)}: {what or key} must be a list of strings, such as {example}")


#: what a symbolic link loop is, in messages
LOOP = "is a symbolic link loop (a link that leads, through links, back to itself)"


def symlink_loop(path) -> bool:
    """Whether ``path`` cannot be followed because its links go round in
    a loop (``ln -s loop loop``): ``Path.resolve()`` raises RuntimeError
    there, and ``exists()`` says False, as for a path that is not there."""
    import errno
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    except ValueError:
        return False
    return False


def resolved_root(config: "Config") -> Path:
    """The record root of ``config``, absolute and with its links followed
    (as the loader names its files), or a ConfigError when it is a symbolic
    link loop."""
    root = Path(config.root)
    if symlink_loop(root):
        from .common.text import path_text
        at = where(config.file, "root") if config.file is not None and "root" in config.raw else None
        raise ConfigError(f"{at + ': ' if at else ''}record root {path_text(str(root))} {LOOP}; give the "
                          "record's folder with --root PATH, or set root = \"PATH\" in recordkit.toml")
    return root.resolve()


def _severity_where(path: Path | None, code: str) -> str:
    """Where the severity of ``code`` is written: its line in a
    ``[lint.severity]`` table, else the ``severity =`` line of ``[lint]``."""
    at = where(path, code, "lint.severity")
    return where(path, "severity", "lint") if at == str(path) else at


def code_lists(cfg: Config):
    """``(where, what, codes)`` of each list of rule codes or prefixes in the
    configuration's ``[lint]`` (``select``, ``extend-select``, ``ignore``,
    each ``per-file-ignores`` list, each ``severity`` key): what
    :func:`recordkit.lint.engine.check_codes` checks against the rules."""
    path = cfg.file
    for key, codes in (("select", cfg.select), ("extend-select", cfg.extend_select), ("ignore", cfg.ignore)):
        if codes:
            yield where(path, key, "lint"), key, list(codes)
    for pattern, codes in cfg.per_file_ignores.items():
        inline = where(path, pattern, "lint.per-file-ignores") == str(path)
        at = where(path, "per-file-ignores", "lint") if inline else where(path, pattern, "lint.per-file-ignores")
        yield at, f"per-file-ignores of {pattern}", list(codes)
    for code in cfg.severity:
        yield _severity_where(path, code), f"severity of {code}", [code]


def check_cache_dir(cfg: Config) -> None:
    """A ConfigError when the cache folder is the configuration's folder,
    the record root, the checks folder, or a folder holding any of them:
    the cache folder ignores itself in git (a ``.gitignore`` of ``*``), which
    there would hide the notes from git, and its files would mix with them."""
    try:
        cache = Path(cfg.cache_dir).resolve()
        guarded = [("the configuration's folder", Path(cfg.base).resolve()),
                   ("the record root", Path(cfg.root).resolve()),
                   ("the checks folder", Path(cfg.checks).resolve())]
    except (OSError, RuntimeError):      # a symlink loop: the commands say so where they read
        return
    if os.path.exists(cache) and not os.path.isdir(cache):
        from .common.text import path_text
        raise ConfigError(f"{where(cfg.file, 'cache_dir')}: cache_dir {path_text(str(cfg.cache_dir))} is not a "
                          f"folder: give a folder (it is made when missing), such as \".recordkit\"")
    for what, folder in guarded:
        if cache == folder or cache in folder.parents:
            from .common.text import path_text
            raise ConfigError(f"{where(cfg.file, 'cache_dir')}: cache_dir {path_text(str(cfg.cache_dir))} is or holds "
                              f"{what}: the cache ignores its folder in git (.gitignore: *), which would hide "
                              f"your notes; give it a folder of its own, such as \".recordkit\"")


def load_config(start: str | Path = ".", file: str | Path | None = None) -> Config:
    """Find and read the configuration for a record in or above ``start``."""
    start = Path(start)
    if file is not None:
        path = Path(file)
        data = _read(path)
    else:
        path, data = find_config_file(start if start.is_dir() else start.parent)
    if path is not None and path.name == "pyproject.toml":
        table = _pyproject_table(path, data) or {}
    else:
        table = data
    base = path.parent if path is not None else Path.cwd()
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(_unknown_keys(path, unknown, KNOWN_KEYS, None, "configuration"))
    cfg = Config(base=base, file=path, raw=table)

    def p(value) -> Path:
        q = Path(value)
        return q if q.is_absolute() else base / q

    cfg.root = p(_path_value(table, "root", "records", path))
    cfg.checks = p(_path_value(table, "checks", "checks", path))
    if table.get("schema"):
        value = table["schema"]
        if not isinstance(value, str):
            raise ConfigError(f"{where(path, 'schema')}: schema must be a string: the path of a schema file, "
                              f"or preset:NAME")
        # ``preset:NAME`` names a schema shipped with recordkit (checked when it loads)
        cfg.schema = value.strip() if value.strip().startswith("preset:") else p(value)
    for key in ("site_title", "site_url"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{where(path, key)}: {key} must be a string")
    cfg.site_title = table.get("site_title", cfg.site_title)
    cfg.site_url = table.get("site_url")
    cfg.cache_dir = p(_path_value(table, "cache_dir", ".recordkit", path))
    check_cache_dir(cfg)
    if table.get("templates") is not None:
        if not isinstance(table["templates"], str) or not table["templates"].strip():
            raise ConfigError(f"{where(path, 'templates')}: templates must be the path of a folder, such as "
                              f"\"templates\", not {_toml_show(table['templates'])}")
        cfg.templates = p(table["templates"])
    if "skip_dirs" in table:
        dirs = table["skip_dirs"]
        if not isinstance(dirs, list) or not all(isinstance(d, str) and d.strip() for d in dirs):
            raise ConfigError(f"{where(path, 'skip_dirs')}: skip_dirs must be a list of folder names or patterns, such as "
                              f"[\".*\", \"_*\", \"node_modules\"]")
        cfg.skip_dirs = [d.strip().rstrip("/") for d in dirs]
    if "max_file_size" in table:
        cfg.max_file_size = parse_size(table["max_file_size"], f"{where(path, 'max_file_size')}: max_file_size")
    for key in ("site", "queries"):       # (read by build and query; a value that is no table is wrong everywhere)
        if key in table and not isinstance(table[key], dict):
            raise ConfigError(f"{where(path, key)}: {key} must be a table ([{key}] in recordkit.toml, "
                              f"[tool.recordkit.{key}] in pyproject.toml)")
    lint = table.get("lint", {})         # (false, [], "" are no table either)
    if not isinstance(lint, dict):
        raise ConfigError(f"{where(path, 'lint')}: lint must be a table ([lint] in recordkit.toml, "
                          f"[tool.recordkit.lint] in pyproject.toml)")
    bad = set(lint) - LINT_KEYS
    if bad:
        raise ConfigError(_unknown_keys(path, bad, LINT_KEYS, "lint", "lint"))
    codes = '["RK203", "RK3"]'
    # (the codes themselves are checked against the rules by the lint stage:
    # recordkit.lint.engine.check_codes, which every command runs)
    cfg.select = _strings(lint.get("select", []), "select", path, "lint", codes)
    cfg.extend_select = _strings(lint.get("extend-select", []), "extend-select", path, "lint", codes)
    cfg.ignore = _strings(lint.get("ignore", []), "ignore", path, "lint", codes)
    severity = lint.get("severity", {})
    if not isinstance(severity, dict):
        raise ConfigError(f"{where(path, 'severity', 'lint')}: severity must be a table of code = \"error\", "
                          f"\"warning\" or \"info\", such as {{RK305 = \"error\"}}")
    cfg.severity = {}
    for code, sev in severity.items():
        if sev not in ("error", "warning", "info"):
            raise ConfigError(f"{_severity_where(path, code)}: severity of {code} must be error, warning or "
                              f"info, not {sev}")
        # a code or prefix, in any case, as select takes it (the most specific wins)
        cfg.severity[str(code)] = sev
    pfi = lint.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where(path, 'per-file-ignores', 'lint')}: per-file-ignores must be a table of "
                          f"pattern = [codes], such as {{\"lit/*\" = [\"RK203\"]}}")
    cfg.per_file_ignores = {}
    for k, v in pfi.items():
        # written in a [lint.per-file-ignores] table, or inline in [lint]
        inline = where(path, k, "lint.per-file-ignores") == str(path)
        cfg.per_file_ignores[str(k)] = _strings(v, "per-file-ignores" if inline else k, path,
                                                "lint" if inline else "lint.per-file-ignores", codes,
                                                f"per-file-ignores of {k}")
    cfg.exclude = _strings(lint.get("exclude", []), "exclude", path, "lint", '["drafts/*"]')
    return cfg
