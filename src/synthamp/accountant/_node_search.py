"""The certified calibration's σ search on the orthogonal node, in few PLD evaluations.

docs/theory.md §20. The k ≥ 2 guarantee is the orthogonal node's PLD ε (the k = 1 remove
⊛ add at width d − k and c*/σ), and each evaluation of it at a large ε costs seconds (the
k = 1 pair's tails at a noncentrality (c*/σ)² in the thousands). A bisection to
``rtol`` = 1e-3 spent about ten of them (75 s at ε = 100 on wine's table). This search
spends three to five:

1. start at the node's RDP σ (ε by the RDP conversion meets the target there, and the
   PLD's ε is below the RDP's: a σ that meets it, the bracket's sound upper end);
2. predict the root of log ε_PLD(log σ) = log ε* by a secant in (log σ, log ε), which is
   nearly linear there; with one evaluation only, by the cheap RDP curve's slope;
3. while the upper end is farther than ``rtol`` above the predicted root, evaluate just
   above the prediction (a new, closer upper end, or a failing lower end);
4. once it is within ``rtol``, evaluate just under ``rtol`` below it: a failing σ closes
   the bracket; one that meets becomes the upper end and the search goes on.

It returns the upper end of a bracket narrower than ``rtol`` in σ (ε computed there
and ≤ the target: the sound side) and the payload computed there (the node's PLD, which
the guarantee reuses). Inside a bracket every proposal stays a quarter of ``rtol``
inside it and, after two proposals on one side, the next is a bisection: the search
always ends (:data:`MAX_NODE_STEPS`; past it, the upper end found so far, sound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_NODE_STEPS", "node_sigma_search"]

#: PLD evaluations after the first (each bracketed step at least halves the bracket after
#: two on one side, so the cap is far beyond any search that converges).
MAX_NODE_STEPS = 40


def node_sigma_search(
    evaluate: Callable[[float], tuple[float, Any]],
    slope: float,
    target: float,
    x_start: float,
    rtol: float,
) -> tuple[float, Any, int]:
    """The smallest log σ (to ``rtol`` in σ) with ε(σ) ≤ ``target``, ε non-increasing in σ.

    Parameters
    ----------
    evaluate : callable
        log σ ↦ (ε, payload); ε may be inf or NaN (counted as above the target).
    slope : float
        d log ε / d log σ at ``x_start`` from a cheap model (< 0; the RDP curve's).
    target : float
        ε* > 0.
    x_start : float
        log σ of a σ expected to meet the target (raised by doubling σ if it does not).
    rtol : float
        Relative width of the final bracket in σ.

    Returns
    -------
    x_hi, payload, evaluations
        log σ of the upper end (ε ≤ target there), its payload, and the evaluations spent.
    """
    width = math.log1p(rtol)
    margin = 0.25 * width
    log_target = math.log(target)
    count = 0

    def gap(x: float) -> tuple[float, Any]:  # log(ε/ε*): > 0 fails, NaN fails
        nonlocal count
        count += 1
        eps, payload = evaluate(x)
        if math.isnan(eps):  # not shown to meet the target
            return math.inf, payload
        return (math.log(eps) - log_target if eps > 0 else -math.inf), payload

    x_hi = x_start
    f_hi, pay_hi = gap(x_hi)
    for _ in range(64):  # not an upper end: double σ
        if f_hi <= 0:
            break
        x_hi += math.log(2.0)
        f_hi, pay_hi = gap(x_hi)
    else:
        return x_hi, pay_hi, count
    x_lo = None
    previous = None  # the last other point (x, f) with a finite f, for the secant
    side, repeats = 0, 0
    for _ in range(MAX_NODE_STEPS):
        if x_lo is not None and x_hi - x_lo <= width:
            break
        root = _predicted_root(x_hi, f_hi, previous, slope)
        if x_hi - root > width:
            x = root + margin  # a closer upper end, most likely
        else:
            x = x_hi - 0.999 * width  # close the bracket, most likely
        if x_lo is not None:
            if repeats >= 2:
                x = 0.5 * (x_lo + x_hi)
            x = min(max(x, x_lo + margin), x_hi - margin)
        f, pay = gap(x)
        if f > 0:
            if math.isfinite(f):
                previous = (x, f)
            x_lo = x
            repeats = repeats + 1 if side == -1 else 0
            side = -1
        else:
            if math.isfinite(f_hi):
                previous = (x_hi, f_hi)
            x_hi, f_hi, pay_hi = x, f, pay
            repeats = repeats + 1 if side == 1 else 0
            side = 1
    return x_hi, pay_hi, count


def _predicted_root(
    x_hi: float, f_hi: float, previous: tuple[float, float] | None, slope: float
) -> float:
    """log σ where the secant through the upper end and the previous point (or the model
    slope through the upper end) crosses log ε = log ε*; never above the upper end."""
    step = slope
    if previous is not None and previous[0] != x_hi and math.isfinite(f_hi):
        secant = (f_hi - previous[1]) / (x_hi - previous[0])
        if secant < 0 and math.isfinite(secant):
            step = secant
    if not (step < 0 and math.isfinite(f_hi)):
        return x_hi - math.log(2.0)
    return min(x_hi, x_hi - f_hi / step)
