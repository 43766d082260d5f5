"""Empirical privacy auditing: a lower bound on ε by attacking the release.

The accountant (:mod:`synthamp.accountant`) gives an *upper* bound on the ε of a
release. An audit runs the strongest attack many times and turns its error
rates into a *lower* bound on ε that holds with a stated confidence. If the
lower bound exceeds the upper bound, the accountant (or the mechanism) has a
bug; the ratio of the two measures how tight the accounting is.

The distinguishing game (THEORY.md §1, §3)
------------------------------------------
Two adjacent datasets give models v and w. For k = 1 the worst case of the
accountant is the forward endpoint ‖v‖ = C, ‖w‖ = C − min(Δ, C), aligned
(:func:`synthamp.accountant.worst_case_rdp`); that pair is feasible
(‖v − w‖ = min(Δ, C) <= Δ), so every bound obtained by attacking it is a valid
lower bound on the ε of the mechanism, whether or not it is the maximiser.
Each trial draws one release from each dataset. The attack sees only the
released data, through its sufficient statistic (THEORY.md §3), which is
sampled directly since its law is known exactly:

* unlimited release: ‖V‖²/σ² ~ χ²_d(a²), a = ‖v‖/σ (the Gram matrix of an
  unlimited release of k = 1 records determines ‖V‖²);
* n_syn records: ‖ZV‖²/(σ_z²σ²) = Y·X with Y ~ χ²_d(a²) and an independent
  X ~ χ²_{n_syn};
* the Gaussian mechanism (releasing V itself): ⟨V − w, e⟩/σ ~ N(Δ/σ, 1)
  against N(0, 1), e = (v − w)/‖v − w‖.

For k > 1 the rank-one pair v = C·e₁u₁ᵀ, w = (C − Δ)e₁u₁ᵀ is attacked through
the first column of ZV (after the public rotation u₁ → e₁), which is exactly a
k = 1 release of width d (THEORY.md §8): the same statistic, a valid attack on
the full release.

The test. The families above have a monotone likelihood ratio in the
statistic (the proof is in the docstring of :mod:`synthamp.accountant`), so
the likelihood-ratio test "log p/q > ℓ" of Neyman and Pearson is the
threshold test "statistic > τ", with ℓ = log p(τ)/q(τ): thresholding the
statistic *is* the likelihood-ratio test, without evaluating the likelihood
ratio at every trial. The log-likelihood ratio at the chosen threshold is
reported (:func:`synthamp.log_likelihood_ratio`,
:func:`synthamp.log_likelihood_ratio_finite`).

From error rates to ε
---------------------
If a mechanism is (ε, δ)-DP, every test of P (dataset D) against Q (D′) with
false-positive rate FPR = Q(reject) and false-negative rate FNR = P(accept)
satisfies 1 − FNR <= e^ε FPR + δ and 1 − FPR <= e^ε FNR + δ (Kairouz, Oh and
Viswanath 2015, Theorem 2.1; Jagielski, Ullman and Oprea 2020, §3; Nasr et al.
2021, eq. (1)). Hence

    ε >= max{ log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR) }.

With finitely many trials, FPR and FNR are replaced by one-sided
Clopper–Pearson upper bounds (Clopper and Pearson 1934), each at level
β = (1 − γ)/2 so that both hold together with probability >= γ (a union
bound); the right-hand side is decreasing in both rates, so the bound holds
with probability >= γ. The threshold must not be chosen on the trials that
certify it; two corrections are offered:

``"bonferroni"`` (default of :func:`audit_release` and the command line)
    A grid of G thresholds fixed before sampling, from the known laws of the
    statistic: G = :data:`BONFERRONI_THRESHOLDS` points evenly spaced (in log
    T, or T for the Gaussian mechanism) between P's lower and Q's upper
    1/trials quantiles. All trials evaluate every threshold, each rate at
    level (1 − γ)/(2G) (Bonferroni over 2G one-sided bounds), and the best
    threshold is reported. The grid depends on the laws only, never on the
    trials, so the bound stays valid even if the simulated mechanism does
    not follow those laws (as in the end-to-end audit, where that is what is
    being tested).
``"split"``
    The threshold maximising the bound on the first half of the trials is
    evaluated on the second half (Jagielski et al. 2020; Nasr et al. 2021),
    each rate at level (1 − γ)/2. Needs no knowledge of the laws, but costs
    half the trials and its threshold over-fits the selection half: over ten
    seeds at 10^5 trials, in eight settings, its bounds were lower on average
    than the Bonferroni grid's in every setting (by 0.02–0.13) and 1.4 to 5
    times as variable (docs/benchmarks/audit.md).

Exact references
----------------
* :func:`gaussian_delta` / :func:`gaussian_epsilon`: the exact privacy profile
  of the Gaussian mechanism, δ(ε) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)
  (Balle and Wang 2018, Theorem 8).
* :func:`pair_epsilon`: the exact ε(δ) of the audited pair,
  sup_τ log((P(T > τ) − δ)/Q(T > τ)) (and the reverse direction), which is the
  population value of the audit's statistic: it is what an audit with
  unlimited trials would report, a lower bound on the mechanism's ε, and the
  accountant's ε (an RDP conversion) lies above it.

Randomness: seeded runs are reproducible; without a seed the trials draw from
operating-system entropy. Simulated releases are not private data: the audit
prints thresholds and rates of its own simulations only.

References
----------
Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for
differential privacy: analytical calibration and optimal denoising. ICML.
Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial
limits illustrated in the case of the binomial. Biometrika 26(4).
Jagielski, M., Ullman, J. and Oprea, A. (2020). Auditing differentially private
machine learning: how private is private SGD? NeurIPS.
Kairouz, P., Oh, S. and Viswanath, P. (2015). The composition theorem for
differential privacy. ICML.
Nasr, M., Song, S., Thakurta, A., Papernot, N. and Carlini, N. (2021).
Adversary instantiation: lower bounds for differentially private machine
learning. IEEE S&P.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special, stats

from synthamp._kinds import privacy_quantity
from synthamp._validation import (
    InputError,
    check_dim,
    check_integer,
    check_n_syn,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from synthamp.accountant import GaussianRelease, SyntheticDataRelease

__all__ = [
    "BONFERRONI_THRESHOLDS",
    "CORRECTIONS",
    "DEFAULT_CONFIDENCE",
    "AuditResult",
    "EmpiricalEpsilon",
    "EndToEndAudit",
    "PairEpsilon",
    "adjacent_datasets",
    "audit_generator",
    "audit_release",
    "clopper_pearson_upper",
    "epsilon_from_rates",
    "epsilon_lower_bound",
    "gaussian_delta",
    "gaussian_epsilon",
    "pair_epsilon",
    "sample_statistic",
]

Correction = Literal["split", "bonferroni"]

#: Threshold-selection corrections of :func:`epsilon_lower_bound`.
CORRECTIONS: tuple[str, ...] = ("bonferroni", "split")
#: Default confidence γ of the lower bound.
DEFAULT_CONFIDENCE = 0.95
#: Size G of the fixed threshold grid of the Bonferroni correction.
BONFERRONI_THRESHOLDS = 64
#: Largest number of trials per dataset (memory: 16 bytes per trial).
MAX_TRIALS = 10**8
#: log of a probability too small to matter (tails below it are not refined).
_LOG_NEGLIGIBLE = -600.0
#: Ranks of order statistics tried in full (then geometrically) by the split selection.
_SELECTION_DENSE_RANKS = 64
_SELECTION_GEOMETRIC_RANKS = 256


def _check_confidence(confidence: float) -> float:
    return check_open_unit("confidence", confidence)


def _check_correction(correction: str) -> str:
    if correction not in CORRECTIONS:
        raise InputError(
            "correction", f"must be one of {', '.join(CORRECTIONS)}; got {correction!r}"
        )
    return correction


def _check_trials(trials) -> int:
    return check_integer("trials", trials, 2, MAX_TRIALS)


# --------------------------------------------------------------------------- rates → ε


def clopper_pearson_upper(
    successes: ArrayLike, trials: ArrayLike, confidence: float = DEFAULT_CONFIDENCE
) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson upper confidence bound on a binomial proportion.

    The largest p with P(Bin(n, p) <= k) >= 1 − γ: the γ-quantile of
    Beta(k + 1, n − k), and 1 when k = n (Clopper and Pearson 1934). It is the
    upper end of the two-sided exact interval at confidence 2γ − 1
    (:meth:`scipy.stats.binomtest.proportion_ci` with ``method="exact"``).

    Parameters
    ----------
    successes : array_like of int
        k, 0 <= k <= n.
    trials : array_like of int
        n >= 1.
    confidence : float, default 0.95
        γ in (0, 1): P(p <= bound) >= γ for every p.

    Returns
    -------
    ndarray
        The bound for each (k, n) (broadcast).
    """
    confidence = _check_confidence(confidence)
    k = np.asarray(successes)
    n = np.asarray(trials)
    if not (np.issubdtype(k.dtype, np.integer) and np.issubdtype(n.dtype, np.integer)):
        raise InputError("successes", "counts must be integers")
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n):
        raise InputError("successes", "must satisfy 0 <= successes <= trials, trials >= 1")
    k, n = np.broadcast_arrays(k.astype(float), n.astype(float))
    full = k >= n
    upper = special.betaincinv(k + 1.0, np.where(full, 1.0, n - k), confidence)
    return np.where(full, 1.0, upper)


