"""Tests of synthamp.audit: Clopper–Pearson bounds, the Gaussian privacy profile,
the exact ε of the audited pair, the empirical lower bound, soundness against the
accountant, the end-to-end audit of the generator (``synthamp audit``: tests/cli/test_cli_audit.py).

References, none of them the audit's own output:

* Clopper–Pearson: ``scipy.stats.binomtest(...).proportion_ci(method="exact")``,
  and the exact coverage Σ_k Bin(k; n, p)·1[p <= U(k)] from the binomial pmf;
* the Gaussian profile of Balle and Wang: the hockey-stick integral
  ∫ (φ(x − μ) − e^ε φ(x))₊ dx by mpmath quadrature, and Google's
  ``dp_accounting`` privacy-loss-distribution accountant;
* tails of χ²_d(a²): the Poisson mixture of regularised incomplete gamma
  functions in mpmath; tails of Y·X: adaptive ``scipy.integrate.quad`` over the
  other factor;
* the exact ε of a pair, at its optimal threshold τ*, equals the log-likelihood
  ratio log p(τ*)/q(τ*) of the exact engine (a stationarity condition tying
  the tail code to the independent Bessel code of ``synthamp.divergence``);
* soundness: empirical lower bound <= exact pair ε <= the accountant's ε.

All random tests are seeded.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from synthamp import InputError, Kind, log_likelihood_ratio, log_likelihood_ratio_finite
from synthamp.accountant import (
    GaussianRelease,
    OrderGridWarning,
    SyntheticDataRelease,
    compute_epsilon,
)
from synthamp.audit import (
    adjacent_datasets,
    audit_generator,
    audit_release,
    clopper_pearson_upper,
    epsilon_from_rates,
    epsilon_lower_bound,
    gaussian_delta,
    gaussian_epsilon,
    pair_epsilon,
    sample_statistic,
)
from synthamp.audit._release import threshold_epsilon as _threshold_epsilon
from synthamp.divergence._laws import GaussianLaw as _GaussianLaw
from synthamp.divergence._laws import NoncentralChiSquare as _ChiSquareLaw
from synthamp.divergence._laws import ProductLaw as _ProductLaw

# --------------------------------------------------------------------------- Clopper–Pearson


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 10**6),
    frac=st.floats(0.0, 1.0),
    confidence=st.floats(0.5, 0.999),
)
def test_clopper_pearson_matches_binomtest(n, frac, confidence):
    k = round(frac * n)
    ours = float(clopper_pearson_upper(k, n, confidence))
    # the one-sided bound at γ is the upper end of the two-sided interval at 2γ − 1
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=2 * confidence - 1, method="exact")
    # binomtest solves for the bound by root finding to an absolute tolerance of about
    # 1e-12 (visible at k = 0, where the closed form 1 − (1 − γ)^{1/n} is checked below)
    assert ours == pytest.approx(ci.high, rel=1e-9, abs=1e-11)


@pytest.mark.parametrize("n", [1, 7, 50, 400])
def test_clopper_pearson_exact_coverage(n):
    """P(p <= U(K)) >= γ for K ~ Bin(n, p), on a grid of p, and nearly = γ somewhere."""
    confidence = 0.9
    k = np.arange(n + 1)
    upper = clopper_pearson_upper(k, n, confidence)
    coverages = []
    for p in np.linspace(1e-4, 1 - 1e-4, 997):
        coverage = float(stats.binom.pmf(k, n, p) @ (upper >= p))
        assert coverage >= confidence - 1e-9
        coverages.append(coverage)
    assert min(coverages) < confidence + 0.02  # not trivially conservative


def test_clopper_pearson_edges_and_validation():
    assert float(clopper_pearson_upper(5, 5)) == 1.0
    for n in (1, 100, 10921, 10**6):
        closed_form = -math.expm1(math.log(0.05) / n)  # 1 − (1 − γ)^{1/n}
        assert float(clopper_pearson_upper(0, n, 0.95)) == pytest.approx(closed_form, rel=1e-14)
    with pytest.raises(InputError):
        clopper_pearson_upper(6, 5)
    with pytest.raises(InputError):
        clopper_pearson_upper(1.5, 5)
    with pytest.raises(InputError):
        clopper_pearson_upper(1, 5, confidence=1.0)


# --------------------------------------------------------------------------- rates → ε


def test_epsilon_from_rates_closed_form():
    delta = 1e-3
    assert float(epsilon_from_rates(0.01, 0.5, delta)) == pytest.approx(math.log(0.499 / 0.01))
    assert float(epsilon_from_rates(0.5, 0.01, delta)) == pytest.approx(math.log(0.499 / 0.01))
    assert float(epsilon_from_rates(0.5, 0.5, delta)) == 0.0  # a coin flip shows nothing
    assert float(epsilon_from_rates(0.0, 0.5, delta)) == math.inf
    assert float(epsilon_from_rates(0.3, 0.01, delta)) == pytest.approx(math.log(0.699 / 0.01))
    assert float(epsilon_from_rates(0.3, 1.0, delta)) == 0.0  # log(0.699) < 0: no evidence
    values = epsilon_from_rates(np.linspace(0.001, 0.4, 50), 0.3, delta)
    assert np.all(np.diff(values) < 0)  # decreasing in the rates
    with pytest.raises(InputError):
        epsilon_from_rates(1.5, 0.1, delta)


# --------------------------------------------------------------------------- Gaussian profile


def _hockey_stick_mp(mu: float, eps: float) -> float:
    """∫ (φ(x − μ) − e^ε φ(x))₊ dx by mpmath quadrature (positive part past the crossing)."""
    with mp.workdps(40):
        mu, eps = mp.mpf(mu), mp.mpf(eps)

        def diff(x):
            return mp.npdf(x, mu, 1) - mp.exp(eps) * mp.npdf(x, 0, 1)

        # the densities cross once; find it numerically (no closed form used)
        crossing = mp.findroot(lambda x: -((x - mu) ** 2) / 2 + x**2 / 2 - eps, mu / 2 + eps / mu)
        # beyond the crossing the integrand decays on the scale 1/crossing: break there
        scale = 1 / max(crossing, 1)
        points = [crossing + k * scale for k in (0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128)]
        return float(mp.quad(diff, [*points, mp.inf]))


@pytest.mark.parametrize(
    ("mu", "eps"), [(0.1, 0.0), (0.1, 3.0), (0.5, 10.0), (1.0, 0.3), (1.0, 3.0), (5.0, 1.0)]
)
def test_gaussian_delta_matches_numerical_integral(mu, eps):
    reference = _hockey_stick_mp(mu, eps)
    ours = float(gaussian_delta(eps, mu, 1.0))
    # the quadrature itself is good to ~1e-10 relative at δ ~ 1e-200 (μ = 0.1, ε = 3)
    assert ours == pytest.approx(reference, rel=1e-9, abs=1e-300)
    # natural units: only Δ/σ matters
    assert float(gaussian_delta(eps, 3.0 * mu, 3.0)) == pytest.approx(ours, rel=1e-12)


@pytest.mark.parametrize("mu", [0.2, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-2, 1e-5, 1e-9])
def test_gaussian_epsilon_inverts_delta(mu, delta):
    eps = gaussian_epsilon(delta, mu)
    assert float(gaussian_delta(eps, mu)) == pytest.approx(delta, rel=1e-9)
    assert gaussian_epsilon(0.999, mu) == 0.0


def test_gaussian_epsilon_matches_dp_accounting_pld():
    pld = pytest.importorskip(
        "dp_accounting.pld.privacy_loss_distribution",
        reason="dp_accounting (optional extra 'crosscheck') is not installed",
    )
    for sigma in (0.5, 1.0, 3.0):
        dist = pld.from_gaussian_mechanism(sigma, value_discretization_interval=1e-4)
        for delta in (1e-3, 1e-6):
            theirs = dist.get_epsilon_for_delta(delta)
            # dp_accounting is pessimistic by its discretisation
            assert gaussian_epsilon(delta, 1.0, sigma) == pytest.approx(theirs, abs=2e-3)
            assert gaussian_epsilon(delta, 1.0, sigma) <= theirs + 1e-9


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("delta", [1e-1, 1e-4, 1e-8])
def test_threshold_supremum_reproduces_balle_wang(mu, delta):
    """The sup over thresholds used for χ² pairs gives the analytic curve for Gaussians."""
    eps, _, _ = _threshold_epsilon(_GaussianLaw(mu), _GaussianLaw(0.0), delta)
    assert eps == pytest.approx(gaussian_epsilon(delta, mu), rel=1e-8, abs=1e-10)


# --------------------------------------------------------------------------- tails of the laws


def _ncx2_sf_mp(x: float, dim: int, amp: float) -> float:
    with mp.workdps(30):
        lam2 = mp.mpf(amp) ** 2 / 2
        total, j = mp.mpf(0), 0
        while True:
            weight = mp.exp(-lam2) * lam2**j / mp.factorial(j)
            upper = mp.gammainc(mp.mpf(dim) / 2 + j, mp.mpf(x) / 2, mp.inf, regularized=True)
            total += weight * upper
            if j > lam2 + 10 and weight < mp.mpf(10) ** -35:
                break
            j += 1
        return float(total)


@pytest.mark.parametrize(("dim", "amp"), [(1, 1.0), (50, 2.0), (50, 0.0), (300, 6.0)])
def test_chi_square_tail_matches_mpmath(dim, amp):
    law = _ChiSquareLaw(dim, amp)
    mean, sd = dim + amp * amp, math.sqrt(2 * (dim + 2 * amp * amp))
    xs = np.array([mean + k * sd for k in (0.0, 3.0, 8.0, 15.0)])
    ours = np.exp(law.log_tail(np.log(xs), True))
    reference = [_ncx2_sf_mp(x, dim, amp) for x in xs]
    np.testing.assert_allclose(ours, reference, rtol=1e-10)


def _product_tail_quad(s: float, dim: int, amp: float, n: int, upper: bool) -> float:
    """P(YX > s) (or <= s) by adaptive quadrature over X (density × tail of Y)."""
    y_law = stats.ncx2(dim, amp * amp) if amp > 0 else stats.chi2(dim)
    lo, hi = stats.chi2.ppf(1e-17, n), stats.chi2.isf(1e-17, n)

    def integrand(x):
        tail = y_law.sf(s / x) if upper else y_law.cdf(s / x)
        return stats.chi2.pdf(x, n) * tail

    value, _ = integrate.quad(integrand, lo, hi, points=[n], limit=400, epsabs=0.0, epsrel=1e-11)
    return value


@pytest.mark.parametrize(
    ("dim", "amp", "n_syn"),
    [(50, 2.0, 1), (50, 1.0, 100), (5, 3.0, 3), (50, 2.0, 10**4), (10, 0.0, 20)],
)
def test_product_tail_matches_quadrature(dim, amp, n_syn):
    law = _ProductLaw(dim, amp, n_syn)
    mean = (dim + amp * amp) * n_syn
    sd = mean * math.sqrt(2 * (dim + 2 * amp * amp) / (dim + amp * amp) ** 2 + 2 / n_syn)
    for upper, points in ((True, (0.0, 2.0, 5.0)), (False, (-1.5, 0.0))):
        s = np.array([max(mean + k * sd, mean / 5) for k in points])
        ours = np.exp(law.log_tail(np.log(s), upper))
        reference = [_product_tail_quad(v, dim, amp, n_syn, upper) for v in s]
        np.testing.assert_allclose(ours, reference, rtol=2e-8)


# --------------------------------------------------------------------------- exact ε of the pair

PLATEAU_SETTINGS = [  # (dim, C, Δ, σ)
    (50, 2.0, 1.0, 1.0),
    (50, 2.0, 1.0, 0.5),
    (50, 2.0, 0.5, 1.0),
    (1000, 4.0, 2.0, 1.0),
    (1, 2.0, 1.0, 1.0),
    (10**4, 10.0, 2.0, 1.0),
    (2, 0.5, 3.0, 1.0),
]
FINITE_SETTINGS = [(50, 2.0, 1.0, 0.5, 100), (1000, 4.0, 2.0, 1.0, 100)]


@pytest.mark.parametrize(
    ("dim", "norm_bound", "sensitivity", "sigma", "n_syn", "delta"),
    [
        (50, 2.0, 1.0, 1.0, None, 1e-5),
        (50, 2.0, 1.0, 0.5, None, 1e-3),
        (1000, 4.0, 2.0, 1.0, None, 1e-5),
        (50, 2.0, 1.0, 0.5, 100, 1e-5),
        (10, 2.0, 1.0, 0.5, 1, 1e-5),
        (1000, 4.0, 2.0, 1.0, 1000, 1e-5),
    ],
)
def test_pair_epsilon_is_stationary_in_the_likelihood_ratio(
    dim, norm_bound, sensitivity, sigma, n_syn, delta
):
    """At the optimal threshold τ*, log p(τ*)/q(τ*) = ε (first-order condition).

    The tails come from scipy / quadrature, the likelihood ratio from the exact
    engine's Bessel functions: two independent computations of the same pair.
    """
    release = SyntheticDataRelease(dim, 1, norm_bound, sensitivity, sigma, n_syn=n_syn)
    result = pair_epsilon(release, delta)
    a, b = norm_bound / sigma, (norm_bound - min(sensitivity, norm_bound)) / sigma
    if n_syn is None:
        llr = float(log_likelihood_ratio(result.threshold, dim, a, b))
    else:
        llr = float(log_likelihood_ratio_finite(result.threshold, dim, n_syn, a, b))
    assert result.direction == "forward"
    assert llr == pytest.approx(result.epsilon, abs=1e-6)


def test_pair_epsilon_grows_with_n_syn_to_the_plateau():
    base = dict(dim=50, out_dim=1, norm_bound=2.0, sensitivity=1.0, sigma=0.5)
    plateau = pair_epsilon(SyntheticDataRelease(**base), 1e-5).epsilon
    finite = [
        pair_epsilon(SyntheticDataRelease(**base, n_syn=n), 1e-5).epsilon
        for n in (1, 10, 100, 10**4, 10**7)
    ]
    assert np.all(np.diff(finite) > 0)  # D_α(ZV‖ZW) is non-decreasing in n (Prop. 4.2)
    assert finite[-1] <= plateau + 1e-9
    assert finite[-1] == pytest.approx(plateau, rel=1e-4)


def test_log_likelihood_ratio_is_monotone_in_the_statistic():
    """The audit's threshold test is the likelihood-ratio test only if log p/q is increasing."""
    for dim, n_syn, a, b in [(50, None, 4.0, 2.0), (50, 100, 4.0, 2.0), (5, 3, 3.0, 0.0)]:
        law = _ChiSquareLaw(dim, a) if n_syn is None else _ProductLaw(dim, a, n_syn)
        t = law.center + law.spread * np.linspace(-4.0, 8.0, 200)
        grid = law.from_t(t)
        if n_syn is None:
            llr = log_likelihood_ratio(grid, dim, a, b)
        else:
            llr = log_likelihood_ratio_finite(grid, dim, n_syn, a, b)
        assert np.all(np.diff(llr) > 0)


