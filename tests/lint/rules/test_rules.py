"""Every rule, on its own fixture pair, and on its own documentation.

``fixtures/RKxxx/fires/`` and ``fixtures/RKxxx/quiet/`` each hold files
laid over a copy of the example record (``records/``, ``checks/``):
``records/...`` files (new ones, or replacing the example's), optional
``checks/*.py`` modules, and an optional ``results.json`` (check id ->
stored result) given to the lint as the check results.  The rule must
report something in the ``fires`` files and nothing in the ``quiet`` ones.

The documentation test reads each rule's docstring (what ``recordkit rule
CODE`` prints): every YAML or Markdown block of its "Use instead" appears,
word for word, in the quiet fixture, which the rule leaves alone; putting
the "Example" block in its place makes the rule fire.  A block may name the
file a part of it belongs to with a ``# NAME.md`` line.  When "Use instead"
is advice rather than a block, the "Example" block appears word for word in
the fires fixture.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import recordkit
from conftest import REPO
from recordkit.config import load_config
from recordkit.lint import lint
from recordkit.lint.docs import code_blocks, sections
from recordkit.lint.registry import all_rules
from recordkit.numeric.results import CheckResult

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CODES = list(all_rules())

#: rules whose Example is not a record (prose, a check's code, a terminal
#: session): their fixture pair is what shows them firing and not
EXAMPLE_NOT_A_RECORD = {
    "RK103": "a file's bytes (not UTF-8): described in words",
    "RK106": "a file name against an id: described in words",
    "RK107": "two files: described in words",
    "RK111": "two files: described in words",
    "RK109": "a path that is not a regular file, or too large: described in words",
    "RK208": "the absence of a final newline: described in words",
    "RK307": "the absence of relations: described in words",
    "RK503": "the Example is the check's Python code",
    "RK504": "the Example is a terminal session",
}


def world(tmp: Path, case: Path) -> tuple[Path, dict | None, list[Path]]:
    """A copy of the example record with ``case`` laid over it: its root,
    the check results to lint with, and the record files the case holds."""
    w = tmp / "world"
    shutil.rmtree(w, ignore_errors=True)
    shutil.copytree(REPO / "records", w / "records")
    shutil.copytree(REPO / "checks", w / "checks", ignore=shutil.ignore_patterns("__pycache__"))
    (w / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\ncache_dir = ".recordkit"\n')
    files = []
    for p in sorted(case.rglob("*")):
        if (p.is_file() or p.is_symlink()) and p.name != "results.json":
            dest = w / p.relative_to(case)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest, follow_symlinks=False)   # a link stays a link (RK109)
            if p.relative_to(case).parts[0] == "records":
                files.append(dest.absolute())
    results = None
    if (case / "results.json").exists():
        results = {cid: CheckResult.from_json(d)
                   for cid, d in json.loads((case / "results.json").read_text()).items()}
    return w, results, files


def found(w: Path, code: str, results, files: list[Path]) -> list:
    """The diagnostics of ``code`` in ``files`` when ``w`` is linted."""
    config = load_config(w)
    corpus = recordkit.load(config.root, config=config, jobs=1)
    diags = lint(corpus, select=[code], check_results=results).diagnostics
    wanted = set(files)
    return [d for d in diags if d.code == code and Path(d.path).absolute() in wanted]


def test_every_rule_has_a_fixture_pair():
    missing = [c for c in CODES for case in ("fires", "quiet")
               if not (FIXTURES / c / case).is_dir() or not any((FIXTURES / c / case).rglob("*.md"))]
    assert missing == [], f"rules without a fixture where they fire and one where they do not: {missing}"
    assert sorted(p.name for p in FIXTURES.iterdir()) == CODES, "a fixture folder for a rule that does not exist"


@pytest.mark.parametrize("code", CODES)
def test_rule_fires_on_its_fixture(tmp_path, code):
    w, results, files = world(tmp_path, FIXTURES / code / "fires")
    assert found(w, code, results, files), f"{code} does not fire on fixtures/{code}/fires"


@pytest.mark.parametrize("code", CODES)
def test_rule_is_quiet_on_its_fixture(tmp_path, code):
    w, results, files = world(tmp_path, FIXTURES / code / "quiet")
    got = found(w, code, results, files)
    assert got == [], [f"{d.path}:{d.line}: {d.message}" for d in got]


def _record_blocks(text: str) -> list[str]:
    return [body for info, body in code_blocks(text) if info in ("yaml", "markdown")]


def _parts(block: str) -> list[tuple[str | None, str]]:
    """(file name or None, text) of each part of a block: ``# NAME.md``
    lines name the file the lines after them belong to."""
    out: list[tuple[str | None, str]] = []
    name, lines = None, []
    for line in block.splitlines(keepends=True):
        m = re.match(r"#\s*([\w-]+\.md)\s*$", line)
        if m:
            if lines:
                out.append((name, "".join(lines)))
            name, lines = m.group(1), []
        else:
            lines.append(line)
    if lines:
        out.append((name, "".join(lines)))
    return out


def _holder(files: list[Path], name: str | None, text: str) -> Path | None:
    for f in files:
        if f.is_symlink():
            continue
        if (name is None or f.name == name) and text in f.read_text(encoding="utf-8", errors="replace"):
            return f
    return None


@pytest.mark.parametrize("code", CODES)
def test_documented_example_fires_and_use_instead_does_not(tmp_path, code):
    doc = sections(all_rules()[code].doc)
    example = _record_blocks(doc.get("Example", ""))
    instead = _record_blocks(doc.get("Use instead", ""))
    if not example:
        assert code in EXAMPLE_NOT_A_RECORD, f"{code}'s Example has no yaml or markdown block"
        return
    assert code not in EXAMPLE_NOT_A_RECORD, f"{code} has an Example block now: test it"
    if not instead:
        # "Use instead" is advice: the Example itself is in the fixture where the rule fires
        _, _, files = world(tmp_path, FIXTURES / code / "fires")
        for block in example:
            for name, text in _parts(block):
                assert _holder(files, name, text), f"{code}: the Example is not in fixtures/{code}/fires:\n{text}"
        return
    assert len(instead) == len(example), f"{code}: as many Use instead blocks as Example blocks"
    w, results, files = world(tmp_path, FIXTURES / code / "quiet")
    edits = []
    for ex, ui in zip(example, instead):
        ex_parts, ui_parts = _parts(ex), _parts(ui)
        assert len(ex_parts) == len(ui_parts)
        for (name, ui_text), (_, ex_text) in zip(ui_parts, ex_parts):
            holder = _holder(files, name, ui_text)
            assert holder, f"{code}: the Use instead is not in fixtures/{code}/quiet:\n{ui_text}"
            edits.append((holder, ui_text, ex_text))
    assert found(w, code, results, files) == [], f"{code} fires on its documented Use instead"
    for holder, ui_text, ex_text in edits:
        holder.write_text(holder.read_text(encoding="utf-8").replace(ui_text, ex_text, 1), encoding="utf-8")
    assert found(w, code, results, files), f"{code} does not fire on its documented Example"
