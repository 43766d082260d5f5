"""Tests of the ridge mathematics: the fit, its norm bound and sensitivity, the Gram estimates.

References, none of them the module's own output:

* the ridge fit against scikit-learn's ``Ridge(alpha=m·λ, fit_intercept=False)``
  (this also pins the λ convention);
* the norm bound C = B/(2√λ) against a dataset that attains it exactly, and
  the sensitivity Δ against brute force: thousands of random adjacent pairs
  (replace one record), hypothesis-generated pairs, a closed-form adversarial
  pair that comes within 5% of Δ, and a numerical maximisation over the
  replaced record;
* the debiasing of the Gram matrix against Monte Carlo estimates with error
  bars derived from Gaussian / Wishart moments.

The random datasets of :func:`_dataset` serve tests/test_generator.py too.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthamp import InputError
from synthamp.release import (
    clip_rows,
    debiased_gram,
    gram_estimate_errors,
    project_frobenius,
    ridge_fit,
    ridge_norm_bound,
    ridge_sensitivity,
)
from synthamp.utility import gram_error_bound

# --------------------------------------------------------------------------- helpers


def _dataset(rng, m, d, k, label_bound=1.0, on_sphere=False):
    """Random features in the unit ball and targets in the B-ball (optionally on the spheres)."""
    x = rng.normal(size=(m, d)) * rng.uniform(0.2, 3.0)
    y = rng.normal(size=(m, k)) * rng.uniform(0.2, 3.0) * label_bound
    if on_sphere:
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        y *= label_bound / np.linalg.norm(y, axis=1, keepdims=True)
    return clip_rows(x, 1.0), clip_rows(y, label_bound)


def _replace_one(rng, x, y, label_bound, on_sphere=False):
    """An adjacent dataset: record 0 replaced (by a random one, or by its negation)."""
    x2, y2 = x.copy(), y.copy()
    if rng.random() < 0.3:
        x2[0], y2[0] = x[0], -y[0]
    else:
        nx, ny = _dataset(rng, 1, x.shape[1], y.shape[1], label_bound, on_sphere)
        x2[0], y2[0] = nx[0], ny[0]
    return x2, y2


# --------------------------------------------------------------------------- ridge fit


@pytest.mark.parametrize(("m", "d", "k"), [(50, 5, 2), (8, 30, 3), (40, 40, 1)])
def test_ridge_fit_matches_sklearn(m, d, k):
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(m + d + k)
    x, y = _dataset(rng, m, d, k)
    ridge = 0.03
    reference = Ridge(alpha=m * ridge, fit_intercept=False, solver="svd").fit(x, y).coef_
    np.testing.assert_allclose(ridge_fit(x, y, ridge), reference.reshape(k, d).T, rtol=1e-9)


def test_ridge_fit_minimises_the_stated_objective():
    """The gradient of (1/m)Σ‖Wᵀx − y‖² + λ‖W‖² vanishes at the fit (the λ convention)."""
    rng = np.random.default_rng(3)
    x, y = _dataset(rng, 30, 6, 2)
    ridge = 0.2
    w = ridge_fit(x, y, ridge)
    gradient = 2 / 30 * x.T @ (x @ w - y) + 2 * ridge * w
    assert np.abs(gradient).max() < 1e-12


# --------------------------------------------------------------------------- bounds


@pytest.mark.parametrize("ridge", [0.01, 0.25, 0.9])
def test_norm_bound_is_attained(ridge):
    """All x = √λ·e₁, y = B: v = √λB/(λ + λ) e₁ has norm exactly B/(2√λ)."""
    m, d, label_bound = 7, 4, 2.5
    x = np.zeros((m, d))
    x[:, 0] = math.sqrt(ridge)
    y = np.full((m, 1), label_bound)
    v = ridge_fit(x, y, ridge)
    assert np.linalg.norm(v) == pytest.approx(label_bound / (2 * math.sqrt(ridge)), rel=1e-12)
    assert ridge_norm_bound(label_bound, ridge) == pytest.approx(np.linalg.norm(v), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 40),
    d=st.integers(1, 8),
    k=st.integers(1, 3),
    ridge=st.floats(1e-3, 50.0),
    label_bound=st.floats(0.05, 20.0),
    on_sphere=st.booleans(),
)
def test_norm_and_sensitivity_bounds_hold_for_random_adjacent_pairs(
    seed, m, d, k, ridge, label_bound, on_sphere
):
    rng = np.random.default_rng(seed)
    x, y = _dataset(rng, m, d, k, label_bound, on_sphere)
    x2, y2 = _replace_one(rng, x, y, label_bound, on_sphere)
    v, w = ridge_fit(x, y, ridge), ridge_fit(x2, y2, ridge)
    bound = ridge_norm_bound(label_bound, ridge)
    assert np.linalg.norm(v) <= bound * (1 + 1e-10)
    assert np.linalg.norm(w) <= bound * (1 + 1e-10)
    assert np.linalg.norm(v - w) <= ridge_sensitivity(label_bound, ridge, m) * (1 + 1e-10)


def test_sensitivity_over_many_random_adjacent_pairs():
    """3000 random adjacent pairs over a grid of (m, d, k, λ, B): ‖v − w‖_F <= Δ."""
    rng = np.random.default_rng(2026)
    worst = 0.0
    for m, d, k, ridge in itertools.product([2, 5, 30], [1, 4, 12], [1, 3], [0.01, 1.0, 30.0]):
        if k > d:
            continue
        for _ in range(100):
            label_bound = rng.uniform(0.1, 5)
            on_sphere = rng.random() < 0.5
            x, y = _dataset(rng, m, d, k, label_bound, on_sphere)
            x2, y2 = _replace_one(rng, x, y, label_bound, on_sphere)
            ratio = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x2, y2, ridge))
            ratio /= ridge_sensitivity(label_bound, ridge, m)
            worst = max(worst, ratio)
    assert worst <= 1 + 1e-10
    assert worst > 0.3  # the random pairs do probe the bound


@pytest.mark.parametrize("ridge", [10.0, 100.0, 1000.0])
def test_sensitivity_is_nearly_attained(ridge):
    """Adversarial pair with a closed form: all x = e₁, y = B; record 0 gets y = −B.

    v = B/(1 + λ), w = (m − 2)B/(m(1 + λ)), so ‖v − w‖ = 2B/(m(1 + λ)); the
    ratio to Δ is 2λ^{3/2}/((1 + λ)(1 + 2√λ)) → 1 as λ → ∞. So Δ cannot be
    lowered by more than a few percent: a formula off by a constant factor
    (e.g. the λ/2 convention read the other way) fails here.
    """
    m, d, label_bound = 9, 3, 1.7
    x = np.zeros((m, d))
    x[:, 0] = 1.0
    y = np.full((m, 1), label_bound)
    y2 = y.copy()
    y2[0] = -label_bound
    diff = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x, y2, ridge))
    assert diff == pytest.approx(2 * label_bound / (m * (1 + ridge)), rel=1e-10)
    ratio = diff / ridge_sensitivity(label_bound, ridge, m)
    expected = 2 * ridge**1.5 / ((1 + ridge) * (1 + 2 * math.sqrt(ridge)))
    assert ratio == pytest.approx(expected, rel=1e-10)
    assert ratio <= 1
    if ridge >= 100:
        assert ratio > 0.94


@pytest.mark.slow
def test_sensitivity_against_numerical_maximisation():
    """Maximise ‖v − w‖/Δ over all records (Nelder–Mead, many starts): never above 1."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(7)

    def ratio(params, m, d, k, ridge):
        p = params.reshape(m + 1, d + k)
        x, y = clip_rows(p[:m, :d], 1.0), clip_rows(p[:m, d:], 1.0)
        x2, y2 = x.copy(), y.copy()
        x2[0], y2[0] = clip_rows(p[m:, :d], 1.0)[0], clip_rows(p[m:, d:], 1.0)[0]
        diff = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x2, y2, ridge))
        return diff / ridge_sensitivity(1.0, ridge, m)

    for m, d, k, ridge in [(2, 1, 1, 10.0), (4, 2, 2, 3.0)]:
        best = 0.0
        for _ in range(3):
            start = rng.normal(size=(m + 1) * (d + k))
            res = minimize(
                lambda p, m=m, d=d, k=k, ridge=ridge: -ratio(p, m, d, k, ridge),
                start,
                method="Nelder-Mead",
                options={"maxiter": 2000, "xatol": 1e-9, "fatol": 1e-12},
            )
            best = max(best, -res.fun)
        assert best <= 1 + 1e-9
        assert best > 0.6


