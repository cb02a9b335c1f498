"""LOAD: what the site is built from, gathered once.

The record (:func:`recordkit.load`), the check results and every record's
check entries, the standings of the lifecycle, and the dates.  This is the
one module of the site that imports the lifecycle and the numeric checks,
so a move of those modules touches one file here.
"""
from __future__ import annotations

import datetime as _dt
import subprocess
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from ...corpus import Corpus
from ...corpus.store import fm_digest  # noqa: F401  (re-exported: the site's graph page uses it)

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


def gather(corpus: Corpus, dates: str = "fields") -> SiteData:
    from ...lifecycle import standings
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
    data.standings = standings(corpus, data.results)
    if dates == "git":
        data.git_dates = git_dates(corpus.root)
    return data


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

#: corpus -> {path: digest of the front matter text}
FM_DIGESTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def front_matter_digests(corpus) -> dict:
    """{path: digest of its front matter} for every record of ``corpus``
    (from the store when it loaded the corpus)."""
    d = FM_DIGESTS.get(corpus)
    if d is None:
        d = {str(r.path): fm_digest(r) for r in corpus.records.values()}
        FM_DIGESTS[corpus] = d
    return d


class RecordCache:
    """The record of one root loaded through the store of parsed records
    (:class:`recordkit.corpus.store.RecordStore`): ``serve`` keeps one alive
    between rebuilds; ``recordkit build`` reads it from disk."""

    def __init__(self, config, root: Path):
        from ...corpus.store import RecordStore
        self.config, self.root = config, Path(root)
        self.store = RecordStore(config, self.root)
        #: the corpus of the last load (serve: its graph is kept while edits leave it as it is)
        self.last = None

    def save(self) -> None:
        self.store.save()

    def load(self, files: list | None = None):
        """The corpus, parsing only the files whose stat changed since the
        store saw them (and those changed just around then).  Returns the
        corpus and the set of paths parsed again."""
        from ...corpus.loader import load
        corpus = load(self.root, config=self.config, files=files, store=self.store)
        FM_DIGESTS[corpus] = self.store.front_matter_digests(corpus)
        last, self.last = self.last, corpus
        if last is not None and last._graph is not None and same_graph(last, corpus, self.store.parsed_again):
            corpus._graph = last._graph
        return corpus, self.store.parsed_again


def graph_face(rec, fm: str | None) -> tuple:
    """What the graph takes from one file: its id, kind, status, title,
    tags and path (the node), its front matter (relations with their
    positions, the fields derived edges read), its resolved relation
    targets and body mentions (the edges)."""
    return (rec.ok, rec.id, rec.kind, rec.status, rec.title, tuple(rec.tags) if rec.ok else None, rec.relpath, fm,
            tuple(rec.mention_targets),
            tuple((k, tuple((t.id, t.pos) for t in v)) for k, v in rec.relations.items()))


def same_graph(old: Corpus, new: Corpus, parsed: set) -> bool:
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
    old_fms, new_fms = FM_DIGESTS.get(old) or {}, FM_DIGESTS.get(new) or {}
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
