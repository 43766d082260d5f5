"""Local against global: every bound of a k = 1 release over the exact worst case.

The paper's §8 asks "whether this criterion can be improved to recover the
local rates globally". With the exact k = 1 worst case
(:func:`synthamp.accountant.worst_case_rdp`, the supremum over adjacent pairs of
the unlimited release, docs/theory.md §12) as the denominator, this module
tabulates, over a grid of (d, c = C/σ, s = Δ/σ, α), the ratio to it of

* the certified bounds: post-processing αs²/2 (docs/theory.md §2; tight without
  a norm bound, Proposition 4.3, docs/theory.md §9), the global bound of
  Theorem 5.2 (= Theorem 5.4 at k = 1, the Fisher bound of Theorem 5.3 along the
  path; derived form, :func:`synthamp.bounds.global_bound`), the same with the
  paper's elementary constants, and the smaller of the global bound and
  post-processing (:func:`synthamp.bounds.certified_plateau_bound`);
* the local expansion of Theorem 5.1, 2c²/(2c² + d − 3) times post-processing
  (the paper's printed constant; a HEURISTIC, Δ → 0, never used in a guarantee).

A ratio >= 1 is required of every certified bound; a local ratio < 1 is where
the local rate under-estimates the exact privacy loss.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthamp import bounds
from synthamp._kinds import privacy_quantity
from synthamp.accountant import worst_case_rdp
from synthamp.figures._common import Progress, _kind, _notify, _wide
from synthamp.figures._style import _log_scale, _new_figure, _style_handle

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "AMPLITUDES",
    "DIMS",
    "ORDERS",
    "STEPS",
    "plot_tightness",
    "tightness_data",
    "tightness_ratios",
]

#: Model widths d.
DIMS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)
#: Amplitudes c = C/σ (the engine's domain: amplitudes <= 10³).
AMPLITUDES = (1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0)
#: Steps s = Δ/σ (every c >= s, so the k = 1 gap min(s, c) is s).
STEPS = (0.25, 1.0)
#: Rényi orders.
ORDERS = (1.5, 2.0, 8.0, 32.0)
#: The curves, in the order of the table.
CURVES = ("post_processing", "global", "global_elementary", "certified", "local_upper")


def _grid(quick: bool) -> tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]:
    if quick:
        return (1, 10, 100, 10_000), (1.0, 10.0, 100.0), (0.25,)
    return DIMS, AMPLITUDES, STEPS


@privacy_quantity("heuristic")
def tightness_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of ``fig_tightness``: each bound and the local rate over the exact worst case.

    σ = 1 (every quantity depends on c = C/σ and s = Δ/σ only). For each d, c, s
    and α of the grid: ``exact_worst_case`` (exact: ``value`` is the engine's
    value at the maximising pair, ``error`` its error estimate), and for each
    curve of :data:`CURVES` its value and ``ratio`` = value / exact value:
    ``post_processing``, ``global`` (Theorem 5.2 derived, sharp Fisher bound, exact
    J), ``global_elementary`` (the paper's elementary J and printed Fisher
    bound), ``certified`` (min of ``global`` and post-processing), all certified,
    and ``local_upper`` (Theorem 5.1, 2c²/(2c² + d − 3)·αs²/2; heuristic).

    Parameters
    ----------
    quick : bool, default False
        Coarse grid (d = 1, 10, 100, 10⁴; c = 1, 10, 100; s = 0.25).
    progress : callable, optional
        ``progress(done, total)`` after each (d, c, s).

    Returns
    -------
    pandas.DataFrame
        Columns ``d, norm_bound, sensitivity, alpha, curve, kind, value, error,
        ratio, sigma``.
    """
    dims, amplitudes, steps = _grid(quick)
    alpha = np.asarray(ORDERS)
    total = len(dims) * len(amplitudes) * len(steps)
    done = 0
    rows = []
    certified = _kind(bounds.global_bound)
    for d in dims:
        for c in amplitudes:
            for s in steps:
                wc = worst_case_rdp(alpha, d, c, s, full_output=True)
                post = bounds.post_processing_rdp(alpha, s)
                glob = bounds.global_bound(alpha, d, c, s)
                values = {
                    "post_processing": (_kind(bounds.post_processing_rdp), post),
                    "global": (certified, glob),
                    "global_elementary": (
                        certified,
                        bounds.global_bound(
                            alpha, d, c, s, integral="elementary", fisher_bound="simple"
                        ),
                    ),
                    "certified": (
                        _kind(bounds.certified_plateau_bound),
                        bounds.certified_plateau_bound(alpha, d, c, s),
                    ),
                    "local_upper": (
                        _kind(bounds.amplification_ratio_local_upper),
                        bounds.amplification_ratio_local_upper(d, c, fisher_bound="simple") * post,
                    ),
                }
                for i, a in enumerate(alpha):
                    base = (d, c, s, float(a))
                    exact = float(wc.estimate[i])
                    rows.append(
                        (*base, "exact_worst_case", _kind(worst_case_rdp), exact,
                         float(wc.error[i]), 1.0)
                    )  # fmt: skip
                    for curve, (kind, value) in values.items():
                        v = float(value[i])
                        rows.append((*base, curve, kind, v, math.nan, v / exact))
                done += 1
                _notify(progress, done, total)
    columns = ["d", "norm_bound", "sensitivity", "alpha", "curve", "kind", "value", "error"]
    frame = pd.DataFrame(rows, columns=[*columns, "ratio"])
    return frame.assign(sigma=1.0)


