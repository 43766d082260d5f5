"""Several target columns (k ≥ 2) on a public design: the reduction to one canonical pair.

docs/theory.md §20. Two Markov kernels on the unlimited release (peeling a common
background, at the cost of k degrees of freedom; contraction by any ‖L‖_op ≤ 1)
reduce every replace-one adjacent pair on a public design M (rows ‖yᵢ‖ ≤ B,
G = MᵀM) to the **canonical pair** at width d′ = d − k,

    P_φ = ( W₂(d′, I, c²e₁e₁ᵀ/σ²), W₂(d′, I, c²u_φu_φᵀ/σ²) ),  u_φ = (cos φ, sin φ),

with c = c* = maxᵢ cᵢ, cᵢ = B(Gᵢᵢ + rᵢ)/√Gᵢᵢ, rᵢ = Σ_{j≠i}|Gᵢⱼ|, and one angle
φ ∈ [0, π/2]. This module holds

* :func:`canonical_norm`: c* from G (with a margin for G's own rounding), and the
  norm of the **realised** orthogonal pair (yᵢ = Be₁ → Be₂, the other rows 0:
  vᵀv = B²Gᵢᵢe₁e₁ᵀ, wᵀw = B²Gᵢᵢe₂e₂ᵀ, the canonical π/2 pair at the full width d
  with c = B√Gᵢᵢ; a true lower bound on any design, k ≥ 2);
* :func:`canonical_pair`: the two 2 × 2 Gram matrices of P_φ;
* the **orthogonal node** φ = π/2 exactly (:func:`orthogonal_node_rdp`,
  :func:`orthogonal_node_pld`): its log-likelihood ratio is h(S₁₁) − h(S₂₂) with S₁₁,
  S₂₂ independent and swapped between the two laws, so the pair is the k = 1 pair
  (χ²_{d′}(c²/σ²), χ²_{d′}(0)) composed with its reverse: D_α adds (RDP of the two
  directions), and the PLD is the convolution of the k = 1 remove and add PLDs
  (:mod:`synthamp.accountant._pld_grid`'s threshold form of the pair, both directions).

Kernels (rule 4 of docs/architecture.md): ``_orthogonal_node_rdp`` and
``_orthogonal_node_pld`` take validated arguments (amplitude a = c/σ).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import (
    InputError,
)
from synthamp.accountant._pld import DEFAULT_TAIL_MASS, PairPld, _pair_pld
from synthamp.accountant._pld_grid import (
    PROFILE_RTOL,
    DirectedGrid,
    _directions,
    _grid,
    _put_on_grid,
    _survivals,
)
from synthamp.accountant._profile import DEFAULT_TAIL
from synthamp.accountant._profile_pair import _pair_evaluator
from synthamp.accountant._releases import SyntheticDataRelease
from synthamp.divergence._plateau import plateau_scaled

__all__ = [
    "CanonicalNorm",
    "canonical_norm",
    "canonical_pair",
    "orthogonal_node_pld",
    "orthogonal_node_rdp",
]

#: Relative rounding margin per summand of rᵢ (a sum of m terms in float64 errs by at
#: most m·u of Σ|Gᵢⱼ|; 4u per term covers it with room for the square roots).
_ULP = 4.0 * np.finfo(float).eps


class CanonicalNorm(tuple):
    """(c*, c_realised): the canonical norm (upper) and the realised pair's norm (lower).

    ``c_star`` bounds ‖a‖, ‖a′‖ of every reduced pair (certified, G's rounding
    margin included); ``c_realised`` = B·maxᵢ √Gᵢᵢ (rounded down) is the norm of
    the realised orthogonal pair yᵢ = Be₁ → Be₂ at the full width d.
    """

    __slots__ = ()

    def __new__(cls, c_star: float, c_realised: float):
        return super().__new__(cls, (float(c_star), float(c_realised)))

    @property
    def c_star(self) -> float:
        return self[0]

    @property
    def c_realised(self) -> float:
        return self[1]


@privacy_quantity(Kind.CERTIFIED)
def canonical_norm(gram: ArrayLike, label_bound: float, gram_error: float = 0.0) -> CanonicalNorm:
    """c* = B·maxᵢ (Gᵢᵢ + rᵢ)/√Gᵢᵢ of a public design, and its realised lower norm (certified).

    docs/theory.md §20 ("Reduction"). Each term of rᵢ/√Gᵢᵢ is bounded by the smaller
    of |Gᵢⱼ|/√Gᵢᵢ and √Gⱼⱼ (Cauchy–Schwarz: |Gᵢⱼ| ≤ √(GᵢᵢGⱼⱼ)), so a record with a
    tiny Gᵢᵢ stays bounded and a record with Gᵢᵢ = 0 (no influence) contributes
    B·Σⱼ √Gⱼⱼ at most; c* is never above the formula.

    Parameters
    ----------
    gram : array_like, shape (m, m)
        G = MᵀM of the public design (symmetric; the computed matrix).
    label_bound : float
        B > 0, the public bound ‖yᵢ‖ ≤ B on each record's target row.
    gram_error : float, default 0.0
        An entrywise bound |G̃ᵢⱼ − Gᵢⱼ| on the computed G's error (e.g. the
        certified design bounds' rounding margin). c* is inflated soundly by it
        (every Gᵢⱼ moved to its worst end); float64 rounding of the sums here is
        added on top.

    Returns
    -------
    CanonicalNorm
        ``(c_star, c_realised)``.
    """
    g = np.asarray(gram, dtype=float)
    if g.ndim != 2 or g.shape[0] != g.shape[1] or g.shape[0] < 1:
        raise InputError("gram", f"must be a square m × m matrix, got shape {g.shape}")
    if not np.all(np.isfinite(g)):
        raise InputError("gram", "must be finite")
    if not np.allclose(g, g.T, rtol=1e-10, atol=1e-12 * float(np.abs(g).max() or 1.0)):
        raise InputError("gram", "must be symmetric (G = MᵀM)")
    bound = validated_one("label_bound", label_bound)
    err = float(gram_error)
    if not (err >= 0.0 and math.isfinite(err)):
        raise InputError("gram_error", f"must be a finite number >= 0, got {gram_error!r}")
    return _canonical_norm(g, bound, err)


def _canonical_norm(g: NDArray[np.float64], bound: float, err: float) -> CanonicalNorm:
    """The kernel of :func:`canonical_norm` (validated G, B and margin)."""
    diag = np.diag(g)
    if np.any(diag < -err - _ULP * np.abs(diag)):
        raise InputError("gram", "has a negative diagonal entry beyond gram_error: not MᵀM")
    # worst ends of the true entries, rounding included
    diag_hi = (diag + err) * (1.0 + _ULP)
    diag_lo = np.maximum((diag - err) * (1.0 - _ULP), 0.0)
    off = (np.abs(g) + err) * (1.0 + _ULP)
    np.fill_diagonal(off, 0.0)
    root_hi = np.sqrt(diag_hi) * (1.0 + _ULP)
    root_lo = np.sqrt(diag_lo) * (1.0 - _ULP)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(root_lo[:, None] > 0, off / root_lo[:, None], np.inf)
    terms = np.minimum(ratio, root_hi[None, :])
    np.fill_diagonal(terms, 0.0)
    m = g.shape[0]
    per_record = (root_hi + terms.sum(axis=1)) * (1.0 + m * _ULP)
    c_star = bound * float(per_record.max()) * (1.0 + _ULP)
    c_realised = bound * float(root_lo.max()) * (1.0 - _ULP)
    return CanonicalNorm(c_star, c_realised)


def canonical_pair(norm: float, angle: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The two 2 × 2 Gram matrices (c²e₁e₁ᵀ, c²u_φu_φᵀ) of the canonical pair (c, φ).

    Parameters
    ----------
    norm : float
        c > 0 (natural units, or c/σ for the scaled matrices).
    angle : float
        φ in [0, π/2].
    """
    c = validated_one("norm", norm)
    phi = float(angle)
    if not (0.0 <= phi <= math.pi / 2):
        raise InputError("angle", f"must be in [0, pi/2], got {angle!r}")
    return _canonical_pair(c, phi)


