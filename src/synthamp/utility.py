"""What the released records are worth against a baseline: Gaussian noise on the Gram matrix.

The synthetic records ZV carry the data only through VᵀV (docs/theory.md §3, Proposition
4.1): what a user can estimate from them is the Gram matrix vᵀv, debiased
(:func:`synthamp.release._ridge.debiased_gram`). The simplest private release of that same
statistic is the Gaussian mechanism on vᵀv itself ("Analyze Gauss", Dwork, Talwar,
Thakurta and Zhang 2014), calibrated exactly at the same (ε, δ) (Balle and Wang
2018). This module gives its error, so that every place that reports the records'
utility can say which of the two serves the user better (docs/theory.md §18).

Sensitivity (replace-one, ‖v‖_F, ‖w‖_F ≤ C, ‖v − w‖_F ≤ Δ):
vᵀv − wᵀw = vᵀ(v − w) + (v − w)ᵀw, so ‖vᵀv − wᵀw‖_F ≤ (‖v‖ + ‖w‖)Δ ≤ 2CΔ; and for
positive semi-definite A, B, ‖A − B‖_F² = ‖A‖² + ‖B‖² − 2 tr(AB) ≤ 2C⁴ (tr(AB) ≥ 0),
or C⁴ for k = 1 (both in [0, C²]). The mechanism adds N(0, σ_G²) to each of the k²
entries and symmetrises (post-processing): each diagonal entry keeps variance σ_G²,
each of the k(k − 1)/2 off-diagonal pairs σ_G²/2 per entry, so its root-mean-square
error in Frobenius norm is exactly σ_G·√(k(k + 1)/2), whatever v is.

The other baselines of docs/theory.md §18, each at the same (ε, δ), calibrated exactly by
:func:`synthamp.accountant._pld.gaussian_sigma` (the inverse of the exact profile of
:mod:`synthamp.accountant._gaussian`): the Gaussian synthesizer that samples from the
noisy Gram (:func:`gaussian_synthesizer_error`), output perturbation of v
(:func:`output_perturbation_sigma`, :func:`output_perturbation_error`) and AdaSSP for the
regression (:func:`adassp`). :func:`utility_table` lays them out as rows beside the
records, and :func:`utility_verdict` says in one sentence which serves best for what.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._validation import InputError, check_integer, check_open_unit, check_positive
from synthamp.accountant._pld import gaussian_sigma

__all__ = [
    "AdaSSPResult",
    "adassp",
    "adassp_noise",
    "gaussian_gram_error",
    "gaussian_gram_sigma",
    "gaussian_synthesizer_error",
    "gram_error_bound",
    "gram_sensitivity",
    "output_perturbation_error",
    "output_perturbation_sigma",
    "records_error_floor",
    "release_utility",
    "targets_gram_sensitivity",
    "utility_table",
    "utility_verdict",
]


def gram_error_bound(
    *, sigma: float, dim: int, out_dim: int, norm_bound: float, n_syn: int | None
) -> float:
    """Root-mean-square error bound of the debiased Gram matrix, from public quantities.

    The estimate is :func:`synthamp.release.debiased_gram`.

    With G = VᵀV and Ĝ = S − dσ²I,
    E‖Ĝ − vᵀv‖_F² = E‖S − G‖_F² + E‖G − dσ²I − vᵀv‖_F², where

    - the noise term is exactly 2(k + 1)σ²‖v‖_F² + d k(k + 1)σ⁴
      (G − dσ²I − vᵀv = σ(vᵀN + Nᵀv) + σ²(NᵀN − dI); the cross term vanishes);
    - the sampling term is E[(‖G‖_F² + (tr G)²)]/n (Wishart variances), at most
      2E[(tr G)²]/n = 2[(‖v‖² + dkσ²)² + 2dkσ⁴ + 4σ²‖v‖²]/n.

    Replacing ‖v‖_F by its bound C gives a bound that does not depend on the
    private data.

    Parameters
    ----------
    sigma, norm_bound : float
        σ and C.
    dim, out_dim : int
        d and k.
    n_syn : int or None
        Number of synthetic records (None: the n → ∞ limit).

    Returns
    -------
    float
        An upper bound on sqrt(E‖Ĝ − vᵀv‖_F²).
    """
    sigma = check_positive("sigma", sigma)
    norm_bound = check_positive("norm_bound", norm_bound)
    d = check_integer("dim", dim, 1)
    k = check_integer("out_dim", out_dim, 1)
    # √(Σ tᵢ²) by math.hypot, each tᵢ of the scale of σ², σC or C²: no fourth power is
    # formed, so the bound is finite wherever the Gram matrix is (σ = 1e100 gave an
    # OverflowError in σ⁴)
    s2 = sigma * sigma
    terms = [math.sqrt(2.0 * (k + 1)) * sigma * norm_bound, math.sqrt(d * k * (k + 1.0)) * s2]
    if n_syn is not None:
        n = check_integer("n_syn", n_syn, 1)
        terms += [
            math.sqrt(2.0 / n) * (norm_bound * norm_bound + d * k * s2),
            math.sqrt(4.0 * d * k / n) * s2,
            math.sqrt(8.0 / n) * sigma * norm_bound,
        ]
    return math.hypot(*terms)


def gram_sensitivity(norm_bound: float, sensitivity: float, out_dim: int = 1) -> float:
    """L2 (Frobenius) sensitivity of vᵀv: min(2CΔ, C²) for k = 1, min(2CΔ, √2·C²) for k > 1.

    Certified (the module docstring proves it).
    """
    c = check_positive("norm_bound", norm_bound)
    s = check_positive("sensitivity", sensitivity)
    k = check_integer("out_dim", out_dim, 1)
    return min(2.0 * c * s, c * c * (1.0 if k == 1 else math.sqrt(2.0)))


def gaussian_gram_sigma(
    epsilon: float,
    delta: float,
    *,
    norm_bound: float,
    sensitivity: float,
    out_dim: int = 1,
    releases: int = 1,
) -> float:
    """Noise σ_G of the Gaussian mechanism on vᵀv at (ε, δ), calibrated exactly.

    T releases of the same Gram matrix with noise σ_G compose to one Gaussian
    mechanism of sensitivity √T·s (s = :func:`gram_sensitivity`), whose exact ε(δ)
    (Balle and Wang 2018) is inverted.
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    releases = check_integer("releases", releases, 1)
    s = gram_sensitivity(norm_bound, sensitivity, out_dim)
    return gaussian_sigma(epsilon, delta, s * math.sqrt(releases))


