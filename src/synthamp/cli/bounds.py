"""``synthamp bounds``: the paper's closed-form bounds for one configuration.

A thin layer over :func:`synthamp.jobs.closed_form_bounds` (:mod:`synthamp.bounds`).
"""

from __future__ import annotations

import math

import click

from synthamp.cli._common import FLOAT_LIST, echo_json
from synthamp.cli._options import JSON, options
from synthamp.jobs import closed_form_bounds

__all__ = ["bounds"]


def _format(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


@click.command()
@options(
    click.option("--alpha", type=FLOAT_LIST, default="2,4,8,16,32,64", show_default=True,
                 help="Rényi orders."),
    click.option("--dim", type=int, required=True, help="Model width d."),
    click.option("--out-dim", type=int, default=1, show_default=True, help="Record dimension k."),
    click.option("--norm-bound", type=float, required=True,
                 help="Norm bound C on ‖v‖_F, ‖w‖_F."),
    click.option("--sensitivity", type=float, required=True, help="Sensitivity Δ ≥ ‖v − w‖_F."),
    click.option("--sigma", type=float, default=1.0, show_default=True, help="Noise scale σ."),
    click.option("--n-syn", type=int, default=None,
                 help="Synthetic records (prior-work baseline)."),
    JSON,
)  # fmt: skip
def bounds(as_json, **configuration) -> None:
    """Closed-form bounds of the paper on the plateau D_α(VᵀV‖WᵀW).

    Certified: post_processing, global (Theorem 5.2/5.4, exact J),
    global_elementary (the paper's elementary J). Heuristic, never a
    guarantee: global_as_printed, local_upper (Theorem 5.1/5.3), prior_work.
    Values are in nats, uncapped; a guarantee uses min(global, post_processing).
    """
    result = closed_form_bounds(**configuration)
    if as_json:
        echo_json(result)
        return
    names = ["post_processing", "global", "global_elementary", "global_as_printed", "local_upper"]
    if result["prior_work"] is not None:
        names.append("prior_work")
    header = ["alpha", *(f"{name} ({result['kinds'][name]})" for name in names)]
    rows = [
        [_format(a), *(_format(float(result[name][i])) for name in names)]
        for i, a in enumerate(result["alpha"])
    ]
    widths = [max(len(row[j]) for row in [header, *rows]) for j in range(len(header))]
    for row in [header, *rows]:
        click.echo("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    click.echo(f"eta_local_upper (heuristic): {_format(result['eta_local_upper'])}")
