"""The summary of ``synthamp audit``: an audit beside its guarantee, as data and text.

:func:`audit_summary` validates the user's input, builds the release
(synthetic data, or the Gaussian mechanism releasing V itself), computes the
accountant's upper bound the way every guarantee of synthamp is computed
(:func:`synthamp.accountant.account`; for the Gaussian mechanism its exact
profile), runs :func:`~synthamp.audit.audit_release` and, when asked, writes the
trade-off curves (:func:`~synthamp.audit._tradeoff.write_tradeoff`). The
:class:`AuditSummary` it returns computes nothing: ``to_dict()`` is the
command's JSON object (docs/json.md), ``lines()`` its text (docs/audit.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from synthamp._output._io import check_writable
from synthamp._parameters import validated_one
from synthamp._validation import InputError
from synthamp.accountant import (
    GaussianRelease,
    SyntheticDataRelease,
    account,
    compute_epsilon,
    profile_epsilon,
)
from synthamp.audit._release import AuditResult, audit_release
from synthamp.audit._tradeoff import write_tradeoff
from synthamp.jobs._account_summary import capture_warnings

__all__ = ["MECHANISMS", "AuditSummary", "audit_summary"]

#: What ``audit_summary`` audits: the synthetic data release, or releasing V itself.
MECHANISMS: tuple[str, ...] = ("synthetic", "gaussian")

_K_NOTE = (
    "k > 1: the rank-one worst pair is attacked through one column of the release "
    "(a k = 1 release of width d), a valid attack on the full release"
)
_NO_FIT_NOTE = (
    "the family of the statistic's laws is rejected by the goodness-of-fit DKW "
    "bands (no member fits one sample; a true family is rejected with "
    "probability <= 0.001): epsilon_lower = 0; use --estimator threshold"
)


def _fmt(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)


def _upper_bounds(release, delta: float, accountant: str | None) -> dict[str, Any]:
    """The accountant's ε by PLD (the tight upper bound) and by RDP, and the one used.

    For k = 1 and a finite n_syn with the default accountant, as ``release`` and
    ``account`` do, also the unlimited release's exact ε (valid for every n_syn,
    docs/theory.md §3), and the smaller of it and the finite RDP ε is the upper bound
    (``guarantee`` says which, ``note`` why)."""
    delta = validated_one("delta", delta)
    if isinstance(release, GaussianRelease):  # releasing V: the exact profile, or RDP
        rdp = compute_epsilon(release, delta, accountant="rdp")
        tight = profile_epsilon(release, delta)
        chosen = accountant or "pld"
        used = tight if chosen == "pld" else rdp
        return {
            "epsilon_upper": float(used.epsilon), "upper_kind": str(used.kind),
            "accountant": chosen, "epsilon_pld": float(tight.epsilon),
            "epsilon_rdp": float(rdp.epsilon), "epsilon_unlimited_pld": None,
            "guarantee": None, "note": None,
        }  # fmt: skip
    guarantee = account(release, delta, accountant=accountant)
    return {
        "epsilon_upper": guarantee.epsilon,
        "upper_kind": guarantee.kind,
        "accountant": guarantee.accountant,
        "epsilon_pld": guarantee.epsilon_pld,
        "epsilon_rdp": guarantee.epsilon_rdp,
        "epsilon_unlimited_pld": guarantee.epsilon_unlimited_pld,
        "guarantee": guarantee.guarantee,
        "note": guarantee.reason if guarantee.guarantee else None,
    }


@dataclass(frozen=True)
class AuditSummary:
    """An audit of a release and the accountant's upper bound beside it (``synthamp audit``).

    Attributes
    ----------
    result : AuditResult
        The audit (:func:`~synthamp.audit.audit_release`).
    upper : dict
        The upper bound: ``epsilon_upper``, ``upper_kind``, ``accountant``,
        ``epsilon_pld``, ``epsilon_rdp``, ``epsilon_unlimited_pld``, ``guarantee``.
    notes : tuple of str
        What the reader must know (k > 1 attack, the rule's choice, a rejected
        family, an inconsistency).
    seeded : bool
        The trials were seeded (reproducible).
    warnings : tuple of str
        The messages of the warnings raised while auditing.
    """

    result: AuditResult
    upper: dict[str, Any]
    notes: tuple[str, ...]
    seeded: bool
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``synthamp audit`` (docs/json.md).

        Keys of the contract: ``epsilon_lower``, ``epsilon_upper`` (the
        accountant's), ``confidence``, ``trials``, ``fpr``, ``fnr`` (observed at
        the chosen threshold), ``consistent`` (epsilon_lower <= epsilon_upper).
        Also: ``delta``, ``epsilon_pair`` (exact ε of the audited pair: what an
        audit with unlimited trials reports), ``tightness`` (epsilon_lower /
        epsilon_upper), ``fpr_upper``, ``fnr_upper`` (Clopper–Pearson bounds),
        ``threshold``, ``threshold_llr``, ``direction``, ``correction``,
        ``evaluation_trials``, ``estimator`` (``family`` or ``threshold``: which gave
        epsilon_lower), ``epsilon_threshold`` (the threshold test's bound on the same
        trials; fpr, fnr and the threshold keys describe that test), ``family`` (for
        the family estimator: the family, the amplitude bounds ``amp_p_lower``,
        ``amp_q_upper``, the amplitudes inside each sample's goodness-of-fit band
        ``fit_p``, ``fit_q``, the DKW half-widths ``band_p``, ``band_q`` and ``fits``;
        else None), ``mechanism``, ``statistic``, ``upper_kind``, ``accountant`` (of
        epsilon_upper: pld, the exact profile, by default for k = 1 unlimited and for
        the Gaussian mechanism; rdp otherwise), ``epsilon_pld`` (None when not
        computed), ``epsilon_rdp``, ``epsilon_unlimited_pld`` and ``guarantee`` (k = 1
        and a finite n_syn with the default accountant: the unlimited release's exact
        ε, valid for every n_syn, and which of the two, the smaller, is
        epsilon_upper; else None), ``seeded``, ``notes`` and ``warnings``.
        """
        result, test, upper, fam = self.result, self.result.test, self.upper, self.result.family
        family = None
        if fam is not None:
            family = {
                "family": fam.family,
                "amp_p_lower": fam.amp_p_lower,
                "amp_q_upper": fam.amp_q_upper,
                "fit_p": list(fam.fit_p),
                "fit_q": list(fam.fit_q),
                "band_p": fam.band_p,
                "band_q": fam.band_q,
                "fits": fam.fits,
            }
        return {
            "epsilon_lower": result.epsilon_lower,
            "epsilon_upper": result.epsilon_upper,
            "confidence": result.confidence,
            "trials": result.trials,
            "fpr": test.fpr,
            "fnr": test.fnr,
            "consistent": result.consistent,
            "delta": result.delta,
            "epsilon_pair": result.epsilon_pair,
            "tightness": result.tightness,
            "fpr_upper": test.fpr_upper,
            "fnr_upper": test.fnr_upper,
            "threshold": test.threshold,
            "threshold_llr": result.threshold_llr,
            "direction": test.direction,
            "correction": test.correction,
            "evaluation_trials": list(test.evaluation_trials),
            "estimator": result.estimator,
            "epsilon_threshold": result.epsilon_threshold,
            "family": family,
            "mechanism": result.mechanism,
            "statistic": result.statistic,
            **{key: upper[key] for key in ("upper_kind", "accountant", "epsilon_pld")},
            **{key: upper[key] for key in ("epsilon_rdp", "epsilon_unlimited_pld", "guarantee")},
            "seeded": self.seeded,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def lines(self) -> list[str]:
        """The text of ``synthamp audit``: both bounds, the pair's exact ε, the test, notes."""
        r, test, upper = self.result, self.result.test, self.upper
        level = f"{100 * r.confidence:g}% confidence"
        if r.estimator == "family":
            how = (
                f"family estimator: {r.family.family} fitted with DKW bands on both "
                f"datasets, {level}, {r.trials} trials per dataset"
            )
        else:
            how = (
                f"threshold estimator, {level}, {r.trials} trials per dataset, "
                f"{test.correction} correction"
            )
        out = [
            f"epsilon_lower = {_fmt(r.epsilon_lower)} ({how}) at delta = {r.delta:g}",
            f"epsilon_upper = {_fmt(r.epsilon_upper)} (accountant "
            f"{upper['accountant']}, {upper['upper_kind']})",
        ]
        if upper["epsilon_pld"] is not None and upper["accountant"] != "pld":
            out.append(f"epsilon_pld   = {_fmt(upper['epsilon_pld'])} (exact privacy profile)")
        if upper["accountant"] != "rdp":
            out.append(f"epsilon_rdp   = {_fmt(upper['epsilon_rdp'])} (RDP curve, converted)")
        out.append(f"epsilon_pair  = {_fmt(r.epsilon_pair)} (exact, audited pair)")
        out.append(
            f"consistent: {'yes' if r.consistent else 'NO'}; "
            f"tightness lower/upper = {_fmt(r.tightness)}"
        )
        if r.estimator == "family":
            fam = r.family
            out.append(
                f"family: amplitudes >= {fam.amp_p_lower:.4g} on D, <= "
                f"{fam.amp_q_upper:.4g} on D' (fits: {'yes' if fam.fits else 'NO'}); "
                f"threshold estimator on the same trials: {_fmt(r.epsilon_threshold)} "
                f"({test.correction} correction, {level})"
            )
        out.append(
            f"test: {r.statistic} > {_fmt(test.threshold)} "
            f"(log-likelihood ratio {_fmt(r.threshold_llr)}); "
            f"FPR = {test.fpr:.3g} (<= {test.fpr_upper:.3g}), "
            f"FNR = {test.fnr:.3g} (<= {test.fnr_upper:.3g})"
        )
        return out + [f"note: {note}" for note in self.notes]


def audit_summary(
    dim: int | None,
    norm_bound: float | None,
    sensitivity: float,
    sigma: float,
    n_syn: int | None = None,
    out_dim: int = 1,
    trials: int = 100_000,
    delta: float = 1e-5,
    confidence: float = 0.95,
    seed: int | None = None,
    correction: str = "bonferroni",
    mechanism: str = "synthetic",
    accountant: str | None = None,
    estimator: str = "family",
    tradeoff: str | None = None,
    plot: str | None = None,
) -> AuditSummary:
    """Audit a release against the accountant's guarantee, and write its trade-off curves.

    Parameters
    ----------
    dim, norm_bound, sensitivity, sigma, n_syn, out_dim
        The release: a :class:`~synthamp.accountant.SyntheticDataRelease` (``dim`` and
        ``norm_bound`` required), or for ``mechanism="gaussian"`` a
        :class:`~synthamp.accountant.GaussianRelease` of (``sensitivity``, ``sigma``).
    trials, delta, confidence, correction, estimator
        As for :func:`~synthamp.audit.audit_release`.
    seed : int, optional
        Seed of the trials (default: operating-system entropy); the independent
        simulation of the empirical trade-off curve uses ``seed + 1``.
    mechanism : {"synthetic", "gaussian"}, default "synthetic"
        What is audited (:data:`MECHANISMS`).
    accountant : {"pld", "rdp"}, optional
        Accountant of the upper bound (default: the guarantee rule's).
    tradeoff, plot : path, optional
        Where to write the exact and an empirical trade-off curve (CSV) and their plot
        (PNG, PDF or SVG); checked before any work (:func:`write_tradeoff`).

    Returns
    -------
    AuditSummary
        The audit and the upper bound, with ``to_dict()`` and ``lines()``.
    """
    for value, param in ((sensitivity, "sensitivity"), (sigma, "sigma")):
        if value is None:
            raise InputError(param, "is required")
    for path, param in ((tradeoff, "tradeoff"), (plot, "plot")):
        if path is not None:
            check_writable(path, force=True, param=param)
    if seed is not None:
        seed = validated_one("seed", seed)
    notes = []
    if mechanism == "gaussian":
        release = GaussianRelease(sensitivity, sigma)
    else:
        if dim is None:
            raise InputError("dim", "is required for a synthetic data release")
        if norm_bound is None:
            raise InputError("norm_bound", "is required for a synthetic data release")
        release = SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn)
        if release.out_dim > 1:
            notes.append(_K_NOTE)
    upper = _upper_bounds(release, delta, accountant)
    note = upper.pop("note")
    if note:
        notes.append(note)
    result, caught = capture_warnings(
        audit_release, release, delta, trials=trials, confidence=confidence,
        correction=correction, random_state=seed, epsilon_upper=upper["epsilon_upper"],
        estimator=estimator,
    )  # fmt: skip
    if result.family is not None and not result.family.fits:
        notes.append(_NO_FIT_NOTE)
    if not result.consistent:
        notes.append(
            "INCONSISTENT: the empirical lower bound exceeds the accountant's epsilon; "
            f"this happens with probability <= {1 - result.confidence:g} for a correct "
            "accountant: rerun with another seed, and report it if it persists"
        )
    if tradeoff is not None or plot is not None:
        write_tradeoff(release, trials, seed, tradeoff, plot)
    return AuditSummary(result, upper, tuple(notes), seed is not None, tuple(caught))
