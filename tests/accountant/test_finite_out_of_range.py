"""A finite calibration with n_syn ≪ d whose search leaves the engine's range falls back soundly.

Found by the n_syn ≤ d study (fig_regime): the lower model of the finite refinement stepped
σ down until the engine was called at amplitudes of 10¹⁶ and beyond, and ``calibrate_sigma``
raised (ValueError, ZeroDivisionError). It now keeps the plateau's σ, which is sound for
every n_syn, and says so.
"""

from __future__ import annotations

import pytest

from synthamp._budget import PLATEAU_FALLBACK
from synthamp.accountant import SyntheticDataRelease, calibrate_sigma, compute_epsilon


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("dim", "n_syn"), [(100, 1), (1000, 1)])
def test_the_plateau_sigma_stands_and_is_sound(dim, n_syn):
    result = calibrate_sigma(
        1.0, 1e-5, dim=dim, norm_bound=2.0, sensitivity=1.0, n_syn=n_syn, accountant="rdp"
    )
    plateau = calibrate_sigma(1.0, 1e-5, dim=dim, norm_bound=2.0, sensitivity=1.0, accountant="rdp")
    assert result.sigma == plateau.sigma and result.epsilon <= 1.0
    assert result.fallback is not None and PLATEAU_FALLBACK in result.fallback
    assert str(result.kind) == "certified"
    # sound: the finite release at that σ is within the target by the accountant itself
    finite = SyntheticDataRelease(dim, 1, 2.0, 1.0, result.sigma, n_syn=n_syn)
    assert compute_epsilon(finite, 1e-5, time_budget=None, accountant="rdp").epsilon <= 1.0 + 1e-9


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_the_finite_sigma_is_within_the_target_by_the_accountant_that_states_it():
    """d = 100, n_syn = 10, C/Δ = 800 (found by fig_regime): the refinement's σ at the top of
    its tolerance gave ε = 1.0000067 > 1 by ``compute_epsilon``; it is now verified by it."""
    result = calibrate_sigma(
        1.0, 1e-5, dim=100, norm_bound=800.0, sensitivity=1.0, n_syn=10, accountant="rdp"
    )
    finite = SyntheticDataRelease(100, 1, 800.0, 1.0, result.sigma, n_syn=10)
    stated = compute_epsilon(finite, 1e-5, time_budget=None, accountant="rdp").epsilon
    assert stated <= 1.0 and result.epsilon == pytest.approx(stated, rel=1e-12)
