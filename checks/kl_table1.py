"""Nielsen et al. (arXiv:2506.03784), Theorem 3.1 and Table 1: two softmax
models in M = 2 whose KL divergence vanishes as the unembedding norm ρ grows
while their embeddings stay far from linearly related.

The construction follows the authors' code (github.com/bemigini/
close-dist-rep-sim, experiments/kl_to_zero_dissimilar_reps.py and
making_constructed_models.py, read through the search tool):

* k = 7 labels with unembeddings g(y) = ρ·(cos θ_y, sin θ_y), θ_y = 2πy/7;
* 500 inputs per label; input j of class y has embedding
  ℓ_yj·(cos(θ_y + a_yj), sin(θ_y + a_yj)), a_yj ~ U(−π/64, π/64),
  ℓ_yj = 2 + 0.01·|N(0, 1)|;
* model 2 relabels by the permutation π = (5, 0, 2, 4, 6, 1, 3): its
  unembeddings are g'(y) = g(π(y)) and input (y, j) gets the direction
  θ_{π(y)} + a_{π(y)j} with the same length ℓ_yj, so every input keeps its
  argmax label while the other labels are ranked differently;
* d_KL: mean over the 3500 inputs of KL(p(·|x) ‖ p'(·|x));
* d_LLV: λ = 1e-5, label pivot and left-out label minimizing t1 over all
  pairs, input pivot and 2 inputs by a random search over 100 disjoint
  triples minimizing t2 (App. E.3);
* mCCA: mean of the 2 canonical correlations of f and f' (the authors use
  sklearn's iterative CCA; we compute them exactly, by principal angles);
* max d_SVD: the f-part of d_f,g maximized over the C(5, 2) = 10 bases L
  drawn from the LLV label set minus the pivot, with the pivot chosen for
  d_LLV.

What is and is not reproducible.  The authors' generator is unseeded, so
each row of their Table 1 is one random draw.

* d_KL is a sample mean over inputs; a draw at ρ = 3 scatters by σ ≈ 1.6e-4
  around its expectation, more than the fourth digit.  We compute the
  expectation exactly, by Gauss-Legendre quadrature over the construction's
  randomness (offsets and lengths): E d_KL(3) = 0.886634 and
  E d_KL(18) = 1.0405e-4, which round to the paper's 0.8866 and 0.0001.
  Asserted: both to four decimals, and that d_KL decreases with ρ.
* d_LLV: a draw gives 1.3174 ± 0.0003 (the t1 term; t2 ≈ 0.82), the paper
  "about 1.317".  Asserted: the mean over our 192 draws rounds to 1.317, and
  every row lies within 1.317 ± 0.003 (the widest deviation seen in ~14,000
  draws was 0.0017: the minimum over pivots has a long lower tail).  The
  population value (quadrature) is 1.3179: the finite-sample minimum over
  pivots is biased low, so the paper's 1.317 is a property of n = 500.
* mCCA and max d_SVD have population values ≈ 0 and ≈ 1 (the permutation
  makes the class means of f and f' exactly uncorrelated; only the one
  class with π(y) = y shares its offsets, and the population mCCA by
  quadrature is 1.1e-4); a draw's values
  are sampling noise (mCCA 1-99 % range ≈ 0.0002-0.0017, max d_SVD
  ≈ 0.9991-0.9999), so per-row digits cannot be reproduced.  Asserted: the
  paper's ranges (0.0004-0.0010, 0.9995-0.9999) lie within the range of our
  192 draws to four decimals, every mCCA ≤ 0.0025 and every max d_SVD
  ≥ 0.998.  (If the paper's table has all 16 rows, its two columns are
  more concentrated than our draws: each of our draws falls in the
  paper's range with probability ≈ 0.76, so 16 of 16 would be a ~1 %
  event; we have not found a construction difference that explains it.)

Only the figures quoted in NOTE-738 were available to us (d_KL at ρ = 3
and 18, d_LLV ≈ 1.317, mCCA 0.0004–0.0010, max d_SVD 0.9995–0.9999); the
other rows of the paper's table are shown as '—' in the report.

Imports only numpy and recordkit.measures; prints nothing at import time.
"""
import numpy as np

from recordkit import check
from recordkit import measures as ms

