"""Configuration: ``[tool.recordkit]`` in pyproject.toml, or recordkit.toml.

The file is looked for in the given directory and its parents; the first
``recordkit.toml``, or ``pyproject.toml`` with a ``[tool.recordkit]`` table,
wins.  Relative paths in it are relative to the file's folder.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore


class ConfigError(Exception):
    """The configuration is unreadable or wrong (exit status 2)."""


KNOWN_KEYS = {"root", "checks", "schema", "site_title", "site_url", "cache_dir", "templates", "lint", "check",
              "site", "max_file_size", "queries"}
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
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE    # bytes; a larger file is RK109, not read
    raw: dict = field(default_factory=dict)


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
        if rk.is_file():
            return rk, _read(rk)
        pp = folder / "pyproject.toml"
        if pp.is_file():
            data = _read(pp)
            table = data.get("tool", {}).get("recordkit")
            if table is not None:
                return pp, {"tool": {"recordkit": table}}
    return None, {}


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc


def load_config(start: str | Path = ".", file: str | Path | None = None) -> Config:
    """Find and read the configuration for a record in or above ``start``."""
    start = Path(start)
    if file is not None:
        path = Path(file)
        data = _read(path)
    else:
        path, data = find_config_file(start if start.is_dir() else start.parent)
    if path is not None and path.name == "pyproject.toml":
        table = data.get("tool", {}).get("recordkit", {})
    else:
        table = data
    base = path.parent if path is not None else Path.cwd()
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown configuration key(s): {', '.join(sorted(unknown))}")
    cfg = Config(base=base, file=path, raw=table)

    def p(value) -> Path:
        q = Path(value)
        return q if q.is_absolute() else base / q

    cfg.root = p(table.get("root", "records"))
    cfg.checks = p(table.get("checks", "checks"))
    if table.get("schema"):
        value = table["schema"]
        if not isinstance(value, str):
            raise ConfigError(f"{path}: schema must be a string: the path of a schema file, or preset:NAME")
        # ``preset:NAME`` names a schema shipped with recordkit (checked when it loads)
        cfg.schema = value.strip() if value.strip().startswith("preset:") else p(value)
    cfg.site_title = str(table.get("site_title", cfg.site_title))
    cfg.site_url = table.get("site_url")
    cfg.cache_dir = p(table.get("cache_dir", ".recordkit"))
    if table.get("templates") is not None:
        if not isinstance(table["templates"], str) or not table["templates"].strip():
            raise ConfigError(f"{path}: templates must be the path of a folder, not {table['templates']}")
        cfg.templates = p(table["templates"])
    if "max_file_size" in table:
        cfg.max_file_size = parse_size(table["max_file_size"], f"{path}: max_file_size")
    lint = table.get("lint", {}) or {}
    if not isinstance(lint, dict):
        raise ConfigError(f"{path}: [tool.recordkit.lint] must be a table")
    bad = set(lint) - LINT_KEYS
    if bad:
        raise ConfigError(f"{path}: unknown lint key(s): {', '.join(sorted(bad))}")
    cfg.select = list(lint.get("select", [])) + list(lint.get("extend-select", []))
    cfg.ignore = list(lint.get("ignore", []))
    cfg.severity = {str(k): str(v) for k, v in (lint.get("severity") or {}).items()}
    for code, sev in cfg.severity.items():
        if sev not in ("error", "warning", "info"):
            raise ConfigError(f"{path}: severity of {code} must be error, warning or info, not {sev}")
    cfg.per_file_ignores = {str(k): list(v) for k, v in (lint.get("per-file-ignores") or {}).items()}
    cfg.exclude = list(lint.get("exclude", []))
    return cfg
