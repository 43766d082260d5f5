"""The baselines of docs/theory.md §18 (synthamp.utility): each error formula by simulation.

Seeds fixed, small sizes; every tolerance is a multiple of the simulation's own standard
error (of the mean squared error: sd of the squared errors / √reps), so a formula off by
more than a few standard errors fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.utility import (
    adassp,
    adassp_noise,
    gaussian_gram_error,
    gaussian_synthesizer_error,
    gram_error_bound,
    output_perturbation_error,
    output_perturbation_sigma,
    release_utility,
    targets_gram_sensitivity,
    utility_table,
    utility_verdict,
)
from synthamp.utility._adassp import _adassp_release


def _symmetric_noise(rng, sigma, k, reps):
    """The Gaussian mechanism's noise on a k × k Gram: k² entries N(0, σ²), symmetrised."""
    raw = sigma * rng.standard_normal((reps, k, k))
    return (raw + raw.transpose(0, 2, 1)) / 2


def _synthesizer_squared_errors(rng, gram, sigma, n, reps):
    """‖S/n − G‖_F² of the Gaussian synthesizer: Ĝ = G + E, A = Π_PSD(Ĝ), n records ~ N(0, A)."""
    k = gram.shape[0]
    noisy = gram + _symmetric_noise(rng, sigma, k, reps)
    w, u = np.linalg.eigh(noisy)
    factor = u * np.sqrt(np.clip(w, 0, None))[:, None, :]  # A = factor factorᵀ
    g = rng.standard_normal((reps, n, k))
    records = g @ factor.transpose(0, 2, 1)
    moment = records.transpose(0, 2, 1) @ records / n
    return np.sum((moment - gram) ** 2, axis=(1, 2))


def _mse_and_se(squared):
    return float(np.mean(squared)), float(np.std(squared) / math.sqrt(squared.size))


@pytest.mark.parametrize("k", [1, 2])
def test_gaussian_synthesizer_matches_the_unprojected_formula_far_from_the_boundary(k):
    """With G ≫ σ_G the projection is inactive; then E‖S/n − G‖² is exactly
    e² + (‖G‖² + e² + (tr G)² + kσ_G²)/n (E‖Ĝ‖² and E(tr Ĝ)² of the noisy Gram)."""
    rng = np.random.default_rng(11)
    v = rng.normal(size=(6, k)) + 3.0
    gram, sigma, n, reps = v.T @ v, 0.5, 40, 20_000
    e = sigma * math.sqrt(k * (k + 1) / 2)
    exact = e**2 + (np.sum(gram**2) + e**2 + np.trace(gram) ** 2 + k * sigma**2) / n
    mse, se = _mse_and_se(_synthesizer_squared_errors(rng, gram, sigma, n, reps))
    assert abs(mse - exact) < 4 * se
    bound = gaussian_synthesizer_error(
        e, out_dim=k, gram_norm_bound=float(np.linalg.norm(gram)), n_syn=n
    )
    assert math.sqrt(mse) <= bound


@pytest.mark.parametrize(("k", "scale"), [(1, 0.0), (1, 0.3), (2, 0.0), (2, 0.3), (3, 0.2)])
def test_gaussian_synthesizer_bound_holds_where_the_projection_acts(k, scale):
    """Near (or at) G = 0 the PSD projection clips: the simulated RMSE stays below the bound,
    which is attained up to the projection's gain (so the bound is not vacuous)."""
    rng = np.random.default_rng(5 + k)
    v = scale * rng.normal(size=(4, k))
    gram, sigma, n, reps = v.T @ v, 0.4, 30, 20_000
    e = sigma * math.sqrt(k * (k + 1) / 2)
    mse, se = _mse_and_se(_synthesizer_squared_errors(rng, gram, sigma, n, reps))
    g = max(float(np.linalg.norm(gram)), 1e-300)
    bound = gaussian_synthesizer_error(e, out_dim=k, gram_norm_bound=g, n_syn=n)
    assert mse - 4 * se <= bound**2
    assert math.sqrt(mse) > 0.3 * bound  # the same order: a bound, not a vacuous one
    assert gaussian_synthesizer_error(e, out_dim=k, gram_norm_bound=g, n_syn=None) == e


