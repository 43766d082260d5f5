"""The records' Gram error at the number of records written, checked by simulation.

The mechanism is simulated end to end from its definition (docs/theory.md §1, §3): V = v + σN,
records ZV with Z an n × d matrix of N(0, σ_z²) entries, the estimate
:func:`synthamp.release.debiased_gram`; the empirical mean squared error over many releases
is compared with :func:`synthamp.utility.records_gram_rmse` within its confidence interval,
at three values of n (the sampling term dominates at the smallest, the noise at the largest).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.release import debiased_gram
from synthamp.utility import gram_error_bound, records_gram_rmse

D, SIGMA, SEED_SCALE, REPEATS = 12, 0.3, 0.5, 3000


def _squared_errors(v: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    d, k = v.shape
    truth = v.T @ v
    out = np.empty(REPEATS)
    for r in range(REPEATS):
        model = v + SIGMA * rng.standard_normal((d, k))
        records = (SEED_SCALE * rng.standard_normal((n, d))) @ model
        estimate = debiased_gram(records, sigma=SIGMA, dim=d, seed_scale=SEED_SCALE)
        out[r] = np.sum((estimate - truth) ** 2)
    return out


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("n", [3, 30, 300])
def test_the_error_at_n_records_matches_a_simulation_of_the_mechanism(k, n):
    rng = np.random.default_rng(100 * k + n)
    v = rng.standard_normal((D, k))
    v *= 1.2 / np.linalg.norm(v)
    squared = _squared_errors(v, n, rng)
    mean, se = float(np.mean(squared)), float(np.std(squared) / math.sqrt(REPEATS))
    formula = records_gram_rmse(sigma=SIGMA, dim=D, out_dim=k, model_gram=v.T @ v, n_syn=n) ** 2
    assert abs(mean - formula) < 4.0 * se, (mean, formula, se)
    # the n → ∞ value is below it, and the sampling term is what separates them
    unlimited = records_gram_rmse(sigma=SIGMA, dim=D, out_dim=k, model_gram=v.T @ v, n_syn=None)
    assert unlimited**2 < formula
    if n == 3:  # the sampling error dominates: n → ∞ is far off the file's error
        assert mean > 3 * unlimited**2


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_bound_is_the_supremum_over_the_model_set(k):
    """gram_error_bound is attained at a rank-one v with ‖v‖ = C and dominates every other v."""
    rng = np.random.default_rng(k)
    c = 1.5
    for n in (None, 10, 10_000):
        bound = gram_error_bound(sigma=SIGMA, dim=D, out_dim=k, norm_bound=c, n_syn=n)
        rank_one = np.zeros((D, k))
        rank_one[0, 0] = c
        attained = records_gram_rmse(
            sigma=SIGMA, dim=D, out_dim=k, model_gram=rank_one.T @ rank_one, n_syn=n
        )
        assert attained == pytest.approx(bound, rel=1e-12)
        for _ in range(20):
            v = rng.standard_normal((D, k))
            v *= c * rng.uniform() / np.linalg.norm(v)
            assert records_gram_rmse(
                sigma=SIGMA, dim=D, out_dim=k, model_gram=v.T @ v, n_syn=n
            ) <= bound * (1 + 1e-12)


def test_k1_matches_the_closed_form_of_the_theory():
    """k = 1: 4σ²λ + 2dσ⁴ + 2[(λ + dσ²)² + 2dσ⁴ + 4σ²λ]/n (docs/theory.md §18), λ = ‖v‖²."""
    lam, s2, n = 0.7, SIGMA**2, 50
    sampling = 2 * ((lam + D * s2) ** 2 + 2 * D * s2**2 + 4 * s2 * lam) / n
    expected = 4 * s2 * lam + 2 * D * s2**2 + sampling
    got = records_gram_rmse(sigma=SIGMA, dim=D, out_dim=1, model_gram=[[lam]], n_syn=n) ** 2
    assert got == pytest.approx(expected, rel=1e-13)


def test_a_negative_estimate_of_a_squared_norm_is_reported_clipped():
    """The debiased ‖v‖² can be negative; the estimate to report is max(0, ·) (k = 1) or the
    PSD projection (k ≥ 2), which never has a larger error (vᵀv is PSD)."""
    rng = np.random.default_rng(7)
    v = np.full((D, 2), 0.01)
    seen_negative = 0
    for _ in range(200):
        model = v + SIGMA * rng.standard_normal(v.shape)
        records = (SEED_SCALE * rng.standard_normal((20, D))) @ model
        raw = debiased_gram(records, sigma=SIGMA, dim=D, seed_scale=SEED_SCALE)
        clipped = debiased_gram(
            records, sigma=SIGMA, dim=D, seed_scale=SEED_SCALE, nonnegative=True
        )
        seen_negative += np.linalg.eigvalsh(raw)[0] < 0
        assert np.linalg.eigvalsh(clipped)[0] >= -1e-12
        truth = v.T @ v
        assert np.sum((clipped - truth) ** 2) <= np.sum((raw - truth) ** 2) + 1e-12
        scalar = debiased_gram(records[:, :1], sigma=SIGMA, dim=D, seed_scale=SEED_SCALE)
        kept = debiased_gram(
            records[:, :1], sigma=SIGMA, dim=D, seed_scale=SEED_SCALE, nonnegative=True
        )
        assert kept[0, 0] == max(0.0, scalar[0, 0])
    assert seen_negative > 50  # the case is real, not hypothetical
