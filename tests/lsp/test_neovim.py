"""A real client: Debian's Neovim (0.7 or later), headless, drives
`recordkit lsp` through its own LSP client (tests/lsp/nvim/driver.lua):
starts the server, opens a record of a copy of records/ with planted defects,
receives the diagnostics (and new ones after an unsaved edit), hovers an id,
jumps to a definition and completes an id.  What Neovim saw is written as
JSON and checked here.

The planted line has `é`, `—` and an emoji before the ids, so every position
crosses the server's code-point -> UTF-16 conversion and Neovim's UTF-16 ->
byte conversion: a range off by one unit would cover the wrong text.

One Neovim run (about 2–3 s) serves every check; the problems found are
gathered and reported together.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from realclients import FILE, PLANTED, REPO, client_env, lint_json, planted_record

DRIVER = Path(__file__).resolve().parent / "nvim" / "driver.lua"
SNIPPET = REPO / "editors" / "nvim" / "recordkit.lua"   # docs/editors.md's Neovim 0.7+ configuration
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def nvim() -> str:
    """Neovim's executable; the test skips where it is absent, and fails there
    where RECORDKIT_REQUIRE_NVIM is set (as .ci/run sets it)."""
    if NVIM is None:
        reason = "nvim is not installed (Debian: apt-get install neovim); the real-client test needs Neovim 0.7+"
        if os.environ.get("RECORDKIT_REQUIRE_NVIM"):
            pytest.fail(reason + ", and RECORDKIT_REQUIRE_NVIM requires it")
        pytest.skip(reason)
    return NVIM

FIXED = PLANTED.replace("LIT-999", "LIT-849")   # the defect fixed by typing (unsaved)
TYPED = " [[THEORY-17]]"   # then typed at the end of the line (with its closing brackets, as an
CURSOR = TYPED.index("]]")  # auto-pair plugin types them), and completed before the "]]"


def byte_col(line: str, index: int) -> int:
    """Neovim's column (a byte offset) of a code-point index into ``line``."""
    return len(line[:index].encode("utf-8"))


def title_of(path: Path) -> str:
    front = path.read_text(encoding="utf-8").split("---", 2)[1]
    return " ".join(str(yaml.safe_load(front)["title"]).split())


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    # configured in pyproject.toml (the Emacs test: recordkit.toml), so the
    # snippets' two ways of finding a configuration both run
    return planted_record(tmp_path_factory.mktemp("nvim-record"), config="pyproject.toml")


@pytest.fixture(scope="module")
def plan(record: Path) -> dict:
    lines = (record / FILE).read_text(encoding="utf-8").split("\n")
    row = lines.index(PLANTED)
    # the cursor inside each id, not on its first character
    return {
        "config": str(SNIPPET),
        "file": str(record / FILE),
        "timeout_ms": 20000,   # per step; generous for a loaded CI machine (a pass takes ~3 s in all)
        "diagnostics": {"code": "RK305"},
        "hover": {"line": row, "col": byte_col(PLANTED, PLANTED.index("CLAIM-125") + 3)},
        "definition": {"line": row, "col": byte_col(PLANTED, PLANTED.index("THEORY-175") + 4)},
        "edit": {"line": row, "col": byte_col(PLANTED, PLANTED.index("LIT-999")),
                 "end_col": byte_col(PLANTED, PLANTED.index("LIT-999") + 7), "text": "LIT-849"},
        "completion": {"line": row, "col": byte_col(FIXED, len(FIXED)), "insert": TYPED,
                       "cursor": byte_col(FIXED + TYPED, len(FIXED) + CURSOR),
                       "accept": "THEORY-175"},
        "output": str(record.parent / (record.name + "-nvim.json")),
        "row": row,
    }


@pytest.fixture(scope="module")
def seen(nvim: str, plan: dict, record: Path, tmp_path_factory) -> dict:
    """Run Neovim once; what it saw."""
    plan_path = record.parent / (record.name + "-plan.json")
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    env = dict(client_env(tmp_path_factory.mktemp("nvim-home")), RK_NVIM_PLAN=str(plan_path))
    run = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
                          "-c", f"luafile {DRIVER}"],
                         cwd=record, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=180)
    out = Path(plan["output"])
    assert out.exists(), f"Neovim wrote no result (exit {run.returncode}):\n{run.stdout}\n{run.stderr}"
    return json.loads(out.read_text(encoding="utf-8"))


