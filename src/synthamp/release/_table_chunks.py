"""Reading a private table in chunks of rows: memory independent of its length.

:func:`table_columns` resolves the target and feature columns from the table's header
(checked as :func:`~synthamp.release._tabular.read_table` checks it: no duplicated or
unnamed column); :func:`iter_table_chunks` then yields the used columns as float64
arrays, a chunk of rows at a time, each checked as
:func:`~synthamp.release._tabular.select_numeric` checks the whole table (numeric columns,
no NaN or infinite cell, the row counted from 1 over the whole table). No copy of the
whole table is made.

- **Parquet**: ``pyarrow.parquet.ParquetFile.iter_batches`` over the used columns only;
  the column types are checked on the schema before any value is read.
- **CSV**: pyarrow's streaming CSV reader, every used column read as float64 (a cell that
  does not parse as a number refuses its column as not numeric; the type is never guessed
  from the first block), quoted line breaks kept inside their record (as pandas does), blank
  lines skipped, empty and ``NA``-like cells missing (refused, as NaN is). pyarrow parses
  each number to the nearest double; pandas' default parser may differ in the last bit.
- **A pandas DataFrame**: slices of its rows (views, no copy of the table).

Error messages name columns and row numbers, never cell values: the table is private.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from synthamp._validation import InputError, printable
from synthamp.release._tabular import (
    _check_header,
    _first_line,
    _header,
    check_frame_columns,
    check_input_file,
    table_format,
)

__all__ = ["CHUNK_ROWS", "CSV_BLOCK_BYTES", "iter_table_chunks", "table_columns"]

#: Rows per chunk of a Parquet file or a DataFrame.
CHUNK_ROWS = 131_072
#: Bytes of CSV text parsed per chunk (about 10⁵ rows of 20 numbers).
CSV_BLOCK_BYTES = 1 << 23

#: Row groups larger than this (bytes, uncompressed) are read page by page (no read-ahead).
PREBUFFER_LIMIT = 1 << 28

_CSV_COLUMN = re.compile(r"In CSV column #(\d+)")


def table_columns(
    data, targets: Sequence[str], features: Sequence[str] | None, *, param: str = "data"
) -> tuple[list[str], list[str]]:
    """The target and feature columns of ``data`` (a path or a DataFrame), from its header.

    Features default to every column that is not a target. Refused (``InputError``): a
    missing column, a feature that is also a target, no feature left, more targets than
    features, and the header's own faults (duplicated or unnamed names).
    """
    if hasattr(data, "columns"):  # a pandas DataFrame: its names as a file's header
        used = None if features is None else {*targets, *features}
        check_frame_columns(data, used, param=param)
        names = [str(c) for c in data.columns]
    else:
        path = Path(data)
        fmt = table_format(path, param=param)
        check_input_file(path, param=param)
        try:
            names = _header(path, fmt)
        except Exception as exc:  # parser, encoding, permission and Arrow errors alike
            raise InputError(param, f"cannot read {path}: {_first_line(exc)}") from None
        if not names:
            raise InputError(param, f"cannot read {path}: the file is empty")
        _check_header(names, path, param)
    present = set(names)
    target_set = set(targets)
    available = ", ".join(printable(c) for c in names[:20]) + (", ..." if len(names) > 20 else "")
    for name in targets:
        if name not in present:
            raise InputError(
                "targets", f"column {printable(name)!r} is not in the data (columns: {available})"
            )
    if features is None:
        features = [c for c in names if c not in target_set]
        if not features:
            raise InputError("features", "no columns left besides the targets")
    features = [str(c) for c in features]
    for name in features:
        if name not in present:
            raise InputError(
                "features", f"column {printable(name)!r} is not in the data (columns: {available})"
            )
        if name in target_set:
            raise InputError("features", f"column {name!r} is also a target")
    if len(targets) > len(features):
        raise InputError(
            "targets",
            f"k = {len(targets)} targets exceed d = {len(features)} features; need d ≥ k",
        )
    return list(targets), features


def iter_table_chunks(
    data,
    targets: Sequence[str],
    features: Sequence[str],
    *,
    rows: int = CHUNK_ROWS,
    param: str = "data",
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (x, y): the feature and target columns of consecutive rows, float64, checked.

    Parameters
    ----------
    data : path-like or pandas.DataFrame
        A CSV or Parquet file (by extension), or a table in memory.
    targets, features : sequence of str
        The columns (:func:`table_columns`).
    rows : int
        Rows per chunk (Parquet, DataFrame; a CSV chunk is about
        :data:`CSV_BLOCK_BYTES` of text).

    Yields
    ------
    x : ndarray of shape (r, d)
    y : ndarray of shape (r, k)
        Fresh C-ordered arrays, owned by the consumer (which may modify them).

    Raises
    ------
    InputError
        A column that is not numeric (``features`` or ``targets``, as
        :func:`~synthamp.release._tabular.select_numeric`), a NaN or infinite cell (its
        column and row), or a file that cannot be parsed.
    """
    targets, features = list(targets), list(features)
    if hasattr(data, "columns"):
        yield from _frame_chunks(data, targets, features, rows)
        return
    path = Path(data)
    fmt = table_format(path, param=param)
    batches = (
        _parquet_batches(path, targets, features, rows, param)
        if fmt == "parquet"
        else _csv_batches(path, targets, features, param)
    )
    offset = 0
    for batch in batches:
        x = _batch_columns(batch, features, offset, "features")
        y = _batch_columns(batch, targets, offset, "targets")
        offset += len(y)
        yield x, y


