"""The certified guarantee of a k ≥ 2 release on a public design (docs/theory.md §20)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from synthamp import InputError
from synthamp.accountant._angle_reduction import orthogonal_node_rdp
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.accountant._k_certificate import (
    PublicDesignRelease,
    account_certified,
    calibrate_certified,
)

M, RIDGE = 178, 1e-2
G = (1 + M * RIDGE) ** -2  # an orthogonal design: G = g·I (docs/theory.md §20)


def _release(dim: int = 400, sigma: float = 0.2, releases: int = 1) -> PublicDesignRelease:
    return PublicDesignRelease.from_gram(G * np.eye(M), 1.0, dim, 2, sigma, releases)


def test_from_gram_on_an_orthogonal_design():
    release = _release()
    assert release.canonical_norm == pytest.approx(math.sqrt(G), rel=1e-12)
    assert release.realised_norm == pytest.approx(math.sqrt(G), rel=1e-12)
    assert release.sensitivity == pytest.approx(2 * math.sqrt(G), rel=1e-12)


def test_the_grid_route_is_certified_and_brackets_the_truth():
    result = account_certified(_release(), 1e-5, route="grid")
    assert result.kind == "certified"
    assert result.bound == "angle certificate"
    assert result.pld is None
    assert result.epsilon == result.epsilon_certificate < result.epsilon_post_processing
    assert result.epsilon_post_processing == pytest.approx(
        gaussian_epsilon(1e-5, 2 * math.sqrt(G), 0.2), rel=1e-9
    )
    # lower ≤ the π/2 node's own ε ≤ the certificate
    assert 0 < result.epsilon_lower_realised < result.epsilon_orthogonal_node < result.epsilon
    assert result.certified_over_lower == pytest.approx(
        result.epsilon / result.epsilon_lower_realised
    )
    assert 1.0 < result.certified_over_lower < 1.3
    # the certificate's curve is above the π/2 node at width d − k, by the grid's overhead
    node, err = orthogonal_node_rdp(result.rdp.orders, 400 - 2, math.sqrt(G), 0.2)
    assert np.all(result.rdp.rdp >= node + err)
    assert np.all(result.rdp.rdp <= 1.05 * (node + err))
    assert np.all(result.rdp.rdp_lower <= result.rdp.rdp)
    assert set(result.to_dict()) >= {"epsilon_lower_realised", "certified_over_lower", "kind"}


def test_the_node_route_is_the_orthogonal_node_s_pld_between_the_lower_bound_and_the_grid():
    result = account_certified(_release(), 1e-5, check_grid=True)
    assert (result.route, result.bound, result.kind) == ("node", "orthogonal node", "certified")
    assert result.epsilon == result.epsilon_node
    # the PLD of the node beats its RDP conversion, and the grid (which assumes no theorem)
    assert result.epsilon_node < result.epsilon_orthogonal_node < result.epsilon_certificate
    # the realised pair at width d (c = B√g, here = c*) is below the node at width d − 2
    assert 0.9 < result.epsilon_lower_realised / result.epsilon < 1.0
    assert result.certified_over_lower < 1.1
    data = result.to_dict()
    assert data["epsilon_lower_realised"] == result.epsilon_lower_realised
    assert data["certified_over_lower"] == result.certified_over_lower


def test_releases_compose():
    one = account_certified(_release(), 1e-5, route="grid")
    three = account_certified(_release(releases=3), 1e-5, route="grid")
    assert three.epsilon > one.epsilon
    assert three.epsilon_lower_realised > one.epsilon_lower_realised
    # the curve of one run, tripled, converts to at least the composed ε on its orders
    tripled = 3 * one.rdp
    assert np.all(tripled.rdp >= 0)
    assert three.epsilon_post_processing == pytest.approx(
        gaussian_epsilon(1e-5, 2 * math.sqrt(3 * G), 0.2), rel=1e-9
    )


def test_post_processing_is_the_guarantee_where_it_is_smaller():
    """Large σ/c*: a narrow design (d = 4, c*/σ small) against Δ/σ; whichever is smaller."""
    release = PublicDesignRelease(4, 2, canonical_norm=5.0, sensitivity=0.1, sigma=1.0)
    result = account_certified(release, 1e-5, route="grid")
    assert result.certificate is None  # the grid cannot win: not computed
    assert result.bound == "post-processing"
    assert result.epsilon == result.epsilon_post_processing < result.epsilon_certificate
    assert result.epsilon_lower_realised is None and result.certified_over_lower is None


@pytest.mark.parametrize("route", ["node", "grid"])
def test_calibration_meets_the_target_near_its_smallest_sigma(route):
    release = _release()
    result = calibrate_certified(release, 1.0, 1e-5, route=route)
    assert result.route == route
    assert result.epsilon <= 1.0
    assert result.epsilon > 0.98
    below = account_certified(release.with_sigma(result.sigma * 0.99), 1e-5, route=route)
    assert below.epsilon > 1.0
    assert result.epsilon_lower_realised is not None


def test_inputs_are_refused_with_their_parameter():
    with pytest.raises(InputError, match="out_dim"):
        PublicDesignRelease(10, 1, 1.0, 1.0, 1.0)
    with pytest.raises(InputError, match="dim"):
        PublicDesignRelease(3, 2, 1.0, 1.0, 1.0)
    with pytest.raises(InputError, match="realised_norm"):
        PublicDesignRelease(10, 2, 1.0, 1.0, 1.0, realised_norm=2.0)
    with pytest.raises(InputError, match="delta"):
        account_certified(_release(), 1.5)
    with pytest.raises(InputError, match="release"):
        account_certified("release", 1e-5)
    with pytest.raises(InputError, match="route"):
        account_certified(_release(), 1e-5, route="pld")


def test_the_dp_accounting_export_is_the_node_s_pld():
    pytest.importorskip("dp_accounting")  # the optional 'export' extra
    from synthamp.accountant._export import to_dp_accounting_pld

    release = _release(releases=2)
    exported = to_dp_accounting_pld(release, discretization=1e-3)
    ours = account_certified(release, 1e-5)
    assert exported.get_epsilon_for_delta(1e-5) == pytest.approx(ours.epsilon_node, rel=1e-6)


@pytest.mark.parametrize(("sigma", "releases"), [(0.2, 1), (0.3, 3)])
def test_the_prv_export_is_the_node_s_two_directions_composed_by_prv_accountant(sigma, releases):
    """prv_accountant, an independent discretisation with its own error bounds, composes the
    two exported PRVs (the k = 1 remove and add directions at width d − k and c*) T times
    each; its ε brackets synthamp's certified ε. Tolerance: prv's stated eps_error = 1e-3
    plus synthamp's own PLD bracket (ε − ε_lower of the node's pessimistic PLD, h = 1e-3);
    measured: 4e-6 (T = 1) and 1.3e-5 (T = 3) apart."""
    prv_accountant = pytest.importorskip("prv_accountant")  # the optional 'export' extra
    from synthamp.accountant._export import to_prv

    release = _release(sigma=sigma, releases=releases)
    ours = account_certified(release, 1e-5)
    assert ours.bound == "orthogonal node"
    remove, add = to_prv(release)
    eps_error = 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # prv_accountant's own notes on its domain
        accountant = prv_accountant.PRVAccountant(
            prvs=[remove, add], max_self_compositions=[releases, releases],
            eps_error=eps_error, delta_error=1e-10,
        )  # fmt: skip
        low, estimate, high = accountant.compute_epsilon(1e-5, [releases, releases])
    ours_lower = float(ours.pld.epsilon_lower(1e-5))
    assert high >= ours.epsilon - eps_error and low <= ours.epsilon
    assert abs(estimate - ours.epsilon) <= eps_error + (ours.epsilon - ours_lower)
    # one direction alone is not the node: it falls short of the certified ε
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = prv_accountant.PRVAccountant(
            prvs=[remove], max_self_compositions=[releases], eps_error=eps_error,
            delta_error=1e-10,
        ).compute_epsilon(1e-5, [releases])  # fmt: skip
    assert alone[2] < ours.epsilon - eps_error


def test_the_node_s_pld_composes_with_other_mechanisms():
    """The guarantee's PLD for another mechanism on the same data: orthogonal_node_pld at
    width d − k and c* on the other PLD's grid, composed direction by direction."""
    from synthamp.accountant import GaussianRelease, orthogonal_node_pld, privacy_loss_distribution

    release = _release()
    h = 1e-3
    node = orthogonal_node_pld(400 - 2, release.canonical_norm, 0.2, discretization=h)
    gauss = privacy_loss_distribution(GaussianRelease(1.0, 4.0), discretization=h)
    both = node.compose(gauss)
    alone = account_certified(release, 1e-5)
    assert both.epsilon(1e-5) > max(alone.epsilon_node, gauss.epsilon(1e-5))
    assert node.epsilon(1e-5) == pytest.approx(alone.epsilon_node, rel=1e-9)
