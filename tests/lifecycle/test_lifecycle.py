"""The theory lifecycle: promote_when, RK401-RK406, standings, recordkit promote.

Records are written in each test; diagnostics, standings and promotion go
through the real CLI (``python -m recordkit ...`` in a subprocess) except
where a test needs check results of a given verdict, which it passes to the
library directly.
"""
import json
import textwrap

import pytest

import recordkit
from recordkit import lifecycle as lc
from recordkit.numeric.results import CheckResult

from conftest import run_cli
from recordkit.graph import of as graph_of

LIT = """
---
id: LIT-001
title: A paper
status: active
authors: [A. Author]
year: 2020
---
## Key takeaways
Things.
"""


def note(rid, status="final", bears_on="THEORY-001", body=""):
    return f"""
---
id: {rid}
title: Note {rid}
status: {status}
paper: LIT-001
bears_on: [{bears_on}]
---
## Claims
| id | claim | strength | support |
| --- | --- | --- | --- |
{body}
"""


# A note holding two block checks: one passes, one fails.
CHECKS_NOTE = """
---
id: NOTE-900
title: Where the checks live
status: draft
paper: LIT-001
---
```python check id=tiny-pass tolerance=1e-9
error = 0.0
```

```python check id=tiny-fail tolerance=1e-9
error = 0.5
```
"""

SECTIONS = """
## What is asserted
Something.

## What would confirm or reject it
Something else.
"""


def T(text):
    """A THEORY file: ``text`` (front matter) and the sections the schema expects."""
    return textwrap.dedent(text).lstrip("\n") + SECTIONS


def lint(root, *select):
    """RK4xx diagnostics of the record at ``root`` through ``recordkit lint``:
    (code, file name, row, column, end row, end column, severity, message)."""
    proc = run_cli("--root", str(root), "lint", "--no-cache", "--format", "json",
                   "--select", ",".join(select or ["RK4"]), cwd=root.parent)
    assert proc.returncode in (0, 1), proc.stderr
    out = []
    for d in json.loads(proc.stdout):
        out.append((d["code"], d["filename"].rsplit("/", 1)[-1], d["location"]["row"], d["location"]["column"],
                    d["end_location"]["row"], d["end_location"]["column"], d["severity"], d["message"]))
    return sorted(out)


def codes_at(diags):
    return sorted((d[0], d[1], d[2], d[3]) for d in diags)


# ---------------------------------------------------------------------------
# RK401-RK406 at their exact positions, through `recordkit lint`
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_rk401_unmet_and_unknown_items_of_an_active_theory(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "note/NOTE-001.md": note("NOTE-001", status="draft"),
        "note/NOTE-900.md": CHECKS_NOTE,
        "theory/THEORY-001.md": T("""
        ---
        id: THEORY-001
        title: An active theory whose evidence is gone
        status: active
        source: [LIT-001]
        promoted_by: NOTE-001
        promote_when:
          summary: A final note bears on it and the check passes.
          requires:
            - record: {kind: NOTE, relation: bears_on, status: final}
            - check: tiny-pass
        ---
        """),
    })
    diags = lint(root)
    assert codes_at(diags) == [("RK401", "THEORY-001.md", 10, 7), ("RK401", "THEORY-001.md", 11, 7)]
    unmet = next(d for d in diags if d[2] == 10)
    assert unmet[6] == "error"
    assert unmet[4:6] == (10, 62)           # the end of the item, not the start of the next line
    assert "unmet: no NOTE with status final points here by bears_on; NOTE-001 (draft) does" in unmet[7]
    unknown = next(d for d in diags if d[2] == 11)
    assert unknown[6] == "warning"          # unknown is not known to be wrong: a warning that says so
    assert "is unknown: check tiny-pass has not been run (recordkit check)" in unknown[7]

    # once the check has run and passed, only the unmet item is left
    proc = run_cli("--root", str(root), "check", "tiny-pass", cwd=root.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert codes_at(lint(root)) == [("RK401", "THEORY-001.md", 10, 7)]


def test_rk402_proposed_or_active_without_promote_when(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "theory/THEORY-001.md": T("""
        ---
        id: THEORY-001
        title: No condition
        status: proposed  # for now
        source: [LIT-001]
        ---
        """),
        "theory/THEORY-002.md": T("""
        ---
        id: THEORY-002
        title: Retired, so no condition needed
        status: retired
        source: [LIT-001]
        ---
        """),
    })
    diags = lint(root)
    assert codes_at(diags) == [("RK402", "THEORY-001.md", 4, 9)]
    assert diags[0][4:6] == (4, 17)
    assert "proposed but has no promote_when" in diags[0][7]


