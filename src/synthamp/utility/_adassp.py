"""AdaSSP (Wang 2018), differentially private linear regression: the regression baseline.

Calibrated exactly at the same (ε, δ) as the release (docs/theory.md §18). Kernel:
:func:`_adassp_release`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._parameters import validated, validated_optional
from synthamp._validation import InputError
from synthamp.accountant._pld import gaussian_sigma

__all__ = ["AdaSSPResult", "adassp", "adassp_noise"]


def adassp_noise(
    epsilon: float,
    delta: float,
    *,
    feature_bound: float,
    label_bound: float,
    dim: int,
    releases: int = 1,
) -> tuple[float, float, float]:
    """The three noise scales of AdaSSP at (ε, δ) under replace-one adjacency, exactly.

    AdaSSP (Wang 2018, Algorithm 2) releases three Gaussian mechanisms: λ_min(XᵀX)
    (sensitivity 𝒳²: by Weyl, λ_min(A − xxᵀ + x′x′ᵀ) ∈ [λ_min(A) − 𝒳², λ_min(A) + 𝒳²]),
    XᵀX (upper triangle, sensitivity ‖xxᵀ − x′x′ᵀ‖_F ≤ √2𝒳², 𝒳² for d = 1, the PSD
    argument of the module docstring) and Xᵀy (‖xyᵀ − x′y′ᵀ‖_F ≤ 2𝒳𝒴). The paper splits
    (ε, δ) into thirds (basic composition) and gives each σᵢ ∝ Δᵢ with one multiplier;
    this keeps that split (equal Δᵢ/σᵢ = 1/t) but composes exactly: three Gaussian
    mechanisms (T releases: 3T) of Δᵢ/σᵢ = 1/t are one of sensitivity √(3T) at σ = t
    (Gaussian differential privacy, Dong, Roth and Su 2022, Corollary 3.3), and t is the
    exact calibration of that one (Balle and Wang 2018), so the release is exactly
    (ε, δ)-DP. The paper's calibration is the conservative one.

    Returns
    -------
    tuple of float
        (σ of λ_min, σ of XᵀX, σ of Xᵀy).
    """
    epsilon, delta, x, y = validated(
        epsilon=epsilon, delta=delta, feature_bound=feature_bound, label_bound=label_bound
    )
    d, releases = validated(dim=dim, releases=releases)
    t = gaussian_sigma(epsilon, delta, math.sqrt(3.0 * releases))
    return t * x * x, t * x * x * (1.0 if d == 1 else math.sqrt(2.0)), t * 2.0 * x * y


@dataclass(frozen=True)
class AdaSSPResult:
    """AdaSSP's private output: the coefficients, the adaptive λ and the noise used.

    Attributes
    ----------
    coef : ndarray of shape (d, k)
        θ̂ = (XᵀX + E₂ + λI)⁻¹(Xᵀy + E₃).
    ridge : float
        The adaptive λ (in the paper's scale: penalty λ‖θ‖² added to ‖Xθ − y‖²).
    sigmas : tuple of float
        :func:`adassp_noise`.
    """

    coef: NDArray[np.float64]
    ridge: float
    sigmas: tuple[float, float, float]


def adassp(
    x: ArrayLike,
    y: ArrayLike,
    epsilon: float,
    delta: float,
    *,
    feature_bound: float,
    label_bound: float,
    rho: float = 0.05,
    random_state: int | np.random.Generator | None = None,
) -> AdaSSPResult:
    """AdaSSP, differentially private linear regression (Wang 2018, Algorithm 2).

    With σ₁, σ₂, σ₃ from :func:`adassp_noise` (the paper's noise multiplier
    √log(6/δ)/(ε/3) replaced by the exact calibration t; the rest as the paper):

    1. λ̃_min = max(λ_min(XᵀX) + σ₁Z − σ₁√log(6/δ), 0), Z ~ N(0, 1);
    2. λ = max(0, σ₂√(d log(2d²/ρ)) − λ̃_min);
    3. XᵀX̂ = XᵀX + σ₂E, E symmetric with iid N(0, 1) upper triangle; Xᵀŷ = Xᵀy + σ₃z;
    4. θ̂ = (XᵀX̂ + λI)⁻¹Xᵀŷ.

    Rows must satisfy ‖xᵢ‖ ≤ 𝒳 = ``feature_bound`` and ‖yᵢ‖ ≤ 𝒴 = ``label_bound`` (checked:
    the guarantee needs them); replace-one adjacency, m public. The estimate targets the
    least-squares θ = (XᵀX)⁻¹Xᵀy. The data stay in this function: only θ̂ is returned.

    References
    ----------
    Wang, Y.-X. (2018). Revisiting differentially private linear regression: optimal and
    adaptive prediction & estimation in unbounded domain. UAI.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    if x.ndim != 2 or y.ndim != 2 or len(x) != len(y):
        raise InputError("x", "x (m × d) and y (m × k) must have the same number of rows")
    rho, bx, by = validated(rho=rho, feature_bound=feature_bound, label_bound=label_bound)
    tol = 1 + 1e-12
    if np.any(np.linalg.norm(x, axis=1) > bx * tol) or np.any(np.linalg.norm(y, axis=1) > by * tol):
        raise InputError("x", "rows must satisfy ‖x‖ ≤ feature_bound and ‖y‖ ≤ label_bound")
    d = x.shape[1]
    sigmas = adassp_noise(epsilon, delta, feature_bound=bx, label_bound=by, dim=d)
    if not isinstance(random_state, np.random.Generator):  # a seed: the table's rule
        (random_state,) = validated_optional(random_state=random_state)
    rng = np.random.default_rng(random_state)
    xtx, xty = x.T @ x, x.T @ y
    noisy_xtx, noisy_xty, ridge = _adassp_release(xtx, xty, sigmas, delta, rho, rng)
    coef = np.linalg.lstsq(noisy_xtx + ridge * np.eye(d), noisy_xty, rcond=None)[0]
    return AdaSSPResult(coef=coef, ridge=ridge, sigmas=sigmas)


def _adassp_release(
    xtx: NDArray[np.float64],
    xty: NDArray[np.float64],
    sigmas: tuple[float, float, float],
    delta: float,
    rho: float,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """AdaSSP's three releases (steps 1–3 of :func:`adassp`): XᵀX̂, Xᵀŷ and the adaptive λ."""
    s1, s2, s3 = sigmas
    d = xtx.shape[0]
    lam_min = float(np.linalg.eigvalsh(xtx)[0])
    lam_tilde = max(lam_min + s1 * rng.standard_normal() - s1 * math.sqrt(math.log(6 / delta)), 0)
    ridge = max(0.0, s2 * math.sqrt(d * math.log(2 * d * d / rho)) - lam_tilde)
    upper = np.triu(rng.standard_normal((d, d)))
    noisy_xtx = xtx + s2 * (upper + np.triu(upper, 1).T)
    noisy_xty = xty + s3 * rng.standard_normal(xty.shape)
    return noisy_xtx, noisy_xty, ridge
