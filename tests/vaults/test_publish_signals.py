"""Issue 34: every "do not publish" signal of a vault's own tool is honoured
by ``recordkit build`` and named in its summary, and nothing of a note kept
out reaches any file of the site (page, search index, previews, feed, graph
data, other pages' backlinks).

The vault is tests/fixtures/vaults/quartz-garden (a Quartz 4 layout written
by hand, see its README): each note that must not be published holds a
``SECRET-…`` word.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import run_cli

GARDEN = Path(__file__).resolve().parent.parent / "fixtures" / "vaults" / "quartz-garden"
SECRETS = {
    "SECRET-DRAFT-BOOL": "draft: true",
    "SECRET-DRAFT-STRING": 'draft: "true"',
    "SECRET-IGNOREPATTERN": "Quartz ignorePatterns",
    "SECRET-TEMPLATE": "template folder",
    "SECRET-USERIGNORE": "Obsidian excluded files",
    "SECRET-TRASH": ".trash",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The garden copied, configured with preset:obsidian and built once:
    (folder, the build's stderr, every file of the site as bytes)."""
    folder = tmp_path_factory.mktemp("garden") / "garden"
    shutil.copytree(GARDEN, folder, symlinks=True)
    (folder / "recordkit.toml").write_text('root = "content"\nschema = "preset:obsidian"\n', encoding="utf-8")
    proc = run_cli("build", "-o", "site", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    site = folder / "site"
    files = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    return folder, proc.stderr, files


def test_no_secret_in_any_output_file(built):
    _folder, _err, files = built
    assert any(name.endswith(".html") for name in files)
    leaks = [(secret, name) for name, data in files.items() for secret in SECRETS if secret.encode() in data]
    assert not leaks, leaks


def test_summary_names_how_many_and_why(built):
    _folder, err, _files = built
    assert "0 records kept out" not in err
    assert "4 records kept out" in err, err       # 2 drafts, 1 ignorePatterns, 1 excluded file
    assert "2 draft: true" in err, err            # draft: "true" is read as Quartz reads it
    assert 'Quartz ignorePatterns "private"' in err, err
    assert 'Obsidian excluded files "Archive/"' in err, err
    assert "templates/ (template folder, .obsidian/templates.json)" in err, err
    assert ".trash/ (Obsidian's trash)" in err, err


def test_underscore_folders_are_published(built):
    """Obsidian reads `_notes/`: preset:obsidian walks it (the default
    skip_dirs of a research record leaves `_` folders out)."""
    _folder, _err, files = built
    assert any(b"Underscore note" in data for name, data in files.items() if name.endswith(".html")
               and "underscore" in name.lower()), sorted(files)


def test_published_pages_still_link_the_published(built):
    _folder, _err, files = built
    pages = [name for name in files if name.endswith(".html")]
    zettel = [n for n in pages if "zettelkasten" in n.lower()]
    assert zettel, pages
    text = files[zettel[0]].decode("utf-8")
    # its backlinks: index and Spaced repetition, not the draft that links it
    assert "Spaced repetition" in text
    assert "Take-home assignment" not in text and "Reading list" not in text


def test_templates_and_trash_are_not_linted(tmp_path):
    """The template folder's `{{date}}` is no note: the lint reads it not
    (it was RK102 "not valid YAML"); the ignored and draft notes are still
    notes of the vault, linted."""
    folder = tmp_path / "garden"
    shutil.copytree(GARDEN, folder, symlinks=True)
    (folder / "recordkit.toml").write_text('root = "content"\nschema = "preset:obsidian"\n', encoding="utf-8")
    proc = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "templates/Daily.md" not in proc.stdout
    assert "Deleted.md" not in proc.stdout
    proc = run_cli("lint", "--no-cache", cwd=folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
