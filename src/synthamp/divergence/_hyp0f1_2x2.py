"""₀F₁(d/2; X) of a 2 × 2 argument X, in log space (the likelihood ratio of k = 2).

By docs/theory.md §8, for X with eigenvalues x₁ ≥ x₂ ≥ 0 (z_i = 2√x_i),
₀F₁(d/2; X) = E_u[₀F₁((d−1)/2; x₁(1−u²)) ₀F₁((d−1)/2; x₂(1−u²))],
u ∝ (1 − u²)^{(d−3)/2} on [−1, 1], computed from G_ν(z) = log ₀F₁(; ν+1; z²/4)
(:mod:`synthamp.divergence._special`, ν = (d−3)/2): where the integrand is spread
over [−1, 1], by Gauss–Jacobi (16, 24 or 32 nodes by the size of the arguments);
where it is peaked at u = 0 (d − 2 + Σ z_i R_ν(z_i) ≥ 33), by the trapezoidal rule
in θ (u = sin θ, weight cos^{d−2}θ) with step σ_θ/2 out to ±8.5 σ_θ, whose error is
estimated from the rule with twice the step. Closed forms where they exist:

* d = 2 (the average over O(2)): ½[I₀(z₊) + I₀(z₋)], z± = 2|√x₁ ± √x₂|;
* d = 3 (Gegenbauer's addition theorem): (1/π)∫₀^π sinh(w)/w dφ,
  w² = z₁² + z₂² + 2z₁z₂ cos φ, a periodic trapezoid of one elementary function
  (:func:`_log_hyp0f1_d3`);
* G_ν for ν ∈ {−½, 0, ½, 1} (d ≤ 5): log cosh, log I₀ by i0e, log(sinh z/z),
  log(2I₁/z).

Accuracy (tests/divergence/test_wishart.py): ≤ 1e-13 relative against the
Koev–Edelman series of zonal polynomials and an mpmath quadrature of the §8
integral, each value with an estimate of its absolute error that covers it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from synthamp.divergence._special import log_bessel_i_normalized

__all__ = ["log_g", "log_hyp0f1_2x2"]

_EPS = np.finfo(float).eps
#: Gauss–Jacobi nodes for spread integrands of the ₀F₁ integral, by max(z₁, z₂):
#: (bound on z, nodes). Measured against 64 nodes for d = 2 … 30: ≤ 2e-15 relative.
_GJ_RULES = ((6.0, 16), (12.0, 24), (np.inf, 32))
#: Above this value of d − 2 + Σ z R(z) (σ_θ ≤ π/(2·9.5)) the θ-trapezoid is used.
_PEAKED = (9.5 * 2.0 / math.pi) ** 2
#: θ-trapezoid: step σ_θ / _THETA_PER_SIGMA, nodes 0 … _THETA_NODES − 1 (±8.5 σ_θ).
_THETA_PER_SIGMA = 2.0
_THETA_NODES = 18


@lru_cache(maxsize=64)
def _jacobi_rule(dim: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values 1 − u² of the symmetric Gauss–Jacobi rule and their log weights
    (weights of each ±u pair summed, normalised to total 1)."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    beta = 0.5 * (dim - 3)
    u, w = special.roots_jacobi(nodes, beta, beta)
    half = u > 0
    one_minus = (1.0 - u[half]) * (1.0 + u[half])
    weights = 2.0 * w[half] / w.sum()
    return one_minus, np.log(weights)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66)


def _log_gamma_half_ratio(x: float) -> float:
    """log Γ(x + ½)/Γ(x) to a few ulp (gammaln differences lose ~eps·log Γ, 4e-14 at
    x = 50): for x ≥ 15 the difference of Stirling series with the leading terms
    combined analytically, ½ log x + (x log1p(1/(2x)) − ½) + Σ B_2k/(2k(2k−1))·
    ((x+½)^{1−2k} − x^{1−2k}) (truncation < 1e-19)."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    if x < 15:
        return float(special.gammaln(x + 0.5) - special.gammaln(x))
    out = 0.5 * math.log(x) + (x * math.log1p(0.5 / x) - 0.5)
    for k, b in enumerate(_BERNOULLI, 1):
        out += b / (2 * k * (2 * k - 1)) * ((x + 0.5) ** (1 - 2 * k) - x ** (1 - 2 * k))
    return out


