"""The end-to-end audit of the implementation on the realised worst pair (orthogonal design).

The release audit (:mod:`._release`) draws the statistic from its law: it checks the
accountant. This audit runs the **implementation**: every run is one release on a
crafted table, made by the code a design release uses (:func:`~synthamp.release.clip_rows`,
:func:`~synthamp.design._orthogonal.orthogonal_gram_rows`, the ridge fit on the
orthogonal design and the perturbation, sampled from the exact law of VᵀV without
forming the design; the factor R of :mod:`synthamp.release._ridge` with RᵀR = σ_z²VᵀV;
and, with ``n_syn``, the records σ_z·gR the writer draws). The attacker sees only what
is released and knows the public parameters (D, m, λ, B, σ, σ_z).

**The pair** (docs/theory.md §19–§20). On an orthogonal design G = g·I_m,
g = (1 + mλ)⁻², and the accountant's worst case is realised by adjacent tables:

* k = 1: yᵢ = B → 0 with every other row 0: ‖v‖² = B²g against 0, the Gram
  adjacency's worst pair, whose exact ε is the accountant's (the guarantee is attained);
* k = 2: yᵢ = Be₁ → Be₂, every other row 0: the canonical pair at φ = π/2 and width D,
  c = B√g; the certificate is the same pair at width D − 2 (the angle theorem).

**The attack is the likelihood-ratio test, and black-box.** k = 1: given V the records
are iid N(0, σ_z²‖V‖²), so their likelihood depends on them only through ‖ZV‖², whose
law Y·X (Y ~ χ²_D(θ²), X ~ χ²_{n_syn}; χ²_D(θ²) for the unlimited release) has a
monotone likelihood ratio in θ (docs/accountant.md, step 1): ‖ZV‖² is sufficient and
the Neyman–Pearson test of the records is a threshold on it. So the test that reads
only the released records is the optimal test of the mechanism, not a weaker
black-box stand-in; the audit shows it (``llr_monotone``: the exact log-likelihood ratio
of the records, computed by the engine on a sample of runs, is nondecreasing in the
statistic, so both order the runs alike and give the same tests; and the runs' curve
lies on the exact optimal curve within its intervals, ``band.covered``). k = 2: the
log-likelihood ratio of the unlimited release is U = h(S₁₁) − h(S₂₂)
(:mod:`._product_family`), computed from the released Gram.

**The numbers.** The empirical trade-off curve at 64 thresholds fixed before the runs
(from the pair's exact laws), each rate with a Clopper–Pearson interval, beside the
exact curve (:mod:`._tradeoff_band`), and three lower bounds on ε at δ:

* ``epsilon_lower``: the family bound with Clopper–Pearson intervals at one threshold
  per sample (:mod:`._cp_family`), under the assumption that each sample's statistic
  follows the mechanism's family with unknown amplitudes (k = 1: χ²_D(θ²) or Y·X;
  k = 2: the two diagonal entries, :mod:`._product_family`), checked by a
  goodness-of-fit band: certified at confidence γ under that assumption;
* ``epsilon_dkw``: the same family with DKW bands over the whole curve
  (:mod:`._family`, :mod:`._product_family`), a separate statement at the same γ;
* ``epsilon_threshold``: the best threshold test with Clopper–Pearson bounds
  (Bonferroni over the grid): assumption-free, and far below ε at δ = 1e-5 (a
  single test's false-positive rate there is below 1/runs);
* ``epsilon_gdp``: ε(δ) of the μ↓-GDP curve (an estimate: it assumes a Gaussian curve).

and μ_emp/μ (the GDP fit of the runs' curve over the mechanism's, with its interval).
``epsilon_upper`` is the accountant's ε for the release (k = 1: the exact profile under
the Gram adjacency; k = 2: the certified orthogonal node), ``epsilon_pair`` the exact ε
of the audited pair.

**A broken implementation** (``run_sigma``): the runs use σ_run while everything
public (the accountant, the attacker's normalisation) uses σ. With σ_run = σ/2 the
audit's lower bound exceeds the claimed ε (tests/audit/test_worst_pair.py).

The tables are public and crafted; no private data is involved. The audit prints only
rates and thresholds of its own simulations, never V, N, Z or R.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from synthamp._budget import report_status
from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import (
    InputError,
    check_integer,
)
from synthamp.accountant import SyntheticDataRelease, account, account_certified
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.audit._cp_family import amplitude_bound, efficient_threshold
from synthamp.audit._product_family import (
    ProductFamilyEpsilon,
    loss_rates,
    loss_statistic,
    loss_thresholds,
    pair_pld,
    product_family_epsilon,
)
from synthamp.audit._rates import (
    BONFERRONI_THRESHOLDS,
    DEFAULT_CONFIDENCE,
    EmpiricalEpsilon,
    epsilon_lower_bound,
)
from synthamp.audit._release import (
    AuditPair,
    family_audit,
    fixed_thresholds,
    law_pair_epsilon,
    pair_family,
    threshold_epsilon,
)
from synthamp.audit._tradeoff_band import TradeoffBand, tradeoff_band
from synthamp.design._orthogonal import (
    check_orthogonal_width,
    orthogonal_bounds,
    orthogonal_gram_rows,
)
from synthamp.design._release import account_design, certified_design_release
from synthamp.divergence import log_likelihood_ratio, log_likelihood_ratio_finite
from synthamp.divergence._laws import Law, NoncentralChiSquare, ProductLaw
from synthamp.release._ridge import _draw_with_factor, _gram_factor, clip_rows

__all__ = ["DESIGNS", "WorstPairAudit", "audit_worst_pair", "worst_pair_targets"]

#: Designs on which the worst pair is realised and audited end to end.
DESIGNS: tuple[str, ...] = ("orthogonal",)
#: Runs on which the exact log-likelihood ratio is checked against the statistic (k = 1).
LLR_CHECK_RUNS = 200


def worst_pair_targets(
    n_records: int, out_dim: int, label_bound: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The two adjacent target tables of the realised worst pair (m × k, public and crafted).

    k = 1: y₁ = B on D, 0 on D′; k = 2: y₁ = Be₁ on D, Be₂ on D′; every other row 0.
    """
    m = validated_one("n_records", n_records)
    if out_dim not in (1, 2):
        raise InputError(
            "targets", f"the realised worst pair is audited for k = 1 or 2, got {out_dim}"
        )
    b = validated_one("label_bound", label_bound)
    table_p = np.zeros((m, out_dim))
    table_q = np.zeros((m, out_dim))
    table_p[0, 0] = b
    if out_dim == 2:
        table_q[0, 1] = b
    return table_p, table_q


