"""The independent mpmath reference of the tests: high-precision values for the engine.

Every numerical routine of synthamp is checked against this module. It is
independent of synthamp: nothing here imports synthamp (``tests/test_mpref.py``
checks it), and the references use representations different
from the library's (which uses Debye's expansion, Amos' ``ive`` and a
trapezoidal rule in t = r + log r, in double precision):

* ``log ₀F₁`` by its power series (mpmath's ``hyp0f1``) for moderate
  arguments, and otherwise by Poisson's integral
  ₀F₁(; ν+1; z²/4) = Γ(ν+1)/(√π Γ(ν+½)) ∫_ℝ sech(s)^{2ν+1} e^{z tanh s} ds
  (t = tanh s), integrated by the trapezoidal rule around its peak at 40+
  digits (or by mpmath's adaptive quadrature, :func:`log_hyp0f1_poisson_quad`);
* divergences and Fisher information by composite Gauss–Legendre quadrature in
  r = √x at 40 digits, with panels sized from a double-precision scan of the
  log-integrands; every value comes with the difference between the 24-node
  and the 12-node rule on the same panels (an upper bound on the error of the
  24-node rule), and the quadrature is checked to reproduce ∫ q = ∫ p = 1;
* the finite release by the Poisson mixture of the K-Bessel product densities
  of docs/theory.md §4 (upward recurrence of K_μ in the order), integrated in
  v = log s.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import mpmath as mp
import numpy as np
from scipy import special as sps

DPS = 40
#: Below this log-density drop (from its maximum) a region is neglected.
DROP = 85.0
#: A quadrature whose masses ∫q, ∫p miss 1 by more than this is rejected.
MASS_TOL = 1e-20


# ---------------------------------------------------------------------------
# Special functions
# ---------------------------------------------------------------------------


def _log_hyp0f1_trapezoid(nu, z):
    """log ₀F₁(; ν+1; z²/4) by the trapezoidal rule on Poisson's integral in s.

    f(s) = −(2ν+1) log cosh s + z tanh s is analytic in |Im s| < π/2 and
    peaked with width σ = cosh s*/√(2ν+1 + 2z tanh s*); with the step
    h = min(σ/2.3, 0.05) the discretisation error is below e^{−100}
    (≈ exp(−2π²σ²/h²), or exp(−π²/h + π²/(8σ²)) when σ > 0.1).
    """
    with mp.workdps(DPS + 5):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        m2 = 2 * nu + 1
        tau = 2 * z / (m2 + mp.sqrt(m2 * m2 + 4 * z * z))
        s_star = mp.atanh(tau)
        sigma = mp.cosh(s_star) / mp.sqrt(m2 + 2 * z * tau)
        h = min(sigma / mp.mpf(2.3), mp.mpf("0.05"))
        log2 = mp.log(2)
        exp, log1p = mp.exp, mp.log1p

        def f(s):
            e = exp(-2 * abs(s))
            tanh = (1 - e) / (1 + e)
            return -m2 * (abs(s) + log1p(e) - log2) + z * (tanh if s > 0 else -tanh)

        peak = f(s_star)
        total = mp.mpf(1)
        tiny = mp.mpf(10) ** -(DPS + 3)
        for direction in (1, -1):
            k = 1
            while True:
                term = exp(f(s_star + direction * k * h) - peak)
                total += term
                if term < tiny and k > 8:
                    break
                k += 1
        log_integral = peak + mp.log(h * total)
        return (
            mp.loggamma(nu + 1) - mp.log(mp.pi) / 2 - mp.loggamma(nu + mp.mpf(0.5)) + log_integral
        )


def log_hyp0f1(nu, z):
    """G_ν(z) = log ₀F₁(; ν+1; z²/4) = log(Γ(ν+1)(2/z)^ν I_ν(z)), to ≥ 35 digits.

    ν = −½: log cosh z. mpmath's ``hyp0f1`` (power series; asymptotic
    expansion at large z) when ν < 50 or when the series peaks early (at term
    k* = (√(ν² + z²) − ν)/2 ≤ 600); otherwise the trapezoidal rule on
    Poisson's integral.
    """
    with mp.workdps(DPS):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        if z == 0:
            return mp.mpf(0)
        y = z * z / 4
        if nu == mp.mpf(-0.5) and y >= 1:
            return z + mp.log1p(mp.exp(-2 * z)) - mp.log(2)
        if y < 1:  # log1p of the series without its leading 1 (G may be ~1e-300)
            term = mp.mpf(1)
            total = mp.mpf(0)
            k = 0
            while True:
                k += 1
                term = term * y / ((nu + k) * k)
                total += term
                if term < total * mp.mpf(10) ** -(DPS + 5):
                    return mp.log1p(total)
        peak_term = (mp.sqrt(nu * nu + z * z) - nu) / 2
        if nu < 50 or peak_term <= 600:
            return mp.log(mp.hyp0f1(nu + 1, y, maxterms=10**6))
        return +_log_hyp0f1_trapezoid(nu, z)


def log_hyp0f1_besseli(nu, z):
    """G_ν(z) from mpmath's ``besseli`` (for cross-checks; may not converge)."""
    with mp.workdps(DPS):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        return mp.loggamma(nu + 1) + nu * mp.log(2 / z) + mp.log(mp.besseli(nu, z))


