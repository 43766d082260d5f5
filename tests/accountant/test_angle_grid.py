"""The certified angle grid (docs/theory.md §20): its contraction step, its domination of
the canonical family between the nodes, and of realised adjacent pairs of small designs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import references
from synthamp import InputError
from synthamp.accountant._angle_grid import angle_nodes, certified_angle_rdp
from synthamp.accountant._angle_reduction import _canonical_pair, canonical_norm
from synthamp.divergence._wishart import plateau_gram_refined

ORDERS = np.array([2.0, 8.0])
#: A coarse grid (8 intervals): sound for any nodes, cheaper in tests.
RATIO = 0.1


def _canonical(dim: int, amp: float, phi: float) -> np.ndarray:
    """Value + error of the canonical pair (amp, φ) by the exact k = 2 engine."""
    value, error, *_ = plateau_gram_refined(ORDERS, dim, *_canonical_pair(amp, phi))
    return value + error


def _canonical_lower(dim: int, amp: float, phi: float) -> np.ndarray:
    value, error, *_ = plateau_gram_refined(ORDERS, dim, *_canonical_pair(amp, phi))
    return value - error


def test_nodes_run_from_zero_to_a_right_angle_densest_near_it():
    for ratio in (0.01, 0.02, 0.1):
        nodes = angle_nodes(ratio)
        assert nodes[0] == 0.0 and nodes[-1] == math.pi / 2
        assert np.all(np.diff(nodes) > 0)
        assert np.diff(nodes)[-1] < np.diff(nodes)[0]
    assert angle_nodes(0.01).size > angle_nodes(0.1).size
    with pytest.raises(InputError, match="ratio"):
        angle_nodes(0.0)


@pytest.mark.parametrize(("phi", "psi"), [(0.4, 0.9), (1.0, 1.3), (1.3, math.pi / 2)])
def test_the_contraction_step_dominates_the_smaller_angle(phi, psi):
    """(c, φ) is a contraction of (c′, ψ), c′² = c²(1 + cos φ)/(1 + cos ψ): D(c, φ) ≤ D(c′, ψ)."""
    dim, amp = 6, 1.5
    inflated = amp * math.sqrt((1 + math.cos(phi)) / (1 + math.cos(psi)))
    assert np.all(_canonical_lower(dim, amp, phi) <= _canonical(dim, inflated, psi))


def test_the_certificate_dominates_the_family_between_its_nodes():
    dim, amp = 6, 1.5
    cert = certified_angle_rdp(ORDERS, dim, amp, ratio=RATIO)
    assert cert.nodes.size - 1 == 8
    assert np.all(cert.rdp >= cert.orthogonal)
    assert np.all(cert.overhead < 1.25)
    mids = 0.5 * (cert.nodes[:-1] + cert.nodes[1:])
    for phi in (*mids[-3:], 0.3, math.pi / 2):
        assert np.all(_canonical_lower(dim, amp, float(phi)) <= cert.rdp)


def _design(m: int, dim: int, ridge: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, dim))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.linalg.solve(x.T @ x / m + ridge * np.eye(dim), x.T / m)


def test_realised_pairs_of_a_small_design_stay_below_the_certificate():
    """k = 2, m = 6, d = 6: the adjacent pairs with the largest Gram gaps among vertex
    datasets (yⱼ = ±B eₗ) and random rows, by the exact engine at the full width d,
    against the certificate at width d − 2 and c*."""
    m, dim, k, bound, sigma = 6, 6, 2, 1.0, 0.6
    mat = _design(m, dim, 0.2, 3)
    c_star = canonical_norm(mat.T @ mat, bound).c_star
    cert = certified_angle_rdp(ORDERS, dim - k, c_star, sigma, ratio=RATIO)
    rng = np.random.default_rng(5)
    verts = [s * np.eye(k)[axis] for axis in range(k) for s in (1.0, -1.0)]
    pairs = []
    for _ in range(200):
        y = np.array([verts[t] for t in rng.integers(0, len(verts), m)])
        if rng.random() < 0.3:
            y = rng.normal(size=(m, k))
            y /= np.maximum(np.linalg.norm(y, axis=1, keepdims=True), bound)
        i = int(rng.integers(m))
        y_new = verts[int(rng.integers(len(verts)))]
        w_rows = np.vstack([y[:i], y_new, y[i + 1 :]])
        gv, gw = (mat @ y).T @ (mat @ y), (mat @ w_rows).T @ (mat @ w_rows)
        if not np.allclose(gv, gw):
            pairs.append((np.linalg.norm(gv - gw), gv, gw))
    pairs.sort(key=lambda p: -p[0])
    # and the realised orthogonal pair: yᵢ = Be₁ → Be₂, the other rows 0, at the largest Gᵢᵢ
    i = int(np.argmax(np.diag(mat.T @ mat)))
    y, y_new = np.zeros((m, k)), np.zeros((m, k))
    y[i, 0], y_new[i, 1] = bound, bound
    orthogonal = ((mat @ y).T @ (mat @ y), (mat @ y_new).T @ (mat @ y_new))
    closest = 0.0
    for gv, gw in [orthogonal, *(p[1:] for p in pairs[:3])]:
        value, error, *_ = plateau_gram_refined(ORDERS, dim, gv / sigma**2, gw / sigma**2)
        assert np.all(value - error <= cert.rdp)
        closest = max(closest, float(np.min(value / cert.rdp)))
    assert closest > 0.15  # pairs of the certificate's scale, not a vacuous check


def test_the_certificate_refuses_orders_beyond_the_engine_and_narrow_widths():
    with pytest.raises(InputError, match="alpha"):
        certified_angle_rdp([128.0], 10, 1.0)
    with pytest.raises(InputError, match="dim"):
        certified_angle_rdp([2.0], 1, 1.0)


# --------------------------------------------------------------------------- the angle theorem


def test_the_family_increases_with_the_angle():
    """The angle theorem (docs/theory.md §20): D_α(c, φ) nondecreasing in φ, each step
    beyond the engine's error bounds, up to the orthogonal node."""
    dim, amp = 6, 1.2
    phis = [0.4, 0.9, 1.3, 1.5, math.pi / 2]
    lows = [_canonical_lower(dim, amp, phi) for phi in phis]
    highs = [_canonical(dim, amp, phi) for phi in phis]
    for upper, lower in zip(highs[:-1], lows[1:], strict=True):
        assert np.all(upper < lower)


