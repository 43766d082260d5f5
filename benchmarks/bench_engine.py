"""Speed and accuracy of the exact divergence engine (issue 2).

Targets on a 2-core machine: the plateau for 64 orders in ≤ 10 ms, a single
order in ≤ 1 ms; the finite release in ≤ 20 ms per order. Each timing is the
median of repeated calls (after one warm-up call). In the same run, two
baselines are measured on the same inputs:

(i) a naive ``scipy.integrate.quad`` of p^α q^{1−α} over ``scipy.stats.ncx2.pdf``
    on [0, ∞), taking the integrand as 0 where p underflows (nested quad over
    ``ncx2.pdf`` × ``chi2.pdf`` for the finite release; the score with
    ``scipy.special.ive`` for Fisher information);
(ii) mpmath at 40 digits (tests/mpref.py), which is also the reference for
    every error column: the largest relative error over the checked orders.

Run by hand: ``.venv/bin/python benchmarks/bench_engine.py [--out PATH]``.
Writes a Markdown table (default docs/benchmarks/engine.md).

``--large`` times the large-amplitude rows of issue 12 (real data: c = C/σ ≈ 200,
a up to 1000) and its slow cases, engine alone, in one run: for each (d, a, b,
n_syn) one plateau order, one finite order (target: ≤ 20× the plateau order of
the same (α, d, a, b)), the finite release over 64 orders (target: ≤ 3× one
order) and the largest single call (target: ≤ 1 s); medians of 3 calls without
warm-up, wall clock and (steadier on a shared machine) CPU time of the process.
Accuracy at these points is a test (tests/test_large_amplitude.py), not a benchmark.

``--quick`` times the engine alone, without baselines or errors (seconds, not
minutes: for checking a speed change): the plateau over 64 orders and at one
order, the finite release over 64 orders, Fisher information and the exact
worst case of the accountant; medians of 7 calls (3 for the finite release and
the worst case) after a warm-up. It prints a Markdown table and writes it only
with ``--out``.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import mpmath
import numpy as np
import scipy
from scipy import integrate, special, stats

from _common import markdown_table, median_time, write_report
from synthamp import fisher_information, renyi_finite, renyi_plateau
from synthamp.accountant import worst_case_rdp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import mpref

ORDERS_64 = np.geomspace(1.01, 256.0, 64)
#: Orders of ORDERS_64 whose error is checked against mpmath (1.01, ~6, ~37, 256).
CHECKED = ORDERS_64[[0, 21, 42, 63]]


def timed_once(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def rel_error(values, refs) -> float:
    values = np.asarray(values, dtype=float)
    refs = np.asarray(refs, dtype=float)
    if not np.all(np.isfinite(values)):
        return math.nan
    return float(np.max(np.abs(values - refs) / refs))


# ---------------------------------------------------------------------------
# Naive scipy baselines
# ---------------------------------------------------------------------------


def _ncx2_pdf(x, dim, amp):
    return stats.ncx2.pdf(x, dim, amp * amp) if amp > 0 else stats.chi2.pdf(x, dim)


def naive_plateau(alphas, dim, a, b):
    """log ∫ p^α q^{1−α} / (α − 1) by adaptive quad over ncx2.pdf (docs/theory.md §4 traps)."""
    out = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for alpha in np.atleast_1d(alphas):

            def integrand(x, alpha=alpha):
                p = _ncx2_pdf(x, dim, a)
                # where p underflows the integrand is taken as 0 (not 0·inf = nan)
                return p**alpha * _ncx2_pdf(x, dim, b) ** (1 - alpha) if p > 0 else 0.0

            h, _ = integrate.quad(integrand, 0, np.inf, limit=200)
            out.append(math.log(h) / (alpha - 1) if h > 0 else math.nan)
    return np.array(out)


def naive_finite(alpha, dim, a, b, n):
    """Nested quad: p_S(s) = ∫ ncx2.pdf(y) chi2.pdf(s/y, n)/y dy, then the outer quad."""

    def density(s, amp):
        return np.float64(
            integrate.quad(
                lambda y: _ncx2_pdf(y, dim, amp) * stats.chi2.pdf(s / y, n) / y,
                0,
                np.inf,
                limit=100,
            )[0]
        )

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")

        def integrand(s):
            p = density(s, a)
            return p**alpha * density(s, b) ** (1 - alpha) if p > 0 else 0.0

        h, _ = integrate.quad(integrand, 0, np.inf, limit=100)
    return np.array([math.log(h) / (alpha - 1) if h > 0 else math.nan])


def naive_fisher(dim, theta):
    """E[(√X I_{d/2}/I_{d/2−1}(θ√X) − θ)²] by quad over ncx2.pdf, ratio by scipy's ive."""
    nu = dim / 2 - 1

    def integrand(x):
        z = theta * math.sqrt(x)
        score = math.sqrt(x) * special.ive(nu + 1, z) / special.ive(nu, z) - theta
        return score * score * _ncx2_pdf(x, dim, theta)

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return integrate.quad(integrand, 0, np.inf, limit=200)[0]


