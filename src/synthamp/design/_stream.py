"""One pass over a public design: K = XXᵀ and the noise's projection XN, the design drawn once.

A release on a public design needs the m × m kernel K = XXᵀ (for the certified bounds and
the dual R, :mod:`synthamp.design._gram`) and then the noisy model V = v + σN with
v = Xᵀα, α = RY/m (docs/theory.md §19). α needs the whole of K, so v cannot be formed in
the pass that builds K; forming it in a second pass draws the whole design again (22% of a
release at D = 10⁶). The release keeps only VᵀV (k × k, docs/theory.md §17), and

    VᵀV = vᵀv + σ(vᵀN + Nᵀv) + σ²NᵀN,   vᵀv = αᵀKα,   vᵀN = αᵀ(XN),

so one pass suffices: each block of X (m × b) is drawn once from the public seed, its
product XXᵀ is added to K and, with the block's rows of N (b × k, drawn from the noise's
generator in the same order as one D × k draw), XN (m × k) and NᵀN (k × k) are accumulated.
After the bounds, :func:`released_gram` assembles VᵀV from the certified spectrum of K
(vᵀv = αᵀV̂ diag(t̂)V̂ᵀα) without forming v. The law of V is unchanged (the same N, the
same v); only the rounding of vᵀv differs, and :func:`model_gram_error` bounds it.

**The rounding of vᵀv.** Let K̃ = Q diag(t̂)Qᵀ (Q the orthogonal polar factor of V̂) with
‖K − K̃‖₂ <= ε_K and ‖V̂ − Q‖_F <= ω (:class:`~synthamp.design._gram.DesignSpectrum`). For
the exact v = Xᵀα on the float design and the computed ŵ = fl(V̂ᵀα),

    |(v̂ᵀv̂)ᵢⱼ − (vᵀv)ᵢⱼ| <= ‖α‖_F² (ε_K + t_max(ω(2 + ω) + u(1 + ω)²))
                           + t_max Δ(2‖ŵ‖_F + Δ) + γ_{r+1} t_max ‖ŵ‖_F²,

Δ = γ_m‖V̂‖_F‖α‖_F: the first term is |αᵀ(K − K̃)α| and V̂ diag(t̂)V̂ᵀ − K̃ (norm at most
t_max(2ω + ω²)) with the values' own rounding (t̂ = fl(ŝ²) on the SVD route); the second the
rounding of ŵ (|ŵ − w| <= γ_m|V̂|ᵀ|α| entrywise, Higham eq. 3.5); the third the product
(ŵ diag(t̂))ᵀŵ. Like the rounding of the model v̂ = fl(Xᵀα) that the two-pass release formed
(and which it replaces), it is a rounding of the data-dependent product, not covered by the
certified bounds (:mod:`synthamp.design._gram`, "as in every floating-point mechanism").

**Threads.** Each block's product is small (m × b by b × m with b = 4,096); OpenBLAS's own
threads on 2 cores under load made it 2.4–26× slower than one thread (docs/benchmarks.md),
and the m × m work after the pass too (``eigh`` at m = 178: 0.98 s against 15 ms; at
m = 2,000: 41 s against 5.8 s, load 11 on 2 cores). The block loops, the decomposition and
the bounds run with BLAS on one thread (:func:`one_blas_thread`, threadpoolctl, a
scikit-learn dependency; without it BLAS keeps its threads, and ``OPENBLAS_NUM_THREADS=1``
set before Python starts has the same effect). Two blocks in parallel threads were no
faster on 2 loaded cores (measured, docs/benchmarks.md) and would hold a second m × m
partial sum, so the blocks run in order.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - scikit-learn depends on threadpoolctl
    threadpool_limits = None

from synthamp._budget import report_status
from synthamp.design._gram import UNIT_ROUNDOFF, DesignSpectrum, _fro, _up, gamma

__all__ = [
    "BlockSums",
    "NoiseProjection",
    "factor_of_gram",
    "model_gram_error",
    "one_blas_thread",
    "released_gram",
    "sum_blocks",
]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread inside the block (threadpoolctl; the setting is the process's, so
    other threads' BLAS calls meanwhile run on one thread too), restored after it; without
    threadpoolctl, BLAS keeps its own thread count (module docstring)."""
    if threadpool_limits is None:  # pragma: no cover - scikit-learn depends on threadpoolctl
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@dataclass(eq=False)
class NoiseProjection:
    """The noise's part of VᵀV, accumulated in the design's pass: private (never print, log,
    write or pickle it; :meth:`clear` zeroes it).

    Attributes
    ----------
    projection : ndarray
        XN (m × k), X the unit-row design, N (D × k) the noise.
    noise_gram : ndarray
        NᵀN (k × k).
    """

    projection: NDArray[np.float64] = field(repr=False)
    noise_gram: NDArray[np.float64] = field(repr=False)

    def clear(self) -> None:
        """Zero both arrays (the noise is dropped once VᵀV is formed)."""
        self.projection.fill(0.0)
        self.noise_gram.fill(0.0)

    def __getstate__(self):
        raise TypeError("a NoiseProjection holds the release's noise: it is not pickled")


@dataclass(eq=False)
class BlockSums:
    """What one pass over a design's raw blocks accumulated (:func:`sum_blocks`).

    Attributes
    ----------
    kernel : ndarray or None
        Σ_blocks BBᵀ of the raw blocks, summed in two levels (``kernel=True``).
    row_squares : ndarray or None
        Σ_blocks of each row's squared norm (``kernel=False``).
    blocks : list of ndarray or None
        The raw blocks themselves (``kernel=False``: a design small enough to hold).
    projection : ndarray or None
        Σ_blocks B N_b (m × k) of the raw blocks, when a noise generator was given.
    noise_gram : ndarray or None
        Σ_blocks N_bᵀN_b (k × k), when a noise generator was given.
    """

    kernel: NDArray[np.float64] | None = None
    row_squares: NDArray[np.float64] | None = None
    blocks: list[NDArray[np.float64]] | None = None
    projection: NDArray[np.float64] | None = field(default=None, repr=False)
    noise_gram: NDArray[np.float64] | None = field(default=None, repr=False)


