"""The one calibrator (synthamp.accountant._calibrator.smallest_sigma) and its users."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from synthamp.accountant import SyntheticDataRelease, compute_epsilon, laplace_calibration
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.accountant._sigma_search import gaussian_sigma

ACCOUNTANT = Path(__file__).resolve().parents[2] / "src" / "synthamp" / "accountant"


class _Recorded:
    """ε(σ) with every evaluation recorded."""

    def __init__(self, fn):
        self.fn, self.calls = fn, []

    def __call__(self, sigma: float) -> float:
        value = self.fn(sigma)
        self.calls.append((sigma, value))
        return value


@pytest.mark.parametrize(
    ("fn", "start"),
    [
        (lambda s: 3.0 / s, 0.01),  # smooth, from far below
        (lambda s: 3.0 / s, 1e6),  # from far above
        (lambda s: math.floor(40.0 / s) / 10.0, 1.0),  # a staircase: interpolation would lie
        (lambda s: math.nan if s < 2.0 else 0.5, 50.0),  # NaN below 2: not shown to meet
    ],
)
def test_the_sigma_returned_was_evaluated_and_the_bracket_is_certified(fn, start):
    target, rtol = 1.0, 1e-6
    eps = _Recorded(fn)
    sigma, value = smallest_sigma(eps, target, start, rtol)
    assert (sigma, value) in eps.calls and value <= target  # evaluated, never interpolated
    below = [s for s, v in eps.calls if not v <= target]  # evaluated above the target (NaN too)
    assert below and sigma / max(below) <= 1.0 + rtol


def test_gaussian_sigma_is_the_smallest_to_its_tolerance():
    """The Gaussian mechanism's σ meets ε exactly by its closed form, and 1e-11 less does not."""
    from synthamp.accountant import gaussian_epsilon

    sigma = gaussian_sigma(1.0, 1e-5, 1.0)
    assert (
        gaussian_epsilon(1e-5, 1.0, sigma) <= 1.0 < gaussian_epsilon(1e-5, 1.0, sigma / (1 + 1e-11))
    )


@pytest.mark.slow  # (≈ 3 s idle; 14 s under load 13 on 2 cores)
def test_pld_calibration_meets_the_target_where_it_was_evaluated():
    """ε reported is the accountant's at the σ returned (recomputed here), <= the target."""
    cal = calibrate_sigma_pld(1.0, 1e-5, dim=10, norm_bound=2.0, sensitivity=1.0)
    release = SyntheticDataRelease(10, 1, 2.0, 1.0, cal.sigma)
    again = compute_epsilon(release, 1e-5, accountant="pld")
    assert again.epsilon == cal.epsilon <= 1.0


def test_laplace_calibration_meets_the_target():
    cal = laplace_calibration(1.0, 1e-5, 1.0, releases=5)
    assert cal.epsilon_interval[1] <= 1.0


def test_no_other_sigma_search_is_left_in_the_accountant():
    """One calibrator: no regula falsi on σ, no private bisection on σ, no brentq on σ.

    scipy's brentq stays in ``_gaussian`` for ε of a given μ (a root in ε, not a
    calibration of σ), the only allowed use."""
    pattern = re.compile(r"_illinois_sigma|def _bisect_sigma|def _log_root|brentq\(")
    offenders = [
        path.name
        for path in ACCOUNTANT.glob("*.py")
        if path.name not in ("_calibrator.py", "_gaussian.py")
        and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
