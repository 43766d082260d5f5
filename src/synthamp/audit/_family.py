"""The family estimator: a lower confidence bound on ε from the whole empirical curve.

The threshold audit (:mod:`._rates`) certifies one test at a time. At small δ the
optimal test of the README pair (d = 50, C = 2, Δ = σ = 1, δ = 1e-5) has tails
P(T > τ*) = 1.1e-4 and Q(T > τ*) = 2.6e-5: 10⁶ trials see about 26 false
positives there, and the threshold estimator reaches 0.9 of ε(δ) only beyond
about 5·10⁷ trials (docs/audit.md §7). This estimator instead uses
every trial, through the whole empirical distribution of the statistic on each
dataset (equivalently the whole empirical trade-off curve), and the exact
family of laws the statistic belongs to.

Assumption (F)
--------------
The statistic on D has law L(a) and on D′ law L(b) for some unknown amplitudes
a, b, where {L(θ)} is a known one-parameter family, stochastically increasing
and with a monotone likelihood ratio in θ: N(θ, 1) (the Gaussian mechanism),
χ²_d(θ²) (an unlimited release, d known) or Y·X with Y ~ χ²_d(θ²),
X ~ χ²_{n_syn} (n_syn records; docs/theory.md §3, Propositions 4.1–4.2). The
release audit samples the statistic from these laws, so (F) holds there by
construction; for any other source of scores (F) is what is assumed, and the
goodness-of-fit check below can refute it. The trials are independent.

The bound
---------
1. **Bands.** With F̂ the empirical distribution function of n trials, Massart's
   one-sided Dvoretzky–Kiefer–Wolfowitz inequality (Massart 1990) gives
   P(sup_x F(x) − F̂(x⁻) > w) <= exp(−2nw²) for exp(−2nw²) <= 1/2. Each of the
   two samples gets one one-sided band at level β/2, β = 1 − γ:
   w = √(log(2/β)/(2n)), and both hold together with probability >= γ (union
   bound). The bands are simultaneous over all thresholds x.
2. **Amplitudes.** F_θ(x) is decreasing in θ at every x (stochastic order), so
   on the band event of D the true a lies in [a↓, ∞) with
   a↓ = inf{θ : F_θ(x) <= F̂_D(x⁻) + w for all x}; on that of D′, b <= b↑ =
   sup{θ : F_θ(x) >= F̂_D′(x) − w for all x} (b↑ = the family's smallest θ if
   that set is empty, which the band event excludes). Checking the conditions
   at a subset of the order statistics (at most :data:`CHECK_POINTS`) only
   widens the sets, so a↓ and b↑ stay valid; the roots are found by Brent's
   method and moved outwards by the root tolerance.
3. **Monotonicity.** For b < a, the pair (L(a), L(b)) has a monotone likelihood
   ratio, so its optimal tests are the thresholds {T > τ}, the same for every
   such pair; FPR = P_b(T > τ) falls as b falls and 1 − FNR = P_a(T > τ) rises
   as a rises. The trade-off curve therefore moves down, pointwise, as a rises
   or b falls, and so does ε(δ) (a functional of the curve that is monotone in
   it, both directions): ε_{L(a↓), L(b↑)}(δ) <= ε_{L(a), L(b)}(δ).
4. **Post-processing.** The pair's ε(δ) is a lower bound on the mechanism's
   (the statistic is a function of the release).

Hence P(ε_lower <= ε_true) >= γ under (F), with ε_lower the exact ε(δ) of the
fitted pair (L(a↓), L(b↑)) (0 if a↓ <= b↑). The pair's ε is computed by the
caller (:func:`synthamp.audit._release.threshold_epsilon`: the value at a found
threshold, so never above the supremum up to the tails' relative error
~1e-14; :func:`synthamp.audit.gaussian_epsilon` for N(θ, 1)).

Goodness of fit. Each sample is also checked against a wider two-sided band,
at level :data:`FIT_LEVEL`/2 (two-sided DKW: P(sup |F̂ − F| > w′) <= 2e^{−2nw′²}).
If no member of the family lies inside it for one sample, (F) is rejected (a
false rejection has probability <= :data:`FIT_LEVEL` when (F) holds); then
ε_lower = 0 is reported, which is valid whatever happened, and ``fits`` is
False. The check only ever lowers ε_lower, so it costs no coverage.

References
----------
Dvoretzky, A., Kiefer, J. and Wolfowitz, J. (1956). Asymptotic minimax
character of the sample distribution function. Ann. Math. Statist. 27(3).
Massart, P. (1990). The tight constant in the Dvoretzky–Kiefer–Wolfowitz
inequality. Ann. Probab. 18(3).
Dong, J., Roth, A. and Su, W. J. (2022). Gaussian differential privacy. JRSS B.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated
from synthamp._validation import InputError
from synthamp.audit._rates import DEFAULT_CONFIDENCE
from synthamp.divergence._laws import Law

__all__ = ["CHECK_POINTS", "FIT_LEVEL", "FamilyEpsilon", "dkw_width", "family_epsilon_lower_bound"]

#: Largest number of order statistics at which the band conditions are checked.
CHECK_POINTS = 256
#: Level of the goodness-of-fit check (probability of rejecting a true family).
FIT_LEVEL = 1e-3
#: Relative tolerance of the amplitude roots of the bound and of the fit check
#: (each root is moved outwards by its tolerance).
_ROOT_RTOL = 1e-9
_FIT_RTOL = 1e-4


@dataclass(frozen=True)
class FamilyEpsilon:
    """Lower confidence bound on ε from the fitted family (:func:`family_epsilon_lower_bound`).

    Attributes
    ----------
    epsilon : float
        ε_lower >= 0: under assumption (F) of :mod:`synthamp.audit._family`, with
        probability >= ``confidence`` the mechanism is not (ε, δ)-DP for any
        ε < ε_lower.
    delta, confidence : float
        δ and γ.
    amp_p_lower, amp_q_upper : float
        a↓ and b↑: the least distinguishable pair of the confidence set (natural
        units of the family: θ of L(θ)).
    fit_p, fit_q : tuple of float
        The amplitudes inside each sample's two-sided goodness-of-fit band
        (an interval; empty, lower > upper, when the family is rejected).
    band_p, band_q : float
        DKW half-widths w of the two confidence bands.
    fits : bool
        False if no member of the family lies in the two-sided band of level
        :data:`FIT_LEVEL`/2 of one sample: (F) is rejected and ``epsilon`` is 0.
    trials : tuple of int
        Trials of D and of D′.
    family : str
        The family {L(θ)}.
    estimator : str
        ``"family"``.
    """

    epsilon: float
    delta: float
    confidence: float
    amp_p_lower: float
    amp_q_upper: float
    fit_p: tuple[float, float]
    fit_q: tuple[float, float]
    band_p: float
    band_q: float
    fits: bool
    trials: tuple[int, int]
    family: str
    estimator: str = "family"


def dkw_width(trials: int, level: float) -> float:
    """w = √(log(1/level)/(2n)): P(sup F − F̂ > w) <= level (Massart 1990, level <= 1/2)."""
    if not 0.0 < level <= 0.5:
        raise InputError("confidence", f"each band's level must lie in (0, 1/2]; got {level}")
    return math.sqrt(math.log(1.0 / level) / (2.0 * trials))


def _check_points(sorted_scores: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
    """Check points x_j (a subset of order statistics) with F̂(x_j⁻) and F̂(x_j)."""
    n = sorted_scores.size
    idx = np.unique(np.linspace(0, n - 1, min(n, CHECK_POINTS)).round().astype(np.intp))
    x = sorted_scores[idx]
    below = np.searchsorted(sorted_scores, x, side="left") / n
    at = np.searchsorted(sorted_scores, x, side="right") / n
    return x, below, at


def _amplitude_root(
    excess: Callable[[float], float], start: float, lower_limit: float, step: float, rtol: float
) -> tuple[float, float] | None:
    """The root of a decreasing ``excess`` on [lower_limit, ∞) and a bound on its error.

    None if excess(lower_limit) <= 0. Brackets outwards from ``start`` by doubling
    steps, then Brent's method (|error| <= xtol + 4 eps |root|, scipy's bound).
    """
    lo = hi = start
    for k in range(200):
        if excess(hi) < 0:
            break
        lo, hi = hi, hi + step * 2.0**k
    else:
        raise RuntimeError("no amplitude fits the band: the scores are far off the family")
    for k in range(200):
        if lo <= lower_limit or excess(lo) > 0:
            break
        hi, lo = lo, max(lo - step * 2.0**k, lower_limit)
    if lo <= lower_limit:
        lo = lower_limit
        if excess(lo) <= 0:
            return None
    xtol = rtol * max(1.0, abs(lo), abs(hi))
    root = float(optimize.brentq(excess, lo, hi, xtol=xtol))
    return root, xtol + 4.0 * np.finfo(float).eps * abs(root)


class _Bands:
    """The band conditions of one sample against the family, at its check points."""

    def __init__(
        self,
        sorted_scores: NDArray[np.float64],
        law_of: Callable[[float], Law],
        start: float,
        lower_limit: float,
    ):
        x, self.below, self.at = _check_points(sorted_scores)
        self.t = law_of(start).to_t(x)
        self.law_of, self.start, self.lower_limit = law_of, start, lower_limit
        self.step = 0.05 * max(1.0, abs(start))

    def _cdf(self, theta: float) -> NDArray[np.float64]:
        return np.exp(self.law_of(theta).log_tail(self.t, False))

    def lowest(self, width: float, rtol: float = _ROOT_RTOL) -> float:
        """θ↓ = inf{θ : F_θ(x) <= F̂(x⁻) + w at the check points}, moved down."""

        def over(theta: float) -> float:  # > 0 where F_θ exceeds the upper band somewhere
            return float(np.max(self._cdf(theta) - self.below)) - width

        found = _amplitude_root(over, self.start, self.lower_limit, self.step, rtol)
        if found is None:
            return self.lower_limit
        return max(found[0] - found[1], self.lower_limit)

    def highest(self, width: float, rtol: float = _ROOT_RTOL) -> float:
        """θ↑ = sup{θ : F_θ(x) >= F̂(x) − w at the check points}, moved up; −inf if empty."""

        def under(theta: float) -> float:  # > 0 where F_θ stays above the lower band
            return float(np.min(self._cdf(theta) - self.at)) + width

        found = _amplitude_root(under, self.start, self.lower_limit, self.step, rtol)
        if found is None:
            return -math.inf
        return found[0] + found[1]


@privacy_quantity("certified")
def family_epsilon_lower_bound(
    scores_p: ArrayLike,
    scores_q: ArrayLike,
    delta: float,
    *,
    law_of: Callable[[float], Law],
    pair_epsilon: Callable[[Law, Law, float], float],
    start_p: float,
    start_q: float,
    lower_limit: float = 0.0,
    confidence: float = DEFAULT_CONFIDENCE,
    family: str = "",
) -> FamilyEpsilon:
    """Lower confidence bound on ε(δ) from two samples of a statistic in a known family.

    The construction, its assumption (F) and the proof are in the docstring of
    :mod:`synthamp.audit._family`: one-sided DKW bands (Massart 1990) on both
    empirical distribution functions, at level (1 − γ)/2 each, turned into a
    lower bound a↓ on D's amplitude and an upper bound b↑ on D′'s; ε_lower is
    the exact ε(δ) of the pair (L(a↓), L(b↑)), 0 if a↓ <= b↑ or if the family
    is rejected by the two-sided bands.

    Parameters
    ----------
    scores_p, scores_q : array_like
        The statistic on D (larger amplitude) and on D′.
    delta : float
        δ in (0, 1).
    law_of : callable
        θ ↦ L(θ), a :class:`~synthamp.divergence._laws.Law` whose CDF is
        decreasing in θ.
    pair_epsilon : callable
        (L(a), L(b), δ) ↦ the exact ε(δ) of the pair, never above it.
    start_p, start_q : float
        Starting amplitudes of the root brackets (the nominal pair's).
    lower_limit : float, default 0
        Smallest amplitude of the family (−inf for N(θ, 1)).
    confidence : float, default 0.95
        γ in (0, 1).
    family : str
        Description of the family, for the report.

    Returns
    -------
    FamilyEpsilon
    """
    delta, confidence = validated(delta=delta, confidence=confidence)
    p = np.sort(np.asarray(scores_p, dtype=float).ravel())
    q = np.sort(np.asarray(scores_q, dtype=float).ravel())
    for name, arr in (("scores_p", p), ("scores_q", q)):
        if arr.size < 2:
            raise InputError(name, "needs at least 2 trials")
        if not np.all(np.isfinite(arr)):
            raise InputError(name, "contains NaN or infinite values")
    level = (1.0 - confidence) / 2.0
    w_p, w_q = dkw_width(p.size, level), dkw_width(q.size, level)
    bands_p = _Bands(p, law_of, start_p, lower_limit)
    bands_q = _Bands(q, law_of, start_q, lower_limit)
    a_low = bands_p.lowest(w_p)
    # an empty set is outside the band event: the family's smallest member is then safe
    b_high = max(bands_q.highest(w_q), lower_limit)
    fit = []
    for bands, n in ((bands_p, p.size), (bands_q, q.size)):
        width = dkw_width(n, FIT_LEVEL / 4.0)  # two-sided, level FIT_LEVEL/2 per sample
        fit.append((bands.lowest(width, _FIT_RTOL), bands.highest(width, _FIT_RTOL)))
    fits = all(lo <= hi for lo, hi in fit)
    epsilon = 0.0
    if fits and a_low > b_high:
        epsilon = max(0.0, float(pair_epsilon(law_of(a_low), law_of(b_high), delta)))
    return FamilyEpsilon(
        epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        amp_p_lower=a_low,
        amp_q_upper=b_high,
        fit_p=fit[0],
        fit_q=fit[1],
        band_p=w_p,
        band_q=w_q,
        fits=bool(fits),
        trials=(int(p.size), int(q.size)),
        family=family,
    )