def sum_blocks(
    raw_blocks: Iterable[NDArray[np.float64]],
    n_records: int,
    *,
    n_blocks: int,
    group: int,
    kernel: bool,
    noise: np.random.Generator | None = None,
    out_dim: int = 1,
    label: str = "design",
) -> BlockSums:
    """One pass over the raw blocks (m × b each), BLAS on one thread.

    ``kernel=True``: K = Σ BBᵀ in two levels, the blocks' products summed in groups of
    ``group`` blocks and the groups into K (:meth:`PublicDesign.summation_depth`), the order
    of :meth:`PublicDesign.kernel`. ``kernel=False``: the row norms' squares (one einsum per
    block, as :meth:`PublicDesign.row_norms`) and the blocks kept. With ``noise``: N_b
    (b × ``out_dim``) drawn per block in the blocks' order (the same numbers as one
    D × ``out_dim`` draw), Σ B N_b and Σ N_bᵀN_b; each N_b is zeroed after use.
    """
    m = n_records
    sums = BlockSums()
    if kernel:
        sums.kernel = np.zeros((m, m))
    else:
        sums.row_squares, sums.blocks = np.zeros(m), []
    if noise is not None:
        sums.projection, sums.noise_gram = np.zeros((m, out_dim)), np.zeros((out_dim, out_dim))
    partial = None
    with one_blas_thread():
        for j, block in enumerate(raw_blocks):
            if j % 16 == 0:  # a live status line on the command line (synthamp._budget)
                report_status(f"{label}: block {j + 1}/{n_blocks}")
            if kernel:
                if group == 1:
                    sums.kernel += block @ block.T
                else:
                    if partial is None:
                        partial = block @ block.T
                    else:
                        partial += block @ block.T
                    if (j + 1) % group == 0:
                        sums.kernel += partial
                        partial = None
            else:
                sums.row_squares += np.einsum("ij,ij->i", block, block)
                sums.blocks.append(block)
            if noise is not None:
                rows = noise.standard_normal((block.shape[1], out_dim))
                sums.projection += block @ rows
                sums.noise_gram += rows.T @ rows
                rows.fill(0.0)
        if partial is not None:
            sums.kernel += partial
    return sums


def released_gram(
    spectrum: DesignSpectrum,
    dual: ArrayLike,
    targets: ArrayLike,
    noise: NoiseProjection,
    sigma: float,
) -> NDArray[np.float64]:
    """VᵀV = vᵀv + σ(vᵀN + Nᵀv) + σ²NᵀN (k × k) without forming v (module docstring).

    Parameters
    ----------
    spectrum : DesignSpectrum
        The certified decomposition of K (vᵀv = αᵀV̂ diag(t̂)V̂ᵀα).
    dual : array_like
        R̂ (m × m), α = R̂Y/m (as :func:`synthamp.design._designs.design_model`).
    targets : array_like
        Y (m × k, or m), clipped, in the design's row order.
    noise : NoiseProjection
        XN and NᵀN from the design's pass.
    sigma : float
        σ.

    Returns
    -------
    ndarray
        VᵀV, symmetric: private (never print, log or write it).
    """
    y = np.asarray(targets, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    alpha = np.asarray(dual) @ y / spectrum.n_records
    w = spectrum.vectors.T @ alpha
    gram = (w * spectrum.values[:, None]).T @ w  # vᵀv
    cross = alpha.T @ noise.projection  # vᵀN
    gram += sigma * (cross + cross.T)
    gram += (sigma * sigma) * noise.noise_gram
    w.fill(0.0)
    return 0.5 * (gram + gram.T)


def factor_of_gram(gram: NDArray[np.float64]) -> NDArray[np.float64]:
    """Upper-triangular R with RᵀR = VᵀV (a symmetric square root if VᵀV is singular), as
    :func:`synthamp.release._ridge._gram_factor` does from V itself."""
    try:
        return scipy.linalg.cholesky(gram, lower=False)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(gram)
        return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def model_gram_error(spectrum: DesignSpectrum, alpha: ArrayLike) -> float:
    """A bound on every entry of |v̂ᵀv̂ − vᵀv|, v̂ᵀv̂ the vᵀv of :func:`released_gram` and
    v = Xᵀα exact on the float design (module docstring)."""
    a = np.asarray(alpha, dtype=float)
    a = a[:, None] if a.ndim == 1 else a
    v, t = spectrum.vectors, spectrum.values
    m, r = v.shape
    omega, top = spectrum.orthogonality, _up(float(t.max()), 1)
    a_fro, v_fro, w_fro = _fro(a), _fro(v), _fro(v.T @ a)  # each rounded up
    drift = _up(gamma(m + 2) * v_fro * a_fro, 4)  # >= ‖ŵ − w‖_F
    values = omega * (2.0 + omega) + UNIT_ROUNDOFF * (1.0 + omega) ** 2  # V̂ against Q, fl(ŝ²)
    spectral = spectrum.kernel_error + top * values
    bound = (
        a_fro * a_fro * spectral
        + top * drift * (2.0 * w_fro + 2.0 * drift)
        + gamma(r + 1) * top * (w_fro + drift) ** 2
    )
    return _up(bound, 16) if math.isfinite(bound) else math.inf