def test_rk403_each_kind_of_malformed_item(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "note/NOTE-900.md": CHECKS_NOTE,
        "theory/THEORY-001.md": T("""
        ---
        id: THEORY-001
        title: Every mistake
        status: proposed
        source: [LIT-001]
        promote_when:
          summary: Many things.
          requires:
            - check: tiny-pas
            - record: {kind: NOTES, relation: bears_on}
            - record: {kind: NOTE, relation: bear_on}
            - claim: CLAIM-999
            - note: NOTE-001
            - record: {kind: NOTE, relation: bears_on}
              status: finale
            - record: {kind: LIT, relation: bears_on}
            - check: tiny-pass
              claim: CLAIM-999
        ---
        """),
        "theory/THEORY-002.md": T("""
        ---
        id: THEORY-002
        title: requires is not a list
        status: proposed
        source: [LIT-001]
        promote_when:
          summary: Something.
          requires: {check: tiny-pass}
        ---
        """),
    })
    diags = lint(root, "RK403")
    got = {(d[1], d[2], d[3]): d[7] for d in diags}
    assert set(got) == {
        ("THEORY-001.md", 9, 14), ("THEORY-001.md", 10, 22), ("THEORY-001.md", 11, 38),
        ("THEORY-001.md", 12, 14), ("THEORY-001.md", 13, 7), ("THEORY-001.md", 15, 15),
        ("THEORY-001.md", 16, 37), ("THEORY-001.md", 17, 7), ("THEORY-002.md", 8, 13),
    }, diags
    assert "unknown check 'tiny-pas' (did you mean tiny-pass?)" in got[("THEORY-001.md", 9, 14)]
    assert "unknown kind 'NOTES' (did you mean NOTE?)" in got[("THEORY-001.md", 10, 22)]
    assert "unknown relation 'bear_on' (did you mean bears_on?)" in got[("THEORY-001.md", 11, 38)]
    assert "CLAIM-999 does not exist" in got[("THEORY-001.md", 12, 14)]
    assert "has none of check:, record: or claim: (it has note)" in got[("THEORY-001.md", 13, 7)]
    assert "'finale' is not a status of NOTE" in got[("THEORY-001.md", 15, 15)]
    assert "no LIT can point at a THEORY by bears_on" in got[("THEORY-001.md", 16, 37)]
    assert "has check and claim: write one per item" in got[("THEORY-001.md", 17, 7)]
    assert "requires must be a list" in got[("THEORY-002.md", 8, 13)]
    assert all(d[0] == "RK403" and d[6] == "error" for d in diags)


