"""The written table measured against the anchors: errors of its covariance, correlations, means.

A ``--targets all`` release on an orthogonal design writes records in the table's columns,
drawn from N(μ̂, Σ̂) where (μ̂, Σ̂) is a post-processing of a noisy Gram matrix of the mapped
rows wᵢ = (B/√k')(uᵢ, 1), uᵢ ∈ [−1, 1]ᵏ (docs/theory.md §17). Every anchor that releases that
Gram matrix can feed the same post-processing and write records the same way, so the fair
comparison is row by row at the same (ε, δ) and the same number n of records written:

* **this release**: VᵀV ~ W_k'(D, σ²I, g·WᵀW) exactly (docs/theory.md §19: a rank-k' noncentral
  part plus a central Wishart of D − k' degrees of freedom by Bartlett), debiased
  Ĝ = (VᵀV − Dσ²I)/g;
* **Analyze Gauss's Gaussian synthesizer**: WᵀW + E, E the symmetric isotropic Gaussian (variance
  σ_G² on each orthonormal direction of the symmetric matrices), σ_G calibrated exactly
  (Balle and Wang 2018) at the Frobenius sensitivity √2·B² (:func:`anchor_gram_noise`);
* **the trace-shaped Gaussian** (k' ≥ 2): variance a on the trace-free directions and
  a/(k' + 1) on I/√k', a = σ_G² at the same √2·B² (docs/theory.md §18);
* **the Laplace mechanism** (one target column, k' = 2, one release): Laplace noise of scale b
  on the two private entries (B²/2)(Σuᵢ², Σuᵢ) of WᵀW (the constant entry (B²/2)m is public),
  of ℓ1 sensitivity (B²/2)·sup|u′² − u²| + |u′ − u| = (B²/2)·9/4 over u, u′ ∈ [−1, 1] (at
  u = −1/2, u′ = 1), b = (9/8)B²/ε: pure ε-DP, hence (ε, δ)-DP for every δ.

Each Gram estimate is post-processed by the caller's ``post_process`` (the release's own
``table_moments``: PSD projection, the means from the constant column, the variances kept
where [−1, 1] allows them), n records are drawn from N(μ̂, Σ̂) and the user computes their
mean and (ddof = 1) covariance and correlation matrix. Given (μ̂, Σ̂) these are exactly
N(μ̂, Σ̂/n) and W_k(n − 1, Σ̂)/(n − 1), independent (sampled by Bartlett, O(k³) whatever n).
The projection and the clipping make the error a non-linear function of the noise, with no
closed form: :func:`table_anchor_errors` gives a **Monte Carlo estimate** (``Kind.ESTIMATE``)
of the root-mean-square error of each statistic, over the mechanism's noise and the n
records, with a 95% interval (the delta method on the mean of the squared errors). Errors
are in the coordinates of the declared ranges (each column onto [−1, 1]: unit-free and
public): the covariance ‖Ĉ − C‖_F, the correlation matrix ‖R̂ − R‖_F, the means ‖μ̂ − μ‖₂.
The Gram matrix of the records themselves has the exact error of
:func:`synthamp.utility.records_gram_rmse` (no post-processing).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._parameters import (
    RECORDS_WRITTEN,
    at_least,
    validated,
    validated_one,
    validated_optional,
)
from synthamp._validation import InputError
from synthamp.accountant._pld import gaussian_sigma

__all__ = [
    "LAPLACE_L1_SENSITIVITY",
    "TABLE_ERRORS_NOTE",
    "TABLE_MECHANISMS",
    "TABLE_STATISTICS",
    "TableError",
    "anchor_gram_noise",
    "mapped_gram",
    "table_anchor_errors",
    "table_error_rows",
]

#: The mechanisms of the table, in order (``laplace`` only for one target column).
TABLE_MECHANISMS = ("records", "analyze_gauss", "trace_shaped", "laplace")
#: What each mechanism releases, for the report's rows.
MECHANISM_NAMES = {
    "records": "synthetic records (this release)",
    "analyze_gauss": "Analyze Gauss's Gaussian synthesizer",
    "trace_shaped": "the trace-shaped Gaussian's synthesizer",
    "laplace": "the Laplace mechanism's synthesizer",
}
#: The statistics measured, in order.
TABLE_STATISTICS = ("covariance", "correlation", "means")
#: ℓ1 sensitivity of (Σuᵢ², Σuᵢ) under one replaced row, u ∈ [−1, 1]: sup (|u′² − u²| + |u′ − u|).
LAPLACE_L1_SENSITIVITY = 2.25
#: z of a two-sided 95% interval.
_Z95 = 1.959963984540054

PostProcess = Callable[
    [NDArray[np.float64], float], tuple[NDArray[np.float64], NDArray[np.float64]]
]


@dataclass(frozen=True)
class TableError:
    """One mechanism's root-mean-square error on one statistic of the written table.

    Attributes
    ----------
    mechanism : str
        One of :data:`TABLE_MECHANISMS`.
    statistic : str
        One of :data:`TABLE_STATISTICS`.
    rmse, low, high : float
        The Monte Carlo estimate of sqrt(E err²) and its 95% interval.
    n_syn : int or None
        The records the error is for (None: n → ∞, the moments themselves).
    reps : int
        Monte Carlo repetitions.
    """

    mechanism: str
    statistic: str
    rmse: float
    low: float
    high: float
    n_syn: int | None
    reps: int

    @property
    def kind(self) -> str:
        """What the number is (worded once)."""
        return f"estimate (Monte Carlo, {self.reps} runs; 95%: {self.low:.3g}–{self.high:.3g})"


def mapped_gram(mean_u: ArrayLike, cov_u: ArrayLike, n_records: int, label_bound: float):
    """WᵀW of m mapped rows (B/√k')(u, 1) whose u have mean ``mean_u`` and (1/m) covariance.

    (B²/k')·[[m(C + μμᵀ), mμ], [mμᵀ, m]], k' = k + 1: what the release's Gram carries.
    """
    mu = np.asarray(mean_u, dtype=float).reshape(-1)
    k = mu.size
    cov = np.asarray(cov_u, dtype=float).reshape(k, k)
    m = float(validated_one("n_records", n_records))
    out = np.empty((k + 1, k + 1))
    out[:k, :k] = m * (cov + np.outer(mu, mu))
    out[:k, k] = out[k, :k] = m * mu
    out[k, k] = m
    return out * (validated_one("label_bound", label_bound) ** 2 / (k + 1))


def anchor_gram_noise(
    epsilon: float, delta: float, *, label_bound: float, out_dim: int, releases: int = 1
) -> dict[str, float]:
    """The anchors' noise on WᵀW (k' × k', ``out_dim`` = k') at (ε, δ), calibrated exactly.

    ``analyze_gauss``: σ_G (the Gaussian mechanism at the Frobenius sensitivity √2·B², B² for
    k' = 1); ``trace_shaped``: √a of the trace-free part (the same σ_G: its Mahalanobis
    sensitivity is √2·B², docs/theory.md §18); ``laplace`` (k' = 2, one release): the scale
    b = (9/8)B²/ε (module docstring), NaN otherwise.
    """
    epsilon, delta = validated(epsilon=epsilon, delta=delta)
    b2 = validated_one("label_bound", label_bound) ** 2
    k, releases = validated(out_dim=out_dim, releases=releases)
    s = b2 * (1.0 if k == 1 else math.sqrt(2.0)) * math.sqrt(releases)
    sigma_g = gaussian_sigma(epsilon, delta, s)
    laplace = b2 / 2.0 * LAPLACE_L1_SENSITIVITY / epsilon if k == 2 and releases == 1 else math.nan
    return {"analyze_gauss": sigma_g, "trace_shaped": sigma_g, "laplace": laplace}


def _symmetric_isotropic(rng: np.random.Generator, k: int, scale: float) -> NDArray[np.float64]:
    """Symmetric Gaussian matrix with variance scale² on each orthonormal direction.

    (Z + Zᵀ)/2 of iid N(0, scale²) entries: the diagonal has variance scale², each
    off-diagonal entry scale²/2, so the coefficient on (eᵢeⱼᵀ + eⱼeᵢᵀ)/√2 has scale².
    """
    z = rng.standard_normal((k, k)) * scale
    return (z + z.T) / 2.0


def _wishart_identity(rng: np.random.Generator, dof: float, k: int) -> NDArray[np.float64]:
    """W_k(dof, I) by Bartlett (dof ≥ k) or as a Gram of a dof × k normal matrix (dof < k)."""
    if dof < k:
        g = rng.standard_normal((int(dof), k))
        return g.T @ g
    low = np.tril(rng.standard_normal((k, k)), -1)
    low[np.diag_indices(k)] = np.sqrt(rng.chisquare(dof - np.arange(k)))
    return low @ low.T


def _sqrt_factor(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """F with FᵀF = matrix (symmetric square root; the matrix may be singular)."""
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2.0)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def _noisy_grams(mechanism, truth, rng, *, sigma, width, gram_scale, noise):
    """One draw of the mechanism's estimate of WᵀW (``truth``, k' × k')."""
    k = truth.shape[0]
    if mechanism == "records":
        a = _sqrt_factor(gram_scale * truth)  # aᵀa = vᵀv = g·WᵀW (orthogonal design)
        top = a + sigma * rng.standard_normal((k, k))
        s = top.T @ top + sigma**2 * _wishart_identity(rng, width - k, k)
        return (s - width * sigma**2 * np.eye(k)) / gram_scale
    if mechanism == "analyze_gauss":
        return truth + _symmetric_isotropic(rng, k, noise["analyze_gauss"])
    if mechanism == "trace_shaped":
        e = _symmetric_isotropic(rng, k, noise["trace_shaped"])
        along = np.trace(e) / math.sqrt(k)  # the coefficient on I/√k, variance a
        shaped = rng.standard_normal() * noise["trace_shaped"] / math.sqrt(k + 1)
        return truth + e + (shaped - along) * np.eye(k) / math.sqrt(k)
    # laplace: the two private entries of a 2 × 2 Gram (one target column and the constant)
    b = noise["laplace"]
    out = truth.copy()
    out[0, 0] += rng.laplace(0.0, b)
    cross = rng.laplace(0.0, b)
    out[0, 1] += cross
    out[1, 0] += cross
    return out


def _correlation(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """The correlation matrix (a zero variance gives zero correlations, 1 on the diagonal)."""
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    safe = np.where(sd > 0, sd, 1.0)
    out = cov / np.outer(safe, safe)
    out[np.outer(sd, sd) == 0] = 0.0
    np.fill_diagonal(out, 1.0)
    return out


def _written(rng, mean, cov, n_syn):
    """The mean and (ddof = 1) covariance of n records N(mean, cov), exactly in law."""
    if n_syn is None:
        return mean, cov
    f = _sqrt_factor(cov)
    k = mean.size
    sample_mean = mean + f.T @ rng.standard_normal(k) / math.sqrt(n_syn)
    if n_syn < 2:
        return sample_mean, np.zeros_like(cov)
    w = _wishart_identity(rng, n_syn - 1, k)
    return sample_mean, f.T @ w @ f / (n_syn - 1)


def _summary(squares: NDArray[np.float64]) -> tuple[float, float, float]:
    """sqrt of the mean of squared errors and its 95% interval (delta method on the mean)."""
    m = float(np.mean(squares))
    half = _Z95 * float(np.std(squares, ddof=1)) / math.sqrt(squares.size)
    return math.sqrt(m), math.sqrt(max(m - half, 0.0)), math.sqrt(m + half)


def table_anchor_errors(
    *,
    mean_u: ArrayLike,
    cov_u: ArrayLike,
    n_records: int,
    label_bound: float,
    epsilon: float,
    delta: float,
    sigma: float,
    width: int,
    gram_scale: float,
    post_process: PostProcess,
    n_syn: int | None,
    reps: int = 400,
    seed: int = 0,
    mechanisms: tuple[str, ...] | None = None,
) -> tuple[TableError, ...]:
    """Each mechanism's RMSE on the written table's covariance, correlations and means. Estimate.

    Parameters
    ----------
    mean_u, cov_u : array_like
        The table's means and (1/m) covariance in the coordinates of the declared ranges
        (each column onto [−1, 1]): the truth the errors are measured against (the private
        table in a benchmark; a released, public plug-in in a report).
    n_records : int
        m.
    label_bound : float
        B.
    epsilon, delta : float
        The release's (ε, δ): the anchors are calibrated at it.
    sigma : float
        The release's σ.
    width : int
        D (orthogonal design).
    gram_scale : float
        g = (1 + mλ)⁻²: vᵀv = g·WᵀW on the orthogonal design.
    post_process : callable
        ``post_process(gram, constant) -> (mean_u, cov_u)``: the release's own map from an
        estimate of WᵀW (its constant entry's true value ``constant`` = (B²/k')·m) to the
        moments, in the coordinates of the declared ranges.
    n_syn : int or None
        Records written (None: n → ∞, the moments themselves).
    reps : int, default 400
        Monte Carlo repetitions per mechanism.
    seed : int, default 0
        Seed of the Monte Carlo (public: these are statistics of a public or benchmark truth).
    mechanisms : tuple of str, optional
        A subset of :data:`TABLE_MECHANISMS` (default: every one that applies; ``laplace``
        for one target column only).

    Returns
    -------
    tuple of TableError
        One per (mechanism, statistic), in the order of :data:`TABLE_MECHANISMS` and
        :data:`TABLE_STATISTICS`.
    """
    mean_u = np.asarray(mean_u, dtype=float).reshape(-1)
    k = mean_u.size
    cov_u = np.asarray(cov_u, dtype=float).reshape(k, k)
    reps, sigma = validated(reps=reps, sigma=sigma)
    width = at_least("width", validated_one("width", width), k + 1)
    gram_scale = validated_one("gram_scale", gram_scale)
    (n,) = validated_optional(RECORDS_WRITTEN, n_syn=n_syn)
    truth = mapped_gram(mean_u, cov_u, n_records, label_bound)
    constant = float(truth[-1, -1])
    noise = anchor_gram_noise(epsilon, delta, label_bound=label_bound, out_dim=k + 1)
    if mechanisms is None:
        mechanisms = TABLE_MECHANISMS if k == 1 else TABLE_MECHANISMS[:3]
    unknown = [name for name in mechanisms if name not in TABLE_MECHANISMS]
    if unknown or ("laplace" in mechanisms and k != 1):
        raise InputError("mechanisms", f"must be among {TABLE_MECHANISMS} (laplace: k = 1 only)")
    corr_true = _correlation(cov_u)
    rng = np.random.default_rng(seed)
    out = []
    for name in mechanisms:
        squares = np.empty((reps, 3))
        for r in range(reps):
            gram = _noisy_grams(
                name, truth, rng, sigma=sigma, width=width, gram_scale=gram_scale, noise=noise
            )
            mean, cov = post_process(gram, constant)
            mean, cov = _written(rng, np.asarray(mean, float), np.asarray(cov, float), n)
            squares[r] = (
                np.sum((cov - cov_u) ** 2),
                np.sum((_correlation(cov) - corr_true) ** 2),
                np.sum((mean - mean_u) ** 2),
            )
        for j, statistic in enumerate(TABLE_STATISTICS):
            out.append(TableError(name, statistic, *_summary(squares[:, j]), n, reps))
    return tuple(out)


#: What the table's rows of a release's utility table are (worded once; every output renders it).
TABLE_ERRORS_NOTE = (
    "The rows on the table's covariance, correlations and means compare the records written "
    "with the synthesizers of the anchors (Analyze Gauss, the trace-shaped Gaussian, and for "
    "one column the Laplace mechanism), each calibrated at the same (ε, δ), post-processed the "
    "same way and writing the same number of records: Monte Carlo estimates with 95% "
    "intervals, at the released moments (a post-processing of VᵀV, covered by the guarantee), "
    "in the coordinates of the declared ranges (each column onto [−1, 1])."
)
#: The statistics as the rows name them.
STATISTIC_NAMES = {
    "covariance": "the table's covariance",
    "correlation": "the table's correlations",
    "means": "the table's means",
}


def _largest(statistic: str, k: int) -> float:
    """The largest value of the statistic for u ∈ [−1, 1]ᵏ (Frobenius or Euclidean norm)."""
    if statistic == "covariance":
        return float(k)  # every entry of the covariance of u is at most 1 in magnitude
    if statistic == "correlation":
        return math.sqrt(k * (k - 1.0))  # the off-diagonal entries (the diagonal is 1)
    return math.sqrt(k)


def table_error_rows(
    at_n: tuple[TableError, ...], unlimited: tuple[TableError, ...], out_dim: int
) -> tuple[dict[str, object], ...]:
    """The errors of :func:`table_anchor_errors` as rows of a release's utility table.

    ``at_n`` at the records written, ``unlimited`` at n → ∞ (same mechanisms and statistics),
    ``out_dim`` the table's k (the constant excluded). The rows carry the keys of
    :func:`synthamp.utility.utility_table` (``relative_error``: the RMSE over the largest
    value of the statistic on [−1, 1]ᵏ; ``best``: the smallest RMSE of its statistic;
    ``ratio_to_records``: over the records' RMSE on the same statistic) and the interval
    ``rmse_low``, ``rmse_high``. k = 1 has no correlation rows (the 1 × 1 matrix is 1).
    """
    k = validated_one("out_dim", out_dim)
    limit = {(e.mechanism, e.statistic): e.rmse for e in unlimited}
    records = {e.statistic: e.rmse for e in at_n if e.mechanism == "records"}
    rows: list[dict[str, object]] = []
    for e in at_n:
        if e.statistic == "correlation" and k == 1:
            continue
        relative = e.rmse / _largest(e.statistic, k)
        rows.append({
            "mechanism": MECHANISM_NAMES[e.mechanism],
            "releases": "records in the table's units" if e.mechanism == "records"
            else "records from the noisy Gram, post-processed as the release's",
            "statistic": STATISTIC_NAMES[e.statistic],
            "rmse": e.rmse,
            "rmse_low": e.low,
            "rmse_high": e.high,
            "relative_error": relative,
            "ratio_to_records": e.rmse / records[e.statistic] if records[e.statistic] > 0
            else None,
            "rmse_floor": None,
            "kind": e.kind,
            "n_syn": e.n_syn,
            "rmse_unlimited": limit.get((e.mechanism, e.statistic)),
            "no_information": relative > 1.0,
            "best": False,
        })  # fmt: skip
    for statistic in STATISTIC_NAMES.values():
        same = [r for r in rows if r["statistic"] == statistic]
        if same:
            min(same, key=lambda r: float(r["rmse"]))["best"] = True
    return tuple(rows)