# ---------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{1e6 * seconds:.0f} µs"
    if seconds < 1.0:
        return f"{1e3 * seconds:.1f} ms"
    return f"{seconds:.1f} s"


def fmt_err(err: float) -> str:
    return "fails (nan/inf)" if not math.isfinite(err) else f"{err:.1e}"


def fmt_naive_err(values, refs) -> str:
    """Largest relative error where the naive quad is finite, and how often it is not."""
    values = np.asarray(values, dtype=float)
    refs = np.asarray(refs, dtype=float)
    finite = np.isfinite(values)
    if not finite.any():
        return "fails (nan/inf)"
    text = f"{np.max(np.abs(values[finite] - refs[finite]) / refs[finite]):.1e}"
    if not finite.all():
        text += f"; nan/inf at {int((~finite).sum())} of {finite.size} orders"
    return text


def bench_plateau(rows, configs):
    for dim, a, b in configs:
        ref, t_mp = timed_once(partial(mpref.renyi_plateau, list(CHECKED), dim, a, b))
        refs = ref.floats()
        # 64 orders
        value = renyi_plateau(ORDERS_64, dim, a, b)
        err = rel_error(value[[0, 21, 42, 63]], refs)
        t = median_time(partial(renyi_plateau, ORDERS_64, dim, a, b), 15)
        # the naive quad is too slow for 64 orders at large d: time 4 orders, scale by 16
        naive_values, naive_t4 = timed_once(partial(naive_plateau, CHECKED, dim, a, b))
        naive_err = fmt_naive_err(naive_values, refs)
        rows.append(
            [
                f"plateau, 64 orders, d={dim}, a={a:g}, b={b:g}",
                fmt_time(t),
                fmt_err(err),
                f"≈ {fmt_time(16 * naive_t4)} (16 × 4 orders)",
                naive_err,
                f"{fmt_time(t_mp)} (4 orders)",
                "≤ 10 ms",
                "yes" if t <= 0.010 else "**no**",
            ]
        )
        print(rows[-1], flush=True)
        # one order: α = 6.39 (a typical order) and α = 256 (the hardest checked one)
        for index in (1, 3):
            alpha = CHECKED[index]
            value = renyi_plateau(alpha, dim, a, b)
            err = rel_error(value, refs[index : index + 1])
            t = median_time(partial(renyi_plateau, alpha, dim, a, b), 30)
            naive_values, naive_t = timed_once(partial(naive_plateau, alpha, dim, a, b))
            naive_err = fmt_naive_err(naive_values, refs[index : index + 1])
            rows.append(
                [
                    f"plateau, 1 order (α={alpha:.3g}), d={dim}, a={a:g}, b={b:g}",
                    fmt_time(t),
                    fmt_err(err),
                    fmt_time(naive_t),
                    naive_err,
                    "—",
                    "≤ 1 ms",
                    "yes" if t <= 0.001 else "**no**",
                ]
            )
            print(rows[-1], flush=True)


def bench_finite(rows, configs):
    for alpha, dim, a, b, n in configs:
        ref, t_mp = timed_once(partial(mpref.renyi_finite, [alpha], dim, a, b, n))
        value = renyi_finite(alpha, dim, a, b, n)
        err = rel_error(value, ref.floats())
        t = median_time(partial(renyi_finite, alpha, dim, a, b, n), 9)
        if (alpha, dim, a, b, n) == configs[0]:  # the nested quad takes minutes: run once
            naive_value, naive_t = timed_once(partial(naive_finite, alpha, dim, a, b, n))
            naive = (fmt_time(naive_t), fmt_naive_err(naive_value, ref.floats()))
        else:
            naive = ("not run (minutes to hours)", "—")
        rows.append(
            [
                f"finite, 1 order (α={alpha:g}), d={dim}, a={a:g}, b={b:g}, n_syn={n}",
                fmt_time(t),
                fmt_err(err),
                *naive,
                fmt_time(t_mp),
                "≤ 20 ms",
                "yes" if t <= 0.020 else "**no**",
            ]
        )
        print(rows[-1], flush=True)


