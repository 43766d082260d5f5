"""The records beside every baseline of docs/theory.md §18 on wine and diabetes (issue 24, item 1).

ε = 1, δ = 1e-5, n_syn = 2,000, B = 1, λ = 0.05 (the demo's), exact accounting. diabetes:
the demo's features (``synthamp demo``: 10 variables mapped from public ranges to [−1, 1], their
55 products and squares, / √65; target mapped to [−1, 1]). wine: the 13 variables mapped from
their observed ranges to [−1, 1], / √13 (rows of norm ≤ 1); target = class − 1 ∈ {−1, 0, 1}.

For each: the utility table of the release's report (public quantities, RMSE at ‖v‖ = C), and,
since these data are public, the errors at the actual model v: Analyze Gauss (exact), output
perturbation of v (exact: σ_op√d for v, the noise term of ``gram_error_bound`` for ‖v‖²), the
records (noise term exact + the sampling term's bound at ‖v‖) and AdaSSP (Wang 2018,
``synthamp.utility.adassp``, 400 runs: RMSE of θ̂ against the least-squares θ and against the
ridge v, with its standard error).

Run by hand: ``python benchmarks/bench_baselines.py [--out PATH]`` (writes Markdown, default
docs/benchmarks/baselines.md).
"""

from __future__ import annotations

import argparse
import datetime
import math
import warnings

import numpy as np

from _common import machine_summary, write_report
from synthamp import PrivateLinearGenerator
from synthamp.utility import (
    adassp,
    gram_error_bound,
    output_perturbation_error,
    output_perturbation_sigma,
)

EPSILON, DELTA, N_SYN, RIDGE, REPEATS = 1.0, 1e-5, 2000, 0.05, 400


def wine() -> tuple[np.ndarray, np.ndarray]:
    # heavy: scikit-learn, for the data set only
    from sklearn.datasets import load_wine

    x, target = load_wine(return_X_y=True)
    low, high = x.min(axis=0), x.max(axis=0)
    x = (2 * (x - low) / (high - low) - 1) / math.sqrt(x.shape[1])
    return x, (target - 1.0)[:, None]


def diabetes() -> tuple[np.ndarray, np.ndarray]:
    from synthamp.cli.release import demo_dataset  # the demo's own scaling, read only

    x, y, _ = demo_dataset()
    return x, y


def measure(name: str, x: np.ndarray, y: np.ndarray) -> list[str]:
    m, d = x.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gen = PrivateLinearGenerator(
            label_bound=1.0, ridge=RIDGE, epsilon=EPSILON, delta=DELTA, n_syn=N_SYN,
            random_state=0,
        ).fit(x, y)  # fmt: skip
    report = gen.privacy_
    lines = [f"### {name} (m = {m}, d = {d}, σ = {report.sigma:.4g}, ε = {report.epsilon:.4g})", ""]
    lines += ["| mechanism | statistic | RMSE at ‖v‖ = C | relative | × records |"]
    lines += ["|---|---|---|---|---|"]
    for row in report.utility_table:
        cells = [row["rmse"], row["relative_error"], row["ratio_to_records"]]
        shown = ["—" if c is None else f"{c:.4g}" for c in cells]
        lines.append(f"| {row['mechanism']} | {row['statistic']} | " + " | ".join(shown) + " |")
    lines += ["", report.utility_verdict, ""]
    # at the actual model v (public data: v is computed here, only aggregates are printed)
    v = np.linalg.solve(x.T @ x + m * RIDGE * np.eye(d), x.T @ y)
    ols = np.linalg.lstsq(x, y, rcond=None)[0]
    lam = float(np.sum(v**2))
    rows = {(r["mechanism"], r["statistic"]): r for r in report.utility_table}
    sigma_op = output_perturbation_sigma(report.epsilon, DELTA, sensitivity=report.sensitivity)
    ag = rows["the Gaussian mechanism on vᵀv (Analyze Gauss)", "vᵀv"]["rmse"]
    rec = gram_error_bound(
        sigma=report.sigma, dim=d, out_dim=1, norm_bound=math.sqrt(lam), n_syn=N_SYN
    )
    op_gram = gram_error_bound(
        sigma=sigma_op, dim=d, out_dim=1, norm_bound=math.sqrt(lam), n_syn=None
    )
    op_coef = output_perturbation_error(sigma_op, d)
    rng = np.random.default_rng(2026)
    err_ols, err_v = [], []
    for _ in range(REPEATS):
        coef = adassp(
            x, y, EPSILON, DELTA, feature_bound=1.0, label_bound=1.0, random_state=rng
        ).coef
        err_ols.append(np.sum((coef - ols) ** 2))
        err_v.append(np.sum((coef - v) ** 2))
    err_ols, err_v = np.array(err_ols), np.array(err_v)

    def rmse(sq):
        return math.sqrt(sq.mean()), sq.std() / math.sqrt(sq.size) / (2 * math.sqrt(sq.mean()))

    (a_ols, se_ols), (a_v, se_v) = rmse(err_ols), rmse(err_v)
    lines += [
        f"At the actual v (‖v‖² = {lam:.4g}, ‖θ_ls‖ = {np.linalg.norm(ols):.4g}, "
        f"‖v‖ = {math.sqrt(lam):.4g}):",
        "",
        "| mechanism | statistic | RMSE | relative (to ‖v‖², ‖v‖ or ‖θ_ls‖) |",
        "|---|---|---|---|",
        f"| records (bound at ‖v‖) | ‖v‖² | {rec:.4g} | {rec / lam:.4g} |",
        f"| Analyze Gauss (exact) | ‖v‖² | {ag:.4g} | {ag / lam:.4g} |",
        f"| output perturbation (exact) | ‖v‖² | {op_gram:.4g} | {op_gram / lam:.4g} |",
        f"| output perturbation (exact) | v | {op_coef:.4g} | {op_coef / math.sqrt(lam):.4g} |",
        f"| AdaSSP ({REPEATS} runs) | θ_ls | {a_ols:.4g} ± {se_ols:.2g} | "
        f"{a_ols / np.linalg.norm(ols):.4g} |",
        f"| AdaSSP ({REPEATS} runs) | v | {a_v:.4g} ± {se_v:.2g} | {a_v / math.sqrt(lam):.4g} |",
        "",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/benchmarks/baselines.md")
    args = parser.parse_args()
    lines = [
        "# The records beside the baselines (`python benchmarks/bench_baselines.py`)",
        "",
        f"{datetime.date.today()}, {machine_summary()}. ε = {EPSILON:g}, δ = {DELTA:g}, "
        f"n_syn = {N_SYN:,}, λ = {RIDGE:g}, B = 1; see the module docstring.",
        "",
    ]
    for name, data in (("wine", wine), ("diabetes", diabetes)):
        lines += measure(name, *data())
        print("\n".join(lines[-30:]), flush=True)
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
