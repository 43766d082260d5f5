"""Read-outs of the paper's claims from the figures' tables (used by the tests and docs)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthamp.figures._common import _wide

__all__ = ["envelope_violation", "plateau_reach"]


def plateau_reach(frame: pd.DataFrame, tolerance: float = 0.01) -> pd.Series:
    """n_syn at which D_α(ZV‖ZW) comes within ``tolerance`` (relative) of its plateau, per d.

    Interpolates log(gap/plateau) linearly in log n_syn between the first grid
    point inside the tolerance and the one before it (the gap decays like a
    power of n_syn, Proposition 7.1). NaN if the grid never gets there.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`n_syn_data`.
    tolerance : float, default 0.01
        Relative gap (plateau − finite)/plateau to reach.

    Returns
    -------
    pandas.Series
        Indexed by d.
    """
    wide = _wide(frame, ["d", "n_syn"])
    out = {}
    for d, group in wide.groupby(level="d"):
        n = group.index.get_level_values("n_syn").to_numpy(dtype=float)
        rel = ((group["plateau"] - group["finite"]) / group["plateau"]).to_numpy()
        inside = np.flatnonzero(rel <= tolerance)
        if inside.size == 0:
            out[d] = math.nan
            continue
        j = int(inside[0])
        if j == 0 or rel[j] <= 0:
            out[d] = n[j]
            continue
        x0, x1 = math.log(n[j - 1]), math.log(n[j])
        y0, y1 = math.log(rel[j - 1]), math.log(rel[j])
        x = x0 + (math.log(tolerance) - y0) * (x1 - x0) / (y1 - y0)
        out[d] = math.exp(x)
    return pd.Series(out, name="n_syn_reach").rename_axis("d")


def envelope_violation(frame: pd.DataFrame) -> pd.DataFrame:
    """How far the exact η lies outside the Theorem 5.1 envelope, per point of Figure 3.

    ``violation`` = max(0, η − upper, lower − η), in units of η.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`amplification_ratio_data`.

    Returns
    -------
    pandas.DataFrame
        Indexed by (family, d, alpha, sensitivity), with columns ``eta``,
        ``envelope_lower``, ``envelope_upper``, ``violation``.
    """
    wide = _wide(frame, ["family", "d", "alpha", "sensitivity"]).dropna(subset=["eta"])
    excess = np.maximum(wide["eta"] - wide["envelope_upper"], wide["envelope_lower"] - wide["eta"])
    wide["violation"] = np.maximum(excess, 0.0)
    return wide[["eta", "envelope_lower", "envelope_upper", "violation"]]
