"""The exact divergence engine (synthamp.divergence) against independent references.

Every expected number is computed here: by mpmath at 40 digits (tests/mpref.py:
Gauss–Legendre quadrature in r = √x with log ₀F₁ by its power series or
Poisson's integral; the finite release by the Poisson mixture of K-Bessel
product densities), by closed forms, or by scipy. Requirements (issue 2):

* plateau: relative error ≤ 1e-10 (absolute ≤ 1e-16 below 1e-14);
* Fisher information: relative ≤ 1e-9; finite release: relative ≤ 1e-8;
* the engine's error estimate (``full_output=True``) is at least the actual
  error (a too small estimate makes ``value + error`` an unsafe privacy number).

The heavy grid of hard corners (d = 10^6, a² = 10^4, α = 256 and 1.01,
a − b = 1e-3, b = 0, d = 1 and 2, n_syn = 1) is marked ``slow``.
"""

from __future__ import annotations

import functools
import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import mpref
import references
from synthamp import (
    DivergenceResult,
    InputError,
    Kind,
    fisher_information,
    log_likelihood_ratio,
    log_likelihood_ratio_finite,
    ncx2_logpdf,
    renyi_finite,
    renyi_plateau,
)
from synthamp.bounds import fisher_lower_bound, fisher_upper_bound

PLATEAU_RTOL = 1e-10
#: Below this value only the absolute tolerance applies.
PLATEAU_TINY = 1e-14
PLATEAU_ATOL = 1e-16
FISHER_RTOL = 1e-9
FINITE_RTOL = 1e-8


def plateau_tolerance(ref: np.ndarray) -> np.ndarray:
    ref = np.asarray(ref, dtype=float)
    return np.where(ref >= PLATEAU_TINY, PLATEAU_RTOL * ref, PLATEAU_ATOL)


# ---------------------------------------------------------------------------
# Stored references (tests/references.py: computed once by tests/data/make_references.py)
# ---------------------------------------------------------------------------


@functools.cache
def plateau_reference(alphas: tuple, dim: int, a: float, b: float) -> mpref.Reference:
    return references.renyi_plateau(list(alphas), dim, a, b)


@functools.cache
def fisher_reference(dim: int, theta: float) -> tuple[float, float]:
    value, error = references.fisher_information(dim, theta)
    return float(value), float(error)


@functools.cache
def finite_reference(alphas: tuple, dim: int, a: float, b: float, n: int) -> mpref.Reference:
    return references.renyi_finite(list(alphas), dim, a, b, n)


def _plateau_errors(case):
    alphas, dim, a, b = case
    ref = plateau_reference(alphas, dim, a, b)
    result = renyi_plateau(list(alphas), dim, a, b, full_output=True)
    actual = np.abs(result.value - ref.floats())
    return result, ref, actual


# ---------------------------------------------------------------------------
# Plateau: accuracy and error estimate against mpmath
# ---------------------------------------------------------------------------

PLATEAU_FAST = [
    ((1.01, 2.0), 1, 1.0, 0.0),
    ((2.0, 256.0), 2, 3.0, 2.999),
    ((4.0,), 10, 2.0, 1.5),
    ((256.0,), 50, 2.0, 1.9),
    ((1.01, 8.0), 3, 0.5, 1.0),
    ((2.0,), 1000, 10.0, 9.9),
]

PLATEAU_CORNERS = [
    ((1.01, 256.0), 1, 100.0, 99.999),
    ((1.01, 256.0), 2, 100.0, 0.0),
    ((1.01, 256.0), 10**6, 100.0, 99.999),
    ((2.0, 256.0), 10**6, 1.0, 0.0),
    ((1.01,), 10**6, 0.01, 0.0),
    ((1.01, 2.0, 256.0), 1, 1e-3, 0.0),
    ((256.0,), 50, 100.0, 0.0),
    ((1.01, 256.0), 1, 0.5, 1.0),
    ((1.01, 16.0, 256.0), 1000, 30.0, 29.999),
]


def _case_id(case) -> str:
    alphas, dim, *rest = case
    return f"alpha={','.join(f'{x:g}' for x in alphas)}-d={dim}-" + "-".join(f"{x:g}" for x in rest)


def _check_plateau_value(case):
    result, ref, actual = _plateau_errors(case)
    tol = plateau_tolerance(ref.floats())
    assert np.all(ref.errors() <= 1e-3 * tol), ("reference not accurate enough", ref.errors())
    assert np.all(np.isfinite(result.value)) and np.all(result.value >= 0)
    assert np.all(actual <= tol), (case, result.value, ref.floats(), actual / ref.floats())


def _check_plateau_estimate(case):
    result, ref, actual = _plateau_errors(case)
    assert np.all(np.isfinite(result.error)) and np.all(result.error >= 0)
    assert np.all(result.error >= actual - ref.errors()), (case, result.error, actual)


@pytest.mark.parametrize("case", PLATEAU_FAST, ids=_case_id)
def test_plateau_against_mpmath(case):
    _check_plateau_value(case)


