"""``synthamp plan`` as a function: plan the release of a table from its shape alone.

:func:`plan_table` reads only the shape of a private table (records, features,
targets: the Parquet metadata, or the CSV header and its records counted by the
parser, no value kept; :func:`~synthamp.release._tabular.read_shape`), then tabulates
the release over λ and widths (:func:`~synthamp.release._planning.plan_release`,
docs/theory.md §13, §16). The :class:`TablePlan` it returns computes nothing:
``to_dict()`` is the command's JSON object (docs/json.md), ``lines()`` its text.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from synthamp._validation import InputError, printable
from synthamp.accountant import REALISED_LOWER
from synthamp.design._plan import DesignPlanRow, plan_design
from synthamp.release._plan_targets import PlanTargets, plan_targets
from synthamp.release._planning import DEFAULT_RIDGES, Plan, plan_release
from synthamp.release._table_records import ALL_COLUMNS
from synthamp.release._tabular import parse_columns, read_shape
from synthamp.report._privacy import utility_text

__all__ = ["TablePlan", "plan_table"]

_GRAM_NOTE = (
    "Gram error: proven bound on the root-mean-square error (Frobenius) of the Gram matrix "
    "estimated from the synthetic records; baseline: the exact RMSE of the Gaussian "
    "mechanism on the Gram matrix itself; noise saved is not utility gained"
)
_BIAS_NOTE = (
    "kept: the share of the least-squares model's Gram matrix the ridge model keeps, "
    "1/(1 + wλ)²; w/ bias: √(Gram error² + bias²) relative to that Gram matrix, the plan's "
    "ranking (≥ 1: no information); both rest on the assumed typical signal, not on the data"
)


@dataclass(frozen=True)
class TablePlan:
    """The plan of a table's release (:func:`plan_table`).

    Attributes
    ----------
    path : str
        The table, as given.
    plan : Plan
        The release tabulated over λ and widths (:func:`plan_release`).
    warnings : tuple of str
        Warnings raised while planning (none so far: the plan warns in its text).
    targets : PlanTargets or None
        The target columns of a whole-table plan (``all`` or ``bounds``), or None.
    """

    path: str
    plan: Plan
    warnings: tuple[str, ...] = ()
    targets: PlanTargets | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``synthamp plan``: ``data`` (the shape, ``values_read``
        False), ``target``, ``accounting``, ``label_bound``, ``rows``, ``best``,
        ``criterion`` (docs/json.md)."""
        plan = self.plan
        data = {
            "path": self.path,
            "n_records": plan.n_records,
            "n_features": plan.n_features,
            "n_targets": plan.n_targets,
            "values_read": False,
        }
        if self.targets is not None:  # the release's columns: the targets (and the constant)
            data["target_columns"] = list(self.targets.names)
            data["constant_column"] = self.targets.ranges is not None
        return dict(
            data=data,
            target={
                "epsilon": plan.epsilon,
                "delta": plan.delta,
                "n_syn": plan.n_syn,
                "releases": plan.releases,
            },
            accounting=plan.method,
            label_bound=plan.label_bound,
            rows=[dataclasses.asdict(row) for row in plan.rows],
            best=plan.best,
            criterion=plan.criterion,
        )

    def lines(self) -> list[str]:
        """The text of ``synthamp plan``: the shape, the table of rows (* the best), advice."""
        plan = self.plan
        records = "any number of" if plan.n_syn is None else f"{plan.n_syn:,}"
        if plan.releases > 1:
            records = f"{plan.releases} releases of {records}"
        targets = "target" if plan.n_targets == 1 else "targets"
        design = isinstance(plan.rows[0], DesignPlanRow)
        shape = (
            f"{printable(self.path)}: m = {plan.n_records:,} records, d = {plan.n_features} "
            f"features, k = {plan.n_targets} {targets} (shape only: no value was read)"
        )
        if self.targets is not None and self.targets.ranges is not None:
            targets = (
                f"targets ({len(self.targets.names)} columns in their declared ranges and "
                "the constant column that carries the means)"
            )
        if design:
            first = plan.rows[0]
            shape = (
                f"{printable(self.path)}: m = {plan.n_records:,} records, k = {plan.n_targets} "
                f"{targets} (shape only: no value was read); public design {first.design}, "
                f"seed {first.design_seed} (recorded; the release must use the same), "
                f"{first.adjacency} adjacency"
            )
        extra = f" {'s₂':>9} {'σ norm':>10}" if design else ""
        out = [
            shape,
            f"target: ({plan.epsilon:g}, {plan.delta:g})-DP for {records} synthetic records, "
            f"{plan.method} accounting against post-processing",
            f"  {'λ':>6} {'width':>7} {'C':>9} {'Δ':>10}{extra} {'σ':>10} {'σ post':>10} "
            f"{'saved':>7} {'Gram error':>11} {'/ C²':>8} {'baseline':>10}"
            + ("" if design else f" {'kept':>8} {'w/ bias':>8}"),
        ]
        for i, row in enumerate(plan.rows):
            mark = "*" if i == plan.best else " "
            extra = ""
            if design:
                s2 = "—" if row.gram_sensitivity is None else f"{row.gram_sensitivity:.4g}"
                extra = f" {s2:>9} {row.sigma_norm:>10.4g}"
            out.append(
                f"{mark} {row.ridge:>6g} {row.width:>7} {row.norm_bound:>9.4g} "
                f"{row.sensitivity:>10.4g}{extra} {row.sigma:>10.4g} "
                f"{row.sigma_post_processing:>10.4g} {100 * row.noise_saved:>6.1f}% "
                f"{row.gram_error:>11.4g} {row.relative_gram_error:>8.3g} "
                f"{row.gram_error_baseline:>10.4g}"
                + ("" if design else f" {row.shrinkage_kept:>8.3g} {row.error_with_bias:>8.3g}")
            )
        if plan.best is None:
            out.append(plan.criterion)
        else:
            best = plan.rows[plan.best]
            out.append(f"* best: λ = {best.ridge:g}, width {best.width}: {plan.criterion}")
            lower = getattr(best, "epsilon_lower_realised", None)
            if lower is not None:
                out.append(
                    f"  certified ε = {best.epsilon:.6g}; true ε >= {lower:.6g} (lower bound). "
                    f"{REALISED_LOWER}."
                )
        if not design:
            out.append(_BIAS_NOTE)
        for width in dict.fromkeys(row.width for row in plan.rows if not design):
            rows = [row for row in plan.rows if row.width == width]
            most = max(row.noise_saved for row in rows)
            if most < 0.05:
                need = min(rows, key=lambda row: row.width_for_amplification)
                out.append(
                    f"width {width}: amplification barely pays (at most {100 * most:.1f}% noise "
                    f"saved); it needs a width d ≳ 2(C/σ)² ≈ {need.width_for_amplification:,.0f} "
                    f"at λ = {need.ridge:g} (Theorem 5.1, a heuristic guide), e.g. a wide "
                    "random-feature generator"
                )
        if plan.best is None:
            return [*out, _GRAM_NOTE]
        verdict, *table = utility_text(best.utility_verdict, best.utility_table)
        out += [f"at λ = {best.ridge:g}, width {best.width}: " + verdict, *table, _GRAM_NOTE]
        if design and best.comparison is not None:
            out.append(f"at λ = {best.ridge:g}, width {best.width}: {best.comparison['sentence']}")
        return out


