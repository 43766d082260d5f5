"""The worst case of a k = 1 release over adjacent pairs (docs/theory.md §12).

With a = ‖v‖/σ, b = ‖w‖/σ, c = C/σ, s = Δ/σ, the privacy loss of the pair
(v, w) is D(a, b) = D_α(P_a‖P_b), with P_a = χ²_d(a²) (unlimited release) or
the law of Y_a·X, X ~ χ²_{n_syn} (finite release; docs/theory.md §3). The worst
case is the supremum of D over S = {a, b ∈ [0, c], |a − b| <= s}; every point
of S is realised by v = a·e, w = b·e. Note |a − b| <= min(s, c) on S.

Lemma (reduction to an edge; proved)
------------------------------------
The supremum over S is attained on the *forward edge*
{(t + g, t) : 0 <= t <= c − g} or on the *reverse edge* {(t, t + g)},
g = min(s, c). If s >= c, these edges are the two points (c, 0) and (0, c),
and the worst case is exact without any search.

*Proof.* (1) {P_a} has a monotone likelihood ratio (MLR) in its observation.
The noncentral χ²_d(λ) density is Σ_j Pois(j; λ/2)·f_{d+2j}(x); the Poisson
kernel is TP2 in (λ, j) (the Poisson family is MLR in its mean) and the
central χ² kernel f_m(x) is TP2 in (m, x) (the central χ² family is MLR in its
degrees of freedom), so their composition is TP2 in (λ, x) (Karlin's basic
composition formula), i.e. MLR in λ = a². For a finite release,
log S = log Y_a + log X adds independent noise whose density
∝ exp(n·u/2 − e^u/2) is log-concave (a Pólya frequency function of order 2);
convolution with a PF2 density preserves TP2, so the law of S is MLR in a too.

(2) Fix b and let b <= a < a′. For testing P_b against P_a or P_{a′}, the
Neyman–Pearson tests are the same threshold tests {x > q} (MLR). At every
level u = P_b(x > q), the power of the a′ test is P_{a′}(x > q) >= P_a(x > q)
(MLR implies stochastic order). The trade-off (ROC) function of (P_b, P_{a′})
therefore lies pointwise below that of (P_b, P_a), and by Blackwell's theorem
for binary experiments (Blackwell 1953; in the language of trade-off
functions, Dong, Roth and Su 2022, *Gaussian differential privacy*, JRSS-B,
§2) there is a Markov kernel K with K·P_b = P_b and K·P_{a′} = P_a. By the
data-processing inequality, D_α(P_a‖P_b) <= D_α(P_{a′}‖P_b) for every α. The
same argument with lower-tail tests shows that, a fixed, moving b away from
a never decreases D_α(P_a‖P_b); and the mirror statements hold for a < b.

(3) Start from (a, b) ∈ S with a >= b. Raise a to a′ = min(c, b + s) (step 2),
then lower b to b′ = max(0, a′ − s) (step 2 again). Both moves stay in S and
do not decrease D, and (a′, b′) lies on the forward edge: either a′ − b′ = s,
or a′ = c and b′ = max(c − s, 0). Symmetrically for a < b, on the reverse
edge. ∎

Search along the edges (numerical, guarded)
-------------------------------------------
Along the edges we have no proof of monotonicity. For the unlimited release
every computation so far puts the maximum at the forward endpoint
(c, max(c − s, 0)) (docs/theory.md §12); for finite releases it does not: at
n_syn = 10⁵, d = 20, c ≈ 206 the maximum is inside the forward edge
(t ≈ 35–40), and at d = 20, n_syn = 1000, c ≈ 12.7, s ≈ 0.25 the *reverse*
endpoint beats the whole forward edge (0.510 against 0.483 at α = 18). The
searched maximiser is therefore guarded, never assumed: :func:`worst_case_rdp`
evaluates the forward endpoint at every order and checks it against a guard:
the reverse endpoint, the points t = j·(c − g)/``SCAN_POINTS``, j <
``SCAN_POINTS``, of both edges, and, for a finite release, the point where a
Gaussian model puts the maximum (:func:`gaussian_edge_maximiser`) with two
neighbours (a warm start may replace it by a maximiser found at a nearby σ).
One engine call covers every order (its cost is set by the largest order).
An edge whose guard points beat the best value so far beyond both engine
errors (the forward edge first, then the reverse edge against the forward
edge's maximum) is searched at those orders (:func:`_search_edge`): a scan
evenly spaced in u = asinh(t/``EDGE_SCALE``), then one position per engine
call, for every unsettled order at once, chosen for the least settled one
(parabolic steps, golden-section steps on lopsided brackets). An order is
settled when the *concave bound* of :func:`_concave_gain` is below
``SEARCH_RTOL`` of its value (or four times the engine's error): if f is
concave in u near the best point, f on the segments next to it lies below the
extended chords of its neighbours, and the excess of that envelope over the
best value bounds what the search can have missed there. That bound is added
to the result, so the value is an upper bound on the edge's supremum if f is
concave in u near the maximiser (an assumption about the last bracket only,
checked on the points: where they are not concave no bound is claimed and
the search goes on). The value returned is the largest value + error seen
(+ the concave bound), so the engine's error estimate is included, and it
never exceeds the post-processing bound α·g²/2 (D_α(P_a‖P_b) <= α(a − b)²/2
because χ²_d(a²) is the law of ‖a·e₁ + N‖², a post-processing of the
Gaussian).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import check_budget
from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one, validated_optional
from synthamp.accountant._rdp_conversion import _frozen
from synthamp.divergence._finite import finite_scaled
from synthamp.divergence._plateau import plateau_scaled

__all__ = ["SCAN_POINTS", "SEARCH_SCAN", "WorstCase", "worst_case_rdp"]

#: The guard checks the points t = j·(c − s)/SCAN_POINTS, j < SCAN_POINTS, of both edges.
SCAN_POINTS = 2
#: Intervals (evenly spaced in u = asinh(t/EDGE_SCALE)) of the scan that starts a search.
SEARCH_SCAN = 4
#: Scale (scaled units, σ) of the search coordinate u = asinh(t/EDGE_SCALE).
EDGE_SCALE = 1.0
#: An order's search stops when its concave bound is below this fraction of its best value.
SEARCH_RTOL = 1e-6
#: The golden-section fraction (3 − √5)/2.
GOLDEN = 0.3819660112501051
#: Engine calls of one edge search past its scan.
MAX_SEARCH_CALLS = 30


@dataclass(frozen=True, eq=False)
class WorstCase:
    """Worst case over adjacent pairs of a k = 1 release (:func:`worst_case_rdp`).

    Attributes
    ----------
    alpha : ndarray
        Rényi orders.
    value : ndarray
        Upper bound on the worst case: ``estimate + error``, capped by the
        post-processing bound α·min(Δ, C)²/(2σ²).
    estimate : ndarray
        The engine's value at the maximiser.
    error : ndarray
        The engine's error estimate at the maximiser.
    norm_v, norm_w : ndarray
        The maximising pair of norms ‖v‖, ‖w‖ (natural units) for each order.
    evaluations : int
        Number of engine calls.
    kind : Kind
        ``exact``.
    """

    alpha: NDArray[np.float64]
    value: NDArray[np.float64]
    estimate: NDArray[np.float64]
    error: NDArray[np.float64]
    norm_v: NDArray[np.float64]
    norm_w: NDArray[np.float64]
    evaluations: int
    kind: Kind = Kind.EXACT

    @property
    def lower(self) -> NDArray[np.float64]:
        """max(estimate − error, 0): the divergence of a feasible pair, a lower bound."""
        return np.maximum(self.estimate - self.error, 0.0)


class _EdgeEvaluator:
    """D_α at points of the two edges of the constraint set, in scaled units.

    Values are cached per point and order, so a point evaluated by the guard
    is never recomputed by the search; ``calls`` counts engine calls.
    """

    def __init__(self, alpha: NDArray[np.float64], dim: int, gap: float, n_syn: int | None) -> None:
        self.alpha = alpha
        self.dim = dim
        self.gap = gap
        self.n_syn = n_syn
        self.calls = 0
        self._cache: dict[tuple[float, bool], tuple[NDArray, NDArray]] = {}
        # the engine's scaled kernels (validated inputs, a = ‖v‖/σ, b = ‖w‖/σ)
        self._plateau = plateau_scaled
        self._finite = finite_scaled

    def pair(self, t: float, forward: bool) -> tuple[float, float]:
        return (t + self.gap, t) if forward else (t, t + self.gap)

    def __call__(
        self, t: float, forward: bool, where: NDArray[np.intp] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(value, error) at the edge point t for the orders ``alpha[where]`` (default: all)."""
        where = np.arange(self.alpha.size) if where is None else where
        key = (float(t), bool(forward))
        if key not in self._cache:
            empty = np.full(self.alpha.shape, np.nan)
            self._cache[key] = (empty, empty.copy())
        values, errors = self._cache[key]
        missing = where[np.isnan(values[where])]
        if missing.size:
            a, b = self.pair(t, forward)
            alpha = self.alpha[missing]
            self.calls += 1
            if self.n_syn is None:
                value, error = self._plateau(alpha, self.dim, a, b)
            else:
                check_budget()  # the finite engine is the slow one: stop once the budget is spent
                value, error = self._finite(alpha, self.dim, self.n_syn, a, b)
            values[missing] = np.asarray(value, dtype=float).reshape(alpha.shape)
            errors[missing] = np.abs(np.asarray(error, dtype=float).reshape(alpha.shape))
        return values[where], errors[where]

    def points(self, forward: bool) -> list[float]:
        """The edge positions evaluated so far on one edge."""
        return sorted(t for t, f in self._cache if f == forward)

    def cached(
        self, t: float, forward: bool, where: NDArray[np.intp]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The cached (value, error) at t for ``alpha[where]``, NaN where not evaluated."""
        values, errors = self._cache[(float(t), bool(forward))]
        return values[where], errors[where]


def _to_u(t: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """The search coordinate u = asinh(t/EDGE_SCALE) of an edge position t (scaled units)."""
    return np.arcsinh(np.asarray(t, dtype=float) / EDGE_SCALE)


def _to_t(u: NDArray[np.float64] | float) -> NDArray[np.float64]:
    return EDGE_SCALE * np.sinh(np.asarray(u, dtype=float))


def _segment_bound(lines: list[tuple[float, float, float]], lo: float, hi: float):
    """max over [lo, hi] of min over ``lines`` (x0, y0, slope); returns (bound, argmax).

    Every line bounds f from above on the segment (concavity); with no line the
    bound is +inf and the argmax the midpoint.
    """
    if not lines:
        return math.inf, 0.5 * (lo + hi)
    candidates = [lo, hi]
    for i, (x1, y1, s1) in enumerate(lines):
        for x2, y2, s2 in lines[i + 1 :]:
            if s1 != s2:
                x = (y2 - y1 + s1 * x1 - s2 * x2) / (s1 - s2)
                candidates.append(min(max(x, lo), hi))
    best, where = -math.inf, lo
    for x in candidates:
        envelope = min(y + s * (x - x0) for x0, y, s in lines)
        if envelope > best:
            best, where = envelope, x
    return best, where


def _concave_gain(u: NDArray[np.float64], f: NDArray[np.float64]):
    """Bound on max f − f* near the best point, if f is concave in u there.

    ``u`` sorted, ``f`` the values. With j the best index, f on the segment
    [u_{j−1}, u_j] lies below the chord through (u_j, u_{j+1}) extended to the
    left and below the chord through (u_{j−2}, u_{j−1}) extended to the right
    (a concave function lies above each chord inside it and below it
    outside); likewise on [u_j, u_{j+1}]. Where the points themselves are not
    concave (the slopes of the chords next to a segment increase), the bound
    there is +inf and the proposal the segment's middle. Returns (gain,
    proposal, segment): the largest envelope excess over both segments, where
    it is attained, and that segment.
    """
    j = int(np.argmax(f))
    n = u.size

    def chord(i: int, k: int) -> tuple[float, float, float]:
        return float(u[i]), float(f[i]), float((f[k] - f[i]) / (u[k] - u[i]))

    def slope(i: int, k: int) -> float:
        return float((f[k] - f[i]) / (u[k] - u[i]))

    gain, proposal, segment = 0.0, float(u[j]), (float(u[j]), float(u[j]))
    if j > 0:  # left segment [u_{j−1}, u_j]
        lines = ([chord(j, j + 1)] if j + 1 < n else []) + ([chord(j - 1, j - 2)] if j >= 2 else [])
        bound, x = _segment_bound(lines, float(u[j - 1]), float(u[j]))
        if j >= 2 and slope(j - 2, j - 1) < slope(j - 1, j):  # not concave there: no bound
            bound, x = math.inf, 0.5 * float(u[j - 1] + u[j])
        if bound - f[j] > gain:
            gain, proposal, segment = bound - f[j], x, (float(u[j - 1]), float(u[j]))
    if j + 1 < n:  # right segment [u_j, u_{j+1}]
        lines = ([chord(j, j - 1)] if j > 0 else []) + ([chord(j + 1, j + 2)] if j + 2 < n else [])
        bound, x = _segment_bound(lines, float(u[j]), float(u[j + 1]))
        if j + 2 < n and slope(j + 1, j + 2) > slope(j, j + 1):  # not concave there: no bound
            bound, x = math.inf, 0.5 * float(u[j] + u[j + 1])
        if bound - f[j] > gain:
            gain, proposal, segment = bound - f[j], x, (float(u[j]), float(u[j + 1]))
    return gain, proposal, segment


def _next_point(
    u: NDArray[np.float64], f: NDArray[np.float64], proposal: float, segment: tuple[float, float]
):
    """The next position (in u) to evaluate for one order: a parabolic step when it is safe.

    The vertex of the parabola through the best point and its neighbours, if it
    lies strictly inside their bracket and away from the points; else, once the
    vertex has been found, a probe at the distance where the parabola drops by
    ``SEARCH_RTOL``·f* (which settles the concave bound); else the envelope's
    peak, or the middle of its segment when the peak sits at an end. When the
    bound is on the long side of a lopsided bracket (one side over 2.5× the
    other), a golden-section step into it comes first, which keeps parabolic
    steps from creeping towards a distant maximum.
    """
    j = int(np.argmax(f))
    if 0 < j < u.size - 1:
        (x0, x1, x2), (y0, y1, y2) = u[j - 1 : j + 2], f[j - 1 : j + 2]
        left, right = x1 - x0, x2 - x1
        if (proposal < x1 and left > 2.5 * right) or (proposal > x1 and right > 2.5 * left):
            # a lopsided bracket whose long side holds the bound: golden section there
            return float(x1 - GOLDEN * left if proposal < x1 else x1 + GOLDEN * right)
        d01, d12 = (y1 - y0) / (x1 - x0), (y2 - y1) / (x2 - x1)
        curvature = (d12 - d01) / (x2 - x0)  # half the second derivative
        if curvature < 0:
            vertex = 0.5 * (x0 + x1) - 0.5 * d01 / curvature
            width = x2 - x0
            if x0 < vertex < x2 and np.min(np.abs(u - vertex)) > 1e-3 * width:
                return float(vertex)
            reach = math.sqrt(SEARCH_RTOL * max(abs(float(y1)), 1e-300) / -curvature)
            side = 1.0 if proposal > x1 else -1.0
            gap = (x2 - x1) if side > 0 else (x1 - x0)
            probe = float(x1 + side * min(reach, 0.5 * gap))
            if np.min(np.abs(u - probe)) > 1e-9 * width:
                return probe
    lo, hi = segment
    if min(proposal - lo, hi - proposal) < 0.1 * (hi - lo):
        return float(0.5 * (lo + hi))
    return float(proposal)


def _search_edge(
    evaluate: _EdgeEvaluator,
    forward: bool,
    length: float,
    where: NDArray[np.intp],
    scan: bool,
):
    """Maximise D along one edge at the orders ``alpha[where]``, all orders per engine call.

    Starts from the points already evaluated on that edge (the guard's, any
    hints) and, with ``scan``, ``SEARCH_SCAN`` intervals evenly spaced in u.
    Each step evaluates one position for every order not yet settled, chosen
    for the least settled order (:func:`_next_point`); an order is settled
    when the concave bound of :func:`_concave_gain` is below ``SEARCH_RTOL``
    of its best value or four times the engine's error there (below which the
    values cannot resolve it). Returns, per order, the best value, its error, its
    position and an upper bound: the largest value + error seen, or the best
    value + error + the remaining concave bound (where the last points are
    concave), whichever is larger.
    """
    if scan:
        for u in _to_u(length) * np.arange(1, SEARCH_SCAN) / SEARCH_SCAN:
            evaluate(float(_to_t(u)), forward, where)
    active = np.ones(where.size, dtype=bool)
    for _ in range(MAX_SEARCH_CALLS + 1):
        ts = np.array(evaluate.points(forward))  # sorted
        us = _to_u(ts)
        distinct = np.concatenate([[True], np.diff(us) > 1e-9 * (1.0 + np.abs(us[1:]))])
        ts, us = ts[distinct], us[distinct]  # one of any points closer than rounding
        table = [evaluate.cached(float(t), forward, where) for t in ts]
        values = np.array([v for v, _ in table])
        errors = np.array([e for _, e in table])
        gains = np.zeros(where.size)
        proposals = np.zeros(where.size)
        segments = np.zeros((where.size, 2))
        for i in range(where.size):
            known = ~np.isnan(values[:, i])
            gains[i], proposals[i], segments[i] = _concave_gain(us[known], values[known, i])
        best = np.nanmax(values, axis=0)
        noise = errors[np.nanargmax(values, axis=0), np.arange(where.size)]
        # settled: the concave bound is below the tolerance, or below the engine's error
        active &= gains > np.maximum(SEARCH_RTOL * np.abs(best), 4.0 * noise)
        if not np.any(active) or _ == MAX_SEARCH_CALLS:
            break
        lead = int(np.argmax(np.where(active, gains / np.maximum(np.abs(best), 1e-300), -1.0)))
        known = ~np.isnan(values[:, lead])
        u_next = _next_point(us[known], values[known, lead], proposals[lead], tuple(segments[lead]))
        t_next = float(min(max(_to_t(u_next), 0.0), length))
        if np.min(np.abs(us - _to_u(t_next))) <= 1e-9 * (1.0 + abs(u_next)):
            active[lead] = False  # nothing new to learn for this order: settle it
            continue
        evaluate(t_next, forward, where[active])
    best_index = np.nanargmax(values, axis=0)
    cols = np.arange(where.size)
    value, error = values[best_index, cols], errors[best_index, cols]
    # Where the last points are not concave there is no bound to add (the search
    # then reports the largest value + error seen, as a Brent search would).
    margin = np.where(np.isfinite(gains), gains, 0.0)
    upper = np.maximum(np.nanmax(values + errors, axis=0), value + error + margin)
    return value, error, upper, ts[best_index]


#: Half-width (in u = asinh(t)) of the points the guard adds around the maximiser that the
#: Gaussian model predicts (:func:`gaussian_edge_maximiser`).
COLD_HINT_WIDTH = 0.05


def gaussian_edge_maximiser(dim: int, n_syn: int) -> float:
    """Where the Gaussian model puts the maximum along the forward edge of a finite release.

    With log S = log Y + log X and both terms Gaussian (Y ~ χ²_d(t²): mean
    d + t², variance 2(d + 2t²); X ~ χ²_n: variance of log X ≈ 2/n), the pair
    (t + g, t) has D_α ≈ α g² t²/((d + 2t²) + (d + t²)²/n) for small g, largest
    at t² = √(d(d + n)). A heuristic: only a place where the guard also looks.
    """
    return float(dim * (dim + n_syn)) ** 0.25


def _worst_case(
    alpha: NDArray[np.float64],
    dim: int,
    c: float,
    s: float,
    n_syn: int | None,
    *,
    guard: bool = True,
    hint: float | None = None,
    hint_width: float = COLD_HINT_WIDTH,
    where: NDArray[np.intp] | None = None,
    evaluate: _EdgeEvaluator | None = None,
) -> tuple[NDArray[np.float64], ...]:
    """The worst case in scaled units; see :func:`worst_case_rdp`.

    Returns (upper, estimate, error, a, b, calls, position, forward). With
    ``guard=False`` only the forward endpoint is evaluated (a lower bound on
    the worst case). ``hint``: a position t on the forward edge where the
    maximiser was found before (a warm start, e.g. at a nearby σ): it and its
    neighbours at ±``hint_width`` in u join the guard's points, and a search that follows starts
    from them instead of a scan. A hint only adds points; it never removes
    any check. ``where``: compute at the orders ``alpha[where]`` only (the
    results are for those); ``evaluate``: an evaluator of the same release
    over ``alpha`` whose cached points are reused (its calls are counted).
    """
    gap = min(s, c)
    length = c - gap
    if evaluate is None:
        evaluate = _EdgeEvaluator(alpha, dim, gap, n_syn)
    where = np.arange(alpha.size) if where is None else np.asarray(where, dtype=np.intp)
    alpha = alpha[where]
    value, error = evaluate(length, True, where)  # the forward endpoint (c, max(c − s, 0))
    upper = value + error
    position = np.full(alpha.shape, length)
    forward = np.ones(alpha.shape, dtype=bool)

    if guard:
        if hint is None and n_syn is not None:
            hint = gaussian_edge_maximiser(dim, n_syn)  # where to look; never assumed
        nodes = length * np.arange(SCAN_POINTS) / SCAN_POINTS
        points = [(length, False)] + [(float(t), f) for t in nodes for f in (True, False)]
        warm = hint is not None and 0.0 < hint < length
        if length <= 0.0:
            points = [(0.0, False)]  # Δ >= C: the edges are the points (c, 0) and (0, c)
        elif warm:
            u = float(_to_u(hint))
            du = (0.0, -hint_width, hint_width)
            points += [(float(min(_to_t(u + d), length)), True) for d in du]
        # the best guard point of each edge, per order (value, error)
        best = {f: (np.full(alpha.shape, -np.inf), np.zeros(alpha.shape)) for f in (True, False)}
        for t, fwd in points:
            v, e = evaluate(t, fwd, where)
            upper = np.maximum(upper, v + e)
            better = v > best[fwd][0]
            best[fwd] = (np.where(better, v, best[fwd][0]), np.where(better, e, best[fwd][1]))
        for fwd in (True, False):  # the forward edge first: its maximum sets the bar
            v, e = best[fwd]
            # A competitor counts only if it beats the best so far beyond both errors.
            wins = v - e > value + error + 1e-12 * value
            if length <= 0.0:
                wins = v > value
            value, error = np.where(wins, v, value), np.where(wins, e, error)
            forward = np.where(wins, fwd, forward)
            position = np.where(wins, np.nan, position)  # found below
            beat = np.flatnonzero(wins)
            if beat.size == 0:
                continue
            if length <= 0.0:
                position[beat] = 0.0
                continue
            # The endpoint is not the maximiser at some orders: search this edge there.
            v, e, u, p = _search_edge(evaluate, fwd, length, where[beat], not (fwd and warm))
            value[beat], error[beat], position[beat] = v, e, p
            upper[beat] = np.maximum(upper[beat], u)

    estimate = np.maximum(value, 0.0)
    upper = np.minimum(np.maximum(upper, estimate + error), 0.5 * alpha * gap * gap)
    a = np.where(forward, position + gap, position)
    b = np.where(forward, position, position + gap)
    return upper, estimate, error, a, b, evaluate.calls, position, forward


@privacy_quantity("exact")
def worst_case_rdp(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
    *,
    full_output: bool = False,
) -> NDArray[np.float64] | WorstCase:
    """Worst-case RDP of a k = 1 synthetic data release over adjacent pairs (docs/theory.md §12).

        sup { D_α(P_a‖P_b) : a, b ∈ [0, C/σ], |a − b| <= Δ/σ },

    P_a = χ²_d(a²) for an unlimited release (the plateau of Proposition 4.2),
    or the law of Y_a·X, X ~ χ²_{n_syn}, for n_syn records (docs/theory.md §3).

    Method (proof and search in the module docstring): by the monotone
    likelihood ratio of {P_a} and Blackwell's theorem, the supremum lies on the
    edge a − b = ±min(Δ, C)/σ; it is at (c, 0) or (0, c) when Δ >= C (exact,
    no search). Otherwise the forward endpoint (c, c − s) is evaluated at every
    order and checked against a guard: the reverse endpoint (c − s, c), the
    points t = j·(c − s)/``SCAN_POINTS``, j < ``SCAN_POINTS``, of both edges
    and, for a finite release, the Gaussian model's maximiser and two
    neighbours, at every order (six to nine engine calls). Where guard points
    beat the best value beyond the engine's errors, a joint search of that
    edge takes over at those orders (module docstring). The value is the
    largest value + error seen, plus the search's remaining concave bound (so
    it is an upper bound on the supremum up to the search, which the tests
    check against dense scans of the constraint set), capped by the
    post-processing bound α·min(Δ, C)²/(2σ²).

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d.
    norm_bound : float
        C > 0, bound on ‖v‖ and ‖w‖.
    sensitivity : float
        Δ > 0, bound on ‖v − w‖ (only min(Δ, C) matters for k = 1).
    sigma : float, default 1.0
        Noise scale σ > 0.
    n_syn : int or None, default None
        Number of synthetic records; None for an unlimited release.
    full_output : bool, default False
        Return a :class:`WorstCase` with the maximiser and the error.

    Returns
    -------
    ndarray or WorstCase
        Upper bound on the worst-case RDP for each order (nats).

    Examples
    --------
    docs/theory.md §7: d = 50, C = 2, Δ = 0.5, σ = 1, α = 2.

    >>> wc = worst_case_rdp(2.0, dim=50, norm_bound=2.0, sensitivity=0.5, full_output=True)
    >>> round(float(wc.value[0]), 4), float(wc.norm_v[0]), float(wc.norm_w[0])
    (0.028, 2.0, 1.5)
    """
    alpha, dim, sigma = validated(alpha=alpha, dim=dim, sigma=sigma)
    c = validated_one("norm_bound", norm_bound) / sigma
    s = validated_one("sensitivity", sensitivity) / sigma
    (n_syn,) = validated_optional(n_syn=n_syn)
    if not full_output:
        return _worst_case(alpha, dim, c, s, n_syn)[0]
    return _worst_case_result(alpha, dim, c, s, n_syn, sigma)


def _worst_case_result(
    alpha: NDArray[np.float64], dim: int, c: float, s: float, n_syn: int | None, sigma: float
) -> WorstCase:
    """The kernel of ``worst_case_rdp(..., full_output=True)``, for validated scaled inputs."""
    upper, estimate, error, a, b, calls, _, _ = _worst_case(alpha, dim, c, s, n_syn)
    return WorstCase(
        alpha=_frozen(alpha),
        value=_frozen(upper),
        estimate=_frozen(estimate),
        error=_frozen(error),
        norm_v=_frozen(a * sigma),
        norm_w=_frozen(b * sigma),
        evaluations=calls,
    )
