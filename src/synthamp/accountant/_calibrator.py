"""The one calibrator: the smallest σ whose ε(σ) meets a target (docs/theory.md §12).

Every calibration of synthamp (RDP, PLD, the guarantee's rule, the Gaussian
mechanism's σ, the certified k ≥ 2 routes, the figures' regimes) inverts a
non-increasing ε(σ) with :func:`smallest_sigma` (the monotonicity proofs are
in :mod:`synthamp.accountant._calibration` for the releases and in
:mod:`synthamp.accountant._pld_calibration` for the PLD):

1. **A certified bracket.** From ``start``, σ is multiplied (or divided) by a
   growing factor until ε(σ_lo) > target >= ε(σ_hi), both *evaluated*: the
   bracket is a fact about ε, not a model of it.
2. **Bisection in log σ** (the geometric midpoint, taken as exp of the mean of
   the logs, so that no σ leaves the doubles) until σ_hi/σ_lo <= 1 + ``rtol``.
3. **Soundness.** σ_hi is returned together with ε(σ_hi), computed there and
   <= the target: the result never rests on an interpolation. An ε that is NaN
   counts as above the target (not shown to meet it).
4. **Bounded.** The bracket search spans the positive doubles (2^±1050) and
   the bisection stops after :data:`MAX_BISECTIONS` halvings (more than the
   double range needs), or when the midpoint is no longer strictly inside the
   bracket (adjacent doubles). With ``budgeted=True`` the ambient time budget
   (:func:`synthamp._budget.check_budget`) is checked before each evaluation
   past the first, so a caller's budget stops the calibration between steps.
   Off by default: a calibration whose steps are short is never cut, so its σ
   does not depend on the machine's load; the long steps (the finite engine, a
   PLD composition past 2²⁰ points) check the budget inside themselves.

Failures are one :class:`~synthamp.InputError` naming ``epsilon``: no finite σ
reaches the target, or ε stays below it as σ → 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from synthamp._budget import check_budget
from synthamp._validation import InputError

__all__ = ["MAX_BISECTIONS", "smallest_sigma"]

#: Bisection steps on log σ after bracketing: from a bracket of ratio 2 (or, at worst, the
#: whole double range, log 2^2100) to a relative width of 1e-15 takes at most 61 halvings.
MAX_BISECTIONS = 64

#: Bracket steps: a factor 2 per step spans every positive double in 2100 steps.
MAX_BRACKET_STEPS = 2100


def _meets(value: Any, target: float) -> bool:
    """ε <= target (ε the value or the first item of a tuple); NaN does not meet it."""
    eps = value[0] if isinstance(value, tuple) else value
    return bool(eps <= target)


def _no_check() -> None:
    return None


def smallest_sigma(
    epsilon_at: Callable[[float], Any],
    target: float,
    start: float,
    rtol: float,
    first_step: float = 2.0,
    *,
    budgeted: bool = False,
) -> tuple[float, Any]:
    """Smallest σ (to relative ``rtol``, from above) with ε(σ) <= ``target``.

    Parameters
    ----------
    epsilon_at : callable
        σ ↦ ε(σ), or a tuple whose first item is ε(σ) (the rest is carried to
        the result); non-increasing in σ.
    target : float
        The ε to meet.
    start : float
        Where the bracket search starts (> 0).
    rtol : float
        Relative width of the final bracket.
    first_step : float, default 2
        The first bracket factor (< 2 for a start known to be close); it is
        squared at each step, up to 2.
    budgeted : bool, default False
        Check the ambient time budget between steps (module docstring).

    Returns
    -------
    (sigma, value)
        σ_hi and ``epsilon_at(σ_hi)``, whose ε is <= ``target``, with
        σ_hi/σ_lo <= 1 + rtol for a σ_lo whose ε is above the target (or the
        bracket at adjacent doubles, or after :data:`MAX_BISECTIONS` halvings).

    Raises
    ------
    InputError
        (``epsilon``) when no finite σ reaches the target or ε stays below it
        as σ → 0.
    TimeBudgetExceeded
        (``budgeted``) once the ambient time budget is spent.
    """
    tick = check_budget if budgeted else _no_check
    hi = lo = start
    at_hi = epsilon_at(hi)
    at_lo = None
    step = first_step
    if not _meets(at_hi, target):
        for _ in range(MAX_BRACKET_STEPS):
            lo, hi, at_lo = hi, step * hi, at_hi
            step = min(step * step, 2.0)
            if not math.isfinite(hi):
                break
            tick()
            at_hi = epsilon_at(hi)
            if _meets(at_hi, target):
                break
        else:
            hi = math.inf
        if not math.isfinite(hi):
            raise InputError(
                "epsilon",
                f"no finite σ reaches ε = {target:g} (searched up to σ = {lo:.3g}): the "
                "release's scale (C, Δ) is too large for floating point, or ε too small",
            )
    else:
        for _ in range(MAX_BRACKET_STEPS):
            lo = hi / step
            step = min(step * step, 2.0)
            if not lo > 0:
                break
            tick()
            at_lo = epsilon_at(lo)
            if not _meets(at_lo, target):
                break
            hi, at_hi = lo, at_lo
        else:
            lo = 0.0
        if not lo > 0:
            raise InputError(
                "epsilon",
                f"ε stays below {target:g} as σ → 0: the release's scale (C, Δ) is below the "
                "range of floating point",
            )
    kept = 0  # +n: the upper end kept n times in a row; −n: the lower end
    width = math.log(hi / lo)
    for step_number in range(MAX_BISECTIONS):
        if hi / lo - 1.0 <= rtol:
            break
        mid = _illinois_point(lo, hi, at_lo, at_hi, target, kept, rtol)
        if mid is None or (step_number % 2 == 1 and math.log(hi / lo) > 0.5 * width):
            mid = math.exp(0.5 * (math.log(lo) + math.log(hi)))  # bisection: the safeguard
        if step_number % 2 == 1:
            width = math.log(hi / lo)
        if not lo < mid < hi:  # adjacent doubles: the bracket cannot shrink further
            break
        tick()
        at_mid = epsilon_at(mid)
        if _meets(at_mid, target):
            hi, at_hi = mid, at_mid
            kept = min(kept, 0) - 1
        else:
            lo, at_lo = mid, at_mid
            kept = max(kept, 0) + 1
    return hi, at_hi


def _log_excess(value: Any, target: float) -> float | None:
    """log ε − log target, or None where it is not a finite number (NaN, ±∞, ε <= 0)."""
    eps = value[0] if isinstance(value, tuple) else value
    try:
        eps = float(eps)
    except (TypeError, ValueError):
        return None
    if not (eps > 0.0 and math.isfinite(eps) and target > 0.0):  # e.g. an excess against 0
        return None
    return math.log(eps) - math.log(target)


def _illinois_point(lo, hi, at_lo, at_hi, target, kept, rtol) -> float | None:
    """The next σ of regula falsi in (log σ, log ε), Illinois-weighted (the end kept in a
    row has its excess halved per repeat), moved a quarter of ``rtol`` past the line's root
    towards the end that did not move, so that the bracket closes from both sides. None
    (bisect) unless both ends have finite ε strictly on their sides of the target. It only
    proposes where to evaluate: the calibrator returns an evaluated σ whatever it proposes
    (the bisection every other step bounds the number of steps)."""
    if at_lo is None:
        return None
    f_lo, f_hi = _log_excess(at_lo, target), _log_excess(at_hi, target)
    if f_lo is None or f_hi is None or not f_lo > 0.0 > f_hi:
        return None
    if kept > 0:  # the upper end was kept: weigh it down
        f_hi *= 0.5**kept
    elif kept < 0:
        f_lo *= 0.5 ** (-kept)
    x_lo, x_hi = math.log(lo), math.log(hi)
    x = x_lo + (x_hi - x_lo) * f_lo / (f_lo - f_hi)
    x += -0.25 * rtol if kept < 0 else 0.25 * rtol if kept > 0 else 0.0
    margin = 1e-3 * (x_hi - x_lo)
    return math.exp(min(max(x, x_lo + margin), x_hi - margin))
