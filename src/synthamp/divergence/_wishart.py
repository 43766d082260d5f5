"""The exact plateau for two-dimensional synthetic records (k = 2): the scaled kernel.

For k = 2 the plateau (unlimited release) is, by sufficiency (docs/theory.md §3),
D_α(W₂(d, I, Ω_v) ‖ W₂(d, I, Ω_w)) with Ω = vᵀv/σ² (2 × 2, positive
semi-definite). The method is docs/theory.md §15:

1. **Likelihood ratio.** The central Wishart factor cancels:
   ℓ(S) = log p/q = −(tr Ω_v − tr Ω_w)/2 + log ₀F₁(d/2; Ω_v S/4) − log ₀F₁(d/2; Ω_w S/4).
   ₀F₁ of a 2 × 2 argument depends on the eigenvalues x₁ ≥ x₂ ≥ 0 of Ω S/4 and
   is the one-dimensional integral of docs/theory.md §8, with closed forms at d = 2
   and 3 (:mod:`synthamp.divergence._hyp0f1_2x2`). For a rank-one Ω (det Ω = 0)
   ₀F₁ is the scalar G_{d/2−1}(2√x₁), x₁ = tr(ΩS)/4.
2. **Bartlett coordinates.** S = TTᵀ, T = [[r₁, 0], [t, r₂]], u_i = r_i + log r_i:
   under the central law u₁, t, u₂ are independent with explicit densities
   (r₁² ~ χ²_d, t ~ N(0, 1), r₂² ~ χ²_{d−1}), so log q = log q₀(y) + log L_w(S)
   is explicit and smooth on R³. **The frame** of R² is chosen so that its first
   axis is the strong direction of every law (:func:`_frame`): in a frame whose
   first column of X (S = XᵀX) is weak, (t, r₂) is the second column seen from a
   random direction, an arc of radius |Xe₂| — at d = 2 a whole ring, with horns
   towards r₂ → 0 — that no lattice of the local step can cover (the failures at
   d = 2 before). The frame is chosen from the Gaussian guesses, then again from
   the modes found, and the modes recomputed in it.
3. **Trapezoidal rule on a lattice** in (u₁, t, u₂), u_i = r_i + log r_i (like
   log r near 0 and r at the bulk, docs/theory.md §4), with per-axis steps of 0.6
   local standard deviations (scaled by the smallest eigenvalue of the
   correlation matrices, and ≤ 0.5 in u, 0.4 at d = 2: where the lattice
   reaches r ~ 1 the integrand is analytic only in a narrower strip, which the
   error estimate's rule of step 4h sees, item 4).
   At d = 2, r₂² ~ χ²₁ has a density finite at r₂ = 0 (the (l₁l₂)^{−1/2} of
   the eigenvalue density): in u₂ it is a horn e^{u₂}, smooth, which the flood
   fill follows (an even extension in r₂ itself was tried: the mirrored law made
   the coarse and fine rules err alike, 1e-8 errors unflagged).
   The modes of q, p and of every tilted law q^{1−α}p^α are located by a
   damped Newton iteration (finite differences, each law stopping on its own)
   from the law's Gaussian guess; every law is then compared at every mode and
   guess found (at large α a tilted law can sit near S = 0, far from its guess)
   and restarted from a higher one (:func:`_locate`); from the modes a flood
   fill on the lattice visits every node where one of these log-densities is
   within 36 of its maximum, plus the boundary layer. ℓ and log q are computed
   once on the nodes and shared by all orders (the α-independent work).
4. **Values and errors** by the k = 1 engine's node rule (`renyi_on_nodes`):
   H − 1 = E_q[φ_α(ℓ)] without cancellation where H is small, log H by a
   log-sum-exp otherwise; the error estimate adds the difference to the rule
   on every other node of each axis (the lattice of step 2h), the mass on the
   boundary layer, the propagated error of ℓ (rounding and the quadrature of
   ₀F₁) and the defect of E_q[L] = 1; plus, from the rule of step 4h, the error
   of a trapezoidal rule that converges only exponentially in 1/h
   (:func:`_strip_error`); and, line by line along each axis, the difference of
   every line's rule to its own rule of step 2h, squared (:func:`_line_error`:
   the coarse rules of the whole lattice can agree with the fine one by
   cancellation between lines, measured 2e4× below the error at d = 2 on an
   isotropic pair). :func:`plateau_gram_refined` recomputes every order
   whose estimate exceeds 1e-8 of its value on finer lattices (step × 0.7, at
   most twice).
5. **Speed.** The radial factors of the flood fill are computed once per lattice
   value of u₁ and u₂; the cost is the lattice's nodes times two ₀F₁ of a 2 × 2
   argument (closed forms at d ≤ 3, :mod:`synthamp.divergence._hyp0f1_2x2`).

Domain: d in [2, 10^4], tr Ω ≤ 10^4, α in [1.01, 64]. Accuracy
(tests/divergence/test_wishart.py): 1e-10 relative against the exact k = 1
values on rank-one aligned pairs (d = 2 … 10^4); 1e-8 relative by refinement and
by a second coordinate system (another frame, swapped or rotated axes), and at
d = 2 against an independent quadrature in eigen-polar coordinates with ₀F₁ in
closed form. Far pairs (D_α in the hundreds at α = 64) can exceed the lattice's
node budget: a RuntimeError says so.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from synthamp._validation import InputError
from synthamp.divergence._hyp0f1_2x2 import log_g, log_hyp0f1_2x2
from synthamp.divergence._kernel import radius_nodes, renyi_on_nodes

__all__ = [
    "MAX_DIM_K2",
    "MAX_TRACE_K2",
    "STEP_SIGMAS",
    "TRACE_RTOL_K2",
    "check_gram",
    "plateau_gram_refined",
    "plateau_gram_scaled",
]

_EPS = np.finfo(float).eps
#: Lattice: step in local standard deviations; cap of the step in u = r + log r.
STEP_SIGMAS = 0.6
#: (It was 0.3 for d ≤ 16, where the lattice reaches r ~ 1 with weight and the
#: integrand is analytic only in a strip of width ~π/2 in u: there the trapezoidal
#: error is A·e^{−π²/h} with a small weight A, which e(h) ≈ e(2h)² underestimates.
#: :func:`_strip_error` estimates that regime from the rule of step 4h, and
#: :func:`_line_error` the cancellation between lines; on the 17 pairs of the study's
#: grid at d = 2 … 16 the cap 0.5 leaves the largest error/estimate unchanged and
#: the lattice 2.5–3× smaller.) At d = 2 (the horn r₂ → 0) 0.4: with 0.5 the
#: benchmark pair's estimate rose to 1.2e-8 at one order and the refinement cost more
#: than the smaller lattice saved.
_STEP_Y_MAX = 0.5
_STEP_Y_MAX_D2 = 0.4
#: Flood fill: a node is alive where a tracked log-density is within this of its maximum.
_DROP = 36.0
_MAX_LATTICE_NODES = 3_000_000
#: ... and the box of the flood fill's marks (one bit per node: 300 MB)
_MAX_BOX_NODES = 2_400_000_000
MAX_DIM_K2 = 10_000
#: The k = 2 engine's domain: tr(Ω) = tr(gram)/σ² ≤ 10⁴, a closed bound met up to a relative
#: rounding tolerance TRACE_RTOL_K2 (a Gram matrix built from ‖v‖ = 100σ has a trace of 10⁴
#: that the rounding of vᵀv/σ² may put a few ulps above it).
MAX_TRACE_K2 = 1e4
TRACE_RTOL_K2 = 1e-12
_FACES = np.array(
    [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.int64
)


# ---------------------------------------------------------------------------
# Laws in Bartlett coordinates
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Gram:
    """Ω (2 × 2, PSD, natural units divided by σ²) with what ℓ needs of it."""

    omega: np.ndarray
    trace: float
    det: float
    rank_one: bool

    @classmethod
    def of(cls, omega: np.ndarray, frame: np.ndarray) -> _Gram:
        """Ω turned into the Bartlett frame (QᵀΩQ); the rank and det of the given Ω."""
        det = float(omega[0, 0] * omega[1, 1] - omega[0, 1] * omega[0, 1])
        turned = frame.T @ omega @ frame
        turned = 0.5 * (turned + turned.T)
        return cls(turned, float(np.trace(omega)), max(det, 0.0), det <= 0.0)


def _log_gram_factor(dim: int, gram: _Gram, s11, s12, s22, det_s):
    """log L(S) = −tr Ω/2 + log ₀F₁(d/2; ΩS/4) (the density of W₂(d, I, Ω) over the
    central one) and its absolute error."""
    if gram.trace == 0.0:
        zero = np.zeros_like(s11)
        return zero, zero
    om = gram.omega
    tau = 0.25 * (om[0, 0] * s11 + 2.0 * om[0, 1] * s12 + om[1, 1] * s22)
    tau = np.maximum(tau, 0.0)
    if gram.rank_one:
        g = log_g(0.5 * dim - 1.0, 2.0 * np.sqrt(tau))
        err = 8 * _EPS * (np.abs(g) + 2.0 * np.sqrt(tau))
    else:
        delta = gram.det * det_s / 16.0
        root = np.sqrt(np.maximum(0.25 * tau * tau - delta, 0.0))
        x1 = 0.5 * tau + root
        # the smaller root without cancellation where it is small, by symmetry elsewhere
        x2 = np.where(root > 0.25 * tau, delta / np.maximum(x1, np.finfo(float).tiny), tau - x1)
        x2 = np.maximum(x2, 0.0)
        g, err = log_hyp0f1_2x2(dim, x1, x2)
    return g - 0.5 * gram.trace, err + 4 * _EPS * gram.trace


def _log_chi_radial(dof: float, r: np.ndarray, log_r: np.ndarray) -> np.ndarray:
    """log density of u = r + log r where r² ~ χ²_dof (the coordinate of docs/theory.md §4:
    like log r near 0, like r at the bulk; dr/du = r/(1 + r))."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    return (
        math.log(2.0)
        + dof * log_r
        - 0.5 * r * r
        - np.log1p(r)
        - 0.5 * dof * math.log(2.0)
        - special.gammaln(0.5 * dof)
    )


