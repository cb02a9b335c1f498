"""``recordkit serve``: the site on a local address, rebuilt on change."""
from __future__ import annotations

from pathlib import Path

import click

from .context import pass_ctx


@click.command("serve")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; another interface only when asked for.")
@click.option("-o", "--out", type=click.Path(file_okay=False), default=None,
              help="Folder to build into (default: a temporary folder).")
@click.option("--force", is_flag=True,
              help="Build into a non-empty --out folder that holds no recordkit site (its files of the site's "
                   "names are replaced).")
@pass_ctx
def command(ctx, port, host, out, force):
    """Serve the site locally, rebuild what changed, reload the open page."""
    import sys

    from ..emit.site.serve import SiteServer, default_out
    from ..emit.site.writer import Manifest, NotASite
    config = ctx.config
    # a root that is missing at the start is a configuration error (exit 2):
    # the server would otherwise run on, printing "watching failed" every second
    ctx.check_root()
    if out and not force:
        # as `build` does: a folder of other files is not written over unasked
        try:
            Manifest.read(Path(out))
        except NotASite as exc:
            click.echo(f"recordkit: {exc}", err=True)
            sys.exit(2)
    temporary = None if out else default_out(config)
    server = SiteServer(config, Path(out) if out else temporary, host=host, port=port,
                        log=lambda m: click.echo(m, err=True))
    # SIGTERM (a process manager, `kill`) stops the server as Ctrl-C does:
    # the same clean stop, exit status 0, the temporary site removed
    previous = _stop_on_sigterm()
    try:
        server.serve_forever()
    except OSError as exc:
        click.echo(f"recordkit: cannot serve on {host}:{port}: {exc.strerror or exc}", err=True)
        _remove(temporary)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        _restore(previous)
        _remove(temporary)


def _stop_on_sigterm():
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(_signum, _frame):
        raise KeyboardInterrupt
    return signal.signal(signal.SIGTERM, stop)


def _restore(previous) -> None:
    import signal
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _remove(folder) -> None:
    """The temporary site serve made (not a folder given with -o): removed
    when it stops.  A build thread may still be finishing a write: tried
    again for a moment."""
    import shutil
    import time
    if folder is None:
        return
    for _ in range(20):
        shutil.rmtree(folder, ignore_errors=True)
        if not Path(folder).exists():
            return
        time.sleep(0.1)