def gaussian_gram_error(
    epsilon: float,
    delta: float,
    *,
    norm_bound: float,
    sensitivity: float,
    out_dim: int = 1,
    releases: int = 1,
) -> float:
    """Root-mean-square error (Frobenius) of the Gaussian mechanism on vᵀv: σ_G·√(k(k+1)/2).

    Exact, for every v (the module docstring). Compare with
    :func:`gram_error_bound` (the records' error at ‖v‖ = C) and
    :func:`records_error_floor` (their error at any v).
    """
    k = check_integer("out_dim", out_dim, 1)
    sigma = gaussian_gram_sigma(
        epsilon,
        delta,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        out_dim=k,
        releases=releases,
    )
    return sigma * math.sqrt(k * (k + 1) / 2.0)


def records_error_floor(sigma: float, dim: int, out_dim: int = 1) -> float:
    """A lower bound, for every v, on the RMSE of the debiased Gram estimate from the records.

    Even with unlimited records, the estimate of vᵀv from VᵀV = (v + σN)ᵀ(v + σN)
    debiased by dσ²I has E‖Ĝ − vᵀv‖_F² = 2(k + 1)σ²‖v‖² + dk(k + 1)σ⁴ ≥ dk(k + 1)σ⁴
    (the noise term of :func:`gram_error_bound`, at v = 0); finitely
    many records only add sampling error.
    """
    sigma = check_positive("sigma", sigma)
    d = check_integer("dim", dim, 1)
    k = check_integer("out_dim", out_dim, 1)
    return sigma * sigma * math.sqrt(d * k * (k + 1))