def log_hyp0f1_poisson_quad(nu, z):
    """G_ν(z) by mpmath's adaptive quadrature of Poisson's integral in t (slow).

    ₀F₁ = Γ(ν+1)/(√π Γ(ν+½)) ∫_{−1}^{1} (1−t²)^{ν−½} e^{zt} dt, shifted by
    its peak value and split around the peak (ν > ½). Used to cross-check
    :func:`log_hyp0f1` with a third representation.
    """
    with mp.workdps(DPS):
        nu = mp.mpf(nu)
        z = mp.mpf(z)
        m = nu - mp.mpf(0.5)
        tstar = (-2 * m + mp.sqrt(4 * m * m + 4 * z * z)) / (2 * z)

        def h(t):
            return m * mp.log1p(-t * t) + z * t

        peak = h(tstar)
        width = 1 / mp.sqrt(2 * m * (1 + tstar**2) / (1 - tstar**2) ** 2)
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


def ncx2_logpdf(x, dim, amp):
    """log density of χ²_d(amp²) at x > 0, at 40 digits."""
    with mp.workdps(DPS):
        x = mp.mpf(x)
        d = mp.mpf(dim)
        a = mp.mpf(amp)
        return (
            (d / 2 - 1) * mp.log(x)
            - x / 2
            - (d / 2) * mp.log(2)
            - mp.loggamma(d / 2)
            - a * a / 2
            + log_hyp0f1(d / 2 - 1, a * mp.sqrt(x))
        )


def ncx2_logpdf_sqrt(r, dim, amp):
    """log density of R = √X, X ~ χ²_d(amp²): the noncentral chi law."""
    with mp.workdps(DPS):
        r = mp.mpf(r)
        return mp.log(2 * r) + ncx2_logpdf(r * r, dim, amp)


def log_likelihood_ratio(x, dim, amp_p, amp_q):
    """log p(x)/q(x) for χ²_d(amp_p²) vs χ²_d(amp_q²): difference of 40-digit log-densities."""
    with mp.workdps(DPS):
        x = mp.mpf(x)
        nu = mp.mpf(dim) / 2 - 1
        a = mp.mpf(amp_p)
        b = mp.mpf(amp_q)
        r = mp.sqrt(x)
        return -(a * a - b * b) / 2 + log_hyp0f1(nu, a * r) - log_hyp0f1(nu, b * r)


# ---------------------------------------------------------------------------
# Double-precision approximations, used only to place quadrature panels
# ---------------------------------------------------------------------------


def _approx_log_hyp0f1(nu: float, z: np.ndarray) -> np.ndarray:
    """G_ν(z) to about 1e-2 absolute: Amos' ``ive`` (ν < 50) or Debye's leading term."""
    z = np.asarray(z, dtype=float)
    y = 0.25 * z * z
    if nu < 50:
        series = np.log1p(y / (nu + 1) * (1 + y / (2 * (nu + 2)) * (1 + y / (3 * (nu + 3)))))
        with np.errstate(divide="ignore", invalid="ignore"):
            zz = np.where(y < 1, 1.0, z)
            log_ive = np.log(sps.ive(nu, zz))
            # scipy's ive is NaN beyond z ≈ 2·10⁹ (C/σ = 10⁵): Hankel's leading terms there
            hankel = -0.5 * np.log(2 * np.pi * zz) - (4 * nu * nu - 1) / (8 * zz)
            log_ive = np.where(np.isfinite(log_ive), log_ive, hankel)
            big = log_ive + zz + sps.gammaln(nu + 1) + nu * np.log(2 / zz)
        return np.where(y < 1, series, big)
    w = z / nu
    root = np.sqrt(1 + w * w)
    return (
        sps.gammaln(nu + 1)
        - 0.5 * np.log(2 * np.pi * nu)
        + nu * (root + np.log(2 / (nu * (1 + root))))
        - 0.25 * np.log1p(w * w)
    )


def _approx_log_density_r(r: np.ndarray, dim: int, amp: float) -> np.ndarray:
    """log density of R = √X, X ~ χ²_d(amp²), up to a constant that depends on d only."""
    with np.errstate(divide="ignore"):
        out = (dim - 1) * np.log(r) - 0.5 * r * r - 0.5 * amp * amp
    if amp > 0:
        out = out + _approx_log_hyp0f1(0.5 * dim - 1, amp * r)
    return out


def _approx_log_density_logy(w: np.ndarray, dim: int, amp: float) -> np.ndarray:
    """log density of W = log X, X ~ χ²_d(amp²), up to a constant that depends on d only."""
    x = np.exp(w)
    out = 0.5 * dim * w - 0.5 * x - 0.5 * amp * amp
    if amp > 0:
        out = out + _approx_log_hyp0f1(0.5 * dim - 1, amp * np.sqrt(x))
    return out


