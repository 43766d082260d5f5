"""From a release description to its RDP curve and its (ε, δ) guarantee (docs/theory.md §12).

:func:`rdp_curve` turns a :class:`SyntheticDataRelease` or
:class:`GaussianRelease` into an :class:`RdpCurve`; :func:`compute_epsilon`
composes it with other mechanisms on the same data, converts it to (ε, δ)
and reports the post-processing baseline next to it (:class:`EpsilonResult`).

The public functions validate their inputs once, then call the kernels
(``_rdp_curve``, ``_rdp_curve_within_budget``, ``_epsilon_result``,
``_worst_case``, ``_epsilon``, and the ``*_scaled`` kernels of ``bounds``),
which trust them; library code calls the kernels. The public
:func:`~synthamp.accountant.compute_epsilon` (``_accountants``) names the
accountant or applies the rule of the guarantee room; its RDP accountant is
``_compute_epsilon`` here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import (
    DEFAULT_TIME_BUDGET,
    PLATEAU_FALLBACK,
    TimeBudgetExceeded,
    report_status,
    time_budget,
)
from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated_one, validated_optional
from synthamp._validation import InputError
from synthamp.accountant._finite_epsilon import finite_epsilon_curve
from synthamp.accountant._k2_search import _search
from synthamp.accountant._pld import compute_epsilon_pld
from synthamp.accountant._rdp_conversion import (
    Method,
    RdpCurve,
    _check_method,
    _check_orders,
    _curve,
    _epsilon,
)
from synthamp.accountant._releases import GaussianRelease, Release, SyntheticDataRelease, _with
from synthamp.accountant._worst_case import _worst_case, _worst_case_result
from synthamp.bounds import _global_scaled, _local_upper_scaled, _post_processing_scaled

__all__ = ["PLATEAU_FALLBACK", "EpsilonResult", "budget_note", "rdp_curve"]


def _gaussian_curve(release: GaussianRelease, orders: NDArray[np.float64]) -> RdpCurve:
    rdp = release.releases * _post_processing_scaled(orders, release.sensitivity / release.sigma)
    return _curve(orders, rdp, Kind.EXACT, "gaussian")


@privacy_quantity("certified")
def rdp_curve(
    release: SyntheticDataRelease | GaussianRelease,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    *,
    lower: bool = True,
    search: int = 0,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
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
    T releases multiply the curve by T (docs/theory.md §12). The global bounds hold
    for the plateau and so for every finite n_syn (Proposition 4.2). The lower
    bound for k > 1 is the rank-one reduction of docs/theory.md §8: the first column
    of ZV after rotating u to e₁ is a k = 1 release of width d.

    A :class:`GaussianRelease` has the exact curve T·αΔ²/(2σ²) whatever the method.

    **Time budget.** A finite release (``n_syn`` set) needs the finite engine,
    which can take minutes at large n_syn and large amplitudes. Its work stops
    once ``time_budget`` seconds are spent; the curve is then the plateau's
    (the unlimited release), which bounds the privacy loss of every n_syn:
    the finite release is a post-processing of the Gram matrix VᵀV and
    D_α(ZV‖ZW) is non-decreasing in n_syn (docs/theory.md §3). Such a curve is
    certified (an upper bound, never used as a lower one) and its
    ``fallback`` says so; for k > 1 the k = 1 lower bound is dropped instead.

    **Searched lower bound (k = 2).** ``search=N`` (opt-in: it costs about N
    k = 2 engine calls, 0.1–0.6 s each, plus a few at full accuracy) adds
    ``rdp_search``: the exact value − error of the best adjacent pair found
    by a search over N pairs besides the aligned ones
    (:func:`synthamp.accountant.search_lower_bound`), a proven **lower**
    bound on the worst case, at least ``rdp_lower``, and never used for ε:
    the curve stays min(Theorem 5.4, post-processing). It needs k = 2 and an
    unlimited release (the plateau value of a pair does not bound a finite
    release from below). The search runs under ``time_budget``; once spent
    it returns the pairs verified so far (still a lower bound) and
    ``search_note`` says so.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
    lower : bool, default True
        Compute ``rdp_lower`` for k > 1 (costs engine calls).
    search : int, default 0
        Pairs screened for ``rdp_search`` (k = 2, unlimited release, lower
        bounds on; 0: no search).
    time_budget : float or None, default :data:`~synthamp.accountant.DEFAULT_TIME_BUDGET` (10 s)
        Seconds for the finite-release computation, or for the k = 2 search
        (None: no limit). The budget is checked between engine calls, so it
        may be overrun by one.

    Returns
    -------
    RdpCurve
        The curve (kind certified or exact; never heuristic).
    """
    orders = _check_orders(orders)
    method = _check_method(method)
    budget = _check_budget(time_budget)
    release = _check_release(release)
    search = _check_search(search, release, method, lower)
    return _rdp_curve_within_budget(release, orders, method, lower, budget, search)


def _check_budget(seconds: float | None) -> float | None:
    (seconds,) = validated_optional(time_budget=seconds)
    return seconds


