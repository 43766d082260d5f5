"""The Gaussian mechanism's σ at (ε, δ) by its exact profile (Balle and Wang 2018).

:func:`gaussian_sigma` inverts the exact ε(δ) of the Gaussian mechanism
(:func:`synthamp.accountant._gaussian._gaussian_epsilon`) with the one calibrator
(:func:`synthamp.accountant._calibrator.smallest_sigma`: a certified bracket, then
bisection in log σ to a relative 1e-12, the upper side returned). A σ that leaves the
doubles is one error naming ``epsilon``.
"""

from __future__ import annotations

from synthamp._validation import InputError
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._gaussian import _gaussian_epsilon

__all__ = ["GAUSSIAN_RTOL", "gaussian_sigma"]

#: Relative width of the final bracket of :func:`gaussian_sigma` (the upper end returned).
GAUSSIAN_RTOL = 1e-12


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ of the Gaussian mechanism with exact ε(δ) <= ε (Balle and Wang 2018)."""
    try:
        sigma, _ = smallest_sigma(
            lambda s: _gaussian_epsilon(delta, sensitivity / s), epsilon, sensitivity, GAUSSIAN_RTOL
        )
    except InputError:
        raise InputError(
            "epsilon", f"no σ of the Gaussian mechanism meets ε = {epsilon:g}"
        ) from None
    return sigma
