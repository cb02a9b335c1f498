"""Input that used to hang, exhaust memory or take quadratic time in the
loader (issue 10): paths that are not regular files, oversized files,
absurdly long ids, YAML alias bombs, and YAML line breaks that editors do not
show.  Each runs the real CLI in a subprocess with a time limit: a hang
fails the test instead of stopping the suite."""
import os
import subprocess
import sys

import pytest

from conftest import write

NOTE = "---\nid: NOTE-001\ntitle: A note\nstatus: draft\n---\nBody.\n"


def cli(root, *args, timeout=60):
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=root.parent, capture_output=True,
                          text=True, env=env, timeout=timeout)


@pytest.fixture
def rec(tmp_path):
    root = tmp_path / "records"
    write(root, "note/NOTE-001.md", NOTE)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    return root


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_named_md_is_a_diagnostic_not_a_hang(rec):
    os.mkfifo(rec / "note" / "NOTE-002.md")
    for args in (("lint", "--no-cache"), ("lint",), ("show", "NOTE-001"), ("graph", "--format", "json"),
                 ("promote",)):
        out = cli(rec, *args)
        assert "Traceback" not in out.stderr, (args, out.stderr)
        assert out.returncode in (0, 1), (args, out.stderr)
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:1:1: RK109 not read: the path is a named pipe (FIFO)" in out.stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_link_to_dev_zero_is_a_diagnostic(rec):
    os.symlink("/dev/zero", rec / "note" / "NOTE-002.md")
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:1:1: RK109 not read: the path is a character device" in out.stdout, out.stderr
    assert "Traceback" not in out.stderr


