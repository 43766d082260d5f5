"""``synthamp audit`` as one function: the release's audit, or with a design the implementation's.

:func:`audit_design` takes the command's options by their library names, refuses those
that describe another audit (the norm-model release of ``synthamp audit``: ``dim``,
``norm_bound``, ``sensitivity``, ``out_dim``; its estimator choices; the plot), runs
:func:`~synthamp.audit.audit_worst_pair` and writes the trade-off curve with its
intervals when asked (atomically). :func:`check_no_design_options` refuses the design
audit's options without a design.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from synthamp._output._io import atomic_write_text, check_writable
from synthamp._validation import InputError
from synthamp.audit._worst_pair import DESIGNS, WorstPairAudit, audit_worst_pair
from synthamp.jobs._account_summary import capture_warnings
from synthamp.jobs._audit_summary import AuditSummary, audit_summary

__all__ = ["AUDIT_DESIGNS", "DESIGN_ONLY", "audit_design", "check_no_design_options", "run_audit"]

#: The public designs ``synthamp audit --design`` audits the implementation on.
AUDIT_DESIGNS = DESIGNS

#: Options of ``synthamp audit`` that apply only with a design (library names).
DESIGN_ONLY: tuple[str, ...] = ("width", "targets", "n_records", "ridge", "label_bound", "epsilon")

#: Options that describe the norm-model audit, refused with a design, and why.
_NOT_WITH_DESIGN = {
    "dim": "does not apply with `design` (the design's width is `width`)",
    "norm_bound": "does not apply with `design` (C and Δ are the design's own)",
    "sensitivity": "does not apply with `design` (C and Δ are the design's own)",
    "plot": "does not apply with `design` (`tradeoff` writes the curve with its intervals)",
    "accountant": "does not apply with `design` (the release's own guarantee is the upper bound)",
}
#: Options refused with a design unless at their default.
_DEFAULTS_WITH_DESIGN = {
    "out_dim": (1, "does not apply with `design` (the columns are `targets`)"),
    "mechanism": ("synthetic", "does not apply with `design` (the synthetic data release)"),
    "correction": ("bonferroni", "does not apply with `design` (a grid fixed from the laws)"),
    "estimator": ("family", "does not apply with `design` (every estimator is reported)"),
}


def check_no_design_options(options: Mapping[str, Any]) -> None:
    """Without a design, refuse the design audit's options (library names, None: not given)."""
    for name in DESIGN_ONLY:
        if options.get(name) is not None:
            raise InputError(name, "applies only with `design` (the audit of the implementation)")


def audit_design(
    design: str,
    *,
    width: int | None,
    targets: int | None = None,
    n_records: int | None = None,
    ridge: float | None = None,
    label_bound: float | None = None,
    epsilon: float | None = None,
    sigma: float | None = None,
    n_syn: int | None = None,
    trials: int = 100_000,
    delta: float = 1e-5,
    confidence: float = 0.95,
    seed: int | None = None,
    tradeoff: str | None = None,
    **others: Any,
) -> WorstPairAudit:
    """The end-to-end audit of the implementation on ``design`` from the command's options.

    Parameters
    ----------
    design : {"orthogonal"}
    width, targets, n_records, ridge, label_bound, epsilon, sigma, n_syn, delta, confidence, seed
        As for :func:`~synthamp.audit.audit_worst_pair` (None: its default); ``trials``
        is its ``runs``.
    tradeoff : path, optional
        Where to write the empirical trade-off curve with its intervals beside the exact
        rates (CSV, :meth:`~synthamp.audit._tradeoff_band.TradeoffBand.csv_lines`).
    **others
        The command's other options: refused unless absent or at their default.

    Returns
    -------
    WorstPairAudit
    """
    if design not in DESIGNS:
        raise InputError("design", f"must be one of {', '.join(DESIGNS)}; got {design!r}")
    for name, value in others.items():
        if name in _NOT_WITH_DESIGN and value is not None:
            raise InputError(name, _NOT_WITH_DESIGN[name])
        if name in _DEFAULTS_WITH_DESIGN and value not in (None, _DEFAULTS_WITH_DESIGN[name][0]):
            raise InputError(name, _DEFAULTS_WITH_DESIGN[name][1])
        if name not in _NOT_WITH_DESIGN and name not in _DEFAULTS_WITH_DESIGN:
            raise InputError(name, "is not an option of the design audit")
    if width is None:
        raise InputError("width", "is required with `design`")
    if tradeoff is not None:
        check_writable(tradeoff, force=True, param="tradeoff")
    given = dict(
        targets=targets, n_records=n_records, ridge=ridge, label_bound=label_bound,
        epsilon=epsilon, sigma=sigma, n_syn=n_syn,
    )  # fmt: skip
    result, caught = capture_warnings(
        audit_worst_pair, width, **{k: v for k, v in given.items() if v is not None},
        delta=delta, runs=trials, confidence=confidence, seed=seed,
    )  # fmt: skip
    result = dataclasses.replace(result, warnings=tuple(caught))
    if tradeoff is not None:
        atomic_write_text(tradeoff, "\n".join(result.band.csv_lines()) + "\n")
    return result


def run_audit(design: str | None = None, **options: Any) -> AuditSummary | WorstPairAudit:
    """``synthamp audit`` as a function: the command's options by their library names.

    Without ``design``, the audit of a release beside its guarantee
    (:func:`~synthamp.jobs.audit_summary`; the design audit's options refused); with
    it, the end-to-end audit of the implementation on the realised worst pair
    (:func:`audit_design`).
    """
    if design is not None:
        return audit_design(design, **options)
    check_no_design_options(options)
    others = {name: value for name, value in options.items() if name not in DESIGN_ONLY}
    return audit_summary(**others)
