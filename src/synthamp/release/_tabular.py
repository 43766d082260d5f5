"""Reading private tables and writing synthetic ones (CSV or Parquet, by extension).

Input problems (a missing file, a missing, duplicated, unnamed, non-numeric
or complex column, a NaN or infinite cell, fewer than two records) raise
:class:`synthamp.InputError` naming the command-line parameter, so
``synthamp release`` exits with code 2 and one line. Error messages name
columns and row numbers, never cell values: the table is private.

Duplicated names are refused because pandas would silently rename them ("a",
"a.1"); an unnamed first column is refused because it is almost always a row
index written by pandas, which would otherwise become a feature.

Output is written in chunks (memory independent of ``n_syn``), under a
temporary name that :mod:`synthamp._output._io` renames into place at the end, so an
interrupted write leaves no partial file.
"""

from __future__ import annotations

import csv
import os
import stat
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from synthamp._output._io import atomic_path, check_writable
from synthamp._validation import InputError, check_real_table, printable

__all__ = [
    "TABLE_FORMATS",
    "check_csv_names",
    "check_frame_columns",
    "check_input_file",
    "check_table_output",
    "formula_prefix",
    "parse_columns",
    "read_shape",
    "read_table",
    "select_numeric",
    "table_format",
    "write_rows",
    "write_table",
]

#: File extension -> table format.
TABLE_FORMATS: dict[str, str] = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def table_format(path: str | os.PathLike, *, param: str) -> str:
    """Return ``"csv"`` or ``"parquet"`` from the file extension of ``path``."""
    suffix = Path(path).suffix.lower()
    fmt = TABLE_FORMATS.get(suffix)
    if fmt is None:
        known = ", ".join(sorted(TABLE_FORMATS))
        raise InputError(param, f"unsupported file extension {suffix or '(none)'!r}; use {known}")
    return fmt


