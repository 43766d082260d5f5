"""The curves a release's HTML report draws, computed by the release (the report computes none).

:func:`report_curves` turns a :class:`~synthamp.report.PrivacyReport`'s public
parameters (d, k, C, Δ, σ, n_syn, δ, the accounting method) and, when the fit has
it, the RDP curve its guarantee used into a
:class:`~synthamp.accountant.ReleaseCurves` (:mod:`synthamp.accountant._epsilon_delta`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from synthamp._budget import PLATEAU_FALLBACK
from synthamp.accountant._epsilon_delta import ReleaseCurves, release_curves
from synthamp.accountant._guarantee import Guarantee
from synthamp.accountant._rdp_conversion import RdpCurve
from synthamp.accountant._releases import SyntheticDataRelease

if TYPE_CHECKING:  # pragma: no cover
    from synthamp.report import PrivacyReport

__all__ = ["guarantee_curves", "report_curves"]


def report_curves(
    report: PrivacyReport,
    *,
    curve: RdpCurve | None = None,
    deltas: Sequence[float] | None = None,
    accountants: Sequence[str] | None = None,
    time_budget: float | None = None,
) -> ReleaseCurves:
    """The ε(δ) and Rényi curves of the release a report describes.

    Parameters
    ----------
    report : PrivacyReport
        The release's report (public parameters only).
    curve : RdpCurve, optional
        The RDP curve the guarantee's RDP number used (the fit passes it: the page
        then draws exactly that curve); else recomputed for the release described
        (the plateau where the finite accounting fell back to it) within
        ``time_budget``.
    deltas, accountants
        As :func:`synthamp.accountant.release_curves`.
    time_budget : float or None
        Seconds for a finite RDP curve recomputed (None: no limit).

    Returns
    -------
    ReleaseCurves
    """
    release = SyntheticDataRelease(
        report.dim,
        report.out_dim,
        report.norm_bound,
        report.sensitivity,
        report.sigma,
        n_syn=None if report.rdp_is_plateau_bound else report.n_syn,
    )
    return release_curves(
        release, report.delta, method=report.accounting_method, curve=curve, deltas=deltas,
        accountants=accountants, time_budget=time_budget,
    )  # fmt: skip


def guarantee_curves(
    release: SyntheticDataRelease,
    guarantee: Guarantee,
    *,
    curve: RdpCurve | None = None,
    method: str | None = None,
    time_budget: float | None = None,
) -> Callable[[], ReleaseCurves]:
    """The curves of an accounted release, as a function computing them on first use.

    What a release hands its typed result (:class:`synthamp.report.ReleaseResult`): a fit
    that never renders HTML does not pay for them.

    Parameters
    ----------
    release : SyntheticDataRelease
        The release accounted; the plateau where the finite accounting fell back to it
        (the guarantee's note says so).
    guarantee : Guarantee
        Its guarantee (δ, the accounting method).
    curve : RdpCurve, optional
        The RDP curve the guarantee used, drawn as it is.
    method : str, optional
        The RDP accounting method of the page (default: the guarantee's).
    time_budget : float or None
        Seconds for a finite RDP curve recomputed (None: no limit).
    """
    if release.n_syn is not None and PLATEAU_FALLBACK in guarantee.note:
        release = dataclasses.replace(release, n_syn=None)
    return functools.partial(
        release_curves, release, guarantee.delta, method=method or guarantee.method,
        curve=curve, time_budget=time_budget,
    )  # fmt: skip
