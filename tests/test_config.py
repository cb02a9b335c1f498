"""recordkit.toml / [tool.recordkit]: a value of the wrong type is a
configuration error that says where (file:line:col), never a traceback."""
import os

import pytest

from conftest import run_cli
from recordkit.config import ConfigError, load_config


@pytest.mark.parametrize("toml,where,message", [
    ("root = 5\n", ":1:1", 'root must be the path of a folder, such as "records", not 5'),
    ('root = ["a"]\n', ":1:1", "root must be the path of a folder"),
    ('root = ""\n', ":1:1", 'root must be the path of a folder, such as "records", not ""'),
    ("# the cache\n  cache_dir = 3\n", ":2:3", "cache_dir must be the path of a folder"),
    ("checks = true\n", ":1:1", "checks must be the path of a folder, such as \"checks\", not true"),
    ("site_title = 5\n", ":1:1", "site_title must be a string"),
    ('root = "r"\n[lint]\nselect = 5\n', ":3:1", 'select must be a list of strings, such as ["RK203", "RK3"]'),
    ('[lint]\nignore = "RK3"\n', ":2:1", "ignore must be a list of strings"),
    ("[lint]\nextend-select = [1]\n", ":2:1", "extend-select must be a list of strings"),
    ("[lint]\nexclude = 1\n", ":2:1", "exclude must be a list of strings"),
    ("[lint]\nseverity = 5\n", ":2:1", "severity must be a table of code ="),
    ("[lint]\nseverity = {RK305 = 5}\n", ":2:1", "severity of RK305 must be error, warning or info, not 5"),
    ('[lint.per-file-ignores]\n"lit/*" = 5\n', ":2:1", "per-file-ignores of lit/* must be a list of strings"),
    ('[lint]\nper-file-ignores = {"lit/*" = 3}\n', ":2:1", "per-file-ignores of lit/* must be a list"),
    ("lint = 5\n", ":1:1", "lint must be a table"),
    # the TOML reader's message (tomllib's or tomli's wording) follows recordkit's
    ("root = \n", ":1:8", "not valid TOML: "),
    (b'x = 1\n\n root = "a\xfe"\n', ":3:11", "not valid TOML: not UTF-8 (byte 0xfe)"),
])
def test_a_wrong_value_says_where(tmp_path, toml, where, message):
    (tmp_path / "recordkit.toml").write_bytes(toml if isinstance(toml, bytes) else toml.encode())
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path)
    assert str(exc.value).startswith(f"{tmp_path / 'recordkit.toml'}{where}: {message}")
    if message.endswith(": "):     # then a detail in the TOML reader's words
        assert str(exc.value)[len(f"{tmp_path / 'recordkit.toml'}{where}: {message}"):].strip()


def test_pyproject_keys_are_found_in_their_table(tmp_path):
    # a `root` outside [tool.recordkit] is not the one reported
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nroot = 5\n\n[tool.recordkit]\n'
                                            'checks = "c"\nroot = 5\n\n[tool.recordkit.lint]\nignore = 3\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml:7:1: root must be the path of a folder"):
        load_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.recordkit]\nroot = "r"\n[tool.recordkit.lint]\nignore = 3\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml:4:1: ignore must be a list of strings"):
        load_config(tmp_path)


def test_the_cli_reports_it_with_exit_2(tmp_path):
    (tmp_path / "records").mkdir()
    (tmp_path / "recordkit.toml").write_text("root = 'records'\n[lint]\nselect = 5\n")
    for args in (["lint"], ["query", "SELECT 1"], ["build", "-o", str(tmp_path / "site")]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        assert "recordkit.toml:3:1: select must be a list of strings" in proc.stderr


# -- fuzz: every key, every type --------------------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_SCALARS = st.one_of(st.integers(-3, 10**6), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                     st.text("abcRK0123*/. -_", max_size=8), st.just("records"), st.just("RK3"),
                     st.just("git"), st.just("error"))
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3),
                    st.dictionaries(st.sampled_from(["RK305", "lit/*", "sql", "x"]), _SCALARS, max_size=2))
_TOP = ["root", "checks", "schema", "site_title", "site_url", "cache_dir", "templates", "max_file_size",
        "skip_dirs", "queries"]
_TABLES = {"lint": ["select", "ignore", "extend-select", "severity", "per-file-ignores", "exclude"],
           "site": ["out", "title", "exclude", "exclude_statuses", "templates", "toc_min_headings", "dates",
                    "recent", "feed_entries"],
           "queries": ["q", "r"]}


def _toml(value) -> str:
    import json
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + "}"


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("CONFIG_EXAMPLES", "60")), deadline=None, suppress_health_check=list(HealthCheck))
@given(top=st.dictionaries(st.sampled_from(_TOP), _VALUES, max_size=3),
       tables=st.dictionaries(st.sampled_from(sorted(_TABLES)), st.data(), max_size=2))