def _canonical_pair(c: float, phi: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    u = np.array([math.cos(phi), math.sin(phi)])
    if phi == math.pi / 2:
        u = np.array([0.0, 1.0])
    return np.diag([c * c, 0.0]), c * c * np.outer(u, u)


@privacy_quantity(Kind.EXACT)
def orthogonal_node_rdp(
    alpha: ArrayLike, dim: int, norm: float, sigma: float = 1.0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """D_α of the canonical pair at φ = π/2 (exact, with its error bound).

    D_α(π/2) = D_α(χ²_d(c²/σ²)‖χ²_d(0)) + D_α(χ²_d(0)‖χ²_d(c²/σ²)) (docs/theory.md
    §20, "The orthogonal node"): the k = 1 engine in both directions.

    Parameters
    ----------
    alpha : float or array_like
        Rényi orders > 1.
    dim : int
        The width of the pair (d − k for the certificate, d for the realised pair).
    norm : float
        c > 0 (natural units).
    sigma : float, default 1.0

    Returns
    -------
    value, error : ndarray
        D_α per order and its error bound (use value + error as an upper bound).
    """
    alpha, dim = validated(alpha=alpha, dim=dim)
    amp = validated_one("norm", norm) / validated_one("sigma", sigma)
    return _orthogonal_node_rdp(alpha, dim, amp)


def _orthogonal_node_rdp(alpha: NDArray[np.float64], dim: int, amp: float):
    """The kernel of :func:`orthogonal_node_rdp` (amplitude a = c/σ)."""
    forward, err_f = plateau_scaled(alpha, dim, amp, 0.0)
    reverse, err_r = plateau_scaled(alpha, dim, 0.0, amp)
    return np.asarray(forward + reverse, dtype=float), np.asarray(err_f + err_r, dtype=float)


@privacy_quantity(Kind.EXACT)
def orthogonal_node_pld(
    dim: int,
    norm: float,
    sigma: float = 1.0,
    releases: int = 1,
    *,
    discretization: float = 1e-4,
    tail: float = DEFAULT_TAIL,
) -> PairPld:
    """The PLD of the canonical pair at φ = π/2, composed over T releases (exact).

    The k = 1 pair (χ²_d(c²/σ²), χ²_d(0)) on the PLD grid (both directions, each
    with its optimistic companion for a lower bound), then remove ⊛ add: the
    orthogonal pair's loss is the sum of one draw of each (docs/theory.md §20). The
    pair is symmetric (swapping e₁ and e₂ exchanges its laws), so both of its
    directions are this one PLD.

    Parameters
    ----------
    dim : int
        Width of the pair.
    norm : float
        c > 0 (natural units).
    sigma : float, default 1.0
    releases : int, default 1
        T: the same pair in every run.
    discretization : float, default 1e-4
        The loss grid's step h.
    tail : float, default 1e-18
        The profile is resolved down to δ = tail (the rest goes to +∞).

    Returns
    -------
    PairPld
        ``epsilon(δ)`` is an upper bound on the pair's ε, ``epsilon_lower(δ)`` a
        lower bound (the companions).
    """
    dim = validated_one("dim", dim)
    amp = validated_one("norm", norm) / validated_one("sigma", sigma)
    releases, h, tail = validated(releases=releases, discretization=discretization, tail=tail)
    return _orthogonal_node_pld(dim, amp, releases, h, tail)


def _orthogonal_node_pld(
    dim: int, amp: float, releases: int, h: float, tail: float = DEFAULT_TAIL, low: float = 0.0
) -> PairPld:
    """The kernel of :func:`orthogonal_node_pld` (amplitude a = c/σ).

    ``low`` = b in [0, a): the symmetric product pair (χ²_d(a²) ⊗ χ²_d(b²), χ²_d(b²) ⊗
    χ²_d(a²)), remove ⊛ add of the k = 1 pair (a, b) (the node is b = 0; the audit's
    fitted pair, :mod:`synthamp.audit._product_family`, has b > 0)."""
    release = SyntheticDataRelease(dim, 1, amp, amp, 1.0, None)
    pair = _pair_evaluator(release, amp, low, tail)
    forward, reverse = pair.refine(PROFILE_RTOL, 1e-3 * tail)
    top = max(forward.root(tail)[0], reverse.root(tail)[0])
    if not math.isfinite(top):
        top = max(float(forward.eps[-1]), float(reverse.eps[-1]), h)
    lower, eps = _grid(top, h)
    _put_on_grid(pair, eps)
    survival = _survivals(pair, eps)
    grid = DirectedGrid(lower, *_directions(pair, eps), Kind.EXACT, False, False, (), *survival)
    k1 = _pair_pld(grid, h, companion=True)
    both = k1.remove.compose(k1.add, DEFAULT_TAIL_MASS)
    node = PairPld(both, both)
    return node if releases == 1 else node._self_compose(releases, DEFAULT_TAIL_MASS)
