"""Helpers for the graph page tests and bench: index fixtures and a headless browser.

- :func:`small_index` — a hand-made content index of a dozen records around
  THEORY-798 and LIT-849 (the shape ``recordkit.index.build_index`` returns).
- :func:`synthetic_index` — a deterministic index of ``n`` records (default
  10,000) with about ten links per record, for tests of scale and the bench.
- :func:`write_synthetic_records` — the same records as Markdown files, for
  timing the loader and index builder as well.
- :func:`launch_chromium` / :func:`open_page` — Playwright on Debian's
  ``/usr/bin/chromium`` (never a downloaded browser), collecting console errors.
"""
from __future__ import annotations

import os
import random
import shutil
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("RECORDKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

KIND_META = {
    "LIT": {"color": "#4e79a7", "statuses": ["queued", "active", "set-aside"]},
    "NOTE": {"color": "#f28e2b", "statuses": ["draft", "final"]},
    "THEORY": {"color": "#b07aa1", "statuses": ["proposed", "active", "retired", "rejected"]},
    "CLAIM": {"color": "#59a14f", "statuses": ["open", "supported", "refuted", "retired"]},
    "QUESTION": {"color": "#e15759", "statuses": ["open", "answered", "dropped"]},
}

RELATION_META = {
    "paper": {"label": 'Cited as "paper" by', "from": ["NOTE"], "to": ["LIT"]},
    "source": {"label": 'Cited as "source" by', "from": ["THEORY"], "to": ["LIT", "NOTE"]},
    "extends": {"label": "Extended by", "from": ["THEORY"], "to": ["THEORY"]},
    "bears_on": {"label": 'Cited as "bears_on" by', "from": ["NOTE"], "to": ["THEORY", "CLAIM", "QUESTION"]},
    "grounds": {"label": "Grounds", "from": ["CLAIM"], "to": ["THEORY", "LIT", "NOTE", "CLAIM"]},
    "about": {"label": "Asked about by", "from": ["QUESTION"], "to": ["LIT", "NOTE", "THEORY", "CLAIM", "QUESTION"]},
    "answered_by": {"label": "Answers", "from": ["QUESTION"], "to": ["CLAIM", "NOTE", "THEORY"]},
    "promoted_by": {"label": "Promoted", "from": ["THEORY"], "to": ["NOTE", "CLAIM"]},
    "cites": {"label": "Cited by", "from": ["LIT"], "to": ["LIT"]},
    "contradicts": {"label": "Contradicted by", "from": ["THEORY", "CLAIM"], "to": ["THEORY", "CLAIM"]},
}


def _node(id, title, status, *, tags=(), standing=None, standing_detail=None, fields=None,
          relations=None, promote=None, checks=(), kind=None):
    kind = kind or id.split("-")[0]
    return {
        "id": id, "kind": kind, "status": status, "title": title, "tags": list(tags),
        "path": f"{kind.lower()}/{id}.md", "url": None, "standing": standing,
        "standing_detail": standing_detail, "fields": dict(fields or {}),
        "relations": dict(relations or {}), "backlinks": {}, "promote": promote,
        "checks": list(checks),
    }


def finish_index(nodes, links, *, title="nucleation", extra_kinds=None, extra_relations=None):
    """Fill links from front-matter relations and backlinks from links, like build_index."""
    by_id = {n["id"]: n for n in nodes}
    all_links = []
    for n in nodes:
        for rel, targets in n["relations"].items():
            for t in targets if isinstance(targets, list) else [targets]:
                all_links.append({"source": n["id"], "target": t, "relation": rel,
                                  "origin": "frontmatter"})
    all_links.extend(links)
    relations = dict(RELATION_META, **(extra_relations or {}))
    for link in all_links:
        if link["origin"] == "body" or link["target"] not in by_id:
            continue
        label = relations.get(link["relation"], {}).get("label", f'Cited as "{link["relation"]}" by')
        back = by_id[link["target"]]["backlinks"].setdefault(label, [])
        if link["source"] not in back:
            back.append(link["source"])
    for n in nodes:
        for ids in n["backlinks"].values():
            ids.sort()
    return {
        "meta": {"title": title, "root": "records", "generated": "2026-12-02T14:00:00Z",
                 "kinds": dict(KIND_META, **(extra_kinds or {})), "relations": relations,
                 "site": False},
        "nodes": nodes,
        "links": all_links,
    }


THEORY_798_TITLE = (
    "Independently trained neural encoders of the same data learn latent spaces that differ "
    "mainly by an angle-preserving map, a rotation or reflection times a rescaling, so their "
    "cosine similarities to shared anchor samples agree across seeds, architectures and "
    "languages, as Moschella et al. propose")
THEORY_175_TITLE = (
    "Cosine similarities to matched anchor points are unchanged by exactly the maps that "
    "preserve each sample's cosines to the anchors, among them every orthogonal map times a "
    "positive scalar and every per-sample positive rescaling but not translations")


def small_index():
    """A dozen hand-made records around THEORY-798 and LIT-849."""
    nodes = [
        _node("LIT-849", "Relative representations enable zero-shot latent space communication",
              "active", tags=["representation-learning", "anthology-candidate"],
              fields={"status_note": "read in full 2026-10-09 (NOTE-652)", "year": 2022,
                      "authors": ["Luca Moschella", "Valentino Maiorca", "Marco Fumero"],
                      "venue": "ICLR 2023", "arxiv": "2209.15430"}),
        _node("LIT-861", "Latent space translation via semantic alignment", "queued",
              tags=["representation-learning"], fields={"year": 2023, "authors": ["V. Maiorca"]}),
        _node("LIT-302", "The Platonic Representation Hypothesis", "active",
              tags=["representation-learning"], fields={"year": 2024, "authors": ["M. Huh"]}),
        _node("LIT-363", "Understanding image representations by measuring their equivariance "
              "and equivalence", "set-aside", fields={"year": 2015, "authors": ["K. Lenc", "A. Vedaldi"]}),
        _node("NOTE-652", "Relative representations enable zero-shot latent space communication",
              "final", relations={"paper": ["LIT-849"]}, fields={"date": "2026-10-09"}),
        _node("NOTE-738", "Reading of Nielsen et al.: m_SVD and the normalised Bures similarity",
              "draft", relations={"bears_on": ["THEORY-002", "QUESTION-027"]}),
        _node("THEORY-175", THEORY_175_TITLE, "active", tags=["representation-learning"],
              standing="established", standing_detail="promoted by NOTE-652; every requirement holds",
              relations={"source": ["LIT-849"], "promoted_by": ["NOTE-652"]},
              promote={"summary": "A reading that states the invariance class exactly.",
                       "requires": [{"text": "a final NOTE bears on it", "ok": True, "reason": ""}]}),
        _node("THEORY-798", THEORY_798_TITLE, "proposed",
              tags=["representation-learning", "anthology-candidate"], standing="blocked",
              standing_detail="no NOTE with status final points here by bears_on",
              relations={"source": ["LIT-849"], "extends": ["THEORY-175"]},
              promote={"summary": "A fitted conformal map and a fitted linear map between two "
                                  "trained spaces, with held-out residuals, set against stitched "
                                  "performance.",
                       "requires": [
                           {"text": "check conformal-vs-linear-residuals", "ok": False,
                            "reason": "check has not run"},
                           {"text": "a NOTE with status final bears_on this", "ok": False,
                            "reason": "no NOTE with status final points here by bears_on"}]},
              checks=[{"id": "conformal-vs-linear-residuals", "verdict": "unknown"}]),
        _node("THEORY-002", "Representational similarity is a kernel comparison", "proposed",
              standing="ready", standing_detail="every requirement holds",
              relations={"source": ["LIT-302"]},
              promote={"summary": "m_SVD equals NBS numerically.",
                       "requires": [{"text": "check msvd-equals-nbs", "ok": True, "reason": ""}]},
              checks=[{"id": "msvd-equals-nbs", "verdict": "pass"}]),
        _node("THEORY-018", "Final-layer softmax representations are identified up to an "
              "invertible linear map", "proposed", standing="awaiting-judgement",
              standing_detail="the condition is prose alone", relations={"source": ["LIT-302"]},
              promote={"summary": "A person judges the identifiability argument.", "requires": []}),
        _node("THEORY-031", "Stitching layers recover a shared space", "retired",
              standing="undermined", standing_detail="builds on LIT-363, which was set aside",
              relations={"source": ["LIT-363"]}),
        _node("CLAIM-193", "m_SVD equals the normalized Bures similarity of the standardized "
              "log-odds kernels", "supported", relations={"grounds": ["THEORY-002", "NOTE-738"]},
              fields={"strength": "strong"}, checks=[{"id": "msvd-equals-nbs", "verdict": "pass"}]),
        _node("QUESTION-211", "Is the residual after the best conformal map small?", "open",
              relations={"about": ["THEORY-798"]}),
        _node("QUESTION-027", "Which similarity indices are kernel comparisons?", "open",
              relations={"about": ["THEORY-002"]}),
        _node("DATASET-001", "CIFAR-10 encoder pairs", "ready", kind="DATASET",
              relations={"used_by": ["THEORY-798"]}),
    ]
    body = [
        ("NOTE-738", "THEORY-002"), ("NOTE-738", "CLAIM-193"), ("THEORY-798", "THEORY-018"),
        ("THEORY-798", "QUESTION-211"), ("LIT-849", "NOTE-652"), ("LIT-849", "LIT-302"),
        ("LIT-849", "LIT-363"),
    ]
    links = [{"source": s, "target": t, "relation": "mention", "origin": "body"} for s, t in body]
    links.append({"source": "LIT-861", "target": "LIT-849", "relation": "cites", "origin": "derived"})
    return finish_index(
        nodes, links,
        extra_kinds={"DATASET": {"statuses": ["ready", "retired"]}},
        extra_relations={"used_by": {"label": "Uses", "from": ["DATASET"], "to": ["THEORY"]}})


_WORDS = ("latent space encoder anchor cosine kernel similarity representation invariance "
          "orthogonal map residual stitching transfer decoder alignment spectral probe "
          "linear conformal rotation scale seed architecture language manifold geometry "
          "identifiability softmax logit bures trace norm sample estimator bias variance "
          "convergence network layer width depth training noise gradient curvature").split()
_TAGS = ["representation-learning", "anthology-candidate", "kernel-methods", "stitching", "identifiability"]
_KIND_SHARE = [("LIT", 0.35), ("NOTE", 0.25), ("THEORY", 0.10), ("CLAIM", 0.20), ("QUESTION", 0.10)]


def synthetic_index(n: int = 10_000, links_per_node: float = 10.0, seed: int = 7,
                    communities: int = 36) -> dict:
    """A deterministic index of ``n`` records with about ``links_per_node`` links each.

    Records fall into topical communities (tagged ``topic-NN``); most relations
    and body mentions stay inside a community, as in a real record, with a few
    popular records per kind.  Ids are numbered per kind from 000, so with
    n >= 10,000 there are THEORY-798 and LIT-849, and THEORY-798 has LIT-849 as
    a source.
    """
    rng = random.Random(seed)
    order = []
    for k, share in _KIND_SHARE:
        order.extend(f"{k}-{j:03d}" for j in range(max(1, round(n * share))))
    order = order[:n]
    community = {id_: rng.randrange(communities) for id_ in order}
    pool = {}  # (kind, community) -> ids
    for id_ in order:
        pool.setdefault((id_.split("-")[0], community[id_]), []).append(id_)
    kinds_present = {k for k, _ in pool}
    weight_of = {id_: 1.0 / (1 + (int(id_.split("-")[1]) % 97) ** 0.8) for id_ in order}
    wpool = {key: [weight_of[i] for i in ids] for key, ids in pool.items()}

    def pick(kinds, count, home):
        out = set()
        kinds = [k for k in kinds if k in kinds_present] or sorted(kinds_present)
        for _ in range(count):
            k = rng.choice(kinds)
            c = home if rng.random() < 0.85 else rng.randrange(communities)
            key = (k, c)
            if key not in pool:
                continue
            out.add(rng.choices(pool[key], wpool[key])[0])
        return sorted(out)

    def title():
        words = rng.sample(_WORDS, rng.randint(5, 18))
        return " ".join(words).capitalize()

    statuses = {k: v["statuses"] for k, v in KIND_META.items()}
    standings = [None, None, "ready", "blocked", "awaiting-judgement", "established", "undermined"]
    nodes = []
    fan = max(1, int(round(links_per_node * 0.5)))
    for id_ in order:
        kind, home = id_.split("-")[0], community[id_]
        rels, fields, standing, promote = {}, {}, None, None
        if kind == "LIT":
            fields = {"year": rng.randint(1990, 2026), "authors": [f"A. Author{rng.randint(1, 999)}"]}
            rels["cites"] = pick(["LIT"], rng.randint(0, fan), home)
        elif kind == "NOTE":
            rels["paper"] = pick(["LIT"], 1, home)
            rels["bears_on"] = pick(["THEORY", "CLAIM", "QUESTION"], rng.randint(0, fan), home)
        elif kind == "THEORY":
            rels["source"] = pick(["LIT", "NOTE"], rng.randint(1, fan), home)
            rels["extends"] = pick(["THEORY"], rng.randint(0, 2), home)
            standing = rng.choice(standings)
            promote = {"summary": title(), "requires": [
                {"text": f"check {rng.choice(_WORDS)}-{rng.choice(_WORDS)}", "ok": rng.random() < 0.5,
                 "reason": "synthetic"}]}
        elif kind == "CLAIM":
            rels["grounds"] = pick(["THEORY", "LIT", "NOTE"], rng.randint(1, fan), home)
            fields = {"strength": rng.choice(["strong", "moderate", "weak"])}
        else:
            rels["about"] = pick(["THEORY", "CLAIM", "LIT"], rng.randint(1, fan), home)
        rels = {r: [t for t in v if t != id_] for r, v in rels.items()}
        rels = {r: v for r, v in rels.items() if v}
        tags = sorted({f"topic-{home:02d}"} | set(rng.sample(_TAGS, rng.randint(0, 2))))
        nodes.append(_node(id_, title(), rng.choice(statuses[kind]), tags=tags,
                           standing=standing, standing_detail="synthetic" if standing else None,
                           fields=fields, relations=rels, promote=promote))
    by_id = {nd["id"]: nd for nd in nodes}
    if "THEORY-798" in by_id and "LIT-849" in by_id:
        src = by_id["THEORY-798"]["relations"].setdefault("source", [])
        if "LIT-849" not in src:
            src.insert(0, "LIT-849")
    frontmatter = sum(len(v) for nd in nodes for v in nd["relations"].values())
    body = []
    all_kinds = [k for k, _ in _KIND_SHARE]
    want_body = max(0, int(n * links_per_node) - frontmatter)
    while len(body) < want_body:
        s = rng.choice(order)
        for t in pick(all_kinds, 1, community[s]):
            if t != s:
                body.append({"source": s, "target": t, "relation": "mention", "origin": "body"})
    return finish_index(nodes, body, title="synthetic")


def write_synthetic_records(index: dict, root) -> Path:
    """Write the index's records as Markdown files under ``root`` (for timing the loader)."""
    import json

    root = Path(root)
    if root.exists():
        shutil.rmtree(root)
    mentions = {}
    for link in index["links"]:
        if link["origin"] == "body":
            mentions.setdefault(link["source"], []).append(link["target"])
    for n in index["nodes"]:
        folder = root / n["kind"].lower()
        folder.mkdir(parents=True, exist_ok=True)
        fm = {"id": n["id"], "title": n["title"], "status": n["status"], "tags": n["tags"]}
        fm.update(n["fields"])
        fm.update(n["relations"])
        if n["kind"] == "THEORY" and n["status"] in ("proposed", "active"):
            fm["promote_when"] = {"summary": (n["promote"] or {}).get("summary", "synthetic")}
        lines = ["---"] + [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fm.items()] + ["---", ""]
        lines.append("## Body")
        lines.append(" ".join(f"See {m}." for m in mentions.get(n["id"], [])))
        (folder / f"{n['id']}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


#: the one command that installs what the browser tests drive (Debian's packages)
INSTALL_BROWSER = "apt-get install chromium chromium-driver"
#: the reason every browser test skips with (tests/conftest.py counts them by it)
SKIP_REASON = f"browser test: Debian chromium is not at {CHROMIUM}"


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


def require_chromium() -> None:
    """Skip the calling test when Debian's chromium is absent, with
    :data:`SKIP_REASON` (where ``RECORDKIT_REQUIRE_BROWSER`` is set,
    tests/conftest.py makes any skip of a browser test a failure)."""
    if chromium_available():
        return
    import pytest
    pytest.skip(SKIP_REASON)


@contextmanager
def launch_chromium():
    """Launch Debian's chromium through Playwright; yields the Browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class PageProbe:
    """A page with its console errors and uncaught exceptions collected."""

    def __init__(self, browser, width=1400, height=900):
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("requestfailed", lambda req: self.errors.append(f"requestfailed: {req.url}"))
        self.requests: list[str] = []
        self.page.on("request", lambda req: self.requests.append(req.url))

    def _console(self, msg):
        if msg.type == "error":
            self.errors.append(f"console.error: {msg.text}")

    def open(self, path, ready_timeout=20_000):
        self.page.goto(Path(path).resolve().as_uri())
        self.page.wait_for_function("window.recordkitGraph && window.recordkitGraph.ready",
                                    timeout=ready_timeout)
        return self.page

    def close(self):
        self.context.close()


class Tab:
    """A browser context and page that collect what goes wrong: console
    errors, uncaught exceptions, failed requests (but one cut short by
    leaving the page, net::ERR_ABORTED).  ``with Tab(browser) as t:``."""

    def __init__(self, browser, width=1280, height=900, dark=False):
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           color_scheme="dark" if dark else "light")
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"{m.text} @ {self.page.url}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror {e} @ {self.page.url}"))
        self.page.on("requestfailed", lambda r: "ERR_ABORTED" not in (r.failure or "")
                     and self.errors.append(f"requestfailed {r.url} {r.failure}"))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.context.close()
