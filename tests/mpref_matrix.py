"""The Bures–Wasserstein distance of 2 × 2 PSD matrices at 40 digits (mpmath).

Part of the independent reference of the tests (tests/mpref.py): nothing here
imports synthamp (tests/test_mpref.py checks it). The definition, not the closed
form the library uses: BW(A, B)² = tr A + tr B − 2 tr (A^{1/2} B A^{1/2})^{1/2}, with
both square roots by mpmath's symmetric eigendecomposition (``eigsy``) at 60 digits,
eigenvalues clipped at 0 (rank-one and zero matrices included; A = B's cancellation is
harmless at that precision).
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
