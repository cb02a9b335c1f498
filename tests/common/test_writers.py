"""Writers never lose an edit and never damage what they do not fix:
``lint --fix`` and ``promote --apply`` beside each other and beside an
editor, line endings and BOMs, symbolic links, the temporary files of a
killed run, and the lint cache's view of what changed."""
import fcntl
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import recordkit
from recordkit.common import writes as edit
from recordkit.lint import cache
from recordkit.lint.engine import lint
from recordkit.lint.fix import fix_corpus
from recordkit.runtime import tuning

from conftest import REPO, run_cli

LIT = """---
id: LIT-001
title: A paper
status: active
authors: [A. Author]
year: 2020
---
## Key takeaways
Things.
"""

NOTE = """---
id: NOTE-001
title: Note NOTE-001
status: final
paper: LIT-001
bears_on: [THEORY-001]
---
## Claims
| id | claim | strength | support |
| --- | --- | --- | --- |
"""

# ready to promote, and with two safe fixes: a tag to make kebab-case, and
# no final newline
THEORY = """---
id: THEORY-001
title: "Ready: a theory"
status: proposed
source: [LIT-001]
promote_when:
  summary: A final note bears on it.
  requires:
    - record: {kind: NOTE, relation: bears_on, status: final}
tags: [Some-Tag]
---
## What is asserted
Text that stays."""


