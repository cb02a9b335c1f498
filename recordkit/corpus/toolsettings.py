"""What a vault's own tool says about its files, read from the tool's own
settings (docs/presets.md, "What the vault's tool keeps out"):

- folders the tool never treats as notes: Obsidian's template folders (the
  core Templates plugin's ``.obsidian/templates.json`` ``folder``, the
  Templater plugin's ``.obsidian/plugins/templater-obsidian/data.json``
  ``templates_folder``), which hold ``{{title}}`` placeholders, not notes,
  and its trash (``.trash/``, a hidden folder, never walked): not walked;
- notes the tool never publishes, which stay notes of the vault (linted):
  Quartz's ``ignorePatterns`` (``quartz.config.ts`` in the root or the
  folder above it, Quartz's ``content/`` layout) and Obsidian's "Excluded
  files" (``userIgnoreFilters`` of ``.obsidian/app.json``);
- how Obsidian shows a single line break: ``strictLineBreaks`` of
  ``.obsidian/app.json`` (a line break unless it is true).

Nothing here fails: a settings file that cannot be read or parsed says
nothing (the tool itself would fall back to its defaults).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

_QUARTZ_IGNORE_RE = re.compile(r"\bignorePatterns\s*:\s*\[([^\]]*)\]")
_TS_STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'|`([^`]*)`')
_TS_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
#: a settings file larger than this is no settings file (not read)
_MAX_SETTINGS = 1 << 20


@dataclass(frozen=True)
class ToolSettings:
    #: (root-relative folder, which setting names it) of each template folder
    template_folders: tuple = ()
    #: Quartz's ignorePatterns, and the file they were read from ("" if none)
    ignore_patterns: tuple = ()
    quartz_config: str = ""
    #: Obsidian's userIgnoreFilters (path prefixes, or /regular expressions/)
    user_ignore: tuple = ()
    #: whether the root holds Obsidian's trash folder (.trash/)
    trash: bool = False
    #: Obsidian's "Strict line breaks" (``strictLineBreaks`` of .obsidian/app.json; off when not said)
    strict_line_breaks: bool = False

    def unpublished(self, relpath: str) -> str | None:
        """Why the note at ``relpath`` (root-relative, with ``/``) is not
        published by its tool, or None."""
        for pat in self.ignore_patterns:
            if quartz_ignores(relpath, pat):
                return f'Quartz ignorePatterns "{pat}"'
        for flt in self.user_ignore:
            if obsidian_excludes(relpath, flt):
                return f'Obsidian excluded files "{flt}"'
        return None


def _read_json(path: Path):
    try:
        if not path.is_file() or path.stat().st_size > _MAX_SETTINGS:
            return None
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None


def _folder(value) -> str | None:
    """A folder setting as a root-relative path, or None (unset, the root
    itself, or a path that leaves the root)."""
    if not isinstance(value, str):
        return None
    parts = [p for p in value.replace("\\", "/").split("/") if p and p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def read_settings(root) -> ToolSettings:
    """The tool settings found in and (for Quartz) just above ``root``."""
    root = Path(root)
    templates = []
    core = _read_json(root / ".obsidian" / "templates.json")
    if isinstance(core, dict) and _folder(core.get("folder")):
        templates.append((_folder(core["folder"]), ".obsidian/templates.json"))
    templater = _read_json(root / ".obsidian" / "plugins" / "templater-obsidian" / "data.json")
    if isinstance(templater, dict) and _folder(templater.get("templates_folder")):
        folder = _folder(templater["templates_folder"])
        if folder not in [f for f, _ in templates]:
            templates.append((folder, "Templater's templates_folder"))
    app = _read_json(root / ".obsidian" / "app.json")
    user_ignore = ()
    if isinstance(app, dict) and isinstance(app.get("userIgnoreFilters"), list):
        user_ignore = tuple(f for f in app["userIgnoreFilters"] if isinstance(f, str) and f.strip())
    patterns, where = (), ""
    for folder in (root, root.parent):
        found = quartz_ignore_patterns(folder / "quartz.config.ts")
        if found is not None:
            patterns, where = tuple(found), str(folder / "quartz.config.ts")
            break
    strict = isinstance(app, dict) and app.get("strictLineBreaks") is True
    return ToolSettings(tuple(templates), patterns, where, user_ignore, (root / ".trash").is_dir(),
                        strict_line_breaks=strict)


def quartz_ignore_patterns(path: Path) -> list[str] | None:
    """The ``ignorePatterns`` of a ``quartz.config.ts`` (None when there is
    no such file or it names none)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_SETTINGS:
            return None
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = _QUARTZ_IGNORE_RE.search(_TS_COMMENT_RE.sub("", text))
    if not m:
        return None
    return [next(g for g in s.groups() if g is not None) for s in _TS_STRING_RE.finditer(m.group(1))]