def _frame_chunks(frame, targets, features, rows) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Row slices of a DataFrame (the dtypes checked once, the cells per slice)."""
    import pandas as pd  # pandas is heavy: loaded only to read a table

    for columns, param in ((targets, "targets"), (features, "features")):
        for name in columns:
            dtype = frame[name].dtype
            if pd.api.types.is_complex_dtype(dtype):
                raise InputError(param, f"column {name!r} is complex; real numbers are needed")
            if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
                raise InputError(param, f"column {name!r} is not numeric ({dtype})")
    for start in range(0, len(frame), rows):
        part = frame.iloc[start : start + rows]
        # fresh C-ordered arrays, as a file's chunks (never a view of the caller's frame: the
        # consumer may modify a chunk; and the products then add in the same order)
        x = np.array(part.loc[:, features].to_numpy(np.float64, na_value=np.nan), order="C")
        y = np.array(part.loc[:, targets].to_numpy(np.float64, na_value=np.nan), order="C")
        _check_finite(x, features, start, "features")
        _check_finite(y, targets, start, "targets")
        yield x, y


def _parquet_batches(path: Path, targets, features, rows: int, param: str):
    """Record batches of the used columns; their types checked on the schema first."""
    import pyarrow as pa  # pyarrow is heavy: loaded only to read a table
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        schema = handle.schema_arrow
    except Exception as exc:
        raise InputError(param, f"cannot read {path}: {_first_line(exc)}") from None
    for columns, what in ((targets, "targets"), (features, "features")):
        for name in columns:
            kind = schema.field(name).type
            numeric = pa.types.is_integer(kind) or pa.types.is_floating(kind)
            if pa.types.is_decimal(kind):
                numeric = True
            if not numeric:
                raise InputError(what, f"column {name!r} is not numeric ({kind})")
    used = list(dict.fromkeys([*features, *targets]))
    try:
        meta = handle.metadata
        groups = range(meta.num_row_groups)
        if any(meta.row_group(i).total_byte_size > PREBUFFER_LIMIT for i in groups):
            # a large row group: its pages read as they are decoded, never the whole group
            handle = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 22)
        for group in groups:  # one row group at a time: pyarrow's read-ahead (pre_buffer)
            # over the whole file held about the file's size in memory (1.97 GB at 10⁷ × 21)
            yield from handle.iter_batches(batch_size=rows, row_groups=[group], columns=used)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(param, f"cannot read {path}: {_first_line(exc)}") from None


def _csv_batches(path: Path, targets, features, param: str):
    """Record batches of a CSV file, the used columns parsed as float64."""
    import pyarrow as pa  # pyarrow is heavy: loaded only to read a table
    import pyarrow.csv as pa_csv

    names = _header(path, "csv")
    used = list(dict.fromkeys([*features, *targets]))
    convert = pa_csv.ConvertOptions(
        column_types={name: pa.float64() for name in used}, include_columns=used
    )
    options = dict(
        read_options=pa_csv.ReadOptions(block_size=CSV_BLOCK_BYTES),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=convert,
    )
    try:
        reader = pa_csv.open_csv(str(path), **options)
        yield from reader
    except InputError:
        raise
    except Exception as exc:
        raise _csv_error(exc, names, targets, path, param) from None


def _csv_error(exc: BaseException, names, targets, path: Path, param: str) -> InputError:
    """The reader's error without the cell value it quotes: a column that is not numeric."""
    text = _first_line(exc)
    match = _CSV_COLUMN.search(text)
    if match and "conversion error" in text and int(match.group(1)) < len(names):
        name = names[int(match.group(1))]
        what = "targets" if name in set(targets) else "features"
        return InputError(what, f"column {name!r} is not numeric (a cell is not a number)")
    if "conversion error" in text:  # the value is quoted: never repeat it
        return InputError(param, f"cannot read {path}: a cell is not a number")
    return InputError(param, f"cannot read {path}: {text}")


def _batch_columns(batch, columns: list[str], offset: int, param: str) -> np.ndarray:
    """The named columns of an Arrow record batch as a float64 (rows, len(columns)) array."""
    arrays = []
    for name in columns:
        column = batch.column(name)
        if column.null_count:
            row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(
                param, f"column {printable(name)!r} has a missing (NaN) value in row "
                f"{offset + row + 1}",
            )  # fmt: skip
        arrays.append(np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64))
    if arrays:
        out = np.column_stack(arrays)  # a fresh C-ordered array
    else:
        out = np.empty((batch.num_rows, 0))
    _check_finite(out, columns, offset, param)
    return out


def _check_finite(values: np.ndarray, names: Sequence[str], offset: int, param: str) -> None:
    """NaN or infinite cells refused as :func:`~synthamp._validation.check_real_table` does,
    the row counted from 1 over the whole table (``offset`` rows before this chunk)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if values.size == 0 or np.isfinite(np.add.reduce(values, axis=None)):
            return  # a NaN or an infinity makes the sum NaN or infinite: all cells finite
    finite = np.isfinite(values)  # the sum overflowed, or a cell is not finite: find it
    if finite.all():
        return
    row, col = (int(i) for i in np.argwhere(~finite)[0])
    what = "a missing (NaN)" if np.isnan(values[row, col]) else "an infinite"
    raise InputError(
        param, f"column {printable(names[col])!r} has {what} value in row {offset + row + 1}"
    )
