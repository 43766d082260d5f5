"""Statistic-level adjacency: the reachable set of Gram pairs (docs/theory.md §19).

For k = 1 the unlimited release (the plateau, Proposition 4.2) depends on the
model v only through λ_v = ‖v‖²: ‖V‖²/σ² ~ χ²_d(λ_v/σ²) (docs/theory.md §3, §4).
When the design is public (docs/theory.md §19), the adjacent models v, w of a
replace-one change satisfy, beside ‖v‖, ‖w‖ <= C and ‖v − w‖ <= Δ, the bound
|‖v‖² − ‖w‖²| <= s₂ (``gram_sensitivity``), so the adjacency of the statistic is

    S_G = {(λ_v, λ_w) : 0 <= λ <= C², |λ_v − λ_w| <= s₂, |√λ_v − √λ_w| <= Δ}.

In scaled units a = ‖v‖/σ, b = ‖w‖/σ, c = C/σ, s = Δ/σ, q = s₂/σ², P_a = χ²_d(a²):
S_G = {a, b ∈ [0, c], |a − b| <= s, |a² − b²| <= q}, a subset of the norm
model's set S = {a, b ∈ [0, c], |a − b| <= s} (``_worst_case``).

Theorem (reduction to a norm model; proved)
-------------------------------------------
Let C′ = min(C, (s₂ + Δ²)/(2Δ)) if s₂ >= Δ², and C′ = min(C, √s₂) otherwise
(:func:`gram_norm_bound`). Every pair of S_G is dominated (in the Blackwell
order: some Markov kernel maps it onto the pair) by a pair of the norm model
S′ = {a, b ∈ [0, C′/σ], |a − b| <= Δ/σ}, and S′ ⊆ S_G. Hence the worst case of
every divergence that obeys data processing (Rényi of every order, the
hockey-stick divergence, i.e. the privacy profile, and the trade-off
function, so the PLD and T-fold composition of the same pair too) over S_G
equals its worst case over the norm model with norm bound C′, which the
existing exact engine and its guarded edge search compute
(:func:`synthamp.accountant.worst_case_rdp`, ``_profile._WorstCase``).

*Proof.* Write a* = C′/σ for the corner and take (a, b) ∈ S_G with a >= b
(the case a < b is the mirror image).

(1) Monotone likelihood ratio. {P_a} is MLR in a (``_worst_case``, step 1),
so with b fixed, raising a (away from b) never decreases the divergence
(``_worst_case``, step 2: Neyman–Pearson threshold tests, Blackwell 1953).
Raise a to ψ(b) = min(c, b + s, √(b² + q)), the largest a with (a, b) ∈ S_G:
the pair (ψ(b), b) dominates (a, b). The set {(ψ(t), t) : 0 <= t <= c} is the
forward edge of S_G.

(2) The hyperbolic part is a post-processing of its start. For δ > 0 let W be
independent of X with the law χ²_0(δ) = Σ_j Pois(j; δ/2)·χ²_{2j} (Siegel's
noncentral χ² with zero degrees of freedom). χ²_d(λ) is the Poisson mixture
Σ_j Pois(j; λ/2)·χ²_{d+2j}; Poisson counts add and χ² degrees of freedom add,
so X + W ~ χ²_d(λ + δ) for every λ >= 0. The one kernel x ↦ x + W therefore
maps the pair (χ²_d(τ + q), χ²_d(τ)) onto (χ²_d(τ + δ + q), χ²_d(τ + δ)), and
by data processing every divergence of the pair λ_w = τ, λ_v = τ + q is
non-increasing in τ (likewise for the reverse pair).

(3) Where ψ(t) = √(t² + q) (the constraint a² − b² <= q binds, t >= t* with
t* = max(0, (q − s²)/(2s))), the edge point is λ_w = t², λ_v = t² + q, which by
(2) is dominated by the point at t*; where ψ(t) = c (the cap), the pair (c, t)
is dominated by (c, t_c), t_c the start of the cap, by (1) (moving b towards a
lowers the divergence), and (c, t_c) is on one of the other two parts. So
every pair of S_G is dominated by a pair (ψ(t), t) with t <= t*, where
ψ(t) − t <= s and ψ(t) <= a*: a pair of S′. If q >= s², ψ(t) = min(c, t + s) there
and a* = min(c, t* + s), t* + s = (q + s²)/(2s) the corner where the two
constraints meet; if q < s², t* = 0 and the edge starts at ψ(0) = min(c, √q) = a* <= s.

(4) S′ ⊆ S_G: for a >= b in S′, a² − b² = (a − b)(a + b) with g = a − b <= min(s, a)
is at most g(2a − g), increasing in g, so at most s(2a* − s) = q when q >= s²
(and a* > s), and at most a*² <= q when q < s². So sup over S_G = sup over S′. ∎

In natural units the corner is independent of σ, so one norm model serves
every σ (calibration included). The theorem is for the unlimited release: for
n_syn records the released statistic is Y·X (X ~ χ²_{n_syn}), which step (2)
does not reach; a finite release is bounded by the unlimited one (docs/theory.md
§3), so :class:`SyntheticDataRelease` accepts ``gram_sensitivity`` for
``n_syn=None`` only.

Public functions here validate and call the kernel
``_releases._gram_norm_bound``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp.accountant._releases import _gram_norm_bound

__all__ = ["gram_norm_bound", "in_gram_adjacency"]


@privacy_quantity("certified")
def gram_norm_bound(norm_bound: float, sensitivity: float, gram_sensitivity: float) -> float:
    """The norm bound C′ whose norm model has the worst case of the Gram adjacency.

    C′ = min(C, (s₂ + Δ²)/(2Δ)) if s₂ >= Δ², else min(C, √s₂) (module
    docstring, the theorem; docs/gram-adjacency.md). Accounting a k = 1
    unlimited release with (C′, Δ) is exact for the reachable set of Gram
    pairs {(λ_v, λ_w): 0 <= λ <= C², |λ_v − λ_w| <= s₂, |√λ_v − √λ_w| <= Δ}.

    Parameters
    ----------
    norm_bound : float
        C > 0, bound on ‖v‖.
    sensitivity : float
        Δ > 0, bound on ‖v − w‖.
    gram_sensitivity : float
        s₂ > 0, bound on |‖v‖² − ‖w‖²|.

    Returns
    -------
    float
        C′ <= C.

    Examples
    --------
    >>> gram_norm_bound(5.0, 0.5, 1.0)  # (1 + 0.25)/(2·0.5)
    1.25
    >>> gram_norm_bound(5.0, 0.5, 0.04)  # s₂ < Δ²: √s₂
    0.2
    """
    return _gram_norm_bound(
        validated_one("norm_bound", norm_bound),
        validated_one("sensitivity", sensitivity),
        validated_one("gram_sensitivity", gram_sensitivity),
    )


def in_gram_adjacency(
    lambda_v: ArrayLike,
    lambda_w: ArrayLike,
    norm_bound: float,
    sensitivity: float,
    gram_sensitivity: float,
    *,
    rtol: float = 1e-9,
) -> NDArray[np.bool_]:
    """Whether pairs (λ_v, λ_w) = (‖v‖², ‖w‖²) lie in the reachable set of Gram pairs.

    0 <= λ <= C², |λ_v − λ_w| <= s₂ and |√λ_v − √λ_w| <= Δ, each up to a
    relative ``rtol`` (floating-point rounding of realised pairs).

    Parameters
    ----------
    lambda_v, lambda_w : array_like
        Squared norms of adjacent models.
    norm_bound, sensitivity, gram_sensitivity : float
        C, Δ, s₂.
    rtol : float, default 1e-9

    Returns
    -------
    ndarray of bool
    """
    c, s, s2, rtol = validated(
        norm_bound=norm_bound, sensitivity=sensitivity, gram_sensitivity=gram_sensitivity, rtol=rtol
    )
    lv = np.asarray(lambda_v, dtype=float)
    lw = np.asarray(lambda_w, dtype=float)
    slack = 1.0 + rtol
    return (
        (lv >= 0)
        & (lw >= 0)
        & (np.maximum(lv, lw) <= c * c * slack)
        & (np.abs(lv - lw) <= s2 * slack)
        & (np.abs(np.sqrt(lv) - np.sqrt(lw)) <= s * slack)
    )