def _radial(dim: int, u: np.ndarray):
    """r, log r and the log density of u = r + log r (r² ~ χ²_dim) at the values ``u``."""
    r, log_r = radius_nodes(u)
    return r, log_r, _log_chi_radial(dim, r, log_r)


def _evaluate(dim: int, gram_v: _Gram, gram_w: _Gram, y: np.ndarray, radial=None):
    """log q, ℓ = log p/q and the error of ℓ at the points ``y`` (n × 3: u₁, t, u₂,
    u_i = r_i + log r_i). ``radial``: the (r, log r, log density) of u₁ and u₂ at the
    points, if known (:func:`_radial`; on a lattice, one per value of each axis)."""
    (r1, log_r1, log_chi1), (r2, log_r2, log_chi2) = radial or (
        _radial(dim, y[:, 0]),
        _radial(dim - 1, y[:, 2]),
    )
    t = y[:, 1]
    s11 = r1 * r1
    s12 = r1 * t
    s22 = t * t + r2 * r2
    det_s = np.exp(2.0 * (log_r1 + log_r2))
    log_q0 = log_chi1 - 0.5 * t * t - 0.5 * math.log(2.0 * math.pi) + log_chi2
    lw, ew = _log_gram_factor(dim, gram_w, s11, s12, s22, det_s)
    lv, ev = _log_gram_factor(dim, gram_v, s11, s12, s22, det_s)
    llr = lv - lw
    return log_q0 + lw, llr, ev + ew + 4 * _EPS * (np.abs(lv) + np.abs(lw))


