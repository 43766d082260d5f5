"""k = 3: realised adjacent pairs of small designs against the certified guarantee.

The k = 2 check (tests/accountant/test_angle_grid.py) uses the exact k = 2 engine on each
pair; k = 3 has no exact engine, so every pair is checked by one of two routes
independent of the reduction of docs/theory.md §20:

* a **proven upper bound**: VᵀV is a function of V = v + σN, and the law of VᵀV depends on
  v only through vᵀv, so D_α of the Gram laws is at most the Gaussian one between any v, w
  with those Grams, α·min_U ‖v − Uw‖²/(2σ²) = α·BW²(Ω_v, Ω_w)/2 (the Bures–Wasserstein
  distance of the scaled Grams: tr Ω_v + tr Ω_w − 2‖Ω_v^{1/2}Ω_w^{1/2}‖_*);
* where that bound exceeds the guarantee: the **Monte Carlo estimate** of the k = 3
  Wishart divergence with exact likelihood ratios (₀F₁ of a 3 × 3 argument with a proven
  tail, :mod:`synthamp.divergence._wishart3`), whose 95% interval must reach below the
  guarantee (an estimate: a failure at that level would be a finding, not noise); a pair
  estimated above half the guarantee is re-estimated with six times the draws. Checked by
  hand: the quick test fails (the realised orthogonal pair) when the guarantee is computed
  at 0.8·c* instead of c*.

The guarantee is the orthogonal node at width d − 3 and c* (its RDP, value + error bound):
what ``account_certified`` composes. Pairs equal up to a signed permutation of the three
coordinates (an orthogonal change of basis: the same divergence) are estimated once.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from synthamp.accountant._angle_reduction import canonical_norm, orthogonal_node_rdp
from synthamp.divergence._wishart3 import renyi_plateau_gram3_estimate

ORDERS = np.array([2.0, 3.0])
K, B = 3, 1.0


def _orthogonal(m: int, dim: int, ridge: float, seed: int) -> np.ndarray:
    """M = Xᵀ/(1 + mλ), X with orthonormal rows (docs/theory.md §19)."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, m)))
    return q / (1 + m * ridge)


def _random_seeds(m: int, dim: int, ridge: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, dim))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.linalg.solve(x.T @ x / m + ridge * np.eye(dim), x.T / m)


def _psd_sqrt(a: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((a + a.T) / 2)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def _gaussian_bound(omega_v: np.ndarray, omega_w: np.ndarray) -> np.ndarray:
    """α·BW²(Ω_v, Ω_w)/2 per order: a proven upper bound on D_α of the two Wishart laws."""
    nuclear = np.linalg.svd(_psd_sqrt(omega_v) @ _psd_sqrt(omega_w), compute_uv=False).sum()
    bw2 = max(float(np.trace(omega_v) + np.trace(omega_w) - 2.0 * nuclear), 0.0)
    return ORDERS * bw2 / 2.0


_SIGNED_PERMUTATIONS = [
    np.eye(K)[list(p)] * np.array(s)[:, None]
    for p in itertools.permutations(range(K))
    for s in itertools.product((1.0, -1.0), repeat=K)
]


def _class(omega_v: np.ndarray, omega_w: np.ndarray) -> tuple:
    """A key equal for pairs that differ by a signed permutation of the coordinates."""
    return min(
        tuple(
            np.round(np.concatenate([(p @ omega_v @ p.T).ravel(), (p @ omega_w @ p.T).ravel()]), 9)
        )
        for p in _SIGNED_PERMUTATIONS
    )


def _adjacent_pairs(mat: np.ndarray, sigma: float, rng: np.random.Generator, random_sets: int):
    """Scaled Gram pairs of replace-one neighbours: vertex datasets (yⱼ = ±B eₗ) and random
    rows (‖yⱼ‖ ≤ B), every row replaced by every vertex and by its own negative."""
    m = mat.shape[1]
    verts = [s * B * np.eye(K)[axis] for axis in range(K) for s in (1.0, -1.0)]
    datasets = [np.array([verts[t] for t in rng.integers(0, len(verts), m)]) for _ in range(40)]
    for _ in range(random_sets):
        y = rng.normal(size=(m, K))
        datasets.append(y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), B))
    for y in datasets:
        gram_v = (mat @ y).T @ (mat @ y) / sigma**2
        for i in range(m):
            for y_new in [*verts, -y[i]]:
                w = mat @ np.vstack([y[:i], y_new, y[i + 1 :]])
                yield gram_v, w.T @ w / sigma**2


