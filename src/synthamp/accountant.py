"""Privacy accounting of a synthetic data release (THEORY.md §12).

A data holder fits v ∈ R^{d×k} with ‖v‖_F <= C and sensitivity Δ, releases
only the synthetic data ZV (V = v + σN, hidden seeds Z) and wants an (ε, δ)
guarantee, or the noise σ that meets a target (ε, δ). This module is the
accountant, in the style of ``dp_accounting``:

* :class:`SyntheticDataRelease` and :class:`GaussianRelease` describe a
  mechanism (immutable, validated; like a ``DpEvent``);
* :func:`rdp_curve` turns a description into an RDP curve ε(α)
  (:class:`RdpCurve`), which compose by addition;
* :func:`rdp_to_epsilon` converts a curve to (ε, δ); :func:`compute_epsilon`
  does both and reports the post-processing baseline next to it;
* :func:`calibrate_sigma` finds the smallest σ meeting a target (ε, δ).

The curve of a release (model v ∈ R^{d×k}, n_syn records, T releases):

* k = 1, ``method="exact"`` (the default): the worst case over all adjacent
  pairs, :func:`worst_case_rdp`, computed by the exact engine
  (:mod:`synthamp.divergence`) with its error estimate added;
* k > 1, ``method="exact"``: no exact engine exists, so the curve is the best
  certified bound, min(Theorem 5.4, post-processing), and the exact k = 1 worst
  case with the same d is reported as a lower bound (``rdp_lower``;
  THEORY.md §8): the truth lies between the two;
* ``method="global"``: Theorem 5.2 (k = 1) / 5.4 (k > 1) alone;
* ``method="post-processing"``: αΔ²/(2σ²), the privacy of releasing V itself.

T releases of independently perturbed models on the same data compose: the
curve is multiplied by T. Heuristic bounds (the local expansion of Theorems
5.1/5.3) appear only as labelled extras and never feed ε or σ.

Worst case for k = 1
--------------------
With a = ‖v‖/σ, b = ‖w‖/σ, c = C/σ, s = Δ/σ, the privacy loss of the pair
(v, w) is D(a, b) = D_α(P_a‖P_b), with P_a = χ²_d(a²) (unlimited release) or
the law of Y_a X, X ~ χ²_{n_syn} (finite release). The worst case is the
supremum of D over S = {a, b ∈ [0, c], |a − b| <= s} (every point of S is
realised by v = a·e, w = b·e). Note |a − b| <= min(s, c) on S.

*Reduction to an edge (proved).* {P_a} has a monotone likelihood ratio (MLR)
in its sufficient observation x: the noncentral χ²_d(λ) density is a Poisson(λ/2)
mixture of central χ²_{d+2j} densities, and both the Poisson family (in its
mean) and the central χ² family (in its degrees of freedom) are MLR, so the
mixture is MLR in λ (Karlin's composition of totally positive kernels). For a
finite release, log S = log Y_a + log X adds independent noise whose density
e^{n·u/2 − e^u/2} is log-concave (a Pólya frequency function), which preserves
MLR. Now take b fixed and b <= a < a'. The Neyman–Pearson tests of P_b
against P_a or P_{a'} are the same threshold tests {x > q}; MLR implies
stochastic order, P_{a'}(x > q) >= P_a(x > q), so the trade-off (ROC) curve of
the pair (P_b, P_{a'}) lies everywhere below that of (P_b, P_a). By
Blackwell's theorem for binary experiments (Blackwell 1953; in the language
of trade-off functions, Dong, Roth and Su 2022, §2) there is a Markov kernel
K with K P_b = P_b and K P_{a'} = P_a, so by data processing
D_α(P_a‖P_b) <= D_α(P_{a'}‖P_b) for every α. The same argument
(lower-tail tests) shows that moving b away from a, with a fixed, never
decreases D. Hence from any pair with a >= b one can move a up to
min(c, b + s), then b down to max(0, a − s), without decreasing D: the
supremum over S is attained on the *forward edge*
{(t + g, t) : 0 <= t <= c − g}, g = min(s, c), or, for a < b, on the *reverse
edge* {(t, t + g)}. When s >= c both edges are single points, (c, 0) and
(0, c), and the worst case is exact without any search.

*Search along the edges (numerical, tested).* Along the edges we have no
proof of monotonicity, although every computation so far (THEORY.md §12, and
``tests/test_accountant.py``, which compares with dense two-dimensional scans
of S) puts the maximum at the forward endpoint (c, max(c − s, 0)). The
accountant therefore evaluates the forward endpoint at every order and checks
it against a guard: the reverse endpoint and the points
t = j·(c − g)/``SCAN_POINTS``, j < ``SCAN_POINTS``, of both edges, at every
order. A guard point that beats the endpoint by more than both engine errors
triggers the fallback at that order: a dense scan of both edges and a bounded
Brent maximisation around the best scan point. The value returned is the
largest value + error seen, so the engine's error estimate is included, and it
never exceeds the post-processing bound α·g²/2 (D_α(P_a‖P_b) <= α(a − b)²/2
because χ²_d(a²) is the law of ‖a·e₁ + N‖²).

Monotonicity in σ
-----------------
Increasing σ multiplies c and s by r = σ/σ' < 1, and {a, b ∈ [0, rc],
|a − b| <= rs} ⊂ S: the worst case is a supremum over a smaller set, hence
non-increasing in σ. Theorems 5.2/5.4 are non-decreasing in c (through the
Fisher bound) and in s (through J), and αs²/2 is decreasing in σ. The minimum
and sums of non-increasing curves, and the RDP-to-(ε, δ) conversion (monotone
in each ε(α)), keep this, so ε(σ) is non-increasing for every method and
:func:`calibrate_sigma` may bisect.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize_scalar

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import (
    InputError,
    check_alpha,
    check_dim,
    check_integer,
    check_n_syn,
    check_open_unit,
    check_positive,
)
from synthamp.bounds import amplification_ratio_local_upper, global_bound, post_processing_rdp

__all__ = [
    "DEFAULT_ORDERS",
    "METHODS",
    "Calibration",
    "EpsilonResult",
    "GaussianRelease",
    "OrderGridWarning",
    "RdpCurve",
    "SyntheticDataRelease",
    "WorstCase",
    "calibrate_sigma",
    "compute_epsilon",
    "rdp_curve",
    "rdp_to_epsilon",
    "worst_case_rdp",
]

Method = Literal["exact", "global", "post-processing"]

#: Accounting methods accepted by :func:`rdp_curve`.
METHODS: tuple[str, ...] = ("exact", "global", "post-processing")


def _default_orders() -> NDArray[np.float64]:
    # dp_accounting's DEFAULT_RDP_ORDERS are 1.1, 1.2, …, 10.9, 11, …, 63, 128,
    # 256, 512, 1024 (154 orders up to 256); the exact engine costs per order,
    # so keep every tenth up to 2, every fifth up to 4, every half up to 10.5,
    # every integer up to 32, every even integer up to 62 (all of them
    # dp_accounting orders), add 1.01 and 1.05 for large ε, and fill 64–256.
    grid = [
        [1.01, 1.05],
        1.0 + np.arange(1, 11) / 10.0,  # 1.1 … 2.0
        2.0 + np.arange(1, 11) / 5.0,  # 2.2 … 4.0
        4.0 + np.arange(1, 14) / 2.0,  # 4.5 … 10.5
        np.arange(11.0, 33.0),  # 11 … 32
        np.arange(34.0, 63.0, 2.0),  # 34 … 62
        [64.0, 72.0, 80.0, 96.0, 112.0, 128.0, 160.0, 192.0, 224.0, 256.0],
    ]
    orders = np.round(np.concatenate([np.asarray(g, dtype=float) for g in grid]), 12)
    orders = np.unique(orders)
    orders.setflags(write=False)
    return orders


#: Default Rényi orders: 82 orders from 1.01 to 256 (see :func:`_default_orders`).
DEFAULT_ORDERS: NDArray[np.float64] = _default_orders()

#: The guard checks the points t = j·(c − s)/SCAN_POINTS, j < SCAN_POINTS, of both edges.
SCAN_POINTS = 2
#: Intervals of the dense scan of each edge when the guard is beaten.
FALLBACK_SCAN_POINTS = 8

_KIND_RANK = {Kind.EXACT: 0, Kind.CERTIFIED: 1, Kind.HEURISTIC: 2}


class OrderGridWarning(UserWarning):
    """The optimal Rényi order is at the edge of the grid: more orders may give a smaller ε."""


def _weakest(*kinds: Kind) -> Kind:
    return max(kinds, key=_KIND_RANK.__getitem__)


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise InputError("method", f"must be one of {', '.join(METHODS)}; got {method!r}")
    return method


def _check_orders(orders: ArrayLike | None) -> NDArray[np.float64]:
    if orders is None:
        return DEFAULT_ORDERS
    return check_alpha(orders, "orders")


def _frozen(arr: ArrayLike) -> NDArray[np.float64]:
    out = np.array(arr, dtype=float)
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------- releases


@dataclass(frozen=True)
class SyntheticDataRelease:
    """Release of synthetic data ZV from a perturbed linear generator V = v + σN.

    The description of the mechanism of THEORY.md §1, as a ``DpEvent`` is in
    ``dp_accounting``: immutable and validated on construction.

    Parameters
    ----------
    dim : int
        Model width d, 1 <= d <= 10^6.
    out_dim : int
        Record dimension k, 1 <= k <= d.
    norm_bound : float
        C > 0, bound on ‖v‖_F for every dataset.
    sensitivity : float
        Δ > 0, bound on ‖v − w‖_F for adjacent datasets. Δ > 2C is allowed; it
        acts as :attr:`effective_sensitivity` = min(Δ, 2C).
    sigma : float
        Noise scale σ > 0.
    n_syn : int or None, default None
        Number of synthetic records n; None for an unlimited release (the
        plateau, Proposition 4.2), which bounds every finite n.
    releases : int, default 1
        Number T of releases of independently perturbed models on the same
        data; their RDP curves add up.
    """

    dim: int
    out_dim: int
    norm_bound: float
    sensitivity: float
    sigma: float
    n_syn: int | None = None
    releases: int = 1

    def __post_init__(self) -> None:
        dim = check_dim(self.dim)
        out_dim = check_integer("out_dim", self.out_dim, 1)
        if out_dim > dim:
            raise InputError("out_dim", f"must be <= dim = {dim}, got {out_dim}")
        values = {
            "dim": dim,
            "out_dim": out_dim,
            "norm_bound": check_positive("norm_bound", self.norm_bound),
            "sensitivity": check_positive("sensitivity", self.sensitivity),
            "sigma": check_positive("sigma", self.sigma),
            "n_syn": None if self.n_syn is None else check_n_syn(self.n_syn),
            "releases": check_integer("releases", self.releases, 1),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def effective_sensitivity(self) -> float:
        """min(Δ, 2C): ‖v − w‖_F <= ‖v‖_F + ‖w‖_F <= 2C whatever Δ says."""
        return min(self.sensitivity, 2.0 * self.norm_bound)

    @property
    def amplitude_gap(self) -> float:
        """min(Δ, C): bound on |‖v‖_F − ‖w‖_F| (the k = 1 worst case depends on norms only)."""
        return min(self.sensitivity, self.norm_bound)

    def with_sigma(self, sigma: float) -> SyntheticDataRelease:
        """The same release with noise scale ``sigma``."""
        return replace(self, sigma=sigma)

    def to_dp_event(self):
        """The post-processing baseline as a ``dp_accounting`` event.

        ``SelfComposedDpEvent(GaussianDpEvent(σ/Δ_eff), T)``: releasing the
        model T times. Needs the optional ``dp_accounting`` package.
        """
        from dp_accounting import dp_event

        gaussian = dp_event.GaussianDpEvent(self.sigma / self.effective_sensitivity)
        return dp_event.SelfComposedDpEvent(gaussian, self.releases)


@dataclass(frozen=True)
class GaussianRelease:
    """A Gaussian mechanism with L2 sensitivity Δ and noise σ, applied T times.

    For instance releasing the perturbed model V itself, or any other Gaussian
    mechanism on the same data, to compose with a synthetic data release.

    Parameters
    ----------
    sensitivity : float
        Δ > 0.
    sigma : float
        Noise scale σ > 0.
    releases : int, default 1
        Number T of independent releases.
    """

    sensitivity: float
    sigma: float
    releases: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "releases", check_integer("releases", self.releases, 1))


Release = SyntheticDataRelease | GaussianRelease


# --------------------------------------------------------------------------- curves


@dataclass(frozen=True, eq=False)
class RdpCurve:
    """An RDP curve ε(α) on a grid of orders, with the kind of number it is.

    Parameters
    ----------
    orders : array_like
        Rényi orders, each > 1.
    rdp : array_like
        ε(α) >= 0 (nats) for each order; ``inf`` allowed.
    kind : Kind
        ``exact`` (computed to a stated error, upper end used), ``certified``
        (a proven upper bound) or ``heuristic`` (never a guarantee).
    method : str
        How the curve was obtained.
    rdp_lower : array_like or None, default None
        A proven lower bound on the worst-case RDP of the mechanism, when the
        curve is only an upper bound (k > 1; THEORY.md §8).

    Notes
    -----
    ``curve1 + curve2`` composes two mechanisms on the same data (RDP
    composition; the orders must be equal). The kind of a sum is the weakest
    of the two; its lower bound is the sum of lower bounds (an exact curve
    serves as its own, up to its numerical error), which is valid when the
    worst-case pairs of the summands coincide, as for repeated releases and
    Gaussian mechanisms on the same data. ``T * curve`` is T-fold composition.
    """

    orders: NDArray[np.float64]
    rdp: NDArray[np.float64]
    kind: Kind
    method: str
    rdp_lower: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        orders = _frozen(check_alpha(self.orders, "orders"))
        rdp = _frozen(self.rdp)
        if rdp.shape != orders.shape:
            raise InputError(
                "rdp", f"must have one value per order ({orders.size}), got {rdp.size}"
            )
        if np.any(np.isnan(rdp)) or np.any(rdp < 0):
            raise InputError("rdp", "must be >= 0 (nats), no NaN")
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "rdp", rdp)
        object.__setattr__(self, "kind", Kind(self.kind))
        if self.rdp_lower is not None:
            lower = _frozen(self.rdp_lower)
            if lower.shape != orders.shape or np.any(np.isnan(lower)) or np.any(lower < 0):
                raise InputError("rdp_lower", "must have one value >= 0 per order")
            object.__setattr__(self, "rdp_lower", lower)

    def _lower_or_none(self) -> NDArray[np.float64] | None:
        if self.rdp_lower is not None:
            return self.rdp_lower
        return self.rdp if self.kind is Kind.EXACT else None

    def __add__(self, other: RdpCurve) -> RdpCurve:
        if not isinstance(other, RdpCurve):
            return NotImplemented
        if self.orders.shape != other.orders.shape or not np.array_equal(self.orders, other.orders):
            raise InputError("orders", "curves must share the same orders to compose")
        method = self.method if self.method == other.method else f"{self.method} + {other.method}"
        lower_a, lower_b = self._lower_or_none(), other._lower_or_none()
        kind = _weakest(self.kind, other.kind)
        lower = None
        if lower_a is not None and lower_b is not None and kind is not Kind.EXACT:
            lower = lower_a + lower_b
        return RdpCurve(self.orders, self.rdp + other.rdp, kind, method, lower)

    def __mul__(self, count: int) -> RdpCurve:
        if isinstance(count, bool) or not isinstance(count, int | np.integer):
            return NotImplemented
        count = check_integer("releases", count, 1)
        lower = None if self.rdp_lower is None else count * self.rdp_lower
        return RdpCurve(self.orders, count * self.rdp, self.kind, self.method, lower)

    __rmul__ = __mul__

    def epsilon(self, delta: float) -> float:
        """ε of the (ε, δ) guarantee given by this curve (:func:`rdp_to_epsilon`).

        Raises
        ------
        InputError
            For a heuristic curve: a heuristic never gives a guarantee.
        """
        if not self.kind.usable_in_guarantee:
            raise InputError("curve", f"a {self.kind} curve ({self.method}) is never a guarantee")
        return rdp_to_epsilon(self.orders, self.rdp, delta)[0]


# --------------------------------------------------------------------------- (ε, δ)


def rdp_to_epsilon(
    orders: ArrayLike, rdp: ArrayLike, delta: float, *, warn: bool = True
) -> tuple[float, float]:
    """Convert an RDP curve to (ε, δ)-DP (THEORY.md §12).

    ε = min_α [ε(α) + log1p(−1/α) − log(δα)/(α − 1)] (Canonne, Kamath and
    Steinke 2020, Prop. 12 of arXiv:2004.00010 v4; Balle et al. 2020), and
    ε = 0 at an order where δ >= √(1 − e^{−ε(α)}) (the total variation is at
    most √(1 − e^{−KL}) by the Bretagnolle–Huber inequality, and KL <= ε(α)). This is the
    conversion of ``dp_accounting.rdp.compute_epsilon``, except that orders in
    (1, 1.01] are used too (the formula holds for every α > 1; dp_accounting
    skips them for stability near 1, where they are never optimal).

    Parameters
    ----------
    orders : array_like
        Rényi orders, each > 1.
    rdp : array_like
        ε(α) >= 0 for each order (``inf`` allowed).
    delta : float
        Target δ in (0, 1).
    warn : bool, default True
        Emit :class:`OrderGridWarning` when the optimum is at the first or last
        order (a denser or wider grid may give a smaller ε).

    Returns
    -------
    epsilon : float
        The smallest ε over the orders (``inf`` if every ε(α) is infinite).
    optimal_order : float
        The order attaining it.
    """
    orders = check_alpha(orders, "orders")
    rdp = np.asarray(rdp, dtype=float)
    if rdp.shape != orders.shape:
        raise InputError("rdp", f"must have one value per order ({orders.size}), got {rdp.size}")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise InputError("rdp", "must be >= 0 (nats), no NaN")
    delta = check_open_unit("delta", delta)
    with np.errstate(over="ignore", invalid="ignore"):
        eps = rdp + np.log1p(-1.0 / orders) - np.log(delta * orders) / (orders - 1.0)
        eps = np.where(delta * delta + np.expm1(-rdp) > 0, 0.0, eps)
    eps = np.where(np.isinf(rdp), np.inf, eps)
    index = int(np.argmin(eps))
    epsilon = max(0.0, float(eps[index]))
    if (
        warn
        and orders.size > 1
        and 0 < epsilon < math.inf
        and orders[index] in (orders.min(), orders.max())
    ):
        warnings.warn(
            f"the optimal order {orders[index]:g} is at the edge of the grid "
            f"[{orders.min():g}, {orders.max():g}]; more orders may give a smaller epsilon",
            OrderGridWarning,
            stacklevel=2,
        )
    return epsilon, float(orders[index])


# --------------------------------------------------------------------------- worst case


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

    def __init__(self, alpha: NDArray[np.float64], dim: int, gap: float, n_syn: int | None):
        from synthamp import divergence

        self.alpha = alpha
        self.dim = dim
        self.gap = gap
        self.n_syn = n_syn
        self.calls = 0
        self._plateau = divergence.renyi_plateau
        self._finite = divergence.renyi_finite

    def pair(self, t: float, forward: bool) -> tuple[float, float]:
        return (t + self.gap, t) if forward else (t, t + self.gap)

    def __call__(
        self, t: float, forward: bool, alpha: NDArray[np.float64] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        a, b = self.pair(t, forward)
        alpha = self.alpha if alpha is None else alpha
        self.calls += 1
        if self.n_syn is None:
            result = self._plateau(alpha, self.dim, a, b, 1.0, full_output=True)
        else:
            result = self._finite(alpha, self.dim, a, b, self.n_syn, 1.0, full_output=True)
        value = np.asarray(result.value, dtype=float).reshape(alpha.shape)
        error = np.asarray(result.error, dtype=float).reshape(alpha.shape)
        return value, np.abs(error)


def _refine(
    evaluate: _EdgeEvaluator, order: float, forward: bool, lo: float, hi: float
) -> tuple[float, float, float]:
    """Maximise D along one edge at one order on [lo, hi]; returns (t, value, error)."""
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
    upper, estimate, error, a, b, calls = _worst_case(alpha, dim, c, s, n_syn)
    if not full_output:
        return upper
    return WorstCase(
        alpha=_frozen(alpha),
        value=_frozen(upper),
        estimate=_frozen(estimate),
        error=_frozen(error),
        norm_v=_frozen(a * sigma),
        norm_w=_frozen(b * sigma),
        evaluations=calls,
    )


# --------------------------------------------------------------------------- rdp curve


def _gaussian_curve(release: GaussianRelease, orders: NDArray[np.float64]) -> RdpCurve:
    rdp = release.releases * post_processing_rdp(orders, release.sensitivity, release.sigma)
    return RdpCurve(orders, rdp, Kind.EXACT, "gaussian")


@privacy_quantity("certified")
def rdp_curve(
    release: SyntheticDataRelease | GaussianRelease,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    *,
    lower: bool = True,
) -> RdpCurve:
    """RDP curve of a release over a grid of orders.

    ================  =========================================  ===========
    method            k = 1                                      k > 1
    ================  =========================================  ===========
    exact (default)   :func:`worst_case_rdp` (kind exact)        min(Thm 5.4, post-processing),
                                                                 kind certified, with the k = 1
                                                                 worst case as ``rdp_lower``
    global            Theorem 5.2                                Theorem 5.4 (+ ``rdp_lower``)
    post-processing   αΔ_eff²/(2σ²)                              αΔ_eff²/(2σ²)
    ================  =========================================  ===========

    Δ_eff = min(Δ, 2C); the k = 1 worst case and Theorem 5.2, which depend on
    the norms only, use min(Δ, C). The exact k = 1 value is capped by the
    post-processing bound (if the cap binds, the curve's kind is certified).
    T releases multiply the curve by T (THEORY.md §12). The global bounds hold
    for the plateau and so for every finite n_syn (Proposition 4.2). The lower
    bound for k > 1 is the rank-one reduction of THEORY.md §8: the first column
    of ZV after rotating u to e₁ is a k = 1 release of width d.

    A :class:`GaussianRelease` has the exact curve T·αΔ²/(2σ²) whatever the method.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
    lower : bool, default True
        Compute ``rdp_lower`` for k > 1 (costs engine calls).

    Returns
    -------
    RdpCurve
        The curve (kind certified or exact; never heuristic).
    """
    orders = _check_orders(orders)
    method = _check_method(method)
    if isinstance(release, GaussianRelease):
        return _gaussian_curve(release, orders)
    if not isinstance(release, SyntheticDataRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    r = release
    post = post_processing_rdp(orders, r.effective_sensitivity, r.sigma)
    rdp_lower = None
    if method == "post-processing":
        rdp, kind = post, Kind.CERTIFIED
    elif r.out_dim == 1:
        if method == "exact":
            exact = worst_case_rdp(orders, r.dim, r.norm_bound, r.sensitivity, r.sigma, r.n_syn)
            rdp = np.minimum(exact, post)
            kind = Kind.EXACT if np.all(exact <= post) else Kind.CERTIFIED
        else:
            rdp = global_bound(orders, r.dim, r.norm_bound, r.amplitude_gap, r.sigma, 1)
            kind = Kind.CERTIFIED
    else:
        rdp = global_bound(orders, r.dim, r.norm_bound, r.effective_sensitivity, r.sigma, r.out_dim)
        if method == "exact":
            rdp = np.minimum(rdp, post)
        kind = Kind.CERTIFIED
        if lower:
            worst = worst_case_rdp(
                orders, r.dim, r.norm_bound, r.sensitivity, r.sigma, r.n_syn, full_output=True
            )
            rdp_lower = r.releases * np.minimum(worst.lower, rdp)
    return RdpCurve(orders, r.releases * rdp, kind, method, rdp_lower)


# --------------------------------------------------------------------------- ε


@dataclass(frozen=True, eq=False)
class EpsilonResult:
    """(ε, δ) guarantee of a release (:func:`compute_epsilon`).

    Attributes
    ----------
    epsilon : float
        ε of the guarantee.
    delta : float
        δ of the guarantee.
    optimal_order : float
        Rényi order at which the conversion is optimal.
    curve : RdpCurve
        The (composed) RDP curve used.
    method : str
        The requested method.
    kind : Kind
        Kind of ``curve`` (exact or certified).
    epsilon_post_processing : float
        ε of releasing the model itself (post-processing baseline, composed
        with the same extra curves).
    curve_post_processing : RdpCurve
        Its RDP curve.
    effective_sensitivity : float
        min(Δ, 2C).
    heuristics : Mapping[str, RdpCurve]
        Labelled heuristic curves, for insight only (never used for ε).
    """

    epsilon: float
    delta: float
    optimal_order: float
    curve: RdpCurve
    method: str
    kind: Kind
    epsilon_post_processing: float
    curve_post_processing: RdpCurve
    effective_sensitivity: float
    heuristics: Mapping[str, RdpCurve] = field(default_factory=lambda: MappingProxyType({}))


def _extra_curve(extra: RdpCurve | Release, orders: NDArray[np.float64]) -> RdpCurve:
    if isinstance(extra, RdpCurve):
        if not extra.kind.usable_in_guarantee:
            raise InputError("extra_curves", f"a {extra.kind} curve never feeds a guarantee")
        return extra
    if isinstance(extra, SyntheticDataRelease | GaussianRelease):
        return rdp_curve(extra, orders)
    raise InputError("extra_curves", f"must hold RdpCurve or release objects, got {extra!r}")


@privacy_quantity("certified")
def compute_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    extra_curves: Iterable[RdpCurve | Release] = (),
) -> EpsilonResult:
    """(ε, δ) guarantee of a release, composed with other mechanisms on the same data.

    The RDP curve of ``release`` (:func:`rdp_curve`), plus the curves of
    ``extra_curves`` (RDP composition), converted by :func:`rdp_to_epsilon`.
    The post-processing baseline (releasing the model instead of synthetic
    data) is computed alongside, composed with the same extras.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    delta : float
        δ in (0, 1).
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
    extra_curves : iterable of RdpCurve, SyntheticDataRelease or GaussianRelease
        Other mechanisms run on the same data, composed with ``release``.
        Curves must use the same orders; heuristic curves are refused.

    Returns
    -------
    EpsilonResult

    Warns
    -----
    OrderGridWarning
        When the optimal order is at the edge of the grid.
    """
    delta = check_open_unit("delta", delta)
    orders = _check_orders(orders)
    method = _check_method(method)
    extras = [_extra_curve(e, orders) for e in extra_curves]
    curve = rdp_curve(release, orders, method)
    post = rdp_curve(release, orders, "post-processing")
    for extra in extras:
        curve = curve + extra
        post = post + extra
    epsilon, order = rdp_to_epsilon(orders, curve.rdp, delta)
    epsilon_post, _ = rdp_to_epsilon(orders, post.rdp, delta, warn=False)
    heuristics: dict[str, RdpCurve] = {}
    if isinstance(release, SyntheticDataRelease):
        eta = amplification_ratio_local_upper(
            release.dim, release.norm_bound, release.sigma, release.out_dim
        )
        base = rdp_curve(release, orders, "post-processing")
        heuristics["local_upper"] = RdpCurve(
            orders, eta * base.rdp, Kind.HEURISTIC, "local expansion (Theorem 5.1/5.3)"
        )
        sensitivity = release.effective_sensitivity
    else:
        sensitivity = release.sensitivity
    return EpsilonResult(
        epsilon=epsilon,
        delta=delta,
        optimal_order=order,
        curve=curve,
        method=method,
        kind=curve.kind,
        epsilon_post_processing=epsilon_post,
        curve_post_processing=post,
        effective_sensitivity=sensitivity,
        heuristics=MappingProxyType(heuristics),
    )


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate_sigma`.

    Attributes
    ----------
    sigma : float
        Smallest noise scale found with ε <= target (to relative ``rtol``).
    epsilon : float
        ε achieved at ``sigma`` (<= the target).
    delta : float
        δ.
    target_epsilon : float
        The requested ε.
    optimal_order : float
        Optimal Rényi order at ``sigma``.
    sigma_post_processing : float
        The same calibration for releasing the model (post-processing).
    epsilon_post_processing : float
        ε achieved at ``sigma_post_processing``.
    noise_reduction : float
        1 − sigma/sigma_post_processing: the noise saved by amplification.
    method : str
        The method calibrated.
    kind : Kind
        Kind of the curve at ``sigma``.
    """

    sigma: float
    epsilon: float
    delta: float
    target_epsilon: float
    optimal_order: float
    sigma_post_processing: float
    epsilon_post_processing: float
    noise_reduction: float
    method: str
    kind: Kind


def _bisect_sigma(epsilon_at, target: float, start: float, rtol: float) -> tuple[float, tuple]:
    """Smallest σ with ε(σ) <= target, by bracketing then bisection on log σ.

    ``epsilon_at(σ)`` returns a tuple whose first item is ε(σ), assumed
    non-increasing in σ. Returns (σ_hi, epsilon_at(σ_hi)) with ε(σ_hi) <= target
    and σ_hi/σ_lo <= 1 + rtol for a σ_lo with ε(σ_lo) > target.
    """
    max_steps = 2100  # 2^±1050 spans every positive double
    hi = lo = start
    at_hi = epsilon_at(hi)
    if at_hi[0] > target:
        for _ in range(max_steps):
            lo, hi = hi, 2.0 * hi
            at_hi = epsilon_at(hi)
            if at_hi[0] <= target:
                break
        else:
            raise RuntimeError("calibration: no sigma reaches the target epsilon")
    else:
        for _ in range(max_steps):
            lo = hi / 2.0
            at_lo = epsilon_at(lo)
            if at_lo[0] > target:
                break
            hi, at_hi = lo, at_lo
        else:
            raise RuntimeError("calibration: epsilon stays below the target as sigma -> 0")
    while hi / lo - 1.0 > rtol:
        mid = math.sqrt(lo * hi)
        at_mid = epsilon_at(mid)
        if at_mid[0] <= target:
            hi, at_hi = mid, at_mid
        else:
            lo = mid
    return hi, at_hi


#: Half-width (in grid points) of the window of orders used inside the bisection.
CALIBRATION_WINDOW = 5


def _calibrate_worst_case(
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    start: float,
    center: int,
    rtol: float,
) -> tuple[float, float, float, Kind]:
    """Calibration of the exact k = 1 accountant with few engine calls.

    ``orders`` must be sorted. Inside the bisection, ε is computed on a window
    of orders around the optimum (the engine's cost grows with the largest
    order) and, at first, from the forward endpoint alone (one engine call per
    step). The candidate σ is then checked with the guarded worst case
    (:func:`worst_case_rdp`) on every order. Soundness: the returned σ is one
    where the checked ε was computed and is <= the target. Tightness: a
    window's ε is >= the full grid's, and the endpoint alone is <= the guarded
    worst case, so the check switches the guard on if its ε exceeds the
    target, and re-centres the window if the optimum is at the window's edge;
    both then bisect again.
    """

    def checked(sigma: float, check_orders: NDArray[np.float64]) -> tuple[float, float, Kind]:
        curve = rdp_curve(base.with_sigma(sigma), check_orders, "exact", lower=False)
        eps, order = rdp_to_epsilon(check_orders, curve.rdp, delta, warn=False)
        return eps, order, curve.kind

    guard = False
    for _ in range(6):
        lo_i = max(0, center - CALIBRATION_WINDOW)
        hi_i = min(orders.size, center + CALIBRATION_WINDOW + 1)
        window = orders[lo_i:hi_i]

        def epsilon_at(sigma: float, window=window, guard=guard) -> tuple[float, float]:
            r = base.with_sigma(sigma)
            c, gap = r.norm_bound / sigma, r.amplitude_gap / sigma
            upper = _worst_case(window, r.dim, c, gap, r.n_syn, guard=guard)[0]
            post = post_processing_rdp(window, r.effective_sensitivity, sigma)
            return rdp_to_epsilon(window, r.releases * np.minimum(upper, post), delta, warn=False)

        sigma, _ = _bisect_sigma(epsilon_at, target, start, rtol)
        eps, order, kind = checked(sigma, orders)
        index = int(np.searchsorted(orders, order))
        # The optimum must be inside the window, unless the window ends at the grid's end.
        inside = (
            lo_i < index < hi_i - 1 or index == lo_i == 0 or index == hi_i - 1 == orders.size - 1
        )
        if eps <= target and inside:
            return sigma, eps, order, kind
        if eps > target:
            guard = True
        center, start = index, sigma
    # Not settled (never seen): bisect on every order with the guarded worst case.
    sigma, (eps, order, kind) = _bisect_sigma(lambda x: checked(x, orders), target, start, rtol)
    return sigma, eps, order, kind


@privacy_quantity("certified")
def calibrate_sigma(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int = 1,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    method: Method = "exact",
    orders: ArrayLike | None = None,
    rtol: float = 1e-4,
) -> Calibration:
    """Smallest noise σ whose release meets the target (ε, δ) (THEORY.md §12).

    Brackets σ by doublings/halvings from the post-processing calibration, then
    bisects on log σ until the bracket is narrower than ``rtol``. ε(σ) is
    non-increasing in σ for every method (module docstring), and the upper end
    of the bracket is returned, where ε was computed and is <= the target: the
    result is conservative by construction. The post-processing calibration is
    reported alongside.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        δ in (0, 1).
    dim, out_dim, norm_bound, sensitivity, n_syn, releases
        The release, as in :class:`SyntheticDataRelease`.
    method : {"exact", "global", "post-processing"}, default "exact"
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    rtol : float, default 1e-4
        Relative width of the final bracket on σ.

    Returns
    -------
    Calibration
    """
    target = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    method = _check_method(method)
    orders = np.unique(_check_orders(orders))  # sorted: ε is a minimum over orders
    rtol = check_positive("rtol", rtol)
    base = SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases)

    def make_epsilon_at(name: str):
        def epsilon_at(sigma: float) -> tuple[float, float, Kind]:
            curve = rdp_curve(base.with_sigma(sigma), orders, name, lower=False)
            eps, order = rdp_to_epsilon(orders, curve.rdp, delta, warn=False)
            return eps, order, curve.kind

        return epsilon_at

    # Gaussian mechanism with RDP conversion at the optimal order: a good start.
    start = base.effective_sensitivity * math.sqrt(2.0 * releases * math.log(1.0 / delta)) / target
    sigma_post, (eps_post, order_post, kind_post) = _bisect_sigma(
        make_epsilon_at("post-processing"), target, start, rtol
    )
    if method == "post-processing":
        sigma, (eps, order, kind) = sigma_post, (eps_post, order_post, kind_post)
    elif method == "exact" and out_dim == 1:
        center = int(np.searchsorted(orders, order_post))
        sigma, eps, order, kind = _calibrate_worst_case(
            base, target, delta, orders, sigma_post, center, rtol
        )
    else:  # closed-form certified bounds: cheap at every order
        sigma, (eps, order, kind) = _bisect_sigma(make_epsilon_at(method), target, sigma_post, rtol)
    if order in (orders.min(), orders.max()):
        warnings.warn(
            f"the optimal order {order:g} at the calibrated sigma is at the edge of the grid "
            f"[{orders.min():g}, {orders.max():g}]; more orders may give a smaller sigma",
            OrderGridWarning,
            stacklevel=2,
        )
    return Calibration(
        sigma=sigma,
        epsilon=eps,
        delta=delta,
        target_epsilon=target,
        optimal_order=order,
        sigma_post_processing=sigma_post,
        epsilon_post_processing=eps_post,
        noise_reduction=1.0 - sigma / sigma_post,
        method=method,
        kind=kind,
    )
