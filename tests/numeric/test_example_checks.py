"""The example record's numeric checks (checks/*.py): they pass, they can fail.

Each module is imported from its file path, as the runner does; every
registered function is run with a seeded generator and must pass its
tolerance.  Then a measure the check relies on is perturbed (monkeypatched
with a subtly wrong or noisy version, or the construction's input changed)
and the check must fail: a check that cannot fail checks nothing.
"""
import ast
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from recordkit import measures as ms
from recordkit.numeric import REGISTRY

CHECKS = Path(__file__).resolve().parents[2] / "checks"
EXPECTED_IDS = {"msvd-equals-nbs", "msvd-weyl-lower-bound", "linear-identifiability",
                "relrep-invariance-class", "kl-vanishes-table1", "llv-bound-thm47"}
MODULES = {"bures": CHECKS / "bures.py", "identifiability": CHECKS / "identifiability.py",
           "relrep": CHECKS / "relrep.py", "kl_table1": CHECKS / "kl_table1.py"}


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_checks_{name}", MODULES[name])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True, scope="module")
def _restore_registry():
    """Importing check modules registers their checks globally: undo it afterwards."""
    saved = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(saved)


@pytest.fixture(scope="module")
def mods():
    return {name: load(name) for name in MODULES}


def registered(mod):
    return {f.check_spec.id: f for f in vars(mod).values()
            if callable(f) and hasattr(f, "check_spec")}


def all_checks(mods):
    out = {}
    for mod in mods.values():
        out.update(registered(mod))
    return out


def values(result):
    return result if isinstance(result, dict) else {"value": result}


def passes(result, tol):
    return all(math.isfinite(v) and v <= tol for v in values(result).values())


def test_ids_claims_and_imports(mods):
    checks = all_checks(mods)
    assert set(checks) == EXPECTED_IDS
    for f in checks.values():
        assert len(f.check_spec.claim) > 40
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported |= {f"{node.module}.{a.name}" for a in node.names}
        assert imported <= {"numpy", "recordkit.check", "recordkit.measures"}, (path, imported)


def test_import_prints_nothing(capsys):
    for name in MODULES:
        load(name)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


@pytest.mark.slow
@pytest.mark.parametrize("check_id", sorted(EXPECTED_IDS))
@pytest.mark.parametrize("seed", [12345, 2024])
def test_check_passes(mods, check_id, seed):
    f = all_checks(mods)[check_id]
    result = f(np.random.default_rng(seed))
    assert values(result), "a check must return at least one discrepancy"
    assert passes(result, f.check_spec.tolerance), (check_id, result)


@pytest.mark.slow
def test_checks_are_deterministic_given_the_seed(mods):
    for check_id, f in all_checks(mods).items():
        if check_id == "kl-vanishes-table1":          # the slowest; same rng use as the others
            continue
        a, b = f(np.random.default_rng(7)), f(np.random.default_rng(7))
        assert values(a) == values(b), check_id


# ------------------------------------------------------------------ can fail
def naive_nbs_kernel(K, L, rtol=None):
    """The seed's route: a square root of K that keeps its round-off eigenvalues."""
    lam, U = np.linalg.eigh(K)
    Kh = (U * np.sqrt(np.clip(lam, 0, None))) @ U.T
    mu = np.linalg.eigvalsh(Kh @ L @ Kh)
    return float(np.sqrt(np.clip(mu, 0, None)).sum() / np.sqrt(np.trace(K) * np.trace(L)))


def test_msvd_equals_nbs_fails_with_the_naive_kernel_square_root(mods, monkeypatch):
    f = registered(mods["bures"])["msvd-equals-nbs"]
    monkeypatch.setattr(ms, "nbs_kernel", naive_nbs_kernel)
    result = f(np.random.default_rng(12345))
    assert not passes(result, f.check_spec.tolerance)
    assert 1e-11 < max(result.values()) < 1e-5          # the seed's ~1e-7


def test_msvd_equals_nbs_fails_when_a_kernel_is_perturbed(mods, monkeypatch):
    f = registered(mods["bures"])["msvd-equals-nbs"]
    real = ms.linear_kernel

    def noisy(X, center_features=True):
        K = real(X, center_features)
        return K + 1e-9 * np.trace(K) / len(K) * np.eye(len(K))
    monkeypatch.setattr(ms, "linear_kernel", noisy)
    assert not passes(f(np.random.default_rng(12345)), f.check_spec.tolerance)


def test_weyl_bound_check_fails_for_a_slightly_smaller_msvd(mods, monkeypatch):
    f = registered(mods["bures"])["msvd-weyl-lower-bound"]
    real = ms.m_svd
    monkeypatch.setattr(ms, "m_svd", lambda Z, W: real(Z, W) - 1e-4)
    result = f(np.random.default_rng(12345))
    assert result["max_violation"] > 0


def test_weyl_bound_check_fails_if_nothing_is_non_vacuous(mods, monkeypatch):
    f = registered(mods["bures"])["msvd-weyl-lower-bound"]
    monkeypatch.setattr(ms, "msvd_weyl_lower_bound", lambda Z, W: -1.0)
    result = f(np.random.default_rng(12345))
    assert result["nonvacuous_shortfall"] > 0 and not passes(result, 0.0)


