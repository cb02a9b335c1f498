"""A backlink's sentence (``views.mention_sentence``) is read from a window
around the mention, not from the whole paragraph: a paragraph of 8,000
lines naming 8,000 records took 48 s to build (4.5 s at 2,000: the square).
On paragraphs of ordinary length the sentence is the one the paragraph walk
gave (the frozen ``sentence_before``), for a record decoded or still bytes;
a longer one is cut at the window's edge and says so with "…"."""
from __future__ import annotations

import pytest
import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.emit.site import views
from sentence_before import mention_sentence as before
from conftest import child_cpu

MENTION_RE = re.compile(r"(?<![\w-])[A-Z]+-\d+\b")


class _Rec:
    """A record as mention_sentence reads it: decoded, or the file's bytes
    not decoded yet (its ``source``)."""
    def __init__(self, rid, body, as_bytes=False):
        from recordkit.corpus.source import Source
        self.id, self.body_offset, self.body_line = rid, 0, 1
        self.source = Source(None, body.encode("utf-8")) if as_bytes else Source(body)
        self.code, self.mention_re = [], MENTION_RE

    @property
    def text(self):
        return self.source.peek_text()

    def known_mentions(self):
        return None


PIECES = ["NOTE-2", "NOTE-3", " NOTE-2 ", "- ", "* ", "1. ", "# h", "| t |", "", " ", "\n", "\n\n", "A b.", "c. ",
          "Next? ", "(x) ", "\"q.\" ", "[[NOTE-3|its label]]", "[see](u) ", "*em* ", "\t", "é", "ü. Ö ", "x" * 30,
          "   ", "—", "1e-4. ", "Z"]
BODY = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(BODY, st.sampled_from([320, 40, 12]), st.booleans())
def test_the_sentence_is_the_paragraph_walks(body, limit, as_bytes):
    cache_new, cache_old = {}, {}
    for target in ("NOTE-2", "NOTE-3", "NOTE-4"):
        for label_first in (False, True):
            got = views.mention_sentence(_Rec("NOTE-1", body, as_bytes), target, limit, cache_new, label_first)
            want = before(_Rec("NOTE-1", body), target, limit, cache_old, label_first)
            assert got == want, (target, label_first)


def test_a_sentence_longer_than_the_window_is_cut_and_says_so():
    w = views.SENTENCE_WINDOW
    for as_bytes in (False, True):
        body = "Start. " + "word é " * w + "NOTE-2 here " + "more ü " * w + "end. After.\n"
        s = views.mention_sentence(_Rec("NOTE-1", body, as_bytes), "NOTE-2")
        assert s.startswith("…") and s.endswith("…") and "NOTE-2 here" in s and s.count("…") == 2
        assert len(s) == 322
        # a short sentence in the same long paragraph is whole
        body = "x. " * (3 * w) + "A short one with NOTE-2. Then " + "y " * (3 * w) + "\n"
        assert views.mention_sentence(_Rec("NOTE-1", body, as_bytes), "NOTE-2") == "A short one with NOTE-2."
        # cut windows never split a character (bytes): only é and letters
        body = "é" * (5 * w) + " NOTE-2 " + "é" * (5 * w)
        s = views.mention_sentence(_Rec("NOTE-1", body, as_bytes), "NOTE-2")
        assert set(s) <= {"é", " ", "…", "N", "O", "T", "E", "-", "2"} and "NOTE-2" in s


