"""Release as a partitioned Parquet dataset: one independent stream per partition.

docs/theory.md §17. Given V, the released records are iid N(0, σ_z² VᵀV), so a
record is g·R with g ~ N(0, I_k) and RᵀR = σ_z² VᵀV. A partition of the
release is therefore fully described by a :class:`PartitionTask`: the k × k
factor R, a number of rows, and one child of a :class:`numpy.random.SeedSequence`
(``spawn``, one child per partition). Records in a table's own units
(:mod:`synthamp.release._table_records`) are N(μ, Σ) with μ, Σ read off VᵀV: their tasks
carry μ and a factor of Σ instead, a post-processing of VᵀV. The output depends on the seed and the
number of partitions only, never on how many processes or machines write the
partitions; V, the noise N, the seeds Z (here g) and the private data are not
in a task.

Two writers consume the same tasks and write the same values:

- :func:`write_partitions`, in this process, streaming each partition in
  chunks (memory independent of the number of records);
- :func:`synthamp.release._distributed.write_partitions_dask`, on a dask cluster.

:func:`synthamp.release._distributed.write_dataset` is the transactional entry point
for a fitted :class:`~synthamp.release._generator.PrivateLinearGenerator` (either
writer): the dataset folder is written under a temporary name and renamed
into place at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synthamp._parameters import validated
from synthamp._validation import InputError
from synthamp.release._ridge import _draw_with_factor
from synthamp.release._tabular import write_rows

__all__ = [
    "PartitionTask",
    "default_columns",
    "iter_partition",
    "partition_frame",
    "partition_name",
    "plan_partitions",
    "write_partitions",
]

#: Rows drawn at once inside a partition (the values do not depend on it).
PARTITION_CHUNK = 262_144


@dataclass(frozen=True, eq=False, repr=False)
class PartitionTask:
    """What a worker needs to write one partition, and nothing more.

    Attributes
    ----------
    index : int
        Partition number (0-based); the file is :func:`partition_name` (index).
    rows : int
        Records in this partition.
    factor : ndarray of shape (k, k)
        R with RᵀR = σ_z² VᵀV. Its disclosure is the disclosure of VᵀV, covered
        by the unlimited-release guarantee (docs/theory.md §17).
    seed : numpy.random.SeedSequence
        This partition's child of the release's seed sequence.
    mean : ndarray of shape (k,) or None
        Added to every record (records in a table's units: μ, with ``factor`` a factor
        of Σ, both read off VᵀV); None: centred records g·R.
    """

    index: int
    rows: int
    factor: np.ndarray
    seed: np.random.SeedSequence
    mean: np.ndarray | None = None

    def __repr__(self) -> str:  # never show R or the seed
        return f"PartitionTask(index={self.index}, rows={self.rows}, k={self.factor.shape[0]})"


def plan_partitions(
    factor: np.ndarray,
    seed: np.random.SeedSequence,
    n_total: int,
    partitions: int,
    mean: np.ndarray | None = None,
) -> tuple[PartitionTask, ...]:
    """Split ``n_total`` records into ``partitions`` tasks, one spawned seed child each.

    Partition i gets ⌊n/P⌋ records, plus one for i < n mod P. ``seed.spawn``
    is called once, so a later call on the same sequence gives new streams. ``mean``
    (optional) is added to every record.
    """
    n_total, partitions = validated(n_total=n_total, partitions=partitions)
    if partitions > n_total:
        raise InputError("partitions", f"{partitions} partitions for {n_total} records")
    factor = np.array(factor, dtype=np.float64)
    factor.setflags(write=False)
    if mean is not None:
        mean = np.array(mean, dtype=np.float64)
        mean.setflags(write=False)
    base, extra = divmod(n_total, partitions)
    children = seed.spawn(partitions)
    return tuple(
        PartitionTask(i, base + (i < extra), factor, child, mean)
        for i, child in enumerate(children)
    )


def iter_partition(task: PartitionTask, chunk_size: int = PARTITION_CHUNK) -> Iterator[np.ndarray]:
    """Yield the records of one partition in chunks (the values do not depend on the chunks)."""
    rng = np.random.Generator(np.random.PCG64(task.seed))
    for start in range(0, task.rows, chunk_size):
        chunk = _draw_with_factor(task.factor, min(chunk_size, task.rows - start), rng)
        yield chunk if task.mean is None else chunk + task.mean


def partition_frame(task: PartitionTask, names: Sequence[str]):
    """One partition as a :class:`pandas.DataFrame` with columns ``names`` (for dask)."""
    import pandas as pd  # pandas is heavy: loaded only on dask workers

    chunks = list(iter_partition(task))
    values = np.concatenate(chunks) if chunks else np.empty((0, len(names)))
    return pd.DataFrame(values, columns=list(names))


def partition_name(index: int) -> str:
    """File name of partition ``index`` (the same as dask's ``to_parquet``)."""
    return f"part.{index}.parquet"


def default_columns(k: int) -> list[str]:
    """Column names y0 … y{k-1}."""
    return [f"y{j}" for j in range(k)]


def write_partitions(
    tasks: Sequence[PartitionTask],
    directory: str | os.PathLike,
    columns: Sequence[str],
    *,
    on_chunk: Callable[[int], None] | None = None,
) -> int:
    """Write the partitions into ``directory`` (which must exist), in this process.

    Memory does not grow with the number of records. ``on_chunk(rows)`` is
    called after each chunk (progress). Returns the number of records.
    """
    directory = Path(directory)
    total = 0
    for task in tasks:
        chunks = iter_partition(task)
        if on_chunk is not None:
            chunks = _reporting(chunks, on_chunk)
        total += write_rows(directory / partition_name(task.index), chunks, columns, fmt="parquet")
    return total


def _reporting(chunks: Iterator[np.ndarray], on_chunk: Callable[[int], None]):
    for chunk in chunks:
        yield chunk
        on_chunk(chunk.shape[0])


def generator_partitions(generator, n_total: int, partitions: int) -> tuple[PartitionTask, ...]:
    """Reserve ``n_total`` records of a fitted generator and plan its partitions."""
    generator._check_fitted()
    factor = generator._state("factor")
    if factor is None:
        raise InputError("sampler", "a partitioned release needs sampler='gram' (it ships R)")
    n_total, partitions = validated(n_total=n_total, partitions=partitions)
    if partitions > n_total:
        raise InputError("partitions", f"{partitions} partitions for {n_total} records")
    generator._reserve(n_total, "n_total")
    return plan_partitions(factor, _release_root(generator), n_total, partitions)


def _release_root(generator) -> np.random.SeedSequence:
    """The root of the partitions' streams, which must not reveal the noise's seed.

    A child of the generator's own seed sequence would carry its entropy, from
    which the noise N can be recomputed (N and the records share one root), so
    the partitions never descend from it. Without ``random_state``: 128 fresh
    bits of OS entropy. With it (research only): 256 bits drawn from the
    generator's sampling stream, so that the release is reproducible and still
    independent of the number of workers.
    """
    seeded = generator.random_state is not None
    return partitions_root(generator._state("rng") if seeded else None)


def partitions_root(rng: np.random.Generator | None) -> np.random.SeedSequence:
    """The partitions' root seed: fresh OS entropy, or 256 bits of a seeded sampling stream.

    Never a child of the noise's seed sequence (:func:`_release_root`). ``rng`` is the
    release's own sampling stream of a seeded (research) run, None otherwise.
    """
    if rng is None:
        return np.random.SeedSequence()
    words = rng.integers(0, 2**32, size=8, dtype=np.uint64)
    return np.random.SeedSequence([int(word) for word in words])
