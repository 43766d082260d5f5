"""Calibration: the smallest noise σ whose release meets a target (ε, δ) (THEORY.md §12).

Kept apart from the accounting it inverts, as ``dp_accounting`` keeps
``mechanism_calibration.py`` apart from its accountants: the accountant maps
σ to ε, this module searches σ.

Monotonicity in σ
-----------------
Increasing σ multiplies c = C/σ and s = Δ/σ by r = σ/σ′ < 1, and
{a, b ∈ [0, rc], |a − b| <= rs} ⊂ S: the k = 1 worst case is a supremum over a
smaller set, hence non-increasing in σ. Theorems 5.2/5.4 are non-decreasing
in c (through the Fisher bound) and in s (through J), and αs²/2 is
decreasing in σ. The minimum and sums of non-increasing curves, and the
RDP-to-(ε, δ) conversion (monotone in each ε(α)), keep this, so ε(σ) is
non-increasing for every method and :func:`calibrate_sigma` may bisect.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import DEFAULT_TIME_BUDGET, TimeBudgetExceeded, report_status, time_budget
from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError, check_open_unit, check_positive
from synthamp.accountant._curves import _check_budget, _rdp_curve, budget_note
from synthamp.accountant._pld import calibrate_sigma_pld
from synthamp.accountant._releases import (
    Method,
    OrderGridWarning,
    SyntheticDataRelease,
    _check_method,
    _check_orders,
    _epsilon,
)
from synthamp.accountant._worst_case import _worst_case
from synthamp.bounds import post_processing_rdp

__all__ = ["CALIBRATION_WINDOW", "Calibration", "calibrate_sigma"]


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate_sigma`.

    Attributes
    ----------
    sigma : float
        Smallest noise scale found with ε <= target (to relative ``rtol``).
    epsilon : float
        ε achieved at ``sigma`` (<= the target).
    delta : float
        δ.
    target_epsilon : float
        The requested ε.
    optimal_order : float
        Optimal Rényi order at ``sigma``.
    sigma_post_processing : float
        The same calibration for releasing the model (post-processing).
    epsilon_post_processing : float
        ε achieved at ``sigma_post_processing``.
    noise_reduction : float
        1 − sigma/sigma_post_processing: the noise saved by amplification.
    method : str
        The method calibrated.
    kind : Kind
        Kind of the curve at ``sigma``.
    fallback : str or None
        Set when the finite-release refinement stopped at its time budget and
        ``sigma`` is the unlimited-release (plateau) calibration, which is
        sound for every n_syn; one line.
    """

    sigma: float
    epsilon: float
    delta: float
    target_epsilon: float
    optimal_order: float
    sigma_post_processing: float
    epsilon_post_processing: float
    noise_reduction: float
    method: str
    kind: Kind
    fallback: str | None = None


def _bisect_sigma(
    epsilon_at: Callable[[float], tuple],
    target: float,
    start: float,
    rtol: float,
    first_step: float = 2.0,
) -> tuple[float, tuple]:
    """Smallest σ with ε(σ) <= target, by bracketing then bisection on log σ.

    ``epsilon_at(σ)`` returns a tuple whose first item is ε(σ), assumed
    non-increasing in σ. Returns (σ_hi, epsilon_at(σ_hi)) with ε(σ_hi) <= target
    and σ_hi/σ_lo <= 1 + rtol for a σ_lo with ε(σ_lo) > target. The bracket
    grows by factors of 2; with ``first_step`` < 2 (a start known to be close)
    it grows by ``first_step``, then its square, and so on.
    """
    max_steps = 2100  # 2^±1050 spans every positive double
    hi = lo = start
    at_hi = epsilon_at(hi)
    step = first_step
    if at_hi[0] > target:
        for _ in range(max_steps):
            lo, hi = hi, step * hi
            step = min(step * step, 2.0)
            at_hi = epsilon_at(hi)
            if at_hi[0] <= target:
                break
        else:
            raise RuntimeError("calibration: no sigma reaches the target epsilon")
    else:
        for _ in range(max_steps):
            lo = hi / step
            step = min(step * step, 2.0)
            at_lo = epsilon_at(lo)
            if at_lo[0] > target:
                break
            hi, at_hi = lo, at_lo
        else:
            raise RuntimeError("calibration: epsilon stays below the target as sigma -> 0")
    while hi / lo - 1.0 > rtol:
        mid = math.sqrt(lo * hi)
        at_mid = epsilon_at(mid)
        if at_mid[0] <= target:
            hi, at_hi = mid, at_mid
        else:
            lo = mid
    return hi, at_hi


