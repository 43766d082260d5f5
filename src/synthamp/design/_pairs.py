"""Concrete adjacent datasets on a public design: a proven lower bound beside the accounting.

A design release (docs/theory.md §19) is accounted with an exact or certified curve: for k = 1 the
Gram adjacency's exact worst case (docs/gram-adjacency.md), for k = 2 the norm model's
Theorem 5.4 with post-processing, since no k = 2 worst case over the reachable Gram set S₂
is proven (:mod:`synthamp.accountant._gram_adjacency_k2`). How much could a proof still
gain? Two numbers answer it, computed here at the release's σ:

* a **lower bound on the mechanism**: the exact Rényi divergence (value − error) of
  concrete adjacent datasets Y, Y′ (rows ‖yⱼ‖ <= B, differing in one record) on this
  design: S_v = YᵀGY, S_w = Y′ᵀGY′ with the public G = MᵀM. Every such pair is a pair
  of the mechanism, so its value is at most the mechanism's worst case: kind certified,
  direction lower. The mechanism is the unlimited release the guarantee covers (the
  divergence of n_syn records rises to it as n_syn → ∞, docs/theory.md §3): no
  accounting of it, proven or not, can go below this value.
* for k = 2, the **searched worst case over S₂** (:func:`synthamp.accountant.search_gram_set_k2`):
  what a proof of the Gram-level worst case would give if the search found the worst;
  heuristic, never used.

The datasets (:func:`adjacent_design_pairs`): for a few records i (those of the largest
s₂ term, of the largest Gᵢᵢ), a background y_{−i} = t·B·b with b = sign(G_{i,−i}) or
G_{i,−i}/max|G_{i,−i}| and t on a grid in [0, 1]; for k = 1, the changed record goes from
the minimiser of ‖v‖² (clipped to [−B, B]), 0 or −B·sign u to B·sign u (u = Σ_{j≠i}Gᵢⱼyⱼ);
for k = 2 the same along e₁, plus records turned in R² (yᵢ = B e₁ → B(cos θ, sin θ)) and
swapped across the background (B e₂ → −B e₂): changes that move S_v but not its trace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import TimeBudgetExceeded, check_budget, report_status, time_budget
from synthamp._kinds import Kind
from synthamp._parameters import at_most, validated_one
from synthamp._validation import InputError
from synthamp.accountant import SyntheticDataRelease, rdp_curve, search_gram_set_k2
from synthamp.accountant._k2_search import _raise_by_pairs
from synthamp.design._designs import DesignBounds, gram_sensitivity_terms
from synthamp.design._orthogonal import OrthogonalBounds
from synthamp.divergence._plateau import plateau_scaled
from synthamp.divergence._wishart import MAX_DIM_K2, MAX_TRACE_K2

__all__ = [
    "DesignPairComparison",
    "adjacent_design_pairs",
    "compare_design_accounting",
    "comparison_orders",
]

#: Seconds the comparison may take (beyond it: what it verified, and its note says so).
COMPARISON_TIME_BUDGET = 30.0
#: Background scales t tried per record and direction.
BACKGROUND_STEPS = 11
#: Pairs of each kind (aligned: the k = 1 engine; turned: the k = 2 engine) evaluated
#: exactly, the most promising by :func:`_gaussian_proxy`.
EVALUATED_PAIRS = 24
#: Angles (radians) of the turned record, k = 2.
TURNS = (math.pi / 4, math.pi / 2, 3 * math.pi / 4)


_E11 = np.array([[1.0, 0.0], [0.0, 0.0]])


def _records(gram: NDArray[np.float64], count: int = 2) -> list[int]:
    """The records of the largest s₂ terms and of the largest Gᵢᵢ (module docstring)."""
    picked = list(np.argsort(-gram_sensitivity_terms(gram))[:count])
    picked += list(np.argsort(-np.diag(gram))[:count])
    return list(dict.fromkeys(int(i) for i in picked))


def _backgrounds(gram: NDArray[np.float64], i: int, label_bound: float):
    """The backgrounds y_{−i} (m-vectors with yᵢ = 0): t·B·direction for both directions
    and t on the grid."""
    row = gram[i].copy()
    row[i] = 0.0
    top = np.abs(row).max()
    directions = [np.sign(row)] + ([row / top] if top > 0 else [])
    for direction in directions:
        for t in np.linspace(0.0, 1.0, BACKGROUND_STEPS):
            yield t * label_bound * direction


def _changes(gram: NDArray[np.float64], label_bound: float, out_dim: int):
    """(i, background y_{−i} (m × k, row i zero), yᵢ, yᵢ′) of every dataset pair."""
    b = label_bound
    e1 = np.eye(out_dim)[0]
    for i in _records(gram):
        gii = float(gram[i, i])
        for y in _backgrounds(gram, i, b):
            u = float(gram[i] @ y)  # Σ_{j≠i} Gᵢⱼ yⱼ (yᵢ = 0 here)
            up = b if u >= 0 else -b
            low = float(np.clip(-u / gii, -b, b)) if gii > 0 else -up
            # along e₁: ‖v‖² = Q + 2xu + Gᵢᵢx² in the changed value x
            changes = [(low * e1, up * e1), (0 * e1, up * e1), (-up * e1, up * e1)]
            if out_dim == 2:
                turned = [b * np.array([math.cos(a), math.sin(a)]) for a in TURNS]
                changes += [(low * e1, t) for t in turned] + [(b * e1, t) for t in turned]
                changes += [(b * np.array([0.0, 1.0]), -b * np.array([0.0, 1.0]))]
            background = np.outer(y, e1)
            for x, x2 in changes:
                yield i, background, x, x2
                yield i, background, x2, x


def adjacent_design_datasets(gram: ArrayLike, label_bound: float, out_dim: int):
    """The adjacent datasets (Y, Y′) (m × k) behind :func:`adjacent_design_pairs`, in its
    order (for tests and small m: each is a dense m × k pair)."""
    g = np.asarray(gram, dtype=float)
    for i, background, x, x2 in _changes(g, label_bound, out_dim):
        y, y2 = background.copy(), background.copy()
        y[i], y2[i] = x, x2
        yield y, y2


def adjacent_design_pairs(
    gram: ArrayLike, label_bound: float, out_dim: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Gram matrices (S_v, S_w) = (YᵀGY, Y′ᵀGY′) of concrete adjacent datasets on a design.

    Parameters
    ----------
    gram : array_like
        G = MᵀM (m × m), public (``DesignBounds.gram``).
    label_bound : float
        B: every row of Y and Y′ has ‖yⱼ‖ <= B.
    out_dim : {1, 2}
        k.

    Returns
    -------
    (S_v, S_w) : ndarray
        Shape (n,) for k = 1 (‖v‖², ‖w‖²), (n, 2, 2) for k = 2; every pair is realised by
        datasets differing in one record (:func:`adjacent_design_datasets`, module docstring).
    """
    g = np.asarray(gram, dtype=float)
    b = validated_one("label_bound", label_bound)
    k = at_most("out_dim", validated_one("out_dim", out_dim), 2)
    sv, sw = [], []
    last = None
    for i, background, x, x2 in _changes(g, b, k):
        # S(x) = BᵀGB + u xᵀ + x uᵀ + Gᵢᵢ x xᵀ with u = BᵀG eᵢ (row i of B is 0); the
        # O(m²) products once per background (the changes of one background follow it)
        if background is not last:
            last, base, u = background, background.T @ g @ background, background.T @ g[:, i]
        for row, out in ((x, sv), (x2, sw)):
            out.append(base + np.outer(u, row) + np.outer(row, u) + g[i, i] * np.outer(row, row))
    s_v, s_w = np.array(sv), np.array(sw)
    return (s_v[:, 0, 0], s_w[:, 0, 0]) if k == 1 else (s_v, s_w)


