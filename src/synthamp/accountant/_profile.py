"""The exact privacy profile δ(ε) of a release (docs/theory.md §14).

The hockey-stick divergence of a pair, δ_{P,Q}(ε) = sup_A P(A) − e^ε Q(A)
= E_P[(1 − e^{ε − L})_+], L = log p/q, is the smallest δ for which the pair is
(ε, δ)-indistinguishable; its supremum over adjacent pairs, δ*(ε), is the
privacy profile of the release, the exact (ε, δ) curve that RDP only bounds.

Threshold form (one pair)
-------------------------
The laws {P_a} of the sufficient statistic T (‖V‖²/σ² for an unlimited
release, Y·X for n_syn records; docs/theory.md §3) have a monotone likelihood
ratio in T (docs/accountant.md, step 1). For a > b the Neyman–Pearson sets
are therefore the upper tails {T > x}, and at the threshold x with L(x) = ε

    δ_{a,b}(L(x)) = P_a(T > x) − e^{L(x)} P_b(T > x),
    δ_{b,a}(−L(x)) = P_b(T <= x) − e^{−L(x)} P_a(T <= x)       (the reverse pair).

So one grid of thresholds x_j gives *exact points* (ε_j, δ_j) of both curves
without solving L(x) = ε: ε_j = L(x_j) is computed, not targeted. Tails come in
log space (:mod:`synthamp.divergence._ncx2_tail` for χ²_d(a²): proven bounds at a
cost independent of a = C/σ, or :mod:`scipy.stats` at small a; quadrature for
Y·X), so tiny δ keep their relative accuracy; δ_j = e^{log P}·(−expm1(ε_j + log Q − log P)).

Between the points: δ is convex in γ = e^ε (a supremum of functions affine in
γ) with slope dδ/dγ = −Q(T > x_j) at γ_j = e^{ε_j}. The chord between two
points is an *upper* bound, the larger of the two tangents a *lower* bound, so
every interpolated value carries a computed error bracket, and the grid is
refined until the bracket is below ``rtol`` (relative). The upper value is the
one returned; the error bounds of the tails (relative: per point for
χ²_d(a²), :data:`TAIL_RTOL` at small a; :data:`PRODUCT_TAIL_RTOL` plus the model
factor's for Y·X) and of L
(:data:`LLR_ATOL`·(1 + |L|), moving the point along the curve by at most
e^ε Q(T > x)·that) are added to every point first: the curve is pessimistic.

Worst case over pairs
---------------------
The edge reduction of docs/accountant.md (MLR + Blackwell) holds for every
f-divergence, hence for the hockey-stick divergence at every ε: the supremum
over adjacent pairs lies on the forward edge {(t + g, t)} or the reverse edge
{(t, t + g)}, g = min(Δ, C)/σ; evaluating the ordered pair (t + g, t) gives
both (its reverse curve is the pair (t, t + g)). When Δ >= C the edges are the
points (c, 0) and (0, c): exact, no search. Otherwise the forward endpoint
(c, c − g) is evaluated and checked at *every* ε of the requested grid against
a guard: the pairs t ∈ {0, (c − g)/2} (``GUARD_POINTS``), both orders. A guard
whose lower bracket exceeds the endpoint's upper value anywhere triggers the
fallback: a scan of :data:`FALLBACK_SCAN_POINTS` pairs along the edge, and the
pointwise maximum of their upper curves (the maximiser along the edge may then
differ from ε to ε). This is the guarded search of
:func:`synthamp.accountant.worst_case_rdp`, per ε instead of per order.

The profile returned on ε ∈ ℝ is the maximum of the two orders, so it
satisfies δ*(ε) = 1 − e^ε + e^ε δ*(−ε) for ε < 0: it is the profile of a
*symmetric* dominating pair (Zhu, Dong and Wang 2022) of one release. The PLD
accountant does not compose it: the T runs of a release share their pair, so
it composes the pair's two directions apart (:mod:`synthamp.accountant._pld_grid`).

k > 1
-----
No exact profile is known; the certified one is the Gaussian mechanism's
(Balle and Wang 2018) with Δ_eff = min(Δ, 2C): releasing ZV is a
post-processing of V = v + σN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._gaussian import _gaussian_delta, _gaussian_epsilon
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease
from synthamp.divergence import _log_likelihood_ratio, _log_likelihood_ratio_finite
from synthamp.divergence._laws import NoncentralChiSquare, ProductLaw
from synthamp.divergence._ncx2_tail import SCIPY_TAIL_RTOL, scipy_tail_rtol

__all__ = [
    "FALLBACK_SCAN_POINTS",
    "GUARD_POINTS",
    "LLR_ATOL",
    "PRODUCT_TAIL_RTOL",
    "TAIL_RTOL",
    "PrivacyProfile",
    "privacy_profile",
]

#: Relative error budget of the χ²_d(a²) tails at small a² (scipy/Boost, measured against
#: mpmath); at larger a each point carries its own bound (:mod:`synthamp.divergence._ncx2_tail`:
#: proven bounds at a cost independent of a, or scipy's error growing as 1e-16·a²).
TAIL_RTOL = SCIPY_TAIL_RTOL
#: Relative error budget of the Y·X tails (quadrature converged to 1e-9).
PRODUCT_TAIL_RTOL = 1e-8
#: Absolute error budget of L = log p/q, times (1 + |L|).
LLR_ATOL = 1e-11
#: Guard pairs along the edge besides the endpoint: t = j(c − g)/GUARD_POINTS, j < GUARD_POINTS.
GUARD_POINTS = 2
#: Pairs scanned along the edge when a guard fires.
FALLBACK_SCAN_POINTS = 8
#: Default resolution in ε of the interpolated profile (chord against tangents).
DEFAULT_RTOL = 1e-5
#: Up to this many requested ε, each is put on a threshold (L(x) = ε by bisection).
EXACT_POINTS = 64
#: Default tail mass below which the profile is not resolved (δ there is bounded by it).
DEFAULT_TAIL = 1e-18
#: The exact k = 1 profile's range (beyond_exact_profile): C/σ ≤ 10⁵ (tails tested there),
#: and ≤ 10³ where Δ/σ > 10. Outside it (overflow at c = 10³ with Δ = C, NaN quantiles from
#: c ~ 10⁶) the certified Gaussian profile of releasing V is used (its ε ≳ 50 there).
MAX_EXACT_AMPLITUDE = 1e5
LARGE_AMPLITUDE = 1e3
MAX_LARGE_STEP = 10.0

_INITIAL_NODES = 257
_MAX_REFINEMENTS = 14
_MAX_NODES = 400_000


# --------------------------------------------------------------------------- curves of a pair


@dataclass(frozen=True)
class _Curve:
    """Points of one hockey-stick curve δ(ε), sorted by ε.

    ``upper`` >= δ(ε_j) >= ``lower``; ``eps_slope`` = dδ/dε = γ_j dδ/dγ at
    γ_j = e^{ε_j} (−e^{ε_j} Q of the Neyman–Pearson set, in [−1, 0]: no e^ε is
    ever formed, so ε beyond 709 does not overflow).
    """

    eps: NDArray[np.float64]
    upper: NDArray[np.float64]
    lower: NDArray[np.float64]
    eps_slope: NDArray[np.float64]

    def bracket(self, epsilon: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """(upper, lower) bounds of δ at ``epsilon``: chord and tangents in γ = e^ε."""
        eps = self.eps
        k = np.searchsorted(eps, epsilon, side="right") - 1  # eps[k] <= ε < eps[k + 1]
        inside = (k >= 0) & (k < eps.size - 1)
        kk = np.clip(k, 0, eps.size - 2)
        e0, e1 = eps[kk], eps[kk + 1]
        with np.errstate(over="ignore", invalid="ignore"):
            u = np.expm1(epsilon - e0)  # (γ − γ_0)/γ_0
            span = np.expm1(e1 - e0)
            w = np.where(span > 0, u / np.where(span > 0, span, 1.0), 0.0)
            # (γ − γ_0)/(γ_1 − γ_0) without e^{ε − ε_0} where the points are > 709 apart
            far = ~np.isfinite(span)
            if far.any():
                w[far] = (np.exp(epsilon - e1) * np.expm1(e0 - epsilon) / np.expm1(e0 - e1))[far]
            chord = self.upper[kk] + (self.upper[kk + 1] - self.upper[kk]) * w
            tangent0 = self.lower[kk] + self.eps_slope[kk] * u
            tangent1 = self.lower[kk + 1] + self.eps_slope[kk + 1] * np.expm1(epsilon - e1)
        lower = np.maximum(np.maximum(tangent0, tangent1), 0.0)
        upper = chord
        # below the first point: chord from (γ = 0, δ = 1); above the last: δ is non-increasing
        below = k < 0
        if below.any():
            gamma_ratio = np.exp(epsilon[below] - eps[0])
            upper = np.where(below, 0.0, upper)
            upper[below] = 1.0 - (1.0 - self.upper[0]) * gamma_ratio
            lower[below] = np.maximum(self.lower[0] + self.eps_slope[0] * (gamma_ratio - 1.0), 0.0)
        above = (k >= eps.size - 1) & ~below
        upper = np.where(above, self.upper[-1], upper)
        lower = np.where(above, 0.0, np.where(inside | below, lower, 0.0))
        with np.errstate(over="ignore"):
            one_minus_gamma = -np.expm1(epsilon)  # −inf past ε = 709: no bound
        lower = np.maximum(lower, one_minus_gamma)
        upper = np.minimum(np.maximum(upper, lower), 1.0)
        return upper, lower

    def root(self, delta: float) -> tuple[float, float]:
        """(upper, lower) bounds on the smallest ε with δ(ε) <= ``delta``.

        Upper: where the chord (the upper bound) crosses ``delta``; lower: the
        largest crossing of the tangents (each a lower bound of the convex
        curve). −inf when the curve is below ``delta`` at its first point's
        chord from (γ = 0, δ = 1) at every ε >= that root (callers clip at 0).
        """
        up = self.upper
        above = np.nonzero(up > delta)[0]
        if above.size == 0:  # below delta at every point: chord from (γ = 0, δ = 1)
            if up[0] >= 1.0:
                upper_eps = self.eps[0]
            else:
                upper_eps = self.eps[0] + math.log((1.0 - delta) / (1.0 - up[0]))
        elif above[-1] == up.size - 1:
            upper_eps = math.inf  # not resolved (δ below the tail of the grid)
        else:
            k = above[-1]
            gap = self.eps[k + 1] - self.eps[k]
            w = (up[k] - delta) / (up[k] - up[k + 1])
            # log(1 + w(e^gap − 1)), also past gap = 709
            upper_eps = self.eps[k] + (
                math.log1p(w * math.expm1(gap))
                if gap < 700.0
                else gap + math.log(w + (1.0 - w) * math.exp(-gap))
            )
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            # tangent j: lower_j + eps_slope_j (γ − γ_j)/γ_j = delta
            ratio = (delta - self.lower) / self.eps_slope
            roots = self.eps + np.log1p(ratio)
        roots = roots[np.isfinite(roots) & (self.eps_slope < 0)]
        lower_eps = float(roots.max()) if roots.size else -math.inf
        return float(upper_eps), min(lower_eps, float(upper_eps))

    def interval_gaps(self) -> NDArray[np.float64]:
        """Largest chord − tangent gap on each interval (through the points' centres).

        The points' own error bars are excluded: refining cannot shrink them.
        """
        e0, e1 = self.eps[:-1], self.eps[1:]
        span = np.expm1(e1 - e0)
        mid = 0.5 * (self.upper + self.lower)
        d0, d1 = mid[:-1], mid[1:]
        s0 = self.eps_slope[:-1]
        s1 = self.eps_slope[1:] * np.exp(e0 - e1)
        # tangents in u = (γ − γ_0)/γ_0: d0 + s0 u and d1 + s1 (u − span); they meet at u*
        with np.errstate(divide="ignore", invalid="ignore"):
            u_star = (d1 - d0 - s1 * span) / (s0 - s1)
            u_star = np.clip(np.where(np.isfinite(u_star), u_star, 0.5 * span), 0.0, span)
            chord = d0 + (d1 - d0) * np.where(span > 0, u_star / span, 0.0)
        tangent = np.maximum(d0 + s0 * u_star, d1 + s1 * (u_star - span))
        return chord - tangent


def _log_diff(log_p: NDArray, log_q: NDArray, shift: NDArray) -> NDArray:
    """log(e^{log_p} − e^{shift + log_q}), −inf where that is <= 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.minimum(shift + log_q - log_p, 0.0)
        out = log_p + np.log(-np.expm1(gap))
    return np.where(np.isnan(out), -np.inf, out)


class _PairEvaluator:
    """The ordered pair (P_hi, P_lo) on a refinable grid of thresholds t of the statistic.

    ``t`` is the laws' coordinate (log x for χ² and product laws, x for
    Gaussian ones); ``llr(t)`` = log p_hi/p_lo there, increasing in t (MLR).
    """

    def __init__(self, law_hi, law_lo, llr: Callable, tail_rtol: float, tail: float):
        self.law_hi, self.law_lo, self.llr = law_hi, law_lo, llr
        self.tail_rtol = tail_rtol
        log_tail = math.log(tail)
        t_lo = law_lo.quantile_t(log_tail, upper=False)
        t_hi = law_hi.quantile_t(log_tail, upper=True)
        self.t = np.linspace(t_lo, t_hi, _INITIAL_NODES)
        self.edge_t = math.nan  # position along the edge (set by the caller)
        self.values = self._evaluate(self.t)
        self._curves = None

    def _evaluate(self, t: NDArray) -> dict[str, NDArray]:
        out = {"loss": np.asarray(self.llr(t), dtype=float)}
        for key, law, upper in (
            ("up_hi", self.law_hi, True),
            ("up_lo", self.law_lo, True),
            ("low_hi", self.law_hi, False),
            ("low_lo", self.law_lo, False),
        ):
            if hasattr(law, "log_tail_rtol"):  # a relative error bound per point
                out[key], out["rtol_" + key] = law.log_tail_rtol(t, upper)
            else:
                out[key] = law.log_tail(t, upper)
                out["rtol_" + key] = np.full(out[key].shape, self.tail_rtol)
        return out

    def insert(self, t_new: NDArray) -> None:
        self._curves = None
        new = self._evaluate(t_new)
        t = np.concatenate([self.t, t_new])
        order = np.argsort(t, kind="stable")
        self.t = t[order]
        self.values = {k: np.concatenate([v, new[k]])[order] for k, v in self.values.items()}

    def insert_levels(self, levels: NDArray[np.float64], steps: int = 12) -> None:
        """Add thresholds where L is (nearly) each level: regula falsi between grid points.

        L increases with t (MLR) and is smooth, so a few Illinois steps from
        the bracketing grid points put a threshold within ~1e-12 of the level
        in L. Any threshold gives an exact point of the curves, so no accuracy
        rests on the root: it only makes the chord at the level tight. Levels
        outside the range of L on the grid are skipped.
        """
        loss = np.maximum.accumulate(self.values["loss"])
        levels = np.unique(levels[(levels > loss[0]) & (levels < loss[-1])])
        if levels.size == 0:
            return
        k = np.searchsorted(loss, levels, side="right") - 1
        lo, hi = self.t[k].copy(), self.t[k + 1].copy()
        f_lo, f_hi = loss[k] - levels, loss[k + 1] - levels
        best = lo.copy()
        side = np.zeros(levels.size)  # +1: lo was kept last time, −1: hi was kept
        for _ in range(steps):
            with np.errstate(divide="ignore", invalid="ignore"):
                mid = lo - f_lo * (hi - lo) / (f_hi - f_lo)
            mid = np.where(np.isfinite(mid) & (mid > lo) & (mid < hi), mid, 0.5 * (lo + hi))
            f_mid = np.asarray(self.llr(mid), dtype=float) - levels
            best = mid
            below = f_mid < 0  # the root is above mid: mid replaces lo, hi is kept
            # Illinois: halve the kept end's value when the same end is kept twice
            f_hi = np.where(below & (side == -1), 0.5 * f_hi, f_hi)
            f_lo = np.where(~below & (side == 1), 0.5 * f_lo, f_lo)
            lo, f_lo = np.where(below, mid, lo), np.where(below, f_mid, f_lo)
            hi, f_hi = np.where(below, hi, mid), np.where(below, f_hi, f_mid)
            side = np.where(below, -1.0, 1.0)
            if np.all(np.abs(f_mid) <= 1e-13 * (1.0 + np.abs(levels))):
                break
        t_new = np.unique(best)
        self.insert(t_new[~np.isin(t_new, self.t)])

    def _curve(self, eps, log_p, log_q, loss_err, index, rtol_p, rtol_q) -> _Curve:
        """Points δ = P(A) − e^ε Q(A), A the Neyman–Pearson set, error added.

        ``index`` orders the thresholds by increasing ε (L is monotone in x by
        MLR); points where rounding breaks strict monotonicity (L flat at the
        end of its range) are dropped: the rest are still exact points.
        """
        eps, log_p, log_q, loss_err = eps[index], log_p[index], log_q[index], loss_err[index]
        rtol_p, rtol_q = rtol_p[index], rtol_q[index]
        keep = np.concatenate([[True], eps[1:] > np.maximum.accumulate(eps)[:-1]])
        eps, log_p, log_q, loss_err = eps[keep], log_p[keep], log_q[keep], loss_err[keep]
        rtol_p, rtol_q = rtol_p[keep], rtol_q[keep]
        log_delta = _log_diff(log_p, log_q, eps)
        p, q_scaled = np.exp(log_p), np.exp(np.minimum(eps + log_q, 700.0))
        delta = np.exp(log_delta)
        err = rtol_p * p + rtol_q * q_scaled + q_scaled * loss_err
        # Q(A) > 0 always: log Q = −inf is an underflowed tail (e^ε Q unknown, <= P), so
        # δ <= P still holds but P − err is no lower bound there: 0 is (and no tangent).
        lower = np.where(np.isneginf(log_q), 0.0, np.maximum(delta - err, 0.0))
        curve = _Curve(eps, np.minimum(delta + err, 1.0), lower, -q_scaled)
        return curve, index[keep]

    def curves(self) -> tuple[tuple[_Curve, NDArray], tuple[_Curve, NDArray]]:
        """(forward, reverse) curves of (P_hi, P_lo) and (P_lo, P_hi), with threshold indices."""
        if self._curves is None:
            self._curves = self._make_curves()
        return self._curves

    def _make_curves(self):
        v = self.values
        loss = v["loss"]
        loss_err = LLR_ATOL * (1.0 + np.abs(loss))
        up = np.arange(loss.size)
        forward = self._curve(
            loss, v["up_hi"], v["up_lo"], loss_err, up, v["rtol_up_hi"], v["rtol_up_lo"]
        )
        reverse = self._curve(
            -loss, v["low_lo"], v["low_hi"], loss_err, up[::-1], v["rtol_low_lo"], v["rtol_low_hi"]
        )
        return forward, reverse

    def refine(self, rtol: float, atol: float) -> tuple[_Curve, _Curve]:
        """Insert midpoints where the chord/tangent bracket exceeds rtol in ε (or atol in δ)."""
        for _ in range(_MAX_REFINEMENTS):
            forward, reverse = self.curves()
            bad = np.zeros(self.t.size, dtype=int)
            for curve, index in (forward, reverse):
                # the bracket as an error in ε: δ-gap over |dδ/dε| = e^ε Q
                scale = -curve.eps_slope[1:]
                with np.errstate(over="ignore", invalid="ignore"):  # NaN: points > 709 apart
                    wide = ~(curve.interval_gaps() <= rtol * scale + atol)
                lo = np.minimum(index[:-1], index[1:])[wide]
                hi = np.maximum(index[:-1], index[1:])[wide]
                np.add.at(bad, lo, 1)  # mark threshold intervals lo .. hi − 1
                np.add.at(bad, hi, -1)
            bad = np.cumsum(bad)[:-1] > 0
            if not bad.any() or self.t.size > _MAX_NODES:
                return forward[0], reverse[0]
            self.insert(0.5 * (self.t[:-1][bad] + self.t[1:][bad]))
        forward, reverse = self.curves()
        return forward[0], reverse[0]


# --------------------------------------------------------------------------- the release


def _pair_evaluator(release: SyntheticDataRelease, hi: float, lo: float, tail: float):
    d, n = release.dim, release.n_syn
    if n is None:
        return _PairEvaluator(
            NoncentralChiSquare(d, hi),
            NoncentralChiSquare(d, lo),
            lambda t: _log_likelihood_ratio(np.exp(t), d, float(hi), float(lo)),
            TAIL_RTOL,
            tail,
        )
    return _PairEvaluator(
        ProductLaw(d, hi, n),
        ProductLaw(d, lo, n),
        lambda t: _log_likelihood_ratio_finite(np.exp(t), d, n, float(hi), float(lo)),
        PRODUCT_TAIL_RTOL + scipy_tail_rtol(hi),  # quadrature + the model factor's tails
        tail,
    )


@dataclass(frozen=True)
class PrivacyProfile:
    """δ(ε) of a release (:func:`privacy_profile`).

    Attributes
    ----------
    epsilon : ndarray
        The ε at which δ was evaluated.
    delta : ndarray
        δ(ε), an upper bound: the exact value plus its error bound (kind
        *exact*), or the Gaussian profile of post-processing (kind *certified*).
    delta_lower : ndarray
        A lower bound on the same quantity (for the worst case: of the evaluated
        pairs); ``delta − delta_lower`` is the numerical error bracket.
    kind : Kind
        exact (k = 1) or certified (k > 1, Gaussian mechanism with Δ_eff).
    method : str
        How it was computed.
    fallback : bool
        Whether a guard fired and the edge was scanned.
    pairs : tuple of (float, float)
        The pairs (‖v‖, ‖w‖) evaluated (natural units; each in both orders).
    """

    epsilon: NDArray[np.float64]
    delta: NDArray[np.float64]
    delta_lower: NDArray[np.float64]
    kind: Kind
    method: str
    fallback: bool = False
    pairs: tuple[tuple[float, float], ...] = ()


def _check_single(release) -> None:
    """A single synthetic data release or Gaussian mechanism."""
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    if release.releases != 1:
        raise InputError(
            "releases", "the profile is of a single release; compose by the PLD accountant"
        )


def _check_epsilon(epsilon: ArrayLike, allow_negative: bool = False) -> NDArray[np.float64]:
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(eps)) or (not allow_negative and np.any(eps < 0)):
        raise InputError("epsilon", "must be finite and >= 0")
    return eps


