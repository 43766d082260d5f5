"""The shared quadrature of the exact engine (plateau and finite release).

Both divergences of :mod:`synthamp.divergence` are integrals against the law
of a one-dimensional statistic; this module holds what they share, following
the numerical traps of docs/theory.md §4:

1. **Log-likelihood ratio without cancellation** (:func:`llr_sqrt`). With
   R = √X and G_ν(z) = log ₀F₁(; ν+1; z²/4) (:mod:`._special`),
   ℓ(r) = log p_a/p_b = −(a² − b²)/2 + G_ν(ar) − G_ν(br).
   When a and b are close the two G terms nearly cancel, and ℓ is computed
   instead as the path integral of the score,
   ℓ(r) = ∫_b^a (r R_ν(rθ) − θ) dθ, by Gauss–Legendre quadrature in θ.
2. **No "H − 1"** (:func:`phi_and_slope`). With L = p/q, H − 1 = E_q[φ_α(ℓ)],
   where φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0 is evaluated by its power
   series for small α|ℓ|; D_α = log1p(H − 1)/(α − 1). When H is large, log H
   is computed by a log-sum-exp instead (:func:`renyi_on_nodes`).
3. **Integration around the tilted density.** The integral runs over
   t = r + log r on a uniform lattice (the trapezoidal rule, exponentially
   convergent for these smooth, rapidly decaying integrands), around the modes
   of the tilted laws q^{1−τ}p^τ (:func:`tilted_modes`, located for all tilts
   at once; :func:`grid_nodes`). Densities are self-normalised on the same
   nodes, so no normalising constant (and none of the huge Γ-function terms
   at large d) is ever formed.
4. **Error estimate.** Each value comes with an estimate of its absolute
   numerical error: the difference between the rule on the grid and on
   every other node of it (:func:`refined_error`, which bounds the error of
   the finer rule, whose error is the fourth power of the coarser one's for
   Gaussian-like integrands), plus the mass beyond the windows, plus the
   propagated rounding error of ℓ, plus the defect of the identity
   E_q[L] = 1 (by a log-sum-exp).

Everything here is in scaled units (a = ‖v‖/σ, b = ‖w‖/σ) and validates
nothing: callers are :mod:`._plateau` and :mod:`._finite`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from synthamp.divergence._special import (
    G_ULPS_DEBYE,
    G_ULPS_RECURRENCE,
    NU_DEBYE,
    _powers,
    _ratio_debye,
    bessel_ratio,
    hankel_log_sum,
    hankel_threshold,
    log_bessel_i_normalized,
)

EPS = np.finfo(float).eps
#: Half-width of the window, in local standard deviations of the log-density.
WINDOW_SIGMAS = 13.0
#: Log-density drop that defines the edge of a heavy (exponential) tail.
TAIL_LOG_DROP = 60.0
#: Grid nodes per local standard deviation (trapezoidal rule in u = log r).
NODES_PER_SIGMA = 3.0
#: Gauss–Legendre nodes per panel for the path integral of the score.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
_GL8 = np.polynomial.legendre.leggauss(8)
#: ℓ is recomputed by the path integral where the G-difference's rounding error
#: exceeds this fraction of the r.m.s. size of ℓ.
LLR_REL_TOL = 1e-11
MAX_NODES = 200_000
#: Points of the log-spaced grid that brackets the modes (up to 4 tilts, more).
_MODE_GRID_POINTS = (33, 129)


def llr_sqrt(
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
    if min(a, b) > 0.0:
        far = min(a, b) * r >= hankel_threshold(nu)
        if far.all():
            return llr_hankel(r, nu, a, b)
        if far.any():
            out, err = np.empty(r.shape), np.empty(r.shape)
            out[far], err[far] = llr_hankel(r[far], nu, a, b)
            near = ~far
            g_near = None if g_values is None else (g_values[0][near], g_values[1][near])
            out[near], err[near] = llr_sqrt(r[near], nu, a, b, tol, g_values=g_near)
            return out, err
    ga, gb = g_pair(nu, a, b, r) if g_values is None else g_values
    half_diff = 0.5 * (a - b) * (a + b)
    out = (ga - gb) - half_diff
    # rounding of G (._special): measured ≤ 2 ulp (series, Debye) and
    # ≤ 5 ulp (recurrence branch, ν < 30), budgeted 8 and 16
    ulps = G_ULPS_DEBYE if nu >= NU_DEBYE else G_ULPS_RECURRENCE
    err = ulps * EPS * (np.abs(ga) + np.abs(gb)) + 8 * EPS * abs(half_diff)
    limit = 1e-14 * np.abs(out) if tol is None else tol
    # the path integral needs ⌈|a − b| r / τ⌉ panels; where that exceeds 8, the
    # G-difference has no severe cancellation anyway
    use_path = (err > limit) & path_integral_applies(r, nu, a, b)
    if use_path.any():
        out[use_path], err[use_path] = llr_path_integral(r[use_path], nu, a, b)
    return out, err


def llr_hankel(r: np.ndarray, nu: float, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """ℓ(r) and its rounding error where min(a, b)·r >= ``hankel_threshold(ν)`` (a, b > 0).

    With Hankel's expansion G_ν(z) = z − ½ log(2πz) + log Γ(ν+1) + ν log(2/z)
    + log S_ν(z) (:func:`._special.hankel_log_sum`), the large terms of
    ℓ = −(a² − b²)/2 + G_ν(ar) − G_ν(br) cancel analytically:

        ℓ(r) = (a − b)(r − (a + b)/2) − (ν + ½) log1p((a − b)/b)
               + log S_ν(ar) − log S_ν(br),

    a sum of moderate terms with no cancellation beyond r − (a + b)/2 (exact
    to an ulp of r). Error: a few ulp of each term (4ε budgeted), plus the
    truncation of S, below 10^{−25}. This is docs/theory.md §4, trap 4, at large
    arguments, where the path integral would need R_ν at ~100 points per r.
    """
    gap = a - b
    linear = gap * (r - 0.5 * (a + b))
    log_ratio = (nu + 0.5) * math.log1p(gap / b)
    tail = hankel_log_sum(nu, a * r) - hankel_log_sum(nu, b * r)
    out = (linear - log_ratio) + tail
    err = 4 * EPS * (abs(gap) * (r + 0.5 * (a + b)) + abs(log_ratio) + np.abs(tail) + 1.0)
    return out, err


def path_integral_applies(r: np.ndarray, nu: float, a: float, b: float) -> np.ndarray:
    """Where :func:`llr_path_integral` is used: ⌈|a − b| r / τ⌉ ≤ 8 panels."""
    return abs(a - b) * r <= 8 * max(nu + 1.0, 1.5)


def llr_path_integral(rp: np.ndarray, nu: float, a: float, b: float):
    """ℓ(r) = ∫_b^a (r R_ν(rθ) − θ) dθ by composite Gauss–Legendre quadrature and its
    rounding error (see :func:`llr_sqrt`), at radii ``rp`` (a 1-D array)."""
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
    return score @ weights, 8 * EPS * (np.abs(score) + thetas[None, :]) @ np.abs(weights)


def g_pair(nu: float, a: float, b: float, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G_ν(ar), G_ν(br)) in one call of the special function."""
    if b == 0.0:
        return log_bessel_i_normalized(nu, a * r), np.zeros_like(r)
    if a == 0.0:
        return np.zeros_like(r), log_bessel_i_normalized(nu, b * r)
    both = log_bessel_i_normalized(nu, np.concatenate([a * r, b * r]))
    return both[: r.size].reshape(r.shape), both[r.size :].reshape(r.shape)


