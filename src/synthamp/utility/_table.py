"""The utility table of a release and its verdict: the records beside the best mechanisms.

:func:`release_utility` computes, from public quantities only, the records' error on their
statistic vᵀv at the number of records written (docs/theory.md §18) beside every baseline at
the same (ε, δ) — including the best anchor for the statistic: the Laplace mechanism on the
scalar ‖v‖² (k = 1) or the trace-shaped Gaussian (k ≥ 2) — lays them out as rows
(:func:`utility_table`, which marks the best mechanism for each statistic and flags errors
above the statistic's own range as "no information") and says what that means
(:func:`utility_verdict`). The verdict's wording lives here only: every output renders this
text (its first line short and plain, the explanation on the following lines).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from synthamp._parameters import validated_one
from synthamp.accountant._pld import gaussian_sigma
from synthamp.utility._errors import (
    gaussian_gram_error,
    gaussian_synthesizer_error,
    gram_error_bound,
    gram_sensitivity,
    laplace_statistic_error,
    output_perturbation_error,
    output_perturbation_sigma,
    records_error_floor,
    targets_gram_sensitivity,
    trace_shaped_gram_error,
    trace_shaped_sensitivity,
)

__all__ = ["release_utility", "utility_table", "utility_verdict"]

#: The records' statistic (the Gram of the model) as the table names it.
GRAM = "vᵀv"
#: The flag of an error larger than the largest value of its statistic.
NO_INFORMATION = "no information"

Row = dict[str, object]


def _row(
    mechanism: str,
    releases: str,
    statistic: str,
    rmse: float | None,
    scale: float,
    kind: str,
    *,
    n_syn: int | None = None,
    rmse_unlimited: float | None = None,
    floor: float | None = None,
) -> Row:
    relative = None if rmse is None else rmse / scale
    return {
        "mechanism": mechanism,
        "releases": releases,
        "statistic": statistic,
        "rmse": rmse,
        "relative_error": relative,
        "ratio_to_records": None,
        "rmse_floor": floor,
        "kind": kind,
        "n_syn": n_syn,
        "rmse_unlimited": rmse_unlimited,
        "no_information": relative is not None and relative > 1.0,
        "best": False,
    }


def _mark_best(rows: list[Row]) -> None:
    """Mark the row of smallest RMSE of each statistic, and the ratios to the records."""
    records = float(rows[0]["rmse"])
    for statistic in dict.fromkeys(str(r["statistic"]) for r in rows):
        known = [r for r in rows if r["statistic"] == statistic and r["rmse"] is not None]
        if known:
            min(known, key=lambda r: float(r["rmse"]))["best"] = True
    for r in rows:
        if r["statistic"] == GRAM and r["rmse"] is not None:
            r["ratio_to_records"] = float(r["rmse"]) / records


def utility_table(
    *,
    records: float,
    records_floor: float,
    n_syn: int | None,
    records_unlimited: float,
    analyze_gauss: float,
    anchor: float,
    out_dim: int,
    synthesizer: float,
    synthesizer_unlimited: float,
    op_gram: float,
    op_coef: float,
    norm_bound: float,
    sigma_op: float,
    targets: tuple[float, float, float] | None = None,
    label_bound: float | None = None,
) -> tuple[Row, ...]:
    """The rows of the utility table: one mechanism, what it releases, its statistic, its error.

    Each row: ``mechanism``, ``releases``, ``statistic``, ``rmse`` (Frobenius; None where
    public quantities cannot give it), ``n_syn`` (the number of records the rmse is for:
    an int where the mechanism writes records, None for a noisy statistic, which has no
    records, and for records counted as n → ∞), ``rmse_unlimited`` (the n → ∞ value beside
    it, for the rows that write records), ``relative_error`` (rmse over the largest value
    of the statistic: C² for vᵀv, C for v, B² for YᵀY/m), ``no_information`` (relative
    error above 1: the error exceeds the largest value the statistic can take),
    ``ratio_to_records`` (rmse over the records' rmse, for vᵀv only), ``rmse_floor``
    (the records' error for any v; None elsewhere), ``best`` (the smallest rmse of its
    statistic) and ``kind`` (what the rmse is). All at the same (ε, δ).

    ``anchor`` is the best mechanism on the statistic itself: the Laplace mechanism on
    ‖v‖² for k = 1, the trace-shaped Gaussian for k ≥ 2; ``targets`` (Gaussian
    synthesizer at n_syn, at n → ∞, and the anchor on YᵀY) adds the targets' rows.
    """
    c2 = norm_bound**2
    k = validated_one("out_dim", out_dim)
    worst = "exact supremum over ‖v‖ ≤ C"
    rows = [
        _row(
            "synthetic records (this release)", "records ZV", GRAM, records, c2,
            worst,
            n_syn=n_syn, rmse_unlimited=records_unlimited, floor=records_floor,
        ),
        _row(
            "the Gaussian mechanism on vᵀv (Analyze Gauss)", "vᵀv + E", GRAM, analyze_gauss,
            c2, "exact, any v",
        ),
        _row(
            "the Laplace mechanism on ‖v‖²" if k == 1 else "the trace-shaped Gaussian on vᵀv",
            "‖v‖² + Laplace noise" if k == 1 else "vᵀv + E, less noise on the trace",
            GRAM, anchor, c2, "exact, any v",
        ),
        _row(
            "the Gaussian synthesizer", "records from N(0, (vᵀv + E)₊)", GRAM, synthesizer, c2,
            "upper bound at ‖v‖ = C", n_syn=n_syn, rmse_unlimited=synthesizer_unlimited,
        ),
        _row(
            "output perturbation of v", f"V = v + σN (σ = {sigma_op:.4g})", GRAM, op_gram, c2,
            worst,
        ),
        _row(
            "output perturbation of v", f"V = v + σN (σ = {sigma_op:.4g})", "v", op_coef,
            norm_bound, "exact, any v",
        ),
    ]  # fmt: skip
    if targets is not None and label_bound is not None:
        at_n, unlimited, anchor_y = targets
        rows += [
            _row(
                "the Gaussian synthesizer of the targets", "records from N(0, (YᵀY + E)₊/m)",
                "YᵀY/m", at_n, label_bound**2,
                "upper bound, any data",
                n_syn=n_syn, rmse_unlimited=unlimited,
            ),
            _row(
                "the Laplace mechanism on Σyᵢ²" if k == 1 else "the trace-shaped Gaussian on YᵀY",
                "Σyᵢ² + Laplace noise" if k == 1 else "YᵀY + E, less noise on the trace",
                "YᵀY/m", anchor_y, label_bound**2, "exact, any data",
            ),
        ]  # fmt: skip
    rows.append(
        _row(
            "AdaSSP", "θ̂ (d × k)", "least-squares coefficients", None, 1.0,
            "depends on the data",
        )
    )  # fmt: skip
    _mark_best(rows)
    return tuple(rows)


def _records_phrase(n_syn: int | None) -> str:
    return "n → ∞ records" if n_syn is None else f"the {n_syn:,} records written"


def utility_verdict(rows: Sequence[Row]) -> str:
    """The verdict on a utility table: a short plain first line, then the explanation.

    First line: how the records compare with the best mechanism for their statistic vᵀv
    at the largest model ‖v‖ = C (every row's RMSE there; the anchors are exact for every
    v), e.g. "Verdict: the records are 2.6× less accurate than the Laplace mechanism on
    ‖v‖²; use it unless you need records.", or that they carry no information (error above
    C²). Following lines: the numbers (at the n of the records written, and n → ∞), the
    records' floor (their error for any v), and the coefficients v, which the records do
    not carry. Every output prints this text.
    """
    records = rows[0]
    r, floor = float(records["rmse"]), float(records["rmse_floor"])
    n_syn = records.get("n_syn")
    same = [x for x in rows[1:] if x["statistic"] == GRAM and x["rmse"] is not None]
    best = min(same, key=lambda x: float(x["rmse"]))
    name, b = str(best["mechanism"]), float(best["rmse"])
    if records["no_information"] and best["no_information"]:
        first = (
            f"Verdict: no mechanism here says anything about {GRAM} at ‖v‖ = C (every "
            "error exceeds its largest value C²): no information."
        )
    elif records["no_information"]:
        first = (
            f"Verdict: the records carry no information on {GRAM} (error "
            f"{float(records['relative_error']):.2g}× its largest value C²); use {name}."
        )
    elif b < r / 1.005:
        first = (
            f"Verdict: the records are {r / b:.3g}× less accurate than {name}; use it unless "
            "you need records."
        )
    elif b <= r * 1.005:
        first = f"Verdict: the records are as accurate as {name} (within 0.5%)."
    else:
        first = (
            f"Verdict: the records are the most accurate release of {GRAM} here ({b / r:.3g}× "
            f"better than {name})."
        )
    unlimited = float(records["rmse_unlimited"])
    beside = "" if n_syn is None else f"; n → ∞: {unlimited:.3g}"
    detail = (
        f"{GRAM} from {_records_phrase(n_syn)}: RMSE {r:.3g} at ‖v‖ = C{beside}; at least "
        f"{floor:.3g} for any v. Best other mechanism: {name}, RMSE {b:.3g} for any v"
        + (
            ", below the records' floor: better than the records for every model."
            if b < floor
            else "."
        )
    )
    coef = next(x for x in rows if x["statistic"] == "v")
    useless = f"; {NO_INFORMATION}" if coef["no_information"] else ""
    coefficients = (
        f"The coefficients v, which the records do not carry: output perturbation of v gives "
        f"RMSE {float(coef['rmse']):.3g} ({float(coef['relative_error']):.3g} of C{useless}); "
        "AdaSSP's error depends on the data."
    )
    return "\n".join((first, detail, coefficients))


def release_utility(
    *,
    epsilon: float,
    delta: float,
    sigma: float,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None,
    releases: int = 1,
    statistic_sensitivity: float | None = None,
    label_bound: float | None = None,
    n_records: int | None = None,
) -> dict[str, object]:
    """The records' Gram error beside the baselines, for a release's report.

    ``n_syn``: the number of records the numbers are for — the records written, where
    that is known (an unlimited or design release once written) — or None for n → ∞.

    ``statistic_sensitivity`` (a public design): the replace-one sensitivity of the Gram
    statistic vᵀv on the design itself, which the anchors then use (the fair comparison:
    the same data, the same public design). k = 1: s₂, the exact sensitivity of ‖v‖²
    (docs/theory.md §19). k ≥ 2: a bound s on both ‖ΔG‖_F and √(‖ΔG‖_F² + (tr ΔG)²)
    (Analyze Gauss and the trace-shaped Gaussian),
    :func:`~synthamp.utility.design_statistic_sensitivity`.

    ``label_bound`` and ``n_records`` (B and m, optional): add the targets' second moment
    YᵀY/m (the Gaussian synthesizer of the targets and the anchor on YᵀY) to the table.

    Public quantities only (C, Δ, σ, d, k, n_syn, ε, δ, T, B, m): never the model, the
    noise or the seeds.

    Returns
    -------
    dict
        ``gram_error``: :func:`~synthamp.utility.gram_error_bound` at ‖v‖ = C with
        ``n_syn`` records, the supremum over the model set; ``gram_error_floor``:
        :func:`~synthamp.utility.records_error_floor`, a lower bound for every v and n;
        ``gram_error_baseline``: the Gaussian mechanism on vᵀv at the release's (ε, δ),
        exact; ``utility_table``: :func:`utility_table` (its rows say the n they are
        for); ``utility_verdict``: :func:`utility_verdict` of the table. Where ε is not
        positive and finite the baselines have no calibration: ``gram_error_baseline``
        is None, the table empty and the verdict empty.
    """
    k = validated_one("out_dim", out_dim)
    bound = gram_error_bound(sigma=sigma, dim=dim, out_dim=k, norm_bound=norm_bound, n_syn=n_syn)
    floor = records_error_floor(sigma, dim, k)
    out: dict[str, object] = {
        "gram_error": bound,
        "gram_error_floor": floor,
        "gram_error_baseline": None,
        "utility_verdict": "",
        "utility_table": (),
    }
    if not (0.0 < epsilon < math.inf):
        return out
    if statistic_sensitivity is not None:
        s = validated_one("statistic_sensitivity", statistic_sensitivity)
        baseline = gaussian_sigma(epsilon, delta, s * math.sqrt(releases))
        baseline *= math.sqrt(k * (k + 1) / 2.0)  # Analyze Gauss's RMSE, as gaussian_gram_error
        scalar = shaped = s
    else:
        baseline = gaussian_gram_error(
            epsilon, delta, norm_bound=norm_bound, sensitivity=sensitivity, out_dim=k,
            releases=releases,
        )  # fmt: skip
        scalar = gram_sensitivity(norm_bound, sensitivity, 1)
        shaped = trace_shaped_sensitivity(norm_bound, sensitivity)
    if k == 1:
        anchor = laplace_statistic_error(
            epsilon, delta, statistic_sensitivity=scalar, releases=releases
        )
    else:
        anchor = trace_shaped_gram_error(
            epsilon, delta, out_dim=k, trace_sensitivity=shaped, releases=releases
        )
    out["gram_error_baseline"] = baseline
    sigma_op = output_perturbation_sigma(epsilon, delta, sensitivity=sensitivity, releases=releases)
    targets = None
    if label_bound is not None and n_records is not None:
        targets = _targets(epsilon, delta, label_bound, n_records, k, releases, n_syn)

    def synthesizer(n: int | None) -> float:
        return gaussian_synthesizer_error(
            baseline, out_dim=k, gram_norm_bound=norm_bound**2, n_syn=n
        )

    rows = utility_table(
        records=bound,
        records_floor=floor,
        n_syn=n_syn,
        records_unlimited=gram_error_bound(
            sigma=sigma, dim=dim, out_dim=k, norm_bound=norm_bound, n_syn=None
        ),
        analyze_gauss=baseline,
        anchor=anchor,
        out_dim=k,
        synthesizer=synthesizer(n_syn),
        synthesizer_unlimited=synthesizer(None),
        op_gram=gram_error_bound(
            sigma=sigma_op, dim=dim, out_dim=k, norm_bound=norm_bound, n_syn=None
        ),
        op_coef=output_perturbation_error(sigma_op, dim, k),
        norm_bound=norm_bound,
        sigma_op=sigma_op,
        targets=targets,
        label_bound=label_bound,
    )
    out["utility_table"] = rows
    out["utility_verdict"] = utility_verdict(rows)
    return out


def _targets(epsilon, delta, label_bound, n_records, k, releases, n_syn):
    """The targets' rows: the Gaussian synthesizer of YᵀY/m (at n_syn, n → ∞) and the anchor."""
    m = validated_one("n_records", n_records)
    s_y = targets_gram_sensitivity(label_bound, k) * math.sqrt(releases)
    e_y = gaussian_sigma(epsilon, delta, s_y) * math.sqrt(k * (k + 1) / 2.0) / m

    def synthesizer(n: int | None) -> float:
        return gaussian_synthesizer_error(e_y, out_dim=k, gram_norm_bound=label_bound**2, n_syn=n)

    if k == 1:
        anchor = laplace_statistic_error(
            epsilon, delta, statistic_sensitivity=label_bound**2, releases=releases
        )
    else:
        anchor = trace_shaped_gram_error(
            epsilon, delta, out_dim=k, releases=releases,
            trace_sensitivity=trace_shaped_sensitivity(label_bound),
        )  # fmt: skip
    return synthesizer(n_syn), synthesizer(None), anchor / m
