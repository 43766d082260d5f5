"""The family bound at one threshold per sample, with Clopper–Pearson intervals.

The family estimator of :mod:`synthamp.audit._family` bounds each sample's amplitude
with a DKW band, uniform over every threshold. When the family is known, one threshold
per sample, fixed before the runs, already pins the amplitude, and a binomial count
there has a Clopper–Pearson interval (Clopper and Pearson 1934) narrower than the
band (about √(F(1 − F))·z against √(log(2/β)/2) per √n).

Under the same assumption (F) (the statistic of a sample follows L(θ) of a known
family, F_θ(x) decreasing in θ, with unknown θ), for a sample of n runs and a
threshold τ fixed in advance:

* a **signal** sample (D's, amplitude a): with k runs at or below τ, the one-sided
  upper Clopper–Pearson bound U at level β covers F_a(τ) with probability >= 1 − β,
  and then a >= a↓ = inf{θ >= 0 : F_θ(τ) <= U};
* a **central** sample (D′'s, amplitude b): the lower bound L covers F_b(τ) from below,
  and then b <= b↑ = sup{θ >= 0 : F_θ(τ) >= L} (0 when the set is empty: outside the
  event, which costs no coverage).

Roots by Brent's method, moved outwards by their tolerance. τ maximises the
efficiency |∂_λ F_λ(τ)|/√(F_λ(τ)(1 − F_λ(τ))) at the nominal λ = θ² (the Fisher
information the indicator carries about λ), over 99 quantiles of the nominal law:
it depends on the laws only. With every sample's bound at level β = (1 − γ)/s
(s samples, a union bound), the amplitudes of all samples are bounded together with
probability >= γ; the caller turns them into ε(δ) of the least distinguishable pair by
the monotonicity argument of :mod:`synthamp.audit._family` (k = 1) or
:mod:`synthamp.audit._product_family` (k = 2), a lower bound on ε with probability
>= γ under (F).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from synthamp.audit._tradeoff_band import clopper_pearson_interval
from synthamp.divergence._laws import Law

__all__ = ["amplitude_bound", "efficient_threshold"]

_QUANTILES = np.linspace(0.01, 0.99, 99)
_ROOT_RTOL = 1e-10


def _cdf(law: Law, tau: float | NDArray) -> NDArray[np.float64]:
    t = law.to_t(np.atleast_1d(np.asarray(tau, dtype=float)))
    return np.exp(law.log_tail(t, False))


def efficient_threshold(law_of: Callable[[float], Law], amp: float) -> float:
    """τ maximising |∂_λ F_λ(τ)|/√(F(1 − F)) at λ = amp² over 99 quantiles of L(amp)."""
    law = law_of(amp)
    t = np.array([law.quantile_t(math.log(q), False) if q < 0.5 else
                  law.quantile_t(math.log1p(-q), True) for q in _QUANTILES])  # fmt: skip
    tau = law.from_t(t)
    lam = amp * amp
    step = 1e-3 * max(lam, 1e-2)
    lo, hi = max(lam - step, 0.0), lam + step
    slope = (_cdf(law_of(math.sqrt(hi)), tau) - _cdf(law_of(math.sqrt(lo)), tau)) / (hi - lo)
    f = _cdf(law, tau)
    efficiency = np.abs(slope) / np.sqrt(np.maximum(f * (1.0 - f), 1e-300))
    return float(tau[int(np.argmax(efficiency))])


def amplitude_bound(
    scores: NDArray[np.float64],
    tau: float,
    law_of: Callable[[float], Law],
    level: float,
    signal: bool,
    start: float,
) -> float:
    """a↓ (``signal``) or b↑ of one sample at threshold ``tau``, each at level ``level``."""
    x = np.asarray(scores, dtype=float)
    below = int(np.count_nonzero(x <= tau))
    low, high = clopper_pearson_interval(below, x.size, 1.0 - 2.0 * level)
    bound = float(high) if signal else float(low)

    def excess(theta: float) -> float:  # decreasing in θ
        return float(_cdf(law_of(theta), tau)[0]) - bound

    if signal and excess(0.0) <= 0:  # even θ = 0 lies below the upper bound
        return 0.0
    if not signal and excess(0.0) < 0:  # no θ reaches the lower bound: outside the event
        return 0.0
    hi = max(start, 1e-3)
    for _ in range(200):
        if excess(hi) < 0:
            break
        hi *= 2.0
    xtol = _ROOT_RTOL * max(1.0, hi)
    root = float(optimize.brentq(excess, 0.0, hi, xtol=xtol))
    move = xtol + 4.0 * np.finfo(float).eps * abs(root)
    return max(root - move, 0.0) if signal else root + move