def _i0e(z: np.ndarray) -> np.ndarray:
    """scipy's ``i0e`` (scipy.special imported on first use)."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    return special.i0e(z)


def _i1e(z: np.ndarray) -> np.ndarray:
    """scipy's ``i1e`` (scipy.special imported on first use)."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    return special.i1e(z)


#: Closed forms of G_ν(z) = log ₀F₁(; ν+1; z²/4) for z > 1 at the orders of d ≤ 5
#: (ν = (d−3)/2 in the 2 × 2 integral, d/2 − 1 for rank one): G ≥ 0.12 there and
#: each form is ≤ 4e-15 relative against mpmath (scipy's i0e/i1e: Cephes Chebyshev,
#: ~1e-16 relative; the rest is the rounding of z + log(·) where G is small); several
#: times faster than the series and the backward recurrence, which they replace.
_CLOSED_G = {
    -0.5: lambda z: (z - math.log(2.0)) + np.log1p(np.exp(-2.0 * z)),  # log cosh z
    0.0: lambda z: z + np.log(_i0e(z)),  # log I₀(z)
    0.5: lambda z: (z - np.log(2.0 * z)) + np.log1p(-np.exp(-2.0 * z)),  # log(sinh z / z)
    1.0: lambda z: z + np.log(2.0 * _i1e(z) / z),  # log(2 I₁(z)/z)
}
_CLOSED_G_FROM = 1.0


def log_g(nu: float, z: np.ndarray) -> np.ndarray:
    """G_ν(z) (:func:`log_bessel_i_normalized`), by a closed form where there is one."""
    closed = _CLOSED_G.get(nu)
    if closed is None:
        return log_bessel_i_normalized(nu, z)
    z = np.asarray(z, dtype=float)
    big = z > _CLOSED_G_FROM
    if big.all():
        return closed(z)
    out = np.empty(z.shape)
    out[big] = closed(z[big])
    out[~big] = log_bessel_i_normalized(nu, z[~big])
    return out


def _approx_ratio(nu: float, z: np.ndarray) -> np.ndarray:
    """A cheap approximation of R_ν(z) = I_{ν+1}/I_ν (for the choice of a rule only)."""
    return z / (nu + 0.5 + np.sqrt(z * z + (nu + 1.5) ** 2))


def _log_sum_exp_rows(terms: np.ndarray) -> np.ndarray:
    top = terms.max(axis=1)
    return top + np.log(np.exp(terms - top[:, None]).sum(axis=1))


#: d = 3: the φ-trapezoid has N ≥ _D3_MIN_NODES intervals on [0, π], N ≥ _D3_PER_ROOT·√c
#: (step ≤ 0.51 σ_φ, σ_φ = 1/√c), and stops where the tail is below e^{−_D3_TAIL}.
_D3_MIN_NODES = 12
_D3_PER_ROOT = 6.2
_D3_TAIL = 42.0


def _log_sinhc(w: np.ndarray) -> np.ndarray:
    """log(sinh w / w) = w + log((1 − e^{−2w})/(2w)) ≥ 0 for w ≥ 0, to a few ulp of 1 + w
    (one expm1 and one log; ε·w absolute where w is small, below the rounding of the
    sums it enters)."""
    safe = np.maximum(w, 1e-300)
    return np.where(w > 0.0, w + np.log(-np.expm1(-2.0 * safe) / (2.0 * safe)), 0.0)