@pytest.mark.parametrize("case", PLATEAU_FAST, ids=_case_id)
def test_plateau_error_estimate(case):
    _check_plateau_estimate(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", PLATEAU_CORNERS, ids=_case_id)
def test_plateau_hard_corners_against_mpmath(case):
    _check_plateau_value(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", PLATEAU_CORNERS, ids=_case_id)
def test_plateau_hard_corners_error_estimate(case):
    _check_plateau_estimate(case)


def test_plateau_orders_near_one_with_a_large_divergence():
    """α − 1 ≪ 1 with a large divergence: H − 1 = e^{(α−1)D} − 1 is moderate while
    αℓ exceeds 700 where p lives, so only the log form is right (regression: the
    H − 1 form returned 0.99995 instead of 3120.8 at α = 1.0001)."""
    case = ((1.0001, 1.01), 1, 100.0, 21.0)
    _check_plateau_value(case)
    _check_plateau_estimate(case)


@pytest.mark.parametrize("case", [((256.0,), 50, 2.0, 1.9), ((2.0, 256.0), 2, 3.0, 2.999)])
def test_plateau_many_orders_in_one_call(case):
    """64 orders in one call (each on its own windows) against the single-order references."""
    alphas, dim, a, b = case
    ref = plateau_reference(alphas, dim, a, b)
    orders = np.unique(np.concatenate([np.geomspace(1.01, 256, 64), alphas]))
    result = renyi_plateau(orders, dim, a, b, full_output=True)
    for alpha, ref_value in zip(alphas, ref.floats(), strict=True):
        i = int(np.flatnonzero(orders == alpha)[0])
        actual = abs(result.value[i] - ref_value)
        assert actual <= plateau_tolerance(ref_value), (alpha, result.value[i], ref_value)
        assert result.error[i] >= actual, (alpha, result.error[i], actual)


@pytest.mark.slow
def test_plateau_error_estimate_useful_at_b0_large_a():
    """b = 0, a = 100, d = 2: the estimate covers the error and is not uselessly large
    (it was 2e-2 of the value at α = 1.01 from an underflowing identity check)."""
    case = ((1.01, 256.0), 2, 100.0, 0.0)
    result, ref, actual = _plateau_errors(case)
    assert np.all(result.error >= actual - ref.errors())
    assert np.all(result.error <= 1e-9 * ref.floats()), result.error / ref.floats()


# ---------------------------------------------------------------------------
# Plateau: closed form at α = 2, b = 0 (cheap; covers d = 10^6, a² = 10^4, tiny values)
# ---------------------------------------------------------------------------

CLOSED_FORM_GRID = [
    (dim, a) for dim in (1, 2, 3, 50, 1000, 10**6) for a in (1e-3, 0.1, 1.0, 10.0, 100.0)
]


@functools.cache
def _closed_form(dim: int, a: float) -> float:
    return float(mpref.renyi2_central(dim, a))


@pytest.mark.parametrize(("dim", "a"), CLOSED_FORM_GRID)
def test_plateau_order_two_closed_form(dim, a):
    """D_2(χ²_d(a²) ‖ χ²_d) = log ₀F₁(; d/2; a⁴/4) (d = 1: log cosh a², d = 3: log(sinh a²/a²))."""
    value = renyi_plateau(2.0, dim, a, 0.0)[0]
    ref = _closed_form(dim, a)
    assert abs(value - ref) <= plateau_tolerance(ref), (value, ref, abs(value - ref) / ref)


@pytest.mark.parametrize(("dim", "a"), CLOSED_FORM_GRID)
def test_plateau_order_two_closed_form_error_estimate(dim, a):
    result = renyi_plateau(2.0, dim, a, 0.0, full_output=True)
    ref = _closed_form(dim, a)
    assert result.error[0] >= abs(result.value[0] - ref), (result.error[0], result.value[0], ref)


def test_closed_form_reference_is_right():
    """The closed form itself, against elementary functions (d = 1, 3) and a double sum."""
    with mp.workdps(40):
        a = mp.mpf(1.3)
        assert abs(mpref.renyi2_central(1, 1.3) - mp.log(mp.cosh(a**2))) < 1e-35
        assert abs(mpref.renyi2_central(3, 1.3) - mp.log(mp.sinh(a**2) / a**2)) < 1e-35
        # E_q[(p/q)^2] as the Poisson double sum Σ w_j w_k (d/2)_{j+k}/((d/2)_j (d/2)_k)
        dim, lam = 7, a**2
        c = mp.mpf(dim) / 2
        weights = [mp.exp(-lam / 2) * (lam / 2) ** j / mp.factorial(j) for j in range(60)]
        h = mp.fsum(
            weights[j] * weights[k] * mp.rf(c, j + k) / (mp.rf(c, j) * mp.rf(c, k))
            for j in range(60)
            for k in range(60)
        )
        assert abs(mp.log(h) - mpref.renyi2_central(dim, 1.3)) < 1e-30


def test_reference_converges_under_panel_refinement():
    """The plateau reference agrees with mpmath's adaptive tanh-sinh quadrature."""
    alpha, dim, a, b = 8.0, 5, 2.0, 1.5
    ref = plateau_reference((alpha,), dim, a, b)
    with mp.workdps(40):
        nu = mp.mpf(dim) / 2 - 1
        am, bm = mp.mpf(a), mp.mpf(b)

        def integrand(r):
            ell = -(am * am - bm * bm) / 2 + mpref.log_hyp0f1(nu, am * r)
            ell -= mpref.log_hyp0f1(nu, bm * r)
            return mp.exp(mpref.ncx2_logpdf_sqrt(r, dim, b)) * mpref._phi(mp.mpf(alpha), ell)

        hm1 = mp.quad(integrand, [0, 2, 4, 8, 16, 32, 64])
        assert abs(mp.log1p(hm1) / (alpha - 1) - ref.value[0]) < 1e-25 * ref.value[0]


# ---------------------------------------------------------------------------
# Fisher information
# ---------------------------------------------------------------------------

FISHER_FAST = [(1, 0.1), (2, 2.0), (10, 2.0), (3, 1e-3), (1, 100.0), (50, 8.0)]
FISHER_CORNERS = [(1000, 30.0), (10**6, 100.0), (10**6, 1.0), (2, 1e-4)]


def _check_fisher(dim, theta, check_estimate):
    ref, ref_err = fisher_reference(dim, theta)
    value, error = fisher_information(dim, theta, full_output=True)
    assert ref_err <= 1e-3 * FISHER_RTOL * ref
    actual = abs(value - ref)
    if check_estimate:
        assert error >= actual - ref_err, (value, error, ref, actual / ref)
    else:
        assert actual <= FISHER_RTOL * ref, (value, ref, actual / ref)


@pytest.mark.parametrize(("dim", "theta"), FISHER_FAST)
def test_fisher_against_mpmath(dim, theta):
    _check_fisher(dim, theta, check_estimate=False)


@pytest.mark.parametrize(("dim", "theta"), FISHER_FAST)
def test_fisher_error_estimate(dim, theta):
    _check_fisher(dim, theta, check_estimate=True)


@pytest.mark.slow
@pytest.mark.parametrize(("dim", "theta"), FISHER_CORNERS)
def test_fisher_hard_corners_against_mpmath(dim, theta):
    _check_fisher(dim, theta, check_estimate=False)


@pytest.mark.slow
@pytest.mark.parametrize(("dim", "theta"), FISHER_CORNERS)
def test_fisher_hard_corners_error_estimate(dim, theta):
    _check_fisher(dim, theta, check_estimate=True)


def test_fisher_limits():
    assert fisher_information(7, 0.0) == 0.0
    assert fisher_information(7, 0.0, full_output=True) == (0.0, 0.0)
    # θ → ∞: I → 1 (the amplitude is observed with unit Gaussian noise)
    assert fisher_information(5, 100.0) == pytest.approx(1.0, abs=1e-3)
    # θ → 0: I ≈ 2θ²/d (both bounds of Proposition 5.1 agree to first order)
    assert fisher_information(40, 1e-3) == pytest.approx(2e-6 / 40, rel=1e-5)


# ---------------------------------------------------------------------------
# Finite release against the Poisson–K reference
# ---------------------------------------------------------------------------

FINITE_FAST = [((2.0,), 4, 1.0, 0.5, 4)]
FINITE_CORNERS = [
    ((1.01, 2.0, 256.0), 1, 1.0, 0.0, 1),
    ((1.01, 256.0), 2, 3.0, 2.999, 1),
    ((2.0, 16.0), 2, 3.0, 2.999, 10),
    ((1.01, 256.0), 50, 2.0, 1.5, 1),
    ((2.0,), 10, 5.0, 4.0, 100),
    ((2.0,), 50, 2.0, 1.5, 1000),
    # b > a with d = n_syn: ℓ_S grows like log log(1/s) and the tilted law at
    # α = 256 sits at s ≈ e^{−250}, where Y given S is spread down to y ≈ s
    ((1.01, 16.25, 256.0), 2, 0.021, 3.285, 2),
]


def _check_finite(case, check_estimate):
    alphas, dim, a, b, n = case
    ref = finite_reference(alphas, dim, a, b, n)
    result = renyi_finite(list(alphas), dim, a, b, n, full_output=True)
    assert np.all(np.isfinite(result.value)) and np.all(np.isfinite(result.error))
    actual = np.abs(result.value - ref.floats())
    assert np.all(ref.errors() <= 1e-2 * FINITE_RTOL * ref.floats()), ref.errors()
    if check_estimate:
        assert np.all(result.error >= actual - ref.errors()), (result.error, actual)
    else:
        assert np.all(actual <= FINITE_RTOL * ref.floats()), (
            result.value,
            ref.floats(),
            actual / ref.floats(),
        )


@pytest.mark.parametrize("case", FINITE_FAST, ids=_case_id)
def test_finite_against_mpmath(case):
    _check_finite(case, check_estimate=False)


@pytest.mark.parametrize("case", FINITE_FAST, ids=_case_id)
def test_finite_error_estimate(case):
    _check_finite(case, check_estimate=True)


@pytest.mark.slow
@pytest.mark.parametrize("case", FINITE_CORNERS, ids=_case_id)
def test_finite_hard_corners_against_mpmath(case):
    _check_finite(case, check_estimate=False)


@pytest.mark.slow
@pytest.mark.parametrize("case", FINITE_CORNERS, ids=_case_id)
def test_finite_hard_corners_error_estimate(case):
    _check_finite(case, check_estimate=True)


# ---------------------------------------------------------------------------
# Log-likelihood ratios and log-densities
# ---------------------------------------------------------------------------

LLR_GRID = [
    (dim, a, b)
    for dim in (1, 2, 3, 50, 1000, 10**6)
    for a, b in ((1.0, 0.0), (0.0, 1.0), (2.0, 1.5), (100.0, 99.999), (100.0, 0.0), (3.0, 3 - 1e-6))
]


def _bulk_points(dim, amp):
    mean, sd = dim + amp * amp, math.sqrt(2 * dim + 4 * amp * amp)
    xs = [mean + k * sd for k in (-5, -2, 0, 2, 5, 20)]
    return [x for x in xs if x > 0] + [1e-6, 0.5]


@pytest.mark.parametrize(("dim", "a", "b"), LLR_GRID)
def test_log_likelihood_ratio_against_mpmath(dim, a, b):
    """ℓ against log p − log q at 40 digits.

    The error is measured against the scale of the two ways to compute ℓ:
    ε(|G_ν(a√x)| + |G_ν(b√x)| + |a² − b²|/2) for the difference of
    log-Bessel terms and ε|a − b|(√x + a + b) for the path integral of the
    score (docs/theory.md §4 trap 4).
    """
    xs = np.array(_bulk_points(dim, b) + _bulk_points(dim, a))
    values = log_likelihood_ratio(xs, dim, a, b)
    nu = dim / 2 - 1
    for x, value in zip(xs, values, strict=True):
        ref = float(mpref.log_likelihood_ratio(x, dim, a, b))
        r = math.sqrt(x)
        scale_g = float(abs(mpref.log_hyp0f1(nu, a * r)) + abs(mpref.log_hyp0f1(nu, b * r)))
        scale_g += abs(a * a - b * b) / 2
        scale_path = abs(a - b) * (r + a + b)
        tol = 1e-13 * abs(ref) + 1e-14 * min(scale_g, scale_path)
        assert abs(value - ref) <= tol, (x, value, ref)


def test_log_likelihood_ratio_shapes_and_validation():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert log_likelihood_ratio(x, 3, 1.0, 0.5).shape == (2, 2)
    assert np.all(log_likelihood_ratio(x, 3, 1.0, 1.0) == 0.0)
    with pytest.raises(ValueError):
        log_likelihood_ratio([-1.0], 3, 1.0, 0.5)
    with pytest.raises(InputError):
        log_likelihood_ratio([1.0], 0, 1.0, 0.5)


@pytest.mark.parametrize(
    ("dim", "a", "b"), [(1, 1.0, 0.0), (5, 2.0, 1.5), (50, 0.5, 3.0), (200, 10.0, 9.0)]
)
def test_expectation_of_likelihood_ratio_is_one(dim, a, b):
    """E_q[e^ℓ] = 1 by scipy's adaptive quadrature over scipy's ncx2 density."""
    mean = dim + max(a, b) ** 2
    sd = math.sqrt(2 * dim + 4 * max(a, b) ** 2)

    def integrand(x):
        q = stats.ncx2.pdf(x, dim, b * b) if b > 0 else stats.chi2.pdf(x, dim)
        return q * math.exp(log_likelihood_ratio(x, dim, a, b))

    pieces = [0.0, max(mean - 10 * sd, 0.0) / 2, max(mean - 10 * sd, 1e-3), mean, mean + 40 * sd]
    total = sum(_quad(integrand, lo, hi) for lo, hi in itertools.pairwise(pieces) if hi > lo)
    assert total == pytest.approx(1.0, abs=1e-9)


def _quad(f, lo, hi):
    from scipy import integrate

    value, _ = integrate.quad(f, lo, hi, limit=400, epsabs=1e-14, epsrel=1e-13)
    return value


@pytest.mark.parametrize(("dim", "amp"), [(10**6, 100.0)])
def test_expectation_of_likelihood_ratio_large_dim(dim, amp):
    """E_q[e^ℓ] = 1 where scipy's ncx2 underflows: q at 40 digits, Gauss–Legendre in r."""
    a, b = amp + 0.5, amp
    edges = mpref._plateau_panels([], dim, a, b)
    nodes, weights, _ = mpref._composite_nodes(edges)
    r = np.array([float(x) for x in nodes])
    w = np.array([float(x) for x in weights])
    keep = w > 0
    log_q = np.array([float(mpref.ncx2_logpdf_sqrt(x, dim, b)) for x in r[keep]])
    ell = log_likelihood_ratio(r[keep] ** 2, dim, a, b)
    assert np.sum(w[keep] * np.exp(log_q)) == pytest.approx(1.0, abs=1e-13)
    assert np.sum(w[keep] * np.exp(log_q + ell)) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("dim", [1, 2, 3, 10, 50, 1000, 10**4, 10**6])
@pytest.mark.parametrize("amp", [0.0, 1e-3, 1.0, 10.0, 100.0])
def test_ncx2_logpdf_against_mpmath(dim, amp):
    """Error within a few ulp of the magnitude of the terms, |ν log x| + x/2 + log Γ(d/2) + …"""
    xs = np.array(_bulk_points(dim, amp))
    values = ncx2_logpdf(xs, dim, amp)
    for x, value in zip(xs, values, strict=True):
        ref = float(mpref.ncx2_logpdf(x, dim, amp))
        scale = abs((dim / 2 - 1) * math.log(x)) + x / 2 + abs(special.gammaln(dim / 2))
        scale += dim + amp * amp / 2 + float(mpref.log_hyp0f1(dim / 2 - 1, amp * math.sqrt(x)))
        assert abs(value - ref) <= 8 * np.finfo(float).eps * scale, (x, value, ref)


@pytest.mark.parametrize("dim", [1, 2, 5, 50, 200])
@pytest.mark.parametrize("amp", [0.0, 0.5, 3.0, 10.0])
def test_ncx2_logpdf_against_scipy_in_the_bulk(dim, amp):
    mean, sd = dim + amp * amp, math.sqrt(2 * dim + 4 * amp * amp)
    xs = np.linspace(max(mean - 4 * sd, 0.05), mean + 4 * sd, 9)
    expected = stats.ncx2.logpdf(xs, dim, amp * amp) if amp > 0 else stats.chi2.logpdf(xs, dim)
    np.testing.assert_allclose(ncx2_logpdf(xs, dim, amp), expected, rtol=1e-12, atol=1e-13)


def test_ncx2_logpdf_does_not_underflow_where_scipy_does():
    dim, amp = 10**6, 100.0
    x = np.array([dim + amp**2])
    assert np.isfinite(ncx2_logpdf(x, dim, amp)).all()
    assert ncx2_logpdf(x, dim, amp)[0] == pytest.approx(
        float(mpref.ncx2_logpdf(x[0], dim, amp)), abs=1e-8
    )


# --- finite release: likelihood ratio of S = Y·X --------------------------------------


def _finite_logpdf_scipy(s: np.ndarray, dim: int, n: int, amp: float) -> np.ndarray:
    """log density of S = Y·X in double precision (scipy's kve), Poisson mixture over j.

    Evaluated in blocks of s; in each block the sum over j runs past its peak,
    which sits near j ≈ √(λx/4) at large x = √s (not at λ/2).
    """
    s = np.asarray(s, dtype=float)
    out = np.empty_like(s)
    lam_half = amp * amp / 2
    for start in range(0, s.size, 1000):
        block = s[start : start + 1000]
        x = np.sqrt(block)
        j_peak = max(lam_half, math.sqrt(lam_half * float(x.max()) / 2))
        j_max = int(j_peak + 12 * math.sqrt(j_peak) + 40) if amp > 0 else 0
        j = np.arange(j_max + 1)[:, None]
        p = dim + 2 * j
        log_pois = -lam_half + special.xlogy(j, lam_half) - special.gammaln(j + 1)
        order = (p - n) / 2
        with np.errstate(over="ignore", divide="ignore"):
            log_k = np.log(special.kve(order, x[None, :])) - x[None, :]
        # where kve overflows (large order, tiny x): K_μ(x) ≈ Γ(μ) 2^{μ−1} x^{−μ} (1 + O(x²/μ))
        mu = np.abs(order) + np.zeros_like(log_k)
        small_x = special.gammaln(mu) + (mu - 1) * math.log(2) - mu * np.log(x)[None, :]
        log_k = np.where(np.isfinite(log_k), log_k, small_x)
        log_g = (
            ((p + n) / 4 - 1) * np.log(block)[None, :]
            + log_k
            - ((p + n) / 2 - 1) * math.log(2)
            - special.gammaln(p / 2)
            - special.gammaln(n / 2)
        )
        out[start : start + 1000] = special.logsumexp(log_pois + log_g, axis=0)
    return out


@pytest.mark.parametrize(
    ("dim", "n", "a", "b"),
    [
        (1, 1, 1.0, 0.0),
        (3, 10, 2.0, 1.5),
        (50, 1000, 2.0, 1.5),
        (10, 100, 5.0, 4.0),
        (2, 4, 0.5, 1.0),
    ],
)
def test_finite_likelihood_ratio_against_mpmath(dim, n, a, b):
    """ℓ_S(s) against the Poisson–K mixture at 40 digits, across the bulk of q_S."""
    v = np.log(n * (dim + b * b)) + np.linspace(-3, 3, 7) * math.sqrt(
        special.polygamma(1, n / 2) + special.polygamma(1, dim / 2)
    )
    s = np.exp(v)
    values = log_likelihood_ratio_finite(s, dim, n, a, b)
    for si, value in zip(s, values, strict=True):
        ref = float(mpref.log_likelihood_ratio_finite(si, dim, n, a, b))
        assert abs(value - ref) <= 1e-9 * (abs(ref) + abs(a * a - b * b)), (si, value, ref)


@pytest.mark.parametrize(("dim", "n", "a", "b"), [(1, 1, 1.0, 0.0), (3, 10, 2.0, 1.5)])
def test_expectation_of_finite_likelihood_ratio_is_one(dim, n, a, b):
    """E_q[L_S] = 1: q_S from scipy's K-Bessel mixture, trapezoid in log s."""
    # left tail of log S ~ e^{min(d, n) v/2}: start where it is below e^{−50}
    v = np.linspace(-100.0 / min(dim, n) - 10.0, math.log(n * (dim + a * a + b * b)) + 12.0, 3001)
    s = np.exp(v)
    log_q = _finite_logpdf_scipy(s, dim, n, b) + v
    ell = log_likelihood_ratio_finite(s, dim, n, a, b)
    step = v[1] - v[0]
    assert np.sum(np.exp(log_q)) * step == pytest.approx(1.0, abs=1e-10)
    assert np.sum(np.exp(log_q + ell)) * step == pytest.approx(1.0, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("case", [FINITE_CORNERS[0], FINITE_CORNERS[3]], ids=_case_id)
def test_finite_reference_against_brute_force(case):
    """The 40-digit finite reference at α = 256 against log ∫ q_S^{1−α} p_S^α in doubles."""
    alphas, dim, a, b, n = case
    alpha = alphas[-1]
    # step 0.012 in log s: the trapezoid is within 2.1e-14 of the reference at both cases
    # (60001 nodes, step 0.003: 1.1e-14; 7501: 6.8e-14; 3001: 9e-6), a quarter of the cost
    v = np.linspace(-150.0, 30.0, 15001)
    s = np.exp(v)
    log_q = _finite_logpdf_scipy(s, dim, n, b)
    log_p = _finite_logpdf_scipy(s, dim, n, a)
    log_h = special.logsumexp((1 - alpha) * log_q + alpha * log_p + v) + math.log(v[1] - v[0])
    ref = finite_reference(alphas, dim, a, b, n)
    assert log_h / (alpha - 1) == pytest.approx(ref.floats()[-1], rel=1e-11)


def test_finite_density_formula_matches_mpmath():
    """The double-precision K-Bessel mixture used above agrees with the 40-digit one."""
    for dim, n, amp, s in [(1, 1, 0.0, 0.5), (3, 10, 2.0, 40.0), (50, 1000, 2.0, 5e4)]:
        ref = float(mpref.finite_logpdf(s, dim, n, amp))
        assert _finite_logpdf_scipy(np.array([s]), dim, n, amp)[0] == pytest.approx(ref, abs=1e-12)


# ---------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------

dims = st.one_of(
    st.sampled_from([1, 2, 3, 10**6]),
    st.integers(1, 10**6),
    st.floats(0.0, math.log(10**6)).map(lambda t: max(1, round(math.exp(t)))),
)
amplitudes = st.one_of(st.sampled_from([0.0, 100.0]), st.floats(0.0, 100.0))
orders = st.one_of(st.sampled_from([1.01, 256.0]), st.floats(1.01, 256.0), st.floats(1.0001, 1.01))


@settings(max_examples=60, deadline=None)
@given(dims, amplitudes, amplitudes, st.lists(orders, min_size=1, max_size=4))
def test_plateau_finite_bounded_and_monotone_in_alpha(dim, a, b, alphas):
    """0 ≤ D_α ≤ α(a − b)²/2 (post-processing), non-decreasing in α, never NaN or inf."""
    result = renyi_plateau(alphas, dim, a, b, full_output=True)
    assert np.all(np.isfinite(result.value)) and np.all(np.isfinite(result.error))
    assert np.all(result.value >= 0) and np.all(result.error >= 0)
    alphas = np.asarray(alphas)
    ceiling = alphas * (a - b) ** 2 / 2
    assert np.all(result.value <= ceiling * (1 + 1e-12) + result.error)
    order = np.argsort(alphas)
    v, e = result.value[order], result.error[order]
    assert np.all(v[:-1] <= v[1:] + e[:-1] + e[1:] + 1e-15 * v[1:])


@settings(max_examples=40, deadline=None)
@given(dims, amplitudes, st.floats(0.0, 5.0), orders)
def test_plateau_scale_invariance(dim, a, ratio, alpha):
    """D depends on ‖v‖/σ and ‖w‖/σ only (σ a power of two: the scaling is exact)."""
    b = a * ratio / 5
    base = renyi_plateau(alpha, dim, a, b)
    scaled = renyi_plateau(alpha, dim, 4 * a, 4 * b, sigma=4.0)
    assert np.array_equal(base, scaled)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 50),
    st.floats(20.0, 100.0),
    st.floats(0.01, 1.0),
    st.one_of(st.sampled_from([1.01, 256.0]), st.floats(1.01, 256.0)),
)
def test_no_amplification_without_norm_bound(dim, b, gap, alpha):
    """Proposition 4.3: plateau(b + s, b) → αs²/2 as b → ∞.

    R = ‖a e₁ + Z‖ ≈ a + Z₁ + χ²_{d−1}/(2a), so the two laws are close to
    unit Gaussians whose means differ by s(1 − (d − 1)/(2ab)): the relative
    gap to αs²/2 is at most (d − 1)/(ab); for d = 1 the laws are Gaussian up
    to e^{−2ab}.
    """
    a = b + gap
    value = renyi_plateau(alpha, dim, a, b)[0]
    ratio = value / (alpha * gap * gap / 2)
    assert ratio <= 1 + 1e-10
    assert 1 - ratio <= (dim - 1) / (a * b) + 1e-10


@settings(max_examples=40, deadline=None)
@given(dims, st.floats(0.5, 100.0), orders)
def test_local_expansion_fisher(dim, b, alpha):
    """Proposition 3.1: plateau(b + h, b) = (α/2) I(d, b) h² (1 + O(αh/b))."""
    h = 1e-5
    value = renyi_plateau(alpha, dim, b + h, b)[0]
    local = alpha / 2 * fisher_information(dim, b) * h * h
    assert abs(value / local - 1) <= 4 * alpha * h / min(b, 1.0) + 1e-8


def _check_fisher_bounds(dim, theta):
    value, error = fisher_information(dim, theta, full_output=True)
    assert math.isfinite(value) and math.isfinite(error)
    assert fisher_lower_bound(dim, theta) <= value + error
    assert value - error <= fisher_upper_bound(dim, theta)
    assert 0.0 <= value and value - error <= 1.0


@settings(max_examples=80, deadline=None)
@given(
    dims,
    st.one_of(st.sampled_from([0.0, 1e-4, 100.0]), st.floats(0.0, 100.0)),
)
def test_fisher_bounds_bracket(dim, theta):
    """Proposition 5.1: 2θ²/(2θ²+d) ≤ I(d, θ) ≤ min{1, 2θ²/(A + √(A²+4θ²))}.

    At large d the lower bound is within 1e-15 of I, so this also checks the error
    estimate (value + error must not fall below it).
    """
    _check_fisher_bounds(dim, theta)


@pytest.mark.parametrize(("dim", "theta"), [(10**6, 2.0), (10**5, 1e-4)])
def test_fisher_bounds_bracket_large_dim(dim, theta):
    _check_fisher_bounds(dim, theta)


finite_dims = st.one_of(st.sampled_from([1, 2]), st.integers(1, 200))
finite_amps = st.floats(0.0, 10.0)


@settings(max_examples=8, deadline=None)
@given(
    finite_dims,
    finite_amps,
    finite_amps,
    st.one_of(st.sampled_from([1, 2]), st.integers(1, 2000)),
    st.lists(st.one_of(st.sampled_from([1.01, 2.0, 256.0]), st.floats(1.01, 256.0)), max_size=3),
)
def test_finite_ordering(dim, a, b, n, alphas):
    """0 ≤ finite(n) ≤ finite(n+1) ≤ plateau ≤ α(a−b)²/2 (error estimates as slack)."""
    alphas = [2.0, *alphas]
    f_n = renyi_finite(alphas, dim, a, b, n, full_output=True)
    f_n1 = renyi_finite(alphas, dim, a, b, n + 1, full_output=True)
    plateau = renyi_plateau(alphas, dim, a, b, full_output=True)
    ceiling = np.asarray(alphas) * (a - b) ** 2 / 2
    for res in (f_n, f_n1):
        assert np.all(np.isfinite(res.value)) and np.all(np.isfinite(res.error))
        assert np.all(res.value >= 0)
    slack = 1e-14 * plateau.value
    assert np.all(f_n.value <= f_n1.value + f_n.error + f_n1.error + slack)
    assert np.all(f_n1.value <= plateau.value + f_n1.error + plateau.error + slack)
    assert np.all(plateau.value <= ceiling * (1 + 1e-12) + plateau.error)


@pytest.mark.parametrize(
    ("dim", "a", "b", "n"),
    [
        (1, 100.0, 0.0, 1),
        (1, 0.0, 100.0, 1),
        (1000, 100.0, 0.0, 10**5),
        (10**6, 100.0, 99.999, 1),
        (10**6, 1.0, 0.0, 10**7),
        (10**5, 10.0, 0.0, 1),
        (10**4, 50.0, 49.0, 10**7),
        (2, 100.0, 99.999, 1),
        (3, 100.0, 99.0, 1000),
        (50, 0.0, 3.0, 10),
    ],
)
def test_finite_domain_corners_finite_and_below_plateau(dim, a, b, n):
    """Never NaN, inf or a RuntimeWarning (an error under pytest here); 0 ≤ finite ≤ plateau."""
    alphas = [1.01, 256.0]
    result = renyi_finite(alphas, dim, a, b, n, full_output=True)
    plateau = renyi_plateau(alphas, dim, a, b, full_output=True)
    assert np.all(np.isfinite(result.value)) and np.all(np.isfinite(result.error))
    assert np.all(result.value >= 0) and np.all(result.error >= 0)
    assert np.all(result.value <= plateau.value + plateau.error + result.error)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.0, 1e8),
    dims,
    amplitudes,
    amplitudes,
)
def test_log_likelihood_ratio_finite_everywhere(x, dim, a, b):
    value = log_likelihood_ratio(np.array([x]), dim, a, b)
    assert np.isfinite(value).all()
    assert np.isfinite(ncx2_logpdf(np.array([max(x, 1e-300)]), dim, a)).all()


