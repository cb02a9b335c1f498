"""``recordkit init [FOLDER] [--infer] [--preset NAME]``: a configuration
and a schema for an existing folder of notes (docs/init.md)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..common.text import path_text
from .context import not_empty, pass_ctx


@click.command("init")
@click.argument("folder", required=False, type=click.Path(file_okay=False))
@click.option("--infer", is_flag=True,
              help="Infer kinds, statuses, field types, the id shape and the link style from the notes.")
@click.option("--preset", default=None, metavar="NAME",
              help="Start from a preset: obsidian, foam, dendron, madr, research (docs/presets.md).")
@click.option("--schema-file", default="recordkit.schema.yaml", show_default=True,
              callback=not_empty("schema file name"),
              help="Name of the schema file to write, beside recordkit.toml.")
@click.option("--dry-run", is_flag=True, help="Print what would be written, and write nothing.")
@pass_ctx
def command(ctx, folder, infer, preset, schema_file, dry_run):
    """Write recordkit.toml and a schema file for the notes in FOLDER.

    FOLDER is the record's folder (default: --root, else the current
    folder).  The files are written in the current folder, never over an
    existing file.  With --infer the schema is inferred from the notes and
    what was found is printed."""
    from ..config import ConfigError
    from ..schema import SchemaError, load_schema, preset_names
    from ..schema import infer as inferring
    folder = Path(folder or ctx.root_opt or ".")
    if not folder.is_dir():
        # (a typo in the name is the usual case: said as such, not as "not a folder")
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ConfigError(f"{path_text(str(folder))} {what}: give the folder that holds the notes")
    if preset is not None:
        preset = preset.removeprefix("preset:").strip()
        if preset not in preset_names():
            raise ConfigError(f"unknown preset {preset}: the presets are {', '.join(preset_names())}")
    here = Path.cwd()
    toml_path = here / "recordkit.toml"
    schema_path = here / schema_file
    if os.path.normcase(os.path.abspath(schema_path)) == os.path.normcase(os.path.abspath(toml_path)):
        # (the schema was written, then recordkit.toml "appeared while init ran")
        raise click.UsageError(f"--schema-file {path_text(schema_file)}: the schema file and "
                               "recordkit.toml would have the same name; give the schema another name, such "
                               "as recordkit.schema.yaml")
    if not schema_path.parent.is_dir():
        # (else the write failed naming its temporary file, ".x.yaml.tcfn4n36.tmp")
        raise click.UsageError(f"--schema-file {path_text(schema_file)}: the folder "
                               f"{path_text(os.path.dirname(schema_file))} does not exist; give a name beside "
                               "recordkit.toml, such as recordkit.schema.yaml")
    for p in (toml_path, schema_path):
        if p.exists() or p.is_symlink():
            raise ConfigError(f"{path_text(str(p))} exists: recordkit init never overwrites a file "
                              "(move it away, or edit it)")
    root_text = os.path.relpath(folder.resolve(), here.resolve()).replace(os.sep, "/")
    if preset is None:
        found = detect_tool(folder)
        if found is not None:
            preset, why = found
            click.echo(f"found {why}: the schema starts from preset:{preset} (--preset research, or another "
                       f"preset, to start elsewhere)")
    if infer:
        from ..markdown.links import body_tags
        inference = inferring.infer(_samples(folder, preset), preset=None if preset == "research" else preset,
                                    body_tags=body_tags)
        # the notes of each kind as the schema written will read them
        inference.count_kinds(_kind_counts(folder, preset, inference.schema_yaml()))
        schema_text = inference.schema_yaml()
        for line in inference.report():
            click.echo(line)
    else:
        schema_text = inferring.starter_yaml(preset)
    site = _site_keys(folder)
    title = _site_title(folder, here)
    if title:
        site = {"title": title, **site}
    toml_text = inferring.toml_text(root_text, schema_file, site=site)
    if dry_run:
        click.echo(f"--- {schema_file}\n{schema_text}--- recordkit.toml\n{toml_text}", nl=False)
        return
    written = []
    try:
        _create(schema_path, schema_text)
        written.append(schema_path)
        try:
            load_schema(schema_path)
        except SchemaError as exc:   # what init writes must load: say so rather than leave a broken file
            raise click.ClickException(f"the schema written does not load (a recordkit bug, please report it): {exc}")
        _create(toml_path, toml_text)
        written.append(toml_path)
    except BaseException:
        for p in written:
            try:
                p.unlink()
            except OSError:
                pass
        raise
    click.echo(f"Wrote {schema_file} and recordkit.toml (root = {root_text}); next: recordkit lint", err=True)


def _site_keys(folder: Path) -> dict:
    """The ``[site]`` keys the notes' own tool asks for: Quartz's URLs in a
    vault Quartz publishes (docs/site.md, "URLs"), so that the links to
    its pages keep working."""
    from ..corpus.toolsettings import quartz_config_file
    found = quartz_config_file(folder.resolve())
    if found:
        click.echo(f"found {path_text(os.path.relpath(found))} (Quartz): the site's pages are where Quartz puts them "
                   f"(site.urls = \"quartz\")")
        return {"urls": "quartz"}
    return {}


def _site_title(folder: Path, here: Path) -> str | None:
    """The site's title init writes: the name of the folder recordkit.toml
    is written in, or of the record's folder when that is elsewhere (what
    ``build`` takes when no title is set: emit.site.options.folder_title);
    None for a name that is no text (not UTF-8)."""
    root, here = folder.resolve(), here.resolve()
    name = (here if root == here or here in root.parents else root).name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return name or None


def detect_tool(folder: Path) -> tuple[str, str] | None:
    """(preset, what was found) when ``folder`` is plainly the notes of a
    tool a preset is for, its own marks first: a Dendron workspace's
    ``dendron.yml``, an Obsidian vault's ``.obsidian/``, a Foam
    workspace's ``.foam/`` or its recommended extension in
    ``.vscode/extensions.json``; then a ``dendron.yml`` above that lists
    the folder as a vault.  None when nothing says so (MADR leaves
    no such mark): the research record's schema, or what --infer finds."""
    from ..corpus.vaults import dendron_config, listed_vault
    # the folder's own marks first: a vault inside some other tool's
    # workspace is still of its own tool
    if (folder / "dendron.yml").is_file():
        return "dendron", f"{path_text(os.path.relpath(folder / 'dendron.yml'))} (a Dendron workspace)"
    if (folder / ".obsidian").is_dir():
        return "obsidian", f"{path_text(os.path.relpath(folder / '.obsidian'))}/ (an Obsidian vault)"
    if (folder / ".foam").is_dir():
        return "foam", f"{path_text(os.path.relpath(folder / '.foam'))}/ (a Foam workspace)"
    ext = folder / ".vscode" / "extensions.json"
    try:
        if ext.is_file() and ext.stat().st_size < 1_000_000 and "foam.foam-vscode" in ext.read_text("utf-8", "replace"):
            return "foam", f"{path_text(os.path.relpath(ext))} recommending Foam (a Foam workspace)"
    except OSError:
        pass
    # a dendron.yml above: only when it lists this folder as one of its vaults
    cfg = dendron_config(folder)
    if cfg is not None and listed_vault(cfg, folder) is not None:
        return "dendron", f"{path_text(os.path.relpath(cfg))} listing {path_text(str(folder))} (a Dendron vault)"
    # no mark (most public vaults leave .obsidian/ out of git): the notes' own shape
    from ..corpus.sniff import sniff_tool
    return sniff_tool(folder)


