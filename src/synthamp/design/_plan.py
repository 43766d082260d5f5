"""Plan a release on a public design before touching the data (docs/theory.md §19).

On a public design (``random-seeds``: each record's regressors drawn from a recorded public
seed) the model is v = M Y with M fixed by the design and λ, so Δ, C and s₂ are exact
functions of public quantities (m, the width D, the seed, λ, B): the plan computes them
exactly, without reading a value, and calibrates σ as :func:`design_release` would, under the
norm model and (k = 1) the Gram adjacency (:func:`account_design`). ``random-features``
depends on the inputs' values and is not planned from the shape.

Cost: the m × m kernel K = XXᵀ, O(m²·D) per width (streamed by blocks, memory O(m²));
``orthogonal``: none (closed forms, :func:`synthamp.design._orthogonal.orthogonal_bounds`,
the same numbers as its release).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from math import isfinite, log

from synthamp._budget import report_status
from synthamp._parameters import at_least, validated, validated_one
from synthamp._validation import InputError
from synthamp.design._designs import (
    PublicDesign,
    check_adjacency,
    design_bounds,
    design_spectrum,
)
from synthamp.design._memory import check_design_memory
from synthamp.design._orthogonal import ORTHOGONAL, check_orthogonal_width, orthogonal_bounds
from synthamp.design._pairs import compare_design_accounting, comparison_orders
from synthamp.design._release import account_design, design_scale_logs
from synthamp.divergence._wishart import MAX_DIM_K2
from synthamp.release._planning import DEFAULT_RIDGES, Plan, PlanRow
from synthamp.release._ridge import check_release_scale
from synthamp.utility import gram_error_bound

__all__ = ["DesignPlanRow", "plan_design"]


@dataclass(frozen=True)
class DesignPlanRow(PlanRow):
    """A :class:`PlanRow` on a public design: its exact bounds and both accountings.

    Attributes
    ----------
    design : str
        The design's name.
    design_seed : int
        Its public seed.
    adjacency : {"gram", "norm"}
        The adjacency σ is calibrated for.
    gram_sensitivity : float or None
        s₂ (k = 1), the exact supremum of |‖v‖² − ‖w‖²| on the design.
    sigma_norm : float
        σ under the norm model (C, Δ).
    sigma_gram : float or None
        σ under the Gram adjacency (k = 1).
    comparison : dict or None
        The best row only: its accounted curve beside concrete adjacent datasets on the
        design (``DesignPairComparison.to_dict``; None elsewhere, or where the exact
        engines do not reach).
    epsilon_lower_realised, certified_over_lower : float or None
        k ≥ 2 under the Gram adjacency (certified): the realised pair's lower bound on the
        true ε at δ and the guarantee's ε over it (None otherwise).
    """

    design: str = "random-seeds"
    design_seed: int = 0
    adjacency: str = "gram"
    gram_sensitivity: float | None = None
    sigma_norm: float = 0.0
    sigma_gram: float | None = None
    comparison: dict | None = None
    epsilon_lower_realised: float | None = None
    certified_over_lower: float | None = None


def plan_design(
    *,
    n_records: int,
    n_targets: int = 1,
    design: str = "random-seeds",
    widths: Sequence[int],
    design_seed: int,
    label_bound: float,
    epsilon: float,
    delta: float,
    ridges: Sequence[float] = DEFAULT_RIDGES,
    adjacency: str = "gram",
) -> Plan:
    """Tabulate the exact design bounds, σ under both adjacencies and the utility, over (λ, D).

    Parameters
    ----------
    n_records : int
        m ≥ 2.
    n_targets : int, default 1
        k (the Gram adjacency needs k = 1).
    design : {"random-seeds", "orthogonal"}
        The public design (``random-features`` needs the inputs' values).
    widths : sequence of int
        Widths D (1 … 10⁶; ``orthogonal``: m … 10⁶, refused below m naming ``width``).
    design_seed : int
        The design's public seed (the release must use the same one).
    label_bound, epsilon, delta : float
        B and the target (ε, δ) of one unlimited release.
    ridges : sequence of float, default (0.01, 0.1, 1, 10)
        λ values.
    adjacency : {"gram", "norm"}, default "gram"

    Returns
    -------
    Plan
        Rows are :class:`DesignPlanRow`; ``n_features`` is the largest width.
    """
    m = at_least("n_records", validated_one("n_records", n_records), 2)
    k = validated_one("n_targets", n_targets)
    if design not in ("random-seeds", ORTHOGONAL):
        raise InputError(
            "design", "only random-seeds and orthogonal are planned from the table's shape "
            "(random-features depends on the inputs' values)",
        )  # fmt: skip
    adjacency = check_adjacency(adjacency, k)
    label_bound, epsilon, delta = validated(label_bound=label_bound, epsilon=epsilon, delta=delta)
    ridges = [validated_one("ridge", r) for r in ridges]
    widths = [at_least("width", validated_one("width", w), k) for w in widths]
    if not ridges or not widths:
        raise InputError("ridge" if not ridges else "width", "give at least one value")
    for ridge in ridges:
        check_release_scale(label_bound, ridge, {"label bound B": log(label_bound)})
    if design == ORTHOGONAL:  # closed forms: no m × m work
        widths = [check_orthogonal_width(w, m) for w in widths]
    else:
        check_design_memory(m)  # before the m × m work allocates anything
    rows = []
    best_error, kept = float("inf"), None
    for width in widths:
        spectrum = None
        if design != ORTHOGONAL:  # orthogonal: closed forms, no m × m work
            report_status(f"{design} design of width {width:,}: the m × m kernel (public)")
            spectrum = design_spectrum(PublicDesign(design, width, m, design_seed))
        for ridge in ridges:
            bounds = (
                orthogonal_bounds(m, ridge, label_bound)
                if spectrum is None
                else design_bounds(spectrum, ridge, label_bound)
            )
            check_release_scale(label_bound, ridge, design_scale_logs(bounds))
            accounted = account_design(
                bounds, width, k, epsilon, delta, adjacency=adjacency, label_bound=label_bound
            )
            g, utility = accounted.guarantee, accounted.utility
            sigma, c = accounted.sigma, bounds.norm_bound
            row = DesignPlanRow(
                    ridge=ridge, width=width, norm_bound=c, sensitivity=bounds.sensitivity,
                    sigma=sigma, sigma_post_processing=g.sigma_post_processing,
                    noise_saved=max(0.0, 1.0 - sigma / g.sigma_post_processing),
                    epsilon=g.epsilon, kind=str(g.kind), gram_error=utility["gram_error"],
                    gram_error_post_processing=gram_error_bound(
                        sigma=g.sigma_post_processing, dim=width, out_dim=k, norm_bound=c,
                        n_syn=None,
                    ),
                    relative_gram_error=utility["gram_error"] / c**2,
                    gram_error_floor=utility["gram_error_floor"],
                    gram_error_baseline=utility["gram_error_baseline"],
                    width_for_amplification=2.0 * (c / sigma) ** 2,
                    utility_table=utility["utility_table"],
                    utility_verdict=utility["utility_verdict"],
                    design=design, design_seed=design_seed, adjacency=adjacency,
                    gram_sensitivity=accounted.gram_sensitivity,
                    sigma_norm=accounted.sigma_norm, sigma_gram=accounted.sigma_gram,
                    **_lower_bound(accounted.certified),
            )  # fmt: skip
            rows.append(row)
            if row.relative_gram_error < best_error:  # the best so far, first of equals
                best_error, kept = row.relative_gram_error, (bounds, accounted)
    best = min(range(len(rows)), key=lambda i: rows[i].relative_gram_error)
    if kept[1].certified is None and (k == 1 or (k == 2 and rows[best].width <= MAX_DIM_K2)):
        report_status("the best row beside concrete adjacent datasets on the design")
        bounds, accounted = kept
        orders = comparison_orders(accounted.guarantee.optimal_order)
        found = compare_design_accounting(accounted.release, bounds, label_bound, orders)
        rows[best] = dataclasses.replace(rows[best], comparison=found.to_dict())
    return Plan(
        n_records=m, n_features=max(widths), n_targets=k, label_bound=label_bound,
        epsilon=epsilon, delta=delta, n_syn=None, releases=1, method="exact",
        rows=tuple(rows), best=best,
        criterion="smallest Gram error relative to C² (certified public-design bounds)",
    )  # fmt: skip


def _lower_bound(certified) -> dict[str, float | None]:
    """The realised pair's lower bound and the ratio (k ≥ 2, Gram adjacency), JSON-ready."""
    if certified is None or certified.epsilon_lower_realised is None:
        return {}
    ratio = certified.certified_over_lower
    return {
        "epsilon_lower_realised": certified.epsilon_lower_realised,
        "certified_over_lower": ratio if isfinite(ratio) else None,
    }
