"""Tests of recordkit.measures: each measure against an independent route
(a second formula or scipy), exact hand-computed values, and invariances."""
import itertools

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.special as ssp
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit import measures as ms

SETTINGS = settings(max_examples=40, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def correlated_pair(rng, N, M, noise=1.0):
    Z = rng.standard_normal((N, M)) @ rng.standard_normal((M, M))
    W = Z @ rng.standard_normal((M, M)) + noise * rng.standard_normal((N, M))
    return Z, W


# ---------------------------------------------------------------- standardize
def test_standardize_moments_and_ddof():
    rng = np.random.default_rng(0)
    X = rng.normal(3.0, 5.0, size=(50, 4))
    Z = ms.standardize(X)
    assert np.allclose(Z.mean(0), 0, atol=1e-15)
    assert np.allclose((Z ** 2).mean(0), 1, atol=1e-14)          # ddof = 0
    assert ms.DDOF == 0
    Z1 = ms.standardize(X, ddof=1)
    assert np.allclose(Z1 * np.sqrt(50 / 49), Z, atol=1e-14)


def test_standardize_rejects_constant_column():
    X = np.column_stack([np.arange(5.0), np.full(5, 7.3)])
    with pytest.raises(ValueError, match="constant"):
        ms.standardize(X)


# ---------------------------------------------------------------- m_SVD
def test_msvd_hand_value_one_dimension():
    # M = 1: m_SVD = |Pearson r|; (1,2,3,4) vs (1,3,2,4) has r = 4/5
    assert ms.m_svd([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8, abs=1e-15)
    assert ms.m_svd([1, 2, 3, 4], [4, 2, 3, 1]) == pytest.approx(0.8, abs=1e-15)
    assert ms.d_svd([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.2, abs=1e-15)


def test_msvd_hand_value_two_dimensions():
    # z' and w' with Σ_z'w' = [[1, 0], [0, 0]]: the second coordinates are uncorrelated
    Z = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], float)
    W = np.array([[1, 1], [1, 1], [-1, -1], [-1, -1]], float)
    W[:, 1] = [1, -1, -1, 1]
    assert ms.m_svd(Z, W) == pytest.approx(0.5, abs=1e-15)


@SETTINGS
@given(seeds, st.integers(3, 60), st.integers(1, 12))
def test_msvd_equals_nbs_three_routes(seed, N, M):
    rng = np.random.default_rng(seed)
    Z, W = correlated_pair(rng, N, M)
    a = ms.m_svd(Z, W)
    Zs, Ws = ms.standardize(Z), ms.standardize(W)
    b = ms.nbs(Zs, Ws)
    c = ms.nbs_kernel(ms.linear_kernel(Zs), ms.linear_kernel(Ws))
    assert 0 <= a <= 1 + 1e-15
    assert abs(a - b) < 1e-13 and abs(a - c) < 1e-12


@SETTINGS
@given(seeds, st.integers(4, 80), st.integers(1, 8))
def test_msvd_invariances(seed, N, M):
    rng = np.random.default_rng(seed)
    Z, W = correlated_pair(rng, N, M)
    base = ms.m_svd(Z, W)
    D = np.diag(rng.choice([-1, 1], M) * rng.uniform(0.1, 10, M))
    P = np.eye(M)[rng.permutation(M)]
    # per-coordinate affine maps (sign flips included) and a shared permutation
    assert ms.m_svd(Z @ D + 3.0, W) == pytest.approx(base, abs=1e-12)
    assert ms.m_svd(Z @ P, W @ P) == pytest.approx(base, abs=1e-12)
    assert ms.m_svd(Z, W) == pytest.approx(ms.m_svd(W, Z), abs=1e-13)
    assert ms.m_svd(Z, Z) == pytest.approx(1.0, abs=1e-13)


def test_msvd_not_invariant_to_rotation_of_one_side():
    # m_SVD is the ∼L-specific measure: a general rotation mixes coordinates
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((500, 3)) * [1, 5, 20]
    Q = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    assert ms.m_svd(Z, Z @ Q) < 0.95


@SETTINGS
@given(seeds, st.integers(3, 50), st.integers(1, 8))
def test_weyl_lower_bound_lemma_e7(seed, N, M):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((N, M))
    W = Z + 10 ** rng.uniform(-3, 0.5) * rng.standard_normal((N, M))
    assert ms.m_svd(Z, W) >= ms.msvd_weyl_lower_bound(Z, W)


def test_weyl_bound_hand_value():
    Z = np.array([1.0, 2, 3, 4])
    # identical: Var[z'-w'] = 0, bound 1
    assert ms.msvd_weyl_lower_bound(Z, Z) == pytest.approx(1.0, abs=1e-15)
    # r = 0.8: Var[z'-w'] = 2(1 - r) = 0.4, bound 1 - sqrt(0.4)
    assert ms.msvd_weyl_lower_bound(Z, [1, 3, 2, 4]) == pytest.approx(1 - np.sqrt(0.4), abs=1e-14)


# ---------------------------------------------------------------- Bures, NBS
def naive_fidelity(K, L):
    """tr (K^{1/2} L K^{1/2})^{1/2} with scipy's sqrtm (an independent route)."""
    Kh = sla.sqrtm(K).real
    return float(np.trace(sla.sqrtm(Kh @ L @ Kh)).real)


def rbf(X, gamma):
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)


