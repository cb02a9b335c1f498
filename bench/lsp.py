"""``recordkit lsp`` under load: the real server over stdio, driven by
pytest-lsp's client (pygls), on a generated record.

    python bench/lsp.py --count 1000 [--repeat 50]

Prints p50/p95 (and n) of: ``initialize``; the record ready, warm (store
of parsed records kept) and cold (cache folder removed); a keystroke to
its own file's diagnostics after the debounce; another open record's
diagnostics after an edit that changes them (an id renamed); completion,
hover, definition, references on the record with the most in-links, and
rename ("not served" when the server does not offer the method); the
server's peak RSS.  Run it at 1,000 and 10,000 records for the growth
ratio; figures go in bench/README.md.

    python bench/lsp.py --count 10000 --soak [SECONDS]

The soak instead (default 600 s): 10 edits/s over 20 open records with
hover and completion interleaved; per minute hover/completion p95 and
own-file diagnostics p50/p95, the server's RSS at the end.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

from _common import HERE, compile_package, synthetic

from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

DEBOUNCE_MS = 150


def pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def line(label: str, times: list[float] | None, target: str = "") -> str:
    if not times:
        return f"{label:<52} not served"
    ms = [t * 1000 for t in times]
    return (f"{label:<52} p50 {statistics.median(ms):8.1f} ms  p95 {pct(ms, 0.95):8.1f} ms  n={len(ms):<3} "
            f"{target}")


def workspace_for(records: Path, count: int) -> Path:
    folder = HERE / "out" / f"lsp-{count}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recordkit.toml").write_text(f'root = "{records}"\ncache_dir = "cache"\n', encoding="utf-8")
    return folder


#: a pygls server that serves nothing: what ``initialize`` costs before recordkit adds anything
FLOOR_SERVER = "from pygls.lsp.server import LanguageServer; LanguageServer('floor', '0').start_io()"


class Session:
    def __init__(self, folder: Path, settings: dict | None = None, profile: str = "visual-studio-code",
                 command: tuple = ("-m", "recordkit", "lsp")):
        self.command = command
        self.folder = folder
        self.settings = settings
        self.profile = profile
        self.pushes: dict[str, int] = {}
        self.push_times: dict[str, float] = {}

    async def start(self) -> float:
        c = self.client = make_test_lsp_client()

        @c.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params):
            return None
        features = c.protocol.fm.features
        keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def publish(*args):
            p = args[-1]
            self.pushes[p.uri] = self.pushes.get(p.uri, 0) + 1
            self.push_times[p.uri] = time.perf_counter()
            return keep(*args)
        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        await c.start_io(sys.executable, *self.command, cwd=str(self.folder), env=env)
        t0 = time.perf_counter()
        self.init = await c.initialize_session(types.InitializeParams(
            capabilities=client_capabilities(self.profile), root_uri=self.folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(self.folder.as_uri(), "bench")],
            initialization_options=self.settings))
        return time.perf_counter() - t0

    async def ready(self) -> float:
        t0 = time.perf_counter()
        while not any("record ready" in m.message for m in self.client.log_messages):
            await asyncio.sleep(0.005)
        msg = next(m.message for m in self.client.log_messages if "record ready" in m.message)
        return float(re.search(r"in ([0-9.]+) s", msg).group(1)) if msg else time.perf_counter() - t0

    def pid(self) -> int:
        return self.client._server.pid

    def peak_rss_mb(self) -> float:
        try:
            for row in Path(f"/proc/{self.pid()}/status").read_text().splitlines():
                if row.startswith("VmHWM:"):
                    return int(row.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_session(), 10)
        except Exception:
            pass
        await self.client.stop()

    def open(self, path: Path) -> str:
        u = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=u, language_id="markdown", version=1, text=path.read_text(encoding="utf-8"))))
        return u

    async def pushed(self, u: str, after: int, timeout: float = 30) -> float:
        end = time.perf_counter() + timeout
        while self.pushes.get(u, 0) <= after:
            if time.perf_counter() > end:
                raise TimeoutError(u)
            await asyncio.sleep(0.001)
        return self.push_times[u]

    def change(self, u: str, version: int, ln: int, a: int, b: int, text: str) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=u, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(types.Position(ln, a), types.Position(ln, b)),
                                                    text=text)]))


def pick(records: Path):
    """(an edited record with a body line, a LIT and a record citing it, the most linked-to record)"""
    import recordkit
    corpus = recordkit.load(records)
    inlinks: dict[str, int] = {}
    cited_by: dict[str, str] = {}
    for rec in corpus.files:
        if not rec.ok:
            continue
        for rel, targets in rec.relations.items():
            for t in targets:
                inlinks[t.id] = inlinks.get(t.id, 0) + 1
                if t.id.startswith("LIT-") and t.id in corpus.records and rel == "source":
                    cited_by.setdefault(t.id, rec.id)
    most = max(inlinks, key=inlinks.get)
    lit = next(iter(cited_by))
    big = max((r for r in corpus.files if r.ok and r.id.startswith("THEORY-")), key=lambda r: len(r.text))
    return corpus, big, corpus.records[lit], corpus.records[cited_by[lit]], corpus.records[most], inlinks[most]


def position_of(path: Path, needle: str, after: str = "") -> types.Position:
    rows = path.read_text(encoding="utf-8").split("\n")
    for i, row in enumerate(rows):
        if needle in row and (not after or row.startswith(after)):
            return types.Position(i, row.index(needle) + 1)
    return types.Position(0, 0)


async def timed_requests(send, n: int) -> list[float] | None:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(send(), 30)
        except Exception as exc:   # a method the server does not offer
            if "not found" in str(exc).lower() or "unknown method" in str(exc).lower() or "-32601" in str(exc):
                return None
            raise
        out.append(time.perf_counter() - t0)
    return out


async def run(count: int, repeat: int, starts: int) -> dict:
    records = synthetic(count)
    folder = workspace_for(records, count)
    corpus, big, lit, citer, most, n_in = pick(records)
    del corpus
    res: dict = {}
    # start-up: initialize, cold and warm
    inits, warm, cold = [], [], []
    for i in range(starts):
        if i == 0:
            shutil.rmtree(folder / "cache", ignore_errors=True)
        s = Session(folder)
        inits.append(await s.start())
        (cold if i == 0 else warm).append(await s.ready())
        await s.stop()
    res["initialize"] = inits
    floor = []
    for i in range(starts):
        s = Session(folder, command=("-c", FLOOR_SERVER))
        floor.append(await s.start())
        await s.stop()
    res["initialize of a pygls server serving nothing (floor)"] = floor
    res["ready cold"] = cold
    res["ready warm"] = warm

    s = Session(folder, settings={"debounce": DEBOUNCE_MS})
    await s.start()
    await s.ready()
    caps = s.init.capabilities
    ub = s.open(big.path)
    await s.pushed(ub, 0)
    # keystroke -> own diagnostics, after the debounce
    rows = big.path.read_text(encoding="utf-8").split("\n")
    body_row = len(rows) - 2
    own = []
    for k in range(repeat):
        before = s.pushes.get(ub, 0)
        t0 = time.perf_counter()
        s.change(ub, k + 2, body_row, 0, 0 if k % 2 == 0 else 1, "x" if k % 2 == 0 else "")
        try:
            t1 = await s.pushed(ub, before, timeout=5)
        except TimeoutError:
            continue   # the same diagnostics: nothing pushed
        own.append(t1 - t0 - DEBOUNCE_MS / 1000)
    res["keystroke -> own diagnostics (after debounce)"] = own
    # another open record: LIT's id renamed back and forth, the citing record's diagnostics follow
    ul, uc = s.open(lit.path), s.open(citer.path)
    await s.pushed(ul, 0)
    await s.pushed(uc, 0)
    lrows = lit.path.read_text(encoding="utf-8").split("\n")
    id_row = lrows.index(f"id: {lit.id}")
    other = []
    cur = lit.id
    for k in range(repeat):
        new = lit.id + "9" if cur == lit.id else lit.id
        before = s.pushes.get(uc, 0)
        t0 = time.perf_counter()
        s.change(ul, k + 2, id_row, 4, 4 + len(cur), new)
        cur = new
        t1 = await s.pushed(uc, before, timeout=10)
        other.append(t1 - t0 - DEBOUNCE_MS / 1000)
    res["another open record's diagnostics (after debounce)"] = other
    if cur != lit.id:
        s.change(ul, repeat + 2, id_row, 4, 4 + len(cur), lit.id)
    await asyncio.sleep(1)
    # the features (served once lsp-features is merged)
    cpos = position_of(citer.path, lit.id, "source:")
    doc = types.TextDocumentIdentifier(uc)
    c = s.client
    res["completion"] = await timed_requests(lambda: c.text_document_completion_async(
        types.CompletionParams(doc, cpos)), repeat) if caps.completion_provider else None
    res["hover"] = await timed_requests(lambda: c.text_document_hover_async(
        types.HoverParams(doc, cpos)), repeat) if caps.hover_provider else None
    res["definition"] = await timed_requests(lambda: c.text_document_definition_async(
        types.DefinitionParams(doc, cpos)), repeat) if caps.definition_provider else None
    um = s.open(most.path)
    mpos = position_of(most.path, most.id, "id:")
    res[f"references ({n_in} in-links)"] = await timed_requests(lambda: c.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri=um), position=mpos,
                              context=types.ReferenceContext(include_declaration=True))),
        repeat) if caps.references_provider else None
    res[f"rename plan ({n_in} in-links)"] = await timed_requests(lambda: c.text_document_rename_async(
        types.RenameParams(text_document=types.TextDocumentIdentifier(uri=um), position=mpos, new_name=most.id[:most.id.index("-") + 1] + "99999")),
        max(5, repeat // 5)) if caps.rename_provider else None
    n_files = min(2000, count)
    res[f"git checkout of {n_files:,} files: read (n=1)"], res["pull while it is read"] = \
        await checkout(s, records, ub, n_files)
    res["peak RSS MB"] = s.peak_rss_mb()
    await s.stop()
    return res


async def checkout(s: Session, records: Path, u: str, n: int = 2000) -> tuple[list[float], list[float]]:
    """A ``git checkout`` of ``n`` files: each rewritten (its own text, so
    the bench stays as it was; the stat changes), the events sent as VS
    Code sends them (batches of 500); the time until the server logs the
    record read again, and pulls of an open document meanwhile."""
    files = sorted(records.rglob("*.md"))[:n]
    for p in files:
        p.write_bytes(p.read_bytes())
    logged = len(s.client.log_messages)
    t0 = time.perf_counter()
    for i in range(0, len(files), 500):
        s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(p.as_uri(), types.FileChangeType.Changed) for p in files[i:i + 500]]))
    pulls = []
    while not any("changed on disk" in m.message for m in s.client.log_messages[logged:]):
        t1 = time.perf_counter()
        await asyncio.wait_for(s.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(u))), 30)
        pulls.append(time.perf_counter() - t1)
        await asyncio.sleep(0.02)
        if time.perf_counter() - t0 > 60:
            raise TimeoutError("the checkout was not read in 60 s")
    return [time.perf_counter() - t0], pulls


async def soak(count: int, seconds: float, n_open: int = 20, rate: float = 10.0) -> None:
    """The soak: ``rate`` edits a second spread over ``n_open`` open records
    (round robin, a character typed then deleted at the start of each
    record's last body line) for ``seconds``, with a hover and a completion
    on a relation target of an open record every 0.2 s in a second task.
    Prints per minute: hover and completion p95, own-file diagnostics after
    the debounce (p50/p95), edits sent and pushes seen; the server's RSS at
    the end (current and peak)."""
    records = synthetic(count)
    folder = workspace_for(records, count)
    import recordkit
    corpus = recordkit.load(records)
    chosen = []
    for rec in sorted((r for r in corpus.files if r.ok and r.id.startswith("THEORY-")), key=lambda r: r.id):
        target = next((t.id for ts in rec.relations.values() for t in ts if t.id in corpus.records), None)
        if target is None:
            continue
        rows = rec.path.read_text(encoding="utf-8").split("\n")
        pos = next((types.Position(i, row.index(target) + 1) for i, row in enumerate(rows)
                    if target in row and not row.startswith("id:")), None)
        if pos is not None and len(rows) > 3 and rows[-2].strip():
            chosen.append((rec.path, pos, len(rows) - 2))
        if len(chosen) == n_open:
            break
    del corpus
    s = Session(folder, settings={"debounce": DEBOUNCE_MS})
    await s.start()
    await s.ready()
    uris = [s.open(p) for p, _, _ in chosen]
    for u in uris:
        await s.pushed(u, 0)
    t_start = time.perf_counter()
    minutes: dict[int, dict[str, list]] = {}

    def bucket(t: float) -> dict[str, list]:
        return minutes.setdefault(int((t - t_start) // 60), {"hover": [], "completion": [], "diag": [],
                                                             "edits": [], "lost": [], "errors": []})

    pending: dict[str, tuple[float, int]] = {}   # uri -> (edit time, pushes before)

    async def edits() -> None:
        versions = {u: 1 for u in uris}
        k = 0
        while True:
            due = t_start + k / rate
            now = time.perf_counter()
            if due - t_start >= seconds:
                return
            if due > now:
                await asyncio.sleep(due - now)
            i = k % len(uris)
            u = uris[i]
            if u in pending:         # the last edit's diagnostics never came (2 s later)
                bucket(pending.pop(u)[0])["lost"].append(1)
            versions[u] += 1
            typed = versions[u] % 2 == 0
            t0 = time.perf_counter()
            pending[u] = (t0, s.pushes.get(u, 0))
            s.change(u, versions[u], chosen[i][2], 0, 0 if typed else 1, "x" if typed else "")
            bucket(t0)["edits"].append(1)
            k += 1

    async def watch_pushes() -> None:
        while True:
            for u, (t0, before) in list(pending.items()):
                if s.pushes.get(u, 0) > before:
                    bucket(t0)["diag"].append(s.push_times[u] - t0 - DEBOUNCE_MS / 1000)
                    pending.pop(u, None)
            await asyncio.sleep(0.001)

    async def requests() -> None:
        c = s.client
        k = 0
        while time.perf_counter() - t_start < seconds:
            path, pos, _ = chosen[k % len(chosen)]
            doc = types.TextDocumentIdentifier(uris[k % len(chosen)])
            t0 = time.perf_counter()
            for kind, send in (("hover", lambda: c.text_document_hover_async(types.HoverParams(doc, pos))),
                               ("completion", lambda: c.text_document_completion_async(
                                   types.CompletionParams(doc, pos)))):
                t1 = time.perf_counter()
                try:
                    await asyncio.wait_for(send(), 30)
                    bucket(t1)[kind].append(time.perf_counter() - t1)
                except Exception as exc:     # counted and shown, the soak goes on
                    bucket(t1)["errors"].append(f"{kind}: {str(exc)[:120]}")
            k += 1
            await asyncio.sleep(max(0.0, 0.2 - (time.perf_counter() - t0)))

    watcher = asyncio.ensure_future(watch_pushes())
    await asyncio.gather(edits(), requests())
    await asyncio.sleep(2)
    watcher.cancel()
    print(f"{'minute':<7}{'edits':>6}{'hover p95':>11}{'compl p95':>11}{'diag p50':>10}{'diag p95':>10}"
          f"{'pushes':>8}{'lost':>6}{'errors':>7}  (ms; targets: hover/completion p95 ≤ 150, diagnostics flat)")
    for m in sorted(minutes):
        b = minutes[m]
        ms = {k: [t * 1000 for t in v] for k, v in b.items() if k in ("hover", "completion", "diag")}
        f = (lambda v, q: f"{pct(v, q):10.1f}" if v else f"{'-':>10}")
        print(f"{m + 1:<7}{len(b['edits']):>6}{f(ms['hover'], .95):>11}{f(ms['completion'], .95):>11}"
              f"{f(ms['diag'], .5)}{f(ms['diag'], .95)}{len(ms['diag']):>8}{len(b['lost']):>6}{len(b['errors']):>7}")
    errors = [e for b in minutes.values() for e in b["errors"]]
    for e in sorted(set(errors)):
        print(f"  error x{errors.count(e)}: {e}")
    rss = {}
    for row in Path(f"/proc/{s.pid()}/status").read_text().splitlines():
        if row.startswith(("VmRSS:", "VmHWM:")):
            rss[row.split(":")[0]] = int(row.split()[1]) / 1024
    print(f"server RSS at the end {rss.get('VmRSS', float('nan')):.0f} MB (peak {rss.get('VmHWM', float('nan')):.0f} MB)")
    await s.stop()


def import_floor(n: int = 5) -> dict:
    """Seconds to start Python and import what answering ``initialize``
    cannot do without (pygls' server and lsprotocol's types), the floor
    under the ``initialize`` figure on this machine; and bare start-up."""
    import subprocess
    out = {}
    for label, code in (("python start-up alone", "pass"),
                        ("python + import lsprotocol.types", "import lsprotocol.types"),
                        ("python + import pygls.lsp.server + lsprotocol.types",
                         "import lsprotocol.types, pygls.lsp.server")):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - t0)
        out[label] = times
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, action="append", help="record sizes (default: 1000 and 10000)")
    ap.add_argument("--repeat", type=int, default=50, help="requests per figure (default 50)")
    ap.add_argument("--starts", type=int, default=6, help="server starts for initialize/ready (default 6)")
    ap.add_argument("--soak", type=float, nargs="?", const=600.0, default=None, metavar="SECONDS",
                    help="only the soak: 10 edits/s over 20 open records for SECONDS (default 600)")
    args = ap.parse_args()
    compile_package()
    print(time.strftime("run at %Y-%m-%d %H:%M:%S"), f"on {os.cpu_count()} cores, Python {sys.version.split()[0]}",
          "load average %.2f %.2f %.2f" % os.getloadavg())
    if args.soak is not None:
        for count in args.count or [10000]:
            print(f"\nsoak: {count} records, {args.soak:.0f} s")
            asyncio.run(soak(count, args.soak))
            print(time.strftime("done %H:%M:%S,"), "load average %.2f %.2f %.2f" % os.getloadavg())
        return
    print("\nthe floor under initialize (spawn to exit)")
    for k, v in import_floor().items():
        print(line(k, v))
    results = {}
    for count in args.count or [1000, 10000]:
        res = results[count] = asyncio.run(run(count, args.repeat, args.starts))
        print(f"\n{count} records", time.strftime("(done %H:%M:%S,"), "load average %.2f %.2f %.2f)" % os.getloadavg())
        targets = {"initialize": "(target ≤ 300 ms)", "ready warm": "(target ≤ 1.5 s)", "ready cold": "(target ≤ 4 s)",
                   "keystroke -> own diagnostics (after debounce)": "(target p50 ≤ 60 ms, p95 ≤ 150 ms)",
                   "another open record's diagnostics (after debounce)": "(target p95 ≤ 500 ms)",
                   "completion": "(target p95 ≤ 50 ms)", "hover": "(target p50 ≤ 50 ms)",
                   "definition": "(target ≤ 20 ms)", "git checkout of 2,000 files: read (n=1)": "(target ≤ 3 s)",
                   "git checkout of 1,000 files: read (n=1)": "(2,000: target ≤ 3 s)",
                   "pull while it is read": "(answered meanwhile)"}
        for k, v in res.items():
            if k == "peak RSS MB":
                print(f"{'server peak RSS':<52} {v:8.0f} MB  (target ≤ 500 MB at 10,000)")
            else:
                print(line(k, v, targets.get(k, "")))
    if len(results) >= 2:
        small, large = sorted(results)[0], sorted(results)[-1]
        print(f"\ngrowth {small} -> {large} records (p50 ratio; target ≤ 2x for per-edit figures)")
        for k in results[small]:
            a, b = results[small][k], results[large].get(k)
            if isinstance(a, list) and a and isinstance(b, list) and b:
                print(f"  {k:<50} {statistics.median(b) / statistics.median(a):5.2f}x")


if __name__ == "__main__":
    main()
