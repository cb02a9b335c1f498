"""The order of ids (recordkit/common/order.py)."""
from recordkit.common.order import id_sort_key

from conftest import run_cli, write


def test_ids_sort_by_kind_then_number_and_never_raise():
    huge = "NOTE-" + "1" * 5000          # beyond int()'s 4,300 digits (found by tests/test_fuzz.py)
    ids = ["NOTE-10", huge, "NOTE-9", "LIT-2", "NOTE-²", "NOTE-x", "NOTE-0010", "NOTE-" + "2" * 4400]
    got = sorted(ids, key=id_sort_key)
    assert got == ["LIT-2", "NOTE-x", "NOTE-9", "NOTE-0010", "NOTE-10", huge, "NOTE-" + "2" * 4400, "NOTE-²"]


def test_show_on_a_record_with_a_huge_id_number(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: n\nstatus: draft\n---\nText.\n")
    write(tmp_path, "records/note/NOTE-002.md", "---\nid: NOTE-" + "1" * 5000 + "\ntitle: x\n---\nbody\n")
    proc = run_cli("show", "NOTE-001", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
