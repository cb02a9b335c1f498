"""The layers a schema is made of: the default schema (``default.yaml``
beside this module), the presets shipped in ``presets/``, and the user's
file with what its ``extends:`` names, each merged over the one before
(:func:`load_schema`); and the texts that make a schema's cache key."""
from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path

import yaml

from ..config import symlink_loop
from .model import Schema
from .validate import SchemaError, _show

try:  # the C loader is several times faster
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader  # type: ignore


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


PRESET_PREFIX = "preset:"


def default_schema_raw() -> dict:
    text = resources.files("recordkit.schema").joinpath("default.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=SafeLoader)


def preset_names() -> list[str]:
    """The presets shipped with recordkit (``recordkit/schema/presets/NAME.yaml``)."""
    folder = resources.files("recordkit.schema").joinpath("presets")
    try:
        return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))
    except (OSError, FileNotFoundError):  # pragma: no cover - a broken install
        return []


def is_preset(spec) -> bool:
    return isinstance(spec, str) and spec.startswith(PRESET_PREFIX)


def _preset_text(spec: str) -> str:
    name = spec[len(PRESET_PREFIX):].strip()
    names = preset_names()
    if name not in names:
        raise SchemaError(f"unknown preset {_show(spec)}: the presets are "
                          f"{', '.join(PRESET_PREFIX + n for n in names) or 'none'}")
    return resources.files("recordkit.schema").joinpath("presets", name + ".yaml").read_text(encoding="utf-8")


