"""Dates written as epoch milliseconds (Dendron's ``created``/``updated``,
``{type: date, epoch: ms}`` in the preset) reach the SQLite export and the
site as ISO dates, not NULL and not numbers."""
import datetime as dt
import re
import sqlite3

from conftest import run_cli
from test_vaults import VAULTS, copy_vault

VAULT_NOTES = VAULTS / "dendron" / "notes"


def _epoch_dates() -> dict:
    """Each note's (created, updated) as the UTC dates its numbers are,
    worked out here from the files (None: no date in milliseconds)."""
    out = {}
    for p in VAULT_NOTES.glob("*.md"):
        text = p.read_text(encoding="utf-8")
        got = []
        for key in ("created", "updated"):
            m = re.search(rf"^{key}: (\d+)$", text, re.M)
            try:
                got.append(dt.datetime.fromtimestamp(int(m.group(1)) / 1000, dt.timezone.utc).date().isoformat()
                           if m else None)
            except (ValueError, OverflowError, OSError):
                got.append(None)
        out[p.stem] = tuple(got)
    return out


def test_epoch_dates_are_iso_dates_in_the_sqlite_export(tmp_path):
    folder = copy_vault("dendron", tmp_path / "dendron")
    db = tmp_path / "d.sqlite"
    proc = run_cli("export", "--sqlite", str(db), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(db) as conn:
        rows = {rid: (c, u) for rid, c, u in conn.execute("SELECT id, created, updated FROM records")}
    want = _epoch_dates()
    assert rows == want
    assert rows["eval"] == ("2026-01-02", "2026-02-20")
    # the one number that is no date in milliseconds (a microsecond stamp, RK205) stays NULL
    assert [r for r, (c, _) in rows.items() if c is None] == ["task.2026.03.12.rerun-baselines"]


def test_epoch_dates_are_shown_and_sort_the_recent_list_on_the_site(tmp_path):
    folder = copy_vault("dendron", tmp_path / "dendron")
    proc = run_cli("build", "-o", "site", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    page = (folder / "site" / "note" / "eval.html").read_text(encoding="utf-8")
    assert '<time datetime="2026-02-20">2026-02-20</time>' in page
    index = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "No record has a date" not in index
    shown = re.findall(r'<td class="rk-nowrap">(\d{4}-\d{2}-\d{2})</td>', index)
    newest = sorted((u for _c, u in _epoch_dates().values() if u), reverse=True)
    assert shown and shown == newest[:len(shown)]
