"""Statistic-level adjacency: the reachable set of Gram pairs (docs/gram-adjacency.md).

The reduction theorem of ``synthamp.accountant._gram_adjacency`` is checked by dense scans
of the set S_G with the exact engine (never above the accounted worst case, reaching it),
its step (2) by the monotonicity it implies, and end to end on a public design: every
realised pair (‖v‖², ‖w‖²) of adjacent datasets lies in S_G and its exact ε (RDP and
privacy profile) is at most the accounted one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp._validation import InputError
from synthamp.accountant import (
    DEFAULT_ORDERS,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
    gram_norm_bound,
    in_gram_adjacency,
    pair_privacy_profile,
    privacy_profile,
    profile_epsilon,
    rdp_to_epsilon,
    worst_case_rdp,
)
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.divergence import renyi_plateau

ORDERS = np.array([1.5, 4.0, 16.0])


def test_gram_norm_bound_cases():
    assert gram_norm_bound(5.0, 0.5, 1.0) == pytest.approx((1.0 + 0.25) / 1.0)
    assert gram_norm_bound(5.0, 0.5, 0.04) == pytest.approx(0.2)
    assert gram_norm_bound(1.0, 0.5, 10.0) == 1.0  # capped by C
    # continuous at s₂ = Δ²: both formulas give Δ
    assert gram_norm_bound(5.0, 0.5, 0.25) == pytest.approx(0.5)
    with pytest.raises(InputError, match="gram_sensitivity"):
        gram_norm_bound(1.0, 0.5, 0.0)


def test_release_field_is_additive():
    base = SyntheticDataRelease(100, 1, 3.0, 0.5, 1.0)
    assert base.gram_sensitivity is None and base.adjacency_norm_bound == 3.0
    gram = SyntheticDataRelease(100, 1, 3.0, 0.5, 1.0, gram_sensitivity=0.6)
    assert gram.adjacency_norm_bound == pytest.approx(gram_norm_bound(3.0, 0.5, 0.6))
    assert gram.norm_bound == 3.0  # the field keeps its meaning
    with pytest.raises(InputError, match="gram_sensitivity"):
        SyntheticDataRelease(100, 2, 3.0, 0.5, 1.0, gram_sensitivity=0.6)
    with pytest.raises(InputError, match="gram_sensitivity"):
        SyntheticDataRelease(100, 1, 3.0, 0.5, 1.0, n_syn=1000, gram_sensitivity=0.6)


def _scan(dim, c, s, q, points=30):
    """Max of the plateau RDP over a dense scan of S_G (scaled units), per order.

    For each b on a grid of [0, c], a runs over a grid of its whole section
    [max(0, b − s, √(b² − q)), min(c, b + s, √(b² + q))] (both orders of the pair).
    """
    best = np.zeros(ORDERS.size)
    for b in np.linspace(0.0, c, points):
        lo = max(0.0, b - s, math.sqrt(max(b * b - q, 0.0)))
        hi = min(c, b + s, math.sqrt(b * b + q))
        for a in np.linspace(lo, hi, points):
            if a != b:
                best = np.maximum(best, renyi_plateau(ORDERS, dim, a, b))
    for a, b in _corners(c, s, q):  # the claimed maximisers, which lie in S_G
        assert in_gram_adjacency(a * a, b * b, c, s, q)
        best = np.maximum(best, renyi_plateau(ORDERS, dim, a, b))
        best = np.maximum(best, renyi_plateau(ORDERS, dim, b, a))
    return best


def _corners(c, s, q):
    if q >= s * s:
        t = (q - s * s) / (2 * s)
        if t + s <= c:
            return [(t + s, t)]
        return [(c, max(c - s, math.sqrt(max(c * c - q, 0.0))))]
    return [(min(c, math.sqrt(q)), 0.0)]


@pytest.mark.parametrize(
    "dim,c,s,q",
    [
        (20, 4.0, 0.6, 1.2),  # q > s²: the corner inside
        (200, 6.0, 1.0, 0.5),  # q < s²: the edge starts at (√q, 0)
        (5, 2.0, 0.8, 5.0),  # the cap C binds first
    ],
)
def test_worst_case_over_the_gram_set(dim, c, s, q):
    """Dense scan of S_G: never above the accounted worst case, and reaching it."""
    accounted = worst_case_rdp(ORDERS, dim, gram_norm_bound(c, s, q), s)
    scanned = _scan(dim, c, s, q)
    assert np.all(scanned <= accounted * (1 + 1e-9) + 1e-12)
    assert np.all(scanned >= 0.98 * accounted)
    # and the norm model's worst case is larger (the adjacency is a strict subset)
    assert np.all(worst_case_rdp(ORDERS, dim, c, s) >= accounted)


def test_hyperbolic_part_decreases():
    """Step (2): D_α(χ²_d(τ + q) ‖ χ²_d(τ)) (and the reverse) is non-increasing in τ."""
    q, dim = 0.8, 30
    taus = np.linspace(0.0, 25.0, 26)
    fwd = np.array([renyi_plateau(ORDERS, dim, math.sqrt(t + q), math.sqrt(t)) for t in taus])
    rev = np.array([renyi_plateau(ORDERS, dim, math.sqrt(t), math.sqrt(t + q)) for t in taus])
    assert np.all(np.diff(fwd, axis=0) <= 1e-12)
    assert np.all(np.diff(rev, axis=0) <= 1e-12)
    assert fwd[-1, 0] < 0.5 * fwd[0, 0]  # the test can fail: the decrease is real


@pytest.fixture(scope="module")
def design_case():
    m, ridge, bound = 14, 0.02, 1.0
    design = PublicDesign("random-seeds", 400, m, seed=9)
    x = design.dense()
    b = design_bounds(design.kernel()[0], ridge, bound)
    big_m = np.linalg.solve(x.T @ x / m + ridge * np.eye(x.shape[1]), x.T / m)
    rng = np.random.default_rng(1)
    ys = bound * rng.choice([-1.0, 1.0], (4000, m))
    ys[2000:] = rng.uniform(-bound, bound, (2000, m))
    i = rng.integers(0, m, ys.shape[0])
    ys2 = ys.copy()
    ys2[np.arange(ys.shape[0]), i] = bound * rng.choice([-1.0, 1.0, 0.0], ys.shape[0])
    lv = np.sum((ys @ big_m.T) ** 2, axis=1)
    lw = np.sum((ys2 @ big_m.T) ** 2, axis=1)
    return b, lv, lw


def test_realised_pairs_lie_in_the_set(design_case):
    b, lv, lw = design_case
    inside = in_gram_adjacency(lv, lw, b.norm_bound, b.sensitivity, b.gram_sensitivity)
    assert np.all(inside)
    # the set is not vacuous: a tighter s₂ excludes realised pairs
    tighter = in_gram_adjacency(lv, lw, b.norm_bound, b.sensitivity, 0.5 * b.gram_sensitivity)
    assert not np.all(tighter)


def test_accounted_epsilon_bounds_realised_pairs(design_case):
    b, lv, lw = design_case
    dim, delta = 400, 1e-5
    cal = calibrate_sigma(
        1.0, delta, dim=dim, norm_bound=b.norm_bound, sensitivity=b.sensitivity,
        gram_sensitivity=b.gram_sensitivity, accountant="rdp",
    )  # fmt: skip
    norm = calibrate_sigma(
        1.0, delta, dim=dim, norm_bound=b.norm_bound, sensitivity=b.sensitivity, accountant="rdp"
    )
    assert cal.sigma < norm.sigma  # the Gram adjacency pays
    release = SyntheticDataRelease(
        dim, 1, b.norm_bound, b.sensitivity, cal.sigma, gram_sensitivity=b.gram_sensitivity
    )
    eps_rdp = compute_epsilon(release, delta, accountant="rdp").epsilon
    assert eps_rdp <= 1.0 + 1e-9
    # the pairs with the largest gap |λ_v − λ_w| at small λ: the candidates for the worst case
    gap = np.abs(lv - lw) / (1.0 + np.minimum(lv, lw))
    top = np.argsort(gap)[-6:]
    for j in top:
        a, c = math.sqrt(lv[j]), math.sqrt(lw[j])
        curve = renyi_plateau(DEFAULT_ORDERS, dim, a, c, cal.sigma)
        eps_pair = rdp_to_epsilon(DEFAULT_ORDERS, curve, delta, warn=False)[0]
        assert eps_pair <= eps_rdp
    prof = profile_epsilon(release, delta)
    for j in top[-3:]:
        a, c = math.sqrt(lv[j]), math.sqrt(lw[j])
        upper, _ = pair_privacy_profile([prof.epsilon], dim, a, c, cal.sigma)
        assert upper[0] <= delta * (1 + 1e-6)


def test_privacy_profile_over_the_gram_edges():
    """The exact profile of the Gram release bounds every pair on both edges of S_G.

    Step (1) of the theorem reduces S_G to its edges {(ψ(t), t)} and {(t, ψ(t))}; the pairs
    there, the corner included, have δ(ε) at most the release's, and the corner attains it.
    """
    dim, c, s, q = 20, 4.0, 0.6, 1.2
    release = SyntheticDataRelease(dim, 1, c, s, 1.0, gram_sensitivity=q)
    eps = np.array([0.3, 1.0])
    accounted = privacy_profile(release, eps).delta
    t_star = (q - s * s) / (2 * s)
    t_cap = max(c - s, math.sqrt(c * c - q))
    best = np.zeros(eps.size)
    for t in np.concatenate([np.linspace(0.0, t_cap, 7), [t_star]]):
        a = min(c, t + s, math.sqrt(t * t + q))
        for pair in ((a, t), (t, a)):
            upper, _ = pair_privacy_profile(eps, dim, *pair)
            assert np.all(upper <= accounted * (1 + 1e-6) + 1e-15)
            best = np.maximum(best, upper)
    assert np.all(best >= 0.99 * accounted)


def test_the_kernel_of_step_2():
    """X ~ χ²_d(λ) plus W ~ χ²₀(δ) (a Poisson(δ/2) mixture of χ²_{2j}) is χ²_d(λ + δ)."""
    from scipy import stats  # heavy: scipy, in this test only

    rng = np.random.default_rng(4)
    d, lam, shift, n = 7, 2.5, 1.7, 40_000
    x = rng.noncentral_chisquare(d, lam, n)
    j = rng.poisson(shift / 2.0, n)
    w = np.where(j > 0, rng.chisquare(np.maximum(2 * j, 1)), 0.0)
    assert stats.kstest(x + w, stats.ncx2(d, lam + shift).cdf).pvalue > 1e-3
    # and the test can fail: without W the law is χ²_d(λ), far from χ²_d(λ + δ)
    assert stats.kstest(x, stats.ncx2(d, lam + shift).cdf).pvalue < 1e-6
