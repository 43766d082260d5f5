"""Benchmark: the certified k ≥ 2 calibration at small and large ε (docs/theory.md §20).

wine's table as the release: m = 178 records, k' = 14 columns (13 and the constant), B = 1,
λ = 0.01, an orthogonal design of width D = 10⁶ (c* = B√g, g = (1 + mλ)⁻²), δ = 1e-5. For
ε = 1, 10, 100: the wall time of :func:`synthamp.accountant.calibrate_certified` (route
node, rtol = 1e-3, the lower bound included; wall and CPU seconds, CPU the fairer measure on
a shared machine), the node PLD evaluations it spent, the σ and
ε it returns, the ε at σ/(1 + rtol) (above the target: the σ is the smallest to rtol), and
the wall time of one accounting at that σ (:func:`account_certified`).

Run: ``python benchmarks/bench_k_calibration.py [--epsilons 1,10,100] [--out PATH]``
(default docs/benchmarks/k_calibration.md). Run it with ``PYTHONPATH`` at another tree's
``src`` to measure that tree (the "before" of docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from synthamp.accountant import (
    PublicDesignRelease,
    _k_certificate,
    account_certified,
    calibrate_certified,
)

M, RIDGE, B, WIDTH, COLUMNS, DELTA, RTOL = 178, 0.01, 1.0, 1_000_000, 14, 1e-5, 1e-3


def _counting(fn, counter: list[int]):
    def wrapped(*args, **kwargs):
        counter[0] += 1
        return fn(*args, **kwargs)

    return wrapped


def row(release: PublicDesignRelease, epsilon: float) -> list[str]:
    """One ε: time, evaluations, σ, ε, ε just below σ, one accounting's time."""
    counter = [0]
    original = _k_certificate._node_pld
    _k_certificate._node_pld = _counting(original, counter)
    load = os.getloadavg()[0]
    try:
        start, cpu = time.perf_counter(), time.process_time()
        result = calibrate_certified(release, epsilon, DELTA)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        _k_certificate._node_pld = original
    start, account_cpu = time.perf_counter(), time.process_time()
    account_certified(release.with_sigma(result.sigma), DELTA)
    account_seconds = time.perf_counter() - start
    account_cpu = time.process_time() - account_cpu
    below = account_certified(release.with_sigma(result.sigma / (1 + RTOL)), DELTA).epsilon
    return [
        f"{epsilon:g}", f"{seconds:.1f} / {cpu:.1f}", str(counter[0]), f"{result.sigma:.6g}",
        f"{result.epsilon:.6g}", f"{below:.6g}", f"{result.epsilon_lower_realised:.6g}",
        f"{account_seconds:.1f} / {account_cpu:.1f}", f"{load:.1f}",
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="1,10,100")
    parser.add_argument("--out", default="docs/benchmarks/k_calibration.md")
    args = parser.parse_args()
    g = (1 + M * RIDGE) ** -2
    release = PublicDesignRelease.from_gram(g * np.eye(M), B, WIDTH, COLUMNS, sigma=1.0)
    assert math.isclose(release.canonical_norm, B * math.sqrt(g), rel_tol=1e-12)
    rows = []
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        rows.append(row(release, epsilon))
        print(rows[-1], flush=True)
    header = [
        "ε", "calibrate s (wall / CPU)", "node PLDs", "σ", "ε at σ", "ε at σ/(1 + rtol)",
        "ε lower (realised)", "account s at σ (wall / CPU)", "load at start",
    ]  # fmt: skip
    head = [
        "# The certified k ≥ 2 calibration at small and large ε",
        "",
        f"wine's table: m = {M}, k' = {COLUMNS}, B = {B:g}, λ = {RIDGE:g}, orthogonal design, "
        f"D = {WIDTH:,}, δ = {DELTA:g}, rtol = {RTOL:g}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine_summary()}.",
        "",
    ]
    write_report(args.out, head + markdown_table(header, rows) + [""])


if __name__ == "__main__":
    main()
