"""recordkit lint on real files, through the real CLI."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, git_env, run_cli, write, write_mini_record

FIXTURE = REPO / "tests" / "lint" / "fixtures" / "defects"

# Every RK1xx/2xx/3xx/6xx defect planted in tests/lint/fixtures/defects, at its
# exact line and column.
EXPECTED = {
    ("RK101", "misc/NOFM.md", 1, 1),
    ("RK102", "misc/CLAIM-002.md", 4, 7),
    ("RK103", "misc/CLAIM-003.md", 3, 11),
    ("RK104", "misc/LIST.md", 2, 1),
    ("RK105", "misc/claim-7.md", 2, 5),
    ("RK106", "lit/LIT-003.md", 2, 5),
    ("RK107", "misc/QUESTION-002.md", 2, 5),
    ("RK107", "question/QUESTION-002.md", 2, 5),
    ("RK108", "misc/DATASET-001.md", 2, 5),
    ("RK201", "claim/CLAIM-001.md", 3, 1),      # empty title
    ("RK201", "lit/LIT-003.md", 1, 1),         # year missing
    ("RK202", "claim/CLAIM-001.md", 6, 11),    # strength not in enum
    ("RK202", "lit/LIT-002.md", 5, 10),        # authors a string
    ("RK202", "lit/LIT-002.md", 6, 7),         # year a string
    ("RK203", "lit/LIT-002.md", 9, 1),
    ("RK204", "theory/THEORY-002.md", 4, 9),
    ("RK205", "lit/LIT-002.md", 7, 7),
    ("RK206", "lit/LIT-002.md", 8, 8),
    ("RK207", "theory/THEORY-002.md", 9, 1),
    ("RK208", "misc/CLAIM-004.md", 7, 10),
    ("RK301", "note/NOTE-001.md", 6, 33),
    ("RK302", "claim/CLAIM-001.md", 5, 21),
    ("RK302", "note/NOTE-001.md", 6, 24),
    ("RK303", "theory/THEORY-002.md", 6, 23),
    ("RK304", "theory/THEORY-002.md", 6, 11),
    ("RK305", "lit/LIT-002.md", 11, 19),
    ("RK305", "note/NOTE-001.md", 15, 36),     # the one in a code span is not reported
    ("RK306", "note/NOTE-001.md", 5, 18),
    ("RK307", "misc/DATASET-001.md", 2, 5),
    ("RK307", "misc/claim-7.md", 2, 5),
    ("RK601", "note/NOTE-002.md", 9, 3),
    ("RK602", "note/NOTE-001.md", 13, 25),
}


def lint_json(*args, cwd=None):
    proc = run_cli(*args, "--format", "json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc, json.loads(proc.stdout)


def test_every_planted_defect_at_its_line_and_column(tmp_path):
    root = tmp_path / "defects"
    shutil.copytree(FIXTURE, root)
    proc, diags = lint_json("--root", str(root), "lint", "--no-cache", "--select", "RK1,RK2,RK3,RK6", cwd=tmp_path)
    got = {(d["code"], d["filename"].split("defects/", 1)[1], d["location"]["row"], d["location"]["column"])
           for d in diags}
    assert got == EXPECTED
    assert proc.returncode == 1
    codes = {c for c, *_ in EXPECTED}
    wanted = {f"RK{n}" for n in list(range(101, 109)) + list(range(201, 209)) + list(range(301, 308)) + [601, 602]}
    assert codes == wanted


def test_json_shape_is_ruffs(tmp_path):
    root = tmp_path / "defects"
    shutil.copytree(FIXTURE, root)
    _, diags = lint_json("--root", str(root), "lint", "--no-cache", "--select", "RK204", cwd=tmp_path)
    (d,) = diags
    assert set(d) >= {"code", "severity", "message", "filename", "location", "end_location", "fix", "url"}
    assert d["filename"] == "defects/theory/THEORY-002.md"
    assert d["location"] == {"row": 4, "column": 9}
    assert d["end_location"] == {"row": 4, "column": 17}
    assert d["fix"]["edits"] == [{"content": "proposed", "location": {"row": 4, "column": 9},
                                  "end_location": {"row": 4, "column": 17}}]
    assert "closest" not in d["message"] and "did you mean proposed" in d["message"]


def test_github_and_sarif_formats(tmp_path):
    root = tmp_path / "defects"
    shutil.copytree(FIXTURE, root)
    gh = run_cli("--root", str(root), "lint", "--no-cache", "--select", "RK301", cwd=tmp_path,
                 env={"GITHUB_ACTIONS": "true"})
    assert gh.returncode == 1
    assert gh.stdout.strip() == ("::error file=defects/note/NOTE-001.md,line=6,col=33,endLine=6,endColumn=42,"
                                 "title=RK301::RK301 `bears_on` target CLAIM-099 does not exist")
    sarif = run_cli("--root", str(root), "lint", "--no-cache", "--format", "sarif", "--select", "RK3", cwd=tmp_path)
    doc = json.loads(sarif.stdout)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {"RK301", "RK304"}
    res = [r for r in run["results"] if r["ruleId"] == "RK304"][0]
    assert rules[res["ruleIndex"]]["id"] == "RK304"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 11)
    assert {r["level"] for r in run["results"]} <= {"error", "warning", "note"}


@pytest.mark.slow
def test_statistics_exit_codes_and_selection(tmp_path):
    root = tmp_path / "defects"
    shutil.copytree(FIXTURE, root)
    st = run_cli("--root", str(root), "lint", "--no-cache", "--statistics", "--select", "RK1,RK2,RK3,RK6", cwd=tmp_path)
    assert st.returncode == 1
    rows = {line.split("\t")[1]: int(line.split("\t")[0]) for line in st.stdout.splitlines()}
    assert rows["RK107"] == 2 and rows["RK202"] == 3
    ok = run_cli("--root", str(root), "lint", "--no-cache", "--select", "RK305", cwd=tmp_path)
    assert ok.returncode == 0      # warnings only
    ez = run_cli("--root", str(root), "lint", "--no-cache", "--exit-zero", cwd=tmp_path)
    assert ez.returncode == 0 and "RK301" in ez.stdout
    bad = run_cli("--root", str(root), "lint", "--select", "RK999", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown rule" in bad.stderr
    _, d = lint_json("--root", str(root), "lint", "--no-cache", "--select", "RK3", "--ignore", "RK30", cwd=tmp_path)
    assert {x["code"] for x in d} == set()
    _, d = lint_json("--root", str(root), "lint", "--no-cache", "--select", "RK3", "--ignore", "RK305,RK307", cwd=tmp_path)
    assert {x["code"] for x in d} == {"RK301", "RK302", "RK303", "RK304", "RK306"}


@pytest.mark.slow
def test_paths_report_only_those_files(tmp_path):
    root = tmp_path / "defects"
    shutil.copytree(FIXTURE, root)
    _, d = lint_json("--root", str(root), "lint", "--no-cache", str(root / "note" / "NOTE-001.md"), cwd=tmp_path)
    assert {x["filename"] for x in d} == {"defects/note/NOTE-001.md"}
    # relations are still resolved against the whole record
    assert not any(x["code"] == "RK301" and "LIT-001" in x["message"] for x in d)
    _, d = lint_json("--root", str(root), "lint", "--no-cache", str(root / "misc"), cwd=tmp_path)
    # the folder's own diagnostics, and the other file of an id it duplicates
    outside = [(x["code"], x["filename"]) for x in d if x["filename"].split("/")[1] != "misc"]
    assert outside == [("RK107", "defects/question/QUESTION-002.md")]
    assert {x["filename"].split("/")[1] for x in d} == {"misc", "question"}


def test_configuration_severity_per_file_ignores_and_inline(tmp_path):
    write(tmp_path, "recordkit.toml", """
        root = "rec"
        [lint]
        ignore = ["RK307"]
        severity = {RK305 = "error"}
        per-file-ignores = {"lit/*" = ["RK203"]}
    """)
    write(tmp_path, "rec/lit/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: [a]\nyear: 2020\nfoo: 1\n---\nSee LIT-404.\n")
    write(tmp_path, "rec/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: t\nstatus: draft\nfoo: 1\nlint: {ignore: [RK203]}\n---\n"
                                           "<!-- recordkit: ignore RK305 -->\nSee LIT-404.\nAnd LIT-405 and LIT-001.\n")
    _, d = lint_json("lint", "--no-cache", cwd=tmp_path)
    got = {(x["code"], x["filename"], x["location"]["row"], x["severity"]) for x in d}
    assert got == {("RK305", "rec/lit/LIT-001.md", 9, "error"), ("RK305", "rec/note/NOTE-001.md", 10, "error")}
    bad = tmp_path / "bad"
    write(bad, "recordkit.toml", "root = 'rec'\nbogus = 1\n")
    (bad / "rec").mkdir()
    proc = run_cli("lint", cwd=bad)
    assert proc.returncode == 2 and "unknown configuration key" in proc.stderr


def test_pyproject_configuration_is_found_upwards(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname='x'\n[tool.recordkit]\nroot = 'notes'\n")
    write(tmp_path, "notes/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: opne\n---\n")
    (tmp_path / "sub").mkdir()
    _, d = lint_json("lint", "--no-cache", cwd=tmp_path / "sub")
    assert [(x["code"], x["filename"]) for x in d if x["code"] == "RK204"] == [("RK204", "../notes/QUESTION-001.md")]


@pytest.mark.slow
def test_fix_and_diff(tmp_path):
    """--fix applies the safe fixes only; the unsafe ones (a misspelt status
    made the nearest one, a tag rewritten beyond its case) wait for
    --unsafe-fixes, and the summary says how many were left."""
    text = ("---\nid: THEORY-001  # the id\ntitle: 'A theory'\nstatus: Propsed\n"
            "tags: [Representation_Learning, 'camelCase', Ok]\nsource: LIT-001\n"
            "promote_when:\n  summary: s\n---\n## What is asserted\nx\n## What would confirm or reject it\ny")
    write(tmp_path, "records/THEORY-001.md", text)
    write(tmp_path, "records/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: Someone\nyear: 2020\n---\n")
    p = tmp_path / "records" / "THEORY-001.md"
    before = p.read_bytes()
    diff = run_cli("lint", "--diff", cwd=tmp_path)
    assert p.read_bytes() == before
    assert "+tags: [Representation_Learning, 'camelCase', ok]" in diff.stdout
    assert "-status: Propsed" not in diff.stdout
    unsafe_diff = run_cli("lint", "--diff", "--unsafe-fixes", cwd=tmp_path)
    assert "-status: Propsed" in unsafe_diff.stdout and "+status: proposed" in unsafe_diff.stdout
    fixed = run_cli("lint", "--fix", cwd=tmp_path)
    assert fixed.stderr.startswith("Fixed 3 diagnostics (3 unsafe fixes not applied"), fixed.stderr
    assert "No fixes available (3 hidden fixes can be enabled with the `--unsafe-fixes` option)." in fixed.stdout
    assert p.read_text() == ("---\nid: THEORY-001  # the id\ntitle: 'A theory'\nstatus: Propsed\n"
                             "tags: [Representation_Learning, 'camelCase', ok]\nsource: LIT-001\n"
                             "promote_when:\n  summary: s\n---\n## What is asserted\nx\n"
                             "## What would confirm or reject it\ny\n")
    assert (tmp_path / "records" / "LIT-001.md").read_text().splitlines()[4] == "authors: [Someone]"
    unsafe = run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert unsafe.stderr.startswith("Fixed 3 diagnostics."), unsafe.stderr
    assert p.read_text() == ("---\nid: THEORY-001  # the id\ntitle: 'A theory'\nstatus: proposed\n"
                             "tags: [representation-learning, 'camel-case', ok]\nsource: LIT-001\n"
                             "promote_when:\n  summary: s\n---\n## What is asserted\nx\n"
                             "## What would confirm or reject it\ny\n")
    again = run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "Fixed" not in again.stderr


def test_fix_keeps_file_mode(tmp_path):
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: Open\n---\n")
    p = tmp_path / "records" / "QUESTION-001.md"
    os.chmod(p, 0o640)
    run_cli("lint", "--fix", cwd=tmp_path)
    assert "status: open" in p.read_text()
    assert (p.stat().st_mode & 0o777) == 0o640


def test_cache_is_used_when_nothing_changed_and_invalidated_by_an_edit(tmp_path):
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: open\n---\nSee LIT-404.\n")
    first = run_cli("lint", cwd=tmp_path)
    assert "(cached)" not in first.stdout and "RK305" in first.stdout
    second = run_cli("lint", cwd=tmp_path)
    assert "(cached)" in second.stdout and second.stdout.split("\n")[0] == first.stdout.split("\n")[0]
    p = tmp_path / "records" / "QUESTION-001.md"
    p.write_text(p.read_text().replace("LIT-404", "nothing"))
    third = run_cli("lint", cwd=tmp_path)
    assert "(cached)" not in third.stdout and "RK305" not in third.stdout
    # the cache lives in .recordkit/ and ignores itself in git
    assert (tmp_path / ".recordkit" / ".gitignore").read_text() == "*\n"


@pytest.mark.slow
def test_no_cache_outlives_a_change_to_recordkits_code(tmp_path):
    """The caches were keyed by ``__version__``, which two commits of a
    development install share: a parse or lint result made by code since
    fixed was reused until someone salted the key by hand.  They are keyed
    by a digest of the package's files: a copy of the package with one
    comment added lints afresh."""
    import shutil
    shutil.copytree(REPO / "recordkit", tmp_path / "pkg" / "recordkit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(tmp_path / "pkg")}
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: open\n---\nSee LIT-404.\n")
    assert "(cached)" not in run_cli("lint", cwd=tmp_path, env=env).stdout
    assert "(cached)" in run_cli("lint", cwd=tmp_path, env=env).stdout
    scanner = tmp_path / "pkg" / "recordkit" / "corpus" / "mentions.py"
    scanner.write_text(scanner.read_text(encoding="utf-8") + "# a change\n", encoding="utf-8")
    third = run_cli("lint", cwd=tmp_path, env=env)
    assert "(cached)" not in third.stdout and "RK305" in third.stdout, third.stdout
    assert "(cached)" in run_cli("lint", cwd=tmp_path, env=env).stdout


@pytest.mark.slow
def test_rule_command_and_docs_are_current():
    out = run_cli("rule", "RK301", check=True).stdout
    for section in ("What it does", "Why is this bad", "Example", "Use instead"):
        assert section in out
    assert run_cli("rule", "dangling-relation", check=True).stdout == out
    assert run_cli("rule", "RK999").returncode == 2
    md = run_cli("rule", "--all", "--format", "markdown", check=True).stdout
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == md, \
        "docs/rules.md is stale: run `recordkit rule --all --format markdown > docs/rules.md`"


def test_every_rule_has_a_complete_doc():
    from recordkit.lint.registry import all_rules
    for code, r in all_rules().items():
        for section in ("## What it does", "## Why is this bad", "## Example", "## Use instead"):
            assert section in r.doc, f"{code} lacks {section}"
        assert r.name and r.name == r.name.lower() and " " not in r.name


def test_example_record_lints_without_errors():
    proc = run_cli("lint", "--no-cache", "--format", "json", cwd=REPO)
    diags = json.loads(proc.stdout)
    errors = [d for d in diags if d["severity"] == "error"]
    assert errors == [], errors
    assert proc.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for pre-commit")
def test_pre_commit_hook_fails_on_dangling_relation_then_passes(tmp_path):
    pytest.importorskip("pre_commit")
    repo = tmp_path / "rec"
    repo.mkdir()
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", PRE_COMMIT_HOME=str(tmp_path / "pc-home"))
    env.pop("GITHUB_ACTIONS", None)

    def git(*a):
        subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True, env=env)

    git("init", "-q")
    write(repo, "records/lit/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: [a]\nyear: 2020\n---\n")
    write(repo, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: n\nstatus: draft\npaper: LIT-002\n---\nText.\n")
    git("add", ".")
    # try-repo needs the hook repository to be a git repo with a commit: use a
    # snapshot of this checkout's working tree
    hook_repo = tmp_path / "hook"
    anywhere = shutil.ignore_patterns(".git", ".recordkit", "*.egg-info", "__pycache__", "artifacts")

    def ignore(folder, names):   # site/, out/, build/ are outputs only at the top (recordkit/emit/site is code)
        top = {"site", "out", "build"} if Path(folder) == REPO else set()
        return set(anywhere(folder, names)) | (top & set(names))
    shutil.copytree(REPO, hook_repo, ignore=ignore)
    for a in (["init", "-q"], ["add", "."], ["commit", "-qm", "snapshot"]):
        subprocess.run(["git", *a], cwd=hook_repo, check=True, capture_output=True, env=env)

    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, check=True, capture_output=True, text=True,
                         env=env).stdout.strip()
    # as a user runs it: a .pre-commit-config.yaml naming the hook's repository
    # and revision (pre-commit builds the hook's environment once, in
    # PRE_COMMIT_HOME, and both runs below use it; try-repo would build it in
    # a fresh store each time)
    write(repo, ".pre-commit-config.yaml",
          f"repos:\n- repo: {json.dumps(str(hook_repo))}\n  rev: {rev}\n  hooks:\n  - id: recordkit-lint\n")
    git("add", ".")

    def run_hook():
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "recordkit-lint", "--all-files"],
                              cwd=repo, capture_output=True, text=True, env=env, timeout=600)

    first = run_hook()
    assert first.returncode == 1, first.stdout + first.stderr
    assert "RK301" in first.stdout and "LIT-002" in first.stdout
    write(repo, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: n\nstatus: draft\npaper: LIT-001\n---\nText.\n")
    git("add", ".")
    second = run_hook()
    assert second.returncode == 0, second.stdout + second.stderr


@pytest.mark.slow
def test_local_rules_run_where_files_are_parsed_with_the_same_findings(tmp_path):
    """`recordkit lint` runs the local rules inside the loader (on both cores
    for a large record); what they find is exactly what running every rule
    after the load finds, fixes included."""
    import sys
    import recordkit
    from recordkit.config import load_config
    from recordkit.lint.engine import LocalRules, chosen_codes, lint
    from recordkit.schema import load_schema
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    generate(tmp_path / "gen", 300, seed=4, defects=0.3)
    shutil.copytree(FIXTURE, tmp_path / "defects")
    key = lambda d: (str(d.path), d.line, d.col, d.end_line, d.end_col, d.code, d.message, d.severity, d.record,
                     d.fix and (d.fix.start, d.fix.end, d.fix.content, d.fix.message))
    for root, jobs in ((tmp_path / "gen", 2), (tmp_path / "defects", 1), (tmp_path / "gen", 1)):
        cfg = load_config(root)
        schema = load_schema(cfg.schema)
        local = LocalRules(schema, cfg, chosen_codes(cfg))
        assert {"RK202", "RK207", "RK601"} <= {r.code for r in local.rules}
        fast = recordkit.load(root, config=cfg, schema=schema, jobs=jobs, analyze=local)
        assert fast.analysis_key == local.key
        plain = recordkit.load(root, config=cfg, schema=schema, jobs=1)
        a, b = lint(fast).diagnostics, lint(plain).diagnostics
        assert sorted(map(key, a)) == sorted(map(key, b))
        assert any(d.fix for d in a) and len({d.code for d in a}) > 5


def test_a_local_rule_cannot_reach_the_corpus():
    from recordkit.lint.context import LintContext, LocalCorpus
    ctx = LintContext(LocalCorpus(schema=None, config=None))
    with pytest.raises(RuntimeError, match="local rule"):
        ctx.records


@pytest.mark.slow
def test_rules_on_two_processes_find_what_one_finds(tmp_path):
    """On a large record a forked helper runs the record rules on part of the
    records; the findings are the same as in one process."""
    import sys
    import recordkit
    from recordkit.lint.engine import lint
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    generate(tmp_path / "gen", 400, seed=9, defects=0.3)
    c = recordkit.load(tmp_path / "gen", jobs=1)
    key = lambda d: (str(d.path), d.line, d.col, d.end_line, d.end_col, d.code, d.message, d.severity, d.record,
                     d.fix and (d.fix.start, d.fix.end, d.fix.content, d.fix.message))
    one = sorted(map(key, lint(c, jobs=1).diagnostics))
    two = sorted(map(key, lint(c, jobs=2).diagnostics))
    assert one == two and len({k[5] for k in one}) > 8


@pytest.mark.slow
def test_cli_lint_and_fix_on_two_processes_match_one_process(tmp_path):
    """The real CLI with RECORDKIT_JOBS=2 (local rules in the parse helper,
    record rules in a rule helper) reports, fixes and caches exactly what it
    does in one process."""
    import sys
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    generate(tmp_path / "one" / "records", 300, seed=21, defects=0.3)
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    outs = {}
    for name, jobs in (("one", "1"), ("two", "2")):
        root = tmp_path / name
        env = {"RECORDKIT_JOBS": jobs}
        first = run_cli("lint", "--format", "json", cwd=root, env=env)
        fixed = run_cli("lint", "--fix", "--format", "json", cwd=root, env=env)
        after = run_cli("lint", "--format", "json", cwd=root, env=env)      # from the cache
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "records").rglob("*.md"))}
        outs[name] = (first.returncode, first.stdout, fixed.stdout, after.stdout, files)
        assert first.returncode == 1 and json.loads(first.stdout)
    assert outs["one"][:4] == outs["two"][:4]
    assert outs["one"][4] == outs["two"][4]
    assert len(json.loads(outs["one"][1])) > len(json.loads(outs["one"][3]))   # --fix fixed something


# -- lint PATHS: every diagnostic that involves the paths ----------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def mini_repo(tmp_path):
    """The small record of conftest.MINI_RECORD, committed in a git repo,
    plus an unrelated error (a dangling relation of LIT-099) that no test
    below touches: ``lint PATHS`` must never report it."""
    repo = tmp_path / "repo"
    write_mini_record(repo)
    write(repo, "records/lit/LIT-099.md", "---\nid: LIT-099\ntitle: t\nstatus: queued\nauthors: [a]\n"
                                          "year: 2020\ncites: [LIT-404]\n---\n")
    env = git_env(tmp_path)

    def git(*a):
        return subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True, text=True, env=env)

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "base")

    def lint(*paths, cache=False):
        proc = run_cli("lint", "--format", "json", *([] if cache else ["--no-cache"]), *paths, cwd=repo, env=env)
        assert proc.returncode in (0, 1), proc.stderr
        return proc, [(x["code"], x["filename"], x["message"]) for x in json.loads(proc.stdout)]

    return repo, git, lint


def _codes(found):
    return {(code, filename) for code, filename, _ in found}


@needs_git
def test_paths_unrelated_error_is_not_reported_but_whole_lint_reports_it(mini_repo):
    repo, git, lint = mini_repo
    _, everything = lint()
    assert ("RK301", "records/lit/LIT-099.md") in _codes(everything)
    _, some = lint("records/note/NOTE-001.md")
    assert not any(f == "records/lit/LIT-099.md" for _, f, _ in some)


@needs_git
def test_paths_deleted_file_maps_to_the_id_it_held_in_head(mini_repo):
    repo, git, lint = mini_repo
    git("rm", "-q", "records/lit/LIT-001.md")
    proc, found = lint("records/lit/LIT-001.md")
    assert [(c, f) for c, f, m in found if c == "RK301"] == [("RK301", "records/note/NOTE-001.md")]
    assert proc.returncode == 1
    # before the fix the path was refused (click: does not exist), and a
    # path only reported diagnostics located in it
    assert "LIT-001" in [m for c, _, m in found if c == "RK301"][0]
    assert not any(f == "records/lit/LIT-099.md" for _, f, _ in found)


def test_paths_deleted_file_outside_git_maps_to_the_id_its_name_names(tmp_path):
    root = write_mini_record(tmp_path / "rec")
    (root / "records/lit/LIT-001.md").unlink()
    proc = run_cli("lint", "--format", "json", "--no-cache", "records/lit/LIT-001.md", cwd=root,
                   env=git_env(tmp_path))
    found = [(x["code"], x["filename"]) for x in json.loads(proc.stdout)]
    assert ("RK301", "records/note/NOTE-001.md") in found
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr   # not in git's HEAD either: said so


@needs_git
def test_paths_renamed_id_with_its_file_given_only_the_new_name(mini_repo):
    repo, git, lint = mini_repo
    git("mv", "records/lit/LIT-002.md", "records/lit/LIT-003.md")
    p = repo / "records/lit/LIT-003.md"
    p.write_text(p.read_text().replace("LIT-002", "LIT-003"))
    for staged in (False, True):
        if staged:
            git("add", "-A")
        _, found = lint("records/lit/LIT-003.md")
        assert ("RK301", "records/theory/THEORY-001.md") in _codes(found), (staged, found)


@needs_git
def test_paths_id_changed_in_place_reports_relations_to_the_old_id(mini_repo):
    repo, git, lint = mini_repo
    p = repo / "records/lit/LIT-001.md"
    p.write_text(p.read_text().replace("id: LIT-001", "id: LIT-005"))
    _, found = lint("records/lit/LIT-001.md")
    assert {("RK106", "records/lit/LIT-001.md"), ("RK301", "records/note/NOTE-001.md")} <= _codes(found)


@needs_git
def test_paths_cycle_closed_from_the_side_that_is_not_flagged(mini_repo):
    repo, git, lint = mini_repo
    p = repo / "records/theory/THEORY-001.md"
    p.write_text(p.read_text().replace("source: [LIT-002]\n", "source: [LIT-002]\nextends: [THEORY-002]\n"))
    _, everything = lint()
    cycle = [(c, f) for c, f, _ in everything if c == "RK304"]
    assert cycle == [("RK304", "records/theory/THEORY-002.md")]   # flagged in the file not edited
    _, found = lint("records/theory/THEORY-001.md")
    assert ("RK304", "records/theory/THEORY-002.md") in _codes(found)


@needs_git
def test_paths_deleted_or_edited_check_module(mini_repo):
    repo, git, lint = mini_repo
    git("rm", "-q", "checks/arith.py")
    proc, found = lint("checks/arith.py")
    assert [(c, f) for c, f, _ in found] == [("RK501", "records/claim/CLAIM-001.md")]
    assert proc.returncode == 1
    git("reset", "-q", "--hard")
    # renaming the check inside the module: the old id is what the module held
    p = repo / "checks/arith.py"
    p.write_text(p.read_text().replace('"one-plus-one"', '"one-and-one"'))
    _, found = lint("checks")
    assert [(c, f) for c, f, _ in found] == [("RK501", "records/claim/CLAIM-001.md")]


@needs_git
def test_paths_duplicate_id_reports_the_other_file(mini_repo):
    repo, git, lint = mini_repo
    write(repo, "records/old/LIT-001.md", (repo / "records/lit/LIT-001.md").read_text())
    _, found = lint("records/old/LIT-001.md")
    assert {("RK107", "records/old/LIT-001.md"), ("RK107", "records/lit/LIT-001.md")} <= _codes(found)


@needs_git
def test_paths_status_change_reports_what_builds_on_it(mini_repo):
    repo, git, lint = mini_repo
    p = repo / "records/theory/THEORY-001.md"
    p.write_text(p.read_text().replace("status: proposed", "status: rejected"))
    _, found = lint("records/theory/THEORY-001.md")
    assert {("RK406", "records/theory/THEORY-002.md"), ("RK406", "records/claim/CLAIM-001.md")} <= _codes(found)


@needs_git
def test_paths_removing_the_last_link_reports_the_isolated_record(mini_repo):
    repo, git, lint = mini_repo
    p = repo / "records/note/NOTE-001.md"
    p.write_text(p.read_text().replace("paper: LIT-001\n", ""))
    _, found = lint("--select", "RK307", "records/note/NOTE-001.md")
    assert ("RK307", "records/lit/LIT-001.md") in _codes(found)


@needs_git
def test_paths_lifecycle_requirement_depends_on_the_records_pointing_here(mini_repo):
    repo, git, lint = mini_repo
    # THEORY-001 active, promoted by a final note that bears on it
    write(repo, "records/note/NOTE-002.md", "---\nid: NOTE-002\ntitle: n\nstatus: final\npaper: LIT-002\n"
                                            "bears_on: [THEORY-001]\n---\n")
    p = repo / "records/theory/THEORY-001.md"
    p.write_text(p.read_text().replace("status: proposed", "status: active\npromoted_by: NOTE-002").replace(
        "  summary: The owner judges it.\n",
        "  summary: A final note bears on it.\n  requires:\n"
        "    - record: {kind: NOTE, relation: bears_on, status: final}\n"))
    git("add", "-A")
    git("commit", "-qm", "active")
    _, before = lint()
    assert not any(c == "RK401" for c, _, _ in before), before
    n = repo / "records/note/NOTE-002.md"
    n.write_text(n.read_text().replace("bears_on: [THEORY-001]\n", ""))   # the evidence goes away
    _, found = lint("records/note/NOTE-002.md")
    assert ("RK401", "records/theory/THEORY-001.md") in _codes(found)


@pytest.mark.slow
@needs_git
def test_paths_involvement_survives_the_lint_cache(mini_repo):
    repo, git, lint = mini_repo
    git("rm", "-q", "records/lit/LIT-001.md")
    cold, first = lint("records/lit/LIT-001.md", cache=True)
    warm, second = lint("records/lit/LIT-001.md", cache=True)
    assert first == second and ("RK301", "records/note/NOTE-001.md") in _codes(second)
    text = run_cli("lint", "records/lit/LIT-001.md", cwd=repo)
    assert "(cached)" in text.stdout and "RK301" in text.stdout


def test_paths_that_never_existed_are_said_so(tmp_path):
    root = write_mini_record(tmp_path / "rec")
    proc = run_cli("lint", "--no-cache", "records/lit/nonsense.md", cwd=root, env=git_env(tmp_path))
    assert proc.returncode == 0
    assert "nonsense.md does not exist" in proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_paths_a_fifo_given_as_a_path_is_not_read(tmp_path):
    root = write_mini_record(tmp_path / "rec")
    os.mkfifo(root / "pipe.md")   # outside the record root: the loader does not read it, nor may lint PATHS
    proc = run_cli("lint", "--no-cache", "pipe.md", cwd=root, env=git_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lint_diff_is_a_patch_git_applies(tmp_path):
    """``lint --diff > p; git apply p`` gives what ``lint --fix`` gives, on
    lines holding a U+2028, a U+0085, a lone CR and an escape, and a last
    line without a line break (splitlines cut those lines in two, and the
    missing line break had no marker: a corrupt patch); standard output is
    the patch alone, the diagnostics go to standard error."""
    import shutil
    import subprocess
    text = ("---\nid: LIT-001\ntitle: t\nstatus: queued\nauthors: Someone\nyear: 2020\n---\n"
            "a \u2028 b \u0085 c\rd \x1b[31mred\nlast")
    write(tmp_path, "records/LIT-001.md", text)
    import os
    import sys
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    # bytes: text mode would turn the lone CR into a line break
    diff = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--diff"], cwd=tmp_path, capture_output=True,
                          env=env, timeout=300)
    assert diff.stdout.startswith(b"diff --git a/records/LIT-001.md b/records/LIT-001.md\n"), diff.stdout
    assert b"\\ No newline at end of file\n" in diff.stdout and b"RK208" in diff.stderr
    assert b"\rd \x1b[31mred" in diff.stdout
    if shutil.which("git"):
        work = tmp_path / "applied"
        shutil.copytree(tmp_path / "records", work / "records")
        p = subprocess.run(["git", "apply"], input=diff.stdout, cwd=work, capture_output=True)
        assert p.returncode == 0, p.stderr
        run_cli("lint", "--fix", cwd=tmp_path)
        assert (work / "records" / "LIT-001.md").read_bytes() == (tmp_path / "records" / "LIT-001.md").read_bytes()
        fixed = (tmp_path / "records" / "LIT-001.md").read_bytes()
        assert fixed.endswith("a \u2028 b \u0085 c\rd \x1b[31mred\nlast\n".encode("utf-8")) and b"[Someone]" in fixed


def test_sarif_uris_are_percent_encoded(tmp_path):
    """A SARIF uri is a URI reference: ``my note#1?.md`` was written as is
    (``#`` and ``?`` then read as a fragment and a query), a name that is
    not UTF-8 as ``\\xff`` text."""
    import os
    write(tmp_path, "records/note/my note#1?.md", "---\nid: NOTE-001\ntitle: t\nstatus: draft\n---\nSee NOTE-999.\n")
    names = ["note/my note#1?.md"]
    try:
        (tmp_path / "records" / "note" / os.fsdecode(b"\xff.md")).write_text(
            "---\nid: NOTE-002\ntitle: t\nstatus: draft\n---\nSee NOTE-999.\n")
        names.append(os.fsdecode(b"note/\xff.md"))
    except (OSError, UnicodeEncodeError):     # pragma: no cover - a file system that refuses the name
        pass
    proc = run_cli("lint", "--no-cache", "--format", "sarif", "--select", "RK305", "--exit-zero", cwd=tmp_path)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(proc.stdout)["runs"][0]["results"]}
    want = {"records/note/my%20note%231%3F.md", "records/note/%FF.md"}
    assert uris == {u for u in want if len(names) > 1 or "%FF" not in u}, uris


def test_tag_fixes_never_repeat_a_tag(tmp_path):
    """--unsafe-fixes made [foo-bar, Foo_Bar, foo_bar] three equal tags: a
    fix that would repeat a tag is not offered, and the message says to
    remove it."""
    write(tmp_path, "records/note/NOTE-001.md",
          "---\nid: NOTE-001\ntitle: t\nstatus: draft\ntags: [foo-bar, Foo_Bar, foo_bar, Baz_Q, baz_q]\n---\nb\n")
    proc = run_cli("lint", "--no-cache", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "tags: [foo-bar, Foo_Bar, foo_bar, baz-q, baz_q]\n" in (tmp_path / "records/note/NOTE-001.md").read_text()
    assert proc.stdout.count("it would repeat a tag (remove it)") == 3, proc.stdout
