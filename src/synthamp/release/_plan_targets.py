"""The target columns a plan accounts for, as ``release`` would, read without any value.

``synthamp plan`` reads the table's shape only (no value). A whole-table release
(``release --targets all [--bounds FILE] --design ...``, docs/theory.md §17) accounts for
k' columns: the target columns, and with ``bounds`` the constant column the target map
appends (k' = k + 1, :mod:`synthamp.release._table_records`), with B = 1 unless given. For
the plan to give the release's numbers, :func:`plan_targets` resolves the same columns:

* named targets: as given;
* ``all`` on a Parquet table: every integer or floating column of its schema (the
  file's metadata: what pandas reads as a numeric, non-boolean column, which is what
  ``release`` takes);
* ``all`` on a CSV table: every column of its header. A CSV carries no types, and a plan
  reads no value, so it cannot tell a numeric column from a text one: with ``bounds`` a
  column without a declared range is refused with one line asking to name the numeric
  targets (``release`` would refuse the same table if that column were numeric, and leave
  it out if it is text).

The declared ranges are public; the release refuses a target column without one, and so
does the plan, before any work.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from synthamp._validation import InputError, printable
from synthamp.release._column_bounds import read_bounds
from synthamp.release._table_records import ALL_COLUMNS
from synthamp.release._tabular import _check_header, _header, check_input_file, table_format

__all__ = ["PlanTargets", "plan_targets"]

_NAMED = 4


@dataclass(frozen=True)
class PlanTargets:
    """The target columns of a planned release and what the release accounts for.

    Attributes
    ----------
    names : tuple of str
        The table's target columns (k).
    released : int
        k': the columns the release accounts for (k + 1 with ``bounds``: the constant).
    label_bound : float or None
        B (1 with ``bounds`` when not given, as ``release`` does).
    ranges : dict or None
        The declared ranges of the target columns (``bounds``), or None.
    """

    names: tuple[str, ...]
    released: int
    label_bound: float | None
    ranges: dict[str, tuple[float, float]] | None


def plan_targets(
    data: str | os.PathLike,
    targets: Sequence[str],
    *,
    bounds: Mapping[str, tuple[float, float]] | str | os.PathLike | None,
    design: str | None,
    label_bound: float | None,
) -> PlanTargets:
    """The target columns of ``release`` with these options, from the table's header.

    Parameters
    ----------
    data : path-like
        The private table (.csv or .parquet); its header (or schema) only is read.
    targets : sequence of str
        The parsed target columns, or ``["all"]``.
    bounds : mapping or path-like, optional
        The target columns' public ranges (``release --bounds`` with a design).
    design : str or None
        The public design (``all`` and ``bounds`` apply with one).
    label_bound : float or None
        B; required without ``bounds``.

    Returns
    -------
    PlanTargets
    """
    every = list(targets) == [ALL_COLUMNS]
    if design is None:
        if every:
            raise InputError(
                "targets", "all applies with `design` (without one, the features are the "
                "table's other columns: name the targets)",
            )  # fmt: skip
        if bounds is not None:
            raise InputError(
                "bounds", "applies with `design` in a plan (the target columns' public ranges; "
                "the features' ranges do not change the plan's numbers)",
            )  # fmt: skip
    ranges = None if bounds is None else read_bounds(bounds, param="bounds")
    if label_bound is None:
        if ranges is None:
            raise InputError("label_bound", "is required: the target rows' norm bound B")
        label_bound = 1.0  # the rows are mapped into the unit ball by their ranges
    names = _every_column(data) if every else list(targets)
    if ranges is not None:
        missing = [name for name in names if name not in ranges]
        if missing:
            shown = ", ".join(repr(printable(name)) for name in missing[:_NAMED])
            more = f" (and {len(missing) - _NAMED} more)" if len(missing) > _NAMED else ""
            if every and table_format(Path(data), param="data") == "csv":
                raise InputError(
                    "targets", f"all: no declared range for the column {shown}{more} in "
                    "`bounds`; a plan reads no value, so on a CSV table `all` is every "
                    "column of its header: name the numeric target columns",
                )  # fmt: skip
            raise InputError("bounds", f"has no range for the target column {shown}{more}")
        ranges = {name: ranges[name] for name in names}
    released = len(names) + (0 if ranges is None else 1)
    return PlanTargets(tuple(names), released, float(label_bound), ranges)


def _every_column(data: str | os.PathLike) -> list[str]:
    """``all``: the numeric columns of a Parquet schema, every column of a CSV header."""
    path = Path(data)
    fmt = table_format(path, param="data")
    check_input_file(path, param="data")
    try:
        names = _header(path, fmt)
        _check_header(names, path, "data")
        if fmt == "parquet":
            import pyarrow as pa  # pyarrow is heavy: loaded only to read a table's schema
            import pyarrow.parquet as pq  # the same

            schema = pq.read_schema(path)
            names = [
                name
                for name in names
                if pa.types.is_integer(schema.field(name).type)
                or pa.types.is_floating(schema.field(name).type)
            ]
    except InputError:
        raise
    except Exception as exc:
        raise InputError("data", f"cannot read {path}: {str(exc).splitlines()[0]}") from None
    if not names:
        raise InputError("targets", "all: the table has no numeric column to release")
    return names
