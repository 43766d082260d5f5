"""The best anchors for the records' statistic (docs/theory.md §18), from independent references.

- The Laplace mechanism on a scalar: its hockey-stick divergence from the two Laplace densities
  integrated in mpmath (not from the closed form), one release and two releases composed
  (the PLD interval must bracket the exact ε); its advantage over the Gaussian mechanism at
  (1, 1e-5) (2.6×) and the number of releases from which the Gaussian wins.
- The trace-shaped Gaussian on a k × k Gram: its sensitivity by brute force over adjacent pairs,
  in the metric of its noise built as an explicit covariance on the symmetric matrices, and
  its RMSE against isotropic Analyze Gauss (0.88× for k = 2, 0.94× for k = 3).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from synthamp.accountant._laplace import laplace_calibration, laplace_delta
from synthamp.accountant._pld import gaussian_sigma
from synthamp.utility import (
    gaussian_gram_error,
    laplace_statistic_error,
    release_utility,
    trace_shaped_gram_error,
    trace_shaped_sensitivity,
)

# --------------------------------------------------------------------------- Laplace


def _hockey_stick_one(eps, mu):
    """δ(ε) of Lap(0, 1) against Lap(μ, 1): ∫ (p − e^ε q)₊ dx in mpmath, from the densities."""
    eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)

    def f(x):
        return max(mpmath.exp(-abs(x)) / 2 - mpmath.exp(eps) * mpmath.exp(-abs(x - mu)) / 2, 0)

    # the sign of p − e^ε q changes at most once in (0, μ): there x = (μ − ε)/2
    points = sorted({mpmath.mpf(0), mu, min(max((mu - eps) / 2, 0), mu)})
    return mpmath.quad(f, [-mpmath.inf, *points, mpmath.inf])


def _hockey_stick_two(eps, mu):
    """δ(ε) of two releases: E_{x ~ p}[δ₁(ε − ℓ(x))], ℓ = log p/q, δ₁ by :func:`_hockey_stick_one`
    in closed form checked against it (the product of two independent pairs)."""
    eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)

    def one(e):  # δ₁, the closed form verified by test_one_laplace_release_matches_the_densities
        if e >= mu:
            return mpmath.mpf(0)
        return 1 - mpmath.exp(e) if e < -mu else 1 - mpmath.exp((e - mu) / 2)

    def f(x):
        loss = abs(x - mu) - abs(x)
        return mpmath.exp(-abs(x)) / 2 * one(eps - loss)

    # kinks: 0, μ, and where ε − ℓ(x) = ±μ inside (0, μ) (ℓ = μ − 2x there)
    kinks = {mpmath.mpf(0), mu}
    for target in (mu, -mu):
        x = (mu - (eps - target)) / 2
        if 0 < x < mu:
            kinks.add(x)
    return mpmath.quad(f, [-mpmath.inf, *sorted(kinks), mpmath.inf])


@pytest.mark.parametrize("mu", [0.05, 1.0, 3.0])
def test_one_laplace_release_matches_the_densities(mu):
    mpmath.mp.dps = 30
    for eps in (-4.0, -mu, -0.5 * mu, 0.0, 0.3 * mu, 0.99 * mu, mu, mu + 1):
        ref = float(_hockey_stick_one(eps, mu))
        assert float(laplace_delta(eps, mu)) == pytest.approx(ref, rel=1e-12, abs=1e-25)


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-5), (0.3, 1e-6)])
def test_one_release_is_calibrated_exactly(epsilon, delta):
    """b = s/(ε − 2 log(1 − δ)): δ(ε) at that μ equals the target (mpmath, from the densities)."""
    mpmath.mp.dps = 30
    cal = laplace_calibration(epsilon, delta, sensitivity=2.0)
    assert float(_hockey_stick_one(epsilon, cal.mu)) == pytest.approx(delta, rel=1e-9)
    assert cal.scale == pytest.approx(2.0 / cal.mu, rel=1e-15) and cal.kind == "exact"
    # pure ε: μ = ε gives δ = 0, the textbook scale s/ε is within 2δ/ε of it
    assert cal.scale == pytest.approx(2.0 / epsilon, rel=3 * delta / epsilon)


def test_two_releases_composed_by_pld_bracket_the_exact_epsilon():
    mpmath.mp.dps = 25
    epsilon, delta = 1.0, 1e-5
    cal = laplace_calibration(epsilon, delta, sensitivity=1.0, releases=2)
    lower, upper = cal.epsilon_interval
    assert lower <= upper <= epsilon and upper - lower < 1e-3
    # the exact δ at the calibrated μ: above the target at the interval's lower end, below at
    # the upper end (the exact ε(δ) lies inside the interval)
    assert float(_hockey_stick_two(lower, cal.mu)) >= delta * (1 - 1e-9)
    assert float(_hockey_stick_two(upper, cal.mu)) <= delta * (1 + 1e-9)
    # and the calibration is not loose: a 1% larger μ exceeds the target
    assert float(_hockey_stick_two(epsilon, cal.mu * 1.01)) > delta


def test_laplace_beats_the_gaussian_on_one_scalar_and_loses_under_composition():
    """At (1, 1e-5): sd √2·B²/ε ≈ 1.414 against the Gaussian's 3.73·B²: 2.6× (one release)."""
    gauss = gaussian_sigma(1.0, 1e-5, 1.0)
    laplace = laplace_statistic_error(1.0, 1e-5, statistic_sensitivity=1.0)
    assert gauss == pytest.approx(3.73, abs=0.005)
    assert laplace == pytest.approx(math.sqrt(2), rel=1e-4)
    assert gauss / laplace == pytest.approx(2.64, abs=0.005)

    def ratio(t):
        return gaussian_sigma(1.0, 1e-5, math.sqrt(t)) / laplace_statistic_error(
            1.0, 1e-5, statistic_sensitivity=1.0, releases=t
        )

    assert ratio(4) > 1.0 > ratio(10)  # the Gaussian wins from a handful of releases


