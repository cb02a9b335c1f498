"""``initialize`` answered before pygls is imported
(:mod:`recordkit.lsp.handshake`): the fast answer is pygls's own, for
every client profile pytest-lsp ships and every encoding offer; over
stdio the client gets one answer and pygls serves the rest; ``--tcp``
keeps pygls's path."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities

from lspkit import PROFILES, copy_records, server_env
from recordkit.lsp.handshake import frame, initialize_result, served_result

OFFERS = [None, ["utf-8", "utf-16"], ["utf-16"], ["utf-16", "utf-8"], ["utf-32"], ["latin-1"]]


def params_for(profile: str | None, offer) -> dict:
    caps = client_capabilities(profile) if profile else types.ClientCapabilities()
    params = default_converter().unstructure(types.InitializeParams(capabilities=caps, process_id=None))
    if offer is not None:
        params["capabilities"].setdefault("general", {})["positionEncodings"] = offer
    return params


@pytest.mark.parametrize("profile", [*PROFILES, None])
def test_the_fast_answer_is_pyglss_own(profile):
    for offer in OFFERS:
        params = params_for(profile, offer)
        assert initialize_result(params) == served_result(params), (profile, offer)


def test_the_fast_answer_follows_the_client():
    utf8 = initialize_result(params_for("visual-studio-code", ["utf-8", "utf-16"]))["capabilities"]
    assert utf8["positionEncoding"] == "utf-8"
    assert initialize_result({})["capabilities"]["positionEncoding"] == "utf-16"
    bare = initialize_result({"capabilities": {}})["capabilities"]
    assert bare["renameProvider"] is True and bare["workspace"]["fileOperations"] == {}


def frames(data: bytes) -> list[dict]:
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        n = int(next(r for r in head.split(b"\r\n") if r.lower().startswith(b"content-length")).split(b":")[1])
        out.append(json.loads(rest[:n]))
        data = rest[n:]
    return out


def test_stdio_one_answer_then_pygls_serves(tmp_path):
    root = copy_records(tmp_path / "rec")
    params = params_for("neovim", ["utf-8", "utf-16"])
    params["rootUri"] = root.as_uri()
    sent = b"".join(frame(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"}))
    out = subprocess.run([sys.executable, "-m", "recordkit", "lsp"], input=sent, capture_output=True,
                         cwd=root, env=server_env(), timeout=60).stdout
    replies = [m for m in frames(out) if "method" not in m]
    assert [m["id"] for m in replies] == [1, 2]
    assert replies[0]["result"] == served_result(params)
    assert replies[0]["result"]["capabilities"]["positionEncoding"] == "utf-8"
    assert replies[1].get("result", "missing") is None and "error" not in replies[1]


def test_tcp_keeps_pyglss_path(tmp_path):
    root = copy_records(tmp_path / "rec")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "recordkit", "lsp", "--tcp", str(port)], cwd=root,
                            env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
        params = params_for("emacs", None)
        with conn:
            conn.sendall(frame({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params}))
            data = b""
            while True:
                data += conn.recv(65536)
                try:
                    got = frames(data)
                except (StopIteration, ValueError):
                    continue
                if any(m.get("id") == 7 for m in got):
                    break
        reply = next(m for m in got if m.get("id") == 7)
        assert reply["result"] == served_result(params) == initialize_result(params)
    finally:
        proc.kill()
        proc.wait()