def bench_fisher(rows, configs):
    for dim, theta in configs:
        (ref, _), t_mp = timed_once(partial(mpref.fisher_information, dim, theta))
        value = fisher_information(dim, theta)
        err = rel_error([value], [float(ref)])
        t = median_time(partial(fisher_information, dim, theta), 30)
        naive_t = median_time(partial(naive_fisher, dim, theta), 3)
        naive_err = fmt_naive_err([naive_fisher(dim, theta)], [float(ref)])
        rows.append(
            [
                f"Fisher information, d={dim}, θ={theta:g}",
                fmt_time(t),
                fmt_err(err),
                fmt_time(naive_t),
                naive_err,
                fmt_time(t_mp),
                "—",
                "—",
            ]
        )
        print(rows[-1], flush=True)


def machine() -> str:
    try:
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(
            line.split(":", 1)[1].strip() for line in cpu.splitlines() if "Model name" in line
        )
        cores = next(
            line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("CPU(s)")
        )
        cpu_text = f"{model}, {cores} CPU(s)"
    except (OSError, subprocess.CalledProcessError, KeyError):
        cpu_text = platform.processor() or "unknown CPU"
    return (
        f"{cpu_text}; `{' '.join(platform.uname())}`; Python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, mpmath {mpmath.__version__}"
    )


def bench_quick() -> list[list[str]]:
    """The engine alone, median times only (the ``--quick`` table)."""
    rows = []

    def row(case, fn, repeats=7):
        rows.append([case, f"{1e3 * median_time(fn, repeats):.1f} ms"])
        print(rows[-1], flush=True)

    for dim, a, b in [(50, 2, 1.5), (1000, 4, 3.8), (10**5, 8, 7.6), (1, 2, 1)]:
        row(
            f"plateau, 64 orders, d={dim}, a={a}, b={b}",
            partial(renyi_plateau, ORDERS_64, dim, a, b),
        )
        row(
            f"plateau, 1 order (α=2), d={dim}, a={a}, b={b}",
            partial(renyi_plateau, [2.0], dim, a, b),
        )
    for dim, n in [(50, 1000), (1000, 100), (5, 10**4)]:
        row(
            f"finite, 64 orders, d={dim}, n_syn={n}, a=2, b=1.5",
            partial(renyi_finite, ORDERS_64, dim, 2, 1.5, n),
            repeats=3,
        )
    row("Fisher information, d=1000, θ=2", partial(fisher_information, 1000, 2.0))
    row(
        "exact worst case, 64 orders, d=1000, C/σ=4, Δ/σ=0.2, unlimited",
        partial(worst_case_rdp, ORDERS_64, 1000, 4, 0.2),
        repeats=3,
    )
    return rows


#: (d, a, b, n_syn) of the large-amplitude rows: a from 200 to 1000, a − b from 1e-3 to 10,
#: and the slow cases of issue 12 (d = 10, a = 100, b = 0, n_syn = 1; d = 20, c ≈ 206).
LARGE_CASES = [
    (20, 206.0169, 205.7696, 100_000),
    (20, 200.0, 199.999, 10),
    (20, 500.0, 490.0, 10_000),
    (10**4, 1000.0, 999.0, 10_000),
    (2, 1000.0, 999.9, 10**7),
    (10, 100.0, 0.0, 1),
]


def _timed(fn, repeats: int, warm_up: bool) -> tuple[float, float, float]:
    """(median wall time, median CPU time of this process, largest wall time) of calls."""
    if warm_up:
        fn()
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(walls), statistics.median(cpus), max(walls)


