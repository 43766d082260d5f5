"""The checks :func:`~synthamp.release.release_table` makes before it reads the private table.

Every public number is checked first (in log space where a power can
overflow), then every path: the input must be a regular file outside every
output folder, no output may be the input or another output, and target
names that go into a CSV header must not be spreadsheet formulas. Only then
is the table read. Also the notes on clipping the data holder sees. Each
failure is an :class:`~synthamp._validation.InputError` naming the parameter
(the command line prints it as one line and exits with code 2).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from synthamp._validation import (
    MAX_N_SYN,
    InputError,
    check_integer,
    check_open_unit,
    check_positive,
    check_sigma,
)
from synthamp.release._distributed import require_dask
from synthamp.release._io import check_not_inside
from synthamp.release._ridge import check_ridge_scale, row_norms
from synthamp.release._tabular import check_csv_names, check_input_file

__all__ = [
    "check_design_options",
    "check_noise_options",
    "check_paths",
    "check_release_n_syn",
    "check_ridge_numbers",
    "check_scale_options",
    "check_target_names",
    "clipping_notes",
    "report_paths",
]


def report_paths(out: Path, report: str | os.PathLike | None) -> tuple[Path, Path, Path]:
    """Report paths: ``report=X.json`` (or X.html) → X.json, X.md, X.html; default OUT stem."""
    if report is None:
        stem = out.with_suffix("")
        return tuple(Path(f"{stem}.privacy{ext}") for ext in (".json", ".md", ".html"))
    path = Path(report)
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


def check_paths(data, out_path: Path, reports, *, partitioned: bool) -> None:
    """The input and output paths, before the table is read (see the module docstring).

    ``data=None`` (a table in memory) checks the outputs only.
    """
    inputs = [] if data is None else [("data", data)]
    if data is not None:
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
        check_positive("epsilon", epsilon)
        if delta is None:
            raise InputError("delta", "is required with `epsilon`")
    if sigma is not None:
        check_sigma("sigma", sigma)
    if delta is not None:
        check_open_unit("delta", delta)


def clipping_notes(features: np.ndarray, scale, targets: np.ndarray, label_bound) -> list[str]:
    """Tell the data holder how much of their data the declared bounds clip.

    These shares are statistics of the private data: they are for the data
    holder only, are not covered by the privacy guarantee, and are not written
    into any output. The features are scaled without overflow (row by row).
    """
    largest = np.max(np.abs(features), axis=1) if features.size else np.zeros(len(features))
    largest = np.where(largest > 0, largest, 1.0)
    scaled = row_norms((features / largest[:, None]) * scale)
    with np.errstate(over="ignore", divide="ignore"):
        features_clipped = scaled > 1.0 / largest
    notes = []
    shares = [
        ("feature", features_clipped, "norm 1 (after --feature-scale)"),
        ("target", row_norms(targets) > label_bound, f"--label-bound {label_bound:g}"),
    ]
    for what, clipped, bound in shares:
        share = float(np.mean(clipped))
        if share > 0:
            notes.append(
                f"{100 * share:.1f}% of {what} rows exceed {bound} and are "
                "clipped (a statistic of your private data, for you only: not covered by the "
                "privacy guarantee, not written anywhere)"
            )
    return notes


def check_target_names(names: list[str], fmt: str) -> None:
    """Target names become the synthetic table's header: no formula in a CSV header."""
    if fmt == "csv":
        check_csv_names(names, param="targets")


def check_release_n_syn(n_syn: int, unlimited: bool) -> int:
    """Any number of records under unlimited accounting; the engine's range otherwise."""
    n_syn = check_integer("n_syn", n_syn, 1)
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
        check_integer("partitions", partitions, 1, n_syn)
    if distributed:
        if partitions is None:
            raise InputError("partitions", "is required with `backend` dask")
        require_dask()
    elif scheduler is not None:
        raise InputError("scheduler", "applies only with `backend` dask")


def check_design_options(design, width, design_seed, sigma) -> None:
    """The options a public design needs, checked before the table is read."""
    if design is None:
        for name, value in (("width", width), ("design_seed", design_seed)):
            if value is not None:
                raise InputError(name, "applies only with --design")
        return
    if width is None or design_seed is None:
        raise InputError("design", "needs --width D and --design-seed S (a public seed)")
    check_integer("width", width, 1, 10**6)
    check_integer("design_seed", design_seed, 0)
    if sigma is not None:
        raise InputError("sigma", "--design calibrates σ: give --epsilon and --delta")
