"""The PLD accountant and the exports (synthamp.accountant: _pld, _export; docs/theory.md §14).

Independent references: dp_accounting's own Gaussian PLD (connect-the-dots,
FFT composition) and prv_accountant (a different discretisation of the
privacy random variable, with its own error bounds).
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings

import numpy as np
import pytest

from synthamp import InputError, Kind
from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._export import MissingExtraError, to_dp_accounting_pld, to_prv
from synthamp.accountant._pld import (
    SubsampledGaussianRelease,
    compute_epsilon_pld,
    privacy_loss_distribution,
)
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.accountant._profile import profile_epsilon

dpl = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

RELEASE = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)  # docs/theory.md §14's example


# --------------------------------------------------------------------------- Gaussian pieces


@pytest.mark.parametrize(
    ("sigma", "releases"),
    [
        (2.0, 1),
        pytest.param(2.0, 10, marks=pytest.mark.slow),
        pytest.param(0.8, 3, marks=pytest.mark.slow),
    ],
)
def test_gaussian_pieces_equal_dp_accounting(sigma, releases):
    ours = privacy_loss_distribution(GaussianRelease(1.0, sigma, releases))
    theirs = dpl.from_gaussian_mechanism(sigma, 1.0, value_discretization_interval=1e-4)
    theirs = theirs.self_compose(releases) if releases > 1 else theirs
    # T > 1: our FFT power adds its accounted error (aliasing and rounding) to the mass at
    # +∞, dp_accounting does not: ours lies above theirs by at most that much in δ
    single = privacy_loss_distribution(GaussianRelease(1.0, sigma)).remove
    stated = ours.remove.infinity_mass - (1.0 - (1.0 - single.infinity_mass) ** releases)
    assert stated < 1e-11
    for delta in (1e-3, 1e-5, 1e-8):
        # equal up to the two tail truncations (ours at δ = 1e-18, theirs at mass e^-50)
        eps = ours.epsilon(delta)
        assert eps == pytest.approx(theirs.get_epsilon_for_delta(delta), rel=1e-7) or (
            theirs.get_epsilon_for_delta(delta) <= eps
            and eps <= theirs.get_epsilon_for_delta(delta - stated)
        )
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(
        ours.delta(eps), theirs.get_delta_for_epsilon(eps), rtol=1e-7, atol=1e-15 + stated
    )


@pytest.mark.slow
def test_subsampled_gaussian_matches_dp_accounting_once_and_composed():
    mech = SubsampledGaussianRelease(1.0, 1.0, 0.05)
    theirs = dpl.from_gaussian_mechanism(1.0, 1.0, sampling_prob=0.05)
    ours = compute_epsilon_pld(mech, 1e-5)
    assert ours.epsilon == pytest.approx(theirs.get_epsilon_for_delta(1e-5), abs=2e-4)
    composed = compute_epsilon_pld(SubsampledGaussianRelease(1.0, 1.0, 0.05, releases=20), 1e-5)
    # remove and add composed apart, as dp_accounting does (it was the symmetrised envelope,
    # above dp_accounting's): equal to the two discretisations
    reference = theirs.self_compose(20).get_epsilon_for_delta(1e-5)
    assert composed.epsilon == pytest.approx(reference, abs=1e-5)  # measured: 1.0e-6 apart
    assert composed.epsilon_lower <= reference


# --------------------------------------------------------------------------- the release


def test_single_release_matches_the_exact_profile_within_the_stated_error():
    result = compute_epsilon_pld(RELEASE, 1e-5)
    exact = profile_epsilon(RELEASE, 1e-5)
    assert result.kind is Kind.EXACT and result.accountant == "pld"
    assert result.epsilon_lower <= exact.epsilon_lower and exact.epsilon <= result.epsilon
    assert result.discretization_error <= 2e-4


# T = 100 is in the composition benchmark (6 s of the suite for the same agreement)
@pytest.mark.parametrize("releases", [10])
def test_composition_matches_prv_accountant(releases):
    prv_accountant = pytest.importorskip("prv_accountant")
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458, releases=releases)
    ours = compute_epsilon_pld(release, 1e-5)
    eps_error = 1e-3 if releases == 10 else 2e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one privacy random variable per direction, composed apart, the larger ε at the end
        bounds = []
        for direction in ("remove", "add"):
            accountant = prv_accountant.PRVAccountant(
                prvs=[to_prv(RELEASE, direction)],
                max_self_compositions=[releases],
                eps_error=eps_error,
                delta_error=1e-10,
            )
            bounds.append(accountant.compute_epsilon(1e-5, [releases]))
        low, estimate, high = (max(b[i] for b in bounds) for i in range(3))
    # both are pessimistic-up-to-their-errors discretisations of the same pair
    assert ours.epsilon_lower <= high and low <= ours.epsilon
    assert abs(ours.epsilon - estimate) <= ours.discretization_error + eps_error


def test_heterogeneous_composition_equals_dp_accounting_composition():
    releases = [
        SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458, releases=3),
        SyntheticDataRelease(1000, 1, 4.0, 1.0, 1.2),
        GaussianRelease(0.5, 1.0, releases=2),
    ]
    ours = compute_epsilon_pld(releases[0], 1e-6, extra=releases[1:])
    # the two release objects may meet the adjacency in either relative orientation
    values = []
    for swapped in (False, True):
        theirs = to_dp_accounting_pld(releases[0])
        theirs = theirs.compose(to_dp_accounting_pld(releases[1], swapped=swapped))
        theirs = theirs.compose(dpl.from_gaussian_mechanism(2.0, 1.0).self_compose(2))
        values.append(theirs.get_epsilon_for_delta(1e-6))
    assert ours.epsilon == pytest.approx(max(values), rel=1e-7)


GRID = [  # (dim, C, Δ, σ, T)
    (100, 2.0, 0.5, 0.7458, 1),
    (100, 2.0, 0.5, 0.7458, 10),
    (10, 1.0, 0.5, 0.5, 1),
    (1000, 4.0, 1.0, 1.0, 5),
    (1, 2.0, 1.0, 1.0, 1),
    (50, 1.0, 2.0, 1.0, 3),
]


@pytest.mark.parametrize(("dim", "C", "Delta", "sigma", "T"), GRID)
def test_pld_is_below_rdp(dim, C, Delta, sigma, T):
    release = SyntheticDataRelease(dim, 1, C, Delta, sigma, releases=T)
    for delta in (1e-3, 1e-5):
        assert (
            compute_epsilon_pld(release, delta).epsilon
            <= compute_epsilon(release, delta, accountant="rdp").epsilon
        )


def test_pld_is_non_increasing_in_sigma():
    values = [
        compute_epsilon_pld(SyntheticDataRelease(100, 1, 2.0, 0.5, s, releases=4), 1e-5).epsilon
        for s in (0.6, 0.7, 0.8, 1.0, 1.3)
    ]
    assert all(a >= b for a, b in itertools.pairwise(values))


@pytest.mark.parametrize("releases", [1, 10])
def test_calibration_is_conservative_and_tight(releases):
    cal = calibrate_sigma_pld(
        1.0, 1e-5, dim=100, norm_bound=2.0, sensitivity=0.5, releases=releases
    )
    at = SyntheticDataRelease(100, 1, 2.0, 0.5, cal.sigma, releases=releases)
    below = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.99 * cal.sigma, releases=releases)
    if releases == 1:
        assert profile_epsilon(at, 1e-5).epsilon <= 1.0
        assert profile_epsilon(below, 1e-5).epsilon > 1.0
    else:
        assert compute_epsilon_pld(at, 1e-5).epsilon <= 1.0
        assert compute_epsilon_pld(below, 1e-5).epsilon > 1.0
    assert cal.epsilon <= 1.0


def test_k_above_one_is_certified_post_processing():
    release = SyntheticDataRelease(100, 2, 2.0, 0.5, 0.7458)
    result = compute_epsilon_pld(release, 1e-5)
    assert result.kind is Kind.CERTIFIED
    gauss = compute_epsilon_pld(GaussianRelease(0.5, 0.7458), 1e-5)
    assert result.epsilon == pytest.approx(gauss.epsilon, rel=1e-12)


# --------------------------------------------------------------------------- bad input and extras


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"delta": 1e-5, "discretization": 0.0}, "discretization"),
        ({"delta": 1e-5, "discretization": -1e-4}, "discretization"),
    ],
)
def test_bad_input(kwargs, param):
    with pytest.raises(InputError, match=param):
        compute_epsilon_pld(RELEASE, **kwargs)


def test_subsampled_gaussian_validation():
    with pytest.raises(InputError, match="sampling_probability"):
        SubsampledGaussianRelease(1.0, 1.0, 1.5)


def test_missing_extra_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "prv_accountant", None)  # import raises ImportError
    with pytest.raises(MissingExtraError, match=r"synthamp\[export\]") as info:
        to_prv(RELEASE)
    assert "\n" not in str(info.value)


def test_export_composes_with_dp_accounting_gaussian():
    pld = to_dp_accounting_pld(RELEASE)
    gauss = dpl.from_gaussian_mechanism(1.0, 0.5)
    composed = pld.compose(gauss)
    ours = compute_epsilon_pld(RELEASE, 1e-5, extra=[GaussianRelease(0.5, 1.0)])
    assert composed.get_epsilon_for_delta(1e-5) == pytest.approx(ours.epsilon, rel=1e-7)
    assert math.isfinite(composed.get_epsilon_for_delta(1e-5))
