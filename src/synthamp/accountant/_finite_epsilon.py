"""ε of a finite k = 1 release at one δ, from the orders that can give it (docs/theory.md §12).

The finite-release worst case costs engine calls at every Rényi order, and at one δ
most orders cannot give ε: the pruning lemma of :mod:`synthamp.accountant._pruning`
(proved there) says which can, from a cheap lower bound (one adjacent pair at a few
orders, extended by convexity) and an upper bound valid for every n_syn (the plateau
and post-processing, docs/theory.md §3). :class:`_FiniteAccountant` holds both and
the guarded worst case (:mod:`synthamp.accountant._worst_case`) at the remaining
orders; :func:`finite_epsilon_curve` is the curve whose conversion at δ is the
guarantee's ε (:func:`synthamp.accountant.compute_epsilon` and the calibration's
verification both use it, so the two state the same ε for the same σ), and the
calibration (:mod:`synthamp.accountant._calibration`) solves σ on the same object.

The curve holds the exact worst case (value + error, capped by the plateau and
post-processing) at the orders that can give ε at δ, and the plateau or
post-processing bound at the others: each order's value is an upper bound on the
release's worst-case RDP there, and its minimum conversion at δ equals that of the
exact curve at every order (first lemma of ``_pruning``); at another δ it is a
sound, possibly looser, curve.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from synthamp._kinds import Kind
from synthamp.accountant._pruning import lower_curve, relevant_orders
from synthamp.accountant._rdp_conversion import RdpCurve, _curve, _epsilon_terms
from synthamp.accountant._releases import SyntheticDataRelease, _with
from synthamp.accountant._worst_case import (
    COLD_HINT_WIDTH,
    _EdgeEvaluator,
    _to_t,
    _to_u,
    _worst_case,
    gaussian_edge_maximiser,
)
from synthamp.bounds import _post_processing_scaled

__all__: list[str] = []

#: Orders either side of the optimum at which the finite lower model evaluates its pair.
CORE_HALF_WIDTH = 2
#: Half-width (in u = asinh(t)) of the points around a maximiser found at a nearby σ (around
#: one predicted by the Gaussian model: :data:`COLD_HINT_WIDTH`, the guard's own).
WARM_HINT_WIDTH = 0.01


class _FiniteAccountant:
    """ε of a finite k = 1 release at any σ: a cheap lower bound and the accountant's value.

    ``lower(σ)`` evaluates one adjacent pair at a few *core* orders around the
    optimum and at the lowest order (one engine call) and extends it to every order by the convexity
    lemma of ``_pruning``: a lower bound on the accountant's ε at σ.
    ``upper(σ)`` is the accountant's ε (the guarded worst case, as
    :func:`compute_epsilon` computes it) at the orders that can give the
    minimum (the pruning lemma of ``_pruning``: those with ε_α(lower) at most
    the plateau's ε), the plateau and post-processing curves (upper bounds for
    every n_syn, docs/theory.md §3) standing at the others; its ε is the one the
    accountant computes at every order. The pair of ``lower`` sits at the
    maximiser found by the last ``upper`` (scaled units). Before ``upper`` has
    found one, the first call tries the Gaussian model's t = (d(d + n))^{1/4}
    on the forward edge, its neighbours at ±``COLD_HINT_WIDTH`` in u and the
    vertex of the parabola through the three, and the far ends of both edges,
    and keeps the pair of the largest bound (each pair's divergence is a lower
    bound on the worst case, so the bound stays one whichever is kept). These
    positions are only where to look (the Gaussian one warm-starts the guarded
    search too, never replacing a check).
    """

    def __init__(
        self, base: SyntheticDataRelease, orders: NDArray[np.float64], delta: float, center: int
    ) -> None:
        self.base, self.orders, self.delta = base, orders, delta
        # where the last maximiser was: (t, forward edge?, search width in u)
        self.hint: tuple[float, bool, float] | None = (
            gaussian_edge_maximiser(base.dim, base.n_syn),
            True,
            COLD_HINT_WIDTH,
        )
        self.found = False  # has ``upper`` found a maximiser (then ``hint`` is where)?
        self.pick: tuple[float | None, bool] | None = None  # the lower model's pair till then
        self._center(center)
        self.lower_curves: dict[float, NDArray[np.float64]] = {}
        self.curves: dict[float, NDArray[np.float64]] = {}  # the curve of each ``upper``
        self._evaluators: dict[float, _EdgeEvaluator] = {}

    def _center(self, index: int) -> None:
        # The lowest order too: D_α >= D_{α_min} keeps every lower bound above the
        # conversion's zero threshold (δ >= √(1 − e^{−r}) gives ε = 0), at little cost.
        lo = max(0, min(index - CORE_HALF_WIDTH, self.orders.size - 2 * CORE_HALF_WIDTH - 1))
        window = np.arange(lo, min(self.orders.size, lo + 2 * CORE_HALF_WIDTH + 1))
        self.core = np.union1d([0], window)

    def _scaled(self, sigma: float) -> tuple[float, float, float]:
        c, s = self.base.adjacency_norm_bound / sigma, self.base.amplitude_gap / sigma
        return c, s, c - min(s, c)

    def _evaluate(self, sigma: float) -> _EdgeEvaluator:
        """The engine at σ, over every order, its points cached (shared by lower and upper)."""
        if sigma not in self._evaluators:
            c, _, length = self._scaled(sigma)
            self._evaluators[sigma] = _EdgeEvaluator(
                self.orders, self.base.dim, c - length, self.base.n_syn
            )
        return self._evaluators[sigma]

    def _post(self, sigma: float) -> NDArray[np.float64]:
        return _post_processing_scaled(self.orders, self.base.effective_sensitivity / sigma)

    def lower(self, sigma: float) -> float:
        """A lower bound on the accountant's ε at σ (one engine call; up to six the first)."""
        _, _, length = self._scaled(sigma)
        t, forward = (length, True) if self.hint is None else self.hint[:2]
        pairs: list[tuple[float | None, bool]] = [(t, forward)]  # None: the edge's far end
        if not self.found:
            # No maximiser found yet: the first call also tries the far ends of both edges
            # (two more engine calls) and keeps the pair of the largest bound until
            # ``upper`` finds the maximiser. Any pair's bound is a lower bound.
            pairs = [self.pick] if self.pick is not None else [*pairs, (None, True), (None, False)]
        best = (-math.inf, pairs[0], np.zeros(self.orders.shape))

        def bound(pair: tuple[float | None, bool]) -> float:
            nonlocal best
            position = length if pair[0] is None else min(pair[0], length)
            value, error = self._evaluate(sigma)(position, pair[1], self.core)
            curve = lower_curve(self.orders, self.orders[self.core], value - error, value + error)
            curve = self.base.releases * np.minimum(curve, self._post(sigma))
            eps = max(0.0, float(np.min(_epsilon_terms(self.orders, curve, self.delta))))
            if eps > best[0]:
                best = (eps, pair, curve)
            return eps

        if not self.found and self.pick is None and 0.0 < t < length:
            # ... and the Gaussian model's position at ±COLD_HINT_WIDTH in u, then the vertex
            # of the parabola through the three (one call more): nearer the maximiser, the
            # bound is tighter and the first σ it proposes is more often the accountant's.
            u, h = float(_to_u(t)), COLD_HINT_WIDTH
            e_m, e_0, e_p = (bound((float(_to_t(u + d)), True)) for d in (-h, 0.0, h))
            curvature = e_m - 2.0 * e_0 + e_p
            if curvature < 0.0:
                shift = min(max(0.5 * h * (e_m - e_p) / curvature, -2.0 * h), 2.0 * h)
                bound((float(_to_t(u + shift)), True))
            pairs = pairs[1:]
        for pair in pairs:
            bound(pair)
        if not self.found:
            self.pick = best[1]
        self.lower_curves[sigma] = best[2]
        return best[0]

    def slope(self, sigma: float) -> float:
        """≈ −dε/d log σ at σ: twice the lower curve at its optimal order (RDP ∝ σ^−2)."""
        curve = self.lower_curves[sigma]
        return 2.0 * float(curve[np.argmin(_epsilon_terms(self.orders, curve, self.delta))])

    def upper(self, sigma: float) -> tuple[float, float, Kind]:
        """The accountant's (ε, optimal order, kind) at σ, at the orders that can give it.

        In two passes: the guarded worst case at the relevant core orders
        first, whose ε tightens the threshold of the pruning lemma, then at
        any other order still relevant.
        """
        if sigma not in self.lower_curves:
            self.lower(sigma)
        lower = self.lower_curves[sigma]
        c, s, length = self._scaled(sigma)
        releases = self.base.releases
        plateau = _worst_case(self.orders, self.base.dim, c, s, None)[0]
        curve = releases * np.minimum(plateau, self._post(sigma))  # upper bounds for every n_syn
        exact = np.zeros(self.orders.shape, dtype=bool)
        hint, width = (None, 0.0) if self.hint is None else (self.hint[0], self.hint[2])
        if self.hint is not None and not self.hint[1]:
            hint = None  # the warm start is for the forward edge
        positions = np.full(self.orders.shape, length)
        forwards = np.ones(self.orders.shape, dtype=bool)
        for first in (True, False):
            where = np.flatnonzero(relevant_orders(self.orders, lower, curve, self.delta) & ~exact)
            if first:
                where = np.intersect1d(where, self.core[1:])
            if where.size == 0:
                continue
            result = _worst_case(
                self.orders, self.base.dim, c, s, self.base.n_syn,
                hint=hint, hint_width=width, where=where, evaluate=self._evaluate(sigma),
            )  # fmt: skip
            finite = releases * result[0]
            exact[where] = finite <= curve[where]
            curve[where] = np.minimum(finite, curve[where])
            positions[where], forwards[where] = result[6], result[7]
        terms = np.maximum(_epsilon_terms(self.orders, curve, self.delta), 0.0)
        index = int(np.argmin(terms))
        if exact[index]:
            self.found = True
            endpoint = forwards[index] and positions[index] >= length
            position = float(positions[index])
            self.hint = None if endpoint else (position, bool(forwards[index]), WARM_HINT_WIDTH)
        self._center(index)
        kind = Kind.EXACT if exact[index] else Kind.CERTIFIED
        self.curves[sigma] = curve
        return float(terms[index]), float(self.orders[index]), kind


