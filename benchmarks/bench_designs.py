"""Wide public designs on wine: norm adjacency against Gram adjacency (issue 24, items 2–3).

wine (scikit-learn ``load_wine``, m = 178), target = class − 1 ∈ {−1, 0, 1} (B = 1),
``random-seeds`` design of width D (public seed 7), ε = 1, δ = 1e-5, unlimited release.
For each D: Δ, C, s₂ (``synthamp.design._designs``), σ calibrated under the norm model
(C, Δ) and under the statistic-level adjacency (C, Δ, s₂; docs/gram-adjacency.md), by the
RDP accountant and by the exact privacy profile (PLD accountant, one release), and the
median relative error of the debiased second moment ‖V‖² − Dσ² against ‖v‖² (simulated:
‖V‖²/σ² ~ χ²_D(‖v‖²/σ²), 2·10⁵ draws), beside Analyze Gauss at the same (ε, δ): the
Gaussian mechanism on Σyᵢ² (sensitivity B², docs/theory.md §18), on ‖v‖² with sensitivity
min(2CΔ, C²) (``synthamp.utility.gaussian_gram_sigma``) and on ‖v‖² with sensitivity s₂.
Median |error| of a Gaussian: 0.6745·σ_G. Time and peak memory (ru_maxrss) of the design
bounds per width.

``--design orthogonal``: the same rows on the orthogonal design (seed rows orthonormal,
G = g·I exactly; closed-form bounds, ‖v‖² = g·Σyᵢ² on every such design, no m × m work),
at D = 10⁴, 10⁵, 10⁶ (default output docs/benchmarks/designs_orthogonal.md).

Run by hand: ``python benchmarks/bench_designs.py [--design NAME] [--out PATH]`` (writes a
Markdown table, default docs/benchmarks/designs.md).
"""

from __future__ import annotations

import argparse
import datetime
import resource
import time

import numpy as np

from _common import machine_summary, write_report
from synthamp.accountant import calibrate_sigma
from synthamp.accountant._pld import gaussian_sigma
from synthamp.design._designs import PublicDesign, design_bounds, design_model
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.utility import gaussian_gram_sigma

EPSILON, DELTA, SEED = 1.0, 1e-5, 7
MEDIAN_ABS = 0.6744897501960817  # median of |N(0, 1)|
WIDTHS = ((2000, 1e-3), (2000, 1e-2), (10**4, 1e-2), (10**5, 1e-2), (10**6, 1e-2))
ORTHOGONAL_WIDTHS = ((10**4, 1e-2), (10**5, 1e-2), (10**6, 1e-2))


def records_error(lam_v: float, sigma: float, width: int, rng: np.random.Generator) -> float:
    """Median of |‖V‖² − Dσ² − ‖v‖²|/‖v‖² over draws of ‖V‖²/σ² ~ χ²_D(‖v‖²/σ²)."""
    draws = sigma**2 * rng.noncentral_chisquare(width, lam_v / sigma**2, 200_000)
    return float(np.median(np.abs(draws - width * sigma**2 - lam_v)) / lam_v)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--design", default="random-seeds", choices=("random-seeds", "orthogonal"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    orthogonal = args.design == "orthogonal"
    out = args.out or f"docs/benchmarks/designs{'_orthogonal' if orthogonal else ''}.md"
    # heavy: scikit-learn, for the data set only
    from sklearn.datasets import load_wine

    _, target = load_wine(return_X_y=True)
    y = target - 1.0
    m = y.size
    rng = np.random.default_rng(2026)
    ag_sum = MEDIAN_ABS * gaussian_sigma(EPSILON, DELTA, 1.0) / float(np.sum(y**2))
    lines = [
        "| D | λ | time (s) | peak RSS (MB) | Δ | C | s₂ | s₂ (§19) | 2CΔ/s₂ | σ norm RDP | "
        "σ Gram RDP | σ norm PLD | σ Gram PLD | err norm | err Gram RDP | err Gram PLD | "
        "AG ‖v‖² (2CΔ) | AG ‖v‖² (s₂) | AG Σy² | Gram PLD / AG Σy² |",
        "|" + "---|" * 20,
    ]
    for width, ridge in ORTHOGONAL_WIDTHS if orthogonal else WIDTHS:
        start = time.perf_counter()
        if orthogonal:  # closed forms; ‖v‖² = g·Σyᵢ² on every orthonormal design
            bounds = orthogonal_bounds(m, ridge, 1.0)
            lam_v = bounds.gram_scale * float(np.sum(y**2))
        else:
            design = PublicDesign("random-seeds", width, m, SEED)
            bounds = design_bounds(design, ridge, 1.0)  # certified (release._design_gram)
            model = design_model(design, y, bounds.dual, bounds.norms)
            lam_v = float(np.sum(model**2))
            del model
        elapsed = time.perf_counter() - start
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
        c, s, s2 = bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity
        common = dict(dim=width, norm_bound=c, sensitivity=s)
        sig = {
            (acc, gram): calibrate_sigma(
                EPSILON, DELTA, **common, accountant=acc, gram_sensitivity=s2 if gram else None
            ).sigma
            for acc in ("rdp", "pld")
            for gram in (False, True)
        }
        err_norm = records_error(lam_v, sig["pld", False], width, rng)
        err_rdp = records_error(lam_v, sig["rdp", True], width, rng)
        err_pld = records_error(lam_v, sig["pld", True], width, rng)
        ag_norm = MEDIAN_ABS * gaussian_gram_sigma(EPSILON, DELTA, norm_bound=c, sensitivity=s)
        ag_s2 = MEDIAN_ABS * gaussian_sigma(EPSILON, DELTA, s2)
        row = [
            width, ridge, elapsed, rss, s, c, s2, bounds.gram_sensitivity_theory, 2 * c * s / s2,
            sig["rdp", False], sig["rdp", True], sig["pld", False], sig["pld", True],
            err_norm, err_rdp, err_pld, ag_norm / lam_v, ag_s2 / lam_v, ag_sum, err_pld / ag_sum,
        ]  # fmt: skip
        lines.append("| " + " | ".join(f"{x:.4g}" for x in row) + " |")
        print(lines[-1], flush=True)
    head = [
        f"# Wide public designs on wine (`python benchmarks/bench_designs.py --design "
        f"{args.design}`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}. Time: "
        + ("the closed-form bounds" if orthogonal else "design kernel, bounds and model")
        + " (wall, shared machine); peak RSS of the whole process. σ by the RDP accountant and "
        "by the exact profile (PLD, one release); errors: median relative error of the "
        "debiased second moment (norm: PLD σ); AG: Analyze Gauss, median relative error. "
        "See docs/gram-adjacency.md.",
        "",
    ]
    write_report(out, head + lines + [""])


if __name__ == "__main__":
    main()
