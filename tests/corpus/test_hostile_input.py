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
    from recordkit.corpus.parse import NotRead, _read
    p = tmp_path / "x.md"
    p.write_bytes(b"x" * 100)
    data, st = _read(p, 100)
    assert len(data) == 100
    with pytest.raises(NotRead):
        _read(p, 99)


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
    assert "NOTE-002.md:6:14: RK206 [*] tag `Bad_Tag` is not kebab-case" in out.stdout, out.stdout
    assert "NOTE-002.md:5:1: RK203 unknown field `note_x`" in out.stdout, out.stdout
    out = cli(rec, "lint", "--fix", "--no-cache")
    assert "Traceback" not in out.stderr
    assert p.read_bytes().decode("utf-8") == text.replace("Bad_Tag", "bad-tag")


def test_line_text_counts_newlines_only():
    from pathlib import Path
    from recordkit.corpus.model import Record
    r = Record(path=Path("x.md"), relpath="x.md", _text="a\u2028b\r\nc\rd\n\ne")
    assert [r.line_text(i) for i in range(0, 6)] == ["", "a\u2028b", "c\rd", "", "e", ""]


def test_fix_refuses_a_file_whose_positions_are_unsafe(rec):
    """When the parser cannot map a front matter's positions to lines (it
    flags the record), --fix leaves the file alone and says why."""
    import recordkit
    from recordkit.lint import lint
    from recordkit.lint.fix import fix_corpus
    p = rec / "note" / "NOTE-002.md"
    text = "---\nid: NOTE-002\ntitle: t\nstatus: draft\ntags: [Bad_Tag]\n---\n"
    p.write_text(text)
    c = recordkit.load(rec)
    c.records["NOTE-002"].no_fix = "positions cannot be mapped"
    report, _ = fix_corpus(c, lambda corpus: lint(corpus).diagnostics)
    assert report.refused == [p] and report.reasons[p] == "positions cannot be mapped"
    assert p.read_text() == text


def test_positions_are_checked_against_the_keys():
    from recordkit.corpus.frontmatter import LineMap as _LineMap
    fm = "a: 1\u2028b: 2\n"
    lm = _LineMap(fm, 2)
    assert lm.pos(1, 0) == (2, 6)
    assert lm.check_keys({("a",): (2, 1, 2, 2), ("b",): (2, 6, 2, 7)})
    assert not lm.check_keys({("b",): (2, 1, 2, 2)})


def test_the_no_fix_flag_travels_from_a_helper_process(tmp_path):
    from pathlib import Path
    from recordkit.corpus.parallel import _flat, _unflat
    from recordkit.corpus.parse import parse_text
    from recordkit.schema import load_schema
    schema = load_schema()
    rec, diags = parse_text(NOTE, Path("/x/NOTE-001.md"), "NOTE-001.md", schema)
    rec.no_fix = "why"
    back, _ = _unflat(_flat(rec, diags), schema.mention_re, rec.path)
    assert back.no_fix == "why"