def llr_on_grid(
    r: np.ndarray,
    log_q: np.ndarray,
    nu: float,
    a: float,
    b: float,
    *,
    g_values: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """ℓ on a grid with weights e^{log_q}: G-difference, then the path integral
    wherever the G-difference loses more than ``LLR_REL_TOL`` of the r.m.s. size of ℓ.

    Returns (ℓ, error, r.m.s. of ℓ under the weights). ``g_values`` as for
    :func:`llr_sqrt`.
    """
    llr, err = llr_sqrt(r, nu, a, b, tol=np.inf, g_values=g_values)
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
    loses more than ``LLR_REL_TOL`` of the r.m.s. size of ℓ under e^{log_q}."""
    w = np.exp(log_q - log_q.max())
    rms = math.sqrt(float((llr * llr) @ w / w.sum())) or 1.0
    redo = err > LLR_REL_TOL * rms
    if redo.any():
        llr, err = llr.copy(), err.copy()
        llr[redo], err[redo] = llr_sqrt(r[redo], nu, a, b, tol=0.0)
    return llr, err, rms


def _ratio_for_modes(nu: float, z: np.ndarray) -> np.ndarray:
    """R_ν(z) to ~1e-7 relative or better, cheaply on a few points: for ν ≥ 30
    Debye's expansion alone (uniform in z: measured ≤ 1e-15 relative against
    :func:`bessel_ratio` over z ∈ [0, 10^8]); tanh z at ν = −½; otherwise
    Amos' ive ratio (relative error ~1e-14; z/(2ν+2), error < 1e-7, below
    z = 1e-3 where ive underflows). Only for locating the windows, never in a
    value."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

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


