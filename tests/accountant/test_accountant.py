"""Tests of synthamp.accountant: worst case, RDP curves, (ε, δ), composition, calibration.

References, none of them the accountant's own output:

* the worst case is compared with a dense two-dimensional scan of the constraint
  set {a, b ∈ [0, c], |a − b| <= s} by the exact engine (no maximiser assumed),
  and the monotone-likelihood-ratio lemma behind the search is checked directly;
* the (ε, δ) conversion, composition and the post-processing calibration are
  compared with Google's ``dp_accounting`` (``RdpAccountant``,
  ``GaussianDpEvent``) — skipped with a reason when it is not installed;
* Gaussian closed forms (αΔ²/(2σ²), and T-fold composition = Δ√T);
* the calibration is checked by recomputing ε at the returned σ and just below.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthamp import InputError, Kind, renyi_finite, renyi_plateau
from synthamp.accountant import (
    DEFAULT_ORDERS,
    GaussianRelease,
    OrderGridWarning,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
    rdp_curve,
    rdp_to_epsilon,
    worst_case_rdp,
)

DP_ACCOUNTING_REASON = "dp_accounting (optional extra 'crosscheck') is not installed"


def _dp_accounting():
    dp = pytest.importorskip("dp_accounting", reason=DP_ACCOUNTING_REASON)
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib

    return dp, rdp_lib


# --------------------------------------------------------------------------- references


def dense_scan(alpha, dim, c, s, n_syn=None, grid=11):
    """max of D_α(P_a‖P_b) over a, b ∈ [0, c], |a − b| <= s by a dense scan (scaled units).

    Every pair of a (grid+1)×(grid+1) grid of the square that is feasible, plus
    the pairs at distance exactly s from every grid amplitude, in both orders.
    Returns (max value, engine error at the max) for each order.
    """
    amps = np.linspace(0.0, c, grid + 1)
    pairs = {(a, b) for a in amps for b in amps if a != b and abs(a - b) <= s * (1 + 1e-12)}
    for a in amps:
        for b in (a - s, a + s):
            if 0.0 <= b <= c:
                pairs.update({(a, b), (b, a)})
    alpha = np.atleast_1d(alpha)
    best = np.zeros(alpha.size)
    best_err = np.zeros(alpha.size)
    for a, b in sorted(pairs):
        if n_syn is None:
            res = renyi_plateau(alpha, dim, a, b, 1.0, full_output=True)
        else:
            res = renyi_finite(alpha, dim, a, b, n_syn, 1.0, full_output=True)
        value, error = np.asarray(res.value), np.abs(np.asarray(res.error))
        better = value > best
        best = np.where(better, value, best)
        best_err = np.where(better, error, best_err)
    return best, best_err


def check_against_scan(alpha, dim, c, s, n_syn=None, grid=11):
    wc = worst_case_rdp(alpha, dim, c, s, 1.0, n_syn, full_output=True)
    scan, scan_err = dense_scan(alpha, dim, c, s, n_syn, grid)
    # Soundness: the accountant's value bounds every feasible pair.
    slack = scan_err + 1e-12 * scan
    assert np.all(wc.value >= scan - slack), (wc.value, scan)
    # The maximiser is feasible and reproduces the estimate.
    assert np.all((wc.norm_v >= 0) & (wc.norm_v <= c * (1 + 1e-12)))
    assert np.all((wc.norm_w >= 0) & (wc.norm_w <= c * (1 + 1e-12)))
    assert np.all(np.abs(wc.norm_v - wc.norm_w) <= s * (1 + 1e-12))
    # Tightness: the value is not far above the best scanned pair (the scan
    # contains the forward endpoint, so this only allows for the engine error).
    assert np.all(wc.estimate <= scan + slack + wc.error + 1e-9 * scan)
    return wc, scan


# --------------------------------------------------------------------------- orders


def test_default_orders():
    orders = DEFAULT_ORDERS
    assert 64 <= orders.size <= 100
    assert orders[0] == 1.01 and orders[-1] == 256.0
    assert np.all(np.diff(orders) > 0)
    assert set(range(2, 33)) <= {float(a) for a in orders}
    assert not orders.flags.writeable


def test_default_orders_are_dp_accounting_orders_where_they_overlap():
    _, rdp_lib = _dp_accounting()
    theirs = {round(a, 9) for a in rdp_lib.DEFAULT_RDP_ORDERS}
    ours = [a for a in DEFAULT_ORDERS if 1.1 <= a <= 63 or a in (128.0, 256.0)]
    assert all(round(a, 9) in theirs for a in ours)


# --------------------------------------------------------------------------- (ε, δ)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1e-6, 50.0), min_size=3, max_size=12),
    st.floats(1e-9, 0.5),
)
def test_rdp_to_epsilon_matches_dp_accounting(rdp_values, delta):
    _, rdp_lib = _dp_accounting()
    orders = np.linspace(1.5, 80.0, len(rdp_values))
    rdp = np.asarray(rdp_values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        eps, order = rdp_to_epsilon(orders, rdp, delta)
    ref_eps, _ = rdp_lib.compute_epsilon(orders, rdp, delta)
    assert eps == pytest.approx(ref_eps, rel=1e-12, abs=1e-15)
    assert order in orders


@pytest.mark.parametrize("noise_multiplier", [0.6, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("releases", [1, 4])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_post_processing_equals_dp_accounting_gaussian(noise_multiplier, releases, delta):
    dp, rdp_lib = _dp_accounting()
    sensitivity = 0.37
    release = SyntheticDataRelease(
        dim=500,
        out_dim=1,
        norm_bound=4.0,
        sensitivity=sensitivity,
        sigma=noise_multiplier * sensitivity,
        releases=releases,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        ours = compute_epsilon(release, delta, method="post-processing", accountant="rdp")
    accountant = rdp_lib.RdpAccountant(orders=list(DEFAULT_ORDERS))
    accountant.compose(dp.GaussianDpEvent(noise_multiplier=noise_multiplier), releases)
    ref_eps, ref_order = accountant.get_epsilon_and_optimal_order(delta)
    assert ours.epsilon == pytest.approx(ref_eps, rel=1e-10)
    assert ours.optimal_order == ref_order
    assert ours.epsilon_post_processing == pytest.approx(ref_eps, rel=1e-10)
    # The release's own dp_accounting description gives the same number.
    accountant = rdp_lib.RdpAccountant(orders=list(DEFAULT_ORDERS))
    accountant.compose(release.to_dp_event())
    assert accountant.get_epsilon(delta) == pytest.approx(ref_eps, rel=1e-10)


def test_rdp_to_epsilon_zero_case_and_inf():
    # δ >= √(1 − e^{−ε(α)}) at some order gives ε = 0.
    orders = np.array([2.0, 4.0])
    assert rdp_to_epsilon(orders, [1e-12, 1e-12], 1e-5)[0] == 0.0
    assert rdp_to_epsilon(orders, [np.inf, np.inf], 1e-5)[0] == math.inf
    eps, order = rdp_to_epsilon(orders, [np.inf, 0.1], 1e-5, warn=False)
    assert order == 4.0 and math.isfinite(eps)


def test_rdp_to_epsilon_warns_at_grid_edges():
    orders = np.arange(2.0, 11.0)
    with pytest.warns(OrderGridWarning, match="edge"):  # tiny noise: wants α < 2
        rdp_to_epsilon(orders, orders * 50.0, 1e-5)
    with pytest.warns(OrderGridWarning, match="edge"):  # huge noise: wants α > 10
        rdp_to_epsilon(orders, orders * 1e-4, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OrderGridWarning)
        rdp_to_epsilon(DEFAULT_ORDERS, DEFAULT_ORDERS * 0.01, 1e-5)  # interior optimum


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rdp": [-0.1, 0.2], "delta": 1e-5},
        {"rdp": [np.nan, 0.2], "delta": 1e-5},
        {"rdp": [0.1, 0.2], "delta": 0.0},
        {"rdp": [0.1, 0.2], "delta": 1.0},
        {"rdp": [0.1], "delta": 1e-5},
    ],
)
def test_rdp_to_epsilon_invalid(kwargs):
    with pytest.raises(InputError):
        rdp_to_epsilon([2.0, 3.0], **kwargs)


# --------------------------------------------------------------------------- worst case


def test_mlr_reduction_lemma():
    """The lemma behind the search: moving a away from b (or b away from a) never decreases D."""
    alpha = np.array([1.5, 4.0, 32.0])
    for dim in (1, 7, 200):
        amps = np.linspace(0.0, 3.0, 7)
        for b in amps[[0, 3]]:
            up = [renyi_plateau(alpha, dim, a, b) for a in amps if a >= b]
            down = [renyi_plateau(alpha, dim, a, b) for a in amps if a <= b]
            assert np.all(np.diff(np.array(up), axis=0) >= -1e-12)
            assert np.all(np.diff(np.array(down), axis=0) <= 1e-12)
            # b moving away from a = 3 (b decreasing).
            away = [renyi_plateau(alpha, dim, 3.0, bb) for bb in amps[::-1]]
            assert np.all(np.diff(np.array(away), axis=0) >= -1e-12)


PLATEAU_GRID = [
    # dim, c, s, grid
    (1, 2.0, 0.5, 11),
    (2, 0.5, 0.2, 11),
    (5, 3.0, 1.0, 11),
    (50, 2.0, 0.5, 11),  # docs/theory.md §7 example: exact worst case 0.0280 at α = 2
    (50, 1.0, 2.5, 6),  # s > c: the whole square is feasible; corners (c, 0), (0, c)
    (1000, 20.0, 0.2, 11),
    (10**5, 40.0, 3.0, 11),
]


@pytest.mark.parametrize(("dim", "c", "s", "grid"), PLATEAU_GRID)
def test_worst_case_plateau_against_dense_scan(dim, c, s, grid):
    alpha = np.array([1.1, 2.0, 8.0, 64.0, 256.0])
    check_against_scan(alpha, dim, c, s, grid=grid)


def test_worst_case_theory_example():
    # docs/theory.md §7: σ = 1, α = 2, d = 50, C = 2, Δ = 0.5: exact worst case 0.0280.
    wc = worst_case_rdp(2.0, 50, 2.0, 0.5, full_output=True)
    assert wc.value[0] == pytest.approx(0.0280, abs=5e-5)
    assert (wc.norm_v[0], wc.norm_w[0]) == (2.0, 1.5)


@pytest.mark.slow
@pytest.mark.parametrize(("dim", "c", "s", "n_syn"), [(5, 2.0, 0.7, 3), (50, 3.0, 1.0, 40)])
def test_worst_case_finite_against_dense_scan(dim, c, s, n_syn):
    alpha = np.array([2.0, 16.0, 128.0])
    check_against_scan(alpha, dim, c, s, n_syn, grid=6)


def test_search_finds_an_interior_maximiser(monkeypatch):
    """The guard and fallback find a maximiser off the forward endpoint (synthetic engine).

    The fake divergence α(a − b)²/4 · (1 + bump at mean amplitude 2.2) · (1.2 if
    a < b) peaks inside the reverse edge, at t = 1.7 for c = 5, s = 1, with
    value 0.45·α (closed form; below the cap α s²/2); the real engine never
    does (tests above).
    """
    import synthamp.accountant._worst_case as worst_case_module

    def fake(alpha, dim, a, b):  # the engine's scaled kernel: (value, error)
        alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
        bump = 1.0 + 0.5 * math.exp(-((((a + b) / 2 - 2.2) / 0.4) ** 2))
        value = 0.25 * alpha * (a - b) ** 2 * bump * (1.2 if a < b else 1.0)
        return value, 1e-15 * value

    monkeypatch.setattr(worst_case_module, "plateau_scaled", fake)
    alpha = np.array([2.0, 8.0])
    wc = worst_case_rdp(alpha, 10, 5.0, 1.0, full_output=True)
    # the value includes the search's remaining concave bound (<= SEARCH_RTOL relative)
    assert np.all(wc.value >= 0.45 * alpha)
    np.testing.assert_allclose(wc.value, 0.45 * alpha, rtol=2 * worst_case_module.SEARCH_RTOL)
    assert np.all(wc.norm_w - wc.norm_v == pytest.approx(1.0))
    np.testing.assert_allclose((wc.norm_v + wc.norm_w) / 2, 2.2, atol=2e-3)


def test_worst_case_finite_below_plateau():
    alpha = np.array([2.0, 8.0, 32.0])
    finite = worst_case_rdp(alpha, 20, 2.0, 0.5, n_syn=5)
    plateau = worst_case_rdp(alpha, 20, 2.0, 0.5)
    assert np.all(finite <= plateau * (1 + 1e-6))
    assert np.all(finite > 0)


def test_a_billion_records_are_accounted_exactly():
    """n_syn up to 10^9 (issue 12): ε non-decreasing in n_syn, strictly below unlimited."""
    eps = [
        compute_epsilon(
            SyntheticDataRelease(1000, 1, 2.0, 0.1, 0.5, n_syn=n), 1e-5, accountant="rdp"
        ).epsilon
        for n in (10**7, 10**8, 10**9, None)
    ]
    assert eps[0] <= eps[1] <= eps[2] < eps[3]
    with pytest.raises(InputError, match="n_syn"):
        SyntheticDataRelease(1000, 1, 2.0, 0.1, 0.5, n_syn=10**9 + 1)


def test_worst_case_units_and_cap():
    alpha = np.array([2.0, 8.0])
    natural = worst_case_rdp(alpha, 30, 6.0, 1.5, sigma=3.0)
    scaled = worst_case_rdp(alpha, 30, 2.0, 0.5)
    np.testing.assert_allclose(natural, scaled, rtol=1e-12)
    # Never above post-processing α·min(Δ, C)²/(2σ²).
    assert np.all(natural <= 0.5 * alpha * 0.5**2)
    # Only min(Δ, C) matters for k = 1.
    np.testing.assert_array_equal(
        worst_case_rdp(alpha, 30, 1.0, 1.0), worst_case_rdp(alpha, 30, 1.0, 7.0)
    )


def test_worst_case_monotone_in_sigma():
    alpha = np.array([2.0, 16.0, 128.0])
    sigmas = np.geomspace(0.05, 20.0, 9)
    values = np.array([worst_case_rdp(alpha, 100, 2.0, 0.3, sigma) for sigma in sigmas])
    assert np.all(np.diff(values, axis=0) <= 1e-12 * values[:-1])


# --------------------------------------------------------------------------- curves


def test_rdp_curve_methods_k1():
    release = SyntheticDataRelease(200, 1, 2.0, 0.3, 0.5)
    orders = np.array([2.0, 8.0, 32.0])
    exact = rdp_curve(release, orders)
    glob = rdp_curve(release, orders, "global")
    post = rdp_curve(release, orders, "post-processing")
    assert exact.kind is Kind.EXACT and glob.kind is Kind.CERTIFIED
    assert post.kind is Kind.CERTIFIED and exact.rdp_lower is None
    np.testing.assert_allclose(post.rdp, orders * 0.3**2 / (2 * 0.5**2), rtol=1e-15)
    assert np.all(exact.rdp <= post.rdp) and np.all(exact.rdp <= glob.rdp)
    assert np.all(exact.rdp > 0)


def test_rdp_curve_k_greater_than_one_has_certified_curve_and_exact_lower():
    from synthamp.bounds import global_bound

    release = SyntheticDataRelease(2000, 4, 3.0, 0.5, 1.0)
    orders = np.array([2.0, 8.0, 32.0])
    curve = rdp_curve(release, orders)
    assert curve.kind is Kind.CERTIFIED
    expected = np.minimum(global_bound(orders, 2000, 3.0, 0.5, 1.0, out_dim=4), orders * 0.5**2 / 2)
    np.testing.assert_allclose(curve.rdp, expected, rtol=1e-15)
    k1 = worst_case_rdp(orders, 2000, 3.0, 0.5, full_output=True)
    np.testing.assert_allclose(curve.rdp_lower, k1.lower, rtol=1e-15)
    assert np.all(curve.rdp_lower <= curve.rdp)
    glob = rdp_curve(release, orders, "global")
    assert glob.rdp_lower is not None


def test_composition():
    orders = np.array([2.0, 8.0, 32.0])
    gauss = rdp_curve(GaussianRelease(0.4, 1.3), orders)
    np.testing.assert_allclose(gauss.rdp, orders * 0.4**2 / (2 * 1.3**2), rtol=1e-15)
    # T-fold composition of a Gaussian = one Gaussian with sensitivity Δ√T.
    np.testing.assert_allclose(
        rdp_curve(GaussianRelease(0.4, 1.3, releases=5), orders).rdp,
        rdp_curve(GaussianRelease(0.4 * math.sqrt(5), 1.3), orders).rdp,
        rtol=1e-14,
    )
    np.testing.assert_allclose((3 * gauss).rdp, (gauss + gauss + gauss).rdp, rtol=1e-15)

    release = SyntheticDataRelease(300, 1, 2.0, 0.3, 0.6)
    one = rdp_curve(release, orders)
    three = rdp_curve(SyntheticDataRelease(300, 1, 2.0, 0.3, 0.6, releases=3), orders)
    np.testing.assert_allclose(three.rdp, 3 * one.rdp, rtol=1e-14)
    total = one + gauss
    assert total.kind is Kind.EXACT
    np.testing.assert_allclose(total.rdp, one.rdp + gauss.rdp, rtol=1e-15)
    certified = rdp_curve(release, orders, "post-processing") + gauss
    assert certified.kind is Kind.CERTIFIED
    with pytest.raises(InputError, match="same orders"):
        one + rdp_curve(GaussianRelease(0.4, 1.3), [2.0, 8.0, 33.0])


def test_compute_epsilon_with_extra_curves_matches_dp_accounting():
    dp, rdp_lib = _dp_accounting()
    release = SyntheticDataRelease(400, 1, 2.0, 0.3, 1.5, releases=2)
    extra = GaussianRelease(sensitivity=0.3, sigma=2.0, releases=3)
    result = compute_epsilon(
        release, 1e-6, method="post-processing", extra_curves=[extra], accountant="rdp"
    )
    accountant = rdp_lib.RdpAccountant(orders=list(DEFAULT_ORDERS))
    accountant.compose(
        dp.ComposedDpEvent(
            [
                dp.SelfComposedDpEvent(dp.GaussianDpEvent(1.5 / 0.3), 2),
                dp.SelfComposedDpEvent(dp.GaussianDpEvent(2.0 / 0.3), 3),
            ]
        )
    )
    assert result.epsilon == pytest.approx(accountant.get_epsilon(1e-6), rel=1e-10)
    # The exact accountant composed with the same extra: smaller, same baseline.
    amplified = compute_epsilon(release, 1e-6, extra_curves=[extra], accountant="rdp")
    assert amplified.epsilon < result.epsilon
    assert amplified.epsilon_post_processing == pytest.approx(result.epsilon, rel=1e-12)


def test_heuristics_are_labelled_and_refused():
    release = SyntheticDataRelease(1000, 1, 2.0, 0.1, 0.5)
    orders = [2.0, 8.0, 32.0, 64.0, 128.0, 256.0]
    result = compute_epsilon(release, 1e-5, orders=orders, accountant="rdp")
    assert result.heuristics["local_upper"].kind is Kind.HEURISTIC
    with pytest.raises(InputError, match="heuristic"):
        result.heuristics["local_upper"].epsilon(1e-5)
    with pytest.raises(InputError, match="extra_curves"):
        compute_epsilon(
            release,
            1e-5,
            orders=orders,
            extra_curves=[result.heuristics["local_upper"]],
            accountant="rdp",
        )


def test_sensitivity_above_twice_the_norm_bound():
    orders = np.array([2.0, 8.0])
    big = SyntheticDataRelease(100, 1, 1.0, 10.0, 1.0)
    capped = SyntheticDataRelease(100, 1, 1.0, 2.0, 1.0)
    assert big.effective_sensitivity == 2.0
    np.testing.assert_array_equal(
        rdp_curve(big, orders, "post-processing").rdp,
        rdp_curve(capped, orders, "post-processing").rdp,
    )
    np.testing.assert_array_equal(rdp_curve(big, orders).rdp, rdp_curve(capped, orders).rdp)
    k2_big = SyntheticDataRelease(100, 2, 1.0, 10.0, 1.0)
    k2_capped = SyntheticDataRelease(100, 2, 1.0, 2.0, 1.0)
    np.testing.assert_array_equal(
        rdp_curve(k2_big, orders, lower=False).rdp, rdp_curve(k2_capped, orders, lower=False).rdp
    )


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"dim": 0}, "dim"),
        ({"out_dim": 0}, "out_dim"),
        ({"out_dim": 11}, "out_dim"),
        ({"norm_bound": 0.0}, "norm_bound"),
        ({"norm_bound": -1.0}, "norm_bound"),
        ({"sensitivity": 0.0}, "sensitivity"),
        ({"sigma": 0.0}, "sigma"),
        ({"sigma": math.inf}, "sigma"),
        ({"n_syn": 0}, "n_syn"),
        ({"releases": 0}, "releases"),
        ({"releases": 1.5}, "releases"),
    ],
)
def test_release_validation(kwargs, param):
    base = {"dim": 10, "out_dim": 1, "norm_bound": 1.0, "sensitivity": 0.1, "sigma": 1.0}
    with pytest.raises(InputError) as info:
        SyntheticDataRelease(**{**base, **kwargs})
    assert info.value.param == param


def test_release_is_frozen():
    release = SyntheticDataRelease(10, 1, 1.0, 0.1, 1.0)
    with pytest.raises(AttributeError):
        release.sigma = 2.0  # type: ignore[misc]
    assert release.with_sigma(2.0).sigma == 2.0 and release.sigma == 1.0


def test_invalid_method_and_orders():
    release = SyntheticDataRelease(10, 1, 1.0, 0.1, 1.0)
    with pytest.raises(InputError, match="method"):
        rdp_curve(release, method="renyi")
    with pytest.raises(InputError, match="orders"):
        rdp_curve(release, orders=[1.0, 2.0])


# --------------------------------------------------------------------------- calibration


CALIBRATIONS = [
    # epsilon, delta, dim, out_dim, norm_bound, sensitivity, n_syn, releases, method
    (1.0, 1e-5, 1000, 1, 2.0, 0.1, None, 1, "exact"),
    (0.5, 1e-6, 50, 1, 2.0, 0.5, None, 3, "exact"),
    (1.0, 1e-5, 10**4, 3, 1.0, 0.1, None, 1, "exact"),
    (2.0, 1e-5, 10**5, 1, 1.0, 0.2, None, 1, "global"),
    (1.0, 1e-5, 100, 1, 1.0, 0.3, None, 2, "post-processing"),
]


@pytest.mark.parametrize(
    (
        "epsilon",
        "delta",
        "dim",
        "out_dim",
        "norm_bound",
        "sensitivity",
        "n_syn",
        "releases",
        "method",
    ),
    CALIBRATIONS,
)
def test_calibration_conservative_and_tight(
    epsilon, delta, dim, out_dim, norm_bound, sensitivity, n_syn, releases, method
):
    cal = calibrate_sigma(
        epsilon,
        delta,
        dim=dim,
        out_dim=out_dim,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        n_syn=n_syn,
        releases=releases,
        method=method,
        accountant="rdp",
    )

    def eps_at(sigma, how=method):
        release = SyntheticDataRelease(
            dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridWarning)
            return compute_epsilon(release, delta, method=how, accountant="rdp").epsilon

    assert cal.epsilon <= epsilon
    assert eps_at(cal.sigma) <= epsilon
    assert eps_at(cal.sigma * (1 - 1e-3)) > epsilon
    assert eps_at(cal.sigma_post_processing, "post-processing") <= epsilon
    assert eps_at(cal.sigma_post_processing * (1 - 1e-3), "post-processing") > epsilon
    assert cal.noise_reduction == pytest.approx(1 - cal.sigma / cal.sigma_post_processing)
    if method != "global":
        assert cal.sigma <= cal.sigma_post_processing


def test_calibration_post_processing_against_dp_accounting():
    dp, rdp_lib = _dp_accounting()
    cal = calibrate_sigma(
        0.8,
        1e-6,
        dim=10,
        norm_bound=1.0,
        sensitivity=0.25,
        releases=3,
        method="post-processing",
        accountant="rdp",
    )

    def their_eps(sigma):
        accountant = rdp_lib.RdpAccountant(orders=list(DEFAULT_ORDERS))
        accountant.compose(dp.GaussianDpEvent(sigma / 0.25), 3)
        return accountant.get_epsilon(1e-6)

    assert their_eps(cal.sigma) <= 0.8
    assert their_eps(cal.sigma * (1 - 1e-3)) > 0.8


def test_amplification_saves_noise():
    cal = calibrate_sigma(1.0, 1e-5, dim=1000, norm_bound=2.0, sensitivity=0.1, accountant="rdp")
    assert cal.noise_reduction > 0.05
    assert cal.sigma < cal.sigma_post_processing
    k3 = calibrate_sigma(
        1.0, 1e-5, dim=10**5, out_dim=3, norm_bound=0.5, sensitivity=0.1, accountant="rdp"
    )
    assert k3.sigma < k3.sigma_post_processing


@pytest.mark.parametrize("method", ["exact", "global", "post-processing"])
def test_epsilon_monotone_in_sigma(method):
    sigmas = np.geomspace(0.02, 5.0, 8)
    orders = DEFAULT_ORDERS[::2]
    eps = []
    for sigma in sigmas:
        release = SyntheticDataRelease(300, 1, 1.0, 0.2, sigma)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridWarning)
            eps.append(
                compute_epsilon(release, 1e-5, orders, method=method, accountant="rdp").epsilon
            )
    eps = np.array(eps)
    assert np.all(np.diff(eps) <= 1e-12 * eps[:-1])
    assert eps[0] > eps[-1]


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"sensitivity": 0.0}, "sensitivity"),
        ({"norm_bound": 0.0}, "norm_bound"),
        ({"releases": 0}, "releases"),
        ({"method": "magic"}, "method"),
    ],
)
def test_calibration_invalid_input(kwargs, param):
    base = {"epsilon": 1.0, "delta": 1e-5, "dim": 10, "norm_bound": 1.0, "sensitivity": 0.1}
    args = {**base, **kwargs}
    with pytest.raises(InputError) as info:
        calibrate_sigma(args.pop("epsilon"), args.pop("delta"), **args)
    assert info.value.param == param
