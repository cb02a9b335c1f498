"""Representational-similarity and distributional measures, in plain numpy.

These are the quantities the example record's numeric checks (``checks/``)
compute: the mean-SVD similarity of Nielsen et al. (2025), Bures and shape
distances, CCA, CKA, the KL and log-likelihood-variance distances between
softmax models, and Moschella et al.'s relative representations.

Conventions (used by every function below)
------------------------------------------
* **Rows are samples, columns are dimensions.**  A representation is an
  ``(N, M)`` array: N inputs (or labels), M coordinates.  A softmax model's
  conditional distribution is an ``(N, K)`` array of logits or
  log-probabilities: row = input x, column = label y.
* **Variances and covariances are population moments (ddof = 0)**, i.e. they
  divide by N; ``DDOF = 0`` below.  ``standardize`` divides each centred
  column by its ddof-0 standard deviation, so a standardized column has mean
  0 and ``mean(z**2) == 1``, and the cross-covariance of standardized
  coordinates is ``Z'.T @ W' / N``, a matrix of Pearson correlations.
  Every quantity that is a ratio of moments (correlations, m_SVD, NBS, CCA,
  CKA, the t1/t2 terms of d_LLV) is unchanged by the choice of ddof; those
  that are not (the ψ differences t3/t4 of d_LLV) follow this convention,
  whereas Nielsen et al.'s code uses ddof = 1 — a factor sqrt(N/(N-1)) on
  terms that d_LLV weights by λ = 1e-5.
* Optional ``weights`` (a probability vector over the N inputs, p_D(x))
  replace the uniform empirical distribution where a function accepts them.
* Kernels are ``(N, N)`` symmetric PSD arrays; "centred" means H K H with
  H = I - 11ᵀ/N.

Sources
-------
[N] Nielsen, Marconato, Dittadi, Gresele (2025), "When Does Closeness in
    Distribution Imply Representational Similarity? An Identifiability
    Perspective", arXiv:2506.03784 (Def. 4.4 d_LLV, Def. 4.5 m_SVD/d_SVD,
    Def. 4.6 d_f,g, Lemma E.7, Thm 2.2, Thm 3.1).  Where the paper leaves a
    detail open (which labels enter t1, how pivots are chosen), we follow the
    authors' public code (github.com/bemigini/close-dist-rep-sim,
    src/dissimilarity_measures/) and say so.
[H] Harvey, Lipshutz, Williams (2024), "Duality of Bures and shape distances
    with implications for comparing neural representations" (Bures
    fidelity of linear kernels = nuclear norm of the cross-product; NBS =
    cosine of the angular shape distance).
[W] Williams, Kunz, Kornblith, Linderman (2021), "Generalized shape metrics
    on neural representations" (Procrustes and angular shape distances).
[K] Kornblith, Norouzi, Lee, Hinton (2019), "Similarity of neural network
    representations revisited" (linear CKA, eq. for HSIC).
[M] Moschella et al. (2023), "Relative representations enable zero-shot
    latent space communication", ICLR (eqs. 2-3; Table 1 metrics Jaccard,
    MRR, cosine).
[Ho] Hotelling (1936); Björck & Golub (1973) for canonical correlations as
    cosines of principal angles between column spaces.
"""
from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

__all__ = [
    "DDOF", "center", "standardize", "center_kernel", "linear_kernel",
    "cross_covariance", "m_svd", "d_svd", "msvd_weyl_lower_bound",
    "psd_factor", "bures_fidelity", "bures_fidelity_kernel", "bures_distance",
    "bures_distance_kernel", "nbs", "nbs_kernel", "procrustes_distance",
    "angular_shape_distance", "canonical_correlations", "mean_cca",
    "linear_cka", "log_softmax", "logits", "d_kl", "d_kl_models",
    "LLV", "d_llv", "llv_choose_labels", "llv_choose_inputs", "DFG", "d_fg",
    "d_fg_max_over_label_bases",
    "cosine_similarity", "relative_representation", "mean_cosine",
    "knn_jaccard", "mrr",
]

#: the single ddof convention of this module (population moments)
DDOF = 0
_EPS = np.finfo(float).eps


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def _as_2d(X, name="X") -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (rows = samples), got shape {X.shape}")
    return X


def _same_rows(X, Y):
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same number of rows (samples): "
                         f"{X.shape[0]} != {Y.shape[0]}")


def _weights(w, n):
    if w is None:
        return None
    w = np.asarray(w, dtype=float).ravel()
    if w.shape != (n,) or np.any(w < 0) or not np.isfinite(w).all():
        raise ValueError("weights must be a non-negative vector with one entry per row")
    return w / w.sum()


