"""The checks ``synthamp release`` makes before it reads the private table.

Every public number is checked first (in log space where a power can
overflow), then every path: the input must be a regular file outside every
output folder, no output may be the input or another output, and target
names that go into a CSV header must not be spreadsheet formulas. Only then
is the table read. Also the notes on clipping the data holder sees.
"""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from synthamp import release as tabular
from synthamp._validation import MAX_N_SYN, InputError, check_integer
from synthamp.release import check_not_inside

__all__ = [
    "check_paths",
    "check_release_n_syn",
    "check_ridge_numbers",
    "check_scale_options",
    "check_target_names",
    "clipping_notes",
    "report_paths",
    "warn_stale",
]


def report_paths(out: Path, report: str | None) -> tuple[Path, Path, Path]:
    """Report paths: ``--report X.json`` (or X.html) → X.json, X.md, X.html."""
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


def check_paths(data: str, out_path: Path, reports, *, partitioned: bool) -> None:
    """The input and output paths, before the table is read (see the module docstring)."""
    tabular.check_input_file(data, param="data")
    if partitioned:
        # The commit replaces the folder: nothing of the run may lie inside it.
        check_not_inside([("data", data), *(("report", p) for p in reports)], out_path, "out")
    _check_distinct([("data", Path(data)), ("out", out_path), *(("report", p) for p in reports)])


def check_ridge_numbers(label_bound: float, ridge: float) -> None:
    """C and Δ (at the largest Δ, m = 2) are finite normal numbers: checked in log space."""
    # heavy: scipy (the ridge mathematics), only to release
    from synthamp.release import ridge_norm_bound, ridge_sensitivity

    ridge_norm_bound(label_bound, ridge)
    ridge_sensitivity(label_bound, ridge, 2)


def clipping_notes(features: np.ndarray, scale, targets: np.ndarray, label_bound) -> list[str]:
    """Tell the data holder (on stderr) how much of their data the declared bounds clip.

    These shares are statistics of the private data: they are for the data
    holder only, are not covered by the privacy guarantee, and are not written
    into any output. The features are scaled without overflow (row by row).
    """
    # heavy: scipy.linalg (the ridge mathematics), only to release
    from synthamp.release import row_norms

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
                f"synthamp: note: {100 * share:.1f}% of {what} rows exceed {bound} and are "
                "clipped (a statistic of your private data, for you only: not covered by the "
                "privacy guarantee, not written anywhere)"
            )
    return notes


def check_target_names(names: list[str], fmt: str) -> None:
    """Target names become the synthetic table's header: no formula in a CSV header."""
    if fmt == "csv":
        tabular.check_csv_names(names, param="targets")


def check_release_n_syn(n_syn: int, unlimited: bool) -> int:
    """Any number of records under unlimited accounting; the engine's range otherwise."""
    n_syn = check_integer("n_syn", n_syn, 1)
    if not unlimited and n_syn > MAX_N_SYN:
        raise InputError(
            "n_syn",
            f"must be ≤ {MAX_N_SYN:,} with finite accounting; pass --unlimited to release "
            "any number of records",
        )
    return n_syn


def check_scale_options(partitions, n_syn: int, distributed: bool, scheduler) -> None:
    if partitions is not None:
        check_integer("partitions", partitions, 1, n_syn)
    if distributed:
        if partitions is None:
            raise InputError("partitions", "is required with --backend dask")
        # heavy: scipy (the ridge mathematics under the writers), only to release
        from synthamp.release import require_dask

        require_dask()
    elif scheduler is not None:
        raise InputError("scheduler", "applies only with --backend dask")


def warn_stale(paths: list[Path], recovered: list[str] = ()) -> None:
    for path in paths:
        click.echo(
            f"synthamp: warning: removed {path}, a temporary file left by an interrupted run",
            err=True,
        )
    for line in recovered:
        click.echo(f"synthamp: warning: {line}", err=True)
