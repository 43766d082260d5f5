"""Tails of χ²_d(a²) at large amplitude, in log space, with a proven error bound.

The privacy profile (:mod:`synthamp.accountant._profile`) needs log P(T > x)
and log P(T <= x), T ~ χ²_d(a²), at a = C/σ up to ~10⁵ (Δ ∝ 1/m drives σ
down on large tables). The Poisson-mixture sum of :mod:`scipy.stats` (Boost)
has ~√λ = a terms per point; this module's cost does not depend on a.

Representation (exact)
----------------------
T = (a + Z)² + W with Z ~ N(0, 1) and W ~ χ²_ν, ν = d − 1, independent. Let
r = √x, s = r − a and τ(w) = r − √(r² − w) for 0 <= w <= r². Then, for w < x,
P((a + Z)² > x − w) = Φ̄(s − τ(w)) + Φ̄(√(x − w) + a), so

    P(T > x)  = E[Φ̄(s − τ(W)); W < x] + E[Φ̄(√(x − W) + a); W < x] + P(W >= x),
    P(T <= x) = E[Φ(s − τ(W)) − Φ(−√(x − W) − a); W < x].

d = 1 (W ≡ 0) is closed form: Φ̄(r − a) + Φ̄(r + a) and Φ(r − a) − Φ(−r − a).

Bounds (proven)
---------------
1. τ(w) = w/(r + √(r² − w)), and √(1 − u) >= 1 − u on [0, 1], so
   w/(2r) <= τ(w) <= w/(2r(1 − η)) for w <= w_max, η = w_max/(2r²).
2. f(τ) = log Φ̄(s − τ) has f' = m(s − τ), f'' = −k(s − τ), with m = φ/Φ̄ the
   normal hazard and k = m' = m(m − s). k is increasing with values in (0, 1)
   (the hazard of the normal is convex with slope in (0, 1): Sampford 1953).
   Taylor's theorem with the remainder between k(s − τ_max) and k(s) gives, for
   0 <= τ <= τ_max,
   f(0) + mτ − k(s)τ²/2 <= f(τ) <= f(0) + mτ − k(s − τ_max)τ²/2.
   The lower tail uses g(τ) = log Φ̄(u + τ) = log Φ(s − τ), u = −s:
   g(0) − m(u)τ − k(u + τ_max)τ²/2 <= g(τ) <= g(0) − m(u)τ − k(u)τ²/2
   (the upper inequality for every τ >= 0).
3. 1 − y <= e^{−y} <= 1 − y + y²/2 (y >= 0), and the tilted moments of χ²_ν:
   E[e^{θW}] = (1 − 2θ)^{−ν/2} =: M(θ); under e^{θW}, W ~ κχ²_ν, κ = 1/(1 − 2θ),
   E W² = ν(ν + 2)κ², E W⁴ = ν(ν + 2)(ν + 4)(ν + 6)κ⁴.
4. Laurent and Massart (2000, Lemma 1): P(χ²_ν >= ν + 2√(νL) + 2L) <= e^{−L}.
   w_max is that quantile at L = −log(value) + :data:`_TRUNCATION_MARGIN`.
5. 0 <= Φ̄(√(x − W) + a) <= Φ̄(a) and 0 <= Φ(−√(x − W) − a) <= Φ̄(a).

Combining: upper tail, with θ_l = m/(2r), θ_u = θ_l/(1 − η),
c_l = k(s − τ_max)/(8r²), c_h = k(s)/(8r²(1 − η)²):

    Φ̄(s)M(θ_l)(1 − c_h E_{θ_l}W² − e^{−L'}) <= P(T > x)
        <= Φ̄(s)M(θ_u)(1 − c_l E_{θ_u}W² + c_l² E_{θ_u}W⁴/2) + e^{−L} + Φ̄(a),

L' the Laurent–Massart exponent at w_max(1 − 2θ_l) (the tilted law's tail
beyond w_max); the lower tail likewise with θ → −θ (module source). The value
returned is the geometric mean of the two bounds and its relative error
√(upper/lower) − 1 plus a rounding allowance (:data:`ROUNDING_RTOL`
+ 1e-15·|log value|: log Φ̄ is accurate to a few ulp of its logarithm).
The bracket's width is ≈ ν³/(16 r³) + ν m w_max/(4r³); points where it exceeds
the caller's tolerance (small a, or ν not small against r) are returned as
NaN for the caller to compute otherwise.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ROUNDING_RTOL",
    "SCIPY_TAIL_RTOL",
    "log_ncx2_tail",
    "log_ncx2_tail_large_amplitude",
    "scipy_tail_rtol",
]

#: Relative rounding allowance added to every bound (double-precision evaluation).
ROUNDING_RTOL = 1e-13
#: The truncation of W costs at most e^{−margin} of the value (e^{−45} ≈ 2.9e-20).
_TRUNCATION_MARGIN = 45.0
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: Relative error of scipy's χ²_d(λ) tails (Boost) at small λ (measured against mpmath).
SCIPY_TAIL_RTOL = 1e-10
#: ... and its growth with λ = a²: measured 3e-7 at λ = 1e10, 1e-7 at 2e9, 6.5e-9 at 1e8
#: (tests/data/profile_tails.json); the stated error is SCIPY_LAMBDA_RTOL·λ, above all of them.
SCIPY_LAMBDA_RTOL = 1e-16
#: Below this λ = a² the sum of scipy is short (~a terms) and the bounds are loose: scipy alone.
_LARGE_LAMBDA = 1e4


def scipy_tail_rtol(amp: float) -> float:
    """The stated relative error of scipy's χ²_d(amp²) tails (an estimate, measured)."""
    return max(SCIPY_TAIL_RTOL, SCIPY_LAMBDA_RTOL * amp * amp)


