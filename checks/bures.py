"""Numeric checks on m_SVD (Nielsen et al. Def. 4.5): its identity with the
normalized Bures similarity (NOTE-738's reading, via Harvey et al. 2024) and
the Weyl lower bound of Lemma E.7.

Imports only numpy and recordkit.measures; prints nothing at import time.
"""
import numpy as np

from recordkit import check
from recordkit import measures as ms

#: (N samples, M dimensions) of the random pairs: N < M and N > M
SHAPES = [(6, 40), (12, 25), (40, 12), (150, 5), (300, 3)]


def _pair(rng, N, M):
    """A correlated random pair (Z, W) of (N, M) representations."""
    Z = rng.standard_normal((N, M)) @ rng.standard_normal((M, M))
    mix = rng.uniform(0.0, 2.0)
    W = mix * Z @ rng.standard_normal((M, M)) + rng.standard_normal((N, M)) * rng.uniform(0.1, 3)
    W += rng.normal(size=M) * 5.0           # an offset, removed by the centring
    return Z, W


@check("msvd-equals-nbs", tolerance=1e-12,
       claim="m_SVD (the mean singular value of the cross-covariance of the "
             "per-coordinate standardized representations) equals the normalized "
             "Bures similarity of the centred linear kernels of those standardized "
             "coordinates, computed independently on the N×N Gram matrices, to "
             "float64 round-off, for N < M and N > M")
def msvd_equals_nbs(rng):
    """Two independent routes, several random pairs per shape.

    Route 1 (features): SVD of the M×M matrix Z'ᵀW'/N, mean singular value.
    Route 2 (kernels): K = H Z'Z'ᵀ H, L = H W'W'ᵀ H (N×N); F(K, L) =
    tr (K^{1/2} L K^{1/2})^{1/2} computed from eigen-factors K = AAᵀ, L = BBᵀ
    as ‖AᵀB‖_* with round-off eigenvalues dropped; NBS = F / sqrt(tr K tr L).
    Returns the largest |route 1 − route 2| per shape.  (A square root of the
    kernel that keeps round-off eigenvalues — the seed's script — agrees only
    to ~1e-7 for N > M; see tests/test_example_checks.py.)
    """
    out = {}
    for N, M in SHAPES:
        worst = 0.0
        for _ in range(3):
            Z, W = _pair(rng, N, M)
            a = ms.m_svd(Z, W)
            K = ms.center_kernel(ms.linear_kernel(ms.standardize(Z), center_features=False))
            L = ms.center_kernel(ms.linear_kernel(ms.standardize(W), center_features=False))
            b = ms.nbs_kernel(K, L)
            worst = max(worst, abs(a - b))
        out[f"N={N},M={M}"] = worst
    return out


#: how many non-vacuous pairs (bound > 0) the Weyl check must see
MIN_NONVACUOUS = 50


@check("msvd-weyl-lower-bound", tolerance=0.0,
       claim="Lemma E.7 of Nielsen et al.: for standardized z', w' in R^M, "
             "m_SVD(z, w) >= 1 - sqrt(M * sum_l Var[z'_l - w'_l]), on random "
             "pairs from unrelated to nearly equal (where the bound is positive)")
def msvd_weyl_lower_bound(rng):
    """Violation max(0, bound − m_SVD) over 240 random pairs.

    Pairs W = Z·(I + εE) + η·noise with ε, η log-uniform over [1e-6, 3], so
    that many pairs are nearly equal (bound > 0, i.e. non-vacuous) and many
    are far apart; N from 5 to 400, M from 1 to 12 (N < M included).
    ``nonvacuous_shortfall`` is max(0, 50 − #pairs with a positive bound):
    the check fails if too few pairs test anything.  Exactly equal pairs are
    avoided (ε, η ≥ 1e-6): there the bound is 1 and m_SVD = 1 ± 1e-16 and the
    comparison is about round-off, not the lemma; at ε, η ~ 1e-6 the slack
    m_SVD − bound is ~1e-6, ten orders above round-off.  The slack is first
    order in the perturbation (the bound is loose), so the check detects an
    error δ in m_SVD only where some pair's slack is below δ: the smallest
    slack is ~1e-6 (``msvd_weyl_lower_bound.last``).
    """
    worst, nonvacuous, min_slack = 0.0, 0, np.inf
    for i in range(240):
        M = int(rng.integers(1, 13))
        N = int(rng.choice([5, 8, 20, 60, 400]))
        Z = rng.standard_normal((N, M)) @ rng.standard_normal((M, M)) + rng.normal(size=M)
        eps, eta = 10 ** rng.uniform(-6, np.log10(3), size=2)
        W = Z @ (np.eye(M) + eps * rng.standard_normal((M, M))) + eta * rng.standard_normal((N, M))
        W = W * rng.uniform(0.1, 10, size=M)      # per-coordinate scale: standardized away
        try:
            m = ms.m_svd(Z, W)
            bound = ms.msvd_weyl_lower_bound(Z, W)
        except ValueError:                         # a (vanishingly unlikely) constant column
            continue
        if bound > 0:
            nonvacuous += 1
        min_slack = min(min_slack, m - bound)
        worst = max(worst, bound - m)
    msvd_weyl_lower_bound.last = {"nonvacuous": nonvacuous, "min_slack": float(min_slack)}
    return {"max_violation": max(0.0, worst),
            "nonvacuous_shortfall": float(max(0, MIN_NONVACUOUS - nonvacuous))}
