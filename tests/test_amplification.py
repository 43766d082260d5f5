"""The amplification outlook (docs/theory.md §16) against the exact accountant's noise saving."""

from __future__ import annotations

import pytest

from synthamp import InputError
from synthamp.accountant import calibrate_sigma
from synthamp.amplification import NEGLIGIBLE_NOISE_SAVING, amplification_outlook

# (d, C) at Δ = 6e-4, (ε, δ) = (1, 1e-5): c from about 2 to 300, both sides of the rule.
SETTINGS = [(2, 0.005), (5, 0.5), (20, 0.5), (20, 0.05), (200, 0.05), (2000, 0.5), (200000, 0.5)]


@pytest.mark.parametrize(("dim", "norm_bound"), SETTINGS)
def test_outlook_predicts_the_measured_noise_saving(dim, norm_bound):
    cal = calibrate_sigma(
        1.0, 1e-5, dim=dim, norm_bound=norm_bound, sensitivity=6e-4, accountant="rdp"
    )
    outlook = amplification_outlook(dim, norm_bound, cal.sigma)
    measured, predicted = cal.noise_reduction, outlook.predicted_saving
    # The local expansion predicts the exact saving to within 40% (or 1e-3 absolute).
    assert abs(measured - predicted) <= max(0.4 * predicted, 1e-3)
    # The verdict agrees with the measurement up to a factor 2 around the threshold.
    if outlook.negligible:
        assert measured < 2 * NEGLIGIBLE_NOISE_SAVING
    else:
        assert measured > NEGLIGIBLE_NOISE_SAVING / 2


def test_message_says_why_and_the_levers():
    # docs/theory.md §16: m = 5000, λ = 1, B = 1, (ε, δ) = (1, 1e-5): c ≈ 200, d = 20.
    outlook = amplification_outlook(20, 0.5, 0.5 / 206)
    assert outlook.negligible and "\n" not in outlook.message
    for part in ("negligible", "c = C/σ = 206", "d = 20", "wider generator", "ridge", "norm bound"):
        assert part in outlook.message
    assert outlook.width_needed == pytest.approx(2 * 206**2)
    wide = amplification_outlook(10**5, 0.5, 0.5 / 206)
    assert not wide.negligible and "can pay" in wide.message


def test_outlook_for_several_record_dimensions_uses_the_width_per_dimension():
    single = amplification_outlook(100, 1.0, 0.1)
    multi = amplification_outlook(300, 1.0, 0.1, out_dim=3)
    assert multi.width == 100 and multi.eta == pytest.approx(single.eta)
    assert "⌊d/k⌋ = 100" in multi.message


def test_outlook_refuses_bad_input():
    with pytest.raises(InputError, match="sigma"):
        amplification_outlook(20, 0.5, 0.0)
    with pytest.raises(InputError, match="dim"):
        amplification_outlook(0, 0.5, 1.0)
