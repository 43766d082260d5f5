"""Orthogonal public designs: closed-form bounds and the exact law of VᵀV at any width.

The ``orthogonal`` design has m seed rows orthonormal in R^D (D >= m): an m × D Gaussian
from the recorded public seed, orthonormalised (:func:`orthonormal_rows`). Then XXᵀ = I_m,
so the ridge model of docs/theory.md §19 is

    M = (XᵀX/m + λI)⁻¹Xᵀ/m = Xᵀ/(1 + mλ),   G = MᵀM = g·I_m,   g = (1 + mλ)⁻²,

exactly (XᵀX is the projection onto the rows' span, which contains the columns of Xᵀ).
Every bound of a design release is a closed form (:func:`orthogonal_bounds`; rᵢ = 0):

* Δ = 2B√g = 2B/(1 + mλ), the exact supremum of ‖v − w‖;
* C = B·min(√(m λ_max(G)), √(Σᵢⱼ|Gᵢⱼ|)) = B√(mg), attained (every |yᵢ| = B);
* s₂ = B²·maxᵢ (Gᵢᵢ + rᵢ)²/Gᵢᵢ = B²g, attained (yᵢ = B → 0, the other rows 0), and equal
  to the bound B²·maxᵢ(Gᵢᵢ + 4rᵢ) of docs/theory.md §19.

No m × m work at all. The floating-point margin is derived, not fixed: λ is a binary
float, so t = 1 + mλ, g = 1/t², Δ = 2B/t, s₂ = B²/t² and C² = B²m/t² are exact
rationals (:class:`fractions.Fraction`); each reported bound is the float nearest above
its exact value (checked exactly against the rational; C through the correctly rounded
square root of the rounded-up C², raised until its exact square is >= C²), so each
exceeds its exact value by at most two ulps (``rounding_bound``, computed exactly).

The release never forms the design (docs/theory.md §19, "Orthogonal public designs"):
with V = v + σN, v = MY = XᵀY/(1 + mλ) (D × k), VᵀV is noncentral Wishart
W_k(D, σ²I, vᵀv) with vᵀv = g·YᵀY, which depends neither on X nor on the records' order.
:func:`orthogonal_gram_rows` samples it as (a + σN₁)ᵀ(a + σN₁) + σ²W, a (p × k, p =
min(m, k)) with aᵀa = g·YᵀY from the thin QR of Y, N₁ standard normal p × k and W ~
W_k(D − p, I) by the Bartlett decomposition: O(mk² + k³) time and memory whatever D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError

__all__ = [
    "ORTHOGONAL",
    "OrthogonalBounds",
    "bartlett_rows",
    "check_orthogonal_width",
    "orthogonal_bounds",
    "orthogonal_gram_rows",
    "orthonormal_rows",
]

#: The name of the design.
ORTHOGONAL = "orthogonal"


def check_orthogonal_width(width: int, n_records: int) -> int:
    """D >= m: m orthonormal rows need D >= m dimensions (one line naming ``width``).

    The rule between ``width`` and the records only: ``width`` itself is validated by the
    caller (:func:`synthamp._parameters.validated`).
    """
    if width < n_records:
        raise InputError(
            "width",
            f"the orthogonal design needs D >= m = {n_records:,} (its {n_records:,} rows are "
            f"orthonormal in R^D), got {width:,}",
        )
    return width


@dataclass(frozen=True)
class OrthogonalBounds:
    """The closed-form bounds of a ridge release on an orthogonal design (module docstring).

    Each float is the float nearest above its exact value (>= it, by at most two ulps).

    Attributes
    ----------
    sensitivity : float
        Δ = 2B/(1 + mλ).
    norm_bound : float
        C = B√m/(1 + mλ).
    gram_sensitivity, gram_sensitivity_theory : float
        s₂ = B²/(1 + mλ)² (the exact supremum; docs/theory.md §19's bound is the same).
    gram_scale : float
        g = (1 + mλ)⁻²: G = g·I_m.
    rounding_bound : float
        The largest relative excess of the reported bounds over their exact values.
    route : str
        "closed-form".
    """

    sensitivity: float
    norm_bound: float
    gram_sensitivity: float
    gram_sensitivity_theory: float
    gram_scale: float
    rounding_bound: float
    route: str = "closed-form"

    @property
    def gram(self) -> NDArray[np.float64]:
        """G for one record, g·I₁: G = g·I_m has every record alike and no cross term, so
        the concrete adjacent datasets of :mod:`synthamp.design._pairs` (zero
        backgrounds here) are the same on this 1 × 1 block as on the m × m matrix."""
        return np.full((1, 1), self.gram_scale)


def _up(x: Fraction) -> float:
    """The float nearest above the exact rational ``x`` >= 0 (exact comparison)."""
    f = float(x)  # int / int: correctly rounded
    while Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _sqrt_up(x: Fraction) -> float:
    """A float >= √x (x >= 0 exact), at most two ulps above it."""
    f = math.sqrt(_up(x))  # correctly rounded square root of an upper bound
    while Fraction(f) ** 2 < x:
        f = math.nextafter(f, math.inf)
    return f


@privacy_quantity("certified")
def orthogonal_bounds(n_records: int, ridge: float, label_bound: float) -> OrthogonalBounds:
    """Δ, C and s₂ of the ridge model on an orthogonal design, in closed form.

    Parameters
    ----------
    n_records : int
        m.
    ridge : float
        λ > 0 (penalty λ‖W‖², docs/theory.md §13).
    label_bound : float
        B (rows ‖yᵢ‖ <= B).

    Returns
    -------
    OrthogonalBounds
        Upper bounds, each at most two ulps above its exact value (module docstring).
    """
    m = validated_one("n_records", n_records)
    lam = Fraction(validated_one("ridge", ridge))
    b = Fraction(validated_one("label_bound", label_bound))
    t = 1 + m * lam
    exact = {
        "sensitivity": 2 * b / t,
        "norm_bound": None,  # √(B²m/t²), below
        "gram_sensitivity": b * b / (t * t),
        "gram_scale": 1 / (t * t),
    }
    out = {key: _up(value) for key, value in exact.items() if value is not None}
    norm_squared = b * b * m / (t * t)
    out["norm_bound"] = _sqrt_up(norm_squared)
    excess = [Fraction(out[key]) / value - 1 for key, value in exact.items() if value]
    excess.append(Fraction(out["norm_bound"]) ** 2 / norm_squared - 1)  # >= the excess of C
    return OrthogonalBounds(
        sensitivity=out["sensitivity"],
        norm_bound=out["norm_bound"],
        gram_sensitivity=out["gram_sensitivity"],
        gram_sensitivity_theory=out["gram_sensitivity"],
        gram_scale=out["gram_scale"],
        rounding_bound=_up(max(excess)),
    )


def orthonormal_rows(raw: ArrayLike) -> NDArray[np.float64]:
    """The orthogonal design from its Gaussian draw: the rows of ``raw`` (m × D, D >= m)
    orthonormalised (the Q factor of rawᵀ = QR with R's diagonal made positive, i.e. the
    Gram–Schmidt orthonormalisation of the rows in their order). For tests and small
    widths only: a release never forms the design."""
    a = np.asarray(raw, dtype=float)
    m, width = a.shape
    check_orthogonal_width(width, m)
    q, r = np.linalg.qr(a.T)
    signs = np.where(np.diag(r) < 0, -1.0, 1.0)
    return (q * signs).T


def bartlett_rows(dof: int, k: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Rows T with TᵀT ~ W_k(dof, I) (central Wishart), in O(k²) whatever ``dof``.

    ``dof >= k``: T = Lᵀ (k × k) with L lower triangular, Lᵢᵢ = √χ²_{dof−i+1} (i = 1 … k),
    Lᵢⱼ ~ N(0, 1) below the diagonal, all independent (the Bartlett decomposition, W = LLᵀ).
    ``dof < k``: T is a dof × k standard normal matrix (its Gram is that Wishart by
    definition), at most k × k.
    """
    dof = validated_one("dof", dof)
    if dof < k:
        return rng.standard_normal((dof, k))
    lower = np.tril(rng.standard_normal((k, k)), -1)
    lower[np.diag_indices(k)] = np.sqrt(rng.chisquare(dof - np.arange(k, dtype=float)))
    return lower.T


def orthogonal_gram_rows(
    targets: ArrayLike, width: int, ridge: float, sigma: float, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Rows F (at most 2k × k) with FᵀF distributed exactly as VᵀV on an orthogonal design.

    V = v + σN with v = XᵀY/(1 + mλ) (D × k), N standard normal D × k, X any m × D
    design with orthonormal rows (docs/theory.md §19, "Orthogonal public designs"):
    F = [a + σN₁; σT] with a = R_Y/(1 + mλ) (R_Y of the thin QR Y = Q_Y R_Y, so
    aᵀa = g·YᵀY = vᵀv), N₁ standard normal (p × k, p = min(m, k)) and TᵀT ~ W_k(D − p, I)
    (:func:`bartlett_rows`). O(mk² + k³) time and memory whatever D.

    The noise comes from ``rng`` (the release's noise stream: OS entropy), never from
    the design's seed. Private: F reveals VᵀV; never print, log or write it.

    Parameters
    ----------
    targets : array_like
        Y (m × k, or m), the clipped targets, in any order (vᵀv does not depend on it).
    width : int
        D >= m.
    ridge : float
        λ.
    sigma : float
        σ of the output perturbation.
    rng : numpy.random.Generator
        The noise's generator.
    """
    y = np.asarray(targets, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    m, k = y.shape
    lam, sigma = validated(ridge=ridge, sigma=sigma)
    check_orthogonal_width(width, m)  # any D >= m: the cost is flat in D (the release caps D)
    a = np.linalg.qr(y, mode="r") / (1.0 + m * lam)  # p × k, p = min(m, k)
    p = a.shape[0]
    signal = a + sigma * rng.standard_normal((p, k))
    return np.vstack([signal, sigma * bartlett_rows(width - p, k, rng)])
