"""The n_syn ≤ d regime of a k = 1 release (paper §7.1, docs/theory.md §10, §11).

The paper leaves open "a tighter characterization of the regime n_syn ≤ d"
and bounds the gap to the plateau by K/n_syn + K′e^{−c·n_syn} with constants it
does not state (Proposition 7.1). The exact engine answers both for k = 1:

* at a fixed σ, the worst-case ε of a release of n_syn records
  (:func:`synthamp.accountant.worst_case_rdp` converted by
  :func:`synthamp.accountant.rdp_to_epsilon`) and its RDP at α = 2 relative to
  the unlimited release (the plateau), against n_syn/d, next to the prior-work
  baseline of Pierquin et al. (2025) (:func:`synthamp.bounds.prior_work_rdp`,
  heuristic, docs/theory.md §11);
* the gap plateau − D_α(ZV‖ZW) of the plateau's worst-case pair (‖v‖, ‖w‖) =
  (C, C − Δ) at α = 2, and the constants of Proposition 7.1's form fitted to
  it (:func:`prop71_constants`; a description of exact values, kind ``guide``);
* the noise σ that meets (ε, δ) = (1, 10⁻⁵) against n_syn/d: the library's
  calibration of a finite release (:func:`synthamp.accountant.calibrate_sigma`),
  of the unlimited release and of post-processing.

Two settings: the paper's (C = 2, Δ = 1, σ = 1; calibrated at C/Δ = 2) and a
realistic amplitude (C/σ = 200, Δ/σ = 0.25, the ridge example of docs/theory.md
§16; calibrated at C/Δ = 800, where σ ≈ 4 puts C/σ near 200).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthamp import bounds
from synthamp._kinds import privacy_quantity
from synthamp.accountant import (
    OrderGridWarning,
    SyntheticDataRelease,
    calibrate_sigma,
    rdp_to_epsilon,
    worst_case_rdp,
)
from synthamp.accountant._calibration import _epsilon_at_sigma
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.divergence import renyi_finite, renyi_plateau
from synthamp.figures._common import _GUIDE, Progress, _kind, _notify
from synthamp.figures._parameters import ALPHA, TARGET_DELTA, TARGET_EPSILON, _log_ints
from synthamp.figures._style import _colors, _log_scale, _new_figure, _style_handle

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "CALIBRATION_SETTINGS",
    "DIMS",
    "EPSILON_ORDERS",
    "FIXED_SIGMA_SETTINGS",
    "Prop71Constants",
    "plot_regime",
    "prop71_constants",
    "regime_data",
]

#: Model widths d.
DIMS = (10, 100, 1000, 10_000)
#: Fixed-σ settings (σ = 1): name -> (C, Δ).
FIXED_SIGMA_SETTINGS = {"paper": (2.0, 1.0), "realistic": (200.0, 0.25)}
#: Calibration settings (σ varies, C/Δ fixed): name -> (C, Δ).
CALIBRATION_SETTINGS = {"paper": (2.0, 1.0), "realistic": (800.0, 1.0)}
#: Orders of the fixed-σ ε per setting (subsets of DEFAULT_ORDERS: ε on fewer orders is
#: larger, so conservative; the engine's cost grows with the largest order and the number
#: of orders searched). The realistic setting has ε near 1, optimal orders 10–20.
EPSILON_ORDERS = {
    "paper": (1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 128.0, 256.0),
    "realistic": (2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0),
}
#: Orders of the fallback calibration (where the optimum of every calibration measured lies,
#: 11–19: fewer orders give a larger ε, hence a larger, conservative σ).
FALLBACK_ORDERS = (8.0, 12.0, 16.0, 20.0)
#: Relative width of the bracket of the fallback bisection on σ.
FALLBACK_RTOL = 1e-2


def _n_syn_grid(quick: bool) -> tuple[int, ...]:
    """n_syn = 1 … 10⁶, two points a decade (1, 10², 10⁴ with ``quick``)."""
    return (1, 100, 10_000) if quick else _log_ints(6, 2)


def _dims(quick: bool) -> tuple[int, ...]:
    return (100, 10_000) if quick else DIMS


def _ratio_grid(dim: int, quick: bool) -> tuple[int, ...]:
    """n_syn with n_syn/d = 10⁻³ … 10², one point a decade (10⁻¹, 10 with ``quick``), >= 1."""
    exponents = np.array([-1.0, 1.0]) if quick else np.arange(-3.0, 2.01, 1.0)
    return tuple(sorted({max(1, round(dim * 10.0**e)) for e in exponents}))


# --------------------------------------------------------------------------- Proposition 7.1


@dataclass(frozen=True)
class Prop71Constants:
    """Constants of Proposition 7.1's form gap(n) <= K/n + K′·e^{−c·n}, fitted to exact gaps.

    Attributes
    ----------
    K : float
        The limit of n·gap(n), estimated from the three largest n (Aitken's Δ²
        where n·gap is increasing with shrinking steps; else n·gap at the largest n).
    K_grid : float
        max over the grid of n·gap(n) (<= K when n·gap increases to its limit).
    K_prime, c : float
        Fitted to the excess r(n) = gap(n) − K/n where it exceeds the gap's
        error estimate: c by least squares of log r on n, K′ the smallest
        constant with r(n) <= K′e^{−cn} on those points. K′ = 0 and c = NaN when
        there is no excess (the 1/n term alone bounds the gap on the grid).
    monotone : bool
        Whether n·gap(n) is non-decreasing on the grid (up to the errors and rounding).
    """

    K: float
    K_grid: float
    K_prime: float
    c: float
    monotone: bool


def prop71_constants(n_syn: np.ndarray, gap: np.ndarray, error: np.ndarray) -> Prop71Constants:
    """Fit the constants of Proposition 7.1's form (docs/theory.md §10) to exact gaps.

    Parameters
    ----------
    n_syn : array_like
        Increasing numbers of records.
    gap : array_like
        plateau − D_α(ZV‖ZW) at each n_syn (exact).
    error : array_like
        The gaps' error estimates.

    Returns
    -------
    Prop71Constants
    """
    n = np.asarray(n_syn, dtype=float)
    g = np.asarray(gap, dtype=float)
    e = np.asarray(error, dtype=float)
    x = n * g
    k_grid = float(x.max())
    monotone = bool(np.all(np.diff(x) >= -n[1:] * (e[1:] + e[:-1]) - 1e-12 * np.abs(x[1:])))
    k = float(x[-1])  # the tail: n·gap at the largest n, or its Aitken extrapolation
    if x.size >= 3:
        step1, step2 = x[-2] - x[-3], x[-1] - x[-2]
        if step1 > step2 > 0:
            k = float(x[-1] + step2 * step2 / (step1 - step2))
    excess = g - k / n
    over = excess > e
    if not np.any(over):
        return Prop71Constants(k, k_grid, 0.0, math.nan, monotone)
    nn, rr = n[over], excess[over]
    rate = 0.0 if nn.size < 2 else max(0.0, -float(np.polyfit(nn, np.log(rr), 1)[0]))
    k_prime = float(np.max(rr * np.exp(rate * nn)))
    return Prop71Constants(k, k_grid, k_prime, rate, monotone)


# --------------------------------------------------------------------------- calibration


def _calibrated_sigma(dim: int, c: float, s: float, n_syn: int | None, plateau: float):
    """σ for (ε, δ) = (1, 10⁻⁵): the library's calibration, and how it was obtained.

    :func:`calibrate_sigma` first; where its finite-release refinement fails
    (an engine call outside the engine's domain: observed for n_syn well below
    d, reported), the accountant's own ε at σ (the guarded worst case,
    ``_epsilon_at_sigma``) on :data:`FALLBACK_ORDERS`, bisected from the plateau's
    σ by the one calibrator (``smallest_sigma``) to :data:`FALLBACK_RTOL` (sound: ε <=
    target where it stops, on fewer orders than the default grid, so ε is
    larger and σ conservative).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)  # the optimal order is recorded
        try:
            cal = calibrate_sigma(
                TARGET_EPSILON,
                TARGET_DELTA,
                dim=dim,
                norm_bound=c,
                sensitivity=s,
                n_syn=n_syn,
                time_budget=None,
                accountant="rdp",
            )
            if cal.fallback is None:
                return cal.sigma, str(cal.kind), cal.optimal_order, "calibrate_sigma"
            reason = cal.fallback  # the plateau's σ stood: sound, but the finite one is smaller
        except (ValueError, ArithmeticError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
    base = SyntheticDataRelease(dim, 1, c, s, 1.0, n_syn, 1)
    orders = np.asarray(FALLBACK_ORDERS)

    def epsilon_at(sigma: float):
        return _epsilon_at_sigma(sigma, base, orders, "exact", TARGET_DELTA)

    sigma, (_, order, kind) = smallest_sigma(epsilon_at, TARGET_EPSILON, plateau, FALLBACK_RTOL)
    return sigma, str(kind), order, f"bisection (calibrate_sigma failed: {reason})"


# --------------------------------------------------------------------------- the data


def _fixed_sigma_rows(name, c, s, dim, grid, rows, tick) -> None:
    orders = np.asarray(EPSILON_ORDERS[name])

    def _epsilon(rdp: np.ndarray) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridWarning)
            return float(rdp_to_epsilon(orders, rdp, TARGET_DELTA)[0])

    i2 = int(np.flatnonzero(orders == ALPHA)[0])
    base = {"setting": name, "d": dim, "norm_bound": c, "sensitivity": s, "sigma": 1.0}
    exact, certified = _kind(worst_case_rdp), _kind(bounds.post_processing_rdp)
    heuristic = _kind(bounds.prior_work_rdp)
    plateau = worst_case_rdp(orders, dim, c, s, full_output=True)
    post = bounds.post_processing_rdp(orders, min(s, c))
    pair = renyi_plateau(ALPHA, dim, c, c - min(s, c), full_output=True)
    unlimited = {**base, "n_syn": None, "quantity": "epsilon"}
    rows += [
        {**unlimited, "curve": "plateau", "kind": exact, "value": _epsilon(plateau.value)},
        {**unlimited, "curve": "post_processing", "kind": certified, "value": _epsilon(post)},
    ]
    rows.append(
        {**base, "n_syn": None, "quantity": "rdp", "curve": "plateau", "kind": exact,
         "value": float(plateau.value[i2]), "error": float(plateau.error[i2])}
    )  # fmt: skip
    gaps = []
    for n in grid:
        finite = worst_case_rdp(orders, dim, c, s, n_syn=n, full_output=True)
        prior = bounds.prior_work_rdp(orders, dim, 1, n, min(s, c))
        pair_n = renyi_finite(ALPHA, dim, c, c - min(s, c), n, full_output=True)
        at = {**base, "n_syn": n}
        gap = float(pair.value[0] - pair_n.value[0])
        gap_error = float(pair.error[0] + pair_n.error[0])
        gaps.append((n, gap, gap_error))
        rows += [
            {**at, "quantity": "epsilon", "curve": "finite", "kind": exact,
             "value": _epsilon(finite.value)},
            {**at, "quantity": "epsilon", "curve": "prior_work", "kind": heuristic,
             "value": _epsilon(prior)},
            {**at, "quantity": "rdp", "curve": "finite", "kind": exact,
             "value": float(finite.value[i2]), "error": float(finite.error[i2])},
            {**at, "quantity": "rdp", "curve": "prior_work", "kind": heuristic,
             "value": float(prior[i2])},
            {**at, "quantity": "ratio", "curve": "finite", "kind": exact,
             "value": float(finite.value[i2] / plateau.value[i2])},
            {**at, "quantity": "ratio", "curve": "prior_work", "kind": heuristic,
             "value": float(prior[i2] / plateau.value[i2])},
            {**at, "quantity": "gap", "curve": "gap", "kind": _kind(renyi_finite),
             "value": gap, "error": gap_error},
        ]  # fmt: skip
        tick()
    n, g, e = (np.array(v) for v in zip(*gaps, strict=True))
    fit = prop71_constants(n, g, e)
    for n_i in n:
        rows.append(
            {**base, "n_syn": int(n_i), "quantity": "gap", "curve": "prop71_fit", "kind": _GUIDE,
             "value": fit.K / n_i + fit.K_prime * (math.exp(-fit.c * n_i) if fit.K_prime else 0.0)}
        )  # fmt: skip
    for constant in ("K", "K_grid", "K_prime", "c"):
        rows.append(
            {**base, "n_syn": None, "quantity": "constant", "curve": constant, "kind": _GUIDE,
             "value": float(getattr(fit, constant))}
        )  # fmt: skip
    rows.append(
        {**base, "n_syn": None, "quantity": "constant", "curve": "monotone", "kind": _GUIDE,
         "value": float(fit.monotone)}
    )  # fmt: skip