def _epsilon_at_sigma(
    sigma: float,
    base: SyntheticDataRelease,
    orders: NDArray[np.float64],
    method: str,
    delta: float,
) -> tuple[float, float, Kind]:
    """(ε, optimal order, kind) of the release ``base`` at noise ``sigma``, every order."""
    curve = _rdp_curve(base.with_sigma(sigma), orders, method, lower=False)
    eps, order = _epsilon(orders, curve.rdp, delta, warn=False)
    return eps, order, curve.kind


#: Half-width (in grid points) of the window of orders used inside the bisection.
CALIBRATION_WINDOW = 5


def _calibrate_worst_case(
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    start: float,
    center: int,
    rtol: float,
    first_step: float = 2.0,
) -> tuple[float, float, float, Kind]:
    """Calibration of the exact k = 1 accountant with few engine calls.

    ``orders`` must be sorted. Inside the bisection, ε is computed on a window
    of orders around the optimum (the engine's cost grows with the largest
    order) and, at first, from the forward endpoint alone (one engine call per
    step). The candidate σ is then checked with the guarded worst case
    (:func:`worst_case_rdp`) on every order. Soundness: the returned σ is one
    where the checked ε was computed and is <= the target. Tightness: a
    window's ε is >= the full grid's, and the endpoint alone is <= the guarded
    worst case, so the check switches the guard on if its ε exceeds the
    target, and re-centres the window if the optimum is at the window's edge;
    both then bisect again.
    """

    def checked(sigma: float) -> tuple[float, float, Kind]:
        return _epsilon_at_sigma(sigma, base, orders, "exact", delta)

    guard = False
    for _ in range(6):
        lo_i = max(0, center - CALIBRATION_WINDOW)
        hi_i = min(orders.size, center + CALIBRATION_WINDOW + 1)
        window = orders[lo_i:hi_i]

        def epsilon_at(sigma: float, window=window, guard=guard) -> tuple[float, float]:
            r = base.with_sigma(sigma)
            c, gap = r.norm_bound / sigma, r.amplitude_gap / sigma
            upper = _worst_case(window, r.dim, c, gap, r.n_syn, guard=guard)[0]
            post = post_processing_rdp(window, r.effective_sensitivity, sigma)
            return _epsilon(window, r.releases * np.minimum(upper, post), delta, warn=False)

        sigma, _ = _bisect_sigma(epsilon_at, target, start, rtol, first_step)
        eps, order, kind = checked(sigma)
        index = int(np.searchsorted(orders, order))
        # The optimum must be inside the window, unless the window ends at the grid's end.
        inside = (
            lo_i < index < hi_i - 1 or index == lo_i == 0 or index == hi_i - 1 == orders.size - 1
        )
        if eps <= target and inside:
            return sigma, eps, order, kind
        if eps > target:
            guard = True
        center, start = index, sigma
    # Not settled (never seen): bisect on every order with the guarded worst case.
    sigma, (eps, order, kind) = _bisect_sigma(checked, target, start, rtol)
    return sigma, eps, order, kind


#: First bracketing step of the finite refinement, which starts at the plateau's σ.
FINITE_FIRST_STEP = 1.01


def _calibrate_finite(
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    start: float,
    center: int,
    rtol: float,
    budget: float | None,
) -> tuple[float, float, float, Kind, str | None]:
    """Exact k = 1 calibration of a finite release: the plateau first, then refined in budget.

    The plateau's σ is sound for every n_syn (the finite release is a
    post-processing of VᵀV, THEORY.md §3); the finite ε(σ) is no larger, so the
    finite σ is no larger either, and its search starts from the plateau's
    with a small first step. If the time budget runs out first, the plateau's
    σ stands (kind certified: an upper bound for this release) and the last
    item says so.
    """
    n_syn = base.n_syn
    report_status("calibrating σ for an unlimited release (plateau)")
    sigma_p, eps_p, order_p, _ = _calibrate_worst_case(
        replace(base, n_syn=None), target, delta, orders, start, center, rtol
    )
    plateau = (sigma_p, eps_p, order_p, Kind.CERTIFIED)
    report_status(
        f"refining σ for n_syn = {n_syn:,} records from the plateau's σ = {sigma_p:.4g}"
        + ("" if budget is None else f" (time budget {budget:g} s)")
    )
    try:
        with time_budget(budget):
            finite = _calibrate_worst_case(
                base,
                target,
                delta,
                orders,
                sigma_p,
                int(np.searchsorted(orders, order_p)),
                rtol,
                FINITE_FIRST_STEP,
            )
    except TimeBudgetExceeded:
        return (*plateau, budget_note(n_syn, budget))
    return (*(finite if finite[0] <= sigma_p else plateau), None)