K_LABELS = 7
PER_CLASS = 500
MIN_LENGTH = 2.0
OFFSET = np.pi / 64
PERM = np.array([5, 0, 2, 4, 6, 1, 3])
RHOS = tuple(range(3, 19))
LAMBDA = 1e-5
REPLICATES = 12            # draws per ρ pooled for the distribution statements

#: Table 1 of Nielsen et al. as quoted in NOTE-738 (the only figures we have)
PAPER = {
    "d_KL": {3: 0.8866, 18: 0.0001},
    "d_LLV": 1.317,                     # "stays at about 1.317"
    "mCCA": (0.0004, 0.0010),           # range over the rows
    "max_d_SVD": (0.9995, 0.9999),      # range over the rows
}
#: each row's d_LLV must lie within PAPER["d_LLV"] ± LLV_BAND.  A draw scatters
#: with σ ≈ 3.2e-4 and a longer lower tail (a minimum over pivots): the widest
#: deviation from 1.317 seen in ~14,000 draws was 0.0017.
LLV_BAND = 0.003


def _angles():
    return 2 * np.pi * np.arange(K_LABELS) / K_LABELS


def _unit(theta):
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def unembeddings(rho):
    """g (model 1) and g' = g∘π (model 2), each (7, 2)."""
    th = _angles()
    return rho * _unit(th), rho * _unit(th[PERM])


def construct(rng, rho, per_class=PER_CLASS):
    """One random draw of the authors' pair of models: f, g, f', g'."""
    th = _angles()
    a = rng.uniform(-OFFSET, OFFSET, (K_LABELS, per_class))
    ell = np.abs(0.01 * rng.standard_normal((K_LABELS, per_class))) + MIN_LENGTH
    f1 = (ell[..., None] * _unit(th[:, None] + a)).reshape(-1, 2)
    f2 = (ell[..., None] * _unit(th[PERM][:, None] + a[PERM])).reshape(-1, 2)
    g1, g2 = unembeddings(rho)
    return f1, g1, f2, g2


def quadrature(n_offset=10, n_length=12):
    """Nodes and weights for the expectation over one input of the construction.

    Per class y (weight 1/7): model-1 offset a and model-2 offset b are
    independent U(−π/64, π/64) (the same variable when π(y) = y), the
    length 2 + 0.01|Z|, Z ~ N(0, 1).  Gauss-Legendre in a, b and in |Z| on
    [0, 8] with the half-normal density.  Returns f1, f2 (nodes × 2), w.
    """
    th = _angles()
    xa, wa = np.polynomial.legendre.leggauss(n_offset)
    xa, wa = xa * OFFSET, wa * OFFSET / (2 * OFFSET)        # uniform density 1/(2·OFFSET)
    xz, wz = np.polynomial.legendre.leggauss(n_length)
    xz, wz = 4 * (xz + 1), 4 * wz * 2 * np.exp(-0.5 * (4 * (xz + 1)) ** 2) / np.sqrt(2 * np.pi)
    wz = wz / wz.sum()                                      # tail beyond 8 is < 1e-15
    ell = MIN_LENGTH + 0.01 * xz
    F1, F2, W = [], [], []
    for y in range(K_LABELS):
        if PERM[y] == y:
            A, Z = np.meshgrid(xa, np.arange(n_length), indexing="ij")
            B, w = A, np.outer(wa, wz)
        else:
            A, B, Z = np.meshgrid(xa, xa, np.arange(n_length), indexing="ij")
            w = wa[:, None, None] * wa[None, :, None] * wz[None, None, :]
        L = ell[Z]
        F1.append((L[..., None] * _unit(th[y] + A)).reshape(-1, 2))
        F2.append((L[..., None] * _unit(th[PERM[y]] + B)).reshape(-1, 2))
        W.append(w.ravel() / K_LABELS)
    return np.concatenate(F1), np.concatenate(F2), np.concatenate(W)


def expected_kl(rho, nodes=None):
    """E d_KL at ρ: the expectation over the construction's randomness, by quadrature."""
    f1, f2, w = nodes if nodes is not None else quadrature()
    g1, g2 = unembeddings(rho)
    return ms.d_kl_models(f1, g1, f2, g2, weights=w)


