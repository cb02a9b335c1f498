"""Diagnostic messages quote what the file says, in YAML's words, never a
Python repr: a table of odd YAML values put in every kind of field, linted
through the real CLI with every rule, and every message read."""
from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli, write

#: values YAML reads as something other than the text (dates, mappings,
#: sets, binary, octal and sexagesimal integers, NaN, ...)
ODD_VALUES = [
    "{2026-01-01}", "2026-01-01", "2026-01-01 10:00:00", "!!timestamp 2001-12-14t21:59:43.10-05:00",
    "{a: 1}", "{null: 1, true: x}", "[1, 2]", "[[a], {b: c}]", "null", "~", "true", "yes", "0042", "42",
    "1e3", ".nan", "-.inf", "!!binary aGVsbG8=", "!!set {a, b}", "123456789012345678901234567890",
    "'2026-13-45'", "{? [a, b] : c}", "12:30", "''", "[]", "{}",
]

#: (kind, the front matter every such record needs) and the fields to put odd values in
KINDS = {
    "LIT": "title: t\nstatus: queued\nauthors: [a]\nyear: 2020\n",
    "NOTE": "title: t\nstatus: draft\npaper: LIT-001\n",
    "THEORY": "title: t\nstatus: proposed\nsource: [LIT-001]\npromote_when: {summary: s}\n",
    "CLAIM": "title: t\nstatus: open\ngrounds: [LIT-001]\n",
}
FIELDS = {
    "LIT": ["title", "status", "tags", "created", "authors", "year", "read", "references", "aliases", "checks",
            "lint", "publish", "unknown_field"],
    "NOTE": ["paper", "date", "bears_on"],
    "THEORY": ["source", "extends", "promote_when", "promoted_by"],
    "CLAIM": ["strength", "grounds", "contradicts"],
}

#: what a Python repr looks like in a message
REPR = re.compile(r"datetime\.|\{'|\['|\bNone\b|\bTrue\b|\bFalse\b|\bb'|set\(|Decimal\(|(?<![.\w])(nan|inf)\b"
                  r"|<[a-z_.]+ object|\\\\x")


@pytest.mark.slow
def test_no_python_repr_in_any_message(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/LIT-001.md", "---\nid: LIT-001\n" + KINDS["LIT"] + "---\n")
    n = 100
    where = {}
    for kind, fields in FIELDS.items():
        base = KINDS[kind]
        for field in fields:
            for value in ODD_VALUES:
                n += 1
                rid = f"{kind}-{n:03d}"
                kept = "".join(line + "\n" for line in base.splitlines() if not line.startswith(field + ":"))
                write(tmp_path, f"records/{rid}.md", f"---\nid: {rid}\n{kept}{field}: {value}\n---\nBody.\n")
                where[f"records/{rid}.md"] = (field, value)
    proc = run_cli("lint", "--no-cache", "--select", "ALL", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    diags = json.loads(proc.stdout)
    assert len(diags) > 200
    bad = [(d["filename"], where.get(d["filename"]), d["code"], d["message"]) for d in diags
           if REPR.search(d["message"])]
    assert bad == [], "\n".join(map(str, bad[:20]))
    # a flow mapping of a date with no value: said so in words
    created = [d["message"] for d in diags
               if where.get(d["filename"]) == ("created", "{2026-01-01}") and d["code"] == "RK205"]
    assert created == ["`created` is `{2026-01-01}` (the braces make this a mapping), not a date (YYYY-MM-DD)"]
    # a value YAML reads as something else is quoted as the file writes it
    sexagesimal = [d["message"] for d in diags
                   if where.get(d["filename"]) == ("created", "12:30") and d["code"] == "RK205"]
    assert sexagesimal == ["`created` is `12:30`, which YAML reads as an integer (750), not a date (YYYY-MM-DD)"]


def test_an_unquoted_numeric_id_says_quote_it(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/NOTE-042.md", "---\nid: 0042\ntitle: t\nstatus: draft\n---\n")
    write(tmp_path, "records/NOTE-043.md", "---\nid: 43\ntitle: t\nstatus: draft\n---\n")
    proc = run_cli("lint", "--no-cache", "--format", "json", cwd=tmp_path)
    diags = json.loads(proc.stdout)
    for name, written in (("NOTE-042.md", "0042"), ("NOTE-043.md", "43")):
        msgs = [d["message"] for d in diags if d["filename"].endswith(name)]
        assert any("quote it" in m and f"`{written}`" in m for m in msgs), msgs
