"""The k = 2 study: is the aligned rank-one pair the worst case? (docs/theory.md §15).

The pair space, its projection and the structured and random starting pairs
are those of the accountant's searched lower bound
(:mod:`synthamp.accountant._k2_search`). The study searches harder, per (d, Δ):
more starting pairs, then Nelder–Mead from the best starts of each order, with
the engine at the search accuracy; the best pair of each order is then
recomputed at full accuracy with its error estimate. The value found is the
exact divergence of a found adjacent pair: a **lower bound** on the worst case
over adjacent pairs, never an upper bound. The aligned rank-one value is the
exact k = 1 worst case with the full d (:func:`synthamp.worst_case_rdp`;
docs/theory.md §8); Theorem 5.4 is :func:`synthamp.bounds.global_bound` with
``out_dim=2``.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import pandas as pd

from synthamp.accountant import worst_case_rdp
from synthamp.accountant._k2_search import (
    _candidates,
    _pair,
    _structured_starts,
    screen_values,
)
from synthamp.bounds import global_bound, post_processing_rdp
from synthamp.divergence import renyi_plateau_gram
from synthamp.figures._common import Progress, _notify
from synthamp.figures._style import _colors, _log_scale, _new_figure

__all__ = ["SETTINGS", "STARTS", "StudyRow", "plot_k2_study", "search_setting", "study_table"]

#: (d, Δ) settings of the study; α ∈ ORDERS, C = 2, σ = 1.
DIMS = (4, 10, 30, 100)
DELTAS = (0.25, 0.5, 1.0)
ORDERS = (2.0, 8.0, 32.0)
NORM_BOUND = 2.0
SETTINGS = tuple((d, delta) for d in DIMS for delta in DELTAS)
#: Starting pairs per setting (structured ones first, then random; research seed 0).
STARTS = 100


@dataclasses.dataclass
class _Best:
    value: float = -np.inf
    x: np.ndarray | None = None


def _is_aligned_rank_one(omega_v: np.ndarray, omega_w: np.ndarray) -> bool:
    """Both Grams (numerically) rank one along the same direction: the k = 1 family."""
    total = omega_v + omega_w
    smallest = np.linalg.eigvalsh(total)[0]
    return smallest <= 1e-3 * max(np.trace(total), 1e-300)


def search_setting(
    dim: int,
    delta: float,
    *,
    starts: int = 100,
    refine_evaluations: int = 25,
    refine: bool = True,
    seed: int = 0,
    c: float = NORM_BOUND,
    orders: tuple[float, ...] = ORDERS,
    extra_starts: tuple[np.ndarray, ...] = (),
) -> tuple[list[_Best], list[_Best], int]:
    """Best pair found for each order of ``orders`` (default ORDERS) at (d, Δ) (σ = 1):
    overall, and among the pairs that are not aligned rank-one; and the number of
    evaluations.

    ``extra_starts`` (points x of :func:`synthamp.accountant._k2_search._pair`, e.g.
    a scan of a pair family), then ``starts`` starting pairs (structured ones first,
    then random; research seed), each evaluated at all orders at once; then
    Nelder–Mead on −log D_α from the best start of each order and from its best
    non-aligned start. Every evaluation updates the best pairs of every order.
    """
    # scipy: the optimiser is needed by the search only
    from scipy.optimize import minimize

    s = delta
    best = [_Best() for _ in orders]
    best_split = [_Best() for _ in orders]
    evaluations = 0

    def evaluate(x: np.ndarray) -> np.ndarray:
        nonlocal evaluations
        evaluations += 1
        omega_v, omega_w = _pair(x, c, s)
        values = screen_values(np.array(orders), dim, omega_v, omega_w)
        split = not _is_aligned_rank_one(omega_v, omega_w)
        for i, v in enumerate(values):
            if v > best[i].value:
                best[i] = _Best(float(v), x.copy())
            if split and v > best_split[i].value:
                best_split[i] = _Best(float(v), x.copy())
        return values

    candidates = _structured_starts(c, s)[:2] + _candidates(c, s, max(starts - 2, 0), seed)
    for x in (*extra_starts, *candidates[:starts]):
        evaluate(x)
    if refine:
        for i in range(len(orders)):
            for x0 in {id(b.x): b.x for b in (best[i], best_split[i]) if b.x is not None}.values():

                def objective(x, i=i):
                    v = evaluate(x)[i]
                    return -math.log(v) if v > 0 else 1e3

                simplex = x0 + np.vstack([np.zeros(8), 0.1 * c * np.eye(8)])
                minimize(
                    objective,
                    x0.copy(),
                    method="Nelder-Mead",
                    options={"maxfev": refine_evaluations, "initial_simplex": simplex},
                )
    return best, best_split, evaluations


@dataclasses.dataclass(frozen=True)
class StudyRow:
    dim: int
    delta: float
    alpha: float
    best: float
    best_error: float
    gram_v: tuple[float, float, float]
    gram_w: tuple[float, float, float]
    aligned: float
    ratio_to_aligned: float
    theorem_5_4: float
    theorem_ratio: float
    post_processing: float
    best_split: float
    split_ratio_to_aligned: float
    starts: int
    evaluations: int
    seconds: float


def _verified_rows(dim, delta, best, best_split, evaluations, starts, seconds, c=NORM_BOUND):
    """Recompute the best pairs at full accuracy and compare with the references."""

    orders = np.array(ORDERS)
    aligned = worst_case_rdp(orders, dim, c, delta)
    theorem = global_bound(orders, dim, c, delta, 1.0, out_dim=2)
    post = post_processing_rdp(orders, delta)
    rows = []
    for i, alpha in enumerate(ORDERS):
        omega_v, omega_w = _pair(best[i].x, c, delta)
        res = renyi_plateau_gram([alpha], dim, omega_v, omega_w, full_output=True)
        value = float(res.value[0])
        split = float("nan")
        if best_split[i].x is not None:
            split = float(renyi_plateau_gram([alpha], dim, *_pair(best_split[i].x, c, delta))[0])
        rows.append(
            StudyRow(
                dim,
                delta,
                alpha,
                value,
                float(res.error[0]),
                (omega_v[0, 0], omega_v[0, 1], omega_v[1, 1]),
                (omega_w[0, 0], omega_w[0, 1], omega_w[1, 1]),
                float(aligned[i]),
                value / float(aligned[i]),
                float(theorem[i]),
                float(theorem[i]) / value,
                float(post[i]),
                split,
                split / float(aligned[i]),
                starts,
                evaluations,
                seconds,
            )
        )
    return rows


def study_table(
    *,
    quick: bool = False,
    progress: Progress | None = None,
    settings: tuple[tuple[int, float], ...] | None = None,
    starts: int | None = None,
) -> pd.DataFrame:
    """The study as a DataFrame (one row per d, Δ, α), computing every setting.

    ``settings`` and ``starts`` default to the module's :data:`SETTINGS` and
    :data:`STARTS` (read at call time). ``quick``: at most 12 starts and no
    refinement (for tests of the pipeline). ``progress(done, total)`` is called
    after each setting. Columns: ``best`` (the exact value of the best pair found,
    with its error ``best_error``: a lower bound on the worst case), ``aligned``
    (the exact k = 1 worst case, value + error), ``theorem_5_4`` and
    ``post_processing`` (certified upper bounds), their ratios, the pair's Gram
    entries and the search's cost.
    """
    settings = SETTINGS if settings is None else tuple(settings)
    starts = STARTS if starts is None else starts
    n = min(starts, 12) if quick else starts
    rows = []
    for done, (dim, delta) in enumerate(settings, start=1):
        t0 = time.perf_counter()
        best, best_split, evaluations = search_setting(dim, delta, starts=n, refine=not quick)
        seconds = time.perf_counter() - t0
        rows.extend(_verified_rows(dim, delta, best, best_split, evaluations, n, seconds))
        _notify(progress, done, len(settings))
    frame = pd.DataFrame([dataclasses.asdict(r) for r in rows])
    for key in ("gram_v", "gram_w"):
        entries = np.array(frame.pop(key).tolist())
        for j, name in enumerate(("11", "12", "22")):
            frame[f"{key}_{name}"] = entries[:, j]
    return frame


def plot_k2_study(table):
    """Two panels over d: the best pair found that is not aligned rank-one, relative to
    the aligned rank-one value (the best pair found overall, marked ×, is the aligned
    pair wherever × sits on 1), and Theorem 5.4 relative to the best pair found."""
    fig = _new_figure(1, 2, 11.5, 4.8)
    left, right = fig.axes
    alphas = sorted(table["alpha"].unique())
    styles = {0.25: ":", 0.5: "--", 1.0: "-"}
    for alpha, color in zip(alphas, _colors(len(alphas)), strict=True):
        for delta, ls in styles.items():
            rows = table[(table["alpha"] == alpha) & (table["delta"] == delta)].sort_values("dim")
            if rows.empty:
                continue
            label = f"α = {alpha:g}, Δ = {delta:g}"
            style = {"color": color, "ls": ls, "marker": "o", "ms": 3, "label": label}
            left.plot(rows["dim"], rows["split_ratio_to_aligned"], **style)
            right.plot(rows["dim"], rows["theorem_ratio"], **style)
    left.plot(
        table["dim"],
        table["ratio_to_aligned"],
        "x",
        color="black",
        ms=7,
        label="best pair found (all pairs)",
    )
    left.axhline(1.0, color="0.3", lw=1)
    left.ticklabel_format(axis="y", useOffset=False)
    for ax in (left, right):
        _log_scale(ax, "x")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel("model width d")
    _log_scale(right, "y")
    left.set_ylabel("D_α(best pair) / D_α(aligned rank-one pair)")
    right.set_ylabel("Theorem 5.4 / D_α(best pair found)")
    left.set_title("best non-aligned pair found (lines); best pair found (×)", fontsize=9)
    right.set_title("the certified bound above the best pair found", fontsize=9)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    left.legend(handles=left.get_legend_handles_labels()[0][-1:], fontsize=8, loc="lower left")
    fig.suptitle(
        f"k = 2, C = {NORM_BOUND:g}, σ = 1: no adjacent pair found beats the aligned rank-one"
        " pair (search: a lower bound)"
    )
    return fig
