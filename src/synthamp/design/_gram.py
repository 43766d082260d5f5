"""The certified Gram matrix of a public design: G = MᵀM and its rounding bound (§19).

On a public design X (m × D, the float matrix as generated) the ridge model is
v = M Y with M = (XᵀX/m + λI)⁻¹Xᵀ/m. With c = mλ, K = XXᵀ and X = U S Wᵀ,

    M = Xᵀ φ(K),  φ(t) = 1/(t + c);    G = MᵀM = g(K),  g(t) = t/(t + c)²,

matrix functions of the symmetric K (φ taken as 0 on K's null space, which Xᵀ
annihilates). Everything the release needs (Δ, C, s₂, the dual R = mφ(K) that
assembles v = XᵀRY/m) is computed from a spectral decomposition, and every
number carries a rigorous bound on its floating-point error. Nothing below is a
fixed margin: each term is derived from the conditioning of the computation.

**The decomposition** (:class:`DesignSpectrum`, λ-independent). Two routes:

* ``svd`` (D < m: K has rank D, and forming K would put rounding of size u in
  its m − D dimensional null space, where g' = 1/c² amplifies it: the old dual
  route's bug; also m <= D < 2m designs small enough to hold, where K would square
  a large condition number). The thin SVD X ≈ Û diag(ŝ) Ŵᵀ (LAPACK ``gesdd``). A posteriori:
  ω_U = ‖ÛᵀÛ − I‖_F, ω_W = ‖ŴᵀŴ − I‖_F and the residual ρ = ‖X − ÛŜŴᵀ‖_F, each
  computed with its own rounding bound (an inner product of length n has error
  <= γ_n |a|ᵀ|b|, γ_n = nu/(1 − nu), u = 2⁻⁵³; Higham, *Accuracy and Stability
  of Numerical Algorithms*, 2nd ed., §3.1, eq. (3.5), Lemma 3.3). The polar factors Q_U,
  Q_W of Û, Ŵ are orthonormal with ‖Û − Q_U‖_F <= ω_U (each singular value σ of Û
  has |σ − 1| <= |σ² − 1|, and Û − Q_U = P(Σ − I)Vᵀ for Û = PΣVᵀ, Q_U = PVᵀ; Higham,
  *Functions of Matrices*, §8.1), so X̃ = Q_U Ŝ Q_Wᵀ has the exact
  SVD (Q_U, ŝ, Q_W) and ε_X = ‖X − X̃‖_F <= ρ + ŝ_max(ω_U(1 + ω_W) + ω_W). Weyl's
  inequality for singular values (Golub–Van Loan, *Matrix Computations*, 4th ed.,
  Cor. 8.6.2) gives σ_D(X) >= ŝ_min − ε_X: if positive, X has rank D exactly, and
  K̃ = X̃X̃ᵀ = Q_U Ŝ² Q_Uᵀ has ‖K − K̃‖_F <= ε_X(2ŝ_max + ε_X) =: ε_K, with the same
  m − D exact zero eigenvalues and nonzero eigenvalues >= τ = (ŝ_min − ε_X)².
* ``kernel`` (D >= 2m, or larger nearly square designs: K has full rank and is
  accumulated block by block without ever holding X). K̂ = fl(XXᵀ) has
  |K̂ᵢⱼ − Kᵢⱼ| <= κ for a per-entry bound κ the caller derives from how K̂ was
  summed (:meth:`PublicDesign.kernel`), so
  ‖K̂ − K‖_F <= mκ. The symmetric eigendecomposition K̂ ≈ Q̂ diag(t̂) Q̂ᵀ (LAPACK
  ``syevd``) is checked a posteriori: ω = ‖Q̂ᵀQ̂ − I‖_F, R = K̂Q̂ − Q̂ diag(t̂) with
  its rounding bound, and with the orthogonal polar factor Q of Q̂,
  ‖K̂ − Q diag(t̂) Qᵀ‖_F = ‖K̂Q − Q diag(t̂)‖_F <= ‖R‖_F + ω(‖K̂‖₂ + max|t̂|).
  Negative t̂ are clipped to 0 (adding their norm). So K̃ = Q diag(t̂₊) Qᵀ has
  ‖K − K̃‖_F <= ε_K, and by Weyl every eigenvalue of K and K̃ is >= τ = t̂_min − ε_K
  (or 0).

**The matrix functions** (λ-dependent, :func:`certified_gram`). For symmetric
A = Σ aᵢuᵢuᵢᵀ, B = Σ bⱼvⱼvⱼᵀ and any f, uᵢᵀ(f(A) − f(B))vⱼ = (f(aᵢ) − f(bⱼ))uᵢᵀvⱼ and
uᵢᵀ(A − B)vⱼ = (aᵢ − bⱼ)uᵢᵀvⱼ, so summing squares over i, j,

    ‖f(A) − f(B)‖_F <= max |f[aᵢ, bⱼ]| · ‖A − B‖_F

over the pairs of eigenvalues with f(aᵢ) ≠ f(bⱼ) (f[a, b] the divided
difference; Bhatia, *Matrix Analysis*, Ch. X, states the Frobenius-norm Lipschitz
bound; the two identities are its whole proof). Pairs of exact zeros
contribute nothing. For a, b >= τ >= 0 (or one of them 0, the other >= τ):
g[a, b] = (c² − ab)/((a + c)²(b + c)²), so |g[a, b]| <= 1/(τ + c)²;
φ[a, b] = −1/((a + c)(b + c)), |φ[a, b]| <= 1/(τ + c)²; and for the route with a
null space (φ₀ = 0 at 0) φ₀[0, b] = 1/(b(b + c)) <= 1/(τ(τ + c)). Hence
‖G − g(K̃)‖_F <= L_g ε_K and ‖φ(K) − φ(K̃)‖_F <= L_φ ε_K. The computed
Ĝ = fl(V̂ diag(ĝ) V̂ᵀ) (V̂ = Û or Q̂) differs from g(K̃) = V diag(g) Vᵀ by at most
ω g_max(2 + ω) (V̂ against its polar factor), γ₈√r g_max (the values ĝ, computed
with c = fl(mλ) and t̂ = fl(ŝ²): each a relative error <= γ₈ since
|t g'(t)/g(t)| <= 1 and |c ∂_c g/g| <= 2), γ_{r+1} g_max ‖V̂‖_F² (the product;
Cauchy–Schwarz on the rows of V̂) and u‖Ĝ‖_F (symmetrising). The same terms bound
the dual R̂/m against φ(K), so the operator actually applied,
M̂ = XᵀR̂/m (:func:`synthamp.design._designs.design_model`), has
‖M̂ − M‖₂ <= ‖X‖₂ ‖R̂/m − φ(K)‖_F =: η.

On the ``svd`` route both are sharpened (the smaller bound is used) by the Lipschitz
bound of the ridge pseudo-inverse N(X) = (XᵀX + c)⁻¹Xᵀ = M: with A = XᵀX + c,

    N(X) − N(Y) = A⁻¹(X − Y)ᵀ(I − Y N(Y)) − N(X)(X − Y)N(Y),

(expand A⁻¹[Xᵀ − (YᵀY + c + XᵀX − YᵀY)(YᵀY + c)⁻¹Yᵀ]), and ‖I − YN(Y)‖₂ <= 1 (its
eigenvalues are c/(s² + c) and 1), so ‖M − M̃‖₂ <= ε_X (1/(ŝ_min² + c) + ‖M̃‖₂‖M‖₂)
(X̃ in the role of X; for D > m the same identity on the transposes, N(X)ᵀ = N(Xᵀ)).
Then ‖G − g(K̃)‖₂ <= ‖M − M̃‖₂(‖M‖₂ + ‖M̃‖₂), and M̂ − M̃ = (X − X̃)ᵀR̂/m + X̃ᵀ(R̂/m − φ(K̃))
with X̃ᵀφ(K̃) = M̃. These lose κ(X) where the route through K loses κ(X)² or more
(a 12 × 12 design with κ = 146: 3e-10 instead of a refusal).

**The bounds.** Let ε_G bound ‖G − Ĝ‖_F. For both G and Ĝ_app = M̂ᵀM̂
(‖M̂ᵀM̂ − MᵀM‖₂ <= η(2‖M‖₂ + η)), E = G* − Ĝ has ‖E‖₂ <= ε_S = ε_G + η(2‖M‖₂ + η), so
|Eᵢᵢ| <= ε_S, Σ_{j≠i}|Eᵢⱼ| <= √(m − 1) ε_S and Σᵢⱼ|Eᵢⱼ| <= m√m ε_S. The reported
bounds are the module formulas of :mod:`synthamp.design._designs` at Ĝᵢᵢ + ε_S and
rᵢ + √(m − 1) ε_S (s₂ is nondecreasing in both), ‖M‖₂ <= max g over the Weyl
intervals [t̂ₖ − ε_K, t̂ₖ + ε_K] ∩ [τ, ∞) (the peak of g is at t = c), and every
final sum and square root is rounded up by a factor 1 + γ_n for its n
operations. So each reported Δ, C, s₂ is >= its exact value on the float design,
for the exact M and for the M̂ the release applies (the rounding of the data-
dependent product M̂Y itself is not covered, as in every floating-point
mechanism).

**Refusal.** :data:`CERTIFIED_RELATIVE_ERROR`: when a bound's certified
relative error (reported over computed) exceeds 1e-6, or the decomposition
cannot be certified (a numerically rank-deficient design, ω >= 1), or
c = mλ leaves the normal floating-point range, the bounds are refused with one
line naming ``ridge`` (with the smallest ridge that certifies, when one exists)
or ``width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._validation import InputError

__all__ = [
    "CERTIFIED_RELATIVE_ERROR",
    "CertifiedBounds",
    "CertifiedGram",
    "DesignSpectrum",
    "certified_bounds",
    "certified_gram",
    "gamma",
    "gram_terms",
    "smallest_certified_ridge",
    "spectrum_from_kernel",
    "spectrum_from_matrix",
]

#: Unit roundoff of IEEE double precision.
UNIT_ROUNDOFF = 2.0**-53
#: Largest certified relative error of a reported bound (Δ, C or s₂): a σ built on a
#: bound within 1e-6 of the exact value costs at most 1e-6 relative noise; beyond it the
#: design (or λ) is numerically degenerate and the bounds would be dominated by rounding.
CERTIFIED_RELATIVE_ERROR = 1e-6
#: Smallest c = mλ (a normal number: the relative rounding model γ_n needs them; the
#: subnormal range starts at 2.2e-308) and smallest g(t) kept (far from underflow).
_TINY_RIDGE = 1e-300
_TINY = 1e-280
#: Ridges tried when suggesting the smallest certifiable one (per decade).
_SUGGESTED_RIDGES = tuple(10.0**k for k in range(-14, 7))


def gamma(n: float) -> float:
    """γ_n = nu/(1 − nu) (Higham §3.1), +inf when nu >= 1."""
    nu = n * UNIT_ROUNDOFF
    return nu / (1.0 - nu) if nu < 1.0 else math.inf


def _up(value: float, operations: float) -> float:
    """A nonnegative ``value`` computed in at most ``operations`` rounded steps, rounded up:
    value·(1 + 2γ_n) >= the exact value it approximates (1/(1 − γ_n) <= 1 + 2γ_n for γ_n <= 1/2)."""
    return float(value) * (1.0 + 2.0 * gamma(operations + 2))


def _abs_norm2(a: NDArray[np.float64]) -> float:
    """An upper bound on ‖|A|‖₂: √(‖|A|‖₁‖|A|‖_∞) (Higham §6.3), rounded up."""
    rows = float(np.abs(a).sum(axis=1).max())
    cols = float(np.abs(a).sum(axis=0).max())
    return _up(math.sqrt(rows * cols), sum(a.shape))


def _fro(a: NDArray[np.float64]) -> float:
    """‖A‖_F, rounded up."""
    return _up(float(np.linalg.norm(a)), a.size)


@dataclass(frozen=True, eq=False)
class DesignSpectrum:
    """A certified spectral decomposition of K = XXᵀ (module docstring), λ-independent.

    Attributes
    ----------
    route : {"svd", "kernel"}
    vectors : ndarray
        V̂ (m × r): Û (svd) or Q̂ (kernel).
    values : ndarray
        t̂ (r): ŝ² (svd) or the clipped eigenvalues of K̂ (kernel).
    kernel_error : float
        ε_K >= ‖K − K̃‖_F, K̃ = V diag(t̂) Vᵀ with V the polar factor of V̂.
    orthogonality : float
        ω >= ‖V̂ − V‖_F.
    floor : float
        τ: every nonzero eigenvalue of K and of K̃ is >= τ.
    null_space : bool
        K and K̃ have m − r exact zero eigenvalues (svd route, r = D < m).
    norms : ndarray or None
        The row norms that normalised the design (for :func:`design_model`), when known.
    width : int or None
        D, when known.
    matrix_error : float or None
        ε_X >= ‖X − X̃‖_F (svd route), for the Lipschitz bound of the ridge pseudo-inverse.
    """

    route: str
    vectors: NDArray[np.float64]
    values: NDArray[np.float64]
    kernel_error: float
    orthogonality: float
    floor: float
    null_space: bool
    norms: NDArray[np.float64] | None = None
    width: int | None = None
    matrix_error: float | None = None

    @property
    def n_records(self) -> int:
        """m."""
        return self.vectors.shape[0]


def _orthogonality(v: NDArray[np.float64]) -> float:
    """ω >= ‖VᵀV − I‖_F, with the rounding bound γ_m ‖V‖_F² of the product."""
    defect = v.T @ v
    defect[np.diag_indices_from(defect)] -= 1.0
    bound = _fro(defect) + gamma(v.shape[0] + 1) * _fro(v) ** 2
    return _up(bound, 4)


def _rank_deficient(m: int, width: int, floor: float) -> InputError:
    return InputError(
        "width",
        f"the {m} × {width} design is numerically rank-deficient (its smallest singular "
        f"value is not certified positive: {floor:.3g}); use a width >= m, another width "
        "or another design seed",
    )


def spectrum_from_matrix(
    x: ArrayLike, norms: ArrayLike | None = None, route: str = "svd"
) -> DesignSpectrum:
    """The certified decomposition of a dense design X (m × D), any shape.

    ``route="svd"``: r = min(m, D) singular values; when D < m, K has m − D exact zero
    eigenvalues and X must be certified of full column rank (else ``width`` is refused).
    ``route="kernel"``: the eigendecomposition of fl(XXᵀ), whose entries have error
    <= γ_D ‖xᵢ‖‖xⱼ‖ (Higham eq. 3.5).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or not np.all(np.isfinite(x)):
        raise InputError("design", "must be a finite m × D matrix")
    m, width = x.shape
    if route == "kernel":
        row_sq = np.einsum("ij,ij->i", x, x)
        entry = gamma(width) * _up(float(row_sq.max()), width)
        return spectrum_from_kernel(x @ x.T, entry_error=entry, norms=norms, width=width)
    u_hat, s_hat, w_t = np.linalg.svd(x, full_matrices=False)
    omega_u = _orthogonality(u_hat)
    omega_w = _orthogonality(w_t.T)
    if max(omega_u, omega_w) >= 1.0:
        raise _rank_deficient(m, width, 0.0)
    s_max, s_min = float(s_hat.max()), float(s_hat.min())
    residual = x - (u_hat * s_hat) @ w_t
    rounding = gamma(min(m, width) + 2) * (s_max * _fro(u_hat) * _abs_norm2(w_t) + _fro(x))
    eps_x = _up(_fro(residual) + rounding + s_max * (omega_u * (1.0 + omega_w) + omega_w), 8)
    low = (s_min - eps_x) * (1.0 - 2.0 * UNIT_ROUNDOFF)
    null_space = width < m
    if null_space and not low > 0.0:
        raise _rank_deficient(m, width, low)
    eps_k = _up(eps_x * (2.0 * s_max + eps_x), 4)
    return DesignSpectrum(
        route="svd", vectors=u_hat, values=s_hat**2, kernel_error=eps_k,
        orthogonality=omega_u, floor=max(low, 0.0) ** 2 * (1.0 - 4.0 * UNIT_ROUNDOFF),
        null_space=null_space,
        norms=None if norms is None else np.asarray(norms, dtype=float), width=width,
        matrix_error=eps_x,
    )  # fmt: skip


