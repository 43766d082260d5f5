"""Finite synthetic release for k = 1: the law of S = Y·X.

With n_syn records, the sufficient statistic ‖ZV‖²/(σ_z²σ²) is S = Y·X with
Y ~ χ²_d(a²) (the model's squared norm) and an independent X ~ χ²_{n_syn}
(docs/theory.md §3). Its likelihood ratio is a conditional expectation,

    L_S(s) = E_q[L_Y(Y) | S = s],

because S is a randomisation of Y whose law does not depend on the
amplitude. On the log scale, log S = log Y + log X is a convolution, so both
q_S and L_S are one-dimensional integrals at each outer node s; the outer
integral is then the same as for the plateau (:func:`renyi_on_grid`).

The inner integral runs over whichever factor is narrower on the log scale:

* X wide (small n_syn): over a grid for Y uniform in t = κr + log r (the
  engine's grid, κ = 1, refined near r = 0 when the kernel of log X needs
  it), with the closed-form density of log X at log s − log y; ℓ_Y is then
  shared by all outer nodes and the sums are matrix products
  (:mod:`._finite_sums`);
* X narrow (large n_syn): over a uniform grid in w = log(X/n) per outer
  node, fitted to the conditional laws of w given S = s under q and p
  (:func:`_conditional_window`; these need not sit near w = 0: for n_syn < d
  a small s is explained by a small X with Y typical).

Both inner rules are trapezoidal on uniform grids, so every other node gives
a coarser rule; the difference, the mass at the window's ends and the
propagated error of ℓ_Y make up the error estimate of ℓ_S.

The outer grid (:func:`finite_grid`) is uniform in τ = cρ + log ρ,
ρ = √(s/n_syn), on a window fitted to q_S, p_S and the most tilted law
q_S^{1−α}p_S^α. For few records and large orders that law lies far in the
joint tail of Y and X (a large S with both factors large), e.g. at
ρ ≈ 1.6·10^4 for d = n_syn = 1, a = 1, b = 0, α = 256. When resolving it
would exceed a work budget, :class:`FiniteGridTooCostly` is raised and the
caller (:func:`finite_scaled`) computes the smaller orders and bounds the
others by the plateau. Separately, a caller's *time* budget
(:mod:`synthamp._budget`, set by the accountant) is checked before each block
of inner integrals; once spent, :class:`synthamp._budget.TimeBudgetExceeded`
propagates to the accountant, which falls back on the plateau (no partial
result of this module is ever used).

:func:`finite_scaled` is the kernel behind
:func:`synthamp.divergence.renyi_finite` (scaled units, no validation), and
:func:`llr_finite` the one behind
:func:`synthamp.divergence.log_likelihood_ratio_finite`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from synthamp._budget import check_budget
from synthamp.divergence._finite_sums import (
    UNRESOLVED_ERROR,
    finite_bias_effect,
    inner_error,
    inner_over_y,
    log_density_rounding,
    noise_effect,
)
from synthamp.divergence._kernel import (
    LLR_REL_TOL,
    NODES_PER_SIGMA,
    TAIL_LOG_DROP,
    Grid,
    grid_nodes,
    llr_on_grid,
    llr_sqrt,
    renyi_on_grid,
    tilt_derivatives,
)
from synthamp.divergence._laws import ChiSquare, NoncentralChiSquare
from synthamp.divergence._memo import memoised
from synthamp.divergence._plateau import plateau_scaled
from synthamp.divergence._special import NU_DEBYE, log_bessel_i_normalized

__all__ = [
    "FINITE_MAX_AMPLITUDE",
    "FiniteGridTooCostly",
    "finite_grid",
    "finite_scaled",
    "llr_finite",
]

#: The documented domain of the finite release in the amplitudes a = ‖v‖/σ, b = ‖w‖/σ
#: (:func:`synthamp.divergence.renyi_finite` refuses larger ones): checked against the
#: mpmath references up to a = 10³ (tests/divergence/test_large_amplitude.py). Beyond it
#: the rounding of ℓ_Y (terms of size a² that cancel) dominates the error estimate:
#: relative 1e-6 to 1 at a = 10⁴–10⁵ (docs/benchmarks/engine_grid.md).
FINITE_MAX_AMPLITUDE = 1e3

#: Largest step in w = log(X/n) (and half of it in log ρ). The log-density
#: (n/2)(w − e^w + 1) decays doubly exponentially on the right; in the complex
#: strip |Im w| < π/2 it stays bounded, so the trapezoidal error is about
#: exp(−π²/step): a step of 0.24 keeps it below 1e-17.
_MAX_LOG_STEP = 0.24
#: Largest number of outer nodes.
_MAX_OUTER = 40_001
#: Largest number of inner nodes per outer node.
_MAX_INNER = 4001
#: Largest refinement of the Y grid for the inner integral over Y.
_MAX_Y_REFINE = 8
#: Largest total work (outer nodes × inner nodes) of one finite-release grid.
_MAX_WORK = 30_000_000
#: Largest number of matrix entries (outer × inner nodes) formed at once.
_BLOCK = 2_000_000


@functools.lru_cache(maxsize=64)
def _x_window(n: int, drop: float = TAIL_LOG_DROP + 5.0) -> tuple[float, float]:
    """Window for w = log(X/n), X ~ χ²_n, holding all but ~e^{−drop} of the mass.

    The log-density is (n/2)(w − (e^w − 1)), maximal at w = 0; the window ends
    are the two roots of (n/2)(e^w − 1 − w) = ``drop``.
    """
    # scipy.optimize is heavy (~0.6 s to import): loaded when a finite release is computed,
    # not at `import synthamp`
    from scipy import optimize

    level = 2.0 * drop / n

    def excess(w: float) -> float:
        return math.expm1(w) - w - level

    hi = optimize.brentq(excess, 0.0, math.log1p(level) + 2.0)
    lo = optimize.brentq(excess, -level - 2.0, 0.0)
    return lo, hi


class _YGrid:
    """A grid for Y, uniform in t = κ·r + log r (r = √y), with ℓ_Y at the nodes.

    With κ = 1 these are the engine's nodes (:func:`grid_nodes`, covering the
    laws of Y tilted by ``tilts``). :meth:`refined` returns the same window in
    t = κr + log r with a smaller step: its step in u = log r, h/(κr + 1), is
    then smaller near r = 0 and no larger for large r.
    """

    def __init__(self, dim: int, a: float, b: float, tilts, kappa: float = 1.0, h=None, u_min=None):
        self.dim = dim
        self.nu = 0.5 * dim - 1.0
        self.a, self.b = a, b
        self.tilts = tuple(tilts)
        self.u_min = u_min
        t, r, u = grid_nodes(dim, a, b, tilts)
        self.base_step = float(t[1] - t[0])
        if u_min is not None and u_min < u[0]:
            # extend the window down to u_min with the same step
            lo = math.exp(u_min) + u_min
            t = np.linspace(lo, t[-1], math.ceil((t[-1] - lo) / self.base_step) + 1)
            r, u = _from_tau(t, 1.0)
        if h is not None:
            lo, hi = kappa * r[0] + u[0], kappa * r[-1] + u[-1]
            t = np.linspace(lo, hi, math.ceil((hi - lo) / h) + 1)
            r, u = _from_tau(t, kappa)  # t = κr + log r
        self.kappa = kappa
        self._refined: dict[float, _YGrid] = {}
        self.t, self.r, self.u = t, r, u
        self.h = float(t[1] - t[0])
        self.law_q = NoncentralChiSquare(dim, b)  # the law of Y under q

    @functools.cached_property
    def log_q(self) -> np.ndarray:
        """log density of t under q at the nodes, up to a constant."""
        return self.law_q.log_density_log_radius(self.u) - np.log1p(self.kappa * self.r)

    @functools.cached_property
    def _llr(self) -> tuple[np.ndarray, np.ndarray, float]:
        return llr_on_grid(self.r, self.log_q, self.nu, self.a, self.b)

    @property
    def llr(self) -> np.ndarray:
        """ℓ_Y at the nodes (computed when first needed)."""
        return self._llr[0]

    @property
    def llr_err(self) -> np.ndarray:
        """Rounding error of ℓ_Y at the nodes."""
        return self._llr[1]

    @property
    def rms(self) -> float:
        """r.m.s. size of ℓ_Y under q."""
        return self._llr[2]

    def step_u(self, r):
        """Step of the grid in u = log r at r."""
        return self.h / (self.kappa * np.asarray(r) + 1.0)

    def refined(self, step_u: float) -> _YGrid:
        """The same window with a step in u of at most ``step_u`` near r = 0 and
        at most the engine's step h/(1 + r) elsewhere (and at most
        ``_MAX_Y_REFINE`` times finer than the engine's grid)."""
        h = max(step_u, self.base_step / _MAX_Y_REFINE)
        if h >= self.base_step:
            return self
        if h not in self._refined:
            kappa = h / self.base_step
            self._refined[h] = _YGrid(
                self.dim, self.a, self.b, self.tilts, kappa=kappa, h=h, u_min=self.u_min
            )
        return self._refined[h]

    def llr_at(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ℓ_Y at arbitrary r, with the same accuracy policy as on the grid."""
        return llr_sqrt(r, self.nu, self.a, self.b, tol=LLR_REL_TOL * self.rms)


def _conditional(log_w: np.ndarray, llr: np.ndarray, llr_err: np.ndarray, noise=0.0):
    """log E[e^ℓ] under weights e^{log_w} along the last axis, with error terms.

    Returns (log_norm, ell_s, err) where log_norm = log Σ e^{log_w} (the outer
    density up to a constant), ell_s = log Σ e^{log_w + ℓ} − log_norm computed
    as log1p of the weighted mean of expm1(ℓ) when small, and err estimates
    its error (inner coarse-vs-fine difference, propagated error of ℓ, and the
    effect of the rounding ``noise`` of the log-weights, :func:`noise_effect`).
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
    with np.errstate(divide="ignore"):
        log_big_c = (
            ltop[..., 0]
            + np.log(np.exp(lt[..., ::2] - ltop).sum(axis=-1))
            - (top[..., 0] + np.log(wcsum))
        )
    ell_c = np.where(small, np.log1p(np.where(small, mean_c, 0.0)), log_big_c)
    # propagated error of ℓ_Y: its mean under the p-weights e^{log_w + ℓ}
    with np.errstate(invalid="ignore"):
        wp = np.exp(lt - ltop)
    wp = np.where(alive, wp, 0.0)
    wpsum = np.maximum(wp.sum(axis=-1), np.finfo(float).tiny)
    prop = (wp * llr_err).sum(axis=-1) / wpsum
    prop = prop + noise_effect(wp / wpsum[..., None], w / wsum[..., None], noise)
    # mass at the two ends of the inner rule, under q and under p: the window
    # must hold both conditional laws; where it does not, ℓ_S is only known
    # to within its own size
    ends = (w[..., 0] + w[..., -1]) / wsum + (wp[..., 0] + wp[..., -1]) / wpsum
    return log_norm, ell, inner_error(ell, ell_c, prop, ends)


def _log_g_for_windows(nu: float, z: np.ndarray) -> np.ndarray:
    """G_ν(z) (:func:`._special.log_bessel_i_normalized`) to ~1e-14 relative, cheaply:
    for ν < NU_DEBYE, log(Γ(ν+1)(2/z)^ν I_ν(z)) from scipy's ``ive`` instead of the
    backward recurrence (~10× slower on the few points of a window search) where
    z²/4 > ν + 1, the series below. Only for locating windows, never in a value."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    if nu >= NU_DEBYE or nu == -0.5:
        return log_bessel_i_normalized(nu, z)
    z = np.asarray(z, dtype=float)
    series = 0.25 * z * z <= nu + 1.0
    if series.all():
        return log_bessel_i_normalized(nu, z)
    out = np.empty(z.shape)
    out[series] = log_bessel_i_normalized(nu, z[series])
    zr = z[~series]
    with np.errstate(all="ignore"):
        big = np.log(special.ive(nu, zr)) + zr + math.lgamma(nu + 1.0) + nu * np.log(2.0 / zr)
    # ive underflows or overflows nowhere on this branch for ν < 30 and z < 1e300; guard anyway
    bad = ~np.isfinite(big)
    if bad.any():
        big[bad] = log_bessel_i_normalized(nu, zr[bad])
    out[~series] = big
    return out


def _conditional_log_density(ygrid: _YGrid, log_rho: np.ndarray, w: np.ndarray, amp: float, n: int):
    """log of q_U(log ρ − w/2) f_W(w) up to a constant: the joint density of (U, W) on
    the line U + W/2 = log ρ, for Y ~ χ²_d(amp²) (``log_rho`` broadcasts against ``w``),
    to ~1e-14 relative in G (:func:`_log_g_for_windows`): for window searches only."""
    u = np.broadcast_to(log_rho, w.shape) - 0.5 * w
    # (m/2)(x − expm1 x) directly (no series for small x): its rounding, ~εm|x|, is far
    # below what a window needs
    x = 2.0 * u - math.log(ygrid.dim)
    with np.errstate(over="ignore", invalid="ignore"):
        out = 0.5 * ygrid.dim * (x - np.expm1(x)) + 0.5 * n * (w - np.expm1(w))
        if amp != 0.0:
            out += _log_g_for_windows(ygrid.nu, amp * np.exp(np.minimum(u, 700.0)))
    return np.where(np.isnan(out), -np.inf, out)


def _conditional_window(ygrid: _YGrid, log_rho: np.ndarray, n: int, tilt: float, w_range):
    """Window in w = log(X/n) holding the conditional law of w given S = s.

    Under q (``tilt`` 0) or p (``tilt`` 1) the conditional log-density of w is
    log q_U(log ρ − w/2) + (n/2)(w − e^w + 1); it need not be log-concave nor
    centred near w = 0 (for n_syn < d a small s is explained by a small X with
    Y typical, far left of w = 0). The global mode is located from 17 probes
    over ``w_range`` (the values of w that keep Y on its grid and X within
    e^{−10^6} of its mode), refined by safeguarded Newton steps inside the
    bracket of the best probe; the window then extends on each side, by steps
    doubling from 12 local spreads (refined by three bisections), until the
    log-density has dropped by ``TAIL_LOG_DROP + 15``. Returns (lo, hi, spread) per outer node.
    """
    amp = ygrid.a if tilt == 1.0 else ygrid.b
    w_lo, w_hi = w_range
    frac = np.linspace(0.0, 1.0, 17)
    probes = w_lo[:, None] + (w_hi - w_lo)[:, None] * frac[None, :]
    dens = _conditional_log_density(ygrid, log_rho[:, None], probes, amp, n)
    best = np.argmax(dens, axis=1)
    rows = np.arange(len(log_rho))
    lo = probes[rows, np.maximum(best - 1, 0)]
    hi = probes[rows, np.minimum(best + 1, len(frac) - 1)]
    w = probes[rows, best]
    h2 = np.full_like(w, -1.0)
    active = np.arange(len(w))
    for _ in range(60):
        wa, la, ha, ra = w[active], lo[active], hi[active], log_rho[active]
        g1, g2 = tilt_derivatives(ra - 0.5 * wa, ygrid.dim, ygrid.a, ygrid.b, tilt, for_modes=True)
        h1 = -0.5 * g1 - 0.5 * n * np.expm1(wa)
        h2a = 0.25 * g2 - 0.5 * n * np.exp(wa)
        la = np.where(h1 > 0, wa, la)
        ha = np.where(h1 <= 0, wa, ha)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = wa - h1 / h2a
            # the mode is needed to a small fraction of the local spread only
            tol = np.where(h2a < 0, 1e-6 / np.sqrt(np.abs(h2a)), 0.0)
        ok = (h2a < 0) & (newton > la) & (newton < ha)
        w_new = np.where(ok, newton, 0.5 * (la + ha))
        done = (np.abs(w_new - wa) <= tol) | (ha - la <= 1e-12 * (1.0 + np.abs(wa)))
        w[active], lo[active], hi[active], h2[active] = w_new, la, ha, h2a
        active = active[~done]
        if active.size == 0:
            break
    spread = np.where(h2 < 0, 1.0 / np.sqrt(np.abs(h2)), hi - lo)
    spread = np.clip(spread, 1e-12, None)
    top = _conditional_log_density(ygrid, log_rho, w, amp, n)
    top = np.maximum(top, dens.max(axis=1))
    # a Gaussian drops by 72 at 12 spreads: start there, double beyond
    steps = spread[:, None] * (12.0 * 2.0 ** np.arange(0, 10))[None, :]
    # both sides at once: rows [left; right]
    sign = np.repeat([-1.0, 1.0], len(w))[:, None]
    limit = np.concatenate([w_lo, w_hi])[:, None]
    w2, rho2, top2 = np.tile(w, 2), np.tile(log_rho, 2), np.tile(top, 2)
    rows2 = np.arange(2 * len(w))
    points = w2[:, None] + sign * np.tile(steps, (2, 1))
    points = np.where(sign * (points - limit) > 0, limit, points)
    dens_out = _conditional_log_density(ygrid, rho2[:, None], points, amp, n)
    below = dens_out < top2[:, None] - (TAIL_LOG_DROP + 15.0)
    first = np.where(below.any(axis=1), np.argmax(below, axis=1), steps.shape[1] - 1)
    outside = points[rows2, first]
    inside = np.where(first > 0, points[rows2, np.maximum(first - 1, 0)], w2)
    # three bisections: the end overshoots the drop by at most 1/8 of the last step
    for _ in range(3):
        mid = 0.5 * (inside + outside)
        low = _conditional_log_density(ygrid, rho2, mid, amp, n) < top2 - (TAIL_LOG_DROP + 15.0)
        outside = np.where(low, mid, outside)
        inside = np.where(low, inside, mid)
    ends = np.where(below.any(axis=1), outside, points[rows2, first])
    return ends[: len(w)], ends[len(w) :], spread


def _w_range(ygrid: _YGrid, log_rho: np.ndarray, n: int):
    """Values of w = log(X/n) that keep √Y = ρ e^{−w/2} on the Y grid and X within
    e^{−10^6} of its mode (where that intersection is empty: the Y-grid range alone)."""
    # an extreme s (far in the tail of S, which the most tilted law can reach)
    # is explained by X far in its own tail: allow X a drop of up to 10^6
    x_lo, x_hi = _x_window(n, drop=1e6)
    w_lo = 2.0 * (log_rho - float(ygrid.u[-1]))
    w_hi = 2.0 * (log_rho - float(ygrid.u[0]))
    lo = np.maximum(w_lo, x_lo)
    hi = np.minimum(w_hi, x_hi)
    empty = hi <= lo
    return np.where(empty, w_lo, lo), np.where(empty, w_hi, hi)


def _inner_over_x(ygrid: _YGrid, log_rho: np.ndarray, n: int, max_inner: int = _MAX_INNER):
    """Inner integral over log X (X narrow): returns (log q_S, ℓ_S, err) at log ρ.

    Each outer node gets its own uniform window in w = log(X/n) covering the
    conditional laws of w given S = s under q and under p
    (:func:`_conditional_window`), with at least ``NODES_PER_SIGMA`` nodes per
    local spread and a step of at most ``_MAX_LOG_STEP``. Rows are processed in
    order of the number of nodes they need, so that a few wide windows do not
    set the size of all.
    """
    w_range = _w_range(ygrid, log_rho, n)
    windows = [_conditional_window(ygrid, log_rho, n, tilt, w_range) for tilt in (0.0, 1.0)]
    lo = np.minimum(windows[0][0], windows[1][0])
    hi = np.maximum(windows[0][1], windows[1][1])
    step = np.minimum(np.minimum(windows[0][2], windows[1][2]) / NODES_PER_SIGMA, _MAX_LOG_STEP)
    need = np.minimum(np.ceil((hi - lo) / step), max_inner - 1).astype(int) + 1
    need += need % 2 == 0
    order = np.argsort(need, kind="stable")
    out = [np.empty_like(log_rho) for _ in range(3)]
    start = 0
    while start < len(order):
        check_budget()  # a caller's time budget (synthamp._budget) may stop the work here
        m = int(need[order[min(len(order) - 1, start)]])
        rows = max(1, _BLOCK // (16 * m))  # ℓ_Y may use a path integral per entry
        block = order[start : start + rows]
        m = int(need[block].max())
        frac = np.linspace(0.0, 1.0, m)
        w = lo[block, None] + (hi - lo)[block, None] * frac[None, :]
        u = log_rho[block, None] - 0.5 * w  # log √y at y = s/x
        log_qy = ygrid.law_q.log_density_log_radius(u.ravel()).reshape(u.shape)
        llr, err = ygrid.llr_at(np.exp(u).ravel())
        log_w = log_qy + ChiSquare(n).log_density_log_ratio(w)
        noise = log_density_rounding(u, log_qy, ygrid.dim, ygrid.b)
        res = _conditional(log_w, llr.reshape(u.shape), err.reshape(u.shape), noise)
        # q_{log S}(v) = ∫ q_{log Y}(v − w) f_{log X}(w) dw, q_{log Y}(ly) = q_U(ly/2)/2
        res[0][...] += np.log((hi - lo)[block] / (m - 1)) - math.log(2.0)
        for o, v in zip(out, res, strict=True):
            o[block] = v
        start += rows
    return tuple(out)


def _inner(ygrid: _YGrid, log_rho: np.ndarray, n: int, max_inner: int = _MAX_INNER):
    """(log q_S, ℓ_S, error) at the outer nodes, integrating over the narrower factor,
    and a bound on a bias of ℓ_S common to all of them (:func:`inner_over_y`).

    The inner integral over the Y grid needs that grid to resolve the kernel
    of log X, f_W(2(log ρ − u)), in u = log √y. Its width there is ½·spread of
    log X (the rule wants four steps per width), and its right edge,
    exp(−(n/2)e^w), is analytic in a strip of half-width π/2 in w, so the
    trapezoidal error is about exp(−π²/step_w): a step of at most
    ``_MAX_LOG_STEP`` in w, ``_MAX_LOG_STEP``/2 in u. The kernel's edge lies
    at √y ≈ ρ, where the Y grid's step in u is h/(1 + ρ). For small n_syn the
    Y grid is refined (up to ``_MAX_Y_REFINE`` times) until this holds at
    every outer node; elsewhere (narrow X) the inner integral runs over log X.
    """
    spread_u = 0.5 * ChiSquare(n).log_sd
    limit_u = min(spread_u / 4.0, 0.5 * _MAX_LOG_STEP)
    rho = np.exp(log_rho)
    fine = ygrid.refined(limit_u) if np.any(ygrid.step_u(rho) > limit_u) else ygrid
    over_x = fine.step_u(rho) > limit_u
    out = [np.empty_like(log_rho) for _ in range(3)]
    if np.any(over_x):
        for o, v in zip(out, _inner_over_x(ygrid, log_rho[over_x], n, max_inner), strict=True):
            o[over_x] = v
    bias = 0.0
    if not np.all(over_x):
        *res, bias = inner_over_y(fine, log_rho[~over_x], n)
        for o, v in zip(out, res, strict=True):
            o[~over_x] = v
        if np.any(over_x):  # the bias is common to the rows over Y only: their own error
            out[2][~over_x] += bias
            bias = 0.0
    return (*out, bias)


class FiniteGridTooCostly(Exception):
    """The outer grid that resolves the tilted law would exceed the work budget."""


def _tau(log_rho, c: float):
    """Outer coordinate τ = c·ρ + log ρ (c ≥ 0)."""
    return c * np.exp(log_rho) + log_rho


def _from_tau(tau: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray]:
    """(ρ, log ρ) from τ = c·ρ + log ρ: cρ = ω(τ + log c), ω the Wright omega."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    if c == 0.0:
        return np.exp(tau), tau
    rho = special.wrightomega(tau + math.log(c)) / c
    return rho, tau - c * rho  # log ρ exactly, even where ρ underflows


def _outer_steps(log_rho: np.ndarray, need: np.ndarray, log_range) -> tuple[float, float]:
    """The coordinate τ = c·ρ + log ρ and step that meet ``need`` with fewest nodes.

    ``need[j]`` is the largest step in log ρ allowed at ``log_rho[j]``; a step
    Δτ is a step Δτ/(cρ + 1) in log ρ. Candidates c = 0 (uniform in log ρ) and
    c from 1e-6 to 1e3; returns (c, Δτ).
    """
    rho = np.exp(log_rho)
    cs = np.concatenate([[0.0], np.geomspace(1e-6, 1e3, 46)])
    steps = np.min((cs[:, None] * rho[None, :] + 1.0) * need[None, :], axis=1)
    lo, hi = log_range
    spans = cs * (math.exp(hi) - math.exp(lo)) + (hi - lo)
    best = int(np.argmin(spans / steps))
    return float(cs[best]), float(steps[best])


def finite_grid(dim: int, n_syn: int, a: float, b: float, alpha_max: float) -> Grid:
    """Outer grid for S = Y·X, uniform in τ = c·ρ + log ρ with ρ = √(s/n_syn).

    **Window.** It starts from the Y grid's ends (which cover the tilted laws
    of Y up to ``alpha_max``) mapped through the window of X, and is then
    fitted, on a scan of 33 nodes plus probes up to e^{±32} beyond each end,
    to the laws q_S, p_S and q_S^{1−α}p_S^α at ``alpha_max``: each is kept
    down to e^{−75} of its largest scanned value. For few records and large
    orders the tilted law lies far beyond the initial window (a large S is
    explained by Y and X both in their tails).

    **Step.** The laws of S are convolutions in log ρ, so no narrower than Y
    (the Y grid's step h in t = r + log r, a step h/(1 + ρ) in log ρ) nor
    than ½ log X (a quarter of its spread, and at most ``_MAX_LOG_STEP``/2);
    either suffices. Tilting can make a law narrower: the widths of q_S, p_S
    and the tilted laws of orders from 1 to ``alpha_max`` (a ladder of ratio
    1.25: an intermediate order's law can be the narrowest where the grid is
    coarse) are measured on the grid and the step refined until each has
    ``NODES_PER_SIGMA`` nodes per standard deviation. The coordinate (c) and
    step meeting these needs with the fewest nodes are chosen by
    :func:`_outer_steps`; a refinement that costs fewer new nodes as an
    integer subdivision of the last grid reuses its values instead.
    """
    tilts = [0.0, 1.0, math.sqrt(alpha_max), alpha_max]
    ygrid = _YGrid(dim, a, b, tilts)
    lo, hi = _x_window(n_syn)
    log_rho_lo = float(ygrid.u[0]) + 0.5 * lo
    log_rho_hi = float(ygrid.u[-1]) + 0.5 * hi
    probes = 0.25 * 2.0 ** np.arange(8)
    probes_left = probes
    if dim <= n_syn:
        # Given a small s, Y has density ∝ q_Y(y)·y^{(n−d)/2}… on [s, O(1)]: for
        # d ≤ n_syn its conditional law reaches down to y ≈ s (log-flat when
        # d = n_syn, where ℓ_S grows like log log(1/s) and the most tilted law
        # can sit at log ρ ≈ −α/d). The Y grid then extends down to the lowest
        # outer node, and the probes further left.
        probes_left = 0.25 * 2.0 ** np.arange(11)
        ygrid = _YGrid(dim, a, b, tilts, u_min=log_rho_lo - float(probes_left[-1]) - 1.0)
    scan = np.concatenate(
        [
            log_rho_lo - probes_left[::-1],
            np.linspace(log_rho_lo, log_rho_hi, 33),
            log_rho_hi + probes,
        ]
    )
    # the scan only locates the laws: a coarse inner rule is enough
    scan_tilts = np.array([0.0, 1.0, alpha_max])

    def tilted(points):
        # log-densities of the three laws; −inf where ℓ_S is unresolved (its
        # value is then meaningless and must not set the window)
        q, e, err, _ = _inner(ygrid, points, n_syn, max_inner=257)
        g = q[None, :] + scan_tilts[:, None] * e[None, :]
        return np.where(err < UNRESOLVED_ERROR, g, -np.inf)

    g = tilted(scan)
    floor = g.max(axis=1) - 75.0

    def kept(points):
        return np.any(tilted(points) >= floor[:, None], axis=0)

    inside = np.flatnonzero(np.any(g >= floor[:, None], axis=0))
    # each end lies between the last kept scan node and the next one (the
    # probes beyond the initial window are up to 16 apart): 32 points in each
    # gap, both gaps in one call; the end is the first point past the last kept
    gaps = [(inside[0], inside[0] - 1), (inside[-1], inside[-1] + 1)]
    fills = [np.linspace(scan[k], scan[o], 33)[1:] if 0 <= o < len(scan) else None for k, o in gaps]
    filled = [f for f in fills if f is not None]
    keep_fill = kept(np.concatenate(filled)) if filled else np.zeros(0, dtype=bool)
    ends, offset = [], 0
    for (k, _), fill in zip(gaps, fills, strict=True):
        if fill is None:
            ends.append(float(scan[k]))
            continue
        hits = np.flatnonzero(keep_fill[offset : offset + len(fill)])
        offset += len(fill)
        last = hits[-1] + 1 if hits.size else 0
        ends.append(float(fill[min(last, len(fill) - 1)]))
    log_range = (ends[0], ends[1])
    # needs: resolve Y or X everywhere (the laxer of the two), then tilted widths
    spread_step = min(0.5 * ChiSquare(n_syn).log_sd / NODES_PER_SIGMA, _MAX_LOG_STEP / 2)
    points = np.linspace(*log_range, 257)
    need = np.maximum(ygrid.h / (1.0 + np.exp(points)), spread_step)
    spread_u = 0.5 * ChiSquare(n_syn).log_sd
    inner_size = max(len(ygrid.refined(min(spread_u / 4.0, 0.5 * _MAX_LOG_STEP)).u), 500)
    # the widths of the tilted laws of every order up to alpha_max, not only of the
    # largest: an intermediate order's law can be narrower where the grid is coarse
    # (c > 0 stretches large ρ); orders 1.25 apart at most
    rungs = max(2, math.ceil(math.log(alpha_max) / math.log(1.25)) + 1)
    ladder = np.geomspace(1.0, alpha_max, rungs)
    checked_tilts = np.concatenate([[0.0], ladder])
    grid, c_grid = None, 0.0
    for _ in range(4):
        c, step = _outer_steps(points, need, log_range)
        tau_lo, tau_hi = _tau(np.array(log_range), c)
        nodes = (tau_hi - tau_lo) / step + 1
        split = _subdivision(grid, c_grid, points, need)
        if split is not None:
            # refining the last grid by an integer factor reuses its nodes: chosen when
            # it costs less than a new grid, and fits the budget
            sub_nodes = (len(grid.t) - 1) * split + 1
            if sub_nodes - len(grid.t) <= nodes and _fits(sub_nodes, inner_size):
                c, nodes = c_grid, sub_nodes
            else:
                split = None
        if not _fits(nodes, inner_size):
            raise FiniteGridTooCostly(f"{nodes:.3g} outer × {inner_size} inner nodes")
        if split is None:
            grid = _outer_grid(ygrid, n_syn, log_range, c, step)
        else:
            grid = _outer_grid(ygrid, n_syn, log_range, c, 0.0, coarser=(grid, split))
        c_grid = c
        stretch = 1.0 + c * grid.r  # dτ/d log ρ
        step = float(grid.t[1] - grid.t[0])
        finer = False
        for tilt in checked_tilts:
            g = grid.log_q + tilt * grid.llr
            i = int(np.clip(np.argmax(g), 1, len(g) - 2))
            curvature = -(g[i + 1] - 2.0 * g[i] + g[i - 1]) / step**2
            if NODES_PER_SIGMA * step * math.sqrt(max(curvature, 0.0)) > 1.0:
                width_log = 1.0 / (math.sqrt(curvature) * stretch[i])
                points = np.append(points, math.log(grid.r[i]) if grid.r[i] > 0 else log_range[0])
                need = np.append(need, width_log / NODES_PER_SIGMA)
                finer = True
        if not finer:
            break
    return grid


def _fits(nodes: float, inner_size: int) -> bool:
    """Whether an outer grid of ``nodes`` nodes is within the work budget."""
    return nodes <= _MAX_OUTER and nodes * inner_size <= _MAX_WORK


def _subdivision(grid: Grid | None, c: float, points: np.ndarray, need: np.ndarray) -> int | None:
    """Smallest integer k such that ``grid`` (uniform in τ = cρ + log ρ) with its step
    divided by k meets ``need`` (largest steps in log ρ at ``points``); None without a grid."""
    if grid is None:
        return None
    allowed = float(np.min((c * np.exp(points) + 1.0) * need))
    step = float(grid.t[1] - grid.t[0])
    return max(2, math.ceil(step / allowed * (1.0 + 1e-12)))


def _outer_grid(ygrid, n_syn, log_range, c, step, coarser=None):
    """Outer nodes uniform in τ = c·ρ + log ρ over ``log_range``, and their values.

    ``coarser`` = (grid, k): the nodes of ``grid`` (same c and range) with its step
    divided by k; the values at its nodes are reused (step is then ignored).
    """
    tau_lo, tau_hi = _tau(np.array(log_range), c)
    if coarser is None:
        n = math.ceil((tau_hi - tau_lo) / step) + 1
        n += n % 2 == 0
        tau = np.linspace(tau_lo, tau_hi, n)
        new = np.ones(n, dtype=bool)
    else:
        old, split = coarser
        tau = np.linspace(old.t[0], old.t[-1], (len(old.t) - 1) * split + 1)
        tau[::split] = old.t
        new = np.ones(len(tau), dtype=bool)
        new[::split] = False
    rho, log_rho = _from_tau(tau, c)
    # density of τ: q_{log ρ} · d log ρ/dτ, d log ρ/dτ = 1/(1 + cρ)
    log_q, ell, err = np.empty((3, len(tau)))
    log_q[new], ell[new], err[new], bias = _inner(ygrid, log_rho[new], n_syn)
    log_q[new] -= np.log1p(c * rho[new])
    if coarser is not None:
        keep = ~new
        log_q[keep], ell[keep], err[keep] = old.log_q, old.llr, old.llr_err
        # the old nodes carry their own common bias c′: c′ = c + (c′ − c), the
        # difference at most the sum of the two bounds
        err[keep] += bias + old.llr_bias
        rho[keep] = old.r
    scale = math.sqrt(ygrid.dim) + ygrid.a + ygrid.b
    return Grid(tau, rho, log_q, ell, err, scale, llr_bias=bias)


def llr_finite(s: np.ndarray, dim: int, n_syn: int, a: float, b: float) -> np.ndarray:
    """log L_S(s) = log E_q[L_Y(Y) | S = s] at the given values of S."""
    if a == b:
        return np.zeros_like(s)
    ygrid = _YGrid(dim, a, b, [-3.0, 0.0, 1.0, 4.0])
    log_rho = 0.5 * (np.log(s) - math.log(n_syn))
    _, ell, _, _ = _inner(ygrid, log_rho, n_syn)
    return ell


@memoised
def finite_scaled(
    alpha: np.ndarray, dim: int, n_syn: int, a: float, b: float
) -> tuple[np.ndarray, np.ndarray]:
    """D_α(Y_a X ‖ Y_b X) and its error bound at the orders ``alpha`` (scaled units).

    Memoised (:mod:`._memo`): a calibration and the release that follows it ask for
    the same call several times.

    The kernel of :func:`synthamp.divergence.renyi_finite`, without validation:
    ``alpha`` a 1-D float array of orders > 1, a = ‖v‖/σ, b = ‖w‖/σ ≥ 0. Returns
    (value, error) with value ± error within [0, plateau + its error]; orders over
    the work budget get the sound interval of :func:`renyi_finite`'s docstring.
    """
    if a == b:
        return np.zeros_like(alpha), np.zeros_like(alpha)
    value, error = _finite_by_budget(alpha, dim, n_syn, a, b)
    # 0 ≤ D_α(ZV‖ZW) ≤ D_α(VᵀV‖WᵀW) (docs/theory.md §3): intersect the computed
    # interval with [0, plateau + its error]. Where the finite-release
    # quadrature is unreliable or over budget (large α with few records,
    # where the tilted law sits far in the tails of both Y and X) this
    # keeps the reported upper end value + error sound.
    plateau_value, plateau_error = plateau_scaled(alpha, dim, a, b)
    ceiling = plateau_value + plateau_error
    known = np.isfinite(value) & np.isfinite(error)
    with np.errstate(invalid="ignore"):  # inf − inf where an order was dropped
        lo = np.where(known, np.maximum(value - error, 0.0), 0.0)
    hi = np.where(known, value + error, np.inf)
    hi = np.minimum(hi, ceiling)
    # D_α is non-decreasing in α: a lower end holds for every larger order
    order = np.argsort(alpha, kind="stable")
    lo[order] = np.maximum.accumulate(lo[order])
    lo = np.minimum(lo, hi)
    return 0.5 * (lo + hi), 0.5 * (hi - lo)


def _finite_by_budget(alpha, dim, n_syn, a, b):
    """Finite-release values and errors for as many orders as the work budget allows.

    The grid is set by the largest order; when resolving it would exceed the
    budget (:class:`FiniteGridTooCostly`), the largest order that fits is found
    by bisection over the orders and serves all orders up to it; larger orders
    get value = error = inf (the caller falls back on the plateau bound).
    """
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
            value[chosen], error[chosen] = renyi_on_grid(alpha[chosen], found)
            error[chosen] += finite_bias_effect(
                alpha[chosen], value[chosen], found.log_q, found.llr, found.llr_bias
            )
    return value, error
