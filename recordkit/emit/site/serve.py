"""``recordkit serve``: the site on a local address, rebuilt when the record,
its checks, the templates or the configuration change, with the open page
reloaded.

* The server binds 127.0.0.1 unless another host is asked for.  Bound to
  a loopback address it answers only requests whose ``Host`` names one
  (``localhost``, ``127.0.0.1``, ``[::1]``, ``*.localhost``): a web page
  elsewhere could otherwise point a name of its own at 127.0.0.1 (DNS
  rebinding) and read the served record through the visitor's browser.
* The records stay parsed in memory between rebuilds: a rebuild stats the
  files, parses the changed ones, and renders only the pages the change
  reaches (the manifest's dependency keys).  It runs in a builder thread;
  any failure is reported to the browser, never kills the server.
* Edits are debounced by watchfiles; an edit during a build cancels it (at
  the next page) and starts the next, which takes in both changes.
* When loading the record reports a file it cannot read (bad YAML, …) the
  site is left as it was (the last good pages) and every page shows the
  diagnostics, with file, line and column, until the file is fixed.
* Live reload: served HTML pages get ``<script src="/__rk/live.js">``, which
  polls ``/__rk/status.js`` (a script element, allowed by the pages' CSP)
  and reloads when a newer build is there.
"""
from __future__ import annotations

import http.server
import json
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from ...common.walk import walk as _walk_tree
from ...runtime.freshness import FileKey
from .state import BuildState

LIVE_JS = r"""(function () {
  "use strict";
  var me = document.currentScript, seen = null, box = null;
  window.RKLive = function (st) {
    if (seen === null) seen = st.build;
    if (st.error) {
      if (!box) {
        box = document.createElement("div");
        box.id = "rk-live-error";
        box.setAttribute("role", "alert");
        box.className = "rk-live-error";
        document.body.appendChild(box);
      }
      box.textContent = "";
      var h = document.createElement("strong");
      h.textContent = "recordkit serve: the record has errors; showing the last good build";
      var pre = document.createElement("pre");
      pre.textContent = st.error.join("\n");
      box.appendChild(h);
      box.appendChild(pre);
    } else if (box) {
      box.parentNode.removeChild(box);
      box = null;
    }
    if (st.build > seen && !st.error) location.reload();
  };
  function poll() {
    var s = document.createElement("script");
    s.src = "/__rk/status.js?t=" + Date.now();
    s.onload = s.onerror = function () { s.parentNode && s.parentNode.removeChild(s); };
    document.head.appendChild(s);
  }
  poll();
  setInterval(poll, 700);
})();
"""

LIVE_CSS = (".rk-live-error{position:fixed;left:12px;right:12px;bottom:12px;z-index:100;background:#fff0ef;"
            "color:#5c0a05;border:2px solid #b3261e;border-radius:8px;padding:10px 14px;max-height:45vh;"
            "overflow:auto;font:14px/1.45 system-ui,sans-serif}.rk-live-error pre{white-space:pre-wrap;margin:6px 0 0}")