def _log_hyp0f1_d3(z1: np.ndarray, z2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(3/2; diag(x1, x2)) (z_i = 2√x_i) and its error, for x1 + x2 ≥ 1.

    The §8 integral at d = 3, E_u[I₀(z1√(1−u²)) I₀(z2√(1−u²))] with u uniform, is by
    Gegenbauer's addition theorem I₀(a)I₀(b) = (1/π)∫₀^π I₀(√(a² + b² + 2ab cos φ)) dφ
    and ½∫₋₁¹ I₀(c√(1−u²)) du = sinh(c)/c the integral (1/π)∫₀^π sinh(w)/w dφ,
    w² = (z1 − z2)² + 4 z1 z2 cos²(φ/2) (no cancellation). The integrand is an entire,
    even, 2π-periodic function of φ, so the trapezoidal rule with N intervals on
    [0, π] (the periodic rule with 2N) has the error of the Fourier coefficients of
    order ≥ 2N, ~exp(−(2N)²/(2c)), c = z1 z2/(z1 + z2) (the curvature of w at φ = 0):
    N ≥ 6.2√c makes it ~e^{−77}, and the rule of step 2h (every other node), whose
    error ~e^{−19} is that of order N, estimates it (e(h) ≲ e(2h)², as for the θ-rule
    below; with N ≥ 4.6√c the estimate was 1000× looser than the old rules').
    The rule stops at φ₁ with 2c sin²(φ₁/2) ≥ 42 + log(1.2 w₀): since
    w₀ − w ≥ 2c sin²(φ/2) and sinh(w)/w ≤ 1.2 w₀ e^{w−w₀}·sinh(w₀)/w₀, every
    dropped node is below e^{−42} of the node at φ = 0.
    """
    if not z1.size:
        return np.empty(0), np.empty(0)
    w0 = z1 + z2
    c = z1 * z2 / w0
    count = np.maximum(_D3_MIN_NODES, 2 * np.ceil(0.5 * _D3_PER_ROOT * np.sqrt(c)))
    h = math.pi / count
    level = (_D3_TAIL + np.log(1.2 * w0)) / (2.0 * np.maximum(c, 1e-300))
    cut = np.where(level < 1.0, 2.0 * np.arcsin(np.sqrt(np.minimum(level, 1.0))), math.pi)
    last = np.minimum(count, np.ceil(cut / h) + 1)  # the last node index of each row
    columns = int(last.max()) + 1
    j = np.arange(columns)
    phi = np.multiply.outer(h, j)
    half_cos = np.cos(0.5 * phi)
    w = np.sqrt((z1 - z2)[:, None] ** 2 + 4.0 * (z1 * z2)[:, None] * half_cos * half_cos)
    terms = _log_sinhc(w)
    terms[:, 0] -= math.log(2.0)  # the trapezoid's end weights ½ (at j = 0 and j = N)
    rows = np.nonzero(last == count)[0]
    terms[rows, count[rows].astype(np.int64)] -= math.log(2.0)
    terms[j > last[:, None]] = -np.inf
    top = terms.max(axis=1)
    scaled = np.exp(terms - top[:, None])
    log_n = np.log(count)
    fine = top + np.log(scaled.sum(axis=1)) - log_n
    # the rule of step 2h: the even nodes (N is even, so its end weights are the same)
    coarse = top + np.log(scaled[:, ::2].sum(axis=1)) - log_n + math.log(2.0)
    diff = np.abs(fine - coarse)
    error = np.where(diff < 1e-3, diff * diff, diff) + 8 * _EPS * (np.abs(fine) + w0 + 8.0)
    return fine, error


def _log_hyp0f1_d2(z1: np.ndarray, z2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(1; diag(x1, x2)) (z_i = 2√x_i) and its error: the average over O(2)
    (rotations and reflections) in closed form, ½[I₀(z₊) + I₀(z₋)], z± = |z1 ± z2|."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    zp, zm = z1 + z2, np.abs(z1 - z2)
    value = zp + np.log(0.5 * (special.i0e(zp) + special.i0e(zm) * np.exp(zm - zp)))
    return value, 8 * _EPS * (np.abs(value) + zp)


#: ₀F₁ of a 2 × 2 argument in closed form, by d (used where x1 + x2 ≥ 1).
_CLOSED_FORMS = {2: _log_hyp0f1_d2, 3: _log_hyp0f1_d3}


def log_hyp0f1_2x2(dim: int, x1, x2) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(d/2; X) for a 2 × 2 argument X with eigenvalues x1, x2 ≥ 0, and its error.

    By the one-dimensional integral of docs/theory.md §8 (see the module docstring).

    Parameters
    ----------
    dim : int
        d ≥ 2 (the parameter of ₀F₁ is d/2).
    x1, x2 : array_like
        Eigenvalues of X (same shape), ≥ 0.

    Returns
    -------
    value, error : ndarray
        log ₀F₁ and an estimate of its absolute error (quadrature and rounding).
    """
    x1 = np.asarray(x1, dtype=float)
    x2 = np.asarray(x2, dtype=float)
    shape = x1.shape
    x1, x2 = x1.ravel(), x2.ravel()
    nu = 0.5 * (dim - 3)
    z1, z2 = 2.0 * np.sqrt(x1), 2.0 * np.sqrt(x2)
    curvature = (dim - 2.0) + z1 * _approx_ratio(nu, z1) + z2 * _approx_ratio(nu, z2)
    value = np.empty(x1.shape)
    error = np.empty(x1.shape)
    spread = curvature < _PEAKED
    closed_form = _CLOSED_FORMS.get(dim)
    if closed_form is not None:
        # where x1 + x2 < 1 (₀F₁ − 1 small: the closed forms would lose its relative
        # accuracy) the integral below
        closed = x1 + x2 >= 1.0
        value[closed], error[closed] = closed_form(z1[closed], z2[closed])
        spread &= ~closed
        curvature = np.where(closed, 0.0, curvature)
    z_max = np.maximum(z1, z2)
    lower = 0.0
    for bound, nodes in _GJ_RULES:
        group = spread & (z_max > lower) & (z_max <= bound) if lower else spread & (z_max <= bound)
        lower = bound
        if not group.any():
            continue
        om, log_w = _jacobi_rule(dim, nodes)
        root = np.sqrt(om)
        g = log_g(nu, np.multiply.outer(z1[group], root))
        g += log_g(nu, np.multiply.outer(z2[group], root))
        # small sums: log1p(Σ w (e^g − 1)) keeps the relative accuracy of a tiny ₀F₁ − 1
        small = g.max(axis=1) < 0.5
        v = np.empty(len(g))
        v[small] = np.log1p(np.expm1(g[small]) @ np.exp(log_w))
        v[~small] = _log_sum_exp_rows(g[~small] + log_w)
        value[group] = v
        # measured ≤ 1e-15 relative against the Koev–Edelman series (tests)
        error[group] = 1e-17 + 8e-15 * np.abs(v)
    peaked = curvature >= _PEAKED
    if peaked.any():
        zp1, zp2 = z1[peaked], z2[peaked]
        # exact curvature of the log-integrand at θ = 0 (ratios are cheap to bound)
        sigma = 1.0 / np.sqrt(curvature[peaked])
        h = sigma / _THETA_PER_SIGMA
        j = np.arange(_THETA_NODES)
        theta = np.multiply.outer(h, j)
        half_sin = np.sin(0.5 * theta)
        log_cos = np.log1p(-2.0 * half_sin * half_sin)  # (d − 2)·log cos θ to ~36 ulp
        cos = np.exp(log_cos)
        log_mult = np.log(np.where(j == 0, 1.0, 2.0))
        log_c = _log_gamma_half_ratio(0.5 * (dim - 1)) - 0.5 * math.log(math.pi)
        terms = (
            log_g(nu, zp1[:, None] * cos)
            + log_g(nu, zp2[:, None] * cos)
            + (dim - 2.0) * log_cos
            + log_mult
        )
        log_h = np.log(h) + log_c
        fine = _log_sum_exp_rows(terms) + log_h
        coarse = _log_sum_exp_rows(terms[:, ::2]) + log_h + math.log(2.0)
        diff = np.abs(fine - coarse)
        value[peaked] = fine
        # trapezoidal errors fall geometrically: e(h) ≲ e(2h)² (relative, in log)
        # rounding: ~ε per term of the log-weights (|terms| ≲ 40) and ~ε·z in G
        error[peaked] = np.where(diff < 1e-3, diff * diff, diff) + 8 * _EPS * (
            np.abs(fine) + np.abs(zp1) + np.abs(zp2) + 8.0
        )
        # the tail beyond ±8.5 σ_θ: the last node's share of the sum, times 10
        last = terms[:, -1] + log_h - fine
        error[peaked] += 10.0 * np.exp(np.minimum(last, 0.0))
    return value.reshape(shape), error.reshape(shape)
