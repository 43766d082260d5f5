"""The certified angle grid: sup over φ ∈ [0, π/2] of the canonical pair's D_α (docs/theory.md §20).

The canonical pair (c, φ) at width d′ (:mod:`synthamp.accountant._angle_reduction`)
is a contraction of the pair (c′, ψ) for φ ≤ ψ ≤ π/2 when
c′² = c²(1 + cos φ)/(1 + cos ψ) (docs/theory.md §20, "A certified grid over φ"). So
for nodes 0 = φ₀ < φ₁ < … < φ_J = π/2,

    sup_{φ ∈ [φⱼ, φⱼ₊₁]} D_α(c, φ) ≤ D_α(c·fⱼ, φⱼ₊₁),  fⱼ = √((1 + cos φⱼ)/(1 + cos φⱼ₊₁)),

and the **certificate** at each order is the maximum over the J intervals of
(value + error bound) of the exact k = 2 engine
(:func:`synthamp.divergence._wishart.plateau_gram_refined`) at the inflated
node; the last interval's node is φ = π/2, computed exactly by the k = 1 engine in
both directions. No monotonicity in φ is assumed (the conjecture of
docs/theory.md §20 would make the π/2 node alone the answer).

**The nodes** (:func:`angle_nodes`). In the small-signal regime D_α(c, φ) ≈
D_α(c, π/2)·sin²φ and D_α ∝ c⁴ (the Gram matrices' difference has ‖·‖²_F =
2c⁴sin²φ), so the interval ending at φⱼ₊₁ costs sin²φⱼ₊₁·fⱼ⁴ of the π/2 value;
the nodes are placed from π/2 down so that this model ratio is 1 + ρ on every
interval: dense near π/2 (fⱼ − 1 ≈ (φⱼ₊₁ − φⱼ)/2 there) and sparse near 0. The
nodes only place the work: the certificate is sound for any nodes, and its
measured ratio to the π/2 node is reported (``overhead``). ρ = 0.02 gives 16
intervals.

**Width.** The engine covers widths 2 … 10⁴: beyond, the grid is evaluated at
width 10⁴, which is sound (a zero-mean row is a kernel, so D_α is non-increasing
in the width; docs/theory.md §20, "Peeling") and looser. A node past the engine's
range (tr Ω/σ² > 10⁴, or over its node budget) makes the certificate ∞ at that
order (then post-processing is the guarantee).

Kernel: :func:`_certified_angle_rdp` (validated arguments, amplitude a = c/σ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated_one
from synthamp._validation import InputError
from synthamp.accountant._angle_reduction import _canonical_pair, _orthogonal_node_rdp
from synthamp.divergence._wishart import (
    MAX_DIM_K2,
    MAX_TRACE_K2,
    plateau_gram_refined,
    plateau_gram_scaled,
)

__all__ = [
    "ANGLE_ORDERS",
    "DEFAULT_ANGLE_RATIO",
    "AngleCertificate",
    "angle_nodes",
    "certified_angle_rdp",
]

#: A node's error bound above this share of its value sends it to the engine's refinement
#: (the bound is added either way: this only trades time for tightness).
_REFINE_ABOVE = 1e-4

#: Model overhead per interval of the default grid (16 intervals).
DEFAULT_ANGLE_RATIO = 0.02

#: The orders of the certificate: the engine's range [1.01, 64], denser where ε ≈ 0.1 … 10
#: at δ ≈ 1e-5 … 1e-10 is attained.
ANGLE_ORDERS: NDArray[np.float64] = np.array(
    [1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 40.0,
     48.0, 64.0]
)  # fmt: skip
ANGLE_ORDERS.setflags(write=False)


def angle_nodes(ratio: float = DEFAULT_ANGLE_RATIO) -> NDArray[np.float64]:
    """Nodes 0 = φ₀ < … < φ_J = π/2 with model overhead ``ratio`` per interval (module docstring).

    From π/2 down: 1 + cos φⱼ = (1 + cos φⱼ₊₁)·√(1 + ρ)/sin φⱼ₊₁, until it reaches 2.
    """
    rho = float(ratio)
    if not (0.0 < rho < 1.0):
        raise InputError("ratio", f"must be in (0, 1), got {ratio!r}")
    nodes = [math.pi / 2]
    t = 1.0  # 1 + cos φ at the current node
    while True:
        t_prev = t * math.sqrt(1.0 + rho) / math.sin(nodes[-1])
        if t_prev >= 2.0 or len(nodes) > 400:
            nodes.append(0.0)
            break
        nodes.append(math.acos(t_prev - 1.0))
        t = t_prev
    out = np.array(nodes[::-1])
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class AngleCertificate:
    """The certified sup over φ of the canonical pair's D_α, with its parts (certified).

    Attributes
    ----------
    orders : ndarray
    rdp : ndarray
        The certificate per order: max over intervals of (value + error) at the
        inflated node.
    orthogonal : ndarray
        The π/2 node at c (no inflation) + its error: what the certificate would
        be were the conjecture proved.
    nodes : ndarray
        φ₀ = 0 < … < φ_J = π/2.
    interval_values : ndarray, shape (J, orders)
        Value + error of each interval's inflated node.
    inflation : ndarray, shape (J,)
        fⱼ per interval.
    width : int
        The width the grid was evaluated at (d − k, capped at 10⁴).
    amplitude : float
        c/σ.
    engine_nodes : int
        Lattice nodes of the k = 2 engine over the grid (its work).
    """

    orders: NDArray[np.float64]
    rdp: NDArray[np.float64]
    orthogonal: NDArray[np.float64]
    nodes: NDArray[np.float64]
    interval_values: NDArray[np.float64]
    inflation: NDArray[np.float64]
    width: int
    amplitude: float
    engine_nodes: int = 0

    @property
    def overhead(self) -> NDArray[np.float64]:
        """certificate / π/2 node per order (≥ 1; 1 would mean the conjecture's value)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.rdp / self.orthogonal

    @property
    def worst_interval(self) -> NDArray[np.int64]:
        """Index of the interval giving the certificate, per order."""
        return np.argmax(self.interval_values, axis=0)


@privacy_quantity(Kind.CERTIFIED)
def certified_angle_rdp(
    alpha: ArrayLike | None,
    dim: int,
    norm: float,
    sigma: float = 1.0,
    *,
    ratio: float = DEFAULT_ANGLE_RATIO,
) -> AngleCertificate:
    """sup over φ ∈ [0, π/2] of D_α of the canonical pair (c, φ) at width ``dim`` (certified).

    Parameters
    ----------
    alpha : array_like or None
        Rényi orders in [1.01, 64] (None: :data:`ANGLE_ORDERS`).
    dim : int
        The pair's width d′ = d − k ≥ 2.
    norm : float
        c > 0 (natural units), e.g. c* of :func:`canonical_norm`.
    sigma : float, default 1.0
    ratio : float, default 0.02
        The grid's model overhead per interval (:func:`angle_nodes`).

    Returns
    -------
    AngleCertificate
    """
    orders = ANGLE_ORDERS if alpha is None else validated_one("alpha", alpha)
    if orders.min() < 1.01 or orders.max() > 64.0:
        raise InputError("alpha", "must lie in [1.01, 64] (the k = 2 engine's range)")
    dim = validated_one("dim", dim)
    if dim < 2:
        raise InputError("dim", "must be >= 2 (the width d - k of the canonical pair)")
    amp = validated_one("norm", norm) / validated_one("sigma", sigma)
    return _certified_angle_rdp(orders, dim, amp, angle_nodes(ratio))


def _certified_angle_rdp(
    orders: NDArray[np.float64], dim: int, amp: float, nodes: NDArray[np.float64]
) -> AngleCertificate:
    """The kernel of :func:`certified_angle_rdp` (amplitude a = c/σ, validated nodes)."""
    width = min(dim, MAX_DIM_K2)
    value, error = _orthogonal_node_rdp(orders, dim, amp)
    orthogonal = value + error
    n = nodes.size - 1
    inflation = np.sqrt((1.0 + np.cos(nodes[:-1])) / (1.0 + np.cos(nodes[1:])))
    inflation = inflation * (1.0 + 4.0 * np.finfo(float).eps)  # rounded up
    values = np.empty((n, orders.size))
    work = 0
    for j in range(n):
        a = amp * float(inflation[j])
        if j == n - 1:  # the orthogonal node, exactly, at the full width (k = 1 engine)
            v, e = _orthogonal_node_rdp(orders, dim, a)
            values[j] = v + e
            continue
        if a * a > MAX_TRACE_K2:
            values[j] = np.inf
            continue
        omega_v, omega_w = _canonical_pair(a, float(nodes[j + 1]))
        try:
            v, e, _, _, count = plateau_gram_scaled(orders, width, omega_v, omega_w)
            if np.any(e > _REFINE_ABOVE * v):  # a loose node: the engine's refinement
                v, e, _, _, count = plateau_gram_refined(orders, width, omega_v, omega_w)
        except RuntimeError:  # over the engine's node budget: no certificate at this node
            values[j] = np.inf
            continue
        work += count
        values[j] = np.where(np.isfinite(e), v + e, np.inf)
    rdp = values.max(axis=0)
    return AngleCertificate(
        orders, rdp, orthogonal, nodes, values, inflation, width, float(amp), work
    )