def test_rk404_ready_rk405_needs_field_rk406_builds_on_broken(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "note/NOTE-001.md": note("NOTE-001"),
        "theory/THEORY-001.md": T("""
        ---
        id: THEORY-001
        title: Ready
        status: proposed
        source: [LIT-001]
        extends: [THEORY-009, THEORY-004]
        promote_when:
          summary: A final note bears on it.
          requires:
            - record: {kind: NOTE, relation: bears_on}
              status: final
        ---
        """),
        "theory/THEORY-004.md": T("""
        ---
        id: THEORY-004
        title: Rejected
        status: rejected
        source: [LIT-001]
        ---
        """),
        "theory/THEORY-009.md": T("""
        ---
        id: THEORY-009
        title: Retired, and builds on the rejected one, so not reported
        status: retired
        source: LIT-001
        extends: THEORY-004
        ---
        """),
        "theory/THEORY-005.md": T("""
        ---
        id: THEORY-005
        title: Active without promoted_by
        status: active
        source: [LIT-001]
        promote_when:
          summary: A person judged it.
        ---
        """),
        "question/QUESTION-001.md": """
        ---
        id: QUESTION-001
        title: Answered, by nothing
        status: "answered"
        about: [THEORY-001]
        ---
        Body.
        """,
    })
    diags = lint(root)
    assert codes_at(diags) == [
        ("RK404", "THEORY-001.md", 4, 9),
        ("RK405", "QUESTION-001.md", 4, 9),
        ("RK405", "THEORY-005.md", 4, 9),
        ("RK406", "THEORY-001.md", 6, 11),
        ("RK406", "THEORY-001.md", 6, 23),
    ]
    by = {(d[0], d[1], d[3]): d for d in diags}
    assert by[("RK404", "THEORY-001.md", 9)][6] == "info"
    assert "ready to promote: its one requirement holds" in by[("RK404", "THEORY-001.md", 9)][7]
    assert "status answered needs answered_by" in by[("RK405", "QUESTION-001.md", 9)][7]
    assert by[("RK405", "QUESTION-001.md", 9)][4:6] == (4, 19)      # the quoted value
    assert "status active needs promoted_by" in by[("RK405", "THEORY-005.md", 9)][7]
    assert by[("RK406", "THEORY-001.md", 23)][7] == "builds on THEORY-004 (extends), which is rejected"
    assert by[("RK406", "THEORY-001.md", 23)][6] == "warning"
    assert by[("RK406", "THEORY-001.md", 11)][7] == "builds on THEORY-009 (extends), which is retired"


def test_rk405_follows_a_user_schema(tmp_path):
    (tmp_path / "schema.yaml").write_text(
        "kinds:\n"
        "  DATASET:\n"
        "    statuses: [collected, validated]\n"
        "relations:\n"
        "  validated_by:\n"
        "    from: [DATASET]\n"
        "    to: [NOTE]\n"
        "    required_when: [validated]\n", encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "records"\nschema = "schema.yaml"\n', encoding="utf-8")
    d = tmp_path / "records" / "dataset"
    d.mkdir(parents=True)
    (d / "DATASET-001.md").write_text("---\nid: DATASET-001\ntitle: Data\nstatus: validated\n---\nBody.\n",
                                      encoding="utf-8")
    proc = run_cli("lint", "--no-cache", "--format", "json", "--select", "RK405", cwd=tmp_path)
    diags = json.loads(proc.stdout)
    assert [(x["code"], x["location"]["row"], x["location"]["column"]) for x in diags] == [("RK405", 4, 9)]
    assert "status validated needs validated_by" in diags[0]["message"]


# ---------------------------------------------------------------------------
# Requirement evaluation
# ---------------------------------------------------------------------------

def result(verdict, stale=False, d=0.0, tol=1e-9, message=""):
    return CheckResult(id="x", verdict=verdict, discrepancy=d, tolerance=tol, stale=stale, message=message)


@pytest.mark.parametrize("res, state, reason", [
    (None, "unknown", "check c has not been run (recordkit check)"),
    (result("pass", stale=True), "unknown", "the result of check c is stale"),
    (result("fail", stale=True, d=1.0), "unknown", "stale"),
    (result("pass", d=1e-12), "met", "check c passes (discrepancy 1e-12 ≤ 1e-09)"),
    (result("fail", d=0.5), "unmet", "check c fails: discrepancy 0.5 > tolerance 1e-09"),
    (result("error", message="ZeroDivisionError"), "unmet", "check c raised an error: ZeroDivisionError"),
    (result("timeout"), "unmet", "check c timed out"),
    (result("crashed"), "unmet", "check c crashed"),
])
def test_check_item_states(res, state, reason):
    got_state, got_reason = lc.check_item_state("c", res)
    assert got_state == state
    assert reason in got_reason


CLAIM = """
---
id: CLAIM-201
title: A claim
status: {status}
grounds: [LIT-001]
---
Body.
"""


def test_claim_requirement_and_status_beside_record(make_record, monkeypatch):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "note/NOTE-001.md": note("NOTE-001"),
        "note/NOTE-900.md": CHECKS_NOTE,
        "claim/CLAIM-201.md": CLAIM.replace("{status}", "open"),
        "theory/THEORY-001.md": """
        ---
        id: THEORY-001
        title: t
        status: proposed
        source: [LIT-001]
        promote_when:
          summary: s
          requires:
            - claim: CLAIM-201
            - record: {kind: NOTE, relation: bears_on, status: final}
            - check: tiny-pass
        ---
        """,
    })
    corpus = recordkit.load(root)
    ev = lc.evaluate(corpus, "THEORY-001", results={"tiny-pass": result("pass")})
    assert [(i.state, i.reason, i.by) for i in ev.items] == [
        ("unmet", "CLAIM-201 is open, not supported", None),
        ("met", "NOTE-001 (final) points here by bears_on", "NOTE-001"),
        ("met", "check tiny-pass passes (discrepancy 0 ≤ 1e-09)", None),
    ]
    # the same texts `recordkit show` prints for the items
    assert [i.text for i in ev.items] == ["claim CLAIM-201 supported",
                                          "a NOTE pointing here by bears_on with status final",
                                          "check tiny-pass"]
    # results=None loads them through recordkit.numeric.store.load_results
    import recordkit.numeric.store as nr
    monkeypatch.setattr(nr, "load_results", lambda corpus, specs=None: {"tiny-pass": result("fail", d=2.0)})
    ev = lc.evaluate(corpus, "THEORY-001")
    assert ev.items[2].state == "unmet"


# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------

STANDING_FILES = {
    "lit/LIT-001.md": LIT,
    "note/NOTE-001.md": note("NOTE-001", bears_on="THEORY-001, THEORY-003"),
    "note/NOTE-002.md": note("NOTE-002", status="draft", bears_on="THEORY-002"),
    "note/NOTE-900.md": CHECKS_NOTE,
    # ready: proposed, its requirements hold
    "theory/THEORY-001.md": """
    ---
    id: THEORY-001
    title: Ready
    status: proposed
    source: [LIT-001]
    promote_when:
      summary: A final note, and the check.
      requires:
        - record: {kind: NOTE, relation: bears_on, status: final}
        - check: tiny-pass
    ---
    """,
    # blocked: its note is a draft, its check has not been run
    "theory/THEORY-002.md": """
    ---
    id: THEORY-002
    title: Blocked
    status: proposed
    source: [LIT-001]
    promote_when:
      summary: A final note.
      requires:
        - record: {kind: NOTE, relation: bears_on, status: final}
        - check: tiny-fail
    ---
    """,
    # established: active, promoted_by, requirement holds
    "theory/THEORY-003.md": """
    ---
    id: THEORY-003
    title: Established
    status: active
    source: [LIT-001]
    promoted_by: NOTE-001
    promote_when:
      summary: A final note.
      requires:
        - record: {kind: NOTE, relation: bears_on, status: final}
    ---
    """,
    # awaiting judgement: prose only
    "theory/THEORY-004.md": """
    ---
    id: THEORY-004
    title: Prose only
    status: proposed
    source: [LIT-001]
    promote_when:
      summary: When a person is convinced.
    ---
    """,
    # rejected, and what builds on it, directly and transitively
    "theory/THEORY-010.md": """
    ---
    id: THEORY-010
    title: Rejected
    status: rejected
    source: [LIT-001]
    ---
    """,
    "theory/THEORY-011.md": """
    ---
    id: THEORY-011
    title: Extends the rejected one, and is otherwise established
    status: active
    source: [LIT-001]
    extends: [THEORY-010]
    promoted_by: NOTE-001
    promote_when:
      summary: A person judged it.
    ---
    """,
    "claim/CLAIM-301.md": """
    ---
    id: CLAIM-301
    title: Grounded on a theory that extends the rejected one
    status: open
    grounds: [THEORY-011, LIT-001]
    ---
    """,
    "claim/CLAIM-302.md": """
    ---
    id: CLAIM-302
    title: Grounded on that claim
    status: supported
    grounds: CLAIM-301
    ---
    """,
}


