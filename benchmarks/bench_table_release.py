"""The whole numeric table as the release: wine (13 columns), diabetes (11), breast_cancer (31).

Each table (scikit-learn, ``as_frame``; diabetes: its 10 features and the target; breast
cancer: its 30 features and the 0/1 target) is released whole with ``release_table``
(``targets="all"``, the target ``bounds``, ``--design orthogonal``, D = 10⁶, public seed 7,
λ = 0.01, δ = 1e-5, 10⁵ records in the table's columns and units). The bounds are the
columns' observed ranges widened by 5% of their spread: a stand-in for the public domain
knowledge a data holder declares (a real release never reads its bounds from the data).

Errors of the written records against the true table, in its units: the means (largest
|error| over the column's sd, and the root mean square of those), the covariance (relative
Frobenius error ‖Ĉ − C‖_F/‖C‖_F) and the correlation matrix (Frobenius error ‖R̂ − R‖_F and
largest entry); the wall time of the release (end to end, reading and writing included).
The guarantee is whatever the accountant of this tree gives for k' = k + 1 (the constant
column included): the accounting is not this benchmark's subject.

Run by hand: ``python benchmarks/bench_table_release.py [--epsilon E ...] [--out PATH]``
(default docs/benchmarks/table_release.md).
"""

from __future__ import annotations

import argparse
import datetime
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from _common import machine_summary, markdown_table, write_report
from synthamp.jobs import release_table

WIDTH, SEED, RIDGE, DELTA, N_SYN = 1_000_000, 7, 0.01, 1e-5, 100_000


def tables() -> dict[str, pd.DataFrame]:
    """The three tables, every column numeric."""
    from sklearn import datasets

    wine = datasets.load_wine(as_frame=True).frame.drop(columns="target")
    diabetes = datasets.load_diabetes(as_frame=True).frame
    cancer = datasets.load_breast_cancer(as_frame=True).frame
    return {"wine": wine, "diabetes": diabetes, "breast_cancer": cancer}


def fixture_bounds(frame: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """The observed ranges widened by 5%: the stand-in for declared public ranges."""
    lo, hi = frame.min(), frame.max()
    pad = 0.05 * (hi - lo)
    return {c: (float(lo[c] - pad[c]), float(hi[c] + pad[c])) for c in frame.columns}


def errors(true: pd.DataFrame, synthetic: pd.DataFrame) -> dict[str, float]:
    """The records' errors against the true table (module docstring)."""
    sd = true.std(ddof=0).to_numpy()
    mean_err = (synthetic.mean().to_numpy() - true.mean().to_numpy()) / sd
    cov_t, cov_s = np.cov(true.T.to_numpy(), bias=True), np.cov(synthetic.T.to_numpy(), bias=True)
    corr = synthetic.corr().to_numpy() - true.corr().to_numpy()
    return {
        "mean_max": float(np.abs(mean_err).max()),
        "mean_rms": float(np.sqrt(np.mean(mean_err**2))),
        "cov_rel": float(np.linalg.norm(cov_s - cov_t) / np.linalg.norm(cov_t)),
        "corr_fro": float(np.linalg.norm(corr)),
        "corr_max": float(np.abs(corr).max()),
        "sd_ratio_max": float(np.max(synthetic.std(ddof=0).to_numpy() / sd)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 100.0])
    parser.add_argument("--out", default="docs/benchmarks/table_release.md")
    args = parser.parse_args()
    rows = []
    for name, frame in tables().items():
        for epsilon in args.epsilon:
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder) / "syn.csv"
                start = time.perf_counter()
                result = release_table(
                    frame, "all", bounds=fixture_bounds(frame), design="orthogonal",
                    width=WIDTH, design_seed=SEED, ridge=RIDGE, epsilon=epsilon, delta=DELTA,
                    n_syn=N_SYN, out=out,
                )  # fmt: skip
                seconds = time.perf_counter() - start
                synthetic = pd.read_csv(out)
            assert list(synthetic.columns) == [str(c) for c in frame.columns]
            e = errors(frame, synthetic)
            report = result.design_report
            rows.append([
                name, str(frame.shape[1]), f"{epsilon:g}", f"{report['sigma']:.4g}",
                f"{report['epsilon']:.4g} ({report['accountant']}, {report['adjacency']})",
                f"{e['mean_max']:.3g}", f"{e['mean_rms']:.3g}", f"{e['cov_rel']:.3g}",
                f"{e['corr_fro']:.3g}", f"{e['corr_max']:.3g}", f"{e['sd_ratio_max']:.3g}",
                f"{seconds:.2f}",
            ])  # fmt: skip
            print(" | ".join(rows[-1]), flush=True)
    header = [
        "table", "k", "ε", "σ", "guarantee (accountant, adjacency)", "largest mean error / sd",
        "mean err/sd rms", "cov ‖Ĉ−C‖/‖C‖", "corr ‖R̂−R‖_F", "corr max", "sd ratio max",
        "time (s)",
    ]  # fmt: skip
    lines = [
        "# The whole table as the release (benchmarks/bench_table_release.py)",
        "",
        f"Orthogonal design, D = {WIDTH:,}, seed {SEED}, λ = {RIDGE}, δ = {DELTA:g}, "
        f"{N_SYN:,} records in the table's units; bounds: observed ranges widened by 5% (a "
        "stand-in for declared public ranges).",
        "",
        *markdown_table(header, rows),
        "",
        f"{datetime.date.today()}, {machine_summary()}.",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