def _run_pipeline(
    targets: NDArray, width: int, ridge: float, label_bound: float, sigma_run: float,
    seed_scale: float, n_syn: int | None, runs: int, rng: np.random.Generator,
) -> NDArray[np.float64]:  # fmt: skip
    """The released Gram (k × k) of ``runs`` releases of ``targets``: σ_z²VᵀV (unlimited:
    RᵀR of the factor the writer uses) or the records' Gram (n_syn records σ_z·gR)."""
    k = targets.shape[1]
    out = np.empty((runs, k, k))
    for i in range(runs):
        rows = orthogonal_gram_rows(clip_rows(targets, label_bound), width, ridge, sigma_run, rng)
        factor = seed_scale * _gram_factor(rows)
        released = factor if n_syn is None else _draw_with_factor(factor, n_syn, rng)
        out[i] = released.T @ released
    return out


@dataclass(frozen=True)
class WorstPairAudit:
    """The end-to-end audit of the implementation on the realised worst pair.

    Attributes
    ----------
    epsilon_lower : float
        The family bound with Clopper–Pearson intervals (at ``confidence``, under its
        assumption; module docstring).
    epsilon_dkw : float
        The family bound with DKW bands (a separate statement at ``confidence``).
    epsilon_threshold : float
        The assumption-free threshold test's lower bound (Clopper–Pearson, Bonferroni).
    epsilon_gdp : float
        ε(δ) of μ↓-GDP: an estimate (assumes a Gaussian trade-off curve).
    epsilon_upper : float
        The accountant's ε of the release (``upper_kind``).
    epsilon_pair : float
        The audited pair's exact ε (a lower bound on the mechanism's; k = 2: the PLD's
        optimistic companion; with ``n_syn`` records at k = 2 the unlimited pair's).
    tightness : float
        epsilon_lower / epsilon_upper.
    band : TradeoffBand
        The empirical trade-off curve with intervals, the exact one, the GDP fit.
    test : EmpiricalEpsilon
        The threshold test.
    family : FamilyEpsilon or ProductFamilyEpsilon
        The DKW family bound (and the goodness-of-fit check both family bounds use).
    cp_family : dict
        The Clopper–Pearson family bound: ``thresholds``, ``amp_lower`` (signal samples),
        ``amp_upper`` (central samples).
    llr_monotone : bool or None
        k = 1: the exact log-likelihood ratio of the released records is nondecreasing
        in the attack's statistic on :data:`LLR_CHECK_RUNS` runs (None for k = 2).
    sigma, sigma_run, amp : float
        σ accounted, σ of the runs (σ unless a broken variant is audited), a = B√g/σ.
    width, out_dim, n_records, runs : int
    n_syn : int or None
    ridge, label_bound, delta, confidence : float
    upper_kind, accountant, statistic : str
    seeded : bool
    seconds : float
        Time of the runs (both datasets).
    notes : tuple of str
    warnings : tuple of str
        The messages of the warnings raised while auditing (the command line's).
    """

    epsilon_lower: float
    epsilon_dkw: float
    epsilon_threshold: float
    epsilon_gdp: float
    epsilon_upper: float
    epsilon_pair: float
    tightness: float
    band: TradeoffBand
    test: EmpiricalEpsilon
    family: Any
    cp_family: dict
    llr_monotone: bool | None
    sigma: float
    sigma_run: float
    amp: float
    width: int
    out_dim: int
    n_records: int
    runs: int
    n_syn: int | None
    ridge: float
    label_bound: float
    delta: float
    confidence: float
    upper_kind: str
    accountant: str
    statistic: str
    seeded: bool
    seconds: float
    notes: tuple[str, ...] = field(default=())
    warnings: tuple[str, ...] = field(default=())

    @property
    def consistent(self) -> bool:
        """Every lower bound <= epsilon_upper."""
        lows = (self.epsilon_lower, self.epsilon_dkw, self.epsilon_threshold)
        return max(lows) <= self.epsilon_upper

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``synthamp audit --design orthogonal`` (docs/audit.md §8)."""
        band, test = self.band, self.test
        ratio, ratio_low, ratio_high = band.mu_ratio
        family = None
        if isinstance(self.family, ProductFamilyEpsilon):
            family = {
                "family": self.family.family,
                "amp_signal_lower": list(self.family.amp_signal_lower),
                "amp_central_upper": list(self.family.amp_central_upper),
                "band": self.family.band, "fits": self.family.fits,
            }  # fmt: skip
        elif self.family is not None:
            family = {
                "family": self.family.family, "amp_p_lower": self.family.amp_p_lower,
                "amp_q_upper": self.family.amp_q_upper, "band_p": self.family.band_p,
                "band_q": self.family.band_q, "fits": self.family.fits,
            }  # fmt: skip
        return {
            "audit": "implementation, realised worst pair",
            "mechanism": "synthetic",
            "design": "orthogonal",
            "width": self.width, "targets": self.out_dim, "n_records": self.n_records,
            "ridge": self.ridge, "label_bound": self.label_bound, "n_syn": self.n_syn,
            "sigma": self.sigma, "sigma_run": self.sigma_run, "amplitude": self.amp,
            "runs": self.runs, "trials": self.runs, "delta": self.delta,
            "confidence": self.confidence,
            "epsilon_lower": self.epsilon_lower, "epsilon_dkw": self.epsilon_dkw,
            "epsilon_threshold": self.epsilon_threshold, "cp_family": self.cp_family,
            "epsilon_gdp": self.epsilon_gdp, "epsilon_upper": self.epsilon_upper,
            "upper_kind": self.upper_kind, "accountant": self.accountant,
            "epsilon_pair": self.epsilon_pair, "tightness": self.tightness,
            "consistent": self.consistent,
            "mu_emp": band.mu_emp, "mu_interval": [band.mu_low, band.mu_high], "mu": band.mu,
            "mu_ratio": ratio, "mu_ratio_interval": [ratio_low, ratio_high],
            "mu_fit_emp": band.mu_fit_emp, "mu_fit": band.mu_fit,
            "gdp_threshold": float(band.thresholds[band.best]),
            "curve_covered": band.covered,
            "fpr": test.fpr, "fnr": test.fnr, "fpr_upper": test.fpr_upper,
            "fnr_upper": test.fnr_upper, "threshold": test.threshold,
            "direction": test.direction, "family": family,
            "llr_monotone": self.llr_monotone, "statistic": self.statistic,
            "seeded": self.seeded, "seconds": self.seconds, "notes": list(self.notes),
            "warnings": list(self.warnings),
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The text of ``synthamp audit --design orthogonal``."""
        band = self.band
        ratio, ratio_low, ratio_high = band.mu_ratio
        level = f"{100 * self.confidence:g}% confidence"
        records = "unlimited (the released Gram)" if self.n_syn is None else f"{self.n_syn} records"
        out = [
            f"audit of the implementation: orthogonal design D = {self.width}, k = "
            f"{self.out_dim}, m = {self.n_records}, lambda = {self.ridge:g}, B = "
            f"{self.label_bound:g}, sigma = {self.sigma:.6g}"
            + (f" (runs at sigma = {self.sigma_run:.6g})" if self.sigma_run != self.sigma else "")
            + f", {records}, {self.runs} runs per table",
            f"epsilon_lower     = {self.epsilon_lower:.4g} (family, Clopper-Pearson at one "
            f"threshold per sample, {level}) at delta = {self.delta:g}",
            f"epsilon_dkw       = {self.epsilon_dkw:.4g} (family, DKW bands, {level})",
            f"epsilon_threshold = {self.epsilon_threshold:.4g} (best threshold test, "
            f"Clopper-Pearson, assumption-free)",
            f"epsilon_gdp       = {self.epsilon_gdp:.4g} (estimate: mu_lower-GDP)",
            f"epsilon_upper     = {self.epsilon_upper:.4g} (accountant {self.accountant}, "
            f"{self.upper_kind})",
            f"epsilon_pair      = {self.epsilon_pair:.4g} (exact, audited pair)",
            f"consistent: {'yes' if self.consistent else 'NO'}; tightness lower/upper = "
            f"{self.tightness:.4g}",
            f"mu_emp/mu = {ratio:.4f} [{ratio_low:.4f}, {ratio_high:.4f}] (mu = {band.mu:.4g} "
            f"at the GDP threshold; whole-curve fit {band.mu_fit_emp:.4g} vs {band.mu_fit:.4g})",
            f"trade-off curve: {100 * band.covered:.0f}% of {band.thresholds.size} thresholds "
            f"cover the exact rates ({level} each)",
        ]
        if self.llr_monotone is not None:
            out.append(
                "black-box = optimal: the records' exact log-likelihood ratio is "
                + ("nondecreasing" if self.llr_monotone else "NOT monotone")
                + f" in the statistic ({self.statistic})"
            )
        return out + [f"note: {note}" for note in self.notes]


