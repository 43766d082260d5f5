"""References of 2 × 2 matrix arguments (mpmath): the Bures–Wasserstein distance, log ₀F₁.

Part of the independent reference of the tests (tests/mpref.py): nothing here
imports synthamp (tests/test_mpref.py checks it). The definition, not the closed
form the library uses: BW(A, B)² = tr A + tr B − 2 tr (A^{1/2} B A^{1/2})^{1/2}, with
both square roots by mpmath's symmetric eigendecomposition (``eigsy``) at 60 digits,
eigenvalues clipped at 0 (rank-one and zero matrices included; A = B's cancellation is
harmless at that precision).

``log_hyp0f1_2x2_integral``: log ₀F₁(d/2; diag(x₁, x₂)) by the §8 integral in θ
(docs/theory.md; u = sin θ), mpmath quadrature at 30 digits split around the peak: an
independent formula for the engine's ₀F₁ (tests/divergence/test_wishart.py; seconds
per point, so stored by tests/data/make_references.py).
"""

from __future__ import annotations

import mpmath as mp

DPS = 40


def bures_wasserstein_2x2(a: list, b: list) -> mp.mpf:
    """BW(A, B) of A = [[a₀, a₁], [a₁, a₂]] and B likewise (entries as given, exactly)."""
    with mp.workdps(DPS + 20):
        ma = mp.matrix([[mp.mpf(a[0]), mp.mpf(a[1])], [mp.mpf(a[1]), mp.mpf(a[2])]])
        mb = mp.matrix([[mp.mpf(b[0]), mp.mpf(b[1])], [mp.mpf(b[1]), mp.mpf(b[2])]])
        root = _psd_sqrt(ma)
        cross = _psd_sqrt(root * mb * root)
        squared = ma[0, 0] + ma[1, 1] + mb[0, 0] + mb[1, 1] - 2 * (cross[0, 0] + cross[1, 1])
        return +mp.sqrt(max(squared, 0))


def _psd_sqrt(m: mp.matrix) -> mp.matrix:
    """The PSD square root Q diag(√max(λ, 0)) Qᵀ of a symmetric matrix."""
    values, vectors = mp.eigsy(m)
    roots = mp.diag([mp.sqrt(max(v, 0)) for v in values])
    return vectors * roots * vectors.T


def log_hyp0f1_2x2_integral(dim: int, x1: float, x2: float) -> mp.mpf:
    """log ₀F₁(d/2; diag(x₁, x₂)) by the §8 integral in θ (u = sin θ), split around the peak."""
    with mp.workdps(30):
        nu1 = mp.mpf(dim - 1) / 2

        def f(theta):
            c2 = mp.cos(theta) ** 2
            return mp.cos(theta) ** (dim - 2) * mp.hyp0f1(nu1, x1 * c2) * mp.hyp0f1(nu1, x2 * c2)

        width = 1 / mp.sqrt(dim + 2 * mp.sqrt(x1) + 2 * mp.sqrt(x2))
        pts = [0] + [width * k for k in (1, 2, 4, 8, 16, 32) if width * k < mp.pi / 2] + [mp.pi / 2]
        integral = 2 * mp.quad(f, pts)
        norm = mp.gamma(mp.mpf(dim) / 2) / (mp.sqrt(mp.pi) * mp.gamma(nu1))
        return mp.log(integral * norm)
