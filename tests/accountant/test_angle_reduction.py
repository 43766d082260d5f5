"""The k ≥ 2 reduction to one angle (docs/theory.md §20): the two Markov kernels by
simulation, the reduction's algebra on realised adjacent pairs of small designs, c*, and
the orthogonal node against the exact k = 2 engine and the stored mpmath references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import references
from synthamp import InputError
from synthamp.accountant._angle_reduction import (
    _canonical_pair,
    canonical_norm,
    canonical_pair,
    orthogonal_node_pld,
    orthogonal_node_rdp,
)
from synthamp.accountant._rdp_conversion import rdp_to_epsilon
from synthamp.divergence._wishart import plateau_gram_refined

# --------------------------------------------------------------------------- the kernels

SAMPLES = 20_000


def _wishart(rng, mean: np.ndarray, count: int) -> np.ndarray:
    """count draws of (mean + N)ᵀ(mean + N), N standard normal of mean's shape."""
    x = mean[None] + rng.standard_normal((count, *mean.shape))
    return np.einsum("nij,nik->njk", x, x)


def _statistics(s: np.ndarray) -> dict[str, np.ndarray]:
    return {"S11": s[:, 0, 0], "S12": s[:, 0, 1], "trS": np.trace(s, axis1=1, axis2=2)}


def _same_law(a: np.ndarray, b: np.ndarray) -> float:
    """The smallest two-sample KS p-value over S₁₁, S₁₂ and tr S."""
    sa, sb = _statistics(a), _statistics(b)
    return min(stats.ks_2samp(sa[k], sb[k]).pvalue for k in sa)


def _mean_with_gram(gram: np.ndarray, rows: int, rng) -> np.ndarray:
    """A rows × k matrix x with xᵀx = gram, turned by a random rotation of R^rows."""
    vals, vecs = np.linalg.eigh(gram)
    root = (vecs * np.sqrt(np.clip(vals, 0, None))) @ vecs.T  # k × k, rootᵀroot = gram
    x = np.zeros((rows, gram.shape[0]))
    x[: gram.shape[0]] = root
    q, _ = np.linalg.qr(rng.standard_normal((rows, rows)))
    return q @ x


def _peel(rng, s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The peeling kernel: S ↦ S + (a + N′)ᵀ(a + N′), a ∈ R^{r×k}."""
    return s + _wishart(rng, a, s.shape[0])


def _contract(rng, s: np.ndarray, dim: int, ell: np.ndarray, kay: np.ndarray) -> np.ndarray:
    """The contraction kernel: S ↦ Gram(R L + N′K), RᵀR = S placed in d rows."""
    k = s.shape[1]
    root = np.linalg.cholesky(s).transpose(0, 2, 1)  # R upper: RᵀR = S
    placed = np.zeros((s.shape[0], dim, k))
    placed[:, :k] = root
    x = placed @ ell + rng.standard_normal((s.shape[0], dim, k)) @ kay
    return np.einsum("nij,nik->njk", x, x)


def test_peeling_maps_the_narrow_pair_onto_the_wide_one_in_law():
    rng = np.random.default_rng(11)
    dim, r, k = 5, 2, 2
    a = rng.normal(size=(r, k))
    p = rng.normal(size=(dim - r, k))
    wide = a.T @ a + p.T @ p
    peeled = _peel(rng, _wishart(rng, p, SAMPLES), a)
    direct = _wishart(rng, _mean_with_gram(wide, dim, rng), SAMPLES)
    assert _same_law(peeled, direct) > 1e-3


def test_contraction_maps_omega_onto_its_contraction_in_law():
    rng = np.random.default_rng(12)
    dim, k = 4, 2
    omega = np.array([[3.0, 1.2], [1.2, 2.0]])
    ell = np.array([[0.6, -0.3], [0.2, 0.5]])
    assert np.linalg.norm(ell, 2) < 1
    vals, vecs = np.linalg.eigh(np.eye(k) - ell.T @ ell)
    kay = (vecs * np.sqrt(vals)) @ vecs.T
    contracted = _contract(
        rng, _wishart(rng, _mean_with_gram(omega, dim, rng), SAMPLES), dim, ell, kay
    )
    direct = _wishart(rng, _mean_with_gram(ell.T @ omega @ ell, dim, rng), SAMPLES)
    assert _same_law(contracted, direct) > 1e-3


def test_the_law_test_sees_a_wrong_kernel():
    """A contraction with K = I (not (I − LᵀL)^{1/2}) changes the law: the test can fail."""
    rng = np.random.default_rng(13)
    dim, k = 4, 2
    omega = np.array([[3.0, 1.2], [1.2, 2.0]])
    ell = np.array([[0.6, -0.3], [0.2, 0.5]])
    wrong = _contract(
        rng, _wishart(rng, _mean_with_gram(omega, dim, rng), SAMPLES), dim, ell, np.eye(k)
    )
    direct = _wishart(rng, _mean_with_gram(ell.T @ omega @ ell, dim, rng), SAMPLES)
    assert _same_law(wrong, direct) < 1e-6


# --------------------------------------------------------------------------- designs and c*


def _design(m: int, dim: int, ridge: float, seed: int) -> np.ndarray:
    """M = (XᵀX/m + λI)⁻¹Xᵀ/m for seed rows on the unit sphere (docs/theory.md §19)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, dim))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.linalg.solve(x.T @ x / m + ridge * np.eye(dim), x.T / m)


