"""``recordkit serve``: the site on a local address, rebuilt when the record,
its checks, the templates or the configuration change, with the open page
reloaded.

* The server binds 127.0.0.1 unless another host is asked for.
* Each rebuild runs ``build_site`` in a child process (so the server never
  dies of a bad file, and a rebuild superseded by a newer edit is simply
  killed); the manifest makes that fresh process incremental.
* Edits are debounced by watchfiles; an edit during a build cancels it and
  starts the next.
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
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

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


class SiteServer:
    def __init__(self, config, out: Path, host: str = "127.0.0.1", port: int = 8000, debounce_ms: int = 250,
                 log=print):
        self.config = config
        self.out = Path(out)
        self.host, self.port = host, port
        self.debounce_ms = debounce_ms
        self.log = log
        self.status = Status()
        self.proc: subprocess.Popen | None = None
        self.proc_lock = threading.Lock()
        self.stop = threading.Event()
        self.httpd = None
        # load diagnostics present at start (a duplicate id the record has
        # always had): they do not stop a rebuild; a new one does
        self.known: set | None = None

    # -- building -----------------------------------------------------------------
    def _child_cmd(self) -> list[str]:
        cmd = [sys.executable, "-m", "recordkit.emit.site.serve", "--child", "--root", str(self.config.root),
               "--out", str(self.out)]
        if self.config.file:
            cmd += ["--config", str(self.config.file)]
        if self.known is not None:
            cmd += ["--known", json.dumps(sorted(self.known))]
        return cmd

    def rebuild(self, wait: bool = False) -> None:
        """Start a build, killing one still running (it is superseded)."""
        with self.proc_lock:
            old = self.proc
            if old is not None and old.poll() is None:
                old.kill()
                old.wait()
                self.log("rebuild superseded by a newer change")
            env = dict(os.environ)
            proc = subprocess.Popen(self._child_cmd(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, env=env)
            self.proc = proc
        t = threading.Thread(target=self._finish, args=(proc, time.perf_counter()), daemon=True)
        t.start()
        if wait:
            t.join()

    def _finish(self, proc, t0) -> None:
        out, err = proc.communicate()
        with self.proc_lock:
            if proc is not self.proc:
                return                      # superseded: a newer build reports
        seconds = time.perf_counter() - t0
        with self.status.lock:
            if proc.returncode == 0:
                try:
                    result = json.loads(out)
                except ValueError:
                    result = {"diagnostics": [], "summary": out.strip()}
                if self.known is None:
                    self.known = set(result.get("diagnostics") or [])
                self.status.build += 1
                self.status.error = None
                self.status.last_seconds = seconds
                self.log(f"built in {seconds:.2f} s: {result.get('summary')}")
            elif proc.returncode == 3:
                try:
                    self.status.error = json.loads(out)["diagnostics"]
                except (ValueError, KeyError):
                    self.status.error = [out.strip() or err.strip()]
                self.log("the record has errors; the last good build is kept:\n  " + "\n  ".join(self.status.error))
            elif proc.returncode < 0:
                return                      # killed
            else:
                self.status.error = ["the build failed: " + (err.strip().splitlines() or ["?"])[-1]]
                self.log(err.strip())

    def watch_paths(self) -> list[Path]:
        from .options import site_options
        paths = [Path(self.config.root)]
        for p in (self.config.checks, self.config.file, getattr(site_options(self.config), "templates", None)):
            if p and Path(p).exists():
                paths.append(Path(p))
        return paths

    def _watch(self) -> None:
        import watchfiles
        out = self.out.resolve()

        def keep(change, path: str) -> bool:
            p = Path(path)
            name = p.name
            return not (name.startswith(".") or name.endswith((".tmp", "~")) or out in p.parents
                        or "__pycache__" in p.parts)
        while not self.stop.is_set():
            try:
                for changes in watchfiles.watch(*self.watch_paths(), watch_filter=keep, debounce=self.debounce_ms,
                                                step=50, stop_event=self.stop, raise_interrupt=False):
                    self.log("changed: " + ", ".join(sorted({Path(p).name for _, p in changes}))[:200])
                    self.rebuild()
            except Exception as exc:     # a watched folder removed, …: keep serving, watch again
                self.log(f"watching failed ({exc}); retrying")
                time.sleep(1)

    # -- serving ---------------------------------------------------------------------
    def handler(self):
        server = self

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
                    if fs.suffix == ".html" or not fs.exists():
                        code = 200
                        if not fs.is_file():
                            fs, code = server.out / "404.html", 404
                        try:
                            text = fs.read_text(encoding="utf-8")
                        except OSError:
                            return self._send(404, "text/plain; charset=utf-8", b"not found (no build yet)")
                        inject = ('<link rel="stylesheet" href="/__rk/live.css">'
                                  '<script src="/__rk/live.js"></script>')
                        text = text.replace("</body>", inject + "</body>", 1)
                        return self._send(code, "text/html; charset=utf-8", text.encode("utf-8"))
                    return super().do_GET()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    def serve_forever(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.rebuild(wait=True)
        self.httpd = http.server.ThreadingHTTPServer((self.host, self.port), self.handler())
        self.httpd.daemon_threads = True
        host, port = self.httpd.server_address[:2]
        self.log(f"serving http://{host}:{port}/ (Ctrl-C to stop)")
        watcher = threading.Thread(target=self._watch, daemon=True)
        watcher.start()
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self.stop.set()
            with self.proc_lock:
                if self.proc is not None and self.proc.poll() is None:
                    self.proc.kill()
            self.httpd.server_close()


def default_out(config) -> Path:
    return Path(tempfile.mkdtemp(prefix="recordkit-serve-"))


def _child(argv: list[str]) -> int:
    """One build, in a child process of the server: exit 3 with the load
    diagnostics (JSON) when a file cannot be read, so the last good site
    stays; 0 after a build."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--root")
    ap.add_argument("--out")
    ap.add_argument("--config")
    ap.add_argument("--known")
    a = ap.parse_args(argv)
    from ...config import load_config
    from ...corpus import load
    cfg = load_config(Path(a.root), file=a.config) if a.config else load_config(Path(a.root))
    cfg.root = Path(a.root)
    corpus = load(cfg.root, config=cfg)
    from ...common.paths import display_path
    diags = [f"{display_path(d.path)}:{d.line}:{d.col}: {d.code} {d.message}" for d in corpus.diagnostics]
    if a.known is not None:
        new = [d for d in diags if d not in set(json.loads(a.known))]
        if new:
            print(json.dumps({"diagnostics": new}))
            return 3
    from .build import build_site
    report = build_site(cfg, a.out, corpus=corpus, force=True)
    print(json.dumps({"diagnostics": diags, "summary": report.summary()}))
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
