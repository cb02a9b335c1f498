"""Numeric checks on identifiability in the softmax model class
p(y|x) ∝ exp f(x)ᵀg(y) (Nielsen et al. 2025, eq. 1): exact linear
identifiability (Thm 2.2) and the d_LLV → d_f,g bound (Thm 4.7).

Imports only numpy and recordkit.measures; prints nothing at import time.
"""
import numpy as np

from recordkit import check
from recordkit import measures as ms


def _well_conditioned(rng, M, lo=1.0, hi=3.0):
    """A random M×M matrix Q1 diag(s) Q2 with singular values s in [lo, hi]."""
    Q1, _ = np.linalg.qr(rng.standard_normal((M, M)))
    Q2, _ = np.linalg.qr(rng.standard_normal((M, M)))
    return Q1 @ np.diag(rng.uniform(lo, hi, M)) @ Q2


def transformed_pair(f, g, B, c):
    """(f', g') with f'(x) = B f(x) and g'(y) = B^{-T} g(y) + c, rows = samples."""
    return f @ B.T, g @ np.linalg.inv(B) + c


@check("linear-identifiability", tolerance=1e-12,
       claim="Theorem 2.2 (Nielsen et al.; Khemakhem, Roeder et al.): for "
             "f' = Bf and g' = B^{-T}g + c the two softmax models have equal "
             "conditionals p(y|x), their log-odds against a pivot label equal "
             "L^T f(x), and A = L^{-T} L'^T built from diverse labels recovers "
             "B^{-1}, so that f = A f' and g_0 = A^{-T} g'_0")
def linear_identifiability(rng):
    """Relative discrepancies, worst over 10 random models (M = 2..6, K = M+4 labels, N = 200).

    Construction: f (N×M) and g (K×M) Gaussian; labels y_0..y_M made diverse
    by g(y_i) = g(y_0) + columns of a matrix with singular values in [1, 3];
    B with singular values in [0.5, 2]; c Gaussian.  Row convention:
    f' = f Bᵀ, g' = g B⁻¹ + cᵀ.

    Why 1e-12: every discrepancy is a relative error of a float64
    computation whose inputs are O(1) and whose conditioning is bounded by
    construction, κ(L) ≤ 3, κ(B) ≤ 4; the forward error of the solves and
    products is then ≲ M·κ(L)·κ(B)·u ≈ 6·3·4·1.1e-16 ≈ 8e-15, and of the
    log-softmax ≲ |logit|·u ≈ 1e-14 (|logits| ≲ 50).  Measured: ~1e-15.
    1e-12 leaves two orders of magnitude for BLAS differences while still
    failing for any error of substance (a wrong transpose gives O(1)).
    """
    worst = dict.fromkeys(["equal_conditionals", "log_odds_equal_LTf",
                           "A_equals_B_inverse", "f_equals_A_fprime",
                           "g0_equals_A_invT_g0prime"], 0.0)
    for trial in range(10):
        M = 2 + trial % 5
        K, N = M + 4, 200
        f = rng.standard_normal((N, M))
        g = rng.standard_normal((K, M))
        g[1:M + 1] = g[0] + _well_conditioned(rng, M).T   # diverse labels y_1..y_M
        B = _well_conditioned(rng, M, 0.5, 2.0)
        c = rng.standard_normal(M)
        f2, g2 = transformed_pair(f, g, B, c)

        lp, lq = ms.log_softmax(ms.logits(f, g)), ms.log_softmax(ms.logits(f2, g2))
        scale = np.abs(lp).max()
        worst["equal_conditionals"] = max(worst["equal_conditionals"],
                                          np.abs(lp - lq).max() / scale)

        y0, ys = 0, list(range(1, M + 1))
        L = (g[ys] - g[y0]).T                 # columns g_0(y_i)
        L2 = (g2[ys] - g2[y0]).T
        log_odds = lq[:, ys] - lq[:, [y0]]    # read off the distribution of model 2
        worst["log_odds_equal_LTf"] = max(worst["log_odds_equal_LTf"],
                                          np.abs(log_odds - f @ L).max() / np.abs(f @ L).max())

        A = np.linalg.solve(L.T, L2.T)        # A = L^{-T} L'^T
        Binv = np.linalg.inv(B)
        worst["A_equals_B_inverse"] = max(worst["A_equals_B_inverse"],
                                          np.linalg.norm(A - Binv) / np.linalg.norm(Binv))
        worst["f_equals_A_fprime"] = max(worst["f_equals_A_fprime"],
                                         np.abs(f - f2 @ A.T).max() / np.abs(f).max())
        G0, G0p = g - g[y0], g2 - g2[y0]      # displaced unembeddings g_0, g'_0
        # g_0(y) = A^{-T} g'_0(y)  <=>  rows: G0 = G0' A^{-1}
        worst["g0_equals_A_invT_g0prime"] = max(
            worst["g0_equals_A_invT_g0prime"],
            np.abs(G0 - np.linalg.solve(A.T, G0p.T).T).max() / np.abs(G0).max())
    return {k: float(v) for k, v in worst.items()}


#: how many pairs must have a non-vacuous bound (d_LLV < 1/(2M))
MIN_NONVACUOUS = 20