def host_is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address, or a ``Host`` header: a name or an
    address and maybe a port) names this machine's loopback interface.  No
    header at all (HTTP/1.0) counts: a browser always sends one."""
    if host is None:
        return True
    h = host.strip().lower()
    if h.startswith("["):                       # [::1]:8000
        h = h[1:h.find("]")] if "]" in h else h[1:]
    elif h.count(":") == 1:                     # localhost:8000
        h = h.split(":", 1)[0]
    h = h.rstrip(".")
    if h == "localhost" or h.endswith(".localhost"):
        return True
    import ipaddress
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False

class Status:
    def __init__(self):
        self.lock = threading.Lock()
        self.build = 0
        self.error: list[str] | None = None
        self.last_seconds: float | None = None

    def js(self) -> str:
        with self.lock:
            data = {"build": self.build, "error": self.error}
        return "RKLive(" + json.dumps(data).replace("<", "\\u003c") + ");\n"


from .build import BuildCancelled as Cancelled   # a rebuild a newer change superseded


class SiteServer:
    """The site served from ``out`` and rebuilt in this process: the parsed
    records stay in memory (:class:`.load.RecordCache`) between rebuilds,
    and a rebuild parses only the files whose stat changed, then renders
    only the pages the change reaches (the manifest's dependency keys)."""

    def __init__(self, config, out: Path, host: str = "127.0.0.1", port: int = 8000, debounce_ms: int = 250,
                 log=print):
        self.config = config
        self.out = Path(out)
        self.host, self.port = host, port
        self.loopback_only = host_is_loopback(host)
        self.debounce_ms = debounce_ms
        self.log = log
        self.status = Status()
        self.stop = threading.Event()
        self.httpd = None
        # load diagnostics present at start (a duplicate id the record has
        # always had): they do not stop a rebuild; a new one does
        self.known: set | None = None
        self.cache = None
        #: what each build leaves for the next (the search index's joined
        #: postings, the standings and signatures of a graph kept, …)
        self.state = BuildState()
        self.pending = threading.Event()      # a change waits for a build
        self.cancel = threading.Event()       # the build running is superseded
        self.build_lock = threading.Lock()
        self.changed: set = set()
        self.changed_lock = threading.Lock()
        #: the time (time.perf_counter) of the earliest change the next build takes in
        self.change_seen: float | None = None
        #: the watched files' stat before the first build (see :meth:`snapshot`)
        self._snap: dict | None = None
        self._out = self.out.resolve()

    # -- building -----------------------------------------------------------------
    def _reload_config(self) -> None:
        from ...config import load_config
        root = self.config.root
        cfg = load_config(Path(self.config.base), file=self.config.file) if self.config.file else \
            load_config(Path(self.config.base))
        cfg.root = root
        self.config = cfg
        self.cache = None

    def build_once(self, changed: set | None = None, seen_at: float | None = None) -> dict:
        """One build, in this process (one batch: the collector is paused
        from the load to the pages written; it forks no helper while the
        server's and the watcher's threads run).  Returns {"ok", "summary" |
        "diagnostics", "seconds"}.  Raises :class:`Cancelled` when a newer
        change arrives meanwhile (the next build then does its work)."""
        from ...runtime import batch
        with batch():
            return self._build_once(changed, seen_at)

    def _build_once(self, changed: set | None, seen_at: float | None) -> dict:
        from ...common.paths import display_path
        from .build import build_site
        from .load import RecordCache
        t0 = time.perf_counter()
        if changed:
            # the configuration, or a file of the schema: read them again
            settings = {Path(self.config.file)} if self.config.file else set()
            settings |= set(self.schema_files())
            if any(Path(p) in settings for p in changed):
                self._reload_config()
        if self.cache is None:
            self.cache = RecordCache(self.config, Path(self.config.root).resolve(), self.state)
        corpus, parsed = self.cache.load()
        diags = [f"{display_path(d.path)}:{d.line}:{d.col}: {d.code} {d.message}" for d in corpus.diagnostics]
        if self.known is None:
            self.known = set(diags)
        new = [d for d in diags if d not in self.known]
        if new:
            return {"ok": False, "diagnostics": new, "seconds": time.perf_counter() - t0}
        if self.cancel.is_set():
            raise Cancelled()
        report = build_site(self.config, self.out, corpus=corpus, force=True, cancel=self.cancel.is_set,
                            resident=True, state=self.state)
        self.cache.save()
        now = time.perf_counter()
        return {"ok": True, "summary": report.summary(), "seconds": now - t0,
                "since_change": (now - seen_at) if seen_at is not None else None, "parsed": len(parsed)}

    def _record(self, result: dict) -> None:
        with self.status.lock:
            if result["ok"]:
                self.status.build += 1
                self.status.error = None
                self.status.last_seconds = result.get("since_change") or result["seconds"]
            else:
                self.status.error = result["diagnostics"]
        if result["ok"]:
            since = result.get("since_change")
            self.log(f"built in {result['seconds']:.2f} s" + (f" ({since:.2f} s after the change)" if since else "")
                     + f": {result['summary']}")
        else:
            self.log("the record has errors; the last good build is kept:\n  " + "\n  ".join(result["diagnostics"]))

    def rebuild(self, wait: bool = False) -> None:
        """Build now in this thread (``wait``), or ask the builder thread for a build."""
        if wait:
            with self.build_lock:
                self._run_one(None, None)
            return
        self.cancel.set()            # a build running is superseded
        self.pending.set()

    def notify(self, paths) -> None:
        """Changed paths (from the watcher): a build is due."""
        with self.changed_lock:
            self.changed.update(str(p) for p in paths)
            if self.change_seen is None:
                self.change_seen = time.perf_counter()
        self.rebuild()

    def _run_one(self, changed, seen_at) -> bool:
        self.cancel.clear()
        try:
            result = self.build_once(changed, seen_at)
        except Cancelled:
            self.log("rebuild superseded by a newer change")
            return False
        except Exception as exc:      # the server never dies of a bad file (or of a bug)
            from ...config import ConfigError
            from ...schema import SchemaError
            if isinstance(exc, (ConfigError, SchemaError)):
                # a configuration or schema being edited: its message, no traceback
                result = {"ok": False, "diagnostics": [f"configuration error: {exc}"], "seconds": 0}
            else:
                import traceback
                self.log(traceback.format_exc().rstrip())
                result = {"ok": False, "diagnostics": [f"the build failed: {type(exc).__name__}: {exc}"],
                          "seconds": 0}
        self._record(result)
        if result["ok"] and not self.pending.is_set():
            self._save_state()
        return True

    def _save_state(self) -> None:
        """What the builds keep in memory (the search index's joined
        postings) written to the cache folder, once a build is announced
        and no other waits: a ``recordkit build`` after the server is
        incremental too."""
        from .build import save_resident_state
        try:
            save_resident_state(self.state)
        except Exception as exc:     # a cache that cannot be written costs the next fresh build time, no more
            self.log(f"could not keep the search index's state: {exc}")

    def _builder(self) -> None:
        while not self.stop.is_set():
            if not self.pending.wait(0.2):
                continue
            self.pending.clear()
            with self.changed_lock:
                changed, self.changed = self.changed, set()
                seen_at, self.change_seen = self.change_seen, None
            with self.build_lock:
                if not self._run_one(changed, seen_at):
                    with self.changed_lock:   # superseded: its changes go with the next build
                        self.changed |= changed
                        if seen_at is not None and (self.change_seen is None or seen_at < self.change_seen):
                            self.change_seen = seen_at

    def schema_files(self) -> list[Path]:
        """The files the configured schema is made of (its ``extends:``
        chain; presets ship with recordkit), or none when it cannot be read
        now (the next build says why)."""
        from ...schema import SchemaError, is_preset, schema_layers
        if not self.config.schema:
            return []
        try:
            return [Path(name) for name, _, _ in schema_layers(self.config.schema)
                    if not is_preset(name) and Path(name).is_file()]
        except (SchemaError, OSError):
            spec = self.config.schema
            return [Path(spec)] if not is_preset(str(spec)) and Path(spec).is_file() else []

    def watch_paths(self) -> list[Path]:
        from .options import site_options
        paths = [Path(self.config.root)]
        try:
            templates = getattr(site_options(self.config), "templates", None)
        except Exception:        # a bad [site] table: the build reports it
            templates = None
        for p in (self.config.checks, self.config.file, templates, *self.schema_files()):
            if p and Path(p).exists():
                paths.append(Path(p))
        return paths

    def _keep(self, path: str) -> bool:
        """Whether a change of ``path`` matters: not a hidden or temporary
        file, nothing in the site's own folder or a ``__pycache__``."""
        p = Path(path)
        name = p.name
        return not (name.startswith(".") or name.endswith((".tmp", "~")) or self._out in p.parents
                    or "__pycache__" in p.parts)

    def snapshot(self) -> dict:
        """The stat (:class:`FileKey`) of every file the server watches: taken
        before the first build, and again once the watcher runs, so that an
        edit made while the server starts is built too (the watcher sees
        only what changes after it started)."""
        self._out = self.out.resolve()
        snap = {}
        for base in self.watch_paths():
            if base.is_file():
                walk = [(str(base.parent), [], [base.name])]
            else:
                walk = _walk_tree(base)
            for folder, dirs, files in walk:
                # hidden folders and the site's own are never read by a build
                dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"
                           and Path(folder, d).resolve() != self._out]
                for name in files:
                    path = os.path.join(folder, name)
                    if not self._keep(path):
                        continue
                    key = FileKey.at(path)
                    if key is not None:
                        snap[path] = key
        return snap

    def _catch_up(self) -> None:
        """The watcher runs: build what changed since the last snapshot."""
        before, self._snap = self._snap, self.snapshot()
        if before is None:
            return
        changed = {p for p in set(before) | set(self._snap) if before.get(p) != self._snap.get(p)}
        if changed:
            self.log("changed while the server started: " + ", ".join(sorted({Path(p).name for p in changed}))[:200])
            self.notify(changed)

    def _watch(self) -> None:
        import watchfiles
        self._out = self.out.resolve()

        def keep(change, path: str) -> bool:
            return self._keep(path)
        while not self.stop.is_set():
            try:
                # the first (empty) yield comes once the watch is set up: the
                # files are compared with the snapshot then
                first = True
                for changes in watchfiles.watch(*self.watch_paths(), watch_filter=keep, debounce=self.debounce_ms,
                                                step=50, stop_event=self.stop, raise_interrupt=False,
                                                yield_on_timeout=True, rust_timeout=400):
                    if first:
                        first = False
                        self._catch_up()
                    if not changes:
                        continue
                    self.log("changed: " + ", ".join(sorted({Path(p).name for _, p in changes}))[:200])
                    self.notify(p for _, p in changes)
            except Exception as exc:     # a watched folder removed, …: keep serving, watch again
                self.log(f"watching failed ({exc}); retrying")
                time.sleep(1)

    # -- serving ---------------------------------------------------------------------
    def handler(self):
        server = self

        from ...common.reading import read_fd

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=str(server.out), **kw)

            def log_message(self, *args):
                pass

            def end_headers(self):
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

            def _send(self, code: int, ctype: str, body: bytes):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_HEAD(self):
                self.do_GET()

            def do_GET(self):
                try:
                    if server.loopback_only and not host_is_loopback(self.headers.get("Host")):
                        return self._send(403, "text/plain; charset=utf-8",
                                          b"recordkit serve answers only requests for localhost or 127.0.0.1\n")
                    path = self.path.split("?", 1)[0].split("#", 1)[0]
                    if path == "/__rk/live.js":
                        return self._send(200, "text/javascript; charset=utf-8", LIVE_JS.encode())
                    if path == "/__rk/status.js":
                        return self._send(200, "text/javascript; charset=utf-8", server.status.js().encode())
                    if path == "/__rk/live.css":
                        return self._send(200, "text/css; charset=utf-8", LIVE_CSS.encode())
                    fs = Path(self.translate_path(path))
                    if fs.is_dir():
                        fs = fs / "index.html"
                    code = 200
                    opened = _open_served(server.out, fs)
                    if opened is None and fs.suffix != ".html":
                        # a Quartz or Obsidian Publish URL has no ".html" (docs/site.md, "URLs")
                        opened = _open_served(server.out, fs.with_name(fs.name + ".html"))
                        fs = fs.with_name(fs.name + ".html") if opened is not None else fs
                    if opened is None:
                        fs, code = server.out / "404.html", 404
                        opened = _open_served(server.out, fs)
                        if opened is None:
                            return self._send(404, "text/plain; charset=utf-8", b"not found (no build yet)")
                    fd, size = opened
                    try:
                        if fs.suffix == ".html":
                            text = read_fd(fd, size)[:size].decode("utf-8", "replace")
                            if code == 404:     # the page is written for the top: re-root it for this URL's depth
                                text = rebase_page(text, path.count("/") - 1)
                            inject = ('<link rel="stylesheet" href="/__rk/live.css">'
                                      '<script src="/__rk/live.js"></script>')
                            text = text.replace("</body>", inject + "</body>", 1)
                            return self._send(code, "text/html; charset=utf-8", text.encode("utf-8"))
                        self.send_response(code)
                        self.send_header("Content-Type", self.guess_type(str(fs)))
                        self.send_header("Content-Length", str(size))
                        self.end_headers()
                        if self.command != "HEAD":      # in pieces: the graph's index is tens of MB
                            left = size
                            while left > 0:
                                b = os.read(fd, min(left, 1 << 20))
                                if not b:
                                    break
                                self.wfile.write(b)
                                left -= len(b)
                    finally:
                        os.close(fd)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    def first_build(self) -> None:
        """The build serve starts with, in this thread, before any other
        thread (it may fork helpers); the watched files' stat is taken
        first, so an edit made from now on is built (see :meth:`_catch_up`)."""
        self.out.mkdir(parents=True, exist_ok=True)
        self._snap = self.snapshot()
        self.rebuild(wait=True)

    def serve_forever(self) -> None:
        self.first_build()
        self.httpd = http.server.ThreadingHTTPServer((self.host, self.port), self.handler())
        self.httpd.daemon_threads = True
        host, port = self.httpd.server_address[:2]
        self.log(f"serving http://{host}:{port}/ (Ctrl-C to stop)")
        threading.Thread(target=self._builder, daemon=True).start()
        watcher = threading.Thread(target=self._watch, daemon=True)
        watcher.start()
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self.stop.set()
            self.cancel.set()
            self.httpd.server_close()
            # the watcher leaves watchfiles' native loop within its step (50 ms)
            # once stop is set; a daemon thread still inside it when the
            # interpreter exits is unwound by force, and watchfiles 0.21 aborts
            # the process then ("FATAL: exception not rethrown", status -6)
            watcher.join(timeout=2)
            with self.build_lock:
                self._save_state()


