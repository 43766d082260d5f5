"""The exact Rényi-divergence engine for one-dimensional synthetic data (k = 1).

For k = 1 the released synthetic data ZV are, by sufficiency (THEORY.md §3),
equivalent to

* the **plateau** (unlimited release): ‖V‖²/σ² ~ χ²_d(a²), a = ‖v‖/σ, so
  D_α(VᵀV‖WᵀW) = D_α(χ²_d(a²) ‖ χ²_d(b²));
* a **finite release** of n_syn records: S = Y·X with Y ~ χ²_d(a²) and an
  independent X ~ χ²_{n_syn}, so D_α(ZV‖ZW) = D_α(Y_a X ‖ Y_b X).

This module computes both, and the Fisher information of χ²_d(θ²) in θ, to
near machine precision, with an estimate of the numerical error of every
value. The methods, following the numerical traps of THEORY.md §4:

1. **Log-likelihood ratio without cancellation.** With R = √X and
   G_ν(z) = log ₀F₁(; ν+1; z²/4) (:mod:`synthamp._special`),
   ℓ(r) = log p_a/p_b = −(a² − b²)/2 + G_ν(ar) − G_ν(br).
   When a and b are close the two G terms nearly cancel, and ℓ is computed
   instead as the path integral of the score,
   ℓ(r) = ∫_b^a (r R_ν(rθ) − θ) dθ, by Gauss–Legendre quadrature in θ.
2. **No "H − 1".** With L = p/q, H − 1 = E_q[φ_α(ℓ)], where
   φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0 is evaluated by its power series for
   small α|ℓ|; D_α = log1p(H − 1)/(α − 1). When H is large, log H is
   computed by a log-sum-exp instead.
3. **Integration around the tilted density.** The integral runs over
   t = r + log r on a uniform lattice (the trapezoidal rule, exponentially
   convergent for these smooth, rapidly decaying integrands). For the
   plateau each order integrates over windows around the bulk of q, of p and
   of its own tilted density q^{1−α}p^α (whose modes are located for all
   orders at once), so orders whose tilted laws lie far apart (large a, α)
   do not share one long grid. Densities are self-normalised on the same
   nodes, so no normalising constant (and none of the huge Γ-function terms
   at large d) is ever formed.
4. **Error estimate.** Each value comes with an estimate of its absolute
   numerical error: the difference between the rule on the grid and on
   every other node of it (which bounds the error of the finer rule, whose
   error is the fourth power of the coarser one's for Gaussian-like
   integrands), plus the mass beyond the windows, plus the propagated rounding
   error of ℓ, plus the defect of the identity E_q[L] = 1 (by a log-sum-exp).

Domain: integer d in [1, 10^6], amplitudes a, b ≥ 0 with a², b² ≤ 10^4
(larger values work but are not tested), α in (1, 256] (larger orders work
with more nodes), n_syn in [1, 10^7]. Accuracy (tests/test_divergence.py,
against mpmath): relative error ≤ 1e-10 for the plateau and Fisher
information, ≤ 1e-8 for the finite release.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
from scipy import special

from synthamp._kinds import Kind, privacy_quantity
from synthamp._special import (
    G_ULPS_DEBYE,
    G_ULPS_RECURRENCE,
    NU_DEBYE,
    _powers,
    _ratio_debye,
    bessel_ratio,
    log_bessel_i_and_ratio,
    log_bessel_i_normalized,
)
from synthamp._validation import (
    check_alpha,
    check_dim,
    check_n_syn,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "DivergenceResult",
    "fisher_information",
    "log_likelihood_ratio",
    "log_likelihood_ratio_finite",
    "ncx2_logpdf",
    "renyi_finite",
    "renyi_plateau",
]

_EPS = np.finfo(float).eps
#: Half-width of the window, in local standard deviations of the log-density.
_WINDOW_SIGMAS = 13.0
#: Log-density drop that defines the edge of a heavy (exponential) tail.
_TAIL_LOG_DROP = 60.0
#: Grid nodes per local standard deviation (trapezoidal rule in u = log r).
_NODES_PER_SIGMA = 3.0
#: Gauss–Legendre nodes per panel for the path integral of the score.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
_GL8 = np.polynomial.legendre.leggauss(8)
#: ℓ is recomputed by the path integral where the G-difference's rounding error
#: exceeds this fraction of the r.m.s. size of ℓ.
_LLR_REL_TOL = 1e-11
_MAX_NODES = 200_000
#: Points of the log-spaced grid that brackets the modes (up to 4 tilts, more).
_MODE_GRID_POINTS = (33, 129)


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


# ---------------------------------------------------------------------------
# Log-likelihood ratio and log-density
# ---------------------------------------------------------------------------


def _llr_sqrt(
    r: np.ndarray,
    nu: float,
    a: float,
    b: float,
    tol: float | None = None,
    *,
    g_values: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """ℓ at x = r² and an estimate of its absolute rounding error.

    First ℓ(r) = −(a² − b²)/2 + G_ν(ar) − G_ν(br), whose rounding error is
    about ε(|G_ν(ar)| + |G_ν(br)| + |a² − b²|/2). Where that exceeds ``tol``
    (default: 1e-14 |ℓ|), ℓ is recomputed as the path integral of the score,
    ℓ(r) = ∫_b^a (r R_ν(rθ) − θ) dθ, by composite Gauss–Legendre quadrature in
    θ, which has no cancellation. The integrand is analytic in θ with its
    nearest singularities at θ = ±i j_{ν,1}/r (zeros of J_ν); j_{ν,1} >
    max(ν + 1, π/2), so panels of length (in t = rθ) at most τ = max(ν+1, 1.5)
    converge to machine precision with 16 nodes (Bernstein ellipse ρ > 4).
    ``g_values`` = (G_ν(ar), G_ν(br)) when the caller has them already.
    """
    r = np.asarray(r, dtype=float)
    if a == b:
        return np.zeros_like(r), np.zeros_like(r)
    ga, gb = _g_pair(nu, a, b, r) if g_values is None else g_values
    half_diff = 0.5 * (a - b) * (a + b)
    out = (ga - gb) - half_diff
    # rounding of G (synthamp._special): measured ≤ 2 ulp (series, Debye) and
    # ≤ 5 ulp (recurrence branch, ν < 30), budgeted 8 and 16
    ulps = G_ULPS_DEBYE if nu >= NU_DEBYE else G_ULPS_RECURRENCE
    err = ulps * _EPS * (np.abs(ga) + np.abs(gb)) + 8 * _EPS * abs(half_diff)
    limit = 1e-14 * np.abs(out) if tol is None else tol
    # the path integral needs ⌈|a − b| r / τ⌉ panels; where that exceeds 8, the
    # G-difference has no severe cancellation anyway
    use_path = (err > limit) & _path_integral_applies(r, nu, a, b)
    if use_path.any():
        out[use_path], err[use_path] = _llr_path_integral(r[use_path], nu, a, b)
    return out, err


def _path_integral_applies(r: np.ndarray, nu: float, a: float, b: float) -> np.ndarray:
    """Where :func:`_llr_path_integral` is used: ⌈|a − b| r / τ⌉ ≤ 8 panels."""
    return abs(a - b) * r <= 8 * max(nu + 1.0, 1.5)


def _llr_path_integral(rp: np.ndarray, nu: float, a: float, b: float):
    """ℓ(r) = ∫_b^a (r R_ν(rθ) − θ) dθ by composite Gauss–Legendre quadrature and its
    rounding error (see :func:`_llr_sqrt`), at radii ``rp`` (a 1-D array)."""
    tau = max(nu + 1.0, 1.5)
    longest = abs(a - b) * float(rp.max())
    n_panels = max(1, math.ceil(longest / tau))
    # short spans: 8 nodes suffice (Bernstein ellipse ρ > 16 when span ≤ τ/4)
    nodes, gl_weights = _GL8 if longest <= tau / 4 else (_GL_NODES, _GL_WEIGHTS)
    edges = np.linspace(b, a, n_panels + 1)
    half = 0.5 * (edges[1:] - edges[:-1])
    mid = 0.5 * (edges[1:] + edges[:-1])
    thetas = (mid[:, None] + half[:, None] * nodes[None, :]).ravel()
    weights = (half[:, None] * gl_weights[None, :]).ravel()
    score = rp[:, None] * bessel_ratio(nu, rp[:, None] * thetas[None, :]) - thetas[None, :]
    # rounding: each score term loses ~ |θ| ulps relative to |score|
    return score @ weights, 8 * _EPS * (np.abs(score) + thetas[None, :]) @ np.abs(weights)


def _g_pair(nu: float, a: float, b: float, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G_ν(ar), G_ν(br)) in one call of the special function."""
    if b == 0.0:
        return log_bessel_i_normalized(nu, a * r), np.zeros_like(r)
    if a == 0.0:
        return np.zeros_like(r), log_bessel_i_normalized(nu, b * r)
    both = log_bessel_i_normalized(nu, np.concatenate([a * r, b * r]))
    return both[: r.size].reshape(r.shape), both[r.size :].reshape(r.shape)