def test_every_standing(make_record):
    root = make_record(STANDING_FILES)
    corpus = recordkit.load(root)
    st = lc.standings(corpus, results={})
    got = {rid: (s.state, s.lifecycle) for rid, s in st.items() if s.state}
    assert got == {
        "THEORY-001": ("blocked", "blocked"),           # its check has not been run: unknown, not ready
        "THEORY-002": ("blocked", "blocked"),
        "THEORY-003": ("established", "established"),
        "THEORY-004": ("awaiting-judgement", "awaiting-judgement"),
        "THEORY-011": ("undermined", "established"),
        "CLAIM-301": ("undermined", None),
        "CLAIM-302": ("undermined", None),
    }
    assert st["THEORY-001"].detail == "unknown: check tiny-pass has not been run (recordkit check)"
    assert st["THEORY-002"].detail == ("unmet: no NOTE with status final points here by bears_on; "
                                      "NOTE-002 (draft) does; unknown: check tiny-fail has not been run "
                                      "(recordkit check)")
    assert st["THEORY-003"].detail == "promoted by NOTE-001; its one requirement holds"
    # a transitive path of length 3, undermined winning over established for display
    assert st["CLAIM-302"].path == ["CLAIM-302", "CLAIM-301", "THEORY-011", "THEORY-010"]
    assert st["CLAIM-302"].detail == "CLAIM-302 → CLAIM-301 → THEORY-011 → THEORY-010 (rejected)"
    assert st["THEORY-011"].states == ("undermined", "established")
    assert st["THEORY-010"].state is None            # a broken record has no standing of its own

    passing = {"tiny-pass": result("pass"), "tiny-fail": result("fail", d=0.5)}
    st = lc.standings(corpus, results=passing)
    assert (st["THEORY-001"].state, st["THEORY-001"].detail) == ("ready", "all 2 requirements hold")
    assert "unmet: check tiny-fail fails: discrepancy 0.5 > tolerance 1e-09" in st["THEORY-002"].detail


def _chain(root, n: int) -> None:
    """THEORY-00001 (refuted), then n - 1 theories each extending the one before."""
    (root / "lit").mkdir(parents=True, exist_ok=True)
    (root / "lit" / "LIT-001.md").write_text("---\nid: LIT-001\ntitle: base\nstatus: read\n---\nbody\n")
    (root / "theory").mkdir(exist_ok=True)
    for i in range(1, n + 1):
        ext = f"extends: [THEORY-{i - 1:05d}]\n" if i > 1 else ""
        (root / "theory" / f"THEORY-{i:05d}.md").write_text(
            f"---\nid: THEORY-{i:05d}\ntitle: T{i}\nstatus: {'refuted' if i == 1 else 'proposed'}\n"
            f"source: [LIT-001]\n{ext}---\nBody.\n")