def bench_large() -> list[list[str]]:
    """Large amplitudes: plateau vs finite per order, 64 orders vs one, the largest call.

    Wall-clock medians (the targets) and, because the machine is shared, the same
    ratios from the CPU time of this process (steadier under load).
    """
    rows = []
    alpha = 2.0
    for dim, a, b, n in LARGE_CASES:
        t_plateau, c_plateau, _ = _timed(partial(renyi_plateau, [alpha], dim, a, b), 9, True)
        one = partial(renyi_finite, [alpha], dim, a, b, n)
        many = partial(renyi_finite, ORDERS_64, dim, a, b, n)
        t_one, c_one, worst_one = _timed(one, 3, False)
        t_many, c_many, worst_many = _timed(many, 3, False)
        worst = max(worst_one, worst_many)
        rows.append(
            [
                f"d={dim}, a={a:g}, b={b:g}, n_syn={n:,}",
                fmt_time(t_plateau),
                fmt_time(t_one),
                f"{t_one / t_plateau:.0f}" + ("" if t_one <= 20 * t_plateau else " **(> 20)**"),
                f"{c_one / c_plateau:.0f}",
                fmt_time(t_many),
                f"{t_many / t_one:.1f}" + ("" if t_many <= 3 * t_one else " **(> 3)**"),
                f"{c_many / c_one:.1f}",
                fmt_time(worst) + ("" if worst <= 1.0 else " **(> 1 s)**"),
            ]
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=None, help="default docs/benchmarks/engine.md")
    parser.add_argument(
        "--quick", action="store_true", help="engine timings only, no baselines (seconds)"
    )
    parser.add_argument(
        "--large", action="store_true", help="large-amplitude rows and slow cases (issue 12)"
    )
    args = parser.parse_args()

    if args.large:
        load_start = os.getloadavg()[0]
        large_rows = bench_large()
        header = [
            "case (α = 2 for one order)",
            "plateau, 1 order",
            "finite, 1 order",
            "ratio (≤ 20)",
            "ratio, CPU",
            "finite, 64 orders",
            "64 / 1 (≤ 3)",
            "64 / 1, CPU",
            "largest call (≤ 1 s)",
        ]
        lines = [
            "# Large amplitudes: the finite engine against the plateau (issue 12)",
            "",
            f"`benchmarks/bench_engine.py --large`. Date: {datetime.date.today().isoformat()}. "
            f"Machine: {machine()}; load average {load_start:.1f} at the start, "
            f"{os.getloadavg()[0]:.1f} at the end (the machine is shared by up to 5 "
            "engineers). Medians of 3 calls without warm-up (plateau: 9 calls after a "
            "warm-up), wall clock; the CPU columns are the same ratios from the CPU time of "
            "the benchmark's process, steadier on a loaded machine. Orders: 64 "
            "geometrically spaced from 1.01 to 256.",
            "",
            *markdown_table(header, large_rows),
            "",
        ]
        print("\n".join(lines))
        write_report(args.out or "docs/benchmarks/engine_large.md", lines)
        return

    if args.quick:
        lines = [
            "# Quick benchmark: the exact divergence engine",
            "",
            f"`benchmarks/bench_engine.py --quick`. Machine: {machine()}; load average "
            f"{os.getloadavg()[0]:.1f} at the end. Medians of 7 calls (3 for finite releases and "
            "the worst case) after a warm-up. Orders: 64 geometrically spaced from 1.01 to 256.",
            "",
            *markdown_table(["call", "median"], bench_quick()),
            "",
        ]
        print("\n".join(lines))
        if args.out:
            write_report(args.out, lines)
        return

    load_start = os.getloadavg()[0]
    rows: list[list[str]] = []
    bench_plateau(rows, [(50, 2.0, 1.5), (1, 1.0, 0.0), (1000, 10.0, 9.9), (10**6, 100.0, 99.999)])
    bench_finite(
        rows, [(2.0, 2, 3.0, 2.999, 10), (2.0, 10, 5.0, 4.0, 100), (2.0, 50, 2.0, 1.5, 1000)]
    )
    bench_fisher(rows, [(10, 2.0), (1000, 30.0), (10**6, 100.0)])

    header = [
        "case",
        "synthamp (median)",
        "synthamp rel. error",
        "naive scipy quad",
        "naive rel. error",
        "mpmath (40 digits)",
        "target",
        "met",
    ]
    lines = [
        "# Benchmark: the exact divergence engine",
        "",
        f"Date: {datetime.date.today().isoformat()}. Machine: {machine()}; load average "
        f"{load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (the machine is "
        "shared: times under load are inflated, errors are not).",
        "",
        "Produced by `benchmarks/bench_engine.py`. Times are medians of repeated calls after a "
        "warm-up (the naive baselines and mpmath: one to three calls). Errors are the largest "
        "relative error against mpmath at 40 digits (tests/mpref.py) over the orders "
        f"{', '.join(f'{x:.4g}' for x in CHECKED)} (64-order rows) or the order shown. "
        "a = ‖v‖/σ, b = ‖w‖/σ. 'fails' means the naive quad returned nan or inf (or 0, "
        "whose log is −inf).",
        "",
        *markdown_table(header, rows),
        "",
    ]
    write_report(args.out or "docs/benchmarks/engine.md", lines)


if __name__ == "__main__":
    main()
