"""synthamp's finite-n engine beside the Gaussian-mixing bound of Lev et al. (NeurIPS 2025).

**Their bound, as published in their code** (Lev, Srinivasan, Shenfeld, Ligett, Sekhari and
Wilson, "The Gaussian Mixing Mechanism: Renyi Differential Privacy via Gaussian Sketches",
NeurIPS 2025, arXiv:2505.24603). The paper's own text was not in the reference corpus this
comparison could search; the formula below is read from the authors' public code
(github.com/omrilev1/GaussMix: ``AnalyticalAnalysis_GaussMix_Renyi.ipynb``, the cell titled
"our analysis (lemma 1)", and ``utils_linear_mixing.py``, ``objective_func``). Their
mechanism releases k Gaussian sketch rows, each N(0, AᵀA + σ²I) in effect (S·A plus
Gaussian noise, S a k × n standard Gaussian matrix); one added row a changes AᵀA by aaᵀ.
With γ = (λ_min(AᵀA) + σ²)/‖a‖²_max (their x-axis "λ̄_min + σ²", rows normalised), their
Lemma 1 as coded is, for 1 < α < γ,

    ε_RDP(α) = k/(2(α − 1)) · log( (1 − 1/γ)^α / (1 − α/γ) ),                  (L1)

converted to (ε, δ) by their Proposition 1 (the conversion of Canonne, Kamath and Steinke
2020): ε = min_α ε_RDP(α) + log(1 − 1/α) − log(δα)/(α − 1)       (P1, as in their notebook).

(L1) is k·D_α(N(0, γ)‖N(0, γ − 1)) exactly (checked below at every point), the Rényi
divergence of the worst rank-one direction: with the row (variance γ along it) against
without (γ − 1). So their RDP is exact for that pair; the looseness is in (P1).

**The comparison on their settings** (their Figure 1 notebook: n = 10⁴ data rows, d = 100,
k = 1.5·d = 150 sketch rows, δ = 1/n² = 1e-8; γ over their range):

* ``Lev et al.``: (L1) then (P1), minimised over a fine grid of α in (1, γ);
* ``exact (same pair)``: the exact ε(δ) of their worst pair, γ·χ²_k against (γ − 1)·χ²_k in
  both directions, from its privacy profile in closed form (the log-likelihood ratio is
  monotone in the sketch's squared norm along the direction: two χ²_k tails per ε; the
  threshold form of docs/theory.md §14), solved for ε by bisection;
* ``synthamp finite-n``: synthamp's exact k = 1 engine for its own mechanism with n_syn = k
  records, :func:`synthamp.divergence.renyi_finite` D_α(Y_a X‖Y_b X) (Y ~ χ²_D(·), X ~ χ²_k)
  at the pair whose hidden Gram has the same ratio, a² = D/(γ − 1), b = 0, in both
  directions, converted by the same (P1) over synthamp's orders: synthamp's records are a
  Gaussian sketch of a *random* Gram (‖V‖², noncentral χ²), theirs of a fixed one; as
  D → ∞ the former tends to the latter.

Run by hand: ``python benchmarks/bench_gaussian_mixing.py`` (a few minutes on 2 cores;
writes docs/benchmarks/gaussian_mixing.md).
"""

from __future__ import annotations

import argparse
import datetime
import math
import time

import numpy as np
from scipy import optimize, stats

from _common import machine_summary, markdown_table, write_report
from synthamp.accountant import rdp_to_epsilon
from synthamp.divergence import renyi_finite

#: Their Figure 1 settings (AnalyticalAnalysis_GaussMix_Renyi.ipynb).
N_DATA, D_DATA = 10_000, 100
SKETCH = int(1.5 * D_DATA)  # k = 150
DELTA = 1.0 / N_DATA**2  # 1e-8
GAMMAS = (2.0, 5.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0)
#: synthamp's widths for its own mechanism with the matched Gram ratio.
WIDTHS = (10_000, 1_000_000)
#: The orders of synthamp's engine (the same orders convert their (L1) in the column "Lev et al.
#: on these orders", so that the conversion's grid is not what differs). Orders above 256 are
#: beyond the range the finite engine is tested at against mpmath; they carry the engine's own
#: error estimates (added to the values), and small ε at δ = 1e-8 needs them.
SYNTHAMP_ORDERS = np.geomspace(1.02, 20_000.0, 60)
ORDERS = np.concatenate([np.linspace(1.01, 2.0, 100), np.geomspace(2.0, 10_000.0, 400)[1:]])


def lev_rdp(alpha, k: int, gamma: float):
    """Their Lemma 1 as coded, (L1) of the module docstring: ε_RDP(α), 1 < α < γ (inf beyond).

    Theirs (Lev et al. 2025, arXiv:2505.24603; omrilev1/GaussMix), not synthamp's.
    """
    alpha = np.asarray(alpha, dtype=float)
    out = np.full(alpha.shape, np.inf)
    ok = (alpha > 1) & (alpha < gamma)
    a = alpha[ok]
    out[ok] = k / (2 * (a - 1)) * (a * np.log1p(-1 / gamma) - np.log1p(-a / gamma))
    return out


def lev_epsilon(k: int, gamma: float, delta: float) -> float:
    """Their (ε, δ): (L1) converted by their Proposition 1 (P1), min over fine α in (1, γ)."""
    top = min(gamma, 1e6)
    alpha = np.unique(np.concatenate([
        np.geomspace(1.0 + 1e-4, min(2.0, top), 20_000)[:-1],
        np.linspace(min(2.0, top), top, 20_000)[:-1] if top > 2.0 else [],
    ]))  # fmt: skip
    eps = lev_rdp(alpha, k, gamma) + np.log1p(-1 / alpha) - np.log(delta * alpha) / (alpha - 1)
    return float(np.min(eps))


