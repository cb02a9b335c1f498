"""Print the installed version of each direct dependency pyproject.toml
names (and its test extras), one line each: what pip resolved for this run."""
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
groups = [("dependencies", project["dependencies"])] + [
    (f"[{extra}]", reqs) for extra, reqs in project.get("optional-dependencies", {}).items()]
print(f"python {sys.version.split()[0]}")
for label, reqs in groups:
    cells = []
    for req in reqs:
        name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
        try:
            cells.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            cells.append(f"{name} (not installed)")
    print(f"{label}: " + ", ".join(cells))
