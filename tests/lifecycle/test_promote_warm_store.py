"""``promote --apply`` on a record loaded through the store of parsed records
(warmed by a ``lint``) whose file an editor saves after the load: its record
reads its text from the file when first asked, the new text, while its parse
is the old one.  The promotion must come out byte for byte as it does from a
cold load (``--no-cache``-like: no store), which plans from the old text,
finds the file changed when writing and plans again from the new one."""
import os

import pytest
from click.testing import CliRunner

import recordkit.lifecycle.promotion as promotion
from recordkit.cli import main
from recordkit.runtime import tuning

from conftest import write
from test_lifecycle import LIT, PROMOTABLE, note

EDITS = {
    "body": (b"Text that stays.", b"Text that stays, edited."),
    "front matter": (b"tags: [a-tag]", b"tags: [a-tag, b-tag]"),
}


def _promote(tmp_path, monkeypatch, warm: bool, edit) -> tuple:
    root = tmp_path / ("warm" if warm else "cold") / "records"
    for rel, text in {"lit/LIT-001.md": LIT, "note/NOTE-001.md": note("NOTE-001"),
                      "theory/THEORY-001.md": PROMOTABLE}.items():
        write(root, rel, text)
    theory = root / "theory" / "THEORY-001.md"
    monkeypatch.chdir(root.parent)
    monkeypatch.setattr(tuning, "RACY_NS", 0)      # (files written a moment ago: their stat trusted)
    env = {"RECORDKIT_CLEAN_EXIT": "1"}
    if warm:
        CliRunner().invoke(main, ["--root", str(root), "lint"], env=env)
        assert (root.parent / ".recordkit").is_dir() or any(root.parent.rglob("*.pickle"))
    real = promotion.remove_stale_temps

    def editor_saves_then(folders):     # after the load, before the plan: an editor saves the file
        theory.write_bytes(theory.read_bytes().replace(*edit))
        return real(folders)
    monkeypatch.setattr(promotion, "remove_stale_temps", editor_saves_then)
    res = CliRunner().invoke(main, ["--root", str(root), "promote", "THEORY-001", "--apply"], env=env)
    monkeypatch.setattr(promotion, "remove_stale_temps", real)
    return res.exit_code, res.output, theory.read_bytes()


@pytest.mark.parametrize("where", sorted(EDITS))
def test_promote_apply_after_a_warm_store_equals_a_cold_run(tmp_path, monkeypatch, where):
    cold = _promote(tmp_path, monkeypatch, False, EDITS[where])
    assert cold[0] == 0, cold[1]
    assert b"status: 'active'" in cold[2] and EDITS[where][1] in cold[2]
    warm = _promote(tmp_path, monkeypatch, True, EDITS[where])
    assert warm == cold
