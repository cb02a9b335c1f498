"""A small snapshot for the feature tests: what ``recordkit.lsp.workspace.Snapshot``
offers the features (the corpus with unsaved texts applied, the record of a
URI, a URI of a path, the graph and lifecycle kept per snapshot, the
``memo`` hook), made from a folder without a server.  The end-to-end tests
(test_*_e2e.py) run the real server instead.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
# the copies the server tests use too: one way to copy a record, not two
from lspkit import copy_records as research_copy, copy_vault as vault_copy  # noqa: F401

from recordkit import graph as rgraph
from recordkit import lifecycle as lc
from recordkit.config import load_config
from recordkit.corpus.loader import load as load_corpus, with_texts

REPO = Path(__file__).resolve().parents[2]


class Doc:
    def __init__(self, uri, path, text, version=0):
        self.uri, self.path, self.text, self.version = uri, path, text, version


class Snap:
    """A snapshot of a folder's record, with ``texts`` (path -> unsaved text) applied."""

    def __init__(self, base, texts: dict | None = None, encoding: str = "utf-16"):
        self.corpus = with_texts(base, {Path(p): t for p, t in texts.items()}) if texts else base
        self.config = base.config
        self.schema = base.schema
        self.root = base.root
        self.encoding = encoding
        self._memo: dict = {}

    def memo(self, key, make):
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def uri_of(self, path) -> str:
        return Path(path).as_uri()

    def path_of(self, uri: str) -> Path:
        return Path(unquote(urlparse(uri).path))

    def record(self, uri: str):
        return self.corpus.by_path(self.path_of(uri))

    def document(self, uri: str):
        rec = self.record(uri)
        path = self.path_of(uri)
        if rec is not None:
            return Doc(uri, path, rec.text)
        return Doc(uri, path, path.read_text(encoding="utf-8")) if path.is_file() else None

    def graph(self):
        return self.memo("graph", lambda: rgraph.of(self.corpus))

    def lifecycle(self):
        return self.memo("lifecycle", lambda: lc.analyze(self.corpus))

    # conveniences for the tests
    def uri(self, rid: str) -> str:
        return self.uri_of(self.corpus.records[rid].path)

    def at(self, rid: str, needle: str, nth: int = 0, shift: int = 1) -> lsp.Position:
        """The position ``shift`` characters into the ``nth`` ``needle`` of ``rid``'s text."""
        text = self.corpus.records[rid].text
        i = -1
        for _ in range(nth + 1):
            i = text.index(needle, i + 1)
        i += shift
        line = text.count("\n", 0, i)
        col = i - (text.rfind("\n", 0, i) + 1)
        return lsp.Position(line=line, character=col)




def load(folder: Path):
    config = load_config(folder)
    return load_corpus(config=config, jobs=1)


def snap_of(folder: Path, texts: dict | None = None, encoding: str = "utf-16") -> Snap:
    return Snap(load(folder), texts, encoding)
