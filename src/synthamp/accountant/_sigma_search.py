"""The σ searches of the PLD accountant, which always end (docs/accountant.md).

:func:`_illinois_sigma`: the smallest σ whose ε meets a target, by regula falsi on
log σ with the Illinois modification, a bisection after two steps on one side and a
step cap (the upper end of the bracket, the sound side, is returned);
:func:`gaussian_sigma`: the Gaussian mechanism's σ at (ε, δ), by its exact profile
(Balle and Wang 2018). Both stay inside the doubles: a σ that leaves them is one error
naming ``epsilon``.
"""

from __future__ import annotations

import math

from synthamp._validation import InputError
from synthamp.accountant._gaussian import _gaussian_epsilon

__all__ = ["MAX_SIGMA_STEPS", "gaussian_sigma"]


#: Regula falsi steps of :func:`_illinois_sigma` (each at least halves the bracket after
#: two steps on one side, so 2·64 steps reach any relative width).
MAX_SIGMA_STEPS = 128


def _illinois_sigma(epsilon_at, target: float, hi: float, rtol: float) -> float:
    """Smallest σ <= hi with ε(σ) <= target, to relative ``rtol`` (ε non-increasing in σ).

    Regula falsi with the Illinois modification on (log σ, ε − target), each
    proposal kept at least rtol/2 inside the bracket so that the bracket
    itself shrinks below ``rtol``; after two steps on one side of the root the
    next is a bisection (a target far below ε's scale, e.g. ε = 1e-300, made
    regula falsi creep by rtol/2 per step: 1,281 steps, 44 s). Stops after
    :data:`MAX_SIGMA_STEPS` steps. Returns the upper end, where ε was computed and
    is <= target: the sound side (more noise). An ε that is NaN counts as above
    the target; a σ leaving the doubles raises.
    """

    def above(value: float) -> bool:
        return not value <= 0  # NaN: not shown to meet the target

    f_hi = epsilon_at(hi) - target
    for _ in range(2100):  # not an upper end (by the discretisation error only): double
        if not above(f_hi):
            break
        hi *= 2.0
        if not math.isfinite(hi):
            break
        f_hi = epsilon_at(hi) - target
    if above(f_hi):
        raise InputError(
            "epsilon", f"no finite σ reaches ε = {target:g}: the release's scale is too large"
        )
    lo = hi
    for _ in range(80):
        lo *= 0.75
        f_lo = epsilon_at(lo) - target
        if above(f_lo):
            break
        hi, f_hi = lo, f_lo
    else:
        raise InputError("epsilon", f"ε stays below {target:g} as σ → 0")
    if math.isnan(f_lo):
        f_lo = math.inf  # a bracket end all the same; its value only steers the steps
    x_lo, x_hi, side, repeats = math.log(lo), math.log(hi), 0, 0
    margin = 0.5 * math.log1p(rtol)
    for _ in range(MAX_SIGMA_STEPS):
        if x_hi - x_lo <= math.log1p(rtol):
            break
        if repeats >= 2 or not math.isfinite(f_lo) or f_lo == f_hi:
            x = 0.5 * (x_lo + x_hi)
        else:
            x = x_lo - f_lo * (x_hi - x_lo) / (f_hi - f_lo)
        x = min(max(x, x_lo + margin), x_hi - margin)
        f = epsilon_at(math.exp(x)) - target
        if above(f):
            x_lo, f_lo = x, (f if math.isfinite(f) else math.inf)
            repeats = repeats + 1 if side == -1 else 0
            if side == -1:
                f_hi *= 0.5
            side = -1
        else:
            x_hi, f_hi = x, f
            repeats = repeats + 1 if side == 1 else 0
            if side == 1:
                f_lo *= 0.5
            side = 1
    return math.exp(x_hi)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ of the Gaussian mechanism with exact ε(δ) <= ε (Balle and Wang 2018)."""

    def excess(log_sigma: float) -> float:
        return _gaussian_epsilon(delta, sensitivity / math.exp(log_sigma)) - epsilon

    lo = hi = math.log(sensitivity)
    for _ in range(1500):  # log σ within the doubles: ±745
        if not excess(hi) > 0:
            break
        hi += 1.0
    for _ in range(1500):
        if excess(lo) > 0:
            break
        lo -= 1.0
    if not (excess(lo) > 0 and excess(hi) <= 0):
        raise InputError("epsilon", f"no σ of the Gaussian mechanism meets ε = {epsilon:g}")
    # heavy: scipy.optimize (~0.6 s at import), needed only by this calibration
    from scipy.optimize import brentq

    root = brentq(excess, lo, hi, xtol=1e-12)
    sigma = math.exp(root)
    while _gaussian_epsilon(delta, sensitivity / sigma) > epsilon:  # the upper side
        sigma *= 1 + 1e-12
    return sigma