def finite_epsilon_curve(
    release: SyntheticDataRelease,
    orders: NDArray[np.float64],
    delta: float,
    *,
    full_output: bool = False,
) -> RdpCurve | tuple[RdpCurve, _FiniteAccountant]:
    """The RDP curve of a finite k = 1 release whose conversion at ``delta`` is its ε.

    ``orders`` sorted and distinct, ``release.n_syn`` finite, ``release.out_dim`` 1.
    The exact worst case (:func:`~synthamp.accountant.worst_case_rdp`) at the
    orders that can give ε at δ, the plateau and post-processing bounds at the
    others (module docstring); kind ``exact`` when the optimal order's value is the
    exact worst case, else ``certified``. With ``full_output``, also the accountant
    that computed it (its ``hint`` is the maximiser found: the calibration's lower model
    moves there).
    """
    c = release.adjacency_norm_bound / release.sigma
    s = release.amplitude_gap / release.sigma
    post = _post_processing_scaled(orders, release.effective_sensitivity / release.sigma)
    plateau = release.releases * np.minimum(_worst_case(orders, release.dim, c, s, None)[0], post)
    center = int(np.argmin(_epsilon_terms(orders, plateau, delta)))
    finite = _FiniteAccountant(_with(release, sigma=1.0), orders, delta, center)
    # the lower model's pair at every order (one engine call per pair): a lower bound
    # that is the pair's value at each order prunes far orders that the convexity
    # extension from a few orders cannot (the calibration, which calls ``upper`` at
    # many σ, keeps the few core orders instead)
    finite.core = np.arange(orders.size)
    finite.found = True  # one pair, at the Gaussian model's position: one engine call
    _, _, kind = finite.upper(release.sigma)
    curve = _curve(orders, finite.curves[release.sigma], kind, "exact")
    return (curve, finite) if full_output else curve
