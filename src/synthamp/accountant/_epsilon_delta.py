"""The privacy of a release for every δ: ε(δ) and the Rényi curve the reports draw.

The reports (:mod:`synthamp.report`) compute nothing: the release pipeline
computes a :class:`ReleaseCurves` here, from the release's public parameters
and the RDP curve its guarantee used, and the HTML page draws it.

- ε(δ) through the RDP curve and its conversion (docs/theory.md §12), for the
  release and for releasing the model V itself (post-processing);
- ε(δ) from the exact privacy profile (docs/theory.md §14): k = 1, the worst-case
  profile of the unlimited release (valid for every n_syn); k > 1, the
  Gaussian profile with Δ_eff (certified, equal to post-processing).

Accountants are pluggable: :data:`PROFILE_ACCOUNTANTS` maps a name to a function
giving ε(δ) of the release and of post-processing on a grid of δ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from synthamp._parameters import validated_one
from synthamp._validation import InputError
from synthamp.accountant._curves import _check_budget, _rdp_curve, _rdp_curve_within_budget
from synthamp.accountant._gaussian import _gaussian_epsilon
from synthamp.accountant._profile import _profile_epsilons, beyond_exact_profile
from synthamp.accountant._rdp_conversion import DEFAULT_ORDERS, RdpCurve, _check_method, _epsilon
from synthamp.accountant._releases import SyntheticDataRelease, _with

__all__ = [
    "DELTA_GRID",
    "PROFILE_ACCOUNTANTS",
    "EpsilonDeltaCurve",
    "ReleaseCurves",
    "release_curves",
]

#: δ grid of the ε-against-δ plot.
DELTA_GRID = np.logspace(-12, -1, 45)


@dataclass(frozen=True)
class EpsilonDeltaCurve:
    """ε as a function of δ for one accountant: the release and releasing the model.

    Attributes
    ----------
    accountant : str
        Name in :data:`PROFILE_ACCOUNTANTS` (``"rdp"``, …).
    label : str
        Plain-language name of the accountant.
    kind : str
        Kind of the release's curve (``"exact"`` or ``"certified"``).
    delta : ndarray
        The δ grid.
    epsilon : ndarray
        ε(δ) of the synthetic release.
    epsilon_post_processing : ndarray
        ε(δ) of releasing the noisy model V itself, by the same accountant.
    """

    accountant: str
    label: str
    kind: str
    delta: np.ndarray
    epsilon: np.ndarray
    epsilon_post_processing: np.ndarray


@dataclass(frozen=True)
class ReleaseCurves:
    """What the HTML report draws: the RDP curves and ε(δ) per accountant.

    Attributes
    ----------
    rdp : RdpCurve
        The release's RDP curve (the one its guarantee's RDP number used).
    rdp_post_processing : RdpCurve
        Releasing V itself.
    profiles : tuple of EpsilonDeltaCurve
        ε(δ) per accountant.
    """

    rdp: RdpCurve
    rdp_post_processing: RdpCurve
    profiles: tuple[EpsilonDeltaCurve, ...]


def _rdp_profile(
    release: SyntheticDataRelease, deltas: np.ndarray, curve: RdpCurve, post: RdpCurve
) -> EpsilonDeltaCurve:
    """ε(δ) through the RDP curve and its conversion (docs/theory.md §12)."""

    def profile(rdp: np.ndarray) -> np.ndarray:
        return np.array([_epsilon(curve.orders, rdp, float(d), warn=False)[0] for d in deltas])

    return EpsilonDeltaCurve(
        accountant="rdp",
        label="Rényi accountant",
        kind=str(curve.kind),
        delta=deltas,
        epsilon=profile(curve.rdp),
        epsilon_post_processing=profile(post.rdp),
    )


def _pld_profile(
    release: SyntheticDataRelease, deltas: np.ndarray, curve: RdpCurve, post: RdpCurve
) -> EpsilonDeltaCurve:
    """ε(δ) from the exact privacy profile (docs/theory.md §14); post-processing: Gaussian, exact.

    k = 1: the worst-case profile of the unlimited release (valid for every
    n_syn; for a finite one slightly pessimistic, fast). k > 1: the Gaussian
    profile with Δ_eff (certified), equal to post-processing.
    """
    gaussian = np.array(
        [_gaussian_epsilon(d, release.effective_sensitivity / release.sigma) for d in deltas]
    )
    unlimited = _with(release, n_syn=None)
    beyond = release.out_dim == 1 and beyond_exact_profile(unlimited)
    if release.out_dim > 1 or beyond:  # beyond the exact profile's range: its certified bound
        epsilon, kind = gaussian, "certified"
    else:
        epsilon, _ = _profile_epsilons(unlimited, deltas)
        kind = "exact"
    label = "exact privacy profile (PLD accountant)"
    if beyond:
        label = "post-processing (C/σ beyond the exact profile's tested range)"
    if release.n_syn is not None and release.out_dim == 1:
        label += ", unlimited-release profile (covers every n_syn)"
    return EpsilonDeltaCurve(
        accountant="pld",
        label=label,
        kind=kind,
        delta=deltas,
        epsilon=epsilon,
        epsilon_post_processing=gaussian,
    )


#: Accountants that give ε(δ): name → function(release, δ grid, RDP curve, its
#: post-processing curve) → EpsilonDeltaCurve. Another accountant plugs in by adding an
#: entry; each entry is drawn as one pair of lines.
PROFILE_ACCOUNTANTS: dict[str, Callable[..., EpsilonDeltaCurve]] = {
    "rdp": _rdp_profile,
    "pld": _pld_profile,
}


def release_curves(
    release: SyntheticDataRelease,
    delta: float,
    *,
    method: str = "exact",
    curve: RdpCurve | None = None,
    deltas: Sequence[float] | None = None,
    accountants: Sequence[str] | None = None,
    time_budget: float | None = None,
) -> ReleaseCurves:
    """The curves of a release, for its report.

    Parameters
    ----------
    release : SyntheticDataRelease
        The release whose RDP number the guarantee states (the plateau, n_syn None,
        where the finite accounting fell back to it).
    delta : float
        The guarantee's δ (added to the grid).
    method : str
        The RDP accounting method.
    curve : RdpCurve, optional
        The RDP curve the guarantee used (computed when not given, within
        ``time_budget``; past it the plateau bound, labelled certified).
    deltas : sequence of float, optional
        δ values in (0, 1); default :data:`DELTA_GRID` plus ``delta``.
    accountants : sequence of str, optional
        Names in :data:`PROFILE_ACCOUNTANTS`; default all.
    time_budget : float or None
        Seconds for a finite RDP curve not given.

    Returns
    -------
    ReleaseCurves
    """
    delta = validated_one("delta", delta)
    grid = np.unique(np.append(DELTA_GRID, delta)) if deltas is None else np.asarray(deltas)
    grid = np.asarray(grid, dtype=float)
    if not (np.all(grid > 0) and np.all(grid < 1)):
        raise InputError("deltas", "every δ must be in (0, 1)")
    names = list(PROFILE_ACCOUNTANTS) if accountants is None else list(accountants)
    for name in names:
        if name not in PROFILE_ACCOUNTANTS:
            raise InputError("accountants", f"unknown accountant {name!r}")
    if curve is None:
        method, budget = _check_method(method), _check_budget(time_budget)
        # the curve whose conversion at the guarantee's δ is its ε (for a finite k = 1
        # release, exact at the orders that can give it there; sound at every δ)
        curve = _rdp_curve_within_budget(
            release, DEFAULT_ORDERS, method, True, budget, delta=float(delta)
        )
    post = _rdp_curve(release, curve.orders, "post-processing", lower=True)
    profiles = tuple(PROFILE_ACCOUNTANTS[name](release, grid, curve, post) for name in names)
    return ReleaseCurves(rdp=curve, rdp_post_processing=post, profiles=profiles)