def _formula(gram: np.ndarray, bound: float) -> float:
    """c* = B·maxᵢ(Gᵢᵢ + rᵢ)/√Gᵢᵢ, as docs/theory.md §20 writes it."""
    diag = np.diag(gram)
    r = np.abs(gram).sum(axis=1) - np.abs(diag)
    return bound * float(np.max((diag + r) / np.sqrt(diag)))


def test_canonical_norm_on_an_orthogonal_design_is_b_root_g():
    m, ridge, bound = 178, 1e-2, 1.5
    g = (1 + m * ridge) ** -2
    norms = canonical_norm(g * np.eye(m), bound)
    assert norms.c_star == pytest.approx(bound * math.sqrt(g), rel=1e-13)
    assert norms.c_star >= bound * math.sqrt(g)
    assert norms.c_realised == pytest.approx(bound * math.sqrt(g), rel=1e-13)
    assert norms.c_realised <= bound * math.sqrt(g) <= norms.c_star


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_canonical_norm_is_at_most_the_formula_and_bounds_it_under_rounding(seed):
    mat = _design(8, 6, 0.1, seed)
    gram = mat.T @ mat
    c_star = canonical_norm(gram, 1.0).c_star
    assert c_star <= _formula(gram, 1.0) * (1 + 1e-12)
    # G known to ±e: c* covers every G within e of the computed one
    err = 1e-3 * float(np.abs(gram).max())
    inflated = canonical_norm(gram, 1.0, gram_error=err).c_star
    rng = np.random.default_rng(seed)
    for _ in range(50):
        e = rng.uniform(-err, err, gram.shape)
        moved = gram + (e + e.T) / 2
        assert canonical_norm(moved, 1.0).c_star <= inflated


def _reduce(mat: np.ndarray, y: np.ndarray, i: int, y_new: np.ndarray):
    """(a, a′, B₋ᵀB₋) of the replace-one pair Y → Y with row i = y_new (docs/theory.md §20)."""
    gram = mat.T @ mat
    gii = gram[i, i]
    u = sum(gram[i, j] * y[j] for j in range(len(y)) if j != i)
    a = math.sqrt(gii) * y[i] + u / math.sqrt(gii)
    a_new = math.sqrt(gii) * y_new + u / math.sqrt(gii)
    f = mat[:, i] / math.sqrt(gii)
    rest = sum(np.outer(mat[:, j], y[j]) for j in range(len(y)) if j != i)
    b_minus = rest - np.outer(f, f @ rest)
    return a, a_new, b_minus.T @ b_minus


def _vertices(k: int, bound: float) -> list[np.ndarray]:
    return [s * bound * np.eye(k)[axis] for axis in range(k) for s in (1.0, -1.0)]


@pytest.mark.parametrize("k", [2, 3])
def test_every_realised_pair_of_a_small_design_reduces_below_c_star(k):
    """Brute force over vertex datasets (yⱼ = ±B eₗ) and random rows, m = 4 … 6: the
    reduction's algebra (vᵀv = aaᵀ + B₋ᵀB₋, the same B₋ for w) holds and ‖a‖, ‖a′‖ ≤ c*."""
    bound = 1.0
    rng = np.random.default_rng(k)
    worst = 0.0
    for m, seed in ((4, 0), (5, 1), (6, 2)):
        mat = _design(m, 7, 0.2, seed)
        c_star = canonical_norm(mat.T @ mat, bound).c_star
        verts = _vertices(k, bound)
        datasets = list(itertools.product(range(len(verts)), repeat=m))
        picked = rng.choice(len(datasets), size=min(60, len(datasets)), replace=False)
        ys = [np.array([verts[t] for t in datasets[p]]) for p in picked]
        for _ in range(20):
            y = rng.normal(size=(m, k))
            ys.append(y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), bound))
        for y in ys:
            for i in range(m):
                for y_new in [*verts, -y[i]]:
                    a, a_new, common = _reduce(mat, y, i, y_new)
                    v, w = mat @ y, mat @ np.vstack([y[:i], y_new, y[i + 1 :]])
                    np.testing.assert_allclose(v.T @ v, np.outer(a, a) + common, atol=1e-12)
                    np.testing.assert_allclose(w.T @ w, np.outer(a_new, a_new) + common, atol=1e-12)
                    worst = max(worst, np.linalg.norm(a) / c_star, np.linalg.norm(a_new) / c_star)
    assert worst <= 1.0 + 1e-12
    assert worst > 0.5  # the brute force reaches near c*, not a vacuous check


