"""pytest-lsp helpers and fixtures (a module, not conftest.py: a second
conftest would take the name `conftest` that the rest of the suite imports
run_cli from; tests import what they use from here): the real ``recordkit lsp`` over stdio, driven by
pytest-lsp's client, under the capability profiles pytest-lsp ships
(VS Code, Neovim, Emacs), on a temporary copy of ``records/`` and on one
vault per preset (tests/fixtures/vaults/).

``lsp_client(root, profile=..., settings=...)`` is an async context
manager giving a :class:`pytest_lsp.LanguageClient` whose server has read
the record; the features' tests reuse it::

    async with lsp_client(records_copy, "neovim") as client:
        await client.text_document_hover_async(...)
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

REPO = Path(__file__).resolve().parents[2]
VAULTS = REPO / "tests" / "fixtures" / "vaults"
#: the capability profiles pytest-lsp ships, by the names it gives them
PROFILES = ["visual-studio-code", "neovim", "emacs"]
PRESETS = ["obsidian", "foam", "dendron", "madr"]


def uri(path) -> str:
    return Path(path).resolve().as_uri()


def copy_records(dest: Path) -> Path:
    """A copy of the repository's record (``records/`` and ``checks/``) with
    a ``recordkit.toml`` naming them; the folder."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "records", dest / "records")
    if (REPO / "checks").is_dir():
        shutil.copytree(REPO / "checks", dest / "checks", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\n', encoding="utf-8")
    return dest


def copy_vault(name: str, dest: Path) -> Path:
    """A copy of the vault ``name`` with a ``recordkit.toml`` naming its preset."""
    shutil.copytree(VAULTS / name, dest, symlinks=True)
    exp = json.loads((dest / "expected.json").read_text(encoding="utf-8"))
    (dest / "expected.json").unlink()
    (dest / "recordkit.toml").write_text(f'root = "{exp.get("root", ".")}"\nschema = "preset:{exp["preset"]}"\n',
                                         encoding="utf-8")
    return dest


@pytest.fixture
def records_copy(tmp_path) -> Path:
    return copy_records(tmp_path / "rec")


@pytest.fixture(params=PRESETS)
def vault_copy(request, tmp_path) -> Path:
    return copy_vault(request.param, tmp_path / request.param)


def server_env() -> dict:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("GITHUB_ACTIONS", None)
    return env


async def wait_for(predicate, timeout: float = 20.0, what: str = "the condition"):
    """Poll ``predicate()`` until it is truthy (its value) or fail after ``timeout`` s."""
    end = time.monotonic() + timeout
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def wait_ready(client, timeout: float = 60.0) -> None:
    await wait_for(lambda: any("record ready" in m.message for m in client.log_messages), timeout, "the record ready")


@contextlib.asynccontextmanager
async def lsp_client(root: Path, profile: str = "visual-studio-code", settings: dict | None = None,
                     capabilities: types.ClientCapabilities | None = None, ready: bool = True):
    """A client of ``recordkit lsp`` started in ``root`` and initialised
    with ``profile``'s capabilities (or ``capabilities``), ``settings`` as
    its initialization options; with ``ready``, once the record is read."""
    client = make_test_lsp_client()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        client.registrations.extend(params.registrations)

    await client.start_io(sys.executable, "-m", "recordkit", "lsp", cwd=str(root), env=server_env())
    caps = capabilities or client_capabilities(profile)
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=uri(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri(root), name=Path(root).name)],
            initialization_options=settings))
        if ready:
            await wait_ready(client)
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 10)
        await client.stop()


def open_doc(client, path: Path, text: str | None = None, version: int = 1) -> str:
    """``didOpen`` of ``path`` (its text on disk unless given); its uri."""
    u = uri(path)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=u, language_id="markdown", version=version,
        text=path.read_text(encoding="utf-8") if text is None else text)))
    return u


def pulls(client) -> bool:
    """Whether this client pulls diagnostics (the server then does not push)."""
    td = client.capabilities.text_document
    return bool(td and td.diagnostic)


async def diagnostics(client, u: str, *, after: int | None = None, timeout: float = 20.0):
    """The diagnostics of ``u`` as the client gets them: pulled
    (``textDocument/diagnostic``) or pushed (``publishDiagnostics``; the
    first push after ``after`` pushes of it, when given)."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(u)))
        return list(report.items)
    await wait_for(lambda: u in client.diagnostics and (after is None or pushes(client, u) > after), timeout,
                   f"diagnostics of {u}")
    return list(client.diagnostics[u])


def pushes(client, u: str) -> int:
    """How many ``publishDiagnostics`` of ``u`` the client received (counted by :func:`count_pushes`)."""
    return getattr(client, "_rk_pushes", {}).get(u, 0)


def count_pushes(client) -> None:
    """Count each ``publishDiagnostics`` per uri (pytest-lsp keeps only the last)."""
    counts: dict = {}
    client._rk_pushes = counts
    features = client.protocol.fm.features
    keep = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(*args):
        params = args[-1]
        counts[params.uri] = counts.get(params.uri, 0) + 1
        return keep(*args)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish


@pytest.fixture
def lsp():
    """The helpers as one fixture, for tests that prefer it to imports."""
    return {"lsp_client": lsp_client, "open_doc": open_doc, "diagnostics": diagnostics, "wait_for": wait_for,
            "copy_records": copy_records, "copy_vault": copy_vault}
