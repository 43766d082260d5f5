"""The T-fold composition by one FFT power (synthamp.accountant._pld_power).

Checked against independent references: the Gaussian mechanism, whose T-fold
composition is the Gaussian of μ√T (its δ(ε) in closed form, evaluated with
mpmath at 30 digits here); the T-fold convolution of a small PMF computed
exactly in mpmath; and the repeated squaring of the previous version, which
the power must match within the error it reports.
"""

from __future__ import annotations

import math
import time
import warnings

import mpmath
import numpy as np
import pytest

from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._pld import compute_epsilon_pld, privacy_loss_distribution
from synthamp.accountant._pld_power import chernoff_window, fft_power

DELTA = 1e-5


def _gaussian_delta(epsilon: float, mu: float) -> mpmath.mpf:
    """δ(ε) of the Gaussian of mean μ²/2 and variance μ² (Balle and Wang 2018), mpmath."""
    with mpmath.workdps(30):
        e, m = mpmath.mpf(epsilon), mpmath.mpf(mu)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def _gaussian_epsilon(delta: float, mu: float) -> float:
    """The root of δ(ε) = delta by bisection (δ decreases in ε), to 1e-15."""
    lo, hi = 0.0, 60.0
    while hi - lo > 1e-15 * max(hi, 1.0):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _gaussian_delta(mid, mu) > delta else (lo, mid)
    return hi


def _squaring(pld, count: int):
    """The repeated squaring the power replaced (composition by 2·log₂T convolutions)."""
    result, power = None, pld
    while True:
        if count & 1:
            result = power if result is None else result.compose(power)
        count >>= 1
        if not count:
            return result
        power = power.compose(power)


@pytest.mark.parametrize(("releases", "mu"), [(10, 1.0), (1000, 1.0), (1000, 3.0), (10**5, 2.0)])
def test_gaussian_composition_brackets_the_exact_gaussian(releases, mu):
    """ε_lower <= ε(μ√T) exact <= ε by the FFT power, and δ above the exact δ at every ε."""
    sigma = math.sqrt(releases) / mu
    result = compute_epsilon_pld(GaussianRelease(1.0, sigma, releases), DELTA)
    exact = _gaussian_epsilon(DELTA, mu)
    assert result.epsilon_lower <= exact <= result.epsilon
    assert result.epsilon - exact <= result.epsilon - result.epsilon_lower
    pld = privacy_loss_distribution(GaussianRelease(1.0, sigma, releases))
    for eps in np.linspace(0.0, 2.0 * exact, 9):
        assert pld.delta(eps)[0] >= float(_gaussian_delta(eps, mu))


def test_power_reports_its_rounding_and_stays_above_the_exact_gaussian_at_1e7():
    """T = 10⁷ (bound ~T·u: float64's too large, done in long double): still above the
    exact ε, and the rounding bound it adds stays far below δ."""
    releases, mu = 10**7, 1.0
    release = GaussianRelease(1.0, math.sqrt(releases) / mu, releases)
    result = compute_epsilon_pld(release, DELTA)
    assert _gaussian_epsilon(DELTA, mu) <= result.epsilon
    composed = privacy_loss_distribution(release).remove
    single = privacy_loss_distribution(GaussianRelease(1.0, math.sqrt(releases) / mu)).remove
    stated = composed.infinity_mass - (1.0 - (1.0 - single.infinity_mass) ** releases)
    assert 0.0 < stated < DELTA / 100


