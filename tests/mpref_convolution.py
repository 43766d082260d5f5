"""The finite-release reference at large amplitudes: log S = log Y + log X as a convolution.

Part of the independent reference of the tests (tests/mpref.py): nothing here
imports synthamp (tests/test_mpref.py checks it). The Poisson–K mixture of
:func:`mpref.renyi_finite` needs about a²/2 terms per node and cannot run at
a ≥ 200 (a = 1000: 5·10⁵ terms per node); this reference scales with a, d and
n_syn:

* **Y.** With U = log Y, Y ~ χ²_d(b²), the log-density log q_U(u) and the
  log-likelihood ratio ℓ_Y(u) (amplitude a against b) are computed at 40 digits
  by mpmath (:func:`mpref.log_hyp0f1`: power series or Poisson's integral, the
  large terms of ℓ_Y cancelling at 40 digits) at the 25 Chebyshev points of
  panels of width 0.1 in u, and represented by their degree-24 Chebyshev series
  (both functions are analytic in |Im u| < π). The interpolation error is
  measured on every panel at two further points against direct mpmath values
  and propagated into the error bound. Panels are computed once per (d, a, b)
  and shared by every n_syn and every outer node.
* **X.** W = log(X/n), X ~ χ²_n, has the closed-form log-density
  (n/2)(w − expm1(w)) + (n/2)(log(n/2) − 1) − log Γ(n/2).
* **Inner integrals.** For each outer node v = log(S/n), q_V(v) = ∫ q_U(u) f_W(v − u) du
  and the same with the weights e^{ℓ_Y}: composite Gauss–Legendre, 24 and 12
  nodes on the same panels, over a window fitted to the conditional laws of U
  given V = v under q and p (a two-stage scan; panels no wider than two local
  standard deviations). ℓ_S(v) = log E_q[e^{ℓ_Y} | V = v], as log1p of the
  conditional mean of expm1(ℓ_Y) when small.
* **Outer integral.** H − 1 = ∫ q_V φ_α(ℓ_S) dv with φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1)
  ≥ 0 (no cancellation), composite Gauss–Legendre (24 and 12 nodes) on panels
  placed from a scan of q_V, p_V and the tilted laws (:func:`mpref._panel_edges`).
* **Precision.** The digits that cancel (ℓ_Y, a difference of two log-Bessel
  functions of size a√y ~ 10⁶) are resolved at 40 digits. The Chebyshev series
  are summed in double precision (their rounding is part of the interpolation
  error measured against mpmath); the nodes and the kernel's argument v − u are
  in extended precision (numpy.longdouble, 64-bit mantissa, eps 1.1e-19,
  checked at import: at n = 10⁷ the kernel's log-slope is ~10⁴); the
  convolution sums are of positive terms, in double precision (a floor of
  64 eps relative in the error bound).

Error bound of each value: |fine − coarse| of the outer rule, the first-order
effect of the inner errors (|fine − coarse| of the inner rules, the mass at the
ends of the inner windows, the interpolation error of log q_U and ℓ_Y), and the
integrand at the outer ends times a panel width. An error δ of the
log-weights moves ℓ_S by E_p[δ] − E_q[δ] under the conditional laws given v,
so it enters as the bound on |δ| weighted by q|L/L̄ − 1| (small when p and q
are close). Raises if ∫ q_V or ∫ p_V miss 1 by more than 1e-12, if an inner
window is cut by the end of the Y panels after extending them, or if the Y
model would need more than 400 panels.
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np

import mpref

LD = np.longdouble
EXTENDED = np.finfo(LD).eps <= 1.1e-19
#: Degree of the Chebyshev series of a Y panel.
DEGREE = 24
#: Below this log drop (from a law's maximum) a region is neglected.
DROP = mpref.DROP
#: A quadrature whose masses ∫q_V, ∫p_V miss 1 by more than this is rejected.
MASS_TOL = 1e-12
_MAX_PANELS = 400


def _ld(x) -> np.longdouble:
    return LD(mp.nstr(x, 25, strip_zeros=False))


def _gl(degree: int):
    """Gauss–Legendre nodes and weights on [−1, 1] in extended precision."""
    nodes, weights = zip(*mpref._gl_rule(degree), strict=True)
    return np.array([_ld(x) for x in nodes]), np.array([_ld(w) for w in weights])


_FINE, _COARSE = _gl(4), _gl(3)  # 24 and 12 nodes


class YModel:
    """Chebyshev series of log q_U(u) and ℓ_Y(u) on panels [kP, (k+1)P] of u = log y.

    The panel width P is ten standard deviations of U (about
    10·√(2d + 4b²)/(d + b²)), clipped to [0.1, 0.5]: well inside the strip of
    analyticity |Im u| < π, and narrow enough that the series' coefficients
    stay small (their size sets the rounding error of the evaluation).
    """

    def __init__(self, dim: int, a: float, b: float):
        self.dim, self.a, self.b = dim, a, b
        self.spread = math.sqrt(2 * dim + 4 * b * b) / (dim + b * b)
        self.panel = min(0.5, max(0.1, 10 * self.spread))
        self.coef: dict[int, np.ndarray] = {}
        # max |series − mpmath| of log q_U (relative to max(1, |log q_U|)) and of ℓ_Y
        self.interp_error = np.zeros(2)
        with mp.workdps(mpref.DPS):
            self._nu = mp.mpf(dim) / 2 - 1
            self._const = -(mp.mpf(dim) / 2) * mp.log(2) - mp.loggamma(mp.mpf(dim) / 2)
            self._cheb = [mp.cos(mp.pi * j / DEGREE) for j in range(DEGREE + 1)]
            self._cos = [
                [mp.cos(j * k * mp.pi / DEGREE) for j in range(DEGREE + 1)]
                for k in range(DEGREE + 1)
            ]
        self._table = None

    def direct(self, u) -> tuple:
        """(log q_U(u), ℓ_Y(u)) at 40 digits."""
        with mp.workdps(mpref.DPS):
            u = mp.mpf(u)
            y = mp.exp(u)
            r = mp.sqrt(y)
            am, bm = mp.mpf(self.a), mp.mpf(self.b)
            gb = mpref.log_hyp0f1(self._nu, bm * r)
            ga = mpref.log_hyp0f1(self._nu, am * r)
            log_q = (mp.mpf(self.dim) / 2) * u - y / 2 + self._const - bm * bm / 2 + gb
            return log_q, -(am - bm) * (am + bm) / 2 + ga - gb

    def _panel(self, k: int) -> np.ndarray:
        with mp.workdps(mpref.DPS):
            half = mp.mpf(self.panel) / 2
            mid = (k + mp.mpf(0.5)) * self.panel
            values = [self.direct(mid + half * x) for x in self._cheb]
            coef = np.empty((2, DEGREE + 1), dtype=LD)
            for f in range(2):
                for kk in range(DEGREE + 1):
                    total = mp.fsum(
                        values[j][f] * self._cos[kk][j] * (0.5 if j in (0, DEGREE) else 1)
                        for j in range(DEGREE + 1)
                    )
                    c = 2 * total / DEGREE
                    coef[f, kk] = _ld(c / 2 if kk in (0, DEGREE) else c)
            self.coef[k] = coef
            # the interpolation error, between the two outermost nodes at either end
            for x in (mp.cos(mp.pi / (2 * DEGREE)), -mp.cos(mp.pi / (2 * DEGREE))):
                exact = self.direct(mid + half * x)
                series = _clenshaw(coef[:, None, :], np.array([_ld(x)]))
                for f in range(2):
                    err = abs(float(_ld(exact[f]) - series[f][0]))
                    if f == 0:
                        err /= max(1.0, abs(float(exact[f])))
                    self.interp_error[f] = max(self.interp_error[f], err)
        return coef

    def ensure(self, u_lo: float, u_hi: float) -> None:
        """Compute the panels over [u_lo, u_hi]."""
        k_lo, k_hi = math.floor(u_lo / self.panel), math.floor(u_hi / self.panel)
        missing = [k for k in range(k_lo, k_hi + 1) if k not in self.coef]
        if len(self.coef) + len(missing) > _MAX_PANELS:
            raise RuntimeError("mpref_convolution: the Y model needs too many panels")
        for k in missing:
            self._panel(k)
        if missing:
            self._table = None

    @property
    def span(self) -> tuple[float, float]:
        """The contiguous range of computed panels (they are always contiguous)."""
        keys = sorted(self.coef)
        return keys[0] * self.panel, (keys[-1] + 1) * self.panel

    def __call__(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log q_U, ℓ_Y) at u (double precision), u inside the computed panels."""
        keys = sorted(self.coef)
        stack = np.stack([self.coef[k] for k in keys], axis=1)  # (2, panels, degree + 1)
        u = np.asarray(u, dtype=LD)
        lo, hi = self.span
        if np.any(u < lo - 1e-9) or np.any(u > hi + 1e-9):
            raise RuntimeError("mpref_convolution: u outside the Y model")
        # a point on an edge (to rounding) may use either panel
        index = np.clip(np.floor(u / LD(self.panel)).astype(np.int64) - keys[0], 0, len(keys) - 1)
        k = index + keys[0]
        x = (u - (k + LD(0.5)) * LD(self.panel)) / LD(self.panel / 2)
        out = (np.empty(u.shape), np.empty(u.shape))
        for i in np.unique(index):  # panel by panel: no gather of coefficients
            at = index == i
            for o, val in zip(out, _clenshaw(stack[:, i : i + 1], x[at]), strict=True):
                o[at] = val
        return out

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(u, log q_U, ℓ_Y) in double precision, 16 points per spread of U (for scans)."""
        if self._table is None:
            lo, hi = self.span
            per_panel = max(64, math.ceil(16 * self.panel / self.spread))
            u = np.linspace(lo, hi, round((hi - lo) / self.panel) * per_panel + 1)
            u[-1] = np.nextafter(hi, lo)
            lq, ell = self(u.astype(LD))
            self._table = (u, lq, ell)
        return self._table


def _clenshaw(coef: np.ndarray, x: np.ndarray) -> tuple:
    """Σ c_k T_k(x) for both functions of one panel (coef (2, 1, degree + 1)).

    log q_U in extended precision (its terms reach 10³–10⁴ over a panel), ℓ_Y
    in double precision; the rounding is part of the interpolation error
    measured against mpmath at the check points.
    """
    out = []
    for f, dtype in ((0, LD), (1, float)):
        xf = np.asarray(x, dtype=dtype)
        two_x = 2 * xf
        c = coef[f, 0].astype(dtype)
        b1 = np.zeros(xf.shape, dtype=dtype)
        b2 = np.zeros(xf.shape, dtype=dtype)
        for k in range(DEGREE, 0, -1):
            b1, b2 = two_x * b1 - b2 + c[k], b1
        out.append((xf * b1 - b2 + c[0]).astype(float))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _y_hull_cached(alphas: tuple, dim: int, a: float, b: float) -> tuple[float, float]:
    return _y_hull(alphas, dim, a, b)


@functools.lru_cache(maxsize=16)
def y_model(dim: int, a: float, b: float) -> YModel:
    """The shared Y model of (d, a, b) (computed panels persist across calls)."""
    return YModel(dim, a, b)


def _y_hull(alphas, dim: int, a: float, b: float) -> tuple[float, float]:
    """Range of u = log y holding q_Y, p_Y and the tilted laws of Y (double-precision scan).

    The tilted law of S is dominated by the tilted law of Y pushed through X
    (Jensen: L_S^α ≤ E_q[L_Y^α | S]) with a normalisation up to
    e^{(α−1)D_α(Y)}, so the tilted law of Y is kept down to DROP + (α−1)D_α(Y).
    """
    tilts = [0.0, 1.0, *alphas]
    centres = [abs(t * a - (t - 1) * b) ** 2 + dim for t in tilts]
    spreads = [math.sqrt(2 * dim + 4 * (c - dim)) + 1 for c in centres]
    alpha_max = max(tilts)
    # a first pass for D_α(Y), then the range with the extra drop
    extra = 0.0
    for _ in range(2):
        k = math.sqrt(2 * (DROP + extra)) + 12
        y_lo = max(min(c - k * s for c, s in zip(centres, spreads, strict=True)), 1e-300)
        y_hi = max(c + k * s for c, s in zip(centres, spreads, strict=True))
        u = np.linspace(math.log(y_lo), math.log(y_hi), 40001)
        lq = mpref._approx_log_density_logy(u, dim, b)
        ell = mpref._approx_log_density_logy(u, dim, a) - lq
        tilted = lq + alpha_max * ell
        log_h = np.logaddexp.reduce(tilted) - np.logaddexp.reduce(lq)
        extra = max(0.0, log_h)  # (α−1) D_α(Y)
    active = np.zeros(u.shape, dtype=bool)
    for t in tilts:
        f = lq + t * ell
        active |= f > f.max() - DROP - (extra if t == alpha_max else 0.0)
    idx = np.flatnonzero(active)
    return float(u[max(idx[0] - 2, 0)]), float(u[min(idx[-1] + 2, len(u) - 1)])


class _Kernel:
    """log f_W(w) for W = log(X/n), X ~ χ²_n, in extended precision."""

    def __init__(self, n: int):
        self.n = n
        with mp.workdps(mpref.DPS):
            half = mp.mpf(n) / 2
            self.const = _ld(half * (mp.log(half) - 1) - mp.loggamma(half))

    def __call__(self, w):
        # extended precision for extended-precision w, double precision otherwise (scans)
        dtype = LD if np.asarray(w).dtype == LD else float
        with np.errstate(over="ignore", invalid="ignore"):
            out = dtype(self.n / 2) * (w - np.expm1(w)) + dtype(self.const)
        return np.where(np.isnan(out), -np.inf, out)

    def window(self, drop: float) -> tuple[float, float]:
        """The w where (n/2)(e^w − 1 − w) ≤ drop (bisection)."""
        level = 2.0 * drop / self.n
        ends = []
        for lo, hi in ((-level - 2.0, 0.0), (0.0, math.log1p(level) + 2.0)):
            f_lo = math.expm1(lo) - lo - level
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                f_mid = math.expm1(mid) - mid - level
                if (f_mid > 0) == (f_lo > 0):
                    lo, f_lo = mid, f_mid
                else:
                    hi = mid
            ends.append(0.5 * (lo + hi))
        return ends[0], ends[1]


def _windows(model: YModel, kernel: _Kernel, v: np.ndarray):
    """Inner windows [lo, hi] in u per outer node, a local spread, and a boundary flag.

    Two scans of 257 points (double precision, on the model's table); the
    window holds the conditional laws of U given V = v under q and p down to
    DROP below their maxima.
    """
    u_tab, lq_tab, ell_tab = model.table()
    u_min, u_max = float(u_tab[0]), float(u_tab[-1])
    x_lo, x_hi = kernel.window(1e5)
    v = v.astype(float)
    lo = np.clip(v - x_hi, u_min, u_max)
    hi = np.clip(v - x_lo, u_min, u_max)
    frac = np.linspace(0.0, 1.0, 257)
    for stage in range(2):
        u = lo[:, None] + (hi - lo)[:, None] * frac[None, :]
        gq = np.interp(u, u_tab, lq_tab) + kernel(v[:, None] - u)
        gp = gq + np.interp(u, u_tab, ell_tab)
        active = (gq > gq.max(axis=1, keepdims=True) - DROP) | (
            gp > gp.max(axis=1, keepdims=True) - DROP
        )
        first = np.argmax(active, axis=1)
        last = len(frac) - 1 - np.argmax(active[:, ::-1], axis=1)
        rows = np.arange(len(v))
        step = (hi - lo) / (len(frac) - 1)
        cut_lo = (first == 0) & (lo <= u_min)
        cut_hi = (last == len(frac) - 1) & (hi >= u_max)
        new_lo = np.maximum(u[rows, first] - step, u_min)
        new_hi = np.minimum(u[rows, last] + step, u_max)
        if stage == 0:
            lo, hi = new_lo, new_hi
    # the scan's own estimate of log q_V and ℓ_S (trapezoidal, for placing panels)
    log_scan = np.logaddexp.reduce(gq, axis=1) + np.log(step)
    ell_scan = np.logaddexp.reduce(gp, axis=1) + np.log(step) - log_scan
    # local spread: the curvature of each conditional at its maximum
    spreads = []
    m = 8  # a wide stencil: the table is piecewise linear
    for g in (gq, gp):
        i = np.clip(np.argmax(g, axis=1), m, len(frac) - 1 - m)
        curv = -(g[rows, i + m] - 2 * g[rows, i] + g[rows, i - m]) / (m * step) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            spreads.append(np.where(curv > 0, 1.0 / np.sqrt(curv), (hi - lo) / 20))
    cut = (bool(np.any(cut_lo)), bool(np.any(cut_hi)))
    return new_lo, new_hi, np.minimum(*spreads), cut, (log_scan, ell_scan)


def _log_sum(log_terms, axis=-1):
    top = np.max(log_terms, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(np.exp(log_terms - top), axis=axis))


def _inner(model: YModel, kernel: _Kernel, v: np.ndarray):
    """At outer nodes v: log q_V and ℓ_S (fine inner rule) with their error bounds."""
    lo, hi, spread, cut, _ = _windows(model, kernel, v)
    panels = int(np.clip(np.max(np.ceil((hi - lo) / (2 * spread))), 4, 64))
    lo, hi = lo.astype(LD), hi.astype(LD)
    width = (hi - lo) / panels
    results = {}
    for name, (x, w) in (("fine", _FINE), ("coarse", _COARSE)):
        offs = (np.arange(panels)[:, None] + (x[None, :] + 1) / 2).ravel()  # in panel widths
        u = lo[:, None] + width[:, None] * offs[None, :]
        weights = (np.tile(w / 2, panels)[None, :] * width[:, None]).astype(float)
        log_qu, ell = model(u)
        # the argument of the kernel in extended precision (at n = 10⁷ its slope is ~10⁴),
        # the sums of positive terms in double precision
        kern = kernel(v[:, None] - u).astype(float)
        gq = log_qu + kern
        # bound on the error of each log-weight: the series (relative to |log q_U|) and the
        # rounding of the double-precision sum
        noise = model.interp_error[0] * np.maximum(1.0, np.abs(log_qu)) + np.finfo(float).eps * (
            np.abs(log_qu) + np.abs(np.where(np.isfinite(kern), kern, 0.0))
        )
        with np.errstate(divide="ignore"):
            gq = gq + np.log(weights)
        log_qv = _log_sum(gq)
        with np.errstate(over="ignore", invalid="ignore"):  # used only where it is small
            mean = np.sum(np.exp(gq - log_qv[:, None]) * np.expm1(ell), axis=1)
        small = np.abs(mean) < 0.5
        with np.errstate(invalid="ignore"):
            ell_s = np.where(small, np.log1p(np.where(small, mean, 0)), _log_sum(gq + ell) - log_qv)
        ends = np.exp(gq[:, [0, -1]] - log_qv[:, None]).sum(axis=1) + np.exp(
            (gq + ell)[:, [0, -1]] - (log_qv + ell_s)[:, None]
        ).sum(axis=1)
        # an error δ(u) of log q_U moves ℓ_S by E_p[δ] − E_q[δ] (conditional laws given v),
        # at most max|δ| times Σ q |L/L̄ − 1| (twice their total variation distance)
        with np.errstate(over="ignore"):
            tv = np.sum(
                np.exp(gq - log_qv[:, None]) * np.abs(np.expm1(ell - ell_s[:, None])) * noise,
                axis=1,
            )
        results[name] = (log_qv, ell_s, ends, tv)
    log_qv, ell_s, ends, tv = results["fine"]
    delta_q, delta_ell = model.interp_error  # (tv already holds the log-weight noise)
    err_q = np.abs(log_qv - results["coarse"][0]) + ends + delta_q * np.maximum(1.0, np.abs(log_qv))
    err_ell = np.abs(ell_s - results["coarse"][1]) + 2 * ends + tv + delta_ell
    return log_qv, ell_s, err_q, err_ell, cut


def _log_phi(alpha, ell):
    """log φ_α(ℓ), φ_α(ℓ) = e^{αℓ} − 1 − α(e^ℓ − 1) ≥ 0 (series when α|ℓ| < 0.1)."""
    alpha = float(alpha)
    small = np.abs(alpha * ell) < 0.1
    es = np.where(small, ell, 0)
    series = np.zeros(ell.shape)
    power = np.ones(ell.shape)
    for k in range(1, 40):
        power = power * es / k
        if k >= 2:
            series += (alpha**k - alpha) * power
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        big = np.where(
            alpha * ell > 50,
            alpha * ell
            + np.log1p(
                -np.exp(-alpha * ell) - alpha * (np.exp(ell * (1 - alpha)) - np.exp(-alpha * ell))
            ),
            np.log(np.expm1(alpha * ell) - alpha * np.expm1(ell)),
        )
        return np.where(small, np.log(series), big)


def _log_abs_dphi(alpha, ell):
    """log |φ'_α(ℓ)| = log α + ℓ + log |expm1((α − 1)ℓ)|."""
    x = (alpha - 1) * ell
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_abs = np.where(
            x > 50, x + np.log1p(-np.exp(-x)), np.log(np.abs(np.expm1(np.minimum(x, 50))))
        )
    return math.log(alpha) + ell + log_abs


def renyi_finite_convolution(alpha, dim: int, a: float, b: float, n: int) -> mpref.Reference:
    """D_α(Y_a X ‖ Y_b X), Y_θ ~ χ²_d(θ²), X ~ χ²_n, with a bound on its own error.

    See the module docstring for the method. Works at large amplitudes
    (a = 1000), widths (d = 10⁶) and record counts (n = 10⁷).
    """
    if not EXTENDED:  # pragma: no cover - platform
        raise RuntimeError("mpref_convolution needs an extended-precision numpy.longdouble")
    alphas = [float(x) for x in (alpha if np.ndim(alpha) else [alpha])]
    if a == b:
        zero = [mp.mpf(0)] * len(alphas)
        return mpref.Reference([mp.mpf(x) for x in alphas], zero, zero)
    model = y_model(dim, float(a), float(b))
    model.ensure(*_y_hull_cached(tuple(alphas), dim, a, b))
    kernel = _Kernel(n)
    for attempt in range(8):
        edges = _outer_panels(model, kernel, alphas, a, b)
        nodes = [
            ((edges[:-1] + edges[1:]) / 2)[:, None] + (np.diff(edges) / 2)[:, None] * x[None, :]
            for x, _ in (_FINE, _COARSE)
        ]
        weights = [(np.diff(edges) / 2)[:, None] * w[None, :] for _, w in (_FINE, _COARSE)]
        inner = [_inner(model, kernel, v.ravel()) for v in nodes]
        cut_lo = inner[0][4][0] or inner[1][4][0]
        cut_hi = inner[0][4][1] or inner[1][4][1]
        if not (cut_lo or cut_hi):
            break
        # an inner window reaches an end of the Y model: extend it there, by
        # 1, 2, 4, ... panels
        lo, hi = model.span
        step = model.panel * 2**attempt
        model.ensure(lo - step * cut_lo, hi + step * cut_hi)
    else:
        raise RuntimeError("mpref_convolution: inner windows cut by the Y model")
    return _outer_sums(alphas, inner, weights)


def _outer_sums(alphas, inner, weights) -> mpref.Reference:
    (lq_f, ell_f, eq_f, el_f, _), (lq_c, ell_c, _, _, _) = inner
    lw_f, lw_c = np.log(weights[0].ravel()), np.log(weights[1].ravel())
    for name, shift in (("q", 0), ("p", 1)):
        mass = np.exp(_log_sum(lw_f + lq_f + shift * ell_f, axis=0))
        if abs(mass - 1) > MASS_TOL:
            raise RuntimeError(f"mpref_convolution: mass of {name}_V is {float(mass)!r}")
    values, errors = [], []
    log_width = np.log(2 * np.sum(weights[0], axis=1))  # panel widths
    for al in alphas:
        # everything relative to H − 1 in log space (H = e^{(α−1)D} may overflow)
        terms_f = lw_f + lq_f + _log_phi(al, ell_f)
        log_hm1 = _log_sum(terms_f, axis=0)
        log_hm1_c = _log_sum(lw_c + lq_c + _log_phi(al, ell_c), axis=0)
        # first-order effect of the inner errors
        log_inner = np.logaddexp(
            _log_sum(terms_f + np.log(eq_f), axis=0),
            _log_sum(lw_f + lq_f + _log_abs_dphi(al, ell_f) + np.log(el_f), axis=0),
        )
        # the integrand at the outer ends, times the width of an end panel
        ends = (terms_f - lw_f).reshape(weights[0].shape)
        log_tail = np.logaddexp(ends[0, 0] + log_width[0], ends[-1, -1] + log_width[-1])
        rel = abs(np.expm1(log_hm1_c - log_hm1)) + np.exp(log_inner - log_hm1)
        rel += np.exp(log_tail - log_hm1) + 64 * np.finfo(float).eps  # rounding of the sums
        with mp.workdps(mpref.DPS):
            log_h_m1 = mp.mpf(str(log_hm1))
            log_h = (
                mp.log1p(mp.exp(log_h_m1))
                if log_h_m1 < 0
                else (log_h_m1 + mp.log1p(mp.exp(-log_h_m1)))
            )
            values.append(log_h / (al - 1))
            # error of H − 1 over H(α − 1): the error of D to first order
            errors.append(mp.mpf(str(rel)) * mp.exp(log_h_m1 - log_h) / (al - 1))
    return mpref.Reference([mp.mpf(x) for x in alphas], values, errors)


def _outer_panels(model: YModel, kernel: _Kernel, alphas, a: float, b: float) -> np.ndarray:
    """Panel edges in v = log(S/n) from a scan of q_V, p_V and the tilted laws."""
    tilts = [0.0, 1.0, *alphas]
    alpha_max = max(tilts)
    lo, hi = model.span
    drop_right = DROP + (alpha_max - 1) * alpha_max * (a - b) ** 2 / 2
    x_lo, _ = kernel.window(DROP + alpha_max * max(0.0, b * b - a * a) / 2)
    _, x_hi = kernel.window(drop_right)
    scan = np.linspace(lo + x_lo, hi + x_hi, 801)

    def laws(v):
        log_qv, ell_s = _windows(model, kernel, v)[4]
        return [log_qv + t * ell_s for t in tilts]

    fine = mpref._refine_scan(scan, mpref._active_hull(scan, laws(scan)), 801)
    return mpref._panel_edges(fine, laws(fine)).astype(LD)
