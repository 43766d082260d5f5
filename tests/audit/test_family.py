"""Tests of the family estimator of the audit (synthamp.audit._family).

References, none of them the estimator's own output:

* coverage: repeated audits of pairs whose ε(δ) is known exactly (the Gaussian
  mechanism: Balle–Wang, tested against mpmath and dp_accounting in
  test_audit.py; the χ²_d pair: ``pair_epsilon``, tested there against mpmath
  tails and the engine's likelihood ratio); the same simulation run on the
  plug-in estimate (no band) must fail, so the coverage test can fail;
* the amplitude bounds: at a↓ the band condition is active, checked with the
  χ²_d(θ²) distribution function by mpmath quadrature of its Bessel density
  (independent of the Poisson-mixture and Boost routes of the library);
* the DKW half-width: its defining identity exp(−2nw²) = level, and the
  one-sided exceedance frequency of a simulated uniform sample.

All random tests are seeded.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from synthamp import InputError, Kind
from synthamp.accountant import GaussianRelease, SyntheticDataRelease
from synthamp.audit import _family, audit_release, gaussian_epsilon, pair_epsilon, sample_statistic
from synthamp.audit._family import (
    CHECK_POINTS,
    FIT_LEVEL,
    dkw_width,
    family_epsilon_lower_bound,
)
from synthamp.audit._release import audit_pair, family_audit, law_pair_epsilon
from synthamp.divergence._laws import GaussianLaw, NoncentralChiSquare, ProductLaw

#: The README example: d = 50, C = 2, Δ = σ = 1, unlimited; its exact ε at δ = 1e-5
#: (the accountant's PLD ε, equal to the pair's) is 1.338.
README = SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0)


def _binomial_ceiling(rate: float, repeats: int) -> float:
    """3 standard deviations above ``rate``: the tolerance of an observed frequency."""
    return rate + 3.0 * math.sqrt(rate * (1.0 - rate) / repeats)


# --------------------------------------------------------------------------- the band


def test_dkw_width_identity_and_one_sided_exceedance():
    for n, level in ((10, 0.25), (1000, 0.025), (10**6, 1e-4)):
        w = dkw_width(n, level)
        assert math.exp(-2.0 * n * w * w) == pytest.approx(level, rel=1e-12)
    with pytest.raises(InputError, match="confidence"):
        dkw_width(100, 0.6)
    # sup_x F(x) − F̂(x⁻) for uniforms: exceeds w with frequency <= level (Massart 1990)
    rng = np.random.default_rng(5)
    n, level, repeats = 200, 0.2, 2000
    u = np.sort(rng.uniform(size=(repeats, n)), axis=1)
    excess = np.max(u - np.arange(n) / n, axis=1)
    freq = np.mean(excess > dkw_width(n, level))
    assert freq <= _binomial_ceiling(level, repeats)
    assert freq > level / 3  # the bound is nearly attained: a wrong width would show


def _ncx2_cdf_mp(x: float, dim: int, amp: float) -> float:
    """P(χ²_d(amp²) <= x) by quadrature of the Bessel form of the density (mpmath)."""
    with mp.workdps(30):
        lam, nu = mp.mpf(amp) ** 2, mp.mpf(dim) / 2 - 1

        def density(t):
            if t == 0:
                return mp.mpf(0)
            return (
                mp.exp(-(t + lam) / 2)
                / 2
                * (t / lam) ** (nu / 2)
                * mp.besseli(nu, mp.sqrt(lam * t))
            )

        return float(mp.quad(density, [0, mp.mpf(dim), mp.mpf(x)]))


def test_amplitude_bound_is_the_active_band_condition():
    """At a↓ some check point has F_{a↓}(x) = F̂(x⁻) + w (mpmath); just below, none exceeds."""
    rng = np.random.default_rng(11)
    dim, amp, n = 10, 2.0, 4000
    scores = np.sort(rng.noncentral_chisquare(dim, amp * amp, n))
    w = dkw_width(n, 0.025)
    bands = _family._Bands(scores, lambda t: NoncentralChiSquare(dim, t), amp, 0.0)
    low = bands.lowest(w)
    x = np.exp(bands.t)
    ours = np.exp(NoncentralChiSquare(dim, low).log_tail(bands.t, False))
    j = int(np.argmax(ours - bands.below))
    assert ours[j] - bands.below[j] == pytest.approx(w, abs=1e-7)
    for k in (j - 1, j, j + 1):  # the binding point and its neighbours, by mpmath
        assert _ncx2_cdf_mp(float(x[k]), dim, low) == pytest.approx(ours[k], abs=1e-10)
    assert low < amp  # the truth lies in the confidence set here
    assert bands.t.size == min(n, CHECK_POINTS)


# --------------------------------------------------------------------------- the proof's step 3


@pytest.mark.parametrize(
    "law_of",
    [lambda t: NoncentralChiSquare(50, t), lambda t: ProductLaw(10, t, 30), GaussianLaw],
    ids=["chi2", "product", "gaussian"],
)
def test_pair_epsilon_is_monotone_in_both_amplitudes(law_of):
    """ε(L(a), L(b)) rises with a and falls with b (b < a): what makes (a↓, b↑) safe."""
    grid = [0.5, 1.25, 2.0, 2.75]
    eps = {
        (i, j): law_pair_epsilon(law_of(grid[i]), law_of(grid[j]), 1e-3)
        for i in range(len(grid))
        for j in range(i)  # b = grid[j] < a = grid[i]
    }
    for (i, j), value in eps.items():
        if (i + 1, j) in eps:
            assert eps[i + 1, j] > value
        if (i, j + 1) in eps:
            assert eps[i, j + 1] < value


# --------------------------------------------------------------------------- coverage


def _coverage_failures(release, delta, truth, confidence, trials, repeats, seed) -> float:
    """Frequency of ε_lower > ε_true over ``repeats`` audits (the estimator of audit_release)."""
    pair, failures = audit_pair(release), 0
    for r in range(repeats):
        scores_p, scores_q = sample_statistic(release, trials, seed + r)
        failures += family_audit(pair, scores_p, scores_q, delta, confidence).epsilon > truth
    return failures / repeats


@pytest.mark.parametrize("confidence", [0.5, 0.95])
def test_coverage_on_the_gaussian_mechanism(confidence):
    """P(ε_lower > ε_true) <= 1 − γ, ε_true by Balle–Wang (γ = 0.5 to see violations;
    measured 19% at γ = 0.5, 0.3% at γ = 0.95: DKW's bands are conservative)."""
    release, delta, repeats = GaussianRelease(1.0, 1.0), 1e-5, 300
    truth = gaussian_epsilon(delta, 1.0)
    freq = _coverage_failures(release, delta, truth, confidence, 2000, repeats, 100)
    assert freq <= _binomial_ceiling(1.0 - confidence, repeats)


def test_coverage_test_fails_bands_half_as_wide(monkeypatch):
    """The same simulation rejects bands half as wide as DKW's: it can fail (measured:
    41% of the bounds above the truth at γ = 0.95; with DKW's bands 0.3%)."""
    width = _family.dkw_width  # keep the goodness-of-fit band, shrink the confidence bands
    monkeypatch.setattr(
        _family,
        "dkw_width",
        lambda n, level: width(n, level) * (1.0 if level <= FIT_LEVEL else 0.5),
    )
    release, delta, repeats = GaussianRelease(1.0, 1.0), 1e-5, 300
    truth = gaussian_epsilon(delta, 1.0)
    freq = _coverage_failures(release, delta, truth, 0.95, 2000, repeats, 100)
    assert freq > 2 * _binomial_ceiling(0.05, repeats)


def test_coverage_on_the_chi_square_pair():
    """Unlimited release (χ²_d pair), ε_true = pair_epsilon, γ = 0.5 (measured 19%)."""
    release, delta, repeats = SyntheticDataRelease(10, 1, 2.0, 1.0, 1.0), 1e-3, 120
    truth = pair_epsilon(release, delta).epsilon
    freq = _coverage_failures(release, delta, truth, 0.5, 2000, repeats, 7)
    assert freq <= _binomial_ceiling(0.5, repeats)


# --------------------------------------------------------------------------- tightness


def test_readme_example_reaches_090_of_the_exact_epsilon():
    """d = 50, C = 2, Δ = σ = 1, δ = 1e-5: tightness >= 0.9 at 10^5 trials (measured
    0.955 with seed 1), and never above the exact ε (= the accountant's PLD ε)."""
    exact = pair_epsilon(README, 1e-5).epsilon
    assert exact == pytest.approx(1.338, abs=1e-3)
    for seed in range(3):
        result = audit_release(README, 1e-5, trials=100_000, random_state=seed, epsilon_upper=exact)
        assert result.estimator == "family" and result.family.fits
        assert 0.9 * exact <= result.epsilon_lower <= exact
        assert result.epsilon_lower > result.epsilon_threshold  # the whole curve beats one test
        assert result.epsilon_threshold == result.test.epsilon


@pytest.mark.slow
def test_readme_example_at_a_million_trials_and_finite_release():
    """10^6 trials: tightness >= 0.97 (unlimited) and >= 0.97 of the pair's ε (n_syn = 1000)."""
    exact = pair_epsilon(README, 1e-5).epsilon
    result = audit_release(README, 1e-5, trials=10**6, random_state=1, epsilon_upper=exact)
    assert 0.97 * exact <= result.epsilon_lower <= exact
    finite = SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0, n_syn=1000)
    pair = pair_epsilon(finite, 1e-5).epsilon
    result = audit_release(finite, 1e-5, trials=10**6, random_state=1, epsilon_upper=10.0)
    assert result.family.fits and 0.97 * pair <= result.epsilon_lower <= pair