def test_fidelity_kernel_matches_sqrtm_on_full_rank_kernels():
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((30, 3)), rng.standard_normal((30, 4))
    K, L = rbf(X, 0.5) + 0.1 * np.eye(30), rbf(Y, 0.2) + 0.1 * np.eye(30)
    F = ms.bures_fidelity_kernel(K, L)
    assert F == pytest.approx(naive_fidelity(K, L), rel=1e-10)
    assert F == pytest.approx(ms.bures_fidelity_kernel(L, K), rel=1e-13)   # symmetric
    assert ms.bures_fidelity_kernel(K, K) == pytest.approx(np.trace(K), rel=1e-13)
    assert 0 < ms.nbs_kernel(K, L) < 1


@SETTINGS
@given(seeds, st.integers(2, 40), st.integers(1, 40), st.integers(1, 40))
def test_fidelity_feature_route_equals_kernel_route(seed, N, p, q):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((N, p)), rng.standard_normal((N, q)) * 3 + 1
    F1 = ms.bures_fidelity(X, Y)
    F2 = ms.bures_fidelity_kernel(ms.linear_kernel(X), ms.linear_kernel(Y))
    scale = np.sqrt(ms.linear_kernel(X).trace() * ms.linear_kernel(Y).trace())
    assert abs(F1 - F2) <= 1e-12 * scale


def test_kernel_route_exact_where_naive_sqrt_loses_half_the_digits():
    # N > M: rank-deficient centred Grams.  The seed's ~1e-7 came from this.
    rng = np.random.default_rng(3)
    Z, W = correlated_pair(rng, 300, 5)
    Zs, Ws = ms.standardize(Z), ms.standardize(W)
    K, L = ms.linear_kernel(Zs), ms.linear_kernel(Ws)
    exact = ms.m_svd(Z, W)
    assert abs(ms.nbs_kernel(K, L) - exact) < 1e-13
    lam, U = np.linalg.eigh(K)
    Kh = (U * np.sqrt(np.clip(lam, 0, None))) @ U.T      # keeps the round-off eigenvalues
    mu = np.linalg.eigvalsh(Kh @ L @ Kh)
    naive = np.sqrt(np.clip(mu, 0, None)).sum() / np.sqrt(K.trace() * L.trace())
    assert abs(naive - exact) > 1e-10


