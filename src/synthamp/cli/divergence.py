"""``synthamp divergence`` and ``synthamp fisher``: the exact engine on the command line.

``divergence`` prints the exact Rényi divergence of one adjacent pair (k = 1)
for unlimited release (the plateau D_α(VᵀV‖WᵀW)) or for ``--n-syn`` records,
with the numerical error of every value; ``fisher`` prints the Fisher
information I(d, θ) of χ²_d(θ²) in θ between the closed-form bounds of
Proposition 5.1 (THEORY.md §3–§5).
"""

from __future__ import annotations

from typing import Any

import click

from synthamp.cli._common import FLOAT_LIST, echo_json

__all__ = ["divergence", "divergence_result", "fisher", "fisher_result"]


def divergence_result(
    alpha: list[float],
    dim: int,
    norm_v: float,
    norm_w: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
) -> dict[str, Any]:
    """The JSON object of ``synthamp divergence``.

    Keys: ``alpha`` (the orders, in the given order), ``renyi`` (D_α, nats),
    ``error`` (estimated absolute numerical error of each value), ``dim``,
    ``norm_v``, ``norm_w``, ``sigma``, ``n_syn`` (None for the plateau) and
    ``kind`` (``"exact"``).
    """
    from synthamp.divergence import renyi_finite, renyi_plateau  # loads scipy: heavy, on use only

    if n_syn is None:
        result = renyi_plateau(alpha, dim, norm_v, norm_w, sigma, full_output=True)
    else:
        result = renyi_finite(alpha, dim, norm_v, norm_w, n_syn, sigma, full_output=True)
    return {
        "alpha": result.alpha,
        "renyi": result.value,
        "error": result.error,
        "dim": dim,
        "norm_v": norm_v,
        "norm_w": norm_w,
        "sigma": sigma,
        "n_syn": n_syn,
        "kind": str(result.kind),
    }


def fisher_result(dim: int, theta: float) -> dict[str, Any]:
    """The JSON object of ``synthamp fisher``.

    Keys: ``dim``, ``theta``, ``fisher`` (I(d, θ)), ``error`` (its estimated
    absolute numerical error), ``lower_bound`` 2θ²/(2θ² + d) and
    ``upper_bound`` min{1, 2θ²/(A + √(A² + 4θ²))}, A = θ² + (d − 3)/2
    (Proposition 5.1; THEORY.md §5).
    """
    # the bounds and the engine load scipy: heavy, on use only
    from synthamp.bounds import fisher_lower_bound, fisher_upper_bound
    from synthamp.divergence import fisher_information

    value, error = fisher_information(dim, theta, full_output=True)
    return {
        "dim": dim,
        "theta": theta,
        "fisher": float(value),
        "error": float(error),
        "lower_bound": float(fisher_lower_bound(dim, theta)),
        "upper_bound": float(fisher_upper_bound(dim, theta)),
    }


def _console():
    from rich.console import Console  # rich: heavy, only to draw a table

    return Console(highlight=False, soft_wrap=True)


@click.command()
@click.option("--alpha", type=FLOAT_LIST, required=True, help="Rényi orders > 1, comma-separated.")
@click.option("--dim", type=int, required=True, help="Model width d (1 to 10^6).")
@click.option("--norm-v", type=float, required=True, help="‖v‖, norm of one parameter (≥ 0).")
@click.option("--norm-w", type=float, required=True, help="‖w‖, norm of its neighbour (≥ 0).")
@click.option("--sigma", type=float, default=1.0, show_default=True, help="Noise scale σ > 0.")
@click.option(
    "--n-syn", type=int, default=None, help="Synthetic records n (default: unlimited release)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def divergence(alpha, dim, norm_v, norm_w, sigma, n_syn, as_json) -> None:
    """Exact Rényi divergence D_α(ZV‖ZW) of one adjacent pair, k = 1.

    Without --n-syn: the plateau D_α(VᵀV‖WᵀW) = D_α(χ²_d(a²)‖χ²_d(b²)),
    a = ‖v‖/σ, b = ‖w‖/σ (unlimited release). With --n-syn: the release of n
    synthetic records. Values in nats, each with its numerical error; a
    guarantee uses value + error.
    """
    result = divergence_result(alpha, dim, norm_v, norm_w, sigma, n_syn)
    if as_json:
        echo_json(result)
        return
    from rich.table import Table  # rich: heavy, only to draw a table

    release = "unlimited release (plateau)" if n_syn is None else f"n_syn = {n_syn:,} records"
    table = Table(
        title=f"D_α, k = 1, d = {dim}, ‖v‖ = {norm_v:g}, ‖w‖ = {norm_w:g}, σ = {sigma:g}, "
        f"{release} ({result['kind']})",
        title_justify="left",
    )
    table.add_column("α", justify="right")
    table.add_column("D_α (nats)", justify="right")
    table.add_column("error", justify="right")
    for order, value, error in zip(result["alpha"], result["renyi"], result["error"], strict=True):
        table.add_row(f"{order:g}", f"{value:.10g}", f"{error:.2g}")
    _console().print(table)


@click.command()
@click.option("--dim", type=int, required=True, help="Degrees of freedom d (1 to 10^6).")
@click.option("--theta", type=float, required=True, help="Amplitude θ = ‖v‖/σ (≥ 0).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def fisher(dim, theta, as_json) -> None:
    """Fisher information I(d, θ) of χ²_d(θ²) in θ, with the bounds of Proposition 5.1.

    I(d, θ) = E[(√X R_ν(θ√X) − θ)²], X ~ χ²_d(θ²); local expansion:
    D_α(VᵀV‖WᵀW) ≈ (α/2) I(d, ‖w‖/σ) (‖v‖ − ‖w‖)²/σ².
    """
    result = fisher_result(dim, theta)
    if as_json:
        echo_json(result)
        return
    from rich.table import Table  # rich: heavy, only to draw a table

    table = Table(title=f"Fisher information, d = {dim}, θ = {theta:g}", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_row("I(d, θ)", f"{result['fisher']:.12g}")
    table.add_row("numerical error", f"{result['error']:.2g}")
    table.add_row("lower bound 2θ²/(2θ² + d)", f"{result['lower_bound']:.12g}")
    table.add_row("upper bound min{1, 2θ²/(A + √(A² + 4θ²))}", f"{result['upper_bound']:.12g}")
    _console().print(table)
