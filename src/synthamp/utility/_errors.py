"""Each mechanism's error on the records' statistic vᵀv, at the same (ε, δ).

The synthetic records ZV carry the data only through VᵀV (docs/theory.md §3, Proposition
4.1): what a user can estimate from them is the Gram matrix vᵀv, debiased
(:func:`synthamp.release._ridge.debiased_gram`), with the error :func:`records_gram_rmse`
(exact at a given vᵀv and number of records) and :func:`gram_error_bound` (its supremum
over ‖v‖_F ≤ C). The simplest private release of that same statistic is the Gaussian
mechanism on vᵀv itself ("Analyze Gauss", Dwork, Talwar, Thakurta and Zhang 2014),
calibrated exactly at the same (ε, δ) (Balle and Wang 2018); the best anchors are the
Laplace mechanism on the scalar ‖v‖² (k = 1, :func:`laplace_statistic_error`) and the
trace-shaped Gaussian (k ≥ 2, :func:`trace_shaped_gram_error`).

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
noisy Gram (:func:`gaussian_synthesizer_error`) and output perturbation of v
(:func:`output_perturbation_sigma`, :func:`output_perturbation_error`). Kernel:
:func:`_records_gram_rmse`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from synthamp._parameters import RECORDS_WRITTEN, validated, validated_one, validated_optional
from synthamp.accountant._laplace import laplace_calibration
from synthamp.accountant._pld import gaussian_sigma


def _records_gram_rmse(
    sigma: float, d: int, k: int, trace: float, frobenius: float, n_syn: int | None
) -> float:
    """sqrt(E‖Ĝ − vᵀv‖_F²) of the debiased Gram from ``n_syn`` records (:func:`records_gram_rmse`).

    ``trace`` = tr vᵀv = ‖v‖_F², ``frobenius`` = ‖vᵀv‖_F; validated by the callers. The
    mean squared error is a sum of squares, each of the scale of σ², σ√tr or tr: their
    root is taken by ``math.hypot``, so no fourth power is formed and the result is finite
    wherever the Gram matrix is (σ = 1e100 gave an OverflowError in σ⁴).
    """
    s2, root = sigma * sigma, math.sqrt(trace)
    # 2(k + 1)σ² tr Ω + dk(k + 1)σ⁴
    noise = [math.sqrt(2.0 * (k + 1)) * sigma * root, math.sqrt(d * k * (k + 1.0)) * s2]
    if n_syn is None:
        return math.hypot(*noise)
    # ‖E G‖_F² = ‖Ω‖_F² + 2dσ² tr Ω + d²kσ⁴; E (tr G)² = (tr Ω + dkσ²)² + 2dkσ⁴ + 4σ² tr Ω
    mean_sq = [frobenius, math.sqrt(2.0 * d) * sigma * root, d * math.sqrt(k) * s2]
    trace_sq = [trace + d * k * s2, math.sqrt(2.0 * d * k) * s2, 2.0 * sigma * root]
    scale = 1.0 / math.sqrt(n_syn)
    return math.hypot(*noise, *(scale * t for t in (*mean_sq, *noise, *trace_sq)))


def records_gram_rmse(
    *, sigma: float, dim: int, out_dim: int, model_gram: ArrayLike, n_syn: int | None
) -> float:
    """Root-mean-square error of the debiased Gram from ``n_syn`` records, at a given vᵀv. Exact.

    The records rᵢ are, given V, iid N(0, σ_z²G) with G = VᵀV = (v + σN)ᵀ(v + σN), and
    Ĝ = S − dσ²I with S = Σ rᵢrᵢᵀ/(nσ_z²) (:func:`synthamp.release.debiased_gram`). Then
    E‖Ĝ − vᵀv‖_F² = E‖S − G‖_F² + E‖G − dσ²I − vᵀv‖_F² (the cross term vanishes: E[S | G] = G),
    with, for Ω = vᵀv (docs/theory.md §18),

    - noise: E‖G − dσ²I − Ω‖_F² = Σᵢⱼ Var Gᵢⱼ = 2(k + 1)σ² tr Ω + dk(k + 1)σ⁴
      (noncentral Wishart: Var Gᵢⱼ = σ²(Ωᵢᵢ + Ωⱼⱼ + 2δᵢⱼΩᵢⱼ) + dσ⁴(1 + δᵢⱼ));
    - sampling: E‖S − G‖_F² = E[‖G‖_F² + (tr G)²]/n (Var Sᵢⱼ = (GᵢᵢGⱼⱼ + Gᵢⱼ²)/n given G), with
      E‖G‖_F² = ‖Ω + dσ²I‖_F² + (the noise term) and, tr G being σ² times a noncentral
      χ²(dk, tr Ω/σ²), E(tr G)² = (tr Ω + dkσ²)² + 2dkσ⁴ + 4σ² tr Ω.

    For k = 1 this is 4σ²‖v‖² + 2dσ⁴ + 2[(‖v‖² + dσ²)² + 2dσ⁴ + 4σ²‖v‖²]/n: the sampling
    part is ≈ ‖VᵀV‖·√(2/n) in standard deviation. The private ``model_gram`` enters this
    function only (tests, research); reports use :func:`gram_error_bound`.

    Parameters
    ----------
    sigma : float
        σ.
    dim, out_dim : int
        d and k.
    model_gram : array_like of shape (k, k)
        vᵀv.
    n_syn : int or None
        Records (None: the n → ∞ limit, the noise term alone).
    """
    sigma, d, k = validated(sigma=sigma, dim=dim, out_dim=out_dim)
    gram = np.asarray(model_gram, dtype=float).reshape(k, k)
    (n,) = validated_optional(RECORDS_WRITTEN, n_syn=n_syn)
    trace, frobenius = float(np.trace(gram)), float(np.linalg.norm(gram))
    return _records_gram_rmse(sigma, d, k, trace, frobenius, n)


def gram_error_bound(
    *, sigma: float, dim: int, out_dim: int, norm_bound: float, n_syn: int | None
) -> float:
    """Root-mean-square error of the debiased Gram matrix at the worst model ‖v‖_F ≤ C.

    The estimate is :func:`synthamp.release.debiased_gram`. Its mean squared error
    (:func:`records_gram_rmse`, exact for every v) increases in tr vᵀv = ‖v‖_F² and in
    ‖vᵀv‖_F ≤ tr vᵀv; both reach C² at a rank-one v with ‖v‖_F = C, so this is the exact
    supremum over the model set, from public quantities only:
    2(k + 1)σ²C² + dk(k + 1)σ⁴ plus, with n records, E[‖G‖_F² + (tr G)²]/n at Ω = vᵀv of
    rank one and trace C².

    Parameters
    ----------
    sigma, norm_bound : float
        σ and C.
    dim, out_dim : int
        d and k.
    n_syn : int or None
        Number of synthetic records the error is for (None: the n → ∞ limit).

    Returns
    -------
    float
        sup over ‖v‖_F ≤ C of sqrt(E‖Ĝ − vᵀv‖_F²).
    """
    sigma, norm_bound = validated(sigma=sigma, norm_bound=norm_bound)
    d, k = validated(dim=dim, out_dim=out_dim)
    (n,) = validated_optional(RECORDS_WRITTEN, n_syn=n_syn)
    c2 = norm_bound * norm_bound
    return _records_gram_rmse(sigma, d, k, c2, c2, n)


def gram_sensitivity(norm_bound: float, sensitivity: float, out_dim: int = 1) -> float:
    """L2 (Frobenius) sensitivity of vᵀv: min(2CΔ, C²) for k = 1, min(2CΔ, √2·C²) for k > 1.

    Certified (the module docstring proves it).
    """
    c, s, k = validated(norm_bound=norm_bound, sensitivity=sensitivity, out_dim=out_dim)
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
    epsilon, delta, releases = validated(epsilon=epsilon, delta=delta, releases=releases)
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
    k = validated_one("out_dim", out_dim)
    sigma = gaussian_gram_sigma(
        epsilon,
        delta,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        out_dim=k,
        releases=releases,
    )
    return sigma * math.sqrt(k * (k + 1) / 2.0)


def design_statistic_sensitivity(
    out_dim: int, gram_sensitivity: float | None, gram_sensitivity_theory: float
) -> float:
    """Replace-one sensitivity of the Gram statistic vᵀv = YᵀGY on a public design. Certified.

    k = 1: ``gram_sensitivity``, s₂, the exact supremum of |‖v‖² − ‖w‖²| (docs/theory.md
    §19). k ≥ 2: √2·``gram_sensitivity_theory`` = √2·B²·maxᵢ(Gᵢᵢ + 4rᵢ), a bound on
    N(ΔG) = √(‖ΔG‖_F² + (tr ΔG)²) ≥ ‖ΔG‖_F, so on the sensitivity of both Analyze Gauss and
    the trace-shaped Gaussian. Proof: a change of record i gives
    ΔG = Gᵢᵢ(y′y′ᵀ − yyᵀ) + (y′ − y)uᵀ + u(y′ − y)ᵀ with u = Σ_{j≠i}Gᵢⱼyⱼ, ‖u‖ ≤ B rᵢ;
    N is a norm; N of the first term is at most √2·GᵢᵢB² (‖y‖, ‖y′‖ ≤ B, docs/theory.md
    §18), and the second has ‖·‖_F ≤ 4B²rᵢ and |tr| ≤ 4B²rᵢ, so N ≤ √2·4B²rᵢ. Exact on an
    orthogonal design (rᵢ = 0; y ⊥ y′ with ‖y‖ = ‖y′‖ = B attains √2·gB²); on a random
    design an upper bound, so the anchors calibrated with it are valid but may be beaten
    by ones calibrated at the (unknown) exact supremum.
    """
    k = validated_one("out_dim", out_dim)
    if k == 1:
        return validated_one("gram_sensitivity", gram_sensitivity)
    return math.sqrt(2.0) * validated_one("gram_sensitivity_theory", gram_sensitivity_theory)


def laplace_statistic_error(
    epsilon: float, delta: float, *, statistic_sensitivity: float, releases: int = 1
) -> float:
    """RMSE of the Laplace mechanism on a scalar statistic at (ε, δ): √2·b. Exact, any data.

    b is :func:`synthamp.accountant._laplace.laplace_calibration` (closed form for one
    release, b ≈ s/ε; T releases composed exactly by PLD). The best anchor for one
    scalar (k = 1) in few releases (docs/theory.md §18): at (1, 1e-5) its RMSE is 2.6×
    below the Gaussian mechanism's at the same sensitivity; from about 7 releases the
    Gaussian wins.
    """
    s = validated_one("statistic_sensitivity", statistic_sensitivity)  # errors name it
    calibration = laplace_calibration(epsilon, delta, s, releases)
    return calibration.sd


def trace_shaped_sensitivity(norm_bound: float, sensitivity: float | None = None) -> float:
    """√(‖ΔG‖_F² + (tr ΔG)²) over replace-one changes: √2·C², and 2√2·CΔ if Δ is given. Certified.

    For PSD A, B with tr A, tr B ≤ C² (Gram matrices of ‖v‖_F ≤ C, or yyᵀ with ‖y‖ ≤ C):
    ‖A − B‖_F² + (tr A − tr B)² ≤ 2C⁴ (docs/theory.md §18: ‖A‖_F ≤ tr A, tr AB ≥ 0 and
    a² + b² − ab ≤ C⁴ on [0, C²]²); with ‖v − w‖_F ≤ Δ both ‖ΔG‖_F and |tr ΔG| are at most
    2CΔ. This is the Mahalanobis sensitivity of the trace-shaped Gaussian
    (:func:`trace_shaped_gram_error`) in units of its trace-free noise.
    """
    c = validated_one("norm_bound", norm_bound)
    out = math.sqrt(2.0) * c * c
    if sensitivity is not None:
        out = min(out, 2.0 * math.sqrt(2.0) * c * validated_one("sensitivity", sensitivity))
    return out


def trace_shaped_gram_error(
    epsilon: float, delta: float, *, out_dim: int, trace_sensitivity: float, releases: int = 1
) -> float:
    """RMSE (Frobenius) of the trace-shaped Gaussian mechanism on a k × k Gram, at (ε, δ). Exact.

    The noise is a symmetric Gaussian with variance a on each of the k(k + 1)/2 − 1
    directions of the trace-free part and a/(k + 1) on I/√k. For a change ΔG its
    Mahalanobis norm is √(‖ΔG_tf‖² + (k + 1)(tr ΔG)²/k)/√a = √(‖ΔG‖_F² + (tr ΔG)²)/√a, so the
    mechanism is the Gaussian mechanism of sensitivity ``trace_sensitivity``
    (:func:`trace_shaped_sensitivity`) at noise √a, calibrated exactly (Balle and Wang
    2018; T releases: sensitivity √T times). Its RMSE is
    √a·√(k(k + 1)/2 − 1 + 1/(k + 1)): at the sensitivity √2·C² (where isotropic Analyze
    Gauss has √2·C² too) 0.882× (k = 2), 0.935× (k = 3) of Analyze Gauss's
    (Nikolov and Tang 2024 on optimal Gaussian noise for a domain).
    """
    k, s, releases = validated(
        out_dim=out_dim, trace_sensitivity=trace_sensitivity, releases=releases
    )
    a = gaussian_sigma(
        validated_one("epsilon", epsilon), validated_one("delta", delta), s * math.sqrt(releases)
    )
    return a * math.sqrt(k * (k + 1) / 2.0 - 1.0 + 1.0 / (k + 1))


def records_error_floor(sigma: float, dim: int, out_dim: int = 1) -> float:
    """A lower bound, for every v, on the RMSE of the debiased Gram estimate from the records.

    Even with unlimited records, the estimate of vᵀv from VᵀV = (v + σN)ᵀ(v + σN)
    debiased by dσ²I has E‖Ĝ − vᵀv‖_F² = 2(k + 1)σ²‖v‖² + dk(k + 1)σ⁴ ≥ dk(k + 1)σ⁴
    (the noise term of :func:`gram_error_bound`, at v = 0); finitely
    many records only add sampling error.
    """
    sigma, d, k = validated(sigma=sigma, dim=dim, out_dim=out_dim)
    return sigma * sigma * math.sqrt(d * k * (k + 1))


def targets_gram_sensitivity(label_bound: float, out_dim: int = 1) -> float:
    """Frobenius sensitivity of the targets' Gram YᵀY: B² for k = 1, √2·B² for k > 1.

    Replace-one changes YᵀY by yyᵀ − y′y′ᵀ with ‖y‖, ‖y′‖ ≤ B: for k = 1 both squares
    lie in [0, B²]; for k > 1 the PSD argument of the module docstring gives
    ‖A − B‖_F² ≤ ‖A‖² + ‖B‖² ≤ 2B⁴ (docs/theory.md §18 states the cruder 2B²). Certified.
    """
    b, k = validated(label_bound=label_bound, out_dim=out_dim)
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
    e, k, g = validated(
        gram_noise_error=gram_noise_error, out_dim=out_dim, gram_norm_bound=gram_norm_bound
    )
    if n_syn is None:
        return e
    n = validated_one("n_syn", n_syn, RECORDS_WRITTEN)
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
    epsilon, delta, s, releases = validated(
        epsilon=epsilon, delta=delta, sensitivity=sensitivity, releases=releases
    )
    return gaussian_sigma(epsilon, delta, s * math.sqrt(releases))


def output_perturbation_error(sigma: float, dim: int, out_dim: int = 1) -> float:
    """RMSE (Frobenius) of the coefficients V = v + σN as an estimate of v: σ√(dk). Exact.

    E‖V − v‖_F² = σ²E‖N‖_F² = σ²dk, for every v. Its estimate of the second moment,
    VᵀV − dσ²I, has the RMSE of :func:`gram_error_bound` with n_syn None (V itself, no
    sampling).
    """
    sigma, d, k = validated(sigma=sigma, dim=dim, out_dim=out_dim)
    return sigma * math.sqrt(d * k)
