"""The whole numeric table as the release: target rows into the ball, records in the table's units.

A design release protects the rows yᵢ of its target columns, clipped to ‖yᵢ‖ ≤ B. A table's
columns come in their own units, so the data holder declares each target column's public
range [lo, hi] (``--bounds FILE``, never read from the data) and :class:`TargetMap` maps each
row into the ball: every column affinely from [lo, hi] onto [−1, 1] (a value outside its range
is first clipped into it: a per-record map, which keeps adjacency), a constant coordinate 1 is
appended, and the row (u, 1) is multiplied by B/√k' (k' = the number of mapped columns, the
constant included), so ‖yᵢ‖ ≤ B. B is ``--label-bound`` (default 1 here: on a design the
release's utility does not depend on B, σ scales with it). The constant coordinate is part of
the target row, inside the ball, so the guarantee covers it: the release is one of k' = k + 1
columns, accounted as such.

The released Gram matrix then carries the means: with W the mapped rows, WᵀW = (B²/k')·
[[Σuᵢuᵢᵀ, Σuᵢ], [Σuᵢᵀ, m]]. :func:`table_moments` reads the table's mean and covariance off an
estimate of WᵀW (up to a positive factor): it projects onto the positive semi-definite
matrices, divides by the constant column's entry, whose true value is public (B²/k'·1ᵀG1 on a
design, G = MᵀM: B²/k'·g·m with g = (1 + mλ)⁻² on an orthogonal design; the projected entry
where that is larger, as when the noise dominates), reads the means of u
from the constant column's cross terms (its second moment is 1), the covariance as the rest
less the means' product (projected again), keeps them where values in [−1, 1] can have them
(each mean in [−1, 1], each variance at most 1 − mean², by scaling its row and column: the
declared ranges are public, so this is a post-processing that cannot move a feasible truth),
and undoes the columns' affine maps.
:func:`table_records` does this on the release's own Gram estimate
VᵀV − Dσ²I, computed from the k' × k' factor R the release keeps (RᵀR = σ_z²VᵀV; never V, v,
N or Z), and draws the records N(mean, cov) in the table's columns and units with fresh
randomness (the release's sampling stream: OS entropy, or a seeded research run's stream):
a post-processing of VᵀV, covered by the release's unlimited guarantee
(:data:`TABLE_RECORDS_NOTE`, worded here only).

On an orthogonal design E[VᵀV] = g·WᵀW + Dσ²I exactly, so the estimate is unbiased before the
projection; on a random design vᵀv = WᵀGW only approximates a multiple of WᵀW
(G's off-diagonal terms), and the records' moments are then approximate (the report says so).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._parameters import validated_one
from synthamp._validation import InputError, printable

__all__ = [
    "ALL_COLUMNS",
    "CONSTANT_COLUMN",
    "RECORD_KINDS",
    "TABLE_DISTRIBUTED_NOTE",
    "TABLE_RECORDS_APPROXIMATE",
    "TABLE_RECORDS_NOTE",
    "TableRecords",
    "TargetMap",
    "numeric_columns",
    "psd_project",
    "table_moments",
    "table_records",
    "target_map",
]

#: ``--targets all``: every numeric column of the table (less the declared public inputs).
ALL_COLUMNS = "all"
#: ``--records``: the table's columns and units (post-processing), or the mechanism's ZV.
RECORD_KINDS: tuple[str, ...] = ("table", "raw")
#: The name of the constant coordinate in raw records (``--records raw``).
CONSTANT_COLUMN = "_constant"
#: What the records in the table's units are, and what covers them (worded once; the
#: terminal, the JSON, the Markdown and the HTML reports render this sentence).
TABLE_RECORDS_NOTE = (
    "The records are in the table's own columns and units: drawn with fresh randomness from "
    "a Gaussian whose mean and covariance are read off the released Gram matrix VᵀV (debiased, "
    "projected onto the positive semi-definite matrices, the means from the constant column, "
    "the declared column ranges undone), a post-processing of VᵀV covered by the same "
    "guarantee for any number of records."
)
#: Added on a random design, where vᵀv only approximates a multiple of the rows' Gram matrix.
TABLE_RECORDS_APPROXIMATE = (
    "On a random design the model's Gram matrix only approximates a multiple of the rows' "
    "Gram matrix: the records' means and covariance are approximate (exact in expectation "
    "on an orthogonal design)."
)
#: What the dask workers of a release in the table's units receive (the report's note).
TABLE_DISTRIBUTED_NOTE = (
    "The records were written by dask workers, which receive only the mean and a factor of "
    "the covariance of the records in the table's units, read off VᵀV (never V, the noise, "
    "the seeds or the data): a post-processing of VᵀV, covered by the same guarantee."
)
_NAMED = 4


def numeric_columns(frame, exclude: Sequence[str] = ()) -> list[str]:
    """Every numeric (not boolean) column of ``frame``, in order, less ``exclude``."""
    import pandas as pd  # pandas is heavy: loaded only with a table

    skip = set(exclude)
    return [
        str(name)
        for name in frame.columns
        if str(name) not in skip
        and pd.api.types.is_numeric_dtype(frame[name])
        and not pd.api.types.is_bool_dtype(frame[name])
    ]


@dataclass(frozen=True)
class TargetMap:
    """The public map of a table's target columns into the ball of radius B, and back.

    Attributes
    ----------
    names : tuple of str
        The target columns (k).
    lo, hi : ndarray of shape (k,)
        Their declared public ranges.
    label_bound : float
        B.
    """

    names: tuple[str, ...]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    label_bound: float = 1.0

    @property
    def mapped_dim(self) -> int:
        """k' = k + 1: the columns of the mapped rows, the constant included."""
        return len(self.names) + 1

    @property
    def row_scale(self) -> float:
        """B/√k': the factor on (u, 1)."""
        return self.label_bound / math.sqrt(self.mapped_dim)

    def ranges(self) -> dict[str, list[float]]:
        """The declared ranges, ``{column: [lo, hi]}`` (public: the report records them)."""
        pairs = zip(self.names, self.lo.tolist(), self.hi.tolist(), strict=True)
        return {name: [lo, hi] for name, lo, hi in pairs}

    def outside(self, y: ArrayLike) -> NDArray[np.bool_]:
        """Which cells of ``y`` (m × k) leave their declared range (they are clipped)."""
        y = np.asarray(y, dtype=np.float64)
        return (y < self.lo) | (y > self.hi)

    def forward(self, y: ArrayLike) -> NDArray[np.float64]:
        """The mapped rows (m × k'): clip into [lo, hi], onto [−1, 1], append 1, times B/√k'.

        Every row has norm ≤ B (each of its k' coordinates is at most B/√k' in magnitude).
        """
        y = np.clip(np.asarray(y, dtype=np.float64), self.lo, self.hi)
        u = np.clip((2.0 * y - (self.lo + self.hi)) / (self.hi - self.lo), -1.0, 1.0)
        rows = np.hstack([u, np.ones((len(u), 1))]) * self.row_scale
        # ‖row‖ ≤ B up to rounding: a row at the corner may land one ulp above it
        return rows * (1.0 - 4 * np.finfo(np.float64).eps)

    def inverse(self, rows: ArrayLike) -> NDArray[np.float64]:
        """The table's values of mapped rows (m × k'; the constant column dropped)."""
        u = np.asarray(rows, dtype=np.float64)[:, :-1] / self.row_scale
        return self.lo + (u + 1.0) * (self.hi - self.lo) / 2.0

    def moments_in_units(
        self, mean_u: NDArray[np.float64], cov_u: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The mean and covariance of y = lo + (u + 1)(hi − lo)/2 from those of u."""
        half = (self.hi - self.lo) / 2.0
        return self.lo + (mean_u + 1.0) * half, cov_u * np.outer(half, half)


def target_map(
    bounds: Mapping[str, tuple[float, float]],
    names: Sequence[str],
    label_bound: float = 1.0,
    *,
    param: str = "bounds",
) -> TargetMap:
    """The :class:`TargetMap` of the target columns ``names``; refused if one has no range."""
    label_bound = validated_one("label_bound", label_bound)
    missing = [name for name in names if name not in bounds]
    if missing:
        shown = ", ".join(repr(printable(name)) for name in missing[:_NAMED])
        more = f" (and {len(missing) - _NAMED} more)" if len(missing) > _NAMED else ""
        raise InputError(param, f"has no range for the target column {shown}{more}")
    box = np.array([bounds[name] for name in names], dtype=np.float64).reshape(len(names), 2)
    return TargetMap(tuple(names), box[:, 0].copy(), box[:, 1].copy(), float(label_bound))


def check_target_ranges(y: ArrayLike, tmap: TargetMap, max_clipped: float) -> list[str]:
    """Refuse (``max_clipped``) when more than that share of rows leaves the declared ranges.

    Returns the note on the share clipped within the threshold (a statistic of the private
    data, for the data holder only: never written into an output).
    """
    outside = tmap.outside(y)
    share = float(np.mean(outside.any(axis=1))) if len(outside) else 0.0
    if share > max_clipped:
        order = np.argsort(-outside.sum(axis=0), kind="stable")
        order = order[outside[:, order].any(axis=0)][:_NAMED]
        named = ", ".join(
            f"{printable(tmap.names[j])} against [{tmap.lo[j]:.4g}, {tmap.hi[j]:.4g}]"
            for j in order
        )
        raise InputError(
            "max_clipped",
            f"{100 * share:.1f}% of target rows fall outside their declared `bounds` ({named}): "
            f"more than {100 * max_clipped:g}% clipped, so the records would carry little of "
            "the data (a statistic of your private data, for you only, written nowhere); "
            "widen the public ranges or raise `max_clipped`",
        )
    if share == 0:
        return []
    return [
        f"{100 * share:.1f}% of target rows fall outside their declared `bounds` and are "
        "clipped into them (a statistic of your private data, for you only: not covered by "
        "the privacy guarantee, not written anywhere)"
    ]


def psd_project(matrix: ArrayLike) -> NDArray[np.float64]:
    """The nearest positive semi-definite matrix in Frobenius norm (negative eigenvalues → 0)."""
    a = np.asarray(matrix, dtype=np.float64)
    a = (a + a.T) / 2.0
    values, vectors = np.linalg.eigh(a)
    out = (vectors * np.clip(values, 0.0, None)) @ vectors.T
    return (out + out.T) / 2.0


def table_moments(
    gram: ArrayLike, tmap: TargetMap, constant: float | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The table's mean and covariance (in its units) from an estimate of WᵀW (k' × k').

    Parameters
    ----------
    gram : array_like of shape (k', k')
        An estimate of WᵀW up to a positive factor (the design's g, m), the constant last.
    tmap : TargetMap
    constant : float, optional
        The true value of the constant column's entry in ``gram``'s units (public: B²/k'·1ᵀG1
        for a release on a design); it undoes the factor, unless the projected entry is
        larger (then that entry: the noise dominates). Default: the projected entry (exact
        for an exact Gram).

    Raises
    ------
    InputError
        ``epsilon``: without ``constant``, the constant entry is not positive after the
        projection (nothing to read).
    """
    a = psd_project(gram)
    if constant is None or a[-1, -1] > constant:
        # the projected entry, or the public value where that is larger: noise that
        # dominates inflates the projected entry, and dividing by it keeps the moments
        # those of a matrix whose constant entry is 1 (bounded), not noise over the signal
        constant = a[-1, -1]
        if not constant > 0:
            raise InputError(
                "epsilon", "the noise overwhelms the table's Gram matrix (its constant entry "
                "is not positive after the projection): give a larger ε or more records",
            )  # fmt: skip
    a = a / constant
    # the constant's second moment is 1: its cross terms are the means; u ∈ [−1, 1] (the
    # declared ranges, public) puts each mean in [−1, 1] and each variance ≤ 1 − mean²
    mean_u = np.clip(a[:-1, -1], -1.0, 1.0)
    cov_u = psd_project(a[:-1, :-1] - np.outer(mean_u, mean_u))
    variance = np.diag(cov_u)
    room = 1.0 - mean_u**2
    shrink = np.ones_like(variance)
    over = variance > room
    shrink[over] = np.sqrt(room[over] / variance[over])
    return tmap.moments_in_units(mean_u, cov_u * np.outer(shrink, shrink))


def covariance_factor(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """L with LᵀL = cov (a symmetric square root: cov may be singular)."""
    values, vectors = np.linalg.eigh(cov)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


@dataclass(eq=False)
class TableRecords:
    """Records N(mean, cov) in the table's columns and units (:func:`table_records`).

    ``mean`` and ``cov`` are post-processings of the released VᵀV: public under the
    release's guarantee. ``seeded``: a seeded research run (the partitions' streams then
    descend from the sampling stream, :mod:`synthamp.release._table_partitions`).
    """

    names: tuple[str, ...]
    mean: NDArray[np.float64]
    cov: NDArray[np.float64]
    _rng: np.random.Generator
    seeded: bool = False

    def iter_samples(self, n: int, chunk_size: int = 262_144) -> Iterator[NDArray[np.float64]]:
        """``n`` records in chunks of at most ``chunk_size`` rows (memory flat in n)."""
        factor = covariance_factor(self.cov)
        for start in range(0, n, chunk_size):
            size = min(chunk_size, n - start)
            yield self.mean + self._rng.standard_normal((size, len(self.mean))) @ factor


def released_gram(release) -> NDArray[np.float64]:
    """VᵀV − Dσ²I from the release's k' × k' factor R (RᵀR = σ_z²VᵀV): unbiased for vᵀv."""
    factor = release._factor
    gram = factor.T @ factor / release.seed_scale**2
    return gram - release.design.width * release.sigma**2 * np.eye(gram.shape[0])


def table_records(release, tmap: TargetMap) -> TableRecords:
    """The records of a design release in the table's columns and units (module docstring).

    Parameters
    ----------
    release : DesignRelease
        A release of the rows mapped by ``tmap`` (k' columns, the constant last).
    tmap : TargetMap

    Returns
    -------
    TableRecords
        Sampling with the release's own sampling stream (fresh: OS entropy, or a seeded
        research run's stream), never the noise's.
    """
    constant = None if release.ones_gram is None else tmap.row_scale**2 * release.ones_gram
    mean, cov = table_moments(released_gram(release), tmap, constant)
    return TableRecords(tmap.names, mean, cov, release._rng, bool(release.seeded))
