"""The end-to-end audit of the implementation on the realised worst pair (orthogonal design).

What is checked: the crafted tables realise the pair of docs/theory.md §19–§20 (against an
explicit orthonormal design); the runs made by the release code follow the pair's laws
(Kolmogorov–Smirnov); the records' exact likelihood ratio orders the runs as the
black-box statistic does; the k = 2 rates by quadrature against a simulation of the law and
the pair's PLD; the intervals' coverage by repetition against rates computed exactly from
the law (and the same check fails for intervals that are too narrow); a broken
implementation (σ halved, accounted at σ) is caught.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import references
from synthamp.audit import audit_worst_pair
from synthamp.audit._cp_family import amplitude_bound, efficient_threshold
from synthamp.audit._product_family import loss_rates, loss_statistic, pair_pld
from synthamp.audit._release import AuditPair, fixed_thresholds
from synthamp.audit._tradeoff_band import gdp_mu, tradeoff_band
from synthamp.audit._worst_pair import _run_pipeline, worst_pair_targets
from synthamp.design._orthogonal import orthonormal_rows
from synthamp.divergence import log_likelihood_ratio
from synthamp.divergence._laws import NoncentralChiSquare

M, RIDGE, B = 10, 0.01, 1.0
AMP_SCALE = B / (1.0 + M * RIDGE)  # c = B√g


@pytest.mark.parametrize("k", [1, 2])
def test_targets_realise_the_worst_pair_on_an_explicit_design(k):
    """v = XᵀY/(1 + mλ) on an explicit orthonormal design: vᵀv = c²e₁e₁ᵀ, wᵀw = 0 (k = 1)
    or c²e₂e₂ᵀ (k = 2), c = B/(1 + mλ); the tables differ in one row only."""
    table_p, table_q = worst_pair_targets(M, k, B)
    assert np.count_nonzero(np.any(table_p != table_q, axis=1)) == 1
    x = orthonormal_rows(np.random.default_rng(0).standard_normal((M, 40)))
    design = x.T / (1.0 + M * RIDGE)  # M = (XᵀX/m + λI)⁻¹Xᵀ/m, exactly (docs/theory.md §19)
    gram_p = (design @ table_p).T @ (design @ table_p)
    gram_q = (design @ table_q).T @ (design @ table_q)
    expected_p = np.zeros((k, k))
    expected_p[0, 0] = AMP_SCALE**2
    expected_q = np.zeros((k, k))
    if k == 2:
        expected_q[1, 1] = AMP_SCALE**2
    np.testing.assert_allclose(gram_p, expected_p, atol=1e-15)
    np.testing.assert_allclose(gram_q, expected_q, atol=1e-15)


@pytest.mark.parametrize("n_syn", [None, 50])
def test_release_code_runs_follow_the_pair_laws_k1(n_syn):
    """The statistic of runs made by the release code has the law the audit's exact
    references use: χ²_D(a²) / Y·X on D, the central law on D′ (KS, p > 1e-3)."""
    from synthamp.divergence._laws import ProductLaw

    width, sigma, runs = 12, 0.5, 3000
    rng = np.random.default_rng(11)
    scale = 1.0 / math.sqrt(width)
    amp = AMP_SCALE / sigma
    for table, theta in zip(worst_pair_targets(M, 1, B), (amp, 0.0), strict=True):
        grams = _run_pipeline(table, width, RIDGE, B, sigma, scale, n_syn, runs, rng)
        scores = grams[:, 0, 0] / (scale * sigma) ** 2
        law = (
            NoncentralChiSquare(width, theta) if n_syn is None else ProductLaw(width, theta, n_syn)
        )
        cdf = lambda s, law=law: np.exp(law.log_tail(law.to_t(np.asarray(s)), False))  # noqa: E731
        assert stats.kstest(scores, cdf).pvalue > 1e-3


def test_release_code_runs_follow_the_pair_laws_k2():
    """k = 2: S₁₁ ~ χ²_D(a²), S₂₂ ~ χ²_D on D and swapped on D′, independent; and a broken
    run (σ halved) is rejected by the same test."""
    width, sigma, runs = 12, 0.5, 3000
    rng = np.random.default_rng(12)
    scale = 1.0 / math.sqrt(width)
    amp = AMP_SCALE / sigma
    table_p, table_q = worst_pair_targets(M, 2, B)
    grams_p = _run_pipeline(table_p, width, RIDGE, B, sigma, scale, None, runs, rng)
    grams_q = _run_pipeline(table_q, width, RIDGE, B, sigma, scale, None, runs, rng)
    norm = (scale * sigma) ** 2
    for sample, theta in (
        (grams_p[:, 0, 0], amp), (grams_p[:, 1, 1], 0.0),
        (grams_q[:, 0, 0], 0.0), (grams_q[:, 1, 1], amp),
    ):  # fmt: skip
        assert stats.kstest(sample / norm, stats.ncx2(width, theta**2).cdf if theta else
                            stats.chi2(width).cdf).pvalue > 1e-3  # fmt: skip
    assert abs(stats.spearmanr(grams_p[:, 0, 0], grams_p[:, 1, 1])[0]) < 0.06
    broken = _run_pipeline(table_p, width, RIDGE, B, sigma / 2, scale, None, runs, rng)
    assert stats.kstest(broken[:, 0, 0] / norm, stats.ncx2(width, amp**2).cdf).pvalue < 1e-9


def test_black_box_statistic_is_the_likelihood_ratio_test():
    """k = 1: the engine's exact log p/q of the released Gram orders the runs exactly as
    ‖V‖²/σ² does (Spearman 1), so the black-box threshold tests are the Neyman–Pearson
    tests: their rates coincide at matched thresholds."""
    width, sigma, runs = 10, 1.0, 400
    rng = np.random.default_rng(13)
    scale = 1.0 / math.sqrt(width)
    amp = AMP_SCALE / sigma
    table_p, table_q = worst_pair_targets(M, 1, B)
    p = _run_pipeline(table_p, width, RIDGE, B, sigma, scale, None, runs, rng)[:, 0, 0]
    q = _run_pipeline(table_q, width, RIDGE, B, sigma, scale, None, runs, rng)[:, 0, 0]
    p, q = p / (scale * sigma) ** 2, q / (scale * sigma) ** 2
    llr_p, llr_q = (np.asarray(log_likelihood_ratio(x, width, amp, 0.0)) for x in (p, q))
    assert stats.spearmanr(np.r_[p, q], np.r_[llr_p, llr_q])[0] == pytest.approx(1.0, abs=1e-12)
    for tau in np.quantile(np.r_[p, q], [0.1, 0.5, 0.9]):
        ell = float(log_likelihood_ratio(tau, width, amp, 0.0))
        assert np.mean(q > tau) == np.mean(llr_q > ell) and np.mean(p > tau) == np.mean(llr_p > ell)


@pytest.mark.parametrize("u", [0.3, 1.5, 2.5])
def test_k2_rates_against_mpmath(u):
    """The quadrature's FPR(u) = P_D′(U > u) and FNR(−u) = P_D(U <= −u) = P_D′(U > u) against
    the stored 40-digit mpmath reference (tests/mpref_loss.py), to 1e-5 relative (the float
    code interpolates h⁻¹ on a log grid: about 1e-6)."""
    exact = float(references.loss_upper_tail(u, 6, 1.2))
    fpr, fnr = loss_rates([u, -u], 6, 1.2)
    assert fpr[0] == pytest.approx(exact, rel=1e-5)
    assert fnr[1] == pytest.approx(exact, rel=1e-5)


def test_k2_rates_against_the_law_and_the_pld():
    """The quadrature's rates against 4·10⁵ draws from the law, and ε(δ) from them (the
    supremum over thresholds) inside the PLD's bracket of the pair's ε."""
    width, amp, draws = 20, 1.2, 400_000
    rng = np.random.default_rng(14)
    diag_p = np.c_[rng.noncentral_chisquare(width, amp**2, draws), rng.chisquare(width, draws)]
    diag_q = np.c_[rng.chisquare(width, draws), rng.noncentral_chisquare(width, amp**2, draws)]
    u_p, u_q = loss_statistic(diag_p, width, amp), loss_statistic(diag_q, width, amp)
    tau = np.array([-0.8, -0.2, 0.0, 0.3, 0.9])
    fpr, fnr = loss_rates(tau, width, amp)
    for j, t in enumerate(tau):
        for exact, sample in ((fpr[j], np.mean(u_q > t)), (fnr[j], np.mean(u_p <= t))):
            assert abs(sample - exact) < 5 * math.sqrt(exact * (1 - exact) / draws) + 1e-6
    grid = np.linspace(-3.0, 3.0, 1201)
    fpr, fnr = loss_rates(grid, width, amp)
    delta = 1e-5
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.nanmax(np.where(fpr > 0, np.log((1 - fnr - delta) / fpr), -np.inf))
    pld = pair_pld(width, amp)
    assert pld.epsilon_lower(delta) - 2e-3 <= eps <= pld.epsilon(delta) + 2e-3


def test_tradeoff_intervals_cover_the_exact_rates():
    """Coverage by repetition: over 300 audits of 1000 runs drawn from the k = 1 pair's law,
    each threshold's 95% Clopper–Pearson intervals contain the exact FPR and FNR at >= the
    nominal rate (within binomial tolerance), and the μ interval contains μ(τ*) at >= 95%;
    intervals at a nominal 50% do not reach 90% (the check can fail)."""
    width, amp, runs, repeats = 10, 0.9, 1000, 300
    law_p, law_q = NoncentralChiSquare(width, amp), NoncentralChiSquare(width, 0.0)
    tau = fixed_thresholds(AuditPair(law_p, law_q, amp, 0.0, "", None), runs)[8:56:6]
    t = law_p.to_t(tau)
    exact_fpr, exact_fnr = np.exp(law_q.log_tail(t, True)), np.exp(law_p.log_tail(t, False))
    rng = np.random.default_rng(15)
    hits = {0.95: np.zeros((2, tau.size)), 0.5: np.zeros((2, tau.size))}
    mu_hits = 0
    for _ in range(repeats):
        p, q = law_p.sample(runs, rng), law_q.sample(runs, rng)
        for level, count in hits.items():
            band = tradeoff_band(p, q, tau, exact_fpr, exact_fnr, level)
            count[0] += (band.fpr_low <= exact_fpr) & (exact_fpr <= band.fpr_high)
            count[1] += (band.fnr_low <= exact_fnr) & (exact_fnr <= band.fnr_high)
            if level == 0.95:
                mu_hits += band.mu_low <= band.mu <= band.mu_high
    tolerance = 3 * math.sqrt(0.95 * 0.05 / repeats)
    assert np.all(hits[0.95] / repeats >= 0.95 - tolerance)
    assert mu_hits / repeats >= 0.95 - tolerance
    assert np.mean(hits[0.5] / repeats) < 0.9
    assert band.mu == pytest.approx(float(gdp_mu(exact_fpr, exact_fnr)[band.best]))


def test_cp_family_amplitudes_cover():
    """The Clopper–Pearson family bounds at their fixed thresholds: a↓ <= a on signal samples
    and b↑ >= b on central ones (b = 0.5 here, so the bound is not trivially 0) in >= 95% of
    300 repetitions (each at level 0.025); at level 0.25 they fail far more often."""
    width, amp, central, runs, repeats = 10, 0.9, 0.5, 2000, 300
    law_of = lambda theta: NoncentralChiSquare(width, theta)  # noqa: E731
    tau_signal, tau_central = efficient_threshold(law_of, amp), efficient_threshold(law_of, 0.0)
    rng = np.random.default_rng(16)
    good = {0.025: 0, 0.25: 0}
    for _ in range(repeats):
        p, q = law_of(amp).sample(runs, rng), law_of(central).sample(runs, rng)
        for level in good:
            low = amplitude_bound(p, tau_signal, law_of, level, True, amp)
            high = amplitude_bound(q, tau_central, law_of, level, False, amp)
            good[level] += low <= amp and high >= central
    assert good[0.025] / repeats >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / repeats)
    assert good[0.25] / repeats < 0.9


def test_broken_implementation_is_caught():
    """σ halved in the runs, accounted at σ: the assumption-free threshold test's lower bound
    exceeds the claimed ε (and the family's goodness-of-fit rejects the runs); the correct
    implementation with the same runs stays below it."""
    kwargs = dict(sigma=1.0, delta=1e-3, runs=5000, seed=17)
    broken = audit_worst_pair(10, 1, run_sigma=0.5, **kwargs)
    assert broken.epsilon_threshold > broken.epsilon_upper
    assert not broken.consistent and not broken.family.fits
    correct = audit_worst_pair(10, 1, **kwargs)
    assert correct.consistent and correct.family.fits
    assert correct.epsilon_lower <= correct.epsilon_pair <= correct.epsilon_upper + 1e-9


def test_audit_reports_the_pair_and_its_numbers_k2():
    """k = 2 end to end (small): the pair's exact ε below the certified ε, every bound
    below both, μ_emp/μ's interval around 1."""
    result = audit_worst_pair(30, 2, sigma=0.8, runs=3000, seed=18)
    assert 0 < result.epsilon_pair <= result.epsilon_upper
    assert max(result.epsilon_lower, result.epsilon_dkw, result.epsilon_threshold) <= (
        result.epsilon_pair
    )
    _, low, high = result.band.mu_ratio
    assert low <= 1.0 <= high
    assert result.to_dict()["targets"] == 2 and result.llr_monotone is None
