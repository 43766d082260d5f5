"""Benchmark: the records' error on the targets' Gram matrix against the anchors, k = 1, 2, 3, 13.

On an orthogonal public design (G = g·I, g = (1 + mλ)⁻², docs/theory.md §19) the model's Gram
is vᵀv = g·YᵀY, so the records estimate the targets' Gram YᵀY by the debiased Gram over g
(:func:`synthamp.release.debiased_gram`), with the exact RMSE of
:func:`synthamp.utility.records_gram_rmse` divided by g. σ is the release's own
(:func:`synthamp.design._release.account_design` under the Gram adjacency: the exact
k = 1 theorem, the certified reduction for k ≥ 2), at (ε, δ) = (1, 1e-5). Beside it, each
calibrated exactly at the same (ε, δ), on YᵀY (replace-one sensitivity B² for k = 1, √2·B²
for k ≥ 2, :func:`synthamp.utility.targets_gram_sensitivity`):

* Analyze Gauss (the Gaussian mechanism on YᵀY, :func:`synthamp.accountant._pld.gaussian_sigma`);
* the trace-shaped Gaussian (k ≥ 2, :func:`synthamp.utility.trace_shaped_gram_error`);
* the Laplace mechanism on the scalar YᵀY (k = 1, one release,
  :func:`synthamp.utility.laplace_statistic_error`);
* the Gaussian synthesizer (records from Analyze Gauss's matrix, a certified upper bound,
  :func:`synthamp.utility.gaussian_synthesizer_error`).

The records' error depends on the data through tr YᵀY (docs/theory.md §18): it is given at
three points, the floor (Y = 0: the noise alone, a lower bound for every Y), wine's own targets
(the first k of its 13 numeric columns, each mapped into [−1, 1] by its range and divided by
√k, so every row has norm ≤ B = 1; the range here is read from the data, a benchmark's
shortcut: a release takes public bounds) and the worst case (every row at norm B). m = 178
(wine), λ = 0.01, D = 10⁴, 10⁵, 10⁶; n → ∞ and n_syn = 10⁵ records.

Run: ``python benchmarks/bench_k_utility.py`` (~1 min on 2 idle cores; writes
docs/benchmarks/k_utility.md).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from synthamp.accountant._pld import gaussian_sigma
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.design._release import account_design
from synthamp.utility import (
    gaussian_synthesizer_error,
    laplace_statistic_error,
    records_gram_rmse,
    targets_gram_sensitivity,
    trace_shaped_gram_error,
    trace_shaped_sensitivity,
)

M, B, RIDGE = 178, 1.0, 0.01
EPSILON, DELTA = 1.0, 1e-5
WIDTHS = (10**4, 10**5, 10**6)
COLUMNS = (1, 2, 3, 13)
N_SYN = 100_000


def wine_targets(k: int) -> np.ndarray:
    """wine's first k numeric columns, each into [−1, 1] by its range, over √k (rows ≤ 1)."""
    from sklearn.datasets import load_wine

    x = load_wine().data[:, :k]
    lo, hi = x.min(axis=0), x.max(axis=0)
    return (2.0 * (x - lo) / (hi - lo) - 1.0) / math.sqrt(k)


def anchors(k: int) -> dict[str, float | None]:
    """RMSE (Frobenius) of each anchor on YᵀY at (ε, δ), n → ∞ (Analyze Gauss and trace-shaped)."""
    analyze_gauss = gaussian_sigma(EPSILON, DELTA, targets_gram_sensitivity(B, k)) * math.sqrt(
        k * (k + 1) / 2.0
    )
    trace = (
        trace_shaped_gram_error(
            EPSILON, DELTA, out_dim=k, trace_sensitivity=trace_shaped_sensitivity(B)
        )
        if k >= 2
        else None
    )
    laplace = (
        laplace_statistic_error(EPSILON, DELTA, statistic_sensitivity=B * B) if k == 1 else None
    )
    return {"analyze_gauss": analyze_gauss, "trace_shaped": trace, "laplace": laplace}


