"""₀F₁(b; X) of a 3 × 3 argument X, by the Koev–Edelman series (the likelihood ratio of k = 3).

₀F₁(b; X) = Σ_κ C_κ(X) / ([b]_κ |κ|!) over partitions κ with at most three parts
(Koev & Edelman 2006, eq. (2.2); Muirhead 1982, Def. 7.3.1), C_κ the zonal
polynomials (Jack parameter α = 2, normalised so that Σ_{|κ|=k} C_κ = (tr X)^k) and
[b]_κ = Π_i (b − (i−1)/2)_{κ_i}. In terms of the monic Jack polynomials P_κ,
C_κ = α^k k! P_κ / c′_κ with c′_κ = Π_{s∈κ} (α(a(s)+1) + l(s)) (a, l: arm and leg),
so ₀F₁ = Σ_κ w_κ P_κ(x) with w_κ = α^{|κ|} / (c′_κ [b]_κ).

The Jack polynomials are built by Stanley's branching rule (Macdonald 1995,
VI (7.9′), the Jack limit): P_κ(x₁, x₂, x₃) = Σ_λ ψ_{κ/λ} P_λ(x₁, x₂) x₃^{|κ/λ|} over
two-part λ with κ/λ a horizontal strip, ψ_{κ/λ} = Π_{s ∈ R∖C} b_λ(s)/b_κ(s),
b_κ(s) = (α a + l + 1)/(α a + l + α) (R, C: the rows and columns that meet κ/λ).
All coefficients are positive and X ⪰ 0, so the sum has no cancellation. It is
evaluated as Σ_λ P_λ(x₁, x₂) H_λ(x₃), H_λ(x₃) = Σ_r h_{λ,r} x₃^r with
h_{λ,r} = Σ_κ w_κ ψ_{κ/λ}: one matrix product per batch of arguments.

Truncation at |κ| ≤ N with a proven tail bound: since C_κ(X) ≥ 0,
Σ_{|κ|=k} C_κ/[b]_κ ≤ (tr X)^k / m_k with m_k = min_{κ⊢k} [b]_κ, so
tail ≤ Σ_{k>N} u_k, u_k = (tr X)^k / (k! ℓ_k), for any ℓ_k ≤ m_k. Here ℓ_k is the
minimum of [b]_κ over all (κ₁, κ₂, κ₃) ≥ 0 of size k (the order κ₁ ≥ κ₂ ≥ κ₃
dropped: a larger set, so ℓ_k ≤ m_k); log [b]_κ is a separable convex sum, so ℓ_k
is found by adding boxes greedily, each multiplying it by at least b − 1. Hence
u_{k+1}/u_k ≤ tr X/((k+1)(b − 1)), and tail ≤ Σ_{k=N+1}^{K} u_k + u_{K+1}/(1 − ρ_K),
ρ_K = tr X/((K+2)(b−1)) ≤ 1/2 for K = max(N+1, ⌈2 T/(b−1)⌉), T = :data:`MAX_TRACE_3X3`.
The bound is tabulated on a geometric grid of tr X and read at the grid point above
(it increases with tr X). N is the smallest of :data:`_ORDERS` whose bound is below
1e-16 (relative to ₀F₁ ≥ 1) on the whole batch, else the largest, with the bound
returned as the error. Domain: b > 1 (d ≥ 3 for b = d/2), tr X ≤ :data:`MAX_TRACE_3X3`;
the bound is below 1e-16 at N = 40 for tr X ≤ 37, 42, 64, 132, 362 at b = 1.5, 2, 5,
15, 50 and below 1e-6 for tr X ≤ 67, 73, 111, 228, 600: beyond, the error it reports
grows fast (the rank-one worst case of the bound is pessimistic: on rank-one X the
series converges much faster), and callers must check it.

Accuracy (tests/divergence/test_wishart3.py): against an mpmath sum of the same
series written from the definitions (40 digits, stored reference), against
mpmath's scalar ₀F₁ on rank-one arguments and against the k = 2 integral
(:func:`synthamp.divergence._hyp0f1_2x2.log_hyp0f1_2x2`) on rank-two arguments.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["MAX_TRACE_3X3", "log_hyp0f1_3x3"]

_JACK = 2.0
#: Truncation orders tried, smallest first.
_ORDERS = (24, 32, 40)
#: Largest tr X accepted (the tail bound needs ρ < 1 and no overflow of x^N).
MAX_TRACE_3X3 = 600.0
_TAIL_TARGET = 1e-16
_EPS = np.finfo(float).eps


def _partitions(max_size: int, parts: int):
    """Partitions with at most ``parts`` parts and size ≤ max_size (as tuples of length parts)."""
    out = []

    def rec(prefix, remaining, bound):
        if len(prefix) == parts:
            out.append(tuple(prefix))
            return
        for p in range(min(bound, remaining), -1, -1):
            rec([*prefix, p], remaining - p, p)

    rec([], max_size, max_size)
    return out


def _conj(kappa) -> list[int]:
    return [sum(1 for part in kappa if part > j) for j in range(kappa[0])] if kappa[0] else []


def _b(kappa, conj, i: int, j: int) -> float:
    arm = kappa[i] - j - 1
    leg = conj[j] - i - 1
    return (_JACK * arm + leg + 1.0) / (_JACK * arm + leg + _JACK)


def _psi(kappa, lam) -> float:
    """ψ_{κ/λ} (κ/λ a horizontal strip; λ padded with zeros to the length of κ)."""
    ck, cl = _conj(kappa), _conj(lam)
    rows = [i for i in range(len(kappa)) if kappa[i] > lam[i]]
    out = 1.0
    for i in rows:
        for j in range(lam[i]):
            if ck[j] == cl[j]:  # column j does not meet the strip
                out *= _b(lam, cl, i, j) / _b(kappa, ck, i, j)
    return out


def _log_upper_hooks(kappa) -> float:
    conj = _conj(kappa)
    return sum(
        math.log(_JACK * (kappa[i] - j) + conj[j] - i - 1)
        for i in range(len(kappa))
        for j in range(kappa[i])
    )


def _log_poch(b: float, kappa) -> float:
    from scipy import special  # heavy: scipy.special, on use only

    return sum(
        float(special.gammaln(b - i / _JACK + k) - special.gammaln(b - i / _JACK))
        for i, k in enumerate(kappa)
    )


@lru_cache(maxsize=8)
def _structure(order: int):
    """b-independent tables: two-part λ, the one-row expansions, the branching coefficients."""
    lams = _partitions(order, 2)
    index = {lam: n for n, lam in enumerate(lams)}
    kappas = _partitions(order, 3)
    # P_(m)(x1, x2) = Σ_j ψ_{(m)/(j)} x1^j x2^{m−j}
    one_row = np.zeros((order + 1, order + 1))
    for m in range(order + 1):
        for j in range(m + 1):
            one_row[m, j] = _psi((m, 0), (j, 0))
    # branching: entries (λ index, r, κ index, ψ)
    rows, powers, cols, vals = [], [], [], []
    for c, kappa in enumerate(kappas):
        k1, k2, k3 = kappa
        for l1 in range(k2, k1 + 1):
            for l2 in range(k3, k2 + 1):
                lam = (l1, l2)
                rows.append(index[lam])
                powers.append(sum(kappa) - l1 - l2)
                cols.append(c)
                vals.append(_psi(kappa, (l1, l2, 0)))
    log_hooks = np.array([_log_upper_hooks(k) for k in kappas])
    return (
        lams,
        kappas,
        one_row,
        np.array(rows),
        np.array(powers),
        np.array(cols),
        np.array(vals),
        log_hooks,
    )


@lru_cache(maxsize=32)
def _coefficients(b: float, order: int) -> np.ndarray:
    """h_{λ,r} as a matrix (order+1, #λ)."""
    lams, kappas, _one_row, rows, powers, cols, vals, log_hooks = _structure(order)
    sizes = np.array([sum(k) for k in kappas])
    log_w = sizes * math.log(_JACK) - log_hooks - np.array([_log_poch(b, k) for k in kappas])
    h = np.zeros((order + 1, len(lams)))
    np.add.at(h, (powers, rows), vals * np.exp(log_w[cols]))
    return h


#: Grid of tr X on which the tail bound is tabulated (geometric, up to MAX_TRACE_3X3).
_TRACE_GRID = np.geomspace(1e-6, MAX_TRACE_3X3, 481)


@lru_cache(maxsize=32)
def _tail_table(b: float, order: int) -> np.ndarray:
    """log of the proven tail bound beyond |κ| = order at each point of _TRACE_GRID."""
    from scipy import special  # heavy: scipy.special, on use only

    last = max(order + 1, math.ceil(2.0 * MAX_TRACE_3X3 / (b - 1.0)))
    # ℓ_k: greedy minimum of Π_i (b − i/2)_{κ_i} over κ ≥ 0 (unordered) of size k
    parts = [0, 0, 0]
    log_l = np.empty(last + 2)
    log_l[0] = 0.0
    for k in range(1, last + 2):
        inc = [math.log(b - i / _JACK + parts[i]) for i in range(3)]
        i = int(np.argmin(inc))
        parts[i] += 1
        log_l[k] = log_l[k - 1] + inc[i]
    ks = np.arange(order + 1, last + 2)
    log_t = np.log(_TRACE_GRID)[:, None]
    log_u = ks * log_t - special.gammaln(ks + 1.0) - log_l[ks]  # (grid, k)
    rho = _TRACE_GRID / ((last + 2) * (b - 1.0))  # ≤ 1/2 on the grid
    head = special.logsumexp(log_u[:, :-1], axis=1)
    rest = log_u[:, -1] - np.log1p(-rho)
    return np.logaddexp(head, rest)


def _log_tail_bound(trace: np.ndarray, b: float, order: int) -> np.ndarray:
    """log of the proven bound on the series beyond |κ| = order (read at the grid
    point at or above tr X: the bound increases with tr X)."""
    table = _tail_table(b, order)
    idx = np.searchsorted(_TRACE_GRID, np.asarray(trace, dtype=float), side="left")
    return np.where(idx < len(table), table[np.minimum(idx, len(table) - 1)], np.inf)


def _series(x: np.ndarray, b: float, order: int) -> np.ndarray:
    """Σ_{|κ|≤order} w_κ P_κ(x) for rows x = (x1, x2, x3)."""
    lams, _, one_row, *_ = _structure(order)
    h = _coefficients(b, order)
    n = len(x)
    powers = np.arange(order + 1)
    p1 = x[:, 0:1] ** powers  # (n, N+1)
    p2 = x[:, 1:2] ** powers
    p3 = x[:, 2:3] ** powers
    # one-row P_(m)(x1, x2) = Σ_j c_{mj} x1^j x2^{m−j}
    row = np.empty((n, order + 1))
    for m in range(order + 1):
        row[:, m] = (p1[:, : m + 1] * p2[:, m::-1]) @ one_row[m, : m + 1]
    l1 = np.array([lam[0] for lam in lams])
    l2 = np.array([lam[1] for lam in lams])
    p_lam = (p1[:, l2] * p2[:, l2]) * row[:, l1 - l2]  # P_λ = (x1 x2)^{λ2} P_(λ1−λ2)
    h_lam = p3 @ h  # H_λ(x3)
    return np.einsum("nl,nl->n", p_lam, h_lam)


def log_hyp0f1_3x3(b: float, eigenvalues) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(b; X) for 3 × 3 arguments X ⪰ 0 given by their eigenvalues, and its error.

    Parameters
    ----------
    b : float
        The parameter, b > 1 (b = d/2 for the Wishart law W₃(d, ·), d ≥ 3).
    eigenvalues : array_like, shape (..., 3)
        Eigenvalues of X, ≥ 0 (negative rounding residue above −1e-12·tr X is set
        to 0), tr X ≤ :data:`MAX_TRACE_3X3`.

    Returns
    -------
    value, error : ndarray, shape (...)
        log ₀F₁ and a bound on its absolute error: the proven truncation bound
        plus rounding (a sum of positive terms: ≤ 2·N·ε relative).
    """
    b = float(b)
    if not b > 1.0:
        raise ValueError("b must be > 1")
    x = np.asarray(eigenvalues, dtype=float)
    shape = x.shape[:-1]
    x = x.reshape(-1, 3)
    trace = x.sum(axis=1)
    if np.any(x < -1e-12 * np.maximum(trace, 1.0)[:, None]) or not np.all(np.isfinite(x)):
        raise ValueError("eigenvalues must be finite and >= 0")
    x = np.maximum(x, 0.0)
    if np.any(trace > MAX_TRACE_3X3):
        raise ValueError(f"tr X must be <= {MAX_TRACE_3X3:g}")
    t_max = float(trace.max()) if len(trace) else 0.0
    for order in _ORDERS:
        if _log_tail_bound(np.array([t_max]), b, order)[0] < math.log(_TAIL_TARGET):
            break
    # else: the largest order; beyond its domain the error bound says so (large)
    total = _series(x, b, order)
    value = np.log(total)
    # ₀F₁ ≥ 1, so the tail relative to the sum is at most the tail itself
    error = np.exp(_log_tail_bound(trace, b, order)) + 2.0 * order * _EPS * (1.0 + np.abs(value))
    return value.reshape(shape), error.reshape(shape)
