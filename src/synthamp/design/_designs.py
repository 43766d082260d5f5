"""Public designs: wide generators on public random seeds or features (docs/theory.md §19).

If the regressors are public and fixed before the data are seen, the ridge
model is linear in the private targets: v = M Y with

    M = (XᵀX/m + λI)⁻¹ Xᵀ/m = Xᵀ R/m,   R = (K/m + λI)⁻¹,   K = XXᵀ (m × m)

(the push-through identity), so G = MᵀM = U diag(s²/(s² + mλ)²) Uᵀ (X = U S Wᵀ) and
every bound of the release is a function of the m × m matrix G (docs/theory.md §19).
G and R are computed, with a rigorous bound on their rounding, by
:mod:`synthamp.design._gram` (the SVD of X when D < m or X is small, the
eigendecomposition of K for D >= 2m or large designs); :func:`design_bounds` evaluates the formulas
below at the upper ends of those error bounds, so each is certified (>= its exact
value on the float design), or refuses:

* Δ = 2B · maxᵢ √Gᵢᵢ: v − w = M eᵢ(yᵢ − yᵢ′) for a replace-one change of record
  i, |yᵢ − yᵢ′| <= 2B; the exact supremum.
* C = B · min(√(m·λ_max(G)), √(Σᵢⱼ|Gᵢⱼ|)): ‖MY‖² = YᵀGY <= λ_max(G)‖Y‖² <= λ_max(G)·mB²
  (the bound B√m‖M‖_op of docs/theory.md §19) and YᵀGY <= Σᵢⱼ|Gᵢⱼ||yᵢyⱼ| <= B²Σᵢⱼ|Gᵢⱼ|.
  A certified bound, not always attained.
* s₂ (k = 1): λ_w − λ_v = Gᵢᵢ(y′² − y²) + 2(y′ − y)Sᵢ, Sᵢ = Σ_{j≠i}Gᵢⱼyⱼ, |Sᵢ| <= B rᵢ,
  rᵢ = Σ_{j≠i}|Gᵢⱼ| (attained with yⱼ = B·sign Gᵢⱼ). docs/theory.md §19 bounds it by
  B²(Gᵢᵢ + 4rᵢ) (:attr:`DesignBounds.gram_sensitivity_theory`). The exact supremum
  is smaller: with Sᵢ = B rᵢ, the best y′ is B (value GᵢᵢB² + 2B²rᵢ) and the best
  y maximises the concave −Gᵢᵢy² − 2yBrᵢ on [−B, B], at y = −B rᵢ/Gᵢᵢ clipped:
  its value is B²rᵢ²/Gᵢᵢ if rᵢ < Gᵢᵢ, else 2B²rᵢ − GᵢᵢB². So

      s₂ = B² · maxᵢ ((Gᵢᵢ + rᵢ)²/Gᵢᵢ if rᵢ < Gᵢᵢ else 4rᵢ)  <=  B² maxᵢ (Gᵢᵢ + 4rᵢ),

  the supremum of |‖v‖² − ‖w‖²| over adjacent datasets with |yⱼ| <= B
  (:attr:`DesignBounds.gram_sensitivity`; the tests attain it).

The designs (``DESIGNS``), each a deterministic function of a recorded
**public** seed (``numpy.random.default_rng([seed, block])`` per block of
``BLOCK_COLUMNS`` columns, never the noise's entropy):

* ``random-seeds``: xᵢ uniform on the unit sphere of R^D (Gaussian rows, normalised);
* ``random-features``: random Fourier features of public inputs uᵢ ∈ R^p,
  φ(u) = cos(uW + b), W ~ N(0, 1/γ²) (p × D), b ~ U[0, 2π), rows normalised to
  ‖xᵢ‖ = 1. Only a public design if the inputs u are public: random features of
  private inputs make M depend on the data, and then docs/theory.md §13 applies.
* ``orthogonal``: the Gaussian rows of ``random-seeds`` orthonormalised (D >= m), so
  G = g·I_m exactly: its bounds are closed forms and its release samples VᵀV from its
  exact law without forming the design (:mod:`synthamp.design._orthogonal`).

Memory and time are flat in D beyond ``DENSE_ENTRIES``: K is accumulated block by
block (m × BLOCK_COLUMNS at a time, never a dense m × D matrix). A release draws the design
once (:func:`design_pass`): the same pass accumulates the noise's projection XN and NᵀN,
and VᵀV is assembled without forming v (:mod:`synthamp.design._stream`); the block loops
and the m × m work run with BLAS on one thread. :func:`design_model` still assembles
v = Xᵀα, α = R Y/m, block by block into a D × k array (a second pass over the design),
for the benchmarks and the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import report_status
from synthamp._kinds import privacy_quantity
from synthamp._parameters import MAX_WIDTH, validated, validated_one
from synthamp._validation import InputError
from synthamp.design._gram import (
    CERTIFIED_RELATIVE_ERROR,
    DesignSpectrum,
    certified_bounds,
    gamma,
    gram_terms,
    smallest_certified_ridge,
    spectrum_from_kernel,
    spectrum_from_matrix,
)
from synthamp.design._orthogonal import ORTHOGONAL, check_orthogonal_width, orthonormal_rows
from synthamp.design._stream import BlockSums, NoiseProjection, one_blas_thread, sum_blocks

__all__ = [
    "ADJACENCIES",
    "BLOCK_COLUMNS",
    "DESIGNS",
    "MAX_WIDTH",
    "DesignBounds",
    "PublicDesign",
    "check_adjacency",
    "design_bounds",
    "design_model",
    "design_pass",
    "design_spectrum",
    "gram_sensitivity_terms",
]

#: The public designs.
DESIGNS: tuple[str, ...] = ("random-seeds", "random-features", ORTHOGONAL)

#: Adjacencies of a design release: the reachable Gram pairs (k = 1), or the norm model.
ADJACENCIES: tuple[str, ...] = ("gram", "norm")
#: Columns of the design generated at once (part of the design's definition: the seed of
#: block j is [seed, j]).
BLOCK_COLUMNS = 4096
#: Largest nearly square design (m <= D < 2m; m·D entries, 32 MiB) whose bounds are computed
#: from the thin SVD of X itself (better conditioned than K = XXᵀ); D < m always uses it.
DENSE_ENTRIES = 2**22


def check_adjacency(adjacency: str, out_dim: int) -> str:
    """The adjacency of a design release: one of :data:`ADJACENCIES`. "gram": for k = 1 the
    statistic-level theorem of docs/gram-adjacency.md, for k ≥ 2 the certified reduction of
    docs/theory.md §20 (:func:`synthamp.accountant.calibrate_certified`); "norm": Theorem 5.4's
    norm model (any k)."""
    if adjacency not in ADJACENCIES:
        raise InputError("adjacency", f"must be one of {', '.join(ADJACENCIES)}")
    return adjacency


@dataclass(frozen=True, eq=False)
class PublicDesign:
    """A public design X (m × D), generated block by block from a recorded public seed.

    Parameters
    ----------
    name : {"random-seeds", "random-features", "orthogonal"}
    width : int
        D, 1 <= D <= 10⁶ (``orthogonal``: D >= m).
    n_records : int
        m.
    seed : int
        The public seed (recorded in the release's report; not the noise's).
    inputs : array_like or None
        ``random-features`` only: the public inputs u (m × p).
    bandwidth : float or None
        γ of ``random-features`` (default √p).
    """

    name: str
    width: int
    n_records: int
    seed: int
    inputs: NDArray[np.float64] | None = None
    bandwidth: float | None = None

    def __post_init__(self) -> None:
        if self.name not in DESIGNS:
            raise InputError("design", f"must be one of {', '.join(DESIGNS)}; got {self.name!r}")
        object.__setattr__(self, "width", validated_one("width", self.width))
        object.__setattr__(self, "n_records", validated_one("n_records", self.n_records))
        object.__setattr__(self, "seed", validated_one("design_seed", self.seed))
        if self.name == "random-features":
            if self.inputs is None:
                raise InputError("inputs", "random-features needs the public inputs (m × p)")
            inputs = np.asarray(self.inputs, dtype=float)
            if inputs.ndim == 1:
                inputs = inputs[:, None]
            if inputs.ndim != 2 or inputs.shape[0] != self.n_records:
                raise InputError("inputs", f"must be {self.n_records} × p, got {inputs.shape}")
            if not np.all(np.isfinite(inputs)):
                raise InputError("inputs", "must be finite")
            inputs.setflags(write=False)
            object.__setattr__(self, "inputs", inputs)
            gamma = math.sqrt(inputs.shape[1]) if self.bandwidth is None else self.bandwidth
            object.__setattr__(self, "bandwidth", validated_one("bandwidth", gamma))
        elif self.inputs is not None:
            raise InputError("inputs", f"{self.name} takes no inputs")
        if self.name == ORTHOGONAL:
            check_orthogonal_width(self.width, self.n_records)

    def _raw_blocks(self) -> Iterator[NDArray[np.float64]]:
        """The unnormalised design, block by block (m × ≤ BLOCK_COLUMNS)."""
        m = self.n_records
        for j, start in enumerate(range(0, self.width, BLOCK_COLUMNS)):
            b = min(BLOCK_COLUMNS, self.width - start)
            rng = np.random.default_rng([self.seed, j])  # public randomness, recorded seed
            if self.name != "random-features":  # random-seeds, orthogonal (before Gram–Schmidt)
                yield rng.standard_normal((m, b))
            else:
                p = self.inputs.shape[1]
                w = rng.standard_normal((p, b)) / self.bandwidth
                phase = rng.uniform(0.0, 2.0 * math.pi, b)
                yield np.cos(self.inputs @ w + phase)

    def row_norms(self) -> NDArray[np.float64]:
        """‖xᵢ‖ of the unnormalised rows (one pass)."""
        sq = np.zeros(self.n_records)
        for block in self._raw_blocks():
            sq += np.einsum("ij,ij->i", block, block)
        return np.sqrt(sq)

    def blocks(self, norms: NDArray[np.float64] | None = None) -> Iterator[NDArray[np.float64]]:
        """The design X with unit rows (‖xᵢ‖ = 1), block by block (``orthogonal``: the
        column blocks of :meth:`dense`, small widths only)."""
        if self.name == ORTHOGONAL:
            x = self.dense()
            yield from (x[:, j : j + BLOCK_COLUMNS] for j in range(0, self.width, BLOCK_COLUMNS))
            return
        norms = self.row_norms() if norms is None else norms
        if np.any(norms == 0):
            raise InputError("design", "a design row is zero; choose another seed")
        for block in self._raw_blocks():
            block /= norms[:, None]
            yield block

    def kernel(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(K, row norms): K = XXᵀ of the unit-row design, accumulated by blocks (one pass,
        BLAS on one thread: :func:`synthamp.design._stream.sum_blocks`).

        Two-level summation: the blocks' products are summed in groups of
        :meth:`_group` blocks, the groups into K, so that every entry passes through at
        most :meth:`summation_depth` rounded operations (Higham §3.1, §4.2), not D.
        """
        k, norms, _ = self._stream_kernel(None, 1)
        return k, norms

    def _stream_kernel(
        self, noise: np.random.Generator | None, out_dim: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NoiseProjection | None]:
        """(K, row norms, the noise's projection or None): :meth:`kernel`'s pass, with XN
        and NᵀN accumulated from the same blocks when ``noise`` is given."""
        sums = sum_blocks(
            self._raw_blocks(), self.n_records, n_blocks=-(-self.width // BLOCK_COLUMNS),
            group=self._group(), kernel=True, noise=noise, out_dim=out_dim,
            label=f"{self.name} design: kernel",
        )  # fmt: skip
        k = sums.kernel
        norms = np.sqrt(np.diag(k).copy())
        if np.any(norms == 0):
            raise InputError("design", "a design row is zero; choose another seed")
        k /= np.outer(norms, norms)
        return k, norms, _projection(sums, norms)

    def _group(self) -> int:
        """Blocks summed per group in :meth:`kernel` (about the square root of their number)."""
        return max(1, math.isqrt(-(-self.width // BLOCK_COLUMNS)))

    def summation_depth(self) -> int:
        """h: the rounded operations a product term of an entry of K passes through in
        :meth:`kernel`: its product, at most b − 1 additions inside a block's matrix product
        (b <= BLOCK_COLUMNS, any order), at most one per block of its group and one per group."""
        blocks = -(-self.width // BLOCK_COLUMNS)
        group = self._group()
        return min(self.width, BLOCK_COLUMNS) + group + -(-blocks // group) + 1

    def kernel_entry_error(self) -> float:
        """κ >= |K̂ᵢⱼ − (XXᵀ)ᵢⱼ|, K̂ from :meth:`kernel`, X = :meth:`blocks` with its norms.

        Each raw inner product has error <= γ_h Σₐ|x̃ᵢₐx̃ⱼₐ| <= γ_h‖x̃ᵢ‖‖x̃ⱼ‖ (Higham eq. 3.5,
        any summation order of depth h); the norms nᵢ = fl(√Ŝᵢᵢ) satisfy ‖x̃ᵢ‖/nᵢ <=
        1/((1 − γ_h)^{1/2}(1 − u)); the division by fl(nᵢnⱼ) and the rows' own division by
        nᵢ add γ₆ (Higham Lemma 3.3): κ = γ_{h+6}/((1 − γ_h)(1 − u)²).

        The bound holds for any order of the additions inside a block's product, so for any
        number of BLAS threads; the one-pass release (:func:`design_pass`) sums the blocks
        in the same two levels, so h and κ are those of :meth:`kernel`.
        """
        h = self.summation_depth()
        u = 2.0**-53
        return gamma(h + 6) / ((1.0 - gamma(h)) * (1.0 - u) ** 2)

    def dense(self) -> NDArray[np.float64]:
        """The whole design X (m × D): for tests and small widths only (``orthogonal``:
        the Gaussian rows of ``random-seeds`` orthonormalised)."""
        if self.name == ORTHOGONAL:
            return orthonormal_rows(np.hstack(list(self._raw_blocks())))
        return np.hstack(list(self.blocks()))


@dataclass(frozen=True)
class DesignBounds:
    """The certified public-design bounds of a ridge release (module docstring; docs/theory.md §19).

    Each bound is >= its exact value on the float design as generated, for the exact
    model M and for the operator the release applies (synthamp.design._gram).

    Attributes
    ----------
    sensitivity : float
        Δ >= 2B maxᵢ √Gᵢᵢ (the exact supremum of ‖v − w‖), certified.
    norm_bound : float
        C (certified bound on ‖v‖).
    gram_sensitivity : float
        s₂ (k = 1), certified upper bound on the exact supremum of |‖v‖² − ‖w‖²|.
    gram_sensitivity_theory : float
        B² maxᵢ(Gᵢᵢ + 4Σ_{j≠i}|Gᵢⱼ|), the bound stated in docs/theory.md §19 (>= s₂), certified.
    gram : ndarray
        Ĝ ≈ G = MᵀM (m × m), public (a function of the design and λ).
    dual : ndarray
        R̂ ≈ (K/m + λI)⁻¹ on the range of X (m × m), public: v = XᵀR̂Y/m.
    rounding_bound : float
        The largest certified relative error of Δ, C and s₂: each reported bound exceeds
        the value computed from Ĝ by at most this fraction (at most
        ``CERTIFIED_RELATIVE_ERROR``, or the bounds are refused).
    route : {"svd", "kernel"}
        How G was computed: the thin SVD of X (D < m) or the eigendecomposition of K.
    norms : ndarray or None
        The row norms that normalised the design (for :func:`design_model`), when known.
    gram_error : float
        ε_S >= |Ĝᵢⱼ − Gᵢⱼ| for every entry (the certified spectral error of Ĝ), for the
        k ≥ 2 certificate's c* (:func:`synthamp.accountant.canonical_norm`).
    """

    sensitivity: float
    norm_bound: float
    gram_sensitivity: float
    gram_sensitivity_theory: float
    gram: NDArray[np.float64]
    dual: NDArray[np.float64]
    rounding_bound: float = 0.0
    route: str = "kernel"
    norms: NDArray[np.float64] | None = None
    gram_error: float = math.inf


def gram_sensitivity_terms(gram: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per record i, the supremum of |‖v‖² − ‖w‖²|/B² over changes of record i (module
    docstring): (Gᵢᵢ + rᵢ)²/Gᵢᵢ if rᵢ < Gᵢᵢ, else 4rᵢ, rᵢ = Σ_{j≠i}|Gᵢⱼ|. s₂ = B²·max."""
    diag = np.clip(np.diag(gram).copy(), 0.0, None)
    off = np.abs(gram).sum(axis=1) - np.abs(np.diag(gram))
    return gram_terms(diag, off)


def design_spectrum(design: PublicDesign) -> DesignSpectrum:
    """The certified decomposition of a public design's K = XXᵀ (λ-independent; reuse it
    across ridges): the thin SVD of X when D < m, or D < 2m and X has at most
    :data:`DENSE_ENTRIES` entries (nearly square designs, where K squares a large condition
    number), else the eigendecomposition of the kernel accumulated by
    :meth:`PublicDesign.kernel` with its per-entry error bound (well conditioned for D >= 2m,
    and the m × D matrix is never held)."""
    spectrum, _ = design_pass(design)
    return spectrum


def design_pass(
    design: PublicDesign, noise: np.random.Generator | None = None, out_dim: int = 1
) -> tuple[DesignSpectrum, NoiseProjection | None]:
    """:func:`design_spectrum` and, with ``noise``, the noise's projection XN and NᵀN
    (N: D × ``out_dim``, drawn from ``noise`` in the order of one D × k draw), from one
    pass over the design: each block is drawn once from the public seed
    (:mod:`synthamp.design._stream`). The projection is private. BLAS runs on one thread
    throughout (the m × m work too: measured under load, docs/benchmarks.md)."""
    with one_blas_thread():
        return _design_pass(design, noise, out_dim)


def _design_pass(
    design: PublicDesign, noise: np.random.Generator | None, out_dim: int
) -> tuple[DesignSpectrum, NoiseProjection | None]:
    m, width = design.n_records, design.width
    if design.name == ORTHOGONAL:  # its bounds are closed forms: no m × m work
        raise InputError(
            "design",
            "the orthogonal design's bounds are closed forms "
            "(synthamp.design._orthogonal.orthogonal_bounds)",
        )
    if width < m or (width < 2 * m and m * width <= DENSE_ENTRIES):
        sums = sum_blocks(
            design._raw_blocks(), m, n_blocks=-(-width // BLOCK_COLUMNS), group=1,
            kernel=False, noise=noise, out_dim=out_dim, label=f"{design.name} design",
        )  # fmt: skip
        norms = np.sqrt(sums.row_squares)  # as PublicDesign.row_norms
        if np.any(norms == 0):
            raise InputError("design", "a design row is zero; choose another seed")
        for block in sums.blocks:  # as PublicDesign.blocks: the same float design
            block /= norms[:, None]
        x = np.hstack(sums.blocks)
        sums.blocks = None
        spectrum = spectrum_from_matrix(x, norms=norms)
        return spectrum, _projection(sums, norms)
    kernel, norms, projection = design._stream_kernel(noise, out_dim)
    spectrum = spectrum_from_kernel(kernel, design.kernel_entry_error(), norms=norms, width=width)
    return spectrum, projection


def _projection(sums: BlockSums, norms: NDArray[np.float64]) -> NoiseProjection | None:
    """XN = diag(1/‖xᵢ‖)·Σ B N_b from the raw blocks' sums, and NᵀN (None without noise)."""
    if sums.projection is None:
        return None
    return NoiseProjection(sums.projection / norms[:, None], sums.noise_gram)


@privacy_quantity("certified")
def design_bounds(
    design: PublicDesign | DesignSpectrum | ArrayLike, ridge: float, label_bound: float
) -> DesignBounds:
    """Certified Δ, C and s₂ of the ridge model on a public design.

    Parameters
    ----------
    design : PublicDesign, DesignSpectrum or array_like
        The public design (its float X as generated is the truth the bounds hold for),
        its certified decomposition (:func:`design_spectrum`, reused across ridges), or
        a kernel K = XXᵀ (m × m, symmetric positive semi-definite, taken as exact), X
        with rows ‖xᵢ‖ <= 1.
    ridge : float
        λ > 0 (synthamp's convention: penalty λ‖W‖², docs/theory.md §13).
    label_bound : float
        B > 0, ‖yᵢ‖ <= B (for s₂, k = 1: |yᵢ| <= B).

    Returns
    -------
    DesignBounds

    Raises
    ------
    InputError
        ``ridge`` or ``width``: the bounds cannot be certified (their certified relative
        error would exceed ``CERTIFIED_RELATIVE_ERROR``; the message names the smallest
        ridge that certifies, when there is one).
    """
    lam, b = validated(ridge=ridge, label_bound=label_bound)
    if isinstance(design, PublicDesign):
        spectrum = design_spectrum(design)
    elif isinstance(design, DesignSpectrum):
        spectrum = design
    else:
        spectrum = spectrum_from_kernel(design)
    with one_blas_thread():  # m × m products: one BLAS thread (synthamp.design._stream)
        evaluated = certified_bounds(spectrum, lam, b)
    if not evaluated.rounding_bound <= CERTIFIED_RELATIVE_ERROR:
        raise _uncertified(spectrum, lam, evaluated.rounding_bound)
    return DesignBounds(
        sensitivity=evaluated.sensitivity,
        norm_bound=evaluated.norm_bound,
        gram_sensitivity=evaluated.gram_sensitivity,
        gram_sensitivity_theory=evaluated.gram_sensitivity_theory,
        gram=evaluated.gram,
        dual=evaluated.dual,
        rounding_bound=evaluated.rounding_bound,
        route=spectrum.route,
        norms=spectrum.norms,
        gram_error=evaluated.gram_error,
    )


def _uncertified(spectrum: DesignSpectrum, ridge: float, rounding: float) -> InputError:
    """The one-line refusal of bounds that cannot be certified at λ."""
    m = spectrum.n_records
    shape = f"{m} × {spectrum.width}" if spectrum.width else f"{m} × {m} kernel"
    why = (
        f"the design bounds of the {shape} design cannot be certified at λ = {ridge:.3g} "
        f"(their rounding error bound is {rounding:.2g} relative, above "
        f"{CERTIFIED_RELATIVE_ERROR:.0e})"
        if math.isfinite(rounding)
        else f"the design bounds of the {shape} design cannot be certified at λ = {ridge:.3g}"
    )
    better = smallest_certified_ridge(spectrum, ridge)
    if better is not None:
        return InputError("ridge", f"{why}; λ >= {better:.3g} is certified")
    return InputError("width", f"{why} at any ridge; use a width D >= m or another design")


def design_model(
    design: PublicDesign,
    targets: ArrayLike,
    dual: ArrayLike,
    norms: ArrayLike,
) -> NDArray[np.float64]:
    """The ridge model v = Xᵀα, α = R Y/m (D × k), assembled block by block.

    The private model: never print, log or write it.
    """
    y = np.asarray(targets, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    alpha = np.asarray(dual) @ y / design.n_records
    out = np.empty((design.width, y.shape[1]))
    start = 0
    blocks = -(-design.width // BLOCK_COLUMNS)
    with one_blas_thread():
        for j, block in enumerate(design.blocks(np.asarray(norms, dtype=float))):
            if j % 16 == 0:
                report_status(f"{design.name} design: model, block {j + 1}/{blocks}")
            out[start : start + block.shape[1]] = block.T @ alpha
            start += block.shape[1]
    return out
