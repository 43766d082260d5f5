"""The design drawn once (synthamp.design._stream): K, XN and NᵀN from one pass, VᵀV without v.

A release on a random-seeds design draws each block of the design once (the two-pass
release drew it twice, three times on the SVD route) with BLAS on one thread inside the
block loops; the streamed K is within its certified per-entry bound of the exact XXᵀ
(60-digit mpmath on the float design), the certified Δ, C, s₂ hold against the exact
values and are within their stated rounding bound of them, vᵀv assembled from the spectrum
is within :func:`model_gram_error` of the exact αᵀKα, and a seeded release gives the
two-pass release's factor and records to rounding (the same N, the same rows' order).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from synthamp.design import design_release
from synthamp.design._designs import (
    BLOCK_COLUMNS,
    PublicDesign,
    design_bounds,
    design_model,
    design_pass,
)
from synthamp.design._gram import gamma
from synthamp.design._release import row_permutation
from synthamp.design._stream import model_gram_error, released_gram
from synthamp.release._ridge import clip_rows

#: kernel route with five blocks (groups of two: both levels of the summation), and the
#: SVD route (D < m)
WIDE, NARROW = (3, 4 * BLOCK_COLUMNS + 1), (30, 20)
RIDGE, SIGMA = 0.01, 0.3


def _counting(monkeypatch) -> list[tuple[int, int]]:
    """Record, for every block the design draws, the BLAS threads in force at that moment."""
    drawn: list[tuple[int, int]] = []
    original = PublicDesign._raw_blocks

    def raw_blocks(self):
        for j, block in enumerate(original(self)):
            threads = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
            drawn.append((j, max(threads, default=1)))
            yield block

    monkeypatch.setattr(PublicDesign, "_raw_blocks", raw_blocks)
    return drawn


@pytest.mark.parametrize("shape", [WIDE, NARROW])
def test_the_release_draws_each_block_once_with_one_blas_thread(monkeypatch, shape):
    """Old: the kernel pass and the model's pass (and row_norms on the SVD route) drew every
    block two or three times, with BLAS's own threads (2 here, forced)."""
    m, width = shape
    drawn = _counting(monkeypatch)
    y = np.random.default_rng(0).uniform(-1, 1, m)
    with threadpool_limits(limits=2, user_api="blas"):
        design_release(y, "random-seeds", width, 7, epsilon=1.0, delta=1e-5, ridge=RIDGE,
                       accountant="rdp", random_state=1, time_budget=0.0)  # fmt: skip
    blocks = -(-width // BLOCK_COLUMNS)
    assert sorted(j for j, _ in drawn) == list(range(blocks))  # each block once
    assert {threads for _, threads in drawn} == {1}
    drawn.clear()  # the two-pass model (benchmarks, audits) runs on one thread too
    design = PublicDesign("random-seeds", width, m, 7)
    with threadpool_limits(limits=2, user_api="blas"):
        design_model(design, y, np.eye(m), np.ones(m))
    assert {threads for _, threads in drawn} == {1}


def _exact_kernel(x: np.ndarray) -> mpmath.matrix:
    """XXᵀ of the float design at 60 digits (each product of doubles is exact there)."""
    m = x.shape[0]
    with mpmath.workdps(60):
        rows = [[mpmath.mpf(float(v)) for v in row] for row in x]
        k = mpmath.matrix(m, m)
        for i in range(m):
            for j in range(i + 1):
                k[i, j] = k[j, i] = mpmath.fsum(
                    a * b for a, b in zip(rows[i], rows[j], strict=True)
                )
    return k


def _exact_bounds(k: mpmath.matrix, ridge: float) -> tuple:
    """(Δ/2, C, s₂) of the ridge model from the exact K (the dual form, D > m), 60 digits:
    G = (K/m + λ)⁻¹K(K/m + λ)⁻¹/m²."""
    m = k.rows
    with mpmath.workdps(60):
        inverse = mpmath.inverse(k / m + mpmath.mpf(ridge) * mpmath.eye(m))
        gram = inverse * k * inverse / m**2
        top = max(mpmath.eigsy(gram, eigvals_only=True))
        diag = [gram[i, i] for i in range(m)]
        off = [mpmath.fsum(abs(gram[i, j]) for j in range(m) if j != i) for i in range(m)]
        total = mpmath.fsum(abs(gram[i, j]) for i in range(m) for j in range(m))
        s2 = max((g + r) ** 2 / g if r < g else 4 * r for g, r in zip(diag, off, strict=True))
        return mpmath.sqrt(max(diag)), min(mpmath.sqrt(m * top), mpmath.sqrt(total)), s2


def test_streamed_kernel_bounds_and_model_against_60_digits():
    """K̂ within κ of XXᵀ; Δ, C, s₂ >= exact and within the stated rounding bound; vᵀv from
    the spectrum within model_gram_error of αᵀKα (α as the release computes it)."""
    m, width = WIDE
    design = PublicDesign("random-seeds", width, m, 5)
    x = design.dense()
    exact_k = _exact_kernel(x)
    spectrum, drawn = design_pass(design, np.random.default_rng(1), 1)
    assert spectrum.route == "kernel" and drawn is not None
    kernel, _ = design.kernel()
    kappa = design.kernel_entry_error()
    for i in range(m):
        for j in range(m):
            assert abs(mpmath.mpf(float(kernel[i, j])) - exact_k[i, j]) <= kappa
    b = design_bounds(spectrum, RIDGE, 1.0)
    exact = _exact_bounds(exact_k, RIDGE)
    for got, want in zip((b.sensitivity / 2, b.norm_bound, b.gram_sensitivity), exact,
                         strict=True):  # fmt: skip
        # rounding_bound is the excess over the value from Ĝ, itself within it of the exact
        assert want <= mpmath.mpf(got) <= want * (1 + 2 * b.rounding_bound)
    y = np.random.default_rng(2).uniform(-1, 1, m)
    alpha = b.dual @ y[:, None] / m
    model = released_gram(spectrum, b.dual, y, drawn, 0.0)[0, 0]
    with mpmath.workdps(60):
        a = mpmath.matrix([float(v) for v in alpha[:, 0]])
        exact_model = (a.T * exact_k * a)[0, 0]
    error = model_gram_error(spectrum, alpha)
    assert 0 < error < 1e-10 * float(exact_model)
    assert abs(mpmath.mpf(float(model)) - exact_model) <= error


@pytest.mark.parametrize("shape", [WIDE, NARROW])
def test_released_gram_equals_the_two_pass_model_within_the_rounding_bound(shape):
    """VᵀV from the pass's XN, NᵀN and the spectrum against (v + σN)ᵀ(v + σN) of the
    two-pass release (design_model, N one D × 1 draw of the same generator): the noise is
    the same numbers, and the difference within the sum of both computations' bounds."""
    m, width = shape
    design = PublicDesign("random-seeds", width, m, 4)
    spectrum, drawn = design_pass(design, np.random.Generator(np.random.PCG64(9)), 1)
    b = design_bounds(spectrum, RIDGE, 1.0)
    y = np.random.default_rng(3).uniform(-1, 1, m)
    new = released_gram(spectrum, b.dual, y, drawn, SIGMA)[0, 0]
    v = design_model(design, y, b.dual, b.norms)[:, 0]
    noise = np.random.Generator(np.random.PCG64(9)).standard_normal(width)
    x = np.hstack(list(design.blocks(b.norms)))
    alpha = b.dual @ y / m
    # the noise's parts: the same N (one D × 1 draw), each sum within γ of the exact one
    u_d, u_m = gamma(width + 4), gamma(m + width + 4)
    assert abs(drawn.noise_gram[0, 0] - noise @ noise) <= 2 * u_d * (noise @ noise)
    reach = np.abs(x) @ np.abs(noise)  # |X||N| bounds both routes' rounding of XN
    assert np.all(np.abs(drawn.projection[:, 0] - x @ noise) <= 2 * u_d * reach)
    # vᵀv: the stated bound of the pass, and v̂ = fl(Xᵀα)'s (|v̂ − v| <= γ_m|X|ᵀ|α|)
    dv = gamma(m + 2) * (np.abs(x).T @ np.abs(alpha))
    old_model = float(np.linalg.norm(dv) * (2 * np.linalg.norm(v) + np.linalg.norm(dv)))
    old_model += gamma(width + 1) * (v @ v)
    cross = 2 * u_m * (np.abs(alpha) @ reach) + u_d * (np.abs(v) @ np.abs(noise))
    cross += float(np.abs(dv) @ np.abs(noise))
    noisy = v + SIGMA * noise
    old = noisy @ noisy
    model = released_gram(spectrum, b.dual, y, drawn, 0.0)[0, 0]
    tolerance = (
        model_gram_error(spectrum, alpha) + old_model + 2 * SIGMA * cross
        + SIGMA**2 * 2 * u_d * (noise @ noise)
        + gamma(width + 8) * (np.abs(noisy) @ np.abs(noisy))  # V = v + σN and VᵀV, rounded
        + gamma(8) * (abs(model) + 2 * SIGMA * abs(alpha @ drawn.projection[:, 0])
                      + SIGMA**2 * drawn.noise_gram[0, 0])  # the pass's final sums
    )  # fmt: skip
    assert abs(new - old) <= tolerance
    assert tolerance < 1e-9 * old  # a bound at rounding level, not a loose tolerance


def test_a_seeded_release_gives_the_two_pass_records():
    """Same seeds: the same design (public seed), rows' order and N, so the factor R and the
    records equal the two-pass release's to rounding (identical in law)."""
    m, width, seed = 6, 2 * BLOCK_COLUMNS + 7, 11
    y = np.random.default_rng(4).uniform(-1, 1, m)
    out = design_release(y, "random-seeds", width, 7, epsilon=1.0, delta=1e-5, ridge=RIDGE,
                         random_state=seed, time_budget=0.0)  # fmt: skip
    noise_seq, sample_seq, order_seq = np.random.SeedSequence(seed).spawn(3)
    design = PublicDesign("random-seeds", width, m, 7)
    b = design_bounds(design, RIDGE, 1.0)
    assert math.isclose(out.sensitivity, b.sensitivity, rel_tol=1e-15)
    assert math.isclose(out.gram_sensitivity, b.gram_sensitivity, rel_tol=1e-15)
    permuted = clip_rows(y[row_permutation(order_seq, m)][:, None], 1.0)
    v = design_model(design, permuted, b.dual, b.norms)
    v += out.sigma * np.random.Generator(np.random.PCG64(noise_seq)).standard_normal(v.shape)
    factor = out.seed_scale * np.sqrt(v[:, 0] @ v[:, 0])
    np.testing.assert_allclose(np.abs(out._factor), factor, rtol=1e-12)
    draws = np.random.Generator(np.random.PCG64(sample_seq)).standard_normal((5, 1)) * factor
    np.testing.assert_allclose(out.sample(5), draws, rtol=1e-12)