def test_the_table_names_the_laplace_anchor_for_one_scalar():
    out = release_utility(
        epsilon=1.0, delta=1e-5, sigma=0.8, dim=200, out_dim=1, norm_bound=3.0,
        sensitivity=0.5, n_syn=10_000, label_bound=1.0, n_records=178,
    )  # fmt: skip
    rows = {(r["mechanism"], r["statistic"]): r for r in out["utility_table"]}
    laplace = rows["the Laplace mechanism on ‖v‖²", "vᵀv"]
    gauss = rows["the Gaussian mechanism on vᵀv (Analyze Gauss)", "vᵀv"]
    assert laplace["best"] and not gauss["best"] and laplace["n_syn"] is None
    assert gauss["rmse"] / laplace["rmse"] == pytest.approx(2.64, abs=0.01)
    targets = rows["the Laplace mechanism on Σyᵢ²", "YᵀY/m"]
    assert targets["rmse"] == pytest.approx(math.sqrt(2) / (1 + 2e-5) / 178, rel=1e-6)
    assert "the Laplace mechanism on ‖v‖²" in out["utility_verdict"].splitlines()[0]


# --------------------------------------------------------------------------- trace-shaped


def _symmetric_basis(k: int) -> np.ndarray:
    """An orthonormal basis (Frobenius) of the symmetric k × k matrices, as rows of k² entries."""
    basis = []
    for i, j in itertools.combinations_with_replacement(range(k), 2):
        e = np.zeros((k, k))
        if i == j:
            e[i, i] = 1.0
        else:
            e[i, j] = e[j, i] = 1 / math.sqrt(2)
        basis.append(e.ravel())
    return np.array(basis)


def _trace_shaped_covariance(k: int, a: float) -> np.ndarray:
    """The noise's covariance in that basis: a on the trace-free part, a/(k + 1) on I/√k."""
    basis = _symmetric_basis(k)
    u = basis @ (np.eye(k).ravel() / math.sqrt(k))  # I/√k in the basis (unit norm)
    project = np.outer(u, u)
    return a * (np.eye(len(u)) - project) + a / (k + 1) * project


def _mahalanobis(delta_gram: np.ndarray, covariance: np.ndarray) -> float:
    k = delta_gram.shape[0]
    x = _symmetric_basis(k) @ delta_gram.ravel()
    return float(math.sqrt(x @ np.linalg.solve(covariance, x)))