def test_gaussian_pair_epsilon_is_balle_wang():
    result = pair_epsilon(GaussianRelease(1.0, 0.5), 1e-5)
    assert result.epsilon == gaussian_epsilon(1e-5, 2.0)
    assert result.threshold * 2.0 - 2.0 == pytest.approx(result.epsilon)  # μτ − μ²/2 = ε


# --------------------------------------------------------------------------- sampling


def test_sampled_statistics_follow_their_laws():
    """Kolmogorov–Smirnov against the exact laws (scipy's ncx2; the product's tested tails)."""
    cases = [
        (
            SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0),
            _ChiSquareLaw(50, 2.0),
            _ChiSquareLaw(50, 1.0),
        ),
        (
            SyntheticDataRelease(20, 1, 2.0, 3.0, 0.5, n_syn=7),
            _ProductLaw(20, 4.0, 7),
            _ProductLaw(20, 0.0, 7),
        ),
        (GaussianRelease(1.5, 1.0), _GaussianLaw(1.5), _GaussianLaw(0.0)),
    ]
    for release, law_p, law_q in cases:
        scores_p, scores_q = sample_statistic(release, 3000, random_state=11)
        for scores, law in ((scores_p, law_p), (scores_q, law_q)):
            cdf = lambda x, law=law: np.exp(law.log_tail(law.to_t(np.asarray(x)), False))  # noqa: E731
            assert stats.kstest(scores, cdf).pvalue > 1e-3


