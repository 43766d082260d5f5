"""The k = 2 worst case, mapped over (Δ/C, d, α) (docs/theory.md §15).

Per (d, Δ/C) at C/σ = 2 (the study's scale, :mod:`synthamp.figures._k2_study`):

1. the **aligned rank-one pair**: the exact k = 1 worst case with the full d
   (:func:`synthamp.accountant._worst_case._worst_case_result`; docs/theory.md §8),
   value and error;
2. the **rank-one family scan**: Ω_v = C² e₁e₁ᵀ and Ω_w = b² uuᵀ, u at angle θ to
   e₁, on the Bures–Wasserstein boundary C² + b² − 2Cb cos θ = Δ² (both
   directions, v ↔ w). It runs from the aligned pair (b = C − Δ, θ = 0) to the
   **equal-norm rotated pair** (b = C, θ = 2 asin(Δ/2C)); for Δ > C it starts at
   θ = π/2 (orthogonal directions);
3. the **global search** of the study (:func:`synthamp.figures._k2_study.search_setting`,
   reused): the scan's pairs, structured and random starting pairs over the whole
   8-parameter space (rank two included), then Nelder–Mead from the best pair and
   the best non-aligned pair of each order;
4. the best pair of each order recomputed at full accuracy with its error
   (:func:`synthamp.divergence.renyi_plateau_gram`) and classified (aligned rank
   one, equal-norm rotated, rotated rank one, rank two).

Every value of a found pair is the **exact value of an adjacent pair**: a lower
bound on the worst case, never an upper bound and never a guarantee.

**The threshold.** t* = sup{t : the aligned rank-one pair is the worst case at every
Δ/C ≤ t}. A found pair whose value minus its error exceeds the aligned value plus
its error is a proof that the aligned pair is *not* the worst case there, so the
smallest such Δ/C (``threshold_hi``, refined by bisection of the rank-one family
between grid points) is a **proven upper bound** on t* (kind certified). Below
``threshold_lo`` no pair found beats the aligned one: that is an observation
(kind heuristic), not a lower bound on t* (docs/findings-k2.md).
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np
import pandas as pd

from synthamp._kinds import privacy_quantity
from synthamp.accountant._k2_search import _pair, _rotation, screen_values
from synthamp.accountant._worst_case import _worst_case_result
from synthamp.bounds import global_bound, post_processing_rdp
from synthamp.divergence import renyi_plateau_gram
from synthamp.figures._common import Progress, _notify
from synthamp.figures._k2_study import _is_aligned_rank_one, search_setting
from synthamp.figures._style import _colors, _new_figure, _style_handle

__all__ = ["DIMS", "ORDERS", "RATIOS", "k2_map_table", "plot_k2_map"]

DIMS = (2, 4, 10, 30, 100)
ORDERS = (1.5, 2.0, 8.0, 32.0)
#: Δ/C grid, 0.05 … √2 (√2: orthogonal directions at full norm, the largest BW distance).
RATIOS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, math.sqrt(2))
NORM_BOUND = 2.0
#: Search sizes of the full run (chosen for ≤ 10 min on one core; docs/findings-k2.md).
FAMILY_POINTS = 6
STARTS = 16
REFINE_EVALUATIONS = 10
#: Processes of the full run (the settings are independent).
WORKERS = 2
BISECTIONS = 3
#: Quick mode (tests of the pipeline).
QUICK = {"dims": (10,), "ratios": (0.3, 1.0, math.sqrt(2)), "family": 4, "starts": 4}

#: At d = 2 the map stops at α = 8: at α = 32 one search-accuracy call costs 1–2.3 s
#: (10× the others) and the full-accuracy engine exceeds its lattice budget for
#: Δ/C ≳ 1 (measured), so nothing there could be verified.
MAX_ORDER_D2 = 8.0


def orders_at(dim: int) -> tuple[float, ...]:
    """The orders of the map at d (d = 2: α ≤ MAX_ORDER_D2)."""
    return ORDERS if dim > 2 else tuple(a for a in ORDERS if a <= MAX_ORDER_D2)


#: Relative tolerances of the pair classification (eigenvalue ratio, norms, angle).
_RANK_ONE = 1e-2
_FULL_NORM = 1e-2
_ALIGNED_ANGLE = 1e-2


def _rank_one_x(a: float, b: float, angle: float, swap: bool) -> np.ndarray:
    """x = (M_v, E) of Ω_v = a² e₁e₁ᵀ, Ω_w = b² uuᵀ (u at ``angle``); ``swap``: v ↔ w."""
    e1 = np.array([[1.0, 0.0], [0.0, 0.0]])
    m_a, m_b = a * e1, b * e1 @ _rotation(angle).T
    m_v, m_w = (m_b, m_a) if swap else (m_a, m_b)
    return np.concatenate([m_v.ravel(), (m_w - m_v).ravel()])


def family_starts(c: float, s: float, points: int) -> list[np.ndarray]:
    """The rank-one family on the BW boundary, aligned → equal-norm rotated, both directions."""
    b_low = math.sqrt(s * s - c * c) if s >= c else c - s
    out = []
    for b in np.linspace(b_low, c, points):
        cos = 1.0 if b == 0 else (c * c + b * b - s * s) / (2 * c * b)
        angle = math.acos(min(1.0, max(0.0, cos)))
        out.extend(_rank_one_x(c, float(b), angle, swap) for swap in (False, True))
    return out


def classify(omega_v: np.ndarray, omega_w: np.ndarray, c: float) -> tuple[str, float]:
    """The family of a pair and the angle (rad) between the leading directions."""
    ev_v, vec_v = np.linalg.eigh(omega_v)
    ev_w, vec_w = np.linalg.eigh(omega_w)
    angle = math.acos(min(1.0, abs(float(vec_v[:, 1] @ vec_w[:, 1]))))
    if _is_aligned_rank_one(omega_v, omega_w):
        return "aligned rank one", 0.0
    rank_one = ev_v[0] <= _RANK_ONE * max(ev_v[1], 1e-300) and ev_w[0] <= _RANK_ONE * max(
        ev_w[1], 1e-300
    )
    if not rank_one:
        return "rank two", angle
    if angle < _ALIGNED_ANGLE:
        return "aligned rank one", angle
    full = min(np.trace(omega_v), np.trace(omega_w)) >= (1 - _FULL_NORM) * c * c
    return ("equal-norm rotated" if full else "rotated rank one"), angle


def _family_best(dim: int, c: float, s: float, alpha: float, points: int) -> float:
    """Best screened value of the rank-one family at one order (bisection only)."""

    values = [
        screen_values(np.array([alpha]), dim, *_pair(x, c, s))[0]
        for x in family_starts(c, s, points)
    ]
    return float(max(values))


def _full_accuracy(alpha: float, dim: int, omega_v, omega_w) -> tuple[float, float]:
    """(value, error) of one pair at full accuracy; NaN where the engine refuses it (its
    lattice budget: d = 2 at large Δ/C and α = 32), so that nothing unverified counts."""
    try:
        res = renyi_plateau_gram([alpha], dim, omega_v, omega_w, full_output=True)
    except (RuntimeError, FloatingPointError, np.linalg.LinAlgError):
        return math.nan, math.nan
    return float(res.value[0]), float(res.error[0])


def _setting_rows(dim, ratio, c, *, family, starts, refine, seed=0):
    """The rows of one (d, Δ/C): aligned, best found (per order), certified bounds."""

    s = ratio * c
    kept = orders_at(dim)
    orders = np.array(kept)
    t0 = time.perf_counter()
    aligned = _worst_case_result(orders, dim, c, s, None, 1.0)
    best, _, evaluations = search_setting(
        dim,
        s,
        starts=starts,
        refine=refine,
        refine_evaluations=REFINE_EVALUATIONS,
        seed=seed,
        c=c,
        orders=kept,
        extra_starts=tuple(family_starts(c, s, family)),
    )
    theorem = global_bound(orders, dim, c, s, 1.0, out_dim=2)
    post = post_processing_rdp(orders, s)
    rows = []
    base = {"d": dim, "ratio": ratio, "norm_bound": c, "sigma": 1.0}
    for i, alpha in enumerate(kept):
        omega_v, omega_w = _pair(best[i].x, c, s)
        family, angle = classify(omega_v, omega_w, c)
        value, error = _full_accuracy(alpha, dim, omega_v, omega_w)
        a_value, a_error = float(aligned.estimate[i]), float(aligned.error[i])
        point = {**base, "alpha": alpha}
        pair = {
            "family": family,
            "angle": angle,
            "gram_v_11": omega_v[0, 0],
            "gram_v_12": omega_v[0, 1],
            "gram_v_22": omega_v[1, 1],
            "gram_w_11": omega_w[0, 0],
            "gram_w_12": omega_w[0, 1],
            "gram_w_22": omega_w[1, 1],
            "beats_aligned": bool(value - error > a_value + a_error),
            "verified": bool(np.isfinite(value)),
            "screened": best[i].value,
            "evaluations": evaluations,
        }
        rows.append(
            {
                **point,
                "curve": "best_found",
                "kind": "exact",
                "value": value,
                "error": error,
                **pair,
            }
        )
        rows.append(
            {**point, "curve": "aligned", "kind": "exact", "value": a_value, "error": a_error}
        )
        rows.append(
            {
                **point,
                "curve": "theorem_5_4",
                "kind": "certified",
                "value": float(theorem[i]),
                "error": 0.0,
            }
        )
        rows.append(
            {
                **point,
                "curve": "post_processing",
                "kind": "certified",
                "value": float(post[i]),
                "error": 0.0,
            }
        )
    for row in rows:
        row["seconds"] = time.perf_counter() - t0
    return rows


def _verified_beats(dim: int, c: float, ratio: float, alpha: float, points: int) -> bool:
    """Does the best rank-one family pair beat the aligned pair at full accuracy (proven)?"""

    s = ratio * c
    xs = family_starts(c, s, points)
    screened = [screen_values(np.array([alpha]), dim, *_pair(x, c, s))[0] for x in xs]
    value, error = _full_accuracy(alpha, dim, *_pair(xs[int(np.argmax(screened))], c, s))
    aligned = _worst_case_result(np.array([alpha]), dim, c, s, None, 1.0)
    return bool(value - error > aligned.estimate[0] + aligned.error[0])


def _threshold_rows(frame: pd.DataFrame, c: float, *, family: int, bisections: int):
    """threshold_lo / threshold_hi per (d, α) from the grid, refined by bisection."""
    rows = []
    found = frame[frame["curve"] == "best_found"]
    for (dim, alpha), group in found.groupby(["d", "alpha"]):
        group = group.sort_values("ratio")
        beats = group["beats_aligned"].to_numpy(dtype=bool)
        ratios = group["ratio"].to_numpy()
        if not beats.any():
            lo, hi = float(ratios[-1]), math.nan
        else:
            first = int(np.argmax(beats))
            hi = float(ratios[first])
            lo = float(ratios[first - 1]) if first else 0.0
            for _ in range(bisections if first else 0):
                mid = 0.5 * (lo + hi)
                if _verified_beats(int(dim), c, mid, float(alpha), family):
                    hi = mid
                else:
                    lo = mid
        base = {"d": dim, "alpha": alpha, "norm_bound": c, "sigma": 1.0, "error": 0.0}
        rows.append({**base, "curve": "threshold_lo", "kind": "heuristic", "value": lo})
        rows.append({**base, "curve": "threshold_hi", "kind": "certified", "value": hi})
        winners = group[group["beats_aligned"]]
        label = winners["family"].mode().iloc[0] if len(winners) else "aligned rank one"
        rows[-1]["family"] = label
    return rows


@privacy_quantity("heuristic")
def k2_map_table(*, quick: bool = False, progress: Progress | None = None) -> pd.DataFrame:
    """The map as a tidy DataFrame (module docstring; docs/findings-k2.md).

    Rows ``curve`` ∈ {best_found (exact value of the best pair found: a lower bound on
    the worst case), aligned (exact k = 1 worst case with the full d), theorem_5_4,
    post_processing (certified upper bounds)} per (d, ratio = Δ/C, α), and
    threshold_lo (heuristic: no pair found beats the aligned one at the grid points
    ≤ it) and threshold_hi (certified: a found pair provably beats the aligned one
    there; ``family``: the family of the winners beyond) per (d, α).
    ``quick``: d = 10, three ratios, four random starts, no refinement.
    """
    c = NORM_BOUND
    dims = QUICK["dims"] if quick else DIMS
    ratios = QUICK["ratios"] if quick else RATIOS
    family = QUICK["family"] if quick else FAMILY_POINTS
    starts = QUICK["starts"] if quick else STARTS
    tasks = [(dim, ratio) for dim in dims for ratio in ratios]
    total = len(tasks) + 1
    options = {"family": family, "starts": starts, "refine": not quick}
    results: dict[tuple[int, float], list[dict]] = {}
    if quick or WORKERS <= 1:
        for done, (dim, ratio) in enumerate(tasks, start=1):
            results[dim, ratio] = _setting_rows(dim, ratio, c, **options)
            _notify(progress, done, total)
    else:
        # concurrent: the settings are independent (costliest first: d = 2 at large Δ/C)
        order = sorted(tasks, key=lambda t: (t[0] != 2, -t[1]))
        with ProcessPoolExecutor(WORKERS) as pool:
            futures = {pool.submit(_setting_rows, d, r, c, **options): (d, r) for d, r in order}
            for done, future in enumerate(as_completed(futures), start=1):
                results[futures[future]] = future.result()
                _notify(progress, done, total)
    rows = [row for task in tasks for row in results[task]]
    frame = pd.DataFrame(rows)
    thresholds = _threshold_rows(frame, c, family=family, bisections=1 if quick else BISECTIONS)
    _notify(progress, total, total)
    return pd.concat([frame, pd.DataFrame(thresholds)], ignore_index=True)


_MARKERS = {
    "aligned rank one": "o",
    "equal-norm rotated": "^",
    "rotated rank one": "s",
    "rank two": "x",
}


def plot_k2_map(table: pd.DataFrame):
    """Per order: best found / aligned against Δ/C, one line per d, markers by family;
    last panel: the thresholds against d."""
    fig = _new_figure(1, len(ORDERS) + 1, 19.0, 4.4)
    axes = fig.axes
    dims = sorted(table["d"].unique())
    colors = dict(zip(dims, _colors(len(dims)), strict=True))
    found = table[table["curve"] == "best_found"].set_index(["d", "alpha", "ratio"])
    aligned = table[table["curve"] == "aligned"].set_index(["d", "alpha", "ratio"])["value"]
    ratio = (found["value"] / aligned).rename("r").reset_index()
    ratio["family"] = found["family"].to_numpy()
    for ax, alpha in zip(axes, ORDERS, strict=False):
        for dim in dims:
            rows = ratio[(ratio["d"] == dim) & (ratio["alpha"] == alpha)].sort_values("ratio")
            if rows.empty:
                continue
            ax.plot(rows["ratio"], rows["r"], color=colors[dim], lw=1, label=f"d = {dim}")
            for fam, marker in _MARKERS.items():
                pts = rows[rows["family"] == fam]
                ax.plot(pts["ratio"], pts["r"], marker, color=colors[dim], ms=4, ls="none")
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.set_title(f"α = {alpha:g}", fontsize=9)
        ax.set_xlabel("Δ / C")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("D_α(best pair found) / D_α(aligned rank one)")
    axes[0].legend(fontsize=7, loc="upper left")
    # marker legend, family of the best pair found
    handles = [
        _style_handle(f"best pair: {fam} [exact]", marker=m, ls="none")
        for fam, m in _MARKERS.items()
    ]
    axes[1].legend(handles=handles, fontsize=7, loc="upper left")
    last = axes[-1]
    thr = table[table["curve"].isin(["threshold_lo", "threshold_hi"])]
    alpha_colors = _colors(len(ORDERS))
    for alpha, color in zip(ORDERS, alpha_colors, strict=True):
        lo = thr[(thr["curve"] == "threshold_lo") & (thr["alpha"] == alpha)].sort_values("d")
        hi = thr[(thr["curve"] == "threshold_hi") & (thr["alpha"] == alpha)].sort_values("d")
        last.plot(
            lo["d"],
            lo["value"],
            "--",
            color=color,
            marker=".",
            label=f"α = {alpha:g}: none found below [heuristic]",
        )
        last.plot(
            hi["d"],
            hi["value"],
            "-",
            color=color,
            marker="o",
            ms=3,
            label=f"α = {alpha:g}: aligned beaten at [certified]",
        )
    last.set_xscale("log")
    last.set_xlabel("model width d")
    last.set_ylabel("threshold Δ / C")
    last.grid(True, alpha=0.3)
    last.legend(fontsize=6, loc="lower left")
    fig.suptitle(
        f"k = 2, C = {NORM_BOUND:g}, σ = 1: best adjacent pair found (exact values, lower bounds on"
        " the worst case) against the aligned rank-one pair"
    )
    return fig