@SETTINGS
@given(seeds, st.integers(3, 30), st.integers(1, 6))
def test_procrustes_distance_matches_scipy(seed, N, M):
    rng = np.random.default_rng(seed)
    X, Y = correlated_pair(rng, N, M)
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    R, _ = sla.orthogonal_procrustes(Yc, Xc)
    direct = np.linalg.norm(Xc - Yc @ R)
    d = ms.procrustes_distance(X, Y)
    assert d == pytest.approx(direct, abs=1e-9 * (1 + direct))
    assert d == pytest.approx(ms.bures_distance(X, Y), abs=0)
    Kd = ms.bures_distance_kernel(ms.linear_kernel(X), ms.linear_kernel(Y))
    assert d == pytest.approx(Kd, abs=1e-9 * (1 + d))


def test_procrustes_and_angular_hand_values():
    X = np.array([[1.0, 0], [-1, 0], [0, 2], [0, -2]])
    Q = np.array([[0, -1], [1, 0.0]])
    assert ms.procrustes_distance(X, X @ Q.T + 5) == pytest.approx(0, abs=1e-7)
    # Y = 2X: min_Q ‖X - 2XQ‖ = ‖X‖_F = sqrt(10); angle 0
    assert ms.procrustes_distance(X, 2 * X) == pytest.approx(np.sqrt(10), abs=1e-12)
    assert ms.nbs(X, 2 * X) == pytest.approx(1, abs=1e-15)
    # XcᵀYc = 0 (Y spans the complement of X's columns and 1): NBS 0, angle π/2
    Y = np.array([[1.0], [1], [-1], [-1]])
    assert ms.nbs(X, Y) == pytest.approx(0, abs=1e-15)
    assert ms.angular_shape_distance(X, Y) == pytest.approx(np.pi / 2, abs=1e-15)
    assert ms.procrustes_distance(X, Y) == pytest.approx(np.sqrt(10 + 4), abs=1e-14)


@SETTINGS
@given(seeds, st.integers(3, 25), st.integers(1, 5))
def test_shape_distances_invariances_and_triangle(seed, N, M):
    rng = np.random.default_rng(seed)
    X, Y = correlated_pair(rng, N, M)
    Z = rng.standard_normal((N, M))
    Q = np.linalg.qr(rng.standard_normal((M, M)))[0]
    s = rng.uniform(0.1, 10)
    assert ms.nbs(X, s * Y @ Q + 2) == pytest.approx(ms.nbs(X, Y), abs=1e-12)
    assert ms.procrustes_distance(X, Y @ Q - 1) == pytest.approx(ms.procrustes_distance(X, Y), abs=1e-9)
    for dist in (ms.procrustes_distance, ms.angular_shape_distance):
        assert dist(X, Z) <= dist(X, Y) + dist(Y, Z) + 1e-9


# ---------------------------------------------------------------- CCA, CKA
def cca_generalized_eig(X, Y):
    """Canonical correlations from Σxy Σyy⁻¹ Σyx u = ρ² Σxx u (scipy.linalg.eigh)."""
    X, Y = X - X.mean(0), Y - Y.mean(0)
    Sxx, Syy, Sxy = X.T @ X, Y.T @ Y, X.T @ Y
    A = Sxy @ np.linalg.solve(Syy, Sxy.T)
    rho2 = sla.eigh(0.5 * (A + A.T), Sxx, eigvals_only=True)[::-1]
    return np.sqrt(np.clip(rho2[: min(X.shape[1], Y.shape[1])], 0, 1))


@SETTINGS
@given(seeds, st.integers(20, 200), st.integers(1, 5), st.integers(1, 5))
def test_cca_matches_generalized_eigenproblem(seed, N, p, q):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, p))
    Y = X @ rng.standard_normal((p, q)) + rng.standard_normal((N, q))
    ours = ms.canonical_correlations(X, Y)
    assert np.allclose(ours, cca_generalized_eig(X, Y), atol=1e-9)
    assert ms.mean_cca(X, Y) == pytest.approx(ours.mean(), abs=0)