def plan_table(
    data: str | os.PathLike,
    targets: str | Sequence[str],
    *,
    features: str | Sequence[str] | None = None,
    label_bound: float | None = None,
    epsilon: float,
    delta: float,
    ridges: Sequence[float] = DEFAULT_RIDGES,
    widths: Sequence[float] | None = None,
    n_syn: int | None = None,
    releases: int = 1,
    method: str = "exact",
    design: str | None = None,
    design_seed: int | None = None,
    adjacency: str | None = None,
    bounds=None,
) -> TablePlan:
    """Plan the release of a private table from its shape: C, Δ, σ, noise saved, utility.

    Parameters
    ----------
    data : path
        The private table (.csv or .parquet); only its shape is read.
    targets, features : str or sequence of str
        Target columns and feature columns (names, or one comma-separated string;
        default features: every other column). With a design, ``"all"``: the columns
        ``release`` takes (:func:`~synthamp.release._plan_targets.plan_targets`: a
        Parquet table's numeric columns, a CSV table's header).
    label_bound, epsilon, delta, ridges, n_syn, releases, method
        As for :func:`plan_release`.
    widths : sequence of numbers, optional
        Generator widths (whole numbers; default the table's feature count; required
        with ``design``).
    design, design_seed, adjacency : optional
        A public design (``random-seeds`` or ``orthogonal``) of each width, its public seed and the
        adjacency σ is calibrated for (default "gram"): the plan of ``release --design``
        (:func:`~synthamp.design.plan_design`: certified Δ, C, s₂; one unlimited release).
        Every option applies to the design (or to none) or is refused before the table
        is read: no ``features``, ``n_syn``, ``releases`` or ``method`` but "exact" with
        a design; no ``design_seed`` or ``adjacency`` without.
    bounds : mapping or path-like, optional
        With a design: the target columns' public ranges, as ``release --bounds``: the
        plan is then that of the whole-table release, k + 1 columns (the constant that
        carries the means), ``label_bound`` default 1; refused if a target has no range.

    Returns
    -------
    TablePlan
        The plan, with ``to_dict()`` and ``lines()``.
    """
    target_cols = parse_columns(targets, param="targets")
    feature_cols = parse_columns(features, param="features")
    if widths is not None:
        if any(w != int(w) for w in widths):
            raise InputError("width", "must be whole numbers")
        widths = [int(w) for w in widths]
    _check_design_plan(
        design, design_seed, adjacency, widths, feature_cols, n_syn, releases, method
    )
    # the columns release would take (all, bounds: the constant column), from the header
    chosen = plan_targets(data, target_cols, bounds=bounds, design=design, label_bound=label_bound)
    whole = bounds is not None or target_cols == [ALL_COLUMNS]
    target_cols, label_bound = list(chosen.names), chosen.label_bound
    # a design reads no feature column: d >= k applies only without one
    m, d, k = read_shape(data, target_cols, feature_cols, param="data", need_features=not design)
    k = chosen.released  # with bounds, the constant column is released too
    if design is None:
        plan = plan_release(
            n_records=m, n_features=d, n_targets=k, label_bound=label_bound, epsilon=epsilon,
            delta=delta, ridges=ridges, widths=widths, n_syn=n_syn, releases=releases,
            method=method,
        )  # fmt: skip
        return TablePlan(str(data), plan)
    plan = plan_design(
        n_records=m, n_targets=k, design=design, widths=widths, design_seed=design_seed,
        label_bound=label_bound, epsilon=epsilon, delta=delta, ridges=ridges,
        adjacency="gram" if adjacency is None else adjacency,
    )  # fmt: skip
    return TablePlan(str(data), plan, targets=chosen if whole else None)


def _check_design_plan(design, design_seed, adjacency, widths, features, n_syn, releases, method):
    """Every option of ``plan`` applies to its design (or to none), or is refused with one
    line, before the table's shape is read."""
    if design is None:
        for name, value in (("design_seed", design_seed), ("adjacency", adjacency)):
            if value is not None:
                raise InputError(name, "applies only with `design`")
        return
    if design not in ("random-seeds", "orthogonal"):
        raise InputError(
            "design", "only random-seeds and orthogonal are planned from the table's shape "
            "(random-features needs the public inputs' values: release it, or plan random-seeds)",
        )  # fmt: skip
    if widths is None or design_seed is None:
        raise InputError("design", "needs `width` D (one or more) and `design_seed` S")
    one = "plans one unlimited release with exact accounting"
    if features is not None:
        raise InputError("features", f"a {design} design uses no feature column")
    for name, value, default in (("n_syn", n_syn, None), ("releases", releases, 1)):
        if value != default:
            raise InputError(name, f"`design` {one}")
    if method != "exact":
        raise InputError("accounting", f"`design` {one}")
