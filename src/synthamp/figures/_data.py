"""The data functions of the figures: one tidy :class:`pandas.DataFrame` per figure.

Each table has one row per plotted point: the x variable(s), ``curve``,
``kind`` (``exact``, ``certified``, ``heuristic`` or ``guide``), ``value``,
``error`` (the engine's estimate of the absolute numerical error, NaN for
closed forms) and the figure's parameters as constant columns. Each data
function is labelled (:func:`synthamp.privacy_quantity`) with the weakest kind
in its table. No matplotlib here.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from synthamp import bounds
from synthamp._kinds import privacy_quantity
from synthamp.accountant import OrderGridWarning, calibrate_sigma, worst_case_rdp
from synthamp.divergence import fisher_information, renyi_finite, renyi_plateau
from synthamp.figures._common import _GUIDE, Progress, _kind, _notify, _wide
from synthamp.figures._parameters import (
    ALPHA,
    CALIBRATION_CASES,
    ETA_ALPHAS,
    GLOBAL_SENSITIVITIES,
    NO_NORM_SENSITIVITY,
    NORM_BOUND,
    NORM_V,
    NORM_W,
    PRIOR_WORK_N_SYN,
    SUMMARY_SENSITIVITY,
    TARGET_DELTA,
    TARGET_EPSILON,
    _dims_calibration,
    _dims_eta,
    _dims_n_syn,
    _dims_summary,
    _n_syn_grid,
    _sensitivities_eta,
    _t_grid,
)

__all__ = [
    "amplification_ratio_data",
    "calibration_data",
    "gap_table",
    "global_bound_data",
    "n_syn_data",
    "no_norm_bound_data",
    "summary_data",
]


# --------------------------------------------------------------------------- Figure 1


@privacy_quantity("heuristic")
def summary_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of Figure 1: the privacy loss of the worst-case pair against d.

    For k = 1, α = 2, C = 2, Δ = 1, σ = 1 (worst-case pair ‖v‖ = 2, ‖w‖ = 1):

    * ``exact_worst_case``: the worst case over adjacent pairs of an unlimited
      release, :func:`synthamp.accountant.worst_case_rdp` (exact: ``value`` is
      the divergence at the maximising pair, ``error`` the engine's estimate);
    * ``exact_finite``: the same for a release of n_syn = 10, 100, 1000
      records (exact; n_syn = 10, 1000 with ``quick``), to set against the
      prior-work baseline;
    * ``post_processing``: αΔ²/2 (certified);
    * ``local_upper``, ``local_lower``: the Theorem 5.1 envelope times
      post-processing, 2C²/(2C² + d − 3) and 2‖w‖²/(2‖w‖² + d) with the
      paper's printed constants (heuristic: Δ → 0);
    * ``global``: Theorem 5.2, derived form (certified, uncapped);
    * ``prior_work``: the Pierquin et al. (2025) baseline at n_syn = 10, 100,
      1000 (heuristic; d >= 2).

    Parameters
    ----------
    quick : bool, default False
        Coarse grid of d.
    progress : callable, optional
        ``progress(done, total)`` after each d.

    Returns
    -------
    pandas.DataFrame
        Columns ``d, curve, kind, n_syn, value, error, alpha, norm_bound,
        sensitivity, sigma``.
    """
    dims = _dims_summary(quick)
    alpha, c, s = ALPHA, NORM_BOUND, SUMMARY_SENSITIVITY
    norm_w = c - s
    post = float(bounds.post_processing_rdp(alpha, s)[0])
    rows = []
    for i, d in enumerate(dims):
        wc = worst_case_rdp(alpha, d, c, s, full_output=True)
        lower, upper = bounds.amplification_ratio_local_bounds(d, norm_w, c, fisher_bound="simple")
        local_kind = _kind(bounds.amplification_ratio_local_bounds)
        entries = [
            ("exact_worst_case", _kind(worst_case_rdp), None, wc.estimate[0], wc.error[0]),
            ("post_processing", _kind(bounds.post_processing_rdp), None, post, math.nan),
            ("local_upper", local_kind, None, upper * post, math.nan),
            ("local_lower", local_kind, None, lower * post, math.nan),
            (
                "global",
                _kind(bounds.global_bound),
                None,
                float(bounds.global_bound(alpha, d, c, s)[0]),
                math.nan,
            ),
        ]
        for n in PRIOR_WORK_N_SYN:
            if not quick or n != PRIOR_WORK_N_SYN[1]:
                finite = worst_case_rdp(alpha, d, c, s, n_syn=n, full_output=True)
                entries.append(
                    ("exact_finite", _kind(worst_case_rdp), n, finite.estimate[0], finite.error[0])
                )
            if d >= 2:
                value = float(bounds.prior_work_rdp(alpha, d, 1, n, s)[0])
                entries.append(("prior_work", _kind(bounds.prior_work_rdp), n, value, math.nan))
        for curve, kind, n, value, error in entries:
            rows.append(
                {
                    "d": d,
                    "curve": curve,
                    "kind": kind,
                    "n_syn": n,
                    "value": value,
                    "error": float(error),
                }
            )
        _notify(progress, i + 1, len(dims))
    frame = pd.DataFrame(rows)
    frame["n_syn"] = frame["n_syn"].astype("Int64")
    return frame.assign(alpha=alpha, norm_bound=c, sensitivity=s, sigma=1.0)


