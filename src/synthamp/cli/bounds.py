"""``synthamp bounds``: the paper's closed-form bounds for one configuration."""

from __future__ import annotations

import math

import click

from synthamp import bounds as b
from synthamp._validation import check_alpha, check_dim
from synthamp.cli._common import FLOAT_LIST, echo_json

__all__ = ["bounds", "compute_bounds"]


def compute_bounds(
    alpha: list[float],
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
) -> dict:
    """The JSON object of ``synthamp bounds`` (lists over ``alpha``).

    Keys: ``alpha``, ``post_processing``, ``global`` (Theorem 5.2/5.4, exact J),
    ``global_elementary``, ``global_as_printed``, ``local_upper`` (local upper
    ratio times post-processing), ``prior_work`` (None without ``n_syn``),
    ``eta_local_upper`` and ``kinds``.
    """

    alpha_arr = check_alpha(alpha)
    dim = check_dim(dim)
    args = (alpha_arr, dim, norm_bound, sensitivity, sigma, out_dim)
    post = b.post_processing_rdp(alpha_arr, sensitivity, sigma)
    eta = b.amplification_ratio_local_upper(dim, norm_bound, sigma, out_dim)
    result = {
        "alpha": alpha_arr,
        "post_processing": post,
        "global": b.global_bound(*args, integral="exact"),
        "global_elementary": b.global_bound(*args, integral="elementary"),
        "global_as_printed": b.global_bound_as_printed(*args),
        "local_upper": eta * post,
        "prior_work": None,
        "eta_local_upper": eta,
        "kinds": {name: str(kind) for name, kind in b.BOUND_KINDS.items()},
    }
    if n_syn is not None:
        result["prior_work"] = b.prior_work_rdp(alpha_arr, dim, out_dim, n_syn, sensitivity, sigma)
    return result


def _format(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


@click.command()
@click.option(
    "--alpha", type=FLOAT_LIST, default="2,4,8,16,32,64", show_default=True, help="Rényi orders."
)
@click.option("--dim", type=int, required=True, help="Model width d.")
@click.option("--out-dim", type=int, default=1, show_default=True, help="Record dimension k.")
@click.option("--norm-bound", type=float, required=True, help="Norm bound C on ‖v‖_F, ‖w‖_F.")
@click.option("--sensitivity", type=float, required=True, help="Sensitivity Δ ≥ ‖v − w‖_F.")
@click.option("--sigma", type=float, default=1.0, show_default=True, help="Noise scale σ.")
@click.option("--n-syn", type=int, default=None, help="Synthetic records (prior-work baseline).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bounds(alpha, dim, out_dim, norm_bound, sensitivity, sigma, n_syn, as_json) -> None:
    """Closed-form bounds of the paper on the plateau D_α(VᵀV‖WᵀW).

    Certified: post_processing, global (Theorem 5.2/5.4, exact J),
    global_elementary (the paper's elementary J). Heuristic, never a
    guarantee: global_as_printed, local_upper (Theorem 5.1/5.3), prior_work.
    Values are in nats, uncapped; a guarantee uses min(global, post_processing).
    """
    result = compute_bounds(alpha, dim, out_dim, norm_bound, sensitivity, sigma, n_syn)
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