@check("llv-bound-thm47", tolerance=0.0,
       claim="Theorem 4.7 of Nielsen et al.: d_f,g <= 2M d_LLV (any λ > 0), on "
             "random softmax models and perturbations of them of sizes 1e-4..1, "
             "wherever the bound is non-vacuous (d_LLV < 1/(2M)), with d_f,g "
             "maximized over the label bases L drawn from the LLV label set")
def llv_bound_thm47(rng):
    """Violation max(0, d_f,g − 2M·d_LLV) over the non-vacuous pairs, and a shortfall count.

    Each pair: M ∈ {2, 3}, K = M + 4 labels, N = 300 inputs; f, g Gaussian
    (g scaled by 1.5); the second model f + σE, g + σE' with σ log-uniform in
    [1e-4, 1], then re-parametrized by a random invertible A (f ↦ Af,
    g ↦ A^{-T}g + c), which changes neither side.  Label pivot, left-out
    label, input pivot and the M other inputs of X_LLV are drawn at random
    (the theorem holds for any admissible choice); d_LLV uses λ = 1e-5;
    d_f,g takes N from X_LLV and the maximum over all M-subsets of
    Y_LLV∖{y_0} for L.  ``nonvacuous_shortfall`` = max(0, 20 − #pairs with
    d_LLV < 1/(2M)).

    d_f,g is second order in σ while d_LLV is first order, so the theorem's
    bound is loose here (d_f,g / 2M·d_LLV ≲ 0.01; the authors call it "not
    tight").  To make the check sensitive to a wrong d_LLV, it also tests the
    proof's first-order intermediate step on every pair: the Lemma E.7
    quantity sqrt(M Σ_l Var[z'_l − w'_l]) (which bounds d_SVD) is ≤ 2M·d_LLV,
    since sd(z'_l − w'_l) ≤ 2·t1 by the triangle inequality
    (``weyl_term_violation``; its ratio to the bound is 0.2-0.5).
    """
    worst, worst_inter, nonvacuous, ratios, inter_ratios = 0.0, 0.0, 0, [], []
    for trial in range(60):
        M = 2 + trial % 2
        K, N = M + 4, 300
        f = rng.standard_normal((N, M))
        g = 1.5 * rng.standard_normal((K, M))
        sigma = 10 ** rng.uniform(-4, 0)
        f2 = f + sigma * rng.standard_normal((N, M))
        g2 = g + sigma * rng.standard_normal((K, M))
        A = rng.standard_normal((M, M)) + 2 * np.eye(M)
        f2, g2 = f2 @ A.T, g2 @ np.linalg.inv(A) + rng.standard_normal(M)

        y0, left_out = (int(v) for v in rng.choice(K, 2, replace=False))
        labels = [y for y in range(K) if y != left_out]
        xs = [int(v) for v in rng.choice(N, M + 1, replace=False)]
        x0, x_set = xs[0], xs[1:]
        llv = ms.d_llv(ms.logits(f, g), ms.logits(f2, g2), y_pivot=y0, labels=labels,
                       x_pivot=x0, x_set=x_set, lam=1e-5)
        d = ms.d_fg_max_over_label_bases(f, g, f2, g2, y_pivot=y0, labels=labels,
                                         x_pivot=x0, x_basis=x_set).d
        # the proof's intermediate quantity: d_SVD <= sqrt(M Σ_l Var[z'_l - w'_l])
        # (Lemma E.7) <= 2M t1 (resp. 2M t2 for the g part), first order in σ
        inter = _weyl_terms(f, g, f2, g2, y0, labels, x0, x_set)
        worst_inter = max(worst_inter, inter - 2 * M * llv.d)
        inter_ratios.append(inter / (2 * M * llv.d))
        if llv.d < 1 / (2 * M):
            nonvacuous += 1
            worst = max(worst, d - 2 * M * llv.d)
            ratios.append(d / (2 * M * llv.d))
    llv_bound_thm47.last = {
        "nonvacuous": nonvacuous,
        "max_ratio_dfg_to_bound": float(max(ratios)) if ratios else None,
        "max_ratio_weyl_term_to_bound": float(max(inter_ratios))}
    return {"max_violation": max(0.0, float(worst)),
            "weyl_term_violation": max(0.0, float(worst_inter)),
            "nonvacuous_shortfall": float(max(0, MIN_NONVACUOUS - nonvacuous))}


def _combinations(items, r):
    """All r-subsets of ``items`` in lexicographic order (itertools-free)."""
    if r == 0:
        return [()]
    return [(items[i],) + rest for i in range(len(items))
            for rest in _combinations(items[i + 1:], r - 1)]


def _weyl_terms(f, g, f2, g2, y0, labels, x0, x_set):
    """max over label bases and the g part of sqrt(M Σ_l Var[z'_l − w'_l])."""
    M = f.shape[1]
    out = 0.0
    for comb in _combinations([y for y in labels if y != y0], M):
        L1, L2 = (g[list(comb)] - g[y0]).T, (g2[list(comb)] - g2[y0]).T
        out = max(out, 1 - ms.msvd_weyl_lower_bound(f @ L1, f2 @ L2))
    N1, N2 = (f[x_set] - f[x0]).T, (f2[x_set] - f2[x0]).T
    return max(out, 1 - ms.msvd_weyl_lower_bound(g @ N1, g2 @ N2))
