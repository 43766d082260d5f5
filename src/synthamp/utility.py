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
"""

from __future__ import annotations

import math

from synthamp._validation import InputError, check_integer, check_open_unit, check_positive
from synthamp.accountant._pld import gaussian_sigma

__all__ = [
    "baseline_verdict",
    "gaussian_gram_error",
    "gaussian_gram_sigma",
    "gram_error_bound",
    "gram_sensitivity",
    "records_error_floor",
    "release_utility",
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
    c2, s2 = norm_bound**2, sigma**2
    noise = 2 * (k + 1) * s2 * c2 + d * k * (k + 1) * s2**2
    sampling = 0.0
    if n_syn is not None:
        n = check_integer("n_syn", n_syn, 1)
        sampling = 2 * ((c2 + d * k * s2) ** 2 + 2 * d * k * s2**2 + 4 * s2 * c2) / n
    return math.sqrt(noise + sampling)


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


def baseline_verdict(records_floor: float, records_bound: float, baseline: float) -> str:
    """One plain sentence: does the Gaussian mechanism on vᵀv serve the user better?

    ``records_floor`` and ``records_bound`` are the records' RMSE at v = 0 (a lower
    bound for every v) and at ‖v‖ = C (an upper bound), ``baseline`` the Gaussian
    mechanism's exact RMSE (all Frobenius). Every output that compares the two
    (plan, demo) prints this sentence.
    """
    name = "the Gaussian mechanism on the Gram matrix (Analyze Gauss) at the same (ε, δ)"
    if baseline < records_floor:
        return (
            f"baseline: {name} estimates vᵀv {records_floor / baseline:.3g}× more accurately "
            "than the synthetic records can for any model (RMSE "
            f"{baseline:.3g} against at least {records_floor:.3g}): if vᵀv is what you need, "
            "release it that way instead"
        )
    if baseline < records_bound:
        return (
            f"baseline: {name} has RMSE {baseline:.3g}, below the synthetic records' "
            f"{records_bound:.3g} at the largest model ‖v‖ = C (and above their "
            f"{records_floor:.3g} at v = 0): it serves you better unless ‖v‖ is well below C"
        )
    return (
        f"baseline: {name} has RMSE {baseline:.3g}, at least the synthetic records' "
        f"{records_bound:.3g} at ‖v‖ = C: the records serve vᵀv at least as well "
        f"({baseline / records_bound:.3g}×)"
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
) -> dict[str, float | str | None]:
    """The records' Gram error beside the baseline's, for a release's report.

    ``statistic_sensitivity`` (k = 1, a public design): s₂, the replace-one
    sensitivity of ‖v‖² itself (docs/theory.md §19); the baseline is then the
    Gaussian mechanism on ‖v‖² with it (RMSE σ_G(ε, δ, s₂√T), exact), the
    fair comparison when the accounting uses the same statistic-level adjacency.

    Public quantities only (C, Δ, σ, d, k, n_syn, ε, δ, T): never the model, the
    noise or the seeds.

    Returns
    -------
    dict
        ``gram_error``: :func:`gram_error_bound` at ‖v‖ = C with
        ``n_syn`` records (None: the n → ∞ limit), an upper bound for every v;
        ``gram_error_floor``: :func:`records_error_floor`, a lower bound for every
        v and n; ``gram_error_baseline``: :func:`gaussian_gram_error` at the
        release's (ε, δ), exact; ``utility_verdict``: :func:`baseline_verdict` of
        the three. Where ε is not positive and finite the baseline has no
        calibration: ``gram_error_baseline`` is None and the verdict empty.
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
    out["utility_verdict"] = baseline_verdict(floor, bound, baseline)
    return out
