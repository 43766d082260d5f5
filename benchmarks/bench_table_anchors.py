"""The written table against the anchors: covariance, correlations and means at the n written.

Each table (scikit-learn: wine's first column alone, wine's 13 columns, diabetes' 11,
breast_cancer's 31) is released whole on the orthogonal design (D = 10⁶, λ = 0.01, B = 1,
(ε, δ) = (1, 1e-5); bounds: the observed ranges widened by 5%, a benchmark's stand-in for
declared public ranges), with σ from the release's own certified accounting
(:func:`synthamp.accountant.calibrate_certified`, k' = k + 1 columns, the constant included).
For the records written and for the synthesizers of the anchors at the same (ε, δ) —
Analyze Gauss, the trace-shaped Gaussian and, for one column, the Laplace mechanism — each
post-processed by the release's own ``table_moments`` and writing the same n records:
the root-mean-square error of the table's covariance (Frobenius), correlation matrix
(Frobenius) and means (Euclidean), in the coordinates of the declared ranges (each column
onto [−1, 1]), measured against the TRUE table (a benchmark may read it; a release's report
uses the released moments instead), by :func:`synthamp.utility.table_anchor_errors`
(Monte Carlo, 95% intervals), at n = 10⁵ records and n → ∞.

Run by hand: ``python benchmarks/bench_table_anchors.py [--reps R] [--out PATH]`` (a few
minutes on 2 cores; default docs/benchmarks/table_anchors.md).
"""

from __future__ import annotations

import argparse
import datetime
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from bench_table_release import fixture_bounds, tables
from synthamp.accountant import calibrate_certified
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.design._release import certified_design_release
from synthamp.release._table_records import TargetMap, table_moments, target_map
from synthamp.utility import table_anchor_errors

WIDTH, RIDGE, B, EPSILON, DELTA, N_SYN = 1_000_000, 0.01, 1.0, 1.0, 1e-5, 100_000
NAMES = {
    "records": "records (this release)",
    "analyze_gauss": "Analyze Gauss's synthesizer",
    "trace_shaped": "trace-shaped Gaussian's synthesizer",
    "laplace": "Laplace mechanism's synthesizer",
}


def truth_u(frame) -> tuple[np.ndarray, np.ndarray, TargetMap]:
    """The table's means and (1/m) covariance in the coordinates of its ranges, clipped."""
    tmap = target_map(fixture_bounds(frame), [str(c) for c in frame.columns], B)
    u = tmap.forward(frame.to_numpy(dtype=float))[:, :-1] / tmap.row_scale
    return u.mean(axis=0), np.atleast_2d(np.cov(u.T, bias=True)), tmap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--out", default="docs/benchmarks/table_anchors.md")
    args = parser.parse_args()
    frames = tables()
    frames = {"wine (first column)": frames["wine"].iloc[:, :1], **frames}
    rows, start = [], time.perf_counter()
    for name, frame in frames.items():
        m, k = frame.shape
        design = orthogonal_bounds(m, RIDGE, B)
        public = certified_design_release(design, B, WIDTH, k + 1)
        sigma = calibrate_certified(public, EPSILON, DELTA).sigma
        mean_u, cov_u, tmap = truth_u(frame)
        unit = TargetMap(tmap.names, -np.ones(k), np.ones(k), B)
        common = dict(
            mean_u=mean_u, cov_u=cov_u, n_records=m, label_bound=B, epsilon=EPSILON,
            delta=DELTA, sigma=sigma, width=WIDTH, gram_scale=design.gram_scale,
            post_process=lambda gram, constant, unit=unit: table_moments(gram, unit, constant),
            reps=args.reps, seed=1,
        )  # fmt: skip
        at_n = table_anchor_errors(n_syn=N_SYN, **common)
        limit = {(e.mechanism, e.statistic): e for e in table_anchor_errors(n_syn=None, **common)}
        records = {e.statistic: e.rmse for e in at_n if e.mechanism == "records"}
        for e in at_n:
            if e.statistic == "correlation" and k == 1:
                continue
            inf = limit[(e.mechanism, e.statistic)]
            rows.append([
                name, str(k), f"{sigma:.4g}", NAMES[e.mechanism], e.statistic,
                f"{e.rmse:.4g} [{e.low:.4g}, {e.high:.4g}]", f"{e.rmse / records[e.statistic]:.3f}",
                f"{inf.rmse:.4g} [{inf.low:.4g}, {inf.high:.4g}]",
            ])  # fmt: skip
            print(" | ".join(rows[-1]), flush=True)
    header = [
        "table", "k", "σ", "mechanism", "statistic", f"RMSE at n = {N_SYN:,} [95%]",
        "× records", "RMSE n → ∞ [95%]",
    ]  # fmt: skip
    lines = [
        "# The written table against the anchors (benchmarks/bench_table_anchors.py)",
        "",
        f"{datetime.date.today()}, {machine_summary()}; {time.perf_counter() - start:.0f} s.",
        "",
        f"Orthogonal design, D = {WIDTH:,}, λ = {RIDGE}, B = {B:g}, (ε, δ) = ({EPSILON:g}, "
        f"{DELTA:g}), one release; σ certified for k' = k + 1 columns. Monte Carlo over "
        f"{args.reps} runs per mechanism (the noise and the n records), 95% intervals; errors "
        "against the true table in the coordinates of its declared ranges (each column onto "
        "[−1, 1]): covariance and correlations in Frobenius norm, means in Euclidean norm. "
        "Bounds: observed ranges widened by 5% (a stand-in for declared public ranges).",
        "",
        *markdown_table(header, rows),
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
