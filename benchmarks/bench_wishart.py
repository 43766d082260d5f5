"""Speed of the exact k = 2 plateau engine (issue 16).

Target: ≤ 2 s per pair for all orders at d ≤ 100. Two tables:

1. One general (rank-two, non-commuting) pair with tr Ω ≈ 4 at 13 orders from
   1.01 to 64: median wall and CPU time of repeated calls of ``renyi_plateau_gram``
   at full accuracy and at the search accuracy of the k = 2 study; the baseline in
   the same run is the k = 1 engine on the aligned rank-one pair of the same norms
   (``renyi_plateau``), so the ratio says what the third dimension costs. The table
   also gives the lattice size and the largest error estimate relative to the value.
2. The pairs a user of the study meets: the k = 2 search's candidate pairs at C = 2,
   Δ = 0.5 (aligned, rotated, equal-norm and split rank-two pairs, then random ones;
   ``accountant._k2_search``), one call each at full accuracy: median and largest
   CPU time per d, and how many pairs needed the refinement (an order's estimate
   above 1e-8 of its value: recomputed on finer lattices).

Run by hand: ``python benchmarks/bench_wishart.py [--out PATH] [--repeats N] [--pairs N]``.
Writes a Markdown report (default docs/benchmarks/wishart.md).
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import time

import numpy as np

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp import renyi_plateau
from synthamp.accountant._k2_search import SEARCH_DROP, SEARCH_STEP, _candidates, _pair
from synthamp.divergence import renyi_plateau_gram
from synthamp.divergence._wishart import plateau_gram_scaled

ORDERS = np.array([1.01, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], dtype=float)
GRAM_V = np.array([[3.0, 0.5], [0.5, 0.9]])
GRAM_W = np.array([[2.5, 0.2], [0.2, 1.2]])
DIMS = (2, 3, 4, 10, 30, 100, 1000, 10_000)
STUDY_DIMS = (2, 3, 4, 10, 30, 100)
#: ‖v‖_F, ‖w‖_F of the pair (the k = 1 baseline's amplitudes).
NORM_V, NORM_W = np.sqrt(np.trace(GRAM_V)), np.sqrt(np.trace(GRAM_W))


def one_pair_rows(repeats: int) -> list[list[str]]:
    rows = []
    for dim in DIMS:
        full = renyi_plateau_gram(ORDERS, dim, GRAM_V, GRAM_W, full_output=True)
        call = lambda d=dim: renyi_plateau_gram(ORDERS, d, GRAM_V, GRAM_W)  # noqa: E731
        t_full = median_time(call, repeats)
        c_full = median_time(call, repeats, clock=time.process_time)
        t_search = median_time(
            lambda d=dim: plateau_gram_scaled(ORDERS, d, GRAM_V, GRAM_W, SEARCH_STEP, SEARCH_DROP),
            repeats,
        )
        t_k1 = median_time(lambda d=dim: renyi_plateau(ORDERS, d, NORM_V, NORM_W), repeats)
        rows.append(
            [
                f"{dim:,}",
                f"{full.nodes:,}",
                f"{t_full:.2f}",
                f"{c_full:.2f}",
                f"{t_search:.2f}",
                f"{1e3 * t_k1:.1f}",
                f"{t_full / t_k1:.0f}",
                f"{np.max(full.error / full.value):.1e}",
            ]
        )
        print(rows[-1], flush=True)
    return rows


def study_rows(pairs: int) -> list[list[str]]:
    grams = [_pair(x, 2.0, 0.5) for x in _candidates(2.0, 0.5, pairs, seed=0)]
    rows = []
    for dim in STUDY_DIMS:
        times, refined, worst = [], 0, 0.0
        for gram_v, gram_w in grams:
            start = time.process_time()
            got = renyi_plateau_gram(ORDERS, dim, gram_v, gram_w, full_output=True)
            times.append(time.process_time() - start)
            first = plateau_gram_scaled(ORDERS, dim, gram_v, gram_w)  # untimed
            refined += got.nodes > first[4]  # the refinement added lattices
            worst = max(worst, float(np.max(got.error / got.value)))
        rows.append(
            [
                f"{dim:,}",
                str(len(grams)),
                f"{statistics.median(times):.2f}",
                f"{max(times):.2f}",
                str(refined),
                f"{worst:.1e}",
            ]
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/wishart.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=10)
    args = parser.parse_args()
    one = one_pair_rows(args.repeats)
    study = study_rows(args.pairs)
    lines = [
        "# k = 2 plateau engine (`benchmarks/bench_wishart.py`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}.",
        "",
        f"## One pair: medians of {args.repeats} calls after a warm-up; 13 orders from 1.01 "
        "to 64, vᵀv = (3, 0.5, 0.9), wᵀw = (2.5, 0.2, 1.2), σ = 1",
        "",
        *markdown_table(
            [
                "d",
                "lattice nodes",
                "full accuracy, wall (s)",
                "full accuracy, CPU (s)",
                "search accuracy (s)",
                "k = 1 engine, same norms (ms)",
                "ratio full / k = 1",
                "max error / value",
            ],
            one,
        ),
        "",
        f"## The study's pairs: {args.pairs} candidate pairs of the k = 2 search at C = 2, "
        "Δ = 0.5 (seed 0), one call each, 13 orders, full accuracy",
        "",
        *markdown_table(
            [
                "d",
                "pairs",
                "median CPU (s)",
                "largest CPU (s)",
                "pairs refined",
                "max error / value",
            ],
            study,
        ),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