def records_errors(sigma: float, width: int, k: int, g: float, n_syn: int | None) -> list[float]:
    """The records' RMSE on YᵀY at the floor, on wine and at the worst case (every row at B)."""
    y = wine_targets(k)
    out = []
    for gram in (np.zeros((k, k)), y.T @ y, np.diag([M * B * B] + [0.0] * (k - 1))):
        rmse = records_gram_rmse(
            sigma=sigma, dim=width, out_dim=k, model_gram=g * gram, n_syn=n_syn
        )
        out.append(rmse / g)
    return out


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    bounds = orthogonal_bounds(M, RIDGE, B)
    g = bounds.gram_scale
    rows, ratios, seconds = [], [], time.perf_counter()
    for width in WIDTHS:
        for k in COLUMNS:
            accounted = account_design(
                bounds, width, k, EPSILON, DELTA, adjacency="gram", label_bound=B
            )
            sigma = accounted.sigma
            anchor = anchors(k)
            ag = anchor["analyze_gauss"]
            inf = records_errors(sigma, width, k, g, None)
            at_n = records_errors(sigma, width, k, g, N_SYN)
            synth = gaussian_synthesizer_error(
                ag, out_dim=k, gram_norm_bound=M * B * B, n_syn=N_SYN
            )
            ratios.append((width, k, *(e / ag for e in inf)))
            rows.append([
                f"{width:.0e}", str(k), f"{sigma:.4g}", str(accounted.guarantee.kind),
                *(f"{e:.4g}" for e in inf), f"{ag:.4g}",
                "—" if anchor["trace_shaped"] is None else f"{anchor['trace_shaped']:.4g}",
                "—" if anchor["laplace"] is None else f"{anchor['laplace']:.4g}",
                *(f"{e / ag:.4f}" for e in inf),
                f"{at_n[1]:.4g}", f"{synth:.4g}",
            ])  # fmt: skip
    header = [
        "D", "k", "σ", "kind", "records floor", "records wine", "records worst",
        "Analyze Gauss", "trace-shaped", "Laplace", "floor / AG", "wine / AG", "worst / AG",
        f"records wine n = {N_SYN:,}", f"Gaussian synthesizer n = {N_SYN:,}",
    ]  # fmt: skip
    at_million = [r for r in ratios if r[0] == 10**6]
    met = all(r[3] <= 1.05 for r in at_million)
    lines = [
        "# The records' error on the targets' Gram against the anchors (k = 1, 2, 3, 13)",
        "",
        f"`python benchmarks/bench_k_utility.py`; {time.strftime('%Y-%m-%d')}, "
        f"{machine_summary()}; {time.perf_counter() - seconds:.0f} s.",
        "",
        f"Orthogonal design, m = {M} (wine), B = {B:g}, λ = {RIDGE:g}, (ε, δ) = ({EPSILON:g}, "
        f"{DELTA:g}). RMSE (Frobenius) of the estimate of YᵀY, n → ∞ unless a column says n; "
        "the records' error at the floor (Y = 0), on wine's first k columns (scaled into the "
        "unit ball) and at the worst case (every row at norm B). σ is the release's (the "
        "exact k = 1 Gram adjacency, the certified reduction for k ≥ 2).",
        "",
        *markdown_table(header, rows),
        "",
        "Target (D = 10⁶, n → ∞, records within 1.05× of Analyze Gauss for k = 1, 2, 3, 13), "
        "on wine's targets: " + ("met" if met else "NOT met") + " ("
        + ", ".join(f"k = {r[1]}: {r[3]:.4f}" for r in at_million) + "); at the worst case "
        + ", ".join(f"k = {r[1]}: {r[4]:.4f}" for r in at_million) + ".",
    ]  # fmt: skip
    write_report("docs/benchmarks/k_utility.md", lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
