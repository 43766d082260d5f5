"""The public-design bounds Δ, C, s₂ of the ridge model at 60 digits (mpmath), primal.

Part of the independent reference of the tests (tests/mpref.py): nothing here
imports synthamp (tests/test_mpref.py checks it). On a float design X (m × D),
regenerated here bit for bit from its public seed, the definition

    M = (XᵀX/m + λI)⁻¹ Xᵀ/m          (D <= m: the D × D primal system)
      = Xᵀ(XXᵀ/m + λI)⁻¹/m           (D > m: the same matrix, by the push-through identity)

is evaluated in 60-digit arithmetic on the exact binary values of X, then G = MᵀM and

    Δ/(2B) = maxᵢ √Gᵢᵢ,
    C/B    = min(√(m λ_max(G)), √(Σᵢⱼ|Gᵢⱼ|)),
    s₂/B²  = maxᵢ ((Gᵢᵢ + rᵢ)²/Gᵢᵢ if rᵢ < Gᵢᵢ else 4rᵢ),   rᵢ = Σ_{j≠i}|Gᵢⱼ|,
    theory = maxᵢ (Gᵢᵢ + 4rᵢ)                            (docs/theory.md §19),

λ_max(G) from mpmath's symmetric eigensolver on the smaller of MMᵀ and G.

The design (``design_matrix``) is the ``random-seeds`` recipe of the library, written
out: Gaussian blocks of 4096 columns from ``numpy.random.default_rng([seed, block])``,
rows divided by their norms √(Σ x²), the sum correctly rounded (``math.fsum``), so
that X is the same bits on every machine.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

DPS = 60
#: Columns per generated block (the library's BLOCK_COLUMNS, part of the design's definition).
BLOCK = 4096


def raw_design(m: int, width: int, seed: int) -> np.ndarray:
    """The Gaussian design before its rows are normalised (m × D)."""
    return np.hstack([
        np.random.default_rng([seed, j]).standard_normal((m, min(BLOCK, width - start)))
        for j, start in enumerate(range(0, width, BLOCK))
    ])  # fmt: skip


def design_matrix(m: int, width: int, seed: int) -> np.ndarray:
    """The unit-row random-seeds design X (m × D) of a public seed, bit-reproducible."""
    raw = raw_design(m, width, seed)
    norms = np.array([math.sqrt(math.fsum(float(v) ** 2 for v in row)) for row in raw])
    return raw / norms[:, None]


def gram_bounds(x: np.ndarray, ridge: float) -> tuple:
    """(Δ/2B, C/B, s₂/B², theory/B²) of the design ``x`` at λ = ``ridge``, at 60 digits."""
    m, width = x.shape
    with mp.workdps(DPS):
        xm = mp.matrix([[mp.mpf(float(v)) for v in row] for row in x])
        lam = mp.mpf(ridge)
        if width <= m:
            inner = xm.T * xm / m + lam * mp.eye(width)
            big_m = mp.inverse(inner) * xm.T / m
        else:
            inner = xm * xm.T / m + lam * mp.eye(m)
            big_m = xm.T * mp.inverse(inner) / m
        gram = big_m.T * big_m
        small = big_m * big_m.T if width < m else gram
        top = max(mp.eigsy(small, eigvals_only=True))
        diag = [gram[i, i] for i in range(m)]
        off = [mp.fsum(abs(gram[i, j]) for j in range(m) if j != i) for i in range(m)]
        total = mp.fsum(abs(gram[i, j]) for i in range(m) for j in range(m))
        delta = mp.sqrt(max(diag))
        norm_bound = min(mp.sqrt(m * top), mp.sqrt(total))
        s2 = max((g + r) ** 2 / g if r < g else 4 * r for g, r in zip(diag, off, strict=True))
        theory = max(g + 4 * r for g, r in zip(diag, off, strict=True))
        return (+delta, +norm_bound, +s2, +theory)


def design_bounds(m: int, width: int, seed: int, ridge: float) -> tuple:
    """:func:`gram_bounds` of :func:`design_matrix` (m, D, seed) at λ = ``ridge``."""
    return gram_bounds(design_matrix(m, width, seed), ridge)