def check_table_output(path: str | os.PathLike, *, force: bool, param: str = "out") -> Path:
    """Check, before any work, that a table may be written to ``path``.

    The extension must be a supported format, the parent directory must exist,
    and an existing file is only replaced with ``force``.
    """
    table_format(path, param=param)
    return check_writable(path, force=force, param=param)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def check_input_file(path: str | os.PathLike, *, param: str = "data") -> Path:
    """Refuse, before opening it, anything but an existing regular file (links followed).

    A FIFO would block the read forever and a link to ``/dev/zero`` would read
    until memory runs out; sockets and devices are refused alike.
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(param, f"{printable(path)} does not exist") from None
    except OSError as exc:
        raise InputError(param, f"cannot read {printable(path)}: {exc.strerror or exc}") from None
    except ValueError:  # a NUL character: no file can be named so
        raise InputError(param, f"{printable(path)} holds a NUL character") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(param, f"{printable(path)} is a directory")
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(info.st_mode)
            else "a device"
            if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "a socket"
            if stat.S_ISSOCK(info.st_mode)
            else "not a regular file"
        )
        raise InputError(
            param, f"{printable(path)} is {kind}; synthamp reads tables from regular files only"
        )
    return path


#: First characters that make a spreadsheet read a CSV cell as a formula, or run one (CSV
#: injection, after OWASP): checked on the name's NFKC form, so that the fullwidth ＝ ＋ － ＠
#: ｜ ； ＇ (which spreadsheets may fold to = + - @ | ; ') are caught as well.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n", "|", ";", "'")


def formula_prefix(name: str) -> str | None:
    """The character that makes ``name`` a formula in a spreadsheet, or None.

    The name is NFKC-normalised (fullwidth forms fold to ASCII) and leading spaces are
    skipped (spreadsheets skip them too) before its first character is compared with
    :data:`FORMULA_PREFIXES`.
    """
    text = str(name)
    folded = unicodedata.normalize("NFKC", text).lstrip(" ")
    if folded.startswith(FORMULA_PREFIXES):
        return text.lstrip(" ")[0]
    return None


def check_csv_names(names: Sequence[str], *, param: str) -> None:
    """Refuse a column name that a spreadsheet would run as a formula, or with control characters.

    Names go verbatim into the header of a written CSV file; ``=cmd|' /C calc'!A0``
    there is a formula that spreadsheet programs offer to execute (also when written
    ``＝1+1`` in fullwidth, ``|calc``, ``;=1+1`` or ``'=1+1``: :func:`formula_prefix`).
    """
    for name in names:
        text = str(name)
        first = formula_prefix(text)
        if first is not None:
            raise InputError(
                param,
                f"column name {printable(text)!r} starts with {printable(first)!r}, which "
                "spreadsheets read as a formula; rename the column (or write Parquet)",
            )
        if printable(text) != text:
            raise InputError(
                param, f"column name {printable(text)!r} holds control characters; rename it"
            )


def read_table(path: str | os.PathLike, *, param: str = "data"):
    """Read a CSV or Parquet file (by extension) into a :class:`pandas.DataFrame`.

    Raises
    ------
    InputError
        If the extension is unknown, the file is missing or unreadable, or its
        contents cannot be parsed. The message never quotes cell values.
    """
    import pandas as pd  # pandas is heavy: loaded only to read a table

    path = Path(path)
    fmt = table_format(path, param=param)
    check_input_file(path, param=param)
    try:
        _check_header(_header(path, fmt), path, param)
        if fmt == "csv":
            frame = pd.read_csv(path)
        else:
            frame = pd.read_parquet(path)
    except pd.errors.EmptyDataError:
        raise InputError(param, f"cannot read {path}: the file is empty") from None
    except InputError:
        raise
    except Exception as exc:  # parser, encoding, permission and Arrow errors alike
        raise InputError(param, f"cannot read {path}: {_first_line(exc)}") from None
    return frame


def _header(path: Path, fmt: str) -> list[str]:
    """The column names as stored in the file (pandas renames duplicates: "a", "a.1")."""
    if fmt == "parquet":
        import pyarrow.parquet as pq  # pyarrow is heavy: loaded only to read a table

        schema = pq.read_schema(path)
        stored_index = set()
        if schema.pandas_metadata:
            index_columns = schema.pandas_metadata.get("index_columns", [])
            stored_index = {name for name in index_columns if isinstance(name, str)}
        return [name for name in schema.names if name not in stored_index]
    # utf-8-sig: a byte-order mark is not part of the first name (pandas drops it too)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def _check_header(names: list[str], path: Path, param: str) -> None:
    """Refuse duplicated and unnamed columns (pandas would rename them silently)."""
    seen = set()
    for position, name in enumerate(names):
        if name.strip() == "":
            if position == 0:
                raise InputError(
                    param,
                    f"the first column of {path} has no name: most likely a row index written "
                    "by pandas; save the table with index=False (or name the column and leave "
                    "it out of `features`)",
                )
            raise InputError(param, f"column {position + 1} of {path} has no name")
        if name in seen:
            raise InputError(
                param, f"column {name!r} appears twice in {path}; give the columns distinct names"
            )
        seen.add(name)


def check_frame_columns(frame, selected=None, *, param: str = "data") -> None:
    """A table in memory (a pandas DataFrame): text column names, each once.

    A file's header is checked by :func:`read_table`; a DataFrame may carry names
    pandas allows and a release cannot select by name (integers, duplicates). With
    ``selected`` (a set of names), only the columns the release uses are checked.
    """
    seen: set[str] = set()
    for position, name in enumerate(frame.columns):
        if selected is not None and name not in selected:
            continue
        if not isinstance(name, str):
            raise InputError(
                param,
                f"column {position + 1} is named {name!r} ({type(name).__name__}); column "
                "names must be text (frame.columns = frame.columns.astype(str))",
            )
        if name in seen:
            raise InputError(
                param, f"column {printable(name)!r} appears twice; give the columns distinct names"
            )
        seen.add(name)


def parse_columns(spec: str | Sequence[str] | None, *, param: str) -> list[str] | None:
    """Parse a comma-separated list of column names (``None`` stays ``None``)."""
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [str(item).strip() for item in items]
    if not names or any(name == "" for name in names):
        raise InputError(param, f"expected a comma-separated list of column names, got {spec!r}")
    counts = Counter(names)  # linear: a list of 10⁶ names is not compared pairwise
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise InputError(param, f"column {duplicates[0]!r} is listed twice")
    return names


def select_numeric(frame, columns: Sequence[str], *, param: str) -> np.ndarray:
    """Return ``frame[columns]`` as a finite float64 array of shape (rows, len(columns)).

    Raises
    ------
    InputError
        If a column is missing or not numeric, or a cell is NaN or infinite
        (the message gives the column and the first offending row, counted
        from 1 over data rows, never the value).
    """
    import pandas as pd  # pandas is heavy: loaded only to read a table

    missing = [name for name in columns if name not in frame.columns]
    if missing:
        available = ", ".join(printable(c) for c in frame.columns[:20])
        more = ", ..." if len(frame.columns) > 20 else ""
        raise InputError(
            param,
            f"column {printable(missing[0])!r} is not in the data (columns: {available}{more})",
        )
    for name in columns:
        dtype = frame[name].dtype
        if pd.api.types.is_complex_dtype(dtype):
            raise InputError(param, f"column {name!r} is complex; real numbers are needed")
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            raise InputError(param, f"column {name!r} is not numeric ({dtype})")
    values = frame.loc[:, list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    return check_real_table(param, values, list(columns))  # the library's check too


def write_table(
    path: str | os.PathLike,
    chunks: Iterable[np.ndarray],
    columns: Sequence[str],
    *,
    fmt: str | None = None,
) -> int:
    """Write row chunks atomically to a CSV or Parquet file (by extension).

    Parameters
    ----------
    path : path-like
        Destination; its extension selects the format. Check it beforehand
        with :func:`check_table_output`.
    chunks : iterable of ndarray, each of shape (rows, len(columns))
        Consumed one at a time: memory does not grow with the total.
    columns : sequence of str
        Column names.
    fmt : {"csv", "parquet"}, optional
        Format; default from the extension of ``path``.

    Returns
    -------
    int
        Number of rows written. If anything fails, ``path`` is left untouched.
    """
    fmt = fmt or table_format(path, param="path")
    with atomic_path(path, param="path") as tmp:
        return write_rows(tmp, chunks, columns, fmt=fmt)


def write_rows(
    path: str | os.PathLike, chunks: Iterable[np.ndarray], columns: Sequence[str], *, fmt: str
) -> int:
    """Stream row chunks into the file ``path`` (not atomic: give it a temporary name).

    Used by :func:`write_table` and by the transactional writers of the
    command line (:class:`synthamp._output._io.OutputTransaction`).
    """
    # pyarrow is heavy: loaded only to write a table
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    if fmt not in ("csv", "parquet"):
        raise InputError("fmt", f"must be 'csv' or 'parquet', got {printable(fmt)!r}")
    if fmt == "csv":
        check_csv_names(columns, param="columns")
    schema = pa.schema([(str(name), pa.float64()) for name in columns])
    rows = 0
    if fmt == "csv":
        writer = pa_csv.CSVWriter(str(path), schema)
    else:
        # Continuous values never repeat: dictionary encoding would only cost (7× the time).
        writer = pq.ParquetWriter(str(path), schema, use_dictionary=False)
    try:
        for chunks_seen, chunk in enumerate(chunks):
            try:
                chunk = np.asarray(chunk, dtype=np.float64)
            except (TypeError, ValueError):
                raise InputError("chunks", f"chunk {chunks_seen + 1} is not numeric") from None
            if chunk.ndim != 2 or chunk.shape[1] != len(columns):
                raise InputError(
                    "chunks",
                    f"chunk {chunks_seen + 1} has shape {chunk.shape}; {len(columns)} columns "
                    f"need shape (rows, {len(columns)})",
                )
            columns_first = np.ascontiguousarray(chunk.T)
            arrays = [pa.array(column) for column in columns_first]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            rows += chunk.shape[0]
        if rows == 0:
            # Still produce a valid file with the header / schema.
            writer.write_table(schema.empty_table())
    finally:
        writer.close()
    return rows


def read_shape(
    path: str | os.PathLike,
    targets: Sequence[str],
    features: Sequence[str] | None = None,
    *,
    param: str = "data",
    need_features: bool = True,
) -> tuple[int, int, int]:
    """The shape (m records, d features, k targets) of a table, without reading its values.

    Parquet: the file's metadata (row count and schema). CSV: the header line,
    and a count of its records by the parser of :func:`read_table` (quoted line
    breaks stay inside a record); no value is kept. Features default to every column that is
    not a target. ``need_features=False`` (a public design, which reads no feature column)
    drops the rule d >= k.

    Returns
    -------
    m, d, k : int

    Raises
    ------
    InputError
        If the file is missing or unreadable, a column is missing, a feature is
        also a target, or the table has fewer than 2 records or d < k.
    """
    path = Path(path)
    fmt = table_format(path, param=param)
    check_input_file(path, param=param)
    try:
        # The names read_table sees (a stored pandas index is not a column), checked as it
        # checks them (no duplicated or unnamed column); the csv module reads a CSV header
        # in time linear in its length.
        columns = _header(path, fmt)
        _check_header(columns, path, param)
        if fmt == "parquet":
            import pyarrow.parquet as pq  # pyarrow is heavy: loaded only to read a table

            records = int(pq.ParquetFile(path).metadata.num_rows)
        else:
            records = _count_csv_records(path)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(param, f"cannot read {path}: {_first_line(exc)}") from None
    # Sets, not lists: a header of 10⁶ names is checked in linear time, not quadratic.
    present, targets = set(columns), list(targets)
    target_set = set(targets)
    for name in targets:
        if name not in present:
            raise InputError("targets", f"column {printable(name)!r} is not in {path.name}")
    if features is None:
        features = [c for c in columns if c not in target_set]
    for name in features:
        if name not in present:
            raise InputError("features", f"column {printable(name)!r} is not in {path.name}")
        if name in target_set:
            raise InputError("features", f"column {printable(name)!r} is also a target")
    if records < 2:
        raise InputError(param, f"needs at least 2 records, got {records}")
    if need_features and len(targets) > len(features):
        raise InputError(
            "targets", f"k = {len(targets)} targets exceed d = {len(features)} features; need d ≥ k"
        )
    return records, len(features), len(targets)


def _count_csv_records(path: Path) -> int:
    """Records of a CSV file, counted by the parser that :func:`read_table` uses (pandas).

    A quoted line break is inside one record, not two; blank lines are skipped
    as ``read_table`` skips them. Only the first column is parsed, as text, in
    chunks, and no value is kept.
    """
    import pandas as pd  # pandas is heavy: loaded only to read a table

    count = 0
    reader = pd.read_csv(path, usecols=[0], dtype=str, chunksize=1 << 18)
    with reader:
        for chunk in reader:
            count += len(chunk)
    return count
