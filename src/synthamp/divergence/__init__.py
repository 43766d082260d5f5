"""The exact Rényi-divergence engine: k = 1 at any n_syn, and k = 2 unlimited releases.

For k = 1 the released synthetic data ZV are, by sufficiency (docs/theory.md §3),
equivalent to

* the **plateau** (unlimited release): ‖V‖²/σ² ~ χ²_d(a²), a = ‖v‖/σ, so
  D_α(VᵀV‖WᵀW) = D_α(χ²_d(a²) ‖ χ²_d(b²));
* a **finite release** of n_syn records: S = Y·X with Y ~ χ²_d(a²) and an
  independent X ~ χ²_{n_syn}, so D_α(ZV‖ZW) = D_α(Y_a X ‖ Y_b X).

This package computes both, and the Fisher information of χ²_d(θ²) in θ, to
near machine precision, with an estimate of the numerical error of every
value.

Public API
----------
renyi_plateau                D_α of the unlimited release (exact)
renyi_finite                 D_α of a release of n_syn records (exact)
renyi_plateau_gram           D_α of the unlimited release, k = 1 or 2, from vᵀv and wᵀw (exact)
renyi_plateau_gram3_estimate D_α of the unlimited release, k = 3 (Monte Carlo estimate)
fisher_information           Fisher information of χ²_d(θ²) in θ
log_likelihood_ratio         log p/q of χ²_d(a²) against χ²_d(b²), without cancellation
log_likelihood_ratio_finite  log p/q of the finite-release statistic S = Y·X
ncx2_logpdf                  log density of χ²_d(a²) that does not underflow at large d
DivergenceResult             values, error estimates and kind of a divergence
pair_divergence              ``synthamp divergence``: one pair, k = 1 or 2, plateau or n_syn
PairDivergence               its result (``to_dict()``: the command's JSON object)

Layout
------
The public functions here validate their input and call the private scaled
kernels, which library code (accountant, audit, bounds, figures) calls
directly with validated input:

* :mod:`._special`: log-space Bessel functions G_ν and R_ν;
* :mod:`._laws`: the laws of the statistic (χ²_d(a²), χ²_n, Y·X, Gaussian):
  log densities, log tails, sampling, quantiles;
* :mod:`._kernel`: the shared quadrature (log-likelihood ratio without
  cancellation, tilted modes and grids, φ_α sums, error estimates; the
  methods and the numerical traps of docs/theory.md §4 are in its docstring);
* :mod:`._plateau`: ``plateau_scaled`` and ``fisher_scaled``;
* :mod:`._finite`: ``finite_scaled`` and ``llr_finite`` (the law of S = Y·X);
* :mod:`._wishart`: ``plateau_gram_scaled``, the k = 2 plateau (docs/theory.md §15);
* :mod:`._hyp0f1_3x3` and :mod:`._wishart3`: ₀F₁ of a 3 × 3 argument (Koev–Edelman
  series) and the k = 3 Monte Carlo estimate (docs/theory.md §8).

Domain: integer d in [1, 10^6], amplitudes a, b ≥ 0 with a, b ≤ 10^3, α in
(1, 256] (larger orders work with more nodes), n_syn in [1, 10^9]. Accuracy
(tests/divergence/test_divergence.py and test_large_amplitude.py, against
mpmath): relative error ≤ 1e-10 for the plateau and Fisher information, ≤ 1e-8
for the finite release, which is computed directly at every n_syn (no
large-n approximation; at n_syn = 10^9 it is still 5e-4 below the plateau at
d = 2, a = 1000).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import at_most, validated, validated_one
from synthamp._validation import InputError
from synthamp.divergence._finite import FINITE_MAX_AMPLITUDE, finite_scaled, llr_finite
from synthamp.divergence._kernel import llr_sqrt
from synthamp.divergence._laws import NoncentralChiSquare
from synthamp.divergence._plateau import fisher_scaled, plateau_scaled
from synthamp.divergence._wishart import (
    MAX_DIM_K2,
    MAX_TRACE_K2,
    TRACE_RTOL_K2,
    check_gram,
    plateau_gram_refined,
)
from synthamp.divergence._wishart3 import EstimateResult, renyi_plateau_gram3_estimate

__all__ = [
    "DivergenceResult",
    "EstimateResult",
    "PairDivergence",
    "WishartResult",
    "fisher_information",
    "log_likelihood_ratio",
    "log_likelihood_ratio_finite",
    "ncx2_logpdf",
    "pair_divergence",
    "renyi_finite",
    "renyi_plateau",
    "renyi_plateau_gram",
    "renyi_plateau_gram3_estimate",
]


@dataclasses.dataclass(frozen=True)
class DivergenceResult:
    """Rényi divergences over orders, with their numerical error.

    Attributes
    ----------
    alpha : ndarray
        Orders α > 1.
    value : ndarray
        D_α at each order.
    error : ndarray
        Estimated absolute numerical error of ``value`` (a conservative
        estimate; ``value + error`` is what a guarantee should use).
    kind : Kind
        :attr:`Kind.EXACT`.
    """

    alpha: np.ndarray
    value: np.ndarray
    error: np.ndarray
    kind: Kind = Kind.EXACT

    @property
    def upper(self) -> np.ndarray:
        """``value + error``: the number to use in a privacy guarantee."""
        return self.value + self.error


def _scaled(norm_v: float, norm_w: float, sigma: float) -> tuple[float, float]:
    """(a, b) = (‖v‖/σ, ‖w‖/σ), validated."""
    sigma = validated_one("sigma", sigma)
    a = validated_one("norm_v", norm_v) / sigma
    b = validated_one("norm_w", norm_w) / sigma
    return a, b


@privacy_quantity(Kind.EXACT)
def renyi_plateau(
    alpha: ArrayLike,
    dim: int,
    norm_v: float,
    norm_w: float,
    sigma: float = 1.0,
    *,
    full_output: bool = False,
) -> NDArray[np.float64] | DivergenceResult:
    """Rényi divergence of unlimited synthetic data release, k = 1 (exact).

    D_α(VᵀV ‖ WᵀW) = D_α(χ²_d(a²) ‖ χ²_d(b²)), a = ‖v‖/σ, b = ‖w‖/σ
    (docs/theory.md §3; Proposition 4.2 of Pierquin et al. 2026): the limit of
    D_α(ZV‖ZW) as n_syn → ∞ and an upper bound for every finite n_syn.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d, 1 ≤ d ≤ 10^6.
    norm_v, norm_w : float
        ‖v‖ and ‖w‖ (Frobenius norms of the unperturbed parameters), ≥ 0.
    sigma : float, default 1.0
        Noise scale σ > 0 of the output perturbation.
    full_output : bool, default False
        Return a :class:`DivergenceResult` with error estimates.

    Returns
    -------
    ndarray or DivergenceResult
        D_α for each order, in the order given. Relative accuracy
        max(1e-10, 5e-16·max(a, b)²), a = ‖v‖/σ, b = ‖w‖/σ (absolute 1e-16 below
        1e-6), checked against mpmath: beyond a ≈ 450 the rounding of log q, whose
        terms of size ~a² cancel, limits it (5e-10 at a = 10³; docs/theory.md,
        "Accuracy of the k = 1 engine"). The error estimate (``full_output``)
        includes that rounding and bounds the error on every point tested.

    Notes
    -----
    Method: :mod:`synthamp.divergence._plateau` (windows around the tilted
    laws of each order) and :mod:`synthamp.divergence._kernel`.

    Examples
    --------
    >>> import synthamp
    >>> synthamp.renyi_plateau([2, 8], dim=50, norm_v=2.0, norm_w=1.5).round(6)
    array([0.028013, 0.126393])
    """
    alpha, dim = validated(alpha=alpha, dim=dim)
    a, b = _scaled(norm_v, norm_w, sigma)
    value, error = plateau_scaled(alpha, dim, a, b)
    if full_output:
        return DivergenceResult(alpha, value, error)
    return value


@privacy_quantity(Kind.EXACT)
def renyi_finite(
    alpha: ArrayLike,
    dim: int,
    norm_v: float,
    norm_w: float,
    n_syn: int,
    sigma: float = 1.0,
    *,
    full_output: bool = False,
) -> NDArray[np.float64] | DivergenceResult:
    """Rényi divergence of a release of ``n_syn`` synthetic records, k = 1 (exact).

    D_α(ZV ‖ ZW) = D_α(Y_a X ‖ Y_b X), Y_a ~ χ²_d(a²), X ~ χ²_{n_syn}
    independent (docs/theory.md §3). Non-decreasing in ``n_syn`` and below
    :func:`renyi_plateau`.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d, 1 ≤ d ≤ 10^6.
    norm_v, norm_w : float
        ‖v‖ and ‖w‖, ≥ 0, with ‖v‖/σ and ‖w‖/σ ≤ 10^3 (the documented domain, where the
        engine is checked against mpmath; larger ones are refused naming the norm:
        the unlimited release, :func:`renyi_plateau`, bounds every n_syn).
    n_syn : int
        Number of synthetic records, 1 ≤ n_syn ≤ 10^9.
    sigma : float, default 1.0
        Noise scale σ > 0.
    full_output : bool, default False
        Return a :class:`DivergenceResult` with error estimates.

    Returns
    -------
    ndarray or DivergenceResult
        D_α for each order. With ``full_output=True`` each value comes with an
        error bound; the interval value ± error always lies within
        [0, plateau + its error]. Relative accuracy 1e-8 (tests, against
        mpmath, including n_syn = 1 and α = 256). With few records, large
        orders and a large distance |a − b| (e.g. n_syn = 1, a = 100, b = 0,
        α ≥ 32: divergences of 10^4 nats and more) the tilted law lies so far
        in the joint tail of Y and X that resolving it would exceed a work
        budget; those orders get the sound interval [D at the largest
        computed smaller order, plateau + its error] instead.

    Notes
    -----
    Method: :mod:`synthamp.divergence._finite` (conditional expectation of the
    likelihood ratio of Y given S = Y·X, trapezoidal rules with fine/coarse
    error estimates, outer window fitted to the most tilted law).
    """
    alpha, dim, n_syn = validated(alpha=alpha, dim=dim, n_syn=n_syn)
    a, b = _scaled(norm_v, norm_w, sigma)
    for name, amp in (("norm_v", a), ("norm_w", b)):
        if amp > FINITE_MAX_AMPLITUDE:
            raise InputError(
                name,
                f"`{name}`/`sigma` must be <= {FINITE_MAX_AMPLITUDE:g} for a finite release (the "
                f"engine's documented domain; the unlimited release bounds every n_syn), "
                f"got {amp:.6g}",
            )
    value, error = finite_scaled(alpha, dim, n_syn, a, b)
    if full_output:
        return DivergenceResult(alpha, value, error)
    return value


def fisher_information(
    dim: int, theta: float, *, full_output: bool = False
) -> float | tuple[float, float]:
    """Fisher information of χ²_d(θ²) in the amplitude θ (docs/theory.md §5).

    I(d, θ) = E[(∂_θ log p_{θ²}(X))²] with the score
    ∂_θ log p_{θ²}(x) = √x R_ν(θ√x) − θ (Proposition 5.1 of the paper). The
    score is evaluated pointwise (never E[X R²] − θ², which cancels for large
    d) and averaged on the engine's grid.

    Parameters
    ----------
    dim : int
        Degrees of freedom d, 1 ≤ d ≤ 10^6.
    theta : float
        Amplitude θ ≥ 0 (θ = 0 gives 0).
    full_output : bool, default False
        Return ``(value, error)`` instead of the value.

    Returns
    -------
    float or tuple of float
        I(d, θ) ∈ [0, 1), relative accuracy 1e-9 (tests).
    """
    dim, theta = validated(dim=dim, theta=theta)
    value, error = fisher_scaled(dim, theta)
    return (value, error) if full_output else value


def log_likelihood_ratio(x: ArrayLike, dim: int, amp_p: float, amp_q: float) -> NDArray[np.float64]:
    """log p(x)/q(x) for p = χ²_d(amp_p²), q = χ²_d(amp_q²) (scaled units).

    Computed without forming either log-density (docs/theory.md §4, trap 4; the
    method is in :mod:`synthamp.divergence._kernel`). Broadcasts over
    ``x`` ≥ 0.
    """
    dim, a, b = validated(dim=dim, amp_p=amp_p, amp_q=amp_q)
    return _log_likelihood_ratio(x, dim, a, b)


def _log_likelihood_ratio(x: ArrayLike, dim: int, a: float, b: float) -> NDArray[np.float64]:
    """The kernel of :func:`log_likelihood_ratio`, for d and the amplitudes validated."""
    x = np.asarray(x, dtype=float)
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise ValueError("x must be finite and >= 0")
    llr, _ = llr_sqrt(np.sqrt(x).ravel(), 0.5 * dim - 1.0, a, b)
    return llr.reshape(x.shape)


def ncx2_logpdf(x: ArrayLike, dim: int, amp: float) -> NDArray[np.float64]:
    """log density of the noncentral χ²_d(amp²) law, finite wherever it is > 0.

    Unlike :func:`scipy.stats.ncx2.logpdf` it does not underflow for large d
    (docs/theory.md §4). log p(x) = log f_d(x) − amp²/2 + G_ν(amp√x), f_d the
    central χ²_d density (computed with :func:`scipy.special.xlogy` and
    :func:`scipy.special.gammaln`; relative error ~1e-16·d log d at large d).
    """
    dim, amp = validated(dim=dim, amp=amp)
    return NoncentralChiSquare(dim, amp).logpdf(x)


def log_likelihood_ratio_finite(
    s: ArrayLike, dim: int, n_syn: int, amp_p: float, amp_q: float
) -> NDArray[np.float64]:
    """log p(s)/q(s) for S = Y·X, Y ~ χ²_d(amp²), X ~ χ²_{n_syn} (scaled units).

    The likelihood ratio of the finite-release sufficient statistic
    ‖ZV‖²/(σ_z²σ²) (docs/theory.md §3), computed as log E_q[L_Y(Y) | S = s] by
    quadrature over the hidden factor.
    """
    dim, n_syn, a, b = validated(dim=dim, n_syn=n_syn, amp_p=amp_p, amp_q=amp_q)
    return _log_likelihood_ratio_finite(s, dim, n_syn, a, b)


def _log_likelihood_ratio_finite(
    s: ArrayLike, dim: int, n_syn: int, a: float, b: float
) -> NDArray[np.float64]:
    """The kernel of :func:`log_likelihood_ratio_finite`, for d, n and the amplitudes validated."""
    s = np.asarray(s, dtype=float)
    if np.any(s <= 0) or not np.all(np.isfinite(s)):
        raise ValueError("s must be finite and > 0")
    return llr_finite(s.ravel(), dim, n_syn, a, b).reshape(s.shape)


@dataclasses.dataclass(frozen=True)
class WishartResult(DivergenceResult):
    """:class:`DivergenceResult` of the k = 2 engine, with its diagnostics.

    Attributes
    ----------
    mass : float
        Σ q over the lattice times the cell volume (exactly 1 for the exact rule).
    mean_ratio : float
        E_q[L] on the lattice (exactly 1).
    nodes : int
        Number of lattice nodes evaluated.
    """

    mass: float = float("nan")
    mean_ratio: float = float("nan")
    nodes: int = 0


@privacy_quantity(Kind.EXACT)
def renyi_plateau_gram(
    alpha,
    dim,
    gram_v,
    gram_w,
    sigma=1.0,
    *,
    full_output: bool = False,
    _step_scale=1.0,
    _frame_offset=0.0,
):
    """Rényi divergence of unlimited release of k-dimensional records, k ∈ {1, 2} (exact).

    D_α(W_k(d, σ²I, vᵀv) ‖ W_k(d, σ²I, wᵀw)) (docs/theory.md §3, §15): the plateau
    of D_α(ZV‖ZW) as n_syn → ∞, for a given pair. For k = 1 this is
    :func:`renyi_plateau` with ‖v‖ = √gram_v.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1 (tested in [1.01, 64]).
    dim : int
        Model width d, 1 ≤ d ≤ 10^4 for k = 1 and 2 ≤ d ≤ 10^4 for k = 2.
    gram_v, gram_w : array_like
        vᵀv and wᵀw in natural units: a scalar (k = 1), a 2 × 2 symmetric
        positive semi-definite matrix, or its entries (g11, g12, g22).
        tr(gram)/σ² ≤ 10^4 (a closed bound, met up to a relative rounding
        tolerance of 1e-12).
    sigma : float, default 1.0
        Noise scale σ > 0.
    full_output : bool, default False
        Return a :class:`WishartResult` (values, error estimates, diagnostics).

    Returns
    -------
    ndarray or WishartResult
        D_α per order. Relative accuracy 1e-8 (1e-10 on rank-one aligned pairs),
        checked in tests/test_wishart.py.

    Notes
    -----
    A pair's exact value is a lower bound on the worst case over adjacent pairs,
    never an upper bound (docs/theory.md §15).
    """
    alpha, dim, sigma = validated(alpha=alpha, dim=dim, sigma=sigma)
    dim = at_most("dim", dim, MAX_DIM_K2)
    omega_v = check_gram("gram_v", gram_v, dim) / sigma**2
    omega_w = check_gram("gram_w", gram_w, dim) / sigma**2
    if omega_v.shape != omega_w.shape:
        raise InputError("gram_w", "must have the shape of gram_v")
    for name, om in (("gram_v", omega_v), ("gram_w", omega_w)):
        if np.trace(om) > MAX_TRACE_K2 * (1 + TRACE_RTOL_K2):
            raise InputError(name, f"tr(gram)/sigma^2 must be <= {MAX_TRACE_K2:g}")
    if omega_v.shape == (1, 1):
        res = renyi_plateau(
            alpha, dim, math.sqrt(omega_v[0, 0]), math.sqrt(omega_w[0, 0]), full_output=True
        )
        return (
            WishartResult(res.alpha, res.value, res.error, mass=1.0, mean_ratio=1.0)
            if full_output
            else res.value
        )
    if np.array_equal(omega_v, omega_w):
        zero = np.zeros_like(alpha)
        return WishartResult(alpha, zero, zero, mass=1.0, mean_ratio=1.0) if full_output else zero
    value, error, mass, mean_ratio, count = plateau_gram_refined(
        alpha, dim, omega_v, omega_w, _step_scale, _frame_offset
    )
    if full_output:
        return WishartResult(alpha, value, error, mass=mass, mean_ratio=mean_ratio, nodes=count)
    return value


@dataclasses.dataclass(frozen=True)
class PairDivergence:
    """The exact Rényi divergence of one pair over orders (:func:`pair_divergence`).

    Attributes
    ----------
    alpha, renyi, error : ndarray
        The orders (in the given order), D_α (nats) and its estimated absolute
        numerical error.
    dim, out_dim : int
        d and k.
    norm_v, norm_w : float
        ‖v‖_F and ‖w‖_F.
    gram_v, gram_w : list of float
        vᵀv and wᵀw: [‖v‖²] for k = 1, [g11, g12, g22] for k = 2.
    sigma : float
    n_syn : int or None
        None for the plateau (unlimited release).
    kind : str
        ``"exact"``.
    """

    alpha: np.ndarray
    renyi: np.ndarray
    error: np.ndarray
    dim: int
    out_dim: int
    norm_v: float
    norm_w: float
    gram_v: list[float]
    gram_w: list[float]
    sigma: float
    n_syn: int | None
    kind: str

    def to_dict(self) -> dict:
        """The JSON object of ``synthamp divergence``: the attributes, in their order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def _gram_entries(param: str, entries) -> list[float]:
    if entries is None:
        raise InputError(param, "is required with `out_dim` 2 (g11,g12,g22)")
    if len(entries) != 3:
        raise InputError(param, f"must have 3 entries g11,g12,g22, got {len(entries)}")
    return list(entries)