def test_cca_hand_values_and_invariance():
    x = np.array([1.0, 2, 3, 4])
    assert ms.canonical_correlations(x, [1, 3, 2, 4]) == pytest.approx([0.8], abs=1e-15)
    rng = np.random.default_rng(4)
    X = rng.standard_normal((100, 3))
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    assert ms.canonical_correlations(X, X @ A + 7) == pytest.approx([1, 1, 1], abs=1e-12)
    Y = rng.standard_normal((100, 2))
    B = np.array([[2.0, 1], [0, -3]])
    assert ms.canonical_correlations(X @ A - 1, Y @ B) == pytest.approx(
        ms.canonical_correlations(X, Y), abs=1e-12)
    # rank-deficient X: a duplicated column counts once
    Xd = np.column_stack([X[:, 0], X[:, 0], X[:, 1]])
    assert len(ms.canonical_correlations(Xd, X)) == 2


def hsic_cka(X, Y):
    N = X.shape[0]
    H = np.eye(N) - 1 / N
    K, L = X @ X.T, Y @ Y.T
    hsic = lambda A, B: np.trace(A @ H @ B @ H)  # noqa: E731
    return hsic(K, L) / np.sqrt(hsic(K, K) * hsic(L, L))


@SETTINGS
@given(seeds, st.integers(3, 40), st.integers(1, 6), st.integers(1, 6))
def test_linear_cka_feature_form_equals_hsic_form(seed, N, p, q):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((N, p)), rng.standard_normal((N, q))
    assert ms.linear_cka(X, Y) == pytest.approx(hsic_cka(X, Y), abs=1e-12)


def test_linear_cka_invariances():
    rng = np.random.default_rng(5)
    X, Y = correlated_pair(rng, 60, 4)
    Q = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    assert ms.linear_cka(X, X) == pytest.approx(1, abs=1e-14)
    assert ms.linear_cka(X, 3 * Y @ Q + 1) == pytest.approx(ms.linear_cka(X, Y), abs=1e-13)
    G = np.diag([1, 1, 1, 30.0])
    assert abs(ms.linear_cka(X, Y @ G) - ms.linear_cka(X, Y)) > 1e-3   # not GL-invariant


# ---------------------------------------------------------------- d_KL
def test_log_softmax_stable_and_idempotent():
    Z = np.array([[1000.0, 0, -1000], [1, 2, 3]])
    lp = ms.log_softmax(Z)
    assert np.isfinite(lp).all()
    assert lp[0, 0] == 0 and lp[0, 1] == -1000
    assert np.allclose(ms.log_softmax(lp), lp, atol=1e-13)
    assert np.allclose(lp[1], Z[1] - ssp.logsumexp(Z[1]), atol=1e-15)


@SETTINGS
@given(seeds, st.integers(1, 30), st.integers(2, 8))
def test_d_kl_matches_scipy_rel_entr(seed, N, K):
    rng = np.random.default_rng(seed)
    A, B = 3 * rng.standard_normal((N, K)), 3 * rng.standard_normal((N, K))
    p, q = ssp.softmax(A, axis=1), ssp.softmax(B, axis=1)
    expected = ssp.rel_entr(p, q).sum(axis=1).mean()
    assert ms.d_kl(A, B) == pytest.approx(expected, rel=1e-10, abs=1e-14)
    w = rng.uniform(size=N)
    assert ms.d_kl(A, B, weights=w) == pytest.approx(
        (ssp.rel_entr(p, q).sum(axis=1) * w).sum() / w.sum(), rel=1e-10, abs=1e-14)
    # per-input shifts of the logits leave p(y|x) unchanged
    assert ms.d_kl(A + rng.normal(size=(N, 1)), B) == pytest.approx(ms.d_kl(A, B), rel=1e-10, abs=1e-14)
    assert ms.d_kl(A, A) == 0


