"""``recordkit serve`` as a real process on 127.0.0.1: an edit shows up in the
served page, a broken file shows its diagnostic and keeps the last good
page, the server keeps answering, the open page reloads by itself."""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from site_fixtures import REPO, copy_example


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


def _until(fn, timeout=60.0, every=0.2):
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = fn()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out; last value {last!r}")


@contextlib.contextmanager
def serving(base):
    """``recordkit serve`` on ``base`` (any free port): (url, the log's lines so far)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "recordkit", "serve", "--port", "0", "-o", str(base / "out")],
                            cwd=base, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(l) for l in proc.stderr], daemon=True).start()
    try:
        line = _until(lambda: next((l for l in lines if l.startswith("serving http://")), None), timeout=120)
        yield re.search(r"http://127\.0\.0\.1:\d+/", line).group(0), lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def server(tmp_path):
    base = copy_example(tmp_path, with_results=False)
    with serving(base) as (url, lines):
        yield base, url, lines


@pytest.mark.slow
def test_edit_shows_and_bad_yaml_keeps_last_good_page(server):
    base, url, log = server
    page = url + "question/QUESTION-211.html"
    code, text = _get(page)
    assert code == 200 and "__rk/live.js" in text
    rec = base / "records" / "question" / "QUESTION-211.md"
    good = rec.read_text()
    unrelated = base / "out" / "lit" / "LIT-874.html"
    unrelated_mtime = unrelated.stat().st_mtime_ns
    rec.write_text(re.sub(r"^title: .*$", "title: A retitled question for the serve test", good, count=1, flags=re.M))
    _until(lambda: "A retitled question for the serve test" in _get(page)[1])
    # rebuilt in the server's process from the records it holds: only the
    # pages that show the record are rendered; an unrelated page is untouched
    built = _until(lambda: next((l for l in log if l.startswith("built in") and "after the change" in l), None))
    rendered = int(re.search(r"\((\d+) rendered\)", built).group(1))
    assert 1 <= rendered < 20, built
    assert unrelated.stat().st_mtime_ns == unrelated_mtime
    # break the YAML: the diagnostic is served, the page stays as last built
    rec.write_text(good.replace("status: open", "status: open\nbroken: [unclosed", 1))
    status = _until(lambda: (lambda s: s if '"error": [' in s else None)(_get(url + "__rk/status.js")[1]))
    assert re.search(r"QUESTION-211\.md:\d+:\d+: RK102", status), status
    code, text = _get(page)
    assert code == 200 and "A retitled question for the serve test" in text
    assert _get(url + "index.html")[0] == 200            # the server still answers
    assert _get(url + "no/such/page.html")[0] == 404
    # fixed: the next build goes through and the error is gone
    rec.write_text(good)
    _until(lambda: '"error": null' in _get(url + "__rk/status.js")[1])
    _until(lambda: "A retitled question" not in _get(page)[1])
    # two edits in quick succession: the site ends with the second
    for title in ("First of two quick titles", "Second of two quick titles"):
        rec.write_text(re.sub(r"^title: .*$", f"title: {title}", good, count=1, flags=re.M))
    _until(lambda: "Second of two quick titles" in _get(page)[1])
    time.sleep(1.0)
    assert "Second of two quick titles" in _get(page)[1]


@pytest.mark.slow
def test_serve_answers_only_with_the_site_s_own_regular_files(server, tmp_path):
    """A named pipe in the served folder used to hold a server thread for
    good (opened for reading, it waits for a writer), a link to /dev/zero
    sent without end, a link out of the folder sent whatever it named.
    Each is now a 404 at once, and the server goes on answering; a page,
    a stylesheet and a JSON file are served as before, with their type and
    length."""
    base, url, log = server
    out = base / "out"
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the browser")
    os.mkfifo(out / "pipe.html")
    os.mkfifo(out / "pipe.js")
    os.symlink("/dev/zero", out / "zero.css")
    os.symlink(secret, out / "outside.txt")
    os.symlink(out / "index.html", out / "inside.html")
    for name in ("pipe.html", "pipe.js", "zero.css", "outside.txt"):
        t = time.monotonic()
        code, text = _get(url + name)
        assert code == 404 and "not for the browser" not in text, name
        assert time.monotonic() - t < 5, name
    assert _get(url + "inside.html")[0] == 200      # a link that stays in the folder
    with urllib.request.urlopen(url + "index.html", timeout=10) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/html")
    css = next(p for p in out.rglob("*.css") if not p.is_symlink())
    with urllib.request.urlopen(url + css.relative_to(out).as_posix(), timeout=10) as r:
        body = r.read()
        assert r.headers["Content-Type"].startswith("text/css") and body == css.read_bytes()
        assert int(r.headers["Content-Length"]) == len(body)
    req = urllib.request.Request(url + css.relative_to(out).as_posix(), method="HEAD")
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.read() == b"" and int(r.headers["Content-Length"]) == len(body)


@pytest.mark.slow
def test_a_request_for_another_host_name_is_refused(server):
    """DNS rebinding: a page on evil.example points its name at 127.0.0.1
    and reads the record through the visitor's browser.  The server, bound
    to loopback, answers only a Host that names loopback."""
    import http.client
    base, url, log = server
    port = int(url.rsplit(":", 1)[1].strip("/"))

    def get(host):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.putrequest("GET", "/index.html", skip_host=True)
        if host is not None:
            c.putheader("Host", host)
        c.endheaders()
        r = c.getresponse()
        return r.status, r.read().decode("utf-8")
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", "10.0.0.1", ""):
        code, text = get(host)
        assert code == 403 and "THEORY" not in text, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", f"[::1]:{port}", f"site.localhost:{port}"):
        code, text = get(host)
        assert code == 200 and "THEORY" in text, host
    assert _get(url + "index.html")[0] == 200       # (what a browser sends)


@pytest.mark.parametrize("host, ok", [
    (None, True), ("localhost", True), ("localhost:8000", True), ("127.0.0.1", True), ("127.1.2.3:80", True),
    ("[::1]:8000", True), ("::1", True), ("a.localhost", True), ("localhost.", True), ("0.0.0.0", False),
    ("evil.example", False), ("localhost.evil.example", False), ("[::2]", False), ("", False), ("192.168.1.2", False),
])
def test_host_is_loopback(host, ok):
    from recordkit.emit.site.serve import host_is_loopback
    assert host_is_loopback(host) is ok


@pytest.mark.browser
def test_the_open_page_reloads_and_shows_errors(server):
    from browser import require_chromium, launch_chromium
    require_chromium()
    base, url, log = server
    rec = base / "records" / "question" / "QUESTION-211.md"
    good = rec.read_text()
    with launch_chromium() as b:
        ctx = b.new_context()
        p = ctx.new_page()
        errors = []
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.goto(url + "question/QUESTION-211.html")
        rec.write_text(re.sub(r"^title: .*$", "title: Reloaded by itself", good, count=1, flags=re.M))
        # (locator waits: the page's CSP forbids the eval that wait_for_function needs)
        p.locator("h1", has_text="Reloaded by itself").wait_for(timeout=60000)
        rec.write_text(good.replace("status: open", "status: open\nbroken: [unclosed", 1))
        p.wait_for_selector("#rk-live-error", timeout=60000)
        assert "RK102" in p.inner_text("#rk-live-error")
        rec.write_text(good)
        p.wait_for_selector("#rk-live-error", state="detached", timeout=60000)
        assert errors == []
        ctx.close()


def test_an_edit_made_while_the_server_starts_is_built(tmp_path):
    """The watcher sees only what changes after it started: an edit saved
    between serve's first build and that moment used to be lost (the page
    stayed as first built until the next edit; a loaded machine made this
    test of the served page flaky).  The watched files are compared with
    their stat from before the first build once the watcher runs."""
    from recordkit.config import load_config
    from recordkit.emit.site.serve import SiteServer
    base = copy_example(tmp_path, with_results=False)
    cfg = load_config(base)
    lines: list = []
    srv = SiteServer(cfg, base / "out", log=lines.append)
    srv.first_build()
    page = base / "out" / "question" / "QUESTION-211.html"
    assert "Retitled while the server starts" not in page.read_text(encoding="utf-8")
    rec = base / "records" / "question" / "QUESTION-211.md"
    good = rec.read_text(encoding="utf-8")
    rec.write_text(re.sub(r"^title: .*$", "title: Retitled while the server starts", good, count=1, flags=re.M),
                   encoding="utf-8")
    threads = [threading.Thread(target=srv._builder, daemon=True), threading.Thread(target=srv._watch, daemon=True)]
    for t in threads:
        t.start()
    try:
        _until(lambda: "Retitled while the server starts" in page.read_text(encoding="utf-8"), timeout=60)
        assert any(l.startswith("changed while the server started: QUESTION-211.md") for l in lines), lines
    finally:
        srv.stop.set()
        srv.cancel.set()
        for t in threads:
            t.join(timeout=10)


def test_binds_loopback_only_by_default():
    from recordkit.emit.site.serve import SiteServer
    assert SiteServer.__init__.__defaults__[0] == "127.0.0.1"


@pytest.mark.slow
def test_a_schema_edited_while_serving_is_read_again(tmp_path):
    """The schema file is watched like the configuration: a broken edit is
    served as a configuration error (the message, no traceback in the log),
    the last good site stays, and the fixed schema builds again."""
    base = copy_example(tmp_path, with_results=False)
    (base / "schema.yaml").write_text("fields: {}\n")
    conf = base / "recordkit.toml"
    conf.write_text('schema = "schema.yaml"\n' + conf.read_text())
    with serving(base) as (url, lines):
        (base / "schema.yaml").write_text("kinds: {NOTE: {statuses: true}}\n")
        status = _until(lambda: (lambda s: s if '"error": [' in s else None)(_get(url + "__rk/status.js")[1]))
        assert "configuration error:" in status and "kinds.NOTE.statuses must be a list of names" in status, status
        assert _get(url + "index.html")[0] == 200
        (base / "schema.yaml").write_text("fields: {}\n")
        _until(lambda: '"error": null' in _get(url + "__rk/status.js")[1])
        assert not any("Traceback" in l for l in lines), "".join(lines)