def _x_minus_expm1(x: np.ndarray) -> np.ndarray:
    """x − (e^x − 1) ≤ 0 without cancellation (series −Σ_{k≥2} x^k/k! for |x| ≤ ½,
    18 terms: the remainder is below 1e-19 of the sum)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):
        out = x - np.expm1(x)
    small = np.abs(x) <= 0.5
    if small.any():
        xs = x[small]
        # terms x^k/k! up to the first below 1e-19 of x²/2 (k ≤ 19 for |x| ≤ ½)
        x_max = float(np.abs(xs).max())
        last, ratio = 2, 1.0
        while last < 19 and ratio > 1e-19:
            last += 1
            ratio *= x_max / last
        acc = np.full_like(xs, 1.0 / math.factorial(last))
        for k in range(last - 1, 1, -1):
            acc *= xs
            acc += 1.0 / math.factorial(k)
        out[small] = -(xs * xs) * acc
    return out


def _llr_on_grid(
    r: np.ndarray,
    log_q: np.ndarray,
    nu: float,
    a: float,
    b: float,
    *,
    g_values: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """ℓ on a grid with weights e^{log_q}: G-difference, then the path integral
    wherever the G-difference loses more than ``_LLR_REL_TOL`` of the r.m.s. size of ℓ.

    Returns (ℓ, error, r.m.s. of ℓ under the weights). ``g_values`` as for
    :func:`_llr_sqrt`.
    """
    llr, err = _llr_sqrt(r, nu, a, b, tol=np.inf, g_values=g_values)
    return _refine_llr(r, log_q, nu, a, b, llr, err)


def _refine_llr(
    r: np.ndarray,
    log_q: np.ndarray,
    nu: float,
    a: float,
    b: float,
    llr: np.ndarray,
    err: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float]:
    """The path integral where the G-difference ``llr`` (rounding error ``err``)
    loses more than ``_LLR_REL_TOL`` of the r.m.s. size of ℓ under e^{log_q}."""
    w = np.exp(log_q - log_q.max())
    rms = math.sqrt(float((llr * llr) @ w / w.sum())) or 1.0
    redo = err > _LLR_REL_TOL * rms
    if redo.any():
        llr, err = llr.copy(), err.copy()
        llr[redo], err[redo] = _llr_sqrt(r[redo], nu, a, b, tol=0.0)
    return llr, err, rms


def _log_density_log_radius(
    u: np.ndarray, dim: int, amp: float, *, bessel: np.ndarray | None = None
) -> np.ndarray:
    """log density of U = log √X, X ~ χ²_d(amp²), up to an additive constant.

    log q_U(u) = d·v − (d/2)·expm1(2v) + G_ν(amp·e^u) + const, v = u − ½ log d.
    Written around the mode of the central part so that no term of size
    d log d is formed (THEORY.md §4, trap 2). ``bessel`` = G_ν(amp·e^u) when
    the caller has it already.
    """
    nu = 0.5 * dim - 1.0
    v = u - 0.5 * math.log(dim)
    shape = 0.5 * dim * _x_minus_expm1(2.0 * v)
    if amp == 0.0:
        return shape
    if bessel is None:
        with np.errstate(over="ignore"):
            bessel = log_bessel_i_normalized(nu, amp * np.exp(np.minimum(u, 700.0)))
    # far right (u > ~350) the Gaussian factor is −inf and dominates
    return np.where(shape > -np.inf, shape + bessel, -np.inf)


def _ratio_for_modes(nu: float, z: np.ndarray) -> np.ndarray:
    """R_ν(z) to ~1e-7 relative or better, cheaply on a few points: for ν ≥ 30
    Debye's expansion alone (uniform in z: measured ≤ 1e-15 relative against
    :func:`bessel_ratio` over z ∈ [0, 10^8]); tanh z at ν = −½; otherwise
    Amos' ive ratio (relative error ~1e-14; z/(2ν+2), error < 1e-7, below
    z = 1e-3 where ive underflows). Only for locating the windows, never in a
    value."""
    if nu >= NU_DEBYE:
        return _ratio_debye(nu, z)
    if nu == -0.5:
        return np.tanh(z)
    zc = np.maximum(z, 1e-3)
    with np.errstate(all="ignore"):
        ratio = special.ive(nu + 1.0, zc) / special.ive(nu, zc)
    tiny = z < 1e-3
    if tiny.any():
        ratio[tiny] = z[tiny] / (2.0 * nu + 2.0)
    bad = ~np.isfinite(ratio)
    if bad.any():
        ratio[bad] = bessel_ratio(nu, z[bad])
    return ratio


def _tilt_derivatives(
    u: np.ndarray, dim: int, a: float, b: float, tilt: np.ndarray, *, for_modes: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """u-derivatives of g = log(q_U^{1−τ} p_U^τ) up to a constant, τ = ``tilt``.

    g'(u) = d − r² + τ·ar R_ν(ar) + (1−τ)·br R_ν(br), r = e^u, and g''. ``tilt``
    broadcasts against ``u``. ``for_modes``: R from :func:`_ratio_for_modes`.
    """
    nu = 0.5 * dim - 1.0
    r = np.exp(u)
    r_squared = r * r
    g1 = dim - r_squared
    g2 = -2.0 * r_squared  # = −2r·r exactly
    amps = [amp for amp in (a, b) if amp != 0.0]
    if not amps:
        return g1 + 0.0 * tilt, g2 + 0.0 * tilt
    z = np.multiply.outer(amps, r)
    ratio = _ratio_for_modes(nu, z) if for_modes else bessel_ratio(nu, z)
    zr = z * ratio
    # d/du [z R(z)] = z R + z² R'(z),  R' = 1 − R² − (2ν+1)R/z
    dzr = zr + z * z * (1.0 - ratio * ratio) - (2 * nu + 1) * zr
    weights = [weight for weight, amp in ((tilt, a), (1.0 - tilt, b)) if amp != 0.0]
    for k, weight in enumerate(weights):
        g1 = g1 + weight * zr[k]
        g2 = g2 + weight * dzr[k]
    return g1, g2


def _tilted_modes(dim: int, a: float, b: float, tilts) -> tuple[np.ndarray, np.ndarray]:
    """Modes (in u = log r) and local standard deviations of tilted laws.

    The tilted law q^{1−τ}p^τ has log-density derivative
    g'(u) = d − r² + τ·ar R(ar) + (1−τ)·br R(br). Since 0 ≤ R < 1,
    g' < 0 for r > r_hi and g' > 0 for r < r_lo, with r_hi, r_lo the positive
    roots of r² − B₊r − d and r² + B₋r − d (B± the positive and negative
    parts of the linear coefficients), so every mode lies in [r_lo, r_hi].
    g' is linear in τ, so one log-spaced grid over all the brackets serves
    every tilt: the last sign change of g' on it brackets the mode (outside
    [r_lo, r_hi] the sign is known), linear interpolation starts safeguarded
    Newton steps (kept inside the bracket, bisecting when a step leaves it),
    repeated until every step is below a tenth of the local standard
    deviation. Returns arrays (mode, sigma) over ``tilts``; sigma = 1/√(−g'')
    at the mode.
    """
    tilts = np.asarray(tilts, dtype=float).reshape(-1)
    # r_hi grows with B₊ and r_lo falls with B₋: the grid spans the extreme ones
    with_a, with_b = tilts * a, (1.0 - tilts) * b
    pos = float((np.maximum(with_a, 0.0) + np.maximum(with_b, 0.0)).max())
    neg = -float((np.minimum(with_a, 0.0) + np.minimum(with_b, 0.0)).min())
    r_hi = 0.5 * (pos + math.sqrt(pos * pos + 4.0 * dim)) * (1 + 1e-9)
    r_lo = 2.0 * dim / (neg + math.sqrt(neg * neg + 4.0 * dim)) * (1 - 1e-9)
    n_points = _MODE_GRID_POINTS[0] if len(tilts) <= 4 else _MODE_GRID_POINTS[1]
    grid = np.linspace(math.log(r_lo), math.log(r_hi), n_points)
    r = np.exp(grid)
    g1 = dim - r * r
    amps = np.array([amp for amp in (a, b) if amp != 0.0])
    if amps.size:
        z = amps[:, None] * r
        zr = z * _ratio_for_modes(0.5 * dim - 1.0, z)  # ar R(ar), br R(br)
        weights = [w for w, amp in ((tilts, a), (1.0 - tilts, b)) if amp != 0.0]
        for row, weight in enumerate(weights):
            g1 = g1 + weight[:, None] * zr[row]
    else:
        g1 = np.broadcast_to(g1, (len(tilts), n_points))
    positive = g1 > 0
    last = n_points - 1 - np.argmax(positive[:, ::-1], axis=1)
    last[~positive.any(axis=1)] = 0
    idx = np.minimum(last, n_points - 2)
    rows = np.arange(len(tilts))
    lo, hi = grid[idx], grid[idx + 1]
    g_lo, g_hi = g1[rows, idx], g1[rows, idx + 1]
    falling = g_lo > g_hi
    frac = np.full_like(g_lo, 0.5)
    frac[falling] = g_lo[falling] / (g_lo[falling] - g_hi[falling])
    mode = lo + np.minimum(np.maximum(frac, 0.0), 1.0) * (hi - lo)
    sigma = np.ones_like(mode)
    active = rows
    for _ in range(12):
        m, lo_a, hi_a = mode[active], lo[active], hi[active]
        g1, g2 = _tilt_derivatives(m, dim, a, b, tilts[active], for_modes=True)
        # keep the bracket: g' > 0 left of the mode, < 0 right of it
        right = g1 > 0
        lo_a[right] = m[right]
        hi_a[~right] = m[~right]
        concave = g2 < 0
        if concave.all():
            sigma_a = 1.0 / np.sqrt(-g2)
            step = -g1 / g2
        else:
            sigma_a = np.ones_like(g2)
            step = np.full_like(g2, np.inf)
            sigma_a[concave] = 1.0 / np.sqrt(-g2[concave])
            step[concave] = -g1[concave] / g2[concave]
        target = m + step
        converged = np.abs(step) <= 0.1 * sigma_a
        if converged.all():
            mode[active] = np.minimum(np.maximum(target, lo_a), hi_a)
            sigma[active] = sigma_a
            break
        inside = (target > lo_a) & (target < hi_a)
        new = np.where(inside, target, 0.5 * (lo_a + hi_a))
        new[converged] = np.minimum(np.maximum(target, lo_a), hi_a)[converged]
        mode[active], lo[active], hi[active], sigma[active] = new, lo_a, hi_a, sigma_a
        active = active[~converged]
    return mode, sigma


@dataclasses.dataclass
class _Grid:
    t: np.ndarray  # nodes in t = r + log r (uniform)
    r: np.ndarray  # r = √x at the nodes
    log_q: np.ndarray  # log density of t under q, up to a constant
    llr: np.ndarray  # ℓ at the nodes
    llr_err: np.ndarray  # rounding error of ℓ
    scale: float = 1.0  # √d + a + b: size of the terms whose rounding the floor covers
    windows: np.ndarray | None = None  # plateau: offsets of the merged windows
    k_even: np.ndarray | None = None  # plateau: nodes of the coarser rule


def _grid_nodes(dim: int, a: float, b: float, tilts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Uniform nodes in t = r + log r covering the tilted laws of ``tilts``.

    The variable t behaves like log r near 0 (where densities decay like
    r^d = e^{d log r}) and like r for large r (where they are Gaussian-like
    with unit-order width), so one uniform grid resolves both. Returns
    (t, r, log dr/dt... as log Jacobian dt→u) with r = ω(t) (Wright omega).
    """
    modes_u, sigmas_u = _tilted_modes(dim, a, b, tilts)
    r_m = np.exp(modes_u)
    modes_t = r_m + modes_u
    sigmas_t = sigmas_u * (1.0 + r_m)
    lo = float(np.min(modes_t - _WINDOW_SIGMAS * sigmas_t))
    lo = min(lo, float(modes_t.min()) - _TAIL_LOG_DROP / dim)
    hi = float(np.max(modes_t + _WINDOW_SIGMAS * sigmas_t))
    h = float(sigmas_t.min()) / _NODES_PER_SIGMA
    n = min(math.ceil((hi - lo) / h) + 1, _MAX_NODES)
    n += n % 2 == 0  # odd: every other node is a coarser grid with the same ends
    t = np.linspace(lo, hi, n)
    r, u = _radius_nodes(t)
    return t, r, u