def targets_gram_sensitivity(label_bound: float, out_dim: int = 1) -> float:
    """Frobenius sensitivity of the targets' Gram YᵀY: B² for k = 1, √2·B² for k > 1.

    Replace-one changes YᵀY by yyᵀ − y′y′ᵀ with ‖y‖, ‖y′‖ ≤ B: for k = 1 both squares
    lie in [0, B²]; for k > 1 the PSD argument of the module docstring gives
    ‖A − B‖_F² ≤ ‖A‖² + ‖B‖² ≤ 2B⁴ (docs/theory.md §18 states the cruder 2B²). Certified.
    """
    b = check_positive("label_bound", label_bound)
    k = check_integer("out_dim", out_dim, 1)
    return b * b * (1.0 if k == 1 else math.sqrt(2.0))


def gaussian_synthesizer_error(
    gram_noise_error: float, *, out_dim: int, gram_norm_bound: float, n_syn: int | None
) -> float:
    """RMSE bound of the second moment estimated from a Gaussian synthesizer's records.

    The synthesizer releases Ĝ = G + E (the Gaussian mechanism on a k × k Gram G, E
    symmetric, E‖E‖_F² = e², e = ``gram_noise_error``), projects it onto the PSD cone,
    A = Π(Ĝ) (eigenvalues clipped at 0), and samples n records rᵢ ~ N(0, A); the user
    estimates G by S/n = Σ rᵢrᵢᵀ/n. Then E‖S/n − G‖_F² = E‖A − G‖² + E[‖A‖² + (tr A)²]/n
    (Wishart variances, Var(rᵢrⱼ) = AᵢᵢAⱼⱼ + Aᵢⱼ²; the cross term vanishes given A), and

    - ‖A − G‖ ≤ ‖Ĝ − G‖: Π is the Frobenius projection onto a closed convex set that
      contains G, hence non-expansive, so E‖A − G‖² ≤ e²;
    - (tr A)² ≤ k‖A‖² (Cauchy–Schwarz on the eigenvalues of A ⪰ 0) and, with
      ‖A‖ ≤ ‖G‖ + ‖A − G‖, E‖A‖² ≤ (‖G‖ + e)² (Cauchy–Schwarz: E X ≤ √(E X²)).

    So sqrt(E‖S/n − G‖²) ≤ √(e² + (k + 1)(g + e)²/n) for ‖G‖_F ≤ g. For G = vᵀv,
    g = C² (‖vᵀv‖_F ≤ ‖v‖_F²) and e = :func:`gaussian_gram_error`; for the targets'
    second moment YᵀY/m, g = B² and e the RMSE of the Gaussian mechanism on YᵀY
    (sensitivity :func:`targets_gram_sensitivity`) divided by m. Certified (an upper bound
    for every G with ‖G‖_F ≤ g); n_syn None gives the n → ∞ limit e.
    """
    e = check_positive("gram_noise_error", gram_noise_error)
    k = check_integer("out_dim", out_dim, 1)
    g = check_positive("gram_norm_bound", gram_norm_bound)
    if n_syn is None:
        return e
    n = check_integer("n_syn", n_syn, 1)
    return math.hypot(e, math.sqrt((k + 1) / n) * (g + e))  # no square of g + e formed


