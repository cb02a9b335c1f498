"""Numeric check on the invariance class of relative representations
(Moschella et al. 2023, eqs. 2-4; THEORY-175, LIT-849).

Imports only numpy and recordkit.measures; prints nothing at import time.
"""
import numpy as np

from recordkit import check
from recordkit import measures as ms

#: the smallest mean |Δcos| a non-invariance must produce to count as a change
MARGIN = 0.05


def _random_orthogonal(rng, D):
    Q, R = np.linalg.qr(rng.standard_normal((D, D)))
    return Q * np.sign(np.diag(R))


@check("relrep-invariance-class", tolerance=1e-12,
       claim="Relative representations (cosines of each embedding to anchor "
             "embeddings) are unchanged when every embedding is mapped by s*Q "
             "(Q orthogonal, s > 0) or rescaled by its own positive factor, and "
             "are changed (mean |change of cosine| >= 0.05) by a translation and "
             "by a general invertible linear map")
def relrep_invariance_class(rng):
    """Invariances return max |Δr| (≈ 1e-16); non-invariances return max(0, 0.05 − mean |Δr|).

    Five random latent spaces (N = 300 samples, D = 8..64, A = 10..40 anchors
    taken from the samples, centred as the paper assumes).  Maps:
    ``orthogonal_times_scale`` e ↦ sQe with Q Haar-orthogonal (reflections
    included) and s log-uniform in [0.01, 100]; ``per_sample_rescaling``
    e_i ↦ c_i e_i with c_i log-uniform in [1e-3, 1e3] (anchors included);
    ``translation`` e ↦ e + b with ‖b‖ equal to the RMS norm of the
    embeddings, in a random direction; ``general_linear`` e ↦ Ge with
    G = Q1 diag(σ) Q2, σ log-uniform in [0.2, 5] (invertible, not conformal).
    Over 200 seeds the smallest mean |Δr| seen was 0.44 for a translation
    and 0.095 for a general linear map (the widest spaces move least), so
    the margin 0.05 fails only a map that barely moves the cosines.
    """
    out = dict.fromkeys(["orthogonal_times_scale", "per_sample_rescaling",
                         "translation_changes", "general_linear_changes"], 0.0)
    for D, A in [(8, 10), (16, 20), (32, 25), (64, 40), (12, 12)]:
        N = 300
        E = rng.standard_normal((N, D)) @ rng.standard_normal((D, D))
        E -= E.mean(axis=0)
        idx = rng.choice(N, A, replace=False)
        r = ms.relative_representation(E, E[idx])

        def rel(E2):
            return ms.relative_representation(E2, E2[idx])

        Q = _random_orthogonal(rng, D)
        s = 10 ** rng.uniform(-2, 2)
        out["orthogonal_times_scale"] = max(out["orthogonal_times_scale"],
                                            np.abs(rel(s * E @ Q.T) - r).max())
        c = 10 ** rng.uniform(-3, 3, size=(N, 1))
        out["per_sample_rescaling"] = max(out["per_sample_rescaling"],
                                          np.abs(rel(c * E) - r).max())
        b = rng.standard_normal(D)
        b *= np.sqrt((E ** 2).sum(1).mean()) / np.linalg.norm(b)
        change = np.abs(rel(E + b) - r).mean()
        out["translation_changes"] = max(out["translation_changes"], MARGIN - change)
        G = _random_orthogonal(rng, D) @ np.diag(10 ** rng.uniform(np.log10(0.2), np.log10(5), D)) \
            @ _random_orthogonal(rng, D)
        change = np.abs(rel(E @ G.T) - r).mean()
        out["general_linear_changes"] = max(out["general_linear_changes"], MARGIN - change)
    return {k: max(0.0, float(v)) for k, v in out.items()}