def test_sampling_is_reproducible_and_validated():
    release = SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0)
    a = sample_statistic(release, 10, random_state=5)
    b = sample_statistic(release, 10, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(InputError, match="releases"):
        sample_statistic(SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0, releases=2), 10)
    with pytest.raises(InputError, match="trials"):
        sample_statistic(release, 1)
    with pytest.raises(InputError, match="release"):
        sample_statistic("not a release", 10)


# --------------------------------------------------------------------------- empirical bound


def test_identical_distributions_give_no_evidence():
    rng = np.random.default_rng(3)
    for correction_grid in (None, np.linspace(-3, 3, 64)):
        zeros = 0
        for _ in range(20):
            p, q = rng.standard_normal(2000), rng.standard_normal(2000)
            result = epsilon_lower_bound(p, q, 1e-5, thresholds=correction_grid)
            zeros += result.epsilon == 0.0
        assert zeros >= 18  # ε_true = 0: a positive bound has probability <= 5%


@pytest.mark.parametrize("thresholds", [None, "grid"])
def test_lower_bound_coverage(thresholds):
    """P(ε_lower > ε_true) <= 1 − γ over repeated audits (γ = 0.5 to see violations)."""
    mu, delta, confidence = 1.0, 0.05, 0.5
    truth = gaussian_epsilon(delta, mu)
    grid = np.linspace(-1.0, 3.5, 16) if thresholds == "grid" else None
    rng = np.random.default_rng(2024)
    repeats = 400
    above = 0
    for _ in range(repeats):
        p = mu + rng.standard_normal(400)
        q = rng.standard_normal(400)
        result = epsilon_lower_bound(p, q, delta, confidence=confidence, thresholds=grid)
        above += result.epsilon > truth
    # binomial tolerance: 3 standard deviations above 1 − γ
    bound = (1 - confidence) + 3 * math.sqrt(confidence * (1 - confidence) / repeats)
    assert above / repeats <= bound