def test_any_value_of_any_key_is_a_diagnostic_not_a_traceback(tmp_path_factory, top, tables):
    """load_config, then lint, query and build in this process (CliRunner):
    whatever the values, exit 0, 1 or 2 and no exception."""
    from click.testing import CliRunner
    from recordkit.cli import main
    from conftest import MINI_RECORD, write
    work = tmp_path_factory.mktemp("cfg")
    for rel, text in MINI_RECORD.items():
        write(work, rel, text)
    lines = ['root = "records"', 'checks = "checks"']
    lines = [ln for ln in lines if ln.split(" ")[0] not in top]
    lines += [f"{k} = {_toml(v)}" for k, v in top.items()]
    for name, data in tables.items():
        if name in top:
            continue
        keys = data.draw(st.dictionaries(st.sampled_from(_TABLES[name]), _VALUES, max_size=3))
        lines += [f"[{name}]"] + [f'"{k}" = {_toml(v)}' for k, v in keys.items()]
    (work / "recordkit.toml").write_text("\n".join(lines) + "\n")
    here = os.getcwd()
    os.chdir(work)                  # where the configuration is found
    try:
        for args in (["lint", "--no-cache"], ["query", "SELECT count(*) FROM records"], ["build", "-q"]):
            res = CliRunner().invoke(main, args, catch_exceptions=True, env={"RECORDKIT_CLEAN_EXIT": "1"})
            exc = res.exception if not isinstance(res.exception, SystemExit) else None
            assert exc is None and res.exit_code in (0, 1, 2), (
                "\n".join(lines), args, res.output[-1500:], repr(exc))
    finally:
        os.chdir(here)


@pytest.mark.parametrize("value,what", [(".", "the configuration's folder"), ("..", "the configuration's folder"),
                                        ("records", "the record root"), ("checks", "the checks folder")])
def test_a_cache_folder_that_holds_the_notes_is_refused(tmp_path, value, what):
    """The cache ignores its folder in git (.gitignore: *): as the project's
    folder or the record root it would hide every note from git."""
    (tmp_path / "recordkit.toml").write_text(f'root = "records"\ncache_dir = "{value}"\n')
    with pytest.raises(ConfigError, match=rf"recordkit\.toml:2:1: cache_dir .* is or holds {what}"):
        load_config(tmp_path)
    (tmp_path / "recordkit.toml").write_text('root = "records"\ncache_dir = "records/.cache"\n')
    load_config(tmp_path)


def test_a_cache_folder_that_is_a_file_is_refused(tmp_path):
    """cache_dir naming a file (or /dev/null) was "File exists: /dev/null"
    from whichever command first made a folder in it."""
    (tmp_path / "recordkit.toml").write_text('root = "records"\ncache_dir = "/dev/null"\n')
    with pytest.raises(ConfigError, match=r"recordkit\.toml:2:1: cache_dir /dev/null is not a folder"):
        load_config(tmp_path)
    (tmp_path / "taken").write_text("x")
    (tmp_path / "recordkit.toml").write_text('root = "records"\ncache_dir = "taken"\n')
    with pytest.raises(ConfigError, match=r"cache_dir \S*taken is not a folder"):
        load_config(tmp_path)


def test_the_cache_never_writes_a_gitignore_among_notes(tmp_path):
    from recordkit.common.writes import ignore_in_git
    for name, holds in [("notes", "a.md"), ("repo", ".git"), ("cache", None)]:
        folder = tmp_path / name
        folder.mkdir()
        if holds:
            (folder / holds).write_text("x")
        ignore_in_git(folder)
        assert (folder / ".gitignore").exists() == (holds is None), name
    ignore_in_git(tmp_path / "nosuch")          # never raises


@pytest.mark.slow
def test_a_schema_or_configuration_that_is_no_file_is_a_message_not_a_hang(tmp_path):
    """A schema file that is a named pipe hung every command (reading
    waited for a writer), and one linked to /dev/zero read until the memory
    ran out; a --config FILE that is either did the same.  Each is now a
    configuration error (exit 2) that names the file and what it is."""
    import os
    from conftest import run_cli
    (tmp_path / "records").mkdir()
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "folder.yaml").mkdir()
    for name, what in [("pipe.yaml", "a named pipe"), ("zero.yaml", "a character device"),
                       ("folder.yaml", "a folder")]:
        (tmp_path / "recordkit.toml").write_text(f'root = "records"\nschema = "{name}"\n')
        proc = run_cli("lint", cwd=tmp_path)
        assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
        assert f"{name}: cannot read the schema file: it is {what}" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    (tmp_path / "recordkit.toml").unlink()
    for name, what in [("pipe.yaml", "a named pipe"), ("zero.yaml", "a character device")]:
        proc = run_cli("--config", name, "lint", cwd=tmp_path)
        assert proc.returncode == 2 and f"{name}: cannot read: it is {what}" in proc.stderr, proc.stderr
    # a recordkit.toml that is no file was passed over for the defaults, in silence
    os.mkfifo(tmp_path / "recordkit.toml")
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2 and "recordkit.toml: cannot read: it is a named pipe" in proc.stderr, proc.stderr
    (tmp_path / "recordkit.toml").unlink()
    (tmp_path / "recordkit.toml").symlink_to("nowhere.toml")
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2 and "No such file or directory (a symbolic link to nowhere.toml)" in proc.stderr, \
        proc.stderr
