"""LOAD: what the site is built from, gathered once.

The record (:func:`recordkit.load`), the check results and every record's
check entries, the standings of the lifecycle, and the dates.  This is the
one module of the site that imports the lifecycle and the numeric checks,
so a move of those modules touches one file here.
"""
from __future__ import annotations

import datetime as _dt
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ...corpus import Corpus
from ...corpus.store import fm_digest  # noqa: F401  (re-exported: the site's graph page uses it)
from .state import BuildState
from ...graph import of as graph_of

FAILING = ("fail", "error", "timeout", "crashed")


@dataclass
class SiteData:
    corpus: Corpus
    results: dict = field(default_factory=dict)          # check id -> CheckResult
    specs: dict = field(default_factory=dict)            # check id -> CheckSpec
    duplicates: dict = field(default_factory=dict)
    checks_of: dict = field(default_factory=dict)        # record id -> [check id]
    cited_by: dict = field(default_factory=dict)         # check id -> [record id]
    standings: dict = field(default_factory=dict)        # record id -> Standing
    git_dates: dict = field(default_factory=dict)        # relpath -> ISO date of the last commit


def gather(corpus: Corpus, dates: str = "fields", state: BuildState | None = None) -> SiteData:
    """What the site is built from; ``state``: what the last build (serve's)
    worked out, the standings of its graph."""
    from ...numeric.discover import citations, discover_all
    from ...numeric.store import load_results
    data = SiteData(corpus)
    disc = discover_all(corpus)
    data.specs, data.duplicates = disc.checks, disc.duplicates
    try:
        data.results = load_results(corpus, disc.checks)
    except (OSError, ValueError):   # an unreadable results cache: every check "not run"
        data.results = {}
    data.cited_by = citations(corpus, disc.checks)
    for cid, rids in data.cited_by.items():
        for rid in rids:
            data.checks_of.setdefault(rid, []).append(cid)
    memos = (state if state is not None else BuildState()).standings
    data.standings = _standings(corpus, data.results, disc.checks, memos)
    if dates == "git":
        data.git_dates = git_dates(corpus.root)
    return data


def _standings(corpus: Corpus, results: dict, specs: dict, memos) -> dict:
    """The standings of every record (:func:`recordkit.lifecycle.standings`),
    taken from the last build when its graph is this corpus's and the check
    results and check ids are equal.  A standing reads only what the graph
    is made of (each record's kind, status, front matter and relations:
    one graph is shared by two loads only when every file's
    :func:`graph_face` is as it was), the check results and the known check
    ids (a body's fenced check block adds one).  ``specs``: the checks
    discovered (the lifecycle does not discover them again); ``memos``:
    graph -> (check results, check ids, standings) (serve keeps a graph
    while no edit changes what it is made of, :class:`RecordCache`, and
    with it the standings it gave: :attr:`.state.BuildState.standings`)."""
    from ...lifecycle.standing import Lifecycle
    graph = graph_of(corpus)
    checks = set(specs)
    memo = memos.get(graph)
    if memo is not None and memo[1] == checks and memo[0] == results:
        return memo[2]
    out = Lifecycle(corpus, results=results, checks=checks, specs=specs).standings()
    memos[graph] = (dict(results), checks, out)
    return out


def check_entry(data: SiteData, cid: str) -> dict:
    """A check as a page shows it: verdict, measured discrepancy against
    tolerance, when it ran, and a CSS class for the verdict."""
    spec = data.specs.get(cid)
    r = data.results.get(cid)
    e = {"id": cid, "claim": spec.claim if spec else "", "form": spec.form if spec else None,
         "tolerance": spec.tolerance if spec else None, "discrepancy": None, "ran_at": None,
         "seconds": None, "message": None, "worst": None}
    if spec is None:
        e.update(verdict="unknown check", cls="unknown")
    elif cid in data.duplicates:
        e.update(verdict="defined more than once", cls="error")
    elif r is None:
        e.update(verdict="not run", cls="unknown")
    elif r.stale:
        e.update(verdict=f"stale (last {r.verdict})", cls="stale", ran_at=r.ran_at or None)
    else:
        e.update(verdict=r.verdict, cls=r.verdict if r.verdict in ("pass", *FAILING) else "unknown",
                 discrepancy=r.discrepancy, ran_at=r.ran_at or None, seconds=r.seconds,
                 message=r.message or None, worst=r.worst)
    d, tol = e["discrepancy"], e["tolerance"]
    if isinstance(d, float) and isinstance(tol, float):
        e["measured"] = f"{d:.3g} {'≤' if d <= tol else '>'} {tol:.3g}"
    elif isinstance(tol, float):
        e["measured"] = f"tolerance {tol:.3g}"
    else:
        e["measured"] = ""
    return e


