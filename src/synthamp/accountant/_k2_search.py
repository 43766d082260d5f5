"""A searched lower bound on the worst-case k = 2 plateau RDP (docs/theory.md §8, §15).

For two-dimensional records the privacy loss of a pair depends on the Gram
matrices Ω_v = vᵀv/σ², Ω_w = wᵀw/σ² only, and adjacency (‖v‖_F, ‖w‖_F ≤ C,
‖v − w‖_F ≤ Δ after the best rotation of w) is {tr Ω ≤ c², BW(Ω_v, Ω_w) ≤ s}
(Bures–Wasserstein; c = C/σ, s = Δ/σ). Every such pair is realised by 2 × 2
matrices M_v, M_w = M_v + E with ‖M_v‖_F, ‖M_w‖_F ≤ c and ‖E‖_F ≤ s
(M_v = Ω_v^{1/2}, M_w the BW-optimal rotation of Ω_w^{1/2}), so a search runs
over x = (M_v, E) ∈ R⁸, projected onto the constraints (:func:`_pair`).

**What the bound is.** Every adjacent pair's divergence is at most the worst
case over adjacent pairs, so the exact value of *any* found pair, minus the
engine's error estimate, is a proven lower bound on the worst case: kind
certified, direction **lower**. It never feeds ε, σ or any guarantee (the
certified k = 2 curve is min(Theorem 5.4, post-processing)). A longer search
can only raise it; no search can certify the worst case.

**Method** (:func:`search_lower_bound`):

1. the aligned rank-one pairs: the exact k = 1 worst case with the full d
   (:func:`synthamp.accountant.worst_case_rdp`, value − error; docs/theory.md §8),
   valid at every order;
2. screening: structured pairs (rotated rank-one, equal-norm rotated at the
   Bures–Wasserstein limit, split rank-two) then random ones (fixed ``seed``),
   each evaluated by the k = 2 engine at the cheap search accuracy
   (``SEARCH_STEP``, ``SEARCH_DROP``: relative error measured ≤ 2e-6 at d ≥ 4,
   4e-5 at d = 2, far inside ``VERIFY_MARGIN``) at up to
   ``SCREEN_ORDERS`` orders spread geometrically over the requested ones ≤ 64;
3. verification: the winner of each screened order, when its screened value
   is within ``VERIFY_MARGIN`` of the best value so far (a pair further below
   cannot raise the bound), is recomputed at full accuracy (relative 1e-8)
   at the orders between that order's screened neighbours; only verified
   values (value − error) count.

Orders above ``MAX_ORDER_K2`` (64), outside the k = 2 engine's tested range,
keep the aligned value. The search runs under the ambient time budget
(:mod:`synthamp._budget`): once it is spent, the search stops and returns
what it has verified, still a lower bound, and its ``note`` says so.

Observed (docs/theory.md §15, docs/theory.md "k = 2"): for Δ/C ≤ 1/2 no searched
pair beats the aligned one; from Δ/C ≈ 0.7–0.9 on (α = 2) the pair of equal
norms C rotated in R² to Bures–Wasserstein distance Δ beats it, by up to 1.9×
at Δ ≥ √2·C (orthogonal directions), which no k = 1 pair can reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import TimeBudgetExceeded, check_budget, report_status
from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import at_most, validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._rdp_conversion import _frozen
from synthamp.accountant._worst_case import WorstCase, _worst_case_result
from synthamp.divergence._wishart import MAX_DIM_K2, plateau_gram_scaled

__all__ = [
    "MAX_ORDER_K2",
    "SCREEN_ORDERS",
    "SEARCH_DROP",
    "SEARCH_STEP",
    "VERIFY_MARGIN",
    "PairSearch",
    "search_lower_bound",
]

#: Search accuracy of the k = 2 engine: lattice step (local standard deviations) and drop.
SEARCH_STEP = 1.1
SEARCH_DROP = 26.0
#: The k = 2 engine's tested range of orders; above it the aligned value stands.
MAX_ORDER_K2 = 64.0
#: Orders screened per candidate pair (spread geometrically over the requested ones).
SCREEN_ORDERS = 6
#: A screened winner is verified when it is within this relative margin of the best value.
VERIFY_MARGIN = 0.01
#: Smallest d of the k = 2 engine.
MIN_DIM_K2 = 2


# --------------------------------------------------------------------------- the pair space


def _factors(x: np.ndarray, c: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """(M_v, M_w = M_v + E) of the parameters x = (M_v, E) ∈ R⁸, projected onto the
    constraints ‖M_v‖, ‖M_w‖ <= c, ‖E‖ <= s."""
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
    return m_v, m_w


def _grams(m_v: np.ndarray, m_w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Ω_v, Ω_w) = (M_vᵀM_v, M_wᵀM_w), symmetrised."""
    omega_v, omega_w = m_v.T @ m_v, m_w.T @ m_w
    return (omega_v + omega_v.T) / 2, (omega_w + omega_w.T) / 2