def test_neovim_drives_the_server(seen: dict, plan: dict, record: Path):
    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            problems.append(what)

    for step, error in (seen.get("errors") or {}).items():
        problems.append(f"step {step} failed in Neovim: {error}")

    # initialize: the server answered and declared the features used below
    caps = seen.get("server_capabilities") or {}
    for cap in ("hoverProvider", "definitionProvider", "completionProvider", "textDocumentSync"):
        check(bool(caps.get(cap)), f"the server declares no {cap}: {sorted(caps)}")

    # diagnostics: pushed, and equal to `recordkit lint --format json` for the
    # file, code for code and position for position (Neovim's byte columns back
    # to the CLI's 1-based code-point columns)
    lines = (record / FILE).read_text(encoding="utf-8").split("\n")

    def cli_col(lnum: int, byte: int) -> int:
        return len(lines[lnum].encode("utf-8")[:byte].decode("utf-8")) + 1

    got = sorted((d["code"], d["lnum"] + 1, cli_col(d["lnum"], d["col"]), d["end_lnum"] + 1,
                  cli_col(d["end_lnum"], d["end_col"])) for d in seen.get("diagnostics") or [])
    want = sorted((d["code"], d["location"]["row"], d["location"]["column"], d["end_location"]["row"],
                   d["end_location"]["column"]) for d in lint_json(record, FILE))
    check(got == want, f"Neovim's diagnostics differ from the CLI's:\n  nvim {got}\n  cli  {want}")
    dangling = [d for d in seen.get("diagnostics") or [] if d["code"] == "RK305"]
    check([d["covered"] for d in dangling] == ["[[LIT-999]]"],
          f"the dangling wikilink's range covers {[d['covered'] for d in dangling]!r}, not '[[LIT-999]]'")

    # as you type: the defect fixed in the buffer (not saved) clears it
    edited = seen.get("edited") or {}
    check(edited.get("line") == FIXED, f"the edit is not in the buffer: {edited.get('line')!r}")
    left = [d["code"] for d in edited.get("diagnostics") or []]
    check("RK305" not in left and left == [c for c, *_ in want if c != "RK305"],
          f"after fixing [[LIT-999]] in the buffer Neovim shows {left}, not the CLI's others")

    # hover on CLAIM-125 (after é, — and an emoji): its id and title
    hover = flat("\n".join((seen.get("hover") or {}).get("lines") or []))
    claim_title = title_of(record / "records/claim/CLAIM-125.md")
    check("CLAIM-125" in hover and claim_title in hover,
          f"the hover on CLAIM-125 does not show its id and title {claim_title!r}: {hover[:300]!r}")

    # definition: Neovim jumped to THEORY-175's file
    definition = seen.get("definition") or {}
    check(Path(definition.get("bufname", "")).resolve() == (record / "records/theory/THEORY-175.md").resolve(),
          f"go to definition on [[THEORY-175]] went to {definition.get('bufname')!r}")

    # completion inside `[[THEORY-17]]` typed (an incremental didChange): THEORY-175
    completion = seen.get("completion") or {}
    check(completion.get("line") == FIXED + TYPED,
          f"the typed text is not in the buffer: {completion.get('line')!r}")
    offered = [json.dumps(item) for item in completion.get("items") or []]
    check(any("THEORY-175" in label for label in completion.get("labels") or []) or
          any("THEORY-175" in item for item in offered),
          f"completing [[THEORY-17]] does not offer THEORY-175: {(completion.get('labels') or [])[:20]}")

    check(completion.get("accepted") == FIXED + " [[THEORY-175]]",
          f"accepting THEORY-175 (its textEdit) leaves {completion.get('accepted')!r}")

    check(seen.get("stopped") is True, "the server did not stop on shutdown/exit")
    assert not problems, "\n".join(problems) + f"\n(timings, ms: {seen.get('timings')})"