def _check_search(search: int, release: Release, method: str, lower: bool) -> int:
    """The number of searched pairs; a search only where it means something."""
    search = validated_one("search", search)
    if search == 0:
        return 0
    if not isinstance(release, SyntheticDataRelease) or release.out_dim != 2:
        raise InputError(
            "search",
            "needs two-dimensional records (out_dim = 2); for k = 1 the curve is already "
            "the exact worst case",
        )
    if release.n_syn is not None:
        raise InputError(
            "search",
            "needs an unlimited release (n_syn None): a pair's plateau value does not bound "
            "a finite release from below",
        )
    if method == "post-processing" or not lower:
        raise InputError("search", "needs the lower bounds: method exact or global, lower=True")
    return search


def budget_note(n_syn: int, seconds: float | None, consequence: str = PLATEAU_FALLBACK) -> str:
    """The one line that says a finite-release computation stopped at its time budget."""
    spent = "" if seconds is None else f" of {seconds:g} s"
    return (
        f"finite-release accounting (n_syn = {n_syn:,}) stopped at its time budget{spent}; "
        + consequence
    )


def _needs_finite_engine(release: Release, method: str, lower: bool) -> bool:
    return (
        isinstance(release, SyntheticDataRelease)
        and release.n_syn is not None
        and method == "exact"
        and (release.out_dim == 1 or lower)
    )


def _epsilon_curve(
    release: Release,
    orders: NDArray[np.float64],
    method: str,
    delta: float | None,
    *,
    lower: bool = False,
) -> RdpCurve:
    """The curve whose conversion at ``delta`` is the release's ε (:func:`compute_epsilon`).

    For a finite k = 1 release (exact method, sorted distinct orders, ``delta`` given),
    the exact worst case at the orders that can give ε at δ and the plateau bound at
    the others (:func:`~synthamp.accountant._finite_epsilon.finite_epsilon_curve`:
    the same ε as the exact curve at every order, by the pruning lemma of
    ``_pruning``, at a fraction of the engine calls); else :func:`_rdp_curve`.
    """
    if (
        delta is not None
        and _needs_finite_engine(release, method, lower)
        and release.out_dim == 1
        and bool(np.all(np.diff(orders) > 0))
    ):
        return finite_epsilon_curve(release, orders, delta)
    return _rdp_curve(release, orders, method, lower=lower)


def _rdp_curve_within_budget(
    release: Release,
    orders: NDArray[np.float64],
    method: str,
    lower: bool,
    budget: float | None,
    search: int = 0,
    delta: float | None = None,
) -> RdpCurve:
    """:func:`_rdp_curve` with the finite engine under a time budget, the plateau as fallback;
    or with the k = 2 search under the budget (it stops itself and says so). With
    ``delta``, the finite k = 1 curve is the one converted at that δ (:func:`_epsilon_curve`)."""
    if search:
        report_status(
            f"k = 2 search over {search} pairs"
            + ("" if budget is None else f" (time budget {budget:g} s)")
        )
        with time_budget(budget):
            return _rdp_curve(release, orders, method, lower=lower, search=search)
    if not _needs_finite_engine(release, method, lower):
        return _rdp_curve(release, orders, method, lower=lower)
    report_status(
        f"accounting for n_syn = {release.n_syn:,} records"
        + ("" if budget is None else f" (time budget {budget:g} s)")
    )
    try:
        with time_budget(budget):
            return _epsilon_curve(release, orders, method, delta, lower=lower)
    except TimeBudgetExceeded:
        report_status("time budget spent: accounting for an unlimited release (plateau)")
        if release.out_dim == 1:
            plateau = _rdp_curve(_with(release, n_syn=None), orders, method, lower=False)
            note = budget_note(release.n_syn, budget)
        else:  # the certified curve does not depend on n_syn; only the lower bound is dropped
            plateau = _rdp_curve(release, orders, method, lower=False)
            note = budget_note(release.n_syn, budget, "the exact k = 1 lower bound is omitted")
        return _curve(orders, plateau.rdp, Kind.CERTIFIED, plateau.method, None, note)


def _check_release(release: object) -> Release:
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    return release


