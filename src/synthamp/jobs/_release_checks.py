"""The checks :func:`~synthamp.jobs.release_table` makes before it reads the private table.

Every public number is checked first (in log space where a power can
overflow), then every path: the input must be a regular file outside every
output folder, no output may be the input or another output, and target
names that go into a CSV header must not be spreadsheet formulas. Only then
is the table read. Each
failure is an :class:`~synthamp._validation.InputError` naming the parameter
(the command line prints it as one line and exits with code 2).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from synthamp._output._io import check_not_inside
from synthamp._output._paths import check_name_length, check_output_name
from synthamp._parameters import RECORDS_WRITTEN, at_most, validated_one
from synthamp._validation import (
    MAX_N_SYN,
    InputError,
    printable,
)
from synthamp.design._designs import ADJACENCIES, DESIGNS
from synthamp.release._column_bounds import read_bounds
from synthamp.release._dask_stats import check_dataset_input
from synthamp.release._distributed import check_scheduler, require_dask
from synthamp.release._options import BACKENDS
from synthamp.release._ridge import (
    check_ridge_scale,
)
from synthamp.release._table_records import ALL_COLUMNS, RECORD_KINDS
from synthamp.release._tabular import check_csv_names, check_input_file

__all__ = [
    "NOT_WITH_DESIGN",
    "ONLY_WITH_DESIGN",
    "PRIVATE_INPUTS",
    "check_choices",
    "check_design_options",
    "check_noise_options",
    "check_paths",
    "check_release_n_syn",
    "check_ridge_numbers",
    "check_scale_options",
    "check_table_options",
    "check_target_names",
    "report_paths",
]


def _one_of(param: str, value, choices, *, optional: bool = False) -> None:
    if (value is None and optional) or (isinstance(value, str) and value in choices):
        return
    none = "None or " if optional else ""
    raise InputError(param, f"must be {none}one of {', '.join(choices)}; got {value!r}")


def _path_like(param: str, value, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, str | os.PathLike):
        return
    raise InputError(param, f"must be a path (str or os.PathLike), got {type(value).__name__}")


def _column_names(param: str, value, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, str):
        return
    if isinstance(value, list | tuple) and all(isinstance(name, str) for name in value):
        return
    raise InputError(
        param, f"must be column names (a comma-separated str or a list of str), got {value!r}"
    )


def check_choices(o: dict) -> None:
    """The options that name a choice, a path, columns or a switch: of the right kind.

    ``o`` holds :func:`~synthamp.jobs.release_table`'s arguments. A library caller's
    ``backend="Dask"`` or ``force="no"`` is refused, never read as the default or as True.
    """
    _one_of("backend", o["backend"], BACKENDS)
    _one_of("design", o["design"], DESIGNS, optional=True)
    _one_of("adjacency", o["adjacency"], ADJACENCIES, optional=True)
    _one_of("records", o["records"], RECORD_KINDS, optional=True)
    for name in ("force", "unlimited"):
        if not isinstance(o[name], bool | np.bool_):
            raise InputError(name, f"must be True or False, got {o[name]!r}")
    _path_like("out", o["out"])
    _path_like("report", o["report"], optional=True)
    if not hasattr(o["data"], "columns"):  # a path, or a pandas DataFrame
        _path_like("data", o["data"])
    _column_names("targets", o["targets"])
    _column_names("features", o["features"], optional=True)
    _column_names("public_inputs", o["public_inputs"], optional=True)


def report_paths(out: Path, report: str | os.PathLike | None) -> tuple[Path, Path, Path]:
    """Report paths: ``report=X.json`` (or X.html) → X.json, X.md, X.html.

    By default OUT + ``.privacy.json`` (``.md``, ``.html``): the table's extension is
    kept, so ``x.csv`` and ``x.parquet`` in one folder have reports of their own.
    """
    if report is None:
        paths = tuple(Path(f"{out}.privacy{ext}") for ext in (".json", ".md", ".html"))
        for path in paths:  # named after --out: a long --out can make them too long
            check_name_length(path, "out", f"the report {printable(path)} (default from `out`)")
        return paths
    path = check_output_name(report, param="report")
    if path.suffix.lower() not in (".json", ".html"):
        raise InputError(
            "report", f"must end in .json or .html (the other reports go next to it), got {path}"
        )
    return path.with_suffix(".json"), path.with_suffix(".md"), path.with_suffix(".html")


def _flag(param: str) -> str:
    return "--" + param.replace("_", "-")


def _check_distinct(paths: list[tuple[str, Path]]) -> None:
    """Refuse an output path that is the input or another output (links followed)."""
    seen: dict[Path, str] = {}
    for param, path in paths:
        resolved = path.resolve()
        if resolved in seen:
            raise InputError(param, f"{path} is also the {_flag(seen[resolved])} file")
        seen[resolved] = param


def check_paths(data, out_path: Path, reports, *, partitioned: bool, dataset: bool = False) -> None:
    """The input and output paths, before the table is read (see the module docstring).

    ``data=None`` (a table in memory) checks the outputs only; ``dataset`` (``backend``
    dask) also takes a folder of Parquet files.
    """
    inputs = [] if data is None else [("data", data)]
    if data is not None and dataset:
        check_dataset_input(data, param="data")
    elif data is not None:
        check_input_file(data, param="data")
    if partitioned:
        # The commit replaces the folder: nothing of the run may lie inside it.
        check_not_inside([*inputs, *(("report", p) for p in reports)], out_path, "out")
    _check_distinct(
        [*((p, Path(d)) for p, d in inputs), ("out", out_path), *(("report", p) for p in reports)]
    )


def check_ridge_numbers(label_bound: float, ridge: float) -> None:
    """C and Δ (at the largest Δ, m = 2) within the scale a release handles (log space;
    :func:`~synthamp.release._ridge.check_ridge_scale`)."""
    check_ridge_scale(label_bound, ridge, 2)


def check_noise_options(epsilon, delta, sigma) -> None:
    """Either a target (ε, δ) or a σ (docs/theory.md §12)."""
    if sigma is not None and epsilon is not None:
        raise InputError("sigma", "give either `sigma` or `epsilon`/`delta`, not both")
    if sigma is None and epsilon is None:
        raise InputError("epsilon", "give `epsilon` and `delta`, or `sigma`")
    if epsilon is not None:
        validated_one("epsilon", epsilon)
        if delta is None:
            raise InputError("delta", "is required with `epsilon`")
    if sigma is not None:
        validated_one("sigma", sigma)
    if delta is not None:
        validated_one("delta", delta)


def check_target_names(names: list[str], fmt: str) -> None:
    """Target names become the synthetic table's header: no formula in a CSV header."""
    if fmt == "csv":
        check_csv_names(names, param="targets")