def spectrum_from_kernel(
    kernel: ArrayLike,
    entry_error: float = 0.0,
    norms: ArrayLike | None = None,
    width: int | None = None,
) -> DesignSpectrum:
    """The certified decomposition (``kernel`` route) of K̂ (m × m).

    Parameters
    ----------
    kernel : array_like
        K̂ ≈ K = XXᵀ.
    entry_error : float, default 0
        κ >= |K̂ᵢⱼ − Kᵢⱼ| (0: K̂ is the kernel itself, exactly).
    norms : array_like, optional
        The design's row norms, passed through for :func:`design_model`.
    width : int, optional
        D, for the messages.
    """
    k = np.asarray(kernel, dtype=float)
    if k.ndim != 2 or k.shape[0] != k.shape[1] or not np.all(np.isfinite(k)):
        raise InputError("kernel", "must be a finite square matrix")
    m = k.shape[0]
    sym = 0.5 * (k + k.T)
    asym = _fro(k - k.T)
    values, vectors = np.linalg.eigh(sym)
    omega = _orthogonality(vectors)
    if omega >= 1.0:
        raise _rank_deficient(m, width or m, 0.0)
    k_norm = _abs_norm2(sym)  # >= ‖|K̂|‖₂ >= ‖K̂‖₂
    residual = sym @ vectors - vectors * values
    rounding = gamma(m + 2) * (k_norm * _fro(vectors) + _fro(vectors * np.abs(values)))
    negative = _fro(np.minimum(values, 0.0)[None, :])
    top = float(np.abs(values).max())
    eps_k = (
        m * entry_error + 0.5 * asym + UNIT_ROUNDOFF * _fro(sym)
        + _fro(residual) + rounding + omega * (k_norm + top) + negative
    )  # fmt: skip
    eps_k = _up(eps_k, 10)
    clipped = np.maximum(values, 0.0)
    floor = max(0.0, (float(clipped.min()) - eps_k) * (1.0 - 4.0 * UNIT_ROUNDOFF))
    return DesignSpectrum(
        route="kernel", vectors=vectors, values=clipped, kernel_error=eps_k,
        orthogonality=omega, floor=floor, null_space=False,
        norms=None if norms is None else np.asarray(norms, dtype=float), width=width,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class CertifiedGram:
    """Ĝ, the dual R̂ and their certified errors at one λ (module docstring).

    Attributes
    ----------
    gram : ndarray
        Ĝ ≈ G = MᵀM (m × m).
    dual : ndarray
        R̂ ≈ (K/m + λI)⁻¹ on the range of X (m × m): v = XᵀR̂Y/m.
    spectral_error : float
        ε_S >= ‖G* − Ĝ‖₂ for G* = MᵀM and M̂ᵀM̂.
    operator_norm : float
        >= ‖M‖₂ and ‖M̂‖₂.
    """

    gram: NDArray[np.float64]
    dual: NDArray[np.float64]
    spectral_error: float
    operator_norm: float


def _constants(spectrum: DesignSpectrum, c: float) -> tuple[float, float]:
    """(L_g, L_φ): the divided-difference bounds of g and φ (module docstring)."""
    tau = spectrum.floor
    inverse = 1.0 / (tau + c)
    lip_g = inverse * inverse  # inf when it overflows: then nothing is certified
    lip_phi = inverse / tau if spectrum.null_space else lip_g
    return _up(lip_g, 4), _up(lip_phi, 4)


def _values(t: NDArray[np.float64], c: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """g(t) = t/(t + c)² (as (t/(t + c))/(t + c), no overflow) and φ(t) = 1/(t + c)."""
    shifted = t + c
    return (t / shifted) / shifted, 1.0 / shifted


def _operator_norm(spectrum: DesignSpectrum, c: float) -> float:
    """>= ‖M‖₂ = max √g(t) over K's eigenvalues, each within ε_K of a t̂ₖ (Weyl)."""
    t, eps = spectrum.values, spectrum.kernel_error
    lo = np.maximum(t - eps, spectrum.floor)
    peak = np.clip(c, lo, t + eps)
    g, _ = _values(peak, c)
    return _up(math.sqrt(float(g.max())), 8)


def _error_bounds(spectrum: DesignSpectrum, c: float) -> tuple[float, float]:
    """(ε_S, a bound on ‖M‖₂ and ‖M̂‖₂) at c = mλ (module docstring): cheap, no m × m
    product, shared by :func:`certified_gram` and :func:`estimated_relative_error`."""
    v, t = spectrum.vectors, spectrum.values
    r = t.size
    g, phi = _values(t, c)
    g_max, phi_max = _up(float(g.max()), 8), _up(float(phi.max()), 8)
    lip_g, lip_phi = _constants(spectrum, c)
    omega, eps_k = spectrum.orthogonality, spectrum.kernel_error
    v_fro2 = _fro(v) ** 2
    op_m = _operator_norm(spectrum, c)

    def computed(top: float) -> float:
        """‖V̂ diag(f̂) V̂ᵀ computed and symmetrised − V diag(f) Vᵀ‖_F, f̂ <= top (f = g, φ):
        polar factor, values, product, then symmetrising (and, for R̂, the factor m)."""
        rest = (
            omega * top * (2.0 + omega) + gamma(8) * math.sqrt(r) * top
            + gamma(r + 1) * top * v_fro2
        )  # fmt: skip
        return rest + 2.0 * UNIT_ROUNDOFF * ((1.0 + omega) ** 2 * math.sqrt(r) * top + rest)

    d_gram, d_inverse = computed(g_max), computed(phi_max)
    x_norm = math.sqrt(_up(float(t.max()) + eps_k, 4))
    eps_g = lip_g * eps_k  # ‖g(K) − g(K̃)‖_F
    eta = x_norm * (lip_phi * eps_k + d_inverse)  # ‖M̂ − M‖₂ through ‖R̂/m − φ(K)‖_F
    eps_x = spectrum.matrix_error
    if eps_x is not None:  # svd route: the ridge pseudo-inverse's Lipschitz bound (docstring)
        s_max, s_min2 = math.sqrt(float(t.max())), float(t.min())
        op_tilde = _up(math.sqrt(g_max), 2)
        eta_exact = eps_x * (1.0 / (s_min2 + c) + op_tilde * op_m)  # ‖M − M̃‖₂
        eps_g = min(eps_g, eta_exact * (op_m + op_tilde))
        eta = min(eta, eta_exact + eps_x * (phi_max + d_inverse) + s_max * d_inverse)
    eta = _up(eta, 8)
    eps_s = _up(eps_g + d_gram + eta * (2.0 * op_m + eta), 8)
    return eps_s, op_m + eta


def _ridge_constant(spectrum: DesignSpectrum, ridge: float) -> float:
    c = spectrum.n_records * ridge
    if not (_TINY_RIDGE <= c < 1e150):
        raise InputError(
            "ridge",
            f"m·λ = {c:.3g} leaves the range where the design bounds are certified "
            f"([{_TINY_RIDGE:.0e}, 1e150)); choose λ between "
            f"{_TINY_RIDGE / spectrum.n_records:.3g} and "
            f"{1e150 / spectrum.n_records:.3g}",
        )
    g, _ = _values(spectrum.values[spectrum.values > 0], c)
    if g.size and float(g.min()) < _TINY:
        raise InputError(
            "ridge", f"λ = {ridge:.3g} is so large that G underflows; choose a smaller ridge"
        )
    return c


def certified_gram(spectrum: DesignSpectrum, ridge: float) -> CertifiedGram:
    """Ĝ, R̂ and their certified errors at λ = ``ridge`` (module docstring)."""
    c = _ridge_constant(spectrum, ridge)
    eps_s, op_norm = _error_bounds(spectrum, c)
    if not math.isfinite(eps_s + op_norm):  # nothing to certify: skip the products
        empty = np.empty((0, 0))
        return CertifiedGram(gram=empty, dual=empty, spectral_error=math.inf, operator_norm=op_norm)
    v, t = spectrum.vectors, spectrum.values
    g, phi = _values(t, c)
    gram = (v * g) @ v.T
    gram = 0.5 * (gram + gram.T)
    inverse = (v * phi) @ v.T
    dual = (0.5 * (inverse + inverse.T)) * spectrum.n_records
    return CertifiedGram(gram=gram, dual=dual, spectral_error=eps_s, operator_norm=op_norm)


def gram_terms(diag: NDArray[np.float64], off: NDArray[np.float64]) -> NDArray[np.float64]:
    """s₂/B² per record: (Gᵢᵢ + rᵢ)²/Gᵢᵢ if rᵢ < Gᵢᵢ, else 4rᵢ (synthamp.design._designs);
    nondecreasing in Gᵢᵢ and in rᵢ (∂/∂G = (G + r)(G − r)/G² >= 0 and ∂/∂r > 0)."""
    safe = np.where(diag > 0, diag, 1.0)
    return np.where(off < diag, (diag + off) ** 2 / safe, 4.0 * off)


@dataclass(frozen=True, eq=False)
class CertifiedBounds:
    """Δ, C, s₂ and the §19 bound of s₂, each >= its exact value (module docstring), with
    Ĝ, R̂ and the largest relative excess of Δ, C, s₂ over their values from Ĝ alone
    (``rounding_bound``: +inf when nothing can be certified), and ``gram_error`` = ε_S, a
    bound on every entry's error |Ĝᵢⱼ − Gᵢⱼ| (an entry is at most the spectral norm)."""

    sensitivity: float
    norm_bound: float
    gram_sensitivity: float
    gram_sensitivity_theory: float
    rounding_bound: float
    gram: NDArray[np.float64]
    dual: NDArray[np.float64]
    gram_error: float = math.inf


def certified_bounds(spectrum: DesignSpectrum, ridge: float, label_bound: float) -> CertifiedBounds:
    """The bounds of :mod:`synthamp.design._designs` at the upper ends of the error bounds:
    Gᵢᵢ + ε_S, rᵢ + √(m − 1)ε_S, Σ|Gᵢⱼ| + m√m ε_S, ‖M‖₂ from the Weyl intervals; the final
    sums rounded up by 1 + 2γ_n."""
    certified = certified_gram(spectrum, ridge)
    gram, eps, b = certified.gram, certified.spectral_error, label_bound
    if not math.isfinite(eps + certified.operator_norm):
        inf = math.inf
        return CertifiedBounds(inf, inf, inf, inf, inf, certified.gram, certified.dual)
    m = gram.shape[0]
    diag = np.clip(np.diag(gram).copy(), 0.0, None)
    absolute = np.abs(gram)
    rows = absolute.sum(axis=1)
    off = np.maximum(rows - diag, 0.0)
    diag_up = diag + eps  # |ΔGᵢᵢ| <= ε_S
    off_up = np.maximum(rows * (1.0 + 2.0 * gamma(m + 2)) - diag, 0.0) + math.sqrt(m - 1) * eps
    up = 1.0 + 2.0 * gamma(m + 16)  # the final sums, products (by B, B²) and square roots
    total = float(absolute.sum()) * (1.0 + 2.0 * gamma(m * m + 2)) + m * math.sqrt(m) * eps
    unit = (  # B = 1: Δ/2, C, s₂, the §19 bound
        math.sqrt(float(diag_up.max())) * up,
        min(math.sqrt(m) * certified.operator_norm, math.sqrt(total)) * up,
        float(gram_terms(diag_up, off_up).max()) * up,
        float((diag_up + 4.0 * off_up).max()) * up,
    )
    # the values from Ĝ alone, to state the certified relative error
    g, _ = _values(spectrum.values, m * ridge)
    point = (
        math.sqrt(float(diag.max())),
        min(math.sqrt(m * float(g.max())), math.sqrt(float(absolute.sum()))),
        float(gram_terms(diag, off).max()),
    )
    rounding = max(r / p - 1.0 if p > 0 else math.inf for r, p in zip(unit, point, strict=False))
    return CertifiedBounds(
        2.0 * b * unit[0], b * unit[1], b * b * unit[2], b * b * unit[3], rounding,
        gram, certified.dual, eps,
    )  # fmt: skip


def _relative_error_range(spectrum: DesignSpectrum, ridge: float) -> tuple[float, float]:
    """Cheap (no m × m product) bracket of the certified relative error at λ:
    (√(1 + x) − 1, (2 + 4√m) x), x = ε_S/maxᵢĜᵢᵢ — Δ's own excess, and s₂'s at most (s₂
    moves by at most B²(2e + 4f) for errors e on Gᵢᵢ and f on rᵢ, and s₂ >= B² maxᵢ Gᵢᵢ)."""
    c = spectrum.n_records * ridge
    if not (_TINY_RIDGE <= c < 1e150):
        return math.inf, math.inf
    g, _ = _values(spectrum.values, c)
    v = spectrum.vectors
    diag_max = float(((v * v) @ g).max())
    eps_s, _ = _error_bounds(spectrum, c)
    if not diag_max > 0 or not math.isfinite(eps_s):
        return math.inf, math.inf
    x, m = eps_s / diag_max, spectrum.n_records
    return x / (math.sqrt(1.0 + x) + 1.0) * (1.0 - 1e-3), (2.0 + 4.0 * math.sqrt(m)) * x


def smallest_certified_ridge(spectrum: DesignSpectrum, ridge: float) -> float | None:
    """The smallest ridge > λ on the decades 1e-14 … 1e6 whose bounds certify within
    :data:`CERTIFIED_RELATIVE_ERROR` (None if none): decades are skipped or accepted by the
    cheap bracket, and computed in full only when it cannot decide."""
    for candidate in _SUGGESTED_RIDGES:
        if candidate <= ridge:
            continue
        low, high = _relative_error_range(spectrum, candidate)
        if low > CERTIFIED_RELATIVE_ERROR:
            continue
        if high <= CERTIFIED_RELATIVE_ERROR:
            return candidate
        try:
            found = certified_bounds(spectrum, candidate, 1.0).rounding_bound
        except InputError:
            continue
        if found <= CERTIFIED_RELATIVE_ERROR:
            return candidate
    return None
