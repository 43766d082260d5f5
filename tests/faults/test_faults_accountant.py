"""Fault matrix: the accountants at extreme but reachable parameters (tiny σ, huge ε).

On 2df28e0 each of these exited 1 with a traceback (or 2 with an internal
message): ε past 709 overflowed e^ε in the profile's chords ("the upper profile
exceeds delta at the root", OverflowError), NaN quantiles of χ²_d(c²) at
C/σ ~ 1e6, and a NaN exact RDP order at C/σ ~ 1e8. References: mpmath
(tests/mpref.py), independent of synthamp.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest

import mpref
from release_cases import private_frame, release_args, run
from synthamp._kinds import Kind
from synthamp._validation import InputError
from synthamp.accountant import calibrate_sigma, rdp_curve
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.accountant._pld_grid import MAX_GRID_STEPS
from synthamp.accountant._profile import profile_epsilon
from synthamp.accountant._releases import SyntheticDataRelease

DIM, C, DELTA = 20, 1.58, 1e-5


def _pair_delta(eps: float, dim: int, a: float, b: float) -> mp.mpf:
    """δ of the pair χ²_d(a²) against χ²_d(b²) at ε, a > b: ∫_{L > ε} p_a − e^ε p_b (mpmath)."""
    with mp.workdps(30):
        eps = mp.mpf(eps)

        def excess(x):
            return mpref.log_likelihood_ratio(x, dim, a, b) - eps

        lo, hi = mp.mpf(1), mp.mpf(4 * (a + 10) ** 2)  # L increases (MLR)
        for _ in range(200):  # bisection: no derivative, no starting guess from synthamp
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
            if hi - lo < mp.mpf(10) ** -12 * hi:
                break
        x = (lo + hi) / 2

        def integrand(y):
            return mp.exp(mpref.ncx2_logpdf(y, dim, a)) - mp.exp(eps + mpref.ncx2_logpdf(y, dim, b))

        width = 8 * (a + 1) * mp.sqrt(x) / max(a, 1)  # a few sd of X near x
        return mp.quad(integrand, [x, x + width, x + 4 * width, x + 16 * width, mp.inf])


def _pair_epsilon(dim: int, a: float, b: float, delta: float, lo: float, hi: float) -> float:
    """The pair's ε(δ) by bisection on :func:`_pair_delta` (δ decreases in ε)."""
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _pair_delta(mid, dim, a, b) > delta else (lo, mid)
    return hi


# --------------------------------------------------------------------------- ε past 709


def test_profile_epsilon_past_709_is_finite_and_bounds_the_worst_pair():
    """σ = 0.01, Δ = 0.5: ε ~ 1460 (old: RuntimeError at the root)."""
    release = SyntheticDataRelease(DIM, 1, C, 0.5, 0.01)
    result = profile_epsilon(release, DELTA)
    assert result.kind is Kind.EXACT
    # the worst pair is the forward endpoint (c, c − g) (no guard fired)
    assert not result.fallback
    a, b = C / 0.01, (C - 0.5) / 0.01
    reference = _pair_epsilon(DIM, a, b, DELTA, 1400.0, 1500.0)
    assert _pair_delta(result.epsilon, DIM, a, b) <= DELTA  # sound: δ at the claimed ε
    assert result.epsilon_lower <= reference <= result.epsilon
    # pessimistic by the underflowed tail Q (< 1e-308: δ <= P used), within 1%
    assert result.epsilon <= reference * 1.01


def test_cli_account_at_sigma_001_gives_the_number(capsys):
    code, out, err = run(
        capsys,
        ["account", "--dim", "20", "--norm-bound", "1.58", "--sensitivity", "0.5",
         "--sigma", "0.01", "--delta", "1e-5", "--json", "--no-progress"],
    )  # fmt: skip
    assert code == 0 and "Traceback" not in err, err
    result = json.loads(out)
    eps = result["epsilon_pld"]
    a, b = C / 0.01, (C - 0.5) / 0.01
    assert math.isfinite(eps) and _pair_delta(eps, DIM, a, b) <= DELTA
    assert result["kind"] == "exact"


