"""Finite synthetic release for k = 1: the law of S = Y·X.

With n_syn records, the sufficient statistic ‖ZV‖²/(σ_z²σ²) is S = Y·X with
Y ~ χ²_d(a²) (the model's squared norm) and an independent X ~ χ²_{n_syn}
(THEORY.md §3). Its likelihood ratio is a conditional expectation,

    L_S(s) = E_q[L_Y(Y) | S = s],

because S is a randomisation of Y whose law does not depend on the
amplitude. On the log scale, log S = log Y + log X is a convolution, so both
q_S and L_S are one-dimensional integrals at each outer node s; the outer
integral is then the same as for the plateau (:func:`_renyi_on_grid`).

The inner integral runs over whichever factor is narrower on the log scale:

* X wide (small n_syn): over the engine's grid for Y (``t = r + log r``),
  with the closed-form density of log X at log s − log y;
* X narrow (large n_syn): over a uniform grid in log X around log n_syn,
  with ℓ_Y and the density of log Y evaluated at y = s/x.

Both inner rules are trapezoidal on uniform grids, so every other node gives
a coarser rule; the difference is added to the error estimate of ℓ_S.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from synthamp.divergence import (
    _LLR_REL_TOL,
    _NODES_PER_SIGMA,
    _TAIL_LOG_DROP,
    _WINDOW_SIGMAS,
    _Grid,
    _grid_nodes,
    _llr_on_grid,
    _llr_sqrt,
    _log_density_log_radius,
    _refined_error,
    _tilt_derivatives,
    _x_minus_expm1,
)

__all__ = ["finite_grid", "llr_finite"]

#: Largest step in w = log(X/n) (and half of it in log ρ). The log-density
#: (n/2)(w − e^w + 1) decays doubly exponentially on the right; in the complex
#: strip |Im w| < π/2 it stays bounded, so the trapezoidal error is about
#: exp(−π²/step): a step of 0.24 keeps it below 1e-17.
_MAX_LOG_STEP = 0.24
#: Largest number of outer nodes.
_MAX_OUTER = 40_001
#: Largest number of matrix entries (outer × inner nodes) formed at once.
_BLOCK = 2_000_000


def _log_density_log_chi2(w: np.ndarray, n: int) -> np.ndarray:
    """log density of log(X/n), X ~ χ²_n, up to a constant: (n/2)(w − (e^w − 1))."""
    return 0.5 * n * _x_minus_expm1(w)


def _log_chi2_spread(n: int) -> float:
    """Standard deviation of log X, X ~ χ²_n: √ψ'(n/2)."""
    return math.sqrt(float(special.polygamma(1, 0.5 * n)))


def _x_window(n: int) -> tuple[float, float]:
    """Window for w = log(X/n), X ~ χ²_n, holding all but ~e^{−60} of the mass.

    The log-density is (n/2)(w − (e^w − 1)), maximal at w = 0; the window ends
    are the two roots of (n/2)(e^w − 1 − w) = 60 (plus a small margin).
    """
    level = 2.0 * (_TAIL_LOG_DROP + 5.0) / n

    def excess(w: float) -> float:
        return math.expm1(w) - w - level

    hi = optimize.brentq(excess, 0.0, math.log1p(level) + 2.0)
    lo = optimize.brentq(excess, -level - 2.0, 0.0)
    return lo, hi