class _WorstCase:
    """The guarded worst case over adjacent pairs of a k = 1 release (module docstring)."""

    def __init__(self, release: SyntheticDataRelease, rtol: float, tail: float):
        self.release, self.rtol, self.tail = release, rtol, tail
        self.atol = 1e-3 * tail
        sigma = release.sigma
        self.c, self.g = release.adjacency_norm_bound / sigma, release.amplitude_gap / sigma
        self.length = max(self.c - self.g, 0.0)
        self.endpoint = self._evaluate(self.length, rtol)
        guard_rtol = max(rtol, 1e-4)
        self.guards = (
            [
                self._evaluate(j * self.length / GUARD_POINTS, guard_rtol)
                for j in range(GUARD_POINTS)
            ]
            if self.length > 0.0  # Δ >= C: the edges are the points (c, 0) and (0, c)
            else []
        )
        self.scan: list[_PairEvaluator] = []

    def _evaluate(self, t: float, rtol: float) -> _PairEvaluator:
        pair = _pair_evaluator(self.release, t + self.g, t, self.tail)
        pair.refine(rtol, self.atol)
        pair.edge_t = t
        return pair

    @property
    def fallback(self) -> bool:
        return bool(self.scan)

    @property
    def pairs(self) -> tuple[tuple[float, float], ...]:
        sigma = self.release.sigma
        return tuple(
            ((p.edge_t + self.g) * sigma, p.edge_t * sigma)
            for p in [self.endpoint, *self.guards, *self.scan]
        )

    def insert_levels(self, epsilon: NDArray[np.float64]) -> None:
        """Put each ε on a threshold of both curves of the endpoint (and the scan)."""
        levels = np.concatenate([epsilon, -epsilon])
        for pair in [self.endpoint, *self.scan]:
            pair.insert_levels(levels)

    @staticmethod
    def _bracket(pair: _PairEvaluator, epsilon: NDArray) -> tuple[NDArray, NDArray]:
        (forward, _), (reverse, _) = pair.curves()
        uf, lf = forward.bracket(epsilon)
        ur, lr = reverse.bracket(epsilon)
        return np.maximum(uf, ur), np.maximum(lf, lr)

    def root(self, delta: float) -> tuple[float, float]:
        """(upper, lower) bounds on ε(δ) of the pairs in use (the largest over their curves)."""
        roots = [
            curve.root(delta)
            for pair in [self.endpoint, *self.scan]
            for curve in (pair.curves()[0][0], pair.curves()[1][0])
        ]
        return max(r[0] for r in roots), max(r[1] for r in roots)

    def bracket(self, epsilon: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """(upper, lower) of δ*(ε); a guard beating the endpoint starts the scan."""
        upper, lower = self._bracket(self.endpoint, epsilon)
        if not self.scan:
            for guard in self.guards:
                if np.any(self._bracket(guard, epsilon)[1] > upper):
                    grid = np.linspace(0.0, self.length, FALLBACK_SCAN_POINTS + 1)[:-1]
                    self.scan = [self._evaluate(float(t), self.rtol) for t in grid]
                    break
        for pair in self.scan:
            scan_upper, scan_lower = self._bracket(pair, epsilon)
            upper, lower = np.maximum(upper, scan_upper), np.maximum(lower, scan_lower)
        return upper, lower


@privacy_quantity("exact")
def privacy_profile(
    release: SyntheticDataRelease | GaussianRelease,
    epsilon: ArrayLike,
    *,
    rtol: float = DEFAULT_RTOL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyProfile:
    """The privacy profile δ(ε) of a single release (docs/theory.md §14).

    k = 1 (unlimited or n_syn records): the supremum over adjacent pairs of
    the hockey-stick divergence, by the threshold form on the sufficient
    statistic, the edge reduction and a guarded search at every ε (module
    docstring); kind *exact*, returned as an upper bound (error added).
    k > 1: the Gaussian mechanism's profile with Δ_eff = min(Δ, 2C) (Balle
    and Wang 2018), kind *certified*. A :class:`GaussianRelease`: its exact
    profile.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release (``releases=1``; compose with
        :func:`synthamp.accountant._pld.compute_epsilon_pld`).
    epsilon : array_like
        ε >= 0 (broadcast).
    rtol : float, default 1e-5
        Resolution in ε of the interpolation between thresholds (the chord/
        tangent bracket divided by |dδ/dε|). Up to :data:`EXACT_POINTS`
        requested ε are moreover put on thresholds themselves (bisection on
        L(x) = ε), so that their bracket is the points' error bound alone.
    tail : float, default 1e-18
        The thresholds span the laws down to tail probabilities ``tail``;
        beyond, δ is bounded by the last point (pessimistic, <= ``tail``).

    Returns
    -------
    PrivacyProfile
    """
    _check_single(release)
    eps = _check_epsilon(epsilon)
    rtol, tail = validated(rtol=rtol, tail=tail)
    flat = eps.ravel()
    if isinstance(release, GaussianRelease) or release.out_dim > 1:
        if isinstance(release, GaussianRelease):
            sensitivity, kind, method = release.sensitivity, Kind.EXACT, "gaussian mechanism"
        else:
            sensitivity, kind = release.effective_sensitivity, Kind.CERTIFIED
            method = "post-processing (Gaussian mechanism with effective sensitivity)"
        delta = _gaussian_delta(flat, sensitivity / release.sigma).reshape(eps.shape)
        return PrivacyProfile(eps, delta, delta, kind, method)
    if beyond_exact_profile(release):
        method = "post-processing (Gaussian mechanism; C/σ beyond the exact profile's range)"
        delta = _gaussian_delta(flat, release.effective_sensitivity / release.sigma)
        return PrivacyProfile(
            eps, delta.reshape(eps.shape), np.zeros(eps.shape), Kind.CERTIFIED, method
        )
    worst = _WorstCase(release, rtol, tail)
    if flat.size <= EXACT_POINTS:
        worst.insert_levels(flat)
    upper, lower = worst.bracket(flat)
    if worst.fallback and flat.size <= EXACT_POINTS:
        worst.insert_levels(flat)
        upper, lower = worst.bracket(flat)
    method = "threshold form, worst case over adjacent pairs (edge reduction, guarded)"
    return PrivacyProfile(
        eps,
        upper.reshape(eps.shape),
        lower.reshape(eps.shape),
        Kind.EXACT,
        method,
        worst.fallback,
        worst.pairs,
    )


@dataclass(frozen=True)
class ProfileEpsilon:
    """ε(δ) from the privacy profile (:func:`profile_epsilon`).

    Attributes
    ----------
    epsilon : float
        The smallest ε found with δ*(ε) <= δ, δ* the upper bound of the
        profile (error included): the guarantee.
    epsilon_lower : float
        An ε below which the lower bracket of the profile exceeds δ:
        ``epsilon − epsilon_lower`` is the numerical error of ``epsilon``.
    delta : float
        δ.
    kind : Kind
    fallback : bool
        Whether a guard fired.
    pairs : tuple
        The pairs evaluated.
    """

    epsilon: float
    epsilon_lower: float
    delta: float
    kind: Kind
    fallback: bool = False
    pairs: tuple[tuple[float, float], ...] = ()


@privacy_quantity("exact")
def profile_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    *,
    rtol: float = 1e-3,
    tail: float = DEFAULT_TAIL,
    refinements: int = 3,
) -> ProfileEpsilon:
    """ε(δ) of a single release from its exact privacy profile (docs/theory.md §14).

    The smallest ε with δ*(ε) <= δ, δ* the upper bound of :func:`privacy_profile`.
    The profile is first resolved coarsely (``rtol`` in ε), the crossing is
    found on its upper bound, then that ε is put on thresholds of the endpoint
    pair (bisection on L(x) = ε) and the crossing found again, ``refinements``
    times: every returned ε is one where the upper bound was evaluated.
    The guard (module docstring) is checked at the returned ε.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release.
    delta : float
        δ in (0, 1).

    Returns
    -------
    ProfileEpsilon
    """
    delta, rtol, tail = validated(delta=delta, rtol=rtol, tail=tail)
    return _profile_epsilon(release, delta, rtol, tail, refinements)


def _profile_epsilon(release, delta: float, rtol=1e-3, tail=DEFAULT_TAIL, refinements=3):
    """The kernel of :func:`profile_epsilon` (a :class:`ProfileEpsilon`): δ validated."""
    _check_single(release)  # the profile is of one release: never T > 1 (kernels too)
    gaussian = isinstance(release, GaussianRelease)
    if gaussian or release.out_dim > 1 or beyond_exact_profile(release):
        # releasing V: exact for a Gaussian mechanism, else certified (k > 1, or C/σ beyond the
        # exact profile's range, where no lower bound is claimed)
        mu = (release.sensitivity if gaussian else release.effective_sensitivity) / release.sigma
        eps = _gaussian_epsilon(delta, mu)
        while float(_gaussian_delta(eps, mu)) > delta:  # brentq to 1e-12: step up until <= δ
            eps += 1e-12 * max(1.0, eps)
        lower = eps if gaussian or release.out_dim > 1 else 0.0
        return ProfileEpsilon(eps, lower, delta, Kind.EXACT if gaussian else Kind.CERTIFIED)
    worst = _WorstCase(release, rtol, tail)
    (eps,), (eps_lower,) = _epsilons(worst, np.array([delta]), refinements)
    return ProfileEpsilon(eps, eps_lower, delta, Kind.EXACT, worst.fallback, worst.pairs)


def beyond_exact_profile(release: SyntheticDataRelease) -> bool:
    """Whether a k = 1 release lies outside the exact profile's numerical range (see
    :data:`MAX_EXACT_AMPLITUDE`): the one rule that the profile, the PLD and the command line
    apply (their number is then the certified bound of releasing V)."""
    c = release.adjacency_norm_bound / release.sigma
    s = release.sensitivity / release.sigma
    return release.out_dim == 1 and (
        c > MAX_EXACT_AMPLITUDE or (c > LARGE_AMPLITUDE and s > MAX_LARGE_STEP)
    )


def _epsilons(worst: _WorstCase, deltas: NDArray, refinements: int = 3):
    """ε(δ) upper and lower for each δ: roots of the chord, refined by putting them on thresholds.

    Every returned ε is one where the upper profile was evaluated and is <= δ;
    the guard is checked at the returned ε.
    """

    def roots():
        pairs = [worst.root(float(d)) for d in deltas]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    eps, eps_lower = roots()
    for _ in range(refinements):
        finite = eps[np.isfinite(eps) & (eps > 0)]
        if finite.size == 0:
            break
        worst.insert_levels(finite)
        eps, eps_lower = roots()
    finite = np.isfinite(eps)
    worst.bracket(eps[finite])  # the guard at the returned ε
    if worst.fallback:
        worst.insert_levels(eps[finite & (eps > 0)])
        eps, eps_lower = roots()
    upper, _ = worst.bracket(np.where(finite, eps, 0.0))
    # On the chord up to the rounding of ε (~1e-16·ε, amplified by δ_k/δ on a coarse chord at
    # ε in the thousands): step up (δ* is non-increasing, so this only makes ε pessimistic).
    for step in range(64):
        over = finite & ~(upper <= deltas * (1 + 1e-12))
        if not over.any():
            break
        eps = np.where(over, eps + 1e-12 * 2.0**step * np.maximum(1.0, np.abs(eps)), eps)
        upper, _ = worst.bracket(np.where(finite, eps, 0.0))
    else:  # pragma: no cover - on the chord
        raise RuntimeError("profile_epsilon: the upper profile exceeds delta at the root")
    return np.maximum(eps, 0.0), np.maximum(np.minimum(eps_lower, eps), 0.0)


def profile_epsilons(
    release: SyntheticDataRelease, deltas: ArrayLike, *, rtol: float = 1e-3
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ε(δ) and its lower bound for many δ from one worst-case profile (k = 1).

    As :func:`profile_epsilon`, sharing the thresholds between the δ.
    """
    deltas = np.array([validated_one("delta", d) for d in np.atleast_1d(deltas)])
    return _profile_epsilons(release, deltas, validated_one("rtol", rtol))


def _profile_epsilons(release, deltas: NDArray[np.float64], rtol: float = 1e-3):
    """The kernel of :func:`profile_epsilons` (ε and its lower bound): each δ validated."""
    _check_single(release)  # the profile is of one release: never T > 1 (kernels too)
    if release.out_dim > 1:
        raise InputError("out_dim", "the exact profile is for k = 1")
    if beyond_exact_profile(release):
        rule = f"<= {MAX_EXACT_AMPLITUDE:g} (<= {LARGE_AMPLITUDE:g} where Δ/σ > {MAX_LARGE_STEP:g})"
        raise InputError("sigma", f"C/σ must be {rule} for the exact profile")
    worst = _WorstCase(release, rtol, DEFAULT_TAIL)
    return _epsilons(worst, deltas)


@privacy_quantity("exact")
def pair_privacy_profile(
    epsilon: ArrayLike,
    dim: int,
    norm_v: float,
    norm_w: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
    *,
    tail: float = DEFAULT_TAIL,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """δ(ε) of one ordered pair (v, w): the hockey-stick divergence of P_v against P_w.

    The threshold form of the module docstring, each ε put on a threshold
    (no search over pairs: this is the exact value for the given pair, e.g.
    an audit's target, or one point of a scan of the adjacent set).

    Parameters
    ----------
    epsilon : array_like
        ε (any real values; broadcast).
    dim : int
        d.
    norm_v, norm_w : float
        ‖v‖ and ‖w‖ (natural units), different.
    sigma : float, default 1.0
    n_syn : int or None
        None for the unlimited release.

    Returns
    -------
    upper, lower : ndarray
        Bounds on δ(ε) (the value and its numerical error bracket).
    """
    eps = _check_epsilon(epsilon, allow_negative=True)
    norm_v, norm_w, sigma, tail = validated(norm_v=norm_v, norm_w=norm_w, sigma=sigma, tail=tail)
    a, b = norm_v / sigma, norm_w / sigma
    if a == b:
        raise InputError("norm_w", "must differ from `norm_v`")
    release = SyntheticDataRelease(dim, 1, max(norm_v, norm_w, 1e-300), 1.0, sigma, n_syn)
    pair = _pair_evaluator(release, max(a, b), min(a, b), tail)
    pair.refine(1e-3, 1e-3 * tail)
    flat = eps.ravel()
    pair.insert_levels(np.concatenate([flat, -flat]))
    (forward, _), (reverse, _) = pair.curves()
    upper, lower = (forward if a > b else reverse).bracket(flat)
    return upper.reshape(eps.shape), lower.reshape(eps.shape)
