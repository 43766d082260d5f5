"""Closed-form results of Pierquin, Bellet, Tommasi and Boussard (2026).

Every function here restates one result of the paper (as corrected by the
project's specification, ``docs/theory.md``) in natural units: norms, the norm bound
``norm_bound`` (C), the sensitivity ``sensitivity`` (Δ) and the noise ``sigma``
(σ). Internally everything is scaled, c = C/σ and s = Δ/σ. Rényi orders
``alpha`` may be a number or a sequence; results are 1-d arrays over ``alpha``.

Each privacy quantity carries its kind (:mod:`synthamp._kinds`):

``certified``
    A proven, non-asymptotic bound: post-processing, the Fisher criterion of
    Proposition 3.2, the global bounds of Theorems 5.2 and 5.4, the Fisher
    information bounds of Proposition 5.1 and Theorem 5.3.
``heuristic``
    An asymptotic (Δ → 0 or d → ∞) statement: the local expansion of
    Proposition 3.1, the amplification ratios of Theorems 5.1 and 5.3, the
    prior-work baseline, and the global bound *as printed* in the paper (which
    does not follow from Proposition 3.2).
``exact``
    Computed by the exact engine (:mod:`synthamp.divergence`): the divergence
    without a norm bound of Proposition 4.3. Only three functions here call the
    engine, :func:`no_norm_bound_divergence` and :func:`no_norm_bound_ratio`
    (through the former), which validate their input and call its plateau
    kernel, and :func:`fisher_with_bounds` (the Fisher information beside its
    bounds, ``synthamp fisher``). Everything else is closed form;
    :func:`closed_form_bounds` tabulates it for ``synthamp bounds``.

The global bounds bound the plateau D_α(VᵀV‖WᵀW), the n_syn → ∞ limit; since
D_α(ZV‖ZW) is non-decreasing in n_syn (Proposition 4.2), they bound the
privacy loss of every finite release too. They are returned uncapped (the
theorem's value); a guarantee should use the smaller of the global bound and
post-processing, both certified (:func:`certified_plateau_bound`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import CLOSED_FORMS, validated, validated_in, validated_one
from synthamp._validation import (
    InputError,
)
from synthamp.divergence import fisher_information
from synthamp.divergence._plateau import plateau_scaled

__all__ = [
    "BOUND_KINDS",
    "amplification_ratio_local_bounds",
    "amplification_ratio_local_upper",
    "certified_plateau_bound",
    "closed_form_bounds",
    "envelope_integral",
    "fisher_bound_along_path",
    "fisher_criterion_bound",
    "fisher_lower_bound",
    "fisher_upper_bound",
    "fisher_upper_bound_idier_collewet",
    "fisher_upper_bound_simple",
    "fisher_with_bounds",
    "global_bound",
    "global_bound_as_printed",
    "local_rdp",
    "no_norm_bound_divergence",
    "no_norm_bound_ratio",
    "post_processing_rdp",
    "prior_work_rdp",
]

FisherForm = Literal["sharp", "simple"]
IntegralRule = Literal["exact", "elementary"]

#: Kind of each bound reported by ``synthamp bounds`` (its JSON names).
BOUND_KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        "post_processing": Kind.CERTIFIED,
        "global": Kind.CERTIFIED,
        "global_elementary": Kind.CERTIFIED,
        "global_as_printed": Kind.HEURISTIC,
        "local_upper": Kind.HEURISTIC,
        "prior_work": Kind.HEURISTIC,
    }
)


# --------------------------------------------------------------------------- helpers


def _check_theta(theta: ArrayLike, param: str = "theta") -> tuple[NDArray[np.float64], bool]:
    """Amplitudes θ >= 0 (a number or an array); returns (array, was_scalar)."""
    try:
        arr = np.asarray(theta, dtype=float)
    except (TypeError, ValueError):
        raise InputError(param, f"must be a number or an array of numbers, got {theta!r}") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(param, "must be finite")
    if np.any(arr < 0):
        raise InputError(param, f"must be >= 0, got {arr[arr < 0].flat[0]:g}")
    return arr, arr.ndim == 0


def _check_real(param: str, value) -> float:
    """A finite real number of either sign."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(param, f"must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(param, f"must be finite, got {value!r}")
    return number


def _out(arr: NDArray[np.float64], scalar: bool) -> float | NDArray[np.float64]:
    return float(arr) if scalar else arr


def _check_out_dim(out_dim, dim: int) -> int:
    out_dim = validated_one("out_dim", out_dim)
    if out_dim > dim:
        raise InputError("out_dim", f"must be <= dim = {dim}, got {out_dim}")
    return out_dim


def _check_fisher_form(fisher_bound: str) -> FisherForm:
    if fisher_bound not in ("sharp", "simple"):
        raise InputError("fisher_bound", f"must be 'sharp' or 'simple', got {fisher_bound!r}")
    return fisher_bound  # type: ignore[return-value]


