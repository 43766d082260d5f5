"""The inner integral of a finite release over the Y grid, by blocked matrix products.

Part of :mod:`._finite` (docs/theory.md §3–§4): at each outer node ρ = √(s/n_syn),
q_S and ℓ_S = log E_q[L_Y | S = s] are sums over the Y grid with weights
f_{log X}(2(log ρ − u_j))·q_T(t_j). ℓ_Y is shared by all nodes, so the sums
are matrix products, over blocks of nodes × columns small enough to stay in
cache (:func:`_block_sums`), combined in log space (:func:`_log_add`). Far in
the tails (large orders, few records) ℓ_Y spans thousands of nats, and the
q- and p-weights of a row then sit on different columns: each block is scaled
by its own largest weights. A block whose weights all lie e^{−800} below the
row's largest (:func:`_needed_blocks`, a bound from the concavity of the
kernel) would add exactly 0 and is skipped.
"""

from __future__ import annotations

import math

import numpy as np

from synthamp._budget import check_budget
from synthamp.divergence._kernel import EPS, refined_error
from synthamp.divergence._laws import ChiSquare

#: Error assigned to ℓ_S, relative to |ℓ_S| + 1, where the inner rule is unresolved.
UNRESOLVED_ERROR = 1e3
#: Largest number of matrix entries formed at once for the lower bounds of the row maxima.
_PROBE_BLOCK = 2_000_000


def inner_error(ell, ell_c, prop, ends):
    """Error of ℓ_S: inner fine-vs-coarse difference, propagated error of ℓ_Y and
    the mass at the window's ends. Where the window does not hold both
    conditional laws, or the coarse rule misses the p-mass altogether, ℓ_S is
    not known: it gets ``UNRESOLVED_ERROR`` (|ℓ_S| + 1)."""
    with np.errstate(invalid="ignore"):
        err = refined_error(ell, ell_c) + prop + 10.0 * ends
    unresolved = (ends > 1e-6) | ~np.isfinite(err)
    # no bound on ℓ_S is known there (e.g. Y beyond its grid for an extreme s):
    # an error far above any plausible |ℓ_S| makes every order whose tilted law
    # gives such nodes weight fall back on the plateau bound (renyi_finite)
    return np.where(unresolved, UNRESOLVED_ERROR * (np.abs(ell) + 1.0), err)


#: Rows and columns of the blocks of :func:`inner_over_y` (a block of 256 × 256 doubles,
#: 512 KiB, stays in cache through the few passes over it).
_ROW_BLOCK, _COL_BLOCK = 256, 256
#: A block of the inner integral over Y is skipped when its largest possible log-weight
#: lies this far below a row's known largest one: e^{−800} underflows to 0 relative to it
#: (as it would in the full sums), so skipping changes nothing.
_SKIP_DROP = 800.0
#: Largest span of ℓ_Y within a block for the p-weights to be e^{ℓ − max ℓ} times the
#: q-weights (no p-weight that matters then underflows, see :func:`_block_sums`).
_SHARED_SPAN = 500.0


def _log_add(scale, sums, new_scale, new_sums):
    """Σ e^{scale}·sums + e^{new_scale}·new_sums as (scale, sums), row-wise (scales may be −inf)."""
    top = np.maximum(scale, new_scale)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(invalid="ignore"):
        old = np.where(np.isfinite(scale), np.exp(scale - safe), 0.0)
        new = np.where(np.isfinite(new_scale), np.exp(new_scale - safe), 0.0)
    return top, sums * old[:, None] + new_sums * new[:, None]


def _exp_or_zero(x: np.ndarray) -> np.ndarray:
    """e^x, with 0 where x < −708 (below e^{−708} of the row's largest, and subnormal:
    exp is several times slower there than for normal results, and adds nothing)."""
    return np.exp(x, out=np.zeros_like(x), where=x >= -708.0)


