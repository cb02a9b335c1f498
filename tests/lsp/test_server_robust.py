"""What the engine does under load: a ``git checkout``-sized burst of
files changed on disk is read as one reload while requests are answered,
and queued work is dropped when the client cancels it or the document
moves on (``$/cancelRequest``, stale versions)."""
from __future__ import annotations

import asyncio
import shutil
import sys
import threading
import time

import pytest
from lsprotocol import types

from lspkit import REPO, lsp_client, open_doc, uri, wait_for

from recordkit.lsp.scheduling import Worker



@pytest.fixture(scope="module")
def record_320(tmp_path_factory):
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    out = tmp_path_factory.mktemp("checkout")
    generate(out / "records", 320, seed=2)
    (out / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\n', encoding="utf-8")
    return out


def citing_pair(root):
    """(a record citing a LIT by ``source``, that LIT's file)."""
    import re
    for path in sorted((root / "records").rglob("*.md")):
        front = path.read_text(encoding="utf-8").split("\n---", 1)[0]
        m = re.search(r"^source: \[(LIT-\d+)", front, re.M)
        if m:
            lit = next((root / "records").rglob(f"{m.group(1)}.md"), None)
            if lit is not None:
                return path, lit, m.group(1)
    raise AssertionError("no record cites a LIT")


@pytest.mark.asyncio(loop_scope="function")
async def test_a_checkout_of_300_files_is_read_once_with_requests_answered(record_320):
    root = record_320
    citer, lit, lit_id = citing_pair(root)
    async with lsp_client(root, "visual-studio-code", settings={"debounce": 0}) as client:
        u = open_doc(client, citer)
        await wait_for(lambda: u in client.diagnostics, what="the first diagnostics")
        assert not [d for d in client.diagnostics[u] if d.code == "RK301" and lit_id in d.message]
        # the checkout: 300 files rewritten at once, the cited LIT's id among the changes
        files = sorted(p for p in (root / "records").rglob("*.md") if p not in (citer, lit))[:299]
        for p in files:
            p.write_text(p.read_text(encoding="utf-8") + "\nA line from another branch.\n", encoding="utf-8")
        lit.write_text(lit.read_text(encoding="utf-8").replace(f"id: {lit_id}", f"id: {lit_id}0"), encoding="utf-8")
        changed = files + [lit]
        # as VS Code sends them: a few batches in quick succession
        for i in range(0, len(changed), 100):
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                [types.FileEvent(uri(p), types.FileChangeType.Changed) for p in changed[i:i + 100]]))
        # a request while the burst is read: answered, within the second
        t0 = time.perf_counter()
        report = await asyncio.wait_for(client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(u))), 5)
        assert time.perf_counter() - t0 < 2 and report is not None
        # then the record read again once, and the open record's diagnostics follow the disk
        await wait_for(lambda: [d for d in client.diagnostics.get(u, []) if d.code == "RK301" and lit_id in d.message],
                       timeout=30, what="the dangling LIT after the checkout")
        reads = [m.message for m in client.log_messages if "changed on disk" in m.message]
        assert len(reads) == 1 and reads[0].startswith("recordkit: 300 files changed on disk: parsed again"), reads


def test_a_queued_job_is_dropped_when_cancelled_or_stale():
    """The worker runs jobs in order, the latest per key; a job cancelled
    before it starts (``$/cancelRequest`` cancels the request's future) or
    whose document moved on (``still_wanted()`` false) never runs."""
    w = Worker("test-worker")
    gate, ran = threading.Event(), []
    try:
        busy = w.submit("busy", lambda: gate.wait(10))
        cancelled = w.submit("pull:a", lambda: ran.append("cancelled"))
        version = {"doc": 1}
        stale = w.submit("lint:b", lambda: ran.append("stale"), lambda: version["doc"] == 1)
        first = w.submit("lint:c", lambda: ran.append("first"))
        last = w.submit("lint:c", lambda: ran.append("last") or "done")      # replaces the queued one
        assert cancelled.cancel()            # what pygls does on $/cancelRequest, through wrap_future
        version["doc"] = 2                   # a newer didChange arrived
        gate.set()
        assert last.result(10) == "done" and stale.result(10) is None and busy.result(10)
        assert first.cancelled() and cancelled.cancelled()
        assert ran == ["last"] and w.dropped == 3
    finally:
        gate.set()
        w.stop(wait=10)


