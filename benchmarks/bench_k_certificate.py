"""Benchmark: the certified k ≥ 2 accountant on public designs (docs/theory.md §20).

For wine's shape (m = 178 records, B = 1, λ = 1e-2, k = 2) at widths D = 2,000 and
10⁴, on a random-seeds design (rows uniform on the unit sphere, public seed 0) and on
an orthogonal design (G = g·I): c*, the realised pair's norm, and the σ meeting
(ε, δ) = (1, 1e-5) by

* the orthogonal node's PLD (the angle theorem; the guarantee, certified),
* the angle grid (no monotonicity; RDP),
* post-processing (Gaussian mechanism with Δ),
* Theorem 5.4 (the norm model, C and Δ of the design; ``method="global"``),
* the realised pair's lower bound (the smallest σ it allows: below it the release is
  provably not (ε, δ)-DP),

with the wall time of one accounting at fixed σ per route and of each calibration.
Run: ``python benchmarks/bench_k_certificate.py`` (~2 min on 2 idle cores; writes
docs/benchmarks/k_certificate.md).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from synthamp.accountant import (
    PublicDesignRelease,
    account_certified,
    calibrate_certified,
    calibrate_sigma,
    orthogonal_node_pld,
)
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.accountant._pld import gaussian_sigma
from synthamp.design._designs import design_bounds

M, B, RIDGE, K = 178, 1.0, 1e-2, 2
EPSILON, DELTA = 1.0, 1e-5


def _random_seeds(width: int, seed: int = 0) -> tuple[np.ndarray, float]:
    """(G, C) of a random-seeds design (rows uniform on the unit sphere of R^D)."""
    x = np.random.default_rng(seed).standard_normal((M, width))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    bounds = design_bounds(x @ x.T, RIDGE, B)
    return bounds.gram, bounds.norm_bound


def _orthogonal() -> tuple[np.ndarray, float]:
    """(G, C) of an orthogonal design: G = g·I, ‖M‖_op = 1/(1 + mλ)."""
    g = (1 + M * RIDGE) ** -2
    return g * np.eye(M), B * math.sqrt(M) / (1 + M * RIDGE)


def _lower_sigma(release: PublicDesignRelease) -> float:
    """The largest σ (to 1e-3) at which the realised pair's lower ε still exceeds ε."""

    def too_small(sigma: float) -> bool:
        pld = orthogonal_node_pld(release.dim, release.realised_norm, sigma, discretization=1e-3)
        return pld.epsilon_lower(DELTA) > EPSILON

    lo, hi = release.realised_norm / 100, release.realised_norm * 100
    while hi / lo > 1.001:
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if too_small(mid) else (lo, mid)
    return lo


def _row(name: str, width: int, gram: np.ndarray, norm_bound: float) -> list[str]:
    release = PublicDesignRelease.from_gram(gram, B, width, K, sigma=1.0)
    start = time.perf_counter()
    node = calibrate_certified(release, EPSILON, DELTA)
    t_node_cal = time.perf_counter() - start
    start = time.perf_counter()
    grid = calibrate_certified(release, EPSILON, DELTA, route="grid")
    t_grid_cal = time.perf_counter() - start
    at = release.with_sigma(node.sigma)
    start = time.perf_counter()
    account_certified(at, DELTA)
    t_node = time.perf_counter() - start
    start = time.perf_counter()
    checked = account_certified(at, DELTA, route="grid")
    t_grid = time.perf_counter() - start
    sigma_post = gaussian_sigma(EPSILON, DELTA, release.sensitivity)
    thm54 = calibrate_sigma(
        EPSILON, DELTA, dim=width, out_dim=K, norm_bound=norm_bound,
        sensitivity=release.sensitivity, method="global", accountant="rdp",
    )  # fmt: skip
    sigma_lower = _lower_sigma(release)
    assert gaussian_epsilon(DELTA, release.sensitivity, sigma_post) <= EPSILON
    return [
        name,
        f"{width:,}",
        f"{release.canonical_norm:.4f} / {release.realised_norm:.4f}",
        f"{node.sigma:.4f}",
        f"{grid.sigma:.4f}",
        f"{sigma_post:.3f}",
        f"{thm54.sigma:.3f}",
        f"{sigma_lower:.4f}",
        f"{node.certified_over_lower:.3f}",
        f"{np.max(checked.certificate.overhead):.4f}",
        f"{t_node:.2f} / {t_grid:.2f}",
        f"{t_node_cal:.1f} / {t_grid_cal:.1f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/k_certificate.md")
    parser.add_argument("--widths", default="2000,10000")
    args = parser.parse_args()
    rows = []
    for width in (int(w) for w in args.widths.split(",")):
        rows.append(_row("random seeds", width, *_random_seeds(width)))
        print(rows[-1], flush=True)
        rows.append(_row("orthogonal", width, *_orthogonal()))
        print(rows[-1], flush=True)
    header = [
        "design", "D", "c* / realised", "σ node (guarantee)", "σ grid", "σ post-proc.",
        "σ Thm 5.4", "σ lower bound", "ε / ε_lower at σ node", "grid / node RDP",
        "account s (node / grid)", "calibrate s (node / grid)",
    ]  # fmt: skip
    head = [
        "# The certified k ≥ 2 accountant on public designs",
        "",
        f"wine's shape: m = {M}, B = {B:g}, λ = {RIDGE:g}, k = {K}, (ε, δ) = ({EPSILON:g}, "
        f"{DELTA:g}); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"{machine_summary()}.",
        "",
    ]
    write_report(args.out, head + markdown_table(header, rows) + [""])


if __name__ == "__main__":
    main()