class _YGrid:
    """The engine's grid for Y (nodes in t = r + log r) with ℓ_Y at the nodes."""

    def __init__(self, dim: int, a: float, b: float, tilts):
        self.dim = dim
        self.nu = 0.5 * dim - 1.0
        self.a, self.b = a, b
        t, r, u = _grid_nodes(dim, a, b, tilts)
        self.t, self.r, self.u = t, r, u
        self.h = float(t[1] - t[0])
        self.log_q = _log_density_log_radius(u, dim, b) - np.log1p(r)
        self.llr, self.llr_err, self.rms = _llr_on_grid(r, self.log_q, self.nu, a, b)

    def llr_at(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ℓ_Y at arbitrary r, with the same accuracy policy as on the grid."""
        return _llr_sqrt(r, self.nu, self.a, self.b, tol=_LLR_REL_TOL * self.rms)


def _conditional(log_w: np.ndarray, llr: np.ndarray, llr_err: np.ndarray):
    """log E[e^ℓ] under weights e^{log_w} along the last axis, with error terms.

    Returns (log_norm, ell_s, err) where log_norm = log Σ e^{log_w} (the outer
    density up to a constant), ell_s = log Σ e^{log_w + ℓ} − log_norm computed
    as log1p of the weighted mean of expm1(ℓ) when small, and err estimates
    its error (inner coarse-vs-fine difference plus propagated error of ℓ).
    """
    alive = log_w > -np.inf
    llr = np.where(alive, llr, 0.0)  # nodes without weight contribute nothing (not NaN)
    llr_err = np.where(alive, llr_err, 0.0)
    log_w = np.where(np.isnan(log_w), -np.inf, log_w)
    top = log_w.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # rows without mass: all weights 0
    w = np.exp(log_w - top)
    wsum = np.maximum(w.sum(axis=-1), np.finfo(float).tiny)
    log_norm = top[..., 0] + np.log(wsum)
    em1 = np.expm1(np.minimum(llr, 700.0))
    mean_small = (w * em1).sum(axis=-1) / wsum
    with np.errstate(divide="ignore"):
        lt = log_w + llr
        ltop = lt.max(axis=-1, keepdims=True)
        ltop = np.where(np.isfinite(ltop), ltop, 0.0)
        log_big = ltop[..., 0] + np.log(np.exp(lt - ltop).sum(axis=-1)) - log_norm
    small = np.abs(mean_small) < 0.5
    ell = np.where(small, np.log1p(np.where(small, mean_small, 0.0)), log_big)
    # coarse inner rule: every other node
    wc = w[..., ::2]
    wcsum = np.maximum(wc.sum(axis=-1), np.finfo(float).tiny)
    mean_c = (wc * em1[..., ::2]).sum(axis=-1) / wcsum
    log_big_c = (
        ltop[..., 0]
        + np.log(np.exp(lt[..., ::2] - ltop).sum(axis=-1))
        - (top[..., 0] + np.log(wcsum))
    )
    ell_c = np.where(small, np.log1p(np.where(small, mean_c, 0.0)), log_big_c)
    # propagated error of ℓ_Y: weighted mean of e^ℓ err, relative to e^{ℓ_S}
    prop = (w * np.exp(np.minimum(llr, 700.0)) * llr_err).sum(axis=-1) / wsum
    err = _refined_error(ell, ell_c) + prop * np.exp(-np.minimum(ell, 700.0))
    return log_norm, ell, err


def _inner_over_y(ygrid: _YGrid, log_rho: np.ndarray, n: int):
    """Inner integral over the Y grid (X wide): returns (log q_S, ℓ_S, err) at log ρ."""
    out = [np.empty_like(log_rho) for _ in range(3)]
    rows = max(1, _BLOCK // len(ygrid.u))
    for start in range(0, len(log_rho), rows):
        sl = slice(start, start + rows)
        w = 2.0 * (log_rho[sl, None] - ygrid.u[None, :])  # log(X/n) at y = s/x
        log_w = ygrid.log_q[None, :] + _log_density_log_chi2(w, n)
        res = _conditional(log_w, ygrid.llr[None, :], ygrid.llr_err[None, :])
        for o, v in zip(out, res, strict=True):
            o[sl] = v
    # q_{log S}(v) = ∫ q_T(t) f_{log X}(v − 2u(t)) dt ≈ h Σ_j (…)
    out[0] += math.log(ygrid.h)
    return tuple(out)


def _conditional_log_x_mode(
    ygrid: _YGrid, log_rho: np.ndarray, n: int, tilt: float
) -> tuple[np.ndarray, np.ndarray]:
    """Mode and spread of w = log(X/n) given S = s, under q (tilt 0) or p (tilt 1).

    The conditional log-density of w is log q_U(log ρ − w/2) + (n/2)(w − e^w + 1);
    for large s it moves well away from w = 0 (a large y = s/x is penalised
    by the Gaussian tail of Y, so x grows). Found by safeguarded Newton steps.
    """
    w = np.zeros_like(log_rho)
    h2 = -0.5 * n * np.ones_like(log_rho)
    for _ in range(30):
        g1, g2 = _tilt_derivatives(log_rho - 0.5 * w, ygrid.dim, ygrid.a, ygrid.b, tilt)
        h1 = -0.5 * g1 - 0.5 * n * np.expm1(w)
        h2 = 0.25 * g2 - 0.5 * n * np.exp(w)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(h2 < 0, -h1 / h2, 0.5 * np.sign(h1))
        step = np.clip(np.nan_to_num(step), -1.0, 1.0)
        w = w + step
        if np.all(np.abs(step) < 1e-10):
            break
    # the conditional law is no wider than the law of log X itself (log-concavity)
    sigma = np.minimum(1.0 / np.sqrt(np.maximum(-h2, 1e-300)), _log_chi2_spread(n))
    lo, hi = _x_window(n)
    return np.clip(w, lo - 20.0, hi + 20.0), sigma


def _inner_over_x(ygrid: _YGrid, log_rho: np.ndarray, n: int):
    """Inner integral over log X (X narrow): returns (log q_S, ℓ_S, err) at log ρ.

    Each outer node gets its own uniform window in w = log(X/n), covering the
    conditional laws of w given S = s under q and under p (±13 spreads).
    """
    modes, spreads = zip(
        *(_conditional_log_x_mode(ygrid, log_rho, n, tilt) for tilt in (0.0, 1.0)), strict=True
    )
    lo = np.minimum(*modes) - _WINDOW_SIGMAS * np.maximum(*spreads)
    hi = np.maximum(*modes) + _WINDOW_SIGMAS * np.maximum(*spreads)
    step_max = np.minimum(np.minimum(*spreads) / _NODES_PER_SIGMA, _MAX_LOG_STEP)
    m = min(math.ceil(float(np.max((hi - lo) / step_max))) + 1, 4001)
    m += m % 2 == 0
    frac = np.linspace(0.0, 1.0, m)
    out = [np.empty_like(log_rho) for _ in range(3)]
    rows = max(1, _BLOCK // (64 * m))  # ℓ_Y may use a 16-64 node path integral per entry
    for start in range(0, len(log_rho), rows):
        sl = slice(start, start + rows)
        w = lo[sl, None] + (hi - lo)[sl, None] * frac[None, :]
        u = log_rho[sl, None] - 0.5 * w  # log √y at y = s/x
        log_qy = _log_density_log_radius(u.ravel(), ygrid.dim, ygrid.b).reshape(u.shape)
        llr, err = ygrid.llr_at(np.exp(u).ravel())
        log_w = log_qy + _log_density_log_chi2(w, n)
        res = _conditional(log_w, llr.reshape(u.shape), err.reshape(u.shape))
        for o, v in zip(out, res, strict=True):
            o[sl] = v
    # q_{log S}(v) = ∫ q_{log Y}(v − w) f_{log X}(w) dw, q_{log Y}(ly) = q_U(ly/2)/2
    out[0] += np.log((hi - lo) / (m - 1)) - math.log(2.0)
    return tuple(out)


def _inner(ygrid: _YGrid, log_rho: np.ndarray, n: int):
    """(log q_S, ℓ_S, error) at the outer nodes, integrating over the narrower factor.

    At an outer node ρ the conditional law of Y is concentrated near r ≈ ρ,
    where the Y grid's step in u = log √y is h/(1 + r). Where log X (in the
    same units) is wider than four such steps, the Y grid resolves it and the
    inner integral runs over the Y grid; elsewhere it runs over log X.
    """
    spread_u = 0.5 * _log_chi2_spread(n)
    step_u = ygrid.h / (1.0 + np.exp(log_rho))
    # the Y grid must resolve the kernel of log X
    over_x = spread_u < 4.0 * step_u
    out = [np.empty_like(log_rho) for _ in range(3)]
    for mask, inner in ((over_x, _inner_over_x), (~over_x, _inner_over_y)):
        if np.any(mask):
            for o, v in zip(out, inner(ygrid, log_rho[mask], n), strict=True):
                o[mask] = v
    return tuple(out)


def finite_grid(dim: int, n_syn: int, a: float, b: float, alpha_max: float) -> _Grid:
    """Outer grid for S = Y·X, in τ = ρ + log ρ with ρ = √(s/n_syn).

    The outer window maps the Y grid's ends (which cover the tilted laws of
    Y up to ``alpha_max``, and the tilted laws of S are less tilted) through
    the window of X; its step is the Y grid's, since the laws of S are
    convolutions, hence no narrower in this coordinate.
    """
    ygrid = _YGrid(dim, a, b, [0.0, 1.0, math.sqrt(alpha_max), alpha_max])
    lo, hi = _x_window(n_syn)
    log_rho_lo = float(ygrid.u[0]) + 0.5 * lo
    log_rho_hi = float(ygrid.u[-1]) + 0.5 * hi
    # Two outer grids resolve the laws of S: uniform in τ = ρ + log ρ with the
    # Y grid's step (S is no narrower than Y there), or uniform in log ρ with a
    # quarter of the spread of ½ log X (S is no narrower than X there).
    tau_lo = math.exp(log_rho_lo) + log_rho_lo
    tau_hi = math.exp(log_rho_hi) + log_rho_hi
    step_tau = ygrid.h
    step_log = min(0.5 * _log_chi2_spread(n_syn) / _NODES_PER_SIGMA, _MAX_LOG_STEP / 2)
    # Tilting by a large order can make q_S^{1−α} p_S^α narrower than q_S:
    # measure its width at alpha_max by finite differences and refine the step
    # while it has fewer than _NODES_PER_SIGMA nodes per standard deviation.
    for _ in range(3):
        grid, step = _outer_grid(
            ygrid, n_syn, (tau_lo, tau_hi), step_tau, (log_rho_lo, log_rho_hi), step_log
        )
        g = grid.log_q + alpha_max * grid.llr
        i = int(np.clip(np.argmax(g), 1, len(g) - 2))
        curvature = -(g[i + 1] - 2.0 * g[i] + g[i - 1]) / step**2
        factor = _NODES_PER_SIGMA * step * math.sqrt(max(curvature, 0.0))
        if factor <= 1.0:
            break
        step_tau /= min(factor, 8.0)
        step_log /= min(factor, 8.0)
    return grid


def _outer_grid(ygrid, n_syn, tau_range, step_tau, log_range, step_log):
    """Outer nodes (uniform in τ or in log ρ, whichever needs fewer) and their values."""
    tau_lo, tau_hi = tau_range
    log_rho_lo, log_rho_hi = log_range
    n_tau = (tau_hi - tau_lo) / step_tau
    n_log = (log_rho_hi - log_rho_lo) / step_log
    if n_tau <= n_log:
        n = min(math.ceil(n_tau) + 1, _MAX_OUTER)
        n += n % 2 == 0
        tau = np.linspace(tau_lo, tau_hi, n)
        rho = special.wrightomega(tau)
        log_rho = tau - rho
        log_jacobian = -np.log1p(rho)  # density of τ: q_{log S} · dv/dτ, dv/dτ = 2/(1 + ρ)
    else:
        n = min(math.ceil(n_log) + 1, _MAX_OUTER)
        n += n % 2 == 0
        log_rho = np.linspace(log_rho_lo, log_rho_hi, n)
        rho = np.exp(log_rho)
        tau = log_rho
        log_jacobian = np.zeros_like(log_rho)
    log_qs, ell, err = _inner(ygrid, log_rho, n_syn)
    scale = math.sqrt(ygrid.dim) + ygrid.a + ygrid.b
    return _Grid(tau, rho, log_qs + log_jacobian, ell, err, scale), float(tau[1] - tau[0])


def llr_finite(s: np.ndarray, dim: int, n_syn: int, a: float, b: float) -> np.ndarray:
    """log L_S(s) = log E_q[L_Y(Y) | S = s] at the given values of S."""
    if a == b:
        return np.zeros_like(s)
    ygrid = _YGrid(dim, a, b, [-3.0, 0.0, 1.0, 4.0])
    log_rho = 0.5 * (np.log(s) - math.log(n_syn))
    _, ell, _ = _inner(ygrid, log_rho, n_syn)
    return ell