# ---------------------------------------------------------------------------
# Modes and the lattice
# ---------------------------------------------------------------------------


def _bartlett(s: np.ndarray) -> np.ndarray:
    """(u₁, t, u₂) of a positive definite 2 × 2 matrix S."""
    r1 = math.sqrt(s[0, 0])
    t = s[0, 1] / r1
    r2 = math.sqrt(max(s[1, 1] - t * t, 1e-12 * s[1, 1]))
    return np.array([r1 + math.log(r1), t, r2 + math.log(r2)])


def _psd_sqrt(omega: np.ndarray) -> np.ndarray:
    vals, vecs = np.linalg.eigh(omega)
    return (vecs * np.sqrt(np.maximum(vals, 0.0))) @ vecs.T


def _tilted_grams(omega_v: np.ndarray, omega_w: np.ndarray, tilts: np.ndarray) -> np.ndarray:
    """MᵀM for the Gaussian tilts M = aM_v − (a−1)M_w of square roots rotated into
    alignment (the Bures–Wasserstein coupling), one 2 × 2 matrix per tilt a."""
    root_v, root_w = _psd_sqrt(omega_v), _psd_sqrt(omega_w)
    u, _, vt = np.linalg.svd(root_w @ root_v)
    rotation = u @ vt  # the rotation of M_w nearest to M_v
    m_w = rotation.T @ root_w
    m = tilts[:, None, None] * root_v - (tilts - 1.0)[:, None, None] * m_w
    return np.einsum("nki,nkj->nij", m, m)