@dataclass(frozen=True)
class DesignPairComparison:
    """The accounting of a design release beside what concrete pairs reach.

    Attributes
    ----------
    alpha : ndarray
        Rényi orders compared.
    certified : ndarray
        RDP (nats) of the accounted release at ``alpha`` (its worst case over the adjacency
        used): an upper bound, of kind ``certified_kind``.
    certified_label : str
        Which accounting that is.
    certified_kind : Kind
        ``exact`` (k = 1, the worst case computed) or ``certified`` (k = 2, Theorem 5.4).
    lower : ndarray
        max(D_α − error, 0) of the best concrete adjacent datasets on the design: a proven
        lower bound on the mechanism's worst case (kind certified, direction lower).
    searched : ndarray or None
        k = 2: the best pair of the reachable Gram set S₂ found (heuristic, never used).
    complete : bool
        False when the time budget stopped the work (the lower bound still holds).
    note : str
        What the numbers are, in one paragraph.
    lower_kind : Kind
        ``certified`` (a proven lower bound; never used in a guarantee).
    """

    alpha: NDArray[np.float64]
    certified: NDArray[np.float64]
    certified_label: str
    lower: NDArray[np.float64]
    searched: NDArray[np.float64] | None
    complete: bool
    note: str
    certified_kind: Kind = Kind.CERTIFIED
    lower_kind: Kind = Kind.CERTIFIED

    def lines(self) -> list[str]:
        """One line per order: certified, searched (k = 2) and the lower bound."""
        out = []
        for j, a in enumerate(self.alpha):
            line = (
                f"α = {a:.3g}: accounted {self.certified[j]:.4g} ({self.certified_kind}, "
                f"{self.certified_label}); "
            )
            if self.searched is not None:
                line += f"the reachable Gram pairs searched {self.searched[j]:.4g} (heuristic); "
            line += (
                f"concrete datasets on this design {self.lower[j]:.4g} (a lower bound), "
                f"{self.lower_kind}"
            )
            out.append(line)
        j = self.alpha.size // 2  # the guarantee's optimal order (comparison_orders)
        if self.lower[j] > 0:
            out.append(
                f"at α = {self.alpha[j]:.3g} the accounted curve is "
                f"{self.certified[j] / self.lower[j]:.3g}× what concrete datasets reach: a "
                "sharper accounting could lower it by at most that factor"
            )
        return out

    def sentence(self) -> str:
        """The comparison at the middle order (the guarantee's optimal one), in one sentence."""
        j = self.alpha.size // 2
        text = (
            f"Beside the accounting ({self.certified_kind} Rényi divergence at "
            f"α = {self.alpha[j]:.3g}: {self.certified[j]:.4g}), concrete adjacent datasets on "
            f"this design reach {self.lower[j]:.4g} (a lower bound, {self.lower_kind}"
        )
        if self.lower[j] > 0:
            text += f"; the accounted curve is {self.certified[j] / self.lower[j]:.3g}× it"
        text += ")"
        if self.searched is not None:
            text += (
                f", the reachable Gram pairs searched {self.searched[j]:.4g} (heuristic: no "
                "k = 2 Gram-level worst case is proven)"
            )
        return text + "."

    def to_dict(self) -> dict:
        """JSON-ready: orders, the three curves, their kinds and the note."""
        return {
            "alpha": self.alpha.tolist(),
            "certified": self.certified.tolist(),
            "certified_accounting": self.certified_label,
            "certified_kind": str(self.certified_kind),
            "lower_bound": self.lower.tolist(),
            "lower_bound_kind": f"{self.lower_kind} lower bound (concrete adjacent datasets)",
            "searched_gram_set": None if self.searched is None else self.searched.tolist(),
            "searched_gram_set_kind": None if self.searched is None else "heuristic",
            "complete": self.complete,
            "note": self.note,
            "sentence": self.sentence(),
        }