def _block_sums(log_w, llr, llr_err, em1):
    """Weighted sums of one block of the inner integral over Y (columns of even offset).

    Returns (q-scale, [Σw, Σw·expm1 ℓ, Σ′w, Σ′w·expm1 ℓ]) and (p-scale,
    [Σw e^ℓ, Σw e^ℓ·err ℓ, Σ′w e^ℓ]) per row, Σ′ over every other column (the
    coarse rule), each sum times e^{scale}. The q-weights are scaled by the
    row's largest in the block. Where ℓ spans at most ``_SHARED_SPAN`` the
    p-weights are these times e^{ℓ − max ℓ}: the block's largest p-weight is
    then at least e^{−500}, so none that matters underflows; elsewhere they
    are scaled by their own row maximum.
    """
    top = log_w.max(axis=1)
    shift = np.where(np.isfinite(top), top, 0.0)
    w = _exp_or_zero(log_w - shift[:, None])
    coarse = w[:, ::2]
    ell_top = float(llr.max())
    if ell_top - float(llr.min()) <= _SHARED_SPAN:
        lexp = np.exp(llr - ell_top)
        cols = np.stack([np.ones_like(llr), em1, lexp, lexp * llr_err], axis=1)
        fine = w @ cols
        rough = coarse @ cols[::2]
        q_sums = np.column_stack([fine[:, 0], fine[:, 1], rough[:, 0], rough[:, 1]])
        p_sums = np.column_stack([fine[:, 2], fine[:, 3], rough[:, 2]])
        return (top, q_sums), (top + ell_top, p_sums)
    cols = np.stack([np.ones_like(llr), em1], axis=1)
    q_sums = np.column_stack([w @ cols, coarse @ cols[::2]])
    log_p = log_w + llr
    p_top = log_p.max(axis=1)
    p_shift = np.where(np.isfinite(p_top), p_top, 0.0)
    wp = _exp_or_zero(log_p - p_shift[:, None])
    p_fine = wp @ np.stack([np.ones_like(llr), llr_err], axis=1)
    p_sums = np.column_stack([p_fine, wp[:, ::2].sum(axis=1)])
    return (top, q_sums), (p_top, p_sums)


def _needed_blocks(ygrid, log_rho, col_starts, n: int, lower_q, lower_p):
    """Which column blocks of the inner integral over Y can hold, for each outer node, a
    weight within e^{−_SKIP_DROP} of the node's largest (``lower_q``, ``lower_p``: lower
    bounds of each node's largest q- and p-log-weight); a boolean (node, block) matrix.

    The log-weight is K(w) + log q_j with K(w) = (n/2)(w − e^w + 1) ≤ 0 concave,
    largest at w = 0, and w = 2(log ρ − u_j): over a block, w lies in an interval
    and K is at most its value at the point of that interval nearest 0.
    """
    u = ygrid.u
    col_ends = np.append(col_starts[1:], len(u))
    max_q = np.maximum.reduceat(ygrid.log_q, col_starts)
    max_p = np.maximum.reduceat(ygrid.log_q + ygrid.llr, col_starts)
    w_lo = 2.0 * (log_rho[:, None] - u[col_ends - 1][None, :])
    w_hi = 2.0 * (log_rho[:, None] - u[col_starts][None, :])
    k_max = ChiSquare(n).log_density_log_ratio(np.clip(0.0, w_lo, w_hi))
    # NaN anywhere (no bound known): the block is computed
    with np.errstate(invalid="ignore"):
        skip_q = k_max + max_q[None, :] < (lower_q - _SKIP_DROP)[:, None]
        skip_p = k_max + max_p[None, :] < (lower_p - _SKIP_DROP)[:, None]
    return ~(skip_q & skip_p)