def test_projection_is_nonexpansive_and_bounded():
    rng = np.random.default_rng(11)
    for _ in range(500):
        a, b = rng.normal(size=(2, 5, 2)) * rng.uniform(0.1, 5)
        radius = rng.uniform(0.05, 3)
        pa, pb = project_frobenius(a, radius), project_frobenius(b, radius)
        assert np.linalg.norm(pa) <= radius
        assert np.linalg.norm(pa - pb) <= np.linalg.norm(a - b) * (1 + 1e-12)
        if np.linalg.norm(a) <= radius:
            assert pa is a


def test_clip_rows():
    rows = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    np.testing.assert_allclose(clip_rows(rows, 1.0), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])
    assert (
        np.linalg.norm(clip_rows(np.random.default_rng(0).normal(size=(1000, 7)), 0.3), axis=1)
        <= 0.3
    ).all()


# --------------------------------------------------------------------------- utility


def test_debiased_gram_is_unbiased_and_noise_error_is_exact():
    """Monte Carlo over N: E[VᵀV − dσ²I] = vᵀv, E‖·−vᵀv‖² = 2(k+1)σ²‖v‖² + dk(k+1)σ⁴."""
    rng = np.random.default_rng(18)
    d, k, sigma, reps = 6, 2, 0.7, 40_000
    v = rng.normal(size=(d, k))
    noisy = v + sigma * rng.normal(size=(reps, d, k))
    grams = np.einsum("rdi,rdj->rij", noisy, noisy) - d * sigma**2 * np.eye(k)
    errors = grams - v.T @ v
    se = errors.std(axis=0) / math.sqrt(reps)
    assert (np.abs(errors.mean(axis=0)) <= 5 * se).all()
    mse = (errors**2).sum(axis=(1, 2))
    predicted = (
        gram_error_bound(sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=None)
        ** 2
    )
    assert mse.mean() == pytest.approx(predicted, abs=5 * mse.std() / math.sqrt(reps))


