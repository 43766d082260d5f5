"""The worst case of a k = 1 release over adjacent pairs (THEORY.md §12).

With a = ‖v‖/σ, b = ‖w‖/σ, c = C/σ, s = Δ/σ, the privacy loss of the pair
(v, w) is D(a, b) = D_α(P_a‖P_b), with P_a = χ²_d(a²) (unlimited release) or
the law of Y_a·X, X ~ χ²_{n_syn} (finite release; THEORY.md §3). The worst
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
Along the edges we have no proof of monotonicity, although every computation
so far (THEORY.md §12, and ``tests/accountant/test_accountant.py``, which compares with
dense two-dimensional scans of S) puts the maximum at the forward endpoint
(c, max(c − s, 0)). The searched maximiser is therefore guarded, never
assumed: :func:`worst_case_rdp` evaluates the forward endpoint at every order
and checks it against a guard, the reverse endpoint and the points
t = j·(c − g)/``SCAN_POINTS``, j < ``SCAN_POINTS``, of both edges, at every
order (one engine call covers every order; its cost is set by the largest
order). A guard point that beats the endpoint by more than both engine errors
triggers the fallback at that order: a dense scan of both edges
(``FALLBACK_SCAN_POINTS`` intervals) and a bounded Brent maximisation around
the best scan point. The value returned is the largest value + error seen, so
the engine's error estimate is included, and it never exceeds the
post-processing bound α·g²/2 (D_α(P_a‖P_b) <= α(a − b)²/2 because χ²_d(a²)
is the law of ‖a·e₁ + N‖², a post-processing of the Gaussian).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import check_budget
from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import check_alpha, check_dim, check_n_syn, check_positive
from synthamp.accountant._releases import _frozen
from synthamp.divergence._finite import finite_scaled
from synthamp.divergence._plateau import plateau_scaled

__all__ = ["FALLBACK_SCAN_POINTS", "SCAN_POINTS", "WorstCase", "worst_case_rdp"]

#: The guard checks the points t = j·(c − s)/SCAN_POINTS, j < SCAN_POINTS, of both edges.
SCAN_POINTS = 2
#: Intervals of the dense scan of each edge when the guard is beaten.
FALLBACK_SCAN_POINTS = 8


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
    """D_α at points of the two edges of the constraint set, in scaled units."""

    def __init__(self, alpha: NDArray[np.float64], dim: int, gap: float, n_syn: int | None) -> None:
        self.alpha = alpha
        self.dim = dim
        self.gap = gap
        self.n_syn = n_syn
        self.calls = 0
        # the engine's scaled kernels (validated inputs, a = ‖v‖/σ, b = ‖w‖/σ)
        self._plateau = plateau_scaled
        self._finite = finite_scaled

    def pair(self, t: float, forward: bool) -> tuple[float, float]:
        return (t + self.gap, t) if forward else (t, t + self.gap)

    def __call__(
        self, t: float, forward: bool, alpha: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        a, b = self.pair(t, forward)
        alpha = self.alpha if alpha is None else alpha
        self.calls += 1
        if self.n_syn is None:
            value, error = self._plateau(alpha, self.dim, a, b)
        else:
            check_budget()  # the finite engine is the slow one: stop here once the budget is spent
            value, error = self._finite(alpha, self.dim, self.n_syn, a, b)
        value = np.asarray(value, dtype=float).reshape(alpha.shape)
        error = np.asarray(error, dtype=float).reshape(alpha.shape)
        return value, np.abs(error)


def _refine(
    evaluate: _EdgeEvaluator, order: float, forward: bool, lo: float, hi: float
) -> tuple[float, float, float]:
    """Maximise D along one edge at one order on [lo, hi]; returns (t, value, error)."""
    # heavy: scipy.optimize (~0.6 s at import), needed only by this rare fallback
    from scipy.optimize import minimize_scalar

    alpha = np.array([order])

    def negative(t: float) -> float:
        return -float(evaluate(t, forward, alpha)[0][0])

    width = hi - lo
    opt = minimize_scalar(
        negative,
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-6 * max(width, 1e-12), "maxiter": 60},
    )
    t = float(opt.x)
    value, error = evaluate(t, forward, alpha)
    return t, float(value[0]), float(error[0])


def _full_search(evaluate: _EdgeEvaluator, length: float, alpha: NDArray[np.float64]):
    """Maximise over both edges at the orders ``alpha``: dense scan, then Brent.

    The fallback when the guard finds a point that beats the forward endpoint.
    Returns, for each order, the best value, its error, its upper bound (the
    largest value + error seen), its edge position t and whether it lies on the
    forward edge.
    """
    nodes = length * np.arange(FALLBACK_SCAN_POINTS + 1) / FALLBACK_SCAN_POINTS
    nodes[-1] = length
    shape = (2, nodes.size, alpha.size)
    values, errors = np.empty(shape), np.empty(shape)
    for o, forward in enumerate((True, False)):
        for j, t in enumerate(nodes):
            values[o, j], errors[o, j] = evaluate(float(t), forward, alpha)
    flat = values.reshape(-1, alpha.size)
    flat_err = errors.reshape(-1, alpha.size)
    upper = np.max(flat + flat_err, axis=0)
    best = np.argmax(flat, axis=0)
    orient, node = np.divmod(best, nodes.size)
    cols = np.arange(alpha.size)
    value, error = flat[best, cols], flat_err[best, cols]
    position, forward = nodes[node], orient == 0
    for i in np.flatnonzero(~(forward & (node == nodes.size - 1))):
        j = int(node[i])
        lo, hi = nodes[max(j - 1, 0)], nodes[min(j + 1, nodes.size - 1)]
        t, v, e = _refine(evaluate, float(alpha[i]), bool(forward[i]), float(lo), float(hi))
        upper[i] = max(upper[i], v + e)
        if v > value[i]:
            value[i], error[i], position[i] = v, e, t
    return value, error, upper, position, forward


def _worst_case(
    alpha: NDArray[np.float64],
    dim: int,
    c: float,
    s: float,
    n_syn: int | None,
    *,
    guard: bool = True,
) -> tuple[NDArray[np.float64], ...]:
    """The worst case in scaled units; see :func:`worst_case_rdp`.

    Returns (upper, estimate, error, a, b, calls). With ``guard=False`` only
    the forward endpoint is evaluated (a lower bound on the worst case, used
    inside the calibration's bisection before a guarded check).
    """
    gap = min(s, c)
    length = c - gap
    evaluate = _EdgeEvaluator(alpha, dim, gap, n_syn)
    value, error = evaluate(length, True)  # the forward endpoint (c, max(c − s, 0))
    upper = value + error
    position = np.full(alpha.shape, length)
    forward = np.ones(alpha.shape, dtype=bool)

    if guard:
        # One engine call covers every order (its cost is set by the largest order).
        where = np.arange(alpha.size)
        nodes = length * np.arange(SCAN_POINTS) / SCAN_POINTS
        points = [(length, False)] + [(float(t), f) for t in nodes for f in (True, False)]
        if length <= 0.0:
            points = [(0.0, False)]  # Δ >= C: the edges are the points (c, 0) and (0, c)
        beaten = np.zeros(alpha.shape, dtype=bool)
        for t, fwd in points:
            v, e = evaluate(t, fwd, alpha[where])
            upper[where] = np.maximum(upper[where], v + e)
            # A competitor counts only if it beats the endpoint beyond both errors.
            wins = v - e > value[where] + error[where] + 1e-12 * value[where]
            if length <= 0.0:
                wins = v > value[where]
            if np.any(wins):
                idx = where[wins]
                beaten[idx] = True
                value[idx], error[idx] = v[wins], e[wins]
                position[idx], forward[idx] = t, fwd
        if length > 0.0 and np.any(beaten):
            # The endpoint is not the maximiser at some orders: search in full there.
            idx = np.flatnonzero(beaten)
            v, e, u, p, f = _full_search(evaluate, length, alpha[idx])
            better = v > value[idx]
            value[idx] = np.where(better, v, value[idx])
            error[idx] = np.where(better, e, error[idx])
            position[idx] = np.where(better, p, position[idx])
            forward[idx] = np.where(better, f, forward[idx])
            upper[idx] = np.maximum(upper[idx], u)

    estimate = np.maximum(value, 0.0)
    upper = np.minimum(np.maximum(upper, estimate + error), 0.5 * alpha * gap * gap)
    a = np.where(forward, position + gap, position)
    b = np.where(forward, position, position + gap)
    return upper, estimate, error, a, b, evaluate.calls


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
    """Worst-case RDP of a k = 1 synthetic data release over adjacent pairs (THEORY.md §12).

        sup { D_α(P_a‖P_b) : a, b ∈ [0, C/σ], |a − b| <= Δ/σ },

    P_a = χ²_d(a²) for an unlimited release (the plateau of Proposition 4.2),
    or the law of Y_a·X, X ~ χ²_{n_syn}, for n_syn records (THEORY.md §3).

    Method (proof and search in the module docstring): by the monotone
    likelihood ratio of {P_a} and Blackwell's theorem, the supremum lies on the
    edge a − b = ±min(Δ, C)/σ; it is at (c, 0) or (0, c) when Δ >= C (exact,
    no search). Otherwise the forward endpoint (c, c − s) is evaluated at every
    order and checked against a guard: the reverse endpoint (c − s, c) and the
    points t = j·(c − s)/``SCAN_POINTS``, j < ``SCAN_POINTS``, of both edges,
    at every order (six engine calls in all). Where a guard point beats the
    endpoint beyond the engine's errors, a dense scan and a bounded Brent
    maximisation take over at that order. The value
    is the largest value + error seen (the engine's error estimate added, so
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
    THEORY.md §7: d = 50, C = 2, Δ = 0.5, σ = 1, α = 2.

    >>> wc = worst_case_rdp(2.0, dim=50, norm_bound=2.0, sensitivity=0.5, full_output=True)
    >>> round(float(wc.value[0]), 4), float(wc.norm_v[0]), float(wc.norm_w[0])
    (0.028, 2.0, 1.5)
    """
    alpha = check_alpha(alpha)
    dim = check_dim(dim)
    sigma = check_positive("sigma", sigma)
    c = check_positive("norm_bound", norm_bound) / sigma
    s = check_positive("sensitivity", sensitivity) / sigma
    n_syn = None if n_syn is None else check_n_syn(n_syn)
    if not full_output:
        return _worst_case(alpha, dim, c, s, n_syn)[0]
    return _worst_case_result(alpha, dim, c, s, n_syn, sigma)


def _worst_case_result(
    alpha: NDArray[np.float64], dim: int, c: float, s: float, n_syn: int | None, sigma: float
) -> WorstCase:
    """The kernel of ``worst_case_rdp(..., full_output=True)``, for validated scaled inputs."""
    upper, estimate, error, a, b, calls = _worst_case(alpha, dim, c, s, n_syn)
    return WorstCase(
        alpha=_frozen(alpha),
        value=_frozen(upper),
        estimate=_frozen(estimate),
        error=_frozen(error),
        norm_v=_frozen(a * sigma),
        norm_w=_frozen(b * sigma),
        evaluations=calls,
    )