def _layer(spec, where: str) -> tuple[str, str, dict]:
    """(name, text, mapping) of one schema file or preset."""
    if is_preset(spec):
        text = _preset_text(spec)
        name = spec.strip()
    else:
        p = Path(spec)
        name = str(p)
        from ..common.reading import NotAFile, read_regular_file
        try:
            text = read_regular_file(p).decode("utf-8")
        except NotAFile as exc:     # a named pipe would hang the read, /dev/zero never end it
            raise SchemaError(f"{p}: cannot read the schema file{where}: {exc}") from None
        except OSError as exc:
            # (the reason alone: the exception's own text repeats the path)
            raise SchemaError(f"{p}: cannot read the schema file{where or ' (the configuration names it: schema = ...)'}"
                              f": {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise SchemaError(f"{p}: cannot read the schema file{where}: it is not UTF-8 text ({exc.reason} at "
                              f"byte {exc.start})") from exc
    # as a front matter is read: nesting too deep for the C composer (which
    # would kill the process), and aliases that expand without bound, are
    # refused before anything walks them
    from ..markdown.yamlguard import AliasBomb, compose
    try:
        loader, node = compose(text, SafeLoader)
        try:
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise SchemaError(f"{name}: the schema file is not valid YAML: {exc}") from exc
    except AliasBomb as exc:
        mark = exc.node.start_mark
        what = str(exc).replace("front matter", "the schema file", 1)
        raise SchemaError(f"{name}:{mark.line + 1}:{mark.column + 1}: {what}") from None
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        raise SchemaError(f"{name}: the schema file cannot be read: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SchemaError(f"{name}: the schema file must be a mapping")
    return name, text, data


def schema_layers(spec) -> list[tuple[str, str, dict]]:
    """The files a schema is made of, the base first: ``spec`` (a path or
    ``preset:NAME``) and what its ``extends:`` names, transitively.  Each is
    (name, text, mapping).  The default schema is not listed."""
    chain = []
    seen = set()
    where = ""
    while spec is not None:
        if not is_preset(spec) and symlink_loop(spec):
            raise SchemaError(f"{spec}: cannot read the schema file{where}: it is a symbolic link loop (a link "
                              "that leads, through links, back to itself)")
        key = spec.strip() if is_preset(spec) else str(Path(spec).resolve())
        if key in seen:
            raise SchemaError(f"extends: {' -> '.join(n for n, _, _ in reversed(chain))} -> {spec} goes round "
                              "in a circle")
        seen.add(key)
        name, text, data = _layer(spec, where)
        chain.append((name, text, data))
        ext = data.get("extends")
        if ext is None:
            break
        if not isinstance(ext, str) or not ext.strip():
            raise SchemaError(f"{name}: extends must name a preset (preset:NAME) or a schema file, "
                              f"not {_show(ext)}")
        if is_preset(ext):
            spec = ext.strip()
        else:
            base = Path(name).parent if not is_preset(name) else Path.cwd()
            q = Path(ext)
            spec = q if q.is_absolute() else base / q
        where = f" (named by extends: in {name})"
    return list(reversed(chain))


def config_layers(config) -> tuple[list | None, SchemaError | None]:
    """(:func:`schema_layers` of ``config.schema``, or None and the error
    reading them raised), parsed once for this ``config`` and kept on it
    (``config.schema_read``): the walk's ``skip_dirs``, the lint cache's
    key and the schema are made from one parse.  What is kept is used only
    while each file of it holds the text it had (read again, not parsed; a
    preset is part of the package); an error is not kept."""
    spec = config.schema
    if not spec:
        return None, None
    key = str(spec)
    got = getattr(config, "schema_read", None)
    if got is not None and got[0] == key and _unchanged(got[1]):
        return got[1], None
    try:
        layers = schema_layers(spec)
    except SchemaError as exc:
        config.schema_read = None
        return None, exc
    config.schema_read = (key, layers)
    return layers, None


def _unchanged(layers) -> bool:
    """Whether each file of ``layers`` holds the text it was read with."""
    for name, text, _data in layers:
        if is_preset(name):
            continue
        try:
            if Path(name).read_bytes() != text.encode("utf-8"):
                return False
        except OSError:
            return False
    return True


def schema_fingerprint_texts(spec, layers: list | None = None) -> list:
    """The texts of every file the schema ``spec`` is made of (for a cache
    key): a changed base file changes it.  ``layers``: its
    :func:`schema_layers`, when the caller has read them."""
    if spec is None:
        return []
    try:
        return [[name, text] for name, text, _ in (layers if layers is not None else schema_layers(spec))]
    except SchemaError as exc:
        return [["<error>", str(exc)]]


def schema_skip_dirs(spec, layers: list | None = None) -> tuple[tuple[str, ...] | None, str]:
    """The ``skip_dirs`` the schema ``spec`` sets (the last of its layers
    that says, unless a later one starts afresh with ``replace: true``), or
    None: what the walk leaves out when the configuration does not say; and
    the name of the layer that set it (``preset:obsidian``, a file), or "".
    Read without making the whole schema (a bad one is said elsewhere)."""
    from .validate import skip_dirs
    if not spec:
        return None, ""
    try:
        found, where = None, ""
        for name, _text, data in (layers if layers is not None else schema_layers(spec)):
            if data.get("replace") is True:
                found, where = None, ""
            if "skip_dirs" in data:
                found, where = skip_dirs(data), name
        return found, where
    except SchemaError:
        return None, ""


def load_schema(path: str | Path | None = None, layers: list | None = None) -> Schema:
    """The default schema, with the user file at ``path`` merged over it.

    ``path`` may also be ``preset:NAME``, a schema shipped in
    ``recordkit/schema/presets/``.  A file (or preset) that says
    ``extends: preset:NAME`` (or ``extends: FILE``) is merged over that one,
    which is merged over the default schema; ``replace: true`` in a file
    starts it from an empty schema instead of what it extends.  ``layers``:
    :func:`schema_layers` of ``path``, when the caller has read them (they
    are not changed)."""
    raw = default_schema_raw()
    source = "default"
    if path:
        for name, _text, user in (layers if layers is not None else schema_layers(path)):
            user = dict(user)
            user.pop("extends", None)
            replace = user.pop("replace", False)
            if replace not in (True, False):
                raise SchemaError(f"{name}: replace must be true or false, not {_show(replace)}")
            # (_merge copies what it takes; a layer the caller keeps is copied whole)
            raw = (copy.deepcopy(user) if layers is not None else user) if replace else _merge(raw, user)
        source = str(path)
    try:
        return Schema(raw, source=source)
    except SchemaError as exc:
        if path and source not in str(exc):
            raise SchemaError(f"{source}: {exc}") from None
        raise
