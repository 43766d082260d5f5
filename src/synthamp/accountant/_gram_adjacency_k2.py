"""Statistic-level adjacency for two target columns: the reachable set of 2 × 2 Gram pairs.

For k = 2 the unlimited release depends on the model v (d × 2) only through the Gram
matrix S_v = vᵀv (VᵀV is noncentral Wishart W₂(d, σ²I, S_v/σ²); docs/theory.md §8, §15).
On a public design (docs/theory.md §19; v = M Y, G = MᵀM, rows ‖yⱼ‖ <= B) the adjacent
models v = MY, w = MY′ of a replace-one change of record i satisfy

    S₂ = {(S_v, S_w) : S ⪰ 0, tr S <= C², BW(S_v, S_w) <= Δ,
          ‖S_w − S_v‖_op <= s₂, |tr(S_w − S_v)| <= s₂},

with C, Δ and s₂ the design's bounds (``synthamp.design._designs.design_bounds``; s₂ the
same number as for k = 1) and BW the Bures–Wasserstein distance.

*Proof that every realised pair lies in S₂.* (i) tr S_v = ‖MY‖²_F <= C² by the bound on C
(its two estimates hold for ‖·‖_F with ‖yⱼ‖ <= B). (ii) BW(S_v, S_w) is the least
‖v − wQ‖_F over orthogonal Q, so at most ‖v − w‖_F = ‖M eᵢ‖·‖yᵢ − yᵢ′‖ <= 2B√Gᵢᵢ <= Δ.
(iii) For a unit e ∈ R², eᵀ(S_w − S_v)e = ‖MY′e‖² − ‖MYe‖² is the change of ‖v‖² for the
one-column datasets Ye, Y′e, adjacent and bounded by |yⱼᵀe| <= B, so at most s₂ in absolute
value (the k = 1 supremum): ‖S_w − S_v‖_op <= s₂. (iv) tr(S_w − S_v) = Gᵢᵢ(‖yᵢ′‖² − ‖yᵢ‖²)
+ 2(yᵢ′ − yᵢ)ᵀu with u = Σ_{j≠i} Gᵢⱼyⱼ, ‖u‖ <= B rᵢ; Gᵢᵢ‖y′‖² + 2y′ᵀu <= GᵢᵢB² + 2B‖u‖, and
−Gᵢᵢ‖y‖² − 2yᵀu <= max_{0<=ρ<=B}(2ρ‖u‖ − Gᵢᵢρ²) (y = −ρu/‖u‖): the k = 1 problem at
|Sᵢ| = ‖u‖, whose supremum over ‖u‖ <= B rᵢ is s₂ (by symmetry for −tr too). ∎
(``tests/accountant/test_gram_adjacency_k2.py`` checks it by brute force over datasets.)

**What is, and is not, proven.** The k = 1 reduction (:mod:`._gram_adjacency`) rests on a
monotone likelihood ratio in the scalar ‖v‖², which 2 × 2 Gram matrices do not have, and
even the norm model's k = 2 worst case is unproven (it is falsified beyond Δ/C ≈ 0.7;
docs/findings-k2.md). So no certified accounting over S₂ exists: a k = 2 release on a
design keeps the norm model's certified curve (Theorem 5.4 with post-processing,
docs/theory.md §10). What S₂ gives is :func:`search_gram_set_k2`: the exact value of the
best pair of S₂ found by a search, a **heuristic** for the worst case over S₂ (a longer
search can only raise it; S₂ is an envelope of the design's pairs, so it bounds nothing
about the mechanism). A proven lower bound on the mechanism itself comes from concrete
adjacent datasets on the design (``synthamp.design._pairs``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import at_most, validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._k2_search import PairSearch, _check_search, _search
from synthamp.accountant._releases import _gram_norm_bound
from synthamp.accountant._worst_case import _worst_case_result
from synthamp.divergence._wishart import MAX_DIM_K2

__all__ = ["bures_wasserstein_2x2", "in_gram_adjacency_k2", "search_gram_set_k2"]


def bures_wasserstein_2x2(gram_v: ArrayLike, gram_w: ArrayLike) -> NDArray[np.float64]:
    """The Bures–Wasserstein distance of 2 × 2 PSD matrices (broadcasts over (..., 2, 2)).

    BW(A, B)² = tr A + tr B − 2 tr (A^{1/2} B A^{1/2})^{1/2}, and for a 2 × 2 PSD P,
    tr P^{1/2} = √(tr P + 2√det P), so tr (A^{1/2}BA^{1/2})^{1/2} = √(tr AB + 2√(det A det B)).
    BW(vᵀv, wᵀw) is the least ‖v − wQ‖_F over orthogonal Q.
    """
    a = np.asarray(gram_v, dtype=float)
    b = np.asarray(gram_w, dtype=float)
    tr_ab = np.einsum("...ij,...ji->...", a, b)
    dets = np.clip(np.linalg.det(a), 0, None) * np.clip(np.linalg.det(b), 0, None)
    cross = np.sqrt(np.clip(tr_ab + 2 * np.sqrt(dets), 0, None))
    squared = np.trace(a, axis1=-2, axis2=-1) + np.trace(b, axis1=-2, axis2=-1) - 2 * cross
    return np.sqrt(np.clip(squared, 0, None))


def in_gram_adjacency_k2(
    gram_v: ArrayLike,
    gram_w: ArrayLike,
    norm_bound: float,
    sensitivity: float,
    gram_sensitivity: float,
    *,
    rtol: float = 1e-9,
) -> NDArray[np.bool_]:
    """Whether pairs of 2 × 2 Gram matrices (vᵀv, wᵀw) lie in the reachable set S₂.

    tr S <= C², BW(S_v, S_w) <= Δ, ‖S_w − S_v‖_op <= s₂ and |tr(S_w − S_v)| <= s₂ (module
    docstring), each up to a relative ``rtol``, and both PSD up to rounding.

    Parameters
    ----------
    gram_v, gram_w : array_like, shape (..., 2, 2)
        Gram matrices of adjacent models (natural units).
    norm_bound, sensitivity, gram_sensitivity : float
        C, Δ, s₂ of the design.
    rtol : float, default 1e-9

    Returns
    -------
    ndarray of bool, shape (...)
    """
    c, s, s2, rtol = validated(
        norm_bound=norm_bound, sensitivity=sensitivity, gram_sensitivity=gram_sensitivity, rtol=rtol
    )
    a = np.asarray(gram_v, dtype=float)
    b = np.asarray(gram_w, dtype=float)
    if a.shape[-2:] != (2, 2) or b.shape[-2:] != (2, 2):
        raise InputError("gram", f"must be 2 × 2 matrices, got {a.shape} and {b.shape}")
    slack = 1.0 + rtol
    scale = np.maximum(np.trace(a, axis1=-2, axis2=-1), np.trace(b, axis1=-2, axis2=-1))
    psd = (np.linalg.eigvalsh(a)[..., 0] >= -rtol * scale) & (
        np.linalg.eigvalsh(b)[..., 0] >= -rtol * scale
    )
    change = b - a
    return (
        psd
        & (scale <= c * c * slack)
        & (bures_wasserstein_2x2(a, b) <= s * slack + rtol * np.sqrt(scale))
        & (np.abs(np.linalg.eigvalsh(change)).max(axis=-1) <= s2 * slack)
        & (np.abs(np.trace(change, axis1=-2, axis2=-1)) <= s2 * slack)
    )


def _opposite_starts(c: float, s: float, q: float) -> list[np.ndarray]:
    """Pairs of S₂ whose Gram change has eigenvalues (q, −q): Ω_v = diag(x, x + q),
    Ω_w = diag(x + q, x) (both orders), with x the least level at which their
    Bures–Wasserstein distance √2·(√(x + q) − √x) is s (x = 0 if q <= s²/2), and twice it;
    scaled into tr Ω <= c². A change of Frobenius norm √2·q, which no aligned pair has."""
    root = max(0.0, (q - s * s / 2) / (s * math.sqrt(2)))
    out = []
    for x in (root * root, 2 * root * root):
        scale = min(1.0, c * c / (2 * x + q))
        lo, hi = math.sqrt(scale * x), math.sqrt(scale * (x + q))
        m_v, m_w = np.diag([lo, hi]), np.diag([hi, lo])
        out += [np.concatenate([m_v.ravel(), (m_w - m_v).ravel()])]
        out += [np.concatenate([m_w.ravel(), (m_v - m_w).ravel()])]
    return out


@privacy_quantity("heuristic")
def search_gram_set_k2(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    gram_sensitivity: float,
    sigma: float = 1.0,
    *,
    starts: int = 16,
    seed: int = 0,
) -> PairSearch:
    """The best pair of the reachable Gram set S₂ found by a search: a heuristic worst case.

    The search of :func:`synthamp.accountant.search_lower_bound` (docs/theory.md §15) over
    S₂ instead of the norm model: its candidate pairs are moved into S₂ (the noisy side
    towards the other until the Gram change fits s₂), and it starts from the aligned
    rank-one pairs of S₂, whose worst case is the proven k = 1 one at the corner C′
    (:func:`synthamp.accountant.gram_norm_bound`). Each value is exact (value − error)
    for its pair, so it is at most the worst case over S₂; but S₂ is an envelope of the
    design's pairs, so the value bounds nothing about the mechanism: kind **heuristic**,
    never a guarantee (module docstring).

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1 (orders above 64 keep the aligned value).
    dim : int
        Model width d, 1 <= d <= 10⁴ (the k = 2 engine's range).
    norm_bound, sensitivity, gram_sensitivity : float
        C, Δ, s₂ (docs/theory.md §19).
    sigma : float, default 1.0
    starts, seed : int
        Candidate pairs and the seed of the random ones (a research seed).

    Returns
    -------
    PairSearch
        ``kind`` heuristic; ``aligned`` is the proven k = 1 worst case of S₂.
    """
    alpha = validated_one("alpha", alpha)
    dim = at_most("dim", validated_one("dim", dim), MAX_DIM_K2)
    sigma, c, s, s2 = validated(
        sigma=sigma,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        gram_sensitivity=gram_sensitivity,
    )
    starts, seed = _check_search(starts, seed)
    corner = _gram_norm_bound(c, s, s2) / sigma
    sc, ss = c / sigma, min(s / sigma, 2 * c / sigma)
    worst = _worst_case_result(alpha, dim, corner, min(ss, corner), None, sigma)
    q = s2 / sigma**2
    found = _search(
        alpha, dim, sc, ss, sigma, starts, int(seed), worst=worst, gram_change=q,
        first=_opposite_starts(sc, ss, q),
    )  # fmt: skip
    note = found.note.replace(
        "the best adjacent pair found",
        "the best pair of the reachable Gram set S₂ found",
    ).replace(
        "a lower bound on the worst case, never a guarantee",
        "a heuristic for the worst case over S₂ (an envelope of the design's pairs: it "
        "bounds nothing about the mechanism), never a guarantee",
    )
    return dataclasses.replace(found, note=note, kind=Kind.HEURISTIC)