def test_canonical_norm_refuses_what_is_not_a_gram_matrix():
    with pytest.raises(InputError, match="gram"):
        canonical_norm(np.ones((2, 3)), 1.0)
    with pytest.raises(InputError, match="gram"):
        canonical_norm(np.array([[1.0, 0.5], [0.0, 1.0]]), 1.0)
    with pytest.raises(InputError, match="label_bound"):
        canonical_norm(np.eye(2), 0.0)
    with pytest.raises(InputError, match="gram_error"):
        canonical_norm(np.eye(2), 1.0, gram_error=-1.0)
    with pytest.raises(InputError, match="angle"):
        canonical_pair(1.0, 2.0)


# --------------------------------------------------------------------------- the orthogonal node

ORDERS = np.array([2.0, 8.0, 32.0])


@pytest.mark.parametrize(("dim", "amp"), [(4, 1.0), (10, 1.0), (30, 2.0), (1000, 3.0)])
def test_the_orthogonal_node_equals_the_exact_k2_engine(dim, amp):
    value, error = orthogonal_node_rdp(ORDERS, dim, amp)
    omega_v, omega_w = _canonical_pair(amp, math.pi / 2)
    engine, engine_error, *_ = plateau_gram_refined(ORDERS, dim, omega_v, omega_w)
    np.testing.assert_allclose(value, engine, rtol=1e-12)
    assert np.all(np.abs(value - engine) <= error + engine_error)


def test_the_orthogonal_node_is_not_the_k1_pair_alone():
    """The node adds both directions: a check that fails on D(χ²(c²)‖χ²(0)) alone."""
    value, _ = orthogonal_node_rdp(ORDERS, 10, 1.0)
    omega_v, omega_w = _canonical_pair(1.0, math.pi / 2)
    engine = plateau_gram_refined(ORDERS, 10, omega_v, omega_w)[0]
    half = orthogonal_node_rdp(ORDERS, 10, 1.0)[0] / 2
    assert not np.allclose(half, engine, rtol=1e-3)
    assert np.allclose(value, engine, rtol=1e-12)


#: (d, c/σ) of the stored references: small widths, weak and strong signal.
REFERENCE_NODES = [(4, 0.5), (4, 2.0), (10, 1.0), (50, 3.0)]


@pytest.mark.parametrize(("dim", "amp"), REFERENCE_NODES)
def test_the_orthogonal_node_against_the_stored_mpmath_references(dim, amp):
    """D_α(π/2) = D_α(χ²_d(a²)‖χ²_d(0)) + D_α(χ²_d(0)‖χ²_d(a²)), each a 40-digit
    reference of tests/mpref.py (tests/data/make_references.py stores them)."""
    forward = references.renyi_plateau(list(ORDERS), dim, amp, 0.0)
    reverse = references.renyi_plateau(list(ORDERS), dim, 0.0, amp)
    exact = np.array([float(f + r) for f, r in zip(forward.value, reverse.value, strict=True)])
    ref_err = np.array([float(f + r) for f, r in zip(forward.error, reverse.error, strict=True)])
    value, error = orthogonal_node_rdp(ORDERS, dim, amp)
    assert np.all(np.abs(value - exact) <= error + ref_err)
    np.testing.assert_allclose(value, exact, rtol=1e-11)


def test_the_orthogonal_node_pld_brackets_its_epsilon_and_beats_rdp():
    dim, amp, delta = 50, 3.0, 1e-5
    pld = orthogonal_node_pld(dim, amp, discretization=1e-3)
    upper, lower = pld.epsilon(delta), pld.epsilon_lower(delta)
    assert 0 < lower <= upper <= lower + 0.01
    orders = np.linspace(1.5, 64, 60)
    value, error = orthogonal_node_rdp(orders, dim, amp)
    assert upper <= rdp_to_epsilon(orders, value + error, delta, warn=False)[0]
    # composition: T = 3 runs of the same pair
    three = orthogonal_node_pld(dim, amp, releases=3, discretization=1e-3)
    assert three.epsilon_lower(delta) > upper
    assert three.epsilon(delta) <= rdp_to_epsilon(orders, 3 * (value + error), delta, warn=False)[0]


def test_the_orthogonal_node_pld_carries_the_node_s_renyi_divergence():
    """E_P[e^{(α−1)L}] of the PLD's losses is e^{(α−1)D_α} of the node: the convolution of
    the remove and add directions, not one of them (half the divergence)."""
    dim, amp, h = 10, 1.0, 1e-3
    pld = orthogonal_node_pld(dim, amp, discretization=h).remove
    orders = np.array([2.0, 4.0])
    value, error = orthogonal_node_rdp(orders, dim, amp)
    moments = [
        float(np.log(np.sum(pld.probs * np.exp((a - 1) * pld.losses)))) / (a - 1) for a in orders
    ]
    # the pessimistic PLD rounds each loss up by < h; its tails are cut below 1e-15
    assert np.all(np.asarray(moments) >= value - error - 1e-9)
    assert np.all(np.asarray(moments) <= value + error + h)