def test_linear_identifiability_fails_for_perturbed_logits(mods, monkeypatch):
    f = registered(mods["identifiability"])["linear-identifiability"]
    real = ms.logits
    monkeypatch.setattr(ms, "logits",
                        lambda F, G: real(F, G) + 1e-9 * np.sin(3 * F[:, [0]] + G[:, 0][None, :]))
    result = f(np.random.default_rng(12345))
    assert result["equal_conditionals"] > f.check_spec.tolerance
    assert result["log_odds_equal_LTf"] > f.check_spec.tolerance


def test_linear_identifiability_fails_for_a_wrong_transform(mods, monkeypatch):
    # g' = B^{-1} g instead of B^{-T} g (a forgotten transpose)
    mod = mods["identifiability"]
    f = registered(mod)["linear-identifiability"]
    monkeypatch.setattr(mod, "transformed_pair",
                        lambda F, G, B, c: (F @ B.T, G @ np.linalg.inv(B).T + c))
    result = f(np.random.default_rng(12345))
    assert result["equal_conditionals"] > 1e-3
    assert result["A_equals_B_inverse"] > 1e-3


def test_relrep_check_fails_for_dot_products_instead_of_cosines(mods, monkeypatch):
    f = registered(mods["relrep"])["relrep-invariance-class"]
    monkeypatch.setattr(ms, "relative_representation", lambda X, A: X @ A.T)
    result = f(np.random.default_rng(12345))
    assert result["orthogonal_times_scale"] > 1e-3 and result["per_sample_rescaling"] > 1e-3


def test_relrep_check_fails_for_centred_cosines(mods, monkeypatch):
    # cosines after centring each space are translation-invariant: the
    # "translation changes" half must then fail
    f = registered(mods["relrep"])["relrep-invariance-class"]
    real = ms.relative_representation

    monkeypatch.setattr(ms, "relative_representation",
                        lambda X, A: real(X - X.mean(0), A - X.mean(0)))
    result = f(np.random.default_rng(12345))
    assert result["translation_changes"] > 0


def test_llv_bound_check_fails_for_a_shrunk_dllv(mods, monkeypatch):
    f = registered(mods["identifiability"])["llv-bound-thm47"]
    real = ms.d_llv
    monkeypatch.setattr(ms, "d_llv", lambda *a, **k: real(*a, **k)._replace(d=real(*a, **k).d / 4))
    result = f(np.random.default_rng(12345))
    assert result["weyl_term_violation"] > 0


@pytest.mark.slow
def test_table1_check_fails_when_the_relabelling_is_removed(mods, monkeypatch):
    mod = mods["kl_table1"]
    f = registered(mod)["kl-vanishes-table1"]
    monkeypatch.setattr(mod, "PERM", np.arange(7))      # model 2 = model 1
    monkeypatch.setattr(mod, "REPLICATES", 2)
    result = f(np.random.default_rng(12345))
    assert result["E d_KL(rho=3) to 4 d.p. vs paper"] > 0.5
    assert result["mCCA near 0 (every draw <= 0.0025)"] > 0.9


@pytest.mark.slow
def test_table1_check_fails_for_a_different_offset_spread(mods, monkeypatch):
    # the paper's d_KL digits pin the construction: offsets ±π/32 instead of ±π/64
    mod = mods["kl_table1"]
    f = registered(mod)["kl-vanishes-table1"]
    monkeypatch.setattr(mod, "OFFSET", np.pi / 32)
    monkeypatch.setattr(mod, "REPLICATES", 2)
    result = f(np.random.default_rng(12345))
    assert result["E d_KL(rho=3) to 4 d.p. vs paper"] > 5e-5


@pytest.mark.slow
def test_table1_report_and_rows(mods):
    mod = mods["kl_table1"]
    f = registered(mod)["kl-vanishes-table1"]
    assert callable(f.report)
    f(np.random.default_rng(3))
    text = f.report()
    assert "0.8866" in text and "rho" in text
    assert len(text.splitlines()) >= 3 + len(mod.RHOS)
    rows = mod._LAST["result"]["rows"]
    assert [r["rho"] for r in rows] == list(range(3, 19))
    assert rows[0]["E_d_KL"] == pytest.approx(0.886634, abs=1e-6)
    assert rows[-1]["E_d_KL"] == pytest.approx(1.0405e-4, abs=1e-7)


def test_table1_quadrature_has_converged(mods):
    mod = mods["kl_table1"]
    coarse = mod.expected_kl(3, mod.quadrature(6, 8))
    fine = mod.expected_kl(3, mod.quadrature(16, 24))
    default = mod.expected_kl(3)
    assert abs(default - fine) < 1e-8 and abs(coarse - fine) < 1e-5


def test_table1_expectation_agrees_with_monte_carlo(mods):
    mod = mods["kl_table1"]
    rng = np.random.default_rng(0)
    f1, g1, f2, g2 = mod.construct(rng, 3, per_class=40_000)
    mc = ms.d_kl_models(f1, g1, f2, g2)
    # σ of a 500-per-class draw is ≈ 1.6e-4, so ≈ 1.8e-5 here
    assert mc == pytest.approx(mod.expected_kl(3), abs=1e-4)