def _active_hull(t: np.ndarray, logfs: list[np.ndarray]) -> np.ndarray:
    """Mask of scan points where some log-integrand is within DROP of its maximum."""
    active = np.zeros(t.shape, dtype=bool)
    for f in logfs:
        active |= f > np.max(f) - DROP
    return active


def _clusters(t: np.ndarray, active: np.ndarray, pad: int = 3) -> list[tuple[float, float]]:
    """Intervals of consecutive active scan points, padded by ``pad`` points."""
    idx = np.flatnonzero(active)
    out: list[tuple[float, float]] = []
    start = prev = idx[0]
    for i in [*idx[1:], None]:
        if i is None or i > prev + 1:
            lo = t[max(start - pad, 0)]
            hi = t[min(prev + pad, len(t) - 1)]
            if out and lo <= out[-1][1]:
                out[-1] = (out[-1][0], hi)
            else:
                out.append((lo, hi))
            if i is not None:
                start = i
        if i is not None:
            prev = i
    return out


def _panel_edges(
    t: np.ndarray, logfs: list[np.ndarray], smooth: list[np.ndarray] | None = None
) -> np.ndarray:
    """Panel edges over the active hull: width ≤ 2σ_local and ≤ (8 + 0.4 L)/|slope|.

    L is the drop of the log-integrand below its maximum: a panel far in a
    tail may be less accurate relative to itself. With these widths the
    12-node rule is accurate to ~1e-17 relative on Gaussian-like integrands,
    so the difference of the two rules is a tight bound on the error of the
    24-node rule (whose own error is ~1e-40).

    ``t`` is a fine scan grid (increasing), ``logfs`` the approximate
    log-integrands on it, ``smooth`` (optional, same length) the parts of them
    whose derivatives limit the panel width (e.g. without a polynomial factor
    that Gauss–Legendre integrates exactly).
    """
    smooth = logfs if smooth is None else smooth
    active_any = _active_hull(t, logfs)
    idx = np.flatnonzero(active_any)
    lo = t[max(idx[0] - 1, 0)]
    hi = t[min(idx[-1] + 1, len(t) - 1)]
    allowed = np.full(t.shape, np.inf)
    for f, g in zip(logfs, smooth, strict=True):
        active = f > np.max(f) - DROP
        g1 = np.gradient(g, t)
        g2 = np.gradient(g1, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            drop = np.max(f) - f
            width = np.minimum(2.0 / np.sqrt(np.abs(g2)), (8.0 + 0.4 * drop) / np.abs(g1))
        width = np.where(np.isnan(width), np.inf, width)
        allowed = np.where(active, np.minimum(allowed, width), allowed)
    allowed = np.minimum(allowed, (hi - lo) / 6)
    edges = [lo]
    floor = (hi - lo) * 1e-7
    while edges[-1] < hi:
        start = edges[-1]
        # the widest W with W ≤ min(allowed) over the scan points in [start, start + W]
        i0 = np.searchsorted(t, start, side="right")
        i1 = np.searchsorted(t, start + (hi - lo) / 6, side="right") + 1
        delta = np.concatenate([[0.0], t[i0:i1] - start])
        prefix_min = np.minimum.accumulate(
            np.concatenate([[float(np.interp(start, t, allowed))], allowed[i0:i1]])
        )
        valid = delta <= prefix_min
        upper = np.concatenate([delta[1:], [np.inf]])
        width = float(np.max(np.minimum(upper, prefix_min)[valid]))
        width = max(width, floor)
        edges.append(min(start + width, hi))
        if len(edges) > 4000:
            raise RuntimeError("mpref: too many panels")
    return np.asarray(edges)


def _refine_scan(coarse: np.ndarray, active: np.ndarray, points: int, floor: float = -np.inf):
    """Fine scan grid: ``points`` points over each active cluster of a coarse scan."""
    parts = []
    for lo, hi in _clusters(coarse, active):
        parts.append(np.linspace(max(lo, floor), hi, points))
    return np.unique(np.concatenate(parts))


# ---------------------------------------------------------------------------
# Composite Gauss–Legendre quadrature at 40 digits
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _gl_rule(degree: int):
    """mpmath's Gauss–Legendre nodes and weights on [−1, 1] (3·2^(degree−1) nodes)."""
    with mp.workdps(DPS + 10):
        rule = mp.calculus.quadrature.GaussLegendre(mp.mp)
        return tuple(rule.calc_nodes(degree, mp.mp.prec))


def _composite_nodes(edges: np.ndarray):
    """Nodes of the 24- and 12-node rules on every panel, with weights of both."""
    fine, coarse = _gl_rule(4), _gl_rule(3)
    nodes, w_fine, w_coarse = [], [], []
    with mp.workdps(DPS):
        for lo, hi in itertools.pairwise(edges):
            lo, hi = mp.mpf(float(lo)), mp.mpf(float(hi))
            half, mid = (hi - lo) / 2, (hi + lo) / 2
            for x, w in fine:
                nodes.append(mid + half * x)
                w_fine.append(half * w)
                w_coarse.append(mp.mpf(0))
            for x, w in coarse:
                nodes.append(mid + half * x)
                w_fine.append(mp.mpf(0))
                w_coarse.append(half * w)
    return nodes, w_fine, w_coarse


def _phi(alpha, ell):
    """φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0 (series when α|ℓ| is small)."""
    if abs(alpha * ell) > mp.mpf("1e-3"):
        return mp.expm1(alpha * ell) - alpha * mp.expm1(ell)
    total = mp.mpf(0)
    term = ell * ell / 2
    k = 2
    while True:
        piece = (alpha**k - alpha) * term
        total += piece
        if abs(piece) <= abs(total) * mp.mpf(10) ** -(DPS + 2) or k > 60:
            return total
        k += 1
        term = term * ell / k


@dataclasses.dataclass(frozen=True)
class Reference:
    """A reference value per order with a bound on its own quadrature error."""

    alpha: list
    value: list  # mpf
    error: list  # mpf, |24-node rule − 12-node rule| propagated

    def floats(self) -> np.ndarray:
        return np.array([float(v) for v in self.value])

    def errors(self) -> np.ndarray:
        return np.array([float(e) for e in self.error])


def _renyi_from_sums(alphas, hm1_fine, hm1_coarse, tail):
    values, errors = [], []
    for al, hf, hc, tl in zip(alphas, hm1_fine, hm1_coarse, tail, strict=True):
        values.append(mp.log1p(hf) / (al - 1))
        errors.append((abs(hf - hc) + tl) / ((1 + hf) * (al - 1)))
    return values, errors


def _check_mass(name: str, fine, coarse) -> None:
    if abs(fine - 1) > MASS_TOL or abs(coarse - 1) > 1e-12:
        raise RuntimeError(f"mpref: quadrature mass of {name} is {mp.nstr(fine, 30)}")


class _RenyiSums:
    """Fine and coarse quadrature sums of q, p = q·e^ℓ and q·φ_α(ℓ) for each order.

    Used inside ``mp.workdps(DPS)``; :meth:`add` takes one node, :meth:`result`
    checks both masses and returns the divergences with their error bounds.
    """

    def __init__(self, alphas):
        self.alphas = alphas
        self.mass = {k: [mp.mpf(0), mp.mpf(0)] for k in ("q", "p")}
        self.hm1 = [[mp.mpf(0), mp.mpf(0)] for _ in alphas]

    def add(self, log_q, ell, w_fine, w_coarse) -> list:
        """Add the node where log q = ``log_q`` and log p/q = ``ell``; its q·φ_α(ℓ) terms."""
        q = mp.exp(log_q)
        for key, val in (("q", q), ("p", q * mp.exp(ell))):
            self.mass[key][0] += w_fine * val
            self.mass[key][1] += w_coarse * val
        terms = [q * _phi(al, ell) for al in self.alphas]
        for acc, term in zip(self.hm1, terms, strict=True):
            acc[0] += w_fine * term
            acc[1] += w_coarse * term
        return terms

    def result(self, tail):
        """(values, errors) over the orders, ``tail`` bounding the mass beyond the nodes."""
        for key in ("q", "p"):
            _check_mass(key, *self.mass[key])
        return _renyi_from_sums(
            self.alphas, [h[0] for h in self.hm1], [h[1] for h in self.hm1], tail
        )


# ---------------------------------------------------------------------------
# Plateau, Fisher information
# ---------------------------------------------------------------------------


def _alphas(alpha) -> list:
    return [mp.mpf(a) for a in (alpha if np.ndim(alpha) else [alpha])]


def _plateau_panels(alphas, dim: int, a: float, b: float, extra_tilts=()) -> np.ndarray:
    """Panels in r covering q, p and the tilted laws q e^{αℓ} (double-precision scan)."""
    tilts = [0.0, 1.0, *(float(al) for al in alphas), *extra_tilts]
    big = max(abs(t * a - (t - 1) * b) for t in tilts) + a + b
    r_max = 1.5 * (big + math.sqrt(big * big + 4 * dim)) / 2 + 40
    coarse = np.unique(
        np.concatenate([np.linspace(0, r_max, 40001), np.geomspace(1e-12, r_max, 4001)])
    )
    coarse = coarse[coarse > 0]

    def logfs(r):
        lq = _approx_log_density_r(r, dim, b)
        ell = _approx_log_density_r(r, dim, a) - lq
        return [lq + t * ell for t in tilts]

    fine = _refine_scan(coarse, _active_hull(coarse, logfs(coarse)), 8001, floor=1e-300)
    fs = logfs(fine)
    smooth = [f - (dim - 1) * np.log(fine) for f in fs] if dim <= 16 else None
    edges = _panel_edges(fine, fs, smooth)
    if edges[0] < 2 * (fine[1] - fine[0]) or (dim <= 16 and edges[0] < 0.05 * edges[-1]):
        edges[0] = 0.0
    return edges


def renyi_plateau(alpha, dim: int, a: float, b: float) -> Reference:
    """D_α(χ²_d(a²) ‖ χ²_d(b²)) for each α, by Gauss–Legendre in r = √x at 40 digits.

    H − 1 = ∫ q φ_α(ℓ) with φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0 (no
    cancellation), D = log1p(H − 1)/(α − 1). Raises if the quadrature does not
    reproduce ∫q = ∫p = 1 to 1e-20 (the defect is added to the error).
    """
    alphas = _alphas(alpha)
    if a == b:
        zero = [mp.mpf(0)] * len(alphas)
        return Reference(alphas, zero, zero)
    edges = _plateau_panels(alphas, dim, a, b)
    nodes, wf, wc = _composite_nodes(edges)
    with mp.workdps(DPS):
        nu = mp.mpf(dim) / 2 - 1
        am, bm = mp.mpf(a), mp.mpf(b)
        const = mp.log(2) - (mp.mpf(dim) / 2) * mp.log(2) - mp.loggamma(mp.mpf(dim) / 2)
        sums = _RenyiSums(alphas)
        last = []
        for r, w_f, w_c in zip(nodes, wf, wc, strict=True):
            if r == 0:
                continue
            gb = log_hyp0f1(nu, bm * r)
            ga = log_hyp0f1(nu, am * r)
            log_q = const + (dim - 1) * mp.log(r) - r * r / 2 - bm * bm / 2 + gb
            ell = -(am - bm) * (am + bm) / 2 + ga - gb
            last = sums.add(log_q, ell, w_f, w_c)
        # mass beyond the right end: the integrand at the last node times a panel width
        width = mp.mpf(float(edges[-1] - edges[-2]))
        values, errors = sums.result([t * width for t in last])
    return Reference(alphas, values, errors)


def fisher_information(dim: int, theta: float) -> tuple:
    """I(d, θ) = E[(√X R_ν(θ√X) − θ)²], X ~ χ²_d(θ²), with its quadrature error."""
    if theta == 0:
        return mp.mpf(0), mp.mpf(0)
    edges = _plateau_panels([], dim, theta, theta)
    nodes, wf, wc = _composite_nodes(edges)
    with mp.workdps(DPS):
        nu = mp.mpf(dim) / 2 - 1
        th = mp.mpf(theta)
        const = mp.log(2) - (mp.mpf(dim) / 2) * mp.log(2) - mp.loggamma(mp.mpf(dim) / 2)
        mass = [mp.mpf(0), mp.mpf(0)]
        info = [mp.mpf(0), mp.mpf(0)]
        for r, w_f, w_c in zip(nodes, wf, wc, strict=True):
            if r == 0:
                continue
            z = th * r
            g0 = log_hyp0f1(nu, z)
            g1 = log_hyp0f1(nu + 1, z)
            ratio = z / (2 * (nu + 1)) * mp.exp(g1 - g0)
            q = mp.exp(const + (dim - 1) * mp.log(r) - r * r / 2 - th * th / 2 + g0)
            score = r * ratio - th
            for acc, val in ((mass, q), (info, q * score * score)):
                acc[0] += w_f * val
                acc[1] += w_c * val
        _check_mass("q", *mass)
        return info[0], abs(info[0] - info[1])


def renyi2_central(dim: int, a: float):
    """Closed form D_2(χ²_d(a²) ‖ χ²_d) = log ₀F₁(; d/2; a⁴/4) = G_{d/2−1}(a²).

    E_q[(p/q)²] = e^{−λ} E[₀F₁(d/2; λX/4)²] with X ~ χ²_d, λ = a²; with
    ₀F₁(c; z)² = ₁F₂(c − ½; c, 2c − 1; 4z) and E[X^k] = 2^k (d/2)_k this is
    e^{−λ} ₁F₁(d/2 − ½; d − 1; 2λ) = ₀F₁(; d/2; λ²/4) (Kummer). For d = 1:
    log cosh a².
    """
    with mp.workdps(DPS):
        return log_hyp0f1(mp.mpf(dim) / 2 - 1, mp.mpf(a) ** 2)


# ---------------------------------------------------------------------------
# Finite release: S = Y·X, Y ~ χ²_d(λ), X ~ χ²_n
# ---------------------------------------------------------------------------


def _besselk_pair_trapezoid(nu, x):
    """(K_ν(x), K_{ν+1}(x)) from K_μ(x) = ∫_0^∞ e^{−x cosh t} cosh(μt) dt (x ≥ 2).

    Trapezoidal rule: the integrand is entire and decays in |Im t| < π/2; with
    the step h = min(0.08, 1/(2.3√x)) the error is below e^{−100}.
    """
    with mp.workdps(DPS + 5):
        nu, x = mp.mpf(nu), mp.mpf(x)
        h = min(mp.mpf("0.08"), 1 / (mp.mpf(2.3) * mp.sqrt(x)))
        total0 = total1 = mp.mpf(1) / 2  # t = 0, relative to e^{−x}
        tiny = mp.mpf(10) ** -(DPS + 3)
        k = 1
        while True:
            t = k * h
            base = mp.exp(-x * (mp.cosh(t) - 1))
            term0 = base * mp.cosh(nu * t)
            term1 = base * mp.cosh((nu + 1) * t)
            total0 += term0
            total1 += term1
            if term1 < tiny * total1 and x * (mp.cosh(t) - 1) > (abs(nu) + 1) * t + 10:
                break
            k += 1
        scale = h * mp.exp(-x)
        return total0 * scale, total1 * scale


def _besselk01_series(x):
    """(K_0(x), K_1(x)) for x < 2 by the ascending series (A&S 9.6.13) and the Wronskian.

    K_0 = −(log(x/2) + γ) I_0 + Σ_{k≥1} (x²/4)^k H_k/(k!)², H_k the harmonic
    numbers; K_1 = (1/x − I_1 K_0)/I_0.
    """
    with mp.workdps(DPS + 10):
        x = mp.mpf(x)
        y = x * x / 4
        term = mp.mpf(1)  # (x²/4)^k/(k!)²
        i0, i1_sum, harmonic_sum = mp.mpf(1), mp.mpf(1), mp.mpf(0)
        harmonic = mp.mpf(0)
        k = 0
        while True:
            k += 1
            term = term * y / (k * k)
            harmonic += mp.mpf(1) / k
            i0 += term
            i1_sum += term / (k + 1)
            harmonic_sum += term * harmonic
            if term < mp.mpf(10) ** -(DPS + 10):
                break
        i1 = x / 2 * i1_sum
        k0 = -(mp.log(x / 2) + mp.euler) * i0 + harmonic_sum
        k1 = (1 / x - i1 * k0) / i0
        return k0, k1


def _besselk_pair(nu, x):
    """(K_ν(x), K_{ν+1}(x)) for ν ∈ {0, ½}: closed form, ascending series or trapezoid."""
    with mp.workdps(DPS):
        if nu == mp.mpf(0.5):
            k_half = mp.sqrt(mp.pi / (2 * x)) * mp.exp(-x)
            return k_half, k_half * (1 + 1 / x)
        if x < 2:
            k0, k1 = _besselk01_series(x)
        else:
            k0, k1 = _besselk_pair_trapezoid(nu, x)
        return +k0, +k1


class _FiniteModel:
    """log q_S and ℓ_S for S = Y·X by the Poisson mixture of K-Bessel product densities.

    q_S(s) = Σ_j Pois(j; λ/2) g_{d+2j, n}(s) with
    g_{p,n}(s) = s^{(p+n)/4−1} K_{(p−n)/2}(√s) / (2^{(p+n)/2−1} Γ(p/2) Γ(n/2))
    (docs/theory.md §4). With x = √s and μ₀ = (d − n)/2 the sum is
    C(s) Σ_j e^{−λ/2} (λ/2)^j (x/2)^j K_{μ₀+j}(x) / (j! Γ(d/2 + j)), C(s) common
    to p and q. K_μ for μ ∈ μ₀ + ℕ comes from K_f, K_{f+1} (f = |μ₀| mod 1)
    by the upward recurrence K_{μ+1} = K_{μ−1} + (2μ/x) K_μ (stable for K)
    and K_{−μ} = K_μ.
    """

    def __init__(self, dim: int, n: int, amp_p, amp_q):
        with mp.workdps(DPS):
            self.d = mp.mpf(dim)
            self.n = n
            self.lams = (mp.mpf(amp_p) ** 2, mp.mpf(amp_q) ** 2)
            self.mu0 = (self.d - n) / 2
            self.frac = abs(self.mu0) % 1
            self.log_c0 = -((self.d + n) / 2 - 1) * mp.log(2) - mp.loggamma(mp.mpf(n) / 2)
            self.inv_gamma_d = 1 / mp.gamma(self.d / 2)

    def at(self, v):
        """(log q_{log S}(v), ℓ_S(v)) at v = log s."""
        with mp.workdps(DPS):
            v = mp.mpf(v)
            x = mp.exp(v / 2)
            ladder = list(_besselk_pair(self.frac, x))

            def bessel_k(order):
                m = int(abs(order) - self.frac)
                while len(ladder) <= m:
                    k = len(ladder) - 1
                    ladder.append(ladder[k - 1] + 2 * (self.frac + k) / x * ladder[k])
                return ladder[m]

            sums = []
            eps = mp.mpf(10) ** -(DPS + 5)
            for lam in self.lams:
                half = lam / 2
                coef = mp.exp(-half) * self.inv_gamma_d
                total = coef * bessel_k(self.mu0)
                if lam == 0:
                    sums.append(total)
                    continue
                previous = total
                step = half * x / 2
                j = 0
                while True:
                    coef = coef * step / ((j + 1) * (self.d / 2 + j))
                    j += 1
                    term = coef * bessel_k(self.mu0 + j)
                    total += term
                    if j > half and term < previous and term < total * eps:
                        break
                    previous = term
                    if j > 10**6:
                        raise RuntimeError("mpref: Poisson sum did not converge")
                sums.append(total)
            log_q = ((self.d + self.n) / 4 - 1) * v + self.log_c0 + mp.log(sums[1]) + v
            return log_q, mp.log(sums[0]) - mp.log(sums[1])


def _finite_panels(alphas, dim: int, n: int, a: float, b: float) -> np.ndarray:
    """Panels in v = log s from a double-precision convolution of log Y and log X."""
    tilts = [0.0, 1.0, *(float(al) for al in alphas)]
    big = max(abs(t * a - (t - 1) * b) for t in tilts) + a + b
    y_max = (1.5 * (big + math.sqrt(big * big + 4 * dim)) / 2 + 40) ** 2
    w_lo = math.log(y_max) - 2 * DROP / dim - 60
    wy = np.linspace(w_lo, math.log(y_max), 4001)

    def y_logfs(w):
        lq = _approx_log_density_logy(w, dim, b)
        ell = _approx_log_density_logy(w, dim, a) - lq
        return lq, ell

    # one uniform grid from the left end of q_Y to the right end of the most tilted law:
    # the tilted law of S may take Y anywhere in between
    lq, ell = y_logfs(wy)
    hull = np.flatnonzero(_active_hull(wy, [lq + t * ell for t in tilts]))
    wy = np.linspace(wy[max(hull[0] - 3, 0)], wy[min(hull[-1] + 3, len(wy) - 1)], 3001)
    lq, ell = y_logfs(wy)
    wy_step = np.full(wy.shape, wy[1] - wy[0])
    # log X, X ~ χ²_n. The tilted law of S is dominated by (tilted Y)·X (Jensen:
    # L_S^α ≤ E[L_Y^α | S]) with a normalisation up to e^{(α−1)(D_Y − D_S)}, so the
    # window of X extends by (α−1)·α(a−b)²/2 (post-processing bound on D_Y) to the
    # right, and by α·max(0, b² − a²)/2 (ℓ_S at s → 0) to the left.
    alpha_max = max(tilts)
    drop_right = DROP + (alpha_max - 1) * alpha_max * (a - b) ** 2 / 2
    drop_left = DROP + alpha_max * max(0.0, b * b - a * a) / 2
    spread = math.sqrt(float(sps.polygamma(1, n / 2)))
    core = np.linspace(-16 * spread - 1, 3 * spread + 1, 2001)
    left = -np.geomspace(16 * spread + 1, 2 * drop_left / n + 16 * spread + 1, 400)
    right = np.geomspace(3 * spread + 1, math.log1p(2 * drop_right / n) + 3 * spread + 1, 400)
    wx = math.log(n) + np.unique(np.concatenate([left, core, right]))
    log_fx = 0.5 * n * wx - 0.5 * np.exp(wx)
    v_lo = wy[0] + wx[0]
    v_hi = wy[-1] + wx[-1]
    v = np.linspace(v_lo, v_hi, 1501)
    # convolution on the scan: log q_S(v) and ℓ_S(v) = log E_q[e^ℓ | S]
    log_fx_at = np.interp(v[:, None] - wy[None, :], wx, log_fx, left=-np.inf, right=-np.inf)
    joint = lq[None, :] + log_fx_at + np.log(wy_step)[None, :]
    log_qs = sps.logsumexp(joint, axis=1)
    ell_s = sps.logsumexp(joint + ell[None, :], axis=1) - log_qs
    fs = [log_qs + t * ell_s for t in tilts]
    fine = _refine_scan(v, _active_hull(v, fs), 1501)
    log_fx_at = np.interp(fine[:, None] - wy[None, :], wx, log_fx, left=-np.inf, right=-np.inf)
    joint = lq[None, :] + log_fx_at + np.log(wy_step)[None, :]
    log_qs = sps.logsumexp(joint, axis=1)
    ell_s = sps.logsumexp(joint + ell[None, :], axis=1) - log_qs
    return _panel_edges(fine, [log_qs + t * ell_s for t in tilts])


def renyi_finite(alpha, dim: int, a: float, b: float, n: int) -> Reference:
    """D_α(Y_a X ‖ Y_b X), Y_θ ~ χ²_d(θ²), X ~ χ²_n, by the Poisson–K mixture.

    Gauss–Legendre in v = log s at 40 digits; raises if ∫q_S, ∫p_S miss 1.
    """
    alphas = _alphas(alpha)
    if a == b:
        zero = [mp.mpf(0)] * len(alphas)
        return Reference(alphas, zero, zero)
    edges = _finite_panels(alphas, dim, n, a, b)
    nodes, wf, wc = _composite_nodes(edges)
    with mp.workdps(DPS):
        model = _FiniteModel(dim, n, a, b)
        sums = _RenyiSums(alphas)
        first = last = None
        for v, w_f, w_c in zip(nodes, wf, wc, strict=True):
            last = sums.add(*model.at(v), w_f, w_c)
            first = last if first is None else first
        w_first = mp.mpf(float(edges[1] - edges[0]))
        w_last = mp.mpf(float(edges[-1] - edges[-2]))
        tail = [f * w_first + t * w_last for f, t in zip(first, last, strict=True)]
        values, errors = sums.result(tail)
    return Reference(alphas, values, errors)


def log_likelihood_ratio_finite(s, dim: int, n: int, amp_p: float, amp_q: float):
    """log p_S(s)/q_S(s) for S = Y·X by the Poisson–K mixture (40 digits)."""
    with mp.workdps(DPS):
        _, ell = _FiniteModel(dim, n, amp_p, amp_q).at(mp.log(mp.mpf(s)))
        return ell


def finite_logpdf(s, dim: int, n: int, amp: float):
    """log density of S = Y·X at s > 0 (Poisson–K mixture, 40 digits)."""
    with mp.workdps(DPS):
        v = mp.log(mp.mpf(s))
        log_q, _ = _FiniteModel(dim, n, amp, amp).at(v)
        return log_q - v


def _upper_gamma_fraction(a, x):
    """Γ(a, x)/Γ(a) for x > a + 1 by Legendre's continued fraction (modified Lentz)."""
    tiny = mp.mpf(10) ** (-3 * DPS)
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in itertools.count(1):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if d != 0 else tiny)
        c = b + an / c
        c = c if c != 0 else tiny
        step = d * c
        h *= step
        if abs(step - 1) < mp.mpf(10) ** (-DPS - 2):
            break
    return mp.exp(-x + a * mp.log(x) - mp.loggamma(a)) * h