# --------------------------------------------------------------------------- Figure 2


@privacy_quantity("certified")
def n_syn_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of Figure 2 and of the gap figure: D_α(ZV‖ZW) against n_syn.

    For ‖v‖ = 2, ‖w‖ = 1, σ = 1, α = 2 and each d: ``finite`` =
    D_α(ZV‖ZW) = D_α(Y_a X‖Y_b X) with n_syn records
    (:func:`synthamp.renyi_finite`), ``plateau`` = D_α(VᵀV‖WᵀW)
    (:func:`synthamp.renyi_plateau`, repeated at each n_syn), both exact with
    the engine's error estimate, and ``post_processing`` = α‖v − w‖²/2
    (certified).

    Parameters
    ----------
    quick : bool, default False
        Coarse grids of d and n_syn (one n_syn per decade).
    progress : callable, optional
        ``progress(done, total)`` after each engine call.

    Returns
    -------
    pandas.DataFrame
        Columns ``d, n_syn, curve, kind, value, error, alpha, norm_v, norm_w,
        sigma``.
    """
    dims, grid = _dims_n_syn(quick), _n_syn_grid(quick)
    alpha, a, b = ALPHA, NORM_V, NORM_W
    post = float(bounds.post_processing_rdp(alpha, a - b)[0])
    total = len(dims) * (len(grid) + 1)
    done = 0
    rows = []
    for d in dims:
        plateau = renyi_plateau(alpha, d, a, b, full_output=True)
        done += 1
        _notify(progress, done, total)
        for n in grid:
            finite = renyi_finite(alpha, d, a, b, n, full_output=True)
            rows.append(("finite", _kind(renyi_finite), d, n, finite.value[0], finite.error[0]))
            rows.append(("plateau", _kind(renyi_plateau), d, n, plateau.value[0], plateau.error[0]))
            rows.append(
                ("post_processing", _kind(bounds.post_processing_rdp), d, n, post, math.nan)
            )
            done += 1
            _notify(progress, done, total)
    frame = pd.DataFrame(rows, columns=["curve", "kind", "d", "n_syn", "value", "error"])
    frame = frame[["d", "n_syn", "curve", "kind", "value", "error"]]
    for column in ("value", "error"):
        frame[column] = frame[column].astype(float)
    return frame.assign(alpha=alpha, norm_v=a, norm_w=b, sigma=1.0)


@privacy_quantity("exact")
def gap_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Data of the gap figure: plateau − D_α(ZV‖ZW) against n_syn, and a 1/n_syn guide.

    ``gap`` rows (kind exact: a difference of two exact values; ``error`` is
    the sum of their error estimates) for each d and n_syn of
    :func:`n_syn_data`, and ``guide`` rows K/n_syn with K = max over d of
    n_syn·gap at the largest n_syn (Proposition 7.1 predicts gap <= K/n_syn +
    K′e^{−c·n_syn}; the guide is a reference slope, not a bound).

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`n_syn_data`.

    Returns
    -------
    pandas.DataFrame
        Columns ``d, n_syn, curve, kind, value, error`` and the parameters.
    """
    values = _wide(frame, ["d", "n_syn"])
    errors = _wide(frame, ["d", "n_syn"], "error")
    gap = (values["plateau"] - values["finite"]).rename("value")
    error = (errors["plateau"] + errors["finite"]).rename("error")
    rows = pd.concat([gap, error], axis=1).reset_index()
    rows.insert(2, "curve", "gap")
    rows.insert(3, "kind", _kind(renyi_finite))
    n_max = rows["n_syn"].max()
    top = rows[rows["n_syn"] == n_max]
    constant = float((top["n_syn"] * top["value"]).max())
    grid = np.sort(rows["n_syn"].unique())
    guide = pd.DataFrame(
        {
            "d": pd.array([pd.NA] * grid.size, dtype="Int64"),
            "n_syn": grid,
            "curve": "guide_1_over_n",
            "kind": _GUIDE,
            "value": constant / grid.astype(float),
            "error": math.nan,
        }
    )
    rows["d"] = rows["d"].astype("Int64")
    params = frame[["alpha", "norm_v", "norm_w", "sigma"]].iloc[0].to_dict()
    return pd.concat([rows, guide], ignore_index=True).assign(**params)