def population_t1(rho, nodes=None):
    """The t1 term of d_LLV for the population (quadrature-weighted inputs), pivots chosen as in a draw."""
    f1, f2, w = nodes if nodes is not None else quadrature()
    g1, g2 = unembeddings(rho)
    P, Q = ms.logits(f1, g1), ms.logits(f2, g2)
    y0, lo = ms.llv_choose_labels(P, Q, weights=w)
    lp, lq = ms.log_softmax(P), ms.log_softmax(Q)
    # t1 alone: the input part needs inputs, which a population does not pick
    r = ms.d_llv(lp, lq, y_pivot=y0, left_out=lo, x_pivot=0, x_set=[1, 2],
                 lam=LAMBDA, weights=w)
    return r.t1


def one_draw(rng, rho):
    """The four Table 1 quantities for one draw of the construction (the authors' protocol)."""
    f1, g1, f2, g2 = construct(rng, rho)
    P, Q = ms.logits(f1, g1), ms.logits(f2, g2)
    y0, lo = ms.llv_choose_labels(P, Q)
    x0, xs = ms.llv_choose_inputs(P, Q, 2, rng, n_candidates=100)
    labels = [y for y in range(K_LABELS) if y != lo]
    llv = ms.d_llv(P, Q, y_pivot=y0, labels=labels, x_pivot=x0, x_set=xs, lam=LAMBDA)
    dfg = ms.d_fg_max_over_label_bases(f1, g1, f2, g2, y_pivot=y0, labels=labels,
                                       x_pivot=x0, x_basis=xs)
    return {"d_KL": ms.d_kl(P, Q), "d_LLV": llv.d, "t1": llv.t1, "t2": llv.t2,
            "mCCA": ms.mean_cca(f1, f2), "max_d_SVD": dfg.d_f}


def table1(rng=None, replicates=REPLICATES):
    """Our Table 1: one draw per ρ (as the paper), expectations, and pooled draws.

    Returns {"rows": [per-ρ dict], "pooled": {quantity: array over all
    draws}}.  Row keys: rho, d_KL, E_d_KL, d_LLV, t1, t2, pop_t1, mCCA,
    max_d_SVD; the first draw for each ρ is the row, ``replicates`` − 1
    more are pooled for the distribution statements.
    """
    if rng is None:
        rng = np.random.default_rng(list(b"kl-vanishes-table1"))
    nodes = quadrature()
    rows, pooled = [], {k: [] for k in ("d_KL", "d_LLV", "mCCA", "max_d_SVD")}
    for rho in RHOS:
        draws = [one_draw(rng, rho) for _ in range(replicates)]
        row = dict(draws[0], rho=rho, E_d_KL=expected_kl(rho, nodes))
        row["pop_t1"] = population_t1(rho, nodes) if rho in (RHOS[0], RHOS[-1]) else None
        rows.append(row)
        for k in pooled:
            pooled[k].extend(d[k] for d in draws)
    return {"rows": rows, "pooled": {k: np.array(v) for k, v in pooled.items()}}


def discrepancies(result):
    """Violations of the paper-derived statements (0 when a statement holds)."""
    rows, pooled = result["rows"], result["pooled"]
    by_rho = {r["rho"]: r for r in rows}
    out = {}
    for rho, paper in PAPER["d_KL"].items():
        out[f"E d_KL(rho={rho}) to 4 d.p. vs paper"] = abs(round(by_rho[rho]["E_d_KL"], 4) - paper)
    kl = [r["d_KL"] for r in rows]
    out["d_KL decreasing in rho (draws)"] = max(0.0, max(b - a for a, b in zip(kl, kl[1:])))
    llv = pooled["d_LLV"]
    out["mean d_LLV to 3 d.p. vs 'about 1.317'"] = abs(round(float(llv.mean()), 3) - PAPER["d_LLV"])
    row_llv = np.array([r["d_LLV"] for r in rows])
    out["every row's d_LLV within 1.317 +- 0.003"] = max(
        0.0, float(np.abs(row_llv - PAPER["d_LLV"]).max()) - LLV_BAND)
    for name in ("mCCA", "max_d_SVD"):
        lo, hi = PAPER[name]
        v = pooled[name]
        out[f"paper's {name} range within our draws (4 d.p.)"] = (
            max(0.0, round(float(v.min()), 4) - lo) + max(0.0, hi - round(float(v.max()), 4)))
    out["mCCA near 0 (every draw <= 0.0025)"] = max(0.0, float(pooled["mCCA"].max()) - 0.0025)
    out["max d_SVD near 1 (every draw >= 0.998)"] = max(0.0, 0.998 - float(pooled["max_d_SVD"].min()))
    return {k: float(v) for k, v in out.items()}