def _check_design(
    mat: np.ndarray, sigma: float, samples: int, random_sets: int
) -> tuple[int, int, float]:
    """(pairs, pairs estimated, largest estimate over the guarantee) of one design."""
    dim = mat.shape[0]
    c = canonical_norm(mat.T @ mat, B)
    value, error = orthogonal_node_rdp(ORDERS, dim - K, c.c_star, sigma)
    guarantee = value + error
    # the realised orthogonal pair yᵢ = Be₁ → Be₂ (other rows 0) at the largest Gᵢᵢ first
    i = int(np.argmax(np.diag(mat.T @ mat)))
    y, y_new = np.zeros((mat.shape[1], K)), np.zeros((mat.shape[1], K))
    y[i, 0], y_new[i, 1] = B, B
    realised = ((mat @ y).T @ (mat @ y) / sigma**2, (mat @ y_new).T @ (mat @ y_new) / sigma**2)
    pairs = [realised, *_adjacent_pairs(mat, sigma, np.random.default_rng(5), random_sets)]
    to_estimate: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    for omega_v, omega_w in pairs:
        if np.any(_gaussian_bound(omega_v, omega_w) > guarantee) or omega_v is realised[0]:
            to_estimate.setdefault(_class(omega_v, omega_w), (omega_v, omega_w))
    closest = 0.0
    for omega_v, omega_w in to_estimate.values():
        found = renyi_plateau_gram3_estimate(ORDERS, dim, omega_v, omega_w, samples=samples, seed=1)
        if np.any(found.value > 0.5 * guarantee):  # near the guarantee: a tighter interval
            more = 6 * samples
            found = renyi_plateau_gram3_estimate(
                ORDERS, dim, omega_v, omega_w, samples=more, seed=2
            )
        assert np.all(found.lower <= guarantee), (np.diag(omega_v), np.diag(omega_w), found)
        closest = max(closest, float(np.max(found.value / guarantee)))
    return len(pairs), len(to_estimate), closest


def test_realised_pairs_of_a_small_orthogonal_design_with_three_targets_stay_below_it():
    """m = 4, D = 6 (the guarantee at width 3), λ = 0.05, σ = 1, vertex datasets: c* is the
    realised norm B√g, so the realised orthogonal pair (at width 6) comes within reach of
    the guarantee. Measured: 1,121 pairs, 10 classes left to the estimate."""
    mat = _orthogonal(4, 6, 0.05, 0)
    pairs, estimated, closest = _check_design(mat, 1.0, samples=2000, random_sets=0)
    assert pairs > 1000 and estimated >= 2
    assert closest > 0.4  # pairs of the guarantee's scale, not a vacuous check


@pytest.mark.slow
# the orthogonal design's vertices are the quick test below; random rows on it cost 17 s of
# the suite for classes the random-seeds design (c* above the π/2 node) already exercises
@pytest.mark.parametrize(("design", "random_sets"), [("random-seeds", 0)])
def test_realised_pairs_of_small_designs_with_three_targets_stay_below_it(design, random_sets):
    """The orthogonal design with random rows too (46 classes), and random seeds (m = 6,
    D = 7: width 4, λ = 0.2; 149 classes), where c* = B·max(Gᵢᵢ + rᵢ)/√Gᵢᵢ sits above the
    realised norms. About a second per class on an idle core."""
    if design == "orthogonal":
        mat = _orthogonal(4, 6, 0.05, 0)
    else:
        mat = _random_seeds(6, 7, 0.2, 3)
    pairs, estimated, closest = _check_design(mat, 1.0, samples=3000, random_sets=random_sets)
    assert pairs > 1000 and estimated >= 1
    assert closest > 0.05