def ncx2_log_tail(x, dim: int, amp, upper: bool):
    """log P(T > x) (``upper``) or log P(T <= x), T ~ χ²_d(amp²), and a bound on its error.

    By conditioning on the component along the mean: T = (a + Z)² + W, Z ~ N(0, 1),
    W ~ χ²_{d−1}, so P(T > x) = Φ̄(z₀) + Φ(−√x − a) + ∫_{−√x−a}^{z₀} φ(z) Q((d−1)/2,
    (x − (a+z)²)/2) dz with z₀ = √x − a and Q the regularised upper incomplete gamma
    function (mpmath's ``gammainc``), and P(T <= x) the same integral with P = 1 − Q.
    mpmath's tanh-sinh quadrature on panels split at z = −40 … 40 and where the gamma
    function's argument is (d−1)/2 + j√((d−1)/2), at 40 digits. Returns (log value, relative
    error estimate of the quadrature). d = 1: the closed form.
    """
    with mp.workdps(DPS):
        x, a = mp.mpf(x), mp.mpf(amp)
        r = mp.sqrt(x)
        z0, z_min = r - a, -r - a
        half = mp.mpf(dim - 1) / 2
        if dim == 1:
            value = mp.ncdf(-z0) + mp.ncdf(z_min) if upper else mp.ncdf(z0) - mp.ncdf(z_min)
            return mp.log(value), mp.mpf(0)

        def integrand(z):
            y = (x - (a + z) ** 2) / 2
            weight = mp.npdf(z)
            if y <= 0:
                return weight if upper else mp.mpf(0)
            # the smaller of P and Q directly (series below the mean, the upper function
            # above it), the other as its complement, which is then >= ~1/2
            if y < half:
                lower = mp.gammainc(half, 0, y, regularized=True)
                return weight * (1 - lower if upper else lower)
            try:
                upper_q = mp.gammainc(half, y, mp.inf, regularized=True)
            except (ValueError, mp.libmp.NoConvergence):  # tiny: Legendre's continued fraction
                upper_q = _upper_gamma_fraction(half, y)
            return weight * (upper_q if upper else 1 - upper_q)

        points = {z0, z_min}
        points.update(mp.mpf(z) for z in range(-40, 41))
        # φ(z) decays on the scale 1/(1 + |z₀|) below z₀ (the far tails' mass sits there)
        points.update(z0 - mp.mpf(j) / (1 + abs(z0)) for j in (1, 2, 4, 8, 16, 32, 64))
        for j in range(-60, 61):
            y2 = 2 * (half + j * mp.sqrt(half))  # x − (a + z)² at the argument half + j√half
            if 0 < y2 < x:
                points.add(mp.sqrt(x - y2) - a)
        points = sorted(p for p in points if z_min <= p <= z0)
        # the mass is where φ(z) is not negligible; beyond |z| > 40 bound the rest by φ's tail
        lo = max(z_min, mp.mpf(-60))
        inner = [p for p in points if p >= lo]
        if inner[0] > lo:
            inner = [lo, *inner]
        value, err = mp.quad(integrand, inner, error=True, maxdegree=8)
        rest = mp.ncdf(lo) - mp.ncdf(z_min) if lo > z_min else mp.mpf(0)
        if upper:
            value += mp.ncdf(-z0) + mp.ncdf(z_min) + rest
        else:
            err += rest  # P <= 1 on the omitted part below z = −60
        return mp.log(value), err / value