def test_lower_bound_fields_and_validation():
    rng = np.random.default_rng(0)
    p, q = 2.0 + rng.standard_normal(1000), rng.standard_normal(1000)
    split = epsilon_lower_bound(p, q, 1e-3)
    assert split.correction == "split" and split.thresholds_tested == 1
    assert split.evaluation_trials == (500, 500)
    assert split.fpr <= split.fpr_upper and split.fnr <= split.fnr_upper
    assert split.epsilon == pytest.approx(
        float(epsilon_from_rates(split.fpr_upper, split.fnr_upper, 1e-3))
    )
    grid = epsilon_lower_bound(p, q, 1e-3, thresholds=np.linspace(-1, 3, 10))
    assert grid.correction == "bonferroni" and grid.thresholds_tested == 10
    assert grid.evaluation_trials == (1000, 1000)
    with pytest.raises(InputError, match="scores_p"):
        epsilon_lower_bound([1.0, np.nan, 2.0], q, 1e-3)
    with pytest.raises(InputError, match="scores_q"):
        epsilon_lower_bound(p, [1.0], 1e-3)
    with pytest.raises(InputError, match="delta"):
        epsilon_lower_bound(p, q, 0.0)
    with pytest.raises(InputError, match="thresholds"):
        epsilon_lower_bound(p, q, 1e-3, thresholds=[])
    with pytest.raises(InputError, match="correction"):
        audit_release(GaussianRelease(1.0, 1.0), 1e-3, trials=10, correction="holm")


