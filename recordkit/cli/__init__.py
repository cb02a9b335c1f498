"""The ``recordkit`` command: a thin click layer over the library.

Each command lives in its own module of this package and calls library
functions; it only parses options and prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import __version__
from ..config import ConfigError, load_config
from ..schema import SchemaError


class Context:
    """What every command shares: the configuration, and the corpus loaded once."""

    def __init__(self, root: str | None, config_file: str | None):
        self.root_opt = root
        self.config_file = config_file
        self._config = None
        self._corpus = None
        self._files = None

    def record_files(self) -> list:
        """The record's files, found once per command (the lint cache and
        the loader both need them)."""
        if self._files is None:
            from ..corpus.loader import iter_files
            root = Path(self.config.root).resolve()   # as the loader names them
            self._files = iter_files(root, self.config.exclude) if root.is_dir() else []
        return self._files

    @property
    def config(self):
        if self._config is None:
            start = Path(self.root_opt) if self.root_opt else Path.cwd()
            self._config = load_config(start if start.is_dir() else Path.cwd(), file=self.config_file)
            if self.root_opt:
                self._config.root = Path(self.root_opt).resolve()
        return self._config

    @property
    def corpus(self):
        return self.load_corpus()

    def load_corpus(self, **load_options):
        """The corpus, loaded on first use (``load_options`` go to
        :func:`recordkit.load` then, and are ignored once it is loaded)."""
        if self._corpus is None:
            import gc

            from ..corpus.loader import load
            # A command runs once over a corpus that lives until it exits.
            # The collector stays off while it loads (re-enabling it at the
            # end would walk every object just made, 0.15 s on a
            # 10,000-file record), and what loading made is then moved out
            # of its sight, or every later collection walks millions of
            # objects to find no garbage among them.
            was = gc.isenabled()
            gc.disable()
            try:
                self._corpus = load(self.config.root, config=self.config, files=self._files, **load_options)
            finally:
                gc.freeze()
                if was:
                    gc.enable()
        return self._corpus


pass_ctx = click.make_pass_decorator(Context)


def fast_exit(code: int = 0) -> None:
    """Exit without tearing down the loaded record: freeing millions of small
    objects one by one takes half a second on a large record, and every file
    a command writes is closed and renamed into place before this is called.
    ``RECORDKIT_CLEAN_EXIT=1`` (or running under coverage) exits normally."""
    import os
    sys.stdout.flush()
    sys.stderr.flush()
    if os.environ.get("RECORDKIT_CLEAN_EXIT") or "coverage" in sys.modules:
        sys.exit(code)
    os._exit(code)


#: command name -> module of this package that defines ``command``
COMMANDS = {name: name for name in ("lint", "check", "promote", "show", "graph", "rule")}
COMMANDS.update(new="new", rename="rename", merge="merge", query="query", export="export")


class Group(click.Group):
    """Imports a command's module only when that command runs (so `lint`
    does not pay for the lifecycle or numpy), and turns configuration and
    schema errors into exit status 2 with a message."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (ConfigError, SchemaError) as exc:
            click.echo(f"recordkit: configuration error: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:  # an output folder that does not exist, a full disk, ...
            where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
            click.echo(f"recordkit: {exc.strerror or exc}{where}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("recordkit: interrupted", err=True)
            sys.exit(130)

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name in self.commands:
            return self.commands[name]
        if name not in COMMANDS:
            return None
        import importlib
        mod = importlib.import_module(f".{COMMANDS[name]}", __name__)
        self.add_command(mod.command, name)
        return mod.command


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="recordkit")
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="Record root (default: from configuration, else ./records).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Configuration file (default: recordkit.toml or pyproject.toml found upwards).")
@click.pass_context
def main(ctx, root, config_file):
    """recordkit: lint, check, graph and publish a research record."""
    ctx.obj = Context(root, config_file)