def git_dates(root: Path) -> dict[str, str]:
    """relpath (relative to ``root``) -> date of the last commit that
    touched it, from one ``git log`` over the whole history (not one per
    file).  Empty outside a git work tree or without git."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30)
        if top.returncode != 0:
            return {}
        proc = subprocess.run(["git", "-c", "core.quotePath=false", "-C", str(root), "log",
                               "--format=\x01%ct", "--name-only", "--no-renames", "--", "."],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return {}
    if proc.returncode != 0:
        return {}
    prefix = Path(root).resolve().relative_to(Path(top.stdout.strip()).resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    out: dict[str, str] = {}
    stamp = None
    for line in proc.stdout.split("\n"):
        if line.startswith("\x01"):
            stamp = _dt.datetime.fromtimestamp(int(line[1:]), _dt.timezone.utc).date().isoformat()
        elif line and stamp and line.startswith(prefix):
            out.setdefault(line[len(prefix):], stamp)   # newest first: the first seen is the last change
    return out


# -- the site's records: the store of parsed records ---------------------------------
#
# A fresh ``recordkit build`` on an existing site should not parse 10,000
# files again to find the one that changed: it loads the record through the
# store every command shares (:mod:`recordkit.corpus.store`), which also
# keeps each record's front matter digest (what the graph page shows of a
# record comes from its front matter and edges, not its body).

def front_matter_digests(corpus, state: BuildState) -> dict:
    """{path: digest of its front matter} for every record of ``corpus``
    (from the store when it loaded the corpus), kept in ``state``."""
    d = state.front_matter.get(corpus)
    if d is None:
        d = {str(r.path): fm_digest(r) for r in corpus.records.values()}
        state.front_matter[corpus] = d
    return d


def load_record(config, root: Path, state: BuildState):
    """The record of ``root`` for one build, and the :class:`RecordCache`
    it was loaded through: the records parsed by the last build, by their
    files' stat (only the files changed since are parsed again); the graph
    too, when no file changed what it is made of, with what the last build
    worked out of it (into ``state``)."""
    cache = RecordCache(config, root, state)
    corpus, _ = cache.load()
    cache.save()
    _keep_bytes_only(corpus)
    if cache.graph_restored and isinstance(cache.graph_extra, dict):
        state.restore_graph_memos(graph_of(corpus), cache.graph_extra)
    return corpus, cache


def _keep_bytes_only(corpus) -> None:
    """Each record parsed by this build keeps its file as bytes, not as
    decoded text and body (two copies, each as large as the file): the
    pages decode a record's text when they need it and let it go
    (``views.transient_text``).  At 10,000 records this is some 250 MB of
    the process's peak, and of every helper's."""
    for rec in corpus.files:
        rec.source.compact()


class RecordCache:
    """The record of one root loaded through the store of parsed records
    (:class:`recordkit.corpus.store.RecordStore`): ``serve`` keeps one alive
    between rebuilds; ``recordkit build`` reads it from disk.  ``state``:
    where the front matter digests of each corpus it loads are kept (the
    build's, :class:`.state.BuildState`)."""

    def __init__(self, config, root: Path, state: BuildState | None = None):
        from ...corpus.store import RecordStore
        self.config, self.root = config, Path(root)
        self.state = state if state is not None else BuildState()
        self.store = RecordStore(config, self.root)
        self.store.restored = {}      # serve: the records of files unchanged since the last load are reused
        #: the corpus of the last load (serve: its graph is kept while edits leave it as it is)
        self.last = None
        #: the graph of the last load was read back from the cache folder (see :meth:`save_graph`),
        #: with what the site build kept beside it (``graph_extra``, None when not)
        self.graph_restored = False
        self.graph_extra = None
        self._graph_token = None     # names the graph file's graph, in the file of what was kept beside it

    def save(self) -> None:
        self.store.save()

    def load(self, files: list | None = None):
        """The corpus, parsing only the files whose stat changed since the
        store saw them (and those changed just around then).  Returns the
        corpus and the set of paths parsed again."""
        from ...corpus.loader import load
        corpus = load(self.root, config=self.config, files=files, store=self.store)
        self.state.front_matter[corpus] = self.store.front_matter_digests(corpus)
        last, self.last = self.last, corpus
        self.graph_restored, self.graph_extra, self._graph_token = False, None, None
        if last is not None and last.kept_graph is not None and \
                same_graph(last, corpus, self.store.parsed_again, self.state):
            corpus.kept_graph = last.kept_graph
        elif last is None:
            self._restore_graph(corpus)
        return corpus, self.store.parsed_again

    # -- the graph of the last build, in the cache folder ---------------------------
    #
    # A fresh ``recordkit build`` after a body edit has the graph of the last
    # build: building it again is replaced by reading it back (a third of
    # the time) when every file's graph_face is what it was.

    def _graph_file(self, suffix: str = ".pickle") -> Path:
        import hashlib
        import os
        return Path(self.config.cache_dir) / "site-graph" / (
            hashlib.sha1(os.fsencode(str(self.root.resolve()))).hexdigest()[:16] + suffix)

    def _head(self, corpus) -> dict:
        """What the graph kept in the cache folder was made of, beside it."""
        return {"code": graph_code_digest(corpus), "paths": [str(r.path) for r in corpus.files],
                "records": list(corpus.records)}

    def _restore_graph(self, corpus) -> None:
        """Read the kept graph back when it was made of the same files and
        records, by the same code and schema, and every file parsed again
        since has the graph face it had then (a file not parsed again is
        the file it was; what it links to can change only through a change
        of one that was, or of the files)."""
        from ...runtime import snapshot
        try:
            with open(self._graph_file(), "rb") as fh:
                head = snapshot.load(fh)
                if not isinstance(head, dict) or not isinstance(head.get("faces"), dict):
                    return
                now = self._head(corpus)
                if any(head.get(k) != v for k, v in now.items()):
                    return
                fms = front_matter_digests(corpus, self.state)
                faces = head["faces"]
                for rec in corpus.files:
                    key = str(rec.path)
                    if key in self.store.parsed_again and faces.get(key) != face_digest(rec, fms.get(key)):
                        return
                body = snapshot.load(fh)
            import networkx as nx
            if not isinstance(body, dict) or not isinstance(body.get("graph"), nx.MultiDiGraph):
                return
        except Exception:       # missing, torn, of another version: the graph is built
            return
        corpus.kept_graph = body["graph"]
        self._graph_token = body.get("token")
        self.graph_restored = True
        try:
            with open(self._graph_file(".memo.pickle"), "rb") as fh:
                extra = snapshot.load(fh)
            if isinstance(extra, dict) and extra.get("token") == self._graph_token is not None:
                self.graph_extra = extra.get("extra")
        except Exception:       # missing, torn, of another graph: worked out again
            pass

    def save_graph(self, corpus, extra=None) -> None:
        """Keep ``corpus``'s graph (when this load built it) in the cache
        folder for the next fresh build of the same record, with the graph
        face of every file it was made of; and ``extra`` (what the site
        build worked out of that graph, see :meth:`.state.BuildState.graph_memos`) in
        a file of its own beside it, named by the graph it goes with
        (small: written by every build that gives it)."""
        from ...runtime import snapshot
        if corpus.kept_graph is None or corpus is not self.last:
            return
        from ...common.writes import replace_file
        path = self._graph_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if self._graph_token is None:     # built by this load: not in the file yet
                import uuid
                fms = front_matter_digests(corpus, self.state)
                head = dict(self._head(corpus), faces={str(r.path): face_digest(r, fms.get(str(r.path)))
                                                       for r in corpus.files})
                self._graph_token = uuid.uuid4().hex
                data = snapshot.dumps(head) + \
                    snapshot.dumps({"graph": corpus.kept_graph, "token": self._graph_token})
                replace_file(path, data)
            if extra is not None and self._graph_token is not None:
                replace_file(self._graph_file(".memo.pickle"), snapshot.dumps(
                    {"token": self._graph_token, "extra": extra}))
        except Exception:      # OSError, or something in ``extra`` that does not pickle: the next build works it out
            pass


def graph_face(rec, fm: str | None) -> tuple:
    """What the graph takes from one file: its id, kind, status, title,
    tags and path (the node), its front matter (relations with their
    positions, the fields derived edges read), its resolved relation
    targets and body mentions (the edges)."""
    return (rec.ok, rec.id, rec.kind, rec.status, rec.title, tuple(rec.tags) if rec.ok else None, rec.relpath, fm,
            tuple(rec.mention_targets),
            tuple((k, tuple((t.id, t.pos) for t in v)) for k, v in rec.relations.items()))


def face_digest(rec, fm: str | None) -> str:
    import hashlib
    return hashlib.blake2b(repr(graph_face(rec, fm)).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def graph_code_digest(corpus) -> str:
    """A digest of what builds a graph beside the files: the code of the
    graph stage's builder, networkx's version and the schema."""
    import hashlib
    import networkx as nx
    from ...graph import build as graph_build, edges as graph_edges
    h = hashlib.blake2b(digest_size=16)
    for mod in (graph_build, graph_edges):
        h.update(Path(mod.__file__).read_bytes())
    h.update(repr((nx.__version__, corpus.schema.raw)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def same_graph(old: Corpus, new: Corpus, parsed: set, state: BuildState) -> bool:
    """Whether ``new`` (loaded after ``old``, with the files ``parsed``
    parsed again, the others taken as they were) has ``old``'s graph: the
    same files, records and ids in the same order, and each file parsed
    again the same :func:`graph_face` (a body edit that names the same
    records).  The graph is made of the records alone (and the schema,
    compared too)."""
    if len(old.files) != len(new.files) or len(old.records) != len(new.records) \
            or old.schema.raw != new.schema.raw:
        return False
    if any(a.path != b.path for a, b in zip(old.files, new.files)):
        return False
    if any(a != b for a, b in zip(old.records, new.records)):
        return False
    old_fms, new_fms = state.front_matter.get(old) or {}, state.front_matter.get(new) or {}
    by_path = {str(r.path): r for r in old.files}
    for rec in new.files:
        key = str(rec.path)
        if key not in parsed:
            continue
        was = by_path.get(key)
        if was is None or old_fms.get(key) is None or new_fms.get(key) is None:
            return False
        if graph_face(was, old_fms[key]) != graph_face(rec, new_fms[key]):
            return False
    return True
