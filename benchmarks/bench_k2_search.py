"""Speed of the k = 2 searched lower bound of the accountant (issue 16).

``rdp_curve(release, search=16)`` for k = 2 at the 82 default orders: the
time of ``search_lower_bound`` (16 pairs screened at up to 6 orders at the
search accuracy, winners within 1% of the bound verified at full accuracy
between their screened neighbours) against the baseline in the same run, the
search as it stood before (every pair screened at every order ≤ 64, the winner
of each order verified at full accuracy at every order ≤ 64). Both give lower
bounds; the table also gives the largest ratio of the two bounds (1: the same
bound). C = 2, σ = 1, no time budget.

Run by hand: ``python benchmarks/bench_k2_search.py [--out PATH] [--repeats N]``.
Writes a Markdown table (default docs/benchmarks/k2_search.md).
"""

from __future__ import annotations

import argparse
import datetime

import numpy as np

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp.accountant import DEFAULT_ORDERS, search_lower_bound
from synthamp.accountant._k2_search import (
    MAX_ORDER_K2,
    _candidates,
    _pair,
    screen_values,
)
from synthamp.divergence._wishart import plateau_gram_scaled

STARTS = 16
SETTINGS = ((10, 0.5), (30, 0.5), (100, 1.0), (10, 1.8))
NORM_BOUND = 2.0


def _baseline(dim: int, s: float) -> np.ndarray:
    """The search before issue 16's accountant work: all orders screened and verified."""
    orders = np.asarray(DEFAULT_ORDERS)
    found = search_lower_bound(orders, dim, NORM_BOUND, s, starts=0).value.copy()
    inside = orders <= MAX_ORDER_K2
    sub = orders[inside]
    pairs = [_pair(x, NORM_BOUND, s) for x in _candidates(NORM_BOUND, s, STARTS, 0)]
    screened = np.array([screen_values(sub, dim, *p) for p in pairs])
    best = np.zeros(sub.size)
    for i in np.unique(np.argmax(screened, axis=0)):
        try:
            value, error = plateau_gram_scaled(sub, dim, *pairs[i])[:2]
        except RuntimeError:  # the lattice of all orders up to 64 can exceed its node budget
            continue
        best = np.maximum(best, value - error)
    found[inside] = np.maximum(found[inside], best)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/k2_search.md")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for dim, s in SETTINGS:
        new = search_lower_bound(DEFAULT_ORDERS, dim, NORM_BOUND, s, starts=STARTS)
        old = _baseline(dim, s)
        t_new = median_time(
            lambda d=dim, s=s: search_lower_bound(DEFAULT_ORDERS, d, NORM_BOUND, s, starts=STARTS),
            args.repeats,
            warm_up=False,
        )
        t_old = median_time(lambda d=dim, s=s: _baseline(d, s), args.repeats, warm_up=False)
        ratio = np.max(np.maximum(new.value, 1e-300) / np.maximum(old, 1e-300))
        rows.append(
            [
                f"{dim}",
                f"{s:g}",
                f"{new.verified}",
                f"{t_new:.1f}",
                f"{t_old:.1f}",
                f"{t_old / t_new:.1f}",
                f"{ratio:.4f}",
                f"{np.min(new.value / np.maximum(old, 1e-300)):.4f}",
            ]
        )
        print(rows[-1], flush=True)
    header = [
        "d",
        "Δ",
        "pairs verified",
        "search (s)",
        "baseline (s)",
        "speed-up",
        "max bound / baseline",
        "min bound / baseline",
    ]
    lines = [
        "# k = 2 searched lower bound (`benchmarks/bench_k2_search.py`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}. Medians of {args.repeats} runs; "
        f"{STARTS} pairs besides the aligned ones, the 82 default orders (73 ≤ 64), C = 2, "
        "σ = 1.",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