# --------------------------------------------------------------------------- fit, fields


def test_a_wrong_family_is_rejected_and_gives_zero():
    """Scores N(μ, 2²) are not in {N(θ, 1)}: the goodness-of-fit band rejects them."""
    rng = np.random.default_rng(3)
    p, q = 1.0 + 2.0 * rng.standard_normal(20_000), 2.0 * rng.standard_normal(20_000)
    result = family_epsilon_lower_bound(
        p,
        q,
        1e-5,
        law_of=GaussianLaw,
        pair_epsilon=law_pair_epsilon,
        start_p=1.0,
        start_q=0.0,
        lower_limit=-math.inf,
    )
    assert not result.fits and result.epsilon == 0.0
    assert result.fit_p[0] > result.fit_p[1]


def test_true_family_fits_and_fields():
    scores_p, scores_q = sample_statistic(README, 20_000, 2)
    result = audit_release(README, 1e-5, trials=20_000, random_state=2, epsilon_upper=2.0)
    fam = result.family
    assert fam.fits and fam.trials == (20_000, 20_000) and fam.family == "chi2_50(theta^2)"
    assert fam.fit_p[0] <= fam.amp_p_lower <= 2.0 <= fam.fit_p[1]  # wider fit band
    assert fam.fit_q[0] <= 1.0 <= fam.amp_q_upper <= fam.fit_q[1]
    assert fam.band_p == pytest.approx(math.sqrt(math.log(40.0) / 40_000))
    assert result.epsilon_lower == fam.epsilon
    # the estimator is a function of the trials: the same with scores given directly
    direct = family_epsilon_lower_bound(
        scores_p,
        scores_q,
        1e-5,
        law_of=lambda t: NoncentralChiSquare(50, t),
        pair_epsilon=law_pair_epsilon,
        start_p=2.0,
        start_q=1.0,
    )
    assert direct.epsilon == pytest.approx(fam.epsilon, rel=1e-9)
    old = audit_release(README, 1e-5, trials=20_000, random_state=2, estimator="threshold")
    assert old.estimator == "threshold" and old.family is None
    assert old.epsilon_lower == old.test.epsilon == result.epsilon_threshold
    with pytest.raises(InputError, match="estimator"):
        audit_release(README, 1e-5, trials=10, estimator="gdp")
    with pytest.raises(InputError, match="scores_p"):
        family_epsilon_lower_bound(
            [1.0], [1.0, 2.0], 1e-5, law_of=GaussianLaw, pair_epsilon=law_pair_epsilon,
            start_p=0.0, start_q=0.0,
        )  # fmt: skip
    assert family_epsilon_lower_bound.kind is Kind.CERTIFIED
