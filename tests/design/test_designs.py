"""Public designs and their certified bounds (synthamp.design._designs, _design_gram; §19).

Brute force over adjacent datasets: the realised ‖v − w‖, ‖v‖ and |‖v‖² − ‖w‖²| never
exceed Δ, C and s₂, and Δ and s₂ are attained by the worst records; the dual computation
agrees with the dense primal one (numpy) and with mpmath on a tiny design. Against the
stored 60-digit primal reference (tests/mpref_design.py) on a grid of shapes and ridges,
both routes (the SVD of X, the eigendecomposition of K) report bounds >= the exact ones,
within 1e-6 where they certify, and refuse (naming ridge or width) otherwise.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

import mpref_design
import references
from synthamp._validation import InputError
from synthamp.design._designs import (
    BLOCK_COLUMNS,
    PublicDesign,
    design_bounds,
    design_model,
    design_spectrum,
)
from synthamp.design._gram import (
    CERTIFIED_RELATIVE_ERROR,
    spectrum_from_kernel,
    spectrum_from_matrix,
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


#: The reference grid: D < m, D = m, D > m, D ≫ m (two blocks), λ from 1e-12 to 10.
REFERENCE_SHAPES = [(5, 2), (6, 3), (10, 4), (8, 8), (12, 12), (4, 9), (6, 40), (5, 5000)]
REFERENCE_RIDGES = [1e-12, 1e-9, 1e-6, 1e-3, 0.1, 10.0]
#: The narrow designs of the report that found the dual route's Δ too small, and λ = 1e-300.
ISSUE_CASES = [(200, 100, 3.16e-10), (6, 3, 1e-9), (178, 50, 1e-8), (200, 100, 1e-300)]
SEED = 0


def _check_against_reference(x, ridge, exact, route):
    """Certified bounds >= the exact ones and within 1e-6 of them, or a refusal naming
    ridge or width; returns whether the route certified."""
    try:
        b = design_bounds(spectrum_from_matrix(x, route=route), ridge, 1.0)
    except InputError as error:
        assert error.param in ("ridge", "width"), error
        return False
    reported = (b.sensitivity / 2, b.norm_bound, b.gram_sensitivity, b.gram_sensitivity_theory)
    for name, value, truth in zip(("Δ", "C", "s2", "theory"), reported, exact, strict=True):
        assert mpmath.mpf(value) >= truth, (name, route, value, truth)
        assert value <= float(truth) * (1 + 2.5 * CERTIFIED_RELATIVE_ERROR), (name, route)
    assert 0 <= b.rounding_bound <= CERTIFIED_RELATIVE_ERROR
    return True


@pytest.mark.parametrize("m,width", REFERENCE_SHAPES)
def test_bounds_against_the_stored_primal_reference(m, width):
    x = mpref_design.design_matrix(m, width, SEED)
    certified = {}
    for ridge in REFERENCE_RIDGES:
        exact = references.design_bounds(m, width, SEED, ridge)
        for route in ("svd", "kernel"):
            certified[route, ridge] = _check_against_reference(x, ridge, exact, route)
    # the SVD route certifies the whole grid (κ(X) up to 146 at 12 × 12) within 2.5e-6
    assert all(certified["svd", ridge] for ridge in REFERENCE_RIDGES), (m, width)
    if width < m:  # the kernel of a narrow design: rounding in its null space, refused at small λ
        assert not certified["kernel", 1e-12]


@pytest.mark.parametrize("m,width,ridge", ISSUE_CASES)
def test_the_narrow_designs_that_were_too_small(m, width, ridge):
    """Δ was 1.05% low (m = 200), 0.539× (m = 6) and 0.99993× (m = 178) through the m × m
    dual; now certified >= the 60-digit primal value and within 1e-6 of it."""
    x = mpref_design.design_matrix(m, width, SEED)
    exact = references.design_bounds(m, width, SEED, ridge)
    assert _check_against_reference(x, ridge, exact, "svd")
    assert not _check_against_reference(x, ridge, exact, "kernel")  # refused, never too small


def test_public_design_bounds_against_live_mpmath():
    """The library's own design (its row norms, its route) against the reference, live."""
    inputs = np.random.default_rng(8).standard_normal((7, 2))
    for name, m, width, ridge in [
        ("random-seeds", 7, 3, 1e-9), ("random-seeds", 6, 9, 1e-4),
        ("random-features", 7, 5, 1e-12),
    ]:  # fmt: skip
        design = PublicDesign(
            name, width, m, seed=4, inputs=inputs[:m] if name == "random-features" else None
        )
        b = design_bounds(design, ridge, 1.0)
        x = np.hstack(list(design.blocks(b.norms)))
        exact = mpref_design.gram_bounds(x, ridge)
        assert mpmath.mpf(b.sensitivity / 2) >= exact[0]
        assert mpmath.mpf(b.gram_sensitivity) >= exact[2]
        assert b.sensitivity / 2 <= float(exact[0]) * (1 + 2e-6)


