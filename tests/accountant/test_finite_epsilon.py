"""The finite k = 1 ε at one δ from the orders that can give it (``accountant._finite_epsilon``).

:func:`compute_epsilon` and the calibration's verification convert the same curve: the exact
worst case where ε can be attained at δ, the plateau bound elsewhere (the pruning lemma of
``_pruning``). Checked here: it is an upper bound on a concrete adjacent pair's exact value
at every order (so never below the mechanism's worst case where the search is exact), its
ε agrees with the exact curve over every order to the search's tolerance, and the
calibration states the ε the accountant computes for its σ.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthamp.accountant import (
    DEFAULT_ORDERS,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
)
from synthamp.accountant._curves import _rdp_curve
from synthamp.accountant._finite_epsilon import finite_epsilon_curve
from synthamp.accountant._rdp_conversion import _epsilon
from synthamp.accountant._worst_case import _worst_case_result

ORDERS = np.asarray(DEFAULT_ORDERS)

#: (d, C, Δ, σ, n_syn): a small release, the reverse-endpoint corner (d = 20, n_syn = 1000,
#: c ≈ 12.7), n_syn ≪ d at C/σ ≈ 620, and two releases composed (T = 2).
CASES = [
    (10, 2.0, 0.1, 0.3458684, 100, 1),
    (20, 2.0, 0.25 * 0.157, 0.157, 1000, 1),
    (100, 800.0, 1.0, 1.285836, 10, 1),
    (50, 2.0, 0.5, 1.2, 1000, 2),
]


@pytest.mark.slow
@pytest.mark.parametrize(("dim", "norm", "gap", "sigma", "n_syn", "releases"), CASES)
def test_the_curve_bounds_a_real_pair_and_gives_the_exact_curves_epsilon(
    dim, norm, gap, sigma, n_syn, releases
):
    release = SyntheticDataRelease(dim, 1, norm, gap, sigma, n_syn=n_syn, releases=releases)
    curve = finite_epsilon_curve(release, ORDERS, 1e-5)
    full = _rdp_curve(release, ORDERS, "exact", lower=False)
    # the maximiser found by the full search is one adjacent pair: its exact value (estimate −
    # error) is below the worst case at every order, so below any sound upper bound
    found = _worst_case_result(ORDERS, dim, norm / sigma, gap / sigma, n_syn, sigma)
    pair = releases * (np.asarray(found.estimate) - np.asarray(found.error))
    assert np.all(curve.rdp >= pair * (1 - 1e-12))
    eps = _epsilon(ORDERS, curve.rdp, 1e-5, warn=False)[0]
    eps_full = _epsilon(ORDERS, full.rdp, 1e-5, warn=False)[0]
    # both are upper bounds on the same ε; they differ only by what the searches left
    assert eps == pytest.approx(eps_full, rel=1e-4)
    assert str(curve.kind) == "exact"


def test_compute_epsilon_converts_that_curve():
    release = SyntheticDataRelease(10, 1, 2.0, 0.1, 0.3458684, n_syn=100)
    stated = compute_epsilon(release, 1e-5, time_budget=None, accountant="rdp")
    curve = finite_epsilon_curve(release, ORDERS, 1e-5)
    assert stated.epsilon == _epsilon(ORDERS, curve.rdp, 1e-5, warn=False)[0]
    # composed with another mechanism, the curve is the exact one at every order
    composed = compute_epsilon(
        release, 1e-5, extra_curves=[release], time_budget=None, accountant="rdp"
    )
    full = _rdp_curve(release, ORDERS, "exact", lower=False)
    assert np.allclose(composed.curve.rdp, 2 * full.rdp, rtol=1e-9)


@pytest.mark.slow
def test_the_readme_finite_calibration_states_the_accountants_epsilon():
    """d = 20, C = 0.5, Δ = 6e-4, n_syn = 10⁵ (the README table's setting): the worst case lies
    inside the edge at every order; the calibration's σ has ε <= 1 by ``compute_epsilon``."""
    result = calibrate_sigma(
        1.0,
        1e-5,
        dim=20,
        norm_bound=0.5,
        sensitivity=6e-4,
        n_syn=100_000,
        time_budget=None,
        accountant="rdp",
    )
    release = SyntheticDataRelease(20, 1, 0.5, 6e-4, result.sigma, n_syn=100_000)
    stated = compute_epsilon(release, 1e-5, time_budget=None, accountant="rdp")
    assert result.fallback is None and str(result.kind) == "exact"
    assert stated.epsilon <= 1.0 and result.epsilon == stated.epsilon
    # the finite release needs less noise than the plateau's σ (sound for every n_syn)
    plateau = calibrate_sigma(1.0, 1e-5, dim=20, norm_bound=0.5, sensitivity=6e-4, accountant="rdp")
    assert result.sigma < plateau.sigma