# --------------------------------------------------------------------------- Figure 3


@privacy_quantity("heuristic")
def amplification_ratio_data(
    *, quick: bool = False, progress: Progress | None = None
) -> pd.DataFrame:
    """Data of Figure 3: η = D_α(VᵀV‖WᵀW)/D_α(V‖W) against Δ, with the Theorem 5.1 envelope.

    Two families of pairs with 1 <= ‖w‖ <= ‖v‖ <= C = 2 and ‖v‖ − ‖w‖ = Δ:
    ``top`` (‖v‖ = C, ‖w‖ = C − Δ, the worst-case direction) and ``bottom``
    (‖w‖ = 1, ‖v‖ = 1 + Δ); orders α = 2, 8, 32. Curves: ``eta`` (exact:
    the exact plateau over the exact Gaussian divergence αΔ²/2, with the
    engine's error divided likewise), ``envelope_lower`` = 2‖w‖²/(2‖w‖² + d)
    and ``envelope_upper`` = min(1, 2C²/(2C² + d − 3)) (heuristic: Theorem 5.1
    holds as Δ → 0), and ``fisher_limit`` = I(d, ‖w‖) at Δ = 0, the Δ → 0
    limit of η (Proposition 3.1; a Fisher information computed by the exact
    engine, drawn at Δ = 0).

    Parameters
    ----------
    quick : bool, default False
        Coarse grids of d and Δ.
    progress : callable, optional
        ``progress(done, total)`` after each engine call.

    Returns
    -------
    pandas.DataFrame
        Columns ``family, d, alpha, sensitivity, norm_v, norm_w, curve, kind,
        value, error, norm_bound, sigma``.
    """
    dims, deltas = _dims_eta(quick), _sensitivities_eta(quick)
    alphas = np.asarray(ETA_ALPHAS)
    c = NORM_BOUND
    families = {"top": lambda s: (c, c - s), "bottom": lambda s: (1.0 + s, 1.0)}
    total = len(families) * len(dims) * len(deltas)
    done = 0
    rows = []
    envelope_kind = _kind(bounds.amplification_ratio_local_bounds)
    for family, pair in families.items():
        for d in dims:
            for s in deltas:
                norm_v, norm_w = pair(s)
                result = renyi_plateau(alphas, d, norm_v, norm_w, full_output=True)
                post = bounds.post_processing_rdp(alphas, s)
                lower, upper = bounds.amplification_ratio_local_bounds(
                    d, norm_w, c, fisher_bound="simple"
                )
                for i, alpha in enumerate(alphas):
                    base = (family, d, float(alpha), s, norm_v, norm_w)
                    eta = result.value[i] / post[i]
                    eta_error = result.error[i] / post[i]
                    rows.append((*base, "eta", _kind(renyi_plateau), eta, eta_error))
                    rows.append((*base, "envelope_lower", envelope_kind, lower, math.nan))
                    rows.append((*base, "envelope_upper", envelope_kind, upper, math.nan))
                done += 1
                _notify(progress, done, total)
            # the Δ → 0 limit of η (Proposition 3.1): the Fisher information at the pair's limit
            norm_v, norm_w = pair(0.0)
            fisher = fisher_information(d, norm_w)
            for alpha in alphas:
                base = (family, d, float(alpha), 0.0, norm_v, norm_w)
                rows.append((*base, "fisher_limit", "exact", fisher, math.nan))
    columns = ["family", "d", "alpha", "sensitivity", "norm_v", "norm_w", "curve", "kind"]
    frame = pd.DataFrame(rows, columns=[*columns, "value", "error"])
    return frame.assign(norm_bound=c, sigma=1.0)


