"""The written table against the anchors (``synthamp.utility._table_errors``).

Each mechanism's noise on the Gram matrix is checked against an independent closed form of
this package (the records' exact Gram error, the trace-shaped Gaussian's exact RMSE, the
Gaussian mechanism's exact σ), and the Monte Carlo of the table's statistics against the
closed form of a linear read-out, where the mean squared error is known exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.accountant._pld import gaussian_sigma
from synthamp.utility import (
    records_gram_rmse,
    table_anchor_errors,
    table_error_rows,
    trace_shaped_gram_error,
)
from synthamp.utility._table_errors import (
    LAPLACE_L1_SENSITIVITY,
    _noisy_grams,
    anchor_gram_noise,
    mapped_gram,
)

EPS, DELTA, B, M = 1.0, 1e-5, 1.0, 50
MEAN = np.array([0.2, -0.4])
COV = np.array([[0.3, 0.1], [0.1, 0.2]])


def _draws(name, truth, reps, **kw):
    rng = np.random.default_rng(11)
    noise = anchor_gram_noise(EPS, DELTA, label_bound=B, out_dim=truth.shape[0])
    return np.array([_noisy_grams(name, truth, rng, noise=noise, **kw) for _ in range(reps)])


def test_the_mapped_gram_carries_the_means_and_the_constant():
    w = np.random.default_rng(0).uniform(-1, 1, (M, 2))
    rows = np.hstack([w, np.ones((M, 1))]) * B / math.sqrt(3)
    gram = mapped_gram(w.mean(0), np.cov(w.T, bias=True), M, B)
    np.testing.assert_allclose(gram, rows.T @ rows, rtol=1e-12, atol=1e-12)


def test_the_records_gram_has_the_exact_law_of_the_release():
    # mean: g·WᵀW + Dσ²I debiased; mean squared error: records_gram_rmse (docs/theory.md §18)
    truth, g, sigma, width = mapped_gram(MEAN, COV, M, B), 0.3, 0.05, 2000
    grams = _draws("records", truth, 6000, sigma=sigma, width=width, gram_scale=g)
    err = (grams - truth) * g
    exact = records_gram_rmse(sigma=sigma, dim=width, out_dim=3, model_gram=g * truth, n_syn=None)
    np.testing.assert_allclose(err.mean(0), 0.0, atol=5 * exact / math.sqrt(6000))
    mse = np.sum(err**2, axis=(1, 2))
    assert np.mean(mse) == pytest.approx(exact**2, rel=5 * np.std(mse) / np.mean(mse) / 77)


@pytest.mark.parametrize("name", ["analyze_gauss", "trace_shaped"])
def test_the_gaussian_anchors_have_their_exact_rmse(name):
    truth = mapped_gram(MEAN, COV, M, B)
    k = truth.shape[0]
    err = _draws(name, truth, 20000, sigma=1.0, width=10, gram_scale=1.0) - truth
    mse = np.sum(err**2, axis=(1, 2))
    sg = gaussian_sigma(EPS, DELTA, math.sqrt(2) * B * B)
    exact = (
        sg * math.sqrt(k * (k + 1) / 2)
        if name == "analyze_gauss"
        else trace_shaped_gram_error(EPS, DELTA, out_dim=k, trace_sensitivity=math.sqrt(2) * B**2)
    )
    assert np.mean(mse) == pytest.approx(exact**2, rel=0.03)
    assert np.allclose(err, np.swapaxes(err, 1, 2))  # symmetric noise
    trace_var = np.var(np.trace(err, axis1=1, axis2=2)) / k  # the coefficient on I/√k
    expected = sg**2 / (k + 1) if name == "trace_shaped" else sg**2
    assert trace_var == pytest.approx(expected, rel=0.05)


def test_the_laplace_sensitivity_is_the_supremum_over_the_square():
    u = np.linspace(-1, 1, 801)
    a, b = np.meshgrid(u, u)
    assert np.max(np.abs(a**2 - b**2) + np.abs(a - b)) == pytest.approx(LAPLACE_L1_SENSITIVITY)
    noise = anchor_gram_noise(EPS, DELTA, label_bound=B, out_dim=2)
    assert noise["laplace"] == pytest.approx(B * B / 2 * 2.25 / EPS)
    assert math.isnan(anchor_gram_noise(EPS, DELTA, label_bound=B, out_dim=3)["laplace"])


def _linear(gram, constant):
    """The read-out without projection: means from the constant column, then the covariance."""
    a = gram / constant
    mean = a[:-1, -1]
    return mean, a[:-1, :-1] - np.outer(mean, mean)


def test_the_monte_carlo_matches_the_closed_form_of_a_linear_read_out():
    # Analyze Gauss, n → ∞: the means' error is E[:k, k']/constant, variance σ_G²/2 per entry
    errors = table_anchor_errors(
        mean_u=MEAN, cov_u=COV, n_records=M, label_bound=B, epsilon=EPS, delta=DELTA,
        sigma=0.05, width=2000, gram_scale=0.3, post_process=_linear, n_syn=None, reps=4000,
        mechanisms=("analyze_gauss",),
    )  # fmt: skip
    means = next(e for e in errors if e.statistic == "means")
    constant = B * B / 3 * M
    sg = gaussian_sigma(EPS, DELTA, math.sqrt(2) * B * B)
    exact = math.sqrt(2 * sg**2 / 2) / constant
    assert means.low <= exact <= means.high
    assert means.rmse == pytest.approx(exact, rel=0.05)


def test_finite_records_add_their_sampling_error_exactly():
    # no noise to speak of (huge ε): the means' error is the sampling error, tr(C)/n
    n = 50
    errors = table_anchor_errors(
        mean_u=MEAN, cov_u=COV, n_records=M, label_bound=B, epsilon=1e6, delta=DELTA,
        sigma=1e-9, width=2000, gram_scale=0.3, post_process=_linear, n_syn=n, reps=4000,
        mechanisms=("records",),
    )  # fmt: skip
    means = next(e for e in errors if e.statistic == "means")
    cov = next(e for e in errors if e.statistic == "covariance")
    assert means.rmse == pytest.approx(math.sqrt(np.trace(COV) / n), rel=0.05)
    # Wishart: E‖S − C‖_F² = (tr(C)² + ‖C‖_F²)/(n − 1) for the ddof = 1 covariance
    exact = math.sqrt((np.trace(COV) ** 2 + np.sum(COV**2)) / (n - 1))
    assert cov.rmse == pytest.approx(exact, rel=0.05)


def test_the_rows_mark_the_best_and_drop_correlations_of_one_column():
    kw = dict(
        n_records=M, label_bound=B, epsilon=EPS, delta=DELTA, sigma=0.05, width=2000,
        gram_scale=0.3, post_process=_linear, reps=50,
    )  # fmt: skip
    one = dict(mean_u=MEAN[:1], cov_u=COV[:1, :1])
    rows = table_error_rows(
        table_anchor_errors(n_syn=10, **one, **kw), table_anchor_errors(n_syn=None, **one, **kw), 1
    )
    assert {r["statistic"] for r in rows} == {"the table's covariance", "the table's means"}
    assert len(rows) == 8  # records, Analyze Gauss, trace-shaped, Laplace (k = 1)
    for statistic in ("the table's covariance", "the table's means"):
        same = [r for r in rows if r["statistic"] == statistic]
        assert sum(r["best"] for r in same) == 1
        best = min(same, key=lambda r: r["rmse"])
        assert best["best"] and same[0]["ratio_to_records"] == 1.0
        assert all(r["rmse_low"] <= r["rmse"] <= r["rmse_high"] for r in same)
        assert all(r["n_syn"] == 10 and r["rmse_unlimited"] is not None for r in same)