#: a site-relative URL in an attribute (not ``#x``, ``/x``, ``//x`` nor ``scheme:x``)
_RELATIVE_ATTR = re.compile(r'(\s(?:href|src|data-root)=")(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)')


def rebase_page(text: str, depth: int) -> str:
    """A page written for the site's top (``404.html``: its links relative,
    ``data-root=""``) as it must be to answer a URL ``depth`` folders down
    (``/theory/THEORY-999.html``: 1): every relative ``href``, ``src`` and
    the ``data-root`` the page's script loads the search and previews from
    begin with ``../`` that many times."""
    if depth <= 0:
        return text
    return _RELATIVE_ATTR.sub(lambda m: m.group(1) + "../" * depth, text)


def _open_served(out: Path, fs: Path) -> tuple[int, int] | None:
    """``(descriptor, size)`` of the file at ``fs`` when it is a regular
    file inside the served folder ``out`` (links followed, but not out of
    it); None for anything else.  A named pipe is opened without waiting
    for a writer and refused, as is a device (a link to ``/dev/zero``
    would send without end): a request never holds a server thread."""
    from ...common.reading import open_regular
    try:
        real = os.path.realpath(fs)
        root = os.path.realpath(out)
        if os.path.commonpath([real, root]) != root:
            return None
        fd, st = open_regular(real)      # (NotAFile is an OSError)
    except (OSError, ValueError):
        return None
    return fd, st.st_size


def default_out(config) -> Path:
    return Path(tempfile.mkdtemp(prefix="recordkit-serve-"))
