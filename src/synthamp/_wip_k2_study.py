"""The k = 2 study: is the aligned rank-one pair the worst case? (THEORY.md §15, issue 16).

For two-dimensional records the privacy loss of a pair depends on the Gram
matrices Ω_v = vᵀv/σ², Ω_w = wᵀw/σ² only, and adjacency (‖v‖_F, ‖w‖_F ≤ C,
‖v − w‖_F ≤ Δ after the best rotation of w) is {tr Ω ≤ c², BW(Ω_v, Ω_w) ≤ s}
(Bures–Wasserstein). Every such pair is realised by 2 × 2 matrices M_v, M_w =
M_v + E with ‖M_v‖_F, ‖M_w‖_F ≤ c and ‖E‖_F ≤ s (M_v = Ω_v^{1/2}, M_w the
BW-optimal rotation of Ω_w^{1/2}), so the search runs over (M_v, E) ∈ R⁸,
projected onto the constraints.

The search is a heuristic global maximisation (random starts plus a few
structured ones, then Nelder–Mead from the best starts of each order) with the
engine in a cheaper search accuracy (coarser lattice); the best pair of each
order is then recomputed at full accuracy with its error estimate. The value
found is the exact divergence of a found adjacent pair: a **lower bound** on
the worst case over adjacent pairs, never an upper bound. The aligned
rank-one value is the exact k = 1 worst case with the full d
(:func:`synthamp.worst_case_rdp`; THEORY.md §8); Theorem 5.4 is
:func:`synthamp.bounds.global_bound` with ``out_dim=2``.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

__all__ = ["SETTINGS", "StudyRow", "search_setting", "study_table"]

#: (d, Δ) settings of the study; α ∈ ORDERS, C = 2, σ = 1.
DIMS = (4, 10, 30, 100)
DELTAS = (0.25, 0.5, 1.0)
ORDERS = (2.0, 8.0, 32.0)
NORM_BOUND = 2.0
SETTINGS = tuple((d, delta) for d in DIMS for delta in DELTAS)
#: Search accuracy of the engine: lattice step (local standard deviations) and drop.
SEARCH_STEP = 1.1
SEARCH_DROP = 26.0


def _pair(x: np.ndarray, c: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """(Ω_v, Ω_w) of the parameters x = (M_v, E) ∈ R⁸, projected onto the constraints."""
    m_v = x[:4].reshape(2, 2).copy()
    e = x[4:].reshape(2, 2).copy()
    norm_v = np.linalg.norm(m_v)
    if norm_v > c:
        m_v *= c / norm_v
    norm_e = np.linalg.norm(e)
    if norm_e > s:
        e *= s / norm_e
    m_w = m_v + e
    norm_w = np.linalg.norm(m_w)
    if norm_w > c:  # shrinking both keeps ‖E‖ ≤ s and ‖M_v‖ ≤ c
        m_v *= c / norm_w
        m_w *= c / norm_w
    omega_v, omega_w = m_v.T @ m_v, m_w.T @ m_w
    return (omega_v + omega_v.T) / 2, (omega_w + omega_w.T) / 2


def _structured_starts(c: float, s: float) -> list[np.ndarray]:
    """Aligned rank-one pairs (forward, reverse), rotated rank-one pairs, split rank-two
    pairs, and their small perturbations."""
    g = min(s, c)
    out = []
    for a, b in ((c, c - g), (c - g, c)):
        out.append(np.array([a, 0, 0, 0, b - a, 0, 0, 0], dtype=float))
    for angle in (0.3, 0.8, math.pi / 2):
        m_v = np.array([[c, 0.0], [0.0, 0.0]])
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        m_w = (c - g / 2) * rot @ np.array([[1.0, 0.0], [0.0, 0.0]])
        out.append(np.concatenate([m_v.ravel(), (m_w - m_v).ravel()]))
    for split in (0.1, 0.3, 0.5):
        m_v = c * np.diag([math.sqrt(1 - split), math.sqrt(split)])
        m_w = (c - g) / c * m_v
        out.append(np.concatenate([m_v.ravel(), (m_w - m_v).ravel()]))
    return out


def _random_start(rng: np.random.Generator, c: float, s: float) -> np.ndarray:
    m_v = rng.standard_normal(4)
    m_v *= c * rng.uniform() ** 0.25 / np.linalg.norm(m_v)
    if rng.uniform() < 0.5:  # on the boundary ‖M_v‖ = c (the divergences grow with the norms)
        m_v *= c / np.linalg.norm(m_v)
    e = rng.standard_normal(4)
    e *= s * (1.0 if rng.uniform() < 0.6 else rng.uniform() ** 0.25) / np.linalg.norm(e)
    return np.concatenate([m_v, e])


def _search_values(dim: int, omega_v: np.ndarray, omega_w: np.ndarray) -> np.ndarray:
    from synthamp._wip_wishart import _plateau_2x2

    if np.allclose(omega_v, omega_w, rtol=0, atol=1e-14):
        return np.zeros(len(ORDERS))
    try:
        value = _plateau_2x2(np.array(ORDERS), dim, omega_v, omega_w, SEARCH_STEP, SEARCH_DROP)[0]
    except (RuntimeError, FloatingPointError, np.linalg.LinAlgError):
        return np.full(len(ORDERS), -np.inf)
    return np.where(np.isfinite(value), value, -np.inf)


@dataclasses.dataclass
class _Best:
    value: float = -np.inf
    x: np.ndarray | None = None


def search_setting(
    dim: int,
    delta: float,
    *,
    starts: int = 100,
    refine_starts: int = 1,
    refine_evaluations: int = 25,
    seed: int = 0,
    c: float = NORM_BOUND,
) -> tuple[list[_Best], int]:
    """Best pair found for each order of ORDERS at (d, Δ) (σ = 1), and the evaluations used.

    ``starts`` starting pairs (structured ones first, then random; research seed),
    each evaluated at all orders at once; then Nelder–Mead on −log D_α from the
    ``refine_starts`` best starts of each order. Every evaluation updates the best
    pair of every order.
    """
    from scipy.optimize import minimize

    s = delta
    rng = np.random.default_rng(seed)
    best = [_Best() for _ in ORDERS]
    evaluations = 0
    scored: list[tuple[np.ndarray, np.ndarray]] = []

    def evaluate(x: np.ndarray) -> np.ndarray:
        nonlocal evaluations
        evaluations += 1
        values = _search_values(dim, *_pair(x, c, s))
        for i, v in enumerate(values):
            if v > best[i].value:
                best[i] = _Best(float(v), x.copy())
        return values

    candidates = _structured_starts(c, s)
    while len(candidates) < starts:
        candidates.append(_random_start(rng, c, s))
    for x in candidates[:starts]:
        scored.append((x, evaluate(x)))
    for i in range(len(ORDERS)):
        ranked = sorted(scored, key=lambda item, i=i: -item[1][i])[:refine_starts]
        for x0, _ in ranked:

            def objective(x, i=i):
                v = evaluate(x)[i]
                return -math.log(v) if v > 0 else 1e3

            simplex = x0 + np.vstack([np.zeros(8), 0.1 * c * np.eye(8)])
            minimize(
                objective,
                x0,
                method="Nelder-Mead",
                options={"maxfev": refine_evaluations, "initial_simplex": simplex},
            )
    return best, evaluations


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
    starts: int
    evaluations: int
    seconds: float


def _verified_rows(dim, delta, best, evaluations, starts, seconds, c=NORM_BOUND):
    """Recompute the best pairs at full accuracy and compare with the references."""
    from synthamp import worst_case_rdp
    from synthamp._wip_wishart import renyi_plateau_gram
    from synthamp.bounds import global_bound, post_processing_rdp

    orders = np.array(ORDERS)
    aligned = worst_case_rdp(orders, dim, c, delta)
    theorem = global_bound(orders, dim, c, delta, 1.0, out_dim=2)
    post = post_processing_rdp(orders, delta)
    rows = []
    for i, alpha in enumerate(ORDERS):
        omega_v, omega_w = _pair(best[i].x, c, delta)
        res = renyi_plateau_gram([alpha], dim, omega_v, omega_w, full_output=True)
        value = float(res.value[0])
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
                starts,
                evaluations,
                seconds,
            )
        )
    return rows


def study_table(*, quick: bool = False, progress=None, settings=SETTINGS, starts: int = 100):
    """The study as a DataFrame (one row per d, Δ, α), computing every setting.

    ``quick``: 12 starts and no refinement (for tests of the pipeline).
    """
    import pandas as pd

    rows = []
    for dim, delta in settings:
        t0 = time.perf_counter()
        n = 12 if quick else starts
        best, evaluations = search_setting(dim, delta, starts=n, refine_starts=0 if quick else 1)
        seconds = time.perf_counter() - t0
        rows.extend(_verified_rows(dim, delta, best, evaluations, n, seconds))
        if progress is not None:
            progress(dim, delta)
    frame = pd.DataFrame([dataclasses.asdict(r) for r in rows])
    for key in ("gram_v", "gram_w"):
        entries = np.array(frame.pop(key).tolist())
        for j, name in enumerate(("11", "12", "22")):
            frame[f"{key}_{name}"] = entries[:, j]
    return frame


def plot_k2_study(table):
    """Two panels over d: the best pair found relative to the aligned rank-one value
    (≤ 1 supports the conjecture), and Theorem 5.4 relative to the best pair found."""
    from synthamp.figures._style import _colors, _log_scale, _new_figure

    fig = _new_figure(1, 2, 11.0, 4.6)
    left, right = fig.axes
    alphas = sorted(table["alpha"].unique())
    styles = {0.25: ":", 0.5: "--", 1.0: "-"}
    for alpha, color in zip(alphas, _colors(len(alphas)), strict=True):
        for delta, ls in styles.items():
            rows = table[(table["alpha"] == alpha) & (table["delta"] == delta)].sort_values("dim")
            if rows.empty:
                continue
            label = f"α = {alpha:g}, Δ = {delta:g}"
            left.plot(
                rows["dim"],
                rows["ratio_to_aligned"],
                color=color,
                ls=ls,
                marker="o",
                ms=3,
                label=label,
            )
            right.plot(
                rows["dim"],
                rows["theorem_ratio"],
                color=color,
                ls=ls,
                marker="o",
                ms=3,
                label=label,
            )
    left.axhline(1.0, color="0.3", lw=1)
    for ax in (left, right):
        _log_scale(ax, "x")
        ax.grid(True, which="major", alpha=0.3)
        ax.set_xlabel("model width d")
    _log_scale(right, "y")
    left.set_ylabel("best pair found / aligned rank-one pair")
    right.set_ylabel("Theorem 5.4 / best pair found")
    left.set_title("exact D_α of the best adjacent pair found (search, lower bound)", fontsize=9)
    right.set_title("how far the certified bound lies above it", fontsize=9)
    right.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(f"k = 2, C = {NORM_BOUND:g}, σ = 1: is the aligned rank-one pair the worst case?")
    return fig
