"""Calibration: the smallest noise σ whose release meets a target (ε, δ) (docs/theory.md §12).

Kept apart from the accounting it inverts, as ``dp_accounting`` keeps
``mechanism_calibration.py`` apart from its accountants: the accountant maps
σ to ε, this module searches σ. ``_calibrate_sigma`` validates the RDP (or PLD)
calibration of :func:`~synthamp.accountant.calibrate_sigma` (``_accountants``)
once; ``_calibration`` is its kernel, which the guarantee room calls.

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
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import (
    DEFAULT_TIME_BUDGET,
    PLATEAU_FALLBACK,
    TimeBudgetExceeded,
    report_status,
    time_budget,
)
from synthamp._kinds import Kind
from synthamp._parameters import validated, validated_one
from synthamp._validation import MIN_SCALE, InputError
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._curves import _check_budget, _epsilon_curve, budget_note
from synthamp.accountant._finite_epsilon import _FiniteAccountant, finite_epsilon_curve
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.accountant._rdp_conversion import (
    Method,
    OrderGridWarning,
    _check_method,
    _check_orders,
    _epsilon,
    _epsilon_terms,
)
from synthamp.accountant._releases import SyntheticDataRelease, _with
from synthamp.accountant._worst_case import _worst_case
from synthamp.bounds import _post_processing_scaled

__all__ = ["CALIBRATION_WINDOW", "Calibration"]


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


def _epsilon_at_sigma(
    sigma: float,
    base: SyntheticDataRelease,
    orders: NDArray[np.float64],
    method: str,
    delta: float,
) -> tuple[float, float, Kind]:
    """(ε, optimal order, kind) of the release ``base`` at noise ``sigma``: the accountant's.

    The curve :func:`~synthamp.accountant.compute_epsilon` converts
    (:func:`~synthamp.accountant._curves._epsilon_curve`), so a σ verified here has the
    ε the accountant states for it.
    """
    curve = _epsilon_curve(_with(base, sigma=sigma), orders, method, delta)
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
            r = _with(base, sigma=sigma)
            c, gap = r.adjacency_norm_bound / sigma, r.amplitude_gap / sigma
            upper = _worst_case(window, r.dim, c, gap, r.n_syn, guard=guard)[0]
            post = _post_processing_scaled(window, r.effective_sensitivity / sigma)
            return _epsilon(window, r.releases * np.minimum(upper, post), delta, warn=False)

        sigma, _ = smallest_sigma(epsilon_at, target, start, rtol, first_step)
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
    sigma, (eps, order, kind) = smallest_sigma(checked, target, start, rtol)
    return sigma, eps, order, kind


#: First bracketing step of the finite refinement, which starts at the plateau's σ.
FINITE_FIRST_STEP = 1.01


def _solve_sigma(
    epsilon_at: Callable[[float], float],
    slope_at: Callable[[float], float],
    target: float,
    start: float,
    lo: float | None,
    hi: float,
    rtol: float,
) -> tuple[float, float]:
    """A bracket [σ_lo, σ_hi] with ε(σ_lo) > target >= ε(σ_hi), σ_hi/σ_lo <= 1 + rtol.

    ``hi`` has ε(hi) <= target; ``lo`` (or None) ε(lo) > target; the search
    starts at ``start`` in [lo, hi]. Newton steps on log σ with the slope
    ``slope_at`` (≈ −dε/d log σ), doubling while they stay on the side of the
    start, until the root is bracketed; then secant steps through the last two
    points, kept inside the bracket (bisection when they leave it), and, once
    an estimate is within half the tolerance of an end, a point 0.9·rtol from
    that end, which closes the bracket if the estimate is right. Only the
    bracket's soundness matters: each end is where ε was computed (or given).
    """
    width = math.log1p(rtol)
    bracket = [-math.inf if lo is None else math.log(lo), math.log(hi)]  # log σ_lo, log σ_hi
    last: list[tuple[float, float]] = []

    def probe(x: float, sigma: float | None = None) -> float:
        """ε(e^x) − target, recorded, and the bracket's end on its side moved to x."""
        y = epsilon_at(math.exp(x) if sigma is None else sigma) - target
        last.append((x, y))
        bracket[0 if y > 0 else 1] = x
        return y

    y = probe(math.log(start), start)
    step = max(abs(y) / max(slope_at(start), 1e-300), width)
    for _ in range(200):  # Newton, doubling, until both ends are known
        if math.isfinite(bracket[0]):
            break
        if probe(bracket[1] - step) <= 0:
            step *= 2.0
    else:
        raise RuntimeError("calibration: epsilon stays below the target as sigma -> 0")
    x_lo, x_hi = bracket
    if len(last) == 1 and x_hi - x_lo > width:  # started at the lower end: one Newton step up
        probe(min(x_lo + step, x_hi - 0.1 * width))
    for _ in range(200):
        x_lo, x_hi = bracket
        if x_hi - x_lo <= width:
            break
        (x1, y1), (x2, y2) = last[-2:]
        x = (x1 * y2 - x2 * y1) / (y2 - y1) if y2 != y1 else math.nan
        if not x_lo < x < x_hi:
            x = 0.5 * (x_lo + x_hi)
        if x_hi - x < 0.5 * width:
            x = x_hi - 0.9 * width
        elif x - x_lo < 0.5 * width:
            x = x_lo + 0.9 * width
        probe(min(max(x, x_lo + 0.1 * width), x_hi - 0.1 * width))
    x_lo, x_hi = bracket
    return math.exp(x_lo), math.exp(x_hi)