def test_calibrate_huge_epsilon_meets_the_target_soundly():
    """ε = 1e4 (old: RuntimeError at the root in the σ search)."""
    cal = calibrate_sigma_pld(1e4, DELTA, dim=DIM, norm_bound=1.0, sensitivity=1.0)
    assert cal.epsilon <= 1e4
    # Δ >= C: the worst pair is (c, 0) exactly; the reference δ at the target is <= δ
    assert _pair_delta(1e4, DIM, 1.0 / cal.sigma, 0.0) <= DELTA
    # and not absurdly conservative: the reference ε at 0.99 σ already exceeds the target
    assert _pair_delta(1e4, DIM, 1.0 / (0.99 * cal.sigma), 0.0) > DELTA


@pytest.mark.parametrize("epsilon", ["1e3", "1e4", "1e7"])
def test_cli_calibrate_huge_epsilon(capsys, epsilon):
    code, out, err = run(
        capsys,
        ["calibrate", "--dim", "20", "--norm-bound", "1", "--sensitivity", "1",
         "--epsilon", epsilon, "--delta", "1e-5", "--json", "--no-progress"],
    )  # fmt: skip
    assert code == 0 and "Traceback" not in err, err
    result = json.loads(out)
    for key in ("sigma", "epsilon", "sigma_post_processing", "epsilon_post_processing"):
        assert math.isfinite(result[key]), key
    assert result["epsilon"] <= float(epsilon)


# --------------------------------------------------------------------------- tiny σ


def test_profile_past_the_exact_range_is_the_certified_gaussian():
    """Past the exact range: C/σ = 1e4 with Δ/σ = 1e3, and C/σ = 1e6 (old: OverflowError; NaN
    quantiles from 1e6)."""
    for sigma in (1e-4, 1e-6):
        release = SyntheticDataRelease(DIM, 1, 1.0, 0.1, sigma)
        result = profile_epsilon(release, DELTA)
        assert result.kind is Kind.CERTIFIED and result.epsilon_lower == 0.0
        # releasing V: the Gaussian mechanism, μ = Δ/σ; its ε(δ) closed form, independent
        mu = mp.mpf(0.1) / sigma

        def gauss_delta(eps, mu=mu):
            eps = mp.mpf(eps)
            return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)

        assert gauss_delta(result.epsilon) <= DELTA
        assert gauss_delta(result.epsilon * (1 - 1e-9)) > DELTA


@pytest.mark.parametrize("sigma", [1e-9])  # the tinier corner (1e-8 cost 27 s of the suite)
def test_exact_rdp_at_tiny_sigma_is_finite_and_certified(sigma):
    """C/σ >= 1e8: the exact divergence is NaN at some orders (old: InputError on NaN)."""
    release = SyntheticDataRelease(DIM, 1, 1.0, 0.1, sigma)
    curve = rdp_curve(release)
    rdp = np.asarray(curve.rdp)
    assert np.all(np.isfinite(rdp))
    assert curve.kind is Kind.CERTIFIED
    # never below the amplified release's true value: here (c² ≫ d) ≈ releasing V, α μ²/2
    post = np.asarray(curve.orders) * (0.1 / sigma) ** 2 / 2
    assert np.all(rdp <= post * (1 + 1e-12)) and np.all(rdp >= post * (1 - 1e-6))


# C/σ = 1e4 (1e-8 is the library test above: 16 s more of the suite for the same path)
@pytest.mark.parametrize("sigma", ["1e-4"])
def test_cli_account_at_tiny_sigma(capsys, sigma):
    code, out, err = run(
        capsys,
        ["account", "--dim", "20", "--norm-bound", "1", "--sensitivity", "0.1",
         "--sigma", sigma, "--delta", "1e-5", "--json", "--no-progress"],
    )  # fmt: skip
    assert code == 0 and "Traceback" not in err, err
    result = json.loads(out)
    assert result["kind"] == "certified"
    mu = mp.mpf(0.1) / mp.mpf(sigma)
    eps = mp.mpf(result["epsilon"])
    assert mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2) <= DELTA


