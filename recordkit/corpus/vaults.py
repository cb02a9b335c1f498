"""Dendron vaults: the ``dendron.yml`` of the workspace a vault belongs
to, the names it gives the vault, and the cross-vault links
(``[[dendron://vault/note.name]]``) that name a note of a vault.

A note of another vault is not loaded, so a link into it is no record link
(the resolver answers ``by == "vault"``); a link into the vault loaded is
looked for as ``[[note.name]]`` is.  The lint's cache and the query
database key on :func:`dendron_config_bytes`, since the vault's name decides
which cross-vault links name its notes.
"""
from __future__ import annotations

from pathlib import Path

#: how a Dendron cross-vault link starts: ``dendron://vault/note.name``
XVAULT = "dendron://"


def xvault_parts(text: str) -> tuple[str, str] | None:
    """``(vault, note)`` of a Dendron cross-vault link's target
    (``dendron://vault/note.name``), or None for any other link."""
    if not text.startswith(XVAULT):
        return None
    vault, sep, note = text[len(XVAULT):].partition("/")
    note = note.strip()
    if not sep or note.startswith(XVAULT):
        # (Dendron does not nest them; resolving the note part as a link
        # again recursed once per prefix: 600 of them stopped lint)
        return None
    return vault.strip(), note


def dendron_config(root: Path | None) -> Path | None:
    """The ``dendron.yml`` of the Dendron workspace ``root`` is a vault of:
    in ``root`` or the nearest folder above it that has one (Dendron keeps
    it at the workspace's top, the vaults in folders under it), or None."""
    if root is None:
        return None
    try:
        here = Path(root).resolve()
    except OSError:
        return None
    for folder in (here, *here.parents):
        cfg = folder / "dendron.yml"
        if cfg.is_file():
            return cfg
    return None


def dendron_config_bytes(root: Path | None) -> bytes:
    """The bytes of :func:`dendron_config` (or a word for none): what the
    caches of answers that read it (the lint's, the query database's) key
    on, as they key on the records' files."""
    cfg = dendron_config(root)
    if cfg is None:
        return b"no dendron.yml"
    try:
        return cfg.read_bytes()
    except OSError:
        return b"unreadable dendron.yml"


def vault_names(root: Path | None) -> frozenset[str]:
    """The names a cross-vault link gives the vault at ``root``: the
    ``name`` of the entry of ``dendron.yml``'s ``workspace.vaults`` (or the
    older top-level ``vaults``) whose ``fsPath`` (under its ``workspace``
    when it has one) is ``root``, else the last part of that ``fsPath``,
    as Dendron names a vault; with no ``dendron.yml`` that lists it, the
    root folder's name.  Read at each call: a resolver asks once, at its
    first cross-vault link (:class:`recordkit.corpus.resolve.Resolver`)."""
    if root is None:
        return frozenset()
    cfg = dendron_config(root)
    here = Path(root).resolve()
    entry = listed_vault(cfg, here) if cfg is not None else None
    if entry is None:
        return frozenset([here.name])
    name = entry.get("name")
    return frozenset([name if isinstance(name, str) and name.strip() else Path(entry["fsPath"]).name])


def listed_vault(cfg: Path, folder: Path) -> dict | None:
    """The entry of ``dendron.yml`` (at ``cfg``) whose ``fsPath`` (under its
    ``workspace`` when it has one) is ``folder``: in ``workspace.vaults``,
    or the older top-level ``vaults``; None when it lists no such vault."""
    import yaml
    try:
        here = Path(folder).resolve()
        data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None
    ws = data.get("workspace") if isinstance(data, dict) else None
    vaults = (ws.get("vaults") if isinstance(ws, dict) else None) or \
        (data.get("vaults") if isinstance(data, dict) else None)
    for v in vaults if isinstance(vaults, list) else ():
        fs = v.get("fsPath") if isinstance(v, dict) else None
        if not isinstance(fs, str) or not fs.strip():
            continue
        where = cfg.parent / v["workspace"] / fs if isinstance(v.get("workspace"), str) else cfg.parent / fs
        try:
            if where.resolve() == here:
                return v
        except OSError:
            continue
    return None