def test_a_link_to_a_regular_file_is_read(rec, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text(NOTE.replace("NOTE-001", "NOTE-002"))
    os.symlink(outside, rec / "note" / "NOTE-002.md")
    out = cli(rec, "show", "NOTE-002")
    assert out.returncode == 0, out.stderr
    assert "A note" in out.stdout


@pytest.mark.slow
def test_a_file_over_max_file_size_is_a_diagnostic(rec, tmp_path):
    big = NOTE.replace("NOTE-001", "NOTE-002") + "word " * (1 << 20)     # 5 MB
    (rec / "note" / "NOTE-002.md").write_text(big)
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:1:1: RK109 not read: the file is 5 MB, larger than max_file_size (4 MB)" in out.stdout
    # configurable
    (tmp_path / "recordkit.toml").write_text('root = "records"\nmax_file_size = "8MB"\n')
    out = cli(rec, "lint", "--no-cache")
    assert "RK109" not in out.stdout
    (tmp_path / "recordkit.toml").write_text('root = "records"\nmax_file_size = 1000\n')
    out = cli(rec, "lint", "--no-cache")
    assert "RK109 not read: the file is 5 MB, larger than max_file_size (1000 bytes)" in out.stdout
    (tmp_path / "recordkit.toml").write_text('root = "records"\nmax_file_size = "lots"\n')
    out = cli(rec, "lint", "--no-cache")
    assert out.returncode == 2 and "max_file_size must be a size" in out.stderr, out.stderr


def test_a_file_that_grows_past_the_cap_while_read_is_refused(tmp_path):
    from recordkit.corpus.parse import NotRead, read_regular
    p = tmp_path / "x.md"
    p.write_bytes(b"x" * 100)
    data, st = read_regular(p, 100)
    assert len(data) == 100
    with pytest.raises(NotRead):
        read_regular(p, 99)


def test_absurdly_long_ids_are_linear(rec):
    """A 400 KB id (and relation target, mention, wikilink, tag) took
    minutes: the did-you-mean index filed every one-character deletion of
    every id."""
    x = "NOTE-" + "1" * 400_000
    write(rec, "note/LONG.md", f"---\nid: {x}\ntitle: t\nstatus: draft\nextends: {x}2\n"
                               f"tags: [{x}]\n---\n{x} [[{x}]] [[{'A' * 400_000}]]\n")
    out = cli(rec, "lint", "--no-cache", timeout=60)
    assert "Traceback" not in out.stderr
    assert "LONG.md" in out.stdout


def test_near_ignores_long_ids():
    from recordkit.common.didyoumean import MAX_ID_LENGTH, IdIndex
    index = IdIndex(["NOTE-001", "NOTE-" + "1" * 10_000])
    assert index.closest("NOTE-002") == "NOTE-001"
    assert index.closest("NOTE-" + "1" * 9_999 + "2") is None
    assert all(len(k) <= MAX_ID_LENGTH for k in index._keys)


def _bomb(levels=8):
    lines = ["---", "id: NOTE-002", "title: t", "status: draft", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for c in "bcdefghijk"[:levels]:
        lines.append(f"{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
        prev = c
    return "\n".join(lines + ["---", "Body.", ""])


@pytest.mark.slow
def test_yaml_alias_bomb_is_a_diagnostic_quickly(rec):
    """0.4 KB of front matter whose aliases expand to 9^9 values took
    minutes and gigabytes (positions were walked once per expanded alias)."""
    write(rec, "note/NOTE-002.md", _bomb())
    for args in (("lint", "--no-cache"), ("show", "NOTE-001"), ("graph", "--format", "json")):
        out = cli(rec, *args, timeout=60)
        assert "Traceback" not in out.stderr, out.stderr
    out = cli(rec, "lint", "--no-cache")
    assert ("NOTE-002.md:9:4: RK102 front matter is too large once its aliases are expanded: 66,430 values "
            "or more here, and aliases may add at most 10,000") in out.stdout, out.stdout


def test_recursive_alias_and_modest_aliases(rec):
    write(rec, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: t\nstatus: draft\nx: &x [1, *x]\n---\n")
    write(rec, "note/NOTE-003.md", "---\nid: NOTE-003\ntitle: &t A title\nstatus: draft\ntags: [*t, *t]\n---\n")
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:5:4: RK102 front matter has an alias inside the value it refers to" in out.stdout
    assert not [ln for ln in out.stdout.splitlines() if "NOTE-003.md" in ln and "RK102" in ln]
    import recordkit
    c = recordkit.load(rec)
    assert c.records["NOTE-003"].meta["tags"] == ["A title", "A title"]
    # an alias is where its anchor's value is written (PyYAML shares the node)
    assert c.records["NOTE-003"].values[("tags", 1)][:2] == (3, 8)


@pytest.mark.parametrize("br", ["\u2028", "\u2029", "\x85", "\r"])
def test_yaml_only_line_breaks_keep_lines_and_fixes_in_place(rec, br):
    """PyYAML breaks lines at U+2028, U+2029, U+0085 and a lone CR; editors
    (and recordkit) do not.  Diagnostics were a line off and --fix wrote
    the kebab-case tag one line off, garbling the file."""
    text = (f"---\nid: NOTE-002\ntitle: \"One{br}title\"\nstatus: draft\nnote_x: a{br} b\n"
            f"tags: [fine, Bad_Tag]\n---\nBody.\n")
    p = rec / "note" / "NOTE-002.md"
    p.write_bytes(text.encode("utf-8"))
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:6:14: RK206 tag `Bad_Tag` is not kebab-case" in out.stdout, out.stdout
    assert "NOTE-002.md:5:1: RK203 unknown field `note_x`" in out.stdout, out.stdout
    out = cli(rec, "lint", "--fix", "--unsafe-fixes", "--no-cache")   # (`_` → `-` is an unsafe fix)
    assert "Traceback" not in out.stderr
    assert p.read_bytes().decode("utf-8") == text.replace("Bad_Tag", "bad-tag")


def test_line_text_counts_newlines_only():
    from pathlib import Path
    from recordkit.corpus.model import Record
    from recordkit.corpus.source import Source
    r = Record(path=Path("x.md"), relpath="x.md", source=Source("a\u2028b\r\nc\rd\n\ne"))
    assert [r.line_text(i) for i in range(0, 6)] == ["", "a\u2028b", "c\rd", "", "e", ""]


def test_fix_refuses_a_file_whose_positions_are_unsafe(rec, monkeypatch):
    """When the parser cannot map a front matter's positions to lines
    (``fix_refusal``), --fix leaves the file alone and says why."""
    import recordkit
    from recordkit.lint import fix
    from recordkit.lint import lint
    from recordkit.lint.fix import fix_corpus
    p = rec / "note" / "NOTE-002.md"
    text = "---\nid: NOTE-002\ntitle: t\nstatus: draft\ntags: [Bad_Tag]\n---\n"
    p.write_text(text)
    c = recordkit.load(rec)
    monkeypatch.setattr(fix, "fix_refusal", lambda r: "positions cannot be mapped" if r.id == "NOTE-002" else None)
    report, _ = fix_corpus(c, lambda corpus: lint(corpus).diagnostics, unsafe=True)
    assert report.refused == [p] and report.reasons[p] == "positions cannot be mapped"
    assert p.read_text() == text


def test_positions_are_checked_against_the_keys():
    from recordkit.markdown.frontmatter import LineMap as _LineMap
    fm = "a: 1\u2028b: 2\n"
    lm = _LineMap(fm, 2)
    assert lm.pos(1, 0) == (2, 6)
    assert lm.check_keys({("a",): (2, 1, 2, 2), ("b",): (2, 6, 2, 7)})
    assert not lm.check_keys({("b",): (2, 1, 2, 2)})


def test_the_refusal_to_fix_is_the_parsers_verdict_on_the_text(monkeypatch):
    """``fix_refusal`` asks the front matter reader again, from the text
    (a record from a helper process or the store too): a front matter with
    a YAML-only line break whose keys do not map is refused; one without
    such a break is never read again."""
    from pathlib import Path
    from recordkit.corpus import parse
    from recordkit.schema import load_schema
    schema = load_schema()
    rec, _ = parse.parse_text(NOTE, Path("/x/NOTE-001.md"), "NOTE-001.md", schema)
    assert parse.fix_refusal(rec) is None
    odd, _ = parse.parse_text(NOTE.replace("\n", "\u2028", 2).replace("\u2028", "\n", 1),
                              Path("/x/NOTE-001.md"), "NOTE-001.md", schema)
    assert odd.ok and parse.fix_refusal(odd) is None      # (its keys map)
    real = parse.read_front_matter
    monkeypatch.setattr(parse, "read_front_matter", lambda fm, line0: real(fm, line0)[:3] + (False,))
    assert parse.fix_refusal(odd) == parse.NO_FIX
    assert parse.fix_refusal(rec) is None


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_lint_path_of_a_link_to_dev_zero_reports_its_diagnostic(rec):
    """`lint PATH` of a record file that is a link keeps the diagnostics
    located at the link (the path was resolved through it before comparing:
    "All checks passed")."""
    os.symlink("/dev/zero", rec / "note" / "NOTE-003.md")
    out = cli(rec, "lint", "records/note/NOTE-003.md")
    assert "NOTE-003.md:1:1: RK109 not read: the path is a character device" in out.stdout, out.stdout
    assert "All checks passed" not in out.stdout
    assert out.returncode == 1


def test_lint_path_of_a_link_outside_the_root_reports_its_diagnostics(rec, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text(NOTE.replace("NOTE-001", "NOTE-003").replace("status: draft", "status: bogus"))
    os.symlink(outside, rec / "note" / "NOTE-003.md")
    whole = cli(rec, "lint", "--no-cache")
    assert "NOTE-003.md" in whole.stdout, whole.stdout
    out = cli(rec, "lint", "records/note/NOTE-003.md")
    assert [ln for ln in out.stdout.splitlines() if "NOTE-003.md:" in ln] == \
        [ln for ln in whole.stdout.splitlines() if "NOTE-003.md:" in ln], out.stdout
    assert "All checks passed" not in out.stdout


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="no FIFOs or /dev/zero")
def test_check_discovery_reads_only_regular_files_under_the_cap(tmp_path):
    """A FIFO named checks/*.py blocked check discovery forever (in `check`
    and in `lint`), a link to /dev/zero exhausted memory: each is a problem
    saying what the path is, and the other checks run."""
    from conftest import write_mini_record
    write_mini_record(tmp_path)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    checks = tmp_path / "checks"
    os.mkfifo(checks / "pipe.py")
    os.symlink("/dev/zero", checks / "zero.py")
    (checks / "big.py").write_text("# padding\n" * 500_000)     # 5 MB
    root = tmp_path / "records"
    out = cli(root, "check", timeout=60)
    assert "Traceback" not in out.stderr, out.stderr
    assert "checks/pipe.py:1: check module not read: the path is a named pipe (FIFO)" in out.stderr
    assert "checks/zero.py:1: check module not read: the path is a character device" in out.stderr
    assert "checks/big.py:1: check module not read: the file is 4.8 MB, larger than max_file_size" in out.stderr
    assert "one-plus-one" in out.stdout and "1 passed" in out.stdout, out.stdout
    out = cli(root, "lint", timeout=60)
    assert "Traceback" not in out.stderr and out.returncode == 0, out.stderr
    out = cli(root, "lint", "--no-cache", "checks/pipe.py", timeout=60)
    assert "Traceback" not in out.stderr and out.returncode == 0, out.stderr


@pytest.mark.slow
def test_a_check_module_whose_name_is_not_utf8_runs_and_caches(tmp_path):
    from conftest import write_mini_record
    write_mini_record(tmp_path)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    name = os.fsencode(tmp_path / "checks") + b"/odd\xff.py"
    try:
        with open(name, "w") as fh:
            fh.write('from recordkit import check\n\n\n@check("odd-name", tolerance=1e-9, inputs=["in\\xff.txt"])\n'
                     'def _():\n    return 0.0\n')
    except OSError:
        pytest.skip("the file system refuses a name that is not UTF-8")
    root = tmp_path / "records"
    for cached in ("", " (cached)"):
        out = cli(root, "check", timeout=60)
        assert "Traceback" not in out.stderr, out.stderr
        assert "odd-name" in out.stdout and "2 passed" in out.stdout, out.stdout
        assert cached in out.stdout
    out = cli(root, "lint", timeout=60)
    assert "Traceback" not in out.stderr and out.returncode == 0, out.stderr


def test_graph_exports_of_a_non_utf8_file_name_are_utf8(rec, tmp_path):
    """Found by tests/test_fuzz.py: a record without an id in a file whose
    name is not UTF-8 (its id comes from the name) made `graph --format
    json|dot` raise UnicodeEncodeError (in-process) or write bytes that are
    not UTF-8 into the JSON."""
    try:
        (rec / "note").joinpath(os.fsdecode(b"\xff-name.md")).write_text("---\ntitle: no id\n---\nText.\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses a name that is not UTF-8")
    import json
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    for fmt in ("json", "graphml", "gexf", "dot"):
        out = subprocess.run([sys.executable, "-m", "recordkit", "graph", "--format", fmt], cwd=rec.parent,
                             capture_output=True, env=env, timeout=60)
        assert out.returncode == 0 and b"Traceback" not in out.stderr, (fmt, out.stderr)
        text = out.stdout.decode("utf-8")          # strict: every byte is UTF-8
        assert "\\xff-name" in text, (fmt, text[:2000])
        if fmt == "json":
            assert any(n["id"] == "\\xff-name" for n in json.loads(text)["nodes"])


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_lint_diff_on_a_terminal_shows_escapes_not_raw_controls(rec):
    """`lint --diff` printed a record's ESC sequences raw on a terminal (a
    title or body can retitle the window or recolour it); on a terminal they
    show as visible escapes, into a pipe the diff stays exact (as promote
    --diff)."""
    import pty
    write(rec, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: A note\nstatus: draft\n---\n"
          "NOTE-001 \x1b]0;pwned\x07 \x1b[31mred")             # no final line break: RK208, fixable
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--diff"], cwd=rec.parent, stdout=slave,
                              stderr=subprocess.PIPE, env=env, timeout=60)
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:      # EIO: the terminal's other end is closed and drained
                break
            if not b:
                break
            chunks.append(b)
    finally:
        os.close(master)
    shown = b"".join(chunks).decode("utf-8")
    assert proc.returncode in (0, 1), proc.stderr
    assert "+++ " in shown and "NOTE-002.md" in shown, shown
    assert "\x1b" not in shown and "\x07" not in shown, repr(shown)
    assert "\\x1b]0;pwned\\x07" in shown and "\\x1b[31mred" in shown, shown
    piped = cli(rec, "lint", "--diff")
    assert "\x1b]0;pwned\x07" in piped.stdout       # the exact text, for `| git apply`
    assert "\x1b[31mred" in piped.stdout             # (click.echo stripped CSI sequences into a pipe)


@pytest.mark.slow
def test_promote_and_show_json_of_a_non_utf8_file_name_are_utf8(rec):
    """Found by tests/test_fuzz.py: `promote --format json` wrote a proposed
    theory's path that is not UTF-8 as is (UnicodeEncodeError in-process,
    bytes that are not UTF-8 in the JSON from the CLI)."""
    try:
        (rec / "theory").mkdir()
        (rec / "theory").joinpath(os.fsdecode(b"\xff-name.md")).write_text(
            "---\nid: THEORY-003\ntitle: A theory\nstatus: proposed\nsource: [NOTE-001]\n"
            "promote_when:\n  summary: judged\n---\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses a name that is not UTF-8")
    import json
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    for args in (("promote", "--format", "json"), ("promote", "THEORY-003", "--format", "json"),
                 ("show", "THEORY-003", "--format", "json")):
        out = subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=rec.parent, capture_output=True,
                             env=env, timeout=60)
        assert b"Traceback" not in out.stderr, (args, out.stderr)
        text = out.stdout.decode("utf-8")          # strict: every byte is UTF-8
        assert "\\xff-name.md" in json.dumps(json.loads(text)), (args, text)


def test_deeply_nested_front_matter_is_a_diagnostic(rec):
    """Found by tests/test_fuzz.py: values nested hundreds deep made show
    and graph raise RecursionError; past 100 levels the front matter is
    refused as RK102 at the node."""
    write(rec, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: T\nstatus: draft\nx: " + "{a: " * 150 + "1" + "}" * 150
          + "\n---\nBody\n")
    out = cli(rec, "lint", "--no-cache")
    assert "NOTE-002.md:5:401: RK102 front matter is nested more than 100 levels deep here" in out.stdout, out.stdout
    write(rec, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: T\nstatus: draft\nx: " + "[" * 99 + "]" * 99
          + "\n---\nBody\n")
    out = cli(rec, "lint", "--no-cache")
    assert "RK102" not in out.stdout, out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("nest", [
    lambda n: "x: " + "[" * n + "]" * n,          # flow lists
    lambda n: "x: " + "{a: " * n + "1" + "}" * n,  # flow mappings
    lambda n: "x:\n  " + "- " * n + "a",          # block lists on one line
    lambda n: "x:\n  " + "? " * n + "a",          # explicit keys
])
def test_front_matter_too_deep_for_the_c_composer_is_a_diagnostic(rec, nest):
    """libyaml's composer recurses once per level: a 200 KB front matter of
    ``[`` (or ``- - - …``, ``{a: {a: …``, ``? ? …``) killed every command
    with a segmentation fault before the depth check could see the nodes.
    Its depth is now worked out from the parser's events first: the same
    RK102, at the same place, as for a front matter 1,000 deep."""
    def lint_with(n):
        write(rec, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: T\nstatus: draft\n" + nest(n) + "\n---\nBody\n")
        out = cli(rec, "lint", "--no-cache")
        assert out.returncode == 1 and "Traceback" not in out.stderr, (out.returncode, out.stderr[-2000:])
        return [line for line in out.stdout.splitlines() if "NOTE-002" in line]
    deep = lint_with(100_000)
    assert len(deep) == 1 and "RK102 front matter is nested more than 100 levels deep here" in deep[0], deep
    assert deep == lint_with(1_000)
    for args in (("show", "NOTE-001"), ("graph", "--format", "json"), ("export", "--sqlite", "x.db")):
        out = cli(rec, *args)
        assert out.returncode in (0, 1) and "Traceback" not in out.stderr, (args, out.returncode, out.stderr)


@pytest.mark.slow
def test_a_schema_too_deep_or_with_an_alias_bomb_is_a_configuration_error(rec, tmp_path):
    """The same for a schema file (read with the C loader too), for a
    recordkit.toml and for a list given to ``new --field``: exit 2 with a
    message, never a crash or a traceback."""
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    for text, says in (("kinds:\n  LIT:\n    x: " + "[" * 50_000 + "]" * 50_000 + "\n",
                        "the schema file is nested more than 100 levels deep here"),
                       (bomb, "the schema file is too large once its aliases are expanded")):
        (tmp_path / "schema.yaml").write_text(text)
        (tmp_path / "recordkit.toml").write_text('root = "records"\nschema = "schema.yaml"\n')
        out = cli(rec, "lint", "--no-cache")
        assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]
    # recordkit.toml: tomllib reads nested arrays by recursion (a traceback before)
    for value in ("[" * 100_000 + "]" * 100_000, "{a=" * 5_000 + "1" + "}" * 5_000):
        (tmp_path / "recordkit.toml").write_text('root = "records"\nx = ' + value + "\n")
        out = cli(rec, "lint", "--no-cache")
        assert out.returncode == 2 and "nest too deep" in out.stderr and "Traceback" not in out.stderr, \
            out.stderr[-2000:]
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    out = cli(rec, "new", "LIT", "--title", "x", "--field", "references=" + "[" * 50_000 + "]" * 50_000)
    assert out.returncode == 2 and "nests more than" in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert not (rec / "lit").exists()


@pytest.mark.slow
def test_an_integer_too_long_for_decimal_text_is_shown(rec, tmp_path):
    """YAML reads `0xfff…` of any length, but Python refuses to write an
    integer of more than 4,300 decimal digits: `show` died with ValueError
    (found by the fuzz test's `huge_number` mutation).  It is written in hex."""
    big = "0x" + "f" * 4000
    write(rec, "note/NOTE-002.md", f"---\nid: NOTE-002\ntitle: Big\nstatus: draft\nn: {big}\n---\nNOTE-001.\n")
    for args in (("show", "NOTE-002"), ("show", "NOTE-002", "--format", "json"), ("lint", "--no-cache"),
                 ("graph", "--format", "json"), ("export", "--sqlite", str(tmp_path / "x.sqlite")),
                 ("build", "-o", str(tmp_path / "site"), "-q")):
        out = cli(rec, *args, timeout=120)
        assert out.returncode in (0, 1), (args, out.stderr[-2000:])
        assert "Traceback" not in out.stderr, (args, out.stderr[-2000:])
    assert big in cli(rec, "show", "NOTE-002").stdout


def test_an_integer_too_long_for_decimal_text_where_a_string_belongs(rec):
    """The same integer as a title, a status or a tag: the schema's
    validator (jsonschema) writes the value into its message with repr(),
    which raised ValueError out of lint (found by the vault fuzz test's
    `huge_number` mutation).  It is RK202, the value's type named."""
    big = "0x" + "f" * 5000
    write(rec, "note/NOTE-002.md", f"---\nid: NOTE-002\ntitle: {big}\nstatus: {big}\ntags: [{big}]\n---\nB\n")
    for args in (("lint", "--no-cache"), ("lint",)):
        out = cli(rec, *args)
        assert out.returncode == 1 and "Traceback" not in out.stderr, (args, out.stderr[-2000:])
        for field in ("title", "status", "tags.0"):
            assert f"RK202 `{field}` must be a string, not an integer" in out.stdout, out.stdout
