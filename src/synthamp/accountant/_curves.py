"""From a release description to its RDP curve and its (ε, δ) guarantee (THEORY.md §12).

:func:`rdp_curve` turns a :class:`SyntheticDataRelease` or
:class:`GaussianRelease` into an :class:`RdpCurve`; :func:`compute_epsilon`
composes it with other mechanisms on the same data, converts it to (ε, δ)
and reports the post-processing baseline next to it (:class:`EpsilonResult`).

The public functions validate their inputs once, then call the kernels
(``_rdp_curve``, ``_worst_case``, ``_epsilon``), which trust them; library
code calls the kernels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError, check_open_unit
from synthamp.accountant._pld import compute_epsilon_pld
from synthamp.accountant._releases import (
    GaussianRelease,
    Method,
    RdpCurve,
    Release,
    SyntheticDataRelease,
    _check_method,
    _check_orders,
    _epsilon,
)
from synthamp.accountant._worst_case import _worst_case, _worst_case_result
from synthamp.bounds import amplification_ratio_local_upper, global_bound, post_processing_rdp

__all__ = ["EpsilonResult", "compute_epsilon", "rdp_curve"]


def _gaussian_curve(release: GaussianRelease, orders: NDArray[np.float64]) -> RdpCurve:
    rdp = release.releases * post_processing_rdp(orders, release.sensitivity, release.sigma)
    return RdpCurve(orders, rdp, Kind.EXACT, "gaussian")


@privacy_quantity("certified")
def rdp_curve(
    release: SyntheticDataRelease | GaussianRelease,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    *,
    lower: bool = True,
) -> RdpCurve:
    """RDP curve of a release over a grid of orders.

    ================  =========================================  ===========
    method            k = 1                                      k > 1
    ================  =========================================  ===========
    exact (default)   :func:`worst_case_rdp` (kind exact)        min(Thm 5.4, post-processing),
                                                                 kind certified, with the k = 1
                                                                 worst case as ``rdp_lower``
    global            Theorem 5.2                                Theorem 5.4 (+ ``rdp_lower``)
    post-processing   αΔ_eff²/(2σ²)                              αΔ_eff²/(2σ²)
    ================  =========================================  ===========

    Δ_eff = min(Δ, 2C); the k = 1 worst case and Theorem 5.2, which depend on
    the norms only, use min(Δ, C). The exact k = 1 value is capped by the
    post-processing bound (if the cap binds, the curve's kind is certified).
    T releases multiply the curve by T (THEORY.md §12). The global bounds hold
    for the plateau and so for every finite n_syn (Proposition 4.2). The lower
    bound for k > 1 is the rank-one reduction of THEORY.md §8: the first column
    of ZV after rotating u to e₁ is a k = 1 release of width d.

    A :class:`GaussianRelease` has the exact curve T·αΔ²/(2σ²) whatever the method.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
    lower : bool, default True
        Compute ``rdp_lower`` for k > 1 (costs engine calls).

    Returns
    -------
    RdpCurve
        The curve (kind certified or exact; never heuristic).
    """
    orders = _check_orders(orders)
    method = _check_method(method)
    return _rdp_curve(_check_release(release), orders, method, lower=lower)


def _check_release(release: object) -> Release:
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    return release


def _rdp_curve(
    release: Release, orders: NDArray[np.float64], method: str, *, lower: bool
) -> RdpCurve:
    """The kernel of :func:`rdp_curve`, for a release and validated orders and method."""
    if isinstance(release, GaussianRelease):
        return _gaussian_curve(release, orders)
    r = release
    c, s = r.norm_bound / r.sigma, r.sensitivity / r.sigma
    post = post_processing_rdp(orders, r.effective_sensitivity, r.sigma)
    rdp_lower = None
    if method == "post-processing":
        rdp, kind = post, Kind.CERTIFIED
    elif r.out_dim == 1:
        if method == "exact":
            exact = _worst_case(orders, r.dim, c, s, r.n_syn)[0]
            rdp = np.minimum(exact, post)
            kind = Kind.EXACT if np.all(exact <= post) else Kind.CERTIFIED
        else:
            rdp = global_bound(orders, r.dim, r.norm_bound, r.amplitude_gap, r.sigma, 1)
            kind = Kind.CERTIFIED
    else:
        rdp = global_bound(orders, r.dim, r.norm_bound, r.effective_sensitivity, r.sigma, r.out_dim)
        if method == "exact":
            rdp = np.minimum(rdp, post)
        kind = Kind.CERTIFIED
        if lower:
            worst = _worst_case_result(orders, r.dim, c, s, r.n_syn, r.sigma)
            rdp_lower = r.releases * np.minimum(worst.lower, rdp)
    return RdpCurve(orders, r.releases * rdp, kind, method, rdp_lower)


# --------------------------------------------------------------------------- ε


@dataclass(frozen=True, eq=False)
class EpsilonResult:
    """(ε, δ) guarantee of a release (:func:`compute_epsilon`).

    Attributes
    ----------
    epsilon : float
        ε of the guarantee.
    delta : float
        δ of the guarantee.
    optimal_order : float
        Rényi order at which the conversion is optimal.
    curve : RdpCurve
        The (composed) RDP curve used.
    method : str
        The requested method.
    kind : Kind
        Kind of ``curve`` (exact or certified).
    epsilon_post_processing : float
        ε of releasing the model itself (post-processing baseline, composed
        with the same extra curves).
    curve_post_processing : RdpCurve
        Its RDP curve.
    effective_sensitivity : float
        min(Δ, 2C).
    heuristics : Mapping[str, RdpCurve]
        Labelled heuristic curves, for insight only (never used for ε).
    """

    epsilon: float
    delta: float
    optimal_order: float
    curve: RdpCurve
    method: str
    kind: Kind
    epsilon_post_processing: float
    curve_post_processing: RdpCurve
    effective_sensitivity: float
    heuristics: Mapping[str, RdpCurve] = field(default_factory=lambda: MappingProxyType({}))


def _extra_curve(extra: RdpCurve | Release, orders: NDArray[np.float64]) -> RdpCurve:
    if isinstance(extra, RdpCurve):
        if not extra.kind.usable_in_guarantee:
            raise InputError("extra_curves", f"a {extra.kind} curve never feeds a guarantee")
        return extra
    if isinstance(extra, SyntheticDataRelease | GaussianRelease):
        return _rdp_curve(extra, orders, "exact", lower=True)
    raise InputError("extra_curves", f"must hold RdpCurve or release objects, got {extra!r}")


@privacy_quantity("certified")
def compute_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    extra_curves: Iterable[RdpCurve | Release] = (),
    *,
    accountant: str = "rdp",
    discretization: float = 1e-4,
):
    """(ε, δ) guarantee of a release, composed with other mechanisms on the same data.

    ``accountant="pld"`` returns instead the tight ε of the exact privacy
    profile composed by privacy loss distributions
    (:func:`synthamp.accountant.compute_epsilon_pld`, a ``PldEpsilon`` with
    its discretisation error; THEORY.md §14); ``extra_curves`` must then hold
    mechanisms, not RDP curves, and ``orders``/``method`` are not used.

    The RDP curve of ``release`` (:func:`rdp_curve`), plus the curves of
    ``extra_curves`` (RDP composition), converted by :func:`rdp_to_epsilon`.
    The post-processing baseline (releasing the model instead of synthetic
    data) is computed alongside, composed with the same extras.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    delta : float
        δ in (0, 1).
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
    extra_curves : iterable of RdpCurve, SyntheticDataRelease or GaussianRelease
        Other mechanisms run on the same data, composed with ``release``.
        Curves must use the same orders; heuristic curves are refused.
    accountant : {"rdp", "pld"}, default "rdp"
    discretization : float, default 1e-4
        The PLD's interval h (``accountant="pld"``).

    Returns
    -------
    EpsilonResult (rdp) or PldEpsilon (pld)

    Warns
    -----
    OrderGridWarning
        When the optimal order is at the edge of the grid.
    """
    if accountant == "pld":
        for extra in extra_curves:
            if isinstance(extra, RdpCurve):
                raise InputError(
                    "extra_curves", "the PLD accountant composes mechanisms, not curves"
                )
        return compute_epsilon_pld(
            release, delta, extra=tuple(extra_curves), discretization=discretization
        )
    if accountant != "rdp":
        raise InputError("accountant", f"must be 'rdp' or 'pld', got {accountant!r}")
    delta = check_open_unit("delta", delta)
    orders = _check_orders(orders)
    method = _check_method(method)
    extras = [_extra_curve(e, orders) for e in extra_curves]
    release = _check_release(release)
    curve = _rdp_curve(release, orders, method, lower=True)
    base = post = _rdp_curve(release, orders, "post-processing", lower=True)
    for extra in extras:
        curve = curve + extra
        post = post + extra
    epsilon, order = _epsilon(orders, curve.rdp, delta, warn=True, stacklevel=3)
    epsilon_post, _ = _epsilon(orders, post.rdp, delta, warn=False)
    heuristics: dict[str, RdpCurve] = {}
    if isinstance(release, SyntheticDataRelease):
        eta = amplification_ratio_local_upper(
            release.dim, release.norm_bound, release.sigma, release.out_dim
        )
        heuristics["local_upper"] = RdpCurve(
            orders, eta * base.rdp, Kind.HEURISTIC, "local expansion (Theorem 5.1/5.3)"
        )
        sensitivity = release.effective_sensitivity
    else:
        sensitivity = release.sensitivity
    return EpsilonResult(
        epsilon=epsilon,
        delta=delta,
        optimal_order=order,
        curve=curve,
        method=method,
        kind=curve.kind,
        epsilon_post_processing=epsilon_post,
        curve_post_processing=post,
        effective_sensitivity=sensitivity,
        heuristics=MappingProxyType(heuristics),
    )
