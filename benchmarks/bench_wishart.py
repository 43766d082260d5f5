"""Speed of the exact k = 2 plateau engine (issue 16).

Target: ≤ 2 s per pair for all orders at d ≤ 100. Each timing is the median of
repeated calls of ``renyi_plateau_gram`` on one general (rank-two, non-commuting)
pair with tr Ω ≈ 4 at 13 orders from 1.01 to 64, at full accuracy and in the
search accuracy of the k = 2 study; the baseline in the same run is the k = 1
engine on the aligned rank-one pair of the same norms (``renyi_plateau``), so the
ratio says what the third dimension costs. The table also gives the lattice size
and the largest error estimate relative to the value.

Run by hand: ``python benchmarks/bench_wishart.py [--out PATH] [--repeats N]``.
Writes a Markdown table (default docs/benchmarks/wishart.md).
"""

from __future__ import annotations

import argparse
import datetime

import numpy as np

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp import renyi_plateau
from synthamp.accountant._k2_search import SEARCH_DROP, SEARCH_STEP
from synthamp.divergence import renyi_plateau_gram
from synthamp.divergence._wishart import plateau_gram_scaled

ORDERS = np.array([1.01, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], dtype=float)
GRAM_V = np.array([[3.0, 0.5], [0.5, 0.9]])
GRAM_W = np.array([[2.5, 0.2], [0.2, 1.2]])
DIMS = (2, 3, 4, 10, 30, 100, 1000, 10_000)
#: ‖v‖_F, ‖w‖_F of the pair (the k = 1 baseline's amplitudes).
NORM_V, NORM_W = np.sqrt(np.trace(GRAM_V)), np.sqrt(np.trace(GRAM_W))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/wishart.md")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for dim in DIMS:
        full = renyi_plateau_gram(ORDERS, dim, GRAM_V, GRAM_W, full_output=True)
        t_full = median_time(
            lambda d=dim: renyi_plateau_gram(ORDERS, d, GRAM_V, GRAM_W), args.repeats
        )
        t_search = median_time(
            lambda d=dim: plateau_gram_scaled(ORDERS, d, GRAM_V, GRAM_W, SEARCH_STEP, SEARCH_DROP),
            args.repeats,
        )
        t_k1 = median_time(lambda d=dim: renyi_plateau(ORDERS, d, NORM_V, NORM_W), args.repeats)
        rows.append(
            [
                f"{dim:,}",
                f"{full.nodes:,}",
                f"{t_full:.2f}",
                f"{t_search:.2f}",
                f"{1e3 * t_k1:.1f}",
                f"{t_full / t_k1:.0f}",
                f"{np.max(full.error / full.value):.1e}",
            ]
        )
        print(rows[-1], flush=True)
    header = [
        "d",
        "lattice nodes",
        "full accuracy (s)",
        "search accuracy (s)",
        "k = 1 engine, same norms (ms)",
        "ratio full / k = 1",
        "max error / value",
    ]
    lines = [
        "# k = 2 plateau engine (`benchmarks/bench_wishart.py`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}. Medians of {args.repeats} calls after a "
        "warm-up; 13 orders from 1.01 to 64, one pair vᵀv = (3, 0.5, 0.9), "
        "wᵀw = (2.5, 0.2, 1.2), σ = 1.",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