_THETA_CLIP = 1e60


def _sharp_ratio(dim: int, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """(√(A² + 4θ²) − A)/2 = 2θ²/(A + √(A² + 4θ²)), A = θ² + (d − 3)/2.

    It is the positive root u of u² + A·u − θ² = 0, which lies in [0, 1] for
    d >= 1 (the quadratic is (d − 1)/2 >= 0 at u = 1) and is non-decreasing in
    θ (du/dθ² = (1 − u)/√(A² + 4θ²)). Each branch avoids cancellation. Beyond
    θ = 1e60 the value is 1 to double precision; clipping there avoids overflow.
    """
    theta = np.minimum(theta, _THETA_CLIP)
    theta_sq = theta * theta
    a = theta_sq + 0.5 * (dim - 3)
    root = np.sqrt(a * a + 4.0 * theta_sq)
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = 2.0 * theta_sq / (a + root)
    value = np.where(a > 0, positive, 0.5 * (root - a))
    return np.minimum(value, 1.0)


def _simple_ratio(dim: int, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """min{1, 2θ²/(2θ² + d − 3)} for d > 3, and 1 for d <= 3 (where I <= 1)."""
    if dim <= 3:
        return np.ones_like(theta)
    theta = np.minimum(theta, _THETA_CLIP)
    theta_sq = theta * theta
    return np.minimum(2.0 * theta_sq / (2.0 * theta_sq + (dim - 3)), 1.0)


def _fisher_ratio(dim: int, theta: NDArray[np.float64], form: FisherForm) -> NDArray[np.float64]:
    return _sharp_ratio(dim, theta) if form == "sharp" else _simple_ratio(dim, theta)


def _lower_ratio(dim: int, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """2θ²/(2θ² + d)."""
    theta_sq = np.minimum(theta, _THETA_CLIP) ** 2
    return 2.0 * theta_sq / (2.0 * theta_sq + dim)


def _idier_collewet_ratio(dim: int, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """min{1, 2θ²/d}."""
    theta_sq = np.minimum(theta, _THETA_CLIP) ** 2
    return np.minimum(1.0, 2.0 * theta_sq / dim)


def _in_theta(
    dim: int,
    theta: ArrayLike,
    ratio: Callable[[int, NDArray[np.float64]], NDArray[np.float64]],
) -> float | NDArray[np.float64]:
    """``ratio(dim, θ)`` for validated amplitudes θ, shaped like ``theta`` (float if a number)."""
    theta, scalar = _check_theta(theta)
    return _out(ratio(dim, theta), scalar)


def _kappa(alpha: NDArray[np.float64]) -> NDArray[np.float64]:
    """κ = (α − 1)(2α − 1)/2: (α − 1) times the Gaussian D_{2α−1} per unit distance²."""
    return 0.5 * (alpha - 1.0) * (2.0 * alpha - 1.0)


def _log_expm1_ratio(y: NDArray[np.float64]) -> NDArray[np.float64]:
    """log((e^y − 1)/y) for y > 0, accurate for tiny y and without overflow."""
    small = y < 1e-3
    tiny = np.where(small, y, 1e-3)
    large = np.where(small, 1.0, y)
    series = tiny / 2 + tiny**2 / 24 - tiny**4 / 2880  # log(sinh(y/2)/(y/2)) + y/2
    return np.where(small, series, large + np.log(-np.expm1(-large)) - np.log(large))


def _log_envelope_integral(
    alpha: NDArray[np.float64], path_length: float, rule: IntegralRule
) -> NDArray[np.float64]:
    """log J, J = ∫_0^s e^{κ t²} dt (scaled units), over alpha; −inf when s = 0.

    Both forms are written as log s + (a small correction) so that the order
    J_exact <= J_elementary survives rounding even when κs² ~ 1e-16.
    """
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy.special import dawsn

    if rule not in ("exact", "elementary"):
        raise InputError("integral", f"must be 'exact' or 'elementary', got {rule!r}")
    if path_length == 0:
        return np.full_like(alpha, -np.inf)
    kappa = _kappa(alpha)
    if rule == "exact":
        # J = e^{x²} F(x)/√κ = s · e^{x²} F(x)/x with x = √κ s and F the Dawson
        # function (F(x)/x → 1 as x → 0, ~ 1/(2x²) as x → ∞).
        x = np.sqrt(kappa) * path_length
        return math.log(path_length) + x * x + np.log(dawsn(x) / x)
    # J <= (e^{κ s²} − 1)/(κ s) = s · (e^y − 1)/y, y = κs², the paper's bound (Appendix E.2).
    return math.log(path_length) + _log_expm1_ratio(kappa * path_length**2)


# --------------------------------------------------------------------------- §2, §6


@privacy_quantity("certified")
def post_processing_rdp(
    alpha: ArrayLike, sensitivity: float, sigma: float = 1.0
) -> NDArray[np.float64]:
    """Rényi divergence of releasing the perturbed model, αΔ²/(2σ²).

    D_α(V‖W) for V = v + σN, W = w + σN with ‖v − w‖_F <= Δ. By post-processing
    it bounds D_α(ZV‖ZW) for every n_syn and the plateau D_α(VᵀV‖WᵀW)
    (paper §2; docs/theory.md §2).

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    sensitivity : float
        Δ >= 0, bound on ‖v − w‖_F.
    sigma : float, default 1.0
        Noise scale σ > 0.

    Returns
    -------
    ndarray
        The bound for each order (nats).
    """
    alpha = validated_one("alpha", alpha)
    sensitivity, sigma = validated_in(CLOSED_FORMS, sensitivity=sensitivity, sigma=sigma)
    s = sensitivity / sigma
    return _post_processing_scaled(alpha, s)


def _post_processing_scaled(alpha: NDArray[np.float64], s: float) -> NDArray[np.float64]:
    """The kernel of :func:`post_processing_rdp`: αs²/2 for validated orders, s = Δ/σ."""
    return 0.5 * alpha * s * s


@privacy_quantity("heuristic")
def local_rdp(alpha: ArrayLike, fisher: float, step: float) -> NDArray[np.float64]:
    """Local expansion (α/2)·I·h² of D_α(P_{θ+h}‖P_θ) (Proposition 3.1).

    D_α(P_{θ+h}‖P_θ) = (α/2) I(θ) h² + o(h²) as h → 0: an asymptotic statement,
    hence heuristic (docs/theory.md §6). ``fisher`` and ``step`` are in the units of
    the family's parameter θ; for the noncentral χ² family in natural units use
    I(d, θ/σ)/σ² and the step Δ, or I(d, θ/σ) and Δ/σ.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    fisher : float
        Fisher information I(θ) >= 0.
    step : float
        Parameter step h.

    Returns
    -------
    ndarray
        (α/2)·I·h² for each order.
    """
    alpha, fisher = validated(alpha=alpha, fisher=fisher)
    step = _check_real("step", step)
    return 0.5 * alpha * fisher * step * step


# --------------------------------------------------------------------------- §7 (Prop 3.2)


def _log1p_alpha_scaled(
    alpha: NDArray[np.float64], log_factor: float, log_integral: NDArray[np.float64]
) -> NDArray[np.float64]:
    """1/(α−1)·log(1 + α·F·J), from log F and log J, without overflow."""
    log_x = np.log(alpha) + log_factor + log_integral
    return np.logaddexp(0.0, log_x) / (alpha - 1.0)


def _criterion_from_log_integral(
    alpha: NDArray[np.float64], fisher_sup: float, log_integral: NDArray[np.float64]
) -> NDArray[np.float64]:
    """1/(α−1)·log(1 + α √I J), from log J, without overflow."""
    if fisher_sup == 0:
        return np.zeros_like(alpha)
    return _log1p_alpha_scaled(alpha, 0.5 * np.log(fisher_sup), log_integral)


@privacy_quantity("certified")
def fisher_criterion_bound(
    alpha: ArrayLike,
    fisher_sup: float,
    envelope: Callable[[NDArray[np.float64], float], ArrayLike] | None = None,
    lower: float | None = None,
    upper: float | None = None,
    *,
    log_integral: ArrayLike | None = None,
    num_points: int = 4096,
) -> NDArray[np.float64]:
    """Fisher criterion of Proposition 3.2, with the square root on I.

    For a one-parameter family P_z, if I(z) <= ``fisher_sup`` and
    D_{2α−1}(P_z‖P_lower) <= U(z) for z between ``lower`` and ``upper``, then

        D_α(P_upper‖P_lower) <= 1/(α−1) · log(1 + α √fisher_sup · ∫ e^{(α−1)U(z)} dz),

    the integral running over the segment between ``lower`` and ``upper``
    (docs/theory.md §7). The extracted paper text lost the square root; the proof
    (Cauchy–Schwarz on ∂_z ∫ p_z^α p_lower^{1−α}) gives it. The proof bounds
    the absolute value of that derivative, so either order of ``lower`` and
    ``upper`` is allowed.

    The integral is either given (``log_integral``, its logarithm for each
    order) or computed from ``envelope`` by a right-endpoint Riemann sum on
    ``num_points`` equal steps. That rule over-estimates the integral when
    U is non-decreasing along the path away from ``lower``, the case of every
    envelope derived from post-processing; the monotonicity is checked on the
    grid and a violation raises. With that assumption the result is certified
    given its inputs.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    fisher_sup : float
        Upper bound >= 0 on the Fisher information I(z) on the segment (not on
        its square root), in the units of the parameter z.
    envelope : callable, optional
        ``envelope(z, a)`` returns U(z) >= D_{2a−1}(P_z‖P_lower) (nats) for a
        1-d array ``z`` and one order ``a``.
    lower, upper : float, optional
        Endpoints of the path: the reference parameter and the other one.
    log_integral : float or sequence of float, optional
        log ∫ e^{(α−1)U(z)} dz for each order, instead of ``envelope``.
    num_points : int, default 4096
        Number of steps of the Riemann sum.

    Returns
    -------
    ndarray
        Upper bound on D_α(P_upper‖P_lower) for each order (nats).
    """
    alpha, fisher_sup = validated(alpha=alpha, fisher_sup=fisher_sup)
    if log_integral is not None:
        if envelope is not None:
            raise InputError("log_integral", "give either envelope or log_integral, not both")
        log_j = np.broadcast_to(np.asarray(log_integral, dtype=float), alpha.shape).copy()
        if np.any(np.isnan(log_j)) or np.any(log_j == np.inf):
            raise InputError("log_integral", "must be finite or -inf")
        return _criterion_from_log_integral(alpha, fisher_sup, log_j)
    if envelope is None or not callable(envelope):
        raise InputError("envelope", "must be a callable envelope(z, alpha), or give log_integral")
    if lower is None or upper is None:
        raise InputError("lower" if lower is None else "upper", "required with an envelope")
    lower = _check_real("lower", lower)
    upper = _check_real("upper", upper)
    num_points = validated_one("num_points", num_points)
    length = abs(upper - lower)
    if length == 0:
        return np.zeros_like(alpha)
    z = lower + (upper - lower) * np.arange(num_points + 1) / num_points
    log_h = np.log(length / num_points)
    log_j = np.empty_like(alpha)
    for i, a in enumerate(alpha):
        u = np.broadcast_to(np.asarray(envelope(z, float(a)), dtype=float), z.shape)
        if not np.all(np.isfinite(u)):
            raise InputError("envelope", f"returned a non-finite value at alpha = {a:g}")
        if np.any(np.diff(u) < -1e-12 * (1.0 + np.abs(u[1:]))):
            raise InputError(
                "envelope",
                "must be non-decreasing along the path from lower to upper "
                "(the conservative right-endpoint rule needs it)",
            )
        terms = (a - 1.0) * u[1:] + log_h
        top = terms.max()
        log_j[i] = top + np.log(np.sum(np.exp(terms - top)))
    return _criterion_from_log_integral(alpha, fisher_sup, log_j)


# --------------------------------------------------------------------------- §5 (Prop 5.1)


@privacy_quantity("certified")
def fisher_lower_bound(dim: int, theta: ArrayLike) -> float | NDArray[np.float64]:
    """Lower bound 2θ²/(2θ² + d) on the Fisher information I(d, θ) (Proposition 5.1).

    I(d, θ) is the Fisher information of χ²_d(θ²) in the amplitude θ (scaled
    units; docs/theory.md §5). It bounds Fisher information, not privacy; the label
    records that it is a proven bound.

    Parameters
    ----------
    dim : int
        Degrees of freedom d >= 1.
    theta : float or array_like
        Amplitude θ >= 0.

    Returns
    -------
    float or ndarray
        The lower bound, shaped like ``theta``.
    """
    return _in_theta(validated_one("dim", dim), theta, _lower_ratio)


@privacy_quantity("certified")
def fisher_upper_bound(dim: int, theta: ArrayLike) -> float | NDArray[np.float64]:
    """Upper bound min{1, 2θ²/(A + √(A² + 4θ²))}, A = θ² + (d − 3)/2 (Proposition 5.1).

    The sharp form of the paper's bound on I(d, θ) (Appendix E.1: the root of
    the quadratic inequality I <= (I + θ²)/(I + θ² + (d − 1)/2)). It equals
    (√(A² + 4θ²) − A)/2, lies in [0, 1] and is non-decreasing in θ, so its
    value at θ = C/σ bounds I on the whole ball. For d < 3 it does not vanish at
    θ = 0 (its limit there is (3 − d)/2), which is still a valid upper bound.

    Parameters
    ----------
    dim, theta
        As in :func:`fisher_lower_bound`.

    Returns
    -------
    float or ndarray
        The sharp upper bound, shaped like ``theta``.
    """
    return _in_theta(validated_one("dim", dim), theta, _sharp_ratio)


@privacy_quantity("certified")
def fisher_upper_bound_simple(dim: int, theta: ArrayLike) -> float | NDArray[np.float64]:
    """Simplified upper bound 2θ²/(2θ² + d − 3) on I(d, θ), d > 3 (Proposition 5.1).

    The form stated in the paper's Proposition 5.1 and used in Theorems
    5.1–5.4; it is at least :func:`fisher_upper_bound`.

    Parameters
    ----------
    dim : int
        Degrees of freedom d > 3.
    theta : float or array_like
        Amplitude θ >= 0.

    Returns
    -------
    float or ndarray
        The simplified upper bound, shaped like ``theta``.
    """
    dim = validated_one("dim", dim)
    if dim <= 3:
        raise InputError("dim", f"must be > 3 for the simplified bound, got {dim}")
    return _in_theta(dim, theta, _simple_ratio)


@privacy_quantity("certified")
def fisher_upper_bound_idier_collewet(dim: int, theta: ArrayLike) -> float | NDArray[np.float64]:
    """Upper bound min{1, 2θ²/d} on I(d, θ) of Idier and Collewet (2014).

    As quoted by the paper (Appendix E.1), which improves on it for d > 6.

    Parameters
    ----------
    dim, theta
        As in :func:`fisher_lower_bound`.

    Returns
    -------
    float or ndarray
        The Idier–Collewet upper bound, shaped like ``theta``.
    """
    return _in_theta(validated_one("dim", dim), theta, _idier_collewet_ratio)


# --------------------------------------------------------------------------- §6, §8 local


@privacy_quantity("heuristic")
def amplification_ratio_local_upper(
    dim: int,
    norm_bound: float,
    sigma: float = 1.0,
    out_dim: int = 1,
    *,
    fisher_bound: FisherForm = "sharp",
) -> float:
    """Local (Δ → 0) upper bound on the amplification ratio η (Theorems 5.1, 5.3).

    η = D_α(VᵀV‖WᵀW)/D_α(V‖W) ≲ 2c²/(2c² + m − 3), c = C/σ, m = ⌊d/k⌋ (m = d
    for k = 1). Asymptotic in Δ, hence heuristic (docs/theory.md §6, §8).

    Parameters
    ----------
    dim : int
        Model width d.
    norm_bound : float
        C >= 0, bound on ‖v‖_F and ‖w‖_F.
    sigma : float, default 1.0
        Noise scale σ > 0.
    out_dim : int, default 1
        Record dimension k, 1 <= k <= d.
    fisher_bound : {"sharp", "simple"}, default "sharp"
        Which form of the Proposition 5.1 upper bound to use: the quadratic-root
        form (:func:`fisher_upper_bound`) or the paper's printed
        2c²/(2c² + m − 3) (1 for m <= 3).

    Returns
    -------
    float
        Upper bound on η, in [0, 1].
    """
    dim = validated_one("dim", dim)
    out_dim = _check_out_dim(out_dim, dim)
    norm_bound, sigma = validated_in(CLOSED_FORMS, norm_bound=norm_bound, sigma=sigma)
    c = norm_bound / sigma
    form = _check_fisher_form(fisher_bound)
    return _local_upper_scaled(dim // out_dim, c, form)


def _local_upper_scaled(width: int, c: float, form: FisherForm = "sharp") -> float:
    """The kernel of :func:`amplification_ratio_local_upper`: m = ⌊d/k⌋, c = C/σ validated."""
    return float(_fisher_ratio(width, np.asarray(c), form))


@privacy_quantity("heuristic")
def amplification_ratio_local_bounds(
    dim: int,
    norm_w: float,
    norm_bound: float,
    sigma: float = 1.0,
    out_dim: int = 1,
    *,
    fisher_bound: FisherForm = "sharp",
) -> tuple[float, float]:
    """Local (Δ → 0) bounds on the amplification ratio η_d (Theorem 5.1; 5.3 for k > 1).

        2b²/(2b² + d)  ≲  η  ≲  2c²/(2c² + m − 3),   b = ‖w‖/σ, c = C/σ, m = ⌊d/k⌋.

    The lower bound uses the full d also for k > 1: by the rank-one reduction
    (docs/theory.md §8) the k = 1 divergence with width d is attained for k > 1.
    Asymptotic in Δ, hence heuristic.

    Parameters
    ----------
    dim : int
        Model width d.
    norm_w : float
        ‖w‖_F >= 0 (the reference parameter's norm), at most ``norm_bound``.
    norm_bound : float
        C >= 0.
    sigma : float, default 1.0
        Noise scale σ > 0.
    out_dim : int, default 1
        Record dimension k, 1 <= k <= d.
    fisher_bound : {"sharp", "simple"}, default "sharp"
        Form of the upper Fisher bound, see :func:`amplification_ratio_local_upper`.

    Returns
    -------
    (float, float)
        Lower and upper bound on η.
    """
    dim, sigma, norm_w, norm_bound = validated_in(
        CLOSED_FORMS, dim=dim, sigma=sigma, norm_w=norm_w, norm_bound=norm_bound
    )
    if norm_w > norm_bound:
        raise InputError("norm_w", f"must be <= norm_bound = {norm_bound:g}, got {norm_w:g}")
    upper = amplification_ratio_local_upper(
        dim, norm_bound, sigma, out_dim, fisher_bound=fisher_bound
    )
    b = norm_w / sigma
    lower = 2.0 * b * b / (2.0 * b * b + dim)
    return float(lower), upper


# --------------------------------------------------------------------------- §7, §8 global


def _scaled_global_inputs(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float,
    out_dim: int,
) -> tuple[NDArray[np.float64], int, float, float]:
    """Validated orders and the scaled inputs of Theorems 5.2/5.4: (α, m = ⌊d/k⌋, C/σ, Δ/σ)."""
    alpha, dim = validated(alpha=alpha, dim=dim)
    out_dim = _check_out_dim(out_dim, dim)
    sigma = validated_one("sigma", sigma)
    c = validated_one("norm_bound", norm_bound, CLOSED_FORMS) / sigma
    s = validated_one("sensitivity", sensitivity, CLOSED_FORMS) / sigma
    return alpha, dim // out_dim, c, s


def envelope_integral(
    alpha: ArrayLike, path_length: float, *, integral: IntegralRule = "exact", log: bool = False
) -> NDArray[np.float64]:
    """J = ∫_0^s e^{κ t²} dt, κ = (α − 1)(2α − 1)/2, in scaled units (Theorem 5.2).

    The integral of e^{(α−1)U} along the amplitude path for the post-processing
    envelope U(t) = (2α − 1)t²/2. ``integral="exact"`` evaluates
    J = e^{κs²} F(√κ s)/√κ with F the Dawson function; ``"elementary"`` returns
    the paper's upper bound (e^{κs²} − 1)/(κs) (Appendix E.2), which is >= J.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    path_length : float
        s = Δ/σ >= 0.
    integral : {"exact", "elementary"}, default "exact"
    log : bool, default False
        Return log J (finite for any valid input with s > 0; J itself may
        overflow to inf).

    Returns
    -------
    ndarray
        J (or log J) for each order.
    """
    alpha, s = validated(alpha=alpha, path_length=path_length)
    log_j = _log_envelope_integral(alpha, s, integral)
    if log:
        return log_j
    with np.errstate(over="ignore"):
        return np.exp(log_j)


@privacy_quantity("certified")
def global_bound(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    out_dim: int = 1,
    integral: IntegralRule = "exact",
    *,
    fisher_bound: FisherForm = "sharp",
) -> NDArray[np.float64]:
    """Global bound on the plateau, Theorem 5.2 (k = 1) / 5.4 (k > 1), derived form.

    With c = C/σ, s = Δ/σ, m = ⌊d/k⌋, κ = (α − 1)(2α − 1)/2 and η_C the
    Proposition 5.1 upper bound on I(m, c):

        D_α(VᵀV‖WᵀW) <= 1/(α − 1) · log(1 + α √η_C · J),   J = ∫_0^s e^{κ t²} dt.

    This is Proposition 3.2 along the amplitude path (k = 1) or the straight
    path of Theorem 5.3 (k > 1) with the post-processing envelope
    D_{2α−1} <= (2α − 1)t²/2 (docs/theory.md §7, §8). It holds for both orders of the
    pair, on the plateau and hence for every finite n_syn (D_α(ZV‖ZW) is
    non-decreasing in n_syn). Computed in log space: the value may be large
    but is finite for every valid input.

    The theorem's value is returned uncapped; for a guarantee use the smaller
    of it and :func:`post_processing_rdp` (:func:`certified_plateau_bound`).

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d.
    norm_bound : float
        C >= 0, bound on ‖v‖_F and ‖w‖_F.
    sensitivity : float
        Δ >= 0, bound on ‖v − w‖_F.
    sigma : float, default 1.0
        Noise scale σ > 0.
    out_dim : int, default 1
        Record dimension k, 1 <= k <= d.
    integral : {"exact", "elementary"}, default "exact"
        J by the Dawson function, or the paper's elementary bound
        (e^{κs²} − 1)/(κs) (larger, so also certified).
    fisher_bound : {"sharp", "simple"}, default "sharp"
        η_C from :func:`fisher_upper_bound` or the paper's printed
        min{1, 2c²/(2c² + m − 3)} (1 for m <= 3); both are proven bounds.

    Returns
    -------
    ndarray
        Upper bound on D_α(VᵀV‖WᵀW) for each order (nats).
    """
    alpha, width, c, s = _scaled_global_inputs(alpha, dim, norm_bound, sensitivity, sigma, out_dim)
    form = _check_fisher_form(fisher_bound)
    return _global_scaled(alpha, width, c, s, integral, form)


def _global_scaled(
    alpha: NDArray[np.float64],
    width: int,
    c: float,
    s: float,
    integral: IntegralRule = "exact",
    form: FisherForm = "sharp",
) -> NDArray[np.float64]:
    """The kernel of :func:`global_bound`: validated orders, m = ⌊d/k⌋, c = C/σ, s = Δ/σ."""
    fisher_sup = float(_fisher_ratio(width, np.asarray(c), form))
    log_j = _log_envelope_integral(alpha, s, integral)
    return _criterion_from_log_integral(alpha, fisher_sup, log_j)


@privacy_quantity("certified")
def certified_plateau_bound(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    out_dim: int = 1,
) -> NDArray[np.float64]:
    """The smaller of :func:`global_bound` (exact J) and :func:`post_processing_rdp`.

    Both are certified upper bounds on the plateau, hence so is their minimum.

    Parameters
    ----------
    alpha, dim, norm_bound, sensitivity, sigma, out_dim
        As in :func:`global_bound`.

    Returns
    -------
    ndarray
        Upper bound on D_α(VᵀV‖WᵀW) for each order (nats).
    """
    return np.minimum(
        global_bound(alpha, dim, norm_bound, sensitivity, sigma, out_dim),
        post_processing_rdp(alpha, sensitivity, sigma),
    )


@privacy_quantity("heuristic")
def global_bound_as_printed(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    out_dim: int = 1,
) -> NDArray[np.float64]:
    """Theorem 5.2 / 5.4 exactly as printed in the paper's text; not a proven bound.

        1/(α − 1) · log(1 + α · η · (e^{κ s²} − 1)/(2κ s)),   η = min{1, 2c²/(2c² + m − 3)},

    i.e. (e^{(α−1)(2α−1)Δ²/2} − 1)/((α − 1)(2α − 1)Δ) in the paper's notation.
    Compared with what Proposition 3.2 gives (:func:`global_bound` with
    ``integral="elementary"``, ``fisher_bound="simple"``), the printed form
    has η instead of √η and half of the elementary J, so it is smaller and does
    not follow from the proposition (docs/theory.md §7). It is labelled heuristic so
    that it never feeds a guarantee. η = 1 for m <= 3.

    Parameters
    ----------
    alpha, dim, norm_bound, sensitivity, sigma, out_dim
        As in :func:`global_bound`.

    Returns
    -------
    ndarray
        The printed expression for each order (nats).
    """
    alpha, width, c, s = _scaled_global_inputs(alpha, dim, norm_bound, sensitivity, sigma, out_dim)
    eta = float(_simple_ratio(width, np.asarray(c)))
    if eta == 0 or s == 0:
        return np.zeros_like(alpha)
    log_half_j = _log_envelope_integral(alpha, s, "elementary") - np.log(2.0)
    return _log1p_alpha_scaled(alpha, np.log(eta), log_half_j)


@privacy_quantity("certified")
def fisher_bound_along_path(
    dim: int,
    out_dim: int,
    norm_bound: float,
    path_length_sq: float,
    sigma: float = 1.0,
    *,
    fisher_bound: FisherForm = "sharp",
) -> float:
    """Bound on the Fisher information of VᵀV along μ(θ) = (1 − θ)v + θUw (Theorem 5.3).

        I(θ) <= ‖Uw − v‖_F²/σ² · η_m(c),   m = ⌊d/k⌋, c = C/σ, θ ∈ [0, 1],

    with η_m(c) the Proposition 5.1 upper bound (the paper prints
    2c²/(2c² + m − 3)). It bounds Fisher information, not privacy.

    Parameters
    ----------
    dim : int
        Model width d.
    out_dim : int
        Record dimension k, 1 <= k <= d.
    norm_bound : float
        C >= 0, bound on ‖v‖_F and ‖w‖_F.
    path_length_sq : float
        ‖Uw − v‖_F² >= 0 (natural units).
    sigma : float, default 1.0
        Noise scale σ > 0.
    fisher_bound : {"sharp", "simple"}, default "sharp"
        Form of η_m(c), see :func:`global_bound`.

    Returns
    -------
    float
        Upper bound on the Fisher information in θ.
    """
    dim = validated_one("dim", dim)
    out_dim = _check_out_dim(out_dim, dim)
    sigma = validated_one("sigma", sigma)
    c = validated_one("norm_bound", norm_bound, CLOSED_FORMS) / sigma
    length_sq = validated_one("path_length_sq", path_length_sq) / sigma**2
    form = _check_fisher_form(fisher_bound)
    return length_sq * float(_fisher_ratio(dim // out_dim, np.asarray(c), form))


# --------------------------------------------------------------------------- §9, §11


@privacy_quantity("exact")
def no_norm_bound_divergence(
    alpha: ArrayLike, dim: int, t: float, sensitivity: float, sigma: float = 1.0
) -> NDArray[np.float64]:
    """D_α(χ²_d(t²/σ²)‖χ²_d((t + Δ)²/σ²)) for v_t = t·e₁, w_t = (t + Δ)·e₁ (Proposition 4.3).

    The plateau along the sequence of the paper's Proposition 4.3, computed by
    the exact engine. As t → ∞ it tends to the post-processing value αΔ²/(2σ²):
    without a norm bound, unlimited synthetic data amplify nothing (docs/theory.md §9).

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d.
    t : float
        ‖v_t‖ = t >= 0.
    sensitivity : float
        Δ >= 0.
    sigma : float, default 1.0
        Noise scale σ > 0.

    Returns
    -------
    ndarray
        The exact plateau for each order (nats).
    """
    t, sensitivity, alpha, dim, sigma = validated_in(
        CLOSED_FORMS, t=t, sensitivity=sensitivity, alpha=alpha, dim=dim, sigma=sigma
    )
    value, _ = plateau_scaled(alpha, dim, t / sigma, (t + sensitivity) / sigma)
    return value


@privacy_quantity("exact")
def no_norm_bound_ratio(
    alpha: ArrayLike, dim: int, t: float, sensitivity: float, sigma: float = 1.0
) -> NDArray[np.float64]:
    """Ratio of :func:`no_norm_bound_divergence` to post-processing (Proposition 4.3).

    Tends to 1 as t → ∞.

    Parameters
    ----------
    alpha, dim, t, sensitivity, sigma
        As in :func:`no_norm_bound_divergence`; ``sensitivity`` must be > 0.

    Returns
    -------
    ndarray
        The ratio for each order.
    """
    validated_one("sensitivity", sensitivity)  # Δ > 0 here: the ratio divides by Δ²
    exact = no_norm_bound_divergence(alpha, dim, t, sensitivity, sigma)
    return exact / post_processing_rdp(alpha, sensitivity, sigma)


@privacy_quantity("heuristic")
def prior_work_rdp(
    alpha: ArrayLike,
    dim: int,
    out_dim: int,
    n_syn: int,
    sensitivity: float,
    sigma: float = 1.0,
) -> NDArray[np.float64]:
    """Baseline of Pierquin et al. (2025): min{αΔ²/(2σ²), α k n Δ²/(4(d − k)σ²)}.

    A reconstruction of the prior asymptotic result (d → ∞, d ≫ k·n), obtained
    from a Gaussian approximation controlled only in total variation, not a
    certified Rényi bound (docs/theory.md §11). For figures and comparison only.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d > k.
    out_dim : int
        Record dimension k >= 1.
    n_syn : int
        Number of synthetic records n >= 1.
    sensitivity : float
        Δ >= 0.
    sigma : float, default 1.0
        Noise scale σ > 0.

    Returns
    -------
    ndarray
        The baseline for each order (nats).
    """
    alpha, dim = validated(alpha=alpha, dim=dim)
    out_dim = _check_out_dim(out_dim, dim)
    if out_dim == dim:
        raise InputError("out_dim", f"must be < dim = {dim} for the prior-work baseline")
    n_syn = validated_one("n_syn", n_syn)
    post = post_processing_rdp(alpha, sensitivity, sigma)
    return np.minimum(post, post * out_dim * n_syn / (2.0 * (dim - out_dim)))


# --------------------------------------------------------------------------- the commands' tables


def closed_form_bounds(
    alpha: ArrayLike,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
) -> dict:
    """The closed-form bounds of one configuration, over orders (``synthamp bounds``).

    Returns
    -------
    dict
        Lists over ``alpha``: ``alpha``, ``post_processing``, ``global`` (Theorem
        5.2/5.4, exact J), ``global_elementary``, ``global_as_printed``,
        ``local_upper`` (the local upper ratio times post-processing), ``prior_work``
        (None without ``n_syn``); ``eta_local_upper`` and ``kinds``
        (:data:`BOUND_KINDS`). Only the certified ones may feed a guarantee, as
        min(global, post_processing).
    """
    alpha_arr, dim = validated(alpha=alpha, dim=dim)
    args = (alpha_arr, dim, norm_bound, sensitivity, sigma, out_dim)
    post = post_processing_rdp(alpha_arr, sensitivity, sigma)
    eta = amplification_ratio_local_upper(dim, norm_bound, sigma, out_dim)
    result = {
        "alpha": alpha_arr,
        "post_processing": post,
        "global": global_bound(*args, integral="exact"),
        "global_elementary": global_bound(*args, integral="elementary"),
        "global_as_printed": global_bound_as_printed(*args),
        "local_upper": eta * post,
        "prior_work": None,
        "eta_local_upper": eta,
        "kinds": {name: str(kind) for name, kind in BOUND_KINDS.items()},
    }
    if n_syn is not None:
        result["prior_work"] = prior_work_rdp(alpha_arr, dim, out_dim, n_syn, sensitivity, sigma)
    return result


def fisher_with_bounds(dim: int, theta: float) -> dict:
    """The Fisher information I(d, θ) beside the bounds of Proposition 5.1 (``synthamp fisher``).

    Returns
    -------
    dict
        ``dim``, ``theta``, ``fisher`` (I(d, θ), exact engine), ``error`` (its
        estimated absolute numerical error), ``lower_bound`` 2θ²/(2θ² + d) and
        ``upper_bound`` min{1, 2θ²/(A + √(A² + 4θ²))}, A = θ² + (d − 3)/2
        (docs/theory.md §5).
    """
    value, error = fisher_information(dim, theta, full_output=True)
    return {
        "dim": dim,
        "theta": theta,
        "fisher": float(value),
        "error": float(error),
        "lower_bound": float(fisher_lower_bound(dim, theta)),
        "upper_bound": float(fisher_upper_bound(dim, theta)),
    }
