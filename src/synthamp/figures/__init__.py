"""Reproduction of the figures and experimental claims of Pierquin et al. (2026).

Every figure is computed from synthamp's own numbers: the exact engine
(:mod:`synthamp.divergence`), the accountant (:mod:`synthamp.accountant`) and
the paper's closed-form bounds (:mod:`synthamp.bounds`), never from a neural
or Monte Carlo estimate. Each figure has

* a **data function** returning a tidy :class:`pandas.DataFrame` with one row
  per plotted point: the x variable(s), ``curve`` (what the row is),
  ``kind`` (``exact``, ``certified``, ``heuristic``, or ``guide`` for a
  reference line that is no privacy quantity), ``value``, ``error`` (the
  engine's estimate of the absolute numerical error, NaN for closed forms) and
  the parameters of the figure as constant columns;
  each data function is labelled (:func:`synthamp.privacy_quantity`) with
  the weakest kind in its table, so a table holding a heuristic curve is
  ``heuristic`` as a whole and never feeds a guarantee;
* a **plot function** drawing exactly that frame with matplotlib (object
  interface, Agg canvas, no pyplot state; matplotlib is imported only there),
  whose legend names the kind of every curve.

Figures (k = 1, σ = 1 unless stated; α = 2; C = 2):

``fig1_summary``
    Figure 1: the worst-case privacy loss against d for Δ = 1: exact plateau,
    post-processing, the local envelope of Theorem 5.1, the global bound of
    Theorem 5.2, and at three n_syn the exact finite release next to the
    prior-work baseline.
``fig2_n_syn``
    Figure 2 (paper §6.1): D_α(ZV‖ZW) against n_syn for ‖v‖ = 2, ‖w‖ = 1,
    with its plateau D_α(VᵀV‖WᵀW) (dotted) and post-processing.
``fig3_eta``
    Figure 3 (paper §6.2): the amplification ratio
    η = D_α(VᵀV‖WᵀW)/D_α(V‖W) against Δ, 1 <= ‖w‖ <= ‖v‖ <= C, with the
    Theorem 5.1 envelope 2‖w‖²/(2‖w‖² + d) ≲ η ≲ 2C²/(2C² + d − 3).
``fig6_global``
    Figure 6 (paper Appendix E.3): the global bound of Theorem 5.2 against d
    next to the exact worst case and post-processing.
``fig_sigma``
    New: the noise σ calibrated for (ε, δ) = (1, 10⁻⁵) against d, amplified
    (exact worst case of an unlimited release) against post-processing.
``fig_gap``
    New: plateau − D_α(ZV‖ZW) against n_syn (log–log) with a 1/n_syn guide
    (Proposition 7.1).
``fig_no_norm_bound``
    New: without a norm bound (Proposition 4.3) the ratio of the plateau to
    post-processing along v_t = t·e₁, w_t = (t + Δ)·e₁ tends to 1.
``fig_regime`` (expensive)
    New: the n_syn ≤ d regime (paper §7.1): worst-case ε and D_α(ZV‖ZW)/plateau
    against n_syn/d with the prior-work baseline, Proposition 7.1's constants
    fitted, σ at (ε, δ) = (1, 10⁻⁵) against n_syn/d (``_regime``).
``fig_tightness``
    New: the certified bounds and the Theorem 5.1 local rate over the exact k = 1
    worst case on a grid of (d, C/σ, Δ/σ, α) (paper §8; ``_tightness``).
``fig_utility_limit`` (expensive)
    New: the records' Gram error over the best anchor and over Analyze Gauss against
    D, orthogonal and iid designs, k = 1, 2, 3 (docs/theory.md §20; ``_utility_limit``).
``fig_k_certificate`` (expensive)
    New: the certified k ≥ 2 ε, the realised pair's lower bound, Theorem 5.4 and
    post-processing against D and k (docs/theory.md §20; ``_k_certificate``).

The package, one concept per file:

``_parameters``
    the fixed parameters of the figures and their grids of d, n_syn, Δ, t;
``_common``
    the plumbing the tidy tables share (progress callback, kind strings,
    long-to-wide pivot);
``_data``
    the data functions: one tidy table per figure (pandas, no matplotlib);
``_claims``
    read-outs of the paper's claims from those tables (:func:`plateau_reach`,
    :func:`envelope_violation`);
``_style``
    shared matplotlib helpers (figure, log axes, colours, legend labels that
    name the kind of every curve);
``_plots``
    the plot functions, one per figure (matplotlib imported only there and in
    ``_style``, inside the functions);
``_regime``, ``_tightness``, ``_k2_study``, ``_utility_limit``, ``_k_certificate``
    the data and plot functions of the newer figures, one module each;
``_registry``
    :class:`FigureSpec`, the data sets, the figure table :data:`FIGURES` and
    :func:`figure_names`;
(:func:`synthamp.jobs.write_figures`, ``synthamp figures``, writes every figure as PNG
and CSV and ``index.md``, atomically.)

``quick=True`` uses coarse grids (for tests and previews); the defaults are
the grids of the committed figures (``docs/figures``).
"""

from __future__ import annotations

from synthamp.figures._claims import envelope_violation, plateau_reach
from synthamp.figures._common import Progress
from synthamp.figures._data import (
    amplification_ratio_data,
    calibration_data,
    gap_table,
    global_bound_data,
    n_syn_data,
    no_norm_bound_data,
    summary_data,
)
from synthamp.figures._parameters import (
    ALPHA,
    CALIBRATION_CASES,
    ETA_ALPHAS,
    GLOBAL_SENSITIVITIES,
    NO_NORM_SENSITIVITY,
    NO_NORM_T_MAX,
    NORM_BOUND,
    NORM_V,
    NORM_W,
    PRIOR_WORK_N_SYN,
    SUMMARY_SENSITIVITY,
    TARGET_DELTA,
    TARGET_EPSILON,
)
from synthamp.figures._plots import (
    plot_amplification_ratio,
    plot_calibration,
    plot_gap,
    plot_global_bound,
    plot_n_syn,
    plot_no_norm_bound,
    plot_summary,
)
from synthamp.figures._registry import DATA_SETS, FIGURES, FigureSpec, figure_names
from synthamp.figures._style import CURVE_LABELS, FLAG_RELATIVE_ERROR

__all__ = [
    "ALPHA",
    "CALIBRATION_CASES",
    "CURVE_LABELS",
    "DATA_SETS",
    "ETA_ALPHAS",
    "FIGURES",
    "FLAG_RELATIVE_ERROR",
    "GLOBAL_SENSITIVITIES",
    "NORM_BOUND",
    "NORM_V",
    "NORM_W",
    "NO_NORM_SENSITIVITY",
    "NO_NORM_T_MAX",
    "PRIOR_WORK_N_SYN",
    "SUMMARY_SENSITIVITY",
    "TARGET_DELTA",
    "TARGET_EPSILON",
    "FigureSpec",
    "Progress",
    "amplification_ratio_data",
    "calibration_data",
    "envelope_violation",
    "figure_names",
    "gap_table",
    "global_bound_data",
    "n_syn_data",
    "no_norm_bound_data",
    "plateau_reach",
    "plot_amplification_ratio",
    "plot_calibration",
    "plot_gap",
    "plot_global_bound",
    "plot_n_syn",
    "plot_no_norm_bound",
    "plot_summary",
    "summary_data",
]
