"""Speed of the privacy accountant (issue 4).

Targets: the exact worst-case curve over 64 orders in <= 50 ms (unlimited
release); a calibration in <= 2 s. Each timing is the median of repeated runs;
the baseline is one call of the exact engine over the same 64 orders at the
maximiser, measured in the same run, so the ratio counts engine-call
equivalents.

Run by hand: ``.venv/bin/python benchmarks/bench_accountant.py [--out PATH]``.
Writes a Markdown table (default docs/benchmarks/accountant.md).
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial

import numpy as np

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp import renyi_finite, renyi_plateau
from synthamp.accountant import OrderGridWarning, calibrate_sigma, worst_case_rdp

ORDERS_64 = np.unique(np.round(np.geomspace(1.1, 256.0, 64), 6))


def bench_worst_case(rows: list[list[str]]) -> None:
    configs = [
        # dim, C/σ, Δ/σ, n_syn, repeats
        (50, 2.0, 0.5, None, 15),
        (1000, 4.0, 0.2, None, 15),
        (10**5, 40.0, 2.0, None, 9),
        (50, 2.0, 0.5, 100, 3),
        (1000, 4.0, 0.2, 1000, 3),
    ]
    for dim, c, s, n_syn, repeats in configs:
        wc = worst_case_rdp(ORDERS_64, dim, c, s, n_syn=n_syn, full_output=True)
        t_wc = median_time(partial(worst_case_rdp, ORDERS_64, dim, c, s, n_syn=n_syn), repeats)
        if n_syn is None:
            engine = partial(renyi_plateau, ORDERS_64, dim, c, c - min(s, c))
        else:
            engine = partial(renyi_finite, ORDERS_64, dim, c, c - min(s, c), n_syn)
        t_engine = median_time(engine, repeats)
        target = "≤ 50 ms" if n_syn is None else "—"
        rows.append(
            [
                f"worst case, 64 orders, d={dim}, c={c:g}, s={s:g}, "
                f"n_syn={'∞' if n_syn is None else n_syn}",
                f"{1e3 * t_wc:.1f} ms",
                f"{1e3 * t_engine:.1f} ms",
                f"{t_wc / t_engine:.1f}",
                f"{wc.evaluations}",
                target,
            ]
        )
        print(rows[-1])


def bench_calibration(rows: list[list[str]]) -> None:
    configs = [
        # label, kwargs, repeats
        ("exact, d=1000, k=1", {"dim": 1000, "norm_bound": 2.0, "sensitivity": 0.1}, 3),
        (
            "exact, d=50, k=1, T=3",
            {"dim": 50, "norm_bound": 2.0, "sensitivity": 0.5, "releases": 3},
            3,
        ),
        ("exact, d=10^5, k=1", {"dim": 10**5, "norm_bound": 1.0, "sensitivity": 0.1}, 3),
        (
            "exact, d=1000, k=1, n_syn=1000",
            {"dim": 1000, "norm_bound": 2.0, "sensitivity": 0.1, "n_syn": 1000},
            3,
        ),
        (
            "exact (certified), d=10^5, k=3",
            {"dim": 10**5, "out_dim": 3, "norm_bound": 0.5, "sensitivity": 0.1},
            5,
        ),
        (
            "post-processing, d=1000",
            {"dim": 1000, "norm_bound": 2.0, "sensitivity": 0.1, "method": "post-processing"},
            5,
        ),
    ]
    for label, kwargs, repeats in configs:

        def run(kwargs=kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OrderGridWarning)
                return calibrate_sigma(1.0, 1e-5, **kwargs)

        cal = run()
        t_cal = median_time(run, repeats)
        post = {**kwargs, "method": "post-processing"}
        t_post = median_time(lambda post=post: run(post), 5)
        rows.append(
            [
                f"calibration ε=1, δ=1e-5, {label} (σ={cal.sigma:.4g}, "
                f"saves {100 * cal.noise_reduction:.1f}%)",
                f"{1e3 * t_cal:.0f} ms",
                f"{1e3 * t_post:.0f} ms",
                f"{t_cal / t_post:.1f}",
                "—",
                "≤ 2 s",
            ]
        )
        print(rows[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/accountant.md")
    args = parser.parse_args()
    rows: list[list[str]] = []
    bench_worst_case(rows)
    bench_calibration(rows)
    header = ["case", "median", "baseline", "ratio", "engine calls", "target"]
    lines = [
        "## Accountant (`benchmarks/bench_accountant.py`)",
        "",
        f"Machine: {machine_summary()}. Medians of repeated runs. "
        "Baseline: for the worst case, one exact-engine call over the same 64 orders at the "
        "maximiser; for a calibration, the post-processing calibration of the same release.",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
