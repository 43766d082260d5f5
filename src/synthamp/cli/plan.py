"""``synthamp plan``: before a release, from the table's shape only, which λ and width to use.

A thin layer over :func:`synthamp.release._planning.plan_release` and
:func:`synthamp.release._tabular.read_shape` (no value of the table is read).
"""

from __future__ import annotations

import dataclasses

import click

from synthamp import release as tabular
from synthamp._validation import InputError, printable
from synthamp.cli._common import FLOAT_LIST, echo_json
from synthamp.utility import baseline_verdict

__all__ = ["plan"]


@click.command("plan")
@click.option("--data", required=True, metavar="FILE", help="Private table (.csv or .parquet).")
@click.option("--targets", required=True, metavar="COLS", help="Target columns (comma-separated).")
@click.option(
    "--features", default=None, metavar="COLS", help="Feature columns (default: all other columns)."
)
@click.option("--label-bound", required=True, type=float, metavar="B", help="Bound on ‖y‖.")
@click.option("--epsilon", required=True, type=float, metavar="E", help="Target ε.")
@click.option("--delta", required=True, type=float, metavar="D", help="Target δ.")
@click.option(
    "--ridge",
    type=FLOAT_LIST,
    default="0.01,0.1,1,10",
    show_default=True,
    metavar="LIST",
    help="Ridge penalties λ to compare.",
)
@click.option(
    "--width",
    type=FLOAT_LIST,
    default=None,
    metavar="LIST",
    help="Generator widths to compare (default: the number of features).",
)
@click.option(
    "--n-syn",
    type=int,
    default=None,
    metavar="N",
    help="Records to account for (default: any number).",
)
@click.option(
    "--releases",
    type=int,
    default=1,
    show_default=True,
    metavar="T",
    help="Releases of the same data (composed).",
)
@click.option(
    "--accounting",
    type=click.Choice(["exact", "global"]),
    default="exact",
    show_default=True,
    help="Amplification-aware accounting method.",
)
@click.option("--no-progress", is_flag=True, help="No status line on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def plan(
    data,
    targets,
    features,
    label_bound,
    epsilon,
    delta,
    ridge,
    width,
    n_syn,
    releases,
    accounting,
    no_progress,
    as_json,
):
    """Plan a release: C, Δ, σ, noise saved and utility for each λ (and width).

    Reads only the shape of the table (records, features, targets: the
    Parquet metadata, or the CSV header and its records counted by the parser
    of release, no value kept), never a value.

    \b
    Example:
      synthamp plan --data private.csv --targets y --label-bound 1 \\
          --epsilon 1 --delta 1e-5 --ridge 0.1,1,10 --width 20,100000
    """
    from synthamp.release import plan_release  # loads scipy: heavy, on use only

    target_cols = tabular.parse_columns(targets, param="targets")
    feature_cols = tabular.parse_columns(features, param="features")
    m, d, k = tabular.read_shape(data, target_cols, feature_cols, param="data")
    widths = None
    if width is not None:
        if any(w != int(w) for w in width):
            raise InputError("width", "must be whole numbers")
        widths = [int(w) for w in width]
    from rich.console import Console  # rich: heavy, on use only

    with Console(stderr=True, quiet=no_progress).status("calibrating σ for each choice"):
        result = plan_release(
            n_records=m,
            n_features=d,
            n_targets=k,
            label_bound=label_bound,
            epsilon=epsilon,
            delta=delta,
            ridges=ridge,
            widths=widths,
            n_syn=n_syn,
            releases=releases,
            method=accounting,
        )
    if as_json:
        echo_json(plan_json(result, data))
    else:
        _print_plan(result, data)
    return 0


def plan_json(result, data) -> dict:
    """The plan as one JSON object (docs/json.md; ``echo_json`` adds the version)."""
    return dict(
        data={
            "path": str(data),
            "n_records": result.n_records,
            "n_features": result.n_features,
            "n_targets": result.n_targets,
            "values_read": False,
        },
        target={
            "epsilon": result.epsilon,
            "delta": result.delta,
            "n_syn": result.n_syn,
            "releases": result.releases,
        },
        accounting=result.method,
        label_bound=result.label_bound,
        rows=[dataclasses.asdict(row) for row in result.rows],
        best=result.best,
        criterion=result.criterion,
    )


def _print_plan(result, data) -> None:

    records = "any number of" if result.n_syn is None else f"{result.n_syn:,}"
    if result.releases > 1:
        records = f"{result.releases} releases of {records}"
    targets = "target" if result.n_targets == 1 else "targets"
    click.echo(
        f"{printable(data)}: m = {result.n_records:,} records, d = {result.n_features} features, "
        f"k = {result.n_targets} {targets} (shape only: no value was read)"
    )
    click.echo(
        f"target: ({result.epsilon:g}, {result.delta:g})-DP for {records} synthetic records, "
        f"{result.method} accounting against post-processing"
    )
    header = (
        f"  {'λ':>6} {'width':>7} {'C':>9} {'Δ':>10} {'σ':>10} {'σ post':>10} "
        f"{'saved':>7} {'Gram error':>11} {'/ C²':>8} {'baseline':>10}"
    )
    click.echo(header)
    for i, row in enumerate(result.rows):
        mark = "*" if i == result.best else " "
        click.echo(
            f"{mark} {row.ridge:>6g} {row.width:>7} {row.norm_bound:>9.4g} "
            f"{row.sensitivity:>10.4g} {row.sigma:>10.4g} {row.sigma_post_processing:>10.4g} "
            f"{100 * row.noise_saved:>6.1f}% {row.gram_error:>11.4g} "
            f"{row.relative_gram_error:>8.3g} {row.gram_error_baseline:>10.4g}"
        )
    best = result.rows[result.best]
    click.echo(f"* best: λ = {best.ridge:g}, width {best.width}: {result.criterion}")
    for width in dict.fromkeys(row.width for row in result.rows):
        rows = [row for row in result.rows if row.width == width]
        most = max(row.noise_saved for row in rows)
        if most < 0.05:
            need = min(rows, key=lambda row: row.width_for_amplification)
            click.echo(
                f"width {width}: amplification barely pays (at most {100 * most:.1f}% noise "
                f"saved); it needs a width d ≳ 2(C/σ)² ≈ {need.width_for_amplification:,.0f} "
                f"at λ = {need.ridge:g} (Theorem 5.1, a heuristic guide), e.g. a wide "
                "random-feature generator, or a smaller λ"
            )
    click.echo(
        f"at λ = {best.ridge:g}, width {best.width}: "
        + baseline_verdict(best.gram_error_floor, best.gram_error, best.gram_error_baseline)
    )
    click.echo(
        "Gram error: proven bound on the root-mean-square error (Frobenius) of the Gram matrix "
        "estimated from the synthetic records; baseline: the exact RMSE of the Gaussian "
        "mechanism on the Gram matrix itself; noise saved is not utility gained"
    )