def _wmean(A, w, axis=0):
    return A.mean(axis=axis) if w is None else np.tensordot(w, A, axes=(0, axis))


def _wstd(A, w, axis=0):
    """Standard deviation along ``axis`` (ddof = DDOF, or weighted)."""
    if w is None:
        return A.std(axis=axis, ddof=DDOF)
    mu = _wmean(A, w, axis)
    return np.sqrt(np.maximum(_wmean((A - np.expand_dims(mu, axis)) ** 2, w, axis), 0.0))


# --------------------------------------------------------------------------
# centring, standardization, kernels
# --------------------------------------------------------------------------
def center(X) -> np.ndarray:
    """Subtract each column's mean: X - 1 mean(X)ᵀ."""
    X = _as_2d(X)
    return X - X.mean(axis=0)


def standardize(X, ddof: int = DDOF) -> np.ndarray:
    """Centre each column and scale it to unit variance.

    z'_l = (z_l - E[z_l]) / sqrt(Var[z_l]) with Var the ddof-``ddof``
    variance (default ddof = 0, so ``mean(z'_l**2) == 1``).  This is the
    per-coordinate standardization of Nielsen et al. Def. 4.5 (the S, S'
    diagonal standardizers of their eq. 234).  Raises ``ValueError`` for a
    constant column (standard deviation ≤ 1e-12 × its root mean square),
    whose standardization is undefined.
    """
    raw = _as_2d(X)
    N = raw.shape[0]
    if N - ddof <= 0:
        raise ValueError("standardize: too few rows")
    X = raw - raw.mean(axis=0)
    sd = np.sqrt(np.einsum("ij,ij->j", X, X) / (N - ddof))
    # a column whose spread is below 1e-12 of its magnitude is constant up to
    # round-off (the centring error alone is ~ε·|mean|·log N)
    rms = np.sqrt(np.einsum("ij,ij->j", raw, raw) / N)
    if np.any(~(sd > 1e-12 * rms)):
        raise ValueError("standardize: a column is constant (zero variance)")
    return X / sd


def center_kernel(K) -> np.ndarray:
    """H K H with H = I - 11ᵀ/N (double centring of an N×N kernel)."""
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("a kernel must be a square matrix")
    Kc = K - K.mean(axis=0, keepdims=True)
    Kc = Kc - Kc.mean(axis=1, keepdims=True)
    return 0.5 * (Kc + Kc.T)


def linear_kernel(X, center_features: bool = True) -> np.ndarray:
    """Linear kernel (Gram matrix) K = Xc Xcᵀ of the rows of X (centred by default)."""
    X = center(X) if center_features else _as_2d(X)
    K = X @ X.T
    return 0.5 * (K + K.T)


def cross_covariance(X, Y) -> np.ndarray:
    """Σ_XY = Xcᵀ Yc / N (ddof 0); an (Mx, My) matrix."""
    X, Y = center(X), center(Y)
    _same_rows(X, Y)
    return X.T @ Y / X.shape[0]


# --------------------------------------------------------------------------
# Nielsen et al.: m_SVD, d_SVD, Lemma E.7
# --------------------------------------------------------------------------
def m_svd(Z, W) -> float:
    """Mean singular value of the cross-covariance of standardized coordinates.

    m_SVD(z, w) = (1/M) Σ_i σ_i(Σ_{z'w'}),  Σ_{z'w'} = Z'ᵀW'/N,
    with Z' = standardize(Z), W' = standardize(W), both (N, M).
    Nielsen et al., Def. 4.5 (there written (1/M) Σ_i Cov[u_iᵀz', v_iᵀw'] with
    u_i, v_i the singular vectors, i.e. the PLS-SVD covariances).  Computed
    here directly by an SVD of the M×M matrix; invariant to ddof.
    """
    Z, W = _as_2d(Z, "Z"), _as_2d(W, "W")
    _same_rows(Z, W)
    if Z.shape[1] != W.shape[1]:
        raise ValueError("m_svd compares two M-dimensional representations: "
                         f"got {Z.shape[1]} and {W.shape[1]} columns")
    C = standardize(Z).T @ standardize(W) / Z.shape[0]
    return float(np.linalg.svd(C, compute_uv=False).sum() / Z.shape[1])


def d_svd(Z, W) -> float:
    """d_SVD(z, w) = 1 - m_SVD(z, w)  (Nielsen et al., Def. 4.5)."""
    return 1.0 - m_svd(Z, W)