def inner_over_y(ygrid, log_rho: np.ndarray, n: int):
    """Inner integral over the Y grid (X wide): returns (log q_S, ℓ_S, err) at log ρ,
    and a bound on a bias of ℓ_S common to these nodes (:func:`_noise_over_y`).

    With ℓ_Y shared by all outer nodes, the sums are matrix products over
    blocks of nodes and columns (:func:`_block_sums`), combined in log space.
    A column block is skipped for the outer nodes where none of its weights can
    come within e^{−800} of the node's largest (:func:`_needed_blocks`; the
    largest are bounded below by their values on every 16th column): there its
    terms would underflow to 0.
    """
    u, log_q, llr, llr_err = ygrid.u, ygrid.log_q, ygrid.llr, ygrid.llr_err
    chi = ChiSquare(n)
    em1 = np.expm1(np.minimum(llr, 700.0))
    count = len(log_rho)

    def log_weights(rows, cols):
        w = 2.0 * (log_rho[rows, None] - u[None, cols])
        return chi.log_density_log_ratio(w) + log_q[None, cols]

    # lower bounds of each node's largest q- and p-log-weight: their values on every 16th column
    probe = slice(None, None, 16)
    lower_q, lower_p = np.empty(count), np.empty(count)
    rows_per = max(1, _PROBE_BLOCK // len(u[probe]))
    for start in range(0, count, rows_per):
        rows = slice(start, start + rows_per)
        lw = log_weights(rows, probe)
        lower_q[rows] = lw.max(axis=1)
        lower_p[rows] = (lw + llr[probe]).max(axis=1)
    col_starts = np.arange(0, len(u), _COL_BLOCK)  # even offsets: the coarse rule is ::2
    needed = _needed_blocks(ygrid, log_rho, col_starts, n, lower_q, lower_p)
    q_scale, p_scale = np.full(count, -np.inf), np.full(count, -np.inf)
    q_sums, p_sums = np.zeros((count, 4)), np.zeros((count, 3))
    for bj, c0 in enumerate(col_starts):
        check_budget()  # a caller's time budget (synthamp._budget) may stop the work here
        cols = slice(c0, c0 + _COL_BLOCK)
        nodes = np.flatnonzero(needed[:, bj])
        for r0 in range(0, len(nodes), _ROW_BLOCK):
            rows = nodes[r0 : r0 + _ROW_BLOCK]
            (qs, qv), (ps, pv) = _block_sums(
                log_weights(rows, cols), llr[cols], llr_err[cols], em1[cols]
            )
            q_scale[rows], q_sums[rows] = _log_add(q_scale[rows], q_sums[rows], qs, qv)
            p_scale[rows], p_sums[rows] = _log_add(p_scale[rows], p_sums[rows], ps, pv)
    log_norm, ell, ell_c, prop, log_q_sum, log_p_sum = _combine_sums(
        q_scale, q_sums, p_scale, p_sums
    )
    # mass at the two ends of the Y grid, under q and under p
    edges = [0, len(u) - 1]
    lw_edges = log_weights(slice(None), edges)
    with np.errstate(invalid="ignore", over="ignore"):
        ends = np.exp(lw_edges - log_q_sum[:, None]).sum(axis=1) + np.exp(
            lw_edges + llr[edges] - log_p_sum[:, None]
        ).sum(axis=1)
    ends = np.where(np.isnan(ends), 0.0, ends)
    noise, bias = _noise_over_y(
        ygrid, inner_error(ell, ell_c, prop, ends), needed, col_starts, log_weights,
        log_q_sum, log_p_sum,
    )  # fmt: skip
    err = inner_error(ell, ell_c, prop + noise, ends)
    # q_{log S}(v) = ∫ q_T(t) f_{log X}(v − 2u(t)) dt ≈ h Σ_j (…)
    return log_norm + math.log(ygrid.h), ell, err, bias


def _combine_sums(q_scale, q_sums, p_scale, p_sums):
    """(log Σw, ℓ_S, ℓ_S of the coarse rule, propagated error, log Σw, log Σw e^ℓ) from
    the sums of :func:`_block_sums` (a row without mass: Σw = tiny, ℓ_S = 0)."""
    tiny = np.finfo(float).tiny
    q_shift = np.where(np.isfinite(q_scale), q_scale, 0.0)
    p_shift = np.where(np.isfinite(p_scale), p_scale, 0.0)
    wsum = np.maximum(q_sums[:, 0], tiny)
    wsum_c = np.maximum(q_sums[:, 2], tiny)
    psum = np.maximum(p_sums[:, 0], tiny)
    log_norm = q_shift + np.log(wsum)

    def ell_of(mean_small, log_big):
        small = np.abs(mean_small) < 0.5
        return np.where(small, np.log1p(np.where(small, mean_small, 0.0)), log_big)

    with np.errstate(divide="ignore", invalid="ignore"):
        ell = ell_of(q_sums[:, 1] / wsum, p_shift + np.log(psum) - log_norm)
        ell_c = ell_of(
            q_sums[:, 3] / wsum_c,
            p_shift + np.log(p_sums[:, 2]) - (q_shift + np.log(wsum_c)),
        )
        # the true log-sums (−inf without mass), for the mass at the ends
        log_q_sum = q_scale + np.log(q_sums[:, 0])
        log_p_sum = p_scale + np.log(p_sums[:, 0])
    return log_norm, ell, ell_c, p_sums[:, 1] / psum, log_q_sum, log_p_sum


# --------------------------------------------------------------------------- rounding noise


def log_density_rounding(u, log_q, dim: int, amp: float, axis: int = -1) -> np.ndarray:
    """Bound on the rounding error of log q_U(u), u = log √y, as computed, node by node.

    :meth:`NoncentralChiSquare.log_density_log_radius` ``log_q`` is the sum of
    a central part (rounded to an ulp of its size, at most |log q| + G) and
    G = G_ν(amp·r) ≤ min(amp·r, (amp·r)²/(2d)) (relative accuracy 2e-15,
    :mod:`._special`); u itself may be off by an ulp, which moves log q by its
    slope (measured along ``axis``) times eps·|u|. Node to node this is noise,
    not a smooth error, so it need not cancel in ℓ_S: at a = 1000 it is ~1e-10
    (terms of size a·r), and it made the engine's value miss its estimate by up
    to 4.3× at a − b = 10 (tests/divergence/test_large_amplitude.py).
    """
    z = amp * np.exp(np.minimum(u, 350.0))
    g = np.minimum(z, z * z / (2.0 * dim))
    if np.shape(u)[axis] > 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = np.abs(np.gradient(log_q, axis=axis) / np.gradient(u, axis=axis))
        slope = np.where(np.isfinite(slope), slope, 0.0)
    else:
        slope = 0.0
    return 2.0 * EPS * (np.abs(log_q) + 2.0 * g + np.abs(u) * slope) + 2e-15 * g


def noise_effect(p_weights, q_weights, noise) -> np.ndarray:
    """Bound on the change of ℓ_S by errors δ_j of the log-weights, |δ_j| ≤ ``noise``.

    ℓ_S = log Σ_j e^{λ_j + ℓ_j} − log Σ_j e^{λ_j}: an error δ_j of λ_j moves it by
    Σ_j δ_j (P_j − Q_j) to first order, P and Q the conditional laws of the nodes
    given S = s under p and q (``p_weights``, ``q_weights``: normalised along the
    last axis). So at most Σ_j noise_j·|P_j − Q_j|: small when p and q are close
    given s, at most 2·max noise.
    """
    return (np.abs(p_weights - q_weights) * noise).sum(axis=-1)


def _noise_over_y(ygrid, err, needed, col_starts, log_weights, log_q_sum, log_p_sum):
    """:func:`noise_effect` of the rounding δ of log q_Y for :func:`inner_over_y`.

    Returns (per-row bound, bias). The δ_j are the same numbers at every outer
    node (one Y grid), so with any fixed vector R over the nodes,
    Σ_j δ_j (P_j − Q_j) = c + Σ_j δ_j (P_j − Q_j − R_j), where c = Σ_j δ_j R_j is
    one constant for every row of this call: ``bias`` ≥ |c| is returned once
    (D_α depends little on a constant shift of ℓ, :func:`finite_bias_effect`) and
    each row gets Σ_j noise_j |P_j − Q_j − R_j|. R is P − Q at a reference row
    (the middle one); with few records the conditional laws vary little with s,
    and this is far smaller than Σ noise |P − Q|. Rows where the crude bound
    2·max noise (which holds the whole effect) is below 1% of their other error
    terms ``err`` take it instead; the others form their weights again (a second
    pass over the needed blocks), normalised by their sums from the first.
    """
    noise = log_density_rounding(
        ygrid.u, ygrid.log_q + np.log1p(ygrid.kappa * ygrid.r), ygrid.dim, ygrid.b
    )
    crude = np.full(len(err), 2.0 * float(noise.max()))
    cheap = crude <= 0.01 * err
    exact_rows = np.flatnonzero(~cheap)
    if exact_rows.size == 0:
        return crude, 0.0
    all_cols = np.arange(len(ygrid.u))

    def p_minus_q(rows, cols):
        log_w = log_weights(rows, cols)
        q = np.exp(log_w - log_q_sum[rows, None])
        p = np.exp(log_w + ygrid.llr[cols] - log_p_sum[rows, None])
        return np.nan_to_num(p) - np.nan_to_num(q)

    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        ref = exact_rows[len(exact_rows) // 2 : len(exact_rows) // 2 + 1]
        reference = p_minus_q(ref, all_cols)[0]
        bias = float(np.sum(np.abs(reference) * noise))
        # each row: Σ noise |P − Q − R| = bias + Σ over its needed columns of
        # noise (|P − Q − R| − |R|) (P = Q = 0 to double precision elsewhere)
        effect = np.full(len(err), bias)
        for bj, c0 in enumerate(col_starts):
            check_budget()  # a caller's time budget (synthamp._budget) may stop the work here
            cols = slice(c0, c0 + _COL_BLOCK)
            nodes = exact_rows[needed[exact_rows, bj]]
            for r0 in range(0, len(nodes), _ROW_BLOCK):
                rows = nodes[r0 : r0 + _ROW_BLOCK]
                diff = p_minus_q(rows, all_cols[cols])
                ref_cols = reference[cols]
                effect[rows] += ((np.abs(diff - ref_cols) - np.abs(ref_cols)) * noise[cols]).sum(
                    axis=1
                )
    effect = np.maximum(effect, 0.0)
    return np.where(cheap, crude, effect), bias


def finite_bias_effect(alpha, value, log_q, llr, bias: float):
    """Bound on the change of D_α by a shift c (|c| ≤ ``bias``) of ℓ at every outer node.

    With the small form h − 1 = E_q[φ(ℓ)], φ(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1), H moves
    by c·α(E_q[L^α] − E_q[L]), so D_α by c·α(1 − e^{−(α−1)D} + |E_q[L] − 1|)/(α − 1)
    (E_q[L] = 1 up to the rule's error, measured on the grid); the log form moves
    by at most αc/(α − 1), which this also bounds when D is large. Relative to D,
    about α·c when D is small.
    """
    if bias == 0.0:
        return 0.0
    w = np.exp(log_q - log_q.max())
    with np.errstate(over="ignore"):
        mean_ratio = np.sum(w * np.exp(np.minimum(llr, 700.0))) / np.sum(w)
    defect = abs(mean_ratio - 1.0)
    return bias * alpha * (-np.expm1(-(alpha - 1.0) * value) + defect) / (alpha - 1.0)
