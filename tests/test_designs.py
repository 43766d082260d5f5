"""Public designs and their exact bounds (synthamp.release._designs; docs/theory.md §19).

Brute force over adjacent datasets: the realised ‖v − w‖, ‖v‖ and |‖v‖² − ‖w‖²| never
exceed Δ, C and s₂, and Δ and s₂ are attained by the worst records; the dual computation
agrees with the dense primal one (numpy) and with mpmath on a tiny design.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from synthamp._validation import InputError
from synthamp.release._designs import (
    BLOCK_COLUMNS,
    PublicDesign,
    design_bounds,
    design_model,
)
from synthamp.release._ridge import ridge_fit


def _primal_m(x: np.ndarray, ridge: float) -> np.ndarray:
    """M = (XᵀX/m + λI)⁻¹Xᵀ/m, dense (D × m)."""
    m, d = x.shape
    return np.linalg.solve(x.T @ x / m + ridge * np.eye(d), x.T / m)


@pytest.mark.parametrize("width", [7, 40, BLOCK_COLUMNS + 5])
def test_kernel_by_blocks_matches_dense(width):
    design = PublicDesign("random-seeds", width, 12, seed=3)
    x = design.dense()
    assert x.shape == (12, width)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, rtol=1e-12)
    kernel, norms = design.kernel()
    np.testing.assert_allclose(kernel, x @ x.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(norms, design.row_norms(), rtol=1e-12)
    # the public seed fixes the design; another seed changes it
    np.testing.assert_array_equal(x, PublicDesign("random-seeds", width, 12, seed=3).dense())
    assert not np.allclose(x, PublicDesign("random-seeds", width, 12, seed=4).dense())


@pytest.mark.parametrize("name", ["random-seeds", "random-features"])
@pytest.mark.parametrize("width", [5, 60])
def test_dual_matches_primal(name, width):
    rng = np.random.default_rng(0)
    m, ridge = 15, 0.05
    inputs = rng.standard_normal((m, 3)) if name == "random-features" else None
    design = PublicDesign(name, width, m, seed=11, inputs=inputs)
    x = design.dense()
    kernel, norms = design.kernel()
    bounds = design_bounds(kernel, ridge, 1.0)
    big_m = _primal_m(x, ridge)
    np.testing.assert_allclose(bounds.gram, big_m.T @ big_m, rtol=1e-9, atol=1e-13)
    y = rng.uniform(-1, 1, m)
    v = design_model(design, y, bounds.dual, norms)
    np.testing.assert_allclose(v[:, 0], big_m @ y, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(v, ridge_fit(x, y[:, None], ridge), rtol=1e-8, atol=1e-12)


def test_gram_against_mpmath():
    design = PublicDesign("random-seeds", 7, 5, seed=1)
    x = design.dense()
    ridge = 0.1
    mpmath.mp.dps = 40
    xm = mpmath.matrix(x.tolist())
    m = 5
    inner = xm.T * xm / m + ridge * mpmath.eye(7)
    big_m = inner**-1 * xm.T / m
    gram_ref = np.array((big_m.T * big_m).tolist(), dtype=float)
    bounds = design_bounds(design.kernel()[0], ridge, 1.0)
    np.testing.assert_allclose(bounds.gram, gram_ref, rtol=1e-12, atol=1e-15)


def _worst_case_pairs(gram: np.ndarray, bound: float):
    """For each record i: the adjacent pair (y, y′) that attains s₂ (module docstring)."""
    m = gram.shape[0]
    for i in range(m):
        g, row = gram[i, i], gram[i].copy()
        row[i] = 0.0
        r = np.abs(row).sum()
        y = bound * np.sign(row)
        y[i] = -bound * min(1.0, r / g)
        y2 = y.copy()
        y2[i] = bound
        yield i, y, y2


@pytest.mark.parametrize("width,ridge", [(6, 0.05), (30, 0.01), (300, 0.01)])
def test_bounds_hold_and_are_attained_brute_force(width, ridge):
    rng = np.random.default_rng(width)
    m, bound = 10, 0.7
    design = PublicDesign("random-seeds", width, m, seed=5)
    kernel, _ = design.kernel()
    b = design_bounds(kernel, ridge, bound)
    big_m = _primal_m(design.dense(), ridge)
    assert b.gram_sensitivity <= b.gram_sensitivity_theory
    # random search: datasets in the box, one record replaced by a random or extreme value
    ys = rng.uniform(-bound, bound, (3000, m))
    ys[:1000] = bound * rng.choice([-1.0, 1.0], (1000, m))
    i = rng.integers(0, m, ys.shape[0])
    ys2 = ys.copy()
    ys2[np.arange(ys.shape[0]), i] = bound * rng.choice([-1.0, 1.0, 0.3], ys.shape[0])
    v, w = ys @ big_m.T, ys2 @ big_m.T
    lv, lw = (v**2).sum(1), (w**2).sum(1)
    assert np.max(np.linalg.norm(v - w, axis=1)) <= b.sensitivity
    assert np.max(np.sqrt(lv)) <= b.norm_bound
    assert np.max(np.abs(lv - lw)) <= b.gram_sensitivity
    # Δ attained: record argmax Gᵢᵢ from −B to B
    j = int(np.argmax(np.diag(b.gram)))
    e = np.zeros(m)
    e[j] = 2 * bound
    assert np.linalg.norm(big_m @ e) == pytest.approx(b.sensitivity, rel=3e-9)
    # s₂ attained by the constructed pairs (the exact supremum)
    best = max(
        abs(np.sum((big_m @ y2) ** 2) - np.sum((big_m @ y) ** 2))
        for _, y, y2 in _worst_case_pairs(b.gram, bound)
    )
    assert best == pytest.approx(b.gram_sensitivity, rel=1e-8)
    # C: at least the largest ‖v‖ over the vertices of the box (a convex maximum), close to it
    vertices = bound * np.array(list(itertools.product([-1.0, 1.0], repeat=m)))
    largest = np.max(np.linalg.norm(vertices @ big_m.T, axis=1))
    assert largest <= b.norm_bound <= 1.5 * largest


def test_s2_is_the_supremum_on_a_grid():
    """Grid over (yᵢ, yᵢ′) with the other records at vertices: never above s₂, reaching it."""
    m, bound, ridge = 6, 1.0, 0.02
    design = PublicDesign("random-seeds", 9, m, seed=2)
    b = design_bounds(design.kernel()[0], ridge, bound)
    big_m = _primal_m(design.dense(), ridge)
    grid = np.linspace(-bound, bound, 41)
    best = 0.0
    for rest in itertools.product([-bound, bound], repeat=m - 1):
        y = np.array((0.0, *rest))
        base = big_m @ y
        col = big_m[:, 0]
        norms = np.array([np.sum((base + t * col) ** 2) for t in grid])
        best = max(best, float(norms.max() - norms.min()))
    assert best <= b.gram_sensitivity
    row = b.gram[0].copy()
    row[0] = 0
    r, g = np.abs(row).sum(), b.gram[0, 0]
    exact0 = bound**2 * ((g + r) ** 2 / g if r < g else 4 * r)
    assert best == pytest.approx(exact0, rel=5e-3)  # the grid reaches record 0's supremum


def test_design_validation():
    with pytest.raises(InputError, match="design"):
        PublicDesign("random-walk", 10, 5, seed=0)
    with pytest.raises(InputError, match="width"):
        PublicDesign("random-seeds", 10**6 + 1, 5, seed=0)
    with pytest.raises(InputError, match="inputs"):
        PublicDesign("random-features", 10, 5, seed=0)
    with pytest.raises(InputError, match="inputs"):
        PublicDesign("random-features", 10, 5, seed=0, inputs=np.ones((4, 2)))
    with pytest.raises(InputError, match="inputs"):
        PublicDesign("random-seeds", 10, 5, seed=0, inputs=np.ones((5, 2)))