def _log_tail_scipy(x: NDArray, dim: int, amp: float, upper: bool) -> NDArray:
    """log P(T > x) or log P(T <= x) by scipy's Boost routines (unfrozen: no per-call setup).

    ``logsf``/``logcdf`` (ten times slower) only where the tail underflows.
    """
    # scipy.stats is heavy (~0.4 s to import): loaded on the first tail, not with the engine
    from scipy import stats

    law, args = (stats.chi2, (dim,)) if amp == 0.0 else (stats.ncx2, (dim, amp * amp))
    tail = law.sf(x, *args) if upper else law.cdf(x, *args)
    tiny = tail < 1e-290
    with np.errstate(divide="ignore"):
        out = np.log(tail)
    if np.any(tiny):
        out[tiny] = (law.logsf if upper else law.logcdf)(x[tiny], *args)
    return out


def log_ncx2_tail(
    x: NDArray[np.float64], dim: int, amp: float, upper: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """log P(T > x) or log P(T <= x), T ~ χ²_d(amp²), with a relative error bound per point.

    The bounds of :func:`log_ncx2_tail_large_amplitude` (proven; cost independent
    of amp) where their error is at most scipy's stated one
    (:func:`scipy_tail_rtol`) or scipy's tail underflows, scipy's Boost routines
    elsewhere (cost ∝ amp, error measured against mpmath). Returns (log value,
    relative error).
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    fallback = scipy_tail_rtol(amp)
    if amp * amp < _LARGE_LAMBDA:
        return _log_tail_scipy(x, dim, amp, upper), np.full(x.shape, fallback)
    value, rtol = log_ncx2_tail_large_amplitude(x, dim, amp, upper)
    bad = ~(rtol <= fallback)  # NaN included
    if bad.any():
        scipy_value = _log_tail_scipy(x[bad], dim, amp, upper)
        # scipy's log tails underflow to −inf below ~1e-308: the bounds stand there
        keep = np.isfinite(value[bad]) & ~np.isfinite(scipy_value)
        index = np.flatnonzero(bad)[~keep]
        value[index] = scipy_value[~keep]
        rtol[index] = fallback
    return value, rtol


def _laurent_massart_exponent(w: NDArray, nu: float) -> NDArray:
    """L >= 0 with ν + 2√(νL) + 2L = w (0 where w <= ν): P(χ²_ν >= w) <= e^{−L}."""
    excess = np.maximum(w - nu, 0.0)
    root = 0.25 * (np.sqrt(4.0 * nu + 8.0 * excess) - 2.0 * math.sqrt(nu))
    return root * root


def _sqrt_minus(x: NDArray, r: NDArray, amp: float) -> NDArray:
    """√x − amp without cancellation: (x − amp²)/(√x + amp), amp² split exactly (Dekker).

    r − amp loses |r|·2⁻⁵³ absolutely (1e-11 at r = 1e5), which moves log Φ̄(s)
    by m(s) times that; here x − amp_hi² is exact (Sterbenz, when it cancels).
    """
    big = 134217729.0 * amp  # 2^27 + 1
    hi = big - (big - amp)
    lo = amp - hi
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((x - hi * hi) - 2.0 * hi * lo - lo * lo) / (r + amp)


def _hazard(s: NDArray, log_sf: NDArray) -> tuple[NDArray, NDArray]:
    """m(s) = φ(s)/Φ̄(s) and k(s) = m(m − s) ∈ (0, 1), given log Φ̄(s)."""
    m = np.exp(-0.5 * s * s - _LOG_SQRT_2PI - log_sf)
    k = np.clip(m * (m - s), 0.0, 1.0)
    return m, k


def _log_diff(log_a: NDArray, log_b: NDArray) -> NDArray:
    """log(e^{log_a} − e^{log_b}), NaN where that is not positive."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out = log_a + np.log(-np.expm1(log_b - log_a))
    return np.where(log_b < log_a, out, np.nan)


def _log_factor(
    theta: NDArray, c: NDArray, nu: float, second: bool, minus: NDArray | float = 0.0
) -> NDArray:
    """log M(θ) + log(1 − c E W² [+ c² E W⁴/2] − minus) under the tilt e^{θW}."""
    kappa = 1.0 / (1.0 - 2.0 * theta)
    m2 = nu * (nu + 2.0) * kappa * kappa
    poly = -c * m2 - minus
    if second:
        poly = poly + 0.5 * c * c * m2 * (nu + 4.0) * (nu + 6.0) * kappa * kappa
    with np.errstate(invalid="ignore", divide="ignore"):
        out = -0.5 * nu * np.log1p(-2.0 * theta) + np.log1p(poly)
    return np.where(poly > -0.5, out, np.nan)


def log_ncx2_tail_large_amplitude(
    x: NDArray[np.float64], dim: int, amp: float, upper: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """log P(T > x) (``upper``) or log P(T <= x), T ~ χ²_d(amp²), and its relative error.

    Parameters
    ----------
    x : ndarray
        Thresholds (> 0).
    dim : int
        d >= 1.
    amp : float
        a >= 0 (the bounds are tight when a is large against d; module docstring).
    upper : bool
        Upper tail (True) or lower tail.

    Returns
    -------
    log_value, rtol : ndarray
        The log of the tail and a proven bound on |tail/e^{log_value} − 1|
        (floating-point rounding included as :data:`ROUNDING_RTOL`); NaN
        where the bounds do not apply (the caller computes those otherwise).
    """
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    x = np.asarray(x, dtype=float)
    r = np.sqrt(np.maximum(x, 0.0))
    s = _sqrt_minus(x, r, amp)
    log_edge = float(special.log_ndtr(-amp))  # log Φ̄(a), item 5
    if dim == 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            if upper:
                value = np.logaddexp(special.log_ndtr(-s), special.log_ndtr(-r - amp))
            else:
                value = _log_diff(special.log_ndtr(s), special.log_ndtr(-r - amp))
        rtol = ROUNDING_RTOL + 1e-15 * np.abs(value) * (1.0 + np.abs(s))
        value = np.where(x > 0, value, np.nan)
        return value, np.where(np.isfinite(value), rtol, np.nan)
    nu = float(dim - 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        log_main = special.log_ndtr(-s) if upper else special.log_ndtr(s)
        z = s if upper else -s  # the argument of Φ̄ in f (upper) or g (lower)
        m, k_here = _hazard(z, log_main)
        big_l = _TRUNCATION_MARGIN - np.minimum(log_main, 0.0)
        w_max = nu + 2.0 * np.sqrt(nu * big_l) + 2.0 * big_l
        eta = w_max / (2.0 * x)
        tau_max = w_max / (2.0 * r * (1.0 - eta))
        theta_l = m / (2.0 * r)
        theta_h = theta_l / (1.0 - eta)
        z_far = z - tau_max if upper else z + tau_max
        _, k_far = _hazard(z_far, special.log_ndtr(-z_far))
        # directed margins on k (rounding of m(m − s) near s → ∞)
        k_hi = np.minimum(np.maximum(k_here, k_far) * (1.0 + 1e-9) + 1e-12, 1.0)
        k_lo = np.maximum(np.minimum(k_here, k_far) * (1.0 - 1e-9) - 1e-12, 0.0)
        inv = 1.0 / (8.0 * x)
        c_lo, c_hi = k_lo * inv, k_hi * inv / ((1.0 - eta) ** 2)
        if upper:
            tail_prime = np.exp(-_laurent_massart_exponent(w_max * (1.0 - 2.0 * theta_l), nu))
            log_up = log_main + _log_factor(theta_h, c_lo, nu, True)
            log_up = np.logaddexp(np.logaddexp(log_up, -big_l), log_edge)
            log_lo = log_main + _log_factor(theta_l, c_hi, nu, False, tail_prime)
        else:
            log_up = log_main + _log_factor(-theta_l, c_lo, nu, True)
            log_lo = log_main + _log_factor(-theta_h, c_hi, nu, False, np.exp(-big_l))
            log_lo = _log_diff(log_lo, np.full_like(log_lo, log_edge))
        ok = (
            (x > 0)
            & (eta <= 0.25)
            & (theta_h < 0.25)
            & np.isfinite(log_up)
            & np.isfinite(log_lo)
            & (log_up >= log_lo)
        )
        value = 0.5 * (log_up + log_lo)
        rtol = (
            np.expm1(0.5 * (log_up - log_lo))
            + ROUNDING_RTOL
            + 1e-15 * np.abs(value)
            + 1e-15 * m * (np.abs(z) + 1.0)  # the rounding of s moves log Φ̄(s) by m·δs
        )
    return np.where(ok, value, np.nan), np.where(ok, rtol, np.nan)
