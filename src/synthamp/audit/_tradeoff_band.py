"""The empirical trade-off curve with confidence intervals, and its Gaussian-DP fit.

The end-to-end audit of the worst pair (:mod:`synthamp.audit._worst_pair`) tests
every threshold τ of a grid fixed before the runs: FPR(τ) = Q(T > τ) on the
neighbour D′, FNR(τ) = P(T <= τ) on D. Each rate gets a two-sided Clopper–Pearson
interval (Clopper and Pearson 1934): with k of n runs,
[Beta⁻¹((1 − γ)/2; k, n − k + 1), Beta⁻¹((1 + γ)/2; k + 1, n − k)], so each interval
covers its rate with probability >= γ (the test of :mod:`tests/audit` checks it by
repetition against rates computed exactly from the law). The exact rates of the
mechanism at the same thresholds stand beside them: ``covered`` is the share of
thresholds whose two intervals contain the exact rates.

**Gaussian differential privacy (GDP).** A μ-GDP trade-off curve (Dong, Roth and Su
2022) is FNR = Φ(Φ⁻¹(1 − FPR) − μ), so each test gives
μ(τ) = Φ⁻¹(1 − FPR(τ)) − Φ⁻¹(FNR(τ)). The fit of a curve is μ at the threshold τ*
where the predicted standard deviation of μ̂ (delta method, from the exact rates) is
smallest: τ* is chosen from the law before the runs, so the interval
[μ(FPR↑, FNR↑), μ(FPR↓, FNR↓)] (each rate's interval at level (1 + γ)/2, both
together >= γ) covers the μ(τ*) of the implementation with probability >= γ. The
mechanism's μ is the same functional of its exact curve, μ(τ*); ``mu_ratio`` is
μ_emp/μ with its interval. A weighted fit over every threshold with at least
:data:`MIN_COUNT` errors on each side (weights 1/var, the same for both curves) is
reported beside it (a point estimate, no interval). The GDP reading of ε (the ε(δ) of
μ↓-GDP, Balle and Wang 2018) is an **estimate**: it assumes the curve is Gaussian,
which this mechanism's is not exactly; the certified lower bounds are the threshold
and family estimators'.

References
----------
Clopper, C. J. and Pearson, E. S. (1934). Biometrika 26(4).
Dong, J., Roth, A. and Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1).
Nasr, M., Hayes, J., Steinke, T., Balle, B., Tramèr, F., Jagielski, M., Carlini, N. and
Terzis, A. (2023). Tight auditing of differentially private machine learning. USENIX
Security.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from synthamp.audit._rates import clopper_pearson_upper

__all__ = ["MIN_COUNT", "TradeoffBand", "clopper_pearson_interval", "gdp_mu", "tradeoff_band"]

#: Fewest errors on each side for a threshold to enter the whole-curve GDP fit.
MIN_COUNT = 10


def clopper_pearson_interval(
    successes: ArrayLike, trials: int, confidence: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided Clopper–Pearson interval (each side at level (1 − γ)/2)."""
    k = np.asarray(successes, dtype=np.int64)
    n = np.int64(trials)
    side = 1.0 - (1.0 - confidence) / 2.0
    upper = clopper_pearson_upper(k, n, side)
    lower = 1.0 - clopper_pearson_upper(n - k, n, side)
    return np.maximum(lower, 0.0), upper