def gaussian_variance_rdp(alpha: float, k: int, gamma: float) -> float:
    """k·D_α(N(0, γ)‖N(0, γ − 1)), the textbook formula for two centred Gaussians, in mpmath
    (50 digits: the independent check of (L1))."""
    import mpmath  # the reference's precision, for the check only

    with mpmath.workdps(50):
        a, s1, s2 = mpmath.mpf(alpha), mpmath.mpf(gamma), mpmath.mpf(gamma) - 1
        mix = a * s2 + (1 - a) * s1
        return float(k * (mpmath.log(s2 / s1) / 2 + mpmath.log(s2 / mix) / (2 * (a - 1))))


def exact_delta(eps: float, k: int, gamma: float) -> float:
    """δ(ε) of the pair γχ²_k vs (γ − 1)χ²_k, the larger of the two directions (closed form)."""
    # log p/q at t: (k/2) log((γ − 1)/γ) + t (1/(γ − 1) − 1/γ)/2, increasing in t
    slope = (1 / (gamma - 1) - 1 / gamma) / 2
    shift = k / 2 * math.log((gamma - 1) / gamma)
    t_add = (eps - shift) / slope  # P = γχ²: L > ε ⟺ t > t_add
    add = stats.chi2.sf(t_add / gamma, k) - math.exp(eps) * stats.chi2.sf(t_add / (gamma - 1), k)
    t_rem = (-eps - shift) / slope  # Q = (γ − 1)χ² first: −L > ε ⟺ t < t_rem
    remove = 0.0
    if t_rem > 0:
        remove = stats.chi2.cdf(t_rem / (gamma - 1), k) - math.exp(eps) * stats.chi2.cdf(
            t_rem / gamma, k
        )
    return max(add, remove, 0.0)


def exact_epsilon(k: int, gamma: float, delta: float) -> float:
    """The smallest ε with δ(ε) <= δ (bisection in ε; δ(ε) is nonincreasing)."""
    hi = 1.0
    while exact_delta(hi, k, gamma) > delta:
        hi *= 2.0
    if exact_delta(0.0, k, gamma) <= delta:
        return 0.0
    return optimize.brentq(lambda e: exact_delta(e, k, gamma) - delta, 0.0, hi, xtol=1e-12)


def synthamp_epsilon(width: int, k: int, gamma: float, delta: float) -> tuple[float, float]:
    """synthamp's finite-n engine at n_syn = k, a² = D/(γ − 1), b = 0, both directions; (ε, s)."""
    start = time.perf_counter()
    a = math.sqrt(width / (gamma - 1.0))
    orders = SYNTHAMP_ORDERS
    up = renyi_finite(orders, width, a, 0.0, k, full_output=True)
    down = renyi_finite(orders, width, 0.0, a, k, full_output=True)
    rdp = np.maximum(up.value + up.error, down.value + down.error)
    eps, _ = rdp_to_epsilon(orders, rdp, delta, warn=False)
    return float(eps), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/benchmarks/gaussian_mixing.md")
    args = parser.parse_args()
    rows, start = [], time.perf_counter()
    for gamma in GAMMAS:
        # (L1) is exactly k·D_α of the two Gaussians: check on the grid of orders below γ
        inside = ORDERS[ORDERS < gamma][::25]
        reference = [gaussian_variance_rdp(a, SKETCH, gamma) for a in inside]
        np.testing.assert_allclose(lev_rdp(inside, SKETCH, gamma), reference, rtol=1e-6)
        theirs = lev_epsilon(SKETCH, gamma, DELTA)
        theirs_coarse, _ = rdp_to_epsilon(
            SYNTHAMP_ORDERS, lev_rdp(SYNTHAMP_ORDERS, SKETCH, gamma), DELTA, warn=False
        )
        exact = exact_epsilon(SKETCH, gamma, DELTA)
        ours = [synthamp_epsilon(width, SKETCH, gamma, DELTA) for width in WIDTHS]
        rows.append([
            f"{gamma:g}", f"{theirs:.4g}", f"{exact:.4g}", f"{theirs / exact:.3f}",
            f"{theirs_coarse:.4g}", *(f"{eps:.4g} ({theirs_coarse / eps:.3f})" for eps, _ in ours),
            f"{sum(s for _, s in ours):.1f}",
        ])  # fmt: skip
        print(" | ".join(rows[-1]), flush=True)
    header = [
        "γ = λ̄_min + σ²", "Lev et al. (L1)+(P1)", "exact, same pair", "Lev / exact",
        "Lev et al. on synthamp's orders",
        *(f"synthamp finite-n, D = {w:.0e} (Lev on these orders / it)" for w in WIDTHS),
        "engine time (s)",
    ]  # fmt: skip
    lines = [
        "# synthamp's finite-n engine beside the Gaussian-mixing bound of Lev et al. (2025)",
        "",
        f"`python benchmarks/bench_gaussian_mixing.py`; {datetime.date.today()}, "
        f"{machine_summary()}; {time.perf_counter() - start:.0f} s.",
        "",
        f"Their settings (Figure 1 notebook): k = {SKETCH} sketch rows (1.5·d, d = {D_DATA}), "
        f"δ = 1/n² = {DELTA:g} (n = {N_DATA:,}). ε at δ. See docs/findings-gaussian-mixing.md "
        "for what each column is and where their formula comes from.",
        "",
        *markdown_table(header, rows),
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
