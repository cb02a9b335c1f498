"""``recordkit lsp``: the language server, on standard input/output (or a
TCP port on 127.0.0.1, for debugging)."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over standard input and output (the default).")
@click.option("--tcp", "port", type=click.IntRange(1, 65535), default=None, metavar="PORT",
              help="Listen on 127.0.0.1:PORT instead of standard input and output (for debugging).")
@click.option("--log-file", type=click.Path(dir_okay=False), default=None,
              help="Write the server's log to this file.")
def command(stdio, port, log_file):
    """Run the language server (diagnostics, completion, hover, … for an editor).

    The record is the one the configuration found from the client's
    workspace folder names (else from the current folder).  See docs/lsp.md.
    """
    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if port is None:
        # answered before pygls is imported; pygls still sees the client's initialize
        from ..lsp.handshake import answer_initialize
        stdin, stdout = answer_initialize(stdin, stdout)
    from ..lsp.preload import preload
    ahead = preload(Path.cwd())           # (forks: before the server starts any thread)
    from ..lsp.server import make_server
    server = make_server(Path.cwd(), preload=ahead)
    if port is not None:
        server.start_tcp("127.0.0.1", port)
    else:
        server.start_io(stdin, stdout)
