"""The anchors' sensitivity of vᵀv = YᵀGY on a public design (k ≥ 2), checked by brute force.

``design_statistic_sensitivity`` claims a bound on N(ΔG) = √(‖ΔG‖_F² + (tr ΔG)²) ≥ ‖ΔG‖_F
over every replace-one change with rows in the ball ‖y‖ <= B, exact on an orthogonal design.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.design import PublicDesign, design_bounds
from synthamp.utility import design_statistic_sensitivity


def _n(delta: np.ndarray) -> float:
    return math.hypot(np.linalg.norm(delta), np.trace(delta))


def _ball(rng, shape, radius):
    x = rng.normal(size=shape)
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    return x * radius * rng.uniform(0.0, 1.0, size=(*shape[:-1], 1)) ** 0.25


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("m,width,ridge", [(6, 40, 0.05), (8, 12, 0.01), (5, 200, 1.0)])
def test_no_adjacent_pair_of_a_random_design_exceeds_the_bound(k, m, width, ridge):
    b = 1.5
    design = PublicDesign("random-seeds", width, m, seed=3)
    bounds = design_bounds(design, ridge, b)
    bound = design_statistic_sensitivity(k, None, bounds.gram_sensitivity_theory)
    g = bounds.gram
    rng = np.random.default_rng(m * 100 + k)
    worst = 0.0
    for _ in range(300):
        y = _ball(rng, (m, k), b)
        # extreme rows half the time: on the sphere, aligned with G's signs
        if rng.random() < 0.5:
            y = b * y / np.linalg.norm(y, axis=1, keepdims=True)
        i = int(rng.integers(m))
        y2 = y.copy()
        y2[i] = _ball(rng, (k,), b) if rng.random() < 0.5 else -y[i]
        delta = y2.T @ g @ y2 - y.T @ g @ y
        worst = max(worst, _n(delta))
        assert np.linalg.norm(delta) <= _n(delta) <= bound
    assert worst > 0.2 * bound  # the search reaches the bound's scale: the test can fail


@pytest.mark.parametrize("k", [2, 3, 13])
def test_the_bound_is_attained_on_an_orthogonal_design(k):
    m, ridge, b = 7, 0.1, 2.0
    gscale = (1.0 + m * ridge) ** -2
    bound = design_statistic_sensitivity(k, None, b * b * gscale)
    y, y2 = np.zeros((m, k)), np.zeros((m, k))
    y[0, 0], y2[0, 1] = b, b  # one record Be₁ → Be₂, every other row 0
    delta = gscale * (y2.T @ y2 - y.T @ y)
    assert _n(delta) == pytest.approx(bound, rel=1e-12)
    assert design_statistic_sensitivity(1, 0.25, 9.0) == 0.25  # k = 1: s₂ itself
