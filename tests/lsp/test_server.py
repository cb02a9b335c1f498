"""The server over stdio under each client profile: it starts, answers
``initialize`` before the record is read, reads it with progress, and
pushes or answers diagnostics."""
from __future__ import annotations

import time

import pytest
from lsprotocol import types

from conftest import PROFILES, count_pushes, diagnostics, lsp_client, open_doc, uri

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest.mark.parametrize("profile", PROFILES)
async def test_starts_and_lints_an_open_record(records_copy, profile):
    async with lsp_client(records_copy, profile) as client:
        path = sorted((records_copy / "records" / "theory").glob("*.md"))[0]
        u = open_doc(client, path)
        got = await diagnostics(client, u)
        assert isinstance(got, list)
