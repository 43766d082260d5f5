"""``synthamp account`` and ``synthamp calibrate``: the privacy accountant on the command line.

``account`` turns a release (d, k, C, Δ, σ, n_syn, T) into an RDP curve and an
(ε, δ) guarantee; ``calibrate`` turns a target (ε, δ) into the noise σ. Both
report the post-processing baseline (releasing the model itself) side by side.
Each parses, calls :func:`synthamp.jobs.account_summary` or
:func:`~synthamp.jobs.calibrate_summary` and prints the summary.
"""

from __future__ import annotations

import click

from synthamp.cli._common import FLOAT_LIST, deprecated_alias
from synthamp.cli._options import (
    DELTA,
    JSON,
    N_SYN,
    NO_PROGRESS,
    OUT_DIM,
    SENSITIVITY,
    SIGMA,
    emit,
    options,
)  # fmt: skip
from synthamp.cli._status import live_status, time_budget_option
from synthamp.jobs import ACCOUNTANTS, ACCOUNTING_METHODS, account_summary, calibrate_summary

__all__ = ["account", "calibrate"]

#: Options describing the release, shared by both commands (in display order).
_release_options = options(
    click.option("--dim", type=int, required=True, help="Model width d."),
    OUT_DIM,
    click.option("--norm-bound", type=float, required=True, help="Norm bound C on ‖v‖_F."),
    SENSITIVITY,
)
_common_options = options(
    N_SYN,
    click.option("--releases", type=int, default=1, show_default=True,
                 help="Number of releases T."),
    click.option("--alpha", type=FLOAT_LIST, default=None,
                 help="Rényi orders, comma-separated (default: 82 orders from 1.01 to 256)."),
    DELTA,
    click.option("--accounting", "method", type=click.Choice(ACCOUNTING_METHODS), default="exact",
                 show_default=True,
                 help="exact: k = 1 worst case (k > 1: min of Theorem 5.4 and post-processing); "
                 "global: Theorem 5.2/5.4 alone; post-processing: releasing the model."),
    click.option("--method", "method_alias", type=click.Choice(ACCOUNTING_METHODS), hidden=True),
    time_budget_option,
    click.option("--accountant", type=click.Choice(ACCOUNTANTS), default=None,
                 help="pld: exact privacy profile and PLD composition (tight); rdp: RDP curve "
                 "converted (default: pld for k = 1 unlimited, rdp otherwise; for k = 1 with "
                 "--n-syn the unlimited release's pld is used when it needs less noise, said so)."),
    click.option("--discretization", type=float, default=1e-4, show_default=True,
                 help="PLD discretisation interval h of the privacy loss (> 0)."),
    JSON,
    NO_PROGRESS,
)  # fmt: skip


@click.command()
@_release_options
@SIGMA
@_common_options
@click.option(
    "--delta-grid",
    type=FLOAT_LIST,
    default=None,
    help="Several δ, comma-separated (e.g. 1e-3,1e-5,1e-8): ε for each (JSON: arrays).",
)
@click.option(
    "--search",
    type=int,
    default=0,
    show_default=True,
    metavar="N",
    help="k = 2, unlimited release: search N adjacent pairs for a larger lower bound "
    "rdp_search (exact value of the best pair found; never changes epsilon; under "
    "--time-budget; about 0.1-0.6 s per pair).",
)
def account(method, method_alias, as_json, no_progress, delta, delta_grid, **release) -> None:
    """(ε, δ) guarantee of a synthetic data release, by PLD or RDP.

    pld (default for k = 1, unlimited release): the exact privacy profile,
    worst case over adjacent pairs, composed by privacy loss distributions;
    rdp: the exact worst-case RDP curve for k = 1 (default method), the best
    certified bound for k > 1 (with the exact k = 1 value as a lower bound),
    or the method requested, converted to (ε, δ). For k = 1 with --n-syn the
    unlimited release's profile (valid for any n_syn) is weighed too and the
    smaller ε is the guarantee. Both numbers are shown; the
    post-processing baseline (releasing the perturbed model) alongside. For
    k = 2, --search N adds rdp_search, the exact value of the best adjacent
    pair of a search: a lower bound on the worst case, never used for ε.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    delta = delta if delta_grid is None else list(delta_grid)
    with live_status("accounting", show=not no_progress):
        summary = account_summary(delta=delta, method=method, **release)
    emit(summary, as_json)


@click.command()
@click.option("--epsilon", type=float, required=True, help="Target ε > 0.")
@_release_options
@_common_options
def calibrate(method, method_alias, as_json, no_progress, **target) -> None:
    """Smallest noise σ whose synthetic data release meets a target (ε, δ).

    Reports σ for the chosen accountant (pld by default for k = 1 unlimited,
    else rdp; for k = 1 with --n-syn the smaller of the finite RDP σ and the
    unlimited release's PLD σ, valid for any n_syn), the RDP calibration and
    post-processing (releasing the model),
    and the noise saved, 1 − σ/σ_post-processing. The achieved ε never
    exceeds the target.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    with live_status("calibrating σ", show=not no_progress):
        summary = calibrate_summary(method=method, **target)
    emit(summary, as_json)
