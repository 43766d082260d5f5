"""Plan a release before touching the data: will amplification pay, and at which λ and width?

A data holder knows the shape of the table (m records, d features, k targets),
the label bound B and the target (ε, δ) before any private value is read. That
fixes everything the accountant needs for each ridge penalty λ: the norm bound
C = B/(2√λ), the sensitivity Δ = B(1 + 2√λ)/(mλ^{3/2}) (docs/theory.md §13), and so
the noise σ of the amplification-aware accountant and of post-processing, the
noise saved, and the proven bound on the expected error of the Gram matrix the
synthetic records carry (:func:`synthamp.utility.gram_error_bound`).
:func:`plan_release` tabulates them over λ (and over generator widths, for a
generator wider than the table, e.g. random features) and marks the best row.

The best row weighs both errors λ trades: the noise (the Gram error falls with λ,
since C = B/(2√λ) shrinks) and the bias (a larger λ shrinks the fitted model
itself). The bias needs the data, so the plan states an assumption instead
(:data:`SIGNAL_ASSUMPTION`): features spread evenly over the w columns of the
generator (XᵀX/m = I/w, the unit row norm shared equally) and targets explained
by them at the label bound (‖Y‖²_F/m = B²). The least-squares model θ then has
‖θ‖²_F = wB², the ridge model is θ/(1 + wλ) (its norm B√w/(1 + wλ) ≤ C, with
equality at wλ = 1), and its Gram matrix keeps 1/(1 + wλ)² of θᵀθ
(:func:`error_with_bias`). The plan ranks λ by √(Gram error² + bias²)
relative to ‖θᵀθ‖_F, and stars no row when every λ offered has an error at
least the statistic itself (the records would carry no information).

docs/theory.md §16: amplification needs a width d ≳ 2c² with c = C/σ; on an ordinary
table (5,000 × 20, λ = 1) it saves almost nothing. The plan says so before
the release, with the width from which the local ratio 2c²/(2c² + d) (a
heuristic, Theorem 5.1) drops below one half.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from synthamp._parameters import RECORDS_WRITTEN, at_least, validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant import calibrate
from synthamp.release._ridge import check_ridge_scale, ridge_norm_bound, ridge_sensitivity
from synthamp.utility import gram_error_bound, release_utility

__all__ = [
    "DEFAULT_RIDGES",
    "PLAN_METHODS",
    "SIGNAL_ASSUMPTION",
    "Plan",
    "PlanRow",
    "error_with_bias",
    "plan_release",
]

#: Ridge penalties tried by default.
DEFAULT_RIDGES = (0.01, 0.1, 1.0, 10.0)
#: The amplification-aware accounting methods a plan compares with post-processing.
PLAN_METHODS: tuple[str, ...] = ("exact", "global")

#: The assumption the plan's ranking rests on, worded once (plan and release quote it).
SIGNAL_ASSUMPTION = (
    "assumed typical signal: features spread evenly over the w generator columns "
    "(XᵀX/m = I/w) and targets explained by them at the label bound (‖Y‖²_F/m = B²), so "
    "the ridge model is the least-squares model θ (‖θ‖²_F = wB²) shrunk by 1/(1 + wλ) and "
    "keeps 1/(1 + wλ)² of its Gram matrix θᵀθ"
)


def error_with_bias(
    gram_error: float, *, ridge: float, width: int, out_dim: int, label_bound: float
) -> tuple[float, float]:
    """The Gram error with the shrinkage bias of λ, relative to the assumed θᵀθ.

    Under :data:`SIGNAL_ASSUMPTION` the least-squares Gram matrix is G = (wB²/k)I_k
    (‖G‖_F = wB²/√k) and the ridge model's is G/(1 + wλ)², a bias of
    ‖G‖_F·(1 − 1/(1 + wλ)²). The records' error against G is at most
    √(gram_error² + bias²) (the noise is unbiased for the ridge model's Gram, so
    the two add in mean square).

    Parameters
    ----------
    gram_error : float
        The Gram error of the records at λ (about the ridge model's own Gram).
    ridge, width, out_dim, label_bound
        λ, the generator's width w, k and B.

    Returns
    -------
    (float, float)
        The share of G the ridge model keeps, 1/(1 + wλ)², and the relative error
        √(gram_error² + bias²)/‖G‖_F (≥ 1: no information on G).
    """
    shrink = width * ridge
    kept = 1.0 / (1.0 + shrink) ** 2
    gram_norm = width * label_bound**2 / math.sqrt(out_dim)
    lost = shrink * (2.0 + shrink) * kept  # 1 − kept, without cancellation for small wλ
    return kept, math.hypot(gram_error / gram_norm, lost)


@dataclass(frozen=True)
class PlanRow:
    """The release at one ridge penalty λ and one generator width d.

    Attributes
    ----------
    ridge : float
        λ.
    width : int
        d, the generator's width (the table's feature count unless widened).
    norm_bound, sensitivity : float
        C and Δ (certified, docs/theory.md §13).
    sigma : float
        Noise calibrated by the amplification-aware accountant (``method``).
    sigma_post_processing : float
        Noise that releasing the model itself would need.
    noise_saved : float
        max(0, 1 − σ/σ_post-processing).
    epsilon : float
        ε achieved at σ (≤ the target).
    kind : str
        Kind of the accountant's number (exact or certified).
    gram_error, gram_error_post_processing : float
        Proven bounds on the root-mean-square error of the Gram matrix
        estimated from the synthetic records, at σ and at σ_post-processing.
    relative_gram_error : float
        gram_error / C², the error relative to the largest possible Gram matrix.
    width_for_amplification : float
        2c² with c = C/σ: the width from which the local amplification ratio
        2c²/(2c² + d) falls below one half (a heuristic guide, Theorem 5.1).
    shrinkage_kept : float
        1/(1 + wλ)²: the share of the least-squares Gram matrix the ridge model keeps
        under :data:`SIGNAL_ASSUMPTION` (an assumption, not a bound).
    error_with_bias : float
        The plan's ranking criterion: √(Gram error² + bias²) relative to the assumed
        least-squares Gram matrix (:func:`error_with_bias`); ≥ 1 means no information.
    utility_table, utility_verdict
        :func:`synthamp.utility.release_utility`'s table (the records beside every
        baseline at the target (ε, δ)) and its one sentence: which mechanism serves
        best for the second moment and for the coefficients, and by how much.
    """

    ridge: float
    width: int
    norm_bound: float
    sensitivity: float
    sigma: float
    sigma_post_processing: float
    noise_saved: float
    epsilon: float
    kind: str
    gram_error: float
    gram_error_post_processing: float
    relative_gram_error: float
    gram_error_floor: float
    gram_error_baseline: float
    width_for_amplification: float
    shrinkage_kept: float = 1.0
    error_with_bias: float = 0.0
    utility_table: tuple[dict[str, object], ...] = ()
    utility_verdict: str = ""


@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan_release`.

    Attributes
    ----------
    n_records, n_features, n_targets : int
        m, the table's d and k.
    label_bound, epsilon, delta : float
        B and the target (ε, δ).
    n_syn : int or None
        Records accounted (None: any number).
    releases : int
        Releases of the same data accounted (T).
    method : str
        The amplification-aware accounting method.
    rows : tuple of PlanRow
        One row per (λ, width), λ varying fastest.
    best : int or None
        Index of the row with the smallest ``error_with_bias``; None when every row's
        is ≥ 1 (no λ offered gives the records information under the assumption).
    criterion : str
        What "best" means, in words, with the assumption it rests on.
    """

    n_records: int
    n_features: int
    n_targets: int
    label_bound: float
    epsilon: float
    delta: float
    n_syn: int | None
    releases: int
    method: str
    rows: tuple[PlanRow, ...]
    best: int | None
    criterion: str


