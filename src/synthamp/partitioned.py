"""Release as a partitioned Parquet dataset: one independent stream per partition.

THEORY.md §17. Given V, the released records are iid N(0, σ_z² VᵀV), so a
record is g·R with g ~ N(0, I_k) and RᵀR = σ_z² VᵀV. A partition of the
release is therefore fully described by a :class:`PartitionTask`: the k × k
factor R, a number of rows, and one child of a :class:`numpy.random.SeedSequence`
(``spawn``, one child per partition). The output depends on the seed and the
number of partitions only, never on how many processes or machines write the
partitions; V, the noise N, the seeds Z (here g) and the private data are not
in a task.

Two writers consume the same tasks and write the same values:

- :func:`write_partitions`, in this process, streaming each partition in
  chunks (memory independent of the number of records);
- :func:`synthamp.distributed.write_partitions_dask`, on a dask cluster.

:func:`write_dataset` is the transactional entry point for a fitted
:class:`~synthamp.generator.PrivateLinearGenerator`: the dataset folder is
written under a temporary name and renamed into place at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synthamp._validation import InputError, check_integer
from synthamp.ridge import _draw_with_factor

__all__ = [
    "BACKENDS",
    "PartitionTask",
    "default_columns",
    "iter_partition",
    "partition_frame",
    "partition_name",
    "plan_partitions",
    "write_dataset",
    "write_partitions",
]

#: Where the partitions are computed.
BACKENDS = ("local", "dask")

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
        by the unlimited-release guarantee (THEORY.md §17).
    seed : numpy.random.SeedSequence
        This partition's child of the release's seed sequence.
    """

    index: int
    rows: int
    factor: np.ndarray
    seed: np.random.SeedSequence

    def __repr__(self) -> str:  # never show R or the seed
        return f"PartitionTask(index={self.index}, rows={self.rows}, k={self.factor.shape[0]})"


def plan_partitions(
    factor: np.ndarray, seed: np.random.SeedSequence, n_total: int, partitions: int
) -> tuple[PartitionTask, ...]:
    """Split ``n_total`` records into ``partitions`` tasks, one spawned seed child each.

    Partition i gets ⌊n/P⌋ records, plus one for i < n mod P. ``seed.spawn``
    is called once, so a later call on the same sequence gives new streams.
    """
    n_total = check_integer("n_total", n_total, 1)
    partitions = check_integer("partitions", partitions, 1)
    if partitions > n_total:
        raise InputError("partitions", f"{partitions} partitions for {n_total} records")
    factor = np.array(factor, dtype=np.float64)
    factor.setflags(write=False)
    base, extra = divmod(n_total, partitions)
    children = seed.spawn(partitions)
    return tuple(
        PartitionTask(i, base + (i < extra), factor, child) for i, child in enumerate(children)
    )


def iter_partition(task: PartitionTask, chunk_size: int = PARTITION_CHUNK) -> Iterator[np.ndarray]:
    """Yield the records of one partition in chunks (the values do not depend on the chunks)."""
    rng = np.random.Generator(np.random.PCG64(task.seed))
    for start in range(0, task.rows, chunk_size):
        yield _draw_with_factor(task.factor, min(chunk_size, task.rows - start), rng)


def partition_frame(task: PartitionTask, names: Sequence[str]):
    """One partition as a :class:`pandas.DataFrame` with columns ``names`` (for dask)."""
    import pandas as pd

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
    from synthamp.tabular import write_rows

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
    n_total = check_integer("n_total", n_total, 1)
    partitions = check_integer("partitions", partitions, 1)
    if partitions > n_total:
        raise InputError("partitions", f"{partitions} partitions for {n_total} records")
    generator._reserve(n_total, "n_total")
    seed = generator._state("rng").bit_generator.seed_seq
    return plan_partitions(factor, seed, n_total, partitions)


def write_dataset(
    generator,
    path: str | os.PathLike,
    n_total: int,
    *,
    partitions: int,
    columns: Sequence[str] | None = None,
    backend: str = "local",
    scheduler=None,
    force: bool = False,
) -> int:
    """Write ``n_total`` records of a fitted generator as a partitioned Parquet dataset.

    The folder ``path`` appears complete or not at all (it is written under a
    temporary name, ``.NAME.synthamp-tmp-PID-TOKEN``, then renamed).

    Parameters
    ----------
    generator : PrivateLinearGenerator
        Fitted, with ``sampler="gram"``. With ``backend="dask"`` it must have been
        fitted for an unlimited release (``n_syn=None``): the workers receive R,
        which reveals VᵀV, covered only by the unlimited guarantee (THEORY.md §17).
    path : path-like
        Destination folder (replaced only with ``force`` and only if it holds
        nothing but ``.parquet`` files).
    n_total : int
        Number of records (counted against a finite ``n_syn``).
    partitions : int
        Number of files ``part.{i}.parquet``; each holds ⌊n/P⌋ or ⌈n/P⌉ records.
    columns : sequence of str, optional
        Column names (default y0 … y{k-1}).
    backend : {"local", "dask"}
        Write in this process, or on dask (:mod:`synthamp.distributed`).
    scheduler : optional
        For dask: a scheduler address, a ``distributed.Client``, or a dask
        scheduler name ("synchronous", "threads", "processes"). None: dask's
        default (the current client, if any).
    force : bool
        Replace an existing dataset.

    Returns
    -------
    int
        Records written.
    """
    from synthamp._io import OutputTransaction, check_directory_output

    if backend not in BACKENDS:
        raise InputError("backend", f"must be one of {', '.join(BACKENDS)}")
    if backend == "dask":
        from synthamp.distributed import require_dask

        require_dask()
        if getattr(generator, "n_syn_", None) is not None:
            raise InputError(
                "backend",
                "a distributed release ships R (hence VᵀV) to the workers, which only the "
                "unlimited guarantee covers: fit the generator with n_syn=None",
            )
    destination = check_directory_output(path, force=force, param="path")
    generator._check_fitted()
    columns = list(columns) if columns is not None else default_columns(generator.n_targets_)
    if len(columns) != generator.n_targets_:
        raise InputError("columns", f"needs {generator.n_targets_} names, got {len(columns)}")
    tasks = generator_partitions(generator, n_total, partitions)
    with OutputTransaction() as transaction:
        folder = transaction.add(destination, param="path", directory=True)
        with transaction.writing("path"):
            if backend == "dask":
                from synthamp.distributed import write_partitions_dask

                rows = write_partitions_dask(tasks, folder, columns, scheduler=scheduler)
            else:
                rows = write_partitions(tasks, folder, columns)
        transaction.commit()
    return rows