def test_d_kl_hand_value_and_models():
    # p = (1/2, 1/2), q = (e/(1+e), 1/(1+e)) for logits (1, 0)
    val = ms.d_kl([[0.0, 0.0]], [[1.0, 0.0]])
    q1 = np.e / (1 + np.e)
    assert val == pytest.approx(0.5 * np.log(0.5 / q1) + 0.5 * np.log(0.5 / (1 - q1)), abs=1e-15)
    f, g = np.array([[1.0, 0]]), np.array([[1.0, 0], [0, 0]])
    assert ms.d_kl_models(g[:1] * 0, g, f, g) == pytest.approx(val, abs=1e-15)


# ---------------------------------------------------------------- d_LLV
def models(rng, N=80, K=6, M=2, sigma=0.3):
    f, g = rng.standard_normal((N, M)), 1.5 * rng.standard_normal((K, M))
    return (f, g), (f + sigma * rng.standard_normal((N, M)), g + sigma * rng.standard_normal((K, M)))


def llv_loops(lp, lq, y0, labels, x0, xs, lam, ddof=1):
    """d_LLV written out with loops and ddof = 1, as in the authors' code."""
    sd = lambda v: np.std(v, ddof=ddof)  # noqa: E731
    t1 = t3 = t2 = t4 = 0.0
    for y in labels:
        if y == y0:
            continue
        a, b = sd(lp[:, y] - lp[:, y0]), sd(lq[:, y] - lq[:, y0])
        t1 = max(t1, sd(lp[:, y] / a - lq[:, y] / b), sd(lp[:, y0] / a - lq[:, y0] / b))
        t3 = max(t3, abs(a - b))
    for x in xs:
        a, b = sd(lp[x] - lp[x0]), sd(lq[x] - lq[x0])
        t2 = max(t2, sd(lp[x] / a - lq[x] / b), sd(lp[x0] / a - lq[x0] / b))
        t4 = max(t4, abs(a - b))
    return max(t1, t2, lam * t3, lam * t4), t1, t2, t3, t4


def test_d_llv_matches_loop_implementation_and_ddof_invariance():
    rng = np.random.default_rng(6)
    (f, g), (f2, g2) = models(rng)
    P, Q = ms.logits(f, g), ms.logits(f2, g2)
    lp, lq = ssp.log_softmax(P, axis=1), ssp.log_softmax(Q, axis=1)
    r = ms.d_llv(P, Q, y_pivot=2, left_out=5, x_pivot=7, x_set=[3, 11], lam=0.3)
    d0 = llv_loops(lp, lq, 2, [0, 1, 2, 3, 4], 7, [3, 11], 0.3, ddof=0)
    d1 = llv_loops(lp, lq, 2, [0, 1, 2, 3, 4], 7, [3, 11], 0.3, ddof=1)
    assert np.allclose(r, d0, rtol=1e-12, atol=0)
    # t1, t2 are ratios of moments: the same with ddof = 1; t3 scales by sqrt(N/(N-1))
    assert r.t1 == pytest.approx(d1[1], rel=1e-12) and r.t2 == pytest.approx(d1[2], rel=1e-12)
    assert r.t3 == pytest.approx(d1[3] * np.sqrt(79 / 80), rel=1e-12)
    assert r.t4 == pytest.approx(d1[4] * np.sqrt(5 / 6), rel=1e-12)


def test_d_llv_zero_on_the_identifiability_class_and_positive_off_it():
    rng = np.random.default_rng(7)
    (f, g), (f2, g2) = models(rng)
    B = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    fB, gB = f @ B.T, g @ np.linalg.inv(B) + rng.normal(size=2)
    kw = dict(y_pivot=0, left_out=5, x_pivot=0, x_set=[1, 2])
    assert ms.d_llv(ms.logits(f, g), ms.logits(fB, gB), **kw).d < 1e-12
    assert ms.d_llv(ms.logits(f, g), ms.logits(f2, g2), **kw).d > 1e-2


