"""Independent high-precision references (mpmath) for the tests.

Nothing here imports synthamp. The references use representations different
from the library's: the ₀F₁ power series or Poisson's integral for Bessel
functions, and mpmath's adaptive tanh-sinh quadrature for divergences.
"""

from __future__ import annotations

import mpmath as mp

DPS = 40
#: Working precision that sets mpmath's quadrature tolerance.
QUAD_DPS = 20


def log_hyp0f1(nu, z):
    """log ₀F₁(; ν+1; z²/4) = log(Γ(ν+1)(2/z)^ν I_ν(z)), to ~30 digits.

    Power series for moderate z; otherwise Poisson's integral
    ₀F₁ = Γ(ν+1)/(√π Γ(ν+½)) ∫_{−1}^{1} (1−t²)^{ν−½} e^{zt} dt, integrated in
    log-shifted form around its peak t* (ν > −½). For ν = −½, ₀F₁ = cosh z.
    """
    with mp.workdps(DPS):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        if z == 0:
            return mp.mpf(0)
        if nu == mp.mpf(-0.5):
            return z + mp.log1p(mp.exp(-2 * z)) - mp.log(2)
        y = z * z / 4
        if y < 200 + 2 * nu:
            return mp.log(mp.hyp0f1(nu + 1, y))
        try:  # mpmath's besseli: fast asymptotic expansion when z is large enough
            return mp.loggamma(nu + 1) + nu * mp.log(2 / z) + mp.log(mp.besseli(nu, z))
        except mp.libmp.NoConvergence:
            pass
        if nu < 1:
            return mp.log(mp.hyp0f1(nu + 1, y, maxterms=10**7))
        m = nu - mp.mpf(0.5)
        # peak of m log(1 − t²) + z t: z(1 − t²) = 2 m t
        if m > 0:
            tstar = (-2 * m + mp.sqrt(4 * m * m + 4 * z * z)) / (2 * z)
        else:
            tstar = mp.mpf(1) - mp.mpf(10) ** -30
        h = lambda t: m * mp.log1p(-t * t) + z * t  # noqa: E731
        peak = h(tstar)
        curv = 2 * m * (1 + tstar**2) / (1 - tstar**2) ** 2 if m > 0 else z
        width = 1 / mp.sqrt(curv) if curv > 0 else mp.mpf(1)
        pts = [mp.mpf(-1)]
        for k in (-40, -20, -10, -5, -2, 0, 2, 5, 10, 20, 40):
            t = tstar + k * width
            if -1 < t < 1 and t > pts[-1]:
                pts.append(t)
        pts.append(mp.mpf(1))
        integral = mp.quad(lambda t: mp.exp(h(t) - peak), pts)
        return (
            mp.loggamma(nu + 1)
            - mp.log(mp.sqrt(mp.pi))
            - mp.loggamma(nu + mp.mpf(0.5))
            + peak
            + mp.log(integral)
        )


def bessel_ratio(nu, z):
    """I_{ν+1}(z)/I_ν(z) by ₀F₁ ratios: z/(2(ν+1)) · ₀F₁(ν+2)/₀F₁(ν+1)."""
    with mp.workdps(DPS):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        if z == 0:
            return mp.mpf(0)
        return z / (2 * (nu + 1)) * mp.exp(log_hyp0f1(nu + 1, z) - log_hyp0f1(nu, z))


def ncx2_logpdf_sqrt(r, dim, amp):
    """log density of R = √X, X ~ χ²_d(amp²): the noncentral chi law."""
    with mp.workdps(DPS):
        r = mp.mpf(r)
        d = mp.mpf(dim)
        a = mp.mpf(amp)
        nu = d / 2 - 1
        return (
            mp.log(2)
            + (d - 1) * mp.log(r)
            - r * r / 2
            - (d / 2) * mp.log(2)
            - mp.loggamma(d / 2)
            - a * a / 2
            + log_hyp0f1(nu, a * r)
        )


def _window(logf, lo, hi, n=240, drop=90):
    """Interval where logf is within ``drop`` of its maximum, by a scan on [lo, hi]."""
    xs = [lo + (hi - lo) * (i + 0.5) / n for i in range(n)]
    vals = [logf(x) for x in xs]
    top = max(vals)
    keep = [i for i, v in enumerate(vals) if v > top - drop]
    step = (hi - lo) / n
    a = max(lo, xs[keep[0]] - 2 * step)
    b = min(hi, xs[keep[-1]] + 2 * step)
    return a, b, xs[vals.index(top)]


def renyi_plateau(alpha, dim, a, b, pieces=24):
    """D_α(χ²_d(a²) ‖ χ²_d(b²)) by mpmath quadrature over r = √x, at 40 digits.

    H − 1 = ∫ q (L^α − 1 − α(L − 1)) (no cancellation at 40 digits either way),
    D = log1p(H − 1)/(α − 1). The window is found by scanning the log
    integrand of the tilted density and of q.
    """
    with mp.workdps(DPS):
        al = mp.mpf(alpha)
        lp = lambda r: ncx2_logpdf_sqrt(r, dim, a)  # noqa: E731
        lq = lambda r: ncx2_logpdf_sqrt(r, dim, b)  # noqa: E731
        amax = max(a, b)
        r_hi = (al * amax + mp.sqrt((al * amax) ** 2 + 4 * dim)) / 2 + 40
        tilted = lambda r: al * lp(r) + (1 - al) * lq(r)  # noqa: E731
        lo1, hi1, _ = _window(tilted, mp.mpf(10) ** -8, r_hi)
        lo2, hi2, _ = _window(lq, mp.mpf(10) ** -8, r_hi)
        lo, hi = min(lo1, lo2), max(hi1, hi2)
        lo = mp.mpf(0) if lo < 1 else lo

        def integrand(r):
            with mp.workdps(DPS):
                if r == 0:
                    return mp.mpf(0)
                ql = lq(r)
                ell = lp(r) - ql
                return mp.exp(ql) * (mp.expm1(al * ell) - al * mp.expm1(ell))

        pts = [lo + (hi - lo) * k / pieces for k in range(pieces + 1)]
        with mp.workdps(QUAD_DPS):  # quadrature tolerance ~1e-20; integrand at 40 digits
            hm1 = mp.quad(integrand, pts, method="gauss-legendre")
        return mp.log1p(hm1) / (al - 1)
