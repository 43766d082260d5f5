"""The ridge fit's sufficient statistics, accumulated over chunks of rows (docs/theory.md §13).

The ridge solution v = (XᵀX + mλI)⁻¹XᵀY of the clipped rows depends on the table only
through m, XᵀX (d × d) and XᵀY (d × k). :func:`accumulate_statistics` makes one pass over
chunks of rows (:func:`~synthamp.release._table_chunks.iter_table_chunks`, or a dask
partition's rows): each chunk is mapped and clipped by the very functions the in-memory fit
applies to the whole table (:func:`~synthamp.release._ridge.map_into_bounds`,
:func:`~synthamp.release._ridge.scale_clip_rows`, :func:`~synthamp.release._ridge.clip_rows`:
per-row maps, so chunking does not change a row), its clipping counted
(:func:`~synthamp.release._column_bounds.tally_clipping`) and its products added. Memory:
one chunk and O(d² + dk); no copy of the table.

:func:`solve_statistics` then solves the ridge system by Cholesky
(:func:`~synthamp.release._ridge.ridge_solve`, the in-memory fit's solver). The result
equals the in-memory fit to rounding: the sums are the same sums in another order (a
relative perturbation of at most about m·u of Σ|xᵢ||xᵢ|ᵀ), which the system's condition
number κ ≤ (1 + λ)/λ (rows of norm ≤ 1) carries into v; ``tests/test_streaming.py`` checks
that bound.

The statistics are a function of the private data (as v is): never written, logged or
printed. They stay with the data holder: on a dask cluster the workers return their
partitions' statistics to the client, which solves (:mod:`synthamp.release._dask_stats`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from synthamp._validation import InputError
from synthamp.release._column_bounds import ClippingTally, tally_clipping
from synthamp.release._ridge import _scale_clip_rows, clip_rows, map_into_bounds, ridge_solve

__all__ = [
    "RidgeScaling",
    "RidgeStatistics",
    "accumulate_statistics",
    "chunk_statistics",
    "solve_statistics",
]


@dataclass(frozen=True)
class RidgeScaling:
    """The declared, public maps applied to each row before the fit.

    Attributes
    ----------
    label_bound : float
        B: target rows clipped to norm ≤ B.
    feature_scale : float or ndarray of shape (d,)
        Features multiplied by it, then rows clipped to norm ≤ 1 (1.0 with ``bounds``).
    bounds : ndarray of shape (d, 2) or None
        Declared ranges [lo, hi] per feature column: clamped, mapped onto [−1, 1], / √d.
    """

    label_bound: float
    feature_scale: float | np.ndarray = 1.0
    bounds: np.ndarray | None = None

    def features(self, x: np.ndarray) -> np.ndarray:
        """The feature rows as the fit sees them (norm ≤ 1); ``x`` may be modified in place."""
        if self.bounds is not None:
            x = map_into_bounds(x, self.bounds[:, 0], self.bounds[:, 1])
            return _scale_clip_rows(x, 1.0, 1.0, copy=False)
        # the chunk itself, its clipped rows replaced (the chunk is the caller's, used no more)
        return _scale_clip_rows(x, self.feature_scale, 1.0, copy=False)

    def targets(self, y: np.ndarray) -> np.ndarray:
        """The target rows as the fit sees them (norm ≤ B)."""
        return clip_rows(y, self.label_bound)


@dataclass(frozen=True)
class RidgeStatistics:
    """m, XᵀX and XᵀY of the clipped rows, and the clipping tally (private: never output).

    Attributes
    ----------
    records : int
        m.
    gram : ndarray of shape (d, d)
        XᵀX of the mapped and clipped feature rows.
    cross : ndarray of shape (d, k)
        XᵀY, the targets clipped to norm ≤ B.
    clipping : ClippingTally
        The rows clipped (for the clipping check).
    scaling : RidgeScaling
        The maps the rows went through.
    """

    records: int
    gram: np.ndarray
    cross: np.ndarray
    clipping: ClippingTally
    scaling: RidgeScaling

    @property
    def dim(self) -> int:
        """d."""
        return self.gram.shape[0]

    @property
    def out_dim(self) -> int:
        """k."""
        return self.cross.shape[1]

    def merge(self, other: RidgeStatistics) -> RidgeStatistics:
        """The statistics of both sets of rows (the same scaling)."""
        return RidgeStatistics(
            self.records + other.records,
            self.gram + other.gram,
            self.cross + other.cross,
            self.clipping.merge(other.clipping),
            self.scaling,
        )

    def __repr__(self) -> str:  # never the private sums
        return f"RidgeStatistics(records={self.records}, d={self.dim}, k={self.out_dim})"


def chunk_statistics(x: np.ndarray, y: np.ndarray, scaling: RidgeScaling) -> RidgeStatistics:
    """The statistics of one chunk of rows: tallied, mapped, clipped, multiplied.

    ``x`` may be modified (its clipped rows replaced): the chunks of
    :func:`~synthamp.release._table_chunks.iter_table_chunks` are the caller's own.
    """
    tally = tally_clipping(
        x, y, label_bound=scaling.label_bound, feature_scale=scaling.feature_scale,
        bounds=scaling.bounds,
    )  # fmt: skip
    features = scaling.features(x)
    targets = scaling.targets(y)
    return RidgeStatistics(len(y), features.T @ features, features.T @ targets, tally, scaling)


def accumulate_statistics(
    chunks: Iterable[tuple[np.ndarray, np.ndarray]],
    scaling: RidgeScaling,
    *,
    dim: int,
    out_dim: int,
) -> RidgeStatistics:
    """One pass over chunks (x, y) of rows: their :class:`RidgeStatistics`.

    Parameters
    ----------
    chunks : iterable of (ndarray (r, d), ndarray (r, k))
        Consumed one at a time (finite float64 rows, checked by the reader); each chunk's
        arrays may be modified (the reader's chunks are fresh arrays).
    scaling : RidgeScaling
    dim, out_dim : int
        d and k (an empty table gives zero sums of these shapes).
    """
    total = _empty(dim, out_dim, scaling)
    for x, y in chunks:
        if x.shape[1] != dim or y.shape[1] != out_dim or len(x) != len(y):
            raise InputError(
                "data",
                f"a chunk has shape {x.shape}, {y.shape}; need d = {dim}, "
                f"k = {out_dim} and as many target rows as feature rows",
            )
        total = total.merge(chunk_statistics(x, y, scaling))
    return total


def _empty(dim: int, out_dim: int, scaling: RidgeScaling) -> RidgeStatistics:
    tally = ClippingTally(
        0, 0, 0, np.full(dim, np.inf) if scaling.bounds is not None else np.zeros(dim),
        np.full(dim, -np.inf) if scaling.bounds is not None else np.zeros(dim),
        np.zeros(dim, dtype=np.int64), np.zeros(out_dim),
    )  # fmt: skip
    return RidgeStatistics(0, np.zeros((dim, dim)), np.zeros((dim, out_dim)), tally, scaling)


def solve_statistics(statistics: RidgeStatistics, ridge: float) -> np.ndarray:
    """The ridge solution (XᵀX + mλI)⁻¹XᵀY from the statistics (**not private**).

    The in-memory fit's solver (:func:`~synthamp.release._ridge.ridge_solve`) on the
    accumulated sums; symmetrised first (the sums of XᵀX are symmetric up to rounding).
    """
    gram = 0.5 * (statistics.gram + statistics.gram.T)
    return ridge_solve(gram, statistics.cross, statistics.records, ridge)
