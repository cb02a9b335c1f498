"""The wheel ships the schema and the templates, and lists every package."""
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO


def test_every_package_is_listed():
    import tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.relative_to(REPO).parent.parts) for p in (REPO / "recordkit").rglob("__init__.py")}
    assert found | {"recordkit.templates"} == listed


def test_wheel_contains_schema_and_templates(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
                           str(tmp_path), str(REPO)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {proc.stderr[-300:]}")
    (wheel,) = tmp_path.glob("recordkit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "recordkit/schema/default.yaml" in names
    for t in ("graph.html.j2", "graph.js", "graph.css"):
        assert f"recordkit/templates/{t}" in names
    for t in ("record.html.j2", "base.html.j2", "assets/site.css", "assets/site.js"):   # the site's
        assert f"recordkit/templates/site/{t}" in names
