"""The fixed parameters of the paper's figures and the grids they are computed on.

``quick=True`` selects the coarse grids of the tests and previews; the
defaults are the grids of the committed figures (``docs/figures``).
"""

from __future__ import annotations

import numpy as np

#: Rényi order of every figure except Figure 3 (which shows several).
ALPHA = 2.0
#: Norm bound C (paper §6.2: 1 <= ‖w‖ <= ‖v‖ <= C = 2).
NORM_BOUND = 2.0
#: ‖v‖ and ‖w‖ of Figure 2 (so ‖v − w‖ = Δ = 1; the k = 1 worst case for C = 2, Δ = 1).
NORM_V = 2.0
NORM_W = 1.0
#: Sensitivity Δ of Figure 1: the worst-case pair is (‖v‖, ‖w‖) = (C, C − Δ) = (2, 1).
SUMMARY_SENSITIVITY = NORM_V - NORM_W
#: n_syn of the prior-work baseline in Figure 1.
PRIOR_WORK_N_SYN = (10, 100, 1000)
#: Orders of Figure 3.
ETA_ALPHAS = (2.0, 8.0, 32.0)
#: Sensitivities of Figure 6.
GLOBAL_SENSITIVITIES = (0.25, 0.5, 1.0)
#: Target of the calibration figure.
TARGET_EPSILON = 1.0
TARGET_DELTA = 1e-5
#: Releases of the calibration figure: (norm bound C, sensitivity Δ).
CALIBRATION_CASES = ((2.0, 1.0), (1.0, 0.1))
#: Sensitivity of the no-norm-bound figure, and its largest t (amplitudes² <= 10⁴,
#: the engine's tested domain).
NO_NORM_SENSITIVITY = 1.0
NO_NORM_T_MAX = 99.0


def _log_ints(stop_exponent: int, per_decade: int) -> tuple[int, ...]:
    """Integers 1 … 10^stop_exponent spaced evenly on a log scale."""
    grid = np.logspace(0.0, stop_exponent, stop_exponent * per_decade + 1)
    return tuple(int(v) for v in np.unique(np.round(grid)))


def _dims_summary(quick: bool) -> tuple[int, ...]:
    return _log_ints(5, 1 if quick else 4)


def _n_syn_grid(quick: bool) -> tuple[int, ...]:
    return _log_ints(5, 1 if quick else 4)


def _dims_n_syn(quick: bool) -> tuple[int, ...]:
    return (1, 2, 5, 10, 50) if quick else (1, 2, 5, 10, 20, 50, 100)


def _dims_eta(quick: bool) -> tuple[int, ...]:
    return (1, 5, 10, 50) if quick else (1, 2, 5, 10, 20, 50)


def _sensitivities_eta(quick: bool) -> tuple[float, ...]:
    if quick:
        return (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.99)
    grid = np.concatenate([[0.005, 0.01, 0.02], np.linspace(0.05, 0.95, 19), [0.99]])
    return tuple(float(v) for v in np.round(grid, 6))


def _dims_calibration(quick: bool) -> tuple[int, ...]:
    if quick:
        return (1, 100, 10_000)
    return (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)


def _t_grid(quick: bool) -> tuple[float, ...]:
    grid = np.geomspace(0.1, NO_NORM_T_MAX, 8 if quick else 25)
    return tuple(float(v) for v in grid)
