"""The finite calibration settles in its pruned rounds (issue 23: ≤ 2 s at d = 10, Δ = 0.1).

At d = 10, n_syn = 100, C = 2, Δ = 0.1 the maximiser is the far end of the backward
edge, and the lower model, once at it, is below the accountant by the pair's error
bound alone (~1e-8 in ε): the pruned search used to propose the refuted σ again for
six rounds and then bisect with the guarded accountant (13 s). Checked here: the
answer comes from the pruned rounds (one guarded calibration only, the plateau's), and
it is the accountant's, bracketed by the full accountant on every order.
"""

from __future__ import annotations

import warnings

import pytest

import synthamp.accountant._calibration as calibration
from synthamp.accountant import (
    OrderGridWarning,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
)

DELTA = 1e-5
RELEASE = dict(dim=10, norm_bound=2.0, sensitivity=0.1)
N_SYN = 100


def _epsilon(sigma: float) -> float:
    release = SyntheticDataRelease(**RELEASE, out_dim=1, sigma=sigma, n_syn=N_SYN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        return compute_epsilon(release, DELTA, time_budget=None, accountant="rdp").epsilon


@pytest.mark.slow
def test_the_backward_endpoint_case_settles_in_the_pruned_rounds(monkeypatch):
    guarded = []
    original = calibration._calibrate_worst_case

    def counted(base, *args, **kwargs):
        guarded.append(base.n_syn)
        return original(base, *args, **kwargs)

    monkeypatch.setattr(calibration, "_calibrate_worst_case", counted)
    rtol = 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        cal = calibrate_sigma(
            1.0, DELTA, **RELEASE, n_syn=N_SYN, rtol=rtol, time_budget=None, accountant="rdp"
        )
    assert guarded == [None]  # the plateau only: no fallback bisection on the accountant
    assert cal.fallback is None and cal.kind == "exact"
    plateau = calibrate_sigma(1.0, DELTA, **RELEASE, rtol=rtol, accountant="rdp")
    assert cal.sigma < plateau.sigma  # amplification by finitely many records pays here
    # sound: the full accountant (every order, guarded) meets the target at σ ...
    assert cal.epsilon <= 1.0
    assert _epsilon(cal.sigma) == pytest.approx(cal.epsilon, abs=1e-6)
    assert _epsilon(cal.sigma) <= 1.0 + 1e-9
    # ... and tight: it does not one tolerance below
    assert _epsilon(cal.sigma / (1.0 + rtol)) > 1.0
