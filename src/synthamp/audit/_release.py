"""The release audit: attack the worst-case pair of a release through its statistic.

The distinguishing game (docs/theory.md §1, §3)
-----------------------------------------------
Two adjacent datasets give models v and w. For k = 1 the worst case of the
accountant is the forward endpoint ‖v‖ = C, ‖w‖ = C − min(Δ, C), aligned
(:func:`synthamp.accountant.worst_case_rdp`); that pair is feasible
(‖v − w‖ = min(Δ, C) <= Δ), so every bound obtained by attacking it is a valid
lower bound on the ε of the mechanism, whether or not it is the maximiser.
Each trial draws one release from each dataset. The attack sees only the
released data, through its sufficient statistic (docs/theory.md §3), which is
sampled directly since its law is known exactly:

* unlimited release: ‖V‖²/σ² ~ χ²_d(a²), a = ‖v‖/σ (the Gram matrix of an
  unlimited release of k = 1 records determines ‖V‖²);
* n_syn records: ‖ZV‖²/(σ_z²σ²) = Y·X with Y ~ χ²_d(a²) and an independent
  X ~ χ²_{n_syn};
* the Gaussian mechanism (releasing V itself): ⟨V − w, e⟩/σ ~ N(Δ/σ, 1)
  against N(0, 1), e = (v − w)/‖v − w‖.

For k > 1 the rank-one pair v = C·e₁u₁ᵀ, w = (C − Δ)e₁u₁ᵀ is attacked through
the first column of ZV (after the public rotation u₁ → e₁), which is exactly a
k = 1 release of width d (docs/theory.md §8): the same statistic, a valid attack on
the full release.

The test. The families above have a monotone likelihood ratio in the
statistic (the proof is in the docstring of :mod:`synthamp.accountant._worst_case`), so
the likelihood-ratio test "log p/q > ℓ" of Neyman and Pearson is the
threshold test "statistic > τ", with ℓ = log p(τ)/q(τ): thresholding the
statistic *is* the likelihood-ratio test, without evaluating the likelihood
ratio at every trial. The log-likelihood ratio at the chosen threshold is
reported (:func:`synthamp.log_likelihood_ratio`,
:func:`synthamp.log_likelihood_ratio_finite`).


The threshold grid of the Bonferroni correction (:mod:`._rates`) is fixed
before sampling from the known laws of the statistic
(:mod:`synthamp.divergence._laws`): G = :data:`BONFERRONI_THRESHOLDS` points
evenly spaced (in log T, or T for the Gaussian mechanism) between P's lower
and Q's upper 1/trials quantiles.

Exact reference
---------------
:func:`pair_epsilon`: the exact ε(δ) of the audited pair,
sup_τ log((P(T > τ) − δ)/Q(T > τ)) (and the reverse direction), which is the
population value of the audit's statistic: it is what an audit with
unlimited trials would report, a lower bound on the mechanism's ε, and the
accountant's ε (an RDP conversion) lies above it. For the Gaussian mechanism
it is :func:`synthamp.audit.gaussian_epsilon` (Balle and Wang 2018).

References
----------
Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for
differential privacy: analytical calibration and optimal denoising. ICML.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from synthamp._budget import report_status
from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.audit._family import FamilyEpsilon, family_epsilon_lower_bound
from synthamp.audit._rates import (
    BONFERRONI_THRESHOLDS,
    DEFAULT_CONFIDENCE,
    Correction,
    EmpiricalEpsilon,
    check_correction,
    epsilon_lower_bound,
    random_state_of,
)
from synthamp.divergence import log_likelihood_ratio, log_likelihood_ratio_finite
from synthamp.divergence._laws import GaussianLaw, Law, NoncentralChiSquare, ProductLaw

__all__ = [
    "ESTIMATORS",
    "AuditResult",
    "PairEpsilon",
    "audit_release",
    "pair_epsilon",
    "sample_statistic",
    "threshold_epsilon",
]


Estimator = Literal["family", "threshold"]

#: Estimators of :func:`audit_release`: the fitted family (default) and the threshold test.
ESTIMATORS: tuple[str, ...] = ("family", "threshold")


def check_estimator(estimator: str) -> str:
    if estimator not in ESTIMATORS:
        raise InputError("estimator", f"must be one of {', '.join(ESTIMATORS)}; got {estimator!r}")
    return estimator


def threshold_epsilon(
    law_p: Law, law_q: Law, delta: float, *, tiny: float = 1e-12
) -> tuple[float, float, str]:
    """sup over thresholds of the population audit bound: the exact ε(δ) of an MLR pair.

    Forward: sup_τ log((P(T > τ) − δ)/Q(T > τ)); backward:
    sup_τ log((Q(T <= τ) − δ)/P(T <= τ)). For a pair with a monotone likelihood
    ratio the threshold sets are the Neyman–Pearson sets, so the larger of the
    two is the smallest ε with the pair (ε, δ)-indistinguishable. Returns
    (ε, t*, direction); a dense grid (129 points) then bounded Brent.
    """
    log_delta = math.log(delta)

    def tail_log_ratio(num: Law, den: Law, upper: bool):
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
class AuditPair:
    law_p: Law
    law_q: Law
    amp_p: float
    amp_q: float
    statistic: str
    log_likelihood_ratio: Callable[[float], float]


def audit_pair(release: SyntheticDataRelease | GaussianRelease) -> AuditPair:
    """The worst-case adjacent pair of a single release and the laws of its statistic."""
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    if release.releases != 1:
        raise InputError("releases", "the audit covers a single release (releases = 1)")
    if isinstance(release, GaussianRelease):
        mu = release.sensitivity / release.sigma
        return AuditPair(
            GaussianLaw(mu),
            GaussianLaw(0.0),
            mu,
            0.0,
            "<V - w, e>/sigma, e = (v - w)/|v - w| (Gaussian mechanism, releasing V)",
            lambda t: mu * t - 0.5 * mu * mu,
        )
    c = release.norm_bound / release.sigma
    a, b = c, max(c - release.amplitude_gap / release.sigma, 0.0)
    d, n = release.dim, release.n_syn
    if n is None:
        return AuditPair(
            NoncentralChiSquare(d, a),
            NoncentralChiSquare(d, b),
            a,
            b,
            "|V|^2/sigma^2 (unlimited release: the Gram matrix V^T V)",
            lambda x: float(log_likelihood_ratio(x, d, a, b)),
        )
    return AuditPair(
        ProductLaw(d, a, n),
        ProductLaw(d, b, n),
        a,
        b,
        f"|ZV|^2/(sigma_z^2 sigma^2) ({n} synthetic records)",
        lambda s: float(log_likelihood_ratio_finite(s, d, n, a, b)),
    )


def law_pair_epsilon(law_p: Law, law_q: Law, delta: float) -> float:
    """Exact ε(δ) of two laws of one family (Balle–Wang for N(·, 1), else the threshold sup)."""
    if isinstance(law_p, GaussianLaw) and isinstance(law_q, GaussianLaw):
        gap = law_p.mean - law_q.mean
        return gaussian_epsilon(delta, gap) if gap > 0 else 0.0
    return threshold_epsilon(law_p, law_q, delta)[0]


def pair_family(pair: AuditPair) -> tuple[Callable[[float], Law], float, str]:
    """The family θ ↦ L(θ) of the pair's laws, its smallest θ and its description."""
    law = pair.law_p
    if isinstance(law, GaussianLaw):
        return GaussianLaw, -math.inf, "N(theta, 1)"
    if isinstance(law, NoncentralChiSquare):
        d = law.dim
        return (lambda theta: NoncentralChiSquare(d, theta)), 0.0, f"chi2_{d}(theta^2)"
    if isinstance(law, ProductLaw):
        d, n = law.dim, law.n_syn
        return (
            (lambda theta: ProductLaw(d, theta, n)),
            0.0,
            f"Y*X, Y ~ chi2_{d}(theta^2), X ~ chi2_{n}",
        )
    raise InputError("release", f"no family is known for the law {law!r}")


