"""The Gaussian-mechanism baseline on the Gram matrix (synthamp.utility), checked independently."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.accountant import gaussian_epsilon
from synthamp.cli import main
from synthamp.release import plan_release
from synthamp.utility import (
    gaussian_gram_error,
    gaussian_gram_sigma,
    gram_error_bound,
    gram_sensitivity,
    records_error_floor,
)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize(("c", "delta"), [(2.0, 0.1), (1.0, 0.9), (0.5, 3.0)])
def test_gram_sensitivity_bounds_every_adjacent_pair_and_is_reached(k, c, delta):
    rng = np.random.default_rng(k)
    bound = gram_sensitivity(c, delta, k)
    worst = 0.0
    for _ in range(3000):
        v = rng.normal(size=(5, k))
        v *= c * rng.uniform() ** 0.2 / np.linalg.norm(v)
        step = rng.normal(size=(5, k))
        w = v + step * delta * rng.uniform() / np.linalg.norm(step)
        if np.linalg.norm(w) > c:
            w *= c / np.linalg.norm(w)  # projected back: still within Δ of v (a convex set)
        assert np.linalg.norm(v - w) <= delta * (1 + 1e-12)
        worst = max(worst, float(np.linalg.norm(v.T @ v - w.T @ w)))
    assert worst <= bound * (1 + 1e-12)
    # the aligned pair ‖v‖ = C, w = (1 − Δ/C) v reaches 2CΔ − Δ² when Δ < C
    if delta < c:
        v = np.zeros((5, k))
        v[0, 0] = c
        w = v * (1 - delta / c)
        assert float(np.linalg.norm(v.T @ v - w.T @ w)) == pytest.approx(2 * c * delta - delta**2)


@pytest.mark.parametrize("releases", [1, 4])
def test_gaussian_gram_sigma_meets_the_target_exactly(releases):
    sigma = gaussian_gram_sigma(1.0, 1e-5, norm_bound=2.0, sensitivity=0.1, releases=releases)
    s = 2 * 2.0 * 0.1 * math.sqrt(releases)
    assert gaussian_epsilon(1e-5, s, sigma) <= 1.0
    assert gaussian_epsilon(1e-5, s, sigma * (1 - 1e-6)) > 1.0
    if releases == 4:  # T releases: sensitivity √T·s, so σ doubles
        single = gaussian_gram_sigma(1.0, 1e-5, norm_bound=2.0, sensitivity=0.1)
        assert sigma == pytest.approx(2 * single, rel=1e-9)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_baseline_error_by_simulation(k):
    """Noise on all k² entries, symmetrised: RMSE σ_G·√(k(k+1)/2) (to Monte Carlo error)."""
    rng = np.random.default_rng(0)
    sigma = gaussian_gram_sigma(1.0, 1e-5, norm_bound=1.0, sensitivity=0.2, out_dim=k)
    noise = rng.normal(scale=sigma, size=(20000, k, k))
    sym = (noise + np.swapaxes(noise, 1, 2)) / 2
    rmse = math.sqrt(np.mean(np.sum(sym**2, axis=(1, 2))))
    expected = gaussian_gram_error(1.0, 1e-5, norm_bound=1.0, sensitivity=0.2, out_dim=k)
    assert rmse == pytest.approx(expected, rel=0.02)


@pytest.mark.parametrize(("d", "k"), [(10, 1), (30, 2)])
def test_records_error_floor_by_simulation(d, k):
    """E‖(V ᵀV − dσ²I) − vᵀv‖² = 2(k+1)σ²‖v‖² + dk(k+1)σ⁴: the floor at v = 0, the bound at C."""
    rng = np.random.default_rng(1)
    sigma, c = 0.3, 1.5
    for norm in (0.0, c):
        v = np.zeros((d, k))
        v[0, 0] = norm
        noisy = v + sigma * rng.normal(size=(40000, d, k))
        est = np.einsum("nij,nil->njl", noisy, noisy) - d * sigma**2 * np.eye(k)
        rmse = math.sqrt(np.mean(np.sum((est - v.T @ v) ** 2, axis=(1, 2))))
        exact = (
            records_error_floor(sigma, d, k)
            if norm == 0
            else gram_error_bound(sigma=sigma, dim=d, out_dim=k, norm_bound=c, n_syn=None)
        )
        assert rmse == pytest.approx(exact, rel=0.03)


def test_plan_rows_carry_the_baseline_and_the_cli_prints_the_verdict(tmp_path, capsys):
    plan = plan_release(
        n_records=5000, n_features=20, label_bound=1.0, epsilon=1.0, delta=1e-5, ridges=[1.0]
    )
    (row,) = plan.rows
    assert row.gram_error_baseline == pytest.approx(
        gaussian_gram_error(1.0, 1e-5, norm_bound=row.norm_bound, sensitivity=row.sensitivity)
    )
    assert row.gram_error_floor == pytest.approx(records_error_floor(row.sigma, 20))
    table = tmp_path / "t.csv"
    table.write_text("x0,x1,y\n" + "\n".join(f"0.1,0.2,{i % 3 / 3}" for i in range(50)) + "\n")
    args = ["plan", "--data", str(table), "--targets", "y", "--label-bound", "1"]
    assert main([*args, "--epsilon", "1", "--delta", "1e-5", "--ridge", "1"]) == 0
    out = capsys.readouterr().out
    assert "Verdict: the records are" in out and "Best other mechanism: " in out
    assert "output perturbation of v" in out and "AdaSSP" in out  # the whole table
    assert "noise saved is not utility gained" in out