def test_simulated_gram_errors_match_the_error_formula():
    """gram_estimate_errors: RMS error ≈ the exact noise term + a small sampling term."""
    rng = np.random.default_rng(22)
    d, k, sigma, n = 20, 2, 0.3, 50_000
    v = rng.normal(size=(d, k)) * 0.4
    errors = gram_estimate_errors(v, sigma=sigma, n_syn=n, repeats=400, random_state=1)
    rmse = math.sqrt(np.mean(errors**2)) * np.linalg.norm(v.T @ v)
    noise_only = gram_error_bound(
        sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=None
    )
    bound = gram_error_bound(sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=n)
    assert noise_only < bound < 1.05 * noise_only  # the sampling term is small here
    assert rmse == pytest.approx(noise_only, rel=0.12)  # 400 draws: ~7% relative s.e. of MSE
    np.testing.assert_array_equal(
        errors, gram_estimate_errors(v, sigma=sigma, n_syn=n, repeats=400, random_state=1)
    )


def test_debiased_gram_input_checks():
    with pytest.raises(InputError):
        debiased_gram(np.ones(3), sigma=1, dim=2, seed_scale=1)
    with pytest.raises(InputError):
        debiased_gram(np.ones((3, 1)), sigma=0, dim=2, seed_scale=1)


def test_row_norms_match_mpmath_over_the_whole_float_range():
    import mpmath

    from synthamp.release import row_norms

    rng = np.random.default_rng(5)
    exponents = rng.integers(-320, 308, size=(300, 1))
    rows = rng.uniform(-1, 1, size=(300, 4)) * 10.0 ** exponents.astype(float)
    rows[:10] = np.finfo(np.float64).max / 2  # norm 1.8e308 · √4 / 2 ≈ max: still finite
    rows[10] = [1e308, -1e308, 1e-320, 0.0]
    rows[11] = 0.0
    with mpmath.workdps(40):
        reference = [
            float(mpmath.sqrt(sum(mpmath.mpf(float(v)) ** 2 for v in row))) for row in rows
        ]
    computed = row_norms(rows)
    normal = np.array(reference) > np.finfo(np.float64).tiny
    np.testing.assert_allclose(computed[normal], np.array(reference)[normal], rtol=4e-16)
    np.testing.assert_allclose(computed[~normal], np.array(reference)[~normal], atol=1e-323)
    assert np.isfinite(computed).all()
