"""The end-to-end audit of the implementation on the realised worst pair (orthogonal design).

Runs :func:`synthamp.audit.audit_worst_pair` (every run a release made by the release
code: ``orthogonal_gram_rows``, the factor R and, with n_syn, the records) at δ = 1e-5 and
σ calibrated to ε = 1 by the accountant, for k = 1 (unlimited and n_syn records) and
k = 2 (unlimited), and writes a Markdown table: ε_lower (the family bound with
Clopper–Pearson intervals, 95%), the same family with DKW bands, the threshold test's
bound, the GDP estimate, ε_upper, ε_pair, ε_lower/ε_upper, μ_emp/μ with its interval,
the share of the curve's intervals covering the exact rates, and the time of the runs.

Run by hand (long: about 0.2 ms per run and table, so 10⁶ runs take ~7 min per row):
``PYTHONPATH=src python benchmarks/bench_worst_pair.py [--runs 100000 1000000] [--seed 1]
[--out docs/benchmarks/worst_pair.md]``.
"""

from __future__ import annotations

import argparse
import datetime

from _common import machine_summary, markdown_table, write_report
from synthamp.audit import audit_worst_pair

#: (label, width D, k, n_syn): amplification matters in each (module docstring of the report).
SETTINGS = (
    ("k = 1, unlimited", 10, 1, None),
    ("k = 1, 1000 records", 10, 1, 1000),
    ("k = 2, unlimited", 30, 2, None),
    ("k = 2, unlimited", 100, 2, None),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, nargs="+", default=[100_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", type=int, nargs="*", default=None, help="setting indices")
    parser.add_argument("--out", default="docs/benchmarks/worst_pair.md")
    args = parser.parse_args()
    rows = []
    for runs in args.runs:
        for i, (name, width, k, n_syn) in enumerate(SETTINGS):
            if args.only is not None and i not in args.only:
                continue
            r = audit_worst_pair(width, k, n_syn=n_syn, runs=runs, seed=args.seed)
            ratio, low, high = r.band.mu_ratio
            row = [
                name, f"{width}", f"{r.sigma:.4f}", f"{runs:,}", f"{r.epsilon_lower:.4f}",
                f"{r.epsilon_dkw:.4f}", f"{r.epsilon_threshold:.3f}", f"{r.epsilon_gdp:.3f}",
                f"{r.epsilon_upper:.4f}", f"{r.epsilon_pair:.4f}", f"{r.tightness:.3f}",
                f"{ratio:.3f} [{low:.3f}, {high:.3f}]", f"{100 * r.band.covered:.0f}%",
                f"{r.seconds:.0f} s",
            ]  # fmt: skip
            print(" | ".join(row), flush=True)
            rows.append(row)
    head = [
        "release", "D", "σ", "runs", "ε_lower (family, CP)", "family, DKW", "threshold",
        "GDP est.", "ε_upper", "ε_pair", "ε_lower/ε_upper", "μ_emp/μ [95%]", "curve covered",
        "runs' time",
    ]  # fmt: skip
    body = [
        "# End-to-end audit of the implementation on the realised worst pair",
        "",
        f"{datetime.date.today()} · {machine_summary()} · seed {args.seed} · δ = 1e-5, "
        "σ calibrated to ε = 1 (m = 10, λ = 0.01, B = 1), 95% confidence.",
        "",
        *markdown_table(head, rows),
        "",
    ]
    write_report(args.out, body)


if __name__ == "__main__":
    main()
