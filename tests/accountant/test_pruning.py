"""Order pruning, convexity lower bounds, the joint edge search and the pruned finite calibration.

A privacy number that is too small is a privacy bug: the lower bounds are
checked below the exact curves (engine and closed forms, with hypothesis), the
pruned ε against the ε over every order, the searched worst case above the
closed-form maximum of synthetic engines, and the pruned finite calibration
against the full accountant at its σ.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthamp.accountant._worst_case as worst_case_module
from synthamp import renyi_finite, renyi_plateau
from synthamp.accountant import (
    DEFAULT_ORDERS,
    OrderGridWarning,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
)
from synthamp.accountant._pruning import lower_curve, relevant_orders
from synthamp.accountant._rdp_conversion import _epsilon_terms

ORDERS = np.asarray(DEFAULT_ORDERS, dtype=float)


def _poisson_renyi(alpha, lam_p, lam_q):
    """D_α(Poisson(λ_p)‖Poisson(λ_q)) in closed form (an exponential family)."""
    tilted = np.exp(alpha * np.log(lam_p) + (1 - alpha) * np.log(lam_q))
    return (tilted - alpha * lam_p - (1 - alpha) * lam_q) / (alpha - 1)


@pytest.mark.parametrize(
    ("dim", "a", "b"), [(1, 2.0, 1.5), (20, 5.0, 4.5), (20, 4.5, 5.0), (1000, 20.0, 19.8)]
)
@pytest.mark.parametrize("known", [[0, 40, 41, 42], [10, 30], [0, 60, 61], [75, 80]])
def test_lower_curve_below_the_plateau(dim, a, b, known):
    exact = renyi_plateau(ORDERS, dim, a, b)
    lower = lower_curve(ORDERS, ORDERS[known], exact[known], exact[known])
    assert np.all(lower <= exact * (1 + 1e-9) + 1e-15)
    # tight at the known orders, and informative next to them
    np.testing.assert_allclose(lower[known], exact[known], rtol=1e-12)
    assert np.all(lower[known[0] :] > 0)  # monotone in α from the first known order


def test_lower_curve_below_the_finite_engine():
    known = [0, 38, 39, 40, 41, 42]
    result = renyi_finite(ORDERS, 10, 1.6, 1.2, 100, full_output=True)
    exact, error = np.asarray(result.value), np.asarray(result.error)
    lower = lower_curve(ORDERS, ORDERS[known], (exact - error)[known], (exact + error)[known])
    assert np.all(lower <= exact + error)
    # the chords reach above the known orders: at α = 256 the bound beats D at α = 18
    assert lower[-1] > exact[42]


@settings(max_examples=60, deadline=None)
@given(
    lam_p=st.floats(0.05, 5.0),
    ratio=st.one_of(st.floats(0.5, 0.9), st.floats(1.15, 2.0)),  # D well above rounding
    picks=st.lists(st.integers(0, ORDERS.size - 1), min_size=1, max_size=5, unique=True),
)
def test_lower_curve_below_closed_forms(lam_p, ratio, picks):
    exact = _poisson_renyi(ORDERS, lam_p, lam_p * ratio)  # finite: e^{α|log ratio|·λ} <= e^{180}
    known = np.sort(np.array(picks))
    lower = lower_curve(ORDERS, ORDERS[known], exact[known], exact[known])
    assert np.all(np.isfinite(exact))
    assert np.all(lower <= exact * (1 + 1e-9) + 1e-12)


@settings(max_examples=80, deadline=None)
@given(
    scale=st.floats(1e-4, 3.0),
    slack_low=st.floats(0.0, 0.9),
    slack_high=st.floats(0.0, 3.0),
    delta=st.sampled_from([1e-3, 1e-5, 1e-9]),
    seed=st.integers(0, 2**31 - 1),
)
def test_pruned_orders_keep_the_minimum(scale, slack_low, slack_high, delta, seed):
    """min over the relevant orders of ε(r) is min over every order, for any L <= r <= U."""
    rng = np.random.default_rng(seed)
    curve = scale * ORDERS * np.exp(rng.normal(0.0, 0.2, ORDERS.size))
    lower = curve * (1 - slack_low * rng.random(ORDERS.size))
    upper = curve * (1 + slack_high * rng.random(ORDERS.size))
    keep = relevant_orders(ORDERS, lower, upper, delta)
    full = np.maximum(_epsilon_terms(ORDERS, curve, delta), 0.0)
    assert keep.any()
    assert np.min(full[keep]) == np.min(full)


def test_pruning_is_sharp_on_an_ordinary_curve():
    # with the exact curve as both bounds, only the orders at the minimum remain
    curve = renyi_plateau(ORDERS, 100, 8.0, 7.5)
    keep = relevant_orders(ORDERS, curve, curve, 1e-5)
    full = _epsilon_terms(ORDERS, curve, 1e-5)
    assert keep.sum() == 1 and full[keep][0] == full.min()


# --------------------------------------------------------------------------- search


def _fake_finite(alpha, dim, n_syn, a, b):
    """A smooth edge with an order-dependent interior maximiser (closed form below)."""
    alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
    t, gap = min(a, b), abs(a - b)
    shape = t * t / (t * t + 10.0) * 2e3 / (2e3 + t * t * (1.0 + alpha / 50.0))
    value = 0.5 * alpha * gap * gap * shape * (0.9 if a < b else 1.0)
    return value, 1e-13 * value


def _fake_maximum(alpha, gap):
    t2 = np.sqrt(10.0 * 2e3 / (1.0 + alpha / 50.0))
    return 0.5 * alpha * gap * gap * t2 / (t2 + 10.0) * 2e3 / (2e3 + t2 * (1.0 + alpha / 50.0))


@pytest.mark.parametrize("hint", [None, 14.0])
def test_joint_search_bounds_order_dependent_maximisers(monkeypatch, hint):
    monkeypatch.setattr(worst_case_module, "finite_scaled", _fake_finite)
    alpha = ORDERS[::4]
    result = worst_case_module._worst_case(alpha, 20, 60.0, 0.25, 10, hint=hint)
    upper, estimate, calls = result[0], result[1], result[5]
    truth = _fake_maximum(alpha, 0.25)
    assert np.all(upper >= truth * (1 - 1e-12))  # never below the true supremum
    assert np.all(estimate <= truth * (1 + 1e-12))  # a feasible value
    assert np.all(upper <= truth * (1 + 1e-4))  # and tight
    assert np.all(result[7])  # on the forward edge
    assert calls <= 6 + 3 + 3 + worst_case_module.MAX_SEARCH_CALLS


def test_search_is_not_fooled_by_a_convex_stretch(monkeypatch):
    """Points that are not concave give no bound: the search goes on (docs/theory.md §12 guard)."""
    alpha = np.array([2.0, 8.0])

    def bump(alpha, dim, a, b):
        alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
        value = 0.25 * alpha * (a - b) ** 2
        value = value * (1.0 + 0.5 * math.exp(-((((a + b) / 2 - 2.2) / 0.4) ** 2)))
        return value * (1.2 if a < b else 1.0), 1e-15 * value

    monkeypatch.setattr(worst_case_module, "plateau_scaled", bump)
    upper = worst_case_module._worst_case(alpha, 10, 5.0, 1.0, None)[0]
    np.testing.assert_allclose(upper, 0.45 * alpha, rtol=1e-5)
    assert np.all(upper >= 0.45 * alpha)


# --------------------------------------------------------------------------- calibration


def _epsilon(release, orders):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        return compute_epsilon(release, 1e-5, orders, time_budget=None, accountant="rdp")


@pytest.mark.parametrize(
    ("dim", "norm_bound", "sensitivity", "n_syn"),
    [
        (10, 2.0, 0.5, 100),  # issue 12's slow case: the endpoint is the maximiser
        pytest.param(20, 5.0, 0.1, 1000, marks=pytest.mark.slow),  # an interior maximiser
    ],
)
def test_pruned_finite_calibration_matches_the_full_accountant(dim, norm_bound, sensitivity, n_syn):
    orders = ORDERS[::3]
    common = dict(dim=dim, norm_bound=norm_bound, sensitivity=sensitivity, orders=orders)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        cal = calibrate_sigma(
            1.0, 1e-5, **common, n_syn=n_syn, rtol=1e-3, time_budget=None, accountant="rdp"
        )
        plateau = calibrate_sigma(1.0, 1e-5, **common, rtol=1e-3, accountant="rdp")
    assert cal.fallback is None and cal.sigma <= plateau.sigma
    release = SyntheticDataRelease(dim, 1, norm_bound, sensitivity, cal.sigma, n_syn=n_syn)
    full = _epsilon(release, orders)  # every order, the guarded worst case at each
    # the same ε and order as the accountant over every order (to the search's tolerance)
    assert cal.epsilon <= 1.0
    assert full.epsilon <= 1.0 + 1e-6
    assert cal.epsilon == pytest.approx(full.epsilon, abs=1e-5)
    assert cal.optimal_order == full.optimal_order
    # and the smallest such σ (bracket 1e-3)
    assert _epsilon(release.with_sigma(cal.sigma * (1 - 2e-3)), orders).epsilon > 1.0
