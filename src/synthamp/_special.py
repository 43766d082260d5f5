"""Log-space special functions for the noncentral chi-square engine.

The densities of THEORY.md §4 need the modified Bessel function I_ν of orders
ν = d/2 − 1 up to 5·10^5 at arguments where it overflows or underflows double
precision. Everything here is therefore written for two well-scaled functions:

``log_bessel_i_normalized(nu, z)``
    G_ν(z) = log ₀F₁(; ν+1; z²/4) = log(Γ(ν+1) (2/z)^ν I_ν(z)).
    G_ν(0) = 0, G_ν(z) ≈ z²/(4(ν+1)) for small z and ≈ z − (ν+½) log z for
    large z. The log-likelihood ratio of two noncentral chi-square laws is
    −(a² − b²)/2 + G_ν(a√x) − G_ν(b√x) (THEORY.md §4).
``bessel_ratio(nu, z)``
    R_ν(z) = I_{ν+1}(z)/I_ν(z) = G_ν'(z), in [0, 1).

Three representations are used, each where it is accurate (a few units in the
last place for the series and Debye branches; the Amos branch loses up to
~2e-14 relative to the cancellation in log(ive) + z + log Γ(ν+1) + ν log(2/z),
and callers budget 128 ulp of |G| for it):

* the power series of ₀F₁ for z²/4 ≤ max(1, ν+1);
* the exponentially scaled Bessel functions of :func:`scipy.special.ive`
  (Amos' algorithm) for orders ν < 30 and larger z;
* Debye's uniform asymptotic expansion (DLMF 10.41.3) with the polynomials
  U_0 … U_14 for ν ≥ 30, written relative to its z → 0 limit so that G_ν(z)
  keeps full relative accuracy even when it is tiny. The truncation error is
  below |U_15(p)|/ν^15 < 1e-19 for ν ≥ 30.

All functions broadcast over ``z`` (``nu`` is a scalar) and are checked against
mpmath in ``tests/test_special.py``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy import special

__all__ = ["bessel_ratio", "bessel_ratio_derivative", "log_bessel_i_normalized"]

#: Orders at and above which the Debye expansion is used.
NU_DEBYE = 30.0
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


def _debye_sums(nu: float, p: np.ndarray, derivative: bool) -> tuple[np.ndarray, ...]:
    """S(p) = Σ_k U_k(p) ν^{−k} (and S'(p)), by Horner's rule in p."""
    poly, dpoly = _debye_collapsed(float(nu))
    total = np.polynomial.polynomial.polyval(p, poly)
    if not derivative:
        return (total,)
    return total, np.polynomial.polynomial.polyval(p, dpoly)


def _debye_parts(nu: float, z: np.ndarray):
    w = z / nu
    root = np.sqrt(1.0 + w * w)  # √(1 + w²)
    p = 1.0 / root
    return w, root, p


def _log_g_debye(nu: float, z: np.ndarray) -> np.ndarray:
    """G_ν(z) by Debye's expansion, relative to its value at z = 0.

    log I_ν(νw) = νη(w) − ½log(2πν) − ¼log(1 + w²) + log S(p), with
    η(w) = √(1+w²) + log(w/(1 + √(1+w²))) and p = (1+w²)^{−½}. Subtracting the
    same expansion at w → 0 (where G = 0) gives
    G = ν[q − log1p(q/2)] − ¼ log1p(w²) + log(S(p)/S(1)), q = √(1+w²) − 1,
    which has no cancellation for small z.
    """
    w, root, p = _debye_parts(nu, z)
    q = w * w / (root + 1.0)
    (s_p,) = _debye_sums(nu, p, derivative=False)
    (s_1,) = _debye_sums(nu, np.ones(1), derivative=False)
    # q − log1p(q/2) without cancellation for small q.
    small = q < 1e-3
    qs = np.where(small, q, 0.0)
    series = qs / 2 + qs**2 / 8 - qs**3 / 24 + qs**4 / 64 - qs**5 / 160
    eta = np.where(small, series, q - np.log1p(q / 2))
    return nu * eta - 0.25 * np.log1p(w * w) + np.log(s_p / s_1[0])


def _ratio_debye(nu: float, z: np.ndarray) -> np.ndarray:
    """R_ν(z) = dG/dz from the Debye form of :func:`_log_g_debye`."""
    w, root, p = _debye_parts(nu, z)
    s_p, ds_p = _debye_sums(nu, p, derivative=True)
    return w / (1.0 + root) - w * p * p / (2 * nu) - w * p**3 * ds_p / (nu * s_p)


#: Arguments above which Hankel's expansion replaces ``ive`` for orders < NU_DEBYE
#: (Amos' routine returns NaN beyond ~1e9).
Z_HANKEL = 1e5


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


def _series_terms(nu: float, y: np.ndarray) -> np.ndarray:
    """Σ_{k≥1} y^k / ((ν+1)_k k!), i.e. ₀F₁(; ν+1; y) − 1."""
    term = np.ones_like(y)
    total = np.zeros_like(y)
    for k in range(1, N_SERIES + 1):
        term = term * y / ((nu + k) * k)
        total = total + term
    return total


def _by_branch(nu, z, *, series, debye, amos, hankel, finish_log_ive=None) -> np.ndarray:
    """Evaluate a function of z on the representation that is accurate there.

    ``series(z, z²/4)`` where z²/4 ≤ max(1, ν+1); otherwise ``debye(z)`` for
    ν ≥ NU_DEBYE, else ``amos(z)`` (z ≤ Z_HANKEL) or ``hankel(z)`` (z > Z_HANKEL),
    both then passed through ``finish_log_ive(value, z)`` when given.
    """
    z = np.asarray(z, dtype=float)
    y = 0.25 * z * z
    use_series = y <= max(1.0, nu + 1.0)
    out = np.empty(np.broadcast(z).shape)
    if np.any(use_series):
        out[use_series] = series(z[use_series], y[use_series])
    rest = ~use_series
    if np.any(rest):
        zr = z[rest]
        if nu >= NU_DEBYE:
            out[rest] = debye(zr)
        else:
            big = zr > Z_HANKEL
            value = np.empty_like(zr)
            value[~big] = amos(zr[~big])
            value[big] = hankel(zr[big])
            out[rest] = value if finish_log_ive is None else finish_log_ive(value, zr)
    return out


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
        G_ν(z) ≥ 0, with relative accuracy ≤ 3e-14 (a few ulp outside the Amos
        branch ν < 30, z²/4 > max(1, ν+1)) over ν ∈ [−½, 5·10^5],
        z ∈ [0, 10^8] (tests/test_special.py).
    """
    nu = float(nu)
    return _by_branch(
        nu,
        z,
        series=lambda zs, ys: np.log1p(_series_terms(nu, ys)),
        debye=lambda zr: _log_g_debye(nu, zr),
        amos=lambda zr: np.log(special.ive(nu, zr)),
        hankel=lambda zr: np.log(_hankel_sum(nu, zr)) - 0.5 * np.log(2 * np.pi * zr),
        finish_log_ive=lambda log_ive, zr: (
            log_ive + zr + special.gammaln(nu + 1.0) + nu * (np.log(2.0) - np.log(zr))
        ),
    )


def bessel_ratio(nu: float, z) -> np.ndarray:
    """R_ν(z) = I_{ν+1}(z) / I_ν(z) for ν ≥ −½, z ≥ 0.

    The derivative of :func:`log_bessel_i_normalized` in z; R_ν(0) = 0 and
    R_ν(z) → 1 as z → ∞. For ν = −½, R is tanh.
    """
    nu = float(nu)
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
        amos=lambda zr: special.ive(nu + 1.0, zr) / special.ive(nu, zr),
        hankel=lambda zr: _hankel_sum(nu + 1.0, zr) / _hankel_sum(nu, zr),
    )


def bessel_ratio_derivative(nu: float, z, ratio=None) -> np.ndarray:
    """R_ν'(z) = 1 − R² − (2ν+1) R / z (the Riccati equation of the ratio).

    At z = 0 the limit 1/(2(ν+1)) is returned.
    """
    z = np.asarray(z, dtype=float)
    r = bessel_ratio(nu, z) if ratio is None else np.asarray(ratio, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - r * r - (2 * nu + 1) * r / z
    return np.where(z > 0, out, 1.0 / (2 * (nu + 1.0)))