def format_table(result):
    """Plain-text table: our values beside the paper's (as quoted in NOTE-738)."""
    rows, pooled = result["rows"], result["pooled"]
    head = (f"{'rho':>3} | {'d_KL draw':>9} {'E d_KL':>9} {'paper':>7} | "
            f"{'d_LLV':>7} {'paper':>7} | {'mCCA':>7} {'paper':>7} | {'maxdSVD':>7} {'paper':>7}")
    lines = ["Table 1 (Nielsen et al.), one draw per rho as in the paper; "
             "E d_KL = expectation by quadrature", head, "-" * len(head)]
    for r in rows:
        pk = PAPER["d_KL"].get(r["rho"])
        lines.append(
            f"{r['rho']:>3} | {r['d_KL']:>9.4f} {r['E_d_KL']:>9.4f} "
            f"{(f'{pk:.4f}' if pk is not None else '—'):>7} | "
            f"{r['d_LLV']:>7.4f} {'≈1.317':>7} | {r['mCCA']:>7.4f} {'—':>7} | "
            f"{r['max_d_SVD']:>7.4f} {'—':>7}")
    n = len(pooled["d_LLV"])
    q = lambda v, p: np.quantile(v, p)  # noqa: E731
    lines += [
        "-" * len(head),
        f"pooled over {n} draws (mean; 1%-99% range)  |  paper (NOTE-738)",
        f"  d_LLV     {pooled['d_LLV'].mean():.4f}; {q(pooled['d_LLV'], .01):.4f}-"
        f"{q(pooled['d_LLV'], .99):.4f}   |  about 1.317",
        f"  mCCA      {pooled['mCCA'].mean():.4f}; {q(pooled['mCCA'], .01):.4f}-"
        f"{q(pooled['mCCA'], .99):.4f}   |  0.0004-0.0010 over rows",
        f"  max d_SVD {pooled['max_d_SVD'].mean():.4f}; {q(pooled['max_d_SVD'], .01):.4f}-"
        f"{q(pooled['max_d_SVD'], .99):.4f}   |  0.9995-0.9999 over rows",
    ]
    pops = [(r["rho"], r["pop_t1"]) for r in rows if r["pop_t1"] is not None]
    n_t1 = sum(r["t1"] >= r["t2"] for r in rows)
    lines.append("  population t1 (quadrature): "
                 + ", ".join(f"rho={a}: {b:.4f}" for a, b in pops)
                 + f"; d_LLV = t1 in {n_t1}/{len(rows)} rows"
                 + f" (mean t2 = {np.mean([r['t2'] for r in rows]):.3f})")
    return "\n".join(lines)


_LAST = {}


@check("kl-vanishes-table1", tolerance=5e-5,
       claim="Theorem 3.1 / Table 1 of Nielsen et al. reproduced with the authors' "
             "construction in M = 2 (7 labels on a circle of radius rho, the second "
             "model an argmax-preserving relabelling), rho = 3..18: the expected "
             "d_KL rounds to the paper's 0.8866 (rho=3) and 0.0001 (rho=18) and "
             "decreases in rho, d_LLV stays at about 1.317 (mean over draws to 3 d.p.; "
             "every row within 0.003), and the paper's mCCA "
             "(0.0004-0.0010) and max d_SVD (0.9995-0.9999) ranges lie within "
             "the range of our draws (mCCA near 0, d_SVD near 1)")
def kl_vanishes_table1(rng):
    """Returns the violations of ``discrepancies``; see the module docstring."""
    result = table1(rng)
    _LAST["result"] = result
    return discrepancies(result)


def _report(*_args, **_kwargs):
    """Our Table 1 beside the paper's, from the last run (or a fresh one)."""
    if "result" not in _LAST:
        _LAST["result"] = table1()
    return format_table(_LAST["result"])


kl_vanishes_table1.report = _report
