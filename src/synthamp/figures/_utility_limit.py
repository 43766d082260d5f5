"""The utility limit (docs/theory.md §20): the records' error over the best anchor against D.

On a public design the records estimate the Gram matrix vᵀv with the exact error of
:func:`synthamp.utility.records_gram_rmse` (n → ∞ here). As the width D grows under the
release's own accounting (the Gram adjacency: the exact k = 1 theorem, the certified reduction
for k ≥ 2), this error converges to the Gaussian mechanism's on the same statistic from above
and never goes below it; the honest anchors are the best mechanisms for the statistic: the
Laplace mechanism on ‖v‖² (k = 1, one release) and the trace-shaped Gaussian (k ≥ 2). This
module tabulates, for wine's shape (m = 178, λ = 0.01, B = 1, public seed 7) at
(ε, δ) = (1, 1e-5), on the **orthogonal** design (G = g·I) and on **iid** random seeds
(``random-seeds``, G from the certified design bounds), k = 1, 2, 3 and D from 10³ to 10⁶:

* ``records_over_best``: the records' RMSE at the worst model ‖v‖_F = C (what the release
  states, :func:`synthamp.utility.gram_error_bound`) over the best anchor's (exact);
* ``records_over_gaussian``: the same over Analyze Gauss (the Gaussian mechanism on vᵀv
  with the design's own replace-one sensitivity, exact);
* ``floor_over_gaussian``: the records' error at v = 0 (the noise alone, a lower bound for
  every v) over Analyze Gauss;
* ``best_over_gaussian``: the best anchor over Analyze Gauss (a constant: 0.379 for the
  Laplace mechanism at k = 1, 0.882 and 0.935 for the trace-shaped Gaussian at k = 2, 3);
* ``sigma``: the release's σ.

Every ratio is a ratio of exact RMSEs at the σ the accountant certifies (kind of the σ:
exact for k = 1 on the Gram adjacency, certified for k ≥ 2). On the orthogonal design the
anchors' sensitivity is exact; on iid random seeds it is a certified upper bound
(√2·B²·maxᵢ(Gᵢᵢ + 4rᵢ) for k ≥ 2, :func:`synthamp.utility.design_statistic_sensitivity`),
loose where the rᵢ are large, so there the records can look better than anchors that are
over-noised (the full run: k = 2, 3 at D = 10⁴, 10⁵): the comparison is fair on the
orthogonal design only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthamp._kinds import privacy_quantity
from synthamp.accountant import calibrate, calibrate_certified
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.design._orthogonal import orthogonal_bounds
from synthamp.design._release import certified_design_release
from synthamp.figures._common import Progress, _notify
from synthamp.figures._style import _log_scale, _new_figure, _style_handle
from synthamp.utility import design_statistic_sensitivity, release_utility

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["LIMIT_DESIGNS", "LIMIT_WIDTHS", "plot_utility_limit", "utility_limit_data"]

#: wine's shape and the release's settings.
RECORDS, RIDGE, LABEL_BOUND, SEED, EPSILON, DELTA = 178, 0.01, 1.0, 7, 1.0, 1e-5
#: The designs: the orthogonal one and iid random seeds.
LIMIT_DESIGNS = ("orthogonal", "iid")
#: Widths D.
LIMIT_WIDTHS = (1_000, 10_000, 100_000, 1_000_000)
#: Target columns k.
LIMIT_COLUMNS = (1, 2, 3)
#: The ratios of the table (module docstring).
CURVES = ("records_over_best", "records_over_gaussian", "floor_over_gaussian", "best_over_gaussian")


def _grid(quick: bool) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(orthogonal widths, iid widths, k)."""
    if quick:
        return (1_000, 100_000), (1_000,), (1, 2)
    return LIMIT_WIDTHS, LIMIT_WIDTHS, LIMIT_COLUMNS


def _sigma(bounds, width: int, k: int) -> tuple[float, str]:
    """The release's σ at (ε, δ) under the Gram adjacency, and its kind."""
    if k == 1:
        g = calibrate(
            EPSILON, DELTA, dim=width, out_dim=1, norm_bound=bounds.norm_bound,
            sensitivity=bounds.sensitivity, gram_sensitivity=bounds.gram_sensitivity,
        )  # fmt: skip
        return g.sigma, str(g.kind)
    public = certified_design_release(bounds, LABEL_BOUND, width, k)
    certified = calibrate_certified(public, EPSILON, DELTA)
    return certified.sigma, certified.kind