def _write_bytes(root: Path, rel: str, data: bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def _theory_record(tmp_path) -> tuple[Path, Path]:
    root = tmp_path / "records"
    _write_bytes(root, "lit/LIT-001.md", LIT.encode())
    _write_bytes(root, "note/NOTE-001.md", NOTE.encode())
    return root, _write_bytes(root, "theory/THEORY-001.md", THEORY.encode())


def _lint(corpus):
    return lint(corpus).diagnostics


# ---------------------------------------------------------------------------
# lost updates
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_concurrent_promote_and_fix_lose_no_edit(tmp_path):
    """`promote --apply` and `lint --fix` started together on the same file,
    round after round: both edits are always there at the end."""
    root, path = _theory_record(tmp_path)
    # some bulk, so that each process reads for a while before it writes
    for i in range(2, 120):
        _write_bytes(root, f"lit/LIT-{i:03d}.md", LIT.replace("LIT-001", f"LIT-{i:03d}").encode())
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("GITHUB_ACTIONS", None)
    base = [sys.executable, "-m", "recordkit", "--root", str(root)]
    lost = []
    for rnd in range(4):
        path.write_bytes(THEORY.encode())
        procs = [subprocess.Popen(base + ["lint", "--fix", "--exit-zero", "-q"], env=env, cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
                 subprocess.Popen(base + ["promote", "THEORY-001", "--apply"], env=env, cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert procs[1].returncode == 0, outs[1]
        assert "Traceback" not in outs[0][1] + outs[1][1]
        text = path.read_text(encoding="utf-8")
        promoted = "status: active\npromoted_by: NOTE-001\n" in text
        fixed = "tags: [some-tag]\n" in text and text.endswith("Text that stays.\n")
        if not (promoted and fixed):
            lost.append((rnd, promoted, fixed, outs))
    assert not lost, lost


_GATED = """
import os, sys, time
from pathlib import Path
import recordkit.common.writes as edit
import recordkit.lint.fix as fix
ready, go = Path(sys.argv[1]), Path(sys.argv[2])
real = edit.atomic_write

def gated(path, text, **kw):
    # read, edit made: wait here until told to write
    if not ready.exists():
        ready.touch()
        deadline = time.time() + 120
        while not go.exists() and time.time() < deadline:
            time.sleep(0.02)
    return real(path, text, **kw)

edit.atomic_write = fix.atomic_write = gated
sys.argv = ["recordkit"] + sys.argv[3:]
from recordkit.cli import main
main()
"""


@pytest.mark.parametrize("first", ["lint", "promote"])
def test_promote_and_fix_interleaved_lose_no_edit(tmp_path, first):
    """One writer reads the file and is held just before it writes; the other
    runs to the end; then the first writes.  Both edits must be there (before
    writers checked the file, the held one overwrote the other's edit)."""
    root, path = _theory_record(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("GITHUB_ACTIONS", None)
    args = {"lint": ["--root", str(root), "lint", "--fix", "--exit-zero", "-q"],
            "promote": ["--root", str(root), "promote", "THEORY-001", "--apply"]}
    second = "promote" if first == "lint" else "lint"
    ready, go = tmp_path / "ready", tmp_path / "go"
    held = subprocess.Popen([sys.executable, "-c", _GATED, str(ready), str(go)] + args[first], env=env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while not ready.exists() and held.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        assert ready.exists(), held.communicate()
        other = subprocess.run([sys.executable, "-m", "recordkit"] + args[second], env=env, cwd=tmp_path,
                               capture_output=True, text=True, timeout=300)
        assert other.returncode == 0, other.stderr
    finally:
        go.touch()
        out, err = held.communicate(timeout=300)
    assert held.returncode == 0, err
    text = path.read_text(encoding="utf-8")
    assert "status: active\npromoted_by: NOTE-001\n" in text, text
    assert "tags: [some-tag]\n" in text and text.endswith("Text that stays.\n"), text
    assert "changed while fixing" in err or "promoted" in out


def _editor_save(path: Path, old: str, new: str) -> None:
    """What an editor does when it saves in place: truncate and write."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text.replace(old, new))


def test_editor_save_after_the_read_is_kept_and_fixed_again(tmp_path):
    root, path = _theory_record(tmp_path)
    corpus = recordkit.load(root)                      # --fix has read the file ...
    _editor_save(path, "Text that stays.", "Text the user just typed.")   # ... the user saves ...
    report, _ = fix_corpus(corpus, _lint, write=True)  # ... then --fix writes
    text = path.read_text(encoding="utf-8")
    assert "Text the user just typed." in text          # the save is kept
    assert "tags: [some-tag]\n" in text and text.endswith("typed.\n")   # and the fixes are made on it
    assert report.changed == [path] and not report.conflicts


def test_editor_save_just_before_the_replace_is_kept(tmp_path, monkeypatch):
    """A save that lands between the unchanged-check and the rename (in
    place, on the file that is about to be replaced) is found and put back."""
    root, path = _theory_record(tmp_path)
    saves = []

    def editor(target):
        if not saves:
            saves.append(target)
            _editor_save(path, "Text that stays.", "Saved at the worst moment.")

    monkeypatch.setattr(edit, "_before_replace", editor)
    report, _ = fix_corpus(recordkit.load(root), _lint, write=True)
    text = path.read_text(encoding="utf-8")
    assert saves and "Saved at the worst moment." in text
    assert "tags: [some-tag]\n" in text and text.endswith("moment.\n")
    assert not report.conflicts


def test_a_file_that_keeps_changing_is_left_to_its_writer(tmp_path, monkeypatch):
    root, path = _theory_record(tmp_path)
    n = []

    def editor(target):
        n.append(1)
        _editor_save(path, "Text", "Text again")

    corpus = recordkit.load(root)
    monkeypatch.setattr(edit, "_before_replace", editor)
    report, _ = fix_corpus(corpus, _lint, write=True)
    text = path.read_text(encoding="utf-8")
    assert report.conflicts == [path]
    assert text.count(" again") == len(n) >= 2        # every save is there ...
    assert "Some-Tag" in text                           # ... and none of our edits
    assert not any(p.name.endswith(".tmp") for p in path.parent.iterdir())


def test_cli_fix_beside_an_editor_never_overwrites_the_save(tmp_path):
    """The real CLI, with an editor saving right after `lint --fix` read the
    record (the save is made from inside the process, at the moment the fix
    is about to be written; before this was checked, it was lost 5 times of 5)."""
    root, path = _theory_record(tmp_path)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        import recordkit.lint.fix as fix
        path = Path({str(path)!r})
        real = fix.atomic_write
        def atomic_write(p, text, **kw):
            if Path(p) == path and not getattr(atomic_write, "done", False):
                atomic_write.done = True
                t = path.read_text(encoding="utf-8")
                path.write_text(t.replace("Text that stays.", "Saved by the editor."), encoding="utf-8")
            return real(p, text, **kw)
        fix.atomic_write = atomic_write
        sys.argv = ["recordkit", "--root", {str(root)!r}, "lint", "--fix", "--exit-zero"]
        from recordkit.cli import main
        main()
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = path.read_text(encoding="utf-8")
    assert "Saved by the editor." in text
    assert "tags: [some-tag]\n" in text and text.endswith("editor.\n")
    assert "theory/THEORY-001.md changed while fixing; fixed the new text" in proc.stderr


def test_promote_replans_when_the_file_changed(tmp_path, monkeypatch):
    from recordkit import lifecycle as lc
    root, path = _theory_record(tmp_path)
    corpus = recordkit.load(root)
    _editor_save(path, "Text that stays.", "Edited meanwhile.")
    old, new, by = lc.apply_promotion(corpus, "THEORY-001")
    text = path.read_text(encoding="utf-8")
    assert text == new and "Edited meanwhile." in text and "status: active\npromoted_by: NOTE-001\n" in text
    # a theory someone else promoted meanwhile is refused with a clear reason
    path.write_bytes(THEORY.encode())
    corpus = recordkit.load(root)
    _editor_save(path, "status: proposed", "status: rejected")
    with pytest.raises(lc.PromotionRefused) as exc:
        lc.apply_promotion(corpus, "THEORY-001")
    assert exc.value.reasons == ["THEORY-001 is rejected, not proposed"]
    assert "status: rejected" in path.read_text(encoding="utf-8")


def test_atomic_write_refuses_a_changed_or_vanished_file(tmp_path):
    p = tmp_path / "f.md"
    p.write_bytes(b"one\n")
    d = edit.content_digest(b"one\n")
    p.write_bytes(b"two\n")
    with pytest.raises(edit.WriteConflict) as exc:
        edit.atomic_write(p, "three\n", expect=d)
    assert exc.value.current == b"two\n" and p.read_bytes() == b"two\n"
    p.unlink()
    with pytest.raises(edit.WriteConflict) as exc:
        edit.atomic_write(p, "three\n", expect=d)
    assert exc.value.current is None and not p.exists()
    assert list(tmp_path.iterdir()) == []


def test_writers_serialize_on_the_file_lock(tmp_path):
    """While one writer holds the file's lock, another waits; then it sees
    the first one's write and refuses rather than overwrite it."""
    import threading
    p = tmp_path / "f.md"
    p.write_bytes(b"base\n")
    d = edit.content_digest(b"base\n")
    results = []
    with edit._locked_target(p) as fd:
        assert fd is not None
        t = threading.Thread(target=lambda: results.append(_try_write(p, b"second\n", d)))
        t.start()
        time.sleep(0.3)
        assert t.is_alive() and not results                # waiting for the lock
        fd2, tmp = __import__("tempfile").mkstemp(dir=tmp_path)
        os.write(fd2, b"first\n")
        os.close(fd2)
        os.replace(tmp, p)                                 # the holder writes
    t.join(10)
    assert results == ["conflict"] and p.read_bytes() == b"first\n"


def _try_write(p, data, d):
    try:
        edit.atomic_write(p, data, expect=d)
        return "written"
    except edit.WriteConflict:
        return "conflict"


# ---------------------------------------------------------------------------
# line endings, BOM, symbolic links
# ---------------------------------------------------------------------------

def test_fix_keeps_crlf_and_bom_byte_for_byte(tmp_path):
    root = tmp_path / "records"
    before = ("\ufeff" + LIT.replace("status: active", "status: Queued").rstrip("\n")).replace("\n", "\r\n")
    path = _write_bytes(root, "LIT-001.md", before.encode("utf-8"))
    proc = run_cli("--root", str(root), "lint", "--fix", "--exit-zero", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    expected = before.replace("status: Queued", "status: queued") + "\r\n"
    assert path.read_bytes() == expected.encode("utf-8")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf---\r\n")
    # and the file is clean now: nothing left to fix
    proc = run_cli("--root", str(root), "lint", "--fix", "--exit-zero", cwd=tmp_path)
    assert path.read_bytes() == expected.encode("utf-8") and "Fixed" not in proc.stderr


def test_fix_adds_only_the_lf_after_a_final_cr_in_a_crlf_file(tmp_path):
    root = tmp_path / "records"
    before = LIT.replace("\n", "\r\n").rstrip("\n")        # ends with "\r"
    path = _write_bytes(root, "LIT-001.md", before.encode())
    report, _ = fix_corpus(recordkit.load(root), _lint, write=True)
    assert path.read_bytes() == LIT.replace("\n", "\r\n").encode()


def test_fix_writes_through_a_symlink_and_keeps_it(tmp_path):
    root = tmp_path / "records"
    elsewhere = tmp_path / "shared" / "LIT-001.md"
    _write_bytes(tmp_path, "shared/LIT-001.md", LIT.rstrip("\n").encode())
    root.mkdir()
    (root / "LIT-001.md").symlink_to(os.path.relpath(elsewhere, root))
    proc = run_cli("--root", str(root), "lint", "--exit-zero", cwd=tmp_path)
    assert "RK208 [*]" in proc.stdout
    proc = run_cli("--root", str(root), "lint", "--fix", "--exit-zero", cwd=tmp_path)
    assert "Fixed 1 diagnostic" in proc.stderr, proc.stdout + proc.stderr
    assert (root / "LIT-001.md").is_symlink()
    assert elsewhere.read_bytes() == LIT.encode()
    assert "RK208" not in run_cli("--root", str(root), "lint", "--exit-zero", cwd=tmp_path).stdout
    assert sorted(p.name for p in elsewhere.parent.iterdir()) == ["LIT-001.md"]


# ---------------------------------------------------------------------------
# temporary files of a killed run
# ---------------------------------------------------------------------------

def _stale(path: Path, data: bytes, age: float = 3600) -> Path:
    path.write_bytes(data)
    t = time.time() - age
    os.utime(path, (t, t))
    return path


def test_temp_files_of_a_killed_fix_are_not_records_and_are_removed(tmp_path):
    root = tmp_path / "records"
    path = _write_bytes(root, "LIT-001.md", LIT.rstrip("\n").encode())
    # what a --fix killed between writing its temporary file and the rename
    # leaves: a hidden copy holding the same id
    old = _stale(root / ".LIT-001.md.k2x_9abc.tmp", LIT.encode())
    fresh = _stale(root / ".LIT-001.md.p0q1r2s3.tmp", LIT.encode(), age=0)       # a writer at work
    held = _stale(root / ".LIT-001.md.zzzz1111.tmp", LIT.encode())               # locked by a writer
    mine = _stale(root / ".notes.k2x_9abc.tmp", b"a user's file")                  # not our pattern
    proc = run_cli("--root", str(root), "lint", "--exit-zero", "--format", "json", cwd=tmp_path)
    diags = json.loads(proc.stdout)
    assert {d["filename"] for d in diags} == {"records/LIT-001.md"}, diags
    assert "RK203" not in proc.stdout and "duplicate" not in proc.stdout
    with open(held, "rb") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        proc = run_cli("--root", str(root), "lint", "--fix", "--exit-zero", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "removed records/.LIT-001.md.k2x_9abc.tmp, left by an interrupted write" in proc.stderr, proc.stderr
        assert not old.exists() and fresh.exists() and held.exists() and mine.exists()
    assert path.read_bytes() == LIT.encode()


def test_promote_and_the_cache_clean_their_temp_files(tmp_path):
    root, path = _theory_record(tmp_path)
    path.write_bytes(THEORY.encode() + b"\n")
    old = _stale(path.parent / ".THEORY-001.md.abcdefgh.tmp", b"partial")
    proc = run_cli("--root", str(root), "promote", "THEORY-001", "--apply", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not old.exists()
    cache_dir = tmp_path / ".recordkit"
    cache_dir.mkdir(exist_ok=True)
    stale_json = _stale(cache_dir / ".lint-cache.json.abcdefgh.tmp", b"{")
    run_cli("--root", str(root), "lint", "--exit-zero", cwd=tmp_path)
    assert (cache_dir / "lint-cache.json").exists() and not stale_json.exists()


# ---------------------------------------------------------------------------
# the lint cache sees every change
# ---------------------------------------------------------------------------

@pytest.mark.slow
def test_cache_sees_an_edit_that_keeps_size_and_mtime(tmp_path):
    root = tmp_path / "records"
    path = _write_bytes(root, "LIT-001.md", LIT.encode())
    first = run_cli("--root", str(root), "lint", cwd=tmp_path)
    assert "RK204" not in first.stdout
    time.sleep(tuning.RACY_NS / 1e9 + 0.5)      # so that the file is not "racy": its stat is trusted
    run_cli("--root", str(root), "lint", cwd=tmp_path)          # stores the signature as trusted
    assert "(cached)" in run_cli("--root", str(root), "lint", cwd=tmp_path).stdout
    st = os.stat(path)
    # the same number of bytes, and the old mtime put back
    path.write_bytes(LIT.replace("status: active", "status: zzzzzz").encode())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    again = run_cli("--root", str(root), "lint", cwd=tmp_path)
    assert "(cached)" not in again.stdout and "RK204" in again.stdout


def test_cache_rehashes_racy_files_then_trusts_them(tmp_path, monkeypatch):
    """A file whose change time is too close to the stored read to prove
    anything is hashed: an edit in the same clock tick is not missed."""
    root = tmp_path / "records"
    path = _write_bytes(root, "LIT-001.md", LIT.encode())
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    st = os.stat(path)
    sig = [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]
    stored_digest = edit.content_digest(b"what the file held when it was read")   # then changed, same tick

    def store(t):
        (cache_dir / cache.STAT_NAME).write_text(json.dumps({"v": 2, "t": t, "files": {str(path): sig + [stored_digest]}}))

    store(st.st_ctime_ns)                     # read in the tick of its last change: racy
    assert cache.unchanged_hashes([path], cache_dir) is None
    store(st.st_ctime_ns + 2 * tuning.RACY_NS)  # read long after it last changed: the stat is trusted
    assert cache.unchanged_hashes([path], cache_dir) == {str(path): stored_digest}
    # a racy file that still holds what was read is trusted from now on
    real = edit.content_digest(path.read_bytes())
    (cache_dir / cache.STAT_NAME).write_text(json.dumps({"v": 2, "t": st.st_ctime_ns, "files": {str(path): sig + [real]}}))
    monkeypatch.setattr(tuning, "RACY_NS", 0)
    assert cache.unchanged_hashes([path], cache_dir) == {str(path): real}
    assert json.loads((cache_dir / cache.STAT_NAME).read_text())["t"] > st.st_ctime_ns


@pytest.mark.slow
def test_an_output_never_replaces_a_note(tmp_path):
    """export --sqlite, graph --html and graph -o refuse a Markdown file
    name (a record, a README) and an existing file that is not what they
    write; their own earlier output, or an empty file, they replace."""
    import shutil
    from conftest import REPO, run_cli
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    note = tmp_path / "records" / "lit" / "LIT-849.md"
    before = note.read_bytes()
    (tmp_path / "README.txt").write_text("# notes\n")
    for args, message in [
        (["export", "--sqlite", str(note)], "is a Markdown file name"),
        (["graph", "--html", str(note)], "is a Markdown file name"),
        (["graph", "--format", "json", "-o", "NOTES.MD"], "is a Markdown file name"),
        (["export", "--sqlite", "README.txt"], "README.txt exists and is not an SQLite database"),
        (["graph", "--html", "README.txt"], "README.txt exists and is not an HTML page"),
    ]:
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)
    assert note.read_bytes() == before and (tmp_path / "README.txt").read_text() == "# notes\n"
    assert not (tmp_path / "NOTES.MD").exists()
    (tmp_path / "empty.db").write_bytes(b"")
    for args in (["export", "--sqlite", "empty.db"], ["export", "--sqlite", "empty.db"],
                 ["graph", "--html", "g.html"], ["graph", "--html", "g.html"]):
        assert run_cli(*args, cwd=tmp_path).returncode == 0, args


@pytest.mark.slow
def test_an_output_into_a_device_a_pipe_or_a_link_is_written_into_never_replaced(tmp_path):
    """``export --sqlite``, ``graph --html`` and ``graph -o`` write into a
    named pipe or a character device (``/dev/null``, ``/dev/stdout``) instead
    of renaming a new file over it (as root, that replaced the system's
    ``/dev/null`` with a regular file); write through a symbolic link,
    which stays; and refuse an empty name, a socket, and a link to a note."""
    import shutil
    import socket
    import stat
    import threading
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')

    # a named pipe: the database's bytes come out of it, and it stays a pipe
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = run_cli("export", "--sqlite", str(fifo), cwd=tmp_path)
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].startswith(b"SQLite format 3\x00")
    db = tmp_path / "from-pipe.db"
    db.write_bytes(got[0])
    import sqlite3
    assert sqlite3.connect(db).execute("SELECT count(*) FROM records WHERE id = 'LIT-849'").fetchone() == (1,)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    # /dev/stdout: the exported graph comes out on standard output
    proc = run_cli("graph", "--format", "json", "-o", "/dev/stdout", cwd=tmp_path, process=True)   # (its fd 1)
    assert proc.returncode == 0 and json.loads(proc.stdout)["nodes"], proc.stderr

    # a character device like /dev/null (made here, where root may)
    if os.geteuid() == 0:
        null = tmp_path / "null"
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        for args in (["export", "--sqlite", str(null)], ["graph", "--html", str(null)],
                     ["graph", "--format", "json", "-o", str(null)]):
            proc = run_cli(*args, cwd=tmp_path)
            assert proc.returncode == 0, (args, proc.stderr)
            assert stat.S_ISCHR(os.lstat(null).st_mode), args

    # a symbolic link: its target is replaced, the link stays
    (tmp_path / "real.db").write_bytes(b"")
    (tmp_path / "link.db").symlink_to("real.db")
    assert run_cli("export", "--sqlite", "link.db", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.db").is_symlink()
    assert (tmp_path / "real.db").read_bytes().startswith(b"SQLite format 3\x00")

    # refused: an empty name, a socket, a link to a note (even an empty one)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s.sock"))
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "note.db").symlink_to("empty.md")
    for args, message in [(["export", "--sqlite", ""], "the output file name is empty"),
                          (["export", "--sqlite", "s.sock"], "s.sock is a socket"),
                          (["graph", "--html", "note.db"], "is a Markdown file name")]:
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
    sock.close()
    assert (tmp_path / "empty.md").read_bytes() == b"" and stat.S_ISSOCK(os.lstat(tmp_path / "s.sock").st_mode)

    # a folder that does not exist: named as asked, not by a temporary file
    proc = run_cli("export", "--sqlite", "no/such/folder/x.db", cwd=tmp_path)
    assert proc.returncode == 2 and "no/such/folder/x.db" in proc.stderr and ".tmp" not in proc.stderr, proc.stderr


def test_a_few_files_are_fsynced_each_and_many_by_one_syncfs(tmp_path, monkeypatch):
    """syncfs writes out whatever any process left unwritten on the file
    system: a rename of one record just after a large export waited for all
    of it.  A few files are fsynced each; many, by one syncfs."""
    import os

    from recordkit.common import transaction
    calls = {"fsync": 0, "syncfs": 0}
    real_fsync = os.fsync

    def fsync(fd):
        calls["fsync"] += 1
        real_fsync(fd)

    def fake_syncfs(fd):
        calls["syncfs"] += 1
        return 0
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(transaction, "_syncfs", lambda: fake_syncfs)
    paths = []
    for i in range(transaction.SYNCFS_FROM + 4):
        p = tmp_path / f"f{i}"
        p.write_text("x")
        paths.append(str(p))
    transaction._flush(paths[:3])
    assert calls == {"fsync": 3, "syncfs": 0}
    transaction._flush(paths)
    assert calls == {"fsync": 3, "syncfs": 1}
