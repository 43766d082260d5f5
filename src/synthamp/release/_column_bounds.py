"""Units guarded: per-column public bounds, and the refusal of a release that clips too much.

A table's columns come in their own units (age in years, a blood serum in mg/dl):
one ``feature_scale`` cannot bring them all within the unit ball. The data holder
declares each feature column's public range [lo, hi] (``bounds``: a mapping, or a
small CSV ``column,lo,hi`` / JSON ``{"column": [lo, hi]}`` file, never read from
the data); :func:`~synthamp.release._ridge.map_into_bounds` then maps each column
affinely onto [−1, 1] and divides by √d, so a row within its ranges has norm ≤ 1.

Whatever the scaling, a release whose declared bounds clip more than
``max_clipped`` of the feature rows or of the target rows is refused
(:func:`check_clipping`): records fitted on rows shrunk to the bound carry
little of the data. The shares and the scales the message names are statistics
of the private data, for the data holder only: never written into an output.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synthamp._parameters import validated_one
from synthamp._validation import InputError, printable
from synthamp.release._ridge import norms_exceed, row_norms

__all__ = [
    "DEFAULT_MAX_CLIPPED",
    "ClippingTally",
    "check_clipping",
    "check_max_clipped",
    "clipping_verdict",
    "column_bounds",
    "read_bounds",
    "tally_clipping",
]

#: A release is refused when more than this share of feature or target rows is clipped.
DEFAULT_MAX_CLIPPED = 0.1
#: The columns a refusal names (the largest scales first).
_NAMED = 4
#: Relative slack below which a row above its bound counts as rounding, not clipping.
_ROUNDING = 1e-9
_FOR_YOU = "a statistic of your private data, for you only, written nowhere"


def check_max_clipped(value: float) -> float:
    """``max_clipped`` in [0, 1] (the table's rule)."""
    return validated_one("max_clipped", value)


def read_bounds(bounds, *, param: str = "bounds") -> dict[str, tuple[float, float]]:
    """Per-column public ranges from a mapping or a file.

    Parameters
    ----------
    bounds : mapping or path-like
        ``{column: (lo, hi)}``; or a ``.json`` file holding that object (or a list of
        ``{"column", "lo", "hi"}`` objects); or a ``.csv`` file with the header
        ``column,lo,hi`` and one row per column.
    param : str
        The parameter named in errors.

    Returns
    -------
    dict
        ``{column: (lo, hi)}`` with lo < hi, both finite.
    """
    if isinstance(bounds, Mapping):
        items = list(bounds.items())
    else:
        path = Path(os.fspath(bounds))
        if not path.is_file():
            raise InputError(param, f"{printable(str(path))} is not a file")
        items = _file_items(path, param)
    out: dict[str, tuple[float, float]] = {}
    for column, pair in items:
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise InputError(param, f"column {column!r}: give two numbers lo, hi") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InputError(param, f"column {column!r}: need finite lo < hi, got [{lo}, {hi}]")
        if str(column) in out:
            raise InputError(param, f"column {column!r} is given twice")
        out[str(column)] = (lo, hi)
    return out


def _file_items(path: Path, param: str) -> list[tuple[str, Sequence]]:
    """(column, (lo, hi)) pairs of a bounds file (.json or .csv)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(param, f"{path.name} is not JSON: {error.msg}") from None
        if isinstance(data, dict):
            return list(data.items())
        if isinstance(data, list) and all(isinstance(row, dict) for row in data):
            try:
                return [(row["column"], (row["lo"], row["hi"])) for row in data]
            except KeyError as key:
                rule = f"every entry needs column, lo, hi (missing {key})"
                raise InputError(param, rule) from None
        raise InputError(param, 'JSON must be {"column": [lo, hi], ...}')
    if path.suffix.lower() != ".csv":
        raise InputError(param, f"must be a .csv or .json file, got {path.name}")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    header = [cell.strip().lower() for cell in lines[0].split(",")] if lines else []
    if header != ["column", "lo", "hi"]:
        raise InputError(param, "a CSV of bounds needs the header column,lo,hi")
    items = []
    for number, line in enumerate(lines[1:], start=2):
        cells = [cell.strip() for cell in line.rsplit(",", 2)]
        if len(cells) != 3:
            raise InputError(param, f"line {number}: give column,lo,hi")
        items.append((cells[0], (cells[1], cells[2])))
    return items


def column_bounds(
    bounds: Mapping[str, tuple[float, float]], columns: Sequence[str], *, param: str = "bounds"
) -> np.ndarray:
    """The (d, 2) array of [lo, hi] for the used feature ``columns``; refused if one is missing."""
    missing = [c for c in columns if c not in bounds]
    if missing:
        shown = ", ".join(repr(c) for c in missing[:_NAMED])
        more = f" (and {len(missing) - _NAMED} more)" if len(missing) > _NAMED else ""
        raise InputError(param, f"has no range for the feature column {shown}{more}")
    return np.array([bounds[c] for c in columns], dtype=np.float64).reshape(len(columns), 2)


def _largest(values: np.ndarray) -> np.ndarray:
    """Each column's largest |value| (max(max x, −min x): two reductions, no |x| copy)."""
    if not len(values):
        return np.zeros(values.shape[1])
    return np.maximum(np.max(values, axis=0), -np.min(values, axis=0))


@dataclass(frozen=True)
class ClippingTally:
    """What the clipping check needs of the rows, summed over chunks (:meth:`merge`).

    Statistics of the private data, for the data holder only: never written into an output.

    Attributes
    ----------
    rows : int
        Rows seen.
    feature_rows, target_rows : int
        Feature rows outside their declared ranges (with ``bounds``) or of norm above 1
        after ``feature_scale``; target rows of norm above B.
    feature_low, feature_high : ndarray of shape (d,)
        With ``bounds``: each column's smallest and largest value; else ``feature_high``
        is each column's largest |x| (``feature_low`` zeros, unused).
    outside : ndarray of shape (d,)
        With ``bounds``: rows outside each column's range (zeros otherwise).
    target_largest : ndarray of shape (k,)
        Each target column's largest |y|.
    """

    rows: int
    feature_rows: int
    target_rows: int
    feature_low: np.ndarray
    feature_high: np.ndarray
    outside: np.ndarray
    target_largest: np.ndarray

    def merge(self, other: ClippingTally) -> ClippingTally:
        """The tally of both chunks' rows."""
        return ClippingTally(
            self.rows + other.rows,
            self.feature_rows + other.feature_rows,
            self.target_rows + other.target_rows,
            np.minimum(self.feature_low, other.feature_low),
            np.maximum(self.feature_high, other.feature_high),
            self.outside + other.outside,
            np.maximum(self.target_largest, other.target_largest),
        )


def tally_clipping(
    features: np.ndarray,
    targets: np.ndarray,
    *,
    label_bound: float,
    feature_scale=1.0,
    bounds: np.ndarray | None = None,
) -> ClippingTally:
    """The :class:`ClippingTally` of some rows: row by row, so chunks merge exactly.

    A feature row is clipped when it leaves a declared range (with ``bounds``) or when
    its norm after ``feature_scale`` exceeds 1 (a row at the bound within rounding is
    not counted); a target row when its norm exceeds B (the same rounding slack).
    """
    d = features.shape[1]
    if bounds is not None:
        lo, hi = bounds[:, 0], bounds[:, 1]
        outside = (features < lo) | (features > hi)
        feature_rows = outside.any(axis=1) if features.size else np.zeros(len(features), bool)
        low = np.min(features, axis=0) if len(features) else np.full(d, np.inf)
        high = np.max(features, axis=0) if len(features) else np.full(d, -np.inf)
        outside_count = outside.sum(axis=0)
    else:
        feature_rows = _rows_over_unit(features, feature_scale)
        low, high = np.zeros(d), _largest(features)
        outside_count = np.zeros(d, dtype=np.int64)
    target_rows = norms_exceed(targets, label_bound * (1.0 + _ROUNDING))
    return ClippingTally(
        len(targets), int(np.count_nonzero(feature_rows)), int(np.count_nonzero(target_rows)),
        low, high, outside_count, _largest(targets),
    )  # fmt: skip


def _rows_over_unit(features: np.ndarray, feature_scale) -> np.ndarray:
    """Feature rows of norm above 1 after ``feature_scale``, a row at 1 within rounding not
    counted: ‖(x/r)·s‖ > (1 + 1e-9)/r with r the row's largest |x| (no overflow). Rows far
    from the limit are decided by the plain √Σ(x·s)² (its margin 4(d + 4)u covers its
    rounding and the scaled norm's); the others by the scaled norm (the same booleans)."""
    limit = 1.0 + _ROUNDING
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        unscaled = np.ndim(feature_scale) == 0 and feature_scale == 1
        plain = features if unscaled else features * feature_scale
        squares = np.einsum("ij,ij->i", plain, plain)
        margin = 4.0 * (features.shape[1] + 4) * np.finfo(np.float64).eps
        safe = np.isfinite(squares) & (squares > 1e-200)
        root = np.sqrt(squares)
        below = safe & (root < limit * (1.0 - margin))
        out = safe & (root > limit * (1.0 + margin))
    rest = np.flatnonzero(~(below | out))
    if rest.size:
        rows = features[rest]
        largest = np.max(np.abs(rows), axis=1) if rows.shape[1] else np.zeros(len(rows))
        largest = np.where(largest > 0, largest, 1.0)
        with np.errstate(over="ignore", divide="ignore"):
            out[rest] = row_norms((rows / largest[:, None]) * feature_scale) > limit / largest
    return out


def check_clipping(
    features: np.ndarray,
    feature_names: Sequence[str],
    targets: np.ndarray,
    target_names: Sequence[str],
    *,
    label_bound: float,
    feature_scale=1.0,
    bounds: np.ndarray | None = None,
    max_clipped: float = DEFAULT_MAX_CLIPPED,
) -> list[str]:
    """Refuse a release whose declared bounds clip more than ``max_clipped`` of the rows.

    A feature row is clipped when it leaves a declared range (with ``bounds``) or when
    its norm after ``feature_scale`` exceeds 1; a target row when its norm exceeds B.
    :func:`tally_clipping` on the rows, then :func:`clipping_verdict`.

    Returns
    -------
    list of str
        The notes on what is clipped within the threshold (for the data holder only).

    Raises
    ------
    InputError
        ``max_clipped``: one line naming the shares, the columns and their observed
        scales against the declared bounds.
    """
    tally = tally_clipping(
        features, targets, label_bound=label_bound, feature_scale=feature_scale, bounds=bounds
    )
    return clipping_verdict(
        tally, feature_names, target_names, label_bound=label_bound,
        feature_scale=feature_scale, bounds=bounds, max_clipped=max_clipped,
    )  # fmt: skip


def clipping_verdict(
    tally: ClippingTally,
    feature_names: Sequence[str],
    target_names: Sequence[str],
    *,
    label_bound: float,
    feature_scale=1.0,
    bounds: np.ndarray | None = None,
    max_clipped: float = DEFAULT_MAX_CLIPPED,
) -> list[str]:
    """The refusal (``InputError``) or the notes of :func:`check_clipping`, from a tally."""
    rows = max(tally.rows, 1)
    if bounds is not None:
        lo, hi = bounds[:, 0], bounds[:, 1]
        feature_bound = "their declared `bounds`"  # outside [lo, hi] on either side
        columns = np.flatnonzero(tally.outside > 0)
        order = columns[np.argsort(-tally.outside[columns], kind="stable")]
        named = [
            f"{printable(feature_names[j])} observed [{tally.feature_low[j]:.4g}, "
            f"{tally.feature_high[j]:.4g}] against [{lo[j]:.4g}, {hi[j]:.4g}]"
            for j in order[:_NAMED]
        ]
        more = len(order) - _NAMED
    else:
        scale = np.broadcast_to(
            np.asarray(feature_scale, dtype=np.float64), tally.feature_high.shape
        )
        with np.errstate(over="ignore"):
            observed = tally.feature_high * scale
        order = np.argsort(-observed, kind="stable")
        alone = order[observed[order] > 1.0]  # columns that leave the unit ball on their own
        order = alone if len(alone) else order[observed[order] > 1.0 / math.sqrt(scale.size or 1)]
        named = [f"{printable(feature_names[j])} up to {observed[j]:.4g}" for j in order[:_NAMED]]
        more = len(order) - _NAMED
        shown = "per column" if np.ndim(feature_scale) else f"{float(feature_scale):g}"
        feature_bound = f"norm 1 after `feature_scale` {shown}"
    target_named = [
        f"{printable(name)} up to {tally.target_largest[j]:.4g}"
        for j, name in enumerate(target_names)
    ]
    shares = [
        ("feature", tally.feature_rows / rows, feature_bound, named, more),
        ("target", tally.target_rows / rows, f"`label_bound` {label_bound:g}", target_named, 0),
    ]
    over = [share for share in shares if share[1] > max_clipped]
    if over:
        parts = []
        for what, share, bound, names, more in over:
            extra = f" and {more} more" if more > 0 else ""
            columns = f" ({', '.join(names)}{extra})" if names else ""
            verb = "fall outside" if bounds is not None and what == "feature" else "exceed"
            parts.append(f"{100 * share:.1f}% of {what} rows {verb} {bound}{columns}")
        raise InputError(
            "max_clipped",
            f"{'; '.join(parts)}: more than {100 * max_clipped:g}% clipped, so the records "
            f"would carry little of the data ({_FOR_YOU}); declare each feature column's public "
            "range with `bounds` FILE, a `feature_scale` or a `label_bound` in the data's units, "
            "or raise `max_clipped`",
        )
    return [
        f"{100 * share:.1f}% of {what} rows exceed {bound} and are clipped (a statistic of "
        "your private data, for you only: not covered by the privacy guarantee, not written "
        "anywhere)"
        for what, share, bound, _, _ in shares
        if share > 0
    ]