def _frame(dim: int, grams: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """The rotation Q of R² whose first axis is the strong direction of every law.

    In Bartlett coordinates t and r₂ are the second column of X (S = XᵀX, X ≈ M + noise)
    in the frame of the first column; where the first column is weak (|Me₁|² ≲ d) its
    direction is random and the law lies on an arc of radius |Me₂| (a ring at d = 2),
    which the lattice would have to cover. The axis minimises max over the laws of
    |Me₂|²/(|Me₁|² + d) (on a grid of 180 angles), then turns by ``offset`` (tests:
    a second coordinate system)."""
    angles = np.linspace(0.0, math.pi, 180, endpoint=False)
    c, s = np.cos(angles), np.sin(angles)
    g11, g12, g22 = grams[:, 0, 0, None], grams[:, 0, 1, None], grams[:, 1, 1, None]
    along = c * c * g11 + 2 * c * s * g12 + s * s * g22
    across = s * s * g11 - 2 * c * s * g12 + c * c * g22
    best = angles[np.argmin((across / (along + dim)).max(axis=0))] + offset
    c, s = math.cos(best), math.sin(best)
    return np.array([[c, -s], [s, c]])


def _starting_points(dim: int, grams: np.ndarray) -> np.ndarray:
    """Guesses of the modes: S ≈ dI + MᵀM for each tilt (:func:`_tilted_grams`)."""
    return np.array([_bartlett(dim * np.eye(2) + g) for g in grams])


# central-difference stencil for gradient and Hessian in 3 dimensions (19 points)
_STENCIL = np.array(
    [[0, 0, 0]]
    + [list(sign * np.eye(3, dtype=int)[i]) for i in range(3) for sign in (1, -1)]
    + [
        list(si * np.eye(3, dtype=int)[i] + sj * np.eye(3, dtype=int)[j])
        for i in range(3)
        for j in range(i + 1, 3)
        for si in (1, -1)
        for sj in (1, -1)
    ],
    dtype=float,
)


def _derivatives(values: np.ndarray, step: np.ndarray):
    """Gradient and Hessian from the 19-point stencil values (rows: laws)."""
    f0 = values[:, 0]
    grad = np.empty((len(values), 3))
    hess = np.empty((len(values), 3, 3))
    for i in range(3):
        fp, fm = values[:, 1 + 2 * i], values[:, 2 + 2 * i]
        grad[:, i] = (fp - fm) / (2 * step[i])
        hess[:, i, i] = (fp - 2 * f0 + fm) / step[i] ** 2
    k = 7
    for i in range(3):
        for j in range(i + 1, 3):
            fpp, fpm, fmp, fmm = (values[:, k + m] for m in range(4))
            hess[:, i, j] = hess[:, j, i] = (fpp - fpm - fmp + fmm) / (4 * step[i] * step[j])
            k += 4
    return grad, hess


def _law_values(dim, gram_v, gram_w, tilts, points):
    """log q + a ℓ of each law a (row) at each point (column): one evaluation of ℓ and
    log q serves every tilt."""
    log_q, llr, _ = _evaluate(dim, gram_v, gram_w, points)
    f = log_q[None, :] + tilts[:, None] * llr[None, :]
    return np.where(np.isfinite(f), f, -np.inf)


def _stencil_values(dim, gram_v, gram_w, tilts, x, fd):
    """log q + a ℓ of law a (a row per tilt) on the stencil around its point x[a]."""
    pts = x[:, None, :] + _STENCIL[None, :, :] * fd
    log_q, llr, _ = _evaluate(dim, gram_v, gram_w, pts.reshape(-1, 3))
    f = (log_q + np.repeat(tilts, len(_STENCIL)) * llr).reshape(len(tilts), -1)
    return np.where(np.isfinite(f), f, -np.inf)


def _modes(dim, gram_v, gram_w, tilts, start, scale, max_steps=60):
    """Modes, covariances (inverse negative Hessians) and peaks of log q + a ℓ for each
    tilt a.

    Damped Newton from ``start``, each law on its own: steps capped at 3 local standard
    deviations, halved and retried where the log-density does not increase; a law stops
    when its step is below 1e-6 of ``scale`` (the Hessian of its last point, at most
    that far away, is kept) or after ``max_steps`` evaluations (then re-evaluated at
    its last point).
    """
    count = len(tilts)
    x = start.copy()
    fd = 0.02 * scale
    floor = 1e-3 / scale.max() ** 2
    best = np.full(count, -np.inf)
    move = np.zeros_like(x)
    hess = np.empty((count, 3, 3))
    peak = np.full(count, -np.inf)
    active = np.ones(count, dtype=bool)
    for _ in range(max_steps):
        idx = np.nonzero(active)[0]
        if not idx.size:
            break
        f = _stencil_values(dim, gram_v, gram_w, tilts[idx], x[idx], fd)
        worse = f[:, 0] < best[idx] - 1e-12 * np.abs(best[idx])
        back = idx[worse]
        if back.size:  # step back halfway; retried at the next evaluation
            move[back] *= 0.5
            x[back] -= move[back]
            worse[worse] = (np.abs(move[back]) / scale).max(axis=1) >= 1e-9
        go = ~worse
        ids = idx[go]
        best[ids] = np.maximum(best[ids], f[go, 0])
        grad, h = _derivatives(f[go], fd)
        hess[ids], peak[ids] = h, f[go, 0]
        vals, vecs = np.linalg.eigh(-h)
        vals = np.maximum(np.abs(vals), floor)
        step = np.einsum("nij,nj,nkj,nk->ni", vecs, 1.0 / vals, vecs, grad)
        sd = 1.0 / np.sqrt(vals.min(axis=1))
        length = np.linalg.norm(step, axis=1)
        step *= np.minimum(1.0, 3.0 * sd / np.maximum(length, 1e-300))[:, None]
        move[ids] = step
        x[ids] += step
        active[ids[(np.abs(step) <= 1e-6 * scale).all(axis=1)]] = False
    if active.any():  # out of steps: the Hessian and peak at the last point
        idx = np.nonzero(active)[0]
        f = _stencil_values(dim, gram_v, gram_w, tilts[idx], x[idx], fd)
        _, hess[idx] = _derivatives(f, fd)
        peak[idx] = f[:, 0]
    vals, vecs = np.linalg.eigh(-hess)
    vals = np.maximum(vals, floor)
    cov = np.einsum("nij,nj,nkj->nik", vecs, 1.0 / vals, vecs)
    return x, cov, peak


def _lattice_steps(cov: np.ndarray, step_sigmas: float, dim: int) -> np.ndarray:
    """Per-axis steps: 0.6 local standard deviations, shrunk by the smallest eigenvalue
    of each law's correlation matrix (every dual-lattice vector then sees ≥ 1/0.6
    standard deviations), and capped in u₁, u₂."""
    sd = np.sqrt(np.einsum("nii->ni", cov))
    corr = cov / (sd[:, :, None] * sd[:, None, :])
    lam = np.linalg.eigvalsh(corr)[:, 0]
    steps = step_sigmas * np.min(np.sqrt(np.maximum(lam, 1e-6))[:, None] * sd, axis=0)
    cap = _STEP_Y_MAX_D2 if dim == 2 else _STEP_Y_MAX
    steps[[0, 2]] = np.minimum(steps[[0, 2]], cap * step_sigmas / STEP_SIGMAS)
    return steps


@dataclasses.dataclass
class _Nodes:
    index: np.ndarray  # lattice indices (n × 3)
    log_q: np.ndarray
    llr: np.ndarray
    llr_err: np.ndarray
    alive: np.ndarray  # inside the region (the rest is the boundary layer)


class _Visited:
    """A mark per lattice node (one bit) over a box that grows when a node falls outside
    (then every node seen is marked again in the new box)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        self.seen: list[np.ndarray] = []
        self._box(lo, hi)

    def _box(self, lo: np.ndarray, hi: np.ndarray) -> None:
        shape = hi - lo + 1
        if np.prod(shape.astype(float)) > _MAX_BOX_NODES:
            raise RuntimeError("k = 2 plateau: the lattice exceeds its node budget")
        self.lo, self.hi, self.shape = lo, hi, tuple(int(n) for n in shape)
        self.marks = np.zeros(-(-int(np.prod(shape)) // 8), dtype=np.uint8)
        for index in self.seen:
            flat = self._flat(index)
            np.bitwise_or.at(self.marks, flat >> 3, np.left_shift(1, flat & 7).astype(np.uint8))

    def _flat(self, index: np.ndarray) -> np.ndarray:
        return np.ravel_multi_index(tuple((index - self.lo).T), self.shape)

    def fresh(self, index: np.ndarray) -> np.ndarray:
        """The nodes of ``index`` not seen before (each once), now marked seen."""
        if (index < self.lo).any() or (index > self.hi).any():
            low, high = index.min(axis=0), index.max(axis=0)
            margin = 8 + (self.hi - self.lo) // 2  # geometric growth: few re-markings
            lo = np.where(low < self.lo, low - margin, self.lo)
            hi = np.where(high > self.hi, high + margin, self.hi)
            if np.prod((hi - lo + 1).astype(float)) > _MAX_BOX_NODES:  # then only what is needed
                lo, hi = np.minimum(self.lo, low - 8), np.maximum(self.hi, high + 8)
            self._box(lo, hi)
        flat = self._flat(index)
        unseen = (self.marks[flat >> 3] >> (flat & 7).astype(np.uint8)) & 1 == 0
        flat, first = np.unique(flat[unseen], return_index=True)  # each once
        byte, bit = flat >> 3, (flat & 7).astype(np.uint8)
        np.bitwise_or.at(self.marks, byte, np.left_shift(1, bit).astype(np.uint8))
        out = index[np.nonzero(unseen)[0][first]]
        self.seen.append(out)
        return out


def _flood(dim, gram_v, gram_w, tilts, origin, steps, seeds, peaks, drop) -> _Nodes:
    """All lattice nodes where some log q + a ℓ (a in ``tilts``) is within ``drop`` of
    its peak, connected to the seeds, plus their face neighbours (the boundary layer)."""
    peaks = peaks.copy()
    visited = _Visited(seeds.min(axis=0) - 24, seeds.max(axis=0) + 24)
    frontier = visited.fresh(seeds)
    parts = []
    total = 0
    while len(frontier):
        y = origin + frontier * steps
        radial = []
        for axis, dof in ((0, dim), (2, dim - 1)):  # once per lattice value of the axis
            low = frontier[:, axis].min()
            table = _radial(
                dof, origin[axis] + np.arange(low, frontier[:, axis].max() + 1) * steps[axis]
            )
            radial.append(tuple(column[frontier[:, axis] - low] for column in table))
        log_q, llr, llr_err = _evaluate(dim, gram_v, gram_w, y, radial)
        f = log_q[None, :] + tilts[:, None] * llr[None, :]
        f = np.where(np.isfinite(f), f, -np.inf)
        peaks = np.maximum(peaks, f.max(axis=1))
        alive = (f > (peaks - drop)[:, None]).any(axis=0)
        parts.append(_Nodes(frontier, log_q, llr, llr_err, alive))
        total += len(frontier)
        if total > _MAX_LATTICE_NODES:
            raise RuntimeError("k = 2 plateau: the lattice exceeds its node budget")
        grown = (frontier[alive][:, None, :] + _FACES[None, :, :]).reshape(-1, 3)
        frontier = visited.fresh(grown) if len(grown) else grown
    nodes = _Nodes(
        *(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(_Nodes))
    )
    # a node first seen dead may be alive by a later peak: recheck with the final peaks
    f = nodes.log_q[None, :] + tilts[:, None] * nodes.llr[None, :]
    nodes.alive = (f > (peaks - drop)[:, None]).any(axis=0)
    return nodes


def _line_error(index: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Relative discretisation error of each row's sum Σ_i rows[k, i] (positive summands
    on the lattice ``index``), estimated line by line along each axis.

    The rule of step 2h on every other node of the whole lattice can agree with the
    rule of step h by cancellation: the aliasing errors of the lines along an axis
    change sign from line to line (the phase of the integrand's Fourier component at
    the lattice frequency), and their signed sum can be 10⁴× smaller than their
    absolute sum (measured: d = 2, Ω_v = 2I, Ω_w = 1.53I, α = 1.01: the estimate
    2.5e-12, the error 4.9e-8). Here each line L along an axis is compared with its
    own rule of step 2h (its even nodes, doubled): d_L = |T_h − T_2h|, and the error
    of T_h is taken as I_L (d_L/I_L)² (e(h) ≈ e(2h)², per line, without cancellation),
    summed over the lines and the three axes, relative to the row's sum.
    """
    total = rows.sum(axis=1)
    out = np.zeros(len(rows))
    low = index.min(axis=0)
    span = index.max(axis=0) - low + 1
    for axis in range(3):
        first, second = (a for a in range(3) if a != axis)
        key = (index[:, first] - low[first]) * span[second] + (index[:, second] - low[second])
        count = int(span[first] * span[second])
        if count > 4 * len(key) + 1_000_000:  # a sparse box: number the lines by sorting
            _, key = np.unique(key, return_inverse=True)
            count = int(key.max()) + 1
        # T_h − T_2h of a line is its alternating sum (odd nodes minus even nodes)
        sign = 1.0 - 2.0 * (index[:, axis] & 1)
        for k, row in enumerate(rows):
            full = np.bincount(key, row, count)
            diff = np.bincount(key, row * sign, count)
            out[k] += (diff * diff / np.maximum(full, 1e-300)).sum()
    return out / np.maximum(total, 1e-300)


def _strip_error(fine: np.ndarray, half: np.ndarray, quarter: np.ndarray) -> np.ndarray:
    """Discretisation error where the trapezoidal error falls only exponentially in 1/h.

    :func:`renyi_on_nodes` estimates e(h) ≈ e(2h)², right for Gaussian decay
    e(h) ~ e^{−c/h²}. Where the mass sits at small r (r² ~ χ² with few degrees of
    freedom, as at d = 2 and for tilted laws pushed towards S = 0), u = r + log r
    is like log r, the integrand is analytic only in a strip and e(h) = A e^{−c/h}:
    then e(h) = e(2h)²/A, larger than e(2h)² when A < 1 (measured: 800× at d = 2).
    With the rules of steps 2h and 4h, A = e(4h)²/e(2h) and e(h) = e(2h)³/e(4h)²
    (≥ e(2h)^{2.5} in the Gaussian regime: conservative there); where the rules do
    not converge monotonically, the difference e(2h) itself."""
    e2 = np.abs(fine - half)
    e4 = np.abs(fine - quarter)
    monotone = e4 > 2.0 * e2
    return np.where(monotone, e2 * (e2 / np.maximum(e4, 1e-300)) ** 2, e2)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def check_gram(param: str, gram, dim: int) -> np.ndarray:
    """A k × k symmetric PSD matrix (k ∈ {1, 2}) from a scalar, a k × k array or
    the 3 entries (g11, g12, g22)."""
    arr = np.asarray(gram, dtype=float)
    if arr.ndim == 0 or arr.size == 1:
        arr = arr.reshape(1, 1)
    elif arr.shape == (3,):
        arr = np.array([[arr[0], arr[1]], [arr[1], arr[2]]])
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] not in (1, 2):
        raise InputError(param, "must be a 1 × 1 or 2 × 2 matrix or the 3 entries g11, g12, g22")
    if not np.isfinite(arr).all():
        raise InputError(param, "must be finite")
    if arr[0, -1] != arr[-1, 0]:
        raise InputError(param, "must be symmetric")
    if (np.diag(arr) < 0).any() or arr[0, 0] * arr[-1, -1] < arr[0, -1] ** 2 * (1 - 1e-12):
        raise InputError(param, "must be positive semi-definite")
    if arr.shape[0] > dim:
        raise InputError(param, f"record dimension k = {arr.shape[0]} exceeds dim = {dim}")
    return arr