# --------------------------------------------------------------------------- soundness


def _quiet_accountant(fn, *args, **kwargs):
    """Run the accountant (directly or inside an audit) without OrderGridWarning.

    The warning (optimal order at the edge of the grid) is irrelevant to these checks.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def accountant_epsilons():
    """The accountant's ε at δ = 1e-5 for every setting (computed once)."""
    out = {}
    for dim, c, s, sigma in PLATEAU_SETTINGS:
        release = SyntheticDataRelease(dim, 1, c, s, sigma)
        out[release] = _quiet_accountant(compute_epsilon, release, 1e-5).epsilon
    for dim, c, s, sigma, n in FINITE_SETTINGS:
        release = SyntheticDataRelease(dim, 1, c, s, sigma, n_syn=n)
        out[release] = _quiet_accountant(compute_epsilon, release, 1e-5).epsilon
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("estimator", "correction"),
    [("threshold", "bonferroni"), ("threshold", "split"), ("family", "bonferroni")],
)
def test_lower_bound_never_exceeds_the_accountant(accountant_epsilons, estimator, correction):
    """Soundness of all: empirical lower <= exact pair ε <= accountant's ε, over a grid."""
    for seed, (release, upper) in enumerate(accountant_epsilons.items()):
        result = audit_release(
            release,
            1e-5,
            trials=100_000,
            correction=correction,
            random_state=seed,
            epsilon_upper=upper,
            estimator=estimator,
        )
        assert result.epsilon_pair <= upper + 1e-9, release
        assert result.epsilon_lower <= result.epsilon_pair, release
        assert result.consistent
        if upper > 1.0 and correction == "bonferroni":
            # clearly positive where the accountant's ε exceeds 1
            assert result.epsilon_lower > 0.3, release


