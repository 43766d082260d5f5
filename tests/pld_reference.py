"""Reference for composed releases: the worst pair's two directions composed apart.

Independent of synthamp (nothing here imports it): the pair (P_a, P_b) =
(χ²_d(a²), χ²_d(b²)) of the sufficient statistic x = ‖V‖²/σ² (docs/theory.md §3)
is cut into bins at the thresholds where L = log p_a/p_b crosses the levels
j·h (L increasing in x: MLR), each bin's mass comes from scipy's ncx2 cdf/sf
and its privacy loss is rounded *up* to the top of the bin (a pessimistic PLD:
the loss is stochastically larger, so δ(ε) = E[(1 − e^{ε − ΣL})_+] of every
composition is larger) or *down* to its bottom (optimistic). dp_accounting
composes each direction (``pmf_remove``: P_a against P_b, ``pmf_add``: the
reverse) apart and takes the larger ε: the two results bracket the exact
T-fold ε of the pair, within about 2·T·h.
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as dpl
from scipy import stats


def _edges(dim: int, a: float, b: float, h: float, tail: float = 1e-20):
    p, q = stats.ncx2(dim, a * a), stats.ncx2(dim, b * b)
    lo = min(p.ppf(tail), q.ppf(tail))
    hi = max(p.isf(tail), q.isf(tail))
    x = np.geomspace(max(lo, 1e-300), hi, 20001)
    loss = p.logpdf(x) - q.logpdf(x)
    levels = np.arange(math.ceil(loss[0] / h), math.floor(loss[-1] / h) + 1) * h
    return p, q, np.unique(np.concatenate([x[[0, -1]], np.interp(levels, loss, x)]))


def _masses(law, edges):
    """Masses of [0, x_0), the bins [x_i, x_{i+1}) and [x_last, ∞), each from its smaller tail."""
    cdf, sf = law.cdf(edges), law.sf(edges)
    inner = np.where(edges[1:] <= law.median(), cdf[1:] - cdf[:-1], sf[:-1] - sf[1:])
    return cdf[0], inner, sf[-1]


def _pmf(masses, losses, infinity_mass: float, h: float, pessimistic: bool):
    index = np.ceil(losses / h - 1e-9) if pessimistic else np.floor(losses / h + 1e-9)
    probs: dict[int, float] = {}
    for i, m in zip(index.astype(int), masses, strict=True):
        if m > 0:
            probs[int(i)] = probs.get(int(i), 0.0) + float(m)
    return pld_pmf.create_pmf(probs, h, infinity_mass, pessimistic)


def pair_plds(dim: int, a: float, b: float, h: float, releases: int = 1):
    """(upper, lower) dp_accounting PLDs of the pair (P_a, P_b), a > b, composed ``releases`` times.

    remove: the loss L under P_a (increasing in x); add: −L under P_b.
    """
    p, q, x = _edges(dim, a, b, h)
    loss = p.logpdf(x) - q.logpdf(x)
    at_zero = -(a * a - b * b) / 2  # L at x = 0 (its infimum)
    p0, pm, pinf = _masses(p, x)
    q0, qm, qinf = _masses(q, x)
    remove_up = _pmf(np.r_[p0, pm], np.r_[loss[0], loss[1:]], pinf, h, True)
    remove_lo = _pmf(np.r_[p0, pm, pinf], np.r_[at_zero, loss[:-1], loss[-1]], 0.0, h, False)
    add_up = _pmf(np.r_[q0, qm, qinf], np.r_[-at_zero, -loss[:-1], -loss[-1]], 0.0, h, True)
    add_lo = _pmf(np.r_[q0, qm], np.r_[-loss[0], -loss[1:]], 0.0, h, False)  # top bin dropped
    upper = dpl.PrivacyLossDistribution(remove_up, add_up)
    lower = dpl.PrivacyLossDistribution(remove_lo, add_lo)
    if releases > 1:
        upper, lower = upper.self_compose(releases), lower.self_compose(releases)
    return upper, lower


def edge_pair(norm_bound: float, sensitivity: float, sigma: float) -> tuple[float, float]:
    """The forward endpoint (c, max(c − s, 0)) of the adjacent set (docs/theory.md §12)."""
    c = norm_bound / sigma
    return c, max(c - sensitivity / sigma, 0.0)
