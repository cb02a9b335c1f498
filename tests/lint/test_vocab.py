"""The lint on a vault that is not a research record, through the real
CLI: one summary for the records without a kind, safe fixes only unless
--unsafe-fixes (exact bytes after each), nested tags kept, a status fixed
only for its case, the fix's applicability in JSON and SARIF, and the
folders not walked."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli, write

KIND_BY_TYPE = """\
kind_from:
  - {field: type, map: {paper: LIT, reading: NOTE}}
"""


def lint_json(cwd, *args):
    proc = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", *args, cwd=cwd)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def test_records_without_a_kind_get_one_summary_and_no_rule_of_a_kind(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "vault"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", KIND_BY_TYPE)
    for i in range(5):
        # no type: no kind.  `source` (a relation of THEORY), a status no kind
        # has, a tag that is not kebab-case: none of it is checked
        write(tmp_path, f"vault/ideas/idea-{i}.md", f"---\nid: idea-{i}\ntitle: Idea {i}\nstatus: Whatever\n"
                                                    f"source: [https://example.org/{i}, idea-{i}, idea-{i}]\n"
                                                    f"paper: [a, b]\ntags: [Big_Idea]\n---\nText.\n")
    d = lint_json(tmp_path, "--select", "ALL")
    summary = [x for x in d if x["code"] == "RK110"]
    assert len(summary) == 1, summary
    assert summary[0]["message"].startswith("5 records have no kind: set `kind_from` in the schema")
    assert "ideas/idea-0.md, ideas/idea-1.md, ideas/idea-2.md, and 2 more" in summary[0]["message"]
    assert summary[0]["filename"] == "vault/ideas/idea-0.md"
    others = sorted({x["code"] for x in d if x["code"] != "RK110"})
    assert not [c for c in others if c[:3] in ("RK2", "RK3", "RK4", "RK6") and c != "RK307"], others


def test_one_record_without_a_kind_is_said_in_the_singular(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "vault"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", KIND_BY_TYPE)
    write(tmp_path, "vault/a.md", "---\nid: a\ntitle: A\nstatus: x\n---\n")
    write(tmp_path, "vault/b.md", "---\nid: b\ntitle: B\nstatus: draft\ntype: reading\n---\n")   # a NOTE
    msgs = [x["message"] for x in lint_json(tmp_path) if x["code"] == "RK110"]
    assert msgs == ["1 record has no kind: set `kind_from` in the schema (a field such as `type:`, the folder, "
                    "a prefix of the id, or a default) so that its fields and relations are checked (a.md)"]


def test_research_record_ids_that_explain_their_kind_add_no_summary(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/NOTE-001.md", "---\nid: note-1\ntitle: t\nstatus: draft\n---\n")
    write(tmp_path, "records/NOTE-002.md", "---\nid: NOPE-002\ntitle: t\nstatus: draft\n---\n")
    codes = {x["code"] for x in lint_json(tmp_path)}
    assert "RK110" not in codes and {"RK105", "RK108"} <= codes


STATUSES = """\
kinds:
  TASK:
    statuses: [todo, done, none]
