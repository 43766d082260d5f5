"""The ridge fit's sufficient statistics reduced on a dask cluster (extra ``synthamp[dask]``).

For tables beyond one machine: the table is read as a ``dask.dataframe`` (a Parquet
dataset, i.e. a folder of Parquet files or one file, or a CSV file), each partition's
rows go through :func:`~synthamp.release._streaming.chunk_statistics` on a worker (the
very maps and checks of the local streaming fit), and the partitions' statistics are
added in a tree on the cluster; the client receives m, XᵀX, XᵀY and the clipping tally
and solves the ridge system itself (:func:`~synthamp.release._streaming.solve_statistics`).

What the workers see: the private table's partitions and their statistics, on the data
holder's own cluster (they read the table); never the model v, the noise N, the seeds Z
or V, which exist only in the client process (docs/theory.md §17: the writers receive the
k × k factor R, and only where the unlimited guarantee covers it).

The result equals the local one to rounding: the same per-row maps, the same sums in
another order (``tests/test_dask_stats.py``, on a ``distributed.LocalCluster``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from synthamp._validation import InputError, printable
from synthamp.release._distributed import _scheduler, quiet_dask_logs, quiet_interrupt
from synthamp.release._streaming import (
    RidgeScaling,
    RidgeStatistics,
    accumulate_statistics,
)
from synthamp.release._table_chunks import CHUNK_ROWS, _frame_chunks
from synthamp.release._tabular import TABLE_FORMATS, _header

__all__ = ["check_dataset_input", "dask_statistics", "dataset_header"]


def check_dataset_input(path, *, param: str = "data") -> Path:
    """A dask input: a CSV or Parquet file, or a folder holding Parquet files (a dataset)."""
    path = Path(path)
    if not path.exists():
        raise InputError(param, f"{printable(path)} does not exist")
    if path.is_dir():
        if not any(p.suffix.lower() in (".parquet", ".pq") for p in path.iterdir()):
            raise InputError(param, f"the folder {printable(path)} holds no Parquet file")
        return path
    if path.suffix.lower() not in TABLE_FORMATS:
        known = ", ".join(sorted(TABLE_FORMATS))
        raise InputError(param, f"unsupported file extension {path.suffix!r}; use {known}")
    return path


def dataset_header(path, *, param: str = "data") -> list[str]:
    """The column names of a dask input (:func:`check_dataset_input`), no value read."""
    import pyarrow.parquet as pq  # pyarrow is heavy: loaded only to read a table

    path = check_dataset_input(path, param=param)
    if path.is_file():
        fmt = TABLE_FORMATS[path.suffix.lower()]
        return _header(path, fmt)
    first = sorted(p for p in path.iterdir() if p.suffix.lower() in (".parquet", ".pq"))[0]
    schema = pq.read_schema(first)
    index = set()
    if schema.pandas_metadata:
        index = {n for n in schema.pandas_metadata.get("index_columns", []) if isinstance(n, str)}
    return [name for name in schema.names if name not in index]


def _dask_frame(path: Path, columns: list[str]):
    """The table as a lazy dask dataframe of the used columns."""
    import dask.dataframe as dd  # dask: the optional extra

    if path.is_dir() or path.suffix.lower() in (".parquet", ".pq"):
        return dd.read_parquet(str(path), columns=columns)
    dtypes = {name: "float64" for name in columns}  # never guessed from a sample
    return dd.read_csv(str(path), usecols=columns, dtype=dtypes, blocksize="64MB")


@dataclass(frozen=True)
class _Refusal:
    """A partition's InputError, carried back as a value (an exception crossing the cluster
    is pickled by its message alone; this keeps the parameter and the rule apart)."""

    param: str
    rule: str


def _partition_statistics(
    frame, targets: list[str], features: list[str], scaling: RidgeScaling, index: int
) -> RidgeStatistics | _Refusal:
    """One partition's statistics, on a worker: the local fit's checks and maps, in chunks."""
    try:
        chunks = _frame_chunks(frame, targets, features, CHUNK_ROWS)
        return accumulate_statistics(chunks, scaling, dim=len(features), out_dim=len(targets))
    except InputError as error:  # the row is counted within the partition
        return _Refusal(error.param, f"{error.marked_rule} (partition {index + 1})")


def _merge(*parts: RidgeStatistics | _Refusal) -> RidgeStatistics | _Refusal:
    """The sum of the parts' statistics, or the first refusal (in partition order)."""
    for part in parts:
        if isinstance(part, _Refusal):
            return part
    total = parts[0]
    for part in parts[1:]:
        total = total.merge(part)
    return total


def dask_statistics(
    data,
    targets: Sequence[str],
    features: Sequence[str],
    scaling: RidgeScaling,
    *,
    scheduler=None,
    fan_in: int = 8,
) -> RidgeStatistics:
    """m, XᵀX, XᵀY and the clipping tally of a table, reduced on a dask cluster.

    Parameters
    ----------
    data : path-like
        A Parquet dataset (a folder of Parquet files), a Parquet file or a CSV file.
    targets, features : sequence of str
        The columns.
    scaling : RidgeScaling
        The declared maps of the rows.
    scheduler : optional
        A ``distributed.Client``, a scheduler address, a local scheduler name or None
        (dask's default), as :func:`~synthamp.release._distributed.write_partitions_dask`.
    fan_in : int
        Partitions' statistics added per task of the reduction tree.

    Returns
    -------
    RidgeStatistics
        Private: the caller solves and drops it.
    """
    import dask  # dask: the optional extra

    targets, features = list(targets), list(features)
    path = check_dataset_input(os.fspath(data))
    used = list(dict.fromkeys([*features, *targets]))
    try:
        frame = _dask_frame(path, used)
    except Exception as exc:
        raise InputError("data", f"cannot read {printable(path)}: {_first_line(exc)}") from None
    parts = [
        dask.delayed(_partition_statistics, pure=True)(part, targets, features, scaling, i)
        for i, part in enumerate(frame.to_delayed())
    ]
    if not parts:
        raise InputError("data", "needs at least 2 records, got 0")
    while len(parts) > 1:  # a tree: no task adds more than fan_in statistics
        parts = [
            dask.delayed(_merge, pure=True)(*parts[i : i + fan_in])
            for i in range(0, len(parts), fan_in)
        ]
    with quiet_interrupt(), quiet_dask_logs(), _scheduler(scheduler) as compute_kwargs:
        try:
            (total,) = dask.compute(parts[0], **compute_kwargs)
        except Exception as exc:  # a worker's parse error may quote a cell: only its type
            raise InputError(
                "data", f"cannot read {printable(path)}: a partition failed "
                f"({type(exc).__name__}); check that the used columns are numeric",
            ) from None  # fmt: skip
    if isinstance(total, _Refusal):
        raise InputError(total.param, total.rule)
    return total


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
