"""The exact privacy profile δ(ε) (synthamp.accountant._profile; docs/theory.md §14).

References are independent of the library: mpmath at 30+ digits by two routes
(the threshold form with tails from the Poisson mixture of regularised gamma
functions; the direct integral E_P[(1 − e^{ε − L})_+] of 40-digit densities),
Monte Carlo on 10^6 draws, and a dense scan of the adjacent set for the
worst case.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import mpref
from synthamp import InputError, Kind, log_likelihood_ratio
from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._profile import (
    pair_privacy_profile,
    privacy_profile,
    profile_epsilon,
)
from synthamp.audit import gaussian_delta

# --------------------------------------------------------------------------- references


def _ncx2_tail_mp(x, dim: int, amp: float, upper: bool):
    """P(Y > x) or P(Y <= x), Y ~ χ²_d(amp²): Poisson mixture of regularised gammas."""
    lam2 = mp.mpf(amp) ** 2 / 2
    total, j = mp.mpf(0), 0
    while True:
        weight = mp.exp(-lam2) * lam2**j / mp.factorial(j)
        a = mp.mpf(dim) / 2 + j
        part = (
            mp.gammainc(a, x / 2, mp.inf, regularized=True)
            if upper
            else mp.gammainc(a, 0, x / 2, regularized=True)
        )
        total += weight * part
        if j > lam2 + 10 and weight < mp.mpf(10) ** -40:
            return total
        j += 1


def _threshold_mp(eps: float, dim: int, a: float, b: float, guess: float):
    """x with L(x) = ε (40-digit log-likelihood ratio of mpref), by secant from a guess."""
    with mp.workdps(40):
        return mp.findroot(lambda x: mpref.log_likelihood_ratio(x, dim, a, b) - eps, guess)


def _guess(eps: float, dim: int, a: float, b: float) -> float:
    from scipy import optimize

    f = lambda t: float(log_likelihood_ratio(math.exp(t), dim, a, b)) - eps  # noqa: E731
    return math.exp(optimize.brentq(f, -30.0, math.log(50.0 * (dim + max(a, b) ** 2 + 50))))


def _delta_threshold_mp(eps: float, dim: int, a: float, b: float) -> float:
    """Route 1: P_a(A) − e^ε P_b(A), A = {L > ε} a tail of x (upper if a > b)."""
    x = _threshold_mp(eps, dim, a, b, _guess(eps, dim, a, b))
    with mp.workdps(40):
        upper = a > b
        pa = _ncx2_tail_mp(x, dim, a, upper)
        pb = _ncx2_tail_mp(x, dim, b, upper)
        return float(pa - mp.exp(eps) * pb)


def _delta_direct_mp(eps: float, dim: int, a: float, b: float) -> float:
    """Route 2: ∫ p_a (1 − e^{ε − L})_+ dx with 40-digit densities (no tails)."""
    x_eps = _threshold_mp(eps, dim, a, b, _guess(eps, dim, a, b))
    with mp.workdps(30):

        def integrand(x):
            lp = mpref.ncx2_logpdf(x, dim, a)
            lq = mpref.ncx2_logpdf(x, dim, b)
            return mp.exp(lp) - mp.exp(eps + lq)

        mean, sd = dim + max(a, b) ** 2, math.sqrt(2 * (dim + 2 * max(a, b) ** 2))
        if a > b:
            pts = [x_eps] + [x_eps + k * sd for k in (1, 3, 8, 20, 40)] + [mp.inf]
        else:
            pts = [mp.mpf(0)] + [x_eps * f for f in (1e-6, 1e-3, 0.1, 0.5)] + [x_eps]
        del mean
        return float(mp.quad(integrand, pts))


PAIRS = [  # (dim, a, b, ε)
    (5, 2.0, 1.0, 0.5),
    (50, 3.0, 2.0, 1.0),
    (50, 3.0, 2.0, 2.5),
    (1, 2.0, 0.5, 2.0),
    pytest.param(300, 8.0, 7.0, 0.3, marks=pytest.mark.slow),
    (50, 2.0, 3.0, 0.5),  # reverse order: lower tail, L bounded above
    (10, 0.0, 1.5, 0.2),
]


@pytest.mark.parametrize(("dim", "a", "b", "eps"), PAIRS)
def test_pair_delta_matches_mpmath_two_routes(dim, a, b, eps):
    upper, lower = pair_privacy_profile([eps], dim, a, b)
    route1 = _delta_threshold_mp(eps, dim, a, b)
    route2 = _delta_direct_mp(eps, dim, a, b)
    assert route1 == pytest.approx(route2, rel=1e-12)  # the references agree
    centre = 0.5 * (upper[0] + lower[0])
    assert centre == pytest.approx(route1, rel=1e-10)
    assert lower[0] <= route1 * (1 + 1e-14) and route1 <= upper[0] * (1 + 1e-14)


@pytest.mark.slow
def test_pair_delta_matches_monte_carlo():
    dim, a, b = 20, 3.0, 2.0
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    rng = np.random.default_rng(20261201)
    x = rng.noncentral_chisquare(dim, a * a, 10**6)
    # scipy's log-densities (fine at d = 20): independent of the library's L
    loss = stats.ncx2.logpdf(x, dim, a * a) - stats.ncx2.logpdf(x, dim, b * b)
    samples = np.maximum(1.0 - np.exp(eps[:, None] - loss[None, :]), 0.0)
    mean, se = samples.mean(axis=1), samples.std(axis=1) / math.sqrt(x.size)
    upper, _ = pair_privacy_profile(eps, dim, a, b)
    assert np.all(np.abs(mean - upper) <= 4 * se)


# --------------------------------------------------------------------------- the release


def test_profile_of_k_above_one_is_gaussian_with_effective_sensitivity():
    release = SyntheticDataRelease(50, 3, 1.0, 5.0, 0.8)
    eps = np.linspace(0, 4, 9)
    profile = privacy_profile(release, eps)
    assert profile.kind is Kind.CERTIFIED
    np.testing.assert_allclose(profile.delta, gaussian_delta(eps, 2.0, 0.8), rtol=1e-15)
    gauss = privacy_profile(GaussianRelease(0.5, 1.0), eps)
    assert gauss.kind is Kind.EXACT


def test_profile_is_the_symmetrised_endpoint_and_epsilon_inverts_it():
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)
    eps = np.array([0.0, 0.3, 0.9, 1.5])
    profile = privacy_profile(release, eps)
    assert profile.kind is Kind.EXACT and not profile.fallback
    c, b = 2.0 / 0.7458, 1.5 / 0.7458
    fwd, _ = pair_privacy_profile(eps, 100, c, b)
    rev, _ = pair_privacy_profile(eps, 100, b, c)
    np.testing.assert_allclose(profile.delta, np.maximum(fwd, rev), rtol=1e-8)
    result = profile_epsilon(release, 1e-5)
    # docs/theory.md §14, an independent computation: ε = 0.8940 (RDP route 0.9999)
    assert result.epsilon == pytest.approx(0.8940, abs=1e-4)
    assert 0 <= result.epsilon - result.epsilon_lower < 1e-7
    at, _ = pair_privacy_profile([result.epsilon], 100, c, b)
    assert at[0] <= 1e-5
    assert result.epsilon < compute_epsilon(release, 1e-5, accountant="rdp").epsilon


def test_profile_epsilon_is_pessimistic_inverse():
    release = SyntheticDataRelease(30, 1, 1.0, 0.4, 0.5)
    for delta in (1e-3, 1e-8):
        result = profile_epsilon(release, delta)
        upper = privacy_profile(release, [result.epsilon, result.epsilon_lower * (1 - 1e-9)])
        assert upper.delta[0] <= delta * (1 + 1e-9)
        assert upper.delta_lower[1] >= delta * (1 - 1e-6)


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf])
def test_profile_rejects_bad_epsilon(bad):
    with pytest.raises(InputError, match="epsilon"):
        privacy_profile(SyntheticDataRelease(10, 1, 1.0, 0.5, 1.0), [0.0, bad])


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-5, 2.0])
def test_profile_epsilon_rejects_bad_delta(bad):
    with pytest.raises(InputError, match="delta"):
        profile_epsilon(SyntheticDataRelease(10, 1, 1.0, 0.5, 1.0), bad)


def test_profile_refuses_composed_release():
    with pytest.raises(InputError, match="releases"):
        privacy_profile(SyntheticDataRelease(10, 1, 1.0, 0.5, 1.0, releases=3), [1.0])


# ------------------------------------------------------------------------- soundness of the search

SCAN_SETTINGS = [  # (dim, C, Δ, σ, n_syn)
    (1, 2.0, 0.5, 1.0, None),
    (10, 3.0, 1.0, 1.0, None),
    (100, 2.0, 0.5, 0.7458, None),
    (10**3, 4.0, 1.0, 0.5, None),
    (10**5, 60.0, 3.0, 1.0, None),
    (20, 1.0, 3.0, 1.0, None),  # Δ > C: the two points (c, 0), (0, c)
]
SCAN_SETTINGS_FINITE = [(10, 2.0, 1.0, 1.0, 20)]


def _scan_pairs(c: float, s: float, points: int) -> list[tuple[float, float]]:
    """A grid of the square [0, c]² within distance s, plus the pairs at distance exactly s."""
    grid = np.linspace(0.0, c, points)
    pairs = [(x, y) for x in grid for y in grid if 0 < abs(x - y) <= s]
    g = min(s, c)
    for t in np.linspace(0.0, c - g, points):
        pairs += [(t + g, t), (t, t + g)]
    return pairs


def _check_scan(setting, points):
    dim, C, Delta, sigma, n_syn = setting
    release = SyntheticDataRelease(dim, 1, C, Delta, sigma, n_syn)
    deltas = (1e-3, 1e-5, 1e-8)
    eps = np.array([profile_epsilon(release, d).epsilon for d in deltas])
    for va, vb in _scan_pairs(C, Delta, points):
        _, lower = pair_privacy_profile(eps, dim, va, vb, sigma, n_syn)
        # the pair's exact δ at the accountant's ε(δ) never exceeds δ
        assert np.all(lower <= np.array(deltas) * (1 + 1e-9)), (va, vb)


@pytest.mark.parametrize("setting", SCAN_SETTINGS[:3])
def test_search_is_sound_on_a_scan(setting):
    _check_scan(setting, 4)


@pytest.mark.slow
@pytest.mark.parametrize("setting", SCAN_SETTINGS + SCAN_SETTINGS_FINITE)
def test_search_is_sound_on_a_dense_scan(setting):
    _check_scan(setting, 7 if setting[4] is None else 3)
