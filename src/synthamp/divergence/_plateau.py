"""The plateau D_α(χ²_d(a²) ‖ χ²_d(b²)) and the Fisher information, k = 1.

The unlimited release (docs/theory.md §3): ‖V‖²/σ² ~ χ²_d(a²). Each order
integrates over windows around the bulk of q, of p and of its own tilted
density q^{1−α}p^α (:func:`_plateau_grid`), so orders whose tilted laws lie far
apart (large a, α) do not share one long grid; the sums and the error
estimate are those of :mod:`._kernel`.

:func:`plateau_scaled` and :func:`fisher_scaled` are the kernels behind
:func:`synthamp.divergence.renyi_plateau` and
:func:`synthamp.divergence.fisher_information`: scaled units, no validation,
for library code that has validated its input already.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from synthamp.divergence._kernel import (
    EPS,
    LLR_REL_TOL,
    MAX_NODES,
    NODES_PER_SIGMA,
    TAIL_LOG_DROP,
    WINDOW_SIGMAS,
    Grid,
    g_pair,
    grid_nodes,
    llr_path_integral,
    llr_sqrt,
    path_integral_applies,
    radius_nodes,
    refined_error,
    renyi_on_nodes,
    tilted_modes,
    weighted_mean,
)
from synthamp.divergence._laws import NoncentralChiSquare
from synthamp.divergence._special import log_bessel_i_and_ratio

__all__ = ["fisher_scaled", "plateau_scaled"]


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
) -> tuple[Grid, _OrderNodes | None]:
    """Nodes for the plateau at the orders ``alpha``: windows around the laws q, p
    and the tilted law q^{1−α}p^α of each order, on one uniform lattice in t.

    H_α = ∫ q^{1−α}p^α has its mass in the window of the tilted law; H_α − 1 =
    E_q[φ_α(ℓ)] = H_α·(tilted law) − q − α(p − q) in those of the tilts 0, 1 and
    α. Each window is mode ± ``WINDOW_SIGMAS`` local standard deviations
    (extended ``TAIL_LOG_DROP``/d to the left where it reaches r < 1, where the
    densities decay only like r^d), on the lattice t_k = k·h with h the smallest
    local standard deviation over ``NODES_PER_SIGMA``. Overlapping windows are
    merged; each merged window starts at an even k and has an even number of
    nodes, so that the even-k nodes form the coarser rule of
    :func:`refined_error`. Orders whose windows are far apart (large a, α) thus
    cost a few hundred nodes each instead of a uniform grid across all of them.

    Returns the grid over all windows and, when the orders do not all use every
    window, the nodes of each order (else None).
    """
    if len(alpha) == 1:
        orders, order_of = alpha, np.zeros(1, dtype=np.int64)
    else:
        orders, order_of = np.unique(alpha, return_inverse=True)
    tilts = np.concatenate([[0.0, 1.0], orders])
    modes_u, sigmas_u = tilted_modes(dim, a, b, tilts)
    r_m = np.exp(modes_u)
    modes_t = r_m + modes_u
    sigmas_t = sigmas_u * (1.0 + r_m)
    lo = modes_t - WINDOW_SIGMAS * sigmas_t
    lo = np.where(lo < 1.0, np.minimum(lo, modes_t - TAIL_LOG_DROP / dim), lo)
    hi = modes_t + WINDOW_SIGMAS * sigmas_t
    h = float(sigmas_t.min()) / NODES_PER_SIGMA
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
        if n_total <= MAX_NODES:
            break
        h *= n_total / MAX_NODES * 1.01
    lengths = [e0 - s0 + 1 for s0, e0 in zip(starts, ends, strict=True)]
    offsets = np.array([0, *itertools.accumulate(lengths)])
    if len(starts) == 1:
        k = np.arange(starts[0], ends[0] + 1)
    else:
        k = np.concatenate([np.arange(s0, e0 + 1) for s0, e0 in zip(starts, ends, strict=True)])
    t = k * h
    r, u = radius_nodes(t)
    nu = 0.5 * dim - 1.0
    g_values = g_pair(nu, a, b, r)
    # density of t: q_U(u) du/dt, du/dt = 1/(1 + r)
    log_q = NoncentralChiSquare(dim, b).log_density_log_radius(u, bessel=g_values[1])
    log_q -= np.log1p(r)
    # ℓ by the G-difference; renyi_plateau refines it where its error matters
    llr, llr_err = llr_sqrt(r, nu, a, b, tol=np.inf, g_values=g_values)
    grid = Grid(t, r, log_q, llr, llr_err, math.sqrt(dim) + a + b)
    grid.log_q_err = _log_q_rounding(dim, u, r, g_values[1])
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


def _plateau_values(alpha, dim, a, b, grid, nodes):
    """D_α and error on a plateau grid whose ℓ is still the G-difference.

    Where the G-difference loses more than ``LLR_REL_TOL`` of the r.m.s. size
    of ℓ (:func:`._kernel._refine_llr`), ℓ is refined by the path integral of the score
    — unless ℓ is still accurate relative to itself there (|a − b| not small:
    the loss is in absolute terms where |ℓ| is large) and the propagated effect
    on every D_α, which the error estimate carries, is below 1e-12 relative.
    """
    nu = 0.5 * dim - 1.0
    w = np.exp(grid.log_q - grid.log_q.max())
    rms = math.sqrt(float((grid.llr * grid.llr) @ w / w.sum())) or 1.0
    redo = grid.llr_err > LLR_REL_TOL * rms
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


#: Rounding of log q per node, in units of EPS times the size of its terms: the central
#: part (d/2)(w − expm1 w) of a few operations on terms of size (d/2)(|w| + e^w), and
#: G_ν(b r) ≈ b r, accurate to a few ulps of that size (divergence/_special.py).
LOG_Q_ROUNDING_ULPS = 8.0


def _log_q_rounding(dim: int, u: np.ndarray, r: np.ndarray, g_b: np.ndarray) -> np.ndarray:
    """A bound on the rounding error of log q at the nodes (see renyi_on_nodes)."""
    w = 2.0 * u - math.log(dim)
    with np.errstate(over="ignore"):
        central = 0.5 * dim * (np.abs(w) + np.abs(np.expm1(w)))
    size = central + 2.0 * np.abs(g_b) + np.log1p(r) + 1.0
    return LOG_Q_ROUNDING_ULPS * EPS * size


def _path_integral_at(grid, where, nu, a, b):
    """ℓ and its error with the nodes ``where`` recomputed by the path integral
    (where it applies; elsewhere the grid's G-difference stays)."""
    llr, llr_err = grid.llr.copy(), grid.llr_err.copy()
    where = where & path_integral_applies(grid.r, nu, a, b)
    if where.any():
        llr[where], llr_err[where] = llr_path_integral(grid.r[where], nu, a, b)
    return llr, llr_err


def _renyi_on_order_nodes(
    alpha: np.ndarray, grid: Grid, nodes: _OrderNodes | None, *, llr_share: bool = False
):
    """D_α and its error estimate, each order on its own nodes (:func:`_plateau_grid`)."""
    k_even = grid.k_even
    if nodes is None:
        edge = np.zeros(len(grid.t), dtype=bool)
        edge[grid.windows[:-1]] = True
        edge[grid.windows[1:] - 1] = True
        return renyi_on_nodes(
            alpha,
            grid.llr[None, :],
            grid.log_q[None, :],
            grid.llr_err[None, :],
            k_even[None, :],
            edge[None, :],
            grid.scale,
            llr_share=llr_share,
            log_q_err=grid.log_q_err[None, :],
        )
    index = nodes.index
    return renyi_on_nodes(
        alpha,
        np.where(nodes.valid, grid.llr[index], 0.0),
        np.where(nodes.valid, grid.log_q[index], -np.inf),
        np.where(nodes.valid, grid.llr_err[index], 0.0),
        k_even[index] & nodes.valid,
        nodes.edge,
        grid.scale,
        llr_share=llr_share,
        log_q_err=np.where(nodes.valid, grid.log_q_err[index], 0.0),
    )


def plateau_scaled(
    alpha: np.ndarray, dim: int, a: float, b: float
) -> tuple[np.ndarray, np.ndarray]:
    """D_α(χ²_d(a²) ‖ χ²_d(b²)) ≥ 0 and its error estimate at the orders ``alpha``.

    The kernel of :func:`synthamp.divergence.renyi_plateau`, without validation:
    ``alpha`` a 1-D float array of orders > 1, a = ‖v‖/σ, b = ‖w‖/σ ≥ 0 (scaled
    units). Returns (value, error).
    """
    if a == b:
        return np.zeros_like(alpha), np.zeros_like(alpha)
    grid, nodes = _plateau_grid(dim, a, b, alpha)
    value, error = _plateau_values(alpha, dim, a, b, grid, nodes)
    return np.maximum(value, 0.0), error


def fisher_scaled(dim: int, theta: float) -> tuple[float, float]:
    """Fisher information of χ²_d(θ²) in θ and its error estimate (docs/theory.md §5).

    The kernel of :func:`synthamp.divergence.fisher_information`, without
    validation (θ ≥ 0). The score √x R_ν(θ√x) − θ is evaluated pointwise
    (never E[X R²] − θ², which cancels for large d) and averaged on the
    engine's grid.
    """
    if theta == 0.0:
        return 0.0, 0.0
    nu = 0.5 * dim - 1.0
    _, r, u = grid_nodes(dim, 0.0, theta, [0.0])
    bessel, ratio = log_bessel_i_and_ratio(nu, theta * r)
    log_q = NoncentralChiSquare(dim, theta).log_density_log_radius(u, bessel=bessel)
    log_q -= np.log1p(r)
    score = r * ratio - theta
    value = float(weighted_mean(log_q, score * score))
    coarse = float(weighted_mean(log_q, score * score, stride=2))
    w = np.exp(log_q - log_q.max())
    tail = (w[0] + w[-1]) / w.sum()
    rounding = float(weighted_mean(log_q, 16 * EPS * np.abs(score) * (r + theta)))
    error = (
        float(refined_error(np.array(value), np.array(coarse)))
        + 10 * tail * value
        + 2 * rounding * math.sqrt(value)
        # rounding floor, as for the divergences: terms of size ~√d + θ per node
        + 256 * EPS * (math.sqrt(dim) + theta) * value
    )
    return value, error