@pytest.mark.parametrize("releases", [1, 3])
def test_output_perturbation_is_calibrated_exactly(releases):
    sigma = output_perturbation_sigma(1.0, 1e-5, sensitivity=0.2, releases=releases)
    composed = 0.2 * math.sqrt(releases)
    assert gaussian_epsilon(1e-5, composed, sigma) <= 1.0
    assert gaussian_epsilon(1e-5, composed, sigma * (1 - 1e-6)) > 1.0


def test_output_perturbation_errors_by_simulation():
    """V = v + σN: ‖V − v‖ has RMSE σ√(dk); VᵀV − dσ²I has RMSE gram_error_bound(‖v‖, n = ∞)."""
    rng = np.random.default_rng(3)
    d, k, sigma, reps = 7, 2, 0.3, 40_000
    v = rng.normal(size=(d, k))
    noisy = v + sigma * rng.standard_normal((reps, d, k))
    mse, se = _mse_and_se(np.sum((noisy - v) ** 2, axis=(1, 2)))
    assert abs(mse - output_perturbation_error(sigma, d, k) ** 2) < 4 * se
    moment = noisy.transpose(0, 2, 1) @ noisy - d * sigma**2 * np.eye(k)
    mse, se = _mse_and_se(np.sum((moment - v.T @ v) ** 2, axis=(1, 2)))
    exact = gram_error_bound(
        sigma=sigma, dim=d, out_dim=k, norm_bound=float(np.linalg.norm(v)), n_syn=None
    )
    assert abs(mse - exact**2) < 4 * se


@pytest.mark.parametrize("k", [1, 2, 3])
def test_targets_gram_sensitivity_is_a_sharp_bound(k):
    """‖yyᵀ − y′y′ᵀ‖_F ≤ B²·(1 or √2) over random rows ‖y‖ ≤ B, attained (y ⊥ y′, or y′ = 0)."""
    rng = np.random.default_rng(k)
    b = 1.7
    y = rng.normal(size=(5000, 2, k))
    y *= b * rng.uniform(size=(5000, 2, 1)) ** 0.1 / np.linalg.norm(y, axis=2, keepdims=True)
    outer = np.einsum("nai,naj->naij", y, y)
    gaps = np.linalg.norm(outer[:, 0] - outer[:, 1], axis=(1, 2))
    s = targets_gram_sensitivity(b, k)
    assert gaps.max() <= s * (1 + 1e-12)
    e1 = np.eye(k)[0] * b
    e2 = np.eye(k)[-1] * b if k > 1 else np.zeros(1)
    attained = np.linalg.norm(np.outer(e1, e1) - np.outer(e2, e2))
    assert attained == pytest.approx(s, rel=1e-12)


@pytest.mark.parametrize(("epsilon", "releases"), [(1.0, 1), (0.3, 2)])
def test_adassp_composes_its_three_releases_exactly(epsilon, releases):
    """Each release has Δᵢ/σᵢ = 1/t; together one Gaussian mechanism of sensitivity √(3T)/t:
    exactly (ε, δ) (Dong, Roth, Su 2022, Cor. 3.3; Balle and Wang 2018), and below the
    paper's conservative ε/3-split multiplier √log(6/δ)/(ε/3) (at its own sensitivities)."""
    delta = 1e-5
    s1, s2, s3 = adassp_noise(
        epsilon, delta, feature_bound=1.0, label_bound=2.0, dim=5, releases=releases
    )
    mus = np.array([1.0 / s1, math.sqrt(2.0) / s2, 2 * 2.0 / s3])  # Δᵢ/σᵢ, replace-one
    assert np.allclose(mus, mus[0], rtol=1e-12)
    mu = math.sqrt(releases * np.sum(mus**2))
    assert gaussian_epsilon(delta, mu) <= epsilon
    assert gaussian_epsilon(delta, mu * (1 + 1e-6)) > epsilon
    assert s1 < math.sqrt(math.log(6 / delta)) / (epsilon / 3) * math.sqrt(releases)


