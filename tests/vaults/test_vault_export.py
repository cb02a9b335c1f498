"""A vault's SQLite export holds its links as the graph does: each body
link that resolves (by path, file name, title or alias, label-first, embed,
Markdown link) is a ``relations`` row of origin ``body`` and a ``mentions``
row whose target is the record's id."""
from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import run_cli
from test_vaults import NAMES, copy_vault


@pytest.mark.parametrize("name", NAMES)
def test_body_links_in_the_export_are_the_graphs(tmp_path, name):
    folder = copy_vault(name, tmp_path / name)
    db = tmp_path / "v.sqlite"
    proc = run_cli("export", "--sqlite", str(db), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("graph", "--format", "json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    graph = json.loads(proc.stdout)
    links = graph.get("links") or graph.get("edges")
    want = {(e["source"], e["target"]) for e in links if e.get("origin") == "body"}
    assert want, "the vault has body links"
    with sqlite3.connect(db) as conn:
        got = {(s, t) for s, t in conn.execute("SELECT source, target FROM relations WHERE origin = 'body'")}
        ids = {r for (r,) in conn.execute("SELECT id FROM records")}
        resolved = {(s, t) for s, t in conn.execute(
            "SELECT record, target FROM mentions WHERE target_exists = 1 AND record != target")}
        dangling = [t for (t,) in conn.execute("SELECT target FROM mentions WHERE target_exists = 0")]
    assert got == want
    assert resolved == want
    assert not [t for t in dangling if t in ids]
