"""Median wall time of the exact engine and of the exact worst case (run by hand).

python benchmarks/bench_engine_speed.py  ->  a Markdown table on stdout
"""

from __future__ import annotations

import os
import time

import numpy as np

import synthamp
from synthamp.accountant import worst_case_rdp

ORDERS = np.geomspace(1.01, 256, 64)


def median_ms(fn, *args, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def main() -> None:
    rows = []
    for d, a, b in [(50, 2, 1.5), (1000, 4, 3.8), (10**5, 8, 7.6), (1, 2, 1)]:
        rows.append(
            (
                f"plateau, 64 orders, d={d}, a={a}, b={b}",
                median_ms(synthamp.renyi_plateau, ORDERS, d, a, b),
            )
        )
        rows.append(
            (
                f"plateau, 1 order (α=2), d={d}, a={a}, b={b}",
                median_ms(synthamp.renyi_plateau, [2.0], d, a, b),
            )
        )
    for d, n in [(50, 1000), (1000, 100), (5, 10**4)]:
        rows.append(
            (
                f"finite, 64 orders, d={d}, n_syn={n}, a=2, b=1.5",
                median_ms(synthamp.renyi_finite, ORDERS, d, 2, 1.5, n, repeats=3),
            )
        )
    rows.append(
        (
            "Fisher information, d=1000, θ=2",
            median_ms(synthamp.fisher_information, 1000, 2.0),
        )
    )
    rows.append(
        (
            "exact worst case, 64 orders, d=1000, C/σ=4, Δ/σ=0.2, unlimited",
            median_ms(worst_case_rdp, ORDERS, 1000, 4, 0.2, repeats=3),
        )
    )
    print(f"load average {os.getloadavg()[0]:.1f}\n")
    print("| call | median |\n|---|---|")
    for name, ms in rows:
        print(f"| {name} | {ms:.1f} ms |")


if __name__ == "__main__":
    main()
