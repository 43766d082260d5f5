"""The privacy profile of one pair of laws, from thresholds, with its error (docs/theory.md §14).

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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from synthamp.accountant._releases import SyntheticDataRelease
from synthamp.divergence import _log_likelihood_ratio, _log_likelihood_ratio_finite
from synthamp.divergence._laws import NoncentralChiSquare, ProductLaw
from synthamp.divergence._ncx2_tail import SCIPY_TAIL_RTOL, scipy_tail_rtol

__all__ = ["LLR_ATOL", "PRODUCT_TAIL_RTOL", "TAIL_RTOL"]

#: Relative error budget of the χ²_d(a²) tails at small a² (scipy/Boost, measured against
#: mpmath); at larger a each point carries its own bound (:mod:`synthamp.divergence._ncx2_tail`:
#: proven bounds at a cost independent of a, or scipy's error growing as 1e-16·a²).
TAIL_RTOL = SCIPY_TAIL_RTOL
#: Relative error budget of the Y·X tails (quadrature converged to 1e-9).
PRODUCT_TAIL_RTOL = 1e-8
#: Absolute error budget of L = log p/q, times (1 + |L|).
LLR_ATOL = 1e-11

_INITIAL_NODES = 257
_MAX_REFINEMENTS = 14
_MAX_NODES = 400_000


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
