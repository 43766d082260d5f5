"""Speed and tightness of the exact privacy profile and the PLD accountant (issue 13).

Targets: one exact ε(δ) for k = 1 unlimited <= 200 ms; the PLD of one release
<= 1 s; a T = 100 composition <= 1 s; a calibration by PLD <= 5 s. Medians of
repeated runs; the baseline is the RDP accountant on the same release in the
same run (``compute_epsilon`` / ``calibrate_sigma``, method "exact").
Then the ε saved against RDP on a table of settings (d, Δ, T).

Run by hand: ``python benchmarks/bench_pld.py [--out PATH] [--quick]``.
Writes a Markdown report (default docs/benchmarks/pld.md).
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp.accountant import (
    OrderGridWarning,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
)
from synthamp.accountant._pld import compute_epsilon_pld, privacy_loss_distribution
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.accountant._profile import profile_epsilon

DELTA = 1e-5


def _rdp_epsilon(release: SyntheticDataRelease) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        return compute_epsilon(release, DELTA, accountant="rdp").epsilon


def bench_speed(rows: list[list[str]], repeats: int) -> None:
    single = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)
    wide = SyntheticDataRelease(10**4, 1, 20.0, 1.0, 1.0)
    cases = [
        (
            "exact ε(δ), d=100, k=1, unlimited",
            partial(profile_epsilon, single, DELTA),
            partial(_rdp_epsilon, single),
            "≤ 200 ms",
        ),
        (
            "exact ε(δ), d=10^4, k=1, unlimited",
            partial(profile_epsilon, wide, DELTA),
            partial(_rdp_epsilon, wide),
            "≤ 200 ms",
        ),
        (
            "PLD of one release (h = 1e-4), d=100",
            partial(privacy_loss_distribution, single),
            partial(_rdp_epsilon, single),
            "≤ 1 s",
        ),
    ]
    pld = privacy_loss_distribution(single)
    composed = single.__class__(100, 1, 2.0, 0.5, 0.7458, releases=100)
    cases.append(
        (
            "T = 100 composition of that PLD (FFT, with the lower companion)",
            partial(pld.self_compose, 100),
            partial(_rdp_epsilon, composed),
            "≤ 1 s",
        )
    )
    cases.append(
        (
            "ε by PLD, T = 100 (profile + composition)",
            partial(compute_epsilon_pld, composed, DELTA),
            partial(_rdp_epsilon, composed),
            "—",
        )
    )
    calib = {"dim": 100, "norm_bound": 2.0, "sensitivity": 0.5}
    cases.append(
        (
            "calibration by PLD ε=1, δ=1e-5, d=100, T=1",
            partial(calibrate_sigma_pld, 1.0, DELTA, **calib),
            partial(calibrate_sigma, 1.0, DELTA, **calib),
            "≤ 5 s",
        )
    )
    calib10 = {**calib, "releases": 10}
    cases.append(
        (
            "calibration by PLD ε=1, δ=1e-5, d=100, T=10",
            partial(calibrate_sigma_pld, 1.0, DELTA, **calib10),
            partial(calibrate_sigma, 1.0, DELTA, **calib10),
            "≤ 5 s",
        )
    )
    for label, fn, baseline, target in cases:
        t = median_time(fn, repeats)
        t_base = median_time(baseline, repeats)
        rows.append(
            [label, f"{1e3 * t:.0f} ms", f"{1e3 * t_base:.0f} ms", f"{t / t_base:.2f}", target]
        )
        print(rows[-1])


def bench_saving(rows: list[list[str]], quick: bool) -> None:
    dims = (10, 1000) if quick else (10, 100, 1000, 10**4)
    for dim in dims:
        for sensitivity in (0.25, 1.0):
            for releases in (1, 10, 100):
                release = SyntheticDataRelease(dim, 1, 2.0, sensitivity, 1.0, releases=releases)
                pld = compute_epsilon_pld(release, DELTA)
                rdp = _rdp_epsilon(release)
                rows.append(
                    [
                        f"{dim}",
                        f"{sensitivity:g}",
                        f"{releases}",
                        f"{rdp:.4f}",
                        f"{pld.epsilon:.4f}",
                        f"{pld.discretization_error:.1e}",
                        f"{100 * (1 - pld.epsilon / rdp):.1f}%",
                    ]
                )
                print(rows[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/pld.md")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and settings")
    args = parser.parse_args()
    speed: list[list[str]] = []
    bench_speed(speed, 3 if args.quick else 5)
    saving: list[list[str]] = []
    bench_saving(saving, args.quick)
    lines = [
        "## Privacy profile and PLD accountant (`benchmarks/bench_pld.py`)",
        "",
        f"Machine: {machine_summary()}. Medians of repeated runs; baseline: the RDP "
        "accountant (method exact) on the same release in the same run.",
        "",
        *markdown_table(["case", "median", "baseline (RDP)", "ratio", "target"], speed),
        "",
        "### ε saved against RDP (C = 2, σ = 1, δ = 1e-5, h = 1e-4)",
        "",
        "`error` is ε − ε_lower, the bound on the discretisation error of the PLD ε.",
        "",
        *markdown_table(["d", "Δ", "T", "ε (RDP)", "ε (PLD)", "error", "saved"], saving),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