def test_the_reference_regenerates_the_library_design():
    """mpref_design.design_matrix is the random-seeds recipe (same raw bits, unit rows)."""
    design = PublicDesign("random-seeds", BLOCK_COLUMNS + 7, 3, seed=SEED)
    x = mpref_design.design_matrix(3, BLOCK_COLUMNS + 7, SEED)
    raw = np.hstack(list(design._raw_blocks()))
    np.testing.assert_array_equal(mpref_design.raw_design(3, BLOCK_COLUMNS + 7, SEED), raw)
    np.testing.assert_allclose(x, design.dense(), rtol=1e-15, atol=0)


def test_kernel_route_of_a_wide_design_is_certified_and_applies_the_same_model():
    """D >= m beyond the dense limit: the kernel route (accumulation bound of kernel()),
    and design_model assembles v = MY with the certified operator."""
    m, width, ridge = 9, 3 * BLOCK_COLUMNS + 11, 1e-3
    design = PublicDesign("random-seeds", width, m, seed=2)
    kernel, norms = design.kernel()
    spectrum = spectrum_from_kernel(kernel, design.kernel_entry_error(), norms=norms, width=width)
    b = design_bounds(spectrum, ridge, 1.0)
    assert b.route == "kernel" and b.rounding_bound < 1e-9
    x = np.hstack(list(design.blocks(norms)))
    big_m = x.T @ np.linalg.inv(x @ x.T / m + ridge * np.eye(m)) / m  # D ≫ m: the dual form
    y = np.random.default_rng(1).uniform(-1, 1, m)
    v = design_model(design, y, b.dual, b.norms)
    np.testing.assert_allclose(v[:, 0], big_m @ y, rtol=1e-9, atol=1e-12)
    assert 2 * np.linalg.norm(big_m, axis=0).max() <= b.sensitivity


def test_narrow_design_model_uses_the_certified_operator():
    """D < m, tiny λ: the dual passed to design_model gives M (the old dual did not)."""
    m, width, ridge = 40, 12, 1e-10
    design = PublicDesign("random-seeds", width, m, seed=6)
    b = design_bounds(design, ridge, 1.0)
    assert b.route == "svd"
    x = np.hstack(list(design.blocks(b.norms)))
    y = np.random.default_rng(2).uniform(-1, 1, m)
    v = design_model(design, y, b.dual, b.norms)
    np.testing.assert_allclose(v[:, 0], _primal_m(x, ridge) @ y, rtol=1e-8, atol=1e-10)


def test_uncertifiable_ridges_are_refused_in_one_line():
    design = PublicDesign("random-seeds", 299, 300, seed=0)  # nearly square: κ(X) large
    with pytest.raises(InputError, match=r"λ >= .* is certified") as caught:
        design_bounds(design, 1e-12, 1.0)
    assert caught.value.param == "ridge" and "\n" not in str(caught.value)
    assert design_bounds(design, 1e-3, 1.0).rounding_bound <= CERTIFIED_RELATIVE_ERROR
    with pytest.raises(InputError, match="rank-deficient") as caught:  # dependent columns
        x = np.ones((6, 3))
        x[:, 1] = np.arange(6)
        x[:, 2] = x[:, 0] + x[:, 1]
        spectrum_from_matrix(x / np.linalg.norm(x, axis=1)[:, None])
    assert caught.value.param == "width"
    with pytest.raises(InputError, match="ridge"):
        design_bounds(PublicDesign("random-seeds", 5, 8, seed=0), 1e-310, 1.0)
    spectrum = design_spectrum(PublicDesign("random-seeds", 30, 8, seed=0))
    assert design_bounds(spectrum, 1e-3, 1.0).rounding_bound < CERTIFIED_RELATIVE_ERROR