def _calibrate_finite_pruned(
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    sigma_plateau: float,
    center: int,
    rtol: float,
) -> tuple[float, float, float, Kind] | None:
    """The finite release's calibration by lower model and verification.

    Keeps a bracket: ε <= target at σ_hi (the plateau's σ first: the
    accountant's ε there is at most the plateau's, module ``_pruning``), and
    ε > target at σ_lo, certified by the lower bound of
    :meth:`_FiniteAccountant.lower` or by the accountant itself. Each round
    solves lower(σ) = target (cheap calls), then verifies the upper end with
    the accountant's own curve (``finite_epsilon_curve``, the one
    :func:`~synthamp.accountant.compute_epsilon` converts): if its ε is within the
    target the bracket is closed; if not, that σ becomes the lower end and the
    lower model moves to the maximiser just found. Returns None if six rounds
    do not settle (never seen; the caller then bisects on the accountant).
    """
    finite = _FiniteAccountant(base, orders, delta, center)
    start, lo, hi = sigma_plateau, None, sigma_plateau
    for _ in range(6):
        lo, candidate = _solve_sigma(finite.lower, finite.slope, target, start, lo, hi, rtol)
        # ε(lo) > target is certified (by the lower model or the accountant), so any σ up to
        # lo·(1 + rtol) meets the tolerance: verify near its top, 0.95·rtol above lo in log σ.
        # Where the lower model is tight (its pair at the maximiser), the accountant's ε is
        # above it by the pair's error bound alone, and this margin in σ covers that band.
        candidate = min(hi, max(candidate, lo * math.exp(0.95 * math.log1p(rtol))))
        # verified by the curve the accountant states the guarantee with (a fresh search,
        # module ``_finite_epsilon``): a σ returned here needs no second check
        curve, fresh = finite_epsilon_curve(
            _with(base, sigma=candidate), orders, delta, full_output=True
        )
        eps, order = _epsilon(orders, curve.rdp, delta, warn=False)
        if eps <= target:
            return candidate, eps, order, curve.kind
        if fresh.found:  # the lower model moves to the maximiser just found
            finite.hint, finite.found = fresh.hint, True
            finite._center(int(np.searchsorted(orders, order)))
        # The accountant refuted the candidate: it is the bracket's certified lower end, and
        # the lower model now sits at the maximiser just found. If that model still puts the
        # candidate within the target (it is below the accountant by the pair's error bound
        # only), it cannot move the search off the candidate: start one step (0.9·rtol in
        # log σ) above it instead, which closes the bracket if the accountant agrees there.
        lo = candidate
        start = candidate
        if finite.lower(candidate) <= target:
            start = min(hi, candidate * math.exp(0.9 * math.log1p(rtol)))
    return None


def _verified(
    finite: tuple[float, float, float, Kind],
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    rtol: float,
    ceiling: float,
) -> tuple[float, float, float, Kind]:
    """The finite calibration checked by the accountant that states its guarantee.

    The refinement verifies its σ with a search warm-started on cached evaluations;
    :func:`~synthamp.accountant.compute_epsilon` converts a fresh curve
    (:func:`~synthamp.accountant._finite_epsilon.finite_epsilon_curve`) whose guarded
    search can end a little higher (measured: 1.4·10⁻⁵ relative at d = 100,
    n_syn = 10, C/Δ = 800, where the σ at the top of the tolerance then gave
    ε = 1.0000067 > 1: the joint search had spent its calls on other orders, and the
    remaining concave bound is added to the value). A σ is returned only where that
    curve's ε is within the target: otherwise σ steps up by ``rtol`` (at most to
    ``ceiling``, the plateau's σ, sound for every n_syn).
    """
    sigma, order = finite[0], orders
    while sigma < ceiling:
        eps, eps_order, kind = _epsilon_at_sigma(sigma, base, order, "exact", delta)
        if eps <= target:
            return sigma, eps, float(eps_order), kind
        sigma = min(ceiling, sigma * (1.0 + rtol))
    return (ceiling, *_epsilon_at_sigma(ceiling, base, order, "exact", delta))


