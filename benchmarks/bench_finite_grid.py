"""The finite engine against the plateau on the grid of real table sizes (issue 38, item 3).

Grid: C/σ ∈ {1, 3, 10, 30, 10², 10³, 10⁴, 10⁵} × n_syn ∈ {1, 10², 10⁴, 10⁶} (32 rows),
d = 20 (the README table's width), the calibrated edge pair (a, b) = (c, c − 0.5). For
each row: one plateau order and one finite order (α = 2; target: finite ≤ 20× the
plateau), the finite release over 64 orders (1.01 … 256), and the largest relative
error estimate over those orders (target: ≤ 1e-6 inside the documented domain
a, b ≤ 10³; beyond it ``renyi_finite`` refuses and only the accountant calls the kernel).
Times are CPU seconds of this process (the machine is shared; wall clock under load is
not a measure of the code), medians of ``--repeats`` calls after one warm-up call, the
engine's memo emptied before each call (divergence/_memo.py).

Run by hand: ``python benchmarks/bench_finite_grid.py [--repeats 3] [--out PATH]``
(default docs/benchmarks/engine_grid.md).
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from synthamp.divergence._finite import FINITE_MAX_AMPLITUDE, finite_scaled
from synthamp.divergence._plateau import plateau_scaled

AMPLITUDES = [1.0, 3.0, 10.0, 30.0, 1e2, 1e3, 1e4, 1e5]
N_SYNS = [1, 100, 10**4, 10**6]
DIM, GAP = 20, 0.5
ORDERS_64 = np.geomspace(1.01, 256.0, 64)


def cpu_median(fn, repeats: int) -> float:
    """Median CPU seconds of ``fn`` over ``repeats`` calls after a warm-up, memo emptied."""
    finite_scaled.cache_clear()
    fn()
    times = []
    for _ in range(repeats):
        finite_scaled.cache_clear()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def bench_grid(repeats: int) -> list[list[str]]:
    rows = []
    one = np.array([2.0])
    for c in AMPLITUDES:
        a, b = c, c - min(GAP, c)
        t_plateau = cpu_median(lambda a=a, b=b: plateau_scaled(one, DIM, a, b), max(repeats, 5))
        for n in N_SYNS:
            t_one = cpu_median(lambda a=a, b=b, n=n: finite_scaled(one, DIM, n, a, b), repeats)
            t_64 = cpu_median(lambda a=a, b=b, n=n: finite_scaled(ORDERS_64, DIM, n, a, b), 1)
            value, error = finite_scaled(ORDERS_64, DIM, n, a, b)
            rel = float(np.max(error / np.maximum(value, 1e-300)))
            ratio = t_one / t_plateau
            inside = c <= FINITE_MAX_AMPLITUDE
            rows.append(
                [
                    f"{c:g}",
                    f"{n:,}",
                    f"{1e3 * t_plateau:.2f}",
                    f"{1e3 * t_one:.1f}",
                    f"{ratio:.0f}" + ("" if ratio <= 20 else " **(> 20)**"),
                    f"{1e3 * t_64:.0f}",
                    f"{rel:.1e}" + ("" if rel <= 1e-6 or not inside else " **(> 1e-6)**"),
                    "yes" if inside else "no (refused; kernel only)",
                ]
            )
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="docs/benchmarks/engine_grid.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = bench_grid(args.repeats)
    met = sum("(> 20)" not in r[4] for r in rows)
    lines = [
        "# The finite engine on the grid of table sizes (`python benchmarks/bench_finite_grid.py`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}; load average {load:.1f} at the start. "
        f"CPU time of this process, medians of {args.repeats} calls after a warm-up, the "
        f"memo emptied before each. d = {DIM}, (a, b) = (c, c − {GAP}), α = 2 for one order.",
        "",
        *markdown_table(
            [
                "c = C/σ",
                "n_syn",
                "plateau, 1 order (ms)",
                "finite, 1 order (ms)",
                "ratio (≤ 20)",
                "finite, 64 orders (ms)",
                "largest error/value, 64 orders",
                "documented domain",
            ],
            rows,
        ),
        "",
        f"One order within 20× the plateau on {met} of {len(rows)} rows.",
    ]
    print("\n".join(lines))
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