"""


def test_a_status_is_fixed_only_when_just_its_case_differs(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", STATUSES)
    case = write(tmp_path, "records/TASK-001.md", "---\nid: TASK-001\ntitle: t\nstatus: ' Done'\n---\n")
    other = write(tmp_path, "records/TASK-002.md", "---\nid: TASK-002\ntitle: t\nstatus: Dune\n---\n")
    word = write(tmp_path, "records/TASK-003.md", "---\nid: TASK-003\ntitle: t\nstatus: gone\n---\n")
    d = {x["filename"]: x for x in lint_json(tmp_path) if x["code"] == "RK204"}
    assert d["records/TASK-001.md"]["fix"]["applicability"] == "safe"
    assert d["records/TASK-002.md"]["fix"]["applicability"] == "unsafe"      # Dune → done: a misspelling?
    assert d["records/TASK-003.md"]["fix"] is None                           # gone is never made done nor none
    proc = run_cli("lint", "--fix", cwd=tmp_path)
    assert "1 unsafe fix not applied" in proc.stderr, proc.stderr
    assert case.read_bytes() == b"---\nid: TASK-001\ntitle: t\nstatus: 'done'\n---\n"
    assert other.read_bytes() == b"---\nid: TASK-002\ntitle: t\nstatus: Dune\n---\n"
    run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert other.read_bytes() == b"---\nid: TASK-002\ntitle: t\nstatus: done\n---\n"
    assert word.read_bytes() == b"---\nid: TASK-003\ntitle: t\nstatus: gone\n---\n"


def test_the_research_status_done_is_never_made_none(tmp_path):
    """Dendron's `status: Done` under a kind whose statuses have `none` but
    no `done`: no fix at all, safe or unsafe."""
    write(tmp_path, "recordkit.toml", 'root = "records"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", "kinds:\n  TASK:\n    statuses: [open, none]\n")
    p = write(tmp_path, "records/TASK-001.md", "---\nid: TASK-001\ntitle: t\nstatus: Done\n---\n")
    before = p.read_bytes()
    assert [(x["message"], x["fix"]) for x in lint_json(tmp_path) if x["code"] == "RK204"] == [
        ("status `Done` is not one of open, none for a TASK", None)]
    run_cli("lint", "--fix", cwd=tmp_path)
    assert p.read_bytes() == before
    assert run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path).returncode == 1
    assert p.read_bytes() == before


NESTED = """\
tags:
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$'
"""


@pytest.mark.slow
def test_nested_and_dotted_tags_are_kept_and_only_case_is_fixed_safely(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", NESTED)
    p = write(tmp_path, "records/QUESTION-001.md",
              "---\nid: QUESTION-001\ntitle: q\nstatus: open\n"
              "tags: [type/report, lang.python, Type/Report, Area/Big_Topic, BIG, 'a b']\n---\n")
    d = [x for x in lint_json(tmp_path) if x["code"] == "RK206"]
    # (Type/Report as type/report would repeat the first tag: no fix, but a word)
    assert [(x["message"], x["fix"] and x["fix"]["applicability"]) for x in d] == [
        ("tag `Type/Report` does not match the tag pattern `^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$`"
         ", and as `type/report` it would repeat a tag (remove it)", None),
        ("tag `Area/Big_Topic` does not match the tag pattern `^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$`"
         " (use `area/big-topic`)", "unsafe"),
        ("tag `BIG` does not match the tag pattern `^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$`"
         " (use `big`)", "safe"),
        ("tag `a b` does not match the tag pattern `^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$`"
         " (use `a-b`)", "unsafe"),
    ]
    fixed = run_cli("lint", "--fix", cwd=tmp_path)
    assert "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option)." in fixed.stdout
    assert p.read_bytes() == (b"---\nid: QUESTION-001\ntitle: q\nstatus: open\n"
                              b"tags: [type/report, lang.python, Type/Report, Area/Big_Topic, big, 'a b']\n---\n")
    run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert p.read_bytes() == (b"---\nid: QUESTION-001\ntitle: q\nstatus: open\n"
                              b"tags: [type/report, lang.python, Type/Report, area/big-topic, big, 'a-b']\n---\n")


def test_the_default_pattern_flattens_a_nested_tag_only_with_unsafe_fixes(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    p = write(tmp_path, "records/QUESTION-001.md",
              "---\nid: QUESTION-001\ntitle: q\nstatus: open\ntags: [type/report]\n---\n")
    before = p.read_bytes()
    out = run_cli("lint", "--fix", cwd=tmp_path)
    assert p.read_bytes() == before
    assert "RK206 tag `type/report` is not kebab-case (use `type-report`)" in out.stdout
    run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert b"tags: [type-report]" in p.read_bytes()


def test_a_list_wrap_that_would_split_a_value_is_unsafe(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    one = write(tmp_path, "records/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: Smith\nyear: 1\n---\n")
    two = write(tmp_path, "records/LIT-002.md", "---\nid: LIT-002\ntitle: t\nstatus: queued\nauthors: Smith, J.\n"
                                              "year: 1\n---\n")
    run_cli("lint", "--fix", cwd=tmp_path)
    assert b"authors: [Smith]\n" in one.read_bytes() and b"authors: Smith, J.\n" in two.read_bytes()


def test_json_and_sarif_carry_the_applicability(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: Open\n"
                                               "tags: [Big_Tag]\n---\n")
    d = {x["code"]: x["fix"] for x in lint_json(tmp_path)}
    assert d["RK204"]["applicability"] == "safe" and d["RK206"]["applicability"] == "unsafe"
    assert d["RK204"]["edits"] == [{"content": "open", "location": {"row": 4, "column": 9},
                                    "end_location": {"row": 4, "column": 13}}]
    proc = run_cli("lint", "--no-cache", "--format", "sarif", "--exit-zero", cwd=tmp_path)
    run = json.loads(proc.stdout)["runs"][0]
    fixes = {r["ruleId"]: r["fixes"][0] for r in run["results"] if r.get("fixes")}
    assert fixes["RK204"]["properties"]["applicability"] == "safe"
    assert fixes["RK206"]["properties"]["applicability"] == "unsafe"
    rep = fixes["RK204"]["artifactChanges"][0]["replacements"][0]
    assert rep == {"deletedRegion": {"startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 13},
                   "insertedContent": {"text": "open"}}
    rules = {r["id"]: r["properties"]["fix"] for r in run["tool"]["driver"]["rules"]}
    assert rules["RK208"] == "safe" and rules["RK204"] == "sometimes" and rules["RK301"] is None


def test_summary_counts_hidden_unsafe_fixes_in_ruffs_words(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: Open\n"
                                               "tags: [Big_Tag, x_y]\n---\n")
    out = run_cli("lint", "--no-cache", cwd=tmp_path).stdout
    assert "QUESTION-001.md:4:9: RK204 [*] " in out and "RK206 [*]" not in out
    assert out.endswith("[*] 1 fixable with `recordkit lint --fix` (2 hidden fixes can be enabled with the "
                        "`--unsafe-fixes` option).\n"), out
    out = run_cli("lint", "--no-cache", "--unsafe-fixes", cwd=tmp_path).stdout
    assert out.count("RK206 [*]") == 2 and out.endswith("[*] 3 fixable with `recordkit lint --fix --unsafe-fixes`.\n")


def test_rule_docs_say_which_fixes_are_safe():
    out = run_cli("rule", "RK204", check=True).stdout
    assert "Fix is sometimes available" in out
    assert "Fix is always available with `--fix` (safe)." in run_cli("rule", "RK208", check=True).stdout
    table = (run_cli("rule", "--all", "--format", "markdown", check=True).stdout)
    assert "| [RK204](#rk204-invalid-status) | invalid-status | error | safe or unsafe |" in table
    assert "| [RK208](#rk208-missing-final-newline) | missing-final-newline | warning | safe |" in table


def test_skipped_folders_are_listed_by_verbose_and_configurable(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    for rel in ("records/QUESTION-001.md", "records/.obsidian/QUESTION-002.md", "records/_templates/QUESTION-003.md",
                "records/node_modules/pkg/QUESTION-004.md", "records/archive/QUESTION-005.md"):
        n = rel[-6:-3]
        write(tmp_path, rel, f"---\nid: QUESTION-{n}\ntitle: q\nstatus: open\n---\n")
    out = run_cli("lint", "--no-cache", "-v", cwd=tmp_path)
    assert "recordkit: reading 2 files under records" in out.stderr
    # (recordkit.toml sets no skip_dirs: the default is named as such, not as the file's)
    assert ('recordkit: folders not walked (the default skip_dirs = [".*", "_*", "node_modules"]): '
            ".obsidian, _templates, node_modules") in out.stderr
    write(tmp_path, "recordkit.toml", 'root = "records"\nskip_dirs = [".obsidian", "archive"]\n')
    out = run_cli("lint", "--no-cache", "-v", "--format", "json", "--exit-zero", cwd=tmp_path)
    files = {x["filename"] for x in json.loads(out.stdout)}
    assert "records/_templates/QUESTION-003.md" in files and "records/archive/QUESTION-005.md" not in files
    assert "folders not walked (recordkit.toml: skip_dirs = [\".obsidian\", \"archive\"]): .obsidian, archive" in out.stderr
    write(tmp_path, "recordkit.toml", 'root = "records"\nskip_dirs = ".obsidian"\n')
    bad = run_cli("lint", cwd=tmp_path)
    assert bad.returncode == 2 and "skip_dirs must be a list" in bad.stderr


def test_a_kind_no_other_rule_explains_is_counted(tmp_path):
    """Ids from file names: FOO-001.md matches the id pattern, but FOO is no
    kind, and no `id:` field is there for RK108 to report: RK110 counts it."""
    write(tmp_path, "recordkit.toml", 'root = "records"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", "id_from: [stem]\n")
    write(tmp_path, "records/FOO-001.md", "---\ntitle: t\nstatus: open\n---\n")
    write(tmp_path, "records/QUESTION-001.md", "---\ntitle: t\nstatus: open\n---\n")
    d = lint_json(tmp_path)
    assert [(x["code"], x["filename"]) for x in d if x["code"] in ("RK105", "RK108", "RK110")] == [
        ("RK110", "records/FOO-001.md")]


CLAIMS_TABLE = "| id | claim | strength | support |\n|----|-------|----------|---------|\n| C1 | x | pretty solid | s |\n"


def test_claims_tables_are_checked_on_the_kinds_the_schema_names(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", "kinds:\n  REVIEW:\n    statuses: [draft]\nclaims_table:\n  kinds: [REVIEW]\n")
    write(tmp_path, "records/REVIEW-001.md", "---\nid: REVIEW-001\ntitle: t\nstatus: draft\n---\n## Claims\n"
          + CLAIMS_TABLE)
    write(tmp_path, "records/NOTE-001.md", "---\nid: NOTE-001\ntitle: t\nstatus: draft\n---\n## Claims\n"
          + CLAIMS_TABLE)
    d = [(x["code"], x["filename"], x["message"]) for x in lint_json(tmp_path) if x["code"].startswith("RK6")]
    assert d == [("RK602", "records/REVIEW-001.md",
                  "strength `pretty solid` is not one of strong, moderate, weak")]


from hypothesis import given, settings, strategies as st   # noqa: E402

from recordkit.lint.rules.fields import KEBAB_RE, tag_fix   # noqa: E402
import re as _re   # noqa: E402

NESTED_RE = _re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:[/.][a-z0-9]+(?:-[a-z0-9]+)*)*$")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aZb_ -/.9Éx", max_size=14))
def test_a_tag_fix_is_safe_only_when_it_changes_case_and_spaces(tag):
    for pattern in (KEBAB_RE, NESTED_RE):
        if pattern.fullmatch(tag):
            continue      # a good tag: RK206 asks for no fix
        got = tag_fix(tag, pattern)
        if got is None:
            continue
        new, how = got
        assert pattern.fullmatch(new) and new != tag
        assert (how == "safe") == (new.casefold() == tag.strip().casefold())
        if pattern is NESTED_RE and NESTED_RE.fullmatch(tag.strip().lower()):
            # a nested or dotted tag the pattern allows is never flattened
            assert (new.count("/"), new.count(".")) == (tag.count("/"), tag.count("."))