def _pair(x: np.ndarray, c: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """(Ω_v, Ω_w) of the parameters x = (M_v, E) ∈ R⁸, projected onto the constraints."""
    return _grams(*_factors(x, c, s))


def _gram_change_fits(omega_v: np.ndarray, omega_w: np.ndarray, q: float) -> bool:
    """Whether ‖Ω_w − Ω_v‖_op <= q and |tr(Ω_w − Ω_v)| <= q (the Gram constraints of the
    reachable set S₂, :func:`synthamp.accountant.in_gram_adjacency_k2`)."""
    change = omega_w - omega_v
    return bool(np.abs(np.linalg.eigvalsh(change)).max() <= q and abs(np.trace(change)) <= q)


def _pair_in_gram_set(x: np.ndarray, c: float, s: float, q: float):
    """:func:`_pair`, with M_w moved towards M_v (M_v + t·E, the largest t in [0, 1] found
    by bisection) until the Gram change fits ``q``: a pair of the reachable set S₂ (the
    segment keeps ‖M‖ <= c and ‖E‖ <= s, and t = 0 fits)."""
    m_v, m_w = _factors(x, c, s)
    omega_v, omega_w = _grams(m_v, m_w)
    if _gram_change_fits(omega_v, omega_w, q):
        return omega_v, omega_w
    lo, hi = 0.0, 1.0
    for _ in range(40):
        t = 0.5 * (lo + hi)
        if _gram_change_fits(omega_v, _grams(m_v, m_v + t * (m_w - m_v))[1], q):
            lo = t
        else:
            hi = t
    return _grams(m_v, m_v + lo * (m_w - m_v))


def _rotation(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


def _structured_starts(c: float, s: float) -> list[np.ndarray]:
    """Aligned rank-one pairs (forward, reverse; the first two), rotated rank-one pairs,
    equal-norm rank-one pairs at the largest angle of Bures–Wasserstein distance ≤ s,
    and split rank-two pairs."""
    g = min(s, c)
    e1 = np.array([[1.0, 0.0], [0.0, 0.0]])
    out = []
    for a, b in ((c, c - g), (c - g, c)):
        out.append(np.array([a, 0, 0, 0, b - a, 0, 0, 0], dtype=float))
    m_v = c * e1
    # M_w = b·e₁u(θ)ᵀ: Ω_w = b²·u(θ)u(θ)ᵀ, rotated by θ in R² (a rotation on the left,
    # in R^d, would leave the Gram matrix unchanged)
    for angle in (0.3, 0.8, math.pi / 2):
        m_w = (c - g / 2) * e1 @ _rotation(angle).T
        out.append(np.concatenate([m_v.ravel(), (m_w - m_v).ravel()]))
    # ‖c·e₁e₁ᵀ − c·e₁u(θ)ᵀ‖ = 2c·sin(θ/2) ≤ s: the widest rotation at full norm
    widest = 2 * math.asin(min(1.0, s / (2 * c)))
    m_w = c * e1 @ _rotation(min(widest, math.pi / 2)).T
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


def _candidates(c: float, s: float, starts: int, seed: int) -> list[np.ndarray]:
    """``starts`` candidate pairs beyond the aligned ones: structured first, then random."""
    rng = np.random.default_rng(seed)
    out = _structured_starts(c, s)[2:]
    while len(out) < starts:
        out.append(_random_start(rng, c, s))
    return out[:starts]


def screen_values(orders: np.ndarray, dim: int, omega_v: np.ndarray, omega_w: np.ndarray):
    """D_α of one pair at the search accuracy (−inf where the engine fails; 0 if equal)."""
    if np.allclose(omega_v, omega_w, rtol=0, atol=1e-14):
        return np.zeros(len(orders))
    try:
        value = plateau_gram_scaled(orders, dim, omega_v, omega_w, SEARCH_STEP, SEARCH_DROP)[0]
    except (RuntimeError, FloatingPointError, np.linalg.LinAlgError):
        return np.full(len(orders), -np.inf)
    return np.where(np.isfinite(value), value, -np.inf)


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True, eq=False)
class PairSearch:
    """The best adjacent k = 2 pair found, per order: a lower bound on the worst case.

    Attributes
    ----------
    alpha : ndarray
        Rényi orders.
    value : ndarray
        max(D_α − error, 0) of the best verified pair at each order (nats): a proven
        **lower** bound on the worst-case plateau RDP, never an upper bound.
    gram_v, gram_w : ndarray, shape (len(alpha), 2, 2)
        That pair's Gram matrices vᵀv, wᵀw (natural units).
    aligned : ndarray
        The aligned rank-one pairs' lower bound (the exact k = 1 worst case with the
        full d, value − error); ``value >= aligned`` at every order.
    starts : int
        Candidate pairs requested (besides the aligned ones).
    screened : int
        Candidate pairs screened before the end or the time budget.
    verified : int
        Pairs recomputed at full accuracy.
    complete : bool
        False when the time budget stopped the search (the value is still a lower bound).
    note : str
        One line: what the value is, and whether the search finished.
    kind : Kind
        ``certified`` (a proven lower bound; never used in a guarantee).
    """

    alpha: NDArray[np.float64]
    value: NDArray[np.float64]
    gram_v: NDArray[np.float64]
    gram_w: NDArray[np.float64]
    aligned: NDArray[np.float64]
    starts: int
    screened: int
    verified: int
    complete: bool
    note: str
    kind: Kind = Kind.CERTIFIED

    @property
    def beats_aligned(self) -> NDArray[np.bool_]:
        """Orders at which a searched pair beats the aligned rank-one pairs."""
        return self.value > self.aligned


def _screen_orders(orders: np.ndarray) -> np.ndarray:
    """Indices of up to SCREEN_ORDERS of the orders, spread geometrically (both ends
    included), sorted by order."""
    if orders.size <= SCREEN_ORDERS:
        return np.argsort(orders)
    targets = np.geomspace(orders.min(), orders.max(), SCREEN_ORDERS)
    picked = np.unique([int(np.argmin(np.abs(np.log(orders / t)))) for t in targets])
    return picked[np.argsort(orders[picked])]


def _verify_plan(
    values: np.ndarray, bound: np.ndarray, orders: np.ndarray, screen: np.ndarray, margin: float
) -> dict[int, np.ndarray]:
    """Candidate → the orders (a mask) at which to recompute it at full accuracy.

    The winner of each screened order, if within ``margin`` of the bound there,
    is verified at the orders between that order's screened neighbours (its
    ratio to the bound is smooth in α); a pair further below cannot raise the
    bound. The cost of the engine grows with the largest order, so verifying
    only where a pair can matter keeps the high orders out when they need not be in.
    """
    plan: dict[int, np.ndarray] = {}
    screened = orders[screen]
    for j in range(screen.size):
        i = int(np.argmax(values[:, j]))
        if not values[i, j] >= (1 - margin) * bound[screen[j]]:
            continue
        lo = screened[max(j - 1, 0)]
        hi = screened[min(j + 1, screen.size - 1)]
        mask = (orders >= lo) & (orders <= hi)
        plan[i] = plan.get(i, np.zeros(orders.size, dtype=bool)) | mask
    return plan


def _raise_by_pairs(
    alpha: NDArray[np.float64],
    dim: int,
    pairs: list[tuple[np.ndarray, np.ndarray]],
    best: NDArray[np.float64],
    omega_v: NDArray[np.float64],
    omega_w: NDArray[np.float64],
    verify_margin: float = VERIFY_MARGIN,
) -> tuple[int, int, int, bool]:
    """Raise ``best`` (per order, in place) to the verified exact value (− error) of the
    best of ``pairs`` (scaled Ω_v, Ω_w), recording the pair in ``omega_v``, ``omega_w``.

    Screens every pair at the search accuracy at up to :data:`SCREEN_ORDERS` orders
    ≤ :data:`MAX_ORDER_K2`, then verifies the winners at full accuracy
    (:func:`_verify_plan`); only verified values count. Returns (screened, verified,
    planned, complete); ``complete`` is False when the time budget stopped it.
    """
    inside = np.flatnonzero(alpha <= MAX_ORDER_K2)
    screened = verified = planned = 0
    if dim < MIN_DIM_K2 or not inside.size or not pairs:
        return screened, verified, planned, True
    sub = alpha[inside]
    screen = _screen_orders(sub)
    values = np.full((len(pairs), screen.size), -np.inf)
    try:
        for i, (ov, ow) in enumerate(pairs):
            check_budget()
            report_status(f"k = 2 search: screening pair {i + 1} of {len(pairs)}")
            values[i] = screen_values(sub[screen], dim, ov, ow)
            screened += 1
        plan = _verify_plan(values, best[inside], sub, screen, verify_margin)
        planned = len(plan)
        for i, mask in sorted(plan.items(), key=lambda item: -values[item[0]].max()):
            check_budget()
            report_status(f"k = 2 search: verifying a pair at full accuracy ({dim = })")
            try:
                full, full_error = plateau_gram_scaled(sub[mask], dim, *pairs[i])[:2]
            except (RuntimeError, FloatingPointError, np.linalg.LinAlgError):
                continue  # an engine failure verifies nothing; the bound stays
            verified += 1
            lower = np.where(np.isfinite(full_error), full - full_error, 0.0)
            idx = inside[mask]
            better = lower > best[idx]
            best[idx[better]] = lower[better]
            omega_v[idx[better]], omega_w[idx[better]] = pairs[i]
    except TimeBudgetExceeded:
        return screened, verified, planned, False
    return screened, verified, planned, True


def _search(
    alpha: NDArray[np.float64],
    dim: int,
    c: float,
    s: float,
    sigma: float,
    starts: int,
    seed: int,
    *,
    worst: WorstCase | None = None,
    verify_margin: float = VERIFY_MARGIN,
    gram_change: float | None = None,
    first: list[np.ndarray] | None = None,
) -> PairSearch:
    """The kernel of :func:`search_lower_bound`, for validated scaled inputs (c, s in σ);
    ``worst``: the unlimited k = 1 worst case at these orders, if already computed.
    ``gram_change`` (q = s₂/σ²): search the reachable Gram set S₂ instead of the norm
    model (:func:`synthamp.accountant.search_gram_set_k2`; ``worst`` then is the k = 1
    worst case of S₂, at the corner C′); ``first``: candidates screened before the
    ``starts`` others."""
    if worst is None:
        worst = _worst_case_result(alpha, dim, c, s, None, sigma)
    a, b = worst.norm_v / sigma, worst.norm_w / sigma
    aligned = worst.lower
    best = aligned.copy()
    omega_v = np.zeros((alpha.size, 2, 2))
    omega_w = np.zeros((alpha.size, 2, 2))
    omega_v[:, 0, 0], omega_w[:, 0, 0] = a * a, b * b
    screened = verified = planned = 0
    complete = True
    if dim >= MIN_DIM_K2 and starts > 0:
        xs = (first or []) + _candidates(c, s, starts, seed)
        if gram_change is None:
            pairs = [_pair(x, c, s) for x in xs]
        else:
            pairs = [_pair_in_gram_set(x, c, s, gram_change) for x in xs]
        screened, verified, planned, complete = _raise_by_pairs(
            alpha, dim, pairs, best, omega_v, omega_w, verify_margin
        )
    beats = int(np.count_nonzero(best > aligned))
    found = (
        f"a searched pair beats the aligned rank-one pair at {beats} of {alpha.size} orders"
        if beats
        else "no searched pair beats the aligned rank-one pair"
    )
    stopped = (
        ""
        if complete
        else f"; the time budget stopped the search ({screened} of {starts} pairs screened, "
        f"{verified} of {planned} winners verified): still a valid lower bound"
    )
    note = (
        f"rdp_search: the exact value (− error) of the best adjacent pair found among "
        f"{screened} screened pairs and {verified} verified, a lower bound on the worst "
        f"case, never a guarantee; {found}{stopped}"
    )
    return PairSearch(
        alpha=_frozen(alpha),
        value=_frozen(best),
        gram_v=_frozen(omega_v * sigma**2),
        gram_w=_frozen(omega_w * sigma**2),
        aligned=_frozen(aligned),
        starts=starts,
        screened=screened,
        verified=verified,
        complete=complete,
        note=note,
    )


def _check_search(starts: int, seed: int) -> tuple[int, int]:
    """Validated (starts >= 0, integer seed) of a pair search."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InputError("seed", f"must be an integer, got {seed!r}")
    return validated(starts=starts, seed=seed)


@privacy_quantity("certified")
def search_lower_bound(
    alpha: ArrayLike,
    dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float = 1.0,
    *,
    starts: int = 16,
    seed: int = 0,
) -> PairSearch:
    """A lower bound on the worst-case k = 2 plateau RDP by a search over adjacent pairs.

    The exact value (value − error) of the best adjacent pair found, per order
    (module docstring): at least the aligned rank-one value (the exact k = 1
    worst case with the full d, docs/theory.md §8), at most the worst case. A
    **lower** bound (certified), never an upper bound: it never feeds ε or σ.
    Runs under the ambient time budget (:func:`synthamp._budget.time_budget`);
    stopped early, it returns what it has verified and ``note`` says so.

    Parameters
    ----------
    alpha : float or sequence of float
        Rényi orders, each > 1; orders above 64 get the aligned value.
    dim : int
        Model width d (d = 1: the aligned value only).
    norm_bound : float
        C > 0, bound on ‖v‖_F and ‖w‖_F.
    sensitivity : float
        Δ > 0, bound on ‖v − w‖_F.
    sigma : float, default 1.0
        Noise scale σ > 0.
    starts : int, default 16
        Candidate pairs screened besides the aligned ones (≥ 0): structured ones
        first, then random. Each costs about one k = 2 engine call at the search
        accuracy (0.1–0.6 s).
    seed : int, default 0
        Seed of the random candidates (a research seed: the search, not the noise).

    Returns
    -------
    PairSearch
        The bound per order, the pair attaining it, and how the search ended.
    """
    alpha, dim, sigma = validated(alpha=alpha, dim=dim, sigma=sigma)
    dim = at_most("dim", dim, MAX_DIM_K2)
    c = validated_one("norm_bound", norm_bound) / sigma
    s = validated_one("sensitivity", sensitivity) / sigma
    starts, seed = _check_search(starts, seed)
    return _search(alpha, dim, c, min(s, 2 * c), sigma, starts, int(seed))