def _gaussian_proxy(s_v, s_w, dim: int, sigma: float) -> NDArray[np.float64]:
    """A ranking score only: Σᵢⱼ (ΔΩᵢⱼ)²/Var(Sᵢⱼ), the divergence per order of the Gaussian
    approximations of the two Wishart laws at large d (Var S₁₁ ≈ 2d + 4Ω₁₁, Var S₁₂ ≈ d +
    Ω₁₁ + Ω₂₂). Never a privacy number: it picks which pairs the exact engines evaluate."""
    change = (s_w - s_v) / sigma**2
    mean = (s_v + s_w) / (2 * sigma**2)
    var_11, var_22 = 2 * dim + 4 * mean[:, 0, 0], 2 * dim + 4 * mean[:, 1, 1]
    var_12 = dim + mean[:, 0, 0] + mean[:, 1, 1]
    return (
        change[:, 0, 0] ** 2 / var_11 + change[:, 1, 1] ** 2 / var_22
        + 2 * change[:, 0, 1] ** 2 / var_12
    )  # fmt: skip


def _most_promising(score: NDArray[np.float64], mask: NDArray[np.bool_]) -> NDArray[np.intp]:
    """Indices of up to :data:`EVALUATED_PAIRS` pairs in ``mask`` with the largest score."""
    index = np.flatnonzero(mask & (score > 0))
    return index[np.argsort(-score[index], kind="stable")[:EVALUATED_PAIRS]]


def _lower_k1(alpha, dim, sigma, s_v, s_w) -> NDArray[np.float64]:
    """max over the pairs of the exact k = 1 value − error (the k = 1 engine)."""
    best = np.zeros(alpha.size)
    for lv, lw in zip(s_v, s_w, strict=True):
        check_budget()
        a, b = math.sqrt(max(lv, 0.0)) / sigma, math.sqrt(max(lw, 0.0)) / sigma
        if a == b or max(a, b) > 1e3:  # equal: no divergence; beyond the engine's domain
            continue
        value, error = plateau_scaled(alpha, dim, a, b)
        best = np.maximum(best, np.where(np.isfinite(error), value - error, 0.0))
    return best


def _aligned(s_v: NDArray[np.float64], s_w: NDArray[np.float64]) -> NDArray[np.bool_]:
    """k = 2 pairs with both Gram matrices on e₁e₁ᵀ: a k = 1 pair of the full width."""
    rest = np.abs(s_v[:, 0, 1]) + np.abs(s_v[:, 1, 1]) + np.abs(s_w[:, 0, 1])
    return rest + np.abs(s_w[:, 1, 1]) == 0