def _gram_of(y: np.ndarray) -> np.ndarray:
    """S = TTᵀ at the point (u₁, t, u₂) (the inverse of :func:`_bartlett`)."""
    (r1, r2), _ = radius_nodes(y[[0, 2]])
    t = y[1]
    return np.array([[r1 * r1, r1 * t], [r1 * t, t * t + r2 * r2]])


def _locate(dim, omega_v, omega_w, tilts, frame, starts):
    """The Ω turned into ``frame`` and the modes, covariances and peaks of every law.

    Newton starts from ``starts`` if given, else from each law's Gaussian guess. The
    guess can be far off (a tilted law that L_w^{1−α} pushes towards S = 0 at large α)
    and Newton can stop at a lower local mode: every law is then compared at every
    mode found and every guess (one evaluation of ℓ serves all), and a law that is
    higher at one of them than at its own mode starts again from there, until no law
    improves (at most 4 rounds); the highest mode found is kept."""
    gram_v, gram_w = _Gram.of(omega_v, frame), _Gram.of(omega_w, frame)
    guesses = _starting_points(dim, _tilted_grams(gram_v.omega, gram_w.omega, tilts))
    scale = np.array([0.7, 1.0, 0.7])
    modes, cov, peaks = _modes(
        dim, gram_v, gram_w, tilts, guesses if starts is None else starts, scale
    )
    for _ in range(4):
        points = np.concatenate([modes, guesses])
        f = _law_values(dim, gram_v, gram_w, tilts, points)
        better = f.max(axis=1) > peaks + 1e-9 * np.abs(peaks) + 1e-12
        if not better.any():
            break
        todo = np.nonzero(better)[0]
        new, new_cov, new_peaks = _modes(
            dim,
            gram_v,
            gram_w,
            tilts[todo],
            points[np.argmax(f[todo], axis=1)],
            scale,
        )
        gain = new_peaks > peaks[todo]
        modes[todo[gain]], cov[todo[gain]], peaks[todo[gain]] = (
            new[gain],
            new_cov[gain],
            new_peaks[gain],
        )
        if not gain.any():
            break
    return gram_v, gram_w, modes, cov, peaks


