"""``serve`` rebuilds while its server and watcher threads run: a rebuild
never forks then (a fork copies only the thread that forks; a lock another
thread holds stays locked in the helper for ever), and what it makes in
one process is what a build with helpers makes."""
from __future__ import annotations

import os
import re
import threading
from contextlib import contextmanager

from site_fixtures import copy_example


def _retitle(path, title: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"^title: .*$", f"title: {title}", text, count=1, flags=re.M), encoding="utf-8")


@contextmanager
def _another_thread_running(monkeypatch):
    """A second thread alive for the block; yields the list of the thread
    counts at each ``os.fork`` called meanwhile (none, if the policy holds)."""
    forks: list[int] = []
    real_fork = os.fork

    def fork():
        forks.append(threading.active_count())
        return real_fork()
    monkeypatch.setattr(os, "fork", fork)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        yield forks
    finally:
        stop.set()
        other.join(timeout=10)
        monkeypatch.setattr(os, "fork", real_fork)


def test_a_serve_rebuild_never_forks_while_other_threads_run(tmp_path, monkeypatch):
    from recordkit.config import load_config
    from recordkit.emit.site.build import build_site
    from recordkit.emit.site.serve import SiteServer
    base = copy_example(tmp_path, with_results=False)
    srv = SiteServer(load_config(base), base / "out", log=lambda line: None)
    srv.first_build()                  # alone in its process: it may fork
    # an incremental rebuild forks a helper for the search index where it
    # may; with RECORDKIT_JOBS it would fork to render pages too
    monkeypatch.setenv("RECORDKIT_JOBS", "2")
    with _another_thread_running(monkeypatch) as forks:     # as the server's and the watcher's threads
        for k in range(2):
            _retitle(base / "records" / "question" / "QUESTION-211.md", f"Retitled while serving {k}")
            srv.rebuild(wait=True)
            page = (base / "out" / "question" / "QUESTION-211.html").read_text(encoding="utf-8")
            assert f"Retitled while serving {k}" in page
    assert srv.status.error is None
    assert forks == []
    # what the rebuilds made in one process is what a cold build makes
    monkeypatch.delenv("RECORDKIT_JOBS")
    build_site(load_config(base), base / "cold", force=True)
    for name in ("assets/search-index.js", "question/QUESTION-211.html", "index.html"):
        assert (base / "out" / name).read_bytes() == (base / "cold" / name).read_bytes(), name


def test_the_jobs_policy_refuses_to_fork_a_threaded_process(monkeypatch):
    from recordkit import runtime
    from recordkit.runtime import pool
    monkeypatch.setenv("RECORDKIT_JOBS", "2")
    assert runtime.workers(10_000, name="parse") == 2
    with _another_thread_running(monkeypatch) as forks:
        assert not runtime.can_fork()
        assert runtime.workers(10_000, name="parse") == 1
        assert runtime.spread(lambda part: [x * 2 for x in part], [[1], [2, 3]], name="test") == [[2], [4, 6]]
        helper = pool.PieceHelper(lambda piece: piece, [1, 2, 3], 1)
        assert helper.pid is None and helper.pieces(block=True) == []
    assert forks == []
