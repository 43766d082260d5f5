"""Log-space special functions for the noncentral chi-square engine.

The densities of docs/theory.md §4 need the modified Bessel function I_ν of orders
ν = d/2 − 1 up to 5·10^5 at arguments where it overflows or underflows double
precision. Everything here is therefore written for two well-scaled functions:

``log_bessel_i_normalized(nu, z)``
    G_ν(z) = log ₀F₁(; ν+1; z²/4) = log(Γ(ν+1) (2/z)^ν I_ν(z)).
    G_ν(0) = 0, G_ν(z) ≈ z²/(4(ν+1)) for small z and ≈ z − (ν+½) log z for
    large z. The log-likelihood ratio of two noncentral chi-square laws is
    −(a² − b²)/2 + G_ν(a√x) − G_ν(b√x) (docs/theory.md §4).
``bessel_ratio(nu, z)``
    R_ν(z) = I_{ν+1}(z)/I_ν(z) = G_ν'(z), in [0, 1).

Four representations are used, each where it is accurate (measured against
mpmath, tests/divergence/test_special.py: ≤ 2 ulp in the series and Debye branches, ≤ 5 ulp
in the recurrence branch; callers budget 8 and 16 ulp of |G|):

* the power series of ₀F₁ for z²/4 ≤ max(1, ν+1);
* Debye's uniform asymptotic expansion (DLMF 10.41.3) with the polynomials
  U_0 … U_14 for ν ≥ 30, written relative to its z → 0 limit so that G_ν(z)
  keeps full relative accuracy even when it is tiny. The truncation error is
  below |U_15(p)|/ν^15 < 1e-19 for ν ≥ 30;
* for ν < 30 and larger z, the backward recurrence of the ratio,
  R_ν = 1/(2(ν+1)/z + R_{ν+1}), started from the Debye expansion at an order
  μ = ν + m ∈ [30, 31): stable (it contracts errors), and G_ν is G_μ plus a
  sum of positive logarithms, without the cancellation of
  log(ive) + z + log Γ(ν+1) + ν log(2/z);
* Hankel's expansion for ν < 30 and z > 10^5.

All functions broadcast over ``z`` (``nu`` is a scalar) and are checked against
mpmath in ``tests/divergence/test_special.py``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = [
    "bessel_ratio",
    "bessel_ratio_derivative",
    "log_bessel_i_and_ratio",
    "log_bessel_i_normalized",
]

#: Orders at and above which the Debye expansion is used.
NU_DEBYE = 30.0
#: Rounding budgets of G_ν (ulp of |G|) for callers: series and Debye branches
#: (measured ≤ 2 ulp), and the recurrence for ν < NU_DEBYE (measured ≤ 5 ulp).
G_ULPS_DEBYE = 8
G_ULPS_RECURRENCE = 16
#: Number of Debye polynomials kept (U_0 … U_{N_DEBYE-1}).
N_DEBYE = 15
#: Number of terms of the ₀F₁ power series (enough for y ≤ max(1, ν+1)).
N_SERIES = 32


@lru_cache(maxsize=1)
def _debye_polynomials() -> tuple[np.ndarray, np.ndarray]:
    """Coefficients of the Debye polynomials U_k(p) and their derivatives.

    U_0 = 1, U_{k+1}(p) = ½p²(1 − p²) U_k'(p) + ⅛ ∫_0^p (1 − 5t²) U_k(t) dt
    (DLMF 10.41.9), computed exactly in rational arithmetic. Returns two
    arrays of shape (N_DEBYE, 3·N_DEBYE − 2) of coefficients in increasing
    powers of p.
    """
    polys: list[dict[int, Fraction]] = [{0: Fraction(1)}]
    for _ in range(N_DEBYE - 1):
        prev = polys[-1]
        nxt: dict[int, Fraction] = {}
        for e, c in prev.items():
            if e > 0:  # ½ p² (1 − p²) · e c p^{e−1}
                nxt[e + 1] = nxt.get(e + 1, 0) + Fraction(1, 2) * e * c
                nxt[e + 3] = nxt.get(e + 3, 0) - Fraction(1, 2) * e * c
            # ⅛ ∫ (1 − 5t²) c t^e dt
            nxt[e + 1] = nxt.get(e + 1, 0) + Fraction(1, 8) * c / (e + 1)
            nxt[e + 3] = nxt.get(e + 3, 0) - Fraction(5, 8) * c / (e + 3)
        polys.append(nxt)
    width = 3 * (N_DEBYE - 1) + 1
    coef = np.zeros((N_DEBYE, width))
    dcoef = np.zeros((N_DEBYE, width))
    for k, poly in enumerate(polys):
        for e, c in poly.items():
            coef[k, e] = float(c)
            if e > 0:
                dcoef[k, e - 1] = float(e * c)
    return coef, dcoef


@lru_cache(maxsize=1)
def _debye_sup() -> np.ndarray:
    """sup over p ∈ [0, 1] of |U_k(p)| (on a fine grid, with a 2× safety factor)."""
    coef, _ = _debye_polynomials()
    p = np.linspace(0.0, 1.0, 2001)
    return 2.0 * np.array([np.abs(np.polynomial.polynomial.polyval(p, c)).max() for c in coef])


@lru_cache(maxsize=64)
def _debye_collapsed(nu: float) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients in p of S(p) = Σ_k U_k(p) ν^{−k} and of S'(p), truncated at the
    first k whose bound sup|U_k|/ν^k is below 1e-19 (fewer terms for large ν)."""
    coef, dcoef = _debye_polynomials()
    inv_nu_powers = float(nu) ** -np.arange(N_DEBYE)
    small = np.nonzero(_debye_sup() * inv_nu_powers < 1e-19)[0]
    n_terms = int(small[0]) if small.size else N_DEBYE
    poly = inv_nu_powers[:n_terms] @ coef[:n_terms]
    dpoly = inv_nu_powers[:n_terms] @ dcoef[:n_terms]
    degree = 3 * (n_terms - 1) + 1
    return poly[:degree], dpoly[:degree]


