"""RDP curves and their conversion to (ε, δ): the accountants' side (docs/theory.md §12).

* :class:`RdpCurve` is an RDP curve ε(α) on a grid of orders with the kind of
  number it is; curves of mechanisms run on the same data compose by
  addition, and ``T * curve`` is T-fold composition.
* :func:`rdp_to_epsilon` converts a curve to an (ε, δ) guarantee
  (:func:`_epsilon`, :func:`_epsilon_terms`).

The release descriptions they are computed from are data (``_releases``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind
from synthamp._parameters import validated_one
from synthamp._validation import InputError

__all__ = ["DEFAULT_ORDERS", "METHODS", "OrderGridWarning", "RdpCurve", "rdp_to_epsilon"]

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
    return validated_one("orders", orders)


def _check_rdp(rdp: ArrayLike, orders: NDArray[np.float64]) -> NDArray[np.float64]:
    """RDP values: one float >= 0 (nats, ``inf`` allowed) per order."""
    rdp = np.asarray(rdp, dtype=float)
    if rdp.shape != orders.shape:
        raise InputError("rdp", f"must have one value per order ({orders.size}), got {rdp.size}")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise InputError("rdp", "must be >= 0 (nats), no NaN")
    return rdp


def _frozen(arr: ArrayLike) -> NDArray[np.float64]:
    out = np.array(arr, dtype=float)
    out.setflags(write=False)
    return out


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
        A proven **lower** bound on the worst-case RDP of the mechanism, when
        the curve is only an upper bound (k > 1: the exact value − error of the
        aligned rank-one pair, i.e. the k = 1 worst case with the same d;
        docs/theory.md §8). Never used for ε.
    rdp_search : array_like or None, default None
        A proven **lower** bound at least ``rdp_lower``: the exact value − error
        of the best adjacent pair found by a search (k = 2, unlimited release;
        ``rdp_curve(..., search=N)``, :func:`synthamp.accountant.search_lower_bound`).
        Never used for ε.
    search_note : str or None, default None
        One line saying what ``rdp_search`` is and how its search ended (it
        says when the time budget stopped it).
    fallback : str or None, default None
        Set when the requested computation did not finish within its time
        budget and the curve is the sound bound the accountant had instead
        (for a finite release, the plateau, which bounds every n_syn); says so
        in one line.

    Notes
    -----
    ``curve1 + curve2`` composes two mechanisms on the same data (RDP
    composition; the orders must be equal). The kind of a sum is the weakest
    of the two; its lower bound is the sum of lower bounds (an exact curve
    serves as its own, up to its numerical error), which is valid when the
    worst-case pairs of the summands coincide, as for repeated releases and
    Gaussian mechanisms on the same data. A sum drops ``rdp_search`` (its
    pair need not be the other mechanism's worst pair). ``T * curve`` is
    T-fold composition (``rdp_search`` too: the same pair T times).
    """

    orders: NDArray[np.float64]
    rdp: NDArray[np.float64]
    kind: Kind
    method: str
    rdp_lower: NDArray[np.float64] | None = None
    fallback: str | None = None
    rdp_search: NDArray[np.float64] | None = None
    search_note: str | None = None

    def __post_init__(self) -> None:
        self._set(_frozen(validated_one("orders", self.orders)))

    def _set(self, orders: NDArray[np.float64]) -> None:
        rdp = _frozen(_check_rdp(self.rdp, orders))
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "rdp", rdp)
        object.__setattr__(self, "kind", Kind(self.kind))
        for name in ("rdp_lower", "rdp_search"):
            if getattr(self, name) is not None:
                lower = _frozen(getattr(self, name))
                if lower.shape != orders.shape or np.any(np.isnan(lower)) or np.any(lower < 0):
                    raise InputError(name, "must have one value >= 0 per order")
                object.__setattr__(self, name, lower)

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
        notes = [note for note in (self.fallback, other.fallback) if note]
        fallback = "; ".join(dict.fromkeys(notes)) or None
        return _curve(self.orders, self.rdp + other.rdp, kind, method, lower, fallback)

    def __mul__(self, count: int) -> RdpCurve:
        if isinstance(count, bool) or not isinstance(count, int | np.integer):
            return NotImplemented
        count = validated_one("releases", count)
        lower = None if self.rdp_lower is None else count * self.rdp_lower
        search = None if self.rdp_search is None else count * self.rdp_search
        return _curve(
            self.orders,
            count * self.rdp,
            self.kind,
            self.method,
            lower,
            self.fallback,
            search,
            self.search_note,
        )

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
        delta = validated_one("delta", delta)
        return _epsilon(self.orders, self.rdp, delta, warn=True, stacklevel=3)[0]


def _curve(orders: NDArray[np.float64], rdp: ArrayLike, kind: Kind | str, method: str, *rest):
    """An :class:`RdpCurve` on orders the library already validated: the kernel of its
    constructor (the curve's values are still checked: one float >= 0 per order)."""
    curve = object.__new__(RdpCurve)
    for name, value in zip(_CURVE_FIELDS, (orders, rdp, kind, method, *rest), strict=False):
        object.__setattr__(curve, name, value)
    for name in _CURVE_FIELDS[4 + len(rest) :]:
        object.__setattr__(curve, name, None)
    curve._set(orders if not orders.flags.writeable else _frozen(orders))
    return curve


_CURVE_FIELDS = tuple(f.name for f in fields(RdpCurve))


# --------------------------------------------------------------------------- (ε, δ)


def rdp_to_epsilon(
    orders: ArrayLike, rdp: ArrayLike, delta: float, *, warn: bool = True
) -> tuple[float, float]:
    """Convert an RDP curve to (ε, δ)-DP (docs/theory.md §12).

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
    orders = validated_one("orders", orders)
    rdp = _check_rdp(rdp, orders)
    delta = validated_one("delta", delta)
    return _epsilon(orders, rdp, delta, warn=warn, stacklevel=3)


def _epsilon(
    orders: NDArray[np.float64],
    rdp: NDArray[np.float64],
    delta: float,
    *,
    warn: bool,
    stacklevel: int = 2,
) -> tuple[float, float]:
    """The kernel of :func:`rdp_to_epsilon`, for validated inputs.

    ``stacklevel`` of the :class:`OrderGridWarning`, counted from this
    function (2: the caller).
    """
    eps = _epsilon_terms(orders, rdp, delta)
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
            stacklevel=stacklevel,
        )
    return epsilon, float(orders[index])


def _epsilon_terms(
    orders: NDArray[np.float64], rdp: NDArray[np.float64], delta: float
) -> NDArray[np.float64]:
    """The ε of each order (before the minimum and the clip at 0), for validated inputs.

    ε_α(r) = r + log(1 − 1/α) − log(δα)/(α − 1), and 0 when δ >= √(1 − e^{−r})
    (Canonne–Kamath–Steinke 2020; docs/theory.md §12). max(0, ε_α(r)) is
    non-decreasing in r (0 up to the threshold, then the increasing formula).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        eps = rdp + np.log1p(-1.0 / orders) - np.log(delta * orders) / (orders - 1.0)
        eps = np.where(delta * delta + np.expm1(-rdp) > 0, 0.0, eps)
    return np.where(np.isinf(rdp), np.inf, eps)