@pytest.mark.parametrize("n", [2, 9, 10, 11, 12, 40])
def test_a_long_undermining_path_shows_its_ends(tmp_path, n):
    """A path of more than PATH_HEAD + PATH_TAIL ids keeps its first and
    last ones and says how many are left out; a shorter one is whole."""
    from recordkit.lifecycle.standing import PATH_HEAD, PATH_TAIL
    _chain(tmp_path / "records", n)
    corpus = recordkit.load(tmp_path / "records")
    a = lc.analyze(corpus, results={})
    for i in range(2, n + 1):
        full = [f"THEORY-{k:05d}" for k in range(i, 0, -1)]
        st = a.standing(f"THEORY-{i:05d}")
        if len(full) <= PATH_HEAD + PATH_TAIL:
            assert (st.path, st.path_skipped, st.path_tail()) == (full, 0, [])
            assert st.detail == " → ".join(full) + " (refuted)"
        else:
            skipped = len(full) - PATH_HEAD - PATH_TAIL
            assert st.path == full[:PATH_HEAD] + full[-PATH_TAIL:] and st.path_skipped == skipped
            assert st.detail == (" → ".join(full[:PATH_HEAD]) + f" → … ({skipped:,} more) → "
                                 + " → ".join(full[-PATH_TAIL:]) + " (refuted)")


@pytest.mark.slow
def test_a_chain_of_thousands_is_linear_in_every_output(tmp_path):
    """Each record of a chain of 3,000 theories extending each other is
    undermined by the refuted first one.  With every record's whole path
    the outputs were quadratic: the graph JSON 170 MB (7 GB for 20,000,
    which never finished), the export 86 s and promote killed for memory
    at 20,000.  Each record now shows its path's ends."""
    _chain(tmp_path / "records", 3000)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    for args in (("graph", "--format", "json", "-o", "g.json"), ("export", "--sqlite", "x.db"),
                 ("promote", "--format", "json"), ("show", "THEORY-03000", "--format", "json")):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (args, proc.stderr)
        if args[0] == "show":
            info = json.loads(proc.stdout)
            assert info["undermined_path_skipped"] == 2990 and len(info["undermined_path"]) == 10
            assert "… (2,990 more) →" in info["standing_detail"]
        if args[0] == "promote":
            entry = next(e for e in json.loads(proc.stdout)["proposed"] if e["id"] == "THEORY-03000")
            assert entry["undermined"]["skipped"] == 2990
    assert (tmp_path / "g.json").stat().st_size < 20_000_000
    import sqlite3
    db = sqlite3.connect(tmp_path / "x.db")
    assert db.execute("SELECT undermined_path FROM standings WHERE record = 'THEORY-03000'").fetchone()[0] == (
        "THEORY-03000 → THEORY-02999 → THEORY-02998 → THEORY-02997 → THEORY-02996 → … (2,990 more) → "
        "THEORY-00005 → THEORY-00004 → THEORY-00003 → THEORY-00002 → THEORY-00001")


@pytest.mark.slow
def test_standing_in_show(make_record):
    root = make_record(STANDING_FILES)
    proc = run_cli("--root", str(root), "show", "CLAIM-302", "--format", "json", cwd=root.parent)
    info = json.loads(proc.stdout)
    assert info["standing"] == "undermined"
    assert info["standing_detail"] == "CLAIM-302 → CLAIM-301 → THEORY-011 → THEORY-010 (rejected)"
    proc = run_cli("--root", str(root), "show", "THEORY-002", "--format", "json", cwd=root.parent)
    info = json.loads(proc.stdout)
    assert info["standing"] == "blocked"
    assert info["promote"]["summary"] == "A final note."
    assert [(r["text"], r["ok"], r["state"]) for r in info["promote"]["requires"]] == [
        ("a NOTE pointing here by bears_on with status final", False, "unmet"),
        ("check tiny-fail", False, "unknown")]
    text = run_cli("--root", str(root), "show", "THEORY-002", cwd=root.parent).stdout
    assert "Standing: blocked — unmet: no NOTE with status final" in text
    assert "requires check tiny-fail  [unmet: check tiny-fail has not been run (recordkit check)]" in text or \
        "requires check tiny-fail  [unknown: check tiny-fail has not been run (recordkit check)]" in text