def test_adassp_releases_have_the_stated_noise():
    """XᵀX̂ − XᵀX: symmetric, each upper entry N(0, σ₂²); Xᵀŷ − Xᵀy: iid N(0, σ₃²);
    λ = max(0, σ₂√(d log(2d²/ρ)) − λ̃_min) with λ̃_min a shifted noisy λ_min (by simulation)."""
    rng = np.random.default_rng(9)
    d, k, reps = 3, 2, 20_000
    x = 0.4 * rng.normal(size=(50, d))  # λ_min ≈ 4.5: λ̃_min and λ both vary
    xtx, xty = x.T @ x, x.T @ rng.normal(size=(50, k))
    sigmas, delta, rho = (0.7, 1.3, 2.1), 1e-5, 0.05
    lam_min = np.linalg.eigvalsh(xtx)[0]
    noise_xx, noise_xy, ridges = [], [], []
    for _ in range(reps):
        a, b, r = _adassp_release(xtx, xty, sigmas, delta, rho, rng)
        noise_xx.append(a - xtx)
        noise_xy.append(b - xty)
        ridges.append(r)
    noise_xx, noise_xy, ridges = map(np.array, (noise_xx, noise_xy, ridges))
    assert np.array_equal(noise_xx, noise_xx.transpose(0, 2, 1))
    upper = noise_xx[:, *np.triu_indices(d)]
    # variance within 4 standard errors (sd of a sample variance: σ²√(2/reps))
    for values, s in ((upper, sigmas[1]), (noise_xy.reshape(reps, -1), sigmas[2])):
        assert np.all(np.abs(values.var(axis=0) - s**2) < 4 * s**2 * math.sqrt(2 / reps))
        assert np.all(np.abs(values.mean(axis=0)) < 4 * s / math.sqrt(reps))
    # λ: its law from λ̃_min = max(λ_min + σ₁Z − σ₁√log(6/δ), 0)
    top = sigmas[1] * math.sqrt(d * math.log(2 * d * d / rho))
    z = rng.standard_normal(200_000)
    expected = np.maximum(
        0.0, top - np.maximum(lam_min + sigmas[0] * (z - math.sqrt(math.log(6 / delta))), 0)
    )
    assert expected.std() > 0.1 and 0 < np.mean(ridges == 0) < 1
    assert abs(ridges.mean() - expected.mean()) < 4 * expected.std() / math.sqrt(reps)


def test_adassp_is_least_squares_without_noise_and_checks_its_bounds():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 4))
    x /= 2 * np.linalg.norm(x, axis=1, keepdims=True)
    y = np.clip(x @ rng.normal(size=4) + 0.05 * rng.normal(size=400), -1, 1)
    ols = np.linalg.lstsq(x, y, rcond=None)[0]
    out = adassp(x, y, 1e6, 1e-5, feature_bound=0.5, label_bound=1.0, random_state=0)
    assert out.coef.shape == (4, 1) and out.ridge == 0.0
    assert np.allclose(out.coef[:, 0], ols, atol=1e-3)
    with pytest.raises(ValueError, match="feature_bound"):
        adassp(x, y, 1.0, 1e-5, feature_bound=0.4, label_bound=1.0)


def _table(records, floor, ag, op_gram, anchor=None, n_syn=None):
    return utility_table(
        records=records, records_floor=floor, n_syn=n_syn, records_unlimited=records * 0.9,
        analyze_gauss=ag, anchor=ag * 1.5 if anchor is None else anchor, out_dim=1,
        synthesizer=ag * 1.01, synthesizer_unlimited=ag, op_gram=op_gram, op_coef=0.5,
        norm_bound=2.0, sigma_op=0.1,
    )  # fmt: skip


