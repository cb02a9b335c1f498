"""``initialize`` answered before pygls is imported (stdio only).

Importing pygls and lsprotocol costs more than the whole ``initialize``
budget on a busy machine (lsprotocol's types alone ≈ 250 ms).  So
``recordkit lsp`` reads the client's first message here, with the
standard library only (``Content-Length`` framing), answers it with
:func:`initialize_result`, and only then imports the server.  The
client's message is then handed to pygls unchanged (:class:`Replay`), so
pygls runs its own ``initialize`` on the same params — its client
capabilities, position encoding, workspace folders and recordkit's
handler are exactly what they would have been — and pygls's reply to it
is the one message not sent (:class:`Output`: the client has its
answer already; it also keeps two threads' messages from interleaving).

:func:`initialize_result` is a plain function of the client's params and
``capabilities.json``, the capabilities pygls computes for the server as
registered (every feature) for a client that supports everything;
what pygls varies by client is applied here: the position encoding,
``willSave``/``willSaveWaitUntil``, the rename options
(``prepareSupport``) and the file operations the client announces.  ``tests/lsp/test_handshake.py`` checks, for each client
profile pytest-lsp ships and for UTF-8/UTF-16 offers, that the result
equals pygls's own; after a feature is added, rewrite the file with
``python -m recordkit.lsp.handshake --write``.
"""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

#: the position encodings pygls knows, in no order (the client's order decides)
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def template_path() -> Path:
    return Path(__file__).with_name("capabilities.json")


def initialize_result(params: dict) -> dict:
    """The ``InitializeResult`` (as JSON) pygls answers to ``params``."""
    from ..version import __version__
    caps = json.loads(template_path().read_text(encoding="utf-8"))
    client = params.get("capabilities") or {}
    offered = (client.get("general") or {}).get("positionEncodings") or []
    caps["positionEncoding"] = next((e for e in offered if e in ENCODINGS), "utf-16")
    sync = caps.get("textDocumentSync")
    if isinstance(sync, dict):
        announced = (client.get("textDocument") or {}).get("synchronization") or {}
        for name in ("willSave", "willSaveWaitUntil"):     # (client's value) and (served)
            value = announced.get(name)
            if value is None:
                sync.pop(name, None)
            elif not value:
                sync[name] = value
    if "renameProvider" in caps:
        rename = (client.get("textDocument") or {}).get("rename") or {}
        if not rename.get("prepareSupport"):
            caps["renameProvider"] = True
    ops = (caps.get("workspace") or {}).get("fileOperations")
    if ops is not None:
        announced = (client.get("workspace") or {}).get("fileOperations") or {}
        for name in list(ops):
            if not announced.get(name):
                del ops[name]
    return {"capabilities": caps, "serverInfo": {"name": "recordkit", "version": __version__}}


def read_message(stream) -> tuple[bytes, dict | None]:
    """One framed message from ``stream``: (the bytes read, the message,
    or None when it is not one)."""
    raw = b""
    length = None
    while True:
        row = stream.readline()
        if not row:
            return raw, None
        raw += row
        if row.lower().startswith(b"content-length:"):
            try:
                length = int(row.split(b":", 1)[1].strip())
            except ValueError:
                return raw, None
        elif not row.strip() and length is not None:
            break
    body = stream.read(length)
    raw += body
    try:
        message = json.loads(body)
    except ValueError:
        return raw, None
    return raw, message if isinstance(message, dict) else None


def frame(message: dict) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Replay:
    """``stream`` with ``prefix`` read first (the bytes the handshake took),
    as pygls reads stdin (``readline``, ``read(n)``)."""

    def __init__(self, prefix: bytes, stream):
        self.prefix = prefix
        self.stream = stream

    def readline(self) -> bytes:
        if self.prefix:
            cut = self.prefix.find(b"\n") + 1 or len(self.prefix)
            row, self.prefix = self.prefix[:cut], self.prefix[cut:]
            return row
        return self.stream.readline()

    def read(self, n: int = -1) -> bytes:
        if self.prefix:
            got, self.prefix = self.prefix[:n], self.prefix[n:]
            return got + (self.stream.read(n - len(got)) if len(got) < n else b"")
        return self.stream.read(n)


class Output:
    """stdout as pygls writes to it: one framed message per ``write``, from
    the event loop and from pygls's thread pool (the features' handlers)
    at once.  A message above the pipe's capacity (64 KiB: a completion
    list at 10,000 records) is written in pieces, and without the lock
    another thread's message landed between them (seen in the soak:
    the client read a broken message and stopped).  Also leaves out
    pygls's reply to request ``reply_id`` (answered already)."""

    def __init__(self, stream, reply_id=None):
        self.stream = stream
        self.reply_id = reply_id
        self.pending = reply_id is not None
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.pending and self.dropped(data):
                return
            self.stream.write(data)
            self.stream.flush()

    def dropped(self, data: bytes) -> bool:
        body = data.split(b"\r\n\r\n", 1)[-1]
        try:
            message = json.loads(body)
        except ValueError:
            return False
        if not (isinstance(message, dict) and "method" not in message and message.get("id") == self.reply_id):
            return False
        self.pending = False
        if "error" in message:      # the client was answered already: say it where it shows
            print(f"recordkit lsp: initialize failed in the server: {message['error']}", file=sys.stderr)
        return True

    def flush(self) -> None:
        with self.lock:
            self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def answer_initialize(stdin, stdout):
    """Answer the client's ``initialize`` now; the (stdin, stdout) pygls
    is to serve on.  Anything else first (no ``initialize``, a message
    that does not parse) is left to pygls untouched."""
    raw, message = read_message(stdin)
    if not message or message.get("method") != "initialize" or "id" not in message:
        return Replay(raw, stdin), Output(stdout)
    result = initialize_result(message.get("params") or {})
    stdout.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": result}))
    stdout.flush()
    return Replay(raw, stdin), Output(stdout, message["id"])


def served_result(params: dict) -> dict:
    """What pygls itself answers to ``params`` for the server as
    registered (imports pygls; for the test and ``--write``)."""
    import asyncio

    from lsprotocol import types

    from .server import make_server

    async def run() -> dict:
        server = make_server(Path.cwd())
        protocol = server.protocol
        steps = protocol.lsp_initialize(protocol._converter.structure(params, types.InitializeParams))
        try:
            handler, args, _ = next(steps)
            while True:
                handler(*args)
                handler, args, _ = steps.send(None)
        except StopIteration as end:
            result = end.value
        finally:
            server.recordkit.shutdown()
        return json.loads(json.dumps(result, default=protocol._serialize_message))
    return asyncio.run(run())


def write_template() -> None:
    """``capabilities.json`` from pygls, for a client that supports everything."""
    ops = {k: True for k in ("willCreate", "didCreate", "willDelete", "didDelete", "willRename", "didRename")}
    full = {"capabilities": {"textDocument": {"rename": {"prepareSupport": True},
                                              "synchronization": {"willSave": True, "willSaveWaitUntil": True}},
                             "workspace": {"fileOperations": ops}}}
    caps = served_result(full)["capabilities"]
    caps.pop("positionEncoding", None)
    template_path().write_text(json.dumps(caps, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_template()
        print(f"wrote {template_path()}")
