"""The k ≥ 2 certificate against D and k (docs/theory.md §20): certified, realised, Theorem 5.4.

For wine's shape on the orthogonal design (m = 178, λ = 0.01, B = 1: G = g·I, c* = B√g,
Δ = 2B√g, C = B√(mg), docs/theory.md §19) at a fixed noise σ = 0.03 and δ = 1e-5, one
unlimited release of k target columns, this module tabulates against the width D:

* ``certified``: the guarantee of :func:`synthamp.accountant.account_certified` (the orthogonal
  node's PLD at width D − k and c*, the smaller of it and post-processing; certified);
* ``lower_realised``: the ε of the realised adjacent pair yᵢ = Be₁ → Be₂ (every other row 0),
  the canonical π/2 pair at the full width D (its optimistic PLD: a true lower bound);
* ``theorem_5_4``: the norm model's global bound (Theorem 5.4: Theorem 5.2 at m = ⌊D/k⌋, at the
  design's C and Δ; :func:`synthamp.bounds.global_bound`), converted by
  :func:`synthamp.accountant.rdp_to_epsilon` (certified, uncapped);
* ``post_processing``: releasing V itself (the Gaussian mechanism at Δ, exact).

The truth lies between ``lower_realised`` and ``certified``; their ratio tends to 1 as D grows
(only the k peeled degrees of freedom separate them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthamp import bounds as paper_bounds
from synthamp._kinds import privacy_quantity
from synthamp.accountant import account_certified, rdp_to_epsilon
from synthamp.accountant._releases import DEFAULT_ORDERS
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.design._release import certified_design_release
from synthamp.figures._common import Progress, _notify
from synthamp.figures._style import _log_scale, _new_figure, _style_handle

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["CERTIFICATE_SIGMA", "CERTIFICATE_WIDTHS", "k_certificate_data", "plot_k_certificate"]

#: wine's shape, the noise and δ.
RECORDS, RIDGE, LABEL_BOUND, DELTA = 178, 0.01, 1.0, 1e-5
#: The fixed noise σ (wine's 13-column release calibrates σ ≈ 0.022 at D = 10⁶, ε = 1).
CERTIFICATE_SIGMA = 0.03
#: Widths D and target columns k.
CERTIFICATE_WIDTHS = (1_000, 10_000, 100_000, 1_000_000)
CERTIFICATE_COLUMNS = (2, 3, 13)
#: The curves, in the order of the table.
CURVES = ("certified", "lower_realised", "theorem_5_4", "post_processing")


def _grid(quick: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if quick:
        return (1_000, 100_000), (2, 3)
    return CERTIFICATE_WIDTHS, CERTIFICATE_COLUMNS


@privacy_quantity("certified")
def k_certificate_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of ``fig_k_certificate`` (module docstring): ε at δ = 1e-5 against D and k.

    Parameters
    ----------
    quick : bool, default False
        D = 10³, 10⁵ and k = 2, 3.
    progress : callable, optional
        ``progress(done, total)`` after each (D, k).

    Returns
    -------
    pandas.DataFrame
        Columns ``d, k, curve, kind, value, error, sigma, delta``: ``value`` the ε of the
        curve (``kind`` certified, or exact for the realised pair's lower bound and
        post-processing), ``error`` NaN.
    """
    widths, columns = _grid(quick)
    design = orthogonal_bounds(RECORDS, RIDGE, LABEL_BOUND)
    orders = np.asarray(DEFAULT_ORDERS)
    rows = []
    total, done = len(widths) * len(columns), 0
    for width in widths:
        for k in columns:
            public = certified_design_release(design, LABEL_BOUND, width, k).with_sigma(
                CERTIFICATE_SIGMA
            )
            g = account_certified(public, DELTA)
            rdp = paper_bounds.global_bound(
                orders, width, design.norm_bound, design.sensitivity, CERTIFICATE_SIGMA,
                out_dim=k,
            )  # fmt: skip
            theorem, _ = rdp_to_epsilon(orders, rdp, DELTA, warn=False)
            values = {
                "certified": ("certified", g.epsilon),
                "lower_realised": ("exact", g.epsilon_lower_realised),
                "theorem_5_4": ("certified", theorem),
                "post_processing": ("exact", g.epsilon_post_processing),
            }
            for curve, (kind, value) in values.items():
                value = math.nan if value is None else float(value)
                rows.append((width, k, curve, kind, value, math.nan))
            done += 1
            _notify(progress, done, total)
    frame = pd.DataFrame(rows, columns=["d", "k", "curve", "kind", "value", "error"])
    return frame.assign(sigma=CERTIFICATE_SIGMA, delta=DELTA)


def plot_k_certificate(frame: pd.DataFrame) -> Figure:
    """``fig_k_certificate``: per k, ε against D of each curve, and certified / lower below."""
    ks = sorted(frame["k"].unique())
    fig = _new_figure(2, len(ks), 4.0 * len(ks) + 0.8, 7.2)
    axes = np.asarray(fig.axes).reshape(2, len(ks))
    styles = {
        "theorem_5_4": ("C3", "--", "Theorem 5.4 (norm model) [certified]"),
        "post_processing": ("grey", ":", "post-processing (release V) [exact]"),
        "certified": ("C0", "-", "certified k ≥ 2 guarantee [certified]"),
        "lower_realised": ("C2", "-.", "realised pair yᵢ = Be₁ → Be₂ [lower bound]"),
    }
    for col, k in enumerate(ks):
        sub = frame[frame["k"] == k]
        wide = sub.pivot_table(index="d", columns="curve", values="value")
        ax = axes[0, col]
        for curve, (color, ls, _) in styles.items():
            if curve in wide:
                ax.plot(wide.index, wide[curve], ls, marker="o", color=color)
        _log_scale(ax, "xy")
        ax.set_xlabel("design width D")
        ax.set_ylabel(f"ε at δ = {frame['delta'].iloc[0]:g}")
        ax.set_title(f"k = {k}", fontsize=9)
        low = axes[1, col]
        low.plot(wide.index, wide["certified"] / wide["lower_realised"], "-", marker="o",
                 color="C0")  # fmt: skip
        low.axhline(1.0, color="black", lw=0.8)
        _log_scale(low, "x")
        low.set_xlabel("design width D")
        low.set_ylabel("certified / realised lower bound")
    handles = [_style_handle(label, color=c, ls=ls) for c, ls, label in styles.values()]
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=2)
    fig.suptitle(
        f"The k ≥ 2 certificate (orthogonal design, wine's shape m = 178, λ = 0.01, σ = "
        f"{frame['sigma'].iloc[0]:g}): the truth lies between the realised pair and the "
        "certificate",
        fontsize=9,
    )
    return fig
