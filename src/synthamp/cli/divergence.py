"""``synthamp divergence`` and ``synthamp fisher``: the exact engine on the command line.

``divergence`` prints the exact Rényi divergence of one adjacent pair (k = 1)
for unlimited release (the plateau D_α(VᵀV‖WᵀW)) or for ``--n-syn`` records,
or, with ``--out-dim 2``, of a pair of two-dimensional records given by their
Gram matrices vᵀv, wᵀw (the plateau, docs/theory.md §15), with the numerical error
of every value; ``fisher`` prints the Fisher
information I(d, θ) of χ²_d(θ²) in θ between the closed-form bounds of
Proposition 5.1 (docs/theory.md §3–§5).
"""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from synthamp._validation import InputError, check_dim
from synthamp.bounds import fisher_lower_bound, fisher_upper_bound
from synthamp.cli._common import FLOAT_LIST, echo_json
from synthamp.divergence import fisher_information, renyi_finite, renyi_plateau, renyi_plateau_gram

__all__ = ["divergence", "divergence_result", "fisher", "fisher_result"]


def _gram_entries(param: str, entries: list[float] | None) -> list[float]:
    if entries is None:
        raise InputError(param, "is required with --out-dim 2 (g11,g12,g22)")
    if len(entries) != 3:
        raise InputError(param, f"must have 3 entries g11,g12,g22, got {len(entries)}")
    return entries


def divergence_result(
    alpha: list[float],
    dim: int,
    norm_v: float | None = None,
    norm_w: float | None = None,
    sigma: float = 1.0,
    n_syn: int | None = None,
    out_dim: int = 1,
    gram_v: list[float] | None = None,
    gram_w: list[float] | None = None,
) -> dict[str, Any]:
    """The JSON object of ``synthamp divergence``.

    Keys: ``alpha`` (the orders, in the given order), ``renyi`` (D_α, nats),
    ``error`` (estimated absolute numerical error of each value), ``dim``,
    ``out_dim`` (k), ``norm_v``, ``norm_w`` (‖v‖_F, ‖w‖_F), ``gram_v``,
    ``gram_w`` (vᵀv and wᵀw: [‖v‖²] for k = 1, [g11, g12, g22] for k = 2),
    ``sigma``, ``n_syn`` (None for the plateau) and ``kind`` (``"exact"``).
    """
    if out_dim not in (1, 2):
        raise InputError("out_dim", f"must be 1 or 2, got {out_dim}")
    if out_dim > check_dim(dim):
        raise InputError("out_dim", f"must be <= dim = {dim}, got {out_dim}")
    if out_dim == 1:
        if gram_v is not None or gram_w is not None:
            raise InputError("gram_v", "is for --out-dim 2 (give --norm-v, --norm-w)")
        for name, norm in (("norm_v", norm_v), ("norm_w", norm_w)):
            if norm is None:
                raise InputError(name, "is required (k = 1)")
        if n_syn is None:
            result = renyi_plateau(alpha, dim, norm_v, norm_w, sigma, full_output=True)
        else:
            result = renyi_finite(alpha, dim, norm_v, norm_w, n_syn, sigma, full_output=True)
        grams = ([norm_v**2], [norm_w**2])
    else:
        if norm_v is not None or norm_w is not None:
            raise InputError("norm_v", "is for --out-dim 1 (give --gram-v, --gram-w)")
        if n_syn is not None:
            raise InputError("n_syn", "the finite release is k = 1 only (omit it: the plateau)")
        grams = (_gram_entries("gram_v", gram_v), _gram_entries("gram_w", gram_w))
        result = renyi_plateau_gram(alpha, dim, grams[0], grams[1], sigma, full_output=True)
        norm_v, norm_w = (math.sqrt(g[0] + g[2]) for g in grams)
    return {
        "alpha": result.alpha,
        "renyi": result.value,
        "error": result.error,
        "dim": dim,
        "out_dim": out_dim,
        "norm_v": norm_v,
        "norm_w": norm_w,
        "gram_v": grams[0],
        "gram_w": grams[1],
        "sigma": sigma,
        "n_syn": n_syn,
        "kind": str(result.kind),
    }


def fisher_result(dim: int, theta: float) -> dict[str, Any]:
    """The JSON object of ``synthamp fisher``.

    Keys: ``dim``, ``theta``, ``fisher`` (I(d, θ)), ``error`` (its estimated
    absolute numerical error), ``lower_bound`` 2θ²/(2θ² + d) and
    ``upper_bound`` min{1, 2θ²/(A + √(A² + 4θ²))}, A = θ² + (d − 3)/2
    (Proposition 5.1; docs/theory.md §5).
    """

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
@click.option("--norm-v", type=float, default=None, help="‖v‖, norm of one parameter (≥ 0), k = 1.")
@click.option("--norm-w", type=float, default=None, help="‖w‖, norm of its neighbour (≥ 0), k = 1.")
@click.option(
    "--out-dim", type=int, default=1, show_default=True, help="Record dimension k (1 or 2)."
)
@click.option("--gram-v", type=FLOAT_LIST, default=None, help="vᵀv as g11,g12,g22 (k = 2).")
@click.option("--gram-w", type=FLOAT_LIST, default=None, help="wᵀw as h11,h12,h22 (k = 2).")
@click.option("--sigma", type=float, default=1.0, show_default=True, help="Noise scale σ > 0.")
@click.option(
    "--n-syn", type=int, default=None, help="Synthetic records n (default: unlimited release)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def divergence(alpha, dim, norm_v, norm_w, out_dim, gram_v, gram_w, sigma, n_syn, as_json) -> None:
    """Exact Rényi divergence D_α(ZV‖ZW) of one pair, k = 1 or 2.

    Without --n-syn: the plateau D_α(VᵀV‖WᵀW) = D_α(χ²_d(a²)‖χ²_d(b²)),
    a = ‖v‖/σ, b = ‖w‖/σ (unlimited release). With --n-syn: the release of n
    synthetic records. With --out-dim 2: the plateau of two-dimensional records,
    D_α(W₂(d, σ²I, vᵀv)‖W₂(d, σ²I, wᵀw)), from the Gram matrices (a given pair's
    exact value: a lower bound on the worst case, never a guarantee by itself).
    Values in nats, each with its numerical error.
    """
    from rich.console import Console  # rich: heavy, on use only

    status = Console(stderr=True).status("computing D_α …") if sys.stderr.isatty() else None
    if status is not None:
        status.start()
    try:
        result = divergence_result(
            alpha, dim, norm_v, norm_w, sigma, n_syn, out_dim, gram_v, gram_w
        )
    finally:
        if status is not None:
            status.stop()
    if as_json:
        echo_json(result)
        return
    from rich.table import Table  # rich: heavy, only to draw a table

    release = "unlimited release (plateau)" if n_syn is None else f"n_syn = {n_syn:,} records"
    if out_dim == 1:
        pair = f"‖v‖ = {norm_v:g}, ‖w‖ = {norm_w:g}"
    else:
        pair = "vᵀv = ({:g}, {:g}, {:g}), wᵀw = ({:g}, {:g}, {:g}) as (g11, g12, g22)".format(
            *gram_v, *gram_w
        )
    table = Table(
        title=f"D_α, k = {out_dim}, d = {dim}, {pair}, σ = {sigma:g}, {release} ({result['kind']})",
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