def plan_release(
    *,
    n_records: int,
    n_features: int,
    n_targets: int = 1,
    label_bound: float,
    epsilon: float,
    delta: float,
    ridges: Sequence[float] = DEFAULT_RIDGES,
    widths: Sequence[int] | None = None,
    n_syn: int | None = None,
    releases: int = 1,
    method: str = "exact",
) -> Plan:
    """Tabulate C, Δ, σ, the noise saved and the utility over ridge penalties and widths.

    Uses only public numbers (the table's shape, B, ε, δ): no data.

    Parameters
    ----------
    n_records : int
        m ≥ 2.
    n_features, n_targets : int
        d ≥ k ≥ 1 of the table.
    label_bound : float
        B > 0.
    epsilon, delta : float
        The target guarantee.
    ridges : sequence of float, default (0.01, 0.1, 1, 10)
        λ values (> 0).
    widths : sequence of int, optional
        Generator widths to compare (each ≥ k); default the table's d.
    n_syn : int, optional
        Records to account for; default any number (the plateau, which covers
        every number).
    releases : int, default 1
        T releases of the same data (RDP composition).
    method : {"exact", "global"}, default "exact"
        The amplification-aware accounting method (see
        :func:`synthamp.accountant.rdp_curve`).

    Returns
    -------
    Plan
    """
    m = at_least("n_records", validated_one("n_records", n_records), 2)
    d, k = validated(n_features=n_features, n_targets=n_targets)
    if k > d:
        raise InputError("n_targets", f"k = {k} exceeds d = {d}; need d ≥ k")
    label_bound, epsilon, delta = validated(label_bound=label_bound, epsilon=epsilon, delta=delta)
    if method not in PLAN_METHODS:
        raise InputError("method", f"must be 'exact' or 'global', got {method!r}")
    ridges = [validated_one("ridge", r) for r in ridges]
    for ridge in ridges:  # C and Δ within a release's scale, σ calibrated (log space)
        check_ridge_scale(label_bound, ridge, m)
    if not ridges:
        raise InputError("ridge", "give at least one value")
    widths = [d] if widths is None else [validated_one("width", w) for w in widths]
    widths = [at_least("width", w, k) for w in widths]
    if not widths:
        raise InputError("width", "give at least one value")
    if n_syn is not None:
        n_syn = validated_one("n_syn", n_syn, RECORDS_WRITTEN)
    releases = validated_one("releases", releases)

    rows = []
    for width in widths:
        for ridge in ridges:
            norm_bound = ridge_norm_bound(label_bound, ridge)
            sensitivity = ridge_sensitivity(label_bound, ridge, m)
            cal = calibrate(  # the guarantee rule, as release applies it
                epsilon,
                delta,
                dim=width,
                out_dim=k,
                norm_bound=norm_bound,
                sensitivity=sensitivity,
                n_syn=n_syn,
                releases=releases,
                method=method,
            )
            sigma, sigma_pp = float(cal.sigma), float(cal.sigma_post_processing)

            def error(s: float, width=width, norm_bound=norm_bound) -> float:
                return gram_error_bound(
                    sigma=s, dim=width, out_dim=k, norm_bound=norm_bound, n_syn=n_syn
                )

            utility = release_utility(
                epsilon=epsilon,
                delta=delta,
                sigma=sigma,
                dim=width,
                out_dim=k,
                norm_bound=norm_bound,
                sensitivity=sensitivity,
                n_syn=n_syn,
                releases=releases,
                label_bound=label_bound,
                n_records=m,
            )
            gram = utility["gram_error"]
            kept, with_bias = error_with_bias(
                gram, ridge=ridge, width=width, out_dim=k, label_bound=label_bound
            )
            rows.append(
                PlanRow(
                    ridge=ridge,
                    width=width,
                    norm_bound=norm_bound,
                    sensitivity=sensitivity,
                    sigma=sigma,
                    sigma_post_processing=sigma_pp,
                    noise_saved=max(0.0, 1.0 - sigma / sigma_pp),
                    epsilon=float(cal.epsilon),
                    kind=str(cal.kind),
                    gram_error=gram,
                    gram_error_post_processing=error(sigma_pp),
                    relative_gram_error=gram / norm_bound**2,
                    gram_error_floor=utility["gram_error_floor"],
                    gram_error_baseline=utility["gram_error_baseline"],
                    width_for_amplification=2.0 * (norm_bound / sigma) ** 2,
                    shrinkage_kept=kept,
                    error_with_bias=with_bias,
                    utility_table=utility["utility_table"],
                    utility_verdict=utility["utility_verdict"],
                )
            )
    best = min(range(len(rows)), key=lambda i: rows[i].error_with_bias)
    criterion = (
        "smallest Gram error with the shrinkage bias of λ, relative to the least-squares "
        f"model's Gram matrix ({SIGNAL_ASSUMPTION}; an assumption, not a bound)"
    )
    if rows[best].error_with_bias >= 1.0:
        best = None
        criterion = (
            "no row starred: at every λ offered the Gram error with the shrinkage bias is at "
            "least the least-squares model's Gram matrix itself, so the records would carry no "
            f"information on it ({SIGNAL_ASSUMPTION}); more records, a larger ε or another "
            "width may help"
        )
    return Plan(
        n_records=m,
        n_features=d,
        n_targets=k,
        label_bound=label_bound,
        epsilon=epsilon,
        delta=delta,
        n_syn=n_syn,
        releases=releases,
        method=method,
        rows=tuple(rows),
        best=best,
        criterion=criterion,
    )
