"""Speed of the main job: ``synthamp release`` on an ordinary table (issue 12).

Target: the README's release on an ordinary table (5,000 records, 20 numeric
features, (ε, δ) = (1, 1e-5), λ = 1, B = 1, 100,000 synthetic records) in
<= 20 s wall, with finite accounting (the default: the guarantee covers the
records written) and with ``--unlimited``. The table is generated with a fixed
seed (features N(0, I)/√40, so that row norms are about 0.7; targets a noisy
linear function of them, in [-1, 1]), for k = 1 (one target) and k = 3.

Each case runs the command in a fresh interpreter (``python -m synthamp``), as a
user does, so the times include the imports, the fit, the accounting and
writing the Parquet file; the median of ``--repeats`` runs is reported, with
the accounting the report says was used (finite, or the plateau after the time
budget).

Run by hand: ``python benchmarks/bench_release.py [--repeats 3] [--out PATH]``.
Writes a Markdown table (default docs/benchmarks/release.md).

``--wide 100000,1000000`` times instead ``synthamp plan`` on a CSV table of that many
columns (3 records; the first column the target): header reading must be linear in
the number of columns (10⁵ columns ≤ 2 s for ``plan``). Each run is a fresh
interpreter; the time of :func:`synthamp.release.read_shape` alone (in this process)
is reported beside it. Default output docs/benchmarks/plan_wide.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import machine_summary, markdown_table, write_report

ROWS, FEATURES, SEED = 5_000, 20, 20_261_201
N_SYN = 100_000


def ordinary_table(path: Path, targets: int) -> list[str]:
    """Write the generated table to ``path`` (CSV); return the target column names."""
    import pandas as pd

    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((ROWS, FEATURES)) / np.sqrt(2.0 * FEATURES)
    weights = rng.standard_normal((FEATURES, targets))
    y = np.tanh(x @ weights + 0.1 * rng.standard_normal((ROWS, targets))) / np.sqrt(targets)
    names = [f"y{j + 1}" for j in range(targets)] if targets > 1 else ["y"]
    frame = pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(FEATURES)])
    for j, name in enumerate(names):
        frame[name] = y[:, j]
    frame.to_csv(path, index=False)
    return names


def run_release(table: Path, names: list[str], out: Path, unlimited: bool) -> tuple[float, dict]:
    """One ``synthamp release`` (the README's form); returns (wall seconds, report JSON)."""
    command = [
        sys.executable, "-m", "synthamp", "release", "--data", str(table),
        "--targets", ",".join(names), "--label-bound", "1", "--ridge", "1",
        "--epsilon", "1", "--delta", "1e-5", "--n-syn", str(N_SYN), "--out", str(out),
        "--force",
    ]  # fmt: skip
    if unlimited:
        command.append("--unlimited")
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True, env=os.environ.copy())
    wall = time.perf_counter() - start
    report = json.loads(out.with_suffix("").with_suffix(".privacy.json").read_text())
    return wall, report


def wide_table(path: Path, columns: int) -> None:
    """A CSV table of ``columns`` columns c0 … and 3 records (c0 the target)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(",".join(f"c{i}" for i in range(columns)) + "\n")
        for value in ("0.1", "0.2", "0.3"):
            handle.write(",".join([value] * columns) + "\n")


def run_plan(table: Path) -> float:
    """One ``synthamp plan`` on ``table`` in a fresh interpreter; wall seconds."""
    command = [
        sys.executable, "-m", "synthamp", "plan", "--data", str(table), "--targets", "c0",
        "--label-bound", "1", "--epsilon", "1", "--delta", "1e-5", "--ridge", "1",
        "--no-progress",
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True, env=os.environ.copy())
    return time.perf_counter() - start


def wide(columns: list[int], repeats: int, out: str) -> None:
    """``synthamp plan`` and ``read_shape`` on tables of many columns (see the module doc)."""
    from synthamp.release import read_shape

    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for count in columns:
            table = Path(tmp) / f"wide_{count}.csv"
            wide_table(table, count)
            shapes = []
            for _ in range(repeats):
                start = time.perf_counter()
                shape = read_shape(table, ["c0"])
                shapes.append(time.perf_counter() - start)
            plans = [run_plan(table) for _ in range(repeats)]
            rows.append(
                [
                    f"{count:,}",
                    f"{statistics.median(shapes):.2f} s",
                    f"{statistics.median(plans):.1f} s",
                    f"{min(plans):.1f}–{max(plans):.1f} s",
                    f"m = {shape[0]}, d = {shape[1]:,}, k = {shape[2]}",
                    f"{table.stat().st_size / 1e6:.1f} MB",
                ]
            )
            print(rows[-1], flush=True)
    header = ["columns", "read_shape", "plan (median)", "plan (range)", "shape", "file"]
    lines = [
        "## `synthamp plan` on wide tables (`benchmarks/bench_release.py --wide`)",
        "",
        f"Machine: {machine_summary()}. Median of {repeats} runs; `plan` in a fresh "
        "interpreter (imports, header, record count, calibration of σ for one λ).",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(out, lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--wide",
        default=None,
        metavar="COUNTS",
        help="time plan on CSV tables of these many columns, e.g. 100000",
    )
    args = parser.parse_args()
    if args.wide:
        counts = [int(float(item)) for item in args.wide.split(",")]
        wide(counts, args.repeats, args.out or "docs/benchmarks/plan_wide.md")
        return
    args.out = args.out or "docs/benchmarks/release.md"
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for targets in (1, 3):
            table = Path(tmp) / f"table_k{targets}.csv"
            names = ordinary_table(table, targets)
            for unlimited in (False, True):
                out = Path(tmp) / "synthetic.parquet"
                runs = [run_release(table, names, out, unlimited) for _ in range(args.repeats)]
                wall = statistics.median(r[0] for r in runs)
                report = runs[-1][1]
                if report.get("accounting_note"):
                    scope = "plateau (finite stopped at the time budget)"
                else:
                    scope = "unlimited" if unlimited else f"finite, {report['accounting_kind']}"
                rows.append(
                    [
                        f"k = {targets}, {'--unlimited' if unlimited else f'n_syn = {N_SYN:,}'}",
                        f"{wall:.1f} s",
                        f"{min(r[0] for r in runs):.1f}–{max(r[0] for r in runs):.1f} s",
                        str(scope),
                        f"ε = {report['epsilon']:.4g}, σ = {report['sigma']:.4g}, "
                        f"{100 * report['noise_saved']:.2f}% noise saved",
                        "≤ 20 s",
                    ]
                )
                print(rows[-1], flush=True)
    header = ["release (5,000 × 20, ε = 1, δ = 1e-5)", "median", "range", "accounting",
              "result", "target"]  # fmt: skip
    lines = [
        "## The main job (`benchmarks/bench_release.py`)",
        "",
        f"Machine: {machine_summary()}. Median of {args.repeats} runs of `python -m synthamp "
        "release` in a fresh interpreter (imports, fit, accounting, 100,000 records written "
        "to Parquet).",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