def comparison_orders(optimal_order: float | None) -> NDArray[np.float64]:
    """The orders a design release compares: 2, the guarantee's optimal order and twice
    it (8 and 16 when the guarantee has none), at most 64 (the k = 2 engine's range)."""
    centre = 8.0 if optimal_order is None else float(optimal_order)
    return np.unique(np.clip([2.0, centre, 2.0 * centre], 1.5, 64.0))


def compare_design_accounting(
    release: SyntheticDataRelease,
    bounds: DesignBounds | OrthogonalBounds,
    label_bound: float,
    alpha: ArrayLike,
    *,
    starts: int = 8,
    seconds: float | None = COMPARISON_TIME_BUDGET,
) -> DesignPairComparison:
    """The accounted curve of a design release beside concrete pairs (module docstring).

    Parameters
    ----------
    release : SyntheticDataRelease
        The accounted unlimited release (k = 1 or 2) on the design.
    bounds : DesignBounds or OrthogonalBounds
        The design's bounds and its public G = MᵀM (an orthogonal design's: g·I₁, every
        record alike, :class:`synthamp.design._orthogonal.OrthogonalBounds`).
    label_bound : float
        B.
    alpha : float or sequence of float
        Orders to compare (≤ 64 for the k = 2 engine).
    starts : int, default 8
        Candidate pairs of the k = 2 search over S₂.
    seconds : float or None
        Time budget (:data:`COMPARISON_TIME_BUDGET`); past it what was verified stands,
        and the note says so.

    Returns
    -------
    DesignPairComparison
    """
    alpha = validated_one("alpha", alpha)
    k, d, sigma = release.out_dim, release.dim, release.sigma
    if k > 2:
        raise InputError("out_dim", "concrete pairs are evaluated for k = 1 and k = 2")
    if k == 2 and d > MAX_DIM_K2:
        raise InputError("dim", f"the k = 2 engine reaches d <= {MAX_DIM_K2:,}")
    curve = rdp_curve(release, alpha)
    certified = np.asarray(curve.rdp)
    if release.gram_sensitivity is not None:
        label = "the Gram adjacency's worst case"
    else:
        label = "the norm model" + ("" if k == 1 else ", Theorem 5.4 with post-processing")
    s_v, s_w = adjacent_design_pairs(bounds.gram, label_bound, k)
    if k == 1:  # as 2 × 2 matrices on e₁e₁ᵀ
        s_v, s_w = s_v[:, None, None] * _E11, s_w[:, None, None] * _E11
    aligned = _aligned(s_v, s_w)
    score = _gaussian_proxy(s_v, s_w, d, sigma)
    one, two = _most_promising(score, aligned), _most_promising(score, ~aligned)
    lower, searched, complete = np.zeros(alpha.size), None, True
    report_status("concrete adjacent datasets on the design: exact divergences")
    with time_budget(seconds):
        try:
            lower = _lower_k1(alpha, d, sigma, s_v[one, 0, 0], s_w[one, 0, 0])
        except TimeBudgetExceeded:
            complete = False
        if two.size and complete:
            scaled = [
                (s_v[j] / sigma**2, s_w[j] / sigma**2)
                for j in two
                if max(np.trace(s_v[j]), np.trace(s_w[j])) / sigma**2 <= MAX_TRACE_K2
            ]
            omega = np.zeros((alpha.size, 2, 2))
            complete = _raise_by_pairs(alpha, d, scaled, lower, omega, omega.copy())[3]
        if k == 2 and complete:
            found = search_gram_set_k2(
                alpha, d, release.norm_bound, release.sensitivity, bounds.gram_sensitivity,
                sigma, starts=starts,
            )  # fmt: skip
            searched, complete = np.asarray(found.value), found.complete
    note = (
        "Accounted: the release's RDP curve under its adjacency, exact or certified as "
        "labelled (an upper bound). Lower bound: the exact "
        "divergence, minus its error, of concrete adjacent datasets on this public design, "
        "for the unlimited release the guarantee covers; no accounting of it can go below it."
    )
    if searched is not None:
        note += (
            " Searched: the best pair of the reachable set of 2 × 2 Gram pairs found; the "
            "worst case over that set is not proven for k = 2, so it is a heuristic, never used."
        )
    if not complete:
        note += " The time budget stopped the work; the lower bound stands."
    return DesignPairComparison(
        alpha=alpha,
        certified=certified,
        certified_label=label,
        certified_kind=Kind(curve.kind),
        lower=lower,
        searched=searched,
        complete=complete,
        note=note,
    )
