"""`recordkit promote` names the records of the schema's lifecycle kinds
(those with a `promote_when` field), through the real CLI."""
from __future__ import annotations

import json

from conftest import run_cli, write
from recordkit.lifecycle.words import plural, singular, with_article

ADR_SCHEMA = """\
replace: true
id_pattern: '^(?P<kind>[A-Z]+)-(?P<number>[0-9]{3,})$'
fields:
  id: {type: string, required: true}
  title: {type: string, required: true}
  status: {type: string, required: true}
kinds:
  ADR:
    statuses: [proposed, active, superseded]
    fields:
      promote_when: {type: object}
  PERSON:
    statuses: [active]
relations:
  promoted_by: {from: [ADR], to: [PERSON], max: 1}
"""


def adr_log(tmp_path, status: str):
    write(tmp_path, "recordkit.toml", 'root = "decisions"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", ADR_SCHEMA)
    write(tmp_path, "decisions/ADR-001.md", f"---\nid: ADR-001\ntitle: Use MADR\nstatus: {status}\n---\n")
    write(tmp_path, "decisions/PERSON-001.md", "---\nid: PERSON-001\ntitle: Ann\nstatus: active\n---\n")


def test_no_proposed_adrs_in_a_log_of_decisions(tmp_path):
    adr_log(tmp_path, "superseded")
    out = run_cli("promote", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "No proposed ADRs.\n"
    bad = run_cli("promote", "--apply", cwd=tmp_path)
    assert bad.returncode == 2 and "--apply, --diff and --by need an ADR ID" in bad.stderr, bad.stderr
    person = run_cli("promote", "PERSON-001", cwd=tmp_path)
    assert person.returncode == 2 and "PERSON-001 is a PERSON, which has no promote_when lifecycle" in person.stderr


def test_a_proposed_adr_is_listed(tmp_path):
    adr_log(tmp_path, "proposed")
    out = run_cli("promote", "--format", "json", cwd=tmp_path)
    assert [e["id"] for e in json.loads(out.stdout)["proposed"]] == ["ADR-001"]


def test_the_research_wording_is_kept(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: [a]\nyear: 1\n---\n")
    assert run_cli("promote", cwd=tmp_path).stdout == "No proposed theories.\n"
    assert "--apply, --diff and --by need a theory ID" in run_cli("promote", "--apply", cwd=tmp_path).stderr


def test_kind_names_in_words():
    assert [plural(k) for k in ("THEORY", "ADR", "NOTE", "Decision", "HYPOTHESIS", "RFC")] == [
        "theories", "ADRs", "notes", "decisions", "hypotheses", "RFCs"]
    assert [singular(k) for k in ("THEORY", "ADR")] == ["theory", "ADR"]
    assert [with_article(w) for w in ("theory", "ADR", "idea", "RFC", "PR")] == [
        "a theory", "an ADR", "an idea", "an RFC", "a PR"]


def test_a_schema_without_a_lifecycle_says_nothing_is_promoted(tmp_path):
    """A log of decisions whose ADR kind has no promote_when: promote says
    no kind has a lifecycle, not that no ADR (or theory) is proposed."""
    write(tmp_path, "recordkit.toml", 'root = "decisions"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", ADR_SCHEMA.replace("    fields:\n      promote_when: {type: object}\n", ""))
    write(tmp_path, "decisions/ADR-001.md", "---\nid: ADR-001\ntitle: Use MADR\nstatus: proposed\n---\n")
    out = run_cli("promote", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("Nothing to promote: no kind of the schema has a promote_when field (kinds: ADR, PERSON); "
                          "see docs/lifecycle.md.\n")