def _accounted(
    bounds, width, k, epsilon, delta, sigma, label_bound
) -> tuple[float, float, str, str]:
    """(σ, ε_upper, kind, accountant): calibrated at ``epsilon`` or accounted at ``sigma``."""
    if sigma is None:
        accounted = account_design(bounds, width, k, epsilon, delta, label_bound=label_bound)
        guarantee = accounted.guarantee
        return accounted.sigma, float(guarantee.epsilon), str(guarantee.kind), guarantee.accountant
    if k == 1:
        release = SyntheticDataRelease(
            width, 1, bounds.norm_bound, bounds.sensitivity, sigma,
            gram_sensitivity=bounds.gram_sensitivity,
        )  # fmt: skip
        guarantee = account(release, delta)
        return sigma, float(guarantee.epsilon), str(guarantee.kind), guarantee.accountant
    public = certified_design_release(bounds, label_bound, width, k).with_sigma(sigma)
    certified = account_certified(public, delta)
    return sigma, float(certified.epsilon), str(certified.kind), "pld"


def _k1_laws(width: int, amp: float, n_syn: int | None) -> tuple[Law, Law, str]:
    if n_syn is None:
        return (NoncentralChiSquare(width, amp), NoncentralChiSquare(width, 0.0),
                "|V|^2/sigma^2 of the released Gram (unlimited release)")  # fmt: skip
    return (ProductLaw(width, amp, n_syn), ProductLaw(width, 0.0, n_syn),
            f"|ZV|^2/(sigma_z^2 sigma^2) of the {n_syn} released records")  # fmt: skip