def plateau_gram_scaled(
    alpha, dim, omega_v, omega_w, step_sigmas=STEP_SIGMAS, drop=_DROP, frame_offset=0.0
):
    """(value, error, ∫q, E_q[L], nodes) of D_α(W₂(d, I, Ω_v)‖W₂(d, I, Ω_w)) for validated
    2 × 2 Ω (natural units over σ²), Ω_v ≠ Ω_w, d ≥ 2 (the kernel of
    :func:`synthamp.divergence.renyi_plateau_gram`). ``frame_offset`` turns the
    Bartlett frame away from the chosen one (:func:`_frame`; tests only)."""
    tilts = np.concatenate([[0.0, 1.0], alpha])
    # modes in the frame of the Gaussian guesses, then in the frame of the modes found
    frame = _frame(dim, _tilted_grams(omega_v, omega_w, tilts))
    gram_v, gram_w, modes, cov, peaks = _locate(dim, omega_v, omega_w, tilts, frame, None)
    signal = np.array([frame @ _gram_of(m) @ frame.T - dim * np.eye(2) for m in modes])
    turned = _frame(dim, signal, frame_offset)
    if abs(turned[0] @ frame[0]) < math.cos(0.02) or frame_offset:
        back = turned.T @ frame
        starts = np.array([_bartlett(back @ _gram_of(m) @ back.T) for m in modes])
        gram_v, gram_w, modes, cov, peaks = _locate(dim, omega_v, omega_w, tilts, turned, starts)
    steps = _lattice_steps(cov, step_sigmas, dim)
    origin = modes[0]
    seeds = np.rint((modes - origin) / steps).astype(np.int64)
    nodes = _flood(dim, gram_v, gram_w, tilts, origin, steps, seeds, peaks, drop)
    scale_terms = math.sqrt(dim) + math.sqrt(np.trace(omega_v)) + math.sqrt(np.trace(omega_w))

    def rule(stride, summands=False):  # the trapezoidal rule on the sub-lattice of step stride·h
        on = (nodes.index % stride == 0).all(axis=1)
        return renyi_on_nodes(
            alpha,
            nodes.llr[None, on],
            nodes.log_q[None, on],
            nodes.llr_err[None, on],
            (nodes.index[on] % (2 * stride) == 0).all(axis=1)[None, :],
            ~nodes.alive[None, on],
            scale_terms,
            summands=summands,
        )

    value, error, terms, weights, use_log = rule(1, summands=True)
    error = error + _strip_error(value, rule(2)[0], rule(4)[0])
    # line by line (no cancellation between lines): the relative errors of each order's
    # sum and of Σ q, into D_α: log H for the log form, log1p(H − 1) for H − 1
    line = _line_error(nodes.index, np.vstack([weights, terms]))
    share = np.where(use_log, 1.0, -np.expm1(-(alpha - 1.0) * value))  # (H − 1)/H
    error = error + (line[1:] + line[0]) * share / (alpha - 1.0)
    log_cell = float(np.log(steps).sum())
    top = nodes.log_q.max()
    w = weights[0]  # e^{log q − top}, as the rule computed it
    mass = float(np.exp(top + log_cell) * w.sum())
    mean_ratio = float((w * np.exp(np.minimum(nodes.llr, 700.0))).sum() / w.sum())
    return np.maximum(value, 0.0), error, mass, mean_ratio, len(nodes.log_q)