def test_lower_bound_grows_with_sensitivity_over_sigma():
    values = []
    for sensitivity in (0.25, 0.5, 1.0, 2.0):
        release = SyntheticDataRelease(50, 1, 2.0, sensitivity, 0.5)
        runs = [
            audit_release(
                release,
                1e-5,
                trials=50_000,
                random_state=s,
                epsilon_upper=1e9,
                estimator="threshold",
            )
            for s in range(3)
        ]
        values.append(np.mean([r.epsilon_lower for r in runs]))
    assert np.all(np.diff(values) > 0.2), values
    assert values[0] > 0


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gaussian_audit_close_to_and_below_the_analytic_curve(mu):
    """Never above the Balle–Wang curve; close to it where 10^6 trials resolve the tails.

    At δ = 0.1 the optimal test has rates of order 10^-2, which 10^6 trials resolve
    (measured gap 0.01–0.09); at δ = 1e-5 the optimal false-positive rate is far
    below 1/trials and the audit can only show about log(trials) (docs/audit.md).
    """
    release = GaussianRelease(mu, 1.0)
    for delta, gap in ((1e-1, 0.15), (1e-2, 0.6), (1e-5, None)):
        exact = gaussian_epsilon(delta, mu)
        for correction in ("bonferroni", "split"):
            for seed in range(2):
                result = audit_release(
                    release,
                    delta,
                    trials=10**6,
                    correction=correction,
                    random_state=seed,
                    estimator="threshold",
                )
                assert result.epsilon_lower <= exact
                assert result.epsilon_pair == exact
                assert result.consistent  # the accountant's RDP conversion is above the curve
                if gap is not None and correction == "bonferroni":
                    assert result.epsilon_lower >= exact - gap


