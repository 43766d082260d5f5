"""Benchmark: the speed of a k ≥ 2 design release under the certified accountant.

On wine's shape (m = 178, B = 1, λ = 0.01) and an orthogonal design, at (ε, δ) = (1, 1e-5):

* one certified accounting at fixed σ (:func:`synthamp.accountant.account_certified`, with
  its realised lower bound), k = 2 and 13, D = 10⁴ and 10⁶ (target ≤ 5 s);
* the design release's calibration (:func:`synthamp.design._release.account_design`:
  :func:`synthamp.accountant.calibrate_certified` plus Theorem 5.4's σ beside it), and the
  certified calibration alone (target ≤ 20 s);
* the release end to end, ``synthamp release --design orthogonal --width 1000000`` with wine's 13
  numeric columns as targets (each mapped into [−1, 1] by its range and divided by √13, so
  B = 1; the range is read from the data here, a benchmark's shortcut: a release takes public
  bounds), 10⁵ records, all reports written (target ≤ 10 s), in a fresh process.

Also the σ of each accounting (certified, Theorem 5.4, post-processing) and the lower bound.
Run: ``python benchmarks/bench_k_release.py`` (~1 min on 2 idle cores; writes
docs/benchmarks/k_release.md).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp.accountant import PublicDesignRelease, account_certified, calibrate_certified
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.design._release import account_design

M, B, RIDGE = 178, 1.0, 0.01
EPSILON, DELTA = 1.0, 1e-5


def _public(width: int, k: int, sigma: float = 1.0) -> PublicDesignRelease:
    bounds = orthogonal_bounds(M, RIDGE, B)
    root = math.sqrt(bounds.gram_scale)
    return PublicDesignRelease(width, k, B * root, 2.0 * B * root * (1 + 1e-15), sigma,
                               realised_norm=B * root)  # fmt: skip


def _end_to_end(folder: Path) -> float:
    """Seconds of ``synthamp release`` on wine's 13 columns (a fresh process, imports included)."""
    import pandas as pd
    from sklearn.datasets import load_wine

    x = load_wine().data
    lo, hi = x.min(axis=0), x.max(axis=0)
    columns = [f"c{i}" for i in range(x.shape[1])]
    scaled = (2.0 * (x - lo) / (hi - lo) - 1.0) / math.sqrt(x.shape[1])
    pd.DataFrame(scaled, columns=columns).to_csv(folder / "wine13.csv", index=False)
    argv = [
        sys.executable, "-m", "synthamp", "release", "--data", str(folder / "wine13.csv"),
        "--targets", ",".join(columns), "--label-bound", "1", "--ridge", str(RIDGE),
        "--design", "orthogonal", "--width", "1000000", "--design-seed", "7",
        "--epsilon", str(EPSILON), "--delta", str(DELTA), "--n-syn", "100000",
        "--out", str(folder / "syn.csv"), "--no-progress", "--force",
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env={**os.environ})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    bounds = orthogonal_bounds(M, RIDGE, B)
    rows, start = [], time.perf_counter()
    for width in (10**4, 10**6):
        for k in (2, 13):
            accounted = account_design(bounds, width, k, EPSILON, DELTA, label_bound=B)
            cert = accounted.certified
            fixed = median_time(
                lambda w=width, k=k, s=cert.sigma: account_certified(_public(w, k, s), DELTA),
                repeats,
            )
            calibration = median_time(
                lambda w=width, k=k: calibrate_certified(_public(w, k), EPSILON, DELTA), repeats
            )
            design = median_time(
                lambda w=width, k=k: account_design(bounds, w, k, EPSILON, DELTA, label_bound=B),
                1,
                warm_up=False,
            )
            rows.append([
                f"{width:.0e}", str(k), f"{cert.sigma:.4g}", f"{accounted.sigma_norm:.4g}",
                f"{accounted.guarantee.sigma_post_processing:.4g}", f"{cert.epsilon:.5g}",
                f"{cert.epsilon_lower_realised:.5g}", f"{cert.certified_over_lower:.4f}",
                f"{fixed:.2f}", f"{calibration:.2f}", f"{design:.2f}",
            ])  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        end_to_end = [_end_to_end(Path(folder)) for _ in range(repeats)]
    header = [
        "D", "k", "σ certified", "σ Theorem 5.4", "σ post-processing", "ε", "ε lower (realised)",
        "ε / lower", "account at σ (s)", "calibrate_certified (s)", "account_design (s)",
    ]  # fmt: skip
    lines = [
        "# The k ≥ 2 design release: σ and speed",
        "",
        "`python benchmarks/bench_k_release.py`; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{machine_summary()}; {time.perf_counter() - start:.0f} s.",
        "",
        f"Orthogonal design, m = {M} (wine), B = {B:g}, λ = {RIDGE:g}, (ε, δ) = ({EPSILON:g}, "
        f"{DELTA:g}); median of {repeats} (account_design: one run, no warm-up).",
        "",
        *markdown_table(header, rows),
        "",
        "End to end, `synthamp release --design orthogonal --width 1000000` with wine's 13 "
        "numeric columns as targets, 10⁵ records, all reports (a fresh process each): "
        + ", ".join(f"{t:.1f} s" for t in end_to_end) + f" (median {np.median(end_to_end):.1f} s).",
    ]  # fmt: skip
    write_report("docs/benchmarks/k_release.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
