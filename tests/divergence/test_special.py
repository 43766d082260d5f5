"""Log-space Bessel functions (synthamp.divergence._special) against mpmath.

References are computed here, at 40 digits, by tests/mpref.py (the ₀F₁ power
series, Poisson's integral by the trapezoidal rule, mpmath's ``besseli``),
never copied from the library's output. Measured maxima over these grids
(2026-11-30): G_ν relative error 4.3e-16 in the series and Debye branches and
2.0e-14 in the ``ive`` branch (ν < 30, z²/4 > ν + 1); R_ν relative error
7.5e-15.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpref
from synthamp.divergence import _special

#: Orders ν = d/2 − 1 for d = 1, 2, 3, 4, 11, 26, 61, 62, 64, 101, 202, 10^3, 10^4, 10^5, 10^6,
#: across the branch boundaries (series / ive below ν = 30 / Debye from ν = 30).
NU_GRID = [-0.5, 0.0, 0.5, 1.0, 4.5, 12.0, 29.5, 30.0, 31.0, 49.5, 100.0, 499.0, 4999.0, 49999.0]
NU_GRID_LARGE = [499999.0]


def _z_grid(nu: float) -> np.ndarray:
    """Arguments from 1e-150 to 1e8, denser around the series/asymptotic switch z = 2√(ν+1)."""
    switch = 2.0 * math.sqrt(max(1.0, nu + 1.0))
    near = switch * np.array([0.5, 0.9, 0.999, 1.001, 1.1, 2.0, 5.0])
    far = np.geomspace(1e-150, 1e8, 13)
    return np.unique(np.concatenate([near, far]))


def _is_ive_branch(nu: float, z: float) -> bool:
    return nu < _special.NU_DEBYE and 0.25 * z * z > max(1.0, nu + 1.0)


def _relative_errors(nus, branch_filter):
    rows = []
    for nu in nus:
        zs = _z_grid(nu)
        values = _special.log_bessel_i_normalized(nu, zs)
        for z, value in zip(zs, values, strict=True):
            if not branch_filter(nu, z):
                continue
            ref = float(mpref.log_hyp0f1(nu, z))
            assert np.isfinite(value)
            if ref == 0.0:  # below the smallest double: the library must give 0 too
                assert value == 0.0, (nu, z, value)
                continue
            rows.append((abs(value - ref) / ref, nu, z, value, ref))
    return rows


def test_log_bessel_series_and_debye_branches():
    rows = _relative_errors(NU_GRID + NU_GRID_LARGE, lambda nu, z: not _is_ive_branch(nu, z))
    worst = max(rows)
    assert worst[0] <= 2e-15, worst


def test_log_bessel_ive_branch():
    """The branch that uses log(ive) cancels: documented ≤ 3e-14 (measured max 2.0e-14)."""
    rows = _relative_errors(NU_GRID, _is_ive_branch)
    assert rows
    worst = max(rows)
    assert worst[0] <= 3e-14, worst


def test_bessel_ratio_against_mpmath():
    worst = (0.0,)
    for nu in NU_GRID + NU_GRID_LARGE:
        zs = _z_grid(nu)
        values = _special.bessel_ratio(nu, zs)
        for z, value in zip(zs, values, strict=True):
            ref = float(mpref.bessel_ratio(nu, z))
            assert 0.0 <= value < 1.0 or (value == 1.0 and ref > 1 - 1e-16), (nu, z, value)
            if ref > 0:
                worst = max(worst, (abs(value - ref) / ref, nu, z, value, ref))
    assert worst[0] <= 2e-14, worst


def test_closed_forms_at_half_order():
    """ν = −½ (d = 1): ₀F₁(½; z²/4) = cosh z and I_{1/2}/I_{−1/2} = tanh z."""
    z = np.array([0.0, 1e-200, 1e-9, 1e-3, 0.5, 1.0, 3.0, 20.0, 700.0, 1e6])
    with mp.workdps(60):  # log cosh z = log1p(2 sinh²(z/2)), no cancellation
        log_cosh = np.array([float(mp.log1p(2 * mp.sinh(mp.mpf(t) / 2) ** 2)) for t in z])
    rtol = np.where([_is_ive_branch(-0.5, t) for t in z], 3e-14, 2e-15)
    error = np.abs(_special.log_bessel_i_normalized(-0.5, z) - log_cosh)
    assert np.all(error <= rtol * log_cosh)
    assert np.allclose(_special.bessel_ratio(-0.5, z), np.tanh(z), rtol=2e-15, atol=0)


def test_zero_argument_and_broadcasting():
    for nu in (-0.5, 0.0, 7.0, 1e5):
        assert _special.log_bessel_i_normalized(nu, 0.0) == 0.0
        assert _special.bessel_ratio(nu, 0.0) == 0.0
        assert _special.bessel_ratio_derivative(nu, 0.0) == pytest.approx(1 / (2 * (nu + 1)))
    z = np.array([[0.1, 10.0], [1e3, 1e5]])
    assert _special.log_bessel_i_normalized(3.0, z).shape == (2, 2)
    assert _special.bessel_ratio(3.0, z).shape == (2, 2)


@pytest.mark.parametrize(
    ("nu", "z"), [(0.0, 0.3), (0.5, 4.0), (12.0, 9.0), (40.0, 35.0), (1000.0, 2500.0)]
)
def test_bessel_ratio_derivative_against_mpmath(nu, z):
    """R' against mpmath's numerical derivative of the reference ratio."""
    with mp.workdps(40):  # central difference: truncation ~1e-24, rounding ~1e-28
        h = mp.mpf("1e-12") * max(1.0, z)
        ref = (mpref.bessel_ratio(nu, z + h) - mpref.bessel_ratio(nu, z - h)) / (2 * h)
    assert float(_special.bessel_ratio_derivative(nu, z)) == pytest.approx(float(ref), rel=1e-12)


# ---------------------------------------------------------------------------
# Properties over the whole domain
# ---------------------------------------------------------------------------

orders = st.one_of(
    st.sampled_from([-0.5, 0.0, 0.5, 29.5, 30.0, 499999.0]),
    st.floats(-0.5, 5e5),
    st.integers(-1, 10**6).map(lambda d: d / 2 - 1 if d >= 1 else -0.5),
)
arguments = st.one_of(st.floats(0.0, 1e8), st.floats(1e-300, 1e-3), st.sampled_from([0.0, 1e8]))


@settings(max_examples=300, deadline=None)
@given(orders, arguments, st.floats(1.0 + 1e-9, 2.0))
def test_monotone_finite_and_bounded(nu, z, factor):
    """G ≥ 0 finite and non-decreasing in z; R ∈ [0, 1] non-decreasing in z (Amos bounds)."""
    z2 = min(z * factor, 1e8)
    g1, g2 = _special.log_bessel_i_normalized(nu, [z, z2])
    r1, r2 = _special.bessel_ratio(nu, [z, z2])
    assert np.isfinite([g1, g2, r1, r2]).all()
    assert 0.0 <= g1 <= g2 * (1 + 1e-14)
    assert 0.0 <= r1 <= r2 * (1 + 1e-14) + 1e-300
    assert r2 <= 1.0
    # G grows at most linearly with slope R ≤ 1: G(z2) − G(z1) ≤ z2 − z1
    assert g2 - g1 <= (z2 - z) * (1 + 1e-12) + 1e-12 * g2
    if nu >= 0 and z > 0:
        # Amos (1974): z/(ν+1+√(z²+(ν+1)²)) ≤ R_ν(z) ≤ z/(ν+½+√(z²+(ν+½)²))
        lower = z / (nu + 1 + math.hypot(z, nu + 1))
        upper = z / (nu + 0.5 + math.hypot(z, nu + 0.5))
        # subnormal z (e.g. 2.2e-311) leaves R with a few significant bits: allow
        # a few subnormal steps besides the relative tolerance
        tiny = 4 * np.finfo(float).smallest_subnormal
        assert lower * (1 - 1e-13) - tiny <= r1 <= upper * (1 + 1e-13) + tiny


@settings(max_examples=150, deadline=None)
@given(orders, st.one_of(st.floats(1e-6, 1e8), st.floats(1e-3, 30.0)))
def test_log_bessel_random_points_against_mpmath(nu, z):
    """Relative error ≤ 2e-15 (3e-14 in the ive branch) anywhere in the domain."""
    value = float(_special.log_bessel_i_normalized(nu, z))
    ref = float(mpref.log_hyp0f1(nu, z))
    rtol = 3e-14 if _is_ive_branch(nu, z) else 2e-15
    assert abs(value - ref) <= rtol * ref, (value, ref)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.floats(-0.5, 29.99), st.integers(0, 60).map(lambda d2: d2 / 2 - 0.5)),
    st.floats(0.0, 1.0),
)
def test_recurrence_branch_within_budget(nu, position):
    """ν < 30 beyond the series (the backward recurrence from the Debye order):
    G within G_ULPS_RECURRENCE ulp (the callers' budget) and R within 8 ulp,
    at arguments log-uniform from the branch switch to 10^5 (measured max 5 and 3 ulp)."""
    nu = min(nu, 29.99)
    switch = 2.0 * math.sqrt(max(1.0, nu + 1.0))
    z = switch * (1e5 / switch) ** position * (1 + 1e-12)
    value = float(_special.log_bessel_i_normalized(nu, z))
    ref = float(mpref.log_hyp0f1(nu, z))
    assert abs(value - ref) <= _special.G_ULPS_RECURRENCE * np.finfo(float).eps * ref, (value, ref)
    ratio = float(_special.bessel_ratio(nu, z))
    ref_ratio = float(mpref.bessel_ratio(nu, z))
    assert abs(ratio - ref_ratio) <= 8 * np.finfo(float).eps * ref_ratio, (ratio, ref_ratio)


@settings(max_examples=100, deadline=None)
@given(orders, arguments)
def test_pair_against_mpmath(nu, z):
    """log_bessel_i_and_ratio: G within the branch budgets, R within 8 ulp, of mpmath."""
    g, ratio = _special.log_bessel_i_and_ratio(nu, np.array([z]))
    ref_g = float(mpref.log_hyp0f1(nu, z))
    ref_r = float(mpref.bessel_ratio(nu, z))
    eps = np.finfo(float).eps
    ulps = _special.G_ULPS_DEBYE if nu >= _special.NU_DEBYE else _special.G_ULPS_RECURRENCE
    assert abs(g[0] - ref_g) <= ulps * eps * ref_g + 1e-300, (g[0], ref_g)
    assert abs(ratio[0] - ref_r) <= 8 * eps * ref_r + 1e-300, (ratio[0], ref_r)


@settings(max_examples=60, deadline=None)
@given(orders, st.floats(1e-3, 1e8))
def test_ratio_decreasing_in_order(nu, z):
    nu2 = nu + 1.0
    assert _special.bessel_ratio(nu2, z) <= _special.bessel_ratio(nu, z) * (1 + 1e-14)


# ---------------------------------------------------------------------------
# The references themselves: three representations agree
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nu", "z"),
    [(50.0, 90.0), (100.0, 150.0), (499.0, 330.0), (4999.0, 1e4), (499999.0, 3e4), (60.0, 1e5)],
)
def test_reference_series_equals_trapezoid(nu, z):
    with mp.workdps(40):
        series = mp.log(mp.hyp0f1(nu + 1, mp.mpf(z) ** 2 / 4, maxterms=10**6))
        trapezoid = mpref._log_hyp0f1_trapezoid(nu, z)
        assert abs(series - trapezoid) <= mp.mpf(10) ** -30 * abs(series)


@pytest.mark.parametrize(("nu", "z"), [(0.0, 40.0), (12.5, 300.0), (60.0, 2e3)])
def test_reference_against_besseli(nu, z):
    with mp.workdps(40):
        assert abs(mpref.log_hyp0f1(nu, z) - mpref.log_hyp0f1_besseli(nu, z)) <= 1e-30 * z


def test_reference_against_adaptive_poisson_quadrature():
    with mp.workdps(40):
        for nu, z in [(7.0, 60.0), (300.0, 2e3)]:
            ref = mpref.log_hyp0f1(nu, z)
            assert abs(ref - mpref.log_hyp0f1_poisson_quad(nu, z)) <= 1e-25 * ref
