"""The table's records (in its columns and units) as a partitioned release.

docs/theory.md §17. The records of :func:`synthamp.release._table_records.table_records`
are N(μ, Σ), μ and Σ read off the released VᵀV: a post-processing of VᵀV, covered by the
release's guarantee for any number of records. A partition is then fully described by
μ, a factor L of Σ (LᵀL = Σ), a number of rows and its own seed: each partition draws
μ + g·L from the same μ and Σ with fresh randomness (:class:`PartitionTask` with a
``mean``). A worker receives only that post-processed map, never V, v, N, Z or the Gram
factor of VᵀV; the seeds are spawned from fresh OS entropy (a seeded research run: from
256 bits of the sampling stream), never from the noise's seed, so the output does not
depend on how many processes or machines write the partitions.
"""

from __future__ import annotations

from synthamp._parameters import validated
from synthamp._validation import InputError
from synthamp.release._partitioned import PartitionTask, partitions_root, plan_partitions
from synthamp.release._table_records import TableRecords, covariance_factor

__all__ = ["table_partition_tasks"]


def table_partition_tasks(
    records: TableRecords, n_total: int, partitions: int
) -> tuple[PartitionTask, ...]:
    """``n_total`` records of ``records`` in ``partitions`` independent tasks.

    Parameters
    ----------
    records : TableRecords
        The mean and covariance in the table's units (post-processing of VᵀV).
    n_total, partitions : int
        Records to write (≥ 1) and partitions (1 … ``n_total``).

    Returns
    -------
    tuple of PartitionTask
        Each with ``factor`` L (LᵀL = Σ), ``mean`` μ and its own seed.
    """
    n_total, partitions = validated(n_total=n_total, partitions=partitions)
    if partitions > n_total:
        raise InputError("partitions", f"{partitions} partitions for {n_total} records")
    root = partitions_root(records._rng if records.seeded else None)
    factor = covariance_factor(records.cov)
    return plan_partitions(factor, root, n_total, partitions, mean=records.mean)