def _glob_re(pattern: str) -> re.Pattern:
    """A glob as globby reads it: ``**`` any folders (none too), ``*`` and
    ``?`` within one name."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def quartz_ignores(relpath: str, pattern: str) -> bool:
    """Whether Quartz's ignore ``pattern`` leaves out the file at
    ``relpath``: the pattern names the file, or one of its folders (an
    ignored folder is not walked)."""
    pat = pattern.strip().strip("/")
    if not pat:
        return False
    rx = _glob_re(pat)
    parts = relpath.split("/")
    return any(rx.match("/".join(parts[:n])) for n in range(1, len(parts) + 1))


def obsidian_excludes(relpath: str, flt: str) -> bool:
    """Whether an entry of Obsidian's "Excluded files" covers ``relpath``:
    ``/…/`` a regular expression searched in the path, anything else a
    path prefix (``Archive/``, ``Daily``)."""
    if len(flt) > 2 and flt.startswith("/") and flt.endswith("/"):
        try:
            return re.search(flt[1:-1], relpath) is not None
        except re.error:
            return False
    return relpath.startswith(flt.lstrip("/"))


def settle_walk(config) -> None:
    """Settle which folders a walk of ``config``'s root leaves out, once:
    the configuration's ``skip_dirs`` when it sets it, else the schema's
    (a vault preset reads ``_`` folders, as the vault's tool does), else
    the default; and, whatever they are, the tool's template folders
    (``/Templates``: that folder of the root).  ``config.walk_notes``
    says what the tool's settings kept out, for messages."""
    if getattr(config, "walk_settled", True):
        return
    config.walk_settled = True
    if "skip_dirs" not in config.raw:
        from ..schema import config_layers, schema_skip_dirs
        layers, error = config_layers(config)      # (read once: the lint's schema and cache key reuse them)
        own, where = schema_skip_dirs(config.schema, layers) if error is None else (None, "")
        if own is not None:
            config.skip_dirs = list(own)
            config.skip_dirs_from = where
    try:
        root = Path(config.root).resolve()
    except (OSError, RuntimeError):
        return
    if not root.is_dir():
        return
    settings = read_settings(root)
    for folder, why in settings.template_folders:
        config.skip_dirs.append("/" + folder)
        config.walk_notes.append(f"{folder}/ (template folder, {why})")
    if settings.trash:
        config.walk_notes.append(".trash/ (Obsidian's trash)")


def walk_skipped_count(root, folder: str) -> int:
    """How many ``.md`` files the root-relative ``folder`` holds (for a
    message saying what was kept out)."""
    n = 0
    for _dir, _dirs, files in os.walk(os.path.join(str(root), folder)):
        n += sum(1 for f in files if f.endswith(".md"))
    return n


def quartz_config_file(root) -> str | None:
    """The ``quartz.config.ts`` of the vault at ``root`` (in it, or in the
    folder above it: Quartz's ``content/`` layout), or None: the mark of a
    vault Quartz publishes, whatever its settings say."""
    root = Path(root)
    for folder in (root, root.parent):
        if (folder / "quartz.config.ts").is_file():
            return str(folder / "quartz.config.ts")
    return None