@SETTINGS
@given(seeds)
def test_d_llv_is_symmetric_and_satisfies_triangle_inequality(seed):
    rng = np.random.default_rng(seed)
    (f, g), (f2, g2) = models(rng)
    f3, g3 = f + 0.5 * rng.standard_normal(f.shape), g + 0.5 * rng.standard_normal(g.shape)
    P, Q, R = ms.logits(f, g), ms.logits(f2, g2), ms.logits(f3, g3)
    kw = dict(y_pivot=1, left_out=0, x_pivot=4, x_set=[5, 6], lam=0.5)
    pq, qp = ms.d_llv(P, Q, **kw).d, ms.d_llv(Q, P, **kw).d
    assert pq == pytest.approx(qp, rel=1e-12)
    assert ms.d_llv(P, R, **kw).d <= pq + ms.d_llv(Q, R, **kw).d + 1e-12


def test_llv_choose_labels_is_the_brute_force_minimum():
    rng = np.random.default_rng(8)
    (f, g), (f2, g2) = models(rng, K=5)
    P, Q = ms.logits(f, g), ms.logits(f2, g2)
    lp, lq = ssp.log_softmax(P, axis=1), ssp.log_softmax(Q, axis=1)
    best = min((llv_loops(lp, lq, y0, [y for y in range(5) if y != lo], 0, [], 0)[1], y0, lo)
               for y0, lo in itertools.permutations(range(5), 2))
    assert ms.llv_choose_labels(P, Q) == (best[1], best[2])


def test_llv_choose_inputs_is_the_minimum_over_its_candidates():
    rng = np.random.default_rng(9)
    (f, g), (f2, g2) = models(rng, N=90)
    P, Q = ms.logits(f, g), ms.logits(f2, g2)
    lp, lq = ssp.log_softmax(P, axis=1), ssp.log_softmax(Q, axis=1)
    x0, xs = ms.llv_choose_inputs(P, Q, 2, np.random.default_rng(1), n_candidates=30)
    cand = np.random.default_rng(1).choice(90, 90, replace=False).reshape(30, 3)
    t2 = [llv_loops(lp, lq, 0, [0], c[0], c[1:], 0)[2] for c in cand]
    c = cand[int(np.argmin(t2))]
    assert (x0, xs) == (c[0], list(c[1:]))


# ---------------------------------------------------------------- d_f,g
def test_d_fg_zero_on_identifiability_class_and_bounded():
    rng = np.random.default_rng(10)
    f, g = rng.standard_normal((60, 3)), rng.standard_normal((7, 3))
    B = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    fB, gB = f @ B.T, g @ np.linalg.inv(B) + 1.0
    kw = dict(y_pivot=0, y_basis=[1, 2, 3], x_pivot=0, x_basis=[1, 2, 3])
    assert ms.d_fg(f, g, fB, gB, **kw).d == pytest.approx(0, abs=1e-12)
    r = ms.d_fg(f, g, rng.standard_normal((60, 3)), rng.standard_normal((7, 3)), **kw)
    assert 0.05 < r.d <= 1 and r.d == max(r.d_f, r.d_g)


def test_d_fg_f_part_is_d_svd_of_log_odds():
    rng = np.random.default_rng(11)
    (f, g), (f2, g2) = models(rng, K=6, M=2)
    r = ms.d_fg(f, g, f2, g2, y_pivot=3, y_basis=[0, 5], x_pivot=1, x_basis=[2, 9])
    lp, lq = ms.log_softmax(ms.logits(f, g)), ms.log_softmax(ms.logits(f2, g2))
    odds_p, odds_q = lp[:, [0, 5]] - lp[:, [3]], lq[:, [0, 5]] - lq[:, [3]]
    assert r.d_f == pytest.approx(ms.d_svd(odds_p, odds_q), abs=1e-12)
    mx = ms.d_fg_max_over_label_bases(f, g, f2, g2, y_pivot=3, labels=[0, 1, 2, 3, 5],
                                      x_pivot=1, x_basis=[2, 9])
    assert mx.d_f >= r.d_f and mx.d_g == pytest.approx(r.d_g, abs=0)


