"""``synthamp divergence`` and ``synthamp fisher``: the exact engine on the command line.

``divergence`` prints the exact Rényi divergence of one adjacent pair (k = 1)
for unlimited release (the plateau D_α(VᵀV‖WᵀW)) or for ``--n-syn`` records,
or, with ``--out-dim 2``, of a pair of two-dimensional records given by their
Gram matrices vᵀv, wᵀw (the plateau, docs/theory.md §15), with the numerical error
of every value (:func:`synthamp.divergence.pair_divergence`); ``fisher`` prints the
Fisher information I(d, θ) of χ²_d(θ²) in θ between the closed-form bounds of
Proposition 5.1 (docs/theory.md §3–§5; :func:`synthamp.bounds.fisher_with_bounds`).
"""

from __future__ import annotations

import click

from synthamp.cli._common import FLOAT_LIST, echo_json
from synthamp.cli._options import JSON, options
from synthamp.cli._status import live_status
from synthamp.jobs import fisher_with_bounds, pair_divergence

__all__ = ["divergence", "fisher"]


def _print_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]]) -> None:
    """A rich table on stdout: ``columns`` are (header, justification)."""
    from rich.console import Console  # rich: heavy, only to draw a table
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for header, justify in columns:
        table.add_column(header, justify=justify)
    for row in rows:
        table.add_row(*row)
    Console(highlight=False, soft_wrap=True).print(table)


@click.command()
@options(
    click.option("--alpha", type=FLOAT_LIST, required=True,
                 help="Rényi orders > 1, comma-separated."),
    click.option("--dim", type=int, required=True, help="Model width d (1 to 10^6)."),
    click.option("--norm-v", type=float, default=None,
                 help="‖v‖, norm of one parameter (≥ 0), k = 1."),
    click.option("--norm-w", type=float, default=None,
                 help="‖w‖, norm of its neighbour (≥ 0), k = 1."),
    click.option("--out-dim", type=int, default=1, show_default=True,
                 help="Record dimension k (1 or 2)."),
    click.option("--gram-v", type=FLOAT_LIST, default=None, help="vᵀv as g11,g12,g22 (k = 2)."),
    click.option("--gram-w", type=FLOAT_LIST, default=None, help="wᵀw as h11,h12,h22 (k = 2)."),
    click.option("--sigma", type=float, default=1.0, show_default=True, help="Noise scale σ > 0."),
    click.option("--n-syn", type=int, default=None,
                 help="Synthetic records n (default: unlimited release)."),
    JSON,
)  # fmt: skip
def divergence(as_json, **pair) -> None:
    """Exact Rényi divergence D_α(ZV‖ZW) of one pair, k = 1 or 2.

    Without --n-syn: the plateau D_α(VᵀV‖WᵀW) = D_α(χ²_d(a²)‖χ²_d(b²)),
    a = ‖v‖/σ, b = ‖w‖/σ (unlimited release). With --n-syn: the release of n
    synthetic records. With --out-dim 2: the plateau of two-dimensional records,
    D_α(W₂(d, σ²I, vᵀv)‖W₂(d, σ²I, wᵀw)), from the Gram matrices (a given pair's
    exact value: a lower bound on the worst case, never a guarantee by itself).
    Values in nats, each with its numerical error.
    """
    with live_status("computing D_α …"):  # a spinner on a terminal's stderr; nothing otherwise
        result = pair_divergence(**pair)
    if as_json:
        echo_json(result.to_dict())
        return
    n_syn = result.n_syn
    release = "unlimited release (plateau)" if n_syn is None else f"n_syn = {n_syn:,} records"
    if result.out_dim == 1:
        pair = f"‖v‖ = {result.norm_v:g}, ‖w‖ = {result.norm_w:g}"
    else:
        pair = "vᵀv = ({:g}, {:g}, {:g}), wᵀw = ({:g}, {:g}, {:g}) as (g11, g12, g22)".format(
            *result.gram_v, *result.gram_w
        )
    _print_table(
        f"D_α, k = {result.out_dim}, d = {result.dim}, {pair}, σ = {result.sigma:g}, "
        f"{release} ({result.kind})",
        [("α", "right"), ("D_α (nats)", "right"), ("error", "right")],
        [
            [f"{order:g}", f"{value:.10g}", f"{error:.2g}"]
            for order, value, error in zip(result.alpha, result.renyi, result.error, strict=True)
        ],
    )


@click.command()
@click.option("--dim", type=int, required=True, help="Degrees of freedom d (1 to 10^6).")
@click.option("--theta", type=float, required=True, help="Amplitude θ = ‖v‖/σ (≥ 0).")
@JSON
def fisher(dim, theta, as_json) -> None:
    """Fisher information I(d, θ) of χ²_d(θ²) in θ, with the bounds of Proposition 5.1.

    I(d, θ) = E[(√X R_ν(θ√X) − θ)²], X ~ χ²_d(θ²); local expansion:
    D_α(VᵀV‖WᵀW) ≈ (α/2) I(d, ‖w‖/σ) (‖v‖ − ‖w‖)²/σ².
    """
    result = fisher_with_bounds(dim, theta)
    if as_json:
        echo_json(result)
        return
    _print_table(
        f"Fisher information, d = {dim}, θ = {theta:g}",
        [("quantity", "left"), ("value", "right")],
        [
            ["I(d, θ)", f"{result['fisher']:.12g}"],
            ["numerical error", f"{result['error']:.2g}"],
            ["lower bound 2θ²/(2θ² + d)", f"{result['lower_bound']:.12g}"],
            ["upper bound min{1, 2θ²/(A + √(A² + 4θ²))}", f"{result['upper_bound']:.12g}"],
        ],
    )