@pytest.mark.parametrize("tail_mass", [1e-15, 1e-4])
def test_error_bound_covers_the_exact_convolution(tail_mass):
    """The reported error bounds L1(computed − exact) on the window and the mass outside it.

    The exact T-fold convolution of a small PMF is computed in mpmath (40 digits);
    with tail_mass 1e-4 the Chernoff window is narrower than the support, so the
    aliasing part of the bound is exercised too.
    """
    rng = np.random.default_rng(3)
    probs = rng.random(7) ** 3
    probs /= probs.sum()
    count = 60
    window = chernoff_window(probs, count, tail_mass)
    a, b, whole = window
    assert tail_mass < 1e-4 or not whole  # the wide tail cuts the window
    masses, error = fft_power(probs, count, window, tail_mass)
    with mpmath.workdps(40):
        exact = [mpmath.mpf(1)]
        for _ in range(count):
            nxt = [mpmath.mpf(0)] * (len(exact) + probs.size - 1)
            for i, x in enumerate(exact):
                for j, y in enumerate(probs):
                    nxt[i + j] += x * mpmath.mpf(float(y))
            exact = nxt
        inside = sum(abs(mpmath.mpf(float(masses[k])) - exact[a + k]) for k in range(b - a + 1))
        outside = sum(exact[:a]) + sum(exact[b + 1 :])
    assert float(outside) <= tail_mass
    assert float(inside) <= error
    assert float(outside) <= error


@pytest.mark.parametrize(
    "release",
    [
        GaussianRelease(1.0, 10.0),
        SyntheticDataRelease(100, 1, 2.0, 0.5, 7.0),
    ],
)
def test_power_agrees_with_repeated_squaring_within_its_reported_error(release):
    """|δ_power(ε) − δ_squaring(ε)| <= the power's error + the squaring's cut mass, every ε."""
    count = 300
    single = privacy_loss_distribution(release)
    for direction in single.directions:
        power = direction.self_compose(count)
        squared = _squaring(direction, count)
        stated = power.infinity_mass - (1.0 - (1.0 - direction.infinity_mass) ** count)
        assert 0.0 < stated < 1e-8
        cut = squared.infinity_mass - (1.0 - (1.0 - direction.infinity_mass) ** count)
        grid = np.linspace(0.0, float(power.losses[-1]), 41)
        gap = np.abs(power.delta(grid) - squared.delta(grid))
        assert np.all(gap <= stated + cut)
        # the companions: the power's lower bound reads ε at δ + its slack
        low = power.lower_bound
        assert low.delta_slack > 0.0
        assert low.epsilon_lower_at(DELTA) <= squared.lower_bound.epsilon(DELTA) + 1e-12
        assert low.epsilon_lower_at(DELTA) <= power.epsilon(DELTA)


def test_compute_epsilon_at_1e9_releases_returns_within_the_budget():
    """T = 10⁹ (the PLD's window would pass its largest grid): the rule returns within the
    budget, names the RDP fallback, and the RDP ε stands in."""
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 2.0, releases=10**9)
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the RDP optimum at the grid's edge: not the point)
        guarantee = compute_epsilon(release, DELTA, time_budget=5.0)
    assert time.monotonic() - start < 5.0
    assert guarantee.accountant == "rdp"
    assert "PLD composition of 1,000,000,000 releases" in guarantee.pld_fallback
    assert guarantee.epsilon == guarantee.epsilon_rdp


def test_a_long_power_at_1e9_releases_stops_at_the_budget_and_says_so():
    """T = 10⁹ at σ = 20 (a window of ~1.7·10⁶ points, in long double: seconds per
    transform): with a 0.2 s budget the PLD stops before its next transform and the
    RDP accountant's ε stands in, named."""
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 20.0, releases=10**9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        guarantee = compute_epsilon(release, DELTA, time_budget=0.2)
    assert guarantee.accountant == "rdp"
    assert "ran past its time budget" in guarantee.pld_fallback


def test_compute_epsilon_at_1e9_releases_at_sigma_20_returns_within_its_budget():
    """σ = 20 (a PLD of ~1.7·10⁶ points per direction, in long double): the whole call
    (RDP, then the PLD with what is left) returns within a 3 s budget, plus the post-
    processing comparison; the PLD stops before a transform that cannot end in time."""
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 20.0, releases=10**9)
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        guarantee = compute_epsilon(release, DELTA, time_budget=3.0)
    assert time.monotonic() - start < 3.0 + 0.5
    assert guarantee.accountant == "rdp" and "time budget" in guarantee.pld_fallback
