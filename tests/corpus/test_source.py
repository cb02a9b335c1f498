"""A record's source (recordkit/corpus/source.py and the store's
FileSource): what each call reads, decodes and keeps."""
from __future__ import annotations

from recordkit.corpus.source import Source
from recordkit.corpus.store import FileSource

TEXT = "---\nid: NOTE-1\ntitle: Café\n---\nSee [[LIT-1#Part]] and ](#top).\n"
BODY_AT = TEXT.index("See")


def test_text_is_kept_bytes_are_decoded_once():
    s = Source(TEXT)
    assert s.text() == TEXT and s.body(BODY_AT) == TEXT[BODY_AT:]
    assert s.undecoded() is None and s.held() == TEXT
    b = Source(None, TEXT.encode())
    assert b.undecoded() == TEXT.encode() and b.held() == TEXT.encode()
    assert b.text() == TEXT and b.undecoded() is None and b.held() == TEXT


def test_peeking_keeps_nothing():
    b = Source(None, TEXT.encode())
    assert b.peek_text() == TEXT and b.peek_body(BODY_AT) == TEXT[BODY_AT:]
    assert b.peek() == TEXT.encode() and b.undecoded() == TEXT.encode()      # still undecoded
    assert b.contains(b"](#") and b.contains(b"[[LIT-1#") and not b.contains(b"![[")
    assert Source(TEXT).contains(b"](#") and not Source(TEXT).contains(b"](<#")


def test_compact_keeps_bytes_only_and_the_body_for_sqlite():
    s = Source(TEXT)
    assert s.body_utf8(BODY_AT) == TEXT[BODY_AT:]                   # decoded: the str
    s.compact()
    assert s.undecoded() == TEXT.encode()
    got = s.body_utf8(BODY_AT)                                     # bytes: from the body's byte offset
    assert isinstance(got, memoryview) and bytes(got).decode() == TEXT[BODY_AT:]
    assert s.text() == TEXT


def test_line_starts_count_newlines_only():
    s = Source("a\u2028b\r\nc\rd\n\ne")
    assert s.line_starts() == [0, 5, 9, 10]


def test_a_file_source_reads_its_file_when_asked_and_lets_it_go(tmp_path):
    p = tmp_path / "n.md"
    p.write_bytes(TEXT.encode())
    st = p.stat()
    s = FileSource(p, "d", (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns))
    assert s.held() is None and s.undecoded() is None
    got = s.body_utf8(BODY_AT)                                     # read for SQLite, not kept
    assert bytes(got).decode() == TEXT[BODY_AT:] and s.held() is None
    assert s.peek() == TEXT and s.held() == TEXT                   # read and kept
    s.release()
    assert s.held() is None
    head = b"---\nid: NOTE-1\n---\n"
    p.write_bytes(head + b"\xff")                                   # changed since: read as the text reads it
    assert s.body_utf8(len(head)) == "\ufffd" and s.text().endswith("\ufffd")
    gone = FileSource(tmp_path / "gone.md")
    assert gone.text() == ""