def test_the_verdict_names_the_best_mechanism_and_by_how_much():
    rows = _table(records=2.0, floor=1.0, ag=0.1, op_gram=3.0)
    assert [r["ratio_to_records"] for r in rows[:5]] == pytest.approx([1, 0.05, 0.075, 0.0505, 1.5])
    assert rows[5]["ratio_to_records"] is None and rows[5]["relative_error"] == 0.25
    assert rows[0]["relative_error"] == 0.5 and rows[-1]["rmse"] is None  # AdaSSP: data
    assert [r["best"] for r in rows] == [False, True, False, False, False, True, False]
    first, detail, coefficients = utility_verdict(rows).splitlines()
    assert first == (
        "Verdict: the records are 20× less accurate than the Gaussian mechanism on vᵀv "
        "(Analyze Gauss); use it unless you need records."
    )
    assert "below the records' floor: better than the records for every model" in detail
    assert "n → ∞ records: RMSE 2 at ‖v‖ = C; at least 1 for any v" in detail
    assert "output perturbation of v gives RMSE 0.5 (0.25 of C)" in coefficients
    # the Laplace anchor wins; the first line names it and the factor
    rows = _table(records=2.0, floor=1.0, ag=0.3, op_gram=3.0, anchor=0.2, n_syn=1000)
    first, detail, _ = utility_verdict(rows).splitlines()
    assert first == (
        "Verdict: the records are 10× less accurate than the Laplace mechanism on ‖v‖²; use it "
        "unless you need records."
    )
    assert "from the 1,000 records written: RMSE 2 at ‖v‖ = C; n → ∞: 1.8" in detail
    assert rows[0]["n_syn"] == 1000 and rows[1]["n_syn"] is None
    verdict = utility_verdict(_table(records=2.0, floor=1.0, ag=3.0, op_gram=5.0))
    assert verdict.startswith(
        "Verdict: the records are the most accurate release of vᵀv here (1.5× better than the "
        "Gaussian mechanism on vᵀv (Analyze Gauss)).\n"
    )
    assert "noise saved" not in verdict.lower()
    verdict = utility_verdict(_table(records=2.0, floor=1.0, ag=2.0, op_gram=5.0))
    assert verdict.startswith("Verdict: the records are as accurate as")
    # above the statistic's range (C² = 4): no information, flagged in the rows too
    rows = _table(records=5.0, floor=1.0, ag=3.0, op_gram=6.0)
    assert rows[0]["no_information"] and not rows[1]["no_information"]
    assert utility_verdict(rows).startswith(
        "Verdict: the records carry no information on vᵀv (error 1.2× its largest value C²); "
        "use the Gaussian mechanism on vᵀv (Analyze Gauss)."
    )
    rows = _table(records=5.0, floor=1.0, ag=4.5, op_gram=6.0, anchor=4.2)
    assert utility_verdict(rows).startswith("Verdict: no mechanism here says anything about")
    assert all(len(utility_verdict(r).splitlines()[0]) < 140 for r in (rows,))


def test_release_utility_rows_are_the_functions_and_keep_the_old_numbers():
    common = dict(epsilon=1.0, delta=1e-5, sigma=0.05, dim=30, out_dim=2, norm_bound=1.5)
    common |= dict(sensitivity=0.02, n_syn=500, releases=2)
    out = release_utility(**common, label_bound=1.0, n_records=400)
    old = release_utility(**common)
    for key in ("gram_error", "gram_error_floor", "gram_error_baseline"):
        assert out[key] == old[key]
    rows = {(r["mechanism"], r["statistic"]): r for r in out["utility_table"]}
    ag = gaussian_gram_error(1.0, 1e-5, norm_bound=1.5, sensitivity=0.02, out_dim=2, releases=2)
    assert rows["the Gaussian mechanism on vᵀv (Analyze Gauss)", "vᵀv"]["rmse"] == ag
    sigma_op = output_perturbation_sigma(1.0, 1e-5, sensitivity=0.02, releases=2)
    assert rows["output perturbation of v", "v"]["rmse"] == pytest.approx(sigma_op * math.sqrt(60))
    synth = rows["the Gaussian synthesizer", "vᵀv"]["rmse"]
    assert synth == gaussian_synthesizer_error(ag, out_dim=2, gram_norm_bound=2.25, n_syn=500)
    targets = rows["the Gaussian synthesizer of the targets", "YᵀY/m"]
    assert targets["ratio_to_records"] is None
    assert "YᵀY/m" not in {r["statistic"] for r in old["utility_table"]}