def _rdp_curve(
    release: Release, orders: NDArray[np.float64], method: str, *, lower: bool, search: int = 0
) -> RdpCurve:
    """The kernel of :func:`rdp_curve`, for a release and validated orders, method and search."""
    if isinstance(release, GaussianRelease):
        return _gaussian_curve(release, orders)
    r = release
    c, s = r.adjacency_norm_bound / r.sigma, r.sensitivity / r.sigma
    post = _post_processing_scaled(orders, r.effective_sensitivity / r.sigma)
    rdp_lower = rdp_search = search_note = None
    if method == "post-processing":
        rdp, kind = post, Kind.CERTIFIED
    elif r.out_dim == 1:
        if method == "exact":
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # NaN: below
                exact = _worst_case(orders, r.dim, c, s, r.n_syn)[0]
            # NaN: the divergence out of its numerical range (C/σ ~ 1e8): releasing V bounds it
            rdp = np.where(np.isnan(exact), post, np.minimum(exact, post))
            kind = Kind.EXACT if np.all(exact <= post) else Kind.CERTIFIED
        else:
            rdp = _global_scaled(orders, r.dim, c, r.amplitude_gap / r.sigma)
            kind = Kind.CERTIFIED
    else:
        width, s_eff = r.dim // r.out_dim, r.effective_sensitivity / r.sigma
        rdp = _global_scaled(orders, width, r.norm_bound / r.sigma, s_eff)
        if method == "exact":
            rdp = np.minimum(rdp, post)
        kind = Kind.CERTIFIED
        if lower:
            worst = _worst_case_result(orders, r.dim, c, s, r.n_syn, r.sigma)
            rdp_lower = r.releases * np.minimum(worst.lower, rdp)
            if search:
                s_eff = r.effective_sensitivity / r.sigma
                found = _search(orders, r.dim, c, s_eff, r.sigma, search, 0, worst=worst)
                rdp_search = r.releases * np.minimum(found.value, rdp)
                search_note = found.note
    return _curve(orders, r.releases * rdp, kind, method, rdp_lower, None, rdp_search, search_note)


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
        The lower bounds of k > 1, ``curve.rdp_lower`` and ``curve.rdp_search``
        (:func:`rdp_curve`), are proven **lower** bounds, never used for ε
        either (properties ``rdp_lower``, ``rdp_search``, ``search_note``).
    fallback : str or None
        Set when the finite-release computation stopped at its time budget
        and ``curve`` is the plateau bound (sound for every n_syn); one line.
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
    fallback: str | None = None

    @property
    def rdp_lower(self) -> NDArray[np.float64] | None:
        """k > 1: the aligned rank-one pair's exact value, a lower bound (never used for ε)."""
        return self.curve.rdp_lower

    @property
    def rdp_search(self) -> NDArray[np.float64] | None:
        """k = 2 with ``search``: the best found pair's exact value, a lower bound (never ε)."""
        return self.curve.rdp_search

    @property
    def search_note(self) -> str | None:
        """What ``rdp_search`` is and how its search ended, in one line."""
        return self.curve.search_note


def _extra_curve(
    extra: RdpCurve | Release, orders: NDArray[np.float64], budget: float | None
) -> RdpCurve:
    if isinstance(extra, RdpCurve):
        if not extra.kind.usable_in_guarantee:
            raise InputError("extra_curves", f"a {extra.kind} curve never feeds a guarantee")
        return extra
    if isinstance(extra, SyntheticDataRelease | GaussianRelease):
        return _rdp_curve_within_budget(extra, orders, "exact", True, budget)
    raise InputError("extra_curves", f"must hold RdpCurve or release objects, got {extra!r}")


def _compute_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    orders: ArrayLike | None,
    method: Method,
    extra_curves: Iterable[RdpCurve | Release],
    *,
    time_budget: float | None,
    accountant: str,
    discretization: float,
    search: int,
):
    """:func:`~synthamp.accountant.compute_epsilon` by the accountant named (``"rdp"``,
    ``"pld"``): validates, then calls :func:`_epsilon_result` or the PLD accountant."""
    if accountant == "pld":
        if search:
            raise InputError("search", "adds a lower bound to the RDP curve: use accountant='rdp'")
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
    delta = validated_one("delta", delta)
    orders = _check_orders(orders)
    method = _check_method(method)
    budget = _check_budget(time_budget)
    extras = [_extra_curve(e, orders, budget) for e in extra_curves]
    release = _check_release(release)
    search = _check_search(search, release, method, True)
    return _epsilon_result(release, delta, orders, method, extras, budget, search, stacklevel=5)


def _epsilon_result(
    release: Release,
    delta: float,
    orders: NDArray[np.float64],
    method: str,
    extras: list[RdpCurve] = (),
    budget: float | None = DEFAULT_TIME_BUDGET,
    search: int = 0,
    *,
    stacklevel: int = 3,
) -> EpsilonResult:
    """The kernel of the RDP accountant's ε: validated inputs, extras already RDP curves.

    ``stacklevel`` points an :class:`OrderGridWarning` at the public caller.
    """
    # at one δ the finite k = 1 curve needs the exact worst case only where ε can be
    # attained (:func:`_epsilon_curve`); composed with other curves, at every order
    at_delta = None if extras else delta
    curve = _rdp_curve_within_budget(release, orders, method, True, budget, search, at_delta)
    base = post = _rdp_curve(release, orders, "post-processing", lower=True)
    for extra in extras:
        curve = curve + extra
        post = post + extra
    epsilon, order = _epsilon(orders, curve.rdp, delta, warn=True, stacklevel=stacklevel)
    epsilon_post, _ = _epsilon(orders, post.rdp, delta, warn=False)
    heuristics: dict[str, RdpCurve] = {}
    if isinstance(release, SyntheticDataRelease):
        width = release.dim // release.out_dim
        eta = _local_upper_scaled(width, release.adjacency_norm_bound / release.sigma)
        heuristics["local_upper"] = _curve(
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
        fallback=curve.fallback,
    )