def _ratios(bounds, width: int, k: int) -> tuple[dict[str, float], float, str]:
    sigma, kind = _sigma(bounds, width, k)
    s2 = bounds.gram_sensitivity if k == 1 else None
    utility = release_utility(
        epsilon=EPSILON, delta=DELTA, sigma=sigma, dim=width, out_dim=k,
        norm_bound=bounds.norm_bound, sensitivity=bounds.sensitivity, n_syn=None,
        statistic_sensitivity=design_statistic_sensitivity(
            k, s2, bounds.gram_sensitivity_theory
        ),
    )  # fmt: skip
    records, gaussian, best = (float(r["rmse"]) for r in utility["utility_table"][:3])
    floor = float(utility["gram_error_floor"])
    best = min(best, gaussian)
    ratios = {
        "records_over_best": records / best,
        "records_over_gaussian": records / gaussian,
        "floor_over_gaussian": floor / gaussian,
        "best_over_gaussian": best / gaussian,
    }
    return ratios, sigma, kind


@privacy_quantity("certified")
def utility_limit_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of ``fig_utility_limit``: the records' error over the anchors against D (module doc).

    Parameters
    ----------
    quick : bool, default False
        Orthogonal D = 10³, 10⁵; iid D = 10³; k = 1, 2.
    progress : callable, optional
        ``progress(done, total)`` after each (design, D).

    Returns
    -------
    pandas.DataFrame
        Columns ``design, d, k, curve, kind, value, error, sigma, epsilon, delta``
        (``kind``: the kind of σ, exact for k = 1, certified for k ≥ 2).
    """
    orthogonal, iid, columns = _grid(quick)
    plan = [("orthogonal", d) for d in orthogonal] + [("iid", d) for d in iid]
    rows = []
    for done, (design, width) in enumerate(plan, 1):
        if design == "orthogonal":
            bounds = orthogonal_bounds(RECORDS, RIDGE, LABEL_BOUND)
        else:
            bounds = design_bounds(
                PublicDesign("random-seeds", width, RECORDS, SEED), RIDGE, LABEL_BOUND
            )
        for k in columns:
            ratios, sigma, kind = _ratios(bounds, width, k)
            for curve in CURVES:
                rows.append((design, width, k, curve, kind, ratios[curve], math.nan, sigma))
        _notify(progress, done, len(plan))
    frame = pd.DataFrame(
        rows, columns=["design", "d", "k", "curve", "kind", "value", "error", "sigma"]
    )
    return frame.assign(epsilon=EPSILON, delta=DELTA)


def plot_utility_limit(frame: pd.DataFrame) -> Figure:
    """``fig_utility_limit``: per k, the records over the best anchor and over Analyze Gauss."""
    ks = sorted(frame["k"].unique())
    fig = _new_figure(1, len(ks), 4.2 * len(ks) + 0.8, 4.4)
    colours = {"orthogonal": "C0", "iid": "C3"}
    styles = {"records_over_best": "-", "records_over_gaussian": "--", "floor_over_gaussian": ":"}
    for ax, k in zip(np.atleast_1d(fig.axes), ks, strict=True):
        sub = frame[frame["k"] == k]
        for design in LIMIT_DESIGNS:
            for curve, ls in styles.items():
                line = sub[(sub["design"] == design) & (sub["curve"] == curve)].sort_values("d")
                if not line.empty:
                    ax.plot(line["d"], line["value"], ls, marker="o", color=colours[design])
        best = sub[sub["curve"] == "best_over_gaussian"]["value"]
        if not best.empty:
            ax.axhline(float(best.iloc[0]), color="grey", lw=1)
        ax.axhline(1.0, color="black", lw=0.8)
        _log_scale(ax, "x")
        ax.set_xlabel("design width D")
        ax.set_ylabel("RMSE ratio on vᵀv (n → ∞)")
        anchor = "Laplace on ‖v‖²" if k == 1 else "trace-shaped Gaussian"
        ax.set_title(f"k = {k} (best anchor: {anchor})", fontsize=9)
    handles = [
        _style_handle("orthogonal design", color="C0"),
        _style_handle("iid random seeds", color="C3"),
        _style_handle("records (‖v‖ = C) / best anchor", color="black", ls="-"),
        _style_handle("records (‖v‖ = C) / Analyze Gauss", color="black", ls="--"),
        _style_handle("records at v = 0 (floor) / Analyze Gauss", color="black", ls=":"),
        _style_handle("best anchor / Analyze Gauss", color="grey"),
    ]
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=3)
    fig.suptitle(
        "The utility limit (wine's shape, m = 178, λ = 0.01, (ε, δ) = (1, 1e-5)): the records' "
        "error on vᵀv over the anchors' (σ exact for k = 1, certified for k ≥ 2)",
        fontsize=9,
    )
    return fig