def _radius_nodes(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r and u = log r at the nodes t = r + log r, with r = e^u to rounding.

    r = ω(t) (Wright omega) and u = t − r carry an absolute error ~ε·r in u,
    i.e. a jitter of the nodes by ε·r² in t — at d = 10^6 (σ_u ≈ 7e-4 at
    r ≈ 10^3) about 1e-9 of the log-density per node. One Newton step on
    e^u + u = t removes it (its residual is computed to ~ε·r, divided by 1 + r).
    """
    r = special.wrightomega(t)
    u = t - r  # log r, exactly, even where r underflows
    e_u = np.exp(np.minimum(u, 700.0))  # finite: no overflow
    u = u - ((e_u - r) + (r + u - t)) / (1.0 + e_u)
    r = np.exp(np.minimum(u, 700.0))
    return r, u


@dataclasses.dataclass
class _OrderNodes:
    """Which nodes of a plateau grid each order integrates over (padded rows).

    ``index[i]`` lists the nodes of order i (padding repeats node 0 with
    ``valid`` False); ``edge`` marks the first and last node of each of its
    windows, where the integrand must have decayed.
    """

    index: np.ndarray
    valid: np.ndarray
    edge: np.ndarray


def _plateau_grid(
    dim: int, a: float, b: float, alpha: np.ndarray
) -> tuple[_Grid, _OrderNodes | None]:
    """Nodes for the plateau at the orders ``alpha``: windows around the laws q, p
    and the tilted law q^{1−α}p^α of each order, on one uniform lattice in t.

    H_α = ∫ q^{1−α}p^α has its mass in the window of the tilted law; H_α − 1 =
    E_q[φ_α(ℓ)] = H_α·(tilted law) − q − α(p − q) in those of the tilts 0, 1 and
    α. Each window is mode ± ``_WINDOW_SIGMAS`` local standard deviations
    (extended ``_TAIL_LOG_DROP``/d to the left where it reaches r < 1, where the
    densities decay only like r^d), on the lattice t_k = k·h with h the smallest
    local standard deviation over ``_NODES_PER_SIGMA``. Overlapping windows are
    merged; each merged window starts at an even k and has an even number of
    nodes, so that the even-k nodes form the coarser rule of
    :func:`_refined_error`. Orders whose windows are far apart (large a, α) thus
    cost a few hundred nodes each instead of a uniform grid across all of them.

    Returns the grid over all windows and, when the orders do not all use every
    window, the nodes of each order (else None).
    """
    if len(alpha) == 1:
        orders, order_of = alpha, np.zeros(1, dtype=np.int64)
    else:
        orders, order_of = np.unique(alpha, return_inverse=True)
    tilts = np.concatenate([[0.0, 1.0], orders])
    modes_u, sigmas_u = _tilted_modes(dim, a, b, tilts)
    r_m = np.exp(modes_u)
    modes_t = r_m + modes_u
    sigmas_t = sigmas_u * (1.0 + r_m)
    lo = modes_t - _WINDOW_SIGMAS * sigmas_t
    lo = np.where(lo < 1.0, np.minimum(lo, modes_t - _TAIL_LOG_DROP / dim), lo)
    hi = modes_t + _WINDOW_SIGMAS * sigmas_t
    h = float(sigmas_t.min()) / _NODES_PER_SIGMA
    # window bookkeeping on a handful of intervals: plain Python integers
    lo_list, hi_list = lo.tolist(), hi.tolist()
    for _ in range(2):
        k_lo_list = [math.floor(x / h) for x in lo_list]
        k_lo_list = [k0 - k0 % 2 for k0 in k_lo_list]
        k_hi_list = [math.ceil(x / h) for x in hi_list]
        # even number of nodes k_lo … k_hi
        k_hi_list = [k1 + ((k1 - k0) % 2 == 0) for k0, k1 in zip(k_lo_list, k_hi_list, strict=True)]
        # merge overlapping windows (in order of their left ends)
        starts, ends = [], []
        for i in sorted(range(len(k_lo_list)), key=k_lo_list.__getitem__):
            if starts and k_lo_list[i] <= ends[-1] + 1:
                ends[-1] = max(ends[-1], k_hi_list[i])
            else:
                starts.append(k_lo_list[i])
                ends.append(k_hi_list[i])
        n_total = sum(e0 - s0 + 1 for s0, e0 in zip(starts, ends, strict=True))
        if n_total <= _MAX_NODES:
            break
        h *= n_total / _MAX_NODES * 1.01
    lengths = [e0 - s0 + 1 for s0, e0 in zip(starts, ends, strict=True)]
    offsets = np.array([0, *itertools.accumulate(lengths)])
    if len(starts) == 1:
        k = np.arange(starts[0], ends[0] + 1)
    else:
        k = np.concatenate([np.arange(s0, e0 + 1) for s0, e0 in zip(starts, ends, strict=True)])
    t = k * h
    r, u = _radius_nodes(t)
    nu = 0.5 * dim - 1.0
    g_values = _g_pair(nu, a, b, r)
    # density of t: q_U(u) du/dt, du/dt = 1/(1 + r)
    log_q = _log_density_log_radius(u, dim, b, bessel=g_values[1]) - np.log1p(r)
    # ℓ by the G-difference; renyi_plateau refines it where its error matters
    llr, llr_err = _llr_sqrt(r, nu, a, b, tol=np.inf, g_values=g_values)
    grid = _Grid(t, r, log_q, llr, llr_err, math.sqrt(dim) + a + b)
    grid.windows = offsets
    grid.k_even = k % 2 == 0

    # the nodes of each order: the union of the windows of the tilts 0, 1 and α
    # (three lattice intervals per order, sorted and merged, vectorised over orders)
    n_orders = len(orders)
    if n_orders == 1:  # its windows are all the windows
        return grid, None
    k_lo, k_hi = np.array(k_lo_list, dtype=np.int64), np.array(k_hi_list, dtype=np.int64)
    starts_a = np.array(starts)
    ivl_lo = np.column_stack([np.full(n_orders, k_lo[0]), np.full(n_orders, k_lo[1]), k_lo[2:]])
    ivl_hi = np.column_stack([np.full(n_orders, k_hi[0]), np.full(n_orders, k_hi[1]), k_hi[2:]])
    by_lo = np.argsort(ivl_lo, axis=1, kind="stable")
    ivl_lo = np.take_along_axis(ivl_lo, by_lo, axis=1)
    ivl_hi = np.take_along_axis(ivl_hi, by_lo, axis=1)
    reach = np.maximum.accumulate(ivl_hi, axis=1)
    new_segment = np.ones((n_orders, 3), dtype=bool)
    new_segment[:, 1:] = ivl_lo[:, 1:] > reach[:, :-1] + 1
    segment_id = np.cumsum(new_segment, axis=1) - 1
    seg_lo = np.zeros((n_orders, 3), dtype=np.int64)
    seg_len = np.zeros((n_orders, 3), dtype=np.int64)
    for sid in range(3):
        member = segment_id == sid
        used = member.any(axis=1)
        lo_s = np.where(member, ivl_lo, np.iinfo(np.int64).max).min(axis=1)
        hi_s = np.where(member, ivl_hi, np.iinfo(np.int64).min).max(axis=1)
        seg_lo[:, sid] = np.where(used, lo_s, 0)
        seg_len[:, sid] = np.where(used, hi_s - lo_s + 1, 0)
    if (seg_len.sum(axis=1) == len(t)).all():
        return grid, None
    window = np.searchsorted(starts_a, seg_lo, side="right") - 1
    seg_pos = offsets[window] + seg_lo - starts_a[window]
    total = seg_len.sum(axis=1)
    width = int(total.max())
    cum = np.concatenate([np.zeros((n_orders, 1), dtype=np.int64), np.cumsum(seg_len, axis=1)], 1)
    j = np.arange(width)[None, :]
    index = np.zeros((n_orders, width), dtype=np.int64)
    edge = np.zeros((n_orders, width), dtype=bool)
    for sid in range(3):
        inside = (j >= cum[:, sid : sid + 1]) & (j < cum[:, sid + 1 : sid + 2])
        index = np.where(inside, seg_pos[:, sid : sid + 1] + j - cum[:, sid : sid + 1], index)
        has = seg_len[:, sid : sid + 1] > 0
        edge |= has & ((j == cum[:, sid : sid + 1]) | (j == cum[:, sid + 1 : sid + 2] - 1))
    valid = j < total[:, None]
    return grid, _OrderNodes(index[order_of], valid[order_of], edge[order_of])


# ---------------------------------------------------------------------------
# φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1)
# ---------------------------------------------------------------------------


#: n − 1 and n! for the terms n = 2 … 15 of the series of φ_α.
_PHI_POWERS = np.arange(1, 15)
_PHI_FACTORIALS = np.array([math.factorial(n) for n in range(2, 16)], dtype=float)


def _phi_and_slope(alpha: np.ndarray, llr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0, accurate to a few ulp, and |dφ_α/dℓ|.

    Power series Σ_{n≥2} (α^n − α) ℓ^n / n! where α|ℓ| ≤ 0.1 (14 terms), with
    α^n − α = α·expm1((n−1) log α); elsewhere the rearrangement
    e^ℓ·expm1((α−1)ℓ) − (α−1)·expm1(ℓ), whose two terms exceed the result by
    at most a factor 2/(α|ℓ|) ≤ 20. |φ'| = α e^ℓ |e^{(α−1)ℓ} − 1| (for error
    propagation). ``alpha[:, None]`` broadcasts against ``llr`` (a row per order,
    or one row shared by all; a 1-D ``llr`` is one shared row). Arguments with
    αℓ > 700 are clipped (their orders are handled in log space).
    """
    a = alpha[:, None]
    ell = llr if llr.ndim == 2 else llr[None, :]
    ellc = np.minimum(ell, 700.0 / a)
    growth = np.exp(ellc)
    excess = np.expm1((a - 1.0) * ellc)
    phi = growth * excess - (a - 1.0) * np.expm1(ellc)
    slope = a * growth * np.abs(excess)
    small = np.abs(a * ell) <= 0.1
    if small.any():
        # Horner in ℓ of Σ_{n=2}^{15} (α^n − α)/n! ℓ^{n−2}
        growth_n = np.expm1(_PHI_POWERS[None, :] * np.log(alpha)[:, None])
        coef = alpha[:, None] * growth_n / _PHI_FACTORIALS
        if len(alpha) == 1:
            es = ell[0] if small.all() else ell[small]
            # ℓ^4 onwards (≤ 1e-4 of the sum: α|ℓ| ≤ 0.1) by a power matrix and one
            # product; Horner's rule for the leading terms, whose rounding dominates
            acc = coef[0, 4:] @ _powers(es, 10)
            for c in coef[0, 3::-1].tolist():
                acc *= es
                acc += c
        else:
            rows, cols = np.nonzero(small)
            es = ell[rows if ell.shape[0] > 1 else 0, cols]
            coef = coef[rows]
            acc = coef[:, -1].copy()
            for n in range(12, -1, -1):
                acc *= es
                acc += coef[:, n]
        if small.all():
            phi = (acc * (es * es)).reshape(phi.shape)
        else:
            phi[small] = acc * (es * es)
    return phi, slope


def _refined_error(fine: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """Error estimate of a trapezoidal value from the same rule on every other node.

    For analytic integrands the trapezoidal error falls geometrically,
    e(h) ≈ e(2h)², so the fine rule's relative error is estimated as the
    square of the relative difference — once that difference is below 1e-3
    (the geometric regime); above, the difference itself is returned. A floor
    of 1e-15 relative accounts for rounding.
    """
    diff = np.abs(fine - coarse)
    scale = np.maximum(np.abs(fine), np.finfo(float).tiny)
    rel = diff / scale
    return np.where(rel < 1e-3, (rel * rel + 1e-15) * scale, diff)


def _weighted_mean(log_w: np.ndarray, values: np.ndarray, stride: int = 1) -> np.ndarray:
    """Σ w_i v_i / Σ w_i over every ``stride``-th node (trapezoidal rule, tails negligible)."""
    lw = log_w[::stride]
    w = np.exp(lw - lw.max())
    return (values[..., ::stride] @ w) / w.sum()


def _renyi_on_grid(alpha: np.ndarray, grid: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """D_α and its error estimate from a grid (shared by plateau and finite)."""
    n = len(grid.log_q)
    edge = np.zeros(n, dtype=bool)
    edge[0] = edge[-1] = True
    return _renyi_on_nodes(
        alpha,
        grid.llr[None, :],
        grid.log_q[None, :],
        grid.llr_err[None, :],
        (np.arange(n) % 2 == 0)[None, :],
        edge[None, :],
        grid.scale,
    )


def _plateau_values(alpha, dim, a, b, grid, nodes):
    """D_α and error on a plateau grid whose ℓ is still the G-difference.

    Where the G-difference loses more than ``_LLR_REL_TOL`` of the r.m.s. size
    of ℓ (:func:`_refine_llr`), ℓ is refined by the path integral of the score
    — unless ℓ is still accurate relative to itself there (|a − b| not small:
    the loss is in absolute terms where |ℓ| is large) and the propagated effect
    on every D_α, which the error estimate carries, is below 1e-12 relative.
    """
    nu = 0.5 * dim - 1.0
    w = np.exp(grid.log_q - grid.log_q.max())
    rms = math.sqrt(float((grid.llr * grid.llr) @ w / w.sum())) or 1.0
    redo = grid.llr_err > _LLR_REL_TOL * rms
    if not redo.any():
        return _renyi_on_order_nodes(alpha, grid, nodes)
    if (grid.llr_err[redo] <= 1e-13 * np.abs(grid.llr[redo])).all():
        value, error, share = _renyi_on_order_nodes(alpha, grid, nodes, llr_share=True)
        affected = share > 1e-12 * np.abs(value)
        if not affected.any():
            return value, error
        if nodes is not None:  # refine and recompute only the affected orders
            used = np.zeros_like(redo)
            used[nodes.index[affected][nodes.valid[affected]]] = True
            grid.llr, grid.llr_err = _path_integral_at(grid, redo & used, nu, a, b)
            subset = _OrderNodes(nodes.index[affected], nodes.valid[affected], nodes.edge[affected])
            value[affected], error[affected] = _renyi_on_order_nodes(alpha[affected], grid, subset)
            return value, error
    grid.llr, grid.llr_err = _path_integral_at(grid, redo, nu, a, b)
    return _renyi_on_order_nodes(alpha, grid, nodes)


def _path_integral_at(grid, where, nu, a, b):
    """ℓ and its error with the nodes ``where`` recomputed by the path integral
    (where it applies; elsewhere the grid's G-difference stays)."""
    llr, llr_err = grid.llr.copy(), grid.llr_err.copy()
    where = where & _path_integral_applies(grid.r, nu, a, b)
    if where.any():
        llr[where], llr_err[where] = _llr_path_integral(grid.r[where], nu, a, b)
    return llr, llr_err


def _renyi_on_order_nodes(
    alpha: np.ndarray, grid: _Grid, nodes: _OrderNodes | None, *, llr_share: bool = False
):
    """D_α and its error estimate, each order on its own nodes (:func:`_plateau_grid`)."""
    k_even = grid.k_even
    if nodes is None:
        edge = np.zeros(len(grid.t), dtype=bool)
        edge[grid.windows[:-1]] = True
        edge[grid.windows[1:] - 1] = True
        return _renyi_on_nodes(
            alpha,
            grid.llr[None, :],
            grid.log_q[None, :],
            grid.llr_err[None, :],
            k_even[None, :],
            edge[None, :],
            grid.scale,
            llr_share=llr_share,
        )
    index = nodes.index
    return _renyi_on_nodes(
        alpha,
        np.where(nodes.valid, grid.llr[index], 0.0),
        np.where(nodes.valid, grid.log_q[index], -np.inf),
        np.where(nodes.valid, grid.llr_err[index], 0.0),
        k_even[index] & nodes.valid,
        nodes.edge,
        grid.scale,
        llr_share=llr_share,
    )


def _row_sums(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_j matrix[i, j]·weights[i or 0, j] over the last axis."""
    if weights.shape[0] == 1:
        return matrix @ weights[0]
    return np.einsum("ij,ij->i", matrix, weights)


def _renyi_on_nodes(alpha, llr, log_q, llr_err, coarse, edge, scale, *, llr_share=False):
    """D_α and its error estimate by the trapezoidal rule in t.

    ``llr``, ``log_q`` (−inf where a row has no node), ``llr_err`` and the masks
    ``coarse`` (the nodes of the rule with twice the step) and ``edge`` (ends
    of the windows) have one row per order or a single row shared by all.
    log H comes from a log-sum-exp of the tilted integrand; where it is small
    (and αℓ nowhere clipped) D_α = log1p(H − 1)/(α − 1) with H − 1 = E_q[φ_α(ℓ)],
    computed only for those orders. With ``llr_share``, also returns the part
    of the error estimate that propagates the rounding of ℓ.
    """
    shift = log_q.max(axis=1, keepdims=True)
    w = np.exp(log_q - shift)
    w_coarse = np.where(coarse, w, 0.0)
    wsum = w.sum(axis=1)
    wsum_coarse = w_coarse.sum(axis=1)
    log_norm = shift[:, 0] + np.log(wsum)
    live = w > 0
    w_edge = np.where(edge, w, 0.0)

    # log H by log-sum-exp (for large divergences, where H − 1 ≥ 1)
    a_col = alpha[:, None]
    scaled_llr = a_col * llr
    log_terms = log_q + scaled_llr
    tmax = log_terms.max(axis=1, keepdims=True)
    tilted = np.exp(log_terms - tmax)
    tilted_sum = tilted.sum(axis=1)
    log_h = (tmax[:, 0] + np.log(tilted_sum)) - log_norm
    log_h_coarse = (tmax[:, 0] + np.log(np.where(coarse, tilted, 0.0).sum(axis=1))) - (
        shift[:, 0] + np.log(wsum_coarse)
    )
    # the H − 1 form clips α ℓ at 700 (see _phi_and_slope): where that clipping is active
    # on a node with weight, only the log form is right
    clipped = (np.where(log_q > -np.inf, scaled_llr, -np.inf) > 700.0).any(axis=1)
    use_log = (log_h > 0.5) | clipped

    log1p_h = log_h.copy()
    log1p_h_coarse = log_h_coarse.copy()
    # (ii) truncation, log form: the tilted integrand and q at the window ends
    ends = np.where(edge, tilted, 0.0).sum(axis=1) / tilted_sum + w_edge.sum(axis=1) / wsum
    err_tail = 10.0 * ends
    # (iii) propagated rounding error of ℓ, log form
    err_llr = alpha * _row_sums(tilted, llr_err) / tilted_sum
    small = np.nonzero(~use_log)[0]
    if small.size:
        rows = small if llr.shape[0] > 1 else slice(None)
        ws = w[rows] if w.shape[0] > 1 else w
        wss = wsum[small] if wsum.shape[0] > 1 else wsum
        phi, dphi = _phi_and_slope(alpha[small], llr[rows])
        hm1 = _row_sums(phi, ws) / wss
        w_coarse_s = w_coarse[rows] if w.shape[0] > 1 else w_coarse
        wsum_coarse_s = wsum_coarse[small] if wsum.shape[0] > 1 else wsum_coarse
        hm1_coarse = _row_sums(phi, w_coarse_s) / wsum_coarse_s
        log1p_h[small] = np.log1p(hm1)
        log1p_h_coarse[small] = np.log1p(hm1_coarse)
        ends_hm1 = _row_sums(phi, w_edge[rows] if w.shape[0] > 1 else w_edge) / wss
        err_tail[small] = 10.0 * ends_hm1 / (1.0 + hm1)
        ends[small] = ends_hm1 / np.maximum(hm1, 1e-300)
        live_s = live[rows] if w.shape[0] > 1 else live
        err_s = llr_err[rows] if llr_err.shape[0] > 1 else llr_err
        err_llr[small] = _row_sums(np.where(live_s, dphi * err_s, 0.0), ws) / wss / (1.0 + hm1)
    value = log1p_h / (alpha - 1.0)

    # --- error estimate -------------------------------------------------
    # (i) discretisation: fine vs coarse rule
    err_disc = _refined_error(log1p_h, log1p_h_coarse)
    # (ii) an integrand that has not decayed at an end of a window may hide
    # any amount of mass beyond it: no error bound then
    err_tail = np.where(ends > 1e-3, np.inf, err_tail)
    # (iii) rounding of the sums
    err_round = 4 * _EPS * np.sqrt(live.sum(axis=1)) * np.abs(log1p_h)
    # the log form subtracts two log-sums of size |tmax| and |log_norm|
    if use_log.any():
        err_round += np.where(use_log, 4 * _EPS * (np.abs(tmax[:, 0]) + np.abs(log_norm)), 0.0)
    # (iv) in log space a bias c of ℓ shifts log H by αc: the defect of E_q[L] = 1,
    # by a log-sum-exp (e^ℓ q underflows where p lives far from q), plus its rounding
    if use_log.any():
        log_p_terms = log_q + llr
        pmax = log_p_terms.max(axis=1, keepdims=True)
        log_mass_p = pmax[:, 0] + np.log(np.exp(log_p_terms - pmax).sum(axis=1)) - log_norm
        defect = np.abs(np.expm1(log_mass_p)) + 4 * _EPS * (np.abs(pmax[:, 0]) + np.abs(log_norm))
        err_identity = np.where(use_log, alpha * defect, 0.0)
    else:
        err_identity = 0.0
    error = (err_disc + err_tail + err_llr + err_round + err_identity) / (alpha - 1.0)
    # floor: rounding of the log-densities (terms of size ~√d + a + b per node)
    # that the estimates above do not see; measured errors stay below it
    error = error + 256 * _EPS * scale * np.abs(value)
    if llr_share:
        return value, error, err_llr / (alpha - 1.0)
    return value, error


def _scaled(norm_v, norm_w, sigma) -> tuple[float, float]:
    sigma = check_positive("sigma", sigma)
    a = check_nonnegative("norm_v", norm_v) / sigma
    b = check_nonnegative("norm_w", norm_w) / sigma
    return a, b


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


@privacy_quantity(Kind.EXACT)
def renyi_plateau(alpha, dim, norm_v, norm_w, sigma=1.0, *, full_output: bool = False):
    """Rényi divergence of unlimited synthetic data release, k = 1 (exact).

    D_α(VᵀV ‖ WᵀW) = D_α(χ²_d(a²) ‖ χ²_d(b²)), a = ‖v‖/σ, b = ‖w‖/σ
    (THEORY.md §3; Proposition 4.2 of Pierquin et al. 2026): the limit of
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
        D_α for each order, in the order given. Relative accuracy 1e-10
        (absolute 1e-16 below 1e-6), checked against mpmath.

    Examples
    --------
    >>> import synthamp
    >>> synthamp.renyi_plateau([2, 8], dim=50, norm_v=2.0, norm_w=1.5).round(6)
    array([0.00919 , 0.04232 ])
    """
    alpha = check_alpha(alpha)
    dim = check_dim(dim)
    a, b = _scaled(norm_v, norm_w, sigma)
    if a == b:
        value = np.zeros_like(alpha)
        error = np.zeros_like(alpha)
    else:
        grid, nodes = _plateau_grid(dim, a, b, alpha)
        value, error = _plateau_values(alpha, dim, a, b, grid, nodes)
        value = np.maximum(value, 0.0)
    if full_output:
        return DivergenceResult(alpha, value, error)
    return value


@privacy_quantity(Kind.EXACT)
def renyi_finite(alpha, dim, norm_v, norm_w, n_syn, sigma=1.0, *, full_output: bool = False):
    """Rényi divergence of a release of ``n_syn`` synthetic records, k = 1 (exact).

    D_α(ZV ‖ ZW) = D_α(Y_a X ‖ Y_b X), Y_a ~ χ²_d(a²), X ~ χ²_{n_syn}
    independent (THEORY.md §3). Non-decreasing in ``n_syn`` and below
    :func:`renyi_plateau`.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1.
    dim : int
        Model width d, 1 ≤ d ≤ 10^6.
    norm_v, norm_w : float
        ‖v‖ and ‖w‖, ≥ 0.
    n_syn : int
        Number of synthetic records, 1 ≤ n_syn ≤ 10^7.
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
    Method: :mod:`synthamp._finite` (conditional expectation of the
    likelihood ratio of Y given S = Y·X, trapezoidal rules with fine/coarse
    error estimates, outer window fitted to the most tilted law).
    """
    alpha = check_alpha(alpha)
    dim = check_dim(dim)
    n_syn = check_n_syn(n_syn)
    a, b = _scaled(norm_v, norm_w, sigma)
    if a == b:
        value = np.zeros_like(alpha)
        error = np.zeros_like(alpha)
    else:
        value, error = _finite_by_budget(alpha, dim, n_syn, a, b)
        # 0 ≤ D_α(ZV‖ZW) ≤ D_α(VᵀV‖WᵀW) (THEORY.md §3): intersect the computed
        # interval with [0, plateau + its error]. Where the finite-release
        # quadrature is unreliable or over budget (large α with few records,
        # where the tilted law sits far in the tails of both Y and X) this
        # keeps the reported upper end value + error sound.
        plateau = renyi_plateau(alpha, dim, a, b, full_output=True)
        ceiling = plateau.value + plateau.error
        known = np.isfinite(value) & np.isfinite(error)
        with np.errstate(invalid="ignore"):  # inf − inf where an order was dropped
            lo = np.where(known, np.maximum(value - error, 0.0), 0.0)
        hi = np.where(known, value + error, np.inf)
        hi = np.minimum(hi, ceiling)
        # D_α is non-decreasing in α: a lower end holds for every larger order
        order = np.argsort(alpha, kind="stable")
        lo[order] = np.maximum.accumulate(lo[order])
        lo = np.minimum(lo, hi)
        value, error = 0.5 * (lo + hi), 0.5 * (hi - lo)
    if full_output:
        return DivergenceResult(alpha, value, error)
    return value


def _finite_by_budget(alpha, dim, n_syn, a, b):
    """Finite-release values and errors for as many orders as the work budget allows.

    The grid is set by the largest order; when resolving it would exceed the
    budget (:class:`synthamp._finite.FiniteGridTooCostly`), the largest order
    that fits is found by bisection over the orders and serves all orders up
    to it; larger orders get value = error = inf (the caller falls back on the
    plateau bound).
    """
    from synthamp._finite import FiniteGridTooCostly, finite_grid

    value = np.full_like(alpha, np.inf)
    error = np.full_like(alpha, np.inf)
    levels = np.unique(alpha)

    def attempt(index):
        try:
            return finite_grid(dim, n_syn, a, b, float(levels[index]))
        except FiniteGridTooCostly:
            return None

    # the largest order first; if it does not fit, bisection for the largest
    # order that does (the cost grows with α): levels[lo] fits, levels[hi + 1] not
    grid = None
    found = attempt(len(levels) - 1)
    if found is not None:
        grid = (found, float(levels[-1]))
    else:
        lo, hi = -1, len(levels) - 2
        while lo < hi:
            mid = (lo + hi + 1) // 2
            found = attempt(mid)
            if found is None:
                hi = mid - 1
            else:
                lo, grid = mid, (found, float(levels[mid]))
    if grid is not None:
        found, alpha_max = grid
        chosen = alpha <= alpha_max
        with np.errstate(all="ignore"):
            value[chosen], error[chosen] = _renyi_on_grid(alpha[chosen], found)
    return value, error


def fisher_information(dim, theta, *, full_output: bool = False):
    """Fisher information of χ²_d(θ²) in the amplitude θ (THEORY.md §5).

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
    dim = check_dim(dim)
    theta = check_nonnegative("theta", theta)
    if theta == 0.0:
        return (0.0, 0.0) if full_output else 0.0
    nu = 0.5 * dim - 1.0
    _, r, u = _grid_nodes(dim, 0.0, theta, [0.0])
    bessel, ratio = log_bessel_i_and_ratio(nu, theta * r)
    log_q = _log_density_log_radius(u, dim, theta, bessel=bessel) - np.log1p(r)
    score = r * ratio - theta
    value = float(_weighted_mean(log_q, score * score))
    coarse = float(_weighted_mean(log_q, score * score, stride=2))
    w = np.exp(log_q - log_q.max())
    tail = (w[0] + w[-1]) / w.sum()
    rounding = float(_weighted_mean(log_q, 16 * _EPS * np.abs(score) * (r + theta)))
    error = (
        float(_refined_error(np.array(value), np.array(coarse)))
        + 10 * tail * value
        + 2 * rounding * math.sqrt(value)
        # rounding floor, as for the divergences: terms of size ~√d + θ per node
        + 256 * _EPS * (math.sqrt(dim) + theta) * value
    )
    return (value, error) if full_output else value


def log_likelihood_ratio(x, dim, amp_p, amp_q) -> np.ndarray:
    """log p(x)/q(x) for p = χ²_d(amp_p²), q = χ²_d(amp_q²) (scaled units).

    Computed without forming either log-density (THEORY.md §4, trap 4); see
    the module docstring. Broadcasts over ``x`` ≥ 0.
    """
    dim = check_dim(dim)
    a = check_nonnegative("amp_p", amp_p)
    b = check_nonnegative("amp_q", amp_q)
    x = np.asarray(x, dtype=float)
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise ValueError("x must be finite and >= 0")
    llr, _ = _llr_sqrt(np.sqrt(x).ravel(), 0.5 * dim - 1.0, a, b)
    return llr.reshape(x.shape)


def ncx2_logpdf(x, dim, amp) -> np.ndarray:
    """log density of the noncentral χ²_d(amp²) law, finite wherever it is > 0.

    Unlike :func:`scipy.stats.ncx2.logpdf` it does not underflow for large d
    (THEORY.md §4). log p(x) = log f_d(x) − amp²/2 + G_ν(amp√x), f_d the
    central χ²_d density (computed with :func:`scipy.special.xlogy` and
    :func:`scipy.special.gammaln`; relative error ~1e-16·d log d at large d).
    """
    dim = check_dim(dim)
    amp = check_nonnegative("amp", amp)
    x = np.asarray(x, dtype=float)
    nu = 0.5 * dim - 1.0
    with np.errstate(divide="ignore"):
        central = (
            special.xlogy(nu, x) - 0.5 * x - 0.5 * dim * math.log(2.0) - special.gammaln(0.5 * dim)
        )
    central = np.where(x > 0, central, -np.inf if dim > 2 else central)
    if amp == 0.0:
        return central
    return central - 0.5 * amp * amp + log_bessel_i_normalized(nu, amp * np.sqrt(x))


def log_likelihood_ratio_finite(s, dim, n_syn, amp_p, amp_q) -> np.ndarray:
    """log p(s)/q(s) for S = Y·X, Y ~ χ²_d(amp²), X ~ χ²_{n_syn} (scaled units).

    The likelihood ratio of the finite-release sufficient statistic
    ‖ZV‖²/(σ_z²σ²) (THEORY.md §3), computed as log E_q[L_Y(Y) | S = s] by
    quadrature over the hidden factor.
    """
    from synthamp._finite import llr_finite

    dim = check_dim(dim)
    n_syn = check_n_syn(n_syn)
    a = check_nonnegative("amp_p", amp_p)
    b = check_nonnegative("amp_q", amp_q)
    s = np.asarray(s, dtype=float)
    if np.any(s <= 0) or not np.all(np.isfinite(s)):
        raise ValueError("s must be finite and > 0")
    return llr_finite(s.ravel(), dim, n_syn, a, b).reshape(s.shape)
