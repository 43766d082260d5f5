"""``synthamp audit``: an empirical lower bound on ε next to the accountant's.

Simulates many releases from the worst-case adjacent pair and turns them into a
lower confidence bound on ε (:mod:`synthamp.audit`): by default from the whole
empirical distribution of the sufficient statistic on both datasets, fitted to
its exact family of laws (``--estimator family``); or from the error rates of the
best likelihood-ratio (threshold) test (``--estimator threshold``). It checks the
bound against the accountant's ε for the same release. The command parses, calls
:func:`synthamp.jobs.run_audit` and prints the summary.

With ``--design orthogonal`` it audits the implementation instead: every run is a release
of the realised worst pair made by the release code (:func:`synthamp.audit.audit_worst_pair`,
through :func:`synthamp.jobs.run_audit`).
"""

from __future__ import annotations

import click

from synthamp.cli._options import (
    DELTA,
    JSON,
    N_SYN,
    OUT_DIM,
    LibraryChoice,
    emit,
    options,
)  # fmt: skip
from synthamp.cli._status import live_status
from synthamp.jobs import ACCOUNTANTS

__all__ = ["audit"]


@click.command()
@options(
    click.option("--dim", type=int, default=None, help="Model width d (synthetic data)."),
    OUT_DIM,
    click.option("--norm-bound", type=float, default=None, help="Norm bound C on ‖v‖_F."),
    click.option("--sensitivity", type=float, default=None,
                 help="Sensitivity Δ >= ‖v − w‖_F (required without --design)."),
    click.option("--sigma", type=float, default=None,
                 help="Noise scale σ (required without --design; with it, default: calibrated "
                 "to --epsilon)."),
    N_SYN,
    click.option("--trials", type=int, default=100_000, show_default=True,
                 help="Releases simulated from each of the two datasets."),
    DELTA,
    click.option("--confidence", type=float, default=0.95, show_default=True,
                 help="Confidence of the bound."),
    click.option("--seed", type=int, default=None,
                 help="Seed (default: operating-system entropy)."),
    click.option("--correction", type=LibraryChoice("synthamp.jobs", "CORRECTIONS"),
                 default="bonferroni", show_default=True,
                 help="Threshold selection: a grid fixed in advance (Bonferroni), "
                 "or split halves."),
    click.option("--estimator", type=LibraryChoice("synthamp.jobs", "ESTIMATORS"),
                 default="family", show_default=True,
                 help="family: the whole empirical curve fitted to the statistic's exact family "
                 "of laws (DKW bands); threshold: the best threshold test, assumption-free "
                 "(docs/audit.md)."),
    click.option("--mechanism", type=LibraryChoice("synthamp.jobs", "MECHANISMS"),
                 default="synthetic", show_default=True,
                 help="synthetic: the synthetic data release; gaussian: releasing V itself."),
    click.option("--accountant", type=click.Choice(ACCOUNTANTS), default=None,
                 help="Accountant of the upper bound (default: pld, the exact profile, for k = 1 "
                 "unlimited and the Gaussian mechanism; rdp otherwise). Both are reported."),
    click.option("--tradeoff", default=None, metavar="FILE",
                 help="Write the exact and an empirical trade-off curve (FNR against FPR) as CSV."),
    click.option("--plot", default=None, metavar="FILE", help="Plot both trade-off curves."),
    click.option("--design", type=LibraryChoice("synthamp.jobs", "AUDIT_DESIGNS"), default=None,
                 help="Audit the implementation on this public design: every run a release of "
                 "the realised worst pair made by the release code (docs/audit.md §8)."),
    click.option("--width", type=int, default=None, metavar="D", help="With --design: its width."),
    click.option("--targets", type=int, default=None, metavar="K",
                 help="With --design: target columns k (1 or 2; default 1)."),
    click.option("--n-records", type=int, default=None, metavar="M",
                 help="With --design: rows m of the crafted tables (default 10)."),
    click.option("--ridge", type=float, default=None, help="With --design: λ (default 0.01)."),
    click.option("--label-bound", type=float, default=None,
                 help="With --design: B (default 1)."),
    click.option("--epsilon", type=float, default=None,
                 help="With --design and no --sigma: the ε σ is calibrated to (default 1)."),
    JSON,
)  # fmt: skip
def audit(as_json, **arguments) -> None:
    """Empirical privacy audit: a lower bound on ε next to the accountant's ε.

    Simulates TRIALS releases from each dataset of the worst-case adjacent
    pair (‖v‖ = C, ‖w‖ = C − Δ, aligned) and bounds ε from below: by default
    (--estimator family) from DKW confidence bands on the whole empirical
    distribution of the sufficient statistic on both datasets, fitted to its
    exact family of laws; with --estimator threshold from Clopper–Pearson
    bounds on the error rates of the best likelihood-ratio test. Consistent
    means lower <= upper; tightness is lower/upper.

    With --design orthogonal --width D: the implementation, end to end, on the
    realised worst pair (TRIALS releases of each table by the release code).
    """
    from synthamp.jobs import run_audit  # loads scipy (the audit statistics): heavy

    with live_status("auditing"):  # a spinner on a terminal's stderr; nothing otherwise
        summary = run_audit(**arguments)
    emit(summary, as_json)