def test_audit_release_reports_the_likelihood_ratio_threshold():
    release = SyntheticDataRelease(50, 1, 2.0, 1.0, 0.5)
    result = audit_release(release, 1e-5, trials=20_000, random_state=1, epsilon_upper=10.0)
    assert result.threshold_llr == pytest.approx(
        float(log_likelihood_ratio(result.test.threshold, 50, 4.0, 2.0))
    )
    assert result.upper_kind == "given" and result.mechanism == "synthetic"
    assert result.pair.norm_v == 2.0 and result.pair.norm_w == 1.0


# --------------------------------------------------------------------------- end to end


def test_adjacent_datasets_are_adjacent_and_push_norms_apart():
    (x, y), (x2, y2) = adjacent_datasets(6, 10, 2.0)
    assert np.array_equal(x, x2)
    assert np.sum(np.any(y != y2, axis=1)) == 1  # one record replaced
    from synthamp.release import ridge_fit

    for ridge in (0.5, 1.0, 2.0):
        v, w = ridge_fit(x, y, ridge), ridge_fit(x2, y2, ridge)
        assert np.linalg.norm(v) == pytest.approx(2.0 / (1 + ridge))
        assert np.linalg.norm(w) == pytest.approx(8 * 2.0 / (10 * (1 + ridge)))


@pytest.mark.slow
def test_end_to_end_audit_of_the_generator():
    """The pipeline's released records follow the predicted law; the audit is sound."""
    result = _quiet_accountant(
        audit_generator, dim=5, n_records=4, sigma=0.1, n_syn=50, trials=250, random_state=7
    )
    # λ = 1, B = 1, m = 4: v = 0.5·e₁, w = 0.25·e₁, C = 0.5, Δ = 3/4
    assert result.norm_v == pytest.approx(0.5) and result.norm_w == pytest.approx(0.25)
    assert result.norm_bound == pytest.approx(0.5) and result.sensitivity == pytest.approx(0.75)
    assert result.consistent
    assert result.epsilon_lower <= result.epsilon_pair <= result.epsilon_upper
    assert result.epsilon_lower > 1.0  # a²−b² large: the attack clearly works


@pytest.mark.slow
def test_generator_records_follow_the_audited_law():
    """‖ZV‖²/(σ_z²σ²) from PrivateLinearGenerator.fit/sample follows Y·X (docs/theory.md §3)."""
    from synthamp.release import PrivateLinearGenerator

    (x, y), _ = adjacent_datasets(5, 4, 1.0)
    law = _ProductLaw(5, 0.5 / 0.2, 30)
    for sampler in ("gram", "seeds"):
        scores = []
        for seed in range(300):
            gen = PrivateLinearGenerator(
                label_bound=1.0,
                ridge=1.0,
                sigma=0.2,
                n_syn=30,
                accounting="post-processing",
                sampler=sampler,
                random_state=seed,
            ).fit(x, y)
            records = gen.sample(30)
            scores.append(np.sum(records**2) / (gen.seed_scale_ * gen.sigma_) ** 2)
        cdf = lambda s: np.exp(law.log_tail(np.log(np.asarray(s)), False))  # noqa: E731
        assert stats.kstest(scores, cdf).pvalue > 1e-3


# --------------------------------------------------------------------------- kinds


def test_privacy_quantities_are_labelled():
    assert gaussian_delta.kind is Kind.EXACT
    assert gaussian_epsilon.kind is Kind.EXACT
    assert pair_epsilon.kind is Kind.EXACT
    for fn in (epsilon_from_rates, epsilon_lower_bound, audit_release, audit_generator):
        assert fn.kind is Kind.CERTIFIED
