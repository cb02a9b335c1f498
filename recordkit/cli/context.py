"""What every command shares: the configuration, the corpus loaded once,
and the fast exit."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..common.text import path_text
from ..config import LOOP, ConfigError, load_config, symlink_loop


class Context:
    """What every command shares: the configuration, and the corpus loaded once."""

    def __init__(self, root: str | None, config_file: str | None):
        self.root_opt = root
        self.config_file = config_file
        self._config = None
        self._corpus = None
        self._files = None
        #: load through the store of parsed records (``lint --no-cache`` turns it off)
        self.use_store = True

    def record_files(self) -> list:
        """The record's files, found once per command (the lint cache and
        the loader both need them)."""
        if self._files is None:
            from ..corpus.loader import iter_files
            root = Path(self.config.root).resolve()   # as the loader names them
            self._files = iter_files(root, self.config.exclude, self.config.skip_dirs) if root.is_dir() else []
        return self._files

    @property
    def config(self):
        if self._config is None:
            start = Path(self.root_opt) if self.root_opt else Path.cwd()
            self._config = load_config(start if start.is_dir() else Path.cwd(), file=self.config_file)
            if self.root_opt:
                if symlink_loop(self.root_opt):
                    self._config.root = Path(self.root_opt)
                    raise ConfigError(self._root_message(self._config))
                self._config.root = Path(self.root_opt).resolve()
                from ..config import check_cache_dir
                check_cache_dir(self._config)
            cfg = self._config
            if cfg.select or cfg.extend_select or cfg.ignore or cfg.severity or cfg.per_file_ignores:
                # codes that name no rule: a configuration error for every command, as for lint
                from ..lint.engine import check_codes
                check_codes(cfg)
            if not symlink_loop(self._config.root):
                # the folders the walk leaves out: the schema's (a vault
                # preset reads `_` folders) and the vault tool's templates
                from ..corpus.toolsettings import settle_walk
                settle_walk(self._config)
            if symlink_loop(self._config.root):
                # every command that reads the configuration would trip on it
                # (Path.resolve() raises RuntimeError), or say "does not exist"
                raise ConfigError(self._root_message(self._config))
        return self._config

    @property
    def corpus(self):
        return self.load_corpus()

    def load_corpus(self, **load_options):
        """The corpus, loaded on first use (``load_options`` go to
        :func:`recordkit.load` then, and are ignored once it is loaded)."""
        if self._corpus is None:
            self.check_root()
            from ..corpus.loader import load
            from ..runtime import batch
            # A command runs once over a corpus that lives until it exits.
            # The collector stays off while it loads (re-enabling it at the
            # end would walk every object just made), and what loading made is then moved out
            # of its sight, or every later collection walks millions of
            # objects to find no garbage among them.
            with batch(keep_frozen=True):
                load_options.setdefault("store", self.use_store)
                self._corpus = load(self.config.root, config=self.config, files=self._files, **load_options)
        return self._corpus

    def deferred_store(self):
        """A store of parsed records to load through
        (``load_corpus(store=...)``) that the command saves itself, when the
        other core is busy (``store.save()``); None when the store is off."""
        if not self.use_store:
            return None
        from ..corpus.store import RecordStore
        return RecordStore(self.config, Path(self.config.root).resolve())

    def check_root(self) -> None:
        """A record root that is not a folder is a configuration error that
        says where the root came from and how to give another."""
        config = self.config
        if Path(config.root).is_dir():
            return
        raise ConfigError(self._root_message(config))

    def _root_message(self, config) -> str:
        """Why the record root of ``config`` cannot be read (it is not a
        folder), where it came from, and how to give another."""
        root = Path(config.root)
        if self.root_opt:
            origin = f"given by --root {path_text(self.root_opt)}"
        elif config.file is not None and "root" in config.raw:
            origin = f"set by root = in {path_text(str(config.file))}"
        elif config.file is not None:
            origin = f"the default, as {path_text(str(config.file))} sets no root ="
        else:
            origin = "the default, as no recordkit.toml or pyproject.toml [tool.recordkit] was found"
        what = LOOP if symlink_loop(root) else "does not exist" if not root.exists() else "is not a folder"
        init = ""
        if config.file is None and not self.root_opt:
            # a folder of notes with no configuration: the first thing to run is init
            init = ("; for a folder of notes you already have (an Obsidian, Foam or Dendron vault, a MADR "
                    "log), run `recordkit init --infer .` to write a configuration for it")
        return (f"record root {path_text(str(root))} {what} ({origin}); give the record's folder "
                "with --root PATH, or set root = \"PATH\" in recordkit.toml "
                f"(or in [tool.recordkit] of pyproject.toml){init}")


pass_ctx = click.make_pass_decorator(Context)


def echo_data(text: str, nl: bool = False) -> None:
    """Data a command prints (a diff, CSV, JSON): to a pipe or a file its
    exact text (``click.echo`` strips ANSI escape sequences there: an
    escape in a record's title or body was lost from a patch or a CSV); to
    a terminal, nothing in it that acts on the terminal."""
    if sys.stdout.isatty():
        from ..common.text import terminal_safe
        click.echo(terminal_safe(text), nl=nl)
    else:
        click.echo(text, nl=nl, color=True)     # (color=True: nothing stripped)


def fast_exit(code: int = 0) -> None:
    """Exit without tearing down the loaded record: freeing millions of small
    objects one by one takes half a second on a large record, and every file
    a command writes is closed and renamed into place before this is called.
    ``RECORDKIT_CLEAN_EXIT=1`` (or running under coverage) exits normally."""
    import os
    from ..runtime import reap_helpers
    sys.stdout.flush()
    sys.stderr.flush()
    # the helpers that are still being taken down (they are done by now):
    # reaped, so what they cost counts in this process's children's usage
    reap_helpers()
    if os.environ.get("RECORDKIT_CLEAN_EXIT") or "coverage" in sys.modules:
        sys.exit(code)
    os._exit(code)


def not_empty(what: str, blank: bool = True):
    """A click callback that refuses an empty argument (``blank``: or one of
    blanks only; a file may be named " ") with a usage error, exit 2: a
    script's ``recordkit show "$ID"`` with ``$ID`` unset names no record
    (``lint ""`` would lint everything, ``show ""`` say that a record ""
    is missing)."""
    def check(ctx, param, value):
        values = value if isinstance(value, tuple) else (value,)
        if any(v is not None and not (v.strip() if blank else v) for v in values):
            raise click.BadParameter(f"an empty {what}", ctx=ctx, param=param)
        return value
    return check