# ---------------------------------------------------------------- relative representations
def test_relative_representation_hand_value():
    r = ms.relative_representation([[2.0, 0]], [[1.0, 0], [0, 3], [1, 1]])
    assert r == pytest.approx(np.array([[1, 0, 1 / np.sqrt(2)]]), abs=1e-15)


@SETTINGS
@given(seeds, st.integers(2, 40), st.integers(1, 10))
def test_relative_representation_invariances(seed, D, A):
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((30, D))
    anchors = rng.standard_normal((A, D))
    r = ms.relative_representation(E, anchors)
    Q = np.linalg.qr(rng.standard_normal((D, D)))[0]
    s = rng.uniform(0.01, 100)
    assert np.abs(ms.relative_representation(s * E @ Q.T, s * anchors @ Q.T) - r).max() < 1e-12
    c, ca = rng.uniform(0.01, 100, (30, 1)), rng.uniform(0.01, 100, (A, 1))
    assert np.abs(ms.relative_representation(c * E, ca * anchors) - r).max() < 1e-12


def test_knn_jaccard_mrr_cosine_hand_values():
    R1 = np.array([[1.0, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]])
    assert ms.knn_jaccard(R1, R1, k=1) == 1.0 and ms.mrr(R1, R1) == 1.0
    assert ms.mean_cosine(R1, 2 * R1) == pytest.approx(1, abs=1e-15)
    # swap the roles of the two clusters' members: nearest neighbours change
    R2 = R1[[0, 2, 1, 3]]
    # 1-NN sets in R1: {1},{0},{3},{2}; in R2: rows are 0:(1,0),1:(0,1),2:(.9,.1),3:(.1,.9)
    # -> {2},{3},{0},{1}: Jaccard 0 for every sample
    assert ms.knn_jaccard(R1, R2, k=1) == 0.0
    # MRR by hand: sample 1 = (.9,.1) has counterpart (0,1), beaten by (1,0), (.9,.1),
    # (.1,.9): rank 4; sample 2 = (0,1) has counterpart (.9,.1), beaten by (0,1), (.1,.9):
    # rank 3; samples 0 and 3 keep their own vectors: rank 1
    assert ms.mrr(R1, R2) == pytest.approx((1 + 1 / 4 + 1 / 3 + 1) / 4, abs=1e-15)


def test_weights_equal_repeated_rows():
    rng = np.random.default_rng(12)
    (f, g), (f2, g2) = models(rng, N=30, K=5)
    counts = rng.integers(1, 4, size=30)
    rep = np.repeat(np.arange(30), counts)
    P, Q = ms.logits(f, g), ms.logits(f2, g2)
    kw = dict(y_pivot=1, left_out=4, lam=0.7)
    a = ms.d_llv(P, Q, x_pivot=0, x_set=[1, 2], weights=counts, **kw)
    # rows 0, 1, 2 of the expanded arrays are copies of inputs 0, 0 or 1, ...: use first copies
    first = {i: int(np.argmax(rep == i)) for i in range(3)}
    b = ms.d_llv(P[rep], Q[rep], x_pivot=first[0], x_set=[first[1], first[2]], **kw)
    assert np.allclose(a, b, rtol=1e-12, atol=1e-15)
    assert ms.d_kl(P, Q, weights=counts) == pytest.approx(ms.d_kl(P[rep], Q[rep]), rel=1e-12)
    assert ms.llv_choose_labels(P, Q, weights=counts) == ms.llv_choose_labels(P[rep], Q[rep])