@privacy_quantity("certified")
def epsilon_from_rates(fpr: ArrayLike, fnr: ArrayLike, delta: float) -> NDArray[np.float64]:
    """Lower bound on ε implied by a test with error rates (FPR, FNR) at δ.

        ε >= max{ log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR), 0 }

    (Kairouz, Oh and Viswanath 2015, Theorem 2.1; Jagielski, Ullman and Oprea
    2020, §3): an (ε, δ)-DP mechanism allows no test below the line
    1 − FNR = e^ε FPR + δ nor its mirror image. Decreasing in both rates, so
    upper confidence bounds on the rates give a lower confidence bound on ε.

    Parameters
    ----------
    fpr, fnr : array_like
        False-positive and false-negative rates in [0, 1] (broadcast).
    delta : float
        δ in (0, 1).

    Returns
    -------
    ndarray
        The bound (``inf`` when a rate is 0 and the other below 1 − δ).
    """
    delta = check_open_unit("delta", delta)
    fpr = np.asarray(fpr, dtype=float)
    fnr = np.asarray(fnr, dtype=float)
    if np.any(~((fpr >= 0) & (fpr <= 1))) or np.any(~((fnr >= 0) & (fnr <= 1))):
        raise InputError("fpr", "rates must lie in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.log(1.0 - delta - fnr) - np.log(fpr)
        backward = np.log(1.0 - delta - fpr) - np.log(fnr)
    forward = np.where(1.0 - delta - fnr > 0, forward, -np.inf)
    backward = np.where(1.0 - delta - fpr > 0, backward, -np.inf)
    return np.maximum(np.maximum(forward, backward), 0.0)


@dataclass(frozen=True)
class EmpiricalEpsilon:
    """Lower confidence bound on ε from a threshold test (:func:`epsilon_lower_bound`).

    Attributes
    ----------
    epsilon : float
        ε_lower >= 0: with probability >= ``confidence`` over the trials, the
        mechanism is not (ε, δ)-DP for any ε < ε_lower.
    delta, confidence : float
        δ and γ.
    threshold : float
        τ of the test "score > τ ⇒ P".
    direction : str
        ``"forward"`` if log((1 − δ − FNR)/FPR) gave the bound, ``"backward"``
        for log((1 − δ − FPR)/FNR).
    fpr, fnr : float
        Observed rates at τ on the evaluation trials.
    fpr_upper, fnr_upper : float
        Their one-sided Clopper–Pearson bounds at level (1 − γ)/(2G) (G = 1
        for the split correction).
    correction : str
        ``"split"`` or ``"bonferroni"``.
    thresholds_tested : int
        G: thresholds paid for in the confidence level (1 for ``"split"``).
    evaluation_trials : tuple of int
        Trials of P and of Q that evaluated the threshold.
    """

    epsilon: float
    delta: float
    confidence: float
    threshold: float
    direction: str
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    correction: str
    thresholds_tested: int
    evaluation_trials: tuple[int, int]


def _check_scores(param: str, scores: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(scores, dtype=float).ravel()
    if arr.size < 2:
        raise InputError(param, "needs at least 2 trials")
    if not np.all(np.isfinite(arr)):
        raise InputError(param, "contains NaN or infinite values")
    return arr


def _rates(sorted_p, sorted_q, thresholds) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(false positives, false negatives) of the tests "score > τ ⇒ P"."""
    false_neg = np.searchsorted(sorted_p, thresholds, side="right")
    false_pos = sorted_q.size - np.searchsorted(sorted_q, thresholds, side="right")
    return false_pos, false_neg


def _bound_at(sorted_p, sorted_q, thresholds, delta, level):
    """ε bound (both directions) at each threshold, with rates at CP level ``level``."""
    fp, fn = _rates(sorted_p, sorted_q, thresholds)
    fpr_up = clopper_pearson_upper(fp, sorted_q.size, 1.0 - level)
    fnr_up = clopper_pearson_upper(fn, sorted_p.size, 1.0 - level)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.where(
            1.0 - delta - fnr_up > 0, np.log(1.0 - delta - fnr_up) - np.log(fpr_up), -np.inf
        )
        backward = np.where(
            1.0 - delta - fpr_up > 0, np.log(1.0 - delta - fpr_up) - np.log(fnr_up), -np.inf
        )
    return forward, backward, fp, fn, fpr_up, fnr_up


def _candidate_ranks(size: int) -> NDArray[np.intp]:
    dense = np.arange(min(size, _SELECTION_DENSE_RANKS))
    sparse = np.geomspace(1, size, _SELECTION_GEOMETRIC_RANKS).astype(np.intp) - 1
    return np.unique(np.concatenate([dense, sparse]))


@privacy_quantity("certified")
def epsilon_lower_bound(
    scores_p: ArrayLike,
    scores_q: ArrayLike,
    delta: float,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    thresholds: ArrayLike | None = None,
) -> EmpiricalEpsilon:
    """Lower confidence bound on ε from scores of a distinguishing test.

    The test declares P when the score exceeds a threshold τ (score the trials
    so that P gives larger scores). At the chosen τ, the one-sided
    Clopper–Pearson upper bounds FPR↑, FNR↑ give (:func:`epsilon_from_rates`)

        ε_lower = max{ log((1 − δ − FNR↑)/FPR↑), log((1 − δ − FPR↑)/FNR↑), 0 }

    (Kairouz et al. 2015, Thm 2.1; Jagielski et al. 2020, §3; Nasr et al.
    2021, eq. (1)). Both rates hold together with probability >= γ (each at
    level (1 − γ)/2), so P(ε_true >= ε_lower) >= γ for an (ε_true, δ)-DP
    mechanism. Threshold selection is corrected:

    * ``thresholds=None``: **split**. The first half of each array (⌊n/2⌋
      trials) selects τ among order statistics of the scores, maximising the
      same bound; the second half evaluates it. The trials must be
      exchangeable (independent and identically distributed).
    * ``thresholds`` given: **Bonferroni**. These G thresholds must be fixed
      independently of the scores; every trial evaluates every threshold,
      each rate at level (1 − γ)/(2G), and the best is reported.

    Parameters
    ----------
    scores_p : array_like
        Scores of the trials on dataset D (distribution P).
    scores_q : array_like
        Scores of the trials on the adjacent dataset D′ (distribution Q).
    delta : float
        δ in (0, 1).
    confidence : float, default 0.95
        γ in (0, 1).
    thresholds : array_like, optional
        A fixed grid of thresholds (Bonferroni correction).

    Returns
    -------
    EmpiricalEpsilon
    """
    p = _check_scores("scores_p", scores_p)
    q = _check_scores("scores_q", scores_q)
    delta = check_open_unit("delta", delta)
    confidence = _check_confidence(confidence)
    if thresholds is None:
        correction, tested = "split", 1
        half_p, half_q = p.size // 2, q.size // 2
        select_p, select_q = np.sort(p[:half_p]), np.sort(q[:half_q])
        eval_p, eval_q = np.sort(p[half_p:]), np.sort(q[half_q:])
        level = (1.0 - confidence) / 2.0
        # τ at the largest scores of Q (forward direction: few false positives)
        # and at the smallest scores of P (backward: few false negatives).
        candidates = np.concatenate(
            [
                select_q[::-1][_candidate_ranks(select_q.size)],
                select_p[_candidate_ranks(select_p.size)],
            ]
        )
        forward, backward, *_ = _bound_at(select_p, select_q, candidates, delta, level)
        best = int(np.argmax(np.maximum(forward, backward)))
        chosen = candidates[best : best + 1]
    else:
        correction = "bonferroni"
        chosen = np.unique(np.asarray(thresholds, dtype=float).ravel())
        if chosen.size == 0 or not np.all(np.isfinite(chosen)):
            raise InputError("thresholds", "must be a non-empty array of finite numbers")
        tested = chosen.size
        eval_p, eval_q = np.sort(p), np.sort(q)
        level = (1.0 - confidence) / (2.0 * tested)
    forward, backward, fp, fn, fpr_up, fnr_up = _bound_at(eval_p, eval_q, chosen, delta, level)
    values = np.maximum(forward, backward)
    i = int(np.argmax(values))
    return EmpiricalEpsilon(
        epsilon=max(0.0, float(values[i])),
        delta=delta,
        confidence=confidence,
        threshold=float(chosen[i]),
        direction="forward" if forward[i] >= backward[i] else "backward",
        fpr=float(fp[i]) / eval_q.size,
        fnr=float(fn[i]) / eval_p.size,
        fpr_upper=float(fpr_up[i]),
        fnr_upper=float(fnr_up[i]),
        correction=correction,
        thresholds_tested=tested,
        evaluation_trials=(int(eval_p.size), int(eval_q.size)),
    )


# --------------------------------------------------------------------------- Gaussian mechanism


def _gaussian_log_delta(epsilon: NDArray[np.float64], mu: float) -> NDArray[np.float64]:
    """log δ(ε) of N(μ, 1) vs N(0, 1), without cancellation (−inf when δ underflows)."""
    first = special.log_ndtr(0.5 * mu - epsilon / mu)
    second = epsilon + special.log_ndtr(-0.5 * mu - epsilon / mu)
    with np.errstate(divide="ignore"):
        return first + np.log(-np.expm1(np.minimum(second - first, 0.0)))


@privacy_quantity("exact")
def gaussian_delta(
    epsilon: ArrayLike, sensitivity: float, sigma: float = 1.0
) -> NDArray[np.float64]:
    """Exact privacy profile δ(ε) of the Gaussian mechanism (Balle and Wang 2018, Thm 8).

        δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),

    the smallest δ for which adding N(0, σ²I) to a function of L2 sensitivity
    Δ is (ε, δ)-DP. Computed as Φ(A)·(1 − e^{ε + log Φ(B) − log Φ(A)}) with
    :func:`scipy.special.log_ndtr`, so that small δ keep their relative
    accuracy.

    Parameters
    ----------
    epsilon : array_like
        ε >= 0.
    sensitivity : float
        Δ > 0.
    sigma : float, default 1.0
        σ > 0.

    Returns
    -------
    ndarray
        δ(ε) for each ε.
    """
    mu = check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~(eps >= 0)) or np.any(np.isinf(eps)):
        raise InputError("epsilon", "must be finite and >= 0")
    return np.exp(_gaussian_log_delta(eps, mu))


@privacy_quantity("exact")
def gaussian_epsilon(delta: float, sensitivity: float, sigma: float = 1.0) -> float:
    """Exact ε(δ) of the Gaussian mechanism: the root of :func:`gaussian_delta` = δ.

    δ(ε) is decreasing in ε; the root is found by Brent's method on log δ(ε)
    in [0, μ²/2 + μ√(2 log(1/δ))] (μ = Δ/σ; at the right end
    δ(ε) <= Φ(−√(2 log(1/δ))) <= δ by the Gaussian tail bound), to an
    absolute accuracy of 1e-12.
    Returns 0 when δ >= δ(0) = 2Φ(μ/2) − 1.

    Parameters
    ----------
    delta : float
        δ in (0, 1).
    sensitivity, sigma : float
        Δ > 0 and σ > 0, as in :func:`gaussian_delta`.

    Returns
    -------
    float
        ε(δ) >= 0.
    """
    delta = check_open_unit("delta", delta)
    mu = check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma)
    log_delta = math.log(delta)

    def excess(eps: float) -> float:
        return float(_gaussian_log_delta(np.array(eps), mu)) - log_delta

    if excess(0.0) <= 0.0:
        return 0.0
    hi = 0.5 * mu * mu + mu * math.sqrt(2.0 * math.log(1.0 / delta))
    while excess(hi) > 0.0:  # only by rounding: the tail bound above is sufficient
        hi *= 2.0
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-12, rtol=4 * np.finfo(float).eps))


# --------------------------------------------------------------------------- laws of the statistic


class _Law:
    """Law of the attack statistic T; tails in the coordinate t = log T (or t = T)."""

    #: Rough centre and spread of t, to bracket quantiles.
    center: float
    spread: float

    def sample(self, size: int, rng: np.random.Generator) -> NDArray[np.float64]:
        raise NotImplementedError

    def to_t(self, value: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.log(value)

    def from_t(self, t: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.exp(t)

    def log_tail(self, t: ArrayLike, upper: bool) -> NDArray[np.float64]:
        """log P(T > τ) (``upper``) or log P(T <= τ), τ = from_t(t)."""
        raise NotImplementedError

    def quantile_t(self, log_prob: float, upper: bool) -> float:
        """t with log_tail(t, upper) = log_prob (a tail probability below 1/2)."""

        def excess(t: float) -> float:
            value = float(self.log_tail(np.array([t]), upper)[0])
            return (value - log_prob) if upper else (log_prob - value)

        lo, hi = self.center - self.spread, self.center + self.spread
        for k in range(200):
            if excess(lo) > 0:
                break
            lo -= self.spread * 2.0**k
        for k in range(200):
            if excess(hi) < 0:
                break
            hi += self.spread * 2.0**k
        return float(optimize.brentq(excess, lo, hi, xtol=1e-12 * max(1.0, abs(lo), abs(hi))))


class _GaussianLaw(_Law):
    """N(mean, 1): the projected Gaussian mechanism, t = T."""

    def __init__(self, mean: float):
        self.mean = mean
        self.center, self.spread = mean, 1.0

    def sample(self, size, rng):
        return self.mean + rng.standard_normal(size)

    def to_t(self, value):
        return np.asarray(value, dtype=float)

    def from_t(self, t):
        return np.asarray(t, dtype=float)

    def log_tail(self, t, upper):
        t = np.asarray(t, dtype=float)
        return special.log_ndtr(self.mean - t if upper else t - self.mean)


def _log_chi2_spread(dim: int, amp: float) -> float:
    """Approximate standard deviation of log Y, Y ~ χ²_d(amp²) (exact for amp = 0)."""
    lam = amp * amp
    return math.sqrt(float(special.polygamma(1, 0.5 * dim)) * dim * (dim + 2 * lam)) / (dim + lam)


def _log_chi2_tail(
    x: NDArray[np.float64], dim: int, amp: float, upper: bool
) -> NDArray[np.float64]:
    """log P(Y > x) or log P(Y <= x), Y ~ χ²_d(amp²).

    ``scipy.stats.ncx2.sf``/``cdf`` (Boost; relative accuracy ~1e-14 in the
    tails, checked against mpmath in the tests) and their logarithm; the
    ten times slower ``logsf``/``logcdf`` only where the tail underflows.
    """
    law = stats.chi2(dim) if amp == 0.0 else stats.ncx2(dim, amp * amp)
    tail = law.sf(x) if upper else law.cdf(x)
    tiny = tail < 1e-290
    with np.errstate(divide="ignore"):
        out = np.log(tail)
    if np.any(tiny):
        out[tiny] = law.logsf(x[tiny]) if upper else law.logcdf(x[tiny])
    return out


class _ChiSquareLaw(_Law):
    """χ²_d(amp²): ‖V‖²/σ² of an unlimited release, t = log T."""

    def __init__(self, dim: int, amp: float):
        self.dim, self.amp = dim, amp
        self.center = math.log(dim + amp * amp)
        self.spread = _log_chi2_spread(dim, amp)

    def sample(self, size, rng):
        if self.amp == 0.0:
            return rng.chisquare(self.dim, size)
        return rng.noncentral_chisquare(self.dim, self.amp * self.amp, size)

    def log_tail(self, t, upper):
        return _log_chi2_tail(np.exp(np.asarray(t, dtype=float)), self.dim, self.amp, upper)


class _ProductLaw(_Law):
    """Y·X, Y ~ χ²_d(amp²), X ~ χ²_n: ‖ZV‖²/(σ_z²σ²) of n records, t = log T.

    Tails by quadrature over the factor whose logarithm is narrower:
    P(YX > τ) = E[P(W > τ/N)] with N the narrow and W the wide factor, on a
    uniform grid in log N (trapezoidal rule, exponentially convergent for
    these smooth, rapidly decaying integrands; the density of log N is
    normalised on the grid itself). Each evaluation is checked against the
    rule on every other node (relative agreement 1e-9) and against the mass
    at the ends of the window; the grid is refined and widened until both
    pass.
    """

    def __init__(self, dim: int, amp: float, n_syn: int):
        self.dim, self.amp, self.n_syn = dim, amp, n_syn
        spread_y = _log_chi2_spread(dim, amp)
        spread_x = math.sqrt(float(special.polygamma(1, 0.5 * n_syn)))
        self.center = math.log(dim + amp * amp) + math.log(n_syn)
        self.spread = math.hypot(spread_y, spread_x)
        self.over_x = spread_x <= spread_y
        if self.over_x:
            self._narrow_center = float(special.digamma(0.5 * n_syn)) + math.log(2.0)
            self._narrow_spread = spread_x
        else:
            self._narrow_center = math.log(dim + amp * amp)
            self._narrow_spread = spread_y
        self._grids: dict[tuple[float, float], tuple[NDArray, NDArray]] = {}

    def sample(self, size, rng):
        if self.amp == 0.0:
            y = rng.chisquare(self.dim, size)
        else:
            y = rng.noncentral_chisquare(self.dim, self.amp * self.amp, size)
        return y * rng.chisquare(self.n_syn, size)

    def _log_narrow_density(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """log density of log N at u, up to a constant."""
        if self.over_x:
            n = self.n_syn
            shifted = u - math.log(n)  # centred, so that no term of size n log n is formed
            return 0.5 * n * (shifted - np.expm1(shifted))
        from synthamp.divergence import ncx2_logpdf

        return ncx2_logpdf(np.exp(u), self.dim, self.amp) + u

    def _log_wide_tail(self, value: NDArray[np.float64], upper: bool) -> NDArray[np.float64]:
        """log P(W > value) or log P(W <= value) for the wide factor W."""
        with np.errstate(divide="ignore"):
            if not self.over_x:
                tail = special.chdtrc if upper else special.chdtr
                return np.log(tail(self.n_syn, value))
        return _log_chi2_tail(value, self.dim, self.amp, upper)

    def _grid(self, half_width: float, per_spread: float) -> tuple[NDArray, NDArray]:
        key = (half_width, per_spread)
        if key not in self._grids:
            count = 2 * math.ceil(half_width * per_spread) + 1
            u = self._narrow_center + self._narrow_spread * np.linspace(
                -half_width, half_width, count
            )
            log_density = self._log_narrow_density(u)
            self._grids[key] = (u, log_density)
        return self._grids[key]

    def log_tail(self, t, upper):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        half_width, per_spread = 24.0, 8.0
        for _ in range(8):
            u, log_density = self._grid(half_width, per_spread)
            terms = log_density[None, :] + self._log_wide_tail(
                np.exp(t[:, None] - u[None, :]), upper
            )
            fine = special.logsumexp(terms, axis=1) - special.logsumexp(log_density)
            coarse = special.logsumexp(terms[:, ::2], axis=1) - special.logsumexp(log_density[::2])
            with np.errstate(invalid="ignore"):
                ends = np.maximum(terms[:, 0], terms[:, -1]) - special.logsumexp(terms, axis=1)
            alive = fine > _LOG_NEGLIGIBLE  # below: a bracket of a quantile search, not a result
            converged = np.all(np.abs(fine - coarse)[alive] <= 1e-9)
            contained = np.all(ends[alive] <= -40.0)
            if converged and contained:
                return fine
            if not converged:
                per_spread *= 2.0
            if not contained:
                half_width *= 1.5
        raise RuntimeError(  # pragma: no cover - never seen on the tested domain
            "the tail of the product law Y·X did not converge; report this case"
        )


def _threshold_epsilon(
    law_p: _Law, law_q: _Law, delta: float, *, tiny: float = 1e-12
) -> tuple[float, float, str]:
    """sup over thresholds of the population audit bound: the exact ε(δ) of an MLR pair.

    Forward: sup_τ log((P(T > τ) − δ)/Q(T > τ)); backward:
    sup_τ log((Q(T <= τ) − δ)/P(T <= τ)). For a pair with a monotone likelihood
    ratio the threshold sets are the Neyman–Pearson sets, so the larger of the
    two is the smallest ε with the pair (ε, δ)-indistinguishable. Returns
    (ε, t*, direction); a dense grid (129 points) then bounded Brent.
    """
    log_delta = math.log(delta)

    def tail_log_ratio(num: _Law, den: _Law, upper: bool):
        """t ↦ log((num(A_t) − δ)/den(A_t)), −inf where num(A_t) <= δ.

        A_t = {T > t} if ``upper`` else {T <= t}.
        """

        def objective(t):
            log_num = num.log_tail(t, upper)
            with np.errstate(invalid="ignore", divide="ignore"):
                value = (
                    log_num
                    + np.log1p(-np.exp(np.minimum(log_delta - log_num, 0.0)))
                    - den.log_tail(t, upper)
                )
            return np.where(log_num > log_delta, value, -np.inf)

        return objective

    forward = tail_log_ratio(law_p, law_q, upper=True)
    backward = tail_log_ratio(law_q, law_p, upper=False)

    log_tiny = math.log(tiny)
    searches = (
        ("forward", forward, law_q.quantile_t(log_tiny, False), law_p.quantile_t(log_delta, True)),
        (
            "backward",
            backward,
            law_q.quantile_t(log_delta, False),
            law_p.quantile_t(log_tiny, True),
        ),
    )
    best = (0.0, math.nan, "none")
    for name, objective, lo, hi in searches:
        if not lo < hi:
            continue
        grid = np.linspace(lo, hi, 129)
        values = objective(grid)
        j = int(np.argmax(values))
        if not np.isfinite(values[j]):
            continue
        a, b = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
        opt = optimize.minimize_scalar(
            lambda t, f=objective: -float(f(np.array([t]))[0]),
            bounds=(a, b),
            method="bounded",
            options={"xatol": 1e-10 * max(1.0, abs(a), abs(b))},
        )
        t_star, value = (float(opt.x), -float(opt.fun))
        if values[j] > value:
            t_star, value = float(grid[j]), float(values[j])
        if value > best[0]:
            best = (value, t_star, name)
    return best


# --------------------------------------------------------------------------- the audited pair


@dataclass(frozen=True)
class _AuditPair:
    law_p: _Law
    law_q: _Law
    amp_p: float
    amp_q: float
    statistic: str
    log_likelihood_ratio: Callable[[float], float]


def _audit_pair(release: SyntheticDataRelease | GaussianRelease) -> _AuditPair:
    """The worst-case adjacent pair of a single release and the laws of its statistic."""
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    if release.releases != 1:
        raise InputError("releases", "the audit covers a single release (releases = 1)")
    if isinstance(release, GaussianRelease):
        mu = release.sensitivity / release.sigma
        return _AuditPair(
            _GaussianLaw(mu),
            _GaussianLaw(0.0),
            mu,
            0.0,
            "<V - w, e>/sigma, e = (v - w)/|v - w| (Gaussian mechanism, releasing V)",
            lambda t: mu * t - 0.5 * mu * mu,
        )
    from synthamp.divergence import log_likelihood_ratio, log_likelihood_ratio_finite

    c = release.norm_bound / release.sigma
    a, b = c, max(c - release.amplitude_gap / release.sigma, 0.0)
    d, n = release.dim, release.n_syn
    if n is None:
        return _AuditPair(
            _ChiSquareLaw(d, a),
            _ChiSquareLaw(d, b),
            a,
            b,
            "|V|^2/sigma^2 (unlimited release: the Gram matrix V^T V)",
            lambda x: float(log_likelihood_ratio(x, d, a, b)),
        )
    return _AuditPair(
        _ProductLaw(d, a, n),
        _ProductLaw(d, b, n),
        a,
        b,
        f"|ZV|^2/(sigma_z^2 sigma^2) ({n} synthetic records)",
        lambda s: float(log_likelihood_ratio_finite(s, d, n, a, b)),
    )


def sample_statistic(
    release: SyntheticDataRelease | GaussianRelease,
    trials: int,
    random_state: int | np.random.Generator | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Draw the attack statistic of ``trials`` releases from each dataset of the worst pair.

    The statistic's law is sampled directly (exact; module docstring): for a
    synthetic data release, ‖V‖²/σ² ~ χ²_d(a²) (unlimited) or
    ‖ZV‖²/(σ_z²σ²) = Y·X, X ~ χ²_{n_syn} (n_syn records), with a = C/σ on
    dataset D and b = (C − min(Δ, C))/σ on D′; for a :class:`GaussianRelease`
    the projection of V on the direction v − w, N(Δ/σ, 1) against N(0, 1).

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release (``releases=1``).
    trials : int
        Releases drawn from each dataset.
    random_state : int, numpy Generator or None
        None draws from operating-system entropy.

    Returns
    -------
    scores_p, scores_q : ndarray
        The statistic on D (larger in law) and on D′.
    """
    pair = _audit_pair(release)
    trials = _check_trials(trials)
    rng = np.random.default_rng(random_state)
    return pair.law_p.sample(trials, rng), pair.law_q.sample(trials, rng)


@dataclass(frozen=True)
class PairEpsilon:
    """Exact ε(δ) of the audited pair (:func:`pair_epsilon`).

    Attributes
    ----------
    epsilon : float
        The smallest ε for which the pair is (ε, δ)-indistinguishable: a lower
        bound on the mechanism's ε (the pair is feasible), and the value an
        audit with unlimited trials reports.
    delta : float
        δ.
    threshold : float
        The optimal threshold τ of the statistic.
    direction : str
        ``"forward"`` (the test "T > τ ⇒ D") or ``"backward"``; ``"none"`` if ε = 0.
    norm_v, norm_w : float
        Norms of the pair (natural units; for the Gaussian mechanism the
        projections Δ and 0).
    """

    epsilon: float
    delta: float
    threshold: float
    direction: str
    norm_v: float
    norm_w: float


def _pair_epsilon(pair: _AuditPair, delta: float, sigma: float) -> PairEpsilon:
    if isinstance(pair.law_p, _GaussianLaw):
        eps = gaussian_epsilon(delta, pair.amp_p)
        # the Neyman–Pearson threshold where log p/q = μτ − μ²/2 = ε
        t_star = eps / pair.amp_p + 0.5 * pair.amp_p
        direction = "forward" if eps > 0 else "none"
        return PairEpsilon(eps, delta, t_star, direction, pair.amp_p * sigma, 0.0)
    eps, t_star, direction = _threshold_epsilon(pair.law_p, pair.law_q, delta)
    threshold = float(pair.law_p.from_t(np.array(t_star))) if direction != "none" else math.nan
    return PairEpsilon(eps, delta, threshold, direction, pair.amp_p * sigma, pair.amp_q * sigma)


@privacy_quantity("exact")
def pair_epsilon(release: SyntheticDataRelease | GaussianRelease, delta: float) -> PairEpsilon:
    """Exact ε(δ) of the worst-case adjacent pair of a release: the audit's target.

    For a pair whose statistic T has a monotone likelihood ratio, the
    Neyman–Pearson tests are threshold tests and

        ε(δ) = max{ sup_τ log((P(T > τ) − δ)/Q(T > τ)),
                    sup_τ log((Q(T <= τ) − δ)/P(T <= τ)) },

    the population version of the audit's bound (:func:`epsilon_lower_bound`).
    Tails: :mod:`scipy.stats` (χ²_d(a²), relative accuracy ~1e-14 in the
    tails), or quadrature for Y·X (relative 1e-9); the supremum by a dense grid
    then Brent's method. For the Gaussian mechanism it is :func:`gaussian_epsilon`
    (Balle and Wang 2018), and the tests check that both routes agree.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release; the pair is that of :func:`sample_statistic`.
    delta : float
        δ in (0, 1).

    Returns
    -------
    PairEpsilon
        A lower bound on the ε of the mechanism (any feasible pair gives one),
        which :func:`synthamp.accountant.compute_epsilon` must not undercut.
    """
    pair = _audit_pair(release)
    delta = check_open_unit("delta", delta)
    return _pair_epsilon(pair, delta, release.sigma)


# --------------------------------------------------------------------------- audit of a release


@dataclass(frozen=True)
class AuditResult:
    """Empirical audit of a release next to its accountant (:func:`audit_release`).

    Attributes
    ----------
    epsilon_lower : float
        Empirical lower bound on ε (confidence ``confidence``).
    epsilon_upper : float
        The accountant's ε (:func:`synthamp.accountant.compute_epsilon`).
    epsilon_pair : float
        Exact ε(δ) of the audited pair (:func:`pair_epsilon`): the lower bound
        an audit with unlimited trials reaches.
    consistent : bool
        ``epsilon_lower <= epsilon_upper``. False reveals a bug.
    tightness : float
        epsilon_lower/epsilon_upper (NaN when epsilon_upper = 0).
    delta, confidence : float
    trials : int
        Releases simulated from each dataset.
    test : EmpiricalEpsilon
        The test behind ``epsilon_lower`` (threshold, rates, bounds, correction).
    threshold_llr : float
        log p/q of the statistic at the threshold: the test is the
        likelihood-ratio test "log p/q > threshold_llr".
    upper_kind : str
        Kind of the accountant's number (exact or certified).
    mechanism : str
        ``"synthetic"`` or ``"gaussian"``.
    statistic : str
        What the attack observes.
    pair : PairEpsilon
        The audited pair and its exact ε.
    """

    epsilon_lower: float
    epsilon_upper: float
    epsilon_pair: float
    consistent: bool
    tightness: float
    delta: float
    confidence: float
    trials: int
    test: EmpiricalEpsilon
    threshold_llr: float
    upper_kind: str
    mechanism: str
    statistic: str
    pair: PairEpsilon


def _fixed_thresholds(pair: _AuditPair, trials: int) -> NDArray[np.float64]:
    """G thresholds fixed before sampling, between P's and Q's 1/trials tail quantiles."""
    log_p = -math.log(trials)
    lo = pair.law_p.quantile_t(log_p, False)
    hi = pair.law_q.quantile_t(log_p, True)
    lo, hi = min(lo, hi), max(lo, hi)
    return pair.law_p.from_t(np.linspace(lo, hi, BONFERRONI_THRESHOLDS))


def _audit_scores(
    pair: _AuditPair,
    scores_p: NDArray[np.float64],
    scores_q: NDArray[np.float64],
    delta: float,
    confidence: float,
    correction: str,
) -> EmpiricalEpsilon:
    thresholds = None
    if correction == "bonferroni":
        thresholds = _fixed_thresholds(pair, min(scores_p.size, scores_q.size))
    return epsilon_lower_bound(
        scores_p, scores_q, delta, confidence=confidence, thresholds=thresholds
    )


@privacy_quantity("certified")
def audit_release(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    *,
    trials: int = 100_000,
    confidence: float = DEFAULT_CONFIDENCE,
    correction: Correction = "bonferroni",
    random_state: int | np.random.Generator | None = None,
    epsilon_upper: float | None = None,
) -> AuditResult:
    """Audit a release: attack its worst-case pair and compare with the accountant.

    Draws ``trials`` releases of the statistic from each dataset of the pair
    (:func:`sample_statistic`), bounds ε from below by the threshold
    (likelihood-ratio) test (:func:`epsilon_lower_bound`), and reports it next
    to the accountant's ε (:func:`synthamp.accountant.compute_epsilon`, method
    ``"exact"``) and the exact ε of the pair (:func:`pair_epsilon`). With
    probability >= ``confidence`` over the trials, ``epsilon_lower`` <= the
    true ε <= ``epsilon_upper``: a report with ``consistent=False`` reveals a
    bug, or a 1 − γ accident (rerun with another seed).

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release (``releases=1``).
    delta : float
        δ in (0, 1).
    trials : int, default 100000
        Releases simulated from each of the two datasets.
    confidence : float, default 0.95
        γ of the lower bound.
    correction : {"bonferroni", "split"}, default "bonferroni"
        Threshold-selection correction (module docstring).
    random_state : int, numpy Generator or None
        None draws from operating-system entropy.
    epsilon_upper : float, optional
        The accountant's ε, if already computed (skips the accountant call).

    Returns
    -------
    AuditResult
    """
    from synthamp.accountant import compute_epsilon

    pair = _audit_pair(release)
    delta = check_open_unit("delta", delta)
    confidence = _check_confidence(confidence)
    correction = _check_correction(correction)
    trials = _check_trials(trials)
    rng = np.random.default_rng(random_state)
    scores_p, scores_q = pair.law_p.sample(trials, rng), pair.law_q.sample(trials, rng)
    test = _audit_scores(pair, scores_p, scores_q, delta, confidence, correction)
    if epsilon_upper is None:
        accounted = compute_epsilon(release, delta)
        upper, kind = float(accounted.epsilon), str(accounted.kind)
    else:
        upper, kind = check_nonnegative("epsilon_upper", epsilon_upper), "given"
    exact = _pair_epsilon(pair, delta, release.sigma)
    return AuditResult(
        epsilon_lower=test.epsilon,
        epsilon_upper=upper,
        epsilon_pair=exact.epsilon,
        consistent=test.epsilon <= upper,
        tightness=test.epsilon / upper if upper > 0 else math.nan,
        delta=delta,
        confidence=confidence,
        trials=trials,
        test=test,
        threshold_llr=pair.log_likelihood_ratio(test.threshold),
        upper_kind=kind,
        mechanism="gaussian" if isinstance(release, GaussianRelease) else "synthetic",
        statistic=pair.statistic,
        pair=exact,
    )


# --------------------------------------------------------------------------- end-to-end audit


@dataclass(frozen=True)
class EndToEndAudit:
    """Audit of the real pipeline, :class:`~synthamp.generator.PrivateLinearGenerator`.

    Attributes
    ----------
    epsilon_lower : float
        Empirical lower bound on ε from the released records.
    epsilon_upper : float
        The accountant's ε for the generator's declared C, Δ, σ and n_syn.
    epsilon_pair : float
        Exact ε(δ) of the two audit datasets' models (the best this pair of
        datasets can show).
    consistent : bool
        ``epsilon_lower <= epsilon_upper``.
    tightness : float
        epsilon_lower/epsilon_upper.
    test : EmpiricalEpsilon
        The test on the released records.
    norm_v, norm_w : float
        Norms of the ridge models of the two audit datasets (public, crafted
        datasets; no private data is involved).
    norm_bound, sensitivity, sigma : float
        C, Δ and σ of the generator.
    dim, n_records, n_syn, trials : int
    delta, confidence : float
    """

    epsilon_lower: float
    epsilon_upper: float
    epsilon_pair: float
    consistent: bool
    tightness: float
    test: EmpiricalEpsilon
    norm_v: float
    norm_w: float
    norm_bound: float
    sensitivity: float
    sigma: float
    dim: int
    n_records: int
    n_syn: int
    trials: int
    delta: float
    confidence: float


def adjacent_datasets(
    dim: int, n_records: int, label_bound: float
) -> tuple[tuple[NDArray, NDArray], tuple[NDArray, NDArray]]:
    """Two adjacent datasets that push the ridge models' norms apart (k = 1).

    D: m records x_i = e₁, y_i = B. D′: the same with the last label replaced
    by −B (replace-one adjacency). With the objective of
    :mod:`synthamp.generator`, v = B/(1 + λ)·e₁ and
    w = (m − 2)B/(m(1 + λ))·e₁: aligned, ‖v‖ − ‖w‖ = 2B/(m(1 + λ)), and
    ‖v‖ = C = B/(2√λ) at λ = 1 (the norm bound is attained).
    """
    features = np.zeros((n_records, dim))
    features[:, 0] = 1.0
    labels = np.full((n_records, 1), float(label_bound))
    labels_adjacent = labels.copy()
    labels_adjacent[-1, 0] = -float(label_bound)
    return (features, labels), (features.copy(), labels_adjacent)


def _model_norm(features, labels, label_bound: float, ridge: float, norm_bound: float) -> float:
    from synthamp.generator import clip_rows, project_frobenius, ridge_fit

    model = ridge_fit(clip_rows(features, 1.0), clip_rows(labels, label_bound), ridge)
    return float(np.linalg.norm(project_frobenius(model, norm_bound)))


@privacy_quantity("certified")
def audit_generator(
    *,
    dim: int = 10,
    n_records: int = 10,
    ridge: float = 1.0,
    label_bound: float = 1.0,
    sigma: float = 0.1,
    n_syn: int = 100,
    delta: float = 1e-5,
    trials: int = 1000,
    confidence: float = DEFAULT_CONFIDENCE,
    correction: Correction = "bonferroni",
    sampler: str = "gram",
    random_state: int | np.random.Generator | None = None,
) -> EndToEndAudit:
    """End-to-end audit of :class:`~synthamp.generator.PrivateLinearGenerator`.

    Fits the generator ``trials`` times on each of the two adjacent datasets
    of :func:`adjacent_datasets` (fresh noise and seeds each time), draws
    ``n_syn`` records per fit, and attacks the records with the same
    statistic as :func:`audit_release`, ‖ZV‖²/(σ_z²σ²) (the released data's
    Gram matrix for k = 1). The Bonferroni grid comes from the laws the
    theory predicts for the two datasets' models, fixed before any fit, so
    the bound stays valid whatever the pipeline does. The accountant's ε is
    that of the generator's declared C, Δ, σ and n_syn (exact k = 1
    accounting); the pair's exact ε uses the two datasets' actual models.

    Slow: every trial is a full fit (about 10 ms), against microseconds per
    trial for :func:`audit_release`, which samples the same statistic directly.
    The fits use ``accounting="post-processing"`` to skip the exact accountant
    at each fit; with σ given, the accounting method does not change the
    released data.

    Parameters
    ----------
    dim : int, default 10
        d, number of features.
    n_records : int, default 10
        m >= 2, records per dataset.
    ridge : float, default 1.0
        λ (λ = 1 puts ‖v‖ at the norm bound).
    label_bound : float, default 1.0
        B.
    sigma : float, default 0.1
        σ of the generator.
    n_syn : int, default 100
        Records released per fit.
    delta : float, default 1e-5
        δ in (0, 1).
    trials : int, default 1000
        Fits per dataset.
    confidence : float, default 0.95
        γ.
    correction : {"bonferroni", "split"}, default "bonferroni"
        Threshold-selection correction (module docstring).
    sampler : {"gram", "seeds"}, default "gram"
        The generator's sampler.
    random_state : int, numpy Generator or None
        None draws from operating-system entropy.

    Returns
    -------
    EndToEndAudit
    """
    from synthamp.accountant import compute_epsilon
    from synthamp.generator import PrivateLinearGenerator, ridge_norm_bound, ridge_sensitivity

    dim = check_dim(dim)
    n_records = check_integer("n_records", n_records, 2)
    ridge = check_positive("ridge", ridge)
    label_bound = check_positive("label_bound", label_bound)
    sigma = check_positive("sigma", sigma)
    n_syn = check_n_syn(n_syn)
    delta = check_open_unit("delta", delta)
    trials = _check_trials(trials)
    confidence = _check_confidence(confidence)
    correction = _check_correction(correction)
    rng = np.random.default_rng(random_state)
    datasets = adjacent_datasets(dim, n_records, label_bound)
    norm_bound = ridge_norm_bound(label_bound, ridge)
    sensitivity = ridge_sensitivity(label_bound, ridge, n_records)
    norm_v = _model_norm(*datasets[0], label_bound, ridge, norm_bound)
    norm_w = _model_norm(*datasets[1], label_bound, ridge, norm_bound)
    law_p = _ProductLaw(dim, norm_v / sigma, n_syn)
    law_q = _ProductLaw(dim, norm_w / sigma, n_syn)
    pair = _AuditPair(law_p, law_q, norm_v / sigma, norm_w / sigma, "", lambda s: math.nan)

    def run(features, labels) -> tuple[NDArray[np.float64], PrivateLinearGenerator]:
        scores = np.empty(trials)
        generator = None
        for i in range(trials):
            seed = int.from_bytes(rng.bytes(16), "little")
            generator = PrivateLinearGenerator(
                label_bound=label_bound,
                ridge=ridge,
                sigma=sigma,
                n_syn=n_syn,
                accounting="post-processing",
                sampler=sampler,
                random_state=seed,
            ).fit(features, labels)
            records = generator.sample(n_syn)
            scale = generator.seed_scale_ * generator.sigma_
            scores[i] = float(np.sum(records * records)) / (scale * scale)
        return scores, generator

    thresholds = _fixed_thresholds(pair, trials) if correction == "bonferroni" else None
    scores_p, generator = run(*datasets[0])
    scores_q, _ = run(*datasets[1])
    if (generator.norm_bound_, generator.sensitivity_) != (norm_bound, sensitivity):
        raise RuntimeError(
            "the generator's declared C and Δ differ from ridge_norm_bound/sensitivity"
        )
    test = epsilon_lower_bound(
        scores_p, scores_q, delta, confidence=confidence, thresholds=thresholds
    )
    release = SyntheticDataRelease(dim, 1, norm_bound, sensitivity, sigma, n_syn=n_syn)
    upper = float(compute_epsilon(release, delta).epsilon)
    exact = _threshold_epsilon(law_p, law_q, delta)[0]
    return EndToEndAudit(
        epsilon_lower=test.epsilon,
        epsilon_upper=upper,
        epsilon_pair=exact,
        consistent=test.epsilon <= upper,
        tightness=test.epsilon / upper if upper > 0 else math.nan,
        test=test,
        norm_v=norm_v,
        norm_w=norm_w,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        sigma=sigma,
        dim=dim,
        n_records=n_records,
        n_syn=n_syn,
        trials=trials,
        delta=delta,
        confidence=confidence,
    )
