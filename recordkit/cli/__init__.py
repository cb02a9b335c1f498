"""The ``recordkit`` command: a thin click layer over the library.

Each command lives in its own module of this package and calls library
functions; it only parses options and prints.
"""
from __future__ import annotations

import errno
import sys
import click

from ..version import __version__
from ..common.writes import OutputRefused
from ..config import ConfigError
from ..schema import SchemaError
from .context import Context


def _lint():
    from . import lint
    return lint.command


def _check():
    from . import check
    return check.command


def _promote():
    from . import promote
    return promote.command


def _show():
    from . import show
    return show.command


def _graph():
    from . import graph
    return graph.command


def _rule():
    from . import rule
    return rule.command


def _build():
    from . import build
    return build.command


def _serve():
    from . import serve
    return serve.command


def _new():
    from . import new
    return new.command


def _rename():
    from . import rename
    return rename.command


def _merge():
    from . import merge
    return merge.command


def _query():
    from . import query
    return query.command


def _export():
    from . import export
    return export.command


def _init():
    from . import init
    return init.command


def _lsp():
    from . import lsp
    return lsp.command


#: command name -> a function that imports the command's module (of this
#: package) and returns its ``command``: a command's module is imported only
#: when it runs
COMMANDS = {"lint": _lint, "check": _check, "promote": _promote, "show": _show, "graph": _graph, "rule": _rule,
            "build": _build, "serve": _serve,
            "new": _new, "rename": _rename, "merge": _merge, "query": _query, "export": _export,
            "init": _init, "lsp": _lsp}


def _with_schema_file(ctx, message: str) -> str:
    """A schema error found after the schema loaded ("schema: field x of
    kind NOTE: ...") names the schema file the configuration gives."""
    if not message.startswith("schema: "):
        return message
    config = getattr(getattr(ctx, "obj", None), "_config", None)
    schema = getattr(config, "schema", None)
    if schema is None:
        return message
    from ..common.text import path_text
    return f"{path_text(str(schema))}: {message[len('schema: '):]}"


class Group(click.Group):
    """Imports a command's module only when that command runs (so `lint`
    does not pay for the lifecycle or numpy), and turns configuration and
    schema errors into exit status 2 with a message."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (ConfigError, SchemaError) as exc:
            click.echo(f"recordkit: configuration error: {_with_schema_file(ctx, str(exc))}", err=True)
            sys.exit(2)
        except OutputRefused as exc:
            click.echo(f"recordkit: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:  # an output folder that does not exist, a full disk, ...
            if exc.errno == errno.EPIPE:
                raise       # the reader went away (`| head`): click exits quietly, status 1
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
        command = COMMANDS[name]()
        self.add_command(command, name)
        return command


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