def family_audit(
    pair: AuditPair,
    scores_p: NDArray[np.float64],
    scores_q: NDArray[np.float64],
    delta: float,
    confidence: float,
) -> FamilyEpsilon:
    """The family estimator (:func:`synthamp.audit._family.family_epsilon_lower_bound`)."""
    law_of, lower_limit, family = pair_family(pair)
    return family_epsilon_lower_bound(
        scores_p,
        scores_q,
        delta,
        law_of=law_of,
        pair_epsilon=law_pair_epsilon,
        start_p=pair.amp_p,
        start_q=pair.amp_q,
        lower_limit=lower_limit,
        confidence=confidence,
        family=family,
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
    pair = audit_pair(release)
    trials = validated_one("trials", trials)
    rng = np.random.default_rng(random_state_of(random_state))
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


def _pair_epsilon(pair: AuditPair, delta: float, sigma: float) -> PairEpsilon:
    if isinstance(pair.law_p, GaussianLaw):
        eps = gaussian_epsilon(delta, pair.amp_p)
        # the Neyman–Pearson threshold where log p/q = μτ − μ²/2 = ε
        t_star = eps / pair.amp_p + 0.5 * pair.amp_p
        direction = "forward" if eps > 0 else "none"
        return PairEpsilon(eps, delta, t_star, direction, pair.amp_p * sigma, 0.0)
    eps, t_star, direction = threshold_epsilon(pair.law_p, pair.law_q, delta)
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
    pair = audit_pair(release)
    delta = validated_one("delta", delta)
    return _pair_epsilon(pair, delta, release.sigma)


# --------------------------------------------------------------------------- audit of a release


@dataclass(frozen=True)
class AuditResult:
    """Empirical audit of a release next to its accountant (:func:`audit_release`).

    Attributes
    ----------
    epsilon_lower : float
        Empirical lower bound on ε (confidence ``confidence``) of the estimator
        ``estimator``.
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
        The best threshold test on the same trials (threshold, rates, bounds,
        correction): ``epsilon_lower`` when ``estimator`` is ``"threshold"``.
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
    estimator : str
        ``"family"`` (the fitted family, :mod:`synthamp.audit._family`) or
        ``"threshold"`` (the threshold test, :mod:`synthamp.audit._rates`).
    family : FamilyEpsilon or None
        The family estimator's result (None for ``"threshold"``).
    epsilon_threshold : float
        The threshold test's bound on the same trials (``test.epsilon``), a
        separate statement at the same confidence (the two are not combined).
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
    estimator: str = "threshold"
    family: FamilyEpsilon | None = None
    epsilon_threshold: float = math.nan


def fixed_thresholds(pair: AuditPair, trials: int) -> NDArray[np.float64]:
    """G thresholds fixed before sampling, between P's and Q's 1/trials tail quantiles."""
    log_p = -math.log(trials)
    lo = pair.law_p.quantile_t(log_p, False)
    hi = pair.law_q.quantile_t(log_p, True)
    lo, hi = min(lo, hi), max(lo, hi)
    return pair.law_p.from_t(np.linspace(lo, hi, BONFERRONI_THRESHOLDS))


def _audit_scores(
    pair: AuditPair,
    scores_p: NDArray[np.float64],
    scores_q: NDArray[np.float64],
    delta: float,
    confidence: float,
    correction: str,
) -> EmpiricalEpsilon:
    thresholds = None
    if correction == "bonferroni":
        thresholds = fixed_thresholds(pair, min(scores_p.size, scores_q.size))
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
    estimator: Estimator = "family",
) -> AuditResult:
    """Audit a release: attack its worst-case pair and compare with the accountant.

    Draws ``trials`` releases of the statistic from each dataset of the pair
    (:func:`sample_statistic`), bounds ε from below by the fitted family
    (``estimator="family"``: DKW bands on both empirical distributions, the
    whole trade-off curve, :mod:`synthamp.audit._family`) or by the best
    threshold (likelihood-ratio) test (``"threshold"``,
    :func:`epsilon_lower_bound`), and reports it next
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
        Threshold-selection correction of the threshold test (module docstring).
    random_state : int, numpy Generator or None
        None draws from operating-system entropy.
    epsilon_upper : float, optional
        The accountant's ε, if already computed (skips the accountant call).
    estimator : {"family", "threshold"}, default "family"
        ``"family"`` assumes the statistic follows its family of laws with
        unknown amplitudes (true here: the trials are drawn from those laws);
        ``"threshold"`` assumes nothing but independent trials. The threshold
        test is run on the same trials in both cases (``test``).

    Returns
    -------
    AuditResult
    """
    pair = audit_pair(release)
    delta, confidence = validated(delta=delta, confidence=confidence)
    correction = check_correction(correction)
    estimator = check_estimator(estimator)
    trials = validated_one("trials", trials)
    rng = np.random.default_rng(random_state_of(random_state))
    report_status(f"audit: simulating {trials:,} releases per dataset")
    scores_p, scores_q = pair.law_p.sample(trials, rng), pair.law_q.sample(trials, rng)
    report_status("audit: threshold tests")
    test = _audit_scores(pair, scores_p, scores_q, delta, confidence, correction)
    family = None
    lower = test.epsilon
    if estimator == "family":
        report_status("audit: fitting the family of laws (DKW bands on both datasets)")
        family = family_audit(pair, scores_p, scores_q, delta, confidence)
        lower = family.epsilon
    if epsilon_upper is None:
        accounted = compute_epsilon(release, delta, accountant="rdp")
        upper, kind = float(accounted.epsilon), str(accounted.kind)
    else:
        upper, kind = validated_one("epsilon_upper", epsilon_upper), "given"
    report_status("audit: exact epsilon of the audited pair")
    exact = _pair_epsilon(pair, delta, release.sigma)
    return AuditResult(
        epsilon_lower=lower,
        epsilon_upper=upper,
        epsilon_pair=exact.epsilon,
        consistent=lower <= upper,
        tightness=lower / upper if upper > 0 else math.nan,
        delta=delta,
        confidence=confidence,
        trials=trials,
        test=test,
        threshold_llr=pair.log_likelihood_ratio(test.threshold),
        upper_kind=kind,
        mechanism="gaussian" if isinstance(release, GaussianRelease) else "synthetic",
        statistic=pair.statistic,
        pair=exact,
        estimator=estimator,
        family=family,
        epsilon_threshold=test.epsilon,
    )