@pytest.mark.asyncio(loop_scope="function")
async def test_a_cancelled_pull_never_runs(record_320):
    """``$/cancelRequest``: pygls cancels the request's task; the pull
    waiting for the worker (busy with other work) is then dropped from the
    queue before it runs, and the next pull is answered."""
    from recordkit.lsp.engine import Engine
    engine = Engine(server=None)
    engine.loop = asyncio.get_running_loop()
    engine.ready.set()
    linted = []
    engine.diagnostics_of = lambda snap, uris: linted.extend(uris) or {u: [] for u in uris}
    gate = threading.Event()
    try:
        engine.worker.submit("busy", lambda: gate.wait(10))
        doomed = asyncio.ensure_future(engine.pull("file:///a.md", None))
        await asyncio.sleep(0.05)
        doomed.cancel()                      # what pygls does with the request's task on $/cancelRequest
        kept = asyncio.ensure_future(engine.pull("file:///b.md", None))
        await asyncio.sleep(0.05)
        gate.set()
        report = await asyncio.wait_for(kept, 10)
        assert report.items == [] and linted == ["file:///b.md"]
        assert doomed.cancelled() and engine.worker.dropped == 1
    finally:
        gate.set()
        engine.worker.stop(wait=10)


def test_a_cold_store_is_read_ahead_by_a_helper_forked_before_any_thread(tmp_path, monkeypatch):
    """``recordkit lsp`` forks, before its threads start, a helper that reads
    the record into the store of parsed records (``Background``); the
    server's load waits for it and reads the store warm.  Nothing is read
    ahead when the store is there, and the helper reading another record
    than the client names is stopped."""
    from recordkit.config import load_config
    from recordkit.corpus.store.store import store_folder
    from recordkit.lsp.preload import preload
    from recordkit.lsp.workspace import Workspace
    from recordkit.runtime import can_fork, tuning
    from lspkit import copy_records
    if not can_fork():
        pytest.skip("this test process runs threads: nothing may fork")
    folder = copy_records(tmp_path / "rec")
    config = load_config(folder)
    store = store_folder(config, config.root.resolve() if hasattr(config.root, "resolve") else config.root)
    monkeypatch.setattr(tuning, "MIN_FILES", 1)          # (the helper reads it after the fork)
    ahead = preload(folder)
    assert ahead is not None and not store.exists()
    ws = Workspace.at(folder)
    ws.preload = ahead
    ws.load()                                            # waits for the helper, then reads the store
    assert ahead.helper.status == 0 and store.exists() and ws.base.records
    assert preload(folder) is None                       # a warm store: nothing read ahead
    import shutil
    shutil.rmtree(store)
    other = preload(folder)
    assert other is not None and other.settle(tmp_path) is False and other.helper.status is not None


def test_a_background_helper_reports_its_end():
    from recordkit.runtime import Background, can_fork
    if not can_fork():
        pytest.skip("this test process runs threads: nothing may fork")
    ok = Background.start(lambda: None)
    bad = Background.start(lambda: 1 / 0)
    slow = Background.start(lambda: time.sleep(30))
    assert ok.wait(10) and not bad.wait(10)
    assert not slow.wait(0.05)
    slow.stop()
    assert slow.status is not None and slow.status != 0


def test_a_file_changed_on_disk_after_a_warm_start_is_read_again(record_320):
    """A record restored from the store of parsed records reads its text
    from its file when first asked, the new text once the file changed:
    a file changed on disk is parsed again whatever its record says."""
    from recordkit.lsp.workspace import Workspace
    _, lit, _ = citing_pair(record_320)
    ws = Workspace.at(record_320)
    ws.load()
    ws.load()                                    # warm: every record restored from the store
    lit_id = ws.base.by_path(lit).id             # (as the tests before left it)
    text = lit.read_text(encoding="utf-8")
    try:
        lit.write_text(text.replace(f"id: {lit_id}", f"id: {lit_id}5"), encoding="utf-8")
        assert ws.files_changed([lit]) is False  # a few files: no reload
        assert ws.base.by_path(lit).id == lit_id + "5" and lit_id not in ws.base.records
        lit.unlink()
        assert ws.files_changed([lit]) is True and ws.base.by_path(lit) is None
    finally:
        lit.write_text(text, encoding="utf-8")
