"""Issue 34: ``init --infer`` says what is true of the notes per kind, and
writes only what differs from the preset it extends.  Through the real CLI.

- the report counted only notes with front matter ("NOTE: 0 note(s)" for a
  kind whose notes have none, "NOTE: 5 note(s)" on an 18-file vault), and
  wrote "0 note(s) when inferred" as each kind's description, which a site
  shows on its home page;
- the ``links:`` block restated every setting of the preset."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import yaml

from conftest import run_cli


def _vault(tmp_path: Path) -> Path:
    """A Foam workspace: notes without front matter in folders and at the
    top (the default kind), one `type:` note, a link by title."""
    v = tmp_path / "w"
    (v / ".foam").mkdir(parents=True)
    (v / "notes").mkdir()
    (v / "projects").mkdir()
    files = {
        "index.md": "# Home\n\nSee [[soil]], [[Kitchen Garden]] and [[plan]].\n",
        "inbox.md": "# Inbox\n\n- [[soil]]\n",
        "notes/soil.md": "# Soil\n\nLoam.\n",
        "notes/worms.md": "---\ntype: concept\n---\n# Worms\n\n[[soil]]\n",
        "notes/kitchen.md": "---\ntitle: Kitchen Garden\n---\nHerbs.\n",
        "projects/plan.md": "# Plan\n\nBeds.\n",
        "projects/budget.md": "# Budget\n\nSeeds.\n",
    }
    for rel, text in files.items():
        (v / rel).write_text(text, encoding="utf-8")
    return v


def _said_counts(stdout: str) -> dict:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^  (\S+): (\d+) notes?\b", stdout, re.M)}


def test_init_infer_counts_the_notes_of_each_kind_as_lint_reads_them(tmp_path):
    v = _vault(tmp_path)
    proc = run_cli("init", "--infer", ".", cwd=v)
    assert proc.returncode == 0, proc.stderr
    said = _said_counts(proc.stdout)
    graph = json.loads(run_cli("graph", "--format", "json", cwd=v, check=True).stdout)
    read = Counter(n["kind"] for n in graph["nodes"])
    assert said == dict(read), (proc.stdout, read)
    assert sum(said.values()) == 7                       # every note, with front matter or not
    schema = yaml.safe_load((v / "recordkit.schema.yaml").read_text(encoding="utf-8"))
    for name, kind in (schema.get("kinds") or {}).items():
        assert "when inferred" not in str(kind.get("description", "")), (name, kind)
        assert not re.search(r"\d+ note", str(kind.get("description", ""))), (name, kind)


def test_the_home_page_shows_no_inferred_count(tmp_path):
    v = _vault(tmp_path)
    run_cli("init", "--infer", ".", cwd=v, check=True)
    site = tmp_path / "site"
    run_cli("build", "-o", str(site), cwd=v, check=True)
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "when inferred" not in home


def test_the_links_block_says_only_what_differs_from_the_preset(tmp_path):
    v = _vault(tmp_path)
    run_cli("init", "--infer", ".", cwd=v, check=True)
    schema = yaml.safe_load((v / "recordkit.schema.yaml").read_text(encoding="utf-8"))
    assert schema["extends"] == "preset:foam"
    # [[Kitchen Garden]] names a note by its title: the one thing preset:foam does not read
    assert schema["links"] == {"resolve": ["path", "stem", "title"]}, schema["links"]
    edges = json.loads(run_cli("graph", "--format", "json", cwd=v, check=True).stdout)
    targets = {e["target"] for e in edges.get("edges", edges.get("links", []))}
    assert "kitchen" in targets


def test_no_links_block_where_the_preset_reads_the_links_already(tmp_path):
    v = _vault(tmp_path)
    (v / "index.md").write_text("# Home\n\nSee [[soil]] and [[plan]].\n", encoding="utf-8")
    run_cli("init", "--infer", ".", cwd=v, check=True)
    schema = yaml.safe_load((v / "recordkit.schema.yaml").read_text(encoding="utf-8"))
    assert "links" not in schema, schema.get("links")
