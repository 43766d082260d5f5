"""Two target columns on wide public designs: the certified accounting beside concrete pairs.

wine's size (m = 178; the numbers depend on the design and B only, not on the targets),
``random-seeds`` design of width D (public seed 7), B = 1, k = 2, ε = 1, δ = 1e-5, one
unlimited release. σ is calibrated under the norm model (the certified k = 2 accounting:
Theorem 5.4 with post-processing, RDP). At the orders 2, α* (the guarantee's optimal
order) and 2α*, :func:`synthamp.design._pairs.compare_design_accounting` gives
the certified RDP, the best pair of the reachable Gram set S₂ found by the search
(heuristic) and the exact divergence of concrete adjacent datasets on the design (a
proven lower bound on the mechanism). Time: the comparison alone, one run.

Run by hand: ``python benchmarks/bench_design_pairs.py [--out PATH]`` (writes a Markdown
table, default docs/benchmarks/design_pairs.md).
"""

from __future__ import annotations

import argparse
import datetime
import time

from _common import machine_summary, markdown_table, write_report
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.design._pairs import compare_design_accounting, comparison_orders
from synthamp.design._release import account_design

EPSILON, DELTA, SEED, M = 1.0, 1e-5, 7, 178
WIDTHS = ((2000, 1e-3), (2000, 1e-2), (10**4, 1e-2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/design_pairs.md")
    args = parser.parse_args()
    rows = []
    for width, ridge in WIDTHS:
        bounds = design_bounds(PublicDesign("random-seeds", width, M, SEED), ridge, 1.0)
        accounted = account_design(bounds, width, 2, EPSILON, DELTA, adjacency="norm")
        orders = comparison_orders(accounted.guarantee.optimal_order)
        start = time.perf_counter()
        found = compare_design_accounting(accounted.release, bounds, 1.0, orders)
        seconds = time.perf_counter() - start
        j = orders.size // 2
        rows.append(
            [
                f"{width:,}", f"{ridge:g}", f"{bounds.gram_sensitivity:.3g}",
                f"{accounted.sigma:.3g}", f"{orders[j]:g}", f"{found.certified[j]:.3g}",
                f"{found.searched[j]:.3g}", f"{found.lower[j]:.3g}",
                f"{found.certified[j] / found.lower[j]:.3g}",
                f"{found.searched[j] / found.lower[j]:.3g}", f"{seconds:.2f}",
            ]
        )  # fmt: skip
        print(" | ".join(rows[-1]), flush=True)
    header = [
        "D", "λ", "s₂", "σ (norm model)", "α*", "certified", "searched S₂ (heuristic)",
        "concrete pairs (lower bound)", "certified / lower", "searched / lower", "time (s)",
    ]  # fmt: skip
    head = [
        "# Two target columns on public designs: accounting beside concrete pairs",
        "",
        f"{datetime.date.today()}, {machine_summary()}. RDP in nats at α*. Produced by "
        "`python benchmarks/bench_design_pairs.py`.",
        "",
    ]
    write_report(args.out, head + markdown_table(header, rows) + [""])


if __name__ == "__main__":
    main()