def _calibration_rows(name, c, s, dim, grid, rows, tick) -> None:
    base = {"setting": name, "d": dim, "norm_bound": c, "sensitivity": s, "quantity": "sigma"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        plateau = calibrate_sigma(
            TARGET_EPSILON, TARGET_DELTA, dim=dim, norm_bound=c, sensitivity=s, accountant="rdp"
        )
    rows.append(
        {**base, "n_syn": None, "curve": "plateau", "kind": str(plateau.kind),
         "value": plateau.sigma, "optimal_order": plateau.optimal_order}
    )  # fmt: skip
    rows.append(
        {**base, "n_syn": None, "curve": "post_processing", "kind": "certified",
         "value": plateau.sigma_post_processing}
    )  # fmt: skip
    for n in grid:
        sigma, kind, order, route = _calibrated_sigma(dim, c, s, n, plateau.sigma)
        rows.append(
            {**base, "n_syn": n, "curve": "finite", "kind": kind, "value": sigma,
             "optimal_order": order, "route": route}
        )  # fmt: skip
        rows.append(
            {**base, "n_syn": n, "quantity": "saving", "curve": "finite", "kind": kind,
             "value": 1.0 - sigma / plateau.sigma}
        )  # fmt: skip
        tick()


@privacy_quantity("heuristic")
def regime_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of ``fig_regime``: the n_syn ≤ d regime of a k = 1 release (paper §7.1).

    For each setting (:data:`FIXED_SIGMA_SETTINGS`, σ = 1) and d in :data:`DIMS`,
    n_syn = 1 … 10⁶, two a decade (``quantity``):

    * ``epsilon``: ε at δ = 10⁻⁵ of ``finite`` (the exact worst case of n_syn
      records; kind exact), ``plateau`` (unlimited, n_syn empty), ``post_processing``
      (certified) and ``prior_work`` (heuristic), on the setting's :data:`EPSILON_ORDERS`;
    * ``rdp`` and ``ratio``: the worst-case RDP at α = 2 and its ratio to the
      plateau's worst case (``finite``, exact; ``prior_work``, heuristic);
    * ``gap``: plateau − D_α(ZV‖ZW) of the pair (C, C − Δ) at α = 2 (exact, with
      its error) and ``prop71_fit`` = K/n + K′e^{−cn} (guide), with the fitted
      constants as ``quantity = constant`` rows (``K``, ``K_grid``, ``K_prime``,
      ``c``, ``monotone``; :func:`prop71_constants`).

    For each setting of :data:`CALIBRATION_SETTINGS` and d, n_syn/d = 10⁻³ … 10² (one a decade):
    ``sigma`` (σ at (ε, δ) = (1, 10⁻⁵): ``finite`` by :func:`_calibrated_sigma`,
    ``plateau`` and ``post_processing``) and ``saving`` = 1 − σ_finite/σ_plateau;
    ``route`` says how each finite σ was obtained.

    Parameters
    ----------
    quick : bool, default False
        Coarse grids (d = 100, 10⁴; n_syn = 1, 10², 10⁴; n_syn/d = 0.1, 10).
    progress : callable, optional
        ``progress(done, total)`` after each point.

    Returns
    -------
    pandas.DataFrame
        Columns ``setting, quantity, d, n_syn, n_over_d, curve, kind, value,
        error, norm_bound, sensitivity, sigma, alpha, delta, optimal_order, route``.
    """
    dims, grid = _dims(quick), _n_syn_grid(quick)
    total = len(dims) * (len(FIXED_SIGMA_SETTINGS) * len(grid))
    total += sum(len(_ratio_grid(d, quick)) for d in dims) * len(CALIBRATION_SETTINGS)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        _notify(progress, done, total)

    rows: list[dict] = []
    for name, (c, s) in FIXED_SIGMA_SETTINGS.items():
        for d in dims:
            _fixed_sigma_rows(name, c, s, d, grid, rows, tick)
    for name, (c, s) in CALIBRATION_SETTINGS.items():
        for d in dims:
            _calibration_rows(name, c, s, d, _ratio_grid(d, quick), rows, tick)
    frame = pd.DataFrame(rows)
    frame["n_syn"] = frame["n_syn"].astype("Int64")
    frame["n_over_d"] = frame["n_syn"].astype(float) / frame["d"]
    for column in ("error", "sigma", "optimal_order"):
        frame[column] = frame[column].astype(float) if column in frame else math.nan
    if "route" not in frame:
        frame["route"] = None
    frame = frame.assign(alpha=ALPHA, delta=TARGET_DELTA)
    columns = ["setting", "quantity", "d", "n_syn", "n_over_d", "curve", "kind", "value",
               "error", "norm_bound", "sensitivity", "sigma", "alpha", "delta",
               "optimal_order", "route"]  # fmt: skip
    return frame[columns]


# --------------------------------------------------------------------------- the figure

_LABELS = {
    "finite": "exact worst case, n_syn records",
    "plateau": "exact worst case, unlimited (plateau)",
    "post_processing": "post-processing",
    "prior_work": "prior work (Pierquin et al. 2025)",
}


def plot_regime(frame: pd.DataFrame) -> Figure:
    """``fig_regime`` from :func:`regime_data`: two rows (settings), four panels."""
    settings = [s for s in FIXED_SIGMA_SETTINGS if s in set(frame["setting"])]
    fig = _new_figure(len(settings), 4, 19.0, 0.9 + 4.1 * len(settings))
    axes = np.asarray(fig.axes).reshape(len(settings), 4)
    dims = sorted(frame["d"].unique())
    colors = dict(zip(dims, _colors(len(dims)), strict=True))

    def kind_of(quantity: str, curve: str) -> str:
        rows = frame[(frame["quantity"] == quantity) & (frame["curve"] == curve)]
        return "/".join(sorted(rows["kind"].unique()))

    for r, name in enumerate(settings):
        sub = frame[frame["setting"] == name]
        eps, ratio, gap, sig = axes[r]
        for d in dims:
            color = colors[d]
            at = sub[sub["d"] == d]

            def rows(quantity, curve, at=at):
                return at[(at["quantity"] == quantity) & (at["curve"] == curve)]

            finite = rows("epsilon", "finite").dropna(subset=["n_syn"])
            eps.plot(finite["n_over_d"], finite["value"], color=color, marker="o", ms=2.5,
                     label=f"d = {d}")  # fmt: skip
            prior = rows("epsilon", "prior_work")
            eps.plot(prior["n_over_d"], prior["value"], color=color, ls="-.", lw=1)
            plateau = rows("epsilon", "plateau")
            if not plateau.empty:
                eps.axhline(plateau["value"].iloc[0], color=color, ls=":", lw=1.2)
            styles = (("finite", {"marker": "o", "ms": 2.5}), ("prior_work", {"ls": "-."}))
            for curve, style in styles:
                line = rows("ratio", curve)
                ratio.plot(line["n_over_d"], line["value"], color=color, **style)
            points = rows("gap", "gap")
            points = points[points["value"] > 0]
            gap.plot(points["n_syn"], points["value"], color=color, marker="o", ms=2.5)
            fit = rows("gap", "prop71_fit")
            gap.plot(fit["n_syn"], fit["value"], color=color, ls="--", lw=1)
            calib = frame[(frame["setting"] == name) & (frame["d"] == d)]
            s_fin = calib[(calib["quantity"] == "sigma") & (calib["curve"] == "finite")]
            sig.plot(s_fin["n_over_d"], s_fin["value"], color=color, marker="o", ms=2.5)
            s_pl = calib[(calib["quantity"] == "sigma") & (calib["curve"] == "plateau")]
            if not s_pl.empty:
                sig.axhline(s_pl["value"].iloc[0], color=color, ls=":", lw=1.2)
        post = sub[(sub["quantity"] == "epsilon") & (sub["curve"] == "post_processing")]
        if not post.empty:
            eps.axhline(post["value"].iloc[0], color="tab:red", lw=1.6)
        s_post = sub[(sub["quantity"] == "sigma") & (sub["curve"] == "post_processing")]
        if not s_post.empty:
            sig.axhline(s_post["value"].iloc[0], color="tab:red", lw=1.6)
        ratio.axhline(1.0, color="0.4", lw=0.8)
        p = sub[sub["quantity"] == "epsilon"].iloc[0]
        c_cal, s_cal = CALIBRATION_SETTINGS[name]
        titles = (
            f"ε at δ = {TARGET_DELTA:g}, σ = 1, C = {p['norm_bound']:g}, Δ = {p['sensitivity']:g}",
            f"worst-case D_α(ZV‖ZW) / plateau, α = {ALPHA:g}",
            "plateau − D_α(ZV‖ZW), ‖v‖ = C, ‖w‖ = C − Δ; fit K/n (dashed)",
            f"σ for (ε, δ) = ({TARGET_EPSILON:g}, {TARGET_DELTA:g}), C/Δ = {c_cal / s_cal:g}",
        )
        xlabels = ("n_syn / d", "n_syn / d", "n_syn", "n_syn / d")
        for ax, title, xlabel in zip(axes[r], titles, xlabels, strict=True):
            _log_scale(ax, "xy" if ax is not sig else "x")
            ax.set_title(f"{name}: {title}", fontsize=8.5)
            ax.set_xlabel(xlabel)
            ax.grid(True, which="major", alpha=0.3)
        sig.set_yscale("log")
        eps.set_ylabel("ε")
        ratio.set_ylabel("ratio to the unlimited release")
        gap.set_ylabel("gap (nats)")
        sig.set_ylabel("noise σ")
    handles, _ = axes[0, 0].get_legend_handles_labels()
    handles += [
        _style_handle(f"{_LABELS['finite']} [{kind_of('epsilon', 'finite')}]", marker="o", ms=3),
        _style_handle(f"{_LABELS['plateau']} [{kind_of('epsilon', 'plateau')}]", ls=":"),
        _style_handle(
            f"{_LABELS['post_processing']} [{kind_of('epsilon', 'post_processing')}]",
            color="tab:red",
        ),
        _style_handle(f"{_LABELS['prior_work']} [{kind_of('epsilon', 'prior_work')}]", ls="-."),
        _style_handle(f"Prop. 7.1 form K/n + K′e^(−cn), fitted [{_GUIDE}]", ls="--"),
        _style_handle(
            f"σ: calibrated finite release [{kind_of('sigma', 'finite')}]", marker="o", ms=3
        ),
    ]
    fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=5)
    fig.suptitle(
        "The n_syn ≤ d regime (k = 1): a finite release against the unlimited one and the "
        "prior-work baseline"
    )
    return fig