@pytest.mark.parametrize(("dim", "a", "b"), [(1, 1.0, 0.0), (10, 2.0, 1.5), (100, 3.0, 2.5)])
def test_finite_converges_to_plateau(dim, a, b):
    """Proposition 7.1: plateau − finite(n) ≤ K/n + K′e^{−cn}; the gap shrinks with n."""
    alphas = [1.5, 4.0]
    plateau = renyi_plateau(alphas, dim, a, b)
    sizes = (10, 1000, 10**5, 10**7)
    gaps = [plateau - renyi_finite(alphas, dim, a, b, n) for n in sizes]
    for smaller, larger in itertools.pairwise(gaps):
        assert np.all(larger <= smaller)
    assert np.all(gaps[-1] >= -1e-12) and np.all(gaps[-1] <= 1e-4 * plateau)
    # the K/n regime: n·gap(n) is nearly constant between n = 10^5 and 10^7
    np.testing.assert_allclose(sizes[-1] * gaps[-1], sizes[-2] * gaps[-2], rtol=0.05)


# ---------------------------------------------------------------------------
# API: kinds, shapes, validation
# ---------------------------------------------------------------------------


def test_kinds_and_result_object():
    assert renyi_plateau.kind is Kind.EXACT and renyi_finite.kind is Kind.EXACT
    result = renyi_plateau([8.0, 2.0, 4.0], 5, 1.0, 0.5, full_output=True)
    assert isinstance(result, DivergenceResult) and result.kind is Kind.EXACT
    assert list(result.alpha) == [8.0, 2.0, 4.0]
    np.testing.assert_array_equal(result.upper, result.value + result.error)
    # one order in a list of three gives the same number as alone
    assert renyi_plateau(2.0, 5, 1.0, 0.5)[0] == pytest.approx(result.value[1], rel=1e-13)
    assert renyi_plateau(2.0, 5, 1.0, 1.0)[0] == 0.0


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: renyi_plateau(1.0, 5, 1.0, 0.5), "alpha"),
        (lambda: renyi_plateau([2.0, 0.5], 5, 1.0, 0.5), "alpha"),
        (lambda: renyi_plateau(2.0, 0, 1.0, 0.5), "dim"),
        (lambda: renyi_plateau(2.0, 2.5, 1.0, 0.5), "dim"),
        (lambda: renyi_plateau(2.0, 10**6 + 1, 1.0, 0.5), "dim"),
        (lambda: renyi_plateau(2.0, 5, -1.0, 0.5), "norm_v"),
        (lambda: renyi_plateau(2.0, 5, 1.0, float("nan")), "norm_w"),
        (lambda: renyi_plateau(2.0, 5, 1.0, 0.5, sigma=0.0), "sigma"),
        (lambda: renyi_plateau("two", 5, 1.0, 0.5), "alpha"),
        (lambda: renyi_finite(2.0, 5, 1.0, 0.5, 0), "n_syn"),
        (lambda: renyi_finite(2.0, 5, 1.0, 0.5, 10**9 + 1), "n_syn"),
        (lambda: fisher_information(0, 1.0), "dim"),
        (lambda: fisher_information(3, -1.0), "theta"),
    ],
)
def test_invalid_input(call, param):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.param == param