def tilt_derivatives(
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


def tilted_modes(dim: int, a: float, b: float, tilts) -> tuple[np.ndarray, np.ndarray]:
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
        g1, g2 = tilt_derivatives(m, dim, a, b, tilts[active], for_modes=True)
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
class Grid:
    """Nodes of a trapezoidal rule with q's log density and ℓ on them (plateau grid, or
    the outer grid of a finite release, where t is the outer coordinate)."""

    t: np.ndarray  # nodes in t = r + log r (uniform)
    r: np.ndarray  # r = √x at the nodes
    log_q: np.ndarray  # log density of t under q, up to a constant
    llr: np.ndarray  # ℓ at the nodes
    llr_err: np.ndarray  # rounding error of ℓ
    scale: float = 1.0  # √d + a + b: size of the terms whose rounding the floor covers
    windows: np.ndarray | None = None  # plateau: offsets of the merged windows
    k_even: np.ndarray | None = None  # plateau: nodes of the coarser rule
    llr_bias: float = 0.0  # finite: bound on a bias of ℓ common to all nodes
    log_q_err: np.ndarray | None = None  # plateau: bound on the rounding of log q per node


def grid_nodes(dim: int, a: float, b: float, tilts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Uniform nodes in t = r + log r covering the tilted laws of ``tilts``.

    The variable t behaves like log r near 0 (where densities decay like
    r^d = e^{d log r}) and like r for large r (where they are Gaussian-like
    with unit-order width), so one uniform grid resolves both. Returns
    (t, r, log dr/dt... as log Jacobian dt→u) with r = ω(t) (Wright omega).
    """
    modes_u, sigmas_u = tilted_modes(dim, a, b, tilts)
    r_m = np.exp(modes_u)
    modes_t = r_m + modes_u
    sigmas_t = sigmas_u * (1.0 + r_m)
    lo = float(np.min(modes_t - WINDOW_SIGMAS * sigmas_t))
    lo = min(lo, float(modes_t.min()) - TAIL_LOG_DROP / dim)
    hi = float(np.max(modes_t + WINDOW_SIGMAS * sigmas_t))
    h = float(sigmas_t.min()) / NODES_PER_SIGMA
    n = min(math.ceil((hi - lo) / h) + 1, MAX_NODES)
    n += n % 2 == 0  # odd: every other node is a coarser grid with the same ends
    t = np.linspace(lo, hi, n)
    r, u = radius_nodes(t)
    return t, r, u


def radius_nodes(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r and u = log r at the nodes t = r + log r, with r = e^u to rounding.

    r = ω(t) (Wright omega) and u = t − r carry an absolute error ~ε·r in u,
    i.e. a jitter of the nodes by ε·r² in t — at d = 10^6 (σ_u ≈ 7e-4 at
    r ≈ 10^3) about 1e-9 of the log-density per node. One Newton step on
    e^u + u = t removes it (its residual is computed to ~ε·r, divided by 1 + r).
    """
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    r = special.wrightomega(t)
    u = t - r  # log r, exactly, even where r underflows
    e_u = np.exp(np.minimum(u, 700.0))  # finite: no overflow
    u = u - ((e_u - r) + (r + u - t)) / (1.0 + e_u)
    r = np.exp(np.minimum(u, 700.0))
    return r, u


# ---------------------------------------------------------------------------
# φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1)
# ---------------------------------------------------------------------------


#: n − 1 and n! for the terms n = 2 … 15 of the series of φ_α.
_PHI_POWERS = np.arange(1, 15)
_PHI_FACTORIALS = np.array([math.factorial(n) for n in range(2, 16)], dtype=float)


def phi_and_slope(alpha: np.ndarray, llr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def refined_error(fine: np.ndarray, coarse: np.ndarray) -> np.ndarray:
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


def weighted_mean(log_w: np.ndarray, values: np.ndarray, stride: int = 1) -> np.ndarray:
    """Σ w_i v_i / Σ w_i over every ``stride``-th node (trapezoidal rule, tails negligible)."""
    lw = log_w[::stride]
    w = np.exp(lw - lw.max())
    return (values[..., ::stride] @ w) / w.sum()


def renyi_on_grid(alpha: np.ndarray, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """D_α and its error estimate from a grid (shared by plateau and finite)."""
    n = len(grid.log_q)
    edge = np.zeros(n, dtype=bool)
    edge[0] = edge[-1] = True
    return renyi_on_nodes(
        alpha,
        grid.llr[None, :],
        grid.log_q[None, :],
        grid.llr_err[None, :],
        (np.arange(n) % 2 == 0)[None, :],
        edge[None, :],
        grid.scale,
    )


def _row_sums(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_j matrix[i, j]·weights[i or 0, j] over the last axis."""
    if weights.shape[0] == 1:
        return matrix @ weights[0]
    return np.einsum("ij,ij->i", matrix, weights)


def renyi_on_nodes(
    alpha,
    llr,
    log_q,
    llr_err,
    coarse,
    edge,
    scale,
    *,
    llr_share=False,
    summands=False,
    log_q_err=None,
):
    """D_α and its error estimate by the trapezoidal rule in t.

    ``llr``, ``log_q`` (−inf where a row has no node), ``llr_err`` and the masks
    ``coarse`` (the nodes of the rule with twice the step) and ``edge`` (ends
    of the windows) have one row per order or a single row shared by all.
    log H comes from a log-sum-exp of the tilted integrand; where it is small
    (and αℓ nowhere clipped) D_α = log1p(H − 1)/(α − 1) with H − 1 = E_q[φ_α(ℓ)],
    computed only for those orders. With ``llr_share``, also returns the part
    of the error estimate that propagates the rounding of ℓ. With ``summands``
    (one shared row only), also returns the summands of every order's sum (a row
    per order: q e^{αℓ} for the log form, q φ_α(ℓ) for H − 1, each up to a factor
    per row), those of the normalising sum Σ q (one row), and which orders take
    the log form (for error estimates that need the sums node by node).

    ``log_q_err`` (shaped like ``log_q``) bounds the rounding δᵢ of log q at each
    node. Weights wrong by factors e^{±δ} (δ = max δᵢ over the nodes that carry
    weight) move H − 1 = Σ w φ_α / Σ w by a factor within e^{±2δ} (φ_α ≥ 0) and
    log H by at most 2δ, so D_α by at most (e^{2δ} − 1)·D_α in the H − 1 form and
    2δ/(α − 1) in the log form; this term is added. At amplitudes in the hundreds
    and beyond it is the largest one: log q is a sum of terms of size d·e^{2u}/2
    and G_ν(b r) ≈ b r that cancel to O(1) at the bulk (docs/theory.md §4).
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
    # the H − 1 form clips α ℓ at 700 (see phi_and_slope): where that clipping is active
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
    if summands:
        terms = tilted.copy()
    if small.size:
        rows = small if llr.shape[0] > 1 else slice(None)
        ws = w[rows] if w.shape[0] > 1 else w
        wss = wsum[small] if wsum.shape[0] > 1 else wsum
        phi, dphi = phi_and_slope(alpha[small], llr[rows])
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
        if summands:
            terms[small] = phi * ws
    value = log1p_h / (alpha - 1.0)

    # --- error estimate -------------------------------------------------
    # (i) discretisation: fine vs coarse rule
    err_disc = refined_error(log1p_h, log1p_h_coarse)
    if use_log.any():
        # in the log form the trapezoidal rule converges geometrically in H, whose
        # relative error is the absolute one of log H: the regime test and the squared
        # estimate apply to |Δ log H|, not to |Δ log H|/|log H| (which hides an
        # unresolved rule when log H is large)
        diff = np.abs(log1p_h - log1p_h_coarse)
        err_log = np.where(diff < 1e-3, diff * diff + 1e-15 * np.abs(log1p_h), diff)
        err_disc = np.where(use_log, np.maximum(err_disc, err_log), err_disc)
    # (ii) an integrand that has not decayed at an end of a window may hide
    # any amount of mass beyond it: no error bound then
    err_tail = np.where(ends > 1e-3, np.inf, err_tail)
    # (iii) rounding of the sums
    err_round = 4 * EPS * np.sqrt(live.sum(axis=1)) * np.abs(log1p_h)
    # the log form subtracts two log-sums of size |tmax| and |log_norm|
    if use_log.any():
        err_round += np.where(use_log, 4 * EPS * (np.abs(tmax[:, 0]) + np.abs(log_norm)), 0.0)
    # (iv) in log space a bias c of ℓ shifts log H by αc: the defect of E_q[L] = 1,
    # by a log-sum-exp (e^ℓ q underflows where p lives far from q), plus its rounding
    if use_log.any():
        log_p_terms = log_q + llr
        pmax = log_p_terms.max(axis=1, keepdims=True)
        log_mass_p = pmax[:, 0] + np.log(np.exp(log_p_terms - pmax).sum(axis=1)) - log_norm
        defect = np.abs(np.expm1(log_mass_p)) + 4 * EPS * (np.abs(pmax[:, 0]) + np.abs(log_norm))
        err_identity = np.where(use_log, alpha * defect, 0.0)
    else:
        err_identity = 0.0
    error = (err_disc + err_tail + err_llr + err_round + err_identity) / (alpha - 1.0)
    if log_q_err is not None:
        # nodes below 1e-20 of the largest summand move no sum by more than 1e-20·δ
        carries = (w > 1e-20) | (tilted > 1e-20)
        delta = np.where(carries, log_q_err, 0.0).max(axis=1)
        error = error + np.where(
            use_log, 2.0 * delta / (alpha - 1.0), np.expm1(2.0 * delta) * np.abs(value)
        )
    # floor: rounding of the log-densities (terms of size ~√d + a + b per node)
    # that the estimates above do not see; measured errors stay below it
    error = error + 256 * EPS * scale * np.abs(value)
    if llr_share:
        return value, error, err_llr / (alpha - 1.0)
    if summands:
        return value, error, terms, w, use_log
    return value, error