#: Refinement: orders whose error estimate exceeds this (relative) are recomputed on a
#: lattice with the step times _REFINE_FACTOR, at most _REFINE_ROUNDS times.
REL_TARGET = 1e-8
_REFINE_FACTOR = 0.7
_REFINE_ROUNDS = 2


def plateau_gram_refined(alpha, dim, omega_v, omega_w, step_scale=1.0, frame_offset=0.0):
    """:func:`plateau_gram_scaled` at full accuracy, with every order whose error estimate
    exceeds :data:`REL_TARGET` of its value recomputed on finer lattices (those orders
    only, each finer lattice ~3× the nodes; kept where the estimate improves). Returns
    (value, error, ∫q, E_q[L], nodes summed over the lattices)."""
    alpha = np.asarray(alpha, dtype=float)
    step = STEP_SIGMAS * step_scale
    value, error, mass, mean_ratio, count = plateau_gram_scaled(
        alpha, dim, omega_v, omega_w, step, _DROP, frame_offset
    )
    for _ in range(_REFINE_ROUNDS):
        todo = np.nonzero(error > REL_TARGET * value + 1e-300)[0]
        if not todo.size:
            break
        step *= _REFINE_FACTOR
        try:
            v, e, _, _, n = plateau_gram_scaled(
                alpha[todo], dim, omega_v, omega_w, step, _DROP, frame_offset
            )
        except RuntimeError:  # over the node budget: keep the coarser values, their errors
            break
        count += n
        better = e < error[todo]
        value[todo[better]], error[todo[better]] = v[better], e[better]
    return value, error, mass, mean_ratio, count
