"""The wheel ships every package, the schema and every template file, and
nothing else of the templates (no stale file of an earlier layout)."""
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    # .ci/run builds the wheel from its fresh clone before the suite runs and
    # names it here: the same build, not a second one (about 10 s of a core)
    built = os.environ.get("RECORDKIT_WHEEL")
    if built:
        return set(zipfile.ZipFile(built).namelist())
    out = tmp_path_factory.mktemp("wheel")
    # Build from a clean copy: pip builds a local folder in place, and a build/
    # left there from an earlier layout would put stale files in the wheel
    # (and the test would litter the checkout with build/ and *.egg-info).
    src = out / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".recordkit",
        "artifacts", ".pytest_cache", ".benchmarks"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "-w", str(out), str(src)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {proc.stderr[-300:]}")
    (wheel,) = out.glob("recordkit-*.whl")
    return set(zipfile.ZipFile(wheel).namelist())


@pytest.mark.slow
def test_every_package_is_in_the_wheel(wheel_names):
    packages = [p.relative_to(REPO).as_posix() for p in (REPO / "recordkit").rglob("__init__.py")
                if "__pycache__" not in p.parts]
    assert "recordkit/emit/__init__.py" in packages
    assert sorted(p for p in packages if p not in wheel_names) == []


def test_wheel_contains_schema_and_templates(wheel_names):
    assert "recordkit/schema/default.yaml" in wheel_names
    presets = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "recordkit" / "schema" / "presets").glob("*.yaml"))
    assert "recordkit/schema/presets/research.yaml" in presets
    assert [p for p in presets if p not in wheel_names] == []
    templates = REPO / "recordkit" / "templates"
    files = [p.relative_to(REPO).as_posix() for p in templates.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    for t in ("graph.html.j2", "graph.css", "graph/data.js", "graph/start.js"):
        assert f"recordkit/templates/{t}" in files
    for t in ("site/record.html.j2", "site/base.html.j2", "site/assets/site.css", "site/assets/site.js"):
        assert f"recordkit/templates/{t}" in files
    assert sorted(f for f in files if f not in wheel_names) == []
    shipped = sorted(n for n in wheel_names if n.startswith("recordkit/templates/"))
    assert shipped == sorted(files)
    # the top-level templates/ folder is gone: the package's is the only one
    assert not (REPO / "templates").exists()


def _name(requirement: str) -> str:
    """A requirement's project name, normalised as PyPI does (PEP 503)."""
    import re
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]).lower()


def test_the_lowest_versions_file_pins_every_floor_of_pyproject():
    """.ci/run's quick step installs constraints-lowest.txt: it must pin each
    direct dependency at exactly the floor pyproject.toml states, and nothing
    else, or the step would test versions no range names."""
    import tomllib
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    floors = {}
    for req in deps:
        assert ">=" in req, f"{req}: every direct dependency states its lowest version (>=)"
        floors[_name(req)] = req.split(">=", 1)[1].split(",")[0].strip()
    pins = {}
    for line in (REPO / "constraints-lowest.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_name(name)] = version.strip()
    assert set(pins) == set(floors), (sorted(set(floors) - set(pins)), sorted(set(pins) - set(floors)))
    for name, floor in floors.items():
        # 6.0 pins a floor written ">=6"; 3.0.0 one written ">=3": the same release
        assert pins[name].split(".") == (floor.split(".") + ["0"] * 3)[:len(pins[name].split("."))], \
            (name, floor, pins[name])
