"""Speed of the PLD composition of T releases against prv_accountant and dp_accounting.

Targets: at T = 1000, ε by PLD in <= 1× prv_accountant's time and <= 0.5×
dp_accounting's, in the same run; ``compute_epsilon`` at T = 10⁹ within its
time budget (a sound fallback named in the output when the PLD cannot finish).

Cases (δ = 1e-5):

* the Gaussian mechanism of sensitivity 1 and σ = √T / μ₁ (μ = 1 composed), in
  all three accountants natively: synthamp's ``compute_epsilon_pld(GaussianRelease)``
  (h = 1e-4, with its lower companion), dp_accounting's
  ``from_gaussian_mechanism(σ, value_discretization_interval=1e-4).self_compose(T)``
  and prv_accountant's ``PRVAccountant(GaussianMechanism(σ), eps_error=0.01)``;
* a k = 1 synthetic data release (d = 100, C = 2, Δ = 0.5, σ scaled as √T):
  synthamp's ``compute_epsilon_pld`` against dp_accounting composing the same
  connect-the-dots PMFs (``to_dp_accounting_pld``, which builds the same grid);
* the repeated squaring the FFT power replaced (``compose`` 2·log₂T times) on
  the Gaussian's PLD, for the record.

Times are medians of CPU time (``time.process_time``: the machine is shared),
the three accountants interleaved in one run. Run by hand:
``python benchmarks/bench_composition.py [--out PATH] [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from functools import partial

from _common import machine_summary, markdown_table, median_time, write_report
from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._pld import compute_epsilon_pld, privacy_loss_distribution

DELTA = 1e-5
H = 1e-4


def _synthamp(release) -> float:
    return compute_epsilon_pld(release, DELTA, discretization=H).epsilon


def _dp_gaussian(sigma: float, releases: int) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pld

    composed = pld.from_gaussian_mechanism(sigma, value_discretization_interval=H)
    return composed.self_compose(releases).get_epsilon_for_delta(DELTA)


def _prv_gaussian(sigma: float, releases: int) -> float:
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import GaussianMechanism

    accountant = PRVAccountant(
        prvs=[GaussianMechanism(sigma)],
        max_self_compositions=[releases],
        eps_error=0.01,
        delta_error=DELTA / 1000,
    )
    return accountant.compute_epsilon(delta=DELTA, num_self_compositions=[releases])[2]


def _dp_release(release: SyntheticDataRelease) -> float:
    from synthamp.accountant import to_dp_accounting_pld

    return to_dp_accounting_pld(release, discretization=H).get_epsilon_for_delta(DELTA)


def _squaring(release) -> float:
    """The repeated squaring of the previous version (compose 2·log₂T times)."""
    single = privacy_loss_distribution(GaussianRelease(release.sensitivity, release.sigma))
    count, result, power = release.releases, None, single
    while True:
        if count & 1:
            result = power if result is None else result.compose(power)
        count >>= 1
        if not count:
            return result.epsilon(DELTA)
        power = power.compose(power)


def bench_speed(rows: list[list[str]], counts: tuple[int, ...], repeats: int) -> None:
    clock = time.process_time
    for releases in counts:
        sigma = math.sqrt(releases)  # μ = √T/σ = 1 composed
        gaussian = GaussianRelease(1.0, sigma, releases)
        ours = compute_epsilon_pld(gaussian, DELTA, discretization=H)
        cases = [
            ("synthamp (FFT power)", partial(_synthamp, gaussian), ours.epsilon),
            ("synthamp, repeated squaring (before)", partial(_squaring, gaussian), None),
            ("dp_accounting", partial(_dp_gaussian, sigma, releases), None),
            ("prv_accountant (eps_error 0.01)", partial(_prv_gaussian, sigma, releases), None),
        ]
        times = {}
        for label, fn, _ in cases:
            times[label] = median_time(fn, repeats, clock=clock)
        t_ours = times[cases[0][0]]
        for label, fn, _ in cases:
            rows.append(
                [
                    f"Gaussian, T = {releases:,}",
                    label,
                    f"{fn():.6f}",
                    f"{1e3 * times[label]:.1f} ms",
                    f"{t_ours / times[label]:.2f}",
                ]
            )
            print(rows[-1])
        rows.append(
            [f"Gaussian, T = {releases:,}", "synthamp error bound ε − ε_lower", "",
             f"{ours.epsilon - ours.epsilon_lower:.2e}", ""]
        )  # fmt: skip
    for releases in counts:
        sigma = 0.7458 * math.sqrt(releases)
        release = SyntheticDataRelease(100, 1, 2.0, 0.5, sigma, releases=releases)
        cases = [
            ("synthamp (FFT power)", partial(_synthamp, release)),
            ("dp_accounting (same PMFs, our grid)", partial(_dp_release, release)),
        ]
        times = [median_time(fn, repeats, clock=clock) for _, fn in cases]
        for (label, fn), t in zip(cases, times, strict=True):
            rows.append(
                [
                    f"release d=100, T = {releases:,}",
                    label,
                    f"{fn():.6f}",
                    f"{1e3 * t:.1f} ms",
                    f"{times[0] / t:.2f}",
                ]
            )
            print(rows[-1])


def bench_huge(rows: list[list[str]]) -> None:
    """``compute_epsilon`` (the rule, default budget 10 s) at T = 10⁹, wall clock."""
    for sigma in (2.0e4, 2.0e3, 20.0):
        release = SyntheticDataRelease(100, 1, 2.0, 0.5, sigma, releases=10**9)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            guarantee = compute_epsilon(release, DELTA)
        wall = time.perf_counter() - start
        rows.append(
            [
                f"σ = {sigma:g}",
                f"{guarantee.epsilon:.6g}",
                guarantee.accountant,
                f"{wall:.1f} s",
                guarantee.pld_fallback or "—",
            ]
        )
        print(rows[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/composition.md")
    parser.add_argument("--quick", action="store_true", help="T = 1000 only, fewer repeats")
    args = parser.parse_args()
    counts = (1000,) if args.quick else (10, 100, 1000, 10**4)
    speed: list[list[str]] = []
    bench_speed(speed, counts, 5 if args.quick else 7)
    huge: list[list[str]] = []
    bench_huge(huge)
    lines = [
        "## Composition of T releases (`benchmarks/bench_composition.py`)",
        "",
        f"Machine: {machine_summary()}. Medians of CPU time, δ = 1e-5, h = 1e-4, "
        "all accountants in the same run; `ratio` is synthamp's time over the row's.",
        "",
        *markdown_table(["case", "accountant", "ε", "median", "ratio"], speed),
        "",
        "### `compute_epsilon` at T = 10⁹ (d = 100, C = 2, Δ = 0.5; wall clock, budget 10 s)",
        "",
        *markdown_table(["σ", "ε", "accountant", "wall", "fallback"], huge),
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