def _llr_monotone(scores: NDArray, width: int, amp: float, n_syn: int | None) -> bool:
    """The engine's exact log p/q at the runs' statistic is nondecreasing in it."""
    x = np.sort(scores[:LLR_CHECK_RUNS])
    if n_syn is None:
        llr = np.asarray(log_likelihood_ratio(x, width, amp, 0.0))
    else:
        llr = np.asarray(log_likelihood_ratio_finite(x, width, n_syn, amp, 0.0))
    return bool(np.all(np.diff(llr) >= -1e-9 * np.maximum(1.0, np.abs(llr[1:]))))


def _cp_bounds(law_of, amp: float, signal: list, central: list, confidence: float):
    """The Clopper–Pearson family bounds (:mod:`._cp_family`): every sample at level
    (1 − γ)/s; returns the report and (â, b̂) = (min of a↓, max of b↑)."""
    level = (1.0 - confidence) / (len(signal) + len(central))
    tau_signal, tau_central = efficient_threshold(law_of, amp), efficient_threshold(law_of, 0.0)
    lows = [amplitude_bound(x, tau_signal, law_of, level, True, amp) for x in signal]
    highs = [amplitude_bound(x, tau_central, law_of, level, False, amp) for x in central]
    report = {"thresholds": [tau_signal, tau_central], "amp_lower": lows, "amp_upper": highs}
    return report, (min(lows), max(highs))


