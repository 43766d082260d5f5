"""The k = 2 reachable Gram set S₂ and concrete adjacent datasets on a public design.

Brute force over adjacent datasets: every realised pair of Gram matrices lies in S₂
(docs/gram-adjacency.md, the k = 2 section); the datasets behind the lower bound are
adjacent and bounded; the lower bound never exceeds the certified curve; the search over
S₂ finds the pairs of opposite Gram change, which beat the aligned ones.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import references
from synthamp._kinds import Kind
from synthamp.accountant import (
    SyntheticDataRelease,
    bures_wasserstein_2x2,
    in_gram_adjacency,
    in_gram_adjacency_k2,
    search_gram_set_k2,
)
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.design._pairs import (
    adjacent_design_datasets,
    adjacent_design_pairs,
    compare_design_accounting,
)
from synthamp.divergence import renyi_plateau_gram


def _bounds(m: int, width: int, seed: int, ridge: float = 0.01, b: float = 1.0):
    kernel, _ = PublicDesign("random-seeds", width, m, seed).kernel()
    return design_bounds(kernel, ridge, b)


def _ball_rows(rng, m: int, b: float) -> np.ndarray:
    """m rows in the disc of radius b, a quarter of them on its boundary."""
    y = rng.standard_normal((m, 2))
    radius = b * np.where(rng.uniform(size=m) < 0.25, 1.0, np.sqrt(rng.uniform(size=m)))
    return y / np.linalg.norm(y, axis=1, keepdims=True) * radius[:, None]


def _bures_grid() -> list[tuple[list[float], list[float]]]:
    """Pairs (A, B) as entries [a₁₁, a₁₂, a₂₂]: random ones over 20 orders of magnitude of
    the trace (C/σ from 10⁻⁵ to 10⁵), rank-one and zero ones, orthogonal and nearly equal."""
    rng = np.random.default_rng(1)
    out = []
    for scale in (1e-10, 1e-4, 1.0, 1e2, 1e4, 1e10):
        for _ in range(4):
            x, y = rng.standard_normal((2, 3, 2))
            out.append((scale * (x.T @ x), scale * (y.T @ y)))
        out.append((scale * np.diag([1.0, 0.0]), scale * np.diag([0.0, 1.0])))
        a = scale * (x.T @ x)
        out.append((a, a * (1 + 1e-6)))
    out.append((np.zeros((2, 2)), np.eye(2)))
    out.append((np.diag([4.0, 0.0]), np.array([[1.0, 1.0], [1.0, 1.0]])))
    return [([a[0, 0], a[0, 1], a[1, 1]], [b[0, 0], b[0, 1], b[1, 1]]) for a, b in out]


def test_bures_wasserstein_closed_form_matches_the_mpmath_reference():
    """Relative 1e-9, or 1e-7·√tr absolute where BW ≪ √tr (the closed form subtracts
    tr A + tr B − 2·cross, which loses digits when A ≈ B; the adjacency check allows it)."""
    for a, b in _bures_grid():
        ma = np.array([[a[0], a[1]], [a[1], a[2]]])
        mb = np.array([[b[0], b[1]], [b[1], b[2]]])
        exact = float(references.bures_wasserstein_2x2(a, b))
        value = float(bures_wasserstein_2x2(ma, mb))
        scale = math.sqrt(max(np.trace(ma), np.trace(mb)))
        assert abs(value - exact) <= max(1e-9 * exact, 1e-7 * scale), (a, b, value, exact)
    rank_one = np.diag([4.0, 0.0])
    turned = np.array([[0.0, 0.0], [0.0, 4.0]])
    assert bures_wasserstein_2x2(rank_one, turned) == pytest.approx(2 * np.sqrt(2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_realised_pair_of_random_adjacent_datasets_lies_in_the_set(seed):
    rng = np.random.default_rng(seed)
    m, b = 7, 1.5
    bounds = _bounds(m, 12, seed, ridge=0.05, b=b)
    g = bounds.gram
    grams_v, grams_w = [], []
    for _ in range(400):
        y = _ball_rows(rng, m, b)
        y2 = y.copy()
        y2[rng.integers(m)] = _ball_rows(rng, 1, b)[0]
        grams_v.append(y.T @ g @ y)
        grams_w.append(y2.T @ g @ y2)
    inside = in_gram_adjacency_k2(
        grams_v, grams_w, bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity
    )
    assert inside.all()
    # the set is not vacuous: a tenth of s₂ excludes realised pairs
    assert not in_gram_adjacency_k2(
        grams_v, grams_w, bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity / 10
    ).all()


def test_concrete_pairs_come_from_adjacent_bounded_datasets_and_lie_in_the_sets():
    b = 1.0
    bounds = _bounds(9, 40, 4, b=b)
    for k in (1, 2):
        s_v, s_w = adjacent_design_pairs(bounds.gram, b, k)
        datasets = list(adjacent_design_datasets(bounds.gram, b, k))
        assert len(datasets) == len(s_v)
        for j, (y, y2) in enumerate(datasets):
            assert np.linalg.norm(y, axis=1).max() <= b * (1 + 1e-12)
            assert np.linalg.norm(y2, axis=1).max() <= b * (1 + 1e-12)
            assert np.count_nonzero(np.any(y != y2, axis=1)) <= 1
            np.testing.assert_allclose(
                y.T @ bounds.gram @ y, np.reshape(s_v[j], (k, k)), atol=1e-12
            )
            np.testing.assert_allclose(
                y2.T @ bounds.gram @ y2, np.reshape(s_w[j], (k, k)), atol=1e-12
            )
        args = (bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity)
        if k == 1:
            assert in_gram_adjacency(s_v, s_w, *args).all()
            # the family reaches s₂ itself (the exact supremum, attained)
            assert np.abs(s_v - s_w).max() == pytest.approx(bounds.gram_sensitivity, rel=1e-8)
        else:
            assert in_gram_adjacency_k2(s_v, s_w, *args).all()


def test_search_over_the_gram_set_is_heuristic_in_the_set_and_beats_aligned_pairs():
    c, delta, s2, sigma, d = 14.0, 1.7, 7.7, 7.0, 2000
    found = search_gram_set_k2([2.0, 16.0], d, c, delta, s2, sigma, starts=2)
    assert found.kind is Kind.HEURISTIC
    assert "heuristic" in found.note and "never a guarantee" in found.note
    assert in_gram_adjacency_k2(found.gram_v, found.gram_w, c, delta, s2).all()
    # a change of eigenvalues (s₂, −s₂) has Frobenius norm √2·s₂: in the Gaussian regime
    # (d large, σ large) about twice the divergence of the aligned worst case of S₂
    ratio = found.value / found.aligned
    assert np.all(ratio > 1.8) and np.all(ratio < 2.2)
    # each value is the exact value of its pair (the public engine agrees)
    for j, alpha in enumerate(found.alpha):
        exact = renyi_plateau_gram(alpha, d, found.gram_v[j], found.gram_w[j], sigma=sigma)
        value = float(np.ravel(exact)[0])
        assert found.value[j] <= value * (1 + 1e-9)
        assert found.value[j] == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("k", [1, 2])
def test_lower_bound_from_concrete_pairs_is_below_the_certified_curve(k):
    b = 1.0
    bounds = _bounds(30, 500, 5, b=b)
    sigma = 0.8 if k == 1 else 3.0
    release = SyntheticDataRelease(
        500, k, bounds.norm_bound, bounds.sensitivity, sigma,
        gram_sensitivity=bounds.gram_sensitivity if k == 1 else None,
    )  # fmt: skip
    found = compare_design_accounting(release, bounds, b, [2.0, 8.0, 16.0])
    assert found.complete
    # the accounted curve says its own kind: the exact k = 1 worst case, Theorem 5.4 for k = 2
    assert found.certified_kind == ("exact" if k == 1 else "certified")
    assert found.to_dict()["certified_kind"] == found.certified_kind
    assert np.all(found.lower > 0)
    assert np.all(found.lower <= found.certified)
    if k == 2:
        assert np.all(found.searched >= found.lower * (1 - 1e-9))
        assert np.all(found.searched <= found.certified)
    else:
        assert found.searched is None
        # the Gram adjacency's exact worst case is within a small factor of real pairs
        assert np.all(found.certified / found.lower < 3)
    text = "\n".join(found.lines())
    assert "a lower bound" in text and "certified" in text
    assert found.to_dict()["lower_bound_kind"].startswith("certified lower bound")


def test_the_plan_puts_its_best_row_beside_concrete_pairs():
    import json

    from synthamp.design._plan import plan_design

    plan = plan_design(
        n_records=40, n_targets=2, widths=[300], design_seed=3, label_bound=1.0,
        epsilon=1.0, delta=1e-5, ridges=[0.01, 1.0], adjacency="norm",
    )  # fmt: skip
    best = plan.rows[plan.best]
    assert best.comparison is not None and best.comparison["searched_gram_set_kind"] == "heuristic"
    assert all(row.comparison is None for i, row in enumerate(plan.rows) if i != plan.best)
    assert np.all(np.array(best.comparison["lower_bound"]) <= best.comparison["certified"])
    assert "(a lower bound" in best.comparison["sentence"]
    json.dumps(best.comparison)  # JSON-ready, as the plan's rows are