def _samples(folder: Path, preset: str | None = None):
    """One :class:`~recordkit.schema.infer.Sample` per file of ``folder``,
    read by the loader (every file, those it could not read included)."""
    from ..config import Config
    from ..corpus.identity import first_h1
    from ..corpus.loader import load
    from ..schema import load_schema
    from ..schema.infer import Sample
    # read with the research schema whatever the preset: it requires front
    # matter, so a file without one comes back with none (and is counted)
    # (the folders walked are the preset's: a vault preset reads `_` folders)
    config = Config(base=Path.cwd(), root=folder, schema=f"preset:{preset}" if preset else None)
    corpus = load(folder, config=config, schema=load_schema(None))
    # why a file could not be read (not why it has no front matter: that is a note with no fields)
    problems: dict = {}
    for d in corpus.diagnostics:
        if d.code in UNREADABLE and not (d.code == "RK101" and d.message.startswith("no YAML front matter")):
            problems.setdefault(str(d.path), f"{d.code} {d.message}")
    for rec in corpus.files:
        body = rec.body if rec.text else ""
        yield Sample(rec.relpath, rec.meta if rec.ok else None, body, first_h1(body, rec.code) if body else None,
                     None if rec.ok else problems.get(str(rec.path)))


def _kind_counts(folder: Path, preset: str | None, schema_text: str) -> dict:
    """kind -> the notes of ``folder`` of that kind under the schema
    ``schema_text`` (what init is about to write), read by the loader as
    lint will read them: notes without front matter, pages (of no kind) and
    the default kind as the schema says.  Empty when the text does not load
    (init then says so, writing it)."""
    from collections import Counter

    import yaml

    from ..config import Config
    from ..corpus.loader import load
    from ..schema import SchemaError, load_schema, schema_layers
    try:
        data = yaml.safe_load(schema_text)
        layers = (schema_layers(data["extends"]) if data.get("extends") else []) + [("inferred", schema_text, data)]
        schema = load_schema("inferred", layers=layers)
    except (SchemaError, yaml.YAMLError):
        return {}
    config = Config(base=Path.cwd(), root=folder, schema=f"preset:{preset}" if preset else None)
    corpus = load(folder, config=config, schema=schema)
    return dict(Counter(rec.kind for rec in corpus.files if rec.kind))


#: the codes of a file that could not be read (RK101: a front matter not closed)
UNREADABLE = ("RK101", "RK102", "RK103", "RK104", "RK109")


def _create(path: Path, text: str) -> None:
    """Write ``path`` whole, atomically, only if it does not exist: the text
    goes to a temporary file that is then linked into place (a link fails
    when the name is taken, where a rename would replace)."""
    import tempfile
    from ..common.writes import fsync_dir
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise click.ClickException(f"{path_text(str(path))} appeared while init ran: not overwritten")
        except OSError:   # a file system without hard links: create exclusively
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            try:
                out = os.open(path, flags, 0o666)
            except FileExistsError:
                raise click.ClickException(f"{path_text(str(path))} appeared while init ran: not overwritten")
            with os.fdopen(out, "wb") as fh:
                fh.write(text.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
        fsync_dir(path.parent)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _umask() -> int:
    from ..common.writes import umask
    return umask()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