def pair_divergence(
    alpha,
    dim: int,
    norm_v: float | None = None,
    norm_w: float | None = None,
    sigma: float = 1.0,
    n_syn: int | None = None,
    out_dim: int = 1,
    gram_v=None,
    gram_w=None,
) -> PairDivergence:
    """D_α of one pair: k = 1 by its norms (plateau, or ``n_syn`` records), k = 2 by its Grams.

    Calls :func:`renyi_plateau`, :func:`renyi_finite` (k = 1 with ``n_syn``) or
    :func:`renyi_plateau_gram` (k = 2, the plateau; docs/theory.md §3–§4, §15). A
    pair's exact value is a lower bound on the worst case, never a guarantee.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders > 1.
    dim : int
        d.
    norm_v, norm_w : float, optional
        ‖v‖, ‖w‖ (k = 1, required there).
    sigma : float, default 1.0
    n_syn : int, optional
        Records released (k = 1 only); default the plateau.
    out_dim : {1, 2}, default 1
        k.
    gram_v, gram_w : sequence of 3 float, optional
        vᵀv, wᵀw as (g11, g12, g22) (k = 2, required there).

    Returns
    -------
    PairDivergence
    """
    if out_dim not in (1, 2):
        raise InputError("out_dim", f"must be 1 or 2, got {out_dim}")
    if out_dim > validated_one("dim", dim):
        raise InputError("out_dim", f"must be <= dim = {dim}, got {out_dim}")
    if out_dim == 1:
        if gram_v is not None or gram_w is not None:
            raise InputError("gram_v", "is for `out_dim` 2 (give `norm_v`, `norm_w`)")
        for name, norm in (("norm_v", norm_v), ("norm_w", norm_w)):
            if norm is None:
                raise InputError(name, "is required (k = 1)")
        if n_syn is None:
            result = renyi_plateau(alpha, dim, norm_v, norm_w, sigma, full_output=True)
        else:
            result = renyi_finite(alpha, dim, norm_v, norm_w, n_syn, sigma, full_output=True)
        grams = ([norm_v**2], [norm_w**2])
    else:
        if norm_v is not None or norm_w is not None:
            raise InputError("norm_v", "is for `out_dim` 1 (give `gram_v`, `gram_w`)")
        if n_syn is not None:
            raise InputError("n_syn", "the finite release is k = 1 only (omit it: the plateau)")
        grams = (_gram_entries("gram_v", gram_v), _gram_entries("gram_w", gram_w))
        result = renyi_plateau_gram(alpha, dim, grams[0], grams[1], sigma, full_output=True)
        norm_v, norm_w = (math.sqrt(g[0] + g[2]) for g in grams)
    return PairDivergence(
        result.alpha, result.value, result.error, dim, out_dim, norm_v, norm_w, *grams,
        sigma, n_syn, str(result.kind),
    )  # fmt: skip
