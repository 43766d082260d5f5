"""The records' utility at the number of records written, and the best anchor (wine).

wine (scikit-learn ``load_wine``, m = 178), target = class − 1 (B = 1), ``random-seeds``
design (public seed 7), λ = 0.01, ε = 1, δ = 1e-5, one unlimited release accounted by the
exact profile, on the norm model (D = 10⁴) and on the Gram adjacency (as ``release
--design``; D = 10⁴ and 10⁶). For each:

- the median relative error of the debiased ‖v‖² from the records, simulated, at n → ∞
  (‖V‖² − Dσ², ‖V‖²/σ² ~ χ²_D(‖v‖²/σ²)) and at n = 10,000 records written (given V, the
  records' estimate of ‖V‖² is ‖V‖²·χ²_n/n);
- the report's Gram error (``synthamp.utility.release_utility``, at ‖v‖ = C) at n → ∞ (what
  the report said before) and at n = 10,000 (what it says now);
- the anchors at the same (ε, δ), median relative errors: the Gaussian and the Laplace
  mechanisms on Σyᵢ² (sensitivity B²) and on ‖v‖² (sensitivity s₂). Median |N(0, σ²)| is
  0.6745·σ, median |Laplace(b)| is b·log 2.

Run by hand: ``python benchmarks/bench_utility_at_n.py`` (prints a Markdown table).
"""

from __future__ import annotations

import math

import numpy as np

from synthamp.accountant import calibrate_sigma
from synthamp.accountant._laplace import laplace_calibration
from synthamp.accountant._pld import gaussian_sigma
from synthamp.design._designs import PublicDesign, design_bounds, design_model
from synthamp.utility import release_utility

EPSILON, DELTA, SEED, RIDGE, N_SYN = 1.0, 1e-5, 7, 1e-2, 10_000
MEDIAN_ABS = 0.6744897501960817  # median of |N(0, 1)|
DRAWS = 200_000


def records_errors(lam_v: float, sigma: float, width: int, rng) -> tuple[float, float]:
    """Median relative error of the debiased ‖v‖² at n → ∞ and at N_SYN records."""
    gram = sigma**2 * rng.noncentral_chisquare(width, lam_v / sigma**2, DRAWS)
    unlimited = np.abs(gram - width * sigma**2 - lam_v) / lam_v
    sampled = gram * rng.chisquare(N_SYN, DRAWS) / N_SYN
    at_n = np.abs(sampled - width * sigma**2 - lam_v) / lam_v
    return float(np.median(unlimited)), float(np.median(at_n))


def main() -> None:
    # heavy: scikit-learn, for the data set only
    from sklearn.datasets import load_wine

    _, target = load_wine(return_X_y=True)
    y = target - 1.0
    m, sum_y2 = y.size, float(np.sum(y**2))
    rng = np.random.default_rng(2026)
    gauss_1 = gaussian_sigma(EPSILON, DELTA, 1.0)
    laplace_1 = laplace_calibration(EPSILON, DELTA, 1.0).scale
    print(
        "| D | adjacency | σ | ‖v‖² | records n → ∞ | records n = 10,000 | report before (n → ∞) | "
        "report now (n = 10,000) | Gaussian Σy² | Laplace Σy² | Gaussian ‖v‖² (s₂) | "
        "Laplace ‖v‖² (s₂) |"
    )
    print("|" + "---|" * 12)
    for width, adjacencies in ((10**4, ("norm", "gram")), (10**6, ("gram",))):
        design = PublicDesign("random-seeds", width, m, SEED)
        kernel, norms = design.kernel()
        bounds = design_bounds(kernel, RIDGE, 1.0)
        model = design_model(design, y, bounds.dual, norms)
        lam_v = float(np.sum(model**2))
        del model
        c, s, s2 = bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity
        for adjacency in adjacencies:
            sigma = calibrate_sigma(
                EPSILON, DELTA, dim=width, norm_bound=c, sensitivity=s, accountant="pld",
                gram_sensitivity=s2 if adjacency == "gram" else None,
            ).sigma  # fmt: skip
            unlimited, at_n = records_errors(lam_v, sigma, width, rng)
            common = dict(epsilon=EPSILON, delta=DELTA, sigma=sigma, dim=width, out_dim=1)
            common |= dict(norm_bound=c, sensitivity=s, statistic_sensitivity=s2)
            before = release_utility(**common, n_syn=None)["gram_error"]
            now = release_utility(**common, n_syn=N_SYN)["gram_error"]
            numbers = [
                sigma, lam_v, unlimited, at_n, before, now,
                MEDIAN_ABS * gauss_1 / sum_y2, math.log(2) * laplace_1 / sum_y2,
                MEDIAN_ABS * gauss_1 * s2 / lam_v, math.log(2) * laplace_1 * s2 / lam_v,
            ]  # fmt: skip
            cells = [f"{width:g}", adjacency, *(f"{x:.4g}" for x in numbers)]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