# --- finite release: far conditional laws and the work budget ----------------------


@pytest.mark.parametrize(("dim", "n", "a", "b"), [(2, 1, 3.0, 2.999), (50, 1, 2.0, 1.5)])
@pytest.mark.parametrize("s", [1e-60, 1e-20, 1e-6])
def test_finite_likelihood_ratio_far_left_against_mpmath(dim, n, a, b, s):
    """ℓ_S at tiny s with n_syn < d: the conditional law of X given S sits far
    left of its mode (Y typical), where a window centred on log X's mode fails."""
    value = float(log_likelihood_ratio_finite(np.array([s]), dim, n, a, b)[0])
    ref = float(mpref.log_likelihood_ratio_finite(s, dim, n, a, b))
    assert abs(value - ref) <= 1e-9 * abs(ref), (value, ref)


def test_finite_over_budget_orders_fall_back_on_a_sound_interval(monkeypatch):
    """Orders whose grid exceeds the work budget get [lower end of a smaller order,
    plateau + its error], which must contain the value computed within budget."""
    import synthamp.divergence._finite as finite_module

    alphas = [1.01, 2.0, 16.0, 64.0]
    args = (alphas, 2, 2.0, 1.0, 1)
    exact = renyi_finite(*args, full_output=True)
    assert np.all(exact.error <= 1e-8 * exact.value)
    plateau = renyi_plateau(alphas, 2, 2.0, 1.0, full_output=True)
    monkeypatch.setattr(finite_module, "_MAX_WORK", 20_000)
    finite_module.finite_scaled.cache_clear()  # the memo holds the result within budget
    degraded = renyi_finite(*args, full_output=True)
    assert np.all(np.isfinite(degraded.value)) and np.all(np.isfinite(degraded.error))
    assert np.any(degraded.error > 1e-3 * degraded.value)  # some orders were dropped
    assert np.all(degraded.value - degraded.error <= exact.value + exact.error)
    assert np.all(degraded.value + degraded.error >= exact.value - exact.error)
    assert np.all(degraded.value + degraded.error <= plateau.value + plateau.error * (1 + 1e-12))