@lru_cache(maxsize=64)
def _debye_coefficients(nu: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Even/odd split of S(p) = E(p²) + p·O(p²) and of S'(p), for Horner's rule in p².

    Returns (coefficients of [E, O] and of [E, O, E', O'] as arrays of shape
    (degree + 1, rows), highest power of p² first; S(1)).
    """
    poly, dpoly = _debye_collapsed(nu)
    parts = [poly[0::2], poly[1::2], dpoly[0::2], dpoly[1::2]]
    length = max(len(part) for part in parts)
    table = np.zeros((length, 4))
    for row, part in enumerate(parts):
        table[length - len(part) :, row] = part[::-1]
    value_rows = table[:, :2]
    # drop leading all-zero powers of the value-only table
    while not value_rows[0].any():
        value_rows = value_rows[1:]
    return np.ascontiguousarray(value_rows), table, float(poly.sum())


#: Arrays up to this size evaluate polynomials by a matrix of powers and one
#: matrix product (a few numpy calls) instead of Horner's rule (one call per
#: coefficient), whose per-call overhead dominates on the few points of a mode
#: search or a short grid.
SMALL_ARRAY = 512


def _powers(x: np.ndarray, count: int) -> np.ndarray:
    """Matrix [x^0; x^1; …; x^{count−1}] (one column per element of ``x``, flattened)
    by doubling, x^{j+m} = x^j·x^m for m = 2, 4, 8, …: a few vectorised products
    instead of one per power, each power with at most ~2 log₂ j roundings."""
    flat = x.reshape(-1)
    powers = np.empty((count, flat.size))
    powers[0] = 1.0
    if count > 1:
        powers[1] = flat
    filled, power = 2, flat  # power = x^{filled/2}
    while filled < count:
        power = power * power  # x^filled
        step = min(filled, count - filled)
        np.multiply(powers[:step], power, out=powers[filled : filled + step])
        filled += step
    return powers


def _debye_sums(table: np.ndarray, p: np.ndarray, p2: np.ndarray) -> np.ndarray:
    """Rows [S, S'] (or [S]) from the even/odd Horner table of :func:`_debye_coefficients`."""
    if p.size <= SMALL_ARRAY:
        # Σ_j c_j p^{2j} for every column of the table at once; p ≤ 1, so the
        # rounding bound γ_{2n}·Σ|c_j| p^{2j} is that of Horner's rule
        acc = (table[::-1].T @ _powers(p2, table.shape[0])).reshape((table.shape[1], *p.shape))
        return acc[0::2] + p * acc[1::2]
    table = table.reshape(table.shape + (1,) * p.ndim)
    acc = table[0] * p2
    for c in table[1:-1]:
        acc += c
        acc *= p2
    acc += table[-1]
    return acc[0::2] + p * acc[1::2]


def _log_g_debye(nu: float, z: np.ndarray, with_ratio: bool = False):
    """G_ν(z) by Debye's expansion, relative to its value at z = 0 (and R_ν(z)).

    log I_ν(νw) = νη(w) − ½log(2πν) − ¼log(1 + w²) + log S(p), with
    η(w) = √(1+w²) + log(w/(1 + √(1+w²))), p = (1+w²)^{−½} and
    S(p) = Σ_k U_k(p) ν^{−k}. Subtracting the same expansion at w → 0 (where
    G = 0) gives
    G = ν[q − log1p(q/2)] − ¼ log1p(w²) + log(S(p)/S(1)), q = √(1+w²) − 1,
    which has no cancellation for small z. Its derivative is
    R = w/(1 + √(1+w²)) − w p²/(2ν) − w p³ S'(p)/(ν S(p)), w = z/ν.
    """
    values, table, s_1 = _debye_coefficients(nu)
    w = z / nu
    w2 = w * w
    root = np.sqrt(1.0 + w2)
    q = w2 / (root + 1.0)
    p = 1.0 / root
    p2 = p * p
    sums = _debye_sums(table if with_ratio else values, p, p2)
    # q − log1p(q/2) without cancellation for small q
    if q.size and q.min() >= 1e-3:
        eta = q - np.log1p(0.5 * q)
    else:
        small = q < 1e-3
        qs = np.where(small, q, 0.0)
        series = qs * (0.5 + qs * (1 / 8 + qs * (-1 / 24 + qs * (1 / 64 - qs / 160))))
        eta = np.where(small, series, q - np.log1p(0.5 * q))
    g = nu * eta - 0.25 * np.log1p(w2) + np.log(sums[0] * (1.0 / s_1))
    if not with_ratio:
        return g
    ratio = w * (1.0 / (1.0 + root) - p2 * (0.5 / nu + p * sums[1] / (nu * sums[0])))
    return g, ratio


def _ratio_debye(nu: float, z: np.ndarray) -> np.ndarray:
    """R_ν(z) = dG/dz from the Debye form of :func:`_log_g_debye`."""
    _, table, _ = _debye_coefficients(nu)
    w = z / nu
    root = np.sqrt(1.0 + w * w)
    p = 1.0 / root
    p2 = p * p
    s_p, ds_p = _debye_sums(table, p, p2)
    return w * (1.0 / (1.0 + root) - p2 * (0.5 / nu + p * ds_p / (nu * s_p)))


#: Arguments above which Hankel's expansion replaces the recurrence for orders < NU_DEBYE.
Z_HANKEL = 1e5


#: Hankel's expansion is used for the log-likelihood ratio from z >= max(this, 100ν²):
#: there each term of the sum is below 1/200 of the previous one (see :func:`hankel_log_sum`).
Z_HANKEL_MIN = 2e3


def hankel_threshold(nu: float) -> float:
    """Smallest z from which :func:`hankel_log_sum` is used: max(2·10³, 100ν²)."""
    return max(Z_HANKEL_MIN, 100.0 * nu * nu)


def hankel_log_sum(nu: float, z: np.ndarray) -> np.ndarray:
    """log Σ_{k≤10} (−1)^k a_k(ν)/z^k = log(I_ν(z) e^{−z} √(2πz)) for z >= ``hankel_threshold(ν)``.

    DLMF 10.40.1, a_k(ν) = Π_{j=1..k} (4ν² − (2j−1)²)/(k! 8^k). For
    z >= max(2·10³, 25·4ν²) the ratio of consecutive terms,
    |4ν² − (2k−1)²|/(8kz), is at most 1/200 for k ≤ 10 (and (2k−1)²/(8kz) <
    10^{−3} where (2k−1)² > 4ν²), so the first omitted term is below
    200^{−11} < 10^{−25}; DLMF 10.40(ii) bounds the remainder by a small
    multiple of it, and the e^{−z} part of I_ν is below e^{−4000} relative.
    The value is ≈ 0 (the sum is within 1/200·(1 + …) of 1); its rounding
    error is a few ulp absolute.
    """
    return np.log(_hankel_sum(nu, z))


def _hankel_sum(nu: float, z: np.ndarray) -> np.ndarray:
    """Σ_k (−1)^k a_k(ν)/z^k with I_ν(z) e^{−z} √(2πz) ~ that sum (DLMF 10.40.1).

    a_k(ν) = Π_{j=1..k} (4ν² − (2j−1)²) / (k! 8^k). For z ≥ 1e5 and ν < 30 the
    terms fall by ≥ 10^{−1.6} each; 10 terms leave < 1e-17.
    """
    mu = 4.0 * nu * nu
    term = np.ones_like(z)
    total = np.ones_like(z)
    for k in range(1, 11):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * z)
        total = total + term
    return total


def _series_length(nu: float, y_max: float) -> int:
    """Number of terms after which the ₀F₁ series' tail is below 1e-18 of its sum."""
    term = 1.0
    for k in range(1, N_SERIES + 1):
        term *= y_max / ((nu + k) * k)
        if term < 1e-18:
            return k
    return N_SERIES


@lru_cache(maxsize=64)
def _series_coefficients(nu: float) -> np.ndarray:
    """c_k = 1/((ν+1)_k k!) for k = 1 … N_SERIES (c_k = c_{k−1}/((ν+k)k): k roundings)."""
    coef = np.empty(N_SERIES)
    c = 1.0
    for k in range(1, N_SERIES + 1):
        c /= (nu + k) * k
        coef[k - 1] = c
    return coef


def _series_terms(nu: float, y: np.ndarray) -> np.ndarray:
    """Σ_{k≥1} y^k / ((ν+1)_k k!), i.e. ₀F₁(; ν+1; y) − 1 (terms fall at least
    as fast as 1/k! for y ≤ max(1, ν+1); summed until they are below 1e-18)."""
    n_terms = _series_length(nu, float(y.max())) if y.size else 0
    if y.size <= SMALL_ARRAY and n_terms > 0:
        # positive terms y^k·c_k (y^k by a running product): no cancellation
        powers = _powers(y, n_terms + 1)[1:]
        return (_series_coefficients(nu)[:n_terms] @ powers).reshape(y.shape)
    term = y / (nu + 1.0)
    total = term.copy()
    for k in range(2, n_terms + 1):
        term = term * y
        term *= 1.0 / ((nu + k) * k)
        total += term
    return total


def _by_branch(nu, z, *, series, debye, recurrence, hankel) -> np.ndarray:
    """Evaluate a function of z on the representation that is accurate there.

    ``series(z, z²/4)`` where z²/4 ≤ max(1, ν+1); otherwise ``debye(z)`` for
    ν ≥ NU_DEBYE, else ``recurrence(z)`` (z ≤ Z_HANKEL) or ``hankel(z)``
    (z > Z_HANKEL).
    """
    z = np.asarray(z, dtype=float)
    y = 0.25 * z * z
    use_series = y <= max(1.0, nu + 1.0)
    if use_series.all():
        return series(z, y)
    if nu >= NU_DEBYE and not use_series.any():
        return debye(z)
    out = np.empty(z.shape)
    if use_series.any():
        out[use_series] = series(z[use_series], y[use_series])
    rest = ~use_series
    zr = z[rest]
    if nu >= NU_DEBYE:
        out[rest] = debye(zr)
        return out
    big = zr > Z_HANKEL
    if not big.any():
        out[rest] = recurrence(zr)
        return out
    value = np.empty_like(zr)
    value[~big] = recurrence(zr[~big])
    value[big] = hankel(zr[big])
    out[rest] = value
    return out


def _start_pair(mu: float, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G_μ(z), z R_μ(z)) for μ ≥ NU_DEBYE by Debye's expansion, uniform in z."""
    g, ratio = _log_g_debye(mu, z, with_ratio=True)
    return g, z * ratio


def _backward_recurrence(nu: float, z: np.ndarray, log_terms: bool):
    """x_0 = z R_ν(z) (and G_ν(z)) for ν < NU_DEBYE, by the backward recurrence
    from an order μ ≥ NU_DEBYE.

    With μ = ν + m (m = ⌈NU_DEBYE − ν⌉ ≤ 31), x_m = z R_μ(z) from the Debye (or
    series) branch and, from I_{ν−1} − I_{ν+1} = (2ν/z) I_ν,
    x_k = z² / s_k,  s_k = c_k + x_{k+1},  c_k = 2(ν + k + 1),  k = m−1, …, 0.
    The map x ↦ z²/(c + x) contracts relative errors (its logarithmic
    derivative is −x/(c + x) ∈ (−1, 0)), so x_0 keeps the few-ulp accuracy of
    x_m. With ``log_terms``, also returns
    G_ν(z) = G_μ(z) + Σ_k log(s_k/c_k) = G_μ(z) + log(Π_k s_k / Π_k c_k)
    (from G_{ν+1} − G_ν = log(2(ν+1)R_ν(z)/z) = −log(s/c)): a sum of positive
    terms, the product carrying at most ~2m roundings, i.e. an absolute error
    ≲ 2mε in the logarithm. Measured (tests/divergence/test_special.py): ≤ 5 ulp relative.
    """
    m = math.ceil(NU_DEBYE - nu)
    g_start, x = _start_pair(nu + m, z)
    zz = z * z
    product = np.ones_like(z) if log_terms else None
    c_product = 1.0
    for k in range(m - 1, -1, -1):
        c = 2.0 * (nu + k + 1.0)
        x += c
        if log_terms:
            product *= x
            c_product *= c
        np.divide(zz, x, out=x)
    if not log_terms:
        return x, None
    return x, g_start + np.log(product * (1.0 / c_product))


def _log_cosh_large(z: np.ndarray) -> np.ndarray:
    """G_{−½}(z) = log cosh z (₀F₁(; ½; z²/4) = cosh z) for z > 2, the non-series
    branch at ν = −½ (d = 1): z − log 2 + log1p(e^{−2z}), a few ulp relative
    (G > 1.3 there), with R_{−½} = tanh z. Replaces the 31-step recurrence."""
    return (z - _LOG_2) + np.log1p(np.exp(-2.0 * z))


_LOG_2 = math.log(2.0)


def log_bessel_i_normalized(nu: float, z) -> np.ndarray:
    """G_ν(z) = log ₀F₁(; ν+1; z²/4) = log(Γ(ν+1) (2/z)^ν I_ν(z)).

    Parameters
    ----------
    nu : float
        Order, ν ≥ −½ (ν = d/2 − 1 for the χ²_d law).
    z : array_like
        Argument, z ≥ 0.

    Returns
    -------
    ndarray
        G_ν(z) ≥ 0, with relative accuracy ≤ 2e-15 (a few ulp) over
        ν ∈ [−½, 5·10^5], z ∈ [0, 10^8] (tests/divergence/test_special.py).
    """
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    nu = float(nu)
    return _by_branch(
        nu,
        z,
        series=lambda zs, ys: np.log1p(_series_terms(nu, ys)),
        debye=lambda zr: _log_g_debye(nu, zr),
        recurrence=(
            _log_cosh_large
            if nu == -0.5
            else lambda zr: _backward_recurrence(nu, zr, log_terms=True)[1]
        ),
        hankel=_log_cosh_large
        if nu == -0.5
        else lambda zr: (
            np.log(_hankel_sum(nu, zr))
            - 0.5 * np.log(2 * np.pi * zr)
            + zr
            + special.gammaln(nu + 1.0)
            + nu * (np.log(2.0) - np.log(zr))
        ),
    )


def bessel_ratio(nu: float, z) -> np.ndarray:
    """R_ν(z) = I_{ν+1}(z) / I_ν(z) for ν ≥ −½, z ≥ 0.

    The derivative of :func:`log_bessel_i_normalized` in z; R_ν(0) = 0 and
    R_ν(z) → 1 as z → ∞. For ν = −½, R is tanh.
    """
    nu = float(nu)
    if nu >= NU_DEBYE:
        # Debye's form of R is uniform in z: as accurate as the series branch
        # where that applies (both ≤ 2 ulp against mpmath, tests/divergence/test_special.py),
        # without splitting the arguments between branches
        return _ratio_debye(nu, np.asarray(z, dtype=float))
    return _by_branch(
        nu,
        z,
        series=lambda zs, ys: (
            zs
            / (2.0 * (nu + 1.0))
            * (1.0 + _series_terms(nu + 1.0, ys))
            / (1.0 + _series_terms(nu, ys))
        ),
        debye=lambda zr: _ratio_debye(nu, zr),
        # x_0 / z rounds above 1 by an ulp where R_ν(z) is within an ulp of 1
        recurrence=np.tanh
        if nu == -0.5
        else lambda zr: np.minimum(_backward_recurrence(nu, zr, log_terms=False)[0] / zr, 1.0),
        hankel=np.tanh
        if nu == -0.5
        else lambda zr: _hankel_sum(nu + 1.0, zr) / _hankel_sum(nu, zr),
    )


def log_bessel_i_and_ratio(nu: float, z) -> tuple[np.ndarray, np.ndarray]:
    """(G_ν(z), R_ν(z)) in one pass (the same values as
    :func:`log_bessel_i_normalized` and :func:`bessel_ratio`, sharing the work)."""
    nu = float(nu)
    z = np.asarray(z, dtype=float)
    y = 0.25 * z * z
    g = np.empty(z.shape)
    ratio = np.empty(z.shape)
    use_series = y <= max(1.0, nu + 1.0)
    if use_series.any():
        zs, ys = z[use_series], y[use_series]
        terms = _series_terms(nu, ys)
        g[use_series] = np.log1p(terms)
        ratio[use_series] = (
            zs / (2.0 * (nu + 1.0)) * (1.0 + _series_terms(nu + 1.0, ys)) / (1.0 + terms)
        )
    rest = np.nonzero(~use_series)
    if rest[0].size:
        zr = z[rest]
        if nu >= NU_DEBYE:
            g[rest], ratio[rest] = _log_g_debye(nu, zr, with_ratio=True)
        elif nu == -0.5:
            g[rest], ratio[rest] = _log_cosh_large(zr), np.tanh(zr)
        elif zr.max() <= Z_HANKEL:
            x, g[rest] = _backward_recurrence(nu, zr, log_terms=True)
            ratio[rest] = np.minimum(x / zr, 1.0)
        else:
            g[rest] = log_bessel_i_normalized(nu, zr)
            ratio[rest] = bessel_ratio(nu, zr)
    return g, ratio


def bessel_ratio_derivative(nu: float, z, ratio=None) -> np.ndarray:
    """R_ν'(z) = 1 − R² − (2ν+1) R / z (the Riccati equation of the ratio).

    At z = 0 the limit 1/(2(ν+1)) is returned.
    """
    z = np.asarray(z, dtype=float)
    r = bessel_ratio(nu, z) if ratio is None else np.asarray(ratio, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - r * r - (2 * nu + 1) * r / z
    return np.where(z > 0, out, 1.0 / (2 * (nu + 1.0)))