@privacy_quantity("certified")
def calibrate_sigma(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int = 1,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    method: Method = "exact",
    orders: ArrayLike | None = None,
    rtol: float = 1e-4,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    accountant: str = "rdp",
    discretization: float = 1e-4,
):
    """Smallest noise σ whose release meets the target (ε, δ) (THEORY.md §12).

    Brackets σ by doublings/halvings from the post-processing calibration, then
    bisects on log σ until the bracket is narrower than ``rtol``. ε(σ) is
    non-increasing in σ for every method (module docstring), and the upper end
    of the bracket is returned, where ε was computed and is <= the target: the
    result is conservative by construction. The post-processing calibration is
    reported alongside.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        δ in (0, 1).
    dim, out_dim, norm_bound, sensitivity, n_syn, releases
        The release, as in :class:`SyntheticDataRelease`.
    method : {"exact", "global", "post-processing"}, default "exact"
    orders : array_like, optional
        Rényi orders; default :data:`DEFAULT_ORDERS`.
    rtol : float, default 1e-4
        Relative width of the final bracket on σ.
    time_budget : float or None, default :data:`~synthamp.accountant.DEFAULT_TIME_BUDGET` (10 s)
        Seconds for the finite-release refinement (None: no limit). For a
        finite release (``n_syn`` set, exact method, k = 1) σ is first
        calibrated for an unlimited release (the plateau, sound for every
        n_syn), then refined with the finite engine; if the budget runs out
        the plateau's σ is returned and ``fallback`` says so. The budget is
        checked between engine calls, so it may be overrun by one.
    accountant : {"rdp", "pld"}, default "rdp"
        pld: calibrate on the exact privacy profile composed by PLD
        (:func:`synthamp.accountant.calibrate_sigma_pld`, THEORY.md §14).
    discretization : float, default 1e-4
        The PLD's interval h.

    Returns
    -------
    Calibration (rdp) or PldCalibration (pld)
    """
    if accountant == "pld":  # THEORY.md §14: the exact privacy profile, PLD composition
        return calibrate_sigma_pld(
            epsilon, delta, dim=dim, out_dim=out_dim, norm_bound=norm_bound,
            sensitivity=sensitivity, n_syn=n_syn, releases=releases,
            discretization=discretization, rtol=rtol,
        )  # fmt: skip
    if accountant != "rdp":
        raise InputError("accountant", f"must be 'rdp' or 'pld', got {accountant!r}")
    target = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    method = _check_method(method)
    orders = np.unique(_check_orders(orders))  # sorted: ε is a minimum over orders
    rtol = check_positive("rtol", rtol)
    budget = _check_budget(time_budget)
    base = SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases)

    def make_epsilon_at(name: str) -> Callable[[float], tuple[float, float, Kind]]:
        return lambda sigma: _epsilon_at_sigma(sigma, base, orders, name, delta)

    fallback = None
    # Gaussian mechanism with RDP conversion at the optimal order: a good start.
    start = base.effective_sensitivity * math.sqrt(2.0 * releases * math.log(1.0 / delta)) / target
    sigma_post, (eps_post, order_post, kind_post) = _bisect_sigma(
        make_epsilon_at("post-processing"), target, start, rtol
    )
    if method == "post-processing":
        sigma, (eps, order, kind) = sigma_post, (eps_post, order_post, kind_post)
    elif method == "exact" and out_dim == 1:
        center = int(np.searchsorted(orders, order_post))
        if n_syn is None:
            sigma, eps, order, kind = _calibrate_worst_case(
                base, target, delta, orders, sigma_post, center, rtol
            )
        else:
            sigma, eps, order, kind, fallback = _calibrate_finite(
                base, target, delta, orders, sigma_post, center, rtol, budget
            )
    else:  # closed-form certified bounds: cheap at every order
        sigma, (eps, order, kind) = _bisect_sigma(make_epsilon_at(method), target, sigma_post, rtol)
    if order in (orders.min(), orders.max()):
        warnings.warn(
            f"the optimal order {order:g} at the calibrated sigma is at the edge of the grid "
            f"[{orders.min():g}, {orders.max():g}]; more orders may give a smaller sigma",
            OrderGridWarning,
            stacklevel=2,
        )
    return Calibration(
        sigma=sigma,
        epsilon=eps,
        delta=delta,
        target_epsilon=target,
        optimal_order=order,
        sigma_post_processing=sigma_post,
        epsilon_post_processing=eps_post,
        noise_reduction=1.0 - sigma / sigma_post,
        method=method,
        kind=kind,
        fallback=fallback,
    )
