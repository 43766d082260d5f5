"""The k = 2 searched lower bound (accountant/_k2_search.py, rdp_curve(search=N)).

rdp_search is the exact value − error of a found adjacent pair: it must lie at or
above rdp_lower (the aligned rank-one pairs are among the candidates) and at or
below the certified curve; the found pair must be adjacent and its value must
survive an independent recomputation; ε must not move; a spent budget must still
give a lower bound and say so.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synthamp import InputError
from synthamp._budget import time_budget
from synthamp.accountant import (
    RdpCurve,
    SyntheticDataRelease,
    compute_epsilon,
    rdp_curve,
    search_lower_bound,
)
from synthamp.bounds import global_bound, post_processing_rdp
from synthamp.divergence import renyi_plateau_gram


def _psd_root(a: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((a + a.T) / 2)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def _bures_wasserstein(a: np.ndarray, b: np.ndarray) -> float:
    """min_U ‖v − Uw‖_F for Grams a = vᵀv, b = wᵀw (docs/theory.md §15), by eigendecompositions,
    and by the trace norm of a^{1/2} b^{1/2} (the nuclear-norm form) as a cross-check."""
    root_a, root_b = _psd_root(a), _psd_root(b)
    cross = np.trace(_psd_root(root_a @ b @ root_a))
    nuclear = np.linalg.svd(root_a @ root_b, compute_uv=False).sum()
    assert abs(cross - nuclear) <= 1e-9 * max(1.0, nuclear)
    return math.sqrt(max(np.trace(a) + np.trace(b) - 2 * nuclear, 0.0))


def _certified(orders, dim, c, s):
    return np.minimum(
        global_bound(orders, dim, c, s, out_dim=2), post_processing_rdp(orders, min(s, 2 * c))
    )


def test_search_between_the_aligned_pair_and_the_certified_curve():
    orders = np.array([2.0, 8.0, 100.0])
    release = SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0)
    curve = rdp_curve(release, orders, search=4)
    assert curve.rdp_lower is not None and curve.rdp_search is not None
    assert np.all(curve.rdp_search >= curve.rdp_lower)
    assert np.all(curve.rdp_search <= curve.rdp)
    assert np.all(curve.rdp <= _certified(orders, 10, 2.0, 0.5) * (1 + 1e-12))
    # order 100 is above the k = 2 engine's range: the aligned value stands
    assert curve.rdp_search[2] == curve.rdp_lower[2]
    assert "lower bound" in curve.search_note and "never a guarantee" in curve.search_note
    assert "time budget" not in curve.search_note


def test_a_rotated_pair_beats_the_aligned_pair_at_large_sensitivity():
    """A finding (issue 16): at Δ/C = 0.9 the pair of equal norms C rotated in R² to
    Bures–Wasserstein distance Δ beats the aligned rank-one pair (the exact k = 1 worst
    case with the full d) by more than 20% at α = 2. The aligned pair is not the k = 2
    worst case in general. Its value is re-checked in a second coordinate system."""
    dim, c, s, orders = 10, 1.0, 0.9, np.array([1.5, 2.0, 3.0])
    found = search_lower_bound(orders, dim, c, s, starts=4)
    assert found.complete and found.verified >= 1
    assert found.beats_aligned[1] and found.value[1] > 1.2 * found.aligned[1]
    for i in np.flatnonzero(found.beats_aligned):
        gram_v, gram_w = found.gram_v[i], found.gram_w[i]
        # adjacent: norms within C, distance within Δ after the best rotation
        assert np.trace(gram_v) <= c * c * (1 + 1e-12) and np.trace(gram_w) <= c * c * (1 + 1e-12)
        assert _bures_wasserstein(gram_v, gram_w) <= s * (1 + 1e-9)
        # independent evaluation: rotated coordinates of R² give another lattice
        rot = np.array([[math.cos(0.7), -math.sin(0.7)], [math.sin(0.7), math.cos(0.7)]])
        turned = [(g + g.T) / 2 for g in (rot @ gram_v @ rot.T, rot @ gram_w @ rot.T)]
        check = renyi_plateau_gram([orders[i]], dim, *turned, full_output=True)
        assert found.value[i] <= check.value[0] + check.error[0]
        assert found.value[i] >= check.value[0] - check.error[0] - 1e-8 * check.value[0]
    # and a lower bound must stay below the certified upper bound
    assert np.all(found.value <= _certified(orders, dim, c, s))


def test_epsilon_does_not_depend_on_the_search():
    release = SyntheticDataRelease(30, 2, 2.0, 0.5, 1.0)
    orders = [2.0, 8.0, 32.0]
    plain = compute_epsilon(release, 1e-5, orders, accountant="rdp")
    searched = compute_epsilon(release, 1e-5, orders, search=3, accountant="rdp")
    assert searched.epsilon == plain.epsilon and searched.optimal_order == plain.optimal_order
    np.testing.assert_array_equal(searched.curve.rdp, plain.curve.rdp)
    assert plain.rdp_search is None and searched.rdp_search is not None
    assert np.all(searched.rdp_search >= searched.rdp_lower)
    assert searched.search_note == searched.curve.search_note


def test_spent_budget_still_gives_a_lower_bound_and_says_so():
    release = SyntheticDataRelease(10, 2, 1.0, 0.9, 1.0)
    orders = np.array([2.0, 8.0])
    curve = rdp_curve(release, orders, search=8, time_budget=0.0)
    assert "time budget stopped the search (0 of 8 pairs screened" in curve.search_note
    assert "still a valid lower bound" in curve.search_note
    np.testing.assert_array_equal(curve.rdp_search, curve.rdp_lower)
    with time_budget(0.0):
        found = search_lower_bound(orders, 10, 1.0, 0.9, starts=8)
    assert not found.complete and found.screened == 0
    np.testing.assert_array_equal(found.value, found.aligned)


def test_composition_scales_or_drops_the_search():
    release = SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0)
    curve = rdp_curve(release, [2.0, 8.0], search=2)
    np.testing.assert_allclose((3 * curve).rdp_search, 3 * curve.rdp_search)
    assert (curve + curve).rdp_search is None
    with pytest.raises(InputError, match="rdp_search"):
        RdpCurve([2.0], [1.0], "certified", "x", rdp_search=[-1.0])


@pytest.mark.parametrize(
    "release,kwargs,rule",
    [
        (SyntheticDataRelease(10, 1, 2.0, 0.5, 1.0), {}, "out_dim = 2"),
        (SyntheticDataRelease(10, 3, 2.0, 0.5, 1.0), {}, "out_dim = 2"),
        (SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0, n_syn=100), {}, "unlimited release"),
        (SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0), {"method": "post-processing"}, "lower"),
        (SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0), {"lower": False}, "lower"),
    ],
)
def test_search_is_refused_where_it_means_nothing(release, kwargs, rule):
    with pytest.raises(InputError, match=rule):
        rdp_curve(release, [2.0], search=2, **kwargs)


def test_search_is_refused_by_the_pld_accountant():
    release = SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0)
    with pytest.raises(InputError, match=r"search: .*accountant='rdp'"):
        compute_epsilon(release, 1e-5, accountant="pld", search=2)


@pytest.mark.parametrize("starts", [-1, 1.5, True])
def test_bad_search_input(starts):
    release = SyntheticDataRelease(10, 2, 2.0, 0.5, 1.0)
    with pytest.raises(InputError, match="search"):
        rdp_curve(release, [2.0], search=starts)
    with pytest.raises(InputError, match="starts"):
        search_lower_bound([2.0], 10, 2.0, 0.5, starts=starts)
    with pytest.raises(InputError, match="seed"):
        search_lower_bound([2.0], 10, 2.0, 0.5, seed=0.5)


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dim=st.sampled_from([4, 10, 30, 100]),
    c=st.floats(0.5, 4.0),
    ratio=st.floats(0.1, 2.5),
    seed=st.integers(0, 10),
)
def test_search_stays_between_its_bounds(dim, c, ratio, seed):
    """Lower bounds below the certified upper bound, above the aligned pair, for any
    (d, C, Δ) and seed."""
    orders = np.array([1.5, 4.0, 16.0])
    s = ratio * c
    found = search_lower_bound(orders, dim, c, s, starts=3, seed=seed)
    assert np.all(found.value >= found.aligned)
    assert np.all(found.value <= _certified(orders, dim, c, s) * (1 + 1e-12))