def _circular_correlation(f: np.ndarray, g: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """s ↦ ∫f(τ)g(τ − s)dτ at the grid shifts s = shift·2π/n (direct sums: no FFT
    rounding across the values' dynamic range)."""
    return np.array([np.sum(f * np.roll(g, k)) for k in shifts]) * (2 * np.pi / f.size)


def test_the_proof_s_circle_step_on_random_eigenvalues():
    """Step 3 of the proof: given the eigenvalues, ∫h^α(τ)h^{1−α}(τ − s)dτ is nondecreasing
    in s ∈ [0, π] for h(τ) = ₀F₁(d/2; c²(A + B cos τ)/4); and the lemma fails without its
    hypothesis (a density with two bumps), so the check can fail."""
    from scipy.special import hyp0f1

    rng = np.random.default_rng(7)
    tau = np.linspace(0, 2 * np.pi, 2048, endpoint=False)
    shifts = np.arange(0, 1025, 16)  # s from 0 to π
    for _ in range(40):
        dim, c2, alpha = int(rng.integers(2, 40)), rng.uniform(0.1, 20), rng.uniform(1.05, 30)
        l1, l2 = np.sort(rng.gamma(dim / 2, 2, 2))[::-1]
        log_h = np.log(hyp0f1(dim / 2, c2 * ((l1 + l2) / 2 + (l1 - l2) / 2 * np.cos(tau)) / 4))
        log_h -= log_h.max()
        corr = _circular_correlation(np.exp(alpha * log_h), np.exp((1 - alpha) * log_h), shifts)
        assert np.all(np.diff(corr) >= -1e-12 * corr[:-1])
    two_bumps = np.exp(3 * np.cos(2 * tau)) + 0.1
    corr = _circular_correlation(two_bumps**2, two_bumps**-1.0, shifts)
    assert np.any(np.diff(corr) < 0)


#: (d, c/σ, φ) of the stored references of the canonical family (tests/mpref_angle.py: the
#: Kibble bivariate gamma law of (S₁₁, u_φᵀSu_φ), not the engine's Bartlett coordinates).
FAMILY_REFERENCES = [(4, 1.0, 0.8), (6, 1.0, 0.4), (10, 1.0, 1.2)]


@pytest.mark.parametrize(("dim", "amp", "phi"), FAMILY_REFERENCES)
def test_the_canonical_family_against_the_stored_mpmath_references(dim, amp, phi):
    orders = [2.0, 4.0]
    ref = references.canonical_pair_renyi(orders, dim, amp, phi)
    value, error, *_ = plateau_gram_refined(np.array(orders), dim, *_canonical_pair(amp, phi))
    assert np.all(np.abs(value - ref.floats()) <= error + ref.errors())
    np.testing.assert_allclose(value, ref.floats(), rtol=1e-8)