def gdp_mu(fpr: ArrayLike, fnr: ArrayLike) -> NDArray[np.float64]:
    """μ(τ) = Φ⁻¹(1 − FPR) − Φ⁻¹(FNR): the GDP parameter through one point of a curve."""
    fpr = np.asarray(fpr, dtype=float)
    fnr = np.asarray(fnr, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return special.ndtri(1.0 - fpr) - special.ndtri(fnr)


def _mu_variance(fpr: NDArray, fnr: NDArray, runs_p: int, runs_q: int) -> NDArray:
    """Delta-method variance of μ̂(τ) from the exact rates (inf where a rate is 0 or 1)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dens_q = np.exp(-0.5 * special.ndtri(fpr) ** 2) / math.sqrt(2 * math.pi)
        dens_p = np.exp(-0.5 * special.ndtri(fnr) ** 2) / math.sqrt(2 * math.pi)
        var = fpr * (1 - fpr) / (runs_q * dens_q**2) + fnr * (1 - fnr) / (runs_p * dens_p**2)
    ok = (fpr > 0) & (fpr < 1) & (fnr > 0) & (fnr < 1) & np.isfinite(var)
    return np.where(ok, var, np.inf)


@dataclass(frozen=True)
class TradeoffBand:
    """The empirical trade-off curve of a threshold family, with intervals, beside the exact one.

    Attributes
    ----------
    thresholds : ndarray
        τ, fixed before the runs.
    fpr, fnr : ndarray
        Observed rates of the tests "T > τ ⇒ D".
    fpr_low, fpr_high, fnr_low, fnr_high : ndarray
        Two-sided Clopper–Pearson intervals at ``confidence`` (each threshold apart).
    exact_fpr, exact_fnr : ndarray
        The mechanism's rates at τ, from its law.
    covered : float
        Share of thresholds whose two intervals contain the exact rates.
    best : int
        Index of τ*, the threshold of the GDP fit (least predicted variance of μ̂).
    mu_emp, mu_low, mu_high : float
        μ(τ*) of the runs and its interval (confidence >= ``confidence``).
    mu : float
        μ(τ*) of the exact curve: the mechanism's GDP fit.
    mu_fit_emp, mu_fit : float
        The weighted fit over thresholds with >= :data:`MIN_COUNT` errors per side.
    runs : tuple of int
        Runs on D and on D′.
    confidence : float
    """

    thresholds: NDArray[np.float64]
    fpr: NDArray[np.float64]
    fnr: NDArray[np.float64]
    fpr_low: NDArray[np.float64]
    fpr_high: NDArray[np.float64]
    fnr_low: NDArray[np.float64]
    fnr_high: NDArray[np.float64]
    exact_fpr: NDArray[np.float64]
    exact_fnr: NDArray[np.float64]
    covered: float
    best: int
    mu_emp: float
    mu_low: float
    mu_high: float
    mu: float
    mu_fit_emp: float
    mu_fit: float
    runs: tuple[int, int]
    confidence: float

    @property
    def mu_ratio(self) -> tuple[float, float, float]:
        """(μ_emp/μ, its lower end, its upper end)."""
        return self.mu_emp / self.mu, self.mu_low / self.mu, self.mu_high / self.mu

    def csv_lines(self) -> list[str]:
        """``threshold,fpr,fpr_low,fpr_high,fnr,fnr_low,fnr_high,exact_fpr,exact_fnr`` rows."""
        head = "threshold,fpr,fpr_low,fpr_high,fnr,fnr_low,fnr_high,exact_fpr,exact_fnr"
        columns = (
            self.thresholds, self.fpr, self.fpr_low, self.fpr_high, self.fnr, self.fnr_low,
            self.fnr_high, self.exact_fpr, self.exact_fnr,
        )  # fmt: skip
        return [head] + [",".join(f"{v:.17g}" for v in row) for row in zip(*columns, strict=True)]


def tradeoff_band(
    scores_p: ArrayLike,
    scores_q: ArrayLike,
    thresholds: ArrayLike,
    exact_fpr: ArrayLike,
    exact_fnr: ArrayLike,
    confidence: float,
) -> TradeoffBand:
    """The empirical curve of the tests "score > τ ⇒ D" at fixed ``thresholds``, with intervals.

    ``exact_fpr``/``exact_fnr`` are the mechanism's rates at the same thresholds (from
    its law, computed before the runs); they choose τ* and give the mechanism's μ.
    """
    p = np.sort(np.asarray(scores_p, dtype=float).ravel())
    q = np.sort(np.asarray(scores_q, dtype=float).ravel())
    tau = np.asarray(thresholds, dtype=float)
    exact_fpr = np.asarray(exact_fpr, dtype=float)
    exact_fnr = np.asarray(exact_fnr, dtype=float)
    false_neg = np.searchsorted(p, tau, side="right")
    false_pos = q.size - np.searchsorted(q, tau, side="right")
    fpr_low, fpr_high = clopper_pearson_interval(false_pos, q.size, confidence)
    fnr_low, fnr_high = clopper_pearson_interval(false_neg, p.size, confidence)
    covered = (fpr_low <= exact_fpr) & (exact_fpr <= fpr_high)
    covered &= (fnr_low <= exact_fnr) & (exact_fnr <= fnr_high)
    variance = _mu_variance(exact_fpr, exact_fnr, p.size, q.size)
    best = int(np.argmin(variance))
    joint = 1.0 - (1.0 - confidence) / 2.0  # each rate at (1 + γ)/2: both together >= γ
    fp_lo, fp_hi = clopper_pearson_interval(false_pos[best], q.size, joint)
    fn_lo, fn_hi = clopper_pearson_interval(false_neg[best], p.size, joint)
    fpr, fnr = false_pos / q.size, false_neg / p.size
    mu_emp, mu_exact = gdp_mu(fpr, fnr), gdp_mu(exact_fpr, exact_fnr)
    usable = (false_pos >= MIN_COUNT) & (q.size - false_pos >= MIN_COUNT)
    usable &= (false_neg >= MIN_COUNT) & (p.size - false_neg >= MIN_COUNT) & np.isfinite(variance)
    weights = np.where(usable, 1.0 / np.where(usable, variance, 1.0), 0.0)
    total = float(np.sum(weights))
    fit_emp = float(np.sum(weights * np.where(usable, mu_emp, 0.0)) / total) if total else math.nan
    fit = float(np.sum(weights * np.where(usable, mu_exact, 0.0)) / total) if total else math.nan
    return TradeoffBand(
        thresholds=tau,
        fpr=fpr,
        fnr=fnr,
        fpr_low=fpr_low,
        fpr_high=fpr_high,
        fnr_low=fnr_low,
        fnr_high=fnr_high,
        exact_fpr=exact_fpr,
        exact_fnr=exact_fnr,
        covered=float(np.mean(covered)),
        best=best,
        mu_emp=float(mu_emp[best]),
        mu_low=float(gdp_mu(fp_hi, fn_hi)),
        mu_high=float(gdp_mu(fp_lo, fn_lo)),
        mu=float(mu_exact[best]),
        mu_fit_emp=fit_emp,
        mu_fit=fit,
        runs=(int(p.size), int(q.size)),
        confidence=confidence,
    )