# --------------------------------------------------------------------------- Figure 6


@privacy_quantity("heuristic")
def global_bound_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of Figure 6: Theorem 5.2 against d, next to the exact worst case and post-processing.

    For k = 1, α = 2, C = 2, σ = 1 and Δ = 0.25, 0.5, 1:

    * ``exact_worst_case`` (exact, :func:`synthamp.accountant.worst_case_rdp`:
      the divergence at the maximising pair and the engine's error estimate);
    * ``post_processing`` (certified);
    * ``global`` (certified): Theorem 5.2 as derived (√ on the Fisher bound,
      exact J by the Dawson function, sharp Proposition 5.1 bound);
    * ``global_elementary`` (certified): the same with the paper's elementary
      J <= (e^{κs²} − 1)/(κs) and printed Fisher bound 2C²/(2C² + d − 3);
    * ``global_as_printed`` (heuristic): the expression printed in the paper,
      which does not follow from Proposition 3.2 (docs/theory.md §7).

    Parameters
    ----------
    quick : bool, default False
        Coarse grid of d.
    progress : callable, optional
        ``progress(done, total)`` after each (Δ, d).

    Returns
    -------
    pandas.DataFrame
        Columns ``sensitivity, d, curve, kind, value, error, alpha,
        norm_bound, sigma``.
    """
    dims = _dims_summary(quick)
    alpha, c = ALPHA, NORM_BOUND
    total = len(GLOBAL_SENSITIVITIES) * len(dims)
    done = 0
    rows = []
    for s in GLOBAL_SENSITIVITIES:
        post = float(bounds.post_processing_rdp(alpha, s)[0])
        for d in dims:
            wc = worst_case_rdp(alpha, d, c, s, full_output=True)
            certified = _kind(bounds.global_bound)
            entries = [
                ("exact_worst_case", _kind(worst_case_rdp), wc.estimate[0], wc.error[0]),
                ("post_processing", _kind(bounds.post_processing_rdp), post, math.nan),
                ("global", certified, float(bounds.global_bound(alpha, d, c, s)[0]), math.nan),
                (
                    "global_elementary",
                    certified,
                    float(
                        bounds.global_bound(
                            alpha, d, c, s, integral="elementary", fisher_bound="simple"
                        )[0]
                    ),
                    math.nan,
                ),
                (
                    "global_as_printed",
                    _kind(bounds.global_bound_as_printed),
                    float(bounds.global_bound_as_printed(alpha, d, c, s)[0]),
                    math.nan,
                ),
            ]
            rows.extend((s, d, *entry) for entry in entries)
            done += 1
            _notify(progress, done, total)
    frame = pd.DataFrame(rows, columns=["sensitivity", "d", "curve", "kind", "value", "error"])
    frame["error"] = frame["error"].astype(float)
    return frame.assign(alpha=alpha, norm_bound=c, sigma=1.0)


# --------------------------------------------------------------------------- σ against d


@privacy_quantity("certified")
def calibration_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of the calibration figure: σ for (ε, δ) = (1, 10⁻⁵) against d.

    For k = 1, an unlimited release, and (C, Δ) = (2, 1) and (1, 0.1) (only
    the first with ``quick``), :func:`synthamp.accountant.calibrate_sigma`
    with ``method`` = ``exact`` (``amplified``: the exact worst case; kind of
    the curve at σ), ``post-processing`` (releasing the model; certified) and
    ``global`` (Theorem 5.2 alone; certified). ``optimal_order`` is the Rényi
    order of the conversion at σ.

    Parameters
    ----------
    quick : bool, default False
        Coarse grid of d, one release.
    progress : callable, optional
        ``progress(done, total)`` after each (release, d).

    Returns
    -------
    pandas.DataFrame
        Columns ``norm_bound, sensitivity, d, curve, kind, value, error,
        optimal_order, epsilon, delta``.
    """
    dims = _dims_calibration(quick)
    cases = CALIBRATION_CASES[:1] if quick else CALIBRATION_CASES
    methods = {"amplified": "exact", "post_processing": "post-processing", "global": "global"}
    total = len(cases) * len(dims)
    done = 0
    rows = []
    for c, s in cases:
        for d in dims:
            for curve, method in methods.items():
                with warnings.catch_warnings():
                    # the optimal order is recorded; an edge optimum only costs tightness
                    warnings.simplefilter("ignore", OrderGridWarning)
                    cal = calibrate_sigma(
                        TARGET_EPSILON,
                        TARGET_DELTA,
                        dim=d,
                        norm_bound=c,
                        sensitivity=s,
                        method=method,
                        accountant="rdp",
                    )
                rows.append((c, s, d, curve, str(cal.kind), cal.sigma, math.nan, cal.optimal_order))
            done += 1
            _notify(progress, done, total)
    columns = ["norm_bound", "sensitivity", "d", "curve", "kind", "value", "error"]
    frame = pd.DataFrame(rows, columns=[*columns, "optimal_order"])
    return frame.assign(epsilon=TARGET_EPSILON, delta=TARGET_DELTA)


# --------------------------------------------------------------------------- Proposition 4.3


@privacy_quantity("exact")
def no_norm_bound_data(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """Data of the no-norm-bound figure (Proposition 4.3).

    For v_t = t·e₁, w_t = (t + Δ)·e₁, Δ = 1, α = 2: ``ratio`` = the exact
    plateau over post-processing, :func:`synthamp.bounds.no_norm_bound_ratio`,
    against t (up to 99, the engine's tested domain) for d = 1, 10, 100, 1000.

    Parameters
    ----------
    quick : bool, default False
        Coarse grid of t.
    progress : callable, optional
        ``progress(done, total)`` after each engine call.

    Returns
    -------
    pandas.DataFrame
        Columns ``d, t, curve, kind, value, error, alpha, sensitivity, sigma``.
    """
    dims, ts = (1, 10, 100, 1000), _t_grid(quick)
    alpha, s = ALPHA, NO_NORM_SENSITIVITY
    post = float(bounds.post_processing_rdp(alpha, s)[0])
    total = len(dims) * len(ts)
    done = 0
    rows = []
    for d in dims:
        for t in ts:
            # the pair of no_norm_bound_ratio, ‖v‖ = t, ‖w‖ = t + Δ, for the error estimate
            result = renyi_plateau(alpha, d, t, t + s, full_output=True)
            ratio = float(bounds.no_norm_bound_ratio(alpha, d, t, s)[0])
            kind = _kind(bounds.no_norm_bound_ratio)
            rows.append((d, t, "ratio", kind, ratio, float(result.error[0]) / post))
            done += 1
            _notify(progress, done, total)
    frame = pd.DataFrame(rows, columns=["d", "t", "curve", "kind", "value", "error"])
    return frame.assign(alpha=alpha, sensitivity=s, sigma=1.0)