@privacy_quantity("certified")
def audit_worst_pair(
    width: int,
    targets: int = 1,
    *,
    n_records: int = 10,
    ridge: float = 0.01,
    label_bound: float = 1.0,
    epsilon: float = 1.0,
    delta: float = 1e-5,
    sigma: float | None = None,
    n_syn: int | None = None,
    runs: int = 100_000,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | None = None,
    run_sigma: float | None = None,
    seed_scale: float | None = None,
) -> WorstPairAudit:
    """Audit the implementation end to end on the realised worst pair of an orthogonal design.

    Parameters
    ----------
    width : int
        D >= m, the design's width.
    targets : {1, 2}, default 1
        k, the number of target columns.
    n_records : int, default 10
        m, rows of the crafted tables.
    ridge, label_bound : float
        λ and B.
    epsilon : float, default 1.0
        The target ε at which σ is calibrated (unless ``sigma`` is given).
    delta : float, default 1e-5
    sigma : float, optional
        σ of the release (then ``epsilon_upper`` is the accountant's ε at it).
    n_syn : int, optional
        Records released per run (k = 1); default: the unlimited release (its Gram).
    runs : int, default 100000
        Releases per table.
    confidence : float, default 0.95
    seed : int, optional
        Public seed of the runs, for reproducible research (default: OS entropy).
    run_sigma : float, optional
        σ the runs use (default σ): a different value audits a deliberately broken
        implementation, accounted at σ.
    seed_scale : float, optional
        σ_z (default 1/√D).

    Returns
    -------
    WorstPairAudit
    """
    m = validated_one("n_records", n_records)
    width = check_orthogonal_width(validated_one("width", width), m)
    k = check_integer("targets", targets, 1)
    table_p, table_q = worst_pair_targets(m, k, label_bound)
    ridge, label_bound, delta = validated(ridge=ridge, label_bound=label_bound, delta=delta)
    confidence = validated_one("confidence", confidence)
    runs = validated_one("trials", runs)  # named as the command's --trials, which it is
    if n_syn is not None:
        n_syn = validated_one("n_syn", n_syn)
        if k == 2:
            raise InputError("n_syn", "k = 2 is audited on the unlimited release (its Gram) only")
    if seed is not None:
        seed = validated_one("seed", seed)
    epsilon = validated_one("epsilon", epsilon)
    if sigma is not None:
        sigma = validated_one("sigma", sigma)
    scale = (
        1.0 / math.sqrt(width) if seed_scale is None else validated_one("seed_scale", seed_scale)
    )
    bounds = orthogonal_bounds(m, ridge, label_bound)
    report_status("audit: accounting the release")
    sigma, upper, kind, accountant = _accounted(
        bounds, width, k, epsilon, delta, sigma, label_bound
    )
    sigma_run = sigma if run_sigma is None else validated_one("run_sigma", run_sigma)
    amp = label_bound / (1.0 + m * ridge) / sigma  # B√g/σ, the realised pair's amplitude
    rng = np.random.default_rng(seed)
    report_status(f"audit: {runs:,} releases of each table by the release code")
    start = time.perf_counter()
    grams = [
        _run_pipeline(table, width, ridge, label_bound, sigma_run, scale, n_syn, runs, rng)
        for table in (table_p, table_q)
    ]
    seconds = time.perf_counter() - start
    norm = scale * scale * sigma * sigma  # public: the attacker's normalisation
    notes: list[str] = []
    llr_ok = None
    report_status("audit: tests, intervals and fits")
    if k == 1:
        law_p, law_q, statistic = _k1_laws(width, amp, n_syn)
        scores_p, scores_q = (g[:, 0, 0] / norm for g in grams)
        pair = AuditPair(law_p, law_q, amp, 0.0, statistic, lambda s: math.nan)
        thresholds = fixed_thresholds(pair, runs)
        t = law_p.to_t(thresholds)
        exact_fpr = np.exp(law_q.log_tail(t, True))
        exact_fnr = np.exp(law_p.log_tail(t, False))
        family = family_audit(pair, scores_p, scores_q, delta, confidence)
        law_of = pair_family(pair)[0]
        cp_family, cp_pair = _cp_bounds(law_of, amp, [scores_p], [scores_q], confidence)
        lower = 0.0
        if family.fits and cp_pair[0] > cp_pair[1]:
            lower = law_pair_epsilon(law_of(cp_pair[0]), law_of(cp_pair[1]), delta)
        epsilon_pair = threshold_epsilon(law_p, law_q, delta)[0]
        llr_ok = _llr_monotone(scores_p, width, amp, n_syn)
    else:
        diag_p, diag_q = (np.stack([g[:, 0, 0], g[:, 1, 1]], axis=1) / norm for g in grams)
        scores_p = loss_statistic(diag_p, width, amp)
        scores_q = loss_statistic(diag_q, width, amp)
        statistic = "h(S11) - h(S22), the log-likelihood ratio of the released Gram"
        thresholds = loss_thresholds(width, amp, runs, BONFERRONI_THRESHOLDS)
        exact_fpr, exact_fnr = loss_rates(thresholds, width, amp)
        family = product_family_epsilon(diag_p, diag_q, width, amp, delta, confidence)
        cp_family, cp_pair = _cp_bounds(
            lambda theta: NoncentralChiSquare(width, theta), amp,
            [diag_p[:, 0], diag_q[:, 1]], [diag_p[:, 1], diag_q[:, 0]], confidence,
        )  # fmt: skip
        lower = 0.0
        if family.fits and cp_pair[0] > cp_pair[1]:
            lower = float(pair_pld(width, *cp_pair).epsilon_lower(delta))
        epsilon_pair = float(pair_pld(width, amp).epsilon_lower(delta))
    test = epsilon_lower_bound(
        scores_p, scores_q, delta, confidence=confidence, thresholds=thresholds
    )
    band = tradeoff_band(scores_p, scores_q, thresholds, exact_fpr, exact_fnr, confidence)
    if not family.fits:
        notes.append("the family does not fit the runs (goodness-of-fit band): epsilon_lower = 0")
    epsilon_gdp = gaussian_epsilon(delta, band.mu_low) if band.mu_low > 0 else 0.0
    if max(lower, family.epsilon, test.epsilon) > upper:
        notes.append(
            "INCONSISTENT: a lower bound exceeds the accountant's epsilon: the implementation "
            "does not meet its guarantee (or a 1 - confidence accident: rerun)"
        )
    return WorstPairAudit(
        epsilon_lower=lower, epsilon_dkw=family.epsilon, epsilon_threshold=test.epsilon,
        epsilon_gdp=epsilon_gdp, cp_family=cp_family,
        epsilon_upper=upper, epsilon_pair=epsilon_pair,
        tightness=lower / upper if upper > 0 else math.nan, band=band, test=test,
        family=family, llr_monotone=llr_ok, sigma=sigma, sigma_run=sigma_run, amp=amp,
        width=width, out_dim=k, n_records=m, runs=runs, n_syn=n_syn, ridge=ridge,
        label_bound=label_bound, delta=delta, confidence=confidence, upper_kind=kind,
        accountant=accountant, statistic=statistic, seeded=seed is not None,
        seconds=seconds, notes=tuple(notes),
    )  # fmt: skip
