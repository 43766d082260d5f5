"""The library default is the rule (issue #23; docs/theory.md §3, §12, §14).

``compute_epsilon`` and ``calibrate_sigma`` with ``accountant=None`` (their
default) return the guarantee room's :func:`account` / :func:`calibrate`; each
case is also checked against the single accountants the rule picks between,
computed apart, so a second copy of the rule that drifted would fail here.
"""

from __future__ import annotations

import warnings

import pytest

from synthamp import InputError
from synthamp.accountant import (
    ACCOUNTANTS,
    EpsilonAccounting,
    EpsilonResult,
    GaussianRelease,
    Guarantee,
    OrderGridWarning,
    PldEpsilon,
    SyntheticDataRelease,
    account,
    calibrate,
    calibrate_sigma,
    calibrate_sigma_pld,
    compute_epsilon,
    profile_epsilon,
)

DELTA = 1e-5
SHAPE = dict(dim=10, norm_bound=2.0, sensitivity=0.5)
#: name -> (out_dim, n_syn, the accountant the rule takes)
CASES = {
    "k = 1 unlimited": (1, None, "pld"),
    "k = 1 finite": (1, 50, None),  # the smaller of finite RDP and unlimited PLD
    "k = 2": (2, None, "rdp"),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridWarning)
        yield


@pytest.mark.parametrize("case", CASES)
def test_compute_epsilon_by_default_is_the_rooms_guarantee(case):
    out_dim, n_syn, chosen = CASES[case]
    release = SyntheticDataRelease(**SHAPE, out_dim=out_dim, sigma=1.0, n_syn=n_syn)
    default, room = compute_epsilon(release, DELTA), account(release, DELTA)
    assert isinstance(default, EpsilonAccounting) and isinstance(default.details, Guarantee)
    assert default.details == room  # every compared field: ε, kind, accountant, reason, ...
    assert (default.epsilon, default.kind, default.accountant) == (
        room.epsilon,
        room.kind,
        room.accountant,
    )
    rdp = compute_epsilon(release, DELTA, accountant="rdp")
    assert isinstance(rdp.details, EpsilonResult) and default.epsilon_rdp == rdp.epsilon
    if chosen == "rdp":
        assert default.accountant == "rdp" and default.epsilon == rdp.epsilon
    elif chosen == "pld":  # one release: the exact profile's root (docs/theory.md §14)
        assert default.accountant == "pld"
        assert default.epsilon == profile_epsilon(release, DELTA).epsilon < rdp.epsilon
    else:  # docs/theory.md §3: the unlimited profile bounds every n_syn; the smaller is taken
        unlimited = SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0)
        weighed = min(rdp.epsilon, profile_epsilon(unlimited, DELTA).epsilon)
        assert default.guarantee is not None and default.epsilon == weighed


@pytest.mark.parametrize("case", CASES)
def test_calibrate_sigma_by_default_is_the_rooms_calibration(case):
    out_dim, n_syn, chosen = CASES[case]
    shape = dict(SHAPE, out_dim=out_dim, n_syn=n_syn)
    default, room = calibrate_sigma(1.0, DELTA, **shape), calibrate(1.0, DELTA, **shape)
    assert isinstance(default, Guarantee)
    assert default == room
    if chosen == "rdp":
        rdp = calibrate_sigma(1.0, DELTA, **shape, accountant="rdp")
        assert default.accountant == "rdp" and default.sigma == rdp.sigma
    elif chosen == "pld":
        pld = calibrate_sigma(1.0, DELTA, **shape, accountant="pld")
        assert default.accountant == "pld" and default.sigma == pld.sigma
    else:
        unlimited = calibrate_sigma_pld(1.0, DELTA, **SHAPE)
        # the finite RDP σ, where run (a proven bound may show it cannot win: not started)
        finite = default.sigma_rdp if default.sigma_rdp is not None else unlimited.sigma
        assert default.sigma == min(finite, unlimited.sigma)
    assert default.epsilon <= 1.0


def test_compute_epsilon_has_one_return_type_and_keeps_each_accountants_details():
    """One type (ε, δ, kind label, accountant, details) whichever accountant ran."""
    release = SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0)
    results = {name: compute_epsilon(release, DELTA, accountant=name) for name in ACCOUNTANTS}
    results[None] = compute_epsilon(release, DELTA)
    details = {"pld": PldEpsilon, "rdp": EpsilonResult, None: Guarantee}
    for name, result in results.items():
        assert type(result) is EpsilonAccounting and isinstance(result.details, details[name])
        assert result.epsilon == result.details.epsilon and result.delta == DELTA
        assert result.kind in ("exact", "certified") and isinstance(result.kind, str)
        assert result.accountant == (name or result.details.accountant)
    # the details' own fields read through the result (documented convenience)
    assert results["rdp"].optimal_order == results["rdp"].details.optimal_order
    assert results["pld"].epsilon_lower == results["pld"].details.epsilon_lower


def test_rtol_reaches_the_rooms_calibrations():
    coarse = calibrate_sigma(1.0, DELTA, **SHAPE, rtol=1e-2)
    assert coarse == calibrate(1.0, DELTA, **SHAPE, rtol=1e-2)
    pld = calibrate_sigma_pld(1.0, DELTA, **SHAPE, rtol=1e-2)
    assert coarse.sigma == pld.sigma != calibrate_sigma_pld(1.0, DELTA, **SHAPE).sigma


@pytest.mark.parametrize(
    ("release", "extra"),
    [
        (GaussianRelease(0.5, 1.0), ()),
        (SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0), (GaussianRelease(0.5, 1.0),)),
    ],
)
def test_the_rule_accounts_one_synthetic_release_alone(release, extra):
    with pytest.raises(InputError) as info:
        compute_epsilon(release, DELTA, extra_curves=extra)
    assert info.value.param == "accountant" and "name the accountant" in str(info.value)


@pytest.mark.parametrize("call", ["compute_epsilon", "calibrate_sigma"])
def test_an_unknown_accountant_is_refused(call):
    with pytest.raises(InputError) as info:
        if call == "compute_epsilon":
            release = SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0)
            compute_epsilon(release, DELTA, accountant="x")
        else:
            calibrate_sigma(1.0, DELTA, **SHAPE, accountant="x")
    assert info.value.param == "accountant"