def msvd_weyl_lower_bound(Z, W) -> float:
    """Lower bound of Lemma E.7 (Nielsen et al.): 1 - sqrt(M Σ_l Var[z'_l - w'_l]).

    For standardized z', w' in R^M, m_SVD(z, w) ≥ 1 - sqrt(M Σ_l Var[z'_l - w'_l]).
    (Proof sketch: Σ_{z'w'} = Σ_{z'z'} - E[z'(z'-w')ᵀ]; Σ_{z'z'} is PSD with
    unit diagonal, so its singular values average 1; Weyl's inequality and
    Cauchy-Schwarz bound the perturbation's spectral norm by the square root.)
    The bound is vacuous (≤ 0) unless M Σ_l Var[z'_l - w'_l] < 1.
    """
    Z, W = _as_2d(Z, "Z"), _as_2d(W, "W")
    _same_rows(Z, W)
    D = standardize(Z) - standardize(W)
    return float(1.0 - np.sqrt(Z.shape[1] * D.var(axis=0, ddof=DDOF).sum()))


# --------------------------------------------------------------------------
# Bures fidelity / distance / NBS; Procrustes and angular shape distances
# --------------------------------------------------------------------------
def psd_factor(K, rtol: float | None = None) -> np.ndarray:
    """A factor A (N × r) with K = A Aᵀ, from the eigendecomposition of K.

    K is symmetrized, eigenvalues λ_i ≤ rtol · λ_max (default rtol = 10·N·ε)
    — round-off around a true zero, including small negative ones — are
    treated as exactly zero and their eigenvectors dropped; A = U_r Λ_r^{1/2}.
    Dropping (rather than square-rooting) the round-off eigenvalues is what
    makes kernel-route fidelities exact to round-off for rank-deficient
    kernels: sqrt(ε λ_max) ≈ 1e-8 λ_max^{1/2} components in the null space
    of K would otherwise meet the range of the other kernel and add
    O(1e-8) to the fidelity.  The price: a genuine eigenvalue λ below the
    threshold is lost, changing F(K, L) by at most about sqrt(λ·λ_max(L))
    ≤ sqrt(rtol·λ_max(K)·λ_max(L)) — for such a kernel the fidelity is in
    any case determined by the floating-point K only to that order.
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("a kernel must be a square matrix")
    lam, U = np.linalg.eigh(0.5 * (K + K.T))
    top = max(lam[-1], 0.0) if lam.size else 0.0
    if rtol is None:
        rtol = 10 * K.shape[0] * _EPS
    keep = lam > rtol * top
    return U[:, keep] * np.sqrt(lam[keep])


def _nuclear(A) -> float:
    return float(np.linalg.svd(A, compute_uv=False).sum()) if A.size else 0.0


def bures_fidelity(X, Y, center_features: bool = True) -> float:
    """Bures fidelity of the linear kernels of X and Y: F = ‖XcᵀYc‖_*.

    For K = XcXcᵀ, L = YcYcᵀ, F(K, L) = tr (K^{1/2} L K^{1/2})^{1/2} equals the
    nuclear norm (sum of singular values) of the cross-product XcᵀYc
    (Harvey et al. 2024, Thm 1 / eq. 7).  X: (N, Mx), Y: (N, My).
    """
    X = center(X) if center_features else _as_2d(X)
    Y = center(Y) if center_features else _as_2d(Y, "Y")
    _same_rows(X, Y)
    return _nuclear(X.T @ Y)


def bures_fidelity_kernel(K, L, rtol: float | None = None) -> float:
    """Bures fidelity of two PSD kernels: F(K, L) = tr (K^{1/2} L K^{1/2})^{1/2}.

    Computed without any matrix square root of a product: factor K = AAᵀ,
    L = BBᵀ (``psd_factor``); then K^{1/2} L K^{1/2} has the same nonzero
    spectrum as (AᵀB)(AᵀB)ᵀ, so F = ‖AᵀB‖_*.  Exact to round-off, also for
    rank-deficient kernels (Bhatia, Jain, Lim 2019 for the fidelity).
    """
    A, B = psd_factor(K, rtol), psd_factor(L, rtol)
    if A.shape[0] != B.shape[0]:
        raise ValueError("kernels must have the same size")
    return _nuclear(A.T @ B)


def bures_distance(X, Y, center_features: bool = True) -> float:
    """Bures distance of linear kernels: sqrt(tr K + tr L - 2 F(K, L)).

    With K = XcXcᵀ, L = YcYcᵀ this equals the Procrustes size-and-shape
    distance min_Q ‖Xc - YcQ‖_F (Harvey et al. 2024, Thm 1).
    """
    X = center(X) if center_features else _as_2d(X)
    Y = center(Y) if center_features else _as_2d(Y, "Y")
    _same_rows(X, Y)
    sq = (X * X).sum() + (Y * Y).sum() - 2 * _nuclear(X.T @ Y)
    return float(np.sqrt(max(sq, 0.0)))


def bures_distance_kernel(K, L, rtol: float | None = None) -> float:
    """Bures distance of PSD kernels: sqrt(tr K + tr L - 2 F(K, L))."""
    sq = np.trace(K) + np.trace(L) - 2 * bures_fidelity_kernel(K, L, rtol)
    return float(np.sqrt(max(sq, 0.0)))


def nbs(X, Y, center_features: bool = True) -> float:
    """Normalized Bures similarity of linear kernels: ‖XcᵀYc‖_* / sqrt(tr XcᵀXc · tr YcᵀYc).

    NBS = F(K, L) / sqrt(tr K tr L) ∈ [0, 1] (Harvey et al. 2024, eq. 7: the
    cosine of the angular shape distance).  For standardized X, Y with M
    columns each, tr K = tr L = N·M and NBS = m_SVD (NOTE-738's identity).
    """
    X = center(X) if center_features else _as_2d(X)
    Y = center(Y) if center_features else _as_2d(Y, "Y")
    _same_rows(X, Y)
    den = np.sqrt((X * X).sum() * (Y * Y).sum())
    if den == 0:
        raise ValueError("nbs: a representation is constant")
    return float(_nuclear(X.T @ Y) / den)


def nbs_kernel(K, L, rtol: float | None = None) -> float:
    """NBS of PSD kernels: F(K, L) / sqrt(tr K · tr L), via ``bures_fidelity_kernel``."""
    den = np.sqrt(np.trace(K) * np.trace(L))
    if not den > 0:
        raise ValueError("nbs_kernel: a kernel has zero trace")
    return float(bures_fidelity_kernel(K, L, rtol) / den)


def procrustes_distance(X, Y, center_features: bool = True) -> float:
    """Procrustes (size-and-shape) distance min over orthogonal Q of ‖Xc - YcQ‖_F.

    = sqrt(‖Xc‖_F² + ‖Yc‖_F² - 2‖XcᵀYc‖_*) (Williams et al. 2021 with α = 1,
    no whitening; equal to the Bures distance of the linear kernels, Harvey
    et al. 2024).  If the widths differ, the narrower side is zero-padded.
    """
    return bures_distance(X, Y, center_features)


def angular_shape_distance(X, Y, center_features: bool = True) -> float:
    """Angular (Riemannian) shape distance: arccos( ‖XcᵀYc‖_* / (‖Xc‖_F ‖Yc‖_F) ).

    Williams et al. 2021 (eq. for θ with α = 1); = arccos NBS (Harvey et al.
    2024).  In [0, π/2]; 0 iff Yc = s·Xc·Q for s > 0, Q orthogonal.
    """
    return float(np.arccos(np.clip(nbs(X, Y, center_features), -1.0, 1.0)))


# --------------------------------------------------------------------------
# CCA and CKA
# --------------------------------------------------------------------------
def _orth_basis(X, rtol):
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        return U[:, :0]
    if rtol is None:
        rtol = max(X.shape) * _EPS
    return U[:, s > rtol * s[0]]


def canonical_correlations(X, Y, rtol: float | None = None) -> np.ndarray:
    """Canonical correlations ρ_1 ≥ … ≥ ρ_r of X (N, p) and Y (N, q), r = min(rank).

    ρ_i are the singular values of Σ_xx^{-1/2} Σ_xy Σ_yy^{-1/2} (Hotelling
    1936), computed stably as the cosines of the principal angles between
    the column spaces of Xc and Yc: σ(U_xᵀU_y) with U_x, U_y orthonormal bases
    from thin SVDs (Björck & Golub 1973).  Directions with singular value
    ≤ rtol·σ_max (default max(N, p)·ε) count as rank deficiency.
    """
    X, Y = center(X), center(Y)
    _same_rows(X, Y)
    Ux, Uy = _orth_basis(X, rtol), _orth_basis(Y, rtol)
    r = min(Ux.shape[1], Uy.shape[1])
    if r == 0:
        return np.zeros(0)
    s = np.linalg.svd(Ux.T @ Uy, compute_uv=False)[:r]
    return np.clip(s, 0.0, 1.0)


def mean_cca(X, Y, rtol: float | None = None) -> float:
    """Mean canonical correlation (1/r) Σ_i ρ_i (the 'mCCA' of Nielsen et al., Table 1)."""
    rho = canonical_correlations(X, Y, rtol)
    return float(rho.mean()) if rho.size else 0.0


def linear_cka(X, Y) -> float:
    """Linear CKA: ‖YcᵀXc‖_F² / (‖XcᵀXc‖_F ‖YcᵀYc‖_F)  (Kornblith et al. 2019, eq. 5/Sec. 3).

    Equal to HSIC(K, L)/sqrt(HSIC(K, K) HSIC(L, L)) with K = XXᵀ, L = YYᵀ and
    HSIC(K, L) ∝ tr(KHLH); the feature form is used here.
    """
    X, Y = center(X), center(Y)
    _same_rows(X, Y)
    num = np.linalg.norm(Y.T @ X, "fro") ** 2
    den = np.linalg.norm(X.T @ X, "fro") * np.linalg.norm(Y.T @ Y, "fro")
    if den == 0:
        raise ValueError("linear_cka: a representation is constant")
    return float(num / den)


# --------------------------------------------------------------------------
# softmax models: log-probabilities, d_KL
# --------------------------------------------------------------------------
def logits(f, g) -> np.ndarray:
    """Logits of the model class of Nielsen et al. eq. 1: L[x, y] = f(x)ᵀ g(y).

    f: (N, M) embeddings of N inputs; g: (K, M) unembeddings of K labels.
    """
    f, g = _as_2d(f, "f"), _as_2d(g, "g")
    if f.shape[1] != g.shape[1]:
        raise ValueError("f and g must have the same width M")
    return f @ g.T


def log_softmax(Z) -> np.ndarray:
    """log p(y|x) = Z[x, y] - logsumexp_y' Z[x, y'] (row-wise, max-shifted).

    Idempotent: applied to log-probabilities it returns them (up to
    round-off), so functions below accept either logits or log-probabilities.
    """
    Z = _as_2d(Z, "logits")
    m = Z.max(axis=1, keepdims=True)
    S = Z - m
    return S - np.log(np.exp(S).sum(axis=1, keepdims=True))


def d_kl(logits_p, logits_q, weights=None) -> float:
    """Expected conditional KL divergence d_KL(p, q) = E_{x~p_D}[ D_KL(p(·|x) ‖ q(·|x)) ].

    = Σ_x w_x Σ_y p(y|x) (log p(y|x) - log q(y|x)), Nielsen et al. §3 (the
    distance of Theorem 3.1).  ``logits_p``/``logits_q``: (N, K) logits or
    log-probabilities, row = input; ``weights`` = p_D over the N inputs
    (uniform if None).  Terms with p(y|x) = 0 contribute 0.
    """
    lp, lq = log_softmax(logits_p), log_softmax(logits_q)
    if lp.shape != lq.shape:
        raise ValueError("the two models must give arrays of the same shape (inputs × labels)")
    p = np.exp(lp)
    per_x = np.where(p > 0, p * (lp - lq), 0.0).sum(axis=1)
    w = _weights(weights, lp.shape[0])
    return float(per_x.mean() if w is None else w @ per_x)


def d_kl_models(f, g, f2, g2, weights=None) -> float:
    """d_KL between the softmax models (f, g) and (f2, g2) (Nielsen et al. eq. 1, §3)."""
    return d_kl(logits(f, g), logits(f2, g2), weights)


# --------------------------------------------------------------------------
# d_LLV (Nielsen et al. Def. 4.4) and d_f,g (Def. 4.6)
# --------------------------------------------------------------------------
class LLV(NamedTuple):
    """Value of d^λ_LLV and its four terms (Nielsen et al. Def. 4.4)."""
    d: float
    t1: float
    t2: float
    t3: float
    t4: float


def _t13(lp, lq, y_pivot, labels, w):
    """Per-label entries of t1 (two per label) and t3, variances over inputs."""
    ys = [y for y in labels if y != y_pivot]
    P, Q = lp[:, ys], lq[:, ys]
    P0, Q0 = lp[:, [y_pivot]], lq[:, [y_pivot]]
    psi_p = _wstd(P - P0, w)            # ψ_y: sd over x of the log-odds vs the pivot
    psi_q = _wstd(Q - Q0, w)
    e_rest = _wstd(P / psi_p - Q / psi_q, w)
    e_piv = _wstd(P0 / psi_p - Q0 / psi_q, w)
    return ys, e_rest, e_piv, np.abs(psi_p - psi_q)


def _t24(lp, lq, x_pivot, x_set):
    """Per-input entries of t2 (two per input) and t4, variances over all labels."""
    P, Q = lp[x_set, :], lq[x_set, :]
    P0, Q0 = lp[[x_pivot], :], lq[[x_pivot], :]
    phi_p = (P - P0).std(axis=1, ddof=DDOF)[:, None]
    phi_q = (Q - Q0).std(axis=1, ddof=DDOF)[:, None]
    e_rest = (P / phi_p - Q / phi_q).std(axis=1, ddof=DDOF)
    e_piv = (P0 / phi_p - Q0 / phi_q).std(axis=1, ddof=DDOF)
    return e_rest, e_piv, np.abs(phi_p - phi_q).ravel()


def d_llv(logits_p, logits_q, *, y_pivot: int, x_pivot: int, x_set,
          labels=None, left_out: int | None = None, lam: float = 1e-5,
          weights=None) -> LLV:
    """Log-likelihood variance distance d^λ_LLV(p, q) = max{t1, t2, λ t3, λ t4}.

    Nielsen et al., Def. 4.4, as implemented in the authors' code
    (distribution_distance.py: get_terms_1_2_pivot / get_terms_3_4).
    With ℓ(y|x) = log p(y|x), ℓ'(y|x) = log q(y|x), a label pivot y0, the
    label set Y_LLV (``labels``; default all labels except ``left_out``),
    an input pivot x0 and the input set X_LLV = ``x_set`` (M inputs):

      ψ_y  = sd_x[ℓ(y|x) - ℓ(y0|x)],          ψ'_y likewise      (y ∈ Y_LLV∖{y0})
      t1   = max_y max( sd_x[ℓ(y|x)/ψ_y - ℓ'(y|x)/ψ'_y],
                        sd_x[ℓ(y0|x)/ψ_y - ℓ'(y0|x)/ψ'_y] )
      t3   = max_y |ψ_y - ψ'_y|
      φ_x  = sd_y[ℓ(y|x) - ℓ(y|x0)]  over all labels,  φ'_x likewise  (x ∈ X_LLV)
      t2   = max_x max( sd_y[ℓ(y|x)/φ_x - ℓ'(y|x)/φ'_x],
                        sd_y[ℓ(y|x0)/φ_x - ℓ'(y|x0)/φ'_x] )
      t4   = max_x |φ_x - φ'_x|

    sd_x is over the N inputs (uniform, or ``weights`` = p_D), sd_y over the K
    labels, both ddof 0 (t1, t2 are ddof-invariant ratios).  The paper's
    experiments use λ = 1e-5 (the default).  ``logits_*``: (N, K) logits or
    log-probabilities; log-probabilities are used (t1 is *not* invariant to
    per-input shifts of the logits).  Theorem 4.7 needs Y_LLV to hold all
    labels but one.
    """
    lp, lq = log_softmax(logits_p), log_softmax(logits_q)
    if lp.shape != lq.shape:
        raise ValueError("the two models must give arrays of the same shape (inputs × labels)")
    N, K = lp.shape
    if labels is None:
        labels = [y for y in range(K) if y != left_out]
    labels = [int(y) for y in labels]
    if y_pivot not in labels:
        raise ValueError("the label pivot must belong to the label set")
    x_set = [int(x) for x in np.atleast_1d(x_set)]
    if x_pivot in x_set:
        raise ValueError("the input pivot must not be in x_set")
    w = _weights(weights, N)
    _, r1, p1, t3 = _t13(lp, lq, y_pivot, labels, w)
    r2, p2, t4 = _t24(lp, lq, x_pivot, x_set)
    t1 = float(max(r1.max(), p1.max()))
    t2 = float(max(r2.max(), p2.max()))
    t3, t4 = float(t3.max()), float(t4.max())
    return LLV(max(t1, t2, lam * t3, lam * t4), t1, t2, t3, t4)


def llv_choose_labels(logits_p, logits_q, weights=None) -> tuple[int, int]:
    """The label pivot y0 and left-out label minimizing t1 (the authors' selection).

    Nielsen et al. App. E.3 choose pivots and sets to minimize the distance;
    their code (choose_y_pivot_and_leave_out) takes, over every pivot y0 and
    every left-out label ≠ y0, the pair minimizing the max of the t1 entries
    of the remaining labels; ties go to the smallest pivot, then the
    smallest left-out label.  Returns (y_pivot, left_out).
    """
    lp, lq = log_softmax(logits_p), log_softmax(logits_q)
    N, K = lp.shape
    if K < 3:
        raise ValueError("need at least 3 labels (a pivot, a left-out label and one more)")
    w = _weights(weights, N)
    # axis 0: pivot y0, axis 1: label y, axis 2: inputs x (contiguous)
    lpT, lqT = np.ascontiguousarray(lp.T), np.ascontiguousarray(lq.T)
    lpy, lqy = lpT[None, :, :], lqT[None, :, :]
    lp0, lq0 = lpT[:, None, :], lqT[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        psi_p = _wstd(lpy - lp0, w, axis=2)[:, :, None]        # (K, K, 1), zero on y = y0
        psi_q = _wstd(lqy - lq0, w, axis=2)[:, :, None]
        e_rest = _wstd(lpy / psi_p - lqy / psi_q, w, axis=2)    # (K, K)
        e_piv = _wstd(lp0 / psi_p - lq0 / psi_q, w, axis=2)
    per = np.maximum(e_rest, e_piv)
    best = None
    for y0 in range(K):
        for lo in range(K):
            if lo == y0:
                continue
            keep = [y for y in range(K) if y not in (y0, lo)]
            val = per[y0, keep].max()
            if best is None or val < best[0]:
                best = (val, y0, lo)
    return int(best[1]), int(best[2])


def llv_choose_inputs(logits_p, logits_q, M: int, rng, n_candidates: int = 100):
    """Random search for the input pivot and set minimizing t2 (the authors' selection).

    Draws ``n_candidates`` disjoint sets of M + 1 distinct inputs (their
    get_input_set_idxs_t2), the first of each being the pivot, and returns
    (x_pivot, x_set) of the candidate with the smallest t2 (first on ties).
    (The authors' code keeps its first candidate if none has t2 < 1; we
    take the minimum.)
    """
    lp, lq = log_softmax(logits_p), log_softmax(logits_q)
    N = lp.shape[0]
    n_candidates = min(n_candidates, N // (M + 1))
    cand = rng.choice(N, (M + 1) * n_candidates, replace=False).reshape(n_candidates, M + 1)
    P, Q = lp[cand[:, 1:]], lq[cand[:, 1:]]                    # (C, M, K)
    P0, Q0 = lp[cand[:, :1]], lq[cand[:, :1]]                  # (C, 1, K)
    phi_p = (P - P0).std(axis=2, ddof=DDOF)[:, :, None]
    phi_q = (Q - Q0).std(axis=2, ddof=DDOF)[:, :, None]
    e_rest = (P / phi_p - Q / phi_q).std(axis=2, ddof=DDOF)   # (C, M)
    e_piv = (P0 / phi_p - Q0 / phi_q).std(axis=2, ddof=DDOF)
    t2 = np.maximum(e_rest.max(axis=1), e_piv.max(axis=1))
    c = cand[int(np.argmin(t2))]
    return int(c[0]), [int(x) for x in c[1:]]


class DFG(NamedTuple):
    """d_f,g and its two parts (Nielsen et al. Def. 4.6)."""
    d: float
    d_f: float
    d_g: float


def d_fg(f, g, f2, g2, *, y_pivot: int, y_basis, x_pivot: int, x_basis) -> DFG:
    """Representational dissimilarity d_f,g (Nielsen et al., Def. 4.6).

    d_f,g = max{ d_SVD(Lᵀf(x), L'ᵀf'(x)), d_SVD(Nᵀg(y), N'ᵀg'(y)) } where L has
    columns g(y_i) - g(y0) for the M labels ``y_basis`` and N has columns
    f(x_j) - f(x0) for the M inputs ``x_basis``; the first d_SVD is over the
    rows of f (inputs), the second over the rows of g (labels).  Lᵀf(x) are
    the log-odds log p(y_i|x) - log p(y0|x).
    f, f2: (N, M); g, g2: (K, M).
    """
    f, g, f2, g2 = (_as_2d(a) for a in (f, g, f2, g2))
    yb, xb = list(np.atleast_1d(y_basis)), list(np.atleast_1d(x_basis))
    L1, L2 = (g[yb] - g[y_pivot]).T, (g2[yb] - g2[y_pivot]).T
    N1, N2 = (f[xb] - f[x_pivot]).T, (f2[xb] - f2[x_pivot]).T
    a = d_svd(f @ L1, f2 @ L2)
    b = d_svd(g @ N1, g2 @ N2)
    return DFG(max(a, b), a, b)


def d_fg_max_over_label_bases(f, g, f2, g2, *, y_pivot: int, labels, x_pivot: int,
                              x_basis) -> DFG:
    """d_f,g with its f-part maximized over every M-subset of ``labels``∖{y0} as L's labels.

    The 'max d_SVD' of Nielsen et al. Table 1 / Fig. 16 is this maximum of
    the f-part over label bases (authors' get_m_SVD_for_y_pivot_and_lo);
    the g-part uses N from ``x_pivot``, ``x_basis``.
    """
    f, g, f2, g2 = (_as_2d(a) for a in (f, g, f2, g2))
    M = f.shape[1]
    ys = [int(y) for y in labels if y != y_pivot]
    if len(ys) < M:
        raise ValueError("fewer than M labels besides the pivot")
    d_f = -np.inf
    for comb in itertools.combinations(ys, M):
        L1, L2 = (g[list(comb)] - g[y_pivot]).T, (g2[list(comb)] - g2[y_pivot]).T
        d_f = max(d_f, d_svd(f @ L1, f2 @ L2))
    xb = list(np.atleast_1d(x_basis))
    N1, N2 = (f[xb] - f[x_pivot]).T, (f2[xb] - f2[x_pivot]).T
    d_g = d_svd(g @ N1, g2 @ N2)
    return DFG(max(d_f, d_g), float(d_f), d_g)


# --------------------------------------------------------------------------
# relative representations (Moschella et al.) and retrieval metrics
# --------------------------------------------------------------------------
def cosine_similarity(X, Y) -> np.ndarray:
    """Matrix of cosines cos(x_i, y_j) = x_iᵀy_j / (‖x_i‖ ‖y_j‖); zero rows raise."""
    X, Y = _as_2d(X), _as_2d(Y, "Y")
    nx, ny = np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1)
    if np.any(nx == 0) or np.any(ny == 0):
        raise ValueError("cosine of a zero vector is undefined")
    return (X / nx[:, None]) @ (Y / ny[:, None]).T


def relative_representation(X, anchors) -> np.ndarray:
    """Relative representation r_x = (cos(e_x, e_{a_1}), …, cos(e_x, e_{a_A})).

    Moschella et al. 2023, eqs. 2-3 with cosine similarity: X (N, D)
    embeddings, anchors (A, D) embeddings of the anchor samples by the same
    encoder; returns (N, A).  Unchanged by e ↦ s·Q·e (Q orthogonal, s > 0)
    and by rescaling each embedding by its own positive factor; changed by
    translations and general linear maps.
    """
    return cosine_similarity(X, anchors)


def mean_cosine(R1, R2) -> float:
    """Mean over samples of cos(R1_i, R2_i) (Moschella et al. Table 1, 'Cosine')."""
    R1, R2 = _as_2d(R1), _as_2d(R2, "R2")
    _same_rows(R1, R2)
    return float(np.mean(np.sum(R1 * R2, 1) / (np.linalg.norm(R1, axis=1) * np.linalg.norm(R2, axis=1))))


def _knn_sets(R, k):
    S = cosine_similarity(R, R)
    np.fill_diagonal(S, -np.inf)
    # stable sort on (-similarity, index): ties broken by index
    order = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return [set(row) for row in order]


def knn_jaccard(R1, R2, k: int = 10) -> float:
    """Mean Jaccard index of the k nearest neighbours (cosine, self excluded).

    For each sample i, J_i = |N_k^1(i) ∩ N_k^2(i)| / |N_k^1(i) ∪ N_k^2(i)| with
    N_k^s(i) the k most cosine-similar other samples in space s; returns
    mean_i J_i (Moschella et al. Table 1, 'Jaccard').  Ties by lower index.
    """
    R1, R2 = _as_2d(R1), _as_2d(R2, "R2")
    _same_rows(R1, R2)
    if not 1 <= k < R1.shape[0]:
        raise ValueError("need 1 <= k < number of samples")
    A, B = _knn_sets(R1, k), _knn_sets(R2, k)
    return float(np.mean([len(a & b) / len(a | b) for a, b in zip(A, B)]))


def mrr(R1, R2) -> float:
    """Mean reciprocal rank of the true counterpart (Moschella et al. Table 1, 'MRR').

    For each i, rank_i = 1 + #{j : cos(R1_i, R2_j) > cos(R1_i, R2_i)} (ties
    counted in i's favour); MRR = mean_i 1/rank_i.
    """
    R1, R2 = _as_2d(R1), _as_2d(R2, "R2")
    _same_rows(R1, R2)
    S = cosine_similarity(R1, R2)
    diag = np.diag(S)
    ranks = 1 + (S > diag[:, None]).sum(axis=1)
    return float(np.mean(1.0 / ranks))