# ---------------------------------------------------------------------------
# recordkit promote
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_promote_lists_ready_first_with_every_requirement(make_record):
    root = make_record(STANDING_FILES)
    proc = run_cli("--root", str(root), "check", "tiny-pass", cwd=root.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli("--root", str(root), "promote", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.index("Ready to promote (1)") < out.index("THEORY-001") < out.index("Blocked (1)") \
        < out.index("THEORY-002") < out.index("Awaiting judgement (1)") < out.index("THEORY-004")
    assert "    ✓ a NOTE pointing here by bears_on with status final\n" \
           "        NOTE-001 (final) points here by bears_on\n" in out
    assert "    ✓ check tiny-pass\n" in out
    assert "→ recordkit promote THEORY-001 --apply   (promoted_by: NOTE-001)" in out
    assert "    ✗ a NOTE pointing here by bears_on with status final\n" in out
    assert "    ? check tiny-fail\n        check tiny-fail has not been run (recordkit check)\n" in out
    assert "THEORY-003" not in out          # established: not listed
    data = json.loads(run_cli("--root", str(root), "promote", "--format", "json", cwd=root.parent).stdout)
    assert [(e["id"], e["standing"]) for e in data["proposed"]] == [
        ("THEORY-001", "ready"), ("THEORY-002", "blocked"), ("THEORY-004", "awaiting-judgement")]
    assert data["proposed"][0]["requires"][1] == {
        "text": "check tiny-pass", "ok": True, "state": "met", "by": None, "index": 1,
        "reason": "check tiny-pass passes (discrepancy 0 ≤ 1e-09)"}
    assert data["active_unestablished"] == []
    # one theory, item by item
    proc = run_cli("--root", str(root), "promote", "THEORY-002", cwd=root.parent)
    assert proc.returncode == 0
    assert proc.stdout.startswith("THEORY-002 is proposed (blocked)\n  THEORY-002  Blocked\n")


def test_promote_lists_active_theories_whose_evidence_is_gone(make_record):
    files = dict(STANDING_FILES)
    files["note/NOTE-001.md"] = note("NOTE-001", status="draft", bears_on="THEORY-001, THEORY-003")
    root = make_record(files)
    proc = run_cli("--root", str(root), "promote", cwd=root.parent)
    assert "Active, but not established: evidence unmet or unknown (1)\n  THEORY-003  Established\n" in proc.stdout
    assert "no NOTE with status final points here by bears_on; NOTE-001 (draft) does" in proc.stdout


PROMOTABLE = """---
id: THEORY-001
title: "Ready: a theory"   # quoted, with a comment
status: 'proposed'  # since May
source: [LIT-001]
promote_when:
  summary: A final note bears on it.
  requires:
    # the note that settles it
    - record: {kind: NOTE, relation: bears_on, status: final}
tags: [a-tag]
---
## What is asserted
Text that stays.
"""


def test_promote_apply_refuses_and_leaves_the_file_byte_identical(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "note/NOTE-001.md": note("NOTE-001", status="draft"),
        "note/NOTE-900.md": CHECKS_NOTE,
    })
    path = root / "theory" / "THEORY-001.md"
    path.parent.mkdir()
    text = PROMOTABLE.replace("    - record:", "    - check: tiny-pass\n    - record:")
    path.write_bytes(text.encode("utf-8"))
    before = path.read_bytes()
    proc = run_cli("--root", str(root), "promote", "THEORY-001", "--apply", cwd=root.parent)
    assert proc.returncode == 1
    assert "THEORY-001 not promoted" in proc.stderr
    assert "check tiny-pass: unknown — check tiny-pass has not been run (recordkit check)" in proc.stderr
    assert ("a NOTE pointing here by bears_on with status final: unmet — no NOTE with status final points "
            "here by bears_on; NOTE-001 (draft) does") in proc.stderr
    assert path.read_bytes() == before
    # a theory that is not proposed is refused too
    proc = run_cli("--root", str(root), "promote", "NOTE-001", "--apply", cwd=root.parent)
    assert proc.returncode == 1 and "no promote_when lifecycle" in proc.stderr


def test_promote_apply_is_a_lossless_splice(make_record):
    root = make_record({"lit/LIT-001.md": LIT, "note/NOTE-001.md": note("NOTE-001")})
    path = root / "theory" / "THEORY-001.md"
    path.parent.mkdir()
    path.write_bytes(PROMOTABLE.encode("utf-8"))
    expected = PROMOTABLE.replace("status: 'proposed'  # since May\n",
                                  "status: 'active'  # since May\npromoted_by: NOTE-001\n")
    # --diff shows the change and writes nothing
    proc = run_cli("--root", str(root), "promote", "THEORY-001", "--diff", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    assert "-status: 'proposed'  # since May\n+status: 'active'  # since May\n+promoted_by: NOTE-001\n" in proc.stdout
    assert path.read_bytes() == PROMOTABLE.encode("utf-8")
    proc = run_cli("--root", str(root), "promote", "THEORY-001", "--apply", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    assert "THEORY-001: status proposed → active, promoted_by: NOTE-001" in proc.stdout
    assert path.read_bytes() == expected.encode("utf-8")
    # and the promoted theory is established
    st = lc.standings(recordkit.load(root), results={})
    assert st["THEORY-001"].state == "established"


def test_promote_apply_fills_an_empty_promoted_by_and_keeps_crlf(make_record):
    root = make_record({"lit/LIT-001.md": LIT, "note/NOTE-001.md": note("NOTE-001"),
                        "note/NOTE-002.md": note("NOTE-002")})
    path = root / "theory" / "THEORY-001.md"
    path.parent.mkdir()
    text = PROMOTABLE.replace("tags: [a-tag]\n", "promoted_by:   # who?\ntags: [a-tag]\n").replace("\n", "\r\n")
    path.write_bytes(text.encode("utf-8"))
    proc = run_cli("--root", str(root), "promote", "THEORY-001", "--apply", "--by", "NOTE-002", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    expected = text.replace("status: 'proposed'", "status: 'active'").replace(
        "promoted_by:   # who?", "promoted_by: NOTE-002   # who?")
    assert path.read_bytes() == expected.encode("utf-8")


@pytest.mark.slow
def test_promote_apply_needs_by_without_a_record_requirement(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT, "note/NOTE-001.md": note("NOTE-001"),
        "theory/THEORY-004.md": STANDING_FILES["theory/THEORY-004.md"],
    })
    path = root / "theory" / "THEORY-004.md"
    before = path.read_bytes()
    proc = run_cli("--root", str(root), "promote", "THEORY-004", "--apply", cwd=root.parent)
    assert proc.returncode == 1 and "give it with --by ID" in proc.stderr
    assert path.read_bytes() == before
    proc = run_cli("--root", str(root), "promote", "THEORY-004", "--apply", "--by", "LIT-001", cwd=root.parent)
    assert proc.returncode == 1 and "promoted_by may name a NOTE or CLAIM, not a LIT" in proc.stderr
    proc = run_cli("--root", str(root), "promote", "THEORY-004", "--apply", "--by", "NOTE-404", cwd=root.parent)
    assert proc.returncode == 2
    assert path.read_bytes() == before
    proc = run_cli("--root", str(root), "promote", "THEORY-004", "--apply", "--by", "NOTE-001", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    assert b"status: active\npromoted_by: NOTE-001\n" in path.read_bytes()


@pytest.mark.slow
def test_standings_scale(tmp_path):
    """3,000 records: standings in less time than it takes to load them (a
    cost per record, measured against the load on the same machine; one
    that grew with the square of the record would take many times the
    load here)."""
    import sys
    import time
    from conftest import REPO
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from generate import generate
    except ImportError:
        pytest.skip("bench/generate.py is not there")
    generate(tmp_path / "records", 3_000, seed=0, defects=0.0)
    t = time.perf_counter()
    corpus = recordkit.load(tmp_path / "records")
    loading = time.perf_counter() - t
    graph_of(corpus)
    t = time.perf_counter()
    st = lc.standings(corpus, results={})
    elapsed = time.perf_counter() - t
    assert len(st) == 3_000
    assert elapsed < max(loading, 0.5), (elapsed, loading)