def test_finite_large_n_syn_large_orders_resolved_and_independent_of_the_order_set():
    """n_syn = 34660, b = 0, α up to 256: every order resolved (error ≤ 1e-8 relative),
    each value the same whether computed alone or with the others, and 0 ≤ finite ≤ plateau.
    (Extreme scan nodes, unresolved, once set the window and dropped α = 16 and 256.)"""
    args = (50, 1.464, 0.0, 34660)
    together = renyi_finite([1.01, 2.0, 16.0, 256.0], *args, full_output=True)
    assert np.all(together.error <= 1e-8 * together.value)
    for alpha, value in zip([16.0, 256.0], together.value[2:], strict=True):
        alone = renyi_finite(alpha, *args, full_output=True)
        assert alone.value[0] == pytest.approx(value, rel=1e-9)
    plateau = renyi_plateau([1.01, 2.0, 16.0, 256.0], 50, 1.464, 0.0, full_output=True)
    assert np.all(together.value <= plateau.value + plateau.error + together.error)


@pytest.mark.parametrize(
    ("norm_v", "norm_w", "param"), [(1000.5, 999.0, "norm_v"), (5.0, 2e4, "norm_w")]
)
def test_finite_refuses_amplitudes_beyond_its_documented_domain(norm_v, norm_w, param):
    """‖v‖/σ, ‖w‖/σ ≤ 10³ (FINITE_MAX_AMPLITUDE): beyond it the engine's error estimate
    reaches 1e-6 to 1 relative (c = 10⁴–10⁵), so the public function refuses, naming the norm."""
    with pytest.raises(InputError) as caught:
        renyi_finite(2.0, 20, norm_v, norm_w, 100)
    assert caught.value.param == param
    assert "1000" in caught.value.rule
    with pytest.raises(InputError):  # the same in natural units: the scaled amplitude counts
        renyi_finite(2.0, 20, norm_v * 0.01, norm_w * 0.01, 100, sigma=0.01)
    at_edge = renyi_finite(2.0, 20, 1000.0, 999.5, 100, full_output=True)
    assert at_edge.error[0] <= 1e-6 * at_edge.value[0]


def test_the_divergence_command_refuses_a_finite_pair_beyond_the_domain(capsys):
    from synthamp.cli import main

    argv = ["divergence", "--alpha", "2", "--dim", "20", "--norm-v", "5000", "--norm-w", "4999"]
    assert main([*argv, "--n-syn", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and err[0].startswith("synthamp: error: --norm-v: --norm-v/--sigma")
    assert main(argv) == 0  # the plateau has no such limit
