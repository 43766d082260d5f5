"""The finite attempt that cannot beat the unlimited profile is not started (issue 23).

finite_epsilon_lower_bound must bound the RDP accountant's finite ε from below
(else skipping could hide a finite σ below the unlimited one), and the release
accounting must skip exactly when that bound exceeds the target, with the same
σ and ε as the full computation.
"""

from __future__ import annotations

import pytest

from synthamp.accountant import (
    SyntheticDataRelease,
    calibrate_sigma,
    calibrate_sigma_pld,
    compute_epsilon,
)
from synthamp.accountant._calibration import finite_epsilon_lower_bound
from synthamp.release import account_release

DELTA = 1e-5
# (d, C, Δ, n_syn): amplification negligible (c² ≫ d) to large (d = 50, c ≈ 2.4)
CASES = [(20, 0.5, 0.002, 1000), (5, 2.0, 0.1, 100), (50, 2.0, 0.5, 1000), (20, 1.0, 0.05, 10_000)]


@pytest.mark.parametrize(
    ("dim", "norm", "sens", "n_syn"),
    [pytest.param(*CASES[0], marks=pytest.mark.slow), *CASES[1:]],  # the first: ~35 s
)
def test_the_bound_is_below_the_accountants_finite_epsilon(dim, norm, sens, n_syn):
    sigma_u = calibrate_sigma_pld(1.0, DELTA, dim=dim, out_dim=1, norm_bound=norm,
                                  sensitivity=sens).sigma  # fmt: skip
    for sigma in (sigma_u, 1.3 * sigma_u):
        release = SyntheticDataRelease(dim, 1, norm, sens, sigma, n_syn=n_syn)
        bound = finite_epsilon_lower_bound(release, DELTA)
        exact = compute_epsilon(release, DELTA, time_budget=None, accountant="rdp")
        assert exact.fallback is None
        assert 0.0 < bound <= exact.epsilon * (1 + 1e-12)


def test_a_hopeless_finite_attempt_is_skipped_with_the_same_numbers():
    dim, norm, sens, n_syn = CASES[-1]  # c² = 35 ≫ d = 20 at σ_u: bound 1.0918 > ε = 1
    common = dict(dim=dim, out_dim=1, norm_bound=norm, sensitivity=sens)
    sigma_u = calibrate_sigma_pld(1.0, DELTA, **common).sigma
    skipped = account_release(epsilon=1.0, delta=DELTA, sigma=None, **common, n_syn=n_syn,
                              method="exact", choice=None)  # fmt: skip
    assert "not started" in skipped.fallback and skipped.guarantee == "unlimited_pld"
    assert skipped.sigma == sigma_u and skipped.epsilon <= 1.0
    # what the full computation would have found: the finite σ is above σ_u (so the
    # rule takes σ_u), and the finite ε at σ_u is the plateau's reported ε or below it
    finite = calibrate_sigma(1.0, DELTA, **common, n_syn=n_syn, time_budget=None, accountant="rdp")
    assert finite.sigma > sigma_u
    at_u = compute_epsilon(SyntheticDataRelease(**common, sigma=sigma_u, n_syn=n_syn), DELTA,
                           time_budget=None, accountant="rdp")  # fmt: skip
    assert 1.0 < at_u.epsilon <= skipped.epsilon_rdp * (1 + 1e-12)


def test_a_finite_attempt_that_may_win_is_still_made():
    dim, norm, sens, n_syn = CASES[2]  # d = 50, c ≈ 2.4: amplification pays, bound 0.58 < 1
    common = dict(dim=dim, out_dim=1, norm_bound=norm, sensitivity=sens)
    result = account_release(epsilon=1.0, delta=DELTA, sigma=None, **common, n_syn=n_syn,
                             method="exact", choice=None)  # fmt: skip
    assert result.fallback is None or "not started" not in result.fallback
    assert result.guarantee in ("finite_rdp", "unlimited_pld")  # whichever needs less noise
