"""Speed of the privacy accountant (issues 4 and 12).

Targets: the exact worst-case curve over 64 orders in <= 50 ms (unlimited
release); a calibration in <= 2 s. Issue 12 (finite releases): the finite
worst case over the 82 default orders <= 10× one finite 82-order curve (at the
maximiser); a finite calibration <= 2 s, at the README setting (d = 20,
C/σ ≈ 206, n_syn = 10⁵), at d = 10, n_syn = 100 and on the grid above.
``--finite`` runs only the issue-12 rows. Each timing is the median of repeated runs;
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
from synthamp.accountant import (
    DEFAULT_ORDERS,
    OrderGridWarning,
    calibrate_sigma,
    worst_case_rdp,
)

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
        (
            "exact, d=10^5, k=1",
            {"dim": 10**5, "norm_bound": 1.0, "sensitivity": 0.1},
            3,
        ),
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
            {
                "dim": 1000,
                "norm_bound": 2.0,
                "sensitivity": 0.1,
                "method": "post-processing",
            },
            5,
        ),
    ]
    for label, kwargs, repeats in configs:

        def run(kwargs=kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OrderGridWarning)
                return calibrate_sigma(1.0, 1e-5, **kwargs, accountant="rdp")

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


#: The README release (benchmarks/bench_release.py): ridge λ = 1, B = 1, m = 5000 gives
#: C = B/(2√λ) = 0.5 and Δ = B(1 + 2√λ)/(mλ^{3/2}) = 6e-4 (docs/theory.md §13), d = 20, n_syn = 10⁵.
README = {"dim": 20, "norm_bound": 0.5, "sensitivity": 6e-4, "n_syn": 100_000}
#: Issue 12's slow case: d = 10, n_syn = 100.
SLOW = {"dim": 10, "norm_bound": 2.0, "sensitivity": 0.5, "n_syn": 100}
#: The grid's finite row above.
GRID = {"dim": 1000, "norm_bound": 2.0, "sensitivity": 0.1, "n_syn": 1000}


def bench_finite(rows: list[list[str]]) -> None:
    """Issue 12: the finite worst case vs one finite curve, and finite calibrations."""
    orders = np.asarray(DEFAULT_ORDERS)
    for label, release in (
        ("README setting", README),
        ("d=10, n_syn=100", SLOW),
        ("grid", GRID),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridWarning)
            run = partial(calibrate_sigma, 1.0, 1e-5, **release, time_budget=None)
            cal = run()
            t_cal = median_time(run, 3, warm_up=False)
        post = {k: v for k, v in release.items() if k != "n_syn"}
        t_post = median_time(
            partial(calibrate_sigma, 1.0, 1e-5, **post, method="post-processing"), 5
        )
        rows.append(
            [
                f"finite calibration ε=1, δ=1e-5, {label}: d={release['dim']}, "
                f"n_syn={release['n_syn']:,} (σ={cal.sigma:.5g}, "
                f"C/σ={release['norm_bound'] / cal.sigma:.1f}, kind {cal.kind}"
                f"{', FALLBACK' if cal.fallback else ''})",
                f"{t_cal:.2f} s",
                f"{1e3 * t_post:.0f} ms",
                f"{t_cal / t_post:.0f}",
                "—",
                "≤ 2 s",
            ]
        )
        print(rows[-1], flush=True)
        dim, sigma, n_syn = release["dim"], cal.sigma, release["n_syn"]
        c, s = release["norm_bound"], release["sensitivity"]
        run_wc = partial(worst_case_rdp, orders, dim, c, s, sigma, n_syn, full_output=True)
        wc = run_wc()
        t_wc = median_time(run_wc, 1, warm_up=False)
        i = int(np.argmax(wc.estimate / orders))  # any order: the pair of one maximiser
        curve = partial(renyi_finite, orders, dim, wc.norm_v[i], wc.norm_w[i], n_syn, sigma)
        t_curve = median_time(curve, 3)
        rows.append(
            [
                f"finite worst case, 82 orders, {label} at that σ (maximiser t/σ from "
                f"{min(wc.norm_v.min(), wc.norm_w.min()) / sigma:.1f} to "
                f"{max(wc.norm_v.max(), wc.norm_w.max()) / sigma:.1f})",
                f"{t_wc:.2f} s",
                f"{1e3 * t_curve:.0f} ms",
                f"{t_wc / t_curve:.1f}",
                f"{wc.evaluations}",
                "≤ 10× one curve",
            ]
        )
        print(rows[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/accountant.md")
    parser.add_argument("--finite", action="store_true", help="only the issue-12 finite rows")
    args = parser.parse_args()
    rows: list[list[str]] = []
    if not args.finite:
        bench_worst_case(rows)
        bench_calibration(rows)
    bench_finite(rows)
    header = ["case", "median", "baseline", "ratio", "engine calls", "target"]
    lines = [
        "## Accountant (`benchmarks/bench_accountant.py`)",
        "",
        f"Machine: {machine_summary()}. Medians of repeated runs. "
        "Baseline: for the worst case, one exact-engine call over the same orders at the "
        "maximiser; for a calibration, the post-processing calibration of the same release. "
        "Finite calibrations without a time budget.",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
