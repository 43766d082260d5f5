"""Which Rényi orders can give ε: lower bounds on an RDP curve (docs/theory.md §12).

The (ε, δ) guarantee of an RDP curve r(α) is ε = min over the orders of
ε_α(r(α)), with ε_α the conversion of :func:`synthamp.accountant.rdp_to_epsilon`;
clipped at 0, ε_α is non-decreasing in r (``_rdp_conversion._epsilon_terms``). The
finite-release worst case costs engine calls at every order, and most orders
cannot give the minimum. This module says which can, soundly.

Lemma (pruning; proved)
-----------------------
Let L(α) <= r(α) <= U(α) at every order, and τ = min_β max(0, ε_β(U(β))).
Then every order with max(0, ε_α(L(α))) > τ satisfies
max(0, ε_α(r(α))) >= max(0, ε_α(L(α))) > τ >= min_β max(0, ε_β(r(β))), so it
is not where the minimum of the true curve is attained, and
ε = min over the remaining orders of max(0, ε_α(r(α))). The orders attaining τ
always remain (L <= U). So the accountant may compute the exact finite worst
case at the remaining orders only: its ε is the one it would compute at every
order, and an upper bound U (the plateau, which bounds every n_syn, docs/theory.md §3;
post-processing) stands at the others.

Lemma (lower bounds from a few orders; proved)
----------------------------------------------
For one pair (P, Q), K(α) = (α − 1)·D_α(P‖Q) = log E_Q[(dP/dQ)^α] is a cumulant
generating function, convex in α (Hölder's inequality), and D_α is
non-decreasing in α (van Erven and Harremoës 2014, Theorem 3). Given
K at orders β_1 < … < β_m, known to within [K⁻_i, K⁺_i]:

* α >= β_i: D_α >= D_{β_i} (monotone);
* α > β_{i+1}: a convex function lies above the extension of each chord, so
  K(α) >= K(β_{i+1}) + (α − β_{i+1})·(K(β_{i+1}) − K(β_i))/(β_{i+1} − β_i)
  = (1 + r)·K(β_{i+1}) − r·K(β_i), r = (α − β_{i+1})/(β_{i+1} − β_i) > 0,
  increasing in K(β_{i+1}) and decreasing in K(β_i): (1 + r)·K⁻_{i+1} − r·K⁺_i
  is a lower bound;
* α < β_i: likewise (1 + r)·K⁻_i − r·K⁺_{i+1}, r = (β_i − α)/(β_{i+1} − β_i).

The divergence of any adjacent pair is a lower bound on the worst case, so
these bounds, computed from one pair evaluated at a few orders, bound the
worst-case curve from below at every order.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from synthamp.accountant._rdp_conversion import _epsilon_terms

__all__: list[str] = []


def lower_curve(
    orders: NDArray[np.float64],
    known_orders: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Lower bound on D_α at ``orders`` from one pair's values at ``known_orders``.

    ``known_orders`` sorted and distinct; the pair's D there lies in
    [``lower``, ``upper``] (value ∓ error). Module docstring, second lemma.
    """
    alpha = np.asarray(orders, dtype=float)[:, None]
    beta = np.asarray(known_orders, dtype=float)
    k_lo = (beta - 1.0) * np.maximum(lower, 0.0)
    k_hi = (beta - 1.0) * np.maximum(upper, lower)
    # monotone in α: D_α >= D_β for β <= α
    bound = np.max(np.where(beta[None, :] <= alpha, np.maximum(lower, 0.0), 0.0), axis=1)
    if beta.size >= 2:
        b0, b1 = beta[:-1], beta[1:]
        step = b1 - b0
        with np.errstate(invalid="ignore", divide="ignore"):
            r_up = (alpha - b1) / step  # α beyond the chord, to the right
            above = np.where(r_up > 0, (1.0 + r_up) * k_lo[1:] - r_up * k_hi[:-1], -np.inf)
            r_down = (b0 - alpha) / step  # α before the chord, to the left
            below = np.where(r_down > 0, (1.0 + r_down) * k_lo[:-1] - r_down * k_hi[1:], -np.inf)
            chords = np.max(np.maximum(above, below), axis=1) / (alpha[:, 0] - 1.0)
        bound = np.maximum(bound, np.where(np.isfinite(chords), chords, 0.0))
    return bound


def relevant_orders(
    orders: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
    delta: float,
) -> NDArray[np.bool_]:
    """The orders that can give ε for a curve between ``lower`` and ``upper`` (first lemma)."""
    eps_lower = np.maximum(_epsilon_terms(orders, np.minimum(lower, upper), delta), 0.0)
    eps_upper = np.maximum(_epsilon_terms(orders, upper, delta), 0.0)
    return eps_lower <= np.min(eps_upper)
