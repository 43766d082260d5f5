"""Shared matplotlib helpers of the plot functions: figure, axes, colours, legend labels.

Every legend label names the kind of its curve. matplotlib is heavy: it is
imported inside the functions that draw, never at module level.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

#: Human-readable names of the curves, for legends.
CURVE_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "exact_worst_case": "exact worst case, D_α(VᵀV‖WᵀW)",
        "exact_finite": "exact worst case, D_α(ZV‖ZW)",
        "post_processing": "post-processing, αΔ²/(2σ²)",
        "local_upper": "Thm 5.1 local upper, 2C²/(2C²+d−3)·post",
        "local_lower": "Thm 5.1 local lower, 2‖w‖²/(2‖w‖²+d)·post",
        "global": "Thm 5.2 global bound (derived)",
        "global_elementary": "Thm 5.2, elementary J and printed Fisher bound",
        "global_as_printed": "Thm 5.2 as printed",
        "prior_work": "prior work (Pierquin et al. 2025)",
        "finite": "D_α(ZV‖ZW)",
        "plateau": "plateau D_α(VᵀV‖WᵀW)",
        "eta": "exact η",
        "envelope": "Thm 5.1 envelope",
        "fisher_limit": "Δ → 0 limit I(d, ‖w‖) (Prop. 3.1)",
        "amplified": "amplified (exact worst case)",
        "gap": "plateau − D_α(ZV‖ZW)",
        "guide_1_over_n": "∝ 1/n_syn (Prop. 7.1 rate)",
        "ratio": "plateau / post-processing",
    }
)

#: Engine points whose error estimate exceeds this share of the value are drawn hollow.
FLAG_RELATIVE_ERROR = 1e-3


def _label(curve: str, kind: str, extra: str = "") -> str:
    return f"{CURVE_LABELS[curve]}{extra} [{kind}]"


def _new_figure(nrows: int, ncols: int, width: float, height: float) -> Figure:
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    fig.subplots(nrows, ncols, squeeze=False)
    return fig


def _log_scale(ax, which: str) -> None:
    """Log scale on the axes in ``which`` ("x", "y" or "xy"), a tick per decade, no minor ticks.

    (Minor ticks of log axes spanning many decades dominate the drawing time.)
    """
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib.ticker import LogLocator, NullLocator

    for name in which:
        getattr(ax, f"set_{name}scale")("log")
        axis = ax.xaxis if name == "x" else ax.yaxis
        axis.set_major_locator(LogLocator(base=10.0, numticks=12))
        axis.set_minor_locator(NullLocator())


def _colors(count: int) -> list:
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    return [cmap(0.9 * i / max(count - 1, 1)) for i in range(count)]


def _style_handle(label: str, **style):
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib.lines import Line2D

    return Line2D([], [], label=label, **{"color": "0.3", **style})


def _kind_of(frame: pd.DataFrame, curve: str) -> str:
    kinds = frame.loc[frame["curve"] == curve, "kind"].unique()
    return "/".join(sorted(kinds))


def _flag_hollow(ax, x, y, error, color) -> bool:
    """Draw hollow markers where the engine's error estimate is large; return whether any."""
    flagged = np.asarray(error) > FLAG_RELATIVE_ERROR * np.abs(np.asarray(y))
    if np.any(flagged):
        ax.plot(
            np.asarray(x)[flagged],
            np.asarray(y)[flagged],
            "o",
            mfc="white",
            mec=color,
            ms=7,
            zorder=5,
        )
    return bool(np.any(flagged))


def _label_axes(fig, ax, *, xlabel: str, ylabel: str, title: str, suptitle: str) -> None:
    """Axis labels, a small axes title, major grid lines and the figure's title."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    fig.suptitle(suptitle)


def _plot_engine_points(ax, rows: pd.DataFrame, color, label: str) -> bool:
    """Engine values against n_syn, hollow where the error estimate is large; whether any is."""
    ax.plot(rows["n_syn"], rows["value"], color=color, marker="o", ms=3, label=label)
    return _flag_hollow(ax, rows["n_syn"], rows["value"], rows["error"], color)


def _flag_handles(flagged: bool, quantity: str) -> list:
    """The legend entry of the hollow markers of :func:`_flag_hollow`, if any was drawn."""
    if not flagged:
        return []
    return [
        _style_handle(
            f"engine error estimate > {FLAG_RELATIVE_ERROR:g} × {quantity}",
            marker="o",
            mfc="white",
            ls="",
            ms=7,
        )
    ]


def _tick_1_2_5(value: float, _position=None) -> str:
    """Tick label for values 1, 2 or 5 times a power of ten; empty otherwise."""
    if value <= 0:
        return ""
    mantissa = value / 10.0 ** math.floor(math.log10(value) + 1e-9)
    return f"{value:g}" if any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5)) else ""