#: The note of a finite calibration whose search left the engine's range (n_syn ≪ d).
FINITE_OUT_OF_RANGE = (
    "the calibration for exactly {n_syn:,} records left the exact engine's range (σ far below "
    "the plateau's: n_syn ≪ d); " + PLATEAU_FALLBACK
)


def _search_in_range(
    base: SyntheticDataRelease,
    target: float,
    delta: float,
    orders: NDArray[np.float64],
    ceiling: float,
    rtol: float,
) -> tuple[float, float, float, Kind] | None:
    """The finite calibration on the accountant itself, where the refinement left its range.

    With n_syn ≪ d the refinement's lower model can step σ so far below the
    plateau's that the engine is called past its numerical range (amplitudes of
    10¹⁶ and beyond) and raises. Here σ is searched on log σ from ``ceiling`` (the
    plateau's σ, sound for every n_syn) down, on the accountant's own ε
    (:func:`_epsilon_at_sigma`, the curve :func:`~synthamp.accountant.compute_epsilon`
    converts), by the secant search of :func:`_solve_sigma`; a σ where the engine
    raises counts as one above the target. Sound: the σ returned is one where that
    ε was computed and is within the target. Tight to ``rtol`` where ε(σ) is
    computable down to the bracket's lower end; where that end is the engine's
    range, σ is the smallest verified one found. None if the accountant's ε at
    ``ceiling`` is not within the target (the plateau's σ then stands).
    """

    seen: dict[float, tuple[float, float, Kind]] = {}

    def epsilon_at(sigma: float) -> float:
        if sigma not in seen:
            try:
                seen[sigma] = _epsilon_at_sigma(sigma, base, orders, "exact", delta)
            except (ArithmeticError, ValueError, RuntimeError):
                seen[sigma] = (math.inf, math.nan, Kind.CERTIFIED)
        return seen[sigma][0]

    if not epsilon_at(ceiling) <= target:
        return None
    # Newton's first step with ε's slope in log σ taken as 2·target (RDP ∝ σ⁻²), then secant
    # steps (bisection where ε is infinite): only the bracket's verified upper end matters
    _, sigma = _solve_sigma(
        epsilon_at, lambda _: 2.0 * target, target, ceiling, None, ceiling, rtol
    )
    return (sigma, *seen[sigma])


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
    post-processing of VᵀV, docs/theory.md §3); the finite ε(σ) is no larger, so the
    finite σ is no larger either, and its search starts from the plateau's
    (:func:`_calibrate_finite_pruned`). If the time budget runs out first, the
    plateau's σ stands (kind certified: an upper bound for this release) and
    the last item says so.
    """
    n_syn = base.n_syn
    report_status("calibrating σ for an unlimited release (plateau)")
    sigma_p, eps_p, order_p, _ = _calibrate_worst_case(
        _with(base, n_syn=None), target, delta, orders, start, center, rtol
    )
    plateau = (sigma_p, eps_p, order_p, Kind.CERTIFIED)
    report_status(
        f"refining σ for n_syn = {n_syn:,} records from the plateau's σ = {sigma_p:.4g}"
        + ("" if budget is None else f" (time budget {budget:g} s)")
    )

    # The refinement may call the engine far below the plateau's σ (n_syn ≪ d), where its
    # intermediate values overflow: such a call raises, or gives an ε that is not within
    # the target (NaN or ∞ never is), and is handled below; its floating-point warnings
    # are not the caller's.
    def quiet() -> np.errstate:
        return np.errstate(over="ignore", invalid="ignore", divide="ignore")

    try:
        with time_budget(budget), quiet():
            index = int(np.searchsorted(orders, order_p))
            finite = _calibrate_finite_pruned(base, target, delta, orders, sigma_p, index, rtol)
            if finite is None:  # (never seen) bisect on the accountant, then check
                finite = _calibrate_worst_case(
                    base, target, delta, orders, sigma_p, index, rtol, FINITE_FIRST_STEP
                )
                finite = _verified(finite, base, target, delta, orders, rtol, sigma_p)
    except TimeBudgetExceeded:
        return (*plateau, budget_note(n_syn, budget))
    except (ArithmeticError, ValueError, RuntimeError):
        # the search stepped σ far below the plateau's (n_syn ≪ d), past the engine's range:
        # bisect on the accountant instead; if that cannot verify a σ either, the plateau's
        # σ stands, sound for every n_syn, and the note says so
        try:
            with time_budget(budget), quiet():
                finite = _search_in_range(base, target, delta, orders, sigma_p, rtol)
        except TimeBudgetExceeded:
            return (*plateau, budget_note(n_syn, budget))
        if finite is None:
            return (*plateau, FINITE_OUT_OF_RANGE.format(n_syn=n_syn))
    return (*(finite if finite[0] <= sigma_p else plateau), None)


def _calibrate_sigma(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None,
    releases: int,
    method: Method,
    orders: ArrayLike | None,
    rtol: float,
    time_budget: float | None,
    accountant: str,
    discretization: float,
    gram_sensitivity: float | None,
):
    """:func:`~synthamp.accountant.calibrate_sigma` by the accountant named (``"rdp"``,
    ``"pld"``): validates, then calls :func:`_calibration` or the PLD accountant."""
    if accountant == "pld":  # docs/theory.md §14: the exact privacy profile, PLD composition
        return calibrate_sigma_pld(
            epsilon, delta, dim=dim, out_dim=out_dim, norm_bound=norm_bound,
            sensitivity=sensitivity, n_syn=n_syn, releases=releases,
            discretization=discretization, rtol=rtol, gram_sensitivity=gram_sensitivity,
        )  # fmt: skip
    if accountant != "rdp":
        raise InputError("accountant", f"must be 'rdp' or 'pld', got {accountant!r}")
    target, delta = validated(epsilon=epsilon, delta=delta)
    method = _check_method(method)
    orders = np.unique(_check_orders(orders))  # sorted: ε is a minimum over orders
    rtol = validated_one("rtol", rtol)
    budget = _check_budget(time_budget)
    base = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases, gram_sensitivity
    )
    return _calibration(target, delta, base, method, orders, rtol, budget, stacklevel=4)


def _calibration(
    target: float,
    delta: float,
    base: SyntheticDataRelease,
    method: str,
    orders: NDArray[np.float64],
    rtol: float = 1e-4,
    budget: float | None = DEFAULT_TIME_BUDGET,
    *,
    stacklevel: int = 3,
) -> Calibration:
    """The kernel of the RDP calibration: validated inputs, ``orders`` sorted and unique,
    ``base`` the release at σ = 1 (C and Δ are checked against :data:`MIN_SCALE` here).

    ``stacklevel`` points an :class:`OrderGridWarning` at the public caller.
    """
    for name, value in (("norm_bound", base.norm_bound), ("sensitivity", base.sensitivity)):
        if value < MIN_SCALE:  # Δ²/σ² underflows: ε = 0 at every σ, the search hits σ = 0
            raise InputError(
                name,
                f"must be >= {MIN_SCALE:g} to calibrate σ (got {value:g}; C and Δ scale with the "
                "label and norm bounds): rescale the data",
            )
    out_dim, n_syn, releases = base.out_dim, base.n_syn, base.releases

    def make_epsilon_at(name: str) -> Callable[[float], tuple[float, float, Kind]]:
        return lambda sigma: _epsilon_at_sigma(sigma, base, orders, name, delta)

    fallback = None
    # Gaussian mechanism with RDP conversion at the optimal order: a good start.
    start = base.effective_sensitivity * math.sqrt(2.0 * releases * math.log(1.0 / delta)) / target
    sigma_post, (eps_post, order_post, kind_post) = smallest_sigma(
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
        sigma, (eps, order, kind) = smallest_sigma(
            make_epsilon_at(method), target, sigma_post, rtol
        )
    if order in (orders.min(), orders.max()):
        warnings.warn(
            f"the optimal order {order:g} at the calibrated sigma is at the edge of the grid "
            f"[{orders.min():g}, {orders.max():g}]; more orders may give a smaller sigma",
            OrderGridWarning,
            stacklevel=stacklevel,
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


def finite_epsilon_lower_bound(release: SyntheticDataRelease, delta: float) -> float:
    """A proven lower bound on the RDP accountant's ε of a finite k = 1 release at its σ.

    One engine call (:meth:`_FiniteAccountant.lower`): one adjacent pair (at the
    Gaussian model's position on the edge) at the orders around post-processing's
    optimal order, extended to every order of the default grid by the convexity
    lemma of ``_pruning``, capped by post-processing; the accountant's curve (the
    worst case over pairs) lies above it at every order, and the conversion is
    non-decreasing in each order's value, so the accountant's ε is at least this.
    With ε(σ) non-increasing (module docstring), a target ε below the bound at σ
    means the finite calibration's σ exceeds σ: a caller holding a guarantee at σ
    need not start it.
    """
    orders = np.unique(_check_orders(None))
    base = _with(release, sigma=1.0)
    post = release.releases * _post_processing_scaled(
        orders, release.effective_sensitivity / release.sigma
    )
    center = int(np.argmin(_epsilon_terms(orders, post, delta)))
    finite = _FiniteAccountant(base, orders, delta, center)
    finite.found = True  # the one pair at the Gaussian model's position: one engine call
    return finite.lower(release.sigma)