def check_release_n_syn(n_syn: int, unlimited: bool) -> int:
    """Any number of records under unlimited accounting; the engine's range otherwise."""
    n_syn = validated_one("n_syn", n_syn, RECORDS_WRITTEN)
    if not unlimited and n_syn > MAX_N_SYN:
        raise InputError(
            "n_syn",
            f"must be ≤ {MAX_N_SYN:,} with finite accounting; pass `unlimited` to release "
            "any number of records",
        )
    return n_syn


def check_scale_options(partitions, n_syn: int, distributed: bool, scheduler) -> None:
    """``partitions`` in [1, n_syn]; dask needs partitions and the extra; a scheduler needs dask."""
    if partitions is not None:
        at_most("partitions", validated_one("partitions", partitions), n_syn)
    if distributed:
        if partitions is None:
            raise InputError("partitions", "is required with `backend` dask")
        require_dask()
        check_scheduler(scheduler)
    elif scheduler is not None:
        raise InputError("scheduler", "applies only with `backend` dask")


#: The options of a release that a release on a public design refuses, and why (each is
#: refused with one line before the table is read; docs/theory.md §19).
NOT_WITH_DESIGN: dict[str, str] = {
    "sigma": "`design` calibrates σ: give `epsilon` and `delta`",
    "features": "a design release reads no feature column (random-seeds and orthogonal use none; "
    "random-features reads the public columns named by `public_inputs`)",
    "norm_bound": "a design release uses its design's own certified bound C (docs/theory.md §19)",
    "feature_scale": "a design release scales no feature (the design's rows have unit norm)",
    "audit": "the audit attacks a generator's norm-model worst case; a design release is "
    "accounted on its design's own bounds and its report sets the accounting beside concrete "
    "adjacent datasets instead",
}