def tightness_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """The ratios of :func:`tightness_data`, one row per (d, c, s, α), one column per curve.

    Adds ``global_within_2x`` (Theorem 5.2 <= 2 × exact), ``certified_within_2x``
    and ``local_under`` (the local rate below the exact worst case), and
    ``exact_error`` (the exact value's error estimate relative to it).
    """
    index = ["d", "norm_bound", "sensitivity", "alpha"]
    wide = _wide(frame, index, "ratio").drop(columns="exact_worst_case")
    values = _wide(frame, index)
    errors = _wide(frame, index, "error")
    wide["exact"] = values["exact_worst_case"]
    wide["exact_error"] = errors["exact_worst_case"] / values["exact_worst_case"]
    wide["global_within_2x"] = wide["global"] <= 2.0
    wide["certified_within_2x"] = wide["certified"] <= 2.0
    wide["local_under"] = wide["local_upper"] < 1.0
    return wide


def _edges(values: np.ndarray) -> np.ndarray:
    """Cell edges, geometric midpoints, for a log-spaced grid of centres."""
    logs = np.log(values)
    mids = 0.5 * (logs[1:] + logs[:-1])
    first = logs[0] - (mids[0] - logs[0]) if values.size > 1 else logs[0] - 0.5
    last = logs[-1] + (logs[-1] - mids[-1]) if values.size > 1 else logs[-1] + 0.5
    return np.exp(np.concatenate([[first], mids, [last]]))


def plot_tightness(frame: pd.DataFrame) -> Figure:
    """``fig_tightness`` from :func:`tightness_data`: ratio maps over (d, c), per α and s.

    Rows: Theorem 5.2 / exact and Theorem 5.1 local / exact for each s; columns: α.
    The contour 2 marks where the global bound is within 2× (certified); the
    contour 1 where the local rate meets the exact value (below it: under-estimate).
    """
    # matplotlib is heavy: imported only when a figure is drawn
    from matplotlib.colors import LogNorm, TwoSlopeNorm

    ratios = tightness_ratios(frame)
    alphas = sorted(frame["alpha"].unique())
    steps = sorted(frame["sensitivity"].unique())
    panels = [("global", s) for s in steps] + [("local_upper", s) for s in steps]
    fig = _new_figure(len(panels), len(alphas), 3.7 * len(alphas) + 1.2, 0.9 + 3.0 * len(panels))
    axes = np.asarray(fig.axes).reshape(len(panels), len(alphas))
    kinds = {curve: "/".join(sorted(frame.loc[frame["curve"] == curve, "kind"].unique()))
             for curve in ("global", "local_upper", "exact_worst_case")}  # fmt: skip
    titles = {"global": "Thm 5.2 global / exact", "local_upper": "Thm 5.1 local / exact"}
    for r, (curve, s) in enumerate(panels):
        mesh = None
        for col, alpha in enumerate(alphas):
            ax = axes[r, col]
            sub = ratios.xs((s, alpha), level=("sensitivity", "alpha"))[curve].unstack("d")
            dims = sub.columns.to_numpy(dtype=float)
            amps = sub.index.to_numpy(dtype=float)
            z = sub.to_numpy()
            if curve == "global":
                norm = LogNorm(vmin=1.0, vmax=max(10.0, float(np.nanmax(ratios["global"]))))
                cmap, level = "viridis", 2.0
            else:
                lo = min(0.5, float(np.nanmin(ratios["local_upper"])))
                hi = max(2.0, float(np.nanmax(ratios["local_upper"])))
                norm, cmap, level = TwoSlopeNorm(1.0, lo, hi), "RdBu", 1.0
            mesh = ax.pcolormesh(_edges(dims), _edges(amps), z, norm=norm, cmap=cmap)
            if dims.size > 1 and amps.size > 1 and np.nanmin(z) < level < np.nanmax(z):
                ax.contour(dims, amps, z, levels=[level], colors="black", linewidths=1.4)
            _log_scale(ax, "xy")
            ax.set_xlabel("model width d")
            ax.set_ylabel("c = C/σ")
            ax.set_title(f"{titles[curve]}, s = Δ/σ = {s:g}, α = {alpha:g}", fontsize=8.5)
        fig.colorbar(mesh, ax=list(axes[r]), label="ratio", shrink=0.9)
    handles = [
        _style_handle(f"{titles['global']} = 2 (global bound within 2× inside) "
                      f"[{kinds['global']}]", color="black", lw=1.4),
        _style_handle(f"{titles['local_upper']} = 1 (red: local rate under-estimates) "
                      f"[{kinds['local_upper']}]", color="black", lw=1.4),
        _style_handle(f"denominator: exact k = 1 worst case [{kinds['exact_worst_case']}]",
                      ls=""),
    ]  # fmt: skip
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=3)
    fig.suptitle(
        "Local against global (k = 1, σ = 1): the certified Theorem 5.2 bound and the "
        "Theorem 5.1 local rate over the exact worst case"
    )
    return fig