# --------------------------------------------------------------------------- tiny scales


def test_calibrating_sigma_at_a_tiny_scale_is_refused_up_front():
    """C ~ 1e-300: Δ²/σ² underflows, ε = 0 at every σ (old: σ searched down to 0)."""
    with pytest.raises(InputError, match="norm_bound: must be >= 1e-150"):
        calibrate_sigma(
            1.0, DELTA, dim=DIM, norm_bound=1e-300, sensitivity=1e-300, accountant="rdp"
        )
    with pytest.raises(InputError, match="sensitivity: must be >= 1e-150"):
        calibrate_sigma(1.0, DELTA, dim=DIM, norm_bound=1.0, sensitivity=1e-320, accountant="rdp")


@pytest.mark.parametrize(
    "overrides",
    [
        {
            "--label-bound": "1e-300",
            "--sigma": None,
            "--epsilon": "1",
            "--delta": "1e-5",
            "--max-clipped": "1",
        },
        {"--norm-bound": "1e-320", "--sigma": None, "--epsilon": "1", "--delta": "1e-5"},
        {
            "--label-bound": "1e-300",
            "--sigma": "1e-302",
            "--accounting": "exact",
            "--max-clipped": "1",
        },
    ],
)
def test_cli_release_at_a_tiny_scale_is_one_line(tmp_path, monkeypatch, capsys, overrides):
    """Old: "--sigma: must be > 0, got 0" (the σ search underflowed), not the scale."""
    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    code, _, err = run(capsys, [*release_args(**overrides), "--no-progress"])
    lines = [line for line in err.strip().splitlines() if not line.startswith("synthamp: note:")]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    # the flag the user set (4c93a73 named --norm-bound for a tiny --label-bound)
    flag = "--norm-bound" if "--norm-bound" in overrides else "--label-bound"
    assert lines[0].startswith(f"synthamp: error: {flag}: "), lines[0]
    assert "1e-150" in lines[0] or "1e-300" in lines[0]
    assert not (tmp_path / "syn.csv").exists()


def test_cli_pld_grid_past_its_size_is_refused_up_front(capsys):
    """T = 3 at ε ~ 1460 each, h = 1e-4: 3.4e7 grid points (old: > 9 GB, minutes, no answer)."""
    code, _, err = run(
        capsys,
        ["account", "--dim", "20", "--norm-bound", "1.58", "--sensitivity", "0.5",
         "--sigma", "0.01", "--delta", "1e-5", "--releases", "3", "--no-progress"],
    )  # fmt: skip
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("synthamp: error: --discretization: the privacy loss spans")
    # the suggested h is enough: ±top/h within the limit
    top = float(lines[0].split("±")[1].split()[0])
    suggested = float(lines[0].split("use h >= ")[1].split()[0])
    assert top / suggested <= MAX_GRID_STEPS


@pytest.mark.parametrize("releases", [2, 4])
def test_composed_pld_epsilon_past_709_is_not_capped(releases):
    """Old: PrivacyLossDistribution.epsilon overflowed e^ε and returned ~711 (far too small)."""
    from synthamp.accountant import GaussianRelease, compute_epsilon_pld

    sigma = 1e-3
    for mechanism in (
        GaussianRelease(0.1, sigma, releases),
        SyntheticDataRelease(DIM, 1, 1.0, 0.1, sigma / 10, None, releases),  # C/σ = 1e4
    ):
        s = sigma if isinstance(mechanism, GaussianRelease) else sigma / 10
        result = compute_epsilon_pld(mechanism, DELTA, discretization=1.0)
        # T Gaussian mechanisms compose exactly into one of μ√T (mpmath, independent)
        mu = mp.mpf(0.1) / mp.mpf(s) * mp.sqrt(releases)
        eps = mp.mpf(result.epsilon)
        assert mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2) <= DELTA
        low = mp.mpf(result.epsilon_lower)
        assert mp.ncdf(-low / mu + mu / 2) - mp.exp(low) * mp.ncdf(-low / mu - mu / 2) >= DELTA
        assert result.epsilon - result.epsilon_lower < 2.0 * releases  # ~ h per run
