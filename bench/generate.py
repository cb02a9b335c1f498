#!/usr/bin/env python3
"""Generate a synthetic research record of any size, for benchmarks.

    python bench/generate.py OUT_DIR --count 10000 [--seed 0] [--defects 0.0]

or, from a bench script::

    sys.path.insert(0, str(Path(__file__).parent))
    from generate import generate
    stats = generate(out_dir, 10_000, seed=0, defects=0.0)

Writes ``OUT_DIR/<kind lower>/<ID>.md``: Markdown with YAML front matter in
the format of RECORDS.md §2 (the five default kinds, their statuses, fields
and typed relations, read from recordkit's default schema).  Needs only
PyYAML; deterministic for a given seed; no
hash-order dependence, so output bytes are identical across processes.

With ``defects=0`` every record is valid and every relation target exists
with an allowed kind; ``extends`` and ``grounds`` point only to
lower-numbered records (acyclic); every active THEORY has ``promoted_by`` and
all its ``promote_when`` requirements hold; every answered QUESTION has
``answered_by``; body mentions (bare ``KIND-NNN`` and ``[[ID]]`` /
``[[ID|label]]``) name existing records only.  Ids that appear inside code
spans and fenced code blocks are deliberately a mix of existing and
*non-existent* ids: a linter that counts them as mentions reports RK305.

With ``defects=p`` each record independently gets, with probability p, one
planted defect from DEFECTS (see EXPECTED_CODE for the diagnostic each one is
meant to trigger).  Defect choices use their own random stream, so the
defect-free parts of the record are the same bytes for any p.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
import re
import sys
import time
from pathlib import Path

import yaml

KINDS = ("LIT", "NOTE", "CLAIM", "THEORY", "QUESTION")
SHARES = {"LIT": 0.40, "NOTE": 0.25, "CLAIM": 0.17, "THEORY": 0.10, "QUESTION": 0.08}
# The kinds' statuses and the relations (which kind may declare each, which
# kinds it may point at) are read from recordkit's default schema, not
# restated here (RECORDS.md §2 is its prose).  KINDS is this generator's
# dependency order of the kinds; SHARES and the weights below are its own.
SCHEMA = yaml.safe_load((Path(__file__).resolve().parent.parent / "recordkit" / "schema" / "default.yaml")
                        .read_text(encoding="utf-8"))
assert set(KINDS) == set(SCHEMA["kinds"]), "the generator's kinds are the default schema's"
STATUSES = {k: tuple(SCHEMA["kinds"][k]["statuses"]) for k in KINDS}
STATUS_WEIGHTS = {
    "LIT": (40, 50, 10),
    "NOTE": (35, 65),
    "THEORY": (55, 30, 10, 5),
    "CLAIM": (35, 45, 10, 10),
    "QUESTION": (60, 30, 10),
}
# Body size (bytes) is lognormal(BODY_MU, BODY_SIGMA) times a per-kind
# factor, clipped to [BODY_MIN, BODY_CAP]; tuned so 10,000 records ≈ 85 MB.
BODY_MU = math.log(7400)
BODY_SIGMA = 0.40
BODY_MIN = 1536
BODY_MAX = 16384
BODY_CAP = 14600  # target ceiling; the last block may overshoot by < 1.7 KB
SIZE_FACTOR = {"LIT": 0.90, "NOTE": 1.30, "CLAIM": 0.80, "THEORY": 1.05, "QUESTION": 0.75}

DEFECTS = (
    "dangling_relation",
    "bad_status",
    "unknown_field",
    "bad_tag",
    "missing_title",
    "id_mismatch",
    "invalid_date",
    "bad_strength",  # NOTE only: a Claims-table strength
    "broken_yaml",
)
EXPECTED_CODE = {
    "dangling_relation": "RK301",
    "bad_status": "RK204",
    "unknown_field": "RK203",
    "bad_tag": "RK206",
    "missing_title": "RK201",
    "id_mismatch": "RK106",
    "invalid_date": "RK205",
    "bad_strength": "RK602",
    "broken_yaml": "RK102",
}

# --------------------------------------------------------------------------
# vocabulary

NOUNS = (
    "encoder", "decoder", "embedding", "unembedding", "latent space", "anchor set",
    "kernel", "Gram matrix", "probe", "linear map", "rotation", "rescaling",
    "similarity index", "residual", "covariance", "singular value", "log-odds",
    "softmax layer", "identifiability class", "divergence", "representation",
    "checkpoint", "seed", "width", "training run", "benchmark", "baseline",
    "ablation", "metric", "bound", "construction", "counterexample", "lemma",
    "theorem", "estimator", "sample", "batch", "token", "vocabulary",
    "attention head", "residual stream", "feature", "direction", "subspace",
    "projection", "distance", "transport plan", "coupling", "alignment",
    "stitching layer", "loss", "gradient", "curvature", "spectrum", "eigenvector",
    "basis", "invariance", "symmetry", "group action", "orbit", "quotient",
    "manifold", "neighbourhood", "nearest neighbour", "cluster", "margin",
    "classifier", "dataset", "split", "corpus", "label", "prior", "posterior",
    "likelihood", "variance", "correlation", "pivot", "norm", "inner product",
    "angle", "cosine", "tokenizer", "sparse autoencoder", "circuit", "logit lens",
    "scaling law", "learning rate", "warm-up", "optimizer state", "teacher",
    "student", "adapter", "fine-tune", "prompt", "context window", "retrieval index",
)
PLURAL_IRREGULAR = {"Gram matrix": "Gram matrices", "log-odds": "log-odds",
                    "vocabulary": "vocabularies", "symmetry": "symmetries",
                    "batch": "batches", "fine-tune": "fine-tunes",
                    "retrieval index": "retrieval indices", "logit lens": "logit lenses",
                    "scaling law": "scaling laws", "similarity index": "similarity indices",
                    "curvature": "curvatures", "neighbourhood": "neighbourhoods",
                    "basis": "bases", "corpus": "corpora", "spectrum": "spectra"}
ADJS = (
    "linear", "orthogonal", "conformal", "invertible", "approximate", "exact",
    "standardized", "held-out", "independent", "shared", "pretrained", "random",
    "sparse", "dense", "saturated", "diverse", "stable", "unstable", "finite",
    "asymptotic", "empirical", "theoretical", "marginal", "conditional", "joint",
    "symmetric", "positive", "non-singular", "low-rank", "high-dimensional",
    "multilingual", "contrastive", "autoregressive", "deterministic", "stochastic",
    "calibrated", "normalized", "centred", "weighted", "robust", "overparameterized",
    "frozen", "layer-wise", "token-level", "global", "local", "smooth", "noisy",
)
VERBS = (
    "fixes", "bounds", "preserves", "identifies", "controls", "predicts",
    "explains", "changes", "removes", "distorts", "recovers", "matches",
    "separates", "aligns", "approximates", "constrains", "determines",
    "estimates", "ignores", "measures", "scrambles", "rescales", "dominates",
    "implies", "weakens", "supports", "tracks", "encodes", "reproduces",
    "absorbs", "mixes", "projects out", "leaves unchanged", "overstates",
)
VERB_BASE = (
    "enable", "explain", "bound", "predict", "preserve", "identify", "align",
    "recover", "separate", "control", "determine", "distort", "transfer",
)
ADVS = (
    "only approximately", "up to a rotation", "almost surely", "in expectation",
    "on held-out data", "at every width", "for most seeds", "under mild assumptions",
    "by construction", "in the limit", "within a constant factor", "to first order",
    "at the reported tolerance", "across architectures", "in every split",
    "up to an invertible linear map", "for the pretrained checkpoints",
    "once the spaces are centred", "without further assumptions", "in practice",
)
MODS = ("not", "only", "always", "rarely", "exactly", "never", "usually", "provably")
OPENERS = (
    "In this setting", "By Lemma {n}", "Under the stated assumptions", "In Table {n}",
    "On the synthetic task", "As the authors note", "Empirically", "In the appendix",
    "For the 2-D models", "At saturation", "Without centring", "After standardization",
    "With parallel anchors", "In every reported run", "On CIFAR-10", "On ImageNet",
    "Across {n} seeds", "For k ≥ M + {n}", "When ρ → ∞", "Read carefully",
    "Taken together", "By contrast", "In practice", "Strictly speaking",
    "Put differently", "In §{n}", "From Figure {n}", "At width {w}",
    "For the multilingual encoders", "On the held-out split", "In the second version",
)
METRICS = (
    "d_SVD", "d_LLV", "CKA", "mean CCA", "Procrustes distance",
    "nearest-neighbour overlap", "KL divergence", "F1", "top-1 accuracy",
    "stitching loss", "cosine agreement", "NLL", "linear CKA", "RSA score",
)
SYMBOLS = ("f(x)", "g(y)", "Af′(x)", "Σ_zw", "L⁻ᵀg′₀(y)", "h_f(x)", "ε_y(x)",
           "r_x", "E(a₁)", "Q·E(x)", "ψ(x)", "Var_x[ε]")
CODE_TOKENS = (
    "d_SVD", "np.linalg.svd", "torch.no_grad()", "cos_sim(a, b)", "r_x",
    "lambda=1e-5", "seed=0", "float64", "X @ Q", "--tolerance", "kernel.npy",
    "fit_procrustes()", "anchors[:300]", "eps < 1/(2M)",
)
SENTENCE_TEMPLATES = (
    "{Opener}, the {adj} {noun} {verb} the {noun2} {adv}",
    "The {noun} {verb} the {adj} {noun2}, but not the {noun3}",
    "{Opener}, a {adj} {noun} is {mod} {adj2}",
    "What the {noun} {verb} is the {noun2}, not the {noun3}",
    "Whether the {noun} {verb} the {noun2} depends on the {adj} {noun3}",
    "The reported {metric} falls from {num} to {num2} as the {noun} grows",
    "{Opener}, the {metric} stays near {num} while the {noun2} moves",
    "This is a {adj} statement about the {noun}; it says nothing about the {noun2}",
    "No {adj} {noun} {verb} the {noun2} {adv}",
    "If the {noun} is {adj}, then the {noun2} {verb} the {noun3}",
    "The {noun} is {adj} only when the {noun2} is {adj2}",
    "Two {nouns} can agree on every {noun2} and still differ in the {noun3}",
    "The bound grows with the {noun} and is vacuous unless ε < {num}",
    "We read §{n} as saying that the {noun} {verb} the {noun2}",
    "The {metric} between the two {nouns} is {num} ± {num3}",
    "Equation ({n}) gives ‖{sym}‖ ≤ {num}·‖{sym2}‖ for every {adj} {noun}",
    "None of the {nouns} in the appendix is {adj}, which the main text does not say",
    "A {adj} {noun} and a {adj2} {noun2} give the same {metric} to within {num3}",
    "The authors {verb_base} the {noun} with {n} {nouns2} and report the {metric}",
    "It follows that the {noun} {verb} the {noun2}, and the converse fails",
    "The {adj} case is the interesting one, since the {noun} {verb} the {noun2} there",
    "{Opener}, {n} of {w} {nouns} {verb_plural} the {noun2} {adv}",
)
BULLET_HEADS = (
    "Model class", "Diversity", "Scope", "The construction", "What is proved",
    "What is measured", "Assumption", "Caveat", "Mechanism", "Counterexample",
    "Setup", "Data", "Result", "Baseline", "Ablation", "Limitation", "Open point",
    "Definition", "Estimator", "Bound", "Invariance", "Transfer", "Cost",
)
TAGS = (
    "representation-learning", "anthology-candidate", "identifiability",
    "kernel-methods", "similarity-measures", "model-stitching", "probing",
    "optimal-transport", "contrastive-learning", "language-models",
    "vision-transformers", "scaling-laws", "mechanistic-interpretability",
    "sparse-autoencoders", "information-geometry", "causal-inference",
    "benchmarking", "replication", "negative-result", "open-problem", "cka",
    "procrustes", "canonical-correlation", "softmax", "tokenization",
    "multilingual", "compression", "grokking", "double-descent",
    "neural-tangent-kernel", "mean-field", "symmetry", "group-theory",
    "topology", "manifold-hypothesis", "self-supervised", "distillation",
    "fine-tuning", "in-context-learning", "attention", "residual-stream",
    "superposition", "pruning", "quantization", "robustness", "calibration",
    "uncertainty", "bayesian", "theory", "empirics", "survey", "dataset",
    "2d-toy-models", "llm-evals", "rl-from-feedback",
)
FIRST = (
    "Luca", "Valentino", "Marco", "Antonio", "Francesco", "Emanuele", "Beatrix",
    "Anna", "Mei", "Hiroshi", "Priya", "Olusegun", "Sofia", "Jonas", "Ingrid",
    "Tomás", "Chloé", "Dmitri", "Aisha", "Kwame", "Yuki", "Rahul", "Elena",
    "Mateo", "Noor", "Lars", "Zhang", "Wei", "Fatima", "Ewan", "Siobhan",
    "Ravi", "Camille", "Björn", "Ana", "Kenji", "Leila", "Pieter", "Grace",
)
LAST = (
    "Moschella", "Maiorca", "Fumero", "Norelli", "Locatello", "Rodolà", "Nielsen",
    "Roeder", "Khemakhem", "Lachapelle", "Marconato", "Kornblith", "Raghu",
    "Müller", "García", "Okafor", "Tanaka", "Sharma", "Ivanova", "Lindqvist",
    "O'Brien", "Nguyen", "Chen", "Kowalski", "Haddad", "Mensah", "Silva",
    "Andersen", "Dubois", "Rossi", "Kim", "Park", "Novak", "Horvath", "Yilmaz",
    "Fischer", "Bianchi", "Suzuki", "Patel", "Osei", "Larsen", "Moreau",
)
VENUES = (
    "NeurIPS {y}", "ICLR {y}", "ICML {y}", "TMLR", "JMLR", "COLT {y}",
    "AISTATS {y}", "ACL {y}", "EMNLP {y}", "CVPR {y}", "arXiv preprint",
    "Nature Machine Intelligence", "UAI {y}",
)
LINK_LABELS = (
    "the reading note", "that theory", "the earlier claim", "the question",
    "the source", "this paper", "the counterexample", "the construction",
    "the follow-up", "the appendix note", "the replication", "its proof",
)

# section layouts: (heading, weight, block-kind preferences)
SECTIONS = {
    "LIT:active": (("Key takeaways", 4, "bullets"), ("Abstract", 2, "para"),
                   ("Method", 2, "mixed"), ("Results", 3, "mixed"),
                   ("Limitations", 1.5, "bullets"), ("Connections", 1, "para")),
    "LIT:queued": (("Abstract", 3, "para"), ("Why it is queued", 1.5, "mixed"),
                   ("First impressions", 2, "mixed")),
    "LIT:set-aside": (("Abstract", 3, "para"), ("Why it was set aside", 2, "mixed"),
                      ("What might bring it back", 1, "bullets")),
    "NOTE": (("Contribution", 2, "para"), ("Key insight", 1.5, "para"),
             ("Assumptions", 2, "bullets"), ("Key results", 3, "mixed"),
             ("Claims", 1.5, "table"), ("Concepts", 1, "bullets"),
             ("Connections", 1.5, "mixed"), ("Limitations", 1, "bullets"),
             ("Open questions", 0.8, "bullets")),
    "THEORY": (("Source", 1, "para"), ("What is asserted", 2, "para"),
               ("What the record holds toward it", 3, "mixed"),
               ("What this does not say", 1.5, "bullets"),
               ("What would confirm or reject it", 1.5, "para")),
    "CLAIM": (("Statement", 1, "para"), ("Grounds", 2, "mixed"),
              ("Evidence", 3, "mixed"), ("Scope and caveats", 1.5, "bullets")),
    "QUESTION": (("Question", 1, "para"), ("Why it matters", 2, "para"),
                 ("What would answer it", 2, "bullets"), ("Leads", 2, "mixed")),
}

# relation -> allowed target kinds, kind -> the relations it may declare
REL_TARGETS = {name: KINDS if "*" in (r.get("to") or ["*"]) else tuple(r["to"])
               for name, r in SCHEMA["relations"].items()}
REL_FROM = {k: tuple(name for name, r in SCHEMA["relations"].items() if k in (r.get("from") or KINDS))
            for k in KINDS}

CHECK_TEMPLATES = (
    ("cosine-rotation-invariance", "1e-9",
     "a, b = rng.normal(size=(2, {n}))\n"
     "q, _ = np.linalg.qr(rng.normal(size=({n}, {n})))\n"
     "cos = lambda u, v: u @ v / (np.linalg.norm(u) * np.linalg.norm(v))\n"
     "error = abs(cos(a, b) - cos({s} * q @ a, {s} * q @ b))"),
    ("var-diff-identity", "1e-10",
     "a, b = rng.normal(size=(2, {m}))\n"
     "a, b = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()\n"
     "error = abs(np.var(a - b) - 2 * (1 - np.corrcoef(a, b)[0, 1]))"),
    ("trace-cyclic", "1e-8",
     "A, B = rng.normal(size=(2, {n}, {n}))\n"
     "error = abs(np.trace(A @ B) - np.trace(B @ A))"),
    ("cauchy-schwarz", "1e-12",
     "x, y = rng.normal(size=(2, {m}))\n"
     "error = max(0.0, abs(x @ y) - np.linalg.norm(x) * np.linalg.norm(y))"),
    ("svd-frobenius", "1e-8",
     "K = rng.normal(size=({n}, {n2}))\n"
     "s = np.linalg.svd(K, compute_uv=False)\n"
     "error = {{'frobenius': abs(np.sum(s**2) - np.sum(K**2)),\n"
     "         'nonneg': max(0.0, -s.min())}}"),
)

PLAIN_SAFE = re.compile(r"[A-Za-z][^\n:#'\"\[\]{}|>&*!%@`,]*[^\s:#]\Z")
PLAIN_SAFE_COMMA = re.compile(r"[A-Za-z][^\n:#'\"\[\]{}|>&*!%@`]*[^\s:#,]\Z")
YAML_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n", "~"}
DATE0 = dt.date(2023, 1, 1)
DATE_SPAN = (dt.date(2026, 10, 31) - DATE0).days


A_AN = re.compile(r"(^|\s)an? (?=([aeiou])?)", re.IGNORECASE)


def plural(noun: str) -> str:
    if noun in PLURAL_IRREGULAR:
        return PLURAL_IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def verb_plural(v: str) -> str:
    head, sep, tail = v.partition(" ")
    if head.endswith(("ches", "xes", "sses")):
        head = head[:-2]
    elif head.endswith("s"):
        head = head[:-1]
    return head + sep + tail


def num_str(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return f"{rng.random():.2f}"
    if r < 0.7:
        return f"{rng.uniform(0, 1):.4f}"
    if r < 0.85:
        return str(rng.randint(2, 300))
    return f"1e-{rng.randint(3, 12)}"


class Record:
    __slots__ = ("id", "kind", "num", "index", "status", "rel", "extra",
                 "title", "checks_defined", "defect", "target")

    def __init__(self, kind: str, num: int, index: int):
        self.kind = kind
        self.num = num
        self.index = index  # position among the kind, ascending num
        self.id = f"{kind}-{num:03d}"
        self.status = ""
        self.rel: dict[str, list[str]] = {}
        self.extra: dict = {}
        self.title = ""
        self.checks_defined: list[tuple[str, str, str]] = []
        self.defect = None
        self.target = 0


# --------------------------------------------------------------------------
# text


class Prose:
    """Pools of pseudo-prose built once per run; blocks assembled from them."""

    def __init__(self, rng: random.Random, nsent: int = 3000):
        self.rng = rng
        self.sentences = [self._sentence() for _ in range(nsent)]
        self.short = [s for s in self.sentences if len(s) < 110] or self.sentences

    def _sentence(self) -> str:
        r = self.rng
        t = r.choice(SENTENCE_TEMPLATES)
        n1, n2, n3 = r.sample(NOUNS, 3)
        v = r.choice(VERBS)
        opener = r.choice(OPENERS).replace("{n}", str(r.randint(1, 9))).replace(
            "{w}", str(r.choice((64, 128, 256, 512, 1024))))
        s = t.format(
            Opener=opener, adj=r.choice(ADJS), adj2=r.choice(ADJS), noun=n1,
            noun2=n2, noun3=n3, nouns=plural(n1), nouns2=plural(n2), verb=v,
            verb_plural=verb_plural(v),
            verb_base=r.choice(VERB_BASE), adv=r.choice(ADVS), mod=r.choice(MODS),
            metric=r.choice(METRICS), num=num_str(r), num2=num_str(r),
            num3=f"{r.random() / 10:.3f}", n=r.randint(2, 12),
            w=r.choice((10, 20, 50, 200)), sym=r.choice(SYMBOLS),
            sym2=r.choice(SYMBOLS))
        s = A_AN.sub(lambda m: m.group(1) + ("an " if m.group(2) else "a "), s)
        # emphasis now and then
        if r.random() < 0.05:
            w = r.choice(NOUNS)
            s = s.replace(w, f"*{w}*", 1)
        return s[0].upper() + s[1:]


class Generator:
    def __init__(self, count: int, seed: int, defects: float):
        self.count = count
        self.seed = seed
        self.p_defect = defects
        self.rng = random.Random(seed)
        self.drng = random.Random(seed * 7919 + 104729)  # defects only
        self.prose = Prose(random.Random(seed * 31 + 7))
        self.by_kind: dict[str, list[Record]] = {}
        self.by_id: dict[str, Record] = {}
        self.max_num: dict[str, int] = {}
        self.arxiv_ids: set[str] = set()
        self.check_ids: list[str] = []
        self.defect_counts = {d: 0 for d in DEFECTS}
        self.defect_list: list[dict] = []
        self.bogus_used: set[str] = set()

    # -- planning ----------------------------------------------------------

    def kind_counts(self) -> dict[str, int]:
        n = self.count
        if n < len(KINDS):  # tiny: take kinds in dependency order
            order = ("LIT", "NOTE", "THEORY", "CLAIM", "QUESTION")
            return {k: int(i < n) for i, k in enumerate(order)}
        raw = {k: SHARES[k] * n for k in KINDS}
        counts = {k: max(1, int(raw[k])) for k in KINDS}
        rest = n - sum(counts.values())
        for k in sorted(KINDS, key=lambda k: raw[k] - int(raw[k]), reverse=True):
            if rest <= 0:
                break
            counts[k] += 1
            rest -= 1
        while rest < 0:  # only when max(1, …) bumped a tiny kind
            k = max(KINDS, key=lambda k: counts[k])
            counts[k] -= 1
            rest += 1
        return counts

    def allocate_ids(self) -> None:
        rng = self.rng
        for kind, c in self.kind_counts().items():
            # sparse, realistic numbering: c distinct numbers out of ~1.25 c
            span = max(c + 2, int(c * 1.25) + 5)
            nums = sorted(rng.sample(range(1, span + 1), c))
            recs = [Record(kind, num, i) for i, num in enumerate(nums)]
            self.by_kind[kind] = recs
            self.max_num[kind] = nums[-1] if nums else 0
            for r in recs:
                self.by_id[r.id] = r

    def pick(self, kinds, k=1, below: Record | None = None) -> list[str]:
        """k distinct existing ids among kinds (of `below`'s kind: lower only)."""
        rng = self.rng
        pools = []
        for kind in kinds:
            recs = self.by_kind.get(kind, [])
            if below is not None and kind == below.kind:
                recs = recs[: below.index]
            if recs:
                pools.append(recs)
        if not pools:
            return []
        out: list[str] = []
        for _ in range(k * 3):
            recs = rng.choice(pools)
            # mild preference for nearby/older records
            rid = recs[int(len(recs) * rng.random() ** 0.8)].id
            if rid not in out and (below is None or rid != below.id):
                out.append(rid)
                if len(out) == k:
                    break
        return out

    def pick_status(self, kind: str) -> str:
        return self.rng.choices(STATUSES[kind], weights=STATUS_WEIGHTS[kind])[0]

    def plan(self) -> None:
        rng = self.rng
        self.allocate_ids()
        # LIT metadata first (arxiv ids are needed for references)
        lits = self.by_kind["LIT"]
        for r in lits:
            r.status = self.pick_status("LIT")
            year = min(2026, max(1998, int(rng.gauss(2021, 3.5))))
            r.extra["year"] = year
            if year >= 2008 and rng.random() < 0.88:
                r.extra["arxiv"] = self.new_arxiv(year)
            else:
                r.extra["doi"] = f"10.{rng.randint(1000, 9999)}/{rng.choice(('jmlr', 'tmlr', 'nmi', 'pmlr'))}.{year}.{rng.randint(100, 99999)}"
            nauth = min(12, max(1, int(rng.expovariate(1 / 3.5)) + 1))
            r.extra["authors"] = [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(nauth)]
            r.title = self.lit_title()
        lits_arxiv = [r for r in lits if "arxiv" in r.extra]
        for r in lits:
            refs = []
            nref = rng.randint(0, 12)
            for _ in range(nref):
                if lits_arxiv and rng.random() < 0.45:
                    t = lits_arxiv[int(len(lits_arxiv) * rng.random() ** 0.7)]
                    if t is not r and t.extra["arxiv"] not in refs:
                        refs.append(t.extra["arxiv"])
                else:
                    refs.append(self.external_arxiv(r.extra["year"]))
            if rng.random() < 0.15:
                refs.append(f"10.{rng.randint(1000, 9999)}/ext.{rng.randint(10000, 99999)}")
            r.extra["references"] = refs
            if rng.random() < 0.05 and len(lits) > 1:
                r.rel["cites"] = self.pick(("LIT",), rng.randint(1, 2), below=r) or []
                if not r.rel["cites"]:
                    del r.rel["cites"]
        for r in self.by_kind["NOTE"]:
            r.status = self.pick_status("NOTE")
            paper = self.by_kind["LIT"][int(len(lits) * rng.random())] if lits else None
            if paper is not None:
                r.rel["paper"] = [paper.id]
                first = paper.extra["authors"][0].split()[-1]
                etal = " et al." if len(paper.extra["authors"]) > 1 else ""
                r.title = f"{first}{etal} — {paper.title}"
            else:
                r.title = self.sentence_title()
            n = rng.choice((0, 1, 1, 1, 2, 2, 3))
            bo = self.pick(("THEORY", "CLAIM", "QUESTION"), n)
            if bo:
                r.rel["bears_on"] = bo
            if rng.random() < 0.05:
                r.checks_defined.append(self.new_check())
        for r in self.by_kind["CLAIM"]:
            r.status = self.pick_status("CLAIM")
            r.title = self.sentence_title()
            r.extra["strength"] = rng.choice(("strong", "moderate", "moderate", "weak"))
            g = self.pick(("THEORY", "LIT", "NOTE", "CLAIM"), rng.randint(1, 3), below=r)
            if not g:
                g = self.pick(("THEORY", "LIT", "NOTE"), 1)
            if g:
                r.rel["grounds"] = g
            if rng.random() < 0.03:
                r.checks_defined.append(self.new_check())
        supported = [c.id for c in self.by_kind["CLAIM"] if c.status == "supported"]
        final_notes = [n for n in self.by_kind["NOTE"] if n.status == "final"]
        for r in self.by_kind["THEORY"]:
            r.status = self.pick_status("THEORY")
            r.title = self.sentence_title(long=True)
            src = self.pick(("LIT", "NOTE"), rng.choice((1, 1, 1, 2, 3)))
            r.rel["source"] = src
            if r.index and rng.random() < 0.35:
                ext = self.pick(("THEORY",), rng.choice((1, 1, 2)), below=r)
                if ext:
                    r.rel["extends"] = ext
            if r.status == "active" and not final_notes:
                r.status = "proposed"
            if r.status in ("proposed", "active") or rng.random() < 0.5:
                r.extra["promote_when"] = self.plan_promote_when(r, supported, final_notes)
        for r in self.by_kind["CLAIM"] + self.by_kind["THEORY"]:
            if rng.random() < 0.06:
                pool = ("THEORY", "CLAIM")
                c = [x for x in self.pick(pool, 1) if x != r.id]
                if c:
                    r.rel["contradicts"] = c
        for r in self.by_kind["QUESTION"]:
            r.status = self.pick_status("QUESTION")
            r.title = self.question_title()
            ab = self.pick(KINDS, rng.choice((0, 1, 1, 2, 3)))
            ab = [x for x in ab if x != r.id]
            if ab:
                r.rel["about"] = ab
            if r.status == "answered":
                ans = self.pick(("CLAIM", "NOTE", "THEORY"), rng.choice((1, 1, 2)))
                if ans:
                    r.rel["answered_by"] = ans
                else:
                    r.status = "open"
        # checks: records that define a check list it; some claims borrow one
        for r in self.by_id.values():
            if r.checks_defined:
                r.extra["checks"] = [c[0] for c in r.checks_defined]
        if self.check_ids:
            for r in self.by_kind["CLAIM"]:
                if "checks" not in r.extra and rng.random() < 0.08:
                    r.extra["checks"] = [rng.choice(self.check_ids)]
        for r in self.by_id.values():
            r.target = self.body_target(r.kind)

    def plan_promote_when(self, theory: Record, supported, final_notes) -> dict:
        rng = self.rng
        reqs: list = []
        active = theory.status == "active"
        n = rng.choice((0, 1, 1, 2, 2, 3)) if not active else rng.choice((1, 2, 3))
        forms = ["record", "claim", "check"]
        rng.shuffle(forms)
        for form in forms[:n]:
            if form == "record":
                status = rng.random() < 0.7 or active
                reqs.append(("record", status))
                if active or rng.random() < 0.4:
                    # make it hold: a final NOTE bears on this theory
                    note = rng.choice(final_notes) if final_notes else None
                    if note is not None:
                        note.rel.setdefault("bears_on", [])
                        if theory.id not in note.rel["bears_on"]:
                            note.rel["bears_on"].append(theory.id)
                        theory.extra.setdefault("_witness", note.id)
            elif form == "claim":
                if active:
                    if supported:
                        reqs.append(("claim", rng.choice(supported)))
                elif self.by_kind["CLAIM"]:
                    reqs.append(("claim", rng.choice(self.by_kind["CLAIM"]).id))
            elif form == "check" and self.check_ids:
                reqs.append(("check", rng.choice(self.check_ids)))
        if active:
            witness = theory.extra.pop("_witness", None)
            if witness is None:
                note = rng.choice(final_notes)
                note.rel.setdefault("bears_on", [])
                if theory.id not in note.rel["bears_on"]:
                    note.rel["bears_on"].append(theory.id)
                witness = note.id
            theory.rel["promoted_by"] = [witness]
        else:
            theory.extra.pop("_witness", None)
        summary = ". ".join(self.rng.choices(self.prose.short, k=rng.randint(1, 2))) + "."
        return {"summary": summary, "requires": reqs}

    def new_arxiv(self, year: int) -> str:
        rng = self.rng
        while True:
            yymm = f"{year % 100:02d}{rng.randint(1, 12):02d}"
            aid = f"{yymm}.{rng.randint(1, 99999):05d}" if year >= 2015 else f"{yymm}.{rng.randint(1, 9999):04d}"
            if aid not in self.arxiv_ids:
                self.arxiv_ids.add(aid)
                return aid

    def external_arxiv(self, year: int) -> str:
        # an arXiv id of a work not in the record (never collides with a LIT)
        rng = self.rng
        y = max(2015, min(year, 2026) - rng.randint(0, 6))
        while True:
            aid = f"{y % 100:02d}{rng.randint(1, 12):02d}.{rng.randint(1, 99999):05d}"
            if aid not in self.arxiv_ids:
                return aid

    def new_check(self) -> tuple[str, str, str]:
        rng = self.rng
        name, tol, code = rng.choice(CHECK_TEMPLATES)
        cid = f"{name}-{len(self.check_ids) + 1:03d}"
        code = code.format(n=rng.choice((8, 16, 32, 64)), n2=rng.choice((4, 12, 24)),
                           m=rng.choice((200, 500, 1000, 2000)),
                           s=rng.choice(("0.5", "2.0", "3.7")))
        self.check_ids.append(cid)
        return cid, tol, code

    def body_target(self, kind: str) -> int:
        t = math.exp(self.rng.gauss(BODY_MU, BODY_SIGMA)) * SIZE_FACTOR[kind]
        return int(min(BODY_CAP, max(BODY_MIN + 200, t)))

    def lit_title(self) -> str:
        r = self.rng
        a, b = r.sample(NOUNS, 2)
        form = r.randrange(6)
        if form == 0:
            t = f"{r.choice(ADJS).capitalize()} {plural(a)} {r.choice(VERB_BASE)} {r.choice(ADJS)} {b} {r.choice(('transfer', 'communication', 'comparison', 'learning'))}"
        elif form == 1:
            t = f"On the {a} of {r.choice(ADJS)} {plural(b)}"
        elif form == 2:
            t = f"When does {r.choice(ADJS)} {a} imply {r.choice(ADJS)} {b}?"
        elif form == 3:
            t = f"{plural(a).capitalize()}: a {r.choice(ADJS)} view of {plural(b)}"
        elif form == 4:
            t = f"Towards {r.choice(ADJS)} {plural(a)} for {plural(b)}"
        else:
            t = f"{a.capitalize()} {r.choice(VERBS)} {b}, {r.choice(ADVS)}"
        return t

    def sentence_title(self, long: bool = False) -> str:
        s = self.rng.choice(self.prose.sentences if long else self.prose.short)
        return s.replace("*", "")

    def question_title(self) -> str:
        r = self.rng
        return (f"Does the {r.choice(ADJS)} {r.choice(NOUNS)} {r.choice(VERB_BASE)} "
                f"the {r.choice(NOUNS)} {r.choice(ADVS)}?")

    # -- defects -------------------------------------------------------------

    def choose_defect(self, r: Record):
        if self.p_defect <= 0 or self.drng.random() >= self.p_defect:
            return None
        choices = DEFECTS if r.kind == "NOTE" else tuple(d for d in DEFECTS if d != "bad_strength")
        return self.drng.choice(choices)

    def missing_id(self, kind: str) -> str:
        """An id of no record, and not yet used by another planted defect."""
        while True:
            span = max(900, 10 * len(self.by_kind[kind]))
            rid = f"{kind}-{self.max_num[kind] + 1 + self.drng.randint(0, span):03d}"
            if rid not in self.bogus_used:
                self.bogus_used.add(rid)
                return rid

    # -- rendering -----------------------------------------------------------

    def mention(self, r: Record, related: list[str]) -> str:
        rng = self.rng
        if related and rng.random() < 0.55:
            t = rng.choice(related)
        else:
            t = self.any_id()
        x = rng.random()
        if x < 0.55:
            return t
        if x < 0.8:
            return f"[[{t}]]"
        return f"[[{t}|{rng.choice(LINK_LABELS)}]]"

    def any_id(self) -> str:
        rng = self.rng
        kind = rng.choices(KINDS, weights=(40, 25, 17, 10, 8))[0]
        recs = self.by_kind.get(kind) or self.by_kind["LIT"]
        return recs[int(len(recs) * rng.random())].id

    def code_span(self) -> str:
        rng = self.rng
        x = rng.random()
        if x < 0.55:
            return f"`{rng.choice(CODE_TOKENS)}`"
        # an id in code: half existing, half non-existent; never a mention
        kind = rng.choice(KINDS)
        if rng.random() < 0.5 and self.by_kind.get(kind):
            t = rng.choice(self.by_kind[kind]).id
        else:
            t = f"{kind}-{self.max_num.get(kind, 0) + 1000 + rng.randint(0, 8999)}"
        y = rng.random()
        if y < 0.5:
            return f"`{t}`"
        if y < 0.75:
            return f"`[[{t}]]`"
        return f"`records/{kind.lower()}/{t}.md`"

    def sentences(self, r: Record, related, k: int, pool=None) -> str:
        rng = self.rng
        out = []
        for s in rng.choices(pool or self.prose.sentences, k=k):
            x = rng.random()
            if x < 0.22:
                m = self.mention(r, related)
                y = rng.random()
                if y < 0.35:
                    s = f"{s} (see {m})"
                elif y < 0.6:
                    s = f"{s}, as {m} shows"
                elif y < 0.8:
                    s = f"{s} — compare {m}"
                elif y < 0.9:
                    s = f"{s}; {m} disagrees"
                else:
                    s = f"{s}, which is {m}'s point"
            elif x < 0.28:
                s = f"{s} ({self.code_span()})"
            out.append(s + ".")
        return " ".join(out)

    def block(self, r: Record, related, style: str) -> str:
        rng = self.rng
        if style == "mixed":
            x = rng.random()
            style = "para" if x < 0.55 else "bullets" if x < 0.85 else "code" if x < 0.93 else "quote"
        if style == "para":
            return self.sentences(r, related, rng.randint(3, 6))
        if style == "bullets":
            items = []
            for _ in range(rng.randint(2, 5)):
                head = ""
                if rng.random() < 0.5:
                    head = f"**{rng.choice(BULLET_HEADS)}.** "
                items.append(f"- {head}{self.sentences(r, related, rng.randint(1, 2))}")
                if rng.random() < 0.2:
                    for _ in range(rng.randint(1, 3)):
                        items.append(f"  - {self.sentences(r, related, 1, self.prose.short)}")
            return "\n".join(items)
        if style == "quote":
            return "> " + self.sentences(r, related, rng.randint(1, 3))
        if style == "code":
            return self.code_block(r)
        if style == "table":
            return self.claims_table(r, related)
        raise ValueError(style)

    def code_block(self, r: Record) -> str:
        rng = self.rng
        other = self.code_span().strip("`")
        x = rng.random()
        if x < 0.4:
            n = rng.choice((64, 128, 300, 768))
            return ("```python\n"
                    f"# reproduces the table in {other}; see also THEORY-{rng.randint(1, 99999):03d}\n"
                    f"X, Y = load_pair(seed={rng.randint(0, 99)}, n={n})\n"
                    "Q, _ = orthogonal_procrustes(X, Y)\n"
                    f"print(np.linalg.norm(X @ Q - Y) / np.linalg.norm(Y))  # ≈ {rng.random():.3f}\n"
                    "```")
        if x < 0.7:
            ids = [self.any_id(), f"LIT-{self.max_num['LIT'] + 2000 + rng.randint(0, 5000)}"]
            return ("```yaml\n"
                    "# how the relation would be written\n"
                    f"source: [{ids[0]}]\n"
                    f"extends: [{ids[1]}]\n"
                    "```")
        if x < 0.85:
            return ("~~~text\n"
                    f"{rng.choice(METRICS)}: {rng.random():.4f}  ({other})\n"
                    f"{rng.choice(METRICS)}: {rng.random():.4f}  [[{self.any_id()}]]\n"
                    "~~~")
        return ("```bash\n"
                f"recordkit show {self.any_id()}\n"
                f"recordkit lint records/ --select RK30{rng.randint(1, 7)}\n"
                "```")

    def claims_table(self, r: Record, related) -> str:
        rng = self.rng
        rows = ["| id | claim | strength | support |", "| --- | --- | --- | --- |"]
        bad_row = None
        nrows = rng.randint(3, 8)
        if r.defect == "bad_strength":
            bad_row = self.drng.randrange(nrows)
        for i in range(nrows):
            claim = rng.choice(self.prose.short).replace("|", "/")
            strength = rng.choice(("strong", "strong", "moderate", "weak"))
            if i == bad_row:
                strength = self.drng.choice(("medium", "high", "very strong", "tentative", "n/a"))
            x = rng.random()
            if x < 0.35:
                support = f"Thm {rng.randint(1, 6)}.{rng.randint(1, 9)}, App. {rng.choice('ABCDEF')}.{rng.randint(1, 7)}"
            elif x < 0.6:
                support = f"Table {rng.randint(1, 5)}; {rng.randint(2, 20)} seeds"
            elif x < 0.8:
                support = f"Fig. {rng.randint(1, 8)}, not proved"
            else:
                t = rng.choice(related) if related else self.any_id()
                support = f"{t}, §{rng.randint(1, 7)}" if rng.random() < 0.5 else f"[[{t}]]"
            rows.append(f"| C{i + 1} | {claim} | {strength} | {support} |")
        return "\n".join(rows)

    def lead(self, r: Record, head: str):
        """An opening paragraph that ties a section to the front matter."""
        rng = self.rng
        rel = r.rel
        ref = lambda t: t if rng.random() < 0.6 else f"[[{t}]]"  # noqa: E731
        if r.kind == "LIT" and head == "Abstract":
            a = r.extra["authors"]
            who = a[0] if len(a) == 1 else f"{a[0].split()[-1]} et al."
            where = f"arXiv:{r.extra['arxiv']}" if "arxiv" in r.extra else f"doi:{r.extra['doi']}"
            return f"{who} ({r.extra['year']}), {where}. " + self.sentences(r, [], 2)
        if r.kind == "NOTE" and head == "Contribution" and "paper" in rel:
            return f"A reading of {ref(rel['paper'][0])}. " + self.sentences(r, [], 1)
        if r.kind == "THEORY" and head == "Source":
            src = ", ".join(ref(t) for t in rel["source"])
            ext = ""
            if "extends" in rel:
                ext = " It extends " + " and ".join(ref(t) for t in rel["extends"]) + "."
            return f"Drawn from {src}.{ext}"
        if r.kind == "THEORY" and head == "What would confirm or reject it" and "promote_when" in r.extra:
            txt = "The promote_when: " + r.extra["promote_when"]["summary"]
            if "promoted_by" in rel:
                txt += f" {ref(rel['promoted_by'][0])} showed it met."
            return txt
        if r.kind == "CLAIM" and head == "Grounds":
            return ("Grounded on " + ", ".join(ref(t) for t in rel.get("grounds", ()))
                    + f"; strength {r.extra['strength']}.")
        if r.kind == "QUESTION" and head == "Question":
            return r.title + " " + self.sentences(r, [], 1)
        return None

    def body(self, r: Record) -> str:
        rng = self.rng
        key = f"LIT:{r.status}" if r.kind == "LIT" else r.kind
        layout = SECTIONS[key]
        related = [t for ts in r.rel.values() for t in ts]
        total_w = sum(w for _, w, _ in layout)
        target = r.target
        parts: list[str] = []
        size = 0
        cum = 0.0
        placed_table = False
        check_blocks = [
            f"```python check id={cid} tolerance={tol}\n{code}\n```"
            for cid, tol, code in r.checks_defined]
        for si, (head, w, style) in enumerate(layout):
            cum += w
            h = f"## {head}"
            parts.append(h)
            size += len(h) + 2
            goal = target * cum / total_w
            first = True
            lead = self.lead(r, head)
            if lead:
                parts.append(lead)
                size += len(lead.encode("utf-8")) + 2
            while first or size < goal:
                if style == "table":
                    if placed_table:
                        b = self.block(r, related, "para")
                    else:
                        b = self.claims_table(r, related)
                        placed_table = True
                elif check_blocks and style == "mixed":
                    b = self.sentences(r, related, 2) + "\n\n" + check_blocks.pop()
                else:
                    b = self.block(r, related, style if not first or style != "mixed" else "para")
                parts.append(b)
                size += len(b.encode("utf-8")) + 2
                first = False
        for cb in check_blocks:  # a layout without a "mixed" section
            parts.append(cb)
        if r.kind == "QUESTION" and r.status == "answered":
            ans = ", ".join(f"[[{a}]]" for a in r.rel.get("answered_by", ()))
            parts.append("## Answer")
            parts.append(f"Answered by {ans}. " + self.sentences(r, related, 2))
        body = "\n\n".join(parts) + "\n"
        if len(body.encode("utf-8")) > BODY_MAX:  # rare: drop trailing blocks
            sizes = [len(p.encode("utf-8")) + 2 for p in parts]
            excess = sum(sizes) - BODY_MAX + 64
            for i in range(len(parts) - 1, 0, -1):
                if excess <= 0:
                    break
                p = parts[i]
                if (p.startswith("## ") or parts[i - 1].startswith("## ")
                        or "```python check" in p or p.startswith("| id |")):
                    continue
                excess -= sizes[i]
                parts[i] = ""
            body = "\n\n".join(p for p in parts if p) + "\n"
        return body

    # front matter

    def yscalar(self, s: str, allow_plain: bool = True) -> str:
        rng = self.rng
        if allow_plain and s.lower() not in YAML_WORDS and PLAIN_SAFE_COMMA.match(s):
            x = rng.random()
            if x < 0.8:
                return s
            if x < 0.9:
                return "'" + s.replace("'", "''") + "'"
        return json.dumps(s, ensure_ascii=False)

    def ylist(self, items, flow_p: float = 0.6, quote: bool = False, key_indent: int = 0) -> str:
        """Value text for `key:` — starts with a space (flow) or a newline (block)."""
        rng = self.rng
        vals = [self.yquote(i) if quote else i for i in items]
        if not vals:
            return " []"
        if rng.random() < flow_p:
            return " [" + ", ".join(vals) + "]"
        pad = " " * (key_indent + rng.choice((0, 2)))
        return "".join(f"\n{pad}- {v}" for v in vals)

    def yquote(self, s: str) -> str:
        return f"'{s}'" if self.rng.random() < 0.5 else f'"{s}"'

    def yids(self, ids, one: bool = False) -> str:
        rng = self.rng
        if len(ids) == 1 and (one or rng.random() < 0.3):
            return " " + ids[0]
        return self.ylist(ids, flow_p=0.65)

    def yfolded(self, text: str, indent: int = 2) -> str:
        words = text.split()
        lines, cur = [], ""
        for w in words:
            if cur and len(cur) + len(w) + 1 > 72:
                lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        if cur:
            lines.append(cur)
        pad = " " * indent
        return " >-\n" + "\n".join(pad + ln for ln in lines)

    def date(self, offset: int) -> dt.date:
        return DATE0 + dt.timedelta(days=offset)

    def front_matter(self, r: Record) -> list[tuple[str, str]]:
        """Ordered (key, text) entries; text is the full YAML for that key."""
        rng = self.rng
        fm: list[tuple[str, str]] = []
        fm.append(("id", f"id: {r.id}"))
        fm.append(("title", "title: " + self.yscalar(r.title)))
        fm.append(("status", f"status: {r.status}"))
        if rng.random() < 0.25 or (r.kind == "LIT" and r.status == "active" and rng.random() < 0.6):
            note = ". ".join(rng.choices(self.prose.short, k=rng.randint(1, 3))) + "."
            if len(note) > 90 or rng.random() < 0.4:
                fm.append(("status_note", "status_note:" + self.yfolded(note)))
            else:
                fm.append(("status_note", "status_note: " + self.yscalar(note)))
        ntags = rng.choice((0, 1, 2, 2, 3, 3, 4, 5))
        tags = rng.sample(TAGS, ntags)
        if ntags or rng.random() < 0.5:
            fm.append(("tags", "tags:" + self.ylist(tags, flow_p=0.75)))
        created = int(rng.random() * DATE_SPAN)
        updated = min(DATE_SPAN + 60, created + int(rng.expovariate(1 / 90)))
        fm.append(("created", f"created: {self.date(created).isoformat()}"))
        if updated != created or rng.random() < 0.5:
            fm.append(("updated", f"updated: {self.date(updated).isoformat()}"))
        if rng.random() < 0.04:
            fm.append(("aliases", "aliases:" + self.ylist([self.yscalar(r.title[:40].rstrip(" ,;—-"), allow_plain=False)], flow_p=0.3)))
        kind = r.kind
        if kind == "LIT":
            fm.append(("authors", "authors:" + self.ylist(
                [self.yscalar(a) for a in r.extra["authors"]], flow_p=0.3 if len(r.extra["authors"]) < 4 else 0.1)))
            fm.append(("year", f"year: {r.extra['year']}"))
            if rng.random() < 0.7:
                fm.append(("venue", "venue: " + self.yscalar(rng.choice(VENUES).format(y=r.extra["year"] + rng.randint(0, 1)))))
            if "arxiv" in r.extra:
                fm.append(("arxiv", f"arxiv: {self.yquote(r.extra['arxiv'])}"))
                if rng.random() < 0.3:
                    url = f"https://arxiv.org/abs/{r.extra['arxiv']}"
                    fm.append(("url", "url: " + (url if rng.random() < 0.5 else f'"{url}"')))
            else:
                fm.append(("doi", f"doi: {self.yquote(r.extra['doi'])}"))
            if r.status == "active":
                fm.append(("read", f"read: {self.date(min(DATE_SPAN, created + rng.randint(0, 60))).isoformat()}"))
            refs = r.extra["references"]
            if refs:
                text = "references:" + self.ylist(refs, flow_p=0.35, quote=True)
                if rng.random() < 0.2:
                    text = "# arXiv ids and DOIs from the bibliography\n" + text
                fm.append(("references", text))
        elif kind == "NOTE":
            fm.append(("date", f"date: {self.date(created).isoformat()}"))
        elif kind == "CLAIM":
            fm.append(("strength", f"strength: {r.extra['strength']}"))
        elif kind == "THEORY" and "promote_when" in r.extra:
            fm.append(("promote_when", self.promote_when_text(r.extra["promote_when"])))
        for rel in REL_FROM[kind]:
            ids = r.rel.get(rel)
            if not ids:
                continue
            one = rel in ("paper", "promoted_by")
            text = f"{rel}:" + self.yids(ids, one=one)
            if rng.random() < 0.06:
                text += rng.choice(("  # checked by hand", "  # TODO: revisit", "  # see body"))
            fm.append((rel, text))
        if "checks" in r.extra:
            fm.append(("checks", "checks:" + self.ylist(r.extra["checks"], flow_p=0.7)))
        if rng.random() < 0.05:
            fm.insert(rng.randint(1, len(fm)), ("#", rng.choice((
                "# imported from the old vault", "# fields below are hand-edited",
                "# keep in sync with the reading list"))))
        return fm

    def promote_when_text(self, pw: dict) -> str:
        rng = self.rng
        lines = ["promote_when:"]
        summary = pw["summary"]
        if rng.random() < 0.6:
            lines.append("  summary:" + self.yfolded(summary, indent=4))
        else:
            lines.append("  summary: " + json.dumps(summary, ensure_ascii=False))
        if pw["requires"]:
            lines.append("  requires:")
            for form, val in pw["requires"]:
                if form == "check":
                    lines.append(f"    - check: {val}")
                elif form == "claim":
                    lines.append(f"    - claim: {val}")
                else:
                    status = ", status: final" if val else ""
                    if rng.random() < 0.75:
                        lines.append(f"    - record: {{kind: NOTE, relation: bears_on{status}}}")
                    else:
                        lines.append("    - record:")
                        lines.append("        kind: NOTE")
                        lines.append("        relation: bears_on")
                        if val:
                            lines.append("        status: final")
        elif rng.random() < 0.5:
            lines.append("  requires: []  # judgement call")
        return "\n".join(lines)

    def apply_defect(self, r: Record, fm: list[tuple[str, str]]) -> tuple[list, str]:
        """Mutate front-matter entries for r.defect; returns (fm, file stem)."""
        d = self.drng
        stem = r.id
        kind = r.kind
        keys = [k for k, _ in fm]
        defect = r.defect
        if defect == "dangling_relation":
            rel = d.choice(REL_FROM[kind])
            bogus = self.missing_id(d.choice(REL_TARGETS[rel]))
            old = [t for t in r.rel.get(rel, [])]
            if rel in ("paper", "promoted_by"):
                new = f"{rel}: {bogus}"
            else:
                new = f"{rel}: [" + ", ".join(old + [bogus]) + "]"
            if rel in keys:
                fm[keys.index(rel)] = (rel, new)
            else:
                fm.append((rel, new))
        elif defect == "bad_status":
            bad = [s for s in ("in-progress", "Active", "done", "wip", "accepted",
                               "pending", "Proposed", "finished", "draft") if s not in STATUSES[kind]]
            fm[keys.index("status")] = ("status", f"status: {d.choice(bad)}")
        elif defect == "unknown_field":
            extra = d.choice(("auhtors: [Anna Chen]", "stauts_note: revisit", "tag: [theory]",
                              "priority: high", "reviewer: Mei Tanaka",
                              "sources: [LIT-001]", "upated: 2025-01-02", "relates_to: []"))
            fm.insert(d.randint(1, len(fm)), (extra.split(":")[0], extra))
        elif defect == "bad_tag":
            bad = d.choice(("Representation Learning", "kernel_methods", "ScalingLaws",
                            "open-problem-", "TODO", "two  spaces"))
            entry = f"tags: [{bad}]" if "tags" not in keys else None
            if entry is None:
                i = keys.index("tags")
                tags = [t for t in re.findall(r"[a-z0-9][a-z0-9-]*", fm[i][1][5:])]
                tags.insert(d.randint(0, len(tags)), bad)
                fm[i] = ("tags", "tags:\n" + "\n".join(f"  - {t}" for t in tags))
            else:
                fm.insert(3, ("tags", entry))
        elif defect == "missing_title":
            i = keys.index("title")
            x = d.random()
            if x < 0.6:
                del fm[i]
            else:
                fm[i] = ("title", 'title: ""' if x < 0.8 else "title:")
        elif defect == "id_mismatch":
            stem = self.missing_id(kind)
        elif defect == "invalid_date":
            bad = d.choice(("2024-02-30", "'2024-13-01'", "2024/03/05", '"5 March 2024"',
                            "2025-00-10", "'yesterday'"))
            cands = [k for k in ("created", "updated", "date", "read") if k in keys]
            k = d.choice(cands)
            fm[keys.index(k)] = (k, f"{k}: {bad}")
        elif defect == "broken_yaml":
            x = d.randrange(5)
            i = keys.index("title") if "title" in keys else 1
            if x == 0:  # plain scalar containing ": "
                fm[i] = ("title", f"title: {r.title.rstrip('?')}: a second look")
            elif x == 1:  # unclosed flow sequence
                fm.insert(3, ("tags", "tags: [theory, open-problem"))
            elif x == 2:  # unclosed double quote
                fm[i] = ("title", f'title: "{r.title}')
            elif x == 3:  # key without colon
                fm.insert(3, ("x", "needs review"))
            else:  # bad indentation of a following key
                fm.insert(3, ("x", "tags:\n  - theory\n - empirics"))
        return fm, stem

    def render(self, r: Record) -> tuple[str, bytes, bytes]:
        """(file stem, front-matter block bytes, body bytes)."""
        fm = self.front_matter(r)
        body = self.body(r)
        stem = r.id
        if r.defect and r.defect != "bad_strength":
            fm, stem = self.apply_defect(r, fm)
        head = "\n".join(text for _, text in fm)
        return stem, f"---\n{head}\n---\n\n".encode("utf-8"), body.encode("utf-8")

    def run(self, out_dir: Path) -> dict:
        self.plan()
        for r in self.by_id.values():  # defect decisions in a fixed order
            r.defect = self.choose_defect(r)
        kind_dirs = {k: out_dir / k.lower() for k in KINDS}
        for p in kind_dirs.values():
            p.mkdir(parents=True, exist_ok=True)
        total = 0
        body_min, body_max = 1 << 30, 0
        per_kind = {k: len(self.by_kind[k]) for k in KINDS}
        for kind in KINDS:
            d = kind_dirs[kind]
            for r in self.by_kind[kind]:
                stem, head, body = self.render(r)
                body_min = min(body_min, len(body))
                body_max = max(body_max, len(body))
                total += len(head) + len(body)
                with open(d / f"{stem}.md", "wb") as f:
                    f.write(head + body)
                if r.defect:
                    self.defect_counts[r.defect] += 1
                    self.defect_list.append({
                        "id": r.id, "path": f"{kind.lower()}/{stem}.md",
                        "defect": r.defect, "code": EXPECTED_CODE[r.defect]})
        return {
            "count": self.count, "per_kind": per_kind, "bytes": total,
            "body_min": body_min if self.count else 0, "body_max": body_max,
            "checks": len(self.check_ids),
            "defects": {k: v for k, v in self.defect_counts.items()},
            "defect_total": sum(self.defect_counts.values()),
            "defect_list": self.defect_list,
        }


def generate(out_dir, count: int, seed: int = 0, defects: float = 0.0) -> dict:
    """Write `count` synthetic records under out_dir; return statistics.

    Keys: count, per_kind {KIND: n}, bytes (total file bytes), body_min /
    body_max (body bytes after the front matter), checks (number of fenced
    check blocks), defects {name: n}, defect_total, defect_list [{id, path,
    defect, code}], seconds.
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    if not 0.0 <= defects <= 1.0:
        raise ValueError("defects must be a probability in [0, 1]")
    t0 = time.perf_counter()
    out = Path(out_dir)
    stale = [p for k in KINDS for p in (out / k.lower()).glob("*.md")] if out.exists() else []
    if stale:
        raise FileExistsError(f"{out} already holds {len(stale)} record files; use an empty directory")
    stats = Generator(count, seed, defects).run(out) if count else {
        "count": 0, "per_kind": {k: 0 for k in KINDS}, "bytes": 0, "body_min": 0,
        "body_max": 0, "checks": 0, "defects": {d: 0 for d in DEFECTS},
        "defect_total": 0, "defect_list": []}
    stats["seconds"] = time.perf_counter() - t0
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic recordkit record for benchmarks.")
    ap.add_argument("out_dir", metavar="OUT_DIR")
    ap.add_argument("--count", type=int, default=10_000, help="number of records (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--defects", type=float, default=0.0,
                    help="probability per record of one planted defect (default 0.0)")
    ap.add_argument("--json", action="store_true", help="print the statistics as JSON")
    args = ap.parse_args(argv)
    try:
        stats = generate(args.out_dir, args.count, args.seed, args.defects)
    except (ValueError, FileExistsError) as e:
        print(f"generate.py: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(stats, indent=1))
        return 0
    print(f"wrote {stats['count']} records to {args.out_dir}")
    for k, n in stats["per_kind"].items():
        print(f"  {k:<9}{n:>8}")
    print(f"total {stats['bytes'] / 1e6:.1f} MB ({stats['bytes']} bytes); "
          f"bodies {stats['body_min']}–{stats['body_max']} bytes; {stats['checks']} check blocks")
    if args.defects:
        print(f"defects planted: {stats['defect_total']}")
        for k, n in stats["defects"].items():
            print(f"  {k:<19}{n:>6}  ({EXPECTED_CODE[k]})")
    print(f"{stats['seconds']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
