"""Where the server's heavy work runs: one worker thread, off the event
loop (which keeps reading the client's messages meanwhile).

Work is queued under a key (a document's diagnostics, the corpus-scope
rules, files changed on disk); a job queued again under the same key
before it started replaces the queued one, so a burst of edits lints the
last text once.  A job is also dropped when it is cancelled before it
starts (``$/cancelRequest`` cancels the request's future) or when its
``still_wanted()`` says the document moved on (a stale version).  The
worker is a thread, never a forked process: the server runs threads (the
stdin reader, the file watcher), and a fork of a threaded process may
inherit a held lock (``recordkit.runtime.pool`` refuses to fork then, and
the lint's loader then parses in one process).
"""
from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Callable

log = logging.getLogger(__name__)


class Worker:
    """One thread running queued jobs in order, latest per key."""

    def __init__(self, name: str = "recordkit-lsp-worker"):
        self._queue: "queue.Queue[str | None]" = queue.Queue()
        self._jobs: dict[str, tuple[Callable, Future, Callable | None]] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self.ran = 0
        self.dropped = 0

    def submit(self, key: str, fn: Callable, still_wanted: Callable[[], bool] | None = None) -> Future:
        """Queue ``fn()`` under ``key`` (replacing a queued job of that key,
        whose future is cancelled); its future."""
        fut: Future = Future()
        with self._lock:
            old = self._jobs.get(key)
            self._jobs[key] = (fn, fut, still_wanted)
            if old is not None:
                old[1].cancel()
                self.dropped += 1
                return fut
        self._queue.put(key)
        return fut

    def _run(self) -> None:
        while True:
            key = self._queue.get()
            if key is None:
                return
            with self._lock:
                job = self._jobs.pop(key, None)
            if job is None:
                continue
            fn, fut, still_wanted = job
            if not fut.set_running_or_notify_cancel():
                self.dropped += 1
                continue
            try:
                if still_wanted is not None and not still_wanted():
                    self.dropped += 1
                    fut.set_result(None)
                    continue
                fut.set_result(fn())
                self.ran += 1
            except BaseException as exc:   # a job's failure is its future's, never the worker's end
                log.exception("job %s failed", key)
                fut.set_exception(exc)

    def stop(self) -> None:
        self._queue.put(None)