@pytest.mark.slow
def test_a_paragraph_naming_thousands_of_records_builds_in_linear_time(tmp_path):
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    n = 4000
    for i in range(2, n + 2):
        body = "x\n"
        if i == 2:      # one paragraph, a line for each record it names
            body = "See " + " and\n".join(f"NOTE-{j:05d}" for j in range(3, n + 2)) + ".\n"
        (root / "note" / f"NOTE-{i:05d}.md").write_text(
            f"---\nid: NOTE-{i:05d}\ntitle: Note {i}\nstatus: draft\n---\n{body}", encoding="utf-8")
    t0 = child_cpu()
    out = subprocess.run([sys.executable, "-m", "recordkit", "--root", str(root), "build", "-o",
                          str(tmp_path / "site"), "-q"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    took = child_cpu() - t0
    assert out.returncode == 0, out.stderr
    assert took < 10, took       # 8,000 records: 4.5 s; the paragraph walk took 48 s (quadratic: ~12 s at 4,000)
    page = (tmp_path / "site" / "note" / "NOTE-03000.html").read_text(encoding="utf-8")
    assert "NOTE-02999 and NOTE-03000 and NOTE-03001" in re.sub(r"<[^>]+>", "", page)


class _FmRec(_Rec):
    """A record with front matter: its body starts after the closing line."""
    def __init__(self, rid, front, body, as_bytes=False):
        text = front + body
        super().__init__(rid, text, as_bytes)
        self.body_offset = len(front)
        self.fm_end_line = front.count("\n")
        self.body_line = self.fm_end_line + 1


def test_a_sentence_never_reaches_into_the_front_matter():
    """The body's first paragraph has no line before it but the front
    matter's closing ``---``: the walk back took the fields in, YAML
    comments included (``id: NOTE-1 title: … # reviewer comment … This
    note relies on NOTE-2``)."""
    front = "---\nid: NOTE-1\ntitle: Fïrst\ntags: [a]   # reviewer comment SECRET\n---\n"
    for body in ("This note relies on NOTE-2 for its claim.\n", "Relies on NOTE-2", "NOTE-2 first.\nNext line.\n"):
        for as_bytes in (False, True):
            s = views.mention_sentence(_FmRec("NOTE-1", front, body, as_bytes), "NOTE-2")
            assert "SECRET" not in s and "title" not in s and s.startswith(body.split()[0]), (s, as_bytes)


def test_sentence_from_the_loaders_places_is_the_scans(tmp_path):
    """Where links are ids, a backlink's sentence finds its mention where
    the loader found it (``Record.mention_places()``) instead of scanning
    the body again: the same sentence for every target of every record
    (front matter of several lengths, code, a wikilink, a comment, text
    beyond ASCII, a target named twice)."""
    from recordkit.corpus.loader import load
    from recordkit.corpus.resolve import is_research_default
    bodies = [
        "Intro.\n\nWe read NOTE-002 here — é. Then NOTE-003 again.\n\n```\nNOTE-004 in code\n```\n\nNOTE-004 out of it.\n",
        "# Head\n\n<!-- NOTE-005 hidden -->\nA [[NOTE-005]] link, and `NOTE-002` code, then NOTE-002 bare. NOTE-005 twice.\n",
        "- item NOTE-003\n- δ NOTE-001: last.\n",
    ]
    (tmp_path / "note").mkdir()
    for i, body in enumerate(bodies, 1):
        extra = "".join(f"k{j}: v\n" for j in range(i))
        (tmp_path / "note" / f"NOTE-00{i}.md").write_text(f"---\nid: NOTE-00{i}\ntitle: T{i}\nkind: NOTE\n{extra}---\n{body}",
                                              encoding="utf-8")
    for i in (4, 5):
        (tmp_path / "note" / f"NOTE-00{i}.md").write_text(f"---\nid: NOTE-00{i}\ntitle: T{i}\nkind: NOTE\n---\nPlain.\n",
                                              encoding="utf-8")
    corpus = load(tmp_path)
    assert is_research_default(corpus.schema.links)
    checked = 0
    for rec in corpus.records.values():
        if not rec.mention_targets:
            continue
        assert rec.mention_places() is not None
        # the first mention of each target at the same line and column
        text = views.transient_text(rec)
        assert views._first_mentions(rec, text, places=True) == views._first_mentions(rec, text)
        for t in dict.fromkeys(rec.mention_targets):
            got = views.mention_sentence(rec, t, places=True)
            assert got == views.mention_sentence(rec, t), (rec.id, t)
            assert got and t in got
            checked += 1
    assert checked >= 6