def _adjacent_targets(rng, k: int, b: float):
    """Replace-one pairs (y, y′), ‖y‖, ‖y′‖ ≤ B: random, and the extreme ones."""
    unit = np.eye(k)
    yield b * unit[0], np.zeros(k)
    yield b * unit[0], b * unit[1]
    yield b * unit[0], -b * unit[0]
    yield b * unit[0], b * (unit[0] + unit[1]) / math.sqrt(2)
    yield b * unit[0], b / 2 * unit[1]
    for _ in range(3000):
        y, z = rng.standard_normal(k), rng.standard_normal(k)
        y *= b * rng.uniform() ** 0.2 / np.linalg.norm(y)
        z *= b * rng.uniform() ** 0.2 / np.linalg.norm(z)
        yield y, z


@pytest.mark.parametrize("k", [2, 3])
def test_trace_shaped_sensitivity_by_brute_force_over_adjacent_targets(k):
    """‖ΔG‖²_F + (tr ΔG)² ≤ 2B⁴ for ΔG = yyᵀ − y′y′ᵀ: in the noise's metric (a = 1) every
    change is at most the calibrated sensitivity, and the bound is reached."""
    rng = np.random.default_rng(k)
    b = 1.7
    covariance = _trace_shaped_covariance(k, 1.0)
    calibrated = trace_shaped_sensitivity(b)
    seen = [
        _mahalanobis(np.outer(y, y) - np.outer(z, z), covariance)
        for y, z in _adjacent_targets(rng, k, b)
    ]
    assert max(seen) <= calibrated * (1 + 1e-12)
    assert max(seen) == pytest.approx(calibrated, rel=1e-12)  # y = B e₁ → 0 or ⟂ reach it


@pytest.mark.parametrize("k", [2, 3])
def test_trace_shaped_sensitivity_by_brute_force_over_the_norm_model(k):
    """Gram matrices vᵀv, wᵀw of ‖v‖, ‖w‖ ≤ C, ‖v − w‖ ≤ Δ: at most min(√2·C², 2√2·CΔ)."""
    rng = np.random.default_rng(10 + k)
    d, c = 6, 1.3
    covariance = _trace_shaped_covariance(k, 1.0)
    for delta in (0.05, 0.4, 5.0):
        calibrated = trace_shaped_sensitivity(c, delta)
        worst = 0.0
        for _ in range(1500):
            v = rng.standard_normal((d, k))
            v *= c * rng.uniform() ** 0.1 / np.linalg.norm(v)
            step = rng.standard_normal((d, k))
            w = v + step * (delta * rng.uniform() ** 0.1 / np.linalg.norm(step))
            if np.linalg.norm(w) > c:
                w *= c / np.linalg.norm(w)
                if np.linalg.norm(w - v) > delta:
                    continue
            worst = max(worst, _mahalanobis(v.T @ v - w.T @ w, covariance))
        assert worst <= calibrated * (1 + 1e-12)


@pytest.mark.parametrize(("k", "ratio"), [(2, 0.88), (3, 0.94)])
def test_trace_shaped_gaussian_against_isotropic_analyze_gauss(k, ratio):
    """Where both have sensitivity √2·C² (Δ large), the RMSE ratio is 0.88 (k = 2), 0.94 (k = 3).

    The trace-shaped RMSE is √(tr Σ) of the explicit covariance; Analyze Gauss's is
    σ_G·√(k(k + 1)/2) (isotropic on the symmetric matrices)."""
    c = 1.0
    shaped = trace_shaped_gram_error(
        1.0, 1e-5, out_dim=k, trace_sensitivity=trace_shaped_sensitivity(c, 10.0)
    )
    a = gaussian_sigma(1.0, 1e-5, math.sqrt(2) * c * c)
    explicit = math.sqrt(np.trace(_trace_shaped_covariance(k, a**2)))
    assert shaped == pytest.approx(explicit, rel=1e-12)
    isotropic = gaussian_gram_error(1.0, 1e-5, norm_bound=c, sensitivity=10.0, out_dim=k)
    assert round(shaped / isotropic, 2) == ratio
    out = release_utility(
        epsilon=1.0, delta=1e-5, sigma=1.0, dim=50, out_dim=k, norm_bound=c, sensitivity=10.0,
        n_syn=None,
    )  # fmt: skip
    best = next(r for r in out["utility_table"] if r["best"] and r["statistic"] == "vᵀv")
    assert best["mechanism"] == "the trace-shaped Gaussian on vᵀv"