#: The options only a release on a public design takes.
ONLY_WITH_DESIGN: tuple[str, ...] = ("width", "design_seed", "adjacency", "public_inputs")

#: Why a random-features design needs its inputs declared (docs/theory.md §13, §19).
PRIVATE_INPUTS = (
    "random-features needs its public input columns named (`public_inputs` COLS); if they "
    "are private, a public design does not apply: release without `design` (the generator "
    "accounts for private features, docs/theory.md §13)"
)


def check_design_options(design: str | None, options: Mapping[str, Any]) -> None:
    """Every option of a release either applies to its design (or to none) or is refused.

    ``options`` maps the library's parameter names (``audit`` for the audit's trials) to
    the values given (None: not given). Checked before the table is read: a public design
    needs its width and public seed, random-features its public input columns (none of
    them a target); the options of :data:`NOT_WITH_DESIGN` and any accounting but the
    exact one are refused with a design, those of :data:`ONLY_WITH_DESIGN` without.
    """
    if design is None:
        for name in ONLY_WITH_DESIGN:
            if options.get(name) is not None:
                raise InputError(name, "applies only with `design`")
        return
    for name, why in NOT_WITH_DESIGN.items():
        if options.get(name) is not None:
            raise InputError(name, why)
    if options.get("accounting", "exact") not in (None, "exact"):
        raise InputError(
            "accounting", "a design release is one unlimited release, accounted exactly: "
            "no other method applies",
        )  # fmt: skip
    if options.get("width") is None or options.get("design_seed") is None:
        raise InputError("design", "needs `width` D and `design_seed` S (a public seed)")
    validated_one("width", options["width"])
    validated_one("design_seed", options["design_seed"])
    inputs = options.get("public_inputs")
    if design != "random-features":
        if inputs is not None:
            raise InputError("public_inputs", "applies only with `design` random-features")
        return
    if inputs is None:
        raise InputError("public_inputs", PRIVATE_INPUTS)
    targets = options.get("targets") or ()
    overlap = [name for name in inputs if name in targets]
    if overlap:
        raise InputError(
            "public_inputs", f"column {overlap[0]!r} is also a target: the targets are private"
        )


def check_table_options(o: dict) -> None:
    """The whole table as the release (``targets="all"``, target ``bounds``, ``records``).

    ``o`` holds :func:`~synthamp.jobs.release_table`'s arguments, ``targets`` parsed.
    With a design, ``bounds`` are the target columns' public ranges (read here, matched to
    the columns once they are known), B defaults to 1 and the records default to the
    table's units; without one, ``bounds`` stay the features' and the records are the
    generator's (``records`` "raw" only). Sets ``target_bounds``, ``records`` and, with
    a design and bounds, a missing ``label_bound``.
    """
    design, bounds = o["design"], o["bounds"]
    if o["targets"] == [ALL_COLUMNS] and design is None:
        raise InputError(
            "targets", "all applies with `design` (without one, the features are the "
            "table's other columns: name the targets)",
        )  # fmt: skip
    o["target_bounds"] = None
    if design is not None and bounds is not None:
        o["target_bounds"], o["bounds"] = read_bounds(bounds, param="bounds"), None
    if o["records"] is None:
        o["records"] = "raw" if o["target_bounds"] is None else "table"
    elif o["records"] == "table":
        if design is None:
            raise InputError(
                "records", "table applies with `design` (the generator writes its records ZV)"
            )
        if o["target_bounds"] is None:
            raise InputError(
                "records", "table needs `bounds` FILE: the target columns' public ranges"
            )
    if o["label_bound"] is None:
        if o["target_bounds"] is None:
            raise InputError("label_bound", "is required: the target rows' norm bound B")
        o["label_bound"] = 1.0  # the rows are mapped into the unit ball by their ranges
