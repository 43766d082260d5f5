"""The plot functions: each draws exactly the table of its data function.

matplotlib's object interface on an Agg canvas, no pyplot state; matplotlib
(heavy) is imported only inside the functions that draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthamp.figures._common import _GUIDE
from synthamp.figures._style import (
    _colors,
    _flag_handles,
    _kind_of,
    _label,
    _label_axes,
    _log_scale,
    _new_figure,
    _plot_engine_points,
    _style_handle,
    _tick_1_2_5,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "plot_amplification_ratio",
    "plot_calibration",
    "plot_gap",
    "plot_global_bound",
    "plot_n_syn",
    "plot_no_norm_bound",
    "plot_summary",
]


def plot_summary(frame: pd.DataFrame) -> Figure:
    """Figure 1 from :func:`summary_data`."""
    fig = _new_figure(1, 1, 9.0, 7.5)
    ax = fig.axes[0]
    styles = {
        "exact_worst_case": {"color": "black", "lw": 2.2, "marker": "o", "ms": 3},
        "post_processing": {"color": "tab:red", "lw": 1.8},
        "global": {"color": "tab:blue", "lw": 1.8, "ls": "--"},
        "local_upper": {"color": "tab:green", "lw": 1.4, "ls": ":"},
        "local_lower": {"color": "tab:olive", "lw": 1.4, "ls": ":"},
    }
    for curve, style in styles.items():
        rows = frame[frame["curve"] == curve]
        ax.plot(rows["d"], rows["value"], label=_label(curve, _kind_of(frame, curve)), **style)
    prior = frame[frame["curve"] == "prior_work"]
    finite = frame[frame["curve"] == "exact_finite"]
    shades = ["#fdae6b", "#e6550d", "#7f2704"]
    for n, shade in zip(sorted(finite["n_syn"].dropna().unique()), shades, strict=False):
        rows = finite[finite["n_syn"] == n]
        label = _label("exact_finite", _kind_of(frame, "exact_finite"), f", n_syn = {n:.0f}")
        ax.plot(rows["d"], rows["value"], color=shade, lw=1.3, marker=".", ms=4, label=label)
        rows = prior[prior["n_syn"] == n]
        label = _label("prior_work", _kind_of(frame, "prior_work"), f", n_syn = {n:.0f}")
        ax.plot(rows["d"], rows["value"], color=shade, lw=1.3, ls="-.", label=label)
    _log_scale(ax, "xy")
    p = frame.iloc[0]
    _label_axes(
        fig,
        ax,
        xlabel="model width d",
        ylabel="Rényi divergence (nats)",
        title=f"k = 1, α = {p['alpha']:g}, C = {p['norm_bound']:g}, "
        f"Δ = {p['sensitivity']:g}, σ = {p['sigma']:g} (worst-case pair ‖v‖ = C, ‖w‖ = C − Δ)",
        suptitle="Figure 1: privacy loss of synthetic data against d",
    )
    fig.legend(fontsize=8, loc="outside lower center", ncols=2)
    return fig


def plot_n_syn(frame: pd.DataFrame) -> Figure:
    """Figure 2 from :func:`n_syn_data`."""
    fig = _new_figure(1, 1, 9.0, 6.4)
    ax = fig.axes[0]
    dims = sorted(frame["d"].unique())
    flagged = False
    for d, color in zip(dims, _colors(len(dims)), strict=True):
        rows = frame[(frame["d"] == d) & (frame["curve"] == "finite")]
        flagged |= _plot_engine_points(ax, rows, color, f"d = {d}")
        plateau = frame[(frame["d"] == d) & (frame["curve"] == "plateau")]
        ax.plot(plateau["n_syn"], plateau["value"], color=color, ls=":", lw=1.5)
    post = frame[frame["curve"] == "post_processing"].drop_duplicates("n_syn")
    ax.plot(post["n_syn"], post["value"], color="tab:red", lw=1.8)
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        _style_handle(_label("finite", _kind_of(frame, "finite")), marker="o", ms=3),
        _style_handle(_label("plateau", _kind_of(frame, "plateau")), ls=":", lw=1.5),
        _style_handle(
            _label("post_processing", _kind_of(frame, "post_processing")), color="tab:red"
        ),
        *_flag_handles(flagged, "value"),
    ]
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=4)
    _log_scale(ax, "x")
    p = frame.iloc[0]
    _label_axes(
        fig,
        ax,
        xlabel="number of synthetic records n_syn",
        ylabel="D_α(ZV‖ZW) (nats)",
        title=f"k = 1, α = {p['alpha']:g}, C = 2, ‖v‖ = {p['norm_v']:g}, "
        f"‖w‖ = {p['norm_w']:g}, σ = {p['sigma']:g}; plateaus dotted",
        suptitle="Figure 2: the privacy loss converges to a plateau below post-processing",
    )
    return fig


def plot_gap(table: pd.DataFrame) -> Figure:
    """The gap figure from :func:`gap_table`."""
    fig = _new_figure(1, 1, 8.0, 5.2)
    ax = fig.axes[0]
    gaps = table[table["curve"] == "gap"]
    dims = sorted(gaps["d"].dropna().unique())
    flagged = False
    for d, color in zip(dims, _colors(len(dims)), strict=True):
        rows = gaps[(gaps["d"] == d) & (gaps["value"] > 0)]
        flagged |= _plot_engine_points(ax, rows, color, f"d = {d}")
    guide = table[table["curve"] == "guide_1_over_n"]
    ax.plot(guide["n_syn"], guide["value"], color="0.4", ls="--", lw=1.3)
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        _style_handle(_label("gap", _kind_of(table, "gap")), marker="o", ms=3),
        _style_handle(_label("guide_1_over_n", _GUIDE), ls="--", color="0.4"),
        *_flag_handles(flagged, "gap"),
    ]
    ax.legend(handles=handles, fontsize=8, loc="lower left")
    _log_scale(ax, "xy")
    p = table.iloc[0]
    _label_axes(
        fig,
        ax,
        xlabel="number of synthetic records n_syn",
        ylabel="D_α(VᵀV‖WᵀW) − D_α(ZV‖ZW) (nats)",
        title=f"k = 1, α = {p['alpha']:g}, ‖v‖ = {p['norm_v']:g}, ‖w‖ = {p['norm_w']:g}, "
        f"σ = {p['sigma']:g}",
        suptitle="Gap to the plateau: decays like 1/n_syn (Proposition 7.1)",
    )
    return fig


def plot_amplification_ratio(frame: pd.DataFrame) -> Figure:
    """Figure 3 from :func:`amplification_ratio_data`."""
    families = [f for f in ("top", "bottom") if f in set(frame["family"])]
    alphas = sorted(frame["alpha"].unique())
    fig = _new_figure(len(families), len(alphas), 4.2 * len(alphas), 0.6 + 3.9 * len(families))
    axes = np.asarray(fig.axes).reshape(len(families), len(alphas))
    dims = sorted(frame["d"].unique())
    colors = _colors(len(dims))
    titles = {"top": "‖v‖ = C = 2, ‖w‖ = 2 − Δ", "bottom": "‖w‖ = 1, ‖v‖ = 1 + Δ"}
    for r, family in enumerate(families):
        for col, alpha in enumerate(alphas):
            ax = axes[r, col]
            sub = frame[(frame["family"] == family) & (frame["alpha"] == alpha)]
            for d, color in zip(dims, colors, strict=True):
                rows = sub[sub["d"] == d]
                eta = rows[rows["curve"] == "eta"]
                ax.plot(eta["sensitivity"], eta["value"], color=color, lw=1.8, label=f"d = {d}")
                for curve in ("envelope_lower", "envelope_upper"):
                    env = rows[rows["curve"] == curve]
                    ax.plot(env["sensitivity"], env["value"], color=color, lw=0.9, ls="--")
                limit = rows[rows["curve"] == "fisher_limit"]
                ax.plot(limit["sensitivity"], limit["value"], "D", color=color, ms=4, clip_on=False)
            ax.set_title(f"{titles[family]}, α = {alpha:g}", fontsize=9.5)
            ax.set_xlim(0.0, 1.0)
            ax.set_ylim(0.0, 1.05)
            ax.set_xlabel("Δ = ‖v‖ − ‖w‖")
            ax.set_ylabel("η = D_α(VᵀV‖WᵀW) / D_α(V‖W)")
            ax.grid(True, alpha=0.3)
    handles, _ = axes[0, 0].get_legend_handles_labels()
    handles += [
        _style_handle(_label("eta", _kind_of(frame, "eta")), lw=1.8),
        _style_handle(
            _label("envelope", _kind_of(frame, "envelope_upper"), ": lower and upper"),
            ls="--",
            lw=0.9,
        ),
        _style_handle(
            _label("fisher_limit", _kind_of(frame, "fisher_limit")), marker="D", ms=4, ls=""
        ),
    ]
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=min(len(handles), 5))
    fig.suptitle(
        "Figure 3: amplification ratio against Δ, 1 ≤ ‖w‖ ≤ ‖v‖ ≤ C = 2, σ = 1, with the "
        "Theorem 5.1 envelope 2‖w‖²/(2‖w‖²+d) ≲ η ≲ 2C²/(2C²+d−3)"
    )
    return fig


def plot_global_bound(frame: pd.DataFrame) -> Figure:
    """Figure 6 from :func:`global_bound_data`."""
    sensitivities = sorted(frame["sensitivity"].unique())
    fig = _new_figure(1, len(sensitivities), 4.6 * len(sensitivities), 5.4)
    styles = {
        "exact_worst_case": {"color": "black", "lw": 2.2, "marker": "o", "ms": 3},
        "post_processing": {"color": "tab:red", "lw": 1.8},
        "global": {"color": "tab:blue", "lw": 1.8, "ls": "--"},
        "global_elementary": {"color": "tab:cyan", "lw": 1.4, "ls": "-."},
        "global_as_printed": {"color": "tab:purple", "lw": 1.2, "ls": ":"},
    }
    for ax, s in zip(fig.axes, sensitivities, strict=True):
        sub = frame[frame["sensitivity"] == s]
        for curve, style in styles.items():
            rows = sub[sub["curve"] == curve]
            ax.plot(rows["d"], rows["value"], label=_label(curve, _kind_of(frame, curve)), **style)
        _log_scale(ax, "xy")
        ax.set_xlabel("model width d")
        ax.set_ylabel("bound on D_α(VᵀV‖WᵀW) (nats)")
        ax.set_title(f"Δ = {s:g}", fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    fig.legend(
        *fig.axes[0].get_legend_handles_labels(), fontsize=8, loc="outside lower center", ncols=3
    )
    p = frame.iloc[0]
    fig.suptitle(
        f"Figure 6: the global bound of Theorem 5.2 against d (k = 1, α = {p['alpha']:g}, "
        f"C = {p['norm_bound']:g}, σ = {p['sigma']:g})"
    )
    return fig


def plot_calibration(frame: pd.DataFrame) -> Figure:
    """The calibration figure from :func:`calibration_data`."""
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib.ticker import FuncFormatter

    cases = list(frame[["norm_bound", "sensitivity"]].drop_duplicates().itertuples(index=False))
    fig = _new_figure(1, len(cases), max(5.2 * len(cases), 7.0), 4.8)
    styles = {
        "amplified": {"color": "black", "lw": 2.2, "marker": "o", "ms": 3},
        "post_processing": {"color": "tab:red", "lw": 1.8},
        "global": {"color": "tab:blue", "lw": 1.6, "ls": "--"},
    }
    labels = {
        "amplified": "synthetic data, exact worst case",
        "post_processing": "releasing the model (post-processing)",
        "global": "synthetic data, Thm 5.2 alone",
    }
    for ax, (c, s) in zip(fig.axes, cases, strict=True):
        sub = frame[(frame["norm_bound"] == c) & (frame["sensitivity"] == s)]
        for curve, style in styles.items():
            rows = sub[sub["curve"] == curve]
            label = f"{labels[curve]} [{_kind_of(frame, curve)}]"
            ax.plot(rows["d"], rows["value"], label=label, **style)
        _log_scale(ax, "x")
        ax.set_yscale("log")  # a narrow range: label the minor ticks 2 and 5 too
        ax.yaxis.set_major_formatter(FuncFormatter(_tick_1_2_5))
        ax.yaxis.set_minor_formatter(FuncFormatter(_tick_1_2_5))
        ax.set_xlabel("model width d")
        ax.set_ylabel("noise σ")
        ax.set_title(f"C = {c:g}, Δ = {s:g}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    fig.axes[0].legend(fontsize=8, loc="lower left")
    p = frame.iloc[0]
    fig.suptitle(
        f"Noise σ for (ε, δ) = ({p['epsilon']:g}, {p['delta']:g}) against d: "
        "unlimited synthetic data (k = 1) vs the model"
    )
    return fig


def plot_no_norm_bound(frame: pd.DataFrame) -> Figure:
    """The no-norm-bound figure from :func:`no_norm_bound_data`."""
    fig = _new_figure(1, 1, 7.5, 4.8)
    ax = fig.axes[0]
    dims = sorted(frame["d"].unique())
    for d, color in zip(dims, _colors(len(dims)), strict=True):
        rows = frame[frame["d"] == d]
        ax.plot(rows["t"], rows["value"], color=color, marker="o", ms=3, label=f"d = {d}")
    ax.axhline(1.0, color="tab:red", lw=1.2)
    handles, _ = ax.get_legend_handles_labels()
    handles += [
        _style_handle(_label("ratio", _kind_of(frame, "ratio")), marker="o", ms=3),
        _style_handle("post-processing (ratio 1) [certified]", color="tab:red"),
    ]
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    _log_scale(ax, "x")
    p = frame.iloc[0]
    _label_axes(
        fig,
        ax,
        xlabel="t = ‖v_t‖ (no bound C)",
        ylabel="D_α(V_tᵀV_t‖W_tᵀW_t) / D_α(V_t‖W_t)",
        title=f"v_t = t·e₁, w_t = (t + Δ)·e₁, α = {p['alpha']:g}, "
        f"Δ = {p['sensitivity']:g}, σ = {p['sigma']:g}",
        suptitle="Proposition 4.3: without a norm bound, no amplification in the limit",
    )
    return fig
