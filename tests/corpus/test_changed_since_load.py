"""A record restored from the store of parsed records reads its text from its
file when first asked: when the file changed after the load, that is the new
text, not the one it was parsed from.  ``with_texts`` and ``with_edits``
must parse such a file again (as they do a record that holds its old text),
never keep the old parse because the texts compare equal."""
import pytest

from recordkit.config import load_config
from recordkit.corpus.loader import load, with_edits, with_texts
from recordkit.runtime import tuning

from conftest import write

OLD = "---\nid: NOTE-001\ntitle: Old\nstatus: draft\n---\nSee NOTE-002.\n"
NEW = "---\nid: NOTE-001\ntitle: New\nstatus: draft\n---\nSee NOTE-003.\n"
OTHER = "---\nid: NOTE-{n}\ntitle: Other\nstatus: draft\n---\n"


@pytest.fixture
def restored(tmp_path, monkeypatch):
    """A corpus whose records come from the store (their text not read), and
    the file of NOTE-001, changed on disk since."""
    monkeypatch.setattr(tuning, "RACY_NS", 0)       # (files written a moment ago: their stat trusted)
    root = tmp_path / "records"
    path = write(root, "note/NOTE-001.md", OLD)
    for n in ("002", "003"):
        write(root, f"note/NOTE-{n}.md", OTHER.format(n=n))
    config = load_config(root)
    load(root, config=config, jobs=1, store=True)
    corpus = load(root, config=config, jobs=1, store=True)
    rec = corpus.by_path(path)
    assert rec.source.held() is None and rec.title == "Old"      # (restored: its text not read)
    path.write_text(NEW, encoding="utf-8")
    return corpus, path



def test_with_texts_parses_a_file_changed_since_the_load(restored):
    corpus, path = restored
    after = with_texts(corpus, {path: NEW})
    assert after.by_path(path).title == "New"
    assert after.records["NOTE-001"].title == "New"


def test_with_texts_of_the_text_read_from_the_file(restored):
    corpus, path = restored
    text = corpus.by_path(path).text                  # read now: the new text
    assert text == NEW and not corpus.by_path(path).source.parsed_from(text)
    assert with_texts(corpus, {path: text}).by_path(path).title == "New"


def test_with_edits_parses_a_file_changed_since_the_load(restored):
    corpus, path = restored
    after = with_edits(corpus, {path: NEW})
    assert after is not corpus and after.by_path(path).title == "New"
    want = with_texts(corpus, {path: NEW})
    assert [(r.path, r.title) for r in after.files] == [(r.path, r.title) for r in want.files]


def test_a_touched_file_still_counts_as_parsed_from_its_text(restored, tmp_path):
    corpus, path = restored
    other = tmp_path / "records" / "note" / "NOTE-002.md"
    rec = corpus.by_path(other)
    import os
    os.utime(other)                                   # a new stat, the same bytes
    assert rec.source.parsed_from(OTHER.format(n="002"))
    assert with_edits(corpus, {other: OTHER.format(n="002")}) is corpus