def output_perturbation_sigma(
    epsilon: float, delta: float, *, sensitivity: float, releases: int = 1
) -> float:
    """σ_op of releasing V = v + σ_op N itself at (ε, δ): the Gaussian mechanism on v.

    v has ℓ2 (Frobenius) sensitivity Δ (docs/theory.md §13, §19); T releases compose to
    one Gaussian mechanism of sensitivity Δ√T, whose exact ε(δ) (Balle and Wang 2018,
    Theorem 8; :func:`synthamp.accountant._gaussian.gaussian_epsilon`) is inverted. This
    is the σ of post-processing accounting with the exact (PLD) accountant.
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    s = check_positive("sensitivity", sensitivity)
    releases = check_integer("releases", releases, 1)
    return gaussian_sigma(epsilon, delta, s * math.sqrt(releases))


def output_perturbation_error(sigma: float, dim: int, out_dim: int = 1) -> float:
    """RMSE (Frobenius) of the coefficients V = v + σN as an estimate of v: σ√(dk). Exact.

    E‖V − v‖_F² = σ²E‖N‖_F² = σ²dk, for every v. Its estimate of the second moment,
    VᵀV − dσ²I, has the RMSE of :func:`gram_error_bound` with n_syn None (V itself, no
    sampling).
    """
    sigma = check_positive("sigma", sigma)
    d = check_integer("dim", dim, 1)
    k = check_integer("out_dim", out_dim, 1)
    return sigma * math.sqrt(d * k)


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
    epsilon = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    x = check_positive("feature_bound", feature_bound)
    y = check_positive("label_bound", label_bound)
    d = check_integer("dim", dim, 1)
    releases = check_integer("releases", releases, 1)
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
    rho = check_open_unit("rho", rho)
    bx = check_positive("feature_bound", feature_bound)
    by = check_positive("label_bound", label_bound)
    tol = 1 + 1e-12
    if np.any(np.linalg.norm(x, axis=1) > bx * tol) or np.any(np.linalg.norm(y, axis=1) > by * tol):
        raise InputError("x", "rows must satisfy ‖x‖ ≤ feature_bound and ‖y‖ ≤ label_bound")
    d = x.shape[1]
    sigmas = adassp_noise(epsilon, delta, feature_bound=bx, label_bound=by, dim=d)
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


def utility_table(
    *,
    records: float,
    records_floor: float,
    analyze_gauss: float,
    synthesizer: float,
    op_gram: float,
    op_coef: float,
    norm_bound: float,
    sigma_op: float,
    targets_synthesizer: float | None = None,
    label_bound: float | None = None,
) -> tuple[dict[str, object], ...]:
    """The rows of the utility table: one mechanism, what it releases, its statistic, its error.

    Each row: ``mechanism``, ``releases``, ``statistic``, ``rmse`` (Frobenius; None where
    public quantities cannot give it), ``relative_error`` (rmse over the largest value of
    the statistic: C² for vᵀv, C for v, B² for YᵀY/m), ``ratio_to_records`` (rmse over the
    records' rmse, for the records' statistic vᵀv only; None otherwise), ``rmse_floor`` (the
    records' error for any v, :func:`records_error_floor`; None elsewhere) and ``kind``
    (what the rmse is). All at the same (ε, δ). Noise saved is not a row: it is not utility.
    """
    c2 = norm_bound**2

    def row(mechanism, releases, statistic, rmse, scale, kind, same=True, floor=None):
        return {
            "mechanism": mechanism,
            "releases": releases,
            "statistic": statistic,
            "rmse": rmse,
            "relative_error": None if rmse is None else rmse / scale,
            "ratio_to_records": rmse / records if same and rmse is not None else None,
            "rmse_floor": floor,
            "kind": kind,
        }

    bound = "upper bound at ‖v‖ = C"
    rows = [
        row(
            "synthetic records (this release)",
            "records ZV",
            "vᵀv",
            records,
            c2,
            f"{bound} (at least {records_floor:.4g} for any v: rmse_floor)",
            floor=records_floor,
        ),
        row(
            "the Gaussian mechanism on vᵀv (Analyze Gauss)",
            "vᵀv + E",
            "vᵀv",
            analyze_gauss,
            c2,
            "exact, any v",
        ),
        row(
            "the Gaussian synthesizer",
            "records from N(0, (vᵀv + E)₊)",
            "vᵀv",
            synthesizer,
            c2,
            bound,
        ),
        row(
            "output perturbation of v",
            f"V = v + σN (σ = {sigma_op:.4g})",
            "vᵀv",  # the same statistic, from V: a same-statistic row
            op_gram,
            c2,
            f"{bound} (VᵀV − dσ²I)",
        ),
        row(
            "output perturbation of v",
            f"V = v + σN (σ = {sigma_op:.4g})",
            "v",
            op_coef,
            norm_bound,
            "exact, any v (the records do not carry v)",
            same=False,
        ),
    ]
    if targets_synthesizer is not None and label_bound is not None:
        rows.append(
            row(
                "the Gaussian synthesizer of the targets",
                "records from N(0, (YᵀY + E)₊/m)",
                "YᵀY/m",
                targets_synthesizer,
                label_bound**2,
                "upper bound, any data (another statistic: the targets' second moment)",
                same=False,
            )
        )
    rows.append(
        row(
            "AdaSSP",
            "θ̂ (d × k)",
            "least-squares coefficients",
            None,
            1.0,
            "depends on the data (synthamp.utility.adassp); not from public quantities",
            same=False,
        )
    )
    return tuple(rows)


def utility_verdict(rows: tuple[dict[str, object], ...]) -> str:
    """One plain sentence: which mechanism serves the user best for the second moment and
    for the coefficients, and by how much (the rows of :func:`utility_table`).

    The second moment vᵀv is compared at the largest model ‖v‖ = C (every row's RMSE there;
    Analyze Gauss is exact for every v); where a baseline beats even the records' floor
    (their error for any v) the sentence says so, and where the best error is at least
    the largest value of the statistic (C², or C for v) it says that the estimate 0 does
    as well at ‖v‖ = C. Every output prints this sentence.
    """
    records, *_ = rows
    floor, bound = float(records["rmse_floor"]), float(records["rmse"])
    same = [r for r in rows[1:] if r["statistic"] == "vᵀv" and r["rmse"] is not None]
    best = min(same, key=lambda r: r["rmse"])
    name, b = str(best["mechanism"]), float(best["rmse"])
    if b < floor:
        moment = (
            f"{name} serves you best: RMSE {b:.3g}, {floor / b:.3g}× more accurately than the "
            f"synthetic records can for any model (at least {floor:.3g})"
        )
    elif b < bound:
        moment = (
            f"{name} serves you best at the largest model ‖v‖ = C: RMSE {b:.3g} against the "
            f"synthetic records' {bound:.3g} ({bound / b:.3g}×; their {floor:.3g} at v = 0), "
            "unless ‖v‖ is well below C"
        )
    else:
        moment = (
            f"the synthetic records serve you best: RMSE {bound:.3g} at ‖v‖ = C, at least as "
            f"well as the best baseline, {name} ({b:.3g}, {b / bound:.3g}×)"
        )
    winner = records if b >= bound else best
    if float(winner["relative_error"]) >= 1:  # the estimate 0 has error ‖vᵀv‖ ≤ C² there
        moment += " (at least C²: at ‖v‖ = C no better than the estimate 0)"
    coef = next(r for r in rows if r["statistic"] == "v")
    useless = (
        ", no better than the estimate 0 at ‖v‖ = C" if float(coef["relative_error"]) >= 1 else ""
    )
    return (
        f"baseline: for the second moment vᵀv, {moment}; for the coefficients v, which the "
        f"records do not carry, output perturbation of v gives RMSE {coef['rmse']:.3g} "
        f"({coef['relative_error']:.3g} of C{useless}; AdaSSP's error depends on the data)"
    )


def release_utility(
    *,
    epsilon: float,
    delta: float,
    sigma: float,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None,
    releases: int = 1,
    statistic_sensitivity: float | None = None,
    label_bound: float | None = None,
    n_records: int | None = None,
) -> dict[str, object]:
    """The records' Gram error beside the baseline's, for a release's report.

    ``statistic_sensitivity`` (k = 1, a public design): s₂, the replace-one
    sensitivity of ‖v‖² itself (docs/theory.md §19); the baseline is then the
    Gaussian mechanism on ‖v‖² with it (RMSE σ_G(ε, δ, s₂√T), exact), the
    fair comparison when the accounting uses the same statistic-level adjacency.

    ``label_bound`` and ``n_records`` (B and m, optional): add the Gaussian synthesizer
    of the targets' second moment YᵀY/m to the table.

    Public quantities only (C, Δ, σ, d, k, n_syn, ε, δ, T, B, m): never the model, the
    noise or the seeds.

    Returns
    -------
    dict
        ``gram_error``: :func:`gram_error_bound` at ‖v‖ = C with
        ``n_syn`` records (None: the n → ∞ limit), an upper bound for every v;
        ``gram_error_floor``: :func:`records_error_floor`, a lower bound for every
        v and n; ``gram_error_baseline``: :func:`gaussian_gram_error` at the
        release's (ε, δ), exact; ``utility_table``: :func:`utility_table`, the
        records beside every baseline at that (ε, δ) (Analyze Gauss, the Gaussian
        synthesizer with ``n_syn`` records, output perturbation of v, AdaSSP);
        ``utility_verdict``: :func:`utility_verdict` of the table. Where ε is not
        positive and finite the baselines have no calibration: ``gram_error_baseline``
        is None, the table empty and the verdict empty.
    """
    bound = gram_error_bound(
        sigma=sigma, dim=dim, out_dim=out_dim, norm_bound=norm_bound, n_syn=n_syn
    )
    floor = records_error_floor(sigma, dim, out_dim)
    out: dict[str, float | str | None] = {
        "gram_error": bound,
        "gram_error_floor": floor,
        "gram_error_baseline": None,
        "utility_verdict": "",
        "utility_table": (),
    }
    if not (0.0 < epsilon < math.inf):
        return out
    if statistic_sensitivity is not None:
        if out_dim != 1:
            raise InputError("statistic_sensitivity", "is the sensitivity of ‖v‖² (k = 1)")
        baseline = gaussian_sigma(epsilon, delta, statistic_sensitivity * math.sqrt(releases))
    else:
        baseline = gaussian_gram_error(
            epsilon,
            delta,
            norm_bound=norm_bound,
            sensitivity=sensitivity,
            out_dim=out_dim,
            releases=releases,
        )
    out["gram_error_baseline"] = baseline
    sigma_op = output_perturbation_sigma(epsilon, delta, sensitivity=sensitivity, releases=releases)
    targets = None
    if label_bound is not None and n_records is not None:
        m = check_integer("n_records", n_records, 1)
        k = check_integer("out_dim", out_dim, 1)
        s_y = targets_gram_sensitivity(label_bound, k) * math.sqrt(releases)
        e_y = gaussian_sigma(epsilon, delta, s_y) * math.sqrt(k * (k + 1) / 2.0) / m
        targets = gaussian_synthesizer_error(
            e_y, out_dim=k, gram_norm_bound=label_bound**2, n_syn=n_syn
        )
    rows = utility_table(
        records=bound,
        records_floor=floor,
        analyze_gauss=baseline,
        synthesizer=gaussian_synthesizer_error(
            baseline, out_dim=out_dim, gram_norm_bound=norm_bound**2, n_syn=n_syn
        ),
        op_gram=gram_error_bound(
            sigma=sigma_op, dim=dim, out_dim=out_dim, norm_bound=norm_bound, n_syn=None
        ),
        op_coef=output_perturbation_error(sigma_op, dim, out_dim),
        norm_bound=norm_bound,
        sigma_op=sigma_op,
        targets_synthesizer=targets,
        label_bound=label_bound,
    )
    out["utility_table"] = rows
    out["utility_verdict"] = utility_verdict(rows)
    return out
